#!/usr/bin/env bash
# Makes sure ksc is built and prints its build directory on stdout.
#
#  1. Installs the Debian packages ksc needs, when some are missing (LLVM,
#     MLIR and Clang at the release pinned in llvm-project.version, CMake,
#     Ninja, GoogleTest, Boost.Context for the tests' SIMT stand-in). Quick
#     when everything is there.
#  2. Configures the build (CMake + Ninja) when it is missing.
#  3. Builds whatever is stale (Ninja decides; nothing when up to date).
#
# Everything but the final path goes to stderr, so that `utils/ksc` can be
# used in pipelines. KSC_BUILD_DIR overrides the build directory (default:
# build/ in the source tree).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KSC_BUILD_DIR:-$root/build}"
version="$(head -n 1 "$root/llvm-project.version")"
major="${version%%.*}"
llvm_prefix="/usr/lib/llvm-$major"

packages=(
  "llvm-$major-dev" "llvm-$major-tools" "libmlir-$major-dev"
  "mlir-$major-tools" "libclang-$major-dev" "clang-$major"
  cmake ninja-build g++ python3 libgtest-dev libboost-context-dev
)
"$root/utils/install-packages.sh" "${packages[@]}"

installed="$("$llvm_prefix/bin/llvm-config" --version 2>/dev/null || true)"
if [ "${installed%%.*}" != "$major" ]; then
  echo "ksc: error: LLVM $major is not installed in $llvm_prefix" >&2
  exit 1
fi
if [ "$installed" != "$version" ]; then
  echo "ksc: note: building with LLVM $installed; ksc is tested with $version" >&2
fi

if [ ! -f "$build/build.ninja" ]; then
  echo "ksc: configuring $build" >&2
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DClang_DIR="$llvm_prefix/lib/cmake/clang" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" >&2
fi
ninja -C "$build" >&2
echo "$build"
