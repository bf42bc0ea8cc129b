#!/usr/bin/env python3
"""The tables of the CPU throughput benchmark (run-cpu-bench.sh) as Markdown.

    cpu_bench_tables.py RESULTS.json [WARP.json]

RESULTS.json is cpu_bench's Google Benchmark JSON output (medians of
repetitions), WARP.json warp_cpu_bench.py's. The numbers of OS threads are
those the results have (modes K_<n>t and K_adj_<n>t; CPU_BENCH_THREADS
picks them when cpu_bench runs): a column per number, and the speedup of
each over 1 thread.
"""
import json
import os
import re
import statistics
import sys


def main():
    results = json.load(open(sys.argv[1]))
    warp = {}
    if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
        warp = json.load(open(sys.argv[2]))
    times, wrong, order, counts = {}, set(), [], set()
    # In the order the benchmarks were registered (a run with
    # --benchmark_enable_random_interleaving lists them shuffled).
    benchmarks = sorted(results["benchmarks"],
                        key=lambda b: b.get("family_index", 0))
    for b in benchmarks:
        if b.get("aggregate_name", "median") != "median":
            continue
        kernel, mode = b["run_name"].split("/")[:2]
        if kernel not in times:
            order.append(kernel)
        times.setdefault(kernel, {})[mode] = b["real_time"]
        if b.get("label") == "WRONG":
            wrong.add((kernel, mode))
        m = re.fullmatch(r"K_(?:adj_)?(\d+)t", mode)
        if m:
            counts.add(int(m.group(1)))
    counts = sorted(counts)
    first = counts[0] if counts else 1
    more = [n for n in counts if n != first]

    def t(kernel, mode):
        """A time in us, or None."""
        if mode.startswith("warp_"):
            return warp.get(kernel, {}).get(mode[5:])
        return times[kernel].get(mode)

    def us(kernel, mode):
        v = t(kernel, mode)
        if v is None:
            return "-"
        return "%.1f%s" % (v, " (wrong)" if (kernel, mode) in wrong else "")

    sums = {}

    def ratio(kernel, num, den, name=None):
        a, b = t(kernel, num), t(kernel, den)
        if a is None or b is None or b == 0:
            return "-"
        if (kernel, num) in wrong or (kernel, den) in wrong:
            return "n/a"
        if name is not None:
            sums.setdefault(name, []).append(a / b)
        return "%.2f" % (a / b)

    def table(header, rows):
        print("| " + " | ".join(header) + " |")
        print("| --- |" + " ---: |" * (len(header) - 1))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print()

    def threads(n):
        return "%d thread%s" % (n, "" if n == 1 else "s")

    has_warp = any(warp.get(k) for k in order)
    k1, a1 = "K_%dt" % first, "K_adj_%dt" % first
    header = (["kernel", "hand loop (us)", "K serial (us)"] +
              ["K %s (us)" % threads(n) for n in counts] +
              ["hand / K %dt" % first] +
              ["K %dt / K %dt" % (first, n) for n in more])
    if has_warp:
        header += ["Warp K (us)", "Warp K / K %dt" % first]
    rows = []
    for k in order:
        row = ([k, us(k, "hand"), us(k, "K_serial")] +
               [us(k, "K_%dt" % n) for n in counts] +
               [ratio(k, "hand", k1, "hand / K %dt" % first)] +
               [ratio(k, k1, "K_%dt" % n, "K %dt / K %dt" % (first, n))
                for n in more])
        if has_warp:
            row += [us(k, "warp_K"),
                    ratio(k, "warp_K", k1, "Warp K / K %dt" % first)]
        rows.append(row)
    table(header, rows)

    header = (["kernel", "K_adj serial (us)"] +
              ["K_adj %s (us)" % threads(n) for n in counts] +
              ["K_adj / K serial"] +
              ["K_adj / K %dt" % n for n in counts] +
              ["K_adj %dt / %dt" % (first, n) for n in more])
    if has_warp:
        header += ["Warp K_adj (us)", "Warp K_adj / K_adj %dt" % first]
    rows = []
    for k in order:
        row = ([k, us(k, "K_adj_serial")] +
               [us(k, "K_adj_%dt" % n) for n in counts] +
               [ratio(k, "K_adj_serial", "K_serial", "K_adj / K serial")] +
               [ratio(k, "K_adj_%dt" % n, "K_%dt" % n, "K_adj / K %dt" % n)
                for n in counts] +
               [ratio(k, a1, "K_adj_%dt" % n, "K_adj %dt / %dt" % (first, n))
                for n in more])
        if has_warp:
            row += [us(k, "warp_K_adj"),
                    ratio(k, "warp_K_adj", a1,
                          "Warp K_adj / K_adj %dt" % first)]
        rows.append(row)
    table(header, rows)

    print("Times: medians of the repetitions. hand / K %dt below 1: ksc's K "
          "is slower than the hand-written loop; K %dt / K nt: the speedup "
          "of n OS threads.%s" % (
              first, first, " \"wrong\": the launcher failed the self-check "
              "(its ratios are left out)." if wrong else ""))
    if has_warp:
        print("Warp: medians of %d runs, each one wp.launch (K) or "
              "tape.backward() (K_adj) on device \"cpu\", Python included "
              "(a wp.launch of one thread: %.1f us); Warp / ksc above 1: ksc "
              "is faster." % (warp["_runs"], warp["_launch_us"]))
    for name, values in sums.items():
        if len(values) > 1:
            print("%s: median %.2f, min %.2f, max %.2f" % (
                name, statistics.median(values), min(values), max(values)))


if __name__ == "__main__":
    main()
