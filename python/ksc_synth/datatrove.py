"""ksc-synth as DataTrove pipeline steps (docs/dataset.md, "On many machines").

``SynthShard(dataset)`` makes, validates and marks done the shard of its
task (``rank`` of ``world_size``: the executor's ``tasks``), with
``--resume``; ``SynthMerge(dataset, tasks)`` merges the shards (with the
splits and the card) in a one-task executor that depends on the shards'.
Any DataTrove executor runs them unchanged:

    from datatrove.executor import LocalPipelineExecutor
    shards, merged = executors(dataset, tasks=64, workers=8, logging_dir="logs")
    merged.run()      # runs the shards first (depends=), then the merge

or ``SlurmPipelineExecutor``/``RayPipelineExecutor`` built the same way
(``executors(..., executor=SlurmPipelineExecutor, partition=..., time=...)``).
DataTrove writes a completion marker per task in ``logging_dir``: launching
the same pipeline again skips the tasks that completed and runs the others,
whose shards resume from their checkpoints. From the command line (local
and Ray executors):

    python -m ksc_synth.datatrove --output=out --count=100000 --tasks=16 \\
        --workers=2 --logging-dir=out/logs [--executor=ray] -- --forms=cpp
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from datatrove.pipeline.base import PipelineStep

from . import (Dataset, add_arguments, dataset_from_arguments, merge,
               run_shard)

__all__ = ["SynthShard", "SynthMerge", "executors", "main"]


class SynthShard(PipelineStep):
    """Makes shard ``rank`` of ``world_size`` of the dataset (documents
    that come in pass through untouched)."""

    name = "ksc-synth shard"
    type = "SYNTH"

    def __init__(self, dataset: Dataset):
        super().__init__()
        self.dataset = dataset

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        with self.track_time(unit="shard"):
            result = run_shard(self.dataset, rank, world_size)
        self.stat_update("records", value=result["records"], unit="shard")
        if result["resumed_from"] is not None:
            self.stat_update("resumed", unit="shard")
        if data:
            yield from data


class SynthMerge(PipelineStep):
    """Merges the dataset's ``tasks`` shards; run it in a one-task executor
    that depends on the shards' executor."""

    name = "ksc-synth merge"
    type = "SYNTH"

    def __init__(self, dataset: Dataset, tasks: int):
        super().__init__()
        self.dataset = dataset
        self.tasks = tasks

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        if world_size != 1:
            raise ValueError("SynthMerge runs in an executor of one task, "
                             f"not {world_size}")
        with self.track_time(unit="dataset"):
            merge(self.dataset, self.tasks)
        if data:
            yield from data


def executors(dataset: Dataset, tasks: int, logging_dir: str,
              executor=None, **options):
    """The shards' executor (``tasks`` tasks) and the merge's (one task,
    ``depends=`` the shards'), of the executor class given (default
    ``LocalPipelineExecutor``); ``options`` go to both (``workers`` only to
    the shards'). Run the second: it runs the first."""
    if executor is None:
        from datatrove.executor import LocalPipelineExecutor as executor
    # Every task runs the ksc-synth the launching machine found.
    dataset = dataclasses.replace(dataset, ksc_synth=dataset.executable())
    shards = executor(pipeline=[SynthShard(dataset)], tasks=tasks,
                      logging_dir=f"{logging_dir}/shards", **options)
    options.pop("workers", None)
    merged = executor(pipeline=[SynthMerge(dataset, tasks)], tasks=1,
                      logging_dir=f"{logging_dir}/merge", depends=shards,
                      **options)
    return shards, merged


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ksc_synth.datatrove",
        description="Make a ksc-synth dataset with DataTrove, then merge it.")
    add_arguments(parser)
    parser.add_argument("--logging-dir", required=True)
    parser.add_argument("--workers", type=int, default=-1,
                        help="tasks at once (default: all)")
    parser.add_argument("--executor", choices=("local", "ray"),
                        default="local")
    args = parser.parse_args(argv)
    dataset = dataset_from_arguments(args)
    if args.executor == "local":
        from datatrove.executor import LocalPipelineExecutor
        shards, merged = executors(dataset, args.tasks, args.logging_dir,
                                   LocalPipelineExecutor, workers=args.workers)
        merged.run()
        return 0
    import ray
    from datatrove.executor import RayPipelineExecutor
    from .ray import init
    init(include_dashboard=False, log_to_driver=False)   # ships ksc_synth
    try:
        shards, merged = executors(dataset, args.tasks, args.logging_dir,
                                   RayPipelineExecutor, workers=args.workers,
                                   cpus_per_task=args.jobs)
        shards.run()
        merged.run()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
