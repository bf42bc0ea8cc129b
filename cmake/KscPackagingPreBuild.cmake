# CPACK_PRE_BUILD_SCRIPTS of ksc's Debian package (see KscPackaging.cmake):
# runs on CPack's staging tree before the package is made.
#
# Installed under /usr, ksc's copy of Clang's builtin headers would be
# /usr/lib/clang/<major>/include, which Debian's libclang-common-<major>-dev
# owns (a symbolic link to /usr/lib/llvm-<major>/lib/clang/<major>/include):
# dpkg would write the files through that link into the other package's
# files, and delete them when ksc is removed. The package leaves them out and
# depends on libclang-common-<major>-dev instead, where ksc finds the same
# headers at the same path.
if(CPACK_PACKAGING_INSTALL_PREFIX STREQUAL "/usr")
  file(GLOB _ksc_staged_resource_dirs LIST_DIRECTORIES true
    "${CPACK_TEMPORARY_DIRECTORY}/usr/${CPACK_KSC_CLANG_RESOURCE_SUBDIR}"
    "${CPACK_TEMPORARY_DIRECTORY}/*/usr/${CPACK_KSC_CLANG_RESOURCE_SUBDIR}")
  foreach(_dir IN LISTS _ksc_staged_resource_dirs)
    message(STATUS "ksc: leaving ${CPACK_KSC_CLANG_RESOURCE_SUBDIR} out of "
                   "the package (from libclang-common-${CPACK_KSC_LLVM_MAJOR}-dev)")
    file(REMOVE_RECURSE "${_dir}")
    # Remove lib/clang too when it is empty now.
    get_filename_component(_parent "${_dir}" DIRECTORY)
    file(GLOB _rest "${_parent}/*")
    if(NOT _rest)
      file(REMOVE_RECURSE "${_parent}")
    endif()
  endforeach()
endif()
