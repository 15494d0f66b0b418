# install(): the libraries, the public headers, the layoutc tool, the Python
# package, the CMake package (layoutc::layoutc and friends) and layoutc.pc.
include(CMakePackageConfigHelpers)
set(LAYOUTC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/layoutc)

install(TARGETS layoutc-shared layoutc layoutc-core-shared layoutc-core
  EXPORT layoutcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/layoutc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(LAYOUTC_BUILD_TOOLS)
  install(TARGETS layoutc-bin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/docs/layoutc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_BINARY_DIR}/share/bash-completion/completions/layoutc
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()
install(EXPORT layoutcTargets NAMESPACE layoutc:: DESTINATION ${LAYOUTC_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/layoutcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/layoutcConfig.cmake INSTALL_DESTINATION ${LAYOUTC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/layoutcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/layoutcConfig.cmake ${PROJECT_BINARY_DIR}/layoutcConfigVersion.cmake
  DESTINATION ${LAYOUTC_CMAKE_DIR})

# pkg-config: layoutc (with codegen; libLLVM is private to the shared library)
# and layoutc-core (no LLVM at all).
# The files locate the prefix from their own place (relocatable installs).
set(LAYOUTC_PC_LLVM_LIBDIR ${LLVM_LIBRARY_DIRS})
file(RELATIVE_PATH LAYOUTC_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
foreach(pc layoutc layoutc-core)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The Python package (ctypes over liblayoutc.so): python/layoutc installs
# next to the library and finds it through LAYOUTC_LIBRARY or its own path.
set(LAYOUTC_PYTHON_DIR ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages CACHE STRING
  "Where the layoutc Python package is installed (relative to the prefix)")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/layoutc DESTINATION ${LAYOUTC_PYTHON_DIR}
  PATTERN "__pycache__" EXCLUDE)
file(RELATIVE_PATH LAYOUTC_PY_TO_LIB /p/${LAYOUTC_PYTHON_DIR}/layoutc /p/${CMAKE_INSTALL_LIBDIR})
install(CODE "file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${LAYOUTC_PYTHON_DIR}/layoutc/_libdir.py\"
  \"# Written at install time: where liblayoutc.so is, relative to this file.\\nLIBDIR = '${LAYOUTC_PY_TO_LIB}'\\n\")")
