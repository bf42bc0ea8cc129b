#!/usr/bin/env python3
"""Writes what ksc emits for every kernel file of the tests and examples.

For a refactoring that must not change ksc's output: snapshot before,
snapshot after, compare.

    utils/snapshot-outputs.py BUILD_DIR OUT_DIR [--modes=cpp,ptx,...]
    diff -r -x synth.stats.json BEFORE_DIR AFTER_DIR

Every .kdsl file under test/ and examples/ is compiled in each mode (the
C++, CUDA C++ and PTX of the kernels, with and without derivatives, the
ks IR, the Warp form and the Python module); OUT_DIR/<file>.<mode> holds ksc's exit status, its diagnostics and
its output, so that a changed error message shows up as well as changed
code. Files that ksc rejects (the diagnostic tests) are snapshots too.
OUT_DIR/synth.jsonl is a ksc-synth dataset of every form (--synth-count
kernels, 0 for none), which must not change either (its statistics,
synth.stats.json, hold timings: compare their counts). --files and
--modes choose a part (utils/compare-builds.py compares two builds so).
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

MODES = {
    "mlir": ["--emit=mlir"],
    "cpp": [],
    "cpp-grad": ["--grad=all"],
    "cpp-hvp": ["--grad=hvp"],
    "cuda": ["--target=cuda"],
    "cuda-grad": ["--target=cuda", "--grad=all"],
    "ptx": ["--target=cuda", "--emit=ptx"],
    "ptx-grad": ["--target=cuda", "--emit=ptx", "--grad=all"],
    "warp": ["--emit=warp"],
    "python-grad": ["--emit=python", "--grad=all", "--python-module=m"],
}


def inputs(root):
    for top in ("test", "examples"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith(".kdsl"):
                    yield os.path.relpath(os.path.join(directory, name), root)


def snapshot(ksc, root, out, path, mode):
    command = [ksc, path, "-o", "-"] + MODES[mode]
    try:
        result = subprocess.run(command, cwd=root, capture_output=True,
                                timeout=300)
        status, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        status, stdout, stderr = "timeout", b"", b""
    target = os.path.join(out, path + "." + mode)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(b"exit status: %s\n--- stderr\n" % str(status).encode())
        f.write(stderr)
        f.write(b"--- stdout\n")
        f.write(stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="the build directory (with bin/ksc)")
    parser.add_argument("out", help="the directory to write (must not exist)")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated modes (default: all of %s)"
                        % ", ".join(MODES))
    parser.add_argument("--files", default="",
                        help="only the files whose path (relative to the "
                        "source tree) matches this regular expression")
    parser.add_argument("--synth-count", type=int, default=300)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ksc = os.path.join(os.path.abspath(args.build), "bin", "ksc")
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        parser.error("unknown mode %s" % ", ".join(unknown))
    if os.path.exists(args.out):
        parser.error("%s exists; snapshots go into a new directory" % args.out)
    out = os.path.abspath(args.out)
    files = [path for path in inputs(root) if re.search(args.files, path)]
    jobs = [(path, mode) for path in files for mode in modes]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(snapshot, ksc, root, out, path, mode)
                   for path, mode in jobs]
        for future in futures:
            future.result()
    if args.synth_count:
        synth = os.path.join(os.path.abspath(args.build), "bin", "ksc-synth")
        subprocess.run([synth, "--count=%d" % args.synth_count, "--seed=7",
                        "-o", os.path.join(out, "synth.jsonl")], check=True)
    print("%d outputs of %d files in %s" % (len(jobs), len(files), args.out))


if __name__ == "__main__":
    sys.exit(main())
