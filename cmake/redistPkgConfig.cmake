# pkg-config files for consumers without CMake (docs/install.md):
#   redist.pc            -I of the headers and of Kokkos; Libs of Kokkos, Boost.MPI,
#                        Boost.Graph and MPI, as this build found them
#   redist-scalapack.pc  -lredist_scalapack and ScaLAPACK, in that order (only with
#                        REDIST_SCALAPACK_ABI)
# The flags are read from the targets at configure time; generator expressions are skipped.
# The prefix is relative to the .pc file's own place, so an install moved with
# `cmake --install --prefix` stays right.

# The libraries <target> links through its interface, recursively: file paths of imported
# targets, plain paths and -l/-L flags, appended to the list named <out>. (Include
# directories: _redist_collect_include_dirs of redistFindKokkos.cmake.)
function(_redist_pc_libs target out)
  set(libs "${${out}}")
  if(TARGET "${target}")
    get_target_property(type "${target}" TYPE)
    get_target_property(imported "${target}" IMPORTED)
    if(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      foreach(prop IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION)
        get_target_property(loc "${target}" ${prop})
        if(loc)
          list(APPEND libs "${loc}")
          break()
        endif()
      endforeach()
    endif()
    get_target_property(deps "${target}" INTERFACE_LINK_LIBRARIES)
    foreach(d IN LISTS deps)
      if(d AND NOT d MATCHES "\\$<")
        _redist_pc_libs("${d}" libs)
      endif()
    endforeach()
  elseif(IS_ABSOLUTE "${target}" OR target MATCHES "^-")
    list(APPEND libs "${target}")
  else()
    list(APPEND libs "-l${target}")
  endif()
  set(${out} "${libs}" PARENT_SCOPE)
endfunction()

function(redist_write_pkgconfig)
  _redist_collect_include_dirs(redist incs)
  set(libs "")
  _redist_pc_libs(redist libs)
  set(cflags "-I\${includedir}")
  foreach(d IN LISTS incs)
    if(NOT d MATCHES "\\$<" AND NOT d STREQUAL "/usr/include")
      list(APPEND cflags "-I${d}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES cflags)
  list(REMOVE_DUPLICATES libs)
  list(JOIN cflags " " REDIST_PC_CFLAGS)
  list(JOIN libs " " REDIST_PC_LIBS)
  set(pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  if(NOT REDIST_SCALAPACK_ABI)
    set(pcdir "${CMAKE_INSTALL_DATADIR}/pkgconfig")  # headers only: architecture independent
  endif()
  # Relocatable: the prefix is found from where the .pc file lies (cmake --install --prefix).
  file(RELATIVE_PATH up "/p/${pcdir}" "/p")
  string(REGEX REPLACE "/$" "" up "${up}")
  set(REDIST_PC_PREFIX "\${pcfiledir}/${up}")
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/redist.pc" @ONLY CONTENT [[
prefix=@REDIST_PC_PREFIX@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@

Name: redist
Description: Redistribution of tiled, distributed matrices (header-only C++20; compile with the MPI C++ compiler wrapper and -std=c++20)
Version: @PROJECT_VERSION@
Cflags: @REDIST_PC_CFLAGS@
Libs: @REDIST_PC_LIBS@
]])
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/redist.pc" DESTINATION "${pcdir}")
  if(REDIST_SCALAPACK_ABI)
    file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/redist-scalapack.pc" @ONLY CONTENT [[
prefix=@REDIST_PC_PREFIX@
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@

Name: redist-scalapack
Description: ScaLAPACK's p?gemr2d (Cp?gemr2d, p?gemr2d_) on redist; link it ahead of ScaLAPACK
Version: @PROJECT_VERSION@
Libs: -L${libdir} -Wl,-rpath,${libdir} -lredist_scalapack @REDIST_SCALAPACK_LIBRARY@
]])
    install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/redist-scalapack.pc" DESTINATION "${pcdir}")
  endif()
endfunction()
