#!/usr/bin/env bash
# ksc's check on a GPU machine, in two steps (docs/cuda.md, "Checking a GPU
# machine"):
#
#   utils/gpu-check.sh prepare [DIR]     on the build machine
#   DIR/gpu-check.sh run OUT_DIR         on the GPU machine
#
# prepare builds ksc (utils/setup.sh) and makes DIR (default gpu-check/ in
# the checkout, which git ignores): the GPU bundle of the tests and
# benchmarks (utils/gpu-bundle), ksc-replay (statically linked: it needs
# neither LLVM nor ksc), this script and gpu-summary.py. Copy DIR to the
# GPU machine; it needs the NVIDIA driver, NVRTC (CUDA_HOME, else
# /usr/local/cuda) and Python 3 for the summary.
#
# run replays the bundle on device 0 through both code paths and writes
# into OUT_DIR: report.json (every run: pass or fail, the differences from
# the CPU, the times), replay.txt (ksc-replay's output), summary.md (the
# tables of docs/performance.md) and nvidia-smi.txt. It exits with
# ksc-replay's status: 0 when everything passed, 1 when something failed,
# 77 without a GPU. `utils/gpu-check.sh run OUT_DIR` in the checkout runs
# gpu-check/ the same way.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  echo "usage: $0 prepare [DIR] | run OUT_DIR [DIR]" >&2
  exit 2
}
[ $# -ge 1 ] || usage

case "$1" in
prepare)
  root="$(cd "$here/.." && pwd)"
  dir="${2:-$root/gpu-check}"
  build="$("$root/utils/setup.sh")"
  rm -rf "$dir"
  mkdir -p "$dir/bin"
  "$root/utils/gpu-bundle" "$dir/bundle" --ksc-run "$build/bin/ksc-run"
  cp "$build/bin/ksc-replay" "$dir/bin/"
  cp "$here/gpu-check.sh" "$here/gpu-summary.py" "$dir/"
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
  "$dir/bin/ksc-replay" "$dir/bundle" --report="$out/report.json" --quiet \
    2>&1 | tee "$out/replay.txt"
  status="${PIPESTATUS[0]}"
  set -e
  if [ -f "$out/report.json" ]; then
    python3 "$dir/gpu-summary.py" "$out/report.json" | tee "$out/summary.md"
  fi
  exit "$status"
  ;;
*)
  usage
  ;;
esac
