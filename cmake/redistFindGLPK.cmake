# Finds GLPK (the GNU Linear Programming Kit) for redist's optional phase-power linear
# program (include/redist/phase_powers.hpp, Nesi et al. 2023 Eq. 12-13).
#
# Provides
#   redist::glpk    INTERFACE IMPORTED GLOBAL target (glpk.h + libglpk), only when found
#
# Optional: when GLPK is missing (or -DREDIST_WITH_GLPK=OFF) it says so once and provides
# nothing; callers test if(TARGET redist::glpk) and skip what needs it (the phase-power
# tests; examples/multiphase.cpp then uses fixed powers). Debian: libglpk-dev.
# -DREDIST_GLPK_ROOT=<prefix> (or CMAKE_PREFIX_PATH) picks another install.
cmake_policy(VERSION 3.20...3.31)

if(TARGET redist::glpk)
  return()
endif()
get_property(_redist_glpk_done GLOBAL PROPERTY REDIST_GLPK_SEARCHED)
if(_redist_glpk_done)
  return()  # searched before, not found: said so already
endif()
set_property(GLOBAL PROPERTY REDIST_GLPK_SEARCHED TRUE)

option(REDIST_WITH_GLPK "Use GLPK for the phase-power LP (optional component)" ON)
if(NOT REDIST_WITH_GLPK)
  message(STATUS "redist: GLPK off (REDIST_WITH_GLPK=OFF): phase_powers.hpp and its tests "
                 "skipped")
  return()
endif()

find_path(REDIST_GLPK_INCLUDE_DIR glpk.h HINTS ${REDIST_GLPK_ROOT} PATH_SUFFIXES include)
find_library(REDIST_GLPK_LIBRARY NAMES glpk HINTS ${REDIST_GLPK_ROOT} PATH_SUFFIXES lib lib64)
if(NOT REDIST_GLPK_INCLUDE_DIR OR NOT REDIST_GLPK_LIBRARY)
  message(STATUS "redist: GLPK not found (glpk.h: ${REDIST_GLPK_INCLUDE_DIR}, libglpk: "
                 "${REDIST_GLPK_LIBRARY}): phase_powers.hpp and its tests skipped; "
                 "install libglpk-dev or set REDIST_GLPK_ROOT")
  return()
endif()

# The version, from glpk.h (GLP_MAJOR_VERSION / GLP_MINOR_VERSION); the API used is 4.x+.
file(STRINGS "${REDIST_GLPK_INCLUDE_DIR}/glpk.h" _redist_glpk_version
  REGEX "^#define GLP_(MAJOR|MINOR)_VERSION")
string(REGEX REPLACE ".*GLP_MAJOR_VERSION +([0-9]+).*GLP_MINOR_VERSION +([0-9]+).*" "\\1.\\2"
  _redist_glpk_version "${_redist_glpk_version}")

add_library(redist::glpk INTERFACE IMPORTED GLOBAL)
set_target_properties(redist::glpk PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${REDIST_GLPK_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${REDIST_GLPK_LIBRARY}")
message(STATUS "redist: GLPK ${_redist_glpk_version}: ${REDIST_GLPK_LIBRARY}")
unset(_redist_glpk_version)
unset(_redist_glpk_done)
