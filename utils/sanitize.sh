#!/usr/bin/env bash
# Builds ksc with AddressSanitizer and UndefinedBehaviorSanitizer, and the
# libFuzzer targets (Clang 22, -DKSC_SANITIZE=address,undefined
# -DKSC_FUZZ=ON: cmake/KscSanitizers.cmake), then runs tests in that build.
# See docs/testing.md, "Sanitizers" and "Fuzzing".
#
#   utils/sanitize.sh            the tests .ci/run runs under the sanitizers:
#                                the frontend's (test/Frontend), the tools'
#                                (test/Tools), the runner's (test/Run, each at
#                                one thread count) and the fuzzers' and
#                                differential tester's (test/Fuzz), without the
#                                compile sweeps (*compile-all*)
#   utils/sanitize.sh --all      the whole suite (builds everything)
#   utils/sanitize.sh --build    only configure and build the tools
#   utils/sanitize.sh [--all] LIT-ARGS...   also passes LIT-ARGS to lit
#                                (e.g. --filter=structs)
#
# Then, when the normal build (build/, or KSC_BUILD_DIR) has ksc, checks that
# this (Clang) build's ksc emits the same bytes as that one
# (utils/compare-builds.py: --quick, all of it with --all).
#
# Exits non-zero on any failure; a sanitizer report fails its test (lit.cfg.py
# sets ASAN_OPTIONS/UBSAN_OPTIONS). KSC_SANITIZE_BUILD_DIR overrides the build
# directory (default: build-sanitize/ in the source tree). The tests' compiled
# kernels are shared with the normal build's (build/, or KSC_BUILD_DIR) when it
# has them: the host compiler compiles the same C++ either way.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KSC_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
version="$(head -n 1 "$root/llvm-project.version")"
major="${version%%.*}"
llvm_prefix="/usr/lib/llvm-$major"

mode=subset
if [ "${1:-}" = --all ] || [ "${1:-}" = --build ]; then
  mode="${1#--}"
  shift
fi

"$root/utils/install-packages.sh" \
  "llvm-$major-dev" "llvm-$major-tools" "libmlir-$major-dev" \
  "mlir-$major-tools" "libclang-$major-dev" "clang-$major" \
  "libclang-rt-$major-dev" cmake ninja-build g++ python3 libgtest-dev \
  libboost-context-dev

if [ ! -f "$build/build.ninja" ]; then
  echo "ksc: configuring $build" >&2
  # -O1: the usual optimization for sanitizer builds, quicker to compile than
  # -O2 and with exact stack traces (-gline-tables-only). Precompiled MLIR,
  # LLVM and Clang headers: parsing them is most of the build's time. The
  # host compiler of ksc-run stays the system's C++ compiler, as in the
  # normal build.
  flags="-O1 -DNDEBUG -gline-tables-only"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm_prefix/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
    -DCMAKE_C_FLAGS_RELEASE="$flags" -DCMAKE_CXX_FLAGS_RELEASE="$flags" \
    -DKSC_SANITIZE=address,undefined -DKSC_FUZZ=ON -DKSC_PRECOMPILE_HEADERS=ON \
    -DKSC_HOST_CXX="$(command -v c++)" \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DClang_DIR="$llvm_prefix/lib/cmake/clang" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" >&2
fi

if [ "$mode" = all ]; then
  ninja -C "$build" >&2
else
  # The tools and fuzzers, not the unit tests and benchmarks.
  ninja -C "$build" ksc ksc-opt ksc-run ksc-synth ksc-replay \
    ksc-fuzz-compile ksc-fuzz-inputs ksc-fuzz-bundle >&2
fi
if [ "$mode" = build ]; then
  exit 0
fi

lit_args=(-sv)
normal_cache="${KSC_BUILD_DIR:-$root/build}/test/ksc-run-cache"
if [ -d "$normal_cache" ]; then
  lit_args+=(--param "ksc-cache-dir=$normal_cache")
fi
tests=("$build/test")
if [ "$mode" = subset ]; then
  # Not the compile sweeps (the host compilers, nvcc and NVRTC compiling
  # the tests' kernels: other programs' work), and each run test at one
  # thread count (the OS-thread sweep is for ThreadSanitizer to see).
  tests=("$build/test/Frontend" "$build/test/Tools" "$build/test/Run"
         "$build/test/Fuzz")
  lit_args+=(--filter-out='compile-all' --param test-threads=)
fi
status=0
"$llvm_prefix/bin/lit" "${lit_args[@]}" "$@" "${tests[@]}" || status=$?

# This build is a Clang build: its ksc must emit the same bytes as the
# normal build's (GCC by default), utils/compare-builds.py; a representative
# part unless --all.
normal="${KSC_BUILD_DIR:-$root/build}"
if [ -x "$normal/bin/ksc" ] && [ -x "$normal/bin/ksc-synth" ]; then
  compare=(--quick)
  if [ "$mode" = all ]; then
    compare=()
  fi
  echo "ksc: comparing the outputs of $normal and $build" >&2
  ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    "$root/utils/compare-builds.py" "${compare[@]}" "$normal" "$build" ||
    status=1
else
  echo "ksc: note: no normal build in $normal; its outputs are not compared" >&2
fi
exit "$status"
