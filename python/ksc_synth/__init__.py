"""ksc-synth on a distributed engine (docs/dataset.md, "On many machines").

A dataset of ``ksc-synth`` is cut into shards by id (``--shard=RANK/TASKS``):
each shard is a task that an engine schedules, retries and tracks, and the
shards merge into the bytes one process makes. This package holds what a
task does, independent of the engine:

- ``run_shard(dataset, rank, tasks)``: makes shard ``rank`` of ``tasks``
  with ``ksc-synth --resume`` (a retried task continues from the shard's
  last checkpoint), then validates it with ``ksc-synth validate`` (schema,
  forms, compiles, sampled gradient checks), and marks it done; a shard
  already done with the same settings is not made again;
- ``merge(dataset, tasks)``: ``ksc-synth merge`` of the shards, the splits
  and the dataset card;

and the engines' entry points around it: ``ksc_synth.datatrove`` (pipeline
steps for DataTrove's local, Slurm and Ray executors) and ``ksc_synth.ray``
(Ray tasks with retries and a progress view). The shards and the dataset
are files in ``dataset.output``, a directory every task can reach (a
shared file system when the tasks run on several machines).

Errors say whether a retry can help: ``ShardInterrupted`` (ksc-synth was
killed or stopped by a signal: the retry resumes the shard) is retried by
the engines; ``ShardFailed`` and ``ValidationFailed`` (a kernel that does
not compile, a record that fails validation, a bad option) are not, since
the same shard fails the same way again.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

__all__ = [
    "Dataset",
    "ShardFailed",
    "ShardInterrupted",
    "ValidationFailed",
    "find_ksc_synth",
    "merge",
    "run_shard",
    "shard_path",
    "shard_records",
]

# Options the shard and merge steps set themselves.
_RESERVED = ("-o", "--shard", "--resume", "--count", "--seed", "--jobs",
             "--splits", "--stats-file", "--replay", "--quiet")


class ShardInterrupted(RuntimeError):
    """ksc-synth stopped before its shard was complete (a signal, a lock
    another attempt still held): running the task again resumes it."""


class ShardFailed(RuntimeError):
    """ksc-synth failed in a way a retry repeats (kernels that do not
    compile, a bad option, a full disk): the message says why."""


class ValidationFailed(RuntimeError):
    """``ksc-synth validate`` found bad records in a shard."""


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One dataset's settings: what every task and the merge agree on.

    output: the directory of the shards and the dataset (created).
    count, seed: ksc-synth's ``--count`` and ``--seed``.
    options: other generation options of ksc-synth (``--forms=...``,
        ``--profile=realistic``, ...): they shape the records.
    jobs: ksc-synth's ``--jobs`` in each task (the CPUs a task gets).
    validate: options of ``ksc-synth validate`` for each shard (``()`` for
        its defaults), or ``None`` for no validation.
    splits: ``--splits`` of the merge (``"train:0.98,val:0.01,test:0.01"``).
    license: the card's ``--license`` (the card is written either way).
    name: the dataset's file name stem (``NAME.jsonl``).
    ksc_synth: the ksc-synth executable (default: ``find_ksc_synth()``).
    """

    output: str
    count: int
    seed: int = 1
    options: Sequence[str] = ()
    jobs: int = 1
    validate: Optional[Sequence[str]] = ()
    splits: Optional[str] = None
    license: Optional[str] = None
    name: str = "data"
    ksc_synth: Optional[str] = None

    def __post_init__(self):
        # Tasks may run in other directories (and on other machines).
        object.__setattr__(self, "output", os.path.abspath(self.output))
        object.__setattr__(self, "options", tuple(self.options))
        if self.validate is not None:
            object.__setattr__(self, "validate", tuple(self.validate))
        if self.count < 1:
            raise ValueError(f"count must be at least 1, not {self.count}")
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, not {self.jobs}")
        if not self.name or "/" in self.name or self.name.startswith("."):
            raise ValueError(f"name must be a plain file name stem, not "
                             f"{self.name!r}")
        for option in self.options:
            if option.split("=", 1)[0] in _RESERVED:
                raise ValueError(
                    f"option {option!r} is set by the shard and merge steps; "
                    "give it as a Dataset field instead")

    def executable(self) -> str:
        return self.ksc_synth or find_ksc_synth()


def find_ksc_synth() -> str:
    """The ksc-synth to run: ``$KSC_SYNTH``, else the one of the ksc this
    package belongs to (``PREFIX/bin`` for ``PREFIX/lib/ksc/python``, in
    an installation and in a build tree alike), else the ``PATH``'s."""
    if os.environ.get("KSC_SYNTH"):
        return os.environ["KSC_SYNTH"]
    here = Path(__file__).resolve().parent          # .../lib/ksc/python/ksc_synth
    beside = here.parents[3] / "bin" / "ksc-synth"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("ksc-synth")
    if found:
        return found
    raise ShardFailed("ksc-synth not found: set KSC_SYNTH or Dataset.ksc_synth, "
                      "or put it on the PATH")


