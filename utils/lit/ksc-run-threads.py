#!/usr/bin/env python3
"""ksc-run at several numbers of OS threads, for the run tests.

    ksc-run-threads.py KSC_RUN [ksc-run arguments...]

Runs `KSC_RUN args` with KSC_NUM_THREADS=1, then again with the numbers in
$KSC_TEST_THREADS, comma-separated (test/lit.cfg.py sets it: 2, 3 and 8,
or 2, 3, 4, 8 and 16 when exhaustive; 2, 3 and 8 when unset), and fails, showing the
difference, unless every run printed the same bytes on stdout and stderr
and exited with the same status: the launches of test/Run and test/Grad
are those whose results the language promises to be the same for any
number of threads (docs/language.md, "How CPU launches run"). Then it
prints what the first run printed and exits with its status, so that the
RUN line checks it as it would check ksc-run's.

Kernels whose results the language lets depend on the order of atomic
updates (float sums at data-dependent indices, per-OS-thread sums of the
adjoints of arrays read in loops) may give other last bits at other
numbers of threads: with KSC_TEST_ANY_ORDER=1 in the environment of the
RUN line, or the word KSC_TEST_ANY_ORDER in the input file (a comment
saying why), numbers are compared with a relative tolerance of 1e-5 (and
absolute 1e-6), so that the output must say the same things (the same
verdicts of --check-grad, say) with nearly the same numbers. Error
statistics printed by --check-grad (its "max abs err" columns, the
dot-product test's difference) are compared only as far as their
verdicts.

Runs that write files (-o, --record) or run on the GPU run once. Standard
input is read once and given to every run.
"""

import os
import re
import subprocess
import sys

NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# --check-grad's error statistics: how far AD is from finite differences,
# which a change in the last bits of either moves by orders of magnitude.
# A row is "ARRAY NUMBERS ABS REL WORST RATIO VERDICT", where WORST may
# have spaces ("p[0] component [2]").
STATISTICS = re.compile(
    rb"^(\S+ +\d+ +)\S+ +\S+ +.+ +\S+ +(ok|FAIL)$|"
    rb"^dot-product test: .*  (ok|FAIL)$", re.M)


def nearly_same(a, b):
    """Whether outputs `a` and `b` differ only in numbers within the
    tolerance, and in --check-grad's error statistics."""
    def lines(text):
        # (The array and its count stay, and the verdict.)
        return [STATISTICS.sub(lambda m: (m.group(1) or b"") + b"<statistics> "
                               + m.group(0).split()[-1], line)
                for line in text.split(b"\n")]
    la, lb = lines(a), lines(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if NUMBER.sub(b"#", x) != NUMBER.sub(b"#", y):
            return False
        for u, v in zip(NUMBER.findall(x), NUMBER.findall(y)):
            u, v = float(u), float(v)
            if abs(u - v) > 1e-6 + 1e-5 * max(abs(u), abs(v)):
                return False
    return True


def run_once(command, stdin, threads):
    env = dict(os.environ)
    env["KSC_NUM_THREADS"] = str(threads)
    return subprocess.run(command, input=stdin, env=env, capture_output=True)


def main():
    command = sys.argv[1:]
    args = command[1:]
    single = any(
        a == "-o" or a.startswith("-o") or a.startswith("--record")
        or a.startswith("--target=cuda") or a in ("--help", "--version",
                                                  "--list-devices")
        for a in args)
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    counts = [int(n) for n in
              os.environ.get("KSC_TEST_THREADS", "2,3,8").split(",") if n]
    any_order = os.environ.get("KSC_TEST_ANY_ORDER") == "1"
    inputs = [a for a in args if not a.startswith("-")]
    if inputs and os.path.isfile(inputs[0]):
        with open(inputs[0], "rb") as f:
            any_order = any_order or b"KSC_TEST_ANY_ORDER" in f.read()
    first = run_once(command, stdin, 1)
    if not single:
        for threads in counts:
            other = run_once(command, stdin, threads)
            same = (other.returncode, other.stdout, other.stderr) == (
                first.returncode, first.stdout, first.stderr)
            if not same and any_order:
                same = (other.returncode == first.returncode and
                        nearly_same(first.stdout, other.stdout) and
                        nearly_same(first.stderr, other.stderr))
            if not same:
                sys.stderr.write(
                    "ksc-run-threads: KSC_NUM_THREADS=%d gave another result "
                    "than 1 thread\n" % threads)
                for name, a, b in (("status", str(first.returncode).encode(),
                                    str(other.returncode).encode()),
                                   ("stdout", first.stdout, other.stdout),
                                   ("stderr", first.stderr, other.stderr)):
                    if a != b:
                        sys.stderr.write("--- %s with 1 thread:\n" % name)
                        sys.stderr.buffer.write(a + b"\n")
                        sys.stderr.write("--- %s with %d:\n" % (name, threads))
                        sys.stderr.buffer.write(b + b"\n")
                return 1
    sys.stdout.buffer.write(first.stdout)
    sys.stderr.buffer.write(first.stderr)
    return first.returncode


if __name__ == "__main__":
    sys.exit(main())
