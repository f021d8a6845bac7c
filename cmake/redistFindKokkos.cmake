# The one place that finds Kokkos (and Kokkos Kernels) for redist. Used by the
# build and, installed next to redistConfig.cmake, by every consumer.
#
# Provides
#   redist::kokkos           INTERFACE IMPORTED target (always; fatal if Kokkos is missing)
#   redist_find_kokkos_kernels()
#                            creates redist::kokkos_kernels if Kokkos Kernels is found
#
# Two kinds of installs are handled:
#   * standalone Kokkos >= 3 (OpenMP/CUDA/HIP...): Kokkos::kokkos is correct; we link it.
#   * Trilinos/TriBITS-built Kokkos (Debian's libtrilinos-kokkos-dev, Kokkos 3.4): the
#     imported Kokkos::kokkos points at <prefix>/include instead of <prefix>/include/trilinos,
#     but the TriBITS variables Kokkos_INCLUDE_DIRS / Kokkos_LIBRARIES are right; we build
#     the target from them.
# REDIST_KOKKOS_MODE (AUTO | TARGET | VARIABLES) overrides the detection.
#
# Which Kokkos: the usual find_package search, so -DKokkos_ROOT=<prefix> (or Kokkos_DIR,
# CMAKE_PREFIX_PATH) picks another install and Debian's /usr one is the default. A changed
# Kokkos_ROOT also replaces a Kokkos_DIR cached by an earlier configure. Consumers of the
# installed package (redistConfig.cmake) search the Kokkos redist was built against first
# (_redist_kokkos_hint), then the same places.
#
# The targets are IMPORTED so that consumers see Kokkos' headers as system headers: Kokkos 3.4
# triggers -Wvolatile / -Wdeprecated-enum-enum-conversion under C++20.

# include() and find_package() give this file its own policy scope; a consumer's old
# cmake_minimum_required must not turn off what we use (IN_LIST, ...).
cmake_policy(VERSION 3.20...3.31)

if(TARGET redist::kokkos)
  return()
endif()

set(REDIST_KOKKOS_MODE "AUTO" CACHE STRING "How to use Kokkos: AUTO, TARGET or VARIABLES")
set_property(CACHE REDIST_KOKKOS_MODE PROPERTY STRINGS AUTO TARGET VARIABLES)

# Include directories declared by <target> and, recursively, by the targets it links.
function(_redist_collect_include_dirs target out)
  set(dirs "")
  set(queue "${target}")
  set(seen "")
  while(queue)
    list(POP_FRONT queue t)
    if(NOT TARGET "${t}" OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${t}")
    get_target_property(inc "${t}" INTERFACE_INCLUDE_DIRECTORIES)
    if(inc)
      list(APPEND dirs ${inc})
    endif()
    get_target_property(libs "${t}" INTERFACE_LINK_LIBRARIES)
    if(libs)
      list(APPEND queue ${libs})
    endif()
  endwhile()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# TRUE when <target>'s include path provides <header> (or cannot be judged: generator
# expressions are trusted).
function(_redist_target_has_header target header out)
  _redist_collect_include_dirs("${target}" dirs)
  set(found FALSE)
  foreach(d IN LISTS dirs)
    if(d MATCHES "\\$<" OR EXISTS "${d}/${header}")
      set(found TRUE)
      break()
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Picks TARGET or VARIABLES mode for TriBITS package <pkg>, whose probe header is <header>.
function(_redist_kokkos_mode pkg target header out)
  if(NOT REDIST_KOKKOS_MODE STREQUAL "AUTO")
    set(${out} "${REDIST_KOKKOS_MODE}" PARENT_SCOPE)
    return()
  endif()
  set(mode TARGET)
  if(target)
    _redist_target_has_header("${target}" "${header}" target_ok)
  else()
    set(target_ok FALSE)
  endif()
  if(NOT target_ok AND DEFINED ${pkg}_INCLUDE_DIRS AND DEFINED ${pkg}_LIBRARIES)
    foreach(d IN LISTS ${pkg}_INCLUDE_DIRS)
      if(EXISTS "${d}/${header}")
        set(mode VARIABLES)
      endif()
    endforeach()
  endif()
  set(${out} ${mode} PARENT_SCOPE)
endfunction()

# Fills INTERFACE IMPORTED target <name> from the TriBITS variables of <pkg>. Libraries are
# resolved to full paths so the target works in every directory scope.
function(_redist_target_from_variables name pkg)
  set(incs "")
  foreach(d IN LISTS ${pkg}_INCLUDE_DIRS ${pkg}_TPL_INCLUDE_DIRS)
    get_filename_component(d "${d}" ABSOLUTE)
    list(APPEND incs "${d}")
  endforeach()
  set(libs "")
  foreach(lib IN LISTS ${pkg}_LIBRARIES)
    if(IS_ABSOLUTE "${lib}" OR lib MATCHES "^-")
      list(APPEND libs "${lib}")
      continue()
    endif()
    set(var REDIST_${pkg}_LIBRARY_${lib})
    find_library(${var} NAMES "${lib}" HINTS ${${pkg}_LIBRARY_DIRS})
    if(NOT ${var})
      message(FATAL_ERROR "redist: ${pkg} library '${lib}' not found in '${${pkg}_LIBRARY_DIRS}'")
    endif()
    list(APPEND libs "${${var}}")
  endforeach()
  foreach(lib IN LISTS ${pkg}_TPL_LIBRARIES)
    if(NOT IS_ABSOLUTE "${lib}" OR EXISTS "${lib}")
      list(APPEND libs "${lib}")
    endif()
  endforeach()
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${incs}"
    INTERFACE_LINK_LIBRARIES "${libs}")
