# The C++ package: what `cmake --install` gives C++ users (docs/cpp.md).
#
#   include/meshioplusplus/*.hpp                   the public headers
#   lib/libmeshioplusplus.a                        the core, static  (target meshioplusplus::core_static)
#   lib/libmeshioplusplus.so[.0]                   the core, shared  (target meshioplusplus::core)
#   bin/meshioplusplus-cli                         the native command line (src/cli/)
#   lib/cmake/meshioplusplus/                      find_package(meshioplusplus CONFIG)
#   lib/pkgconfig/meshioplusplus.pc                pkg-config --cflags --libs meshioplusplus
#
# Included at the end of the top-level CMakeLists.txt, after every optional library (zlib,
# liblzma, liblz4, HDF5, netCDF, CGNS, ...) has been attached to meshioplusplus_core: the
# package then names exactly the libraries this build used, no more. The shared library is
# linked from the static library's objects (each source is compiled once, position-independent).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(meshioplusplus_shared SHARED $<TARGET_OBJECTS:meshioplusplus_core>)
add_library(meshioplusplus::core ALIAS meshioplusplus_shared)
add_library(meshioplusplus::core_static ALIAS meshioplusplus_core)
get_target_property(_mpp_link_libraries meshioplusplus_core LINK_LIBRARIES)
get_target_property(_mpp_link_options meshioplusplus_core LINK_OPTIONS)
get_target_property(_mpp_public_definitions meshioplusplus_core INTERFACE_COMPILE_DEFINITIONS)
foreach(_mpp_list _mpp_link_libraries _mpp_link_options _mpp_public_definitions)
  if(NOT ${_mpp_list})
    set(${_mpp_list} "")
  endif()
