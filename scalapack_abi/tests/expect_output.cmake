# Runs RUN and passes when it exits 0 and its output (stdout and stderr) matches every
# regex of EXPECT; prints the output either way.
#   cmake "-DRUN=<command|arg|arg>" "-DEXPECT=<regex@@regex>" -P expect_output.cmake
string(REPLACE "|" ";" RUN "${RUN}")
string(REPLACE "@@" ";" EXPECT "${EXPECT}")
execute_process(COMMAND ${RUN} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}")
endif()
foreach(re IN LISTS EXPECT)
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "output lacks: ${re}")
  endif()
endforeach()
