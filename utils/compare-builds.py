#!/usr/bin/env python3
"""Checks that two builds of ksc emit the same bytes.

    compare-builds.py BUILD_A BUILD_B [--quick] [-j J]

ksc's output must not depend on the compiler that built ksc (a GCC build
and a Clang build, a source build and the Debian package): C++ leaves the
order of a call's arguments unspecified, and IR built in another order is
other bytes (tools/lint/BuilderOrder.cpp keeps such calls out). This takes
a snapshot of what each build's ksc emits (utils/snapshot-outputs.py: the
ks IR, C++, CUDA C++, PTX and Warp forms, with and without derivatives, and
the diagnostics, of every kernel file of the tests and examples, and a
ksc-synth dataset of every form) and compares them file by file, each
build's directory replaced by BUILD (diagnostics name the prelude in it);
it prints each file that differs with the start of its diff and exits 1 if
any does.

--quick compares a representative part, in about a fifth of the time: the
files of test/Grad, test/Frontend and examples (derivative rules,
builtins, the frontend's IR) in the modes mlir, cpp-grad, cpp-hvp and warp,
and 60 generated kernels. utils/sanitize.sh runs it between its Clang
build and the normal (GCC) build, in full with --all.
"""

import argparse
import difflib
import filecmp
import os
import subprocess
import sys
import tempfile

QUICK_FILES = r"^(test/Grad|test/Frontend|examples)/"
QUICK_MODES = "mlir,cpp-grad,cpp-hvp,warp"


def snapshot(build, out, args):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "snapshot-outputs.py")
    command = [sys.executable, script, build, out, "-j", str(args.jobs)]
    if args.quick:
        command += ["--files", QUICK_FILES, "--modes", QUICK_MODES,
                    "--synth-count", "60"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def normalize(snapshot, build):
    """Replaces the build's own directory in every file of `snapshot` by
    BUILD: diagnostics name the prelude (BUILD/include/ksc/dsl.h) there."""
    prefix = os.path.abspath(build).encode()
    for directory, _, files in os.walk(snapshot):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                data = f.read()
            if prefix in data:
                with open(path, "wb") as f:
                    f.write(data.replace(prefix, b"BUILD"))


def differences(a, b, path=""):
    """The relative paths of the files that differ or exist on one side."""
    cmp = filecmp.dircmp(os.path.join(a, path), os.path.join(b, path))
    found = [os.path.join(path, n) for n in cmp.left_only + cmp.right_only]
    # (dircmp's diff_files compares by size and time first: compare bytes.)
    for name in cmp.common_files:
        if not filecmp.cmp(os.path.join(a, path, name),
                           os.path.join(b, path, name), shallow=False):
            found.append(os.path.join(path, name))
    found += [os.path.join(path, n) for n in cmp.funny_files]
    for sub in sorted(cmp.common_dirs):
        found += differences(a, b, os.path.join(path, sub))
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_a")
    parser.add_argument("build_b")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        snapshot(args.build_a, a, args)
        snapshot(args.build_b, b, args)
        # The statistics hold timings.
        for side, build in ((a, args.build_a), (b, args.build_b)):
            os.remove(os.path.join(side, "synth.stats.json"))
            normalize(side, build)
        files = differences(a, b)
        for name in files:
            print("differs: %s" % name)
            try:
                with open(os.path.join(a, name), errors="replace") as f:
                    left = f.readlines()
                with open(os.path.join(b, name), errors="replace") as f:
                    right = f.readlines()
            except OSError:
                continue
            diff = list(difflib.unified_diff(left, right, args.build_a,
                                             args.build_b, n=2))
            sys.stdout.writelines(diff[:40])
        count = sum(len(fs) for _, _, fs in os.walk(a))
        print("compare-builds: %d outputs, %d differ" % (count, len(files)))
        return 1 if files else 0


if __name__ == "__main__":
    sys.exit(main())
