#!/usr/bin/env bash
# Makes sure ksc is built and prints its build directory on stdout.
#
#  1. Installs the Debian packages ksc needs, when some are missing (LLVM,
#     MLIR and Clang at the release pinned in llvm-project.version, CMake,
#     Ninja, GoogleTest). Quick when everything is there.
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
  cmake ninja-build g++ python3 libgtest-dev
)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "ksc: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  # The LLVM $major packages come from Debian 12's security archive; a fresh
  # machine has no package lists yet.
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >&2
fi

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