def shard_path(dataset: Dataset, rank: int, tasks: int) -> Path:
    """Where shard ``rank`` of ``tasks`` is written: the task count is in
    the name, so the shards of runs with different counts never mix."""
    if not 0 <= rank < tasks:
        raise ValueError(f"rank {rank} is not in [0, {tasks})")
    return (Path(dataset.output) / "shards" /
            f"{dataset.name}-{rank:05d}-of-{tasks:05d}.jsonl")


def _generate_command(dataset: Dataset, rank: int, tasks: int) -> list:
    return [dataset.executable(), f"--count={dataset.count}",
            f"--seed={dataset.seed}", *dataset.options,
            f"--shard={rank}/{tasks}", "-o", str(shard_path(dataset, rank, tasks))]


def _validate_command(dataset: Dataset, path: Path) -> list:
    return [dataset.executable(), "validate", str(path),
            f"--jobs={dataset.jobs}", *dataset.validate]


def _write_json(path: Path, value) -> None:
    """Writes a small JSON file atomically (a crash leaves the old one)."""
    temp = _beside(path, f".tmp-{os.getpid()}")
    with open(temp, "w") as file:
        json.dump(value, file, indent=1, sort_keys=True)
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temp, path)


def _read_json(path: Path):
    try:
        with open(path) as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def _beside(path: Path, suffix: str) -> Path:
    """The file named ``path`` plus ``suffix`` next to it (a shard's
    ``.partial``, ``.checkpoint`` and ``.done``)."""
    return path.with_name(path.name + suffix)


def shard_records(path: Path) -> int:
    """The records shard ``path`` holds so far: from its statistics when it
    is complete, else from its last checkpoint (0 when it has none)."""
    stats = _read_json(path.with_suffix(".stats.json"))
    if stats is not None and path.exists():
        return int(stats.get("records", 0))
    checkpoint = _read_json(_beside(path, ".checkpoint"))
    if checkpoint is not None:
        return int(checkpoint.get("stats", {}).get("records", 0))
    return 0