endfunction()

# --- Kokkos -------------------------------------------------------------------------------
# Loaded from redistConfig.cmake (_redist_in_config): a missing Kokkos makes redist not found
# (the config checks for redist::kokkos) instead of a fatal error.
if(_redist_in_config)
  set(_redist_kokkos_args CONFIG)
  if(redist_FIND_QUIETLY)
    list(APPEND _redist_kokkos_args QUIET)
  endif()
else()
  set(_redist_kokkos_args CONFIG REQUIRED)
endif()
if(_redist_kokkos_hint)
  list(APPEND _redist_kokkos_args HINTS "${_redist_kokkos_hint}")
endif()
# find_package keeps a cached Kokkos_DIR over a new Kokkos_ROOT; drop one that lies outside.
if(NOT Kokkos_FOUND AND Kokkos_DIR AND DEFINED Kokkos_ROOT)
  file(REAL_PATH "${Kokkos_ROOT}" _redist_root)
  file(REAL_PATH "${Kokkos_DIR}" _redist_dir)
  string(FIND "${_redist_dir}/" "${_redist_root}/" _redist_at)
  if(NOT _redist_at EQUAL 0)
    message(STATUS "redist: Kokkos_ROOT=${Kokkos_ROOT} replaces Kokkos_DIR=${Kokkos_DIR}")
    unset(Kokkos_DIR CACHE)
  endif()
  unset(_redist_root)
  unset(_redist_dir)
  unset(_redist_at)
endif()
if(NOT Kokkos_FOUND)
  # Kokkos' config forces CMAKE_CXX_EXTENSIONS OFF (with a warning) when it is undefined;
  # define it for the call only, so we neither warn nor leak a setting into the caller.
  if(NOT DEFINED CMAKE_CXX_EXTENSIONS)
    set(CMAKE_CXX_EXTENSIONS OFF)
    find_package(Kokkos ${_redist_kokkos_args})
    unset(CMAKE_CXX_EXTENSIONS)
  else()
    find_package(Kokkos ${_redist_kokkos_args})
  endif()
endif()
unset(_redist_kokkos_args)
if(NOT Kokkos_FOUND)
  return()
endif()
if(Kokkos_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "redist: Kokkos >= 3.4 is required, found ${Kokkos_VERSION}")
endif()

if(TARGET Kokkos::kokkos)
  _redist_kokkos_mode(Kokkos Kokkos::kokkos Kokkos_Core.hpp _redist_mode)
else()
  _redist_kokkos_mode(Kokkos "" Kokkos_Core.hpp _redist_mode)
endif()
if(_redist_mode STREQUAL "VARIABLES")
  _redist_target_from_variables(redist::kokkos Kokkos)
  # TriBITS variables carry no backend flags; add the host-parallel one we can.
  if(OPENMP IN_LIST Kokkos_DEVICES OR Kokkos_ENABLE_OPENMP)
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    set_property(TARGET redist::kokkos APPEND PROPERTY INTERFACE_LINK_LIBRARIES OpenMP::OpenMP_CXX)
  endif()
  if(CUDA IN_LIST Kokkos_DEVICES OR HIP IN_LIST Kokkos_DEVICES)
    message(WARNING "redist: device backends of a TriBITS-built Kokkos are not supported; "
                    "use a standalone Kokkos install or -DREDIST_KOKKOS_MODE=TARGET")
  endif()
