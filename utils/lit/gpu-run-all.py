#!/usr/bin/env python3
"""Runs the kernels of the run and gradient tests through ksc-run's GPU target.

    gpu-run-all.py --ksc-run KSC_RUN [--ksc KSC] compile [--cover]
        [--exclude-grad NAME ...] [--exclude NAME ...] [--ksc-run-arg ARG ...]
        FILE_OR_DIRECTORY...
    gpu-run-all.py --ksc-run KSC_RUN run [--exclude NAME ...]
        [--ksc-run-arg ARG ...] FILE_OR_DIRECTORY...

Every .kdsl file given (directories: every .kdsl file in them, sorted; a
file named with --exclude, by its base name, is left out):

compile: `ksc-run FILE --target=cuda --compile-only --check-grad ARG...`,
  the GPU code of every kernel of the file and of their derivative kernels
  (without --check-grad for the files named with --exclude-grad, which
  have no derivatives). No GPU is needed with --via=cuda-source. With
  --cover, only some files, with or without --check-grad, whose CUDA C++
  (from `KSC FILE --target=cuda [--grad=all]`) has every construct of them
  all (see cover.py).

run: replays the file's RUN lines that launch ksc-run and are expected to
  succeed (not those under `not` or %expect-exit-1), on the GPU: the
  ksc-run command (and what pipes into it) with ARG... added, typically
  `--target=cuda --via=ptx --compare=cpu` (a --target of its own dropped),
  its output discarded; it must
  exit with status 0. RUN lines that make input files (echo, printf, cat,
  cp, mkdir, split-file, rm, %python) run as they are first; %s, %S, %t,
  %T, %python are substituted as lit does. A run that the CUDA target refuses as needing a
  tape (which older ksc did) is counted as refused, not failed; the tests
  expect none.

Exits 1 after printing every failure with ksc-run's output, 77 when
ksc-run finds no GPU.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cover  # noqa: E402
import runlines  # noqa: E402

TAPE_REFUSAL = "does not support kernels that keep values on a tape"


def run(step, env=None):
    return subprocess.run(step, shell=isinstance(step, str),
                          executable="/bin/bash" if isinstance(step, str)
                          else None, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env)


def choose_cover(args, files):
    """The files of `files` to compile, each with or without its derivative
    kernels, whose CUDA C++ has every construct of them all."""
    outputs = {}
    for source in files:
        grads = [False]
        if os.path.basename(source) not in args.exclude_grad:
            grads.append(True)
        for grad in grads:
            step = [args.ksc, source, "--target=cuda"]
            if grad:
                step.append("--grad=all")
            result = subprocess.run(step, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            # (A file ksc cannot compile is compiled, to report it.)
            outputs[(source, grad)] = result.stdout \
                if result.returncode == 0 else source
    chosen = cover.choose(outputs)
    print("compiling %d of %d files, which have every construct of them all"
          % (len(chosen), len(outputs)))
    return chosen


def compile_all(args, files):
    failures = 0
    if args.cover:
        jobs = choose_cover(args, files)
    else:
        jobs = [(source, os.path.basename(source) not in args.exclude_grad)
                for source in files]
    for source, grad in jobs:
        step = [args.ksc_run, source, "--target=cuda", "--compile-only",
                "-o", os.devnull] + args.ksc_run_arg
        if grad:
            step.append("--check-grad")
        result = run(step)
        if result.returncode != 0:
            failures += 1
            print("FAILED: %s\n%s" % (shlex.join(step), result.stdout))
    print("compiled %d files for the GPU, %d failures"
          % (len(jobs), failures))
    return 1 if failures else 0


def run_all(args, files):
    failures = refused = launches = 0
    extra = " ".join(shlex.quote(a) for a in args.ksc_run_arg)
    with tempfile.TemporaryDirectory() as tmp:
        for index, source in enumerate(files):
            directory = os.path.join(tmp, str(index))
            os.mkdir(directory)
            for _, line in runlines.run_lines(source):
                first = line.split()[0] if line.split() else ""
                line = runlines.substitute(line, source, directory)
                parts = runlines.split_pipeline(line)
                if first in runlines.EXPECT_FAILURE:
                    continue
                if first in runlines.SETUP_COMMANDS and not any(
                        p.startswith("ksc-run") for p in parts):
                    run(line)
                    continue
                k = next((i for i, p in enumerate(parts)
                          if p.startswith("ksc-run ")), None)
                if k is None:
                    continue
                # The target is the one of --ksc-run-arg (cli.kdsl says
                # --target=cpu).
                rest = re.sub(r"\s--target=\S+", "", parts[k][len("ksc-run"):])
                command = " | ".join(parts[:k] + [
                    args.ksc_run + " " + extra + rest])
                result = run(command + " > /dev/null")
                launches += 1
                if result.returncode == 77:
                    print(result.stdout)
                    return 77
                if result.returncode == 0:
                    continue
                if TAPE_REFUSAL in result.stdout:
                    refused += 1
                    continue
                failures += 1
                print("FAILED (%s): %s\n%s" % (os.path.basename(source),
                                               command, result.stdout))
    print("ran %d ksc-run commands of %d files on the GPU, %d refused "
          "(tape), %d failures" % (launches, len(files), refused, failures))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ksc-run", required=True)
    parser.add_argument("--ksc")
    parser.add_argument("--cover", action="store_true")
    parser.add_argument("mode", choices=["compile", "run"])
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--exclude-grad", action="append", default=[])
    parser.add_argument("--ksc-run-arg", action="append", default=[])
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    files = runlines.kdsl_files(args.paths, args.exclude)
    if not files:
        print("gpu-run-all.py: no .kdsl files", file=sys.stderr)
        return 1
    if args.mode == "compile":
        return compile_all(args, files)
    return run_all(args, files)


if __name__ == "__main__":
    sys.exit(main())
