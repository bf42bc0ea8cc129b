# CPack settings of ksc's Debian package, included by the top-level
# CMakeLists.txt before include(CPack). In the build directory:
#
#   cpack -G DEB          # ksc_<version>_<arch>.deb
#
# The package installs what `cmake --install` does under /usr: bin/ksc and
# the other tools, include/ksc/dsl.h, lib/ksc/runtime, lib/cmake/ksc,
# lib/pkgconfig/ksc.pc, but not the copy of Clang's builtin headers
# (lib/clang/<major>/include): under /usr that path belongs to Debian's
# libclang-common-<major>-dev, which the package depends on instead (see
# KscPackagingPreBuild.cmake). The other Depends come from dpkg-shlibdeps (the
# LLVM and Clang shared libraries the tools link, libc6, libstdc++6, ...).

set(CPACK_PACKAGE_NAME "ksc")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "ksc")
set(KSC_PACKAGE_MAINTAINER "ksc maintainers <ksc@example.invalid>" CACHE STRING
    "Maintainer field of the Debian package (Name <email>)")
set(CPACK_PACKAGE_CONTACT "${KSC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Ahead-of-time compiler for GPU-style kernels written in C++")
set(CPACK_PACKAGE_DESCRIPTION
"ksc compiles kernels written in a small, checked subset of C++ (.kdsl files)
to C++ for the CPU and to CUDA C++ or PTX for NVIDIA GPUs, optionally with
their derivative kernels (automatic differentiation). The package contains
ksc, ksc-run, ksc-opt, ksc-replay and ksc-synth, the header-only runtime of
the emitted code, a CMake package (find_package(ksc), ksc_add_kernels()) and
a pkg-config file.")

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# Only what `cmake --install` puts under the prefix (never the build tree:
# the installed files' paths are all relative to the prefix).
set(CPACK_SET_DESTDIR OFF)
# The static libraries the MLIR/LLVM helpers install (libKsc*.a, components
# named after them) serve no one without ksc's C++ headers: the package has
# the default component only, which holds everything else.
set(CPACK_COMPONENTS_ALL Unspecified)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)

set(CPACK_DEBIAN_PACKAGE_NAME "ksc")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
if(KSC_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${KSC_PACKAGE_HOMEPAGE}")
endif()
# ksc-run compiles the emitted C++ with a host compiler.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ | clang")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkgconf, cmake (>= 3.20)")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Appended to by dpkg-shlibdeps's list.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang-common-${KSC_LLVM_MAJOR}-dev")
set(CPACK_KSC_LLVM_MAJOR "${KSC_LLVM_MAJOR}")
set(CPACK_KSC_CLANG_RESOURCE_SUBDIR "${KSC_CLANG_RESOURCE_SUBDIR}")
set(CPACK_PRE_BUILD_SCRIPTS
    "${CMAKE_CURRENT_LIST_DIR}/KscPackagingPreBuild.cmake")
