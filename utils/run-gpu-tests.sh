#!/usr/bin/env bash
# Runs ksc's GPU tests on a machine with an NVIDIA GPU, then prints a short
# performance table. One command:
#
#   utils/run-gpu-tests.sh                 # builds with utils/setup.sh first
#   KSC_BUILD_DIR=DIR utils/run-gpu-tests.sh   # uses the build in DIR as is
#
# With KSC_BUILD_DIR naming a build of this checkout (bin/ksc-run in it), it
# builds nothing and needs neither the network nor apt: only that build,
# LLVM's lit and FileCheck, Python 3, the CUDA driver and, for the
# --via=cuda-source tests, NVRTC (CUDA_HOME, else /usr/local/cuda).
#
#  1. `ksc-run --list-devices`: stops with status 77 when there is no GPU.
#  2. lit on test/Run/Cuda: every run and gradient test's kernels on the
#     GPU through both code paths, compared with the CPU, the gradient
#     checks, bounds-check failures, --time (tests that need no GPU run too).
#  3. --time on saxpy (16M floats) and on the vec3 particle integrator of
#     utils/bench/grad-kernels.kdsl (4M particles), through both code paths,
#     with and without bounds checks: the median kernel time of 20 launches
#     and the effective bandwidth (the bytes of every array argument once,
#     writable ones twice, per median time; see docs/cuda.md).
#
# Exits non-zero when a test or a timed run fails. Extra arguments go to lit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${KSC_BUILD_DIR:-}" ]; then
  build="$KSC_BUILD_DIR"
  if [ ! -x "$build/bin/ksc-run" ]; then
    echo "run-gpu-tests.sh: no bin/ksc-run in KSC_BUILD_DIR=$build" >&2
    exit 1
  fi
else
  build="$("$root/utils/setup.sh")"
fi
ksc_run="$build/bin/ksc-run"
lit="$(sed -n 's/^LLVM_EXTERNAL_LIT:[A-Z]*=//p' "$build/CMakeCache.txt" \
  2>/dev/null || true)"
if [ -z "$lit" ] || [ ! -x "$lit" ]; then
  lit="$(command -v lit || command -v llvm-lit || true)"
fi
if [ -z "$lit" ]; then
  echo "run-gpu-tests.sh: cannot find LLVM's lit (set LLVM_EXTERNAL_LIT" \
    "when configuring, or put lit on the PATH)" >&2
  exit 1
fi

echo "== devices"
status=0
"$ksc_run" --list-devices || status=$?
if [ "$status" -ne 0 ]; then
  exit "$status"
fi

echo "== tests"
tests_status=0
"$lit" -sv "$@" "$build/test/Run/Cuda" || tests_status=$?

echo "== performance"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
saxpy_n=$((1 << 24))
particles=$((1 << 22))
cat >"$work/saxpy.json" <<EOF
{"a": 2.5,
 "x": {"random": "uniform", "shape": [$saxpy_n], "seed": 1, "low": -1, "high": 1},
 "y": {"random": "uniform", "shape": [$saxpy_n], "seed": 2, "low": -1, "high": 1}}
EOF
cat >"$work/integrate.json" <<EOF
{"pos": {"random": "uniform", "shape": [$particles], "seed": 3, "low": 0, "high": 10},
 "vel": {"random": "uniform", "shape": [$particles], "seed": 4, "low": -1, "high": 1},
 "mass": {"random": "uniform", "shape": [$particles], "seed": 5, "low": 1, "high": 2},
 "gravity": [0, -9.8, 0], "dt": 0.001}
EOF
perf_status=0
printf '%-10s %-12s %-7s %10s %11s %10s\n' kernel via checks threads "median ms" "GB/s"
for kernel in saxpy integrate; do
  if [ "$kernel" = saxpy ]; then n=$saxpy_n; else n=$particles; fi
  for via in ptx cuda-source; do
    for checks in true false; do
      if ! "$ksc_run" "$root/utils/bench/grad-kernels.kdsl" --kernel="$kernel" \
          --dim="$n" --inputs="$work/$kernel.json" --target=cuda --via="$via" \
          --bounds-check="$checks" --time --repeat=20 -o /dev/null \
          2>"$work/time.txt"; then
        printf '%-10s %-12s %-7s failed:\n' "$kernel" "$via" "$checks"
        sed 's/^/    /' "$work/time.txt"
        perf_status=1
        continue
      fi
      # The row of the kernel in ksc-run's table: kernel, threads,
      # blocks x size (3 fields), launches, median, min, max, bytes, GB/s.
      awk -v kernel="$kernel" -v via="$via" -v checks="$checks" \
        '$1 == kernel && NF == 11 {
           printf "%-10s %-12s %-7s %10s %11s %10s\n", kernel, via, checks,
                  $2, $7, $11 }' "$work/time.txt"
    done
  done
done

if [ "$tests_status" -ne 0 ] || [ "$perf_status" -ne 0 ]; then
  exit 1
fi
