# Finds LEMON (the Library for Efficient Modeling and Optimization in Networks) for the
# relabeling's min-cost flow (include/redist/relabel.hpp: NetworkSimplex on the non-zero
# volumes). Used by the build and, installed next to redistConfig.cmake, by every consumer.
#
# Provides
#   redist::lemon    INTERFACE IMPORTED target: LEMON's include directory only. The classes
#                    redist uses (SmartDigraph, NetworkSimplex) are header-only, so liblemon
#                    (its LP/MIP wrappers) is not linked.
#
# Required: without LEMON the build stops with what to install (Debian: liblemon-dev);
# loaded from redistConfig.cmake (_redist_in_config), redist is then not found instead.
# -DREDIST_LEMON_ROOT=<prefix> (or LEMON_ROOT, CMAKE_PREFIX_PATH) picks another install.
cmake_policy(VERSION 3.20...3.31)

if(TARGET redist::lemon)
  return()
endif()

find_path(REDIST_LEMON_INCLUDE_DIR lemon/network_simplex.h
  HINTS ${REDIST_LEMON_ROOT} ${LEMON_ROOT} $ENV{LEMON_ROOT} PATH_SUFFIXES include
  DOC "Directory holding lemon/network_simplex.h (LEMON, the relabeling's min-cost flow)")
if(NOT REDIST_LEMON_INCLUDE_DIR)
  string(CONCAT _redist_lemon_why "redist needs LEMON's headers (lemon/network_simplex.h) for "
    "relabel.hpp; install liblemon-dev (Debian) or set REDIST_LEMON_ROOT")
  if(_redist_in_config)
    set(redist_NOT_FOUND_MESSAGE "${_redist_lemon_why}")
    unset(_redist_lemon_why)
    return()
  endif()
  message(FATAL_ERROR "${_redist_lemon_why}")
endif()

# The version, from lemon/config.h (LEMON_VERSION "1.3.1"); 1.3 is the API used.
set(_redist_lemon_version "unknown")
if(EXISTS "${REDIST_LEMON_INCLUDE_DIR}/lemon/config.h")
  file(STRINGS "${REDIST_LEMON_INCLUDE_DIR}/lemon/config.h" _redist_lemon_version
    REGEX "^#define LEMON_VERSION ")
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" _redist_lemon_version "${_redist_lemon_version}")
endif()

add_library(redist::lemon INTERFACE IMPORTED)
set_target_properties(redist::lemon PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${REDIST_LEMON_INCLUDE_DIR}")
if(NOT _redist_in_config)
  message(STATUS "redist: LEMON ${_redist_lemon_version}: ${REDIST_LEMON_INCLUDE_DIR}")
endif()
unset(_redist_lemon_version)
