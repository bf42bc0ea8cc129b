#!/usr/bin/env python3
"""Grammar fuzzing of function templates and `if constexpr` in ksc.

Generates kernel files from a seed: KSC_FUNC templates over an int N (and
sometimes a type T) that call each other with N - 1, N or N + 1 under
`if constexpr` branches, explicit specializations before or after their
use, forward declarations, and a kernel that calls an instantiation. Some
are valid programs (chains that end), some are not (a template calling
itself with the same N is recursion; N + 1 without end exceeds Clang's
instantiation depth). ksc must compile every one or refuse it with a
located diagnostic: never "internal error", never a crash. An accepted
file's C++ is compiled by the host compiler when --cxx is given.

  templates.py --ksc build/bin/ksc --seed 1 --count 40 [--cxx c++ -I DIR]
  templates.py --print 7        # the file of seed 7
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile


def generate(seed):
    r = random.Random(seed)
    names = ["f%d" % k for k in range(r.randint(1, 4))]
    typed = {name: r.random() < 0.3 for name in names}
    lines = []

    def params(name):
        return "template <int N, typename T>" if typed[name] else "template <int N>"

    def call(name, arg, x):
        args = "%s, float" % arg if typed[name] else arg
        return "%s<%s>(%s)" % (name, args, x)

    # Forward declarations let templates call ones defined later.
    declared = set()
    for name in names:
        if r.random() < 0.6:
            lines.append("%s KSC_FUNC float %s(float x);" % (params(name), name))
            declared.add(name)
    defined = []
    specializations = []
    for name in names:
        callable_ = [n for n in names if n in declared or n in defined or n == name]
        limit = r.randint(0, 3)
        body = []
        step = r.choice(["N - 1", "N - 1", "N - 1", "N - 2", "N", "N + 1"])
        callee = r.choice(callable_)
        recurse = call(callee, step, "x")
        if r.random() < 0.8:
            body.append("  if constexpr (N <= %d)" % limit)
            body.append("    return x + %d.0f;" % r.randint(0, 3))
            body.append("  else")
            body.append("    return %s * %s;" % (recurse, r.choice(["x", "2.0f", "0.5f"])))
        else:
            # No end but an explicit specialization (or none at all).
            body.append("  return %s + x;" % recurse)
            if not typed[name] and r.random() < 0.7:
                specializations.append(name)
        lines.append("%s KSC_FUNC float %s(float x) {" % (params(name), name))
        lines.extend(body)
        lines.append("}")
        defined.append(name)
        declared.add(name)
    kernel_calls = []
    for name in names:
        if r.random() < 0.7 or not kernel_calls:
            kernel_calls.append(call(name, str(r.randint(0, 5)), "v"))
    spec_lines = []
    for name in specializations:
        for value in sorted({0, r.randint(-1, 2)}):
            spec_lines.append(
                "template <> KSC_FUNC float %s<%d>(float x) { return x * %d.0f; }"
                % (name, value, r.randint(1, 3)))
    kernel = [
        "KSC_KERNEL void k(array<const float> a, array<float> y) {",
        "  int i = tid();",
        "  float v = a[i];",
        "  y[i] = %s;" % " + ".join(kernel_calls),
        "}",
    ]
    # An explicit specialization must come before the point of the
    # instantiation that uses it: before the kernel (after the templates or
    # between them).
    position = r.randint(0, len(lines))
    lines[position:position] = spec_lines
    return "\n".join(lines + kernel) + "\n"


def check(ksc, source, cxx, include):
    """The problems with ksc's handling of `source`, or []."""
    with tempfile.TemporaryDirectory() as dir:
        path = os.path.join(dir, "t.kdsl")
        with open(path, "w") as f:
            f.write(source)
        out = os.path.join(dir, "t.cpp")
        result = subprocess.run([ksc, path, "-o", out], capture_output=True,
                                text=True, timeout=120)
        text = result.stdout + result.stderr
        problems = []
        if result.returncode not in (0, 1):
            problems.append("ksc exited with %d" % result.returncode)
        for bad in ["internal error", "PLEASE submit", "LLVM ERROR",
                    "Assertion"]:
            if bad in text:
                problems.append("ksc printed %r" % bad)
        if result.returncode == 1 and "error:" not in text:
            problems.append("ksc failed without a diagnostic")
        if result.returncode == 1 and "t.kdsl:" not in text:
            problems.append("ksc's diagnostic has no location")
        if result.returncode == 0 and cxx:
            compiled = subprocess.run(
                cxx + ["-std=c++17", "-fsyntax-only", "-I" + include, out],
                capture_output=True, text=True, timeout=120)
            if compiled.returncode:
                problems.append("the emitted C++ does not compile:\n" +
                                compiled.stderr[:2000])
        if problems:
            problems.append("ksc said:\n" + text[:2000])
        return problems, result.returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ksc")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--cxx", help="host C++ compiler for accepted files")
    parser.add_argument("-I", dest="include", default="",
                        help="the runtime header's directory")
    parser.add_argument("--print", type=int, dest="print_seed")
    args = parser.parse_args()
    if args.print_seed is not None:
        sys.stdout.write(generate(args.print_seed))
        return 0
    failures = accepted = 0
    for seed in range(args.seed, args.seed + args.count):
        problems, ok = check(args.ksc, generate(seed),
                             args.cxx.split() if args.cxx else None,
                             args.include)
        accepted += ok
        if problems:
            failures += 1
            print("seed %d:\n  %s" % (seed, "\n  ".join(problems)))
    print("%d files, %d accepted, %d refused, %d failed" %
          (args.count, accepted, args.count - accepted, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
