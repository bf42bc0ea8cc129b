"""Makes a small dataset on an engine with one task killed on purpose, and
checks it against one ksc-synth process (test/Synth/engine-*.test).

    engine-run.py ray|datatrove|datatrove-ray|datatrove-slurm|errors WORK KSC_SYNTH

`ray`: ksc_synth.ray with max_retries; the Ray worker running shard 1 is
killed (SIGKILL) once its shard has a checkpoint: Ray retries the task,
which resumes the shard. `datatrove`: DataTrove's local executor; the
ksc-synth of shard 1 is killed the same way: the pipeline fails, and
launching it again skips the completed tasks and resumes shard 1.
`datatrove-ray`: the same pipeline on DataTrove's Ray executor, no kill;
`datatrove-slurm`: on its Slurm executor, with Inputs/fake-slurm's sbatch
and srun on the PATH (no kill).
Then the dataset, its splits, its card and its statistics (but for times)
must be the single run's. `errors`: what the shard and merge steps refuse,
and which errors are retried. Prints what happened, for FileCheck.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import ksc_synth

COUNT, SEED, TASKS, KILLED = 24, 5, 3, 1
SPLITS, LICENSE = "train:0.75,test:0.25", "mit"
OPTIONS = ("--forms=ks_mlir,cpp,cpp_adj,ptx", "--checkpoint-seconds=0.1")
VALIDATE = ("--sample=2", "--nvcc-sample=0", "--grad-sample=1")


def reference(work, ksc_synth_path):
    ref = work / "ref"
    ref.mkdir(parents=True)
    subprocess.run([ksc_synth_path, f"--count={COUNT}", f"--seed={SEED}",
                    *OPTIONS, f"--splits={SPLITS}", "--quiet",
                    "-o", str(ref / "data.jsonl")], check=True)
    subprocess.run([ksc_synth_path, "card", "--quiet", str(ref / "data.jsonl"),
                    f"--license={LICENSE}"], check=True)
    return ref


def processes():
    """(pid, ppid, argv) of every process."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        yield int(entry), ppid, [a.decode(errors="replace") for a in argv]


class Killer(threading.Thread):
    """Kills shard KILLED's ksc-synth (or its parent, the task's worker)
    once the shard has a checkpoint past its first id."""

    def __init__(self, dataset, parent):
        super().__init__(daemon=True)
        self.path = ksc_synth.shard_path(dataset, KILLED, TASKS)
        self.parent = parent
        self.done = threading.Event()
        self.killed_at = None
        self.error = None

    def run(self):
        checkpoint = self.path.with_name(self.path.name + ".checkpoint")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            state = ksc_synth._read_json(checkpoint) or {}
            first = state.get("settings", {}).get("ids", [0])[0]
            if state.get("next_id", first) > first:
                for pid, ppid, argv in processes():
                    if (str(self.path) in argv and
                            "validate" not in argv):
                        self.killed_at = state["next_id"]
                        os.kill(ppid if self.parent else pid, signal.SIGKILL)
                        self.done.set()
                        return
            if self.path.exists():
                self.error = "the shard ended before it could be killed"
                break
            time.sleep(0.02)
        self.error = self.error or "no checkpoint to kill the shard at"
        self.done.set()


def compare(ref, out):
    same = []
    for name in ("data.jsonl", "data.train.jsonl", "data.test.jsonl",
                 "README.md"):
        if (ref / name).read_bytes() != (out / name).read_bytes():
            sys.exit(f"error: {name} differs from the single run's")
        same.append(name)
    print("identical:", " ".join(same))
    drop = ("wall_seconds", "records_per_second", "seconds_by_stage", "jobs",
            "merged")
    stats = []
    for directory in (ref, out):
        value = json.loads((directory / "data.stats.json").read_text())
        stats.append({k: v for k, v in value.items() if k not in drop})
    if stats[0] != stats[1]:
        sys.exit("error: the statistics differ from the single run's")
    print("statistics: same, records", stats[1]["records"])


@contextlib.contextmanager
def local_ray():
    """A local Ray cluster of 2 CPUs, its files in a short temporary
    directory (Ray's socket paths are limited), shut down after."""
    import ray
    import ksc_synth.ray
    temp = tempfile.mkdtemp(prefix="ksc-ray-", dir="/tmp")
    try:
        ksc_synth.ray.init(num_cpus=2, include_dashboard=False,
                           log_to_driver=False, _temp_dir=temp)
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def killing(dataset, parent):
    """A Killer running while the block runs; fails the test if it could
    not kill."""
    killer = Killer(dataset, parent)
    killer.start()
    yield killer
    killer.join()
    if killer.error:
        sys.exit("error: " + killer.error)


