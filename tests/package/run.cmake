# Builds and runs a consumer project of redist, the way a user would.
#   cmake -DSOURCE_DIR= -DBINARY_DIR= -DGENERATOR= -DCXX_COMPILER= -DCONFIG=
#         -DREDIST_SOURCE_DIR= -DEXPECTED_VERSION= [-DKOKKOS_DIR=] [-DINSTALL_FROM= -DPREFIX=]
#         [-DEXPECT_ENGINE=ON] [-DEXPECT_NOT_BUILT=GLOB|GLOB...] -P run.cmake
# EXPECT_NOT_BUILT: file names (globs) that the consumer's build must not have made.
# With INSTALL_FROM, first installs that build tree into PREFIX (a fresh one) and points the
# consumer's find_package there.
function(run)
  string(REPLACE ";" " " _cmd "${ARGN}")
  message(STATUS "run: ${_cmd}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "failed (${_rc}): ${_cmd}")
  endif()
endfunction()

if(NOT CONFIG)
  set(CONFIG Release)
endif()
set(_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${CONFIG}
          -DREDIST_EXPECTED_VERSION=${EXPECTED_VERSION})
if(KOKKOS_DIR)
  list(APPEND _args -DKokkos_DIR=${KOKKOS_DIR})
endif()
if(EXPECT_ENGINE)  # the consumer links redist::engine, the compiled engine
  list(APPEND _args -DREDIST_EXPECT_ENGINE=ON)
endif()
if(NOT INSTALL_FROM)
  list(APPEND _args -DREDIST_SOURCE_DIR=${REDIST_SOURCE_DIR})
else()
  file(REMOVE_RECURSE "${PREFIX}")
  run("${CMAKE_COMMAND}" --install "${INSTALL_FROM}" --prefix "${PREFIX}" --config ${CONFIG})
  # Only the fresh prefix, never the source tree or a system-wide redist.
  list(APPEND _args -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
endif()

file(REMOVE_RECURSE "${BINARY_DIR}")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}" ${_args})
run("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --config ${CONFIG})
file(GLOB_RECURSE _exe LIST_DIRECTORIES false "${BINARY_DIR}/redist-consumer"
     "${BINARY_DIR}/redist-consumer.exe")
if(NOT _exe)
  message(FATAL_ERROR "no redist-consumer executable under ${BINARY_DIR}")
endif()
list(GET _exe 0 _exe)
run("${_exe}")
foreach(_glob IN LISTS EXPECT_NOT_BUILT)
  file(GLOB_RECURSE _made LIST_DIRECTORIES false "${BINARY_DIR}/${_glob}")
  if(_made)
    message(FATAL_ERROR "the consumer's build made ${_made}: ${_glob} is built only when asked for")
  endif()
endforeach()
