#!/usr/bin/env bash
# The Python part of a GPU check's bundle (utils/gpu-check.sh prepare calls
# it): examples/python's kernels as a module of CUDA kernels
# (kernels_cuda.cu, from ksc --target=cuda --emit=python), nanobind's
# sources from the build's venv, the runtime headers, ksc's Python helpers,
# and gpu-module.sh and gpu_check.py, which build and run it on the GPU
# machine (no ksc, no LLVM there). About 1.5 MB.
#
#   prepare-gpu-check.sh BUILD_DIR OUT_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1"
out="$2"
python="$("$root/utils/python/venv.sh" "$build")"
rm -rf "$out"
mkdir -p "$out/runtime" "$out/helpers" "$out/nanobind"
cat "$root/examples/python/kernels/saxpy.kdsl" \
    "$root/examples/python/kernels/product.kdsl" > "$out/kernels.kdsl"
"$build/bin/ksc" "$out/kernels.kdsl" --target=cuda --emit=python --grad=all \
  --python-module=kernels_cuda -o "$out/kernels_cuda.cu"
nanobind="$("$python" -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')"
cp -r "$nanobind/include" "$nanobind/src" "$nanobind/ext" "$out/nanobind/"
cp "$build/lib/ksc/runtime/ksc_runtime.h" "$build/lib/ksc/runtime/ksc_python.h" \
   "$out/runtime/"
cp -r "$build/lib/ksc/python/ksc" "$out/helpers/"
rm -rf "$out/helpers/ksc/__pycache__"
cp "$root/utils/python/gpu-module.sh" "$root/utils/python/gpu_check.py" "$out/"
