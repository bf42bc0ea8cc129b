#!/usr/bin/env bash
# The cost of checkpointing a loop's adjoint against taping it: times
# `oscillate` (test/Grad/long-loop.kdsl) and its adjoint on the CPU for trip
# counts on both sides of the choice (checkpoint_bench.cpp), one OS thread,
# with Google Benchmark; docs/performance.md has the results.
#
#   utils/bench/run-checkpoint-bench.sh [extra Google Benchmark flags]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$ksc" "$root/test/Grad/long-loop.kdsl" --grad -o "$work/long-loop.cpp"
"$cxx" -O2 -std=c++17 -I "$runtime" -DKSC_GENERATED="\"$work/long-loop.cpp\"" \
  "$here/checkpoint_bench.cpp" -o "$work/checkpoint_bench" \
  -lbenchmark_main -lbenchmark -lpthread
KSC_NUM_THREADS=1 "$work/checkpoint_bench" "$@"
