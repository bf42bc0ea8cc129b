#!/usr/bin/env python3
"""Compile-time scaling of ksc (issue 25): seconds against the size of the
input along four axes, to find the places where compile time grows faster
than the input.

    utils/bench/run-compile-scaling.py [--ksc build/bin/ksc] [--repeat 3]
                                       [--large] [--axes statements,...]

Generates .kdsl files into a temporary directory and times ksc on each
(the best of --repeat runs, output written to a file):

  statements  one kernel of N straight-line statements: C++ without and
              with --grad (reverse) and --grad=forward
  kernels     a file of N small kernels: C++ --grad and
              --target=cuda --emit=ptx (skipped without libdevice)
  loops       one kernel of N nested loops with run-time bounds: C++
              without and with --grad and --grad=forward
  width       the statements kernel at a fixed size with --grad=forward
              --width=1,2,4,8

and prints a Markdown table per axis. The default sizes run in about two
minutes on 2 cores; --large uses the sizes of docs/performance.md
("Compile-time scaling"), which take much longer.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SIZES = {
    "statements": ([500, 1000, 2000], [1000, 2000, 4000, 8000]),
    "kernels": ([50, 100, 200], [250, 500, 1000]),
    "loops": ([20, 40, 60], [60, 100, 140, 200]),
    "width": ([1000], [4000]),
}
WIDTHS = [1, 2, 4, 8]


def statements_kernel(n):
    """N statements of one chain of float values, loaded once."""
    lines = ["KSC_KERNEL void chain(array<const float> x, array<float> y) {",
             "  int i = tid();", "  float v0 = x[i];"]
    for k in range(1, n):
        p = "v%d" % (k - 1)
        op = ["%s * %s - 0.25f" % (p, p), "sin(%s) + v0" % p,
              "%s * %d.5f + %s" % (p, k % 7, p)][k % 3]
        lines.append("  float v%d = %s;" % (k, op))
    lines += ["  y[i] = v%d;" % (n - 1), "}"]
    return "\n".join(lines) + "\n"


def many_kernels(n):
    """N independent kernels of one statement each."""
    return "\n".join(
        "KSC_KERNEL void k%d(array<const float> x, array<float> y, float a) {\n"
        "  int i = tid();\n"
        "  y[i] = a * x[i] + sin(y[i]) * %d.0f;\n"
        "}\n" % (k, k) for k in range(n))


def nested_loops(n):
    """N loops, each the body of the one before, around one update."""
    lines = ["KSC_KERNEL void nest(array<const float> x, array<float> y, "
             "int m) {", "  int i = tid();", "  float s = x[i];"]
    for d in range(n):
        lines.append("  " * (d + 1) +
                     "for (int k%d = 0; k%d < m; ++k%d) {" % (d, d, d))
    lines.append("  " * (n + 1) + "s = sin(s) * x[k%d] + s;" % (n - 1))
    lines += ["  " * (d + 1) + "}" for d in reversed(range(n))]
    lines += ["  y[i] = s;", "}"]
    return "\n".join(lines) + "\n"


PTX = ["--target=cuda", "--emit=ptx"]
AXES = {
    # axis: (generator, [(column, ksc flags)])
    "statements": (statements_kernel, [
        ("cpp", []), ("--grad", ["--grad"]),
        ("--grad=forward", ["--grad=forward"])]),
    "kernels": (many_kernels, [
        ("cpp --grad", ["--grad"]), ("ptx", PTX)]),
    "loops": (nested_loops, [
        ("cpp", []), ("--grad", ["--grad"]),
        ("--grad=forward", ["--grad=forward"])]),
}


def best_seconds(command, repeat):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def has_libdevice():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return os.path.isfile(os.path.join(cuda, "nvvm", "libdevice",
                                       "libdevice.10.bc"))


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ksc", default=os.path.join(ROOT, "build", "bin",
                                                      "ksc"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", action="store_true",
                        help="the sizes of docs/performance.md")
    parser.add_argument("--axes", default="statements,kernels,loops,width")
    args = parser.parse_args()
    if not os.access(args.ksc, os.X_OK):
        sys.exit("run-compile-scaling.py: %s is not an executable" % args.ksc)
    axes = args.axes.split(",")
    for axis in axes:
        if axis not in SIZES:
            sys.exit("run-compile-scaling.py: no axis %s" % axis)

    with tempfile.TemporaryDirectory() as tmp:
        output = os.path.join(tmp, "out")

        def seconds(source, flags):
            return "%.2f" % best_seconds(
                [args.ksc, source, "-o", output] + flags, args.repeat)

        def write(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        for axis in axes:
            sizes = SIZES[axis][1 if args.large else 0]
            if axis == "width":
                size = sizes[0]
                source = write("width.kdsl", statements_kernel(size))
                print("width: --grad=forward on %d statements (s)\n" % size)
                table(["width", "seconds"],
                      [[str(w), seconds(source, ["--grad=forward",
                                                 "--width=%d" % w])]
                       for w in WIDTHS])
                continue
            generate, columns = AXES[axis]
            if not has_libdevice():
                columns = [c for c in columns if c[1] != PTX]
            print("%s (s)\n" % axis)
            rows = []
            for size in sizes:
                source = write("%s-%d.kdsl" % (axis, size), generate(size))
                rows.append([str(size)] + [seconds(source, flags)
                                           for _, flags in columns])
            table([axis] + [name for name, _ in columns], rows)


if __name__ == "__main__":
    main()
