#!/usr/bin/env bash
# The adjoint-cost benchmark: compiles grad-kernels.kdsl with `ksc --grad`,
# builds grad_bench.cpp (Google Benchmark) with the host C++ compiler at -O2
# and prints, per kernel, the time of K, of K_adj and their ratio as a
# Markdown table (docs/performance.md has the results).
#
#   utils/bench/run-grad-bench.sh [extra Google Benchmark flags]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(bash "$root/utils/setup.sh")"
ksc="$build/bin/ksc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$ksc" "$here/grad-kernels.kdsl" --grad -o "$work/grad-kernels.cpp"
"${CXX:-c++}" -O2 -std=c++17 -I "$work" -I "$("$ksc" --print-runtime-dir)" \
  "$here/grad_bench.cpp" -o "$work/grad_bench" -lbenchmark -lpthread
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
print("| kernel | K (us) | K_adj (us) | K_adj / K |")
print("| --- | ---: | ---: | ---: |")
ratios = []
for kernel, t in times.items():
    ratio = t["adjoint"] / t["primal"]
    ratios.append(ratio)
    print("| %s | %.1f | %.1f | %.2f |" % (kernel, t["primal"], t["adjoint"], ratio))
print()
print("median ratio %.2f, max %.2f" % (statistics.median(ratios), max(ratios)))
PY