elseif(TARGET Kokkos::kokkos)
  add_library(redist::kokkos INTERFACE IMPORTED)
  set_target_properties(redist::kokkos PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkos)
else()
  message(FATAL_ERROR "redist: Kokkos ${Kokkos_VERSION} provides neither Kokkos::kokkos nor "
                      "usable Kokkos_INCLUDE_DIRS/Kokkos_LIBRARIES")
endif()
if(NOT Kokkos_FIND_QUIETLY AND NOT redist_FIND_QUIETLY)
  message(STATUS "redist: Kokkos ${Kokkos_VERSION} via ${_redist_mode} (${Kokkos_DIR})")
  if(_redist_kokkos_hint AND NOT Kokkos_DIR STREQUAL _redist_kokkos_hint)
    message(STATUS "redist: note: redist was built and tested against ${_redist_kokkos_hint}")
  endif()
endif()
unset(_redist_mode)

# --- Kokkos Kernels (optional; examples and benchmarks) ------------------------------------
# TRUE when <dirs> hold no Kokkos (KokkosCore_config.h) other than the one of redist::kokkos.
# Debian's Kokkos Kernels carries Debian's Serial Kokkos; next to another Kokkos (say an
# OpenMP one from -DKokkos_ROOT) it would put a second Kokkos in the same program.
function(_redist_same_kokkos dirs out)
  _redist_collect_include_dirs(redist::kokkos ours)
  set(ours_real "")
  foreach(d IN LISTS ours)
    if(NOT d MATCHES "\\$<" AND EXISTS "${d}")
      file(REAL_PATH "${d}" d)
      list(APPEND ours_real "${d}")
    endif()
  endforeach()
  set(same TRUE)
  foreach(d IN LISTS dirs)
    if(d MATCHES "\\$<" OR NOT EXISTS "${d}/KokkosCore_config.h")
      continue()
    endif()
    file(REAL_PATH "${d}" d)
    if(NOT d IN_LIST ours_real)
      set(same FALSE)
    endif()
  endforeach()
  set(${out} ${same} PARENT_SCOPE)
endfunction()

function(redist_find_kokkos_kernels)
  if(TARGET redist::kokkos_kernels)
    return()
  endif()
  find_package(KokkosKernels CONFIG QUIET)
  if(NOT KokkosKernels_FOUND)
    message(STATUS "redist: Kokkos Kernels not found (optional)")
    return()
  endif()
  set(target "")
  foreach(t IN ITEMS Kokkos::kokkoskernels KokkosKernels::kokkoskernels)
    if(TARGET ${t})
      set(target ${t})
      break()
    endif()
  endforeach()
  _redist_kokkos_mode(KokkosKernels "${target}" KokkosBlas.hpp mode)
  if(mode STREQUAL "VARIABLES")
    set(dirs ${KokkosKernels_INCLUDE_DIRS})
  elseif(target)
    _redist_collect_include_dirs(${target} dirs)
  endif()
  _redist_same_kokkos("${dirs}" same)
  if(NOT same)
    message(STATUS "redist: Kokkos Kernels in ${KokkosKernels_DIR} was built against another "
                   "Kokkos; not used")
    return()
  endif()
  if(mode STREQUAL "VARIABLES")
    _redist_target_from_variables(redist::kokkos_kernels KokkosKernels)
  elseif(target)
    add_library(redist::kokkos_kernels INTERFACE IMPORTED)
    set_target_properties(redist::kokkos_kernels PROPERTIES INTERFACE_LINK_LIBRARIES ${target})
  else()
    message(STATUS "redist: Kokkos Kernels found but unusable (no target, no variables)")
    return()
  endif()
  set_property(TARGET redist::kokkos_kernels APPEND PROPERTY
    INTERFACE_LINK_LIBRARIES redist::kokkos)
  set(version "${KokkosKernels_VERSION}")
  if(NOT version)
    set(version "(version unknown)")  # Trilinos 13's config sets none
  endif()
  message(STATUS "redist: Kokkos Kernels ${version} via ${mode} (${KokkosKernels_DIR})")
endfunction()