endforeach()
target_link_libraries(meshioplusplus_shared PRIVATE ${_mpp_link_libraries})
target_link_options(meshioplusplus_shared PRIVATE ${_mpp_link_options})
target_compile_definitions(meshioplusplus_shared INTERFACE ${_mpp_public_definitions})
target_include_directories(meshioplusplus_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(meshioplusplus_shared INTERFACE cxx_std_20)
target_compile_features(meshioplusplus_core INTERFACE cxx_std_20)
# Both are libmeshioplusplus: -lmeshioplusplus finds the shared one, a static link the .a.
set_target_properties(meshioplusplus_shared PROPERTIES
  OUTPUT_NAME meshioplusplus EXPORT_NAME core
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(meshioplusplus_core PROPERTIES
  OUTPUT_NAME meshioplusplus EXPORT_NAME core_static)

# The dependencies a static link needs, from the core's own link list: a find_dependency()
# line per imported target (for the CMake package) and linker flags (for pkg-config).
set(MESHIOPLUSPLUS_FIND_DEPENDENCIES "")
set(_mpp_pc_private_libs "")
set(_mpp_unmapped "")

function(_mpp_library_flags path out)
  get_filename_component(_dir "${path}" DIRECTORY)
  get_filename_component(_name "${path}" NAME_WE)
  string(REGEX REPLACE "^lib" "" _name "${_name}")
  set(_flags "")
  if(NOT _dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(_flags "-L${_dir} ")
  endif()
  set(${out} "${_flags}-l${_name}" PARENT_SCOPE)
endfunction()

foreach(_mpp_item IN LISTS _mpp_link_libraries)
  if(_mpp_item STREQUAL "Threads::Threads")
    string(APPEND MESHIOPLUSPLUS_FIND_DEPENDENCIES "find_dependency(Threads)\n")
    list(APPEND _mpp_pc_private_libs "-pthread")
  elseif(_mpp_item STREQUAL "ZLIB::ZLIB")
    string(APPEND MESHIOPLUSPLUS_FIND_DEPENDENCIES "find_dependency(ZLIB)\n")
    list(APPEND _mpp_pc_private_libs "-lz")
  elseif(_mpp_item STREQUAL "LibLZMA::LibLZMA")
    string(APPEND MESHIOPLUSPLUS_FIND_DEPENDENCIES "find_dependency(LibLZMA)\n")
    list(APPEND _mpp_pc_private_libs "-llzma")
  elseif(_mpp_item STREQUAL "netCDF::netcdf")
    string(APPEND MESHIOPLUSPLUS_FIND_DEPENDENCIES "find_dependency(netCDF CONFIG)\n")
    list(APPEND _mpp_pc_private_libs "-lnetcdf")
  elseif(_mpp_item MATCHES "^hdf5(-shared|-static)?$|^hdf5::")
    # FindHDF5 gives imported targets in some CMake versions, library paths in others.
    string(APPEND MESHIOPLUSPLUS_FIND_DEPENDENCIES "find_dependency(HDF5 COMPONENTS C)\n")
    list(APPEND _mpp_pc_private_libs "-lhdf5")
  elseif(IS_ABSOLUTE "${_mpp_item}")
    # A library found by find_library (liblz4, CGNS, HDF5's libraries): the export keeps its
    # absolute path, pkg-config gets -L/-l.
    _mpp_library_flags("${_mpp_item}" _mpp_flags)
    list(APPEND _mpp_pc_private_libs "${_mpp_flags}")
  elseif(_mpp_item MATCHES "^-")
    list(APPEND _mpp_pc_private_libs "${_mpp_item}")
  else()
    list(APPEND _mpp_unmapped "${_mpp_item}")
  endif()
endforeach()
if(_mpp_unmapped)
  message(WARNING "meshio++ package: no find_dependency() known for ${_mpp_unmapped}; "
                  "add it to cmake/meshioplusplusPackage.cmake or find_package(meshioplusplus) will fail")
endif()
list(REMOVE_DUPLICATES _mpp_pc_private_libs)
list(JOIN _mpp_pc_private_libs " " MESHIOPLUSPLUS_PC_LIBS_PRIVATE)

# Which optional features this build has, for the package config and pkg-config's Cflags.
set(MESHIOPLUSPLUS_FEATURES "")
set(MESHIOPLUSPLUS_PC_CFLAGS "")
foreach(_mpp_definition IN LISTS _mpp_public_definitions)
  if(_mpp_definition MATCHES "^MESHIOPLUSPLUS_HAVE_([A-Z0-9_]+)")
    list(APPEND MESHIOPLUSPLUS_FEATURES "${CMAKE_MATCH_1}")
  endif()
  string(APPEND MESHIOPLUSPLUS_PC_CFLAGS " -D${_mpp_definition}")
endforeach()
# HDF5's feature macro is private to the sources of src/cpp/io/hdf5/ (no public definition to see).
if(MESHIOPLUSPLUS_WITH_HDF5 AND HDF5_FOUND)
  list(APPEND MESHIOPLUSPLUS_FEATURES HDF5)
endif()
# So are libdeflate's and ISA-L's (src/cpp/io/codecs/zlib_codec.cpp).
if(MESHIOPLUSPLUS_WITH_LIBDEFLATE AND LIBDEFLATE_INCLUDE_DIR AND LIBDEFLATE_LIBRARY)
  list(APPEND MESHIOPLUSPLUS_FEATURES LIBDEFLATE)
endif()
if(MESHIOPLUSPLUS_WITH_ISAL AND ISAL_INCLUDE_DIR AND ISAL_LIBRARY)
  list(APPEND MESHIOPLUSPLUS_FEATURES ISAL)
endif()

install(TARGETS meshioplusplus_core meshioplusplus_shared
  EXPORT meshioplusplusTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/meshioplusplus
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")

set(_mpp_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/meshioplusplus)
install(EXPORT meshioplusplusTargets NAMESPACE meshioplusplus:: DESTINATION ${_mpp_config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/meshioplusplusConfig.cmake.in
  ${PROJECT_BINARY_DIR}/meshioplusplusConfig.cmake INSTALL_DESTINATION ${_mpp_config_dir})
# 0.x: minor versions may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/meshioplusplusConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/meshioplusplusConfig.cmake
              ${PROJECT_BINARY_DIR}/meshioplusplusConfigVersion.cmake
        DESTINATION ${_mpp_config_dir})

file(RELATIVE_PATH MESHIOPLUSPLUS_PC_PREFIX_FROM_PCDIR
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)  # "../.." for lib, "../../.." for lib/<triplet>
string(REGEX REPLACE "/$" "" MESHIOPLUSPLUS_PC_PREFIX_FROM_PCDIR "${MESHIOPLUSPLUS_PC_PREFIX_FROM_PCDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/meshioplusplus.pc.in
  ${PROJECT_BINARY_DIR}/meshioplusplus.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/meshioplusplus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

message(STATUS "meshio++ package: features [${MESHIOPLUSPLUS_FEATURES}], static link needs: ${MESHIOPLUSPLUS_PC_LIBS_PRIVATE}")
