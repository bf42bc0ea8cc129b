#!/usr/bin/env python3
"""Compiles the C++ ksc emits for many .kdsl files with several compilers.

    compile-all.py --ksc KSC --cxx "g++ -std=c++17 ..." --cxx "clang++ ..." \
        [--cover] [--exclude NAME ...] [--skip "ARGS:NAME" ...]
        [--ksc-arg ARG ...] [--variant "ARGS" ...] [--pch HEADER]
        FILE_OR_DIRECTORY...

Every .kdsl file given (directories: every .kdsl file in them, sorted) is
compiled to C++ with `KSC FILE [ARG...] -o OUT.cpp` (the --ksc-arg
arguments, such as --grad), once per --variant (its arguments, split as a
shell does, added to those), and OUT.cpp with each --cxx command line
followed by `-c -o /dev/null OUT.cpp` (ptxas, with `--ksc-arg=--emit=ptx`,
accepts these arguments too). A file named with --exclude (its base name)
is left out, and with --skip "ARGS:NAME" out of variant ARGS only; the
test says why. With --cover, only a few of the outputs of
all files and variants are compiled, which have every construct of them all
(see cover.py). With --pch HEADER, the host compilers (GCC, Clang) compile
HEADER (the runtime) once, as a precompiled header. Exits 1 after printing
every failure with the compiler's output.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cover  # noqa: E402
import runlines  # noqa: E402


def run(step):
    """Runs `step`; its output when it fails, else None."""
    result = subprocess.run(step, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        return "FAILED: %s\n%s" % (shlex.join(step), result.stdout)
    return None


def prologue(text):
    """The #define lines before the first #include of emitted C++."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#include"):
            break
        if line.startswith("#define "):
            lines.append(line.split()[1:3])
    return lines


def with_pch(cxx, header, defines, directory):
    """`cxx` (a command line) using a precompiled `header` made in
    `directory` for outputs whose code defines `defines` (NAME, VALUE)
    before they include it: GCC finds DIR/HEADER.gch before HEADER, Clang
    is given it; other compilers (nvcc, ptxas, Clang in CUDA mode) as
    they are. None when the header does not compile."""
    words = shlex.split(cxx)
    program = os.path.basename(words[0])
    if "++" not in program or "-x" in words:
        return cxx
    flags = ["-D%s=%s" % (name, value) for name, value in defines]
    name = os.path.basename(header)
    if "clang" in program:
        pch = os.path.join(directory, name + ".pch")
        use = ["-include-pch", pch]
    else:
        pch = os.path.join(directory, name + ".gch")
        use = ["-I", directory, "-Winvalid-pch"]
    step = words + flags + ["-x", "c++-header", header, "-o", pch]
    failed = run([w for w in step if w != "-fsyntax-only"])
    if failed:
        print(failed)
        return None
    return shlex.join(words[:1] + use + flags + words[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ksc", required=True)
    parser.add_argument("--cxx", action="append", required=True)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--ksc-arg", action="append", default=[])
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--cover", action="store_true")
    parser.add_argument("--pch")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()

    files = runlines.kdsl_files(args.paths, args.exclude)
    if not files:
        print("compile-all.py: no .kdsl files", file=sys.stderr)
        return 1
    variants = [shlex.split(v) for v in args.variant] or [[]]
    skipped = {tuple(item.rsplit(":", 1)) for item in args.skip}

    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        outputs = {}
        for index, source in enumerate(files):
            for number, variant in enumerate(variants):
                if (shlex.join(variant), os.path.basename(source)) in skipped:
                    continue
                cpp = os.path.join(tmp, "%d-%d.cpp" % (index, number))
                failed = run([args.ksc, source] + args.ksc_arg + variant +
                             ["-o", cpp])
                if failed:
                    failures += 1
                    print(failed)
                    continue
                with open(cpp) as f:
                    outputs[cpp] = f.read()
        chosen = cover.choose(outputs) if args.cover else sorted(outputs)
        if args.cover:
            print("compiling %d of %d outputs, which have every construct of "
                  "them all" % (len(chosen), len(outputs)))
        compilers = args.cxx
        prologues = {str(prologue(outputs[cpp])) for cpp in chosen}
        if args.pch and len(prologues) == 1:
            # The runtime header, once per compiler.
            compilers = []
            for index, cxx in enumerate(args.cxx):
                directory = os.path.join(tmp, "pch%d" % index)
                os.mkdir(directory)
                compilers.append(with_pch(cxx, args.pch,
                                          prologue(outputs[chosen[0]]),
                                          directory))
            if None in compilers:
                failures += 1
                compilers = []
        for cpp in chosen:
            for cxx in compilers:
                failed = run(shlex.split(cxx) + ["-c", "-o", os.devnull, cpp])
                if failed:
                    failures += 1
                    print(failed)
                    break
    print("compiled %d files with %d compilers, %d failures"
          % (len(chosen), len(args.cxx), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
