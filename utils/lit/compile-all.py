#!/usr/bin/env python3
"""Compiles the C++ ksc emits for many .kdsl files with several compilers.

    compile-all.py --ksc KSC --cxx "g++ -std=c++17 ..." --cxx "clang++ ..." \
        [--exclude NAME ...] [--ksc-arg ARG ...] FILE_OR_DIRECTORY...

Every .kdsl file given (directories: every .kdsl file in them, sorted) is
compiled to C++ with `KSC FILE [ARG...] -o OUT.cpp` (the --ksc-arg
arguments, such as --grad), and OUT.cpp with each --cxx
command line followed by `-c -o /dev/null OUT.cpp` (ptxas, with
`--ksc-arg=--emit=ptx`, accepts these arguments too). A file named with
--exclude (its base name) is left out; the test says why. Exits 1 after
printing every failure with the compiler's output.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ksc", required=True)
    parser.add_argument("--cxx", action="append", required=True)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--ksc-arg", action="append", default=[])
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()

    files = []
    for path in args.paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, name)
                            for name in os.listdir(path)
                            if name.endswith(".kdsl"))
        else:
            files.append(path)
    files = [f for f in files if os.path.basename(f) not in args.exclude]
    if not files:
        print("compile-all.py: no .kdsl files", file=sys.stderr)
        return 1

    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for index, source in enumerate(files):
            cpp = os.path.join(tmp, "%d.cpp" % index)
            steps = [[args.ksc, source] + args.ksc_arg + ["-o", cpp]]
            steps += [shlex.split(cxx) + ["-c", "-o", os.devnull, cpp]
                      for cxx in args.cxx]
            for step in steps:
                result = subprocess.run(step, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                if result.returncode != 0:
                    failures += 1
                    print("FAILED: %s\n%s" % (shlex.join(step), result.stdout))
                    break
    print("compiled %d files with %d compilers, %d failures"
          % (len(files), len(args.cxx), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
