#!/usr/bin/env python3
"""ksc-synth on engines (issue 48): records per second through Ray and
DataTrove against one ksc-synth process with --jobs, on this machine, in
one run, the same dataset each time.

  build/python-venv/bin/python utils/bench/synth-engines.py \\
      [--ksc-synth build/bin/ksc-synth] [--count 240] [--tasks 8] \\
      [--workers 1,2] [--forms all] [--validate]

For each worker count W: `ksc-synth --jobs=W` (one process, W threads);
ksc_synth.ray with a local Ray cluster of W CPUs and --tasks tasks of one
core each (`--jobs=1`: W at a time); ksc_synth.datatrove on
LocalPipelineExecutor with W workers. Generation only (the tasks'
validation is off, as a plain run has none) unless --validate, which adds
a row per engine with ksc-synth validate's defaults in each task. Every
run makes the same records (checked: the merged files are compared with
the plain run's). The engine's start-up is Ray's
`ray.init` of a local cluster (DataTrove's process pool is not told
apart); its overhead per task is the rest of its extra wall time over the
plain run of the same workers, divided by the tasks (scheduling, each
task's ksc-synth start-up and prelude, idle workers at the end, the merge).
Prints a Markdown table.
"""
import argparse
import filecmp
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))

ALL_FORMS = "ks_mlir,cpp,cpp_adj,cpp_jvp,cuda,cuda_adj,ptx,ptx_adj,warp"


def plain(synth, count, forms, jobs, work):
    out = os.path.join(work, "plain", "data.jsonl")
    os.makedirs(os.path.dirname(out))
    start = time.monotonic()
    subprocess.run([synth, f"--count={count}", "--seed=1", f"--forms={forms}",
                    f"--jobs={jobs}", "--quiet", "-o", out], check=True)
    return time.monotonic() - start, out


def on_ray(dataset, tasks, workers):
    import ray
    import ksc_synth.ray
    temp = tempfile.mkdtemp(prefix="ksc-ray-", dir="/tmp")
    start = time.monotonic()
    ksc_synth.ray.init(num_cpus=workers, include_dashboard=False,
                       log_to_driver=False, _temp_dir=temp)
    started = time.monotonic() - start
    try:
        summary = ksc_synth.ray.run(dataset, tasks, num_cpus=1,
                                    progress_seconds=30, out=None)
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
    if summary["failed"]:
        sys.exit(f"ray: shards failed: {summary['failed']}")
    return time.monotonic() - start, started, summary["dataset"]


def on_datatrove(dataset, tasks, workers, work):
    from ksc_synth.datatrove import executors
    start = time.monotonic()
    shards, merged = executors(dataset, tasks, os.path.join(work, "logs"),
                               workers=workers)
    merged.run()
    return (time.monotonic() - start, 0.0,
            os.path.join(dataset.output, f"{dataset.name}.jsonl"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ksc-synth",
                        default=os.path.join(root, "build", "bin", "ksc-synth"))
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--forms", default="all")
    parser.add_argument("--validate", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(args.ksc_synth))), "lib", "ksc", "python"))
    import logging
    import ksc_synth
    from loguru import logger
    logger.remove()                           # DataTrove's log lines
    logging.getLogger("ray").setLevel(logging.ERROR)
    forms = ALL_FORMS if args.forms == "all" else args.forms
    synth = os.path.abspath(args.ksc_synth)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} "
          f"cores; {args.count} ids, forms {args.forms}, {args.tasks} tasks")
    print()
    print("| workers | how | wall s | start-up s | records/s | vs plain "
          "| overhead/task s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for workers in [int(w) for w in args.workers.split(",")]:
        work = tempfile.mkdtemp(prefix="ksc-synth-engines-")
        try:
            seconds, reference = plain(synth, args.count, forms, workers, work)
            records = sum(1 for _ in open(reference))
            rows = [("ksc-synth --jobs", seconds, 0.0, reference)]
            for validate in ([None, ()] if args.validate else [None]):
                suffix = ", validated" if validate is not None else ""
                for name, run in (
                        ("Ray", lambda d: on_ray(d, args.tasks, workers)),
                        ("DataTrove local", lambda d: on_datatrove(
                            d, args.tasks, workers, d.output))):
                    dataset = ksc_synth.Dataset(
                        output=os.path.join(work, f"{name}{suffix}"),
                        count=args.count, seed=1, options=[f"--forms={forms}"],
                        validate=validate, ksc_synth=synth)
                    seconds_run, started, made = run(dataset)
                    if not filecmp.cmp(made, reference, shallow=False):
                        sys.exit(f"{name}: the dataset differs from the plain run's")
                    rows.append((name + suffix, seconds_run, started, made))
            for name, wall, started, _ in rows:
                overhead = ("" if name.startswith("ksc-synth") else
                            f"{(wall - started - seconds) / args.tasks:.2f}")
                print(f"| {workers} | {name} | {wall:.1f} | "
                      f"{started:.1f} | {records / wall:.1f} | "
                      f"{seconds / wall:.2f}x | {overhead} |", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
