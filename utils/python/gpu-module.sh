#!/usr/bin/env bash
# The Python part of the GPU check, on the GPU machine (utils/gpu-check.sh
# run calls it): builds the module of CUDA kernels that `gpu-check.sh
# prepare` generated (kernels_cuda.cu) with nvcc for the machine's GPU and
# the machine's Python (its Python.h, nanobind's sources from the bundle),
# then runs gpu_check.py with it.
#
#   gpu-module.sh BUILD_DIR      (BUILD_DIR: where the module goes)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$1"
python="${PYTHON:-python3}"
nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
mkdir -p "$build"
include="$("$python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")"
suffix="$("$python" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")"
if [ ! -f "$include/Python.h" ]; then
  echo "gpu-module: $python has no Python.h in $include: cannot build the module"
  exit 1
fi
compile() {
  "$nvcc" -std=c++17 -O2 "-arch=$1" -Xcompiler -fPIC,-fvisibility=hidden \
    -shared "$here/kernels_cuda.cu" "$here/nanobind/src/nb_combined.cpp" \
    -I"$here/nanobind/include" -I"$here/nanobind/ext/robin_map/include" \
    -I"$here/runtime" -I"$include" -o "$build/kernels_cuda$suffix"
}
compile native || compile sm_90
PYTHONPATH="$build:$here/helpers" "$python" "$here/gpu_check.py"
