#!/usr/bin/env bash
# Times CPU launches of saxpy and integrate (grad-kernels.kdsl) from 2^10
# to 2^18 threads on 1 and 2 OS threads (launch_sizes.cpp), to see from
# what size a parallel launch pays, and prints a Markdown table: the
# medians of 9 interleaved repetitions and the speedup of 2 OS threads.
#
#   utils/bench/run-launch-sizes.sh [extra Google Benchmark flags]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cxxflags=(-O2 -std=c++17 -I "$runtime" -I "$work")

"$ksc" "$here/grad-kernels.kdsl" --emit-header="$work/kernels.h" \
  -o "$work/kernels.cpp"
"$cxx" "${cxxflags[@]}" -c "$work/kernels.cpp" -o "$work/kernels.o"
"$cxx" "${cxxflags[@]}" -c "$here/launch_sizes.cpp" -o "$work/main.o"
"$cxx" "$work/kernels.o" "$work/main.o" -o "$work/launch_sizes" \
  -lbenchmark -lpthread
env -u KSC_NUM_THREADS "$work/launch_sizes" --benchmark_format=json \
  --benchmark_repetitions=9 --benchmark_min_time=0.05 \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true "$@" > "$work/results.json"

python3 - "$work/results.json" <<'PY'
import json
import sys

times = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    kernel, n, t = b["run_name"].split("/")[:3]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
    times.setdefault(kernel, {}).setdefault(int(n.split(":")[1]), {})[
        int(t.split(":")[1])] = b["real_time"] * scale
print("| kernel | threads | 1 OS thread (us) | 2 OS threads (us) | speedup |")
print("| --- | ---: | ---: | ---: | ---: |")
for kernel, sizes in times.items():
    for n in sorted(sizes):
        one, two = sizes[n].get(1), sizes[n].get(2)
        if one and two:
            print("| %s | %d | %.2f | %.2f | %.2f |" % (kernel, n, one, two,
                                                        one / two))
PY
