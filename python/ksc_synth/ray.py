"""ksc-synth's shards as Ray tasks (docs/dataset.md, "On many machines").

    python -m ksc_synth.ray --output=out --count=1000000 --tasks=64 --jobs=4 \\
        [--address=auto] [--max-retries=3] -- --forms=cpp,cpp_adj

runs shard ``i`` of ``--tasks`` as a Ray task with ``num_cpus=--jobs``
(``ksc_synth.run_shard``: generate with ``--resume``, validate, mark done),
retried up to ``--max-retries`` times when its worker dies (a killed
process, a lost node) or ksc-synth is stopped by a signal; the retry
resumes the shard from its last checkpoint. While the tasks run, a line
every ``--progress-seconds`` gives the shards done, the records made, the
records per second over all tasks since the start (of the records this
run made: a relaunch's shards resume), and the retries. When
every shard is done, the driver merges them (with the splits and the
card) into ``OUTPUT/NAME.jsonl``: the same bytes as one ``ksc-synth`` run
of the same settings. A shard that fails for good (a retry cannot help:
kernels that do not compile, bad records, or the retries spent) is named
with its reason, the merge is not made, and the exit status is 1; running
the same command again makes only the shards that are not done.

The output directory must be one every worker reaches at the same path (a
shared file system on a cluster): the shards are written there and the
driver reads them back for the merge.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import sys
import time
from typing import Optional, TextIO

import ray

from . import (Dataset, ShardInterrupted, add_arguments, dataset_from_arguments,
               merge, run_shard, shard_path, shard_records)

__all__ = ["init", "run", "main"]


@ray.remote(num_cpus=0)
class _Progress:
    """What every task has reported: records per shard, attempts."""

    def __init__(self):
        self.records = {}
        self.before = {}   # what each shard held when its first attempt began
        self.attempts = {}

    def started(self, rank: int, records: int) -> None:
        self.attempts[rank] = self.attempts.get(rank, 0) + 1
        self.before.setdefault(rank, records)
        self.records.setdefault(rank, records)

    def update(self, rank: int, records: int) -> None:
        self.records[rank] = records

    def snapshot(self) -> dict:
        """The records made, those made by this run (not by an earlier
        launch), and the retries."""
        total = sum(self.records.values())
        return {"records": total, "new": total - sum(self.before.values()),
                "retries": sum(n - 1 for n in self.attempts.values())}


def init(**options):
    """``ray.init(**options)`` with this package in the job's
    ``runtime_env`` ``py_modules``: Ray ships it to every worker, which
    does not share the driver's ``sys.path`` (on a cluster, not even its
    files)."""
    runtime_env = dict(options.pop("runtime_env", None) or {})
    runtime_env["py_modules"] = list(runtime_env.get("py_modules", [])) + [
        os.path.dirname(os.path.abspath(__file__))]
    return ray.init(runtime_env=runtime_env, **options)


def _shard_task(dataset: Dataset, rank: int, tasks: int, progress,
                interval: float) -> dict:
    progress.started.remote(
        rank, shard_records(shard_path(dataset, rank, tasks)))
    return run_shard(dataset, rank, tasks,
                     lambda records: progress.update.remote(rank, records),
                     interval)


def run(dataset: Dataset, tasks: int, *, num_cpus: Optional[float] = None,
        max_retries: int = 3, progress_seconds: float = 10.0,
        out: Optional[TextIO] = sys.stderr) -> dict:
    """Makes the dataset with ``tasks`` Ray tasks on the connected cluster
    (connect with ``init`` first, which ships this package to the workers)
    and merges it; a summary:

    ``{"records", "seconds", "records_per_second", "retries", "shards"
    (run_shard's results), "failed" ({rank: reason}), "dataset" (the
    merged file, or None when a shard failed)}``.
    """
    if tasks < 1:
        raise ValueError(f"tasks must be at least 1, not {tasks}")
    # Every task runs the ksc-synth the driver found.
    dataset = dataclasses.replace(dataset, ksc_synth=dataset.executable())
    progress = _Progress.remote()
    task = ray.remote(_shard_task).options(
        num_cpus=dataset.jobs if num_cpus is None else num_cpus,
        max_retries=max_retries, retry_exceptions=[ShardInterrupted])
    interval = min(1.0, progress_seconds)
    pending = {task.remote(dataset, rank, tasks, progress, interval): rank
               for rank in range(tasks)}
    start = time.monotonic()
    shards, failed = [], {}

    def show(final=False):
        snap = ray.get(progress.snapshot.remote())
        seconds = time.monotonic() - start
        if out:
            print(f"ksc-synth on Ray: {len(shards)}/{tasks} shards done, "
                  f"{snap['records']} records, "
                  f"{snap['new'] / max(seconds, 1e-9):.1f} records/s, "
                  f"{snap['retries']} retries, {len(failed)} failed"
                  + (f" ({seconds:.1f} s)" if final else ""),
                  file=out, flush=True)
        return snap, seconds

    while pending:
        ready, _ = ray.wait(list(pending), num_returns=len(pending),
                            timeout=progress_seconds)
        for ref in ready:
            rank = pending.pop(ref)
            try:
                shards.append(ray.get(ref))
            except Exception as error:       # the task failed for good
                failed[rank] = str(getattr(error, "cause", None) or error)
        if pending:
            show()
    snap, seconds = show(final=True)
    summary = {"records": sum(s["records"] for s in shards),
               "seconds": seconds, "retries": snap["retries"],
               "shards": sorted(shards, key=lambda s: s["rank"]),
               "failed": failed, "dataset": None}
    summary["records_per_second"] = snap["new"] / max(seconds, 1e-9)
    if not failed:
        summary["dataset"] = str(merge(dataset, tasks))
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ksc_synth.ray",
        description="Make a ksc-synth dataset as Ray tasks, then merge it.")
    add_arguments(parser)
    parser.add_argument("--address", default=None,
                        help="the Ray cluster (default: ray.init's: "
                             "$RAY_ADDRESS, else a local one)")
    parser.add_argument("--max-retries", type=int, default=3)
    parser.add_argument("--progress-seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    dataset = dataset_from_arguments(args)
    # SIGTERM ends the driver through `finally`: a local cluster it started
    # is shut down, not left running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    init(address=args.address, include_dashboard=False, log_to_driver=False)
    try:
        summary = run(dataset, args.tasks, max_retries=args.max_retries,
                      progress_seconds=args.progress_seconds)
    finally:
        ray.shutdown()
    for rank, reason in sorted(summary["failed"].items()):
        print(f"ksc-synth on Ray: shard {rank} failed: {reason}",
              file=sys.stderr)
    if summary["failed"]:
        print("ksc-synth on Ray: no merge; the same command makes the shards "
              "that are not done", file=sys.stderr)
        return 1
    print(f"ksc-synth on Ray: wrote {summary['dataset']} "
          f"({summary['records']} records)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
