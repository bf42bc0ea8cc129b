# Sanitizer and fuzzing builds (docs/testing.md, "Sanitizers" and "Fuzzing").
#
#   -DKSC_SANITIZE=address,undefined  builds every ksc library and tool with
#       those sanitizers (any list -fsanitize= takes), frame pointers kept
#       for the reports' stack traces; UndefinedBehaviorSanitizer stops at
#       its first report instead of going on.
#   -DKSC_FUZZ=ON  also instruments the code for coverage-guided fuzzing
#       (-fsanitize=fuzzer-no-link) and builds the libFuzzer targets in
#       tools/fuzz. Needs Clang (CMAKE_CXX_COMPILER=clang++-22) and its
#       fuzzer runtime (Debian: libclang-rt-22-dev).
#
# utils/sanitize.sh configures such a build and runs tests in it.
set(KSC_SANITIZE "" CACHE STRING
    "Sanitizers to build ksc with, as -fsanitize= takes them (e.g. address,undefined)")
option(KSC_FUZZ "Build the libFuzzer targets (needs Clang)" OFF)

if(KSC_SANITIZE)
  add_compile_options("-fsanitize=${KSC_SANITIZE}" -fno-omit-frame-pointer)
  add_link_options("-fsanitize=${KSC_SANITIZE}")
  if(KSC_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

if(KSC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KSC_FUZZ needs Clang (libFuzzer); configure with "
      "-DCMAKE_C_COMPILER=clang-${KSC_LLVM_MAJOR} "
      "-DCMAKE_CXX_COMPILER=clang++-${KSC_LLVM_MAJOR}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
