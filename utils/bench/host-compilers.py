#!/usr/bin/env python3
"""Compile time of ksc-run's kernels with each host compiler.

For each kernel file, ksc writes the C++ ksc-run compiles (the kernels and,
with --grad, their adjoint and tangent kernels: `ksc --target=cpu
--grad=all`); each compiler then compiles it as ksc-run does (`-std=c++17
-O2 -ffp-contract=off -fPIC -shared`, with the runtime header
precompiled, as ksc-run's cache has it). The compilers take turns on each
file, so that the machine's load falls on both alike. Prints a Markdown
table (seconds) and the totals; docs/performance.md, "Host compilers",
has the numbers and the choice made from them.

  utils/bench/host-compilers.py --ksc build/bin/ksc \\
      --runtime build/lib/ksc/runtime g++ clang++-22 -- FILE.kdsl...
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = ["-std=c++17", "-O2", "-ffp-contract=off", "-fPIC"]


def precompile(compiler, runtime, dir):
    """Flags that use a precompiled runtime header made by `compiler`."""
    name = os.path.basename(compiler).replace("+", "p")
    out = os.path.join(dir, name)
    os.makedirs(out, exist_ok=True)
    clang = "clang" in subprocess.run([compiler, "--version"],
                                      capture_output=True, text=True).stdout
    header = os.path.join(runtime, "ksc_runtime.h")
    target = os.path.join(out, "ksc_runtime.h" + (".pch" if clang else ".gch"))
    subprocess.run([compiler] + FLAGS + ["-x", "c++-header", header, "-o",
                                         target], check=True)
    if clang:
        return ["-include-pch", target]
    return ["-I" + out]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ksc", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("compilers", nargs="+")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    files = argv[split + 1:]
    with tempfile.TemporaryDirectory() as dir:
        pch = {c: precompile(c, args.runtime, dir) for c in args.compilers}
        totals = {c: 0.0 for c in args.compilers}
        print("| file | " + " | ".join(args.compilers) + " |")
        print("| --- |" + " ---: |" * len(args.compilers))
        for path in files:
            source = os.path.join(dir, "k.cpp")
            made = subprocess.run([args.ksc, path, "--target=cpu",
                                   "--grad=all", "-o", source],
                                  capture_output=True)
            if made.returncode:
                continue
            row = []
            for c in args.compilers:
                start = time.monotonic()
                subprocess.run([c] + FLAGS + ["-shared"] + pch[c] +
                               ["-I" + args.runtime, "-o",
                                os.path.join(dir, "k.so"), source],
                               check=True, capture_output=True)
                seconds = time.monotonic() - start
                totals[c] += seconds
                row.append("%.2f" % seconds)
            print("| %s | %s |" % (os.path.relpath(path), " | ".join(row)))
        print("| total | " + " | ".join("%.1f" % totals[c]
                                       for c in args.compilers) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
