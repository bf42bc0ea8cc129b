#!/usr/bin/env bash
# The derivative-cost benchmark: compiles grad-kernels.kdsl with
# `ksc --grad=all` and `ksc --grad=forward --width=4` and `=8`, builds
# grad_bench.cpp (Google Benchmark) with the host C++ compiler at -O2 and
# prints, per kernel, the time of K, of K_adj and K_jvp and their ratios
# to K, and the cost per direction of K_jvp with 4 and 8 directions
# (its time / W / K's), as a Markdown table (docs/performance.md has the
# results).
#
#   utils/bench/run-grad-bench.sh [extra Google Benchmark flags]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(bash "$root/utils/setup.sh")"
ksc="$build/bin/ksc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$ksc" "$here/grad-kernels.kdsl" --grad=all -o "$work/grad-kernels.cpp"
for w in 4 8; do
  # Included in namespaces by grad_bench.cpp: only the C entry points,
  # extern "C", would clash.
  "$ksc" "$here/grad-kernels.kdsl" --grad=forward --width=$w |
    sed "s/ksc_launch_/ksc_w${w}_launch_/g" > "$work/grad-kernels-w$w.cpp"
done
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
