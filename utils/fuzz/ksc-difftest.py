#!/usr/bin/env python3
"""ksc-difftest: differential random testing of ksc.

A .kdsl file is C++. This script generates random kernel files from a seed,
runs every kernel twice on the same inputs and compares the arrays:

  * with ksc-run (ksc's frontend, passes and C++ emitter, then the host
    compiler), and
  * natively: the .kdsl text compiled directly by the host compiler with a
    small "native prelude" (array<T>, tid(), the builtins) and a generated
    main() that runs threads 0..N-1 in order and prints the arrays.

Any difference is a bug in ksc (or, when the native side itself misbehaves,
in this generator: the native build uses UBSan to catch that).

The generated programs are free of undefined behaviour: int values are kept
small (every assignment is bounded, every growth is wrapped back with `%`),
array indices are clamped into range, divisors are nonzero by construction
(or guarded by `?:`/`&&`, which must then not be speculated), loops have
bounded trip counts and float-to-int conversions are clamped first.

Usage:
  ksc-difftest.py --seed 1 --count 100 [-j 2] [--keep DIR]
  ksc-difftest.py --quick               # the fixed seeds the lit test runs
  ksc-difftest.py --seeds 5,17 --keep /tmp/fails -v
  ksc-difftest.py --print 5             # just print the kernel file of seed 5
  ksc-difftest.py --avoid=for-ternary   # leave out what a known bug needs

A failing case kept with --keep (DIR/seed-N: case.kdsl, inputs.json,
meta.json, native.cpp, report.txt) can be reduced and re-checked:
  ksc-difftest.py --reduce DIR/seed-N --kernel-name k3 -v
                                        # writes DIR/seed-N/reduced.kdsl
  ksc-difftest.py --check EDITED.kdsl --kernel-name k3
                                        # inputs from the file's directory

Every kernel has the same parameters: read-only inputs ia/fa/da (16 int,
float, double), outputs oi/of/od/ol/ob (SLOTS elements per thread of int,
float, double, int64_t, bool; initialized with random values), and the
scalars n, fs, ds, ls, bs. At its end a kernel stores its locals into
out[i * SLOTS + k], so that every value computed is compared.

Derivative mode (--grad): the kernels come from a profile whose programs
are differentiable and well-conditioned, and each kernel's derivative
kernels are checked with `ksc-run --check-grad --precision=double
--wrt=fa,da,of,od,fs,ds --rtol=1e-4 --atol=1e-6` (K_adj and K_jvp against
central differences, and against each other: the dot-product test, whose
1e-10 the tolerances do not loosen) instead of running it natively:
  ksc-difftest.py --grad --seed 1 --count 50 [--keep DIR] [-v]
  ksc-difftest.py --grad --quick        # the seeds test/Fuzz/difftest-grad
The profile keeps what AD must handle (loops with dynamic trip counts,
while/do/break/continue/return, branches on float comparisons, device
functions, local array views, math builtins, min/max/abs, ?:, int/float
mixing) and leaves out what has no derivative at the inputs, or a racy one:
  * a thread reads and writes the output arrays only at its own slots
    (i * SLOTS + k); device functions (which cannot call tid()) take the
    caller's first slot as a parameter `int base` and use base + k; an
    output is never passed as a read-only array, and array views are of
    the inputs only: no value flows between threads;
  * float literals are moderate (|x| < 3), the float inputs (fa, da, of,
    od, fs, ds) random reals in [-2, 2] (not a grid: operands of min, max,
    abs, comparisons and float-to-int conversions are then almost never
    at their kink), int operands of float arithmetic are reduced (`% 3`);
  * sqrt(e) and log(e) are sqrt(e * e + 0.25) and log(e * e + 0.5), exp
    and every divisor are bounded away from trouble (exp(sin(e)), a /
    (1 + b * b)), and every store into an existing float variable or
    element goes through sin, cos or tanh, so no value grows from
    statement to statement (x = x * x in a loop).
A kernel passes when ksc-run exits 0; GRAD-MISMATCH is a failure (the
report has ksc-run's command, as run in a --keep directory, and its
output); a kernel ksc refuses to differentiate ("cannot differentiate ...")
is counted as refused, not a failure (-v lists the reasons). The summary
says how many gradients were checked, and a --grad run that checked none
exits 1. --keep, --check and --reduce work on --grad cases too (meta.json
says "grad"). The default mode's kernels and inputs do not change with
this profile: a seed generates the same file as before.

Exit status: 0 when every kernel matched, 1 on any mismatch or ksc error,
2 on a usage or setup error. Only the Python standard library is used.

The code is the package difftest/ next to this script (its __init__.py
says which module does what).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from difftest.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
