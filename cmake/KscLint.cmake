# ksc's own lint, a Clang plugin (tools/lint/BuilderOrder.cpp): a call of
# which two arguments build IR is an error, because C++ leaves the order of
# a call's arguments unspecified and ksc's output would depend on the
# compiler that built it (GCC and Clang differ).
#
#   -DKSC_LINT=ON  builds the plugin and compiles every ksc library, tool
#       and test with it. On by default when the C++ compiler is the Clang
#       of the LLVM release ksc builds against (a plugin loads only into
#       the Clang it was built for): utils/sanitize.sh's build, which CI
#       runs, so new cases fail there (`utils/sanitize.sh --build` to see
#       them before CI does).
set(_ksc_lint_default OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND
   CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL "${LLVM_VERSION_MAJOR}" AND
   CMAKE_CXX_COMPILER_VERSION VERSION_LESS "${LLVM_VERSION_MAJOR}.999" AND
   TARGET clang-cpp)
  set(_ksc_lint_default ON)
endif()
option(KSC_LINT "Compile ksc with its lint plugin (Clang ${LLVM_VERSION_MAJOR} only)"
       ${_ksc_lint_default})
if(KSC_LINT AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KSC_LINT needs Clang ${LLVM_VERSION_MAJOR}")
endif()

# Adds the plugin to every library and executable defined in `dir` and the
# directories below it (cmake/KscTargets.cmake), but the plugin itself.
include(KscTargets)
function(ksc_lint_below dir)
  if(NOT KSC_LINT)
    return()
  endif()
  ksc_targets_below("${dir}" targets)
  foreach(target ${targets})
    if(target STREQUAL "KscLint")
      continue()
    endif()
    target_compile_options(${target} PRIVATE
      "-fplugin=$<TARGET_FILE:KscLint>"
      "-fplugin-arg-ksc_builder_order-root=${PROJECT_SOURCE_DIR}/"
      "-fplugin-arg-ksc_builder_order-exclude=${PROJECT_BINARY_DIR}/")
    # (A utility target: the compiles wait for the plugin's file itself,
    # not only its objects, which is all a library dependency orders.)
    add_dependencies(${target} ksc-lint-plugin)
  endforeach()
endfunction()
