# Installs the build tree into a fresh PREFIX and runs a test file against the installed
# package alone (PYTHONPATH = the install's package directory), checking that it is the
# installed copy that imports.
#   cmake -DBUILD_DIR= -DPREFIX= -DSITE= -DPYTHON= -DTEST_FILE= "-DMPIEXEC=mpiexec;flags;-n;2"
#         -P run_installed.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
  OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(ENV{PYTHONPATH} "${PREFIX}/${SITE}")
# From the prefix: Python puts the working directory first on its path, and the test runs in
# the build tree, which holds a package redist too.
execute_process(COMMAND "${PYTHON}" -c "import redist, sys; print(redist.__file__)"
  WORKING_DIRECTORY "${PREFIX}" OUTPUT_VARIABLE where OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT where MATCHES "^${PREFIX}/${SITE}/redist/")
  message(FATAL_ERROR "the installed package does not import from ${PREFIX}/${SITE}: '${where}' (${rc})")
endif()
execute_process(COMMAND ${MPIEXEC} "${PYTHON}" -m pytest -q -p no:cacheprovider "${TEST_FILE}"
  WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_FILE} failed against the installed package (${rc})")
endif()