def _die_with_parent() -> None:
    """In the child: SIGTERM when the task's process dies (an engine that
    kills a worker must not leave its ksc-synth writing the shard)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def _wait_for_lock(partial: Path, seconds: float) -> None:
    """Waits until no process holds ksc-synth's lock on the partial shard
    (a killed attempt's ksc-synth may still be stopping)."""
    if not partial.exists():
        return
    deadline = time.monotonic() + seconds
    with open(partial, "rb+") as file:
        while True:
            try:
                fcntl.lockf(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.lockf(file, fcntl.LOCK_UN)
                return
            except OSError as error:
                if error.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
            if time.monotonic() > deadline:
                raise ShardInterrupted(
                    f"{partial} is still being written by another process "
                    f"after {seconds:.0f} s")
            time.sleep(0.1)


def _run(command: list, log: Path, progress: Optional[Callable[[], None]],
         interval: float) -> int:
    """Runs a ksc-synth command, its standard error appended to ``log``,
    calling ``progress()`` every ``interval`` seconds while it runs."""
    with open(log, "ab") as err:
        err.write(("$ " + " ".join(command) + "\n").encode())
        err.flush()
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=err, stderr=err,
                                       preexec_fn=_die_with_parent)
        except OSError as error:
            raise ShardFailed(f"cannot run {command[0]}: {error.strerror}")
        try:
            while True:
                try:
                    return process.wait(timeout=interval)
                except subprocess.TimeoutExpired:
                    if progress:
                        progress()
        finally:
            if process.poll() is None:      # the task itself is stopping
                process.terminate()
                process.wait()


def _log_tail(log: Path, lines: int = 12) -> str:
    try:
        text = log.read_text(errors="replace").rstrip().splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


def _interrupted(status: int) -> bool:
    """ksc-synth's statuses when a signal stopped it (docs/dataset.md,
    "Signals"): killed (negative), or exited as killed (128 + signal)."""
    return status < 0 or status in (128 + signal.SIGINT, 128 + signal.SIGTERM,
                                    128 + signal.SIGHUP)


def _generate(command: list, jobs: int, shard: str, path: Path,
              report: Callable[[], None], interval: float) -> Optional[int]:
    """Makes the shard ``path`` (``shard``: "rank/tasks") with its
    generation ``command``, resuming it; the id it resumed from, if any."""
    checkpoint = _read_json(_beside(path, ".checkpoint"))
    resumed_from = checkpoint.get("next_id") if checkpoint else None
    _wait_for_lock(_beside(path, ".partial"), 60)
    log = path.with_suffix(".log")
    status = _run(command + ["--resume", f"--jobs={jobs}", "--quiet"], log,
                  report, interval)
    if _interrupted(status):
        raise ShardInterrupted(
            f"ksc-synth was stopped making shard {shard} (status {status}); "
            "running the task again resumes it\n" + _log_tail(log))
    if status != 0:
        raise ShardFailed(
            f"ksc-synth failed making shard {shard} (status {status}):\n"
            + _log_tail(log))
    return resumed_from


def run_shard(dataset: Dataset, rank: int, tasks: int,
              progress: Optional[Callable[[int], None]] = None,
              interval: float = 1.0) -> dict:
    """Makes and validates shard ``rank`` of ``tasks``; what it did.

    ``progress(records)`` is called every ``interval`` seconds while
    ksc-synth runs, with the records the shard holds so far. Returns
    ``{"rank", "path", "records", "resumed_from", "skipped"}``:
    ``resumed_from`` is the id an earlier attempt's checkpoint let this one
    start at (``None`` when it started at the shard's first id),
    ``skipped`` is true when the shard was done already.
    """
    path = shard_path(dataset, rank, tasks)
    path.parent.mkdir(parents=True, exist_ok=True)
    marker = _beside(path, ".done")
    done = _read_json(marker) or {}
    generated = _generate_command(dataset, rank, tasks)
    validated = (_validate_command(dataset, path)
                 if dataset.validate is not None else None)
    result = {"rank": rank, "path": str(path), "resumed_from": None,
              "skipped": False}

    def report():
        if progress:
            progress(shard_records(path))

    if done.get("generated") == generated[1:] and path.exists():
        result["skipped"] = done.get("validated") == (
            validated[1:] if validated else None)
    else:
        done = {}
        result["resumed_from"] = _generate(generated, dataset.jobs,
                                           f"{rank}/{tasks}", path, report,
                                           interval)
        done["generated"] = generated[1:]
        _write_json(marker, done)
    if validated and done.get("validated") != validated[1:]:
        log = path.with_suffix(".log")
        status = _run(validated, log, report, interval)
        if _interrupted(status):
            raise ShardInterrupted(f"ksc-synth validate was stopped on shard "
                                   f"{rank}/{tasks} (status {status})")
        if status != 0:
            raise ValidationFailed(
                f"shard {rank}/{tasks} failed validation (status {status}):\n"
                + _log_tail(log, 30))
        done["validated"] = validated[1:]
        _write_json(marker, done)
    result["records"] = shard_records(path)
    report()
    return result


def merge(dataset: Dataset, tasks: int) -> Path:
    """Merges the ``tasks`` shards into ``OUTPUT/NAME.jsonl`` (and its
    statistics and splits) and writes the dataset card; the path."""
    shards = [shard_path(dataset, rank, tasks) for rank in range(tasks)]
    missing = [str(path) for path in shards
               if not path.exists() or not _read_json(_beside(path, ".done"))]
    if missing:
        raise ShardFailed(f"{len(missing)} of {tasks} shards are not done: "
                          + ", ".join(missing[:4])
                          + (" ..." if len(missing) > 4 else ""))
    output = Path(dataset.output) / f"{dataset.name}.jsonl"
    command = [dataset.executable(), "merge", "-o", str(output)]
    if dataset.splits:
        command.append(f"--splits={dataset.splits}")
    command += [str(path) for path in shards]
    card = [dataset.executable(), "card", str(output)]
    if dataset.license:
        card.append(f"--license={dataset.license}")
    for step in (command, card):
        finished = subprocess.run(step, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True)
        if finished.returncode != 0:
            raise ShardFailed(f"{' '.join(step[:2])} failed (status "
                              f"{finished.returncode}):\n{finished.stderr}")
    return output


def add_arguments(parser) -> None:
    """The command-line options of the engines' entry points."""
    parser.add_argument("--output", required=True,
                        help="directory of the shards and the dataset")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tasks", type=int, required=True,
                        help="shards, one task each")
    parser.add_argument("--jobs", type=int, default=1,
                        help="ksc-synth --jobs (CPUs) per task")
    parser.add_argument("--validate", default="",
                        help="options of ksc-synth validate, space-separated")
    parser.add_argument("--no-validate", action="store_true")
    parser.add_argument("--splits")
    parser.add_argument("--license")
    parser.add_argument("--name", default="data")
    parser.add_argument("--ksc-synth", help="the ksc-synth executable")
    parser.add_argument("options", nargs="*",
                        help="ksc-synth generation options, after --")


def dataset_from_arguments(args) -> Dataset:
    return Dataset(output=args.output, count=args.count, seed=args.seed,
                   options=args.options, jobs=args.jobs,
                   validate=None if args.no_validate else args.validate.split(),
                   splits=args.splits, license=args.license, name=args.name,
                   ksc_synth=args.ksc_synth)
