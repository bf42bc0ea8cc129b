#!/usr/bin/env bash
# The derivative-cost benchmark: times every kernel K of grad-kernels.kdsl
# as K, K_adj and K_jvp, and K_jvp propagating 4 and 8 directions, on the
# CPU (Google Benchmark), and prints the ratios to K as a Markdown table
# (docs/performance.md has the results).
#
# Each mode is its own translation unit, built with the host C++ compiler
# at -O2 from one file ksc generates (`ksc`, `ksc --grad=reverse`,
# `ksc --grad=forward --width=W`), so that the compiler's per-unit budgets
# treat every kernel alike; the C entry points are renamed per unit
# (ksc_<mode>_launch_*) so that the units link together.
#
#   utils/bench/run-grad-bench.sh [extra Google Benchmark flags]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# unit MODE SOURCE DEFINE [ksc options...]: generates the kernels of MODE
# and compiles SOURCE with them into $work/MODE.o.
unit() {
  local mode="$1" source="$2" define="$3"
  shift 3
  "$ksc" "$here/grad-kernels.kdsl" "$@" |
    sed "s/ksc_launch_/ksc_${mode}_launch_/g" > "$work/$mode.cpp"
  "$cxx" -O2 -std=c++17 -I "$here" -I "$runtime" -D"$define" \
    -DKSC_GENERATED="\"$work/$mode.cpp\"" -c "$here/$source" \
    -o "$work/$mode.o"
}
unit primal grad_bench_reverse.cpp KSC_ADJOINT=0
unit adjoint grad_bench_reverse.cpp KSC_ADJOINT=1 --grad=reverse
for w in 1 4 8; do
  unit "tangent$w" grad_bench_forward.cpp KSC_WIDTH=$w --grad=forward \
    --width=$w
done
"$cxx" "$work"/*.o -o "$work/grad_bench" -lbenchmark_main -lbenchmark \
  -lpthread
"$work/grad_bench" --benchmark_format=json --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true "$@" > "$work/results.json"

python3 - "$work/results.json" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))
times = {}
for b in results["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    kernel, mode = b["run_name"].split("/")[:2]
    times.setdefault(kernel, {})[mode] = b["real_time"]
print("| kernel | K (us) | K_adj (us) | K_adj / K | K_jvp (us) | K_jvp / K "
      "| per direction, W=4 | per direction, W=8 |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
columns = {"adjoint": [], "tangent": [], "tangent4": [], "tangent8": []}
for kernel, t in times.items():
    ratio = {m: t[m] / t["primal"] for m in columns}
    ratio["tangent4"] /= 4
    ratio["tangent8"] /= 8
    for m in columns:
        columns[m].append(ratio[m])
    print("| %s | %.1f | %.1f | %.2f | %.1f | %.2f | %.2f | %.2f |" % (
        kernel, t["primal"], t["adjoint"], ratio["adjoint"], t["tangent"],
        ratio["tangent"], ratio["tangent4"], ratio["tangent8"]))
print()
for m, label in [("adjoint", "K_adj / K"), ("tangent", "K_jvp / K"),
                 ("tangent4", "W=4 per direction / K"),
                 ("tangent8", "W=8 per direction / K")]:
    print("%s: median %.2f, max %.2f" % (label, statistics.median(columns[m]),
                                         max(columns[m])))
PY
