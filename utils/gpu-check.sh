#!/usr/bin/env bash
# ksc's check on a GPU machine, in two steps (docs/cuda.md, "Checking a GPU
# machine"):
#
#   utils/gpu-check.sh prepare [--exhaustive] [DIR]   on the build machine
#   DIR/gpu-check.sh run OUT_DIR                       on the GPU machine
#
# prepare builds ksc (utils/setup.sh) and makes DIR (default gpu-check/ in
# the checkout, which git ignores): the GPU bundle of the tests and
# benchmarks (utils/gpu-bundle), ksc-replay (statically linked: it needs
# neither LLVM nor ksc), this script and gpu-summary.py, and DIR/python:
# a Python module of CUDA kernels to build and run there
# (utils/python/prepare-gpu-check.sh; left out, with a warning, when the
# build's Python venv cannot be made). Copy DIR to the GPU machine; it
# needs the NVIDIA driver, NVRTC (CUDA_HOME, else /usr/local/cuda) and
# Python 3 for the summary; the Python part needs nvcc, Python's headers
# and PyTorch or CuPy. With --exhaustive, prepare
# first runs the exhaustive compile sweeps (lit --param exhaustive=1 on the
# compile-all and assemble-all tests: every kernel through nvcc for sm_80
# and sm_90, Clang, NVRTC, ptxas and the host compilers; about 32 minutes
# on 2 cores) and stops if one fails; DIR/sweeps.txt has lit's output.
#
# run replays the bundle on device 0 through both code paths and writes
# into OUT_DIR: report.json (every run: pass or fail, the differences from
# the CPU, the times), replay.txt (ksc-replay's output), summary.md (the
# tables of docs/performance.md), nvidia-smi.txt and python.txt (the
# Python module's checks and its per-call overhead, utils/python/
# gpu_check.py). It exits with ksc-replay's status (0 when everything
# passed, 1 when something failed, 77 without a GPU), or 1 when replay
# passed and the Python checks failed. `utils/gpu-check.sh run OUT_DIR` in the checkout runs
# gpu-check/ the same way.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  echo "usage: $0 prepare [--exhaustive] [DIR] | run OUT_DIR [DIR]" >&2
  exit 2
}
[ $# -ge 1 ] || usage

case "$1" in
prepare)
  root="$(cd "$here/.." && pwd)"
  exhaustive=
  if [ "${2:-}" = --exhaustive ]; then
    exhaustive=1
    shift
  fi
  dir="${2:-$root/gpu-check}"
  build="$("$root/utils/setup.sh")"
  rm -rf "$dir"
  mkdir -p "$dir/bin"
  if [ -n "$exhaustive" ]; then
    version="$(head -n 1 "$root/llvm-project.version")"
    lit="/usr/lib/llvm-${version%%.*}/bin/lit"
    if ! "$lit" -sv --param exhaustive=1 --filter='compile-all|assemble-all' \
        "$build/test" >"$dir/sweeps.txt" 2>&1; then
      tail -n 30 "$dir/sweeps.txt" >&2
      echo "gpu-check: the exhaustive compile sweeps failed ($dir/sweeps.txt)" >&2
      exit 1
    fi
    tail -n 4 "$dir/sweeps.txt"
  fi
  "$root/utils/gpu-bundle" "$dir/bundle" --ksc-run "$build/bin/ksc-run"
  cp "$build/bin/ksc-replay" "$dir/bin/"
  cp "$here/gpu-check.sh" "$here/gpu-summary.py" "$dir/"
  "$root/utils/python/prepare-gpu-check.sh" "$build" "$dir/python" ||
    echo "gpu-check: warning: no Python module in the bundle" >&2
  echo "gpu-check: $dir is ready ($(du -sh "$dir" | cut -f1)); on the GPU" \
       "machine: $(basename "$dir")/gpu-check.sh run OUT_DIR"
  ;;
run)
  [ $# -ge 2 ] || usage
  out="$2"
  if [ $# -ge 3 ]; then
    dir="$3"
  elif [ -x "$here/bin/ksc-replay" ]; then
    dir="$here"
  else
    dir="$(cd "$here/.." && pwd)/gpu-check"
  fi
  if [ ! -x "$dir/bin/ksc-replay" ]; then
    echo "gpu-check: no $dir/bin/ksc-replay; run '$0 prepare' first" >&2
    exit 1
  fi
  mkdir -p "$out"
  nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true
  set +e
  "$dir/bin/ksc-replay" "$dir/bundle" --report="$out/report.json" \
    2>&1 | tee "$out/replay.txt"
  status="${PIPESTATUS[0]}"
  set -e
  if [ -f "$out/report.json" ]; then
    python3 "$dir/gpu-summary.py" "$out/report.json" | tee "$out/summary.md"
  fi
  if [ -x "$dir/python/gpu-module.sh" ]; then
    set +e
    "$dir/python/gpu-module.sh" "$out/python-build" 2>&1 |
      tee "$out/python.txt"
    python_status="${PIPESTATUS[0]}"
    set -e
    rm -rf "$out/python-build"
    if [ "$status" = 0 ] && [ "$python_status" != 0 ] &&
       [ "$python_status" != 77 ]; then
      status=1
    fi
  fi
  exit "$status"
  ;;
*)
  usage
  ;;
esac