def run_ray(dataset):
    import ksc_synth.ray
    with killing(dataset, parent=True) as killer, local_ray():
        summary = ksc_synth.ray.run(dataset, TASKS, max_retries=2,
                                    progress_seconds=2, out=sys.stderr)
    print(f"killed the worker of shard {KILLED}")
    resumed = summary["shards"][KILLED]["resumed_from"]
    print(f"retries: {summary['retries']}, failed: {len(summary['failed'])}, "
          f"shard {KILLED} resumed: {resumed is not None and resumed >= killer.killed_at}")


def run_datatrove(dataset, logs):
    from ksc_synth.datatrove import executors
    with killing(dataset, parent=False):
        shards, merged = executors(dataset, TASKS, str(logs), workers=2)
        try:
            merged.run()
            sys.exit("error: the pipeline with a killed task did not fail")
        except Exception as error:
            print("first launch failed:", type(error).__name__)
    print(f"killed the ksc-synth of shard {KILLED}")
    # A relaunch, as a user would: new executors, the same logging dir.
    shards, merged = executors(dataset, TASKS, str(logs), workers=2)
    merged.run()
    stats = json.loads((logs / "shards" / "stats" / f"{KILLED:05d}.json")
                       .read_text())
    resumed = any("resumed" in step.get("stats", {}) for step in stats)
    print(f"relaunch done; shard {KILLED} resumed: {resumed}")


def run_datatrove_ray(dataset, logs):
    from datatrove.executor import RayPipelineExecutor
    from ksc_synth.datatrove import executors
    with local_ray():
        shards, merged = executors(dataset, TASKS, str(logs),
                                   RayPipelineExecutor, mem_per_cpu_gb=0.5)
        shards.run()
        merged.run()
    print("datatrove on ray: done")


def run_errors(work, ksc_synth_path):
    def show(what, call):
        try:
            call()
            print(what, "-> no error")
        except Exception as error:
            lines = str(error).splitlines()
            print(f"{what} -> {type(error).__name__}: {lines[0]}")
            if len(lines) > 1:
                print("  ...", lines[-1])

    make = lambda **kw: ksc_synth.Dataset(**{
        "output": str(work / "e"), "count": 4, "ksc_synth": ksc_synth_path,
        **kw})
    show("reserved option", lambda: make(options=["--seed=3"]))
    show("bad name", lambda: make(name="../x"))
    show("no ids", lambda: make(count=0))
    show("bad rank", lambda: ksc_synth.shard_path(make(), 2, 2))
    show("bad form", lambda: ksc_synth.run_shard(
        make(options=["--forms=bogus"]), 0, 2))
    show("missing shards", lambda: ksc_synth.merge(make(), 2))
    show("no ksc-synth", lambda: ksc_synth.run_shard(
        make(ksc_synth=str(work / "nowhere")), 0, 1))
    # A killed ksc-synth is retryable; a shard done is not made again.
    dataset = make(options=["--forms=cpp"], validate=None)
    first = ksc_synth.run_shard(dataset, 0, 2)
    again = ksc_synth.run_shard(dataset, 0, 2)
    print("done once:", first["records"], first["skipped"], "again:",
          again["records"], again["skipped"])
    print("retryable:", issubclass(ksc_synth.ShardInterrupted, RuntimeError),
          not issubclass(ksc_synth.ShardFailed, ksc_synth.ShardInterrupted))


def run_datatrove_slurm(dataset, logs):
    from datatrove.executor import SlurmPipelineExecutor
    from ksc_synth.datatrove import executors
    os.environ["FAKE_SLURM_DIR"] = str(logs.parent)
    shards, merged = executors(dataset, TASKS, str(logs),
                               SlurmPipelineExecutor, partition="cpu",
                               time="00:10:00", job_name="synth")
    merged.run()
    jobs = json.loads((logs.parent / "jobs.json").read_text())
    print("datatrove on slurm: jobs", " ".join(jobs.values()))


def main():
    # Killed by lit's timeout: `finally` shuts the local Ray cluster down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    engine, work, ksc_synth_path = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if engine == "errors":
        return run_errors(work, ksc_synth_path)
    ref = reference(work, ksc_synth_path)
    dataset = ksc_synth.Dataset(
        output=str(work / "out"), count=COUNT, seed=SEED, options=OPTIONS,
        validate=VALIDATE, splits=SPLITS, license=LICENSE,
        ksc_synth=ksc_synth_path)
    if engine == "ray":
        run_ray(dataset)
    elif engine == "datatrove":
        run_datatrove(dataset, work / "logs")
    elif engine == "datatrove-slurm":
        run_datatrove_slurm(dataset, work / "logs")
    else:
        run_datatrove_ray(dataset, work / "logs")
    compare(ref, work / "out")


if __name__ == "__main__":
    main()
