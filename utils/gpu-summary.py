#!/usr/bin/env python3
"""The tables of a GPU check, from ksc-replay's JSON report.

    gpu-summary.py REPORT.json

Prints Markdown: the device, the totals, the failures, every case with the
largest differences from the CPU through each code path, the effective
bandwidth of the saxpy and integrator benchmarks against the device's copy
bandwidth and against the same work written by hand, and the cost of the
adjoint kernels (K_adj / K) of the gradient benchmarks, and the cost of
--deterministic on them. The benchmark cases
are those utils/gpu-bundle makes (bench/...).
"""

import json
import sys


def median_ms(run, kernel=None):
    for timing in run["timings"]:
        if kernel is None or timing["kernel"] == kernel:
            return timing["median_ms"], timing
    return None, None


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    device = report["device"]
    driver = device["driver_version"]
    summary = report["summary"]
    print("# ksc on %s (%s), driver %d.%d\n" % (
        device["name"], device["arch"], driver // 1000, driver % 1000 // 10))
    print("%d runs: %d passed, %d failed, %d skipped, in %.1f s\n" % (
        summary["runs"], summary["passed"], summary["failed"],
        summary["skipped"], report["seconds"]))
    runs = {}
    for run in report["runs"]:
        runs.setdefault(run["case"], {})[run["via"]] = run

    failures = [r for r in report["runs"] if r["status"] == "fail"]
    if failures:
        print("## Failures\n")
        for run in failures:
            print("- `%s` (%s): %s" % (run["case"], run["via"],
                                       run["message"].replace("\n", " ")))
        print()

    print("## Every case\n")
    print("| case | ptx | cuda-source | max abs diff | max rel diff |")
    print("|---|---|---|---:|---:|")
    for name, by_via in runs.items():
        comparisons = [c for run in by_via.values()
                       for c in run["comparisons"]]
        abs_diff = max((c["max_abs_diff"] or 0 for c in comparisons),
                       default=0)
        rel_diff = max((c["max_rel_diff"] or 0 for c in comparisons),
                       default=0)
        cells = [by_via[v]["status"] if v in by_via else "-"
                 for v in ("ptx", "cuda-source")]
        print("| `%s` | %s | %s | %.2e | %.2e |" % (name, cells[0], cells[1],
                                                   abs_diff, rel_diff))
    print()

    copy = runs.get("bench/copy-handwritten", {}).get("cuda-source")
    copy_gbs = None
    if copy and copy["timings"]:
        ms, timing = median_ms(copy)
        copy_gbs = timing["threads"] * 8 / (ms * 1e6) if ms else None
    print("## Bandwidth\n")
    if copy_gbs:
        print("Copy bandwidth (a hand-written copy kernel): %.1f GB/s\n"
              % copy_gbs)
    print("| kernel | code | bounds checks | median ms | GB/s | of copy "
          "| of hand-written |")
    print("|---|---|---|---:|---:|---:|---:|")
    for kernel in ("saxpy", "integrate"):
        hand = runs.get("bench/%s-handwritten" % kernel, {}).get(
            "cuda-source")
        hand_ms = median_ms(hand)[0] if hand and hand["timings"] else None
        rows = [(via, "yes", "bench/" + kernel)
                for via in ("ptx", "cuda-source")]
        rows += [(via, "no", "bench/%s-nocheck" % kernel)
                 for via in ("ptx", "cuda-source")]
        rows += [("hand-written", "no", "bench/%s-handwritten" % kernel)]
        for via, checks, case in rows:
            run = runs.get(case, {}).get(
                "cuda-source" if via == "hand-written" else via)
            if not run or not run["timings"]:
                continue
            ms, timing = median_ms(run)
            gbs = timing["gb_per_s"]
            print("| %s | %s | %s | %.4f | %.1f | %s | %s |" % (
                kernel, via, checks, ms, gbs,
                "%.2f" % (gbs / copy_gbs) if copy_gbs else "-",
                "%.2f" % (hand_ms / ms) if hand_ms and ms else "-"))
    print()

    print("## Adjoint cost: K_adj / K\n")
    print("K_adj / K of each code path and of the hand-written adjoint "
          "(utils/bench/handwritten.cu, where there is one), and the "
          "hand-written adjoint's time over each code path's.\n")
    print("| kernel | ptx | cuda-source | hand-written | ptx of "
          "hand-written | cuda-source of hand-written |")
    print("|---|---:|---:|---:|---:|---:|")
    for kernel in ("saxpy", "integrate", "nbody", "transform", "horner",
                   "newton_sqrt"):
        hand = runs.get("bench/grad/%s_adj-handwritten" % kernel, {}).get(
            "cuda-source")
        hand_ms = median_ms(hand)[0] if hand and hand["timings"] else None
        ratios, speeds = [], []
        for via in ("ptx", "cuda-source"):
            primal = runs.get("bench/grad/" + kernel, {}).get(via)
            adjoint = runs.get("bench/grad/%s_adj" % kernel, {}).get(via)
            k = median_ms(primal, kernel)[0] if primal else None
            k_adj = median_ms(adjoint, kernel + "_adj")[0] if adjoint \
                else None
            ratios.append("%.2f" % (k_adj / k) if k and k_adj else "-")
            speeds.append("%.2f" % (hand_ms / k_adj) if hand_ms and k_adj
                          else "-")
            if via == "cuda-source":
                ratios.append("%.2f" % (hand_ms / k) if hand_ms and k
                              else "-")
        print("| %s | %s | %s | %s | %s | %s |" % (
            kernel, ratios[0], ratios[1], ratios[2], speeds[0], speeds[1]))
    print()

    print("## Deterministic adjoints\n")
    print("K_adj with --deterministic over K_adj without, per code path "
          "(horner and nbody run serially with --deterministic and are not "
          "timed).\n")
    print("| kernel | ptx | cuda-source |")
    print("|---|---:|---:|")
    for kernel in ("saxpy", "integrate", "transform", "newton_sqrt"):
        cells = []
        for via in ("ptx", "cuda-source"):
            default = runs.get("bench/grad/%s_adj" % kernel, {}).get(via)
            fixed = runs.get("bench/grad/%s_adj-deterministic" % kernel,
                             {}).get(via)
            ms = median_ms(default, kernel + "_adj")[0] if default else None
            fixed_ms = median_ms(fixed, kernel + "_adj")[0] if fixed \
                else None
            cells.append("%.2f" % (fixed_ms / ms) if ms and fixed_ms
                         else "-")
        print("| %s | %s | %s |" % (kernel, cells[0], cells[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
