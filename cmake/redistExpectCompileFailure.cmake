# cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DCONFIG=<cfg> -DSOURCE=<file.cpp> -P this
# Passes only if building TARGET fails AND its output matches the regex on SOURCE's
# "// EXPECT: <regex>" line, so a file that fails for the wrong reason does not pass.
file(STRINGS "${SOURCE}" _expect REGEX "^// EXPECT: " LIMIT_COUNT 1)
if(NOT _expect)
  message(FATAL_ERROR "${SOURCE}: missing a '// EXPECT: <regex>' line")
endif()
string(REGEX REPLACE "^// EXPECT: *" "" _regex "${_expect}")
string(STRIP "${_regex}" _regex)

set(_config_args "")
if(CONFIG)
  set(_config_args --config "${CONFIG}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" ${_config_args}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)

if(_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not (expected: ${_regex})")
endif()
if(NOT _out MATCHES "${_regex}")
  message(FATAL_ERROR "${SOURCE} failed for another reason than '${_regex}':\n${_out}")
endif()
message(STATUS "${TARGET}: failed as expected (${_regex})")
