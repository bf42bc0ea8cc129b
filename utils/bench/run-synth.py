#!/usr/bin/env python3
"""ksc-synth throughput and memory (issues 7 and 28): records per second and
peak resident memory for source forms only and for all forms, at several
counts; and, side by side on one core, ksc against NVIDIA Warp's code
generation for the same kernels.

  utils/bench/run-synth.py [--ksc-synth build/bin/ksc-synth] [--jobs 2]
                           [--source-counts 10000,100000] [--all-counts 2000]
                           [--warp-count 1000] [--profile realistic]

Each run writes its dataset to a temporary directory; the rate is the one
ksc-synth puts in its statistics (records written / wall time, the
precompiled prelude and worker start-up included), the memory the maximum
resident set size of the process (GNU time's %M). Prints a Markdown table,
then where the time went: milliseconds of worker time per record for each
stage (the run's seconds_by_stage; with --jobs=2 two workers add up).

With --warp-count N (and Warp importable), on one core (--jobs=1): the
rate of `--forms=cpp,cpp_adj` (the CPU C++ of each kernel and its adjoint)
against Warp's for the same N kernels (their `warp` forms, timed by
utils/bench/warp-codegen.py: import, hash and C++ code generation of the
kernel and its adjoint; nothing compiled), then the rates of all source
forms and of all forms with PTX.

--profile passes ksc-synth's --profile (basic, the default, or realistic)
to every run.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

SOURCE_FORMS = "cpp,cpp_adj,cuda,cuda_adj"
ALL_FORMS = "ks_mlir,cpp,cpp_adj,cpp_jvp,cuda,cuda_adj,ptx,ptx_adj,warp"
ALL_SOURCE_FORMS = "ks_mlir,cpp,cpp_adj,cpp_jvp,cuda,cuda_adj,warp"


PROFILE = "basic"


def run(synth, count, forms, jobs, workdir, keep=False):
    data = os.path.join(workdir, "data.jsonl")
    stats = os.path.join(workdir, "data.stats.json")
    timed = subprocess.run(
        ["/usr/bin/time", "-f", "%M", synth, "--count=%d" % count,
         "--seed=1", "--profile=" + PROFILE, "--forms=" + forms,
         "--jobs=%d" % jobs, "--quiet", "-o", data],
        capture_output=True, text=True)
    if timed.returncode not in (0, 1):  # 1: some kernels failed to compile
        raise SystemExit(timed.stderr)
    peak_kb = int(timed.stderr.strip().splitlines()[-1])
    result = json.load(open(stats))
    size = os.path.getsize(data)
    if not keep:
        os.remove(data)
    return result, peak_kb, size


def against_warp(synth, count, workdir):
    """ksc against Warp on one core, for the same `count` kernels."""
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "warp-codegen.py")
    rows = []
    for label, forms in [("cpp,cpp_adj", "cpp,cpp_adj"),
                         ("all source forms", ALL_SOURCE_FORMS),
                         ("all forms, PTX included", ALL_FORMS)]:
        stats, _, _ = run(synth, count, forms, 1, workdir, keep=True)
        rows.append((label, stats["records"], stats["records_per_second"]))
        if forms == ALL_SOURCE_FORMS:
            warp = subprocess.run(
                [sys.executable, bench, os.path.join(workdir, "data.jsonl")],
                capture_output=True, text=True)
            if warp.returncode != 0:
                print("\n(Warp not timed: %s)" % warp.stderr.strip()[-300:])
                return
            warp = json.loads(warp.stdout)
    ksc_rate = rows[0][2]
    print("\nOne core (--jobs=1), the same %d kernels (Warp %s):\n" %
          (count, warp["warp_version"]))
    print("| what | kernels | kernels/s | ksc / Warp |")
    print("|---|---:|---:|---:|")
    print("| Warp: import, hash, C++ of kernel and adjoint | %d | %.0f | |" %
          (warp["records"], warp["kernels_per_second"]))
    print("| Warp: C++ of kernel and adjoint alone | %d | %.0f | |" %
          (warp["records"], warp["codegen_kernels_per_second"]))
    for label, records, rate in rows:
        print("| ksc-synth --forms=%s | %d | %.0f | %.2f |" %
              (label, records, rate, rate / warp["kernels_per_second"]))
    print("\nWarp's seconds by stage: %s" % json.dumps(warp["seconds"]))


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ksc-synth", default="build/bin/ksc-synth")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--source-counts", default="10000,100000")
    parser.add_argument("--all-counts", default="2000")
    parser.add_argument("--warp-count", type=int, default=0)
    parser.add_argument("--profile", default="basic")
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile
    print("Machine: %s, %d cores; --jobs=%d, --profile=%s\n" %
          (cpu_name(), os.cpu_count(), args.jobs, PROFILE))
    print("| forms | --count | records | duplicates | failures | "
          "records/s | peak RSS | output |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    plan = [(SOURCE_FORMS, int(c)) for c in args.source_counts.split(",") if c]
    plan += [(ALL_FORMS, int(c)) for c in args.all_counts.split(",") if c]
    stages = []
    with tempfile.TemporaryDirectory() as workdir:
        for forms, count in plan:
            stats, peak_kb, size = run(args.ksc_synth, count, forms,
                                       args.jobs, workdir)
            label = "source (%s)" % forms if forms == SOURCE_FORMS else "all 9"
            print("| %s | %d | %d | %d | %d | %.0f | %.0f MiB | %.0f MiB |" %
                  (label, count, stats["records"],
                   stats["duplicates_dropped"], stats["failures"],
                   stats["records_per_second"], peak_kb / 1024.0,
                   size / 2.0**20), flush=True)
            stages.append(("%s, %d" % (label.split(" ")[0], count), stats))
    names = sorted({name for _, stats in stages
                    for name in stats.get("seconds_by_stage", {})})
    print("\nWorker milliseconds per record, by stage:\n")
    print("| stage | " + " | ".join(label for label, _ in stages) + " |")
    print("|---|" + "---:|" * len(stages))
    for name in names + ["total"]:
        cells = []
        for _, stats in stages:
            by_stage = stats.get("seconds_by_stage", {})
            seconds = (sum(by_stage.values()) if name == "total"
                       else by_stage.get(name, 0.0))
            cells.append("%.2f" % (1000.0 * seconds / max(1, stats["records"])))
        print("| %s | %s |" % (name, " | ".join(cells)))
    if args.warp_count:
        with tempfile.TemporaryDirectory() as workdir:
            against_warp(args.ksc_synth, args.warp_count, workdir)


if __name__ == "__main__":
    main()
