# Installs the build tree into a fresh PREFIX, then builds the C driver against the
# installed libredist_scalapack twice, as users would: find_package(redist COMPONENTS
# scalapack) and pkg-config's redist-scalapack; runs both (MPIEXEC, a |-list) and checks
# that the drivers find redist's p?gemr2d and get every element right.
#   cmake -DBUILD_DIR= -DPREFIX= -DWORK= -DDRIVER= -DSCALAPACK= -DMPICC= -DMPIEXEC=
#         -DGENERATOR= -DCONFIG= [-DKOKKOS_DIR=] -P run.cmake
string(REPLACE "|" ";" MPIEXEC "${MPIEXEC}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
function(check_driver)
  run(${MPIEXEC} 2 ${ARGN} --cases 2 --expect redist)
  if(NOT out MATCHES "implementation: redist_scalapack" OR NOT out MATCHES "all elements right")
    message(FATAL_ERROR "the installed driver did not run redist's p?gemr2d right")
  endif()
endfunction()

file(REMOVE_RECURSE "${PREFIX}" "${WORK}")
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" --config "${CONFIG}")

# find_package
set(args -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  -DCMAKE_BUILD_TYPE=${CONFIG} -DDRIVER=${DRIVER} -DSCALAPACK=${SCALAPACK})
if(KOKKOS_DIR)
  list(APPEND args -DKokkos_DIR=${KOKKOS_DIR})
endif()
get_filename_component(src "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
run("${CMAKE_COMMAND}" -S "${src}" -B "${WORK}/cmake" -G "${GENERATOR}" ${args})
run("${CMAKE_COMMAND}" --build "${WORK}/cmake" --config "${CONFIG}")
file(GLOB_RECURSE exe LIST_DIRECTORIES false "${WORK}/cmake/consumer")
check_driver(${exe})

# pkg-config
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  file(GLOB_RECURSE pc LIST_DIRECTORIES false "${PREFIX}/*/redist-scalapack.pc")
  get_filename_component(pcdir "${pc}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  run("${PKG_CONFIG}" --libs redist-scalapack)
  separate_arguments(libs UNIX_COMMAND "${out}")
  run("${MPICC}" -std=c11 -o "${WORK}/pkg-consumer" "${DRIVER}"
    "-DREDIST_TEST_SCALAPACK_PATH=\"${SCALAPACK}\"" ${libs} -ldl)
  check_driver("${WORK}/pkg-consumer")
else()
  message("pkg-config not found: the pkg-config consumer is skipped")
endif()
