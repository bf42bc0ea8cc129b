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
"""

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

# ===----------------------------------------------------------------------===
# Types and bounds
# ===----------------------------------------------------------------------===

INT, I64, FLT, DBL, BOOL = "int", "int64_t", "float", "double", "bool"
INTS = (INT, I64)
FLOATS = (FLT, DBL)
RANK = {BOOL: 0, INT: 1, I64: 2, FLT: 3, DBL: 4}

# Integer discipline. A mutable integer variable may always be read as if
# |v| <= READ_BOUND. Assignments store values bounded by ASSIGN_CAP; ++, --
# and `+= c` (|c| <= 3) may drift a value beyond ASSIGN_CAP, but the number
# of statements a thread executes is bounded (loop trip products are capped
# at MAX_LOOP_MULT), so the drift stays below READ_BOUND - ASSIGN_CAP. Every
# other update that can grow a value is followed by a statement that wraps it
# back below ASSIGN_CAP.
ASSIGN_CAP = {INT: 1024, I64: 2 ** 40}
READ_BOUND = {INT: 32768, I64: 2 ** 41}
LIMIT = {INT: 2 ** 31 - 1, I64: 2 ** 63 - 1}
MAX_LOOP_MULT = 64
FUNC_LOOP_MULT = 8

IN_SIZE = 16  # size of the read-only input arrays
IN_INT_MAX = 20  # |ia[k]| <= IN_INT_MAX
SLOTS = 8  # output slots per thread and type: out[i * SLOTS + k]

FLOAT_LITERALS = [
    "0.5f", "1.0f", "-2.0f", "0.25f", "3.0f", "0.1f", "1e-3f", "1e10f",
    "-0.0f", "0.0f", "2.5f", "100.0f", "-1.5f", "7.0f", "1.17549435e-38f",
    "3.40282347e38f", "16777217.0f", "0.333333343f", "1.4e-45f", "-8.0f",
]
DOUBLE_LITERALS = [
    "0.5", "1.0", "-2.0", "0.1", "1e-7", "1e100", "-0.0", "0.0", "2.5",
    "0.30000000000000004", "4.9e-324", "1.7976931348623157e308", "-3.75",
    "1024.0", "1e-300", "123456789.125",
]

NAME_POOL = [
    "a", "b", "c", "x", "y", "z", "s", "t", "u", "v", "w", "p", "q", "r",
    "acc", "old", "tmp", "sum", "prod", "cnt", "best", "lo", "hi",
    # names the emitter makes up or that the C library / runtime use
    "result", "cond", "did_break", "did_return", "did_continue", "x_1",
    "a_next", "b_next", "k_1", "s_1", "result_1", "y1", "j0", "index",
    "fabs", "sinf", "std", "ksc", "tid_1", "i_1", "t_next", "cond_1",
]
LOOP_NAMES = ["j", "k", "m", "jj", "kk", "e", "step", "it"]
GUARD_NAMES = ["g", "guard", "n_iter", "trip", "g_1"]


def promote(ty):
    return INT if ty == BOOL else ty


def common_type(a, b):
    a, b = promote(a), promote(b)
    return a if RANK[a] >= RANK[b] else b


def isqrt(n):
    return int(math.isqrt(max(n, 0)))


class E:
    """A generated expression: text (fully parenthesized where needed), its
    exact C++ type and, for integers, a bound on its absolute value."""

    __slots__ = ("text", "ty", "bound")

    def __init__(self, text, ty, bound=None):
        self.text = text
        self.ty = ty
        if ty == BOOL:
            bound = 1
        self.bound = bound

    def __repr__(self):
        return "E(%r, %s, %r)" % (self.text, self.ty, self.bound)


class Var:
    __slots__ = ("name", "ty", "mutable", "bound", "lo", "hi", "kind")

    def __init__(self, name, ty, mutable=True, bound=None, lo=None, hi=None,
                 kind="local"):
        self.name = name
        self.ty = ty
        self.mutable = mutable
        if bound is None and ty in INTS:
            bound = READ_BOUND[ty]
        self.bound = bound
        self.lo = lo  # known range (loop counters, tid), or None
        self.hi = hi
        self.kind = kind


class Arr:
    """An array visible to the code being generated."""

    __slots__ = ("name", "elem", "size", "writable", "bound")

    def __init__(self, name, elem, size, writable, bound=None):
        self.name = name
        self.elem = elem
        self.size = size
        self.writable = writable
        self.bound = bound  # element bound for int arrays, None: unknown


class Func:
    __slots__ = ("name", "ret", "params", "uses_trans")

    def __init__(self, name, ret, params):
        self.name = name
        self.ret = ret
        self.params = params  # list of (kind, type, name); kind: val, cref, arr
        self.uses_trans = False

    def may_write(self):
        """Whether a call may write an array (it takes a writable one)."""
        return any(kind == "arr" and not parse_array_type(ty)[1]
                   for kind, ty, _ in self.params)


class Ctx:
    """Where the statement being generated is."""

    def __init__(self, kernel, ret, loop_mult=1, max_mult=MAX_LOOP_MULT):
        self.kernel = kernel
        self.ret = ret
        self.in_loop = False
        self.loop_mult = loop_mult
        self.max_mult = max_mult
        self.depth = 0

    def child(self, **changes):
        c = Ctx(self.kernel, self.ret, self.loop_mult, self.max_mult)
        c.in_loop = self.in_loop
        c.depth = self.depth + 1
        for k, v in changes.items():
            setattr(c, k, v)
        return c


# ===----------------------------------------------------------------------===
# The generator
# ===----------------------------------------------------------------------===


class Generator:
    KERNEL_PARAMS = [
        ("arr", "array<const int>", "ia"),
        ("arr", "array<const float>", "fa"),
        ("arr", "array<const double>", "da"),
        ("arr", "array<int>", "oi"),
        ("arr", "array<float>", "of"),
        ("arr", "array<double>", "od"),
        ("arr", "array<int64_t>", "ol"),
        ("arr", "array<bool>", "ob"),
        ("val", INT, "n"),
        ("val", FLT, "fs"),
        ("val", DBL, "ds"),
        ("val", I64, "ls"),
        ("val", BOOL, "bs"),
    ]

    def __init__(self, seed, kernels=10, size=1.0, avoid=(), grad=False):
        self.seed = seed
        # The --grad profile: differentiable, well-conditioned kernels (see
        # the module docstring). Every choice it changes is guarded by this
        # flag, so that the default mode's seeds stay as they were.
        self.grad = grad
        # Constructs not to generate (to look past known bugs); see --avoid.
        self.avoid = set(avoid)
        self.r = random.Random(seed)
        self.nkernels = kernels
        self.size = size
        self.nthreads = self.r.randint(3, 8)
        self.out_size = self.nthreads * SLOTS
        self.funcs = []
        self.consts = []  # Var with kind "const"
        self.lines = []
        self.indent = 0
        self.scopes = []
        self.forbids = []
        self.arrays = []
        self.hidden = set()
        self.uses_trans = False
        self.cur_func = None
        self.for_depth = 0  # for loops around the code being generated
        # Whether the expression being generated may be a call that writes
        # an array: only the whole right side of `v = f(...)`. C++ leaves
        # the order of operands and arguments unspecified (ksc's is left to
        # right, docs/language.md), so such a call next to another operand
        # would make the native side differ for no fault of ksc's.
        self.writing_call_ok = False

    # --- output ------------------------------------------------------------

    def emit(self, line):
        self.lines.append("  " * self.indent + line)

    # --- scopes ------------------------------------------------------------

    def push(self, forbid=()):
        """Opens a scope; `forbid`: names C++ does not let this block
        redeclare (the variables of a for-init or if-init)."""
        self.scopes.append({})
        self.forbids.append(set(forbid))

    def pop(self):
        self.scopes.pop()
        self.forbids.pop()

    def declare(self, var):
        self.scopes[-1][var.name] = var
        return var

    def visible(self):
        seen = {}
        for scope in reversed(self.scopes):
            for name, var in scope.items():
                if name not in seen:
                    seen[name] = var
        for c in self.consts:
            if c.name not in seen:
                seen[c.name] = c
        return [v for n, v in seen.items() if n not in self.hidden]

    def vars_of(self, ty, mutable=None):
        out = [v for v in self.visible() if v.ty == ty]
        if mutable is not None:
            out = [v for v in out if v.mutable == mutable]
        return out

    def fresh_name(self, pool=None, exclude=()):
        pool = pool or NAME_POOL
        used_here = set(self.scopes[-1]) | self.forbids[-1] | set(exclude)
        reserved = {f.name for f in self.funcs} | {c.name for c in self.consts}
        reserved |= {a.name for a in self.arrays}
        reserved |= {"i", "n", "fs", "ds", "ls", "bs"}
        for _ in range(20):
            name = self.r.choice(pool)
            if name not in used_here and name not in reserved:
                # Shadowing an outer variable is fine (and a good test), but
                # not in the function's outermost scope, where parameters
                # live.
                return name
        k = 0
        while True:
            name = "v%d" % k
            if name not in used_here and name not in reserved and all(
                    name not in s for s in self.scopes):
                return name
            k += 1

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    # --- literals ----------------------------------------------------------

    def int_literal(self, ty, cap):
        r = self.r
        mag = min(cap, self.pick([3, 10, 20, 100, 1000]))
        v = r.randint(-mag, mag)
        if ty == I64:
            if self.chance(0.3) and cap >= 2 ** 33:
                v = r.randint(-(2 ** 33), 2 ** 33)
            text = self.pick(["%dL", "int64_t(%d)", "(int64_t)%d"]) % abs(v)
            if v < 0:
                text = "(-%s)" % text
            return E(text, I64, abs(v))
        return E(str(v) if v >= 0 else "(%d)" % v, INT, abs(v))

    def float_literal(self, ty):
        e = self.float_literal_1(ty)
        if e.text.startswith("-"):
            e.text = "(%s)" % e.text
        return e

    def float_literal_1(self, ty):
        if self.grad:
            # Moderate literals only (no huge, tiny or denormal values).
            return E("%s.%s%s" % (self.r.randint(-2, 2), self.pick(
                ["0", "5", "25", "125", "75"]), "f" if ty == FLT else ""), ty)
        if ty == FLT:
            if self.chance(0.5):
                return E("%s.%sf" % (self.r.randint(-9, 9), self.pick(
                    ["0", "5", "25", "125", "75"])), FLT)
            return E(self.pick(FLOAT_LITERALS), FLT)
        if self.chance(0.5):
            return E("%s.%s" % (self.r.randint(-9, 9), self.pick(
                ["0", "5", "25", "125", "1"])), DBL)
        return E(self.pick(DOUBLE_LITERALS), DBL)

    # --- helpers -----------------------------------------------------------

    def wrap(self, e, cap):
        """`e % M` with M - 1 <= cap."""
        if e.bound is not None and e.bound <= cap:
            return e
        ms = [m for m in (1000, 997, 1024, 100, 64, 17, 10, 7, 3, 2)
              if m - 1 <= cap]
        if e.ty == I64 and cap >= 1000000006:
            ms = [1000000007, 999999, 1 << 30] + ms
        if not ms:
            m = 1
        elif self.chance(0.7):
            m = ms[0]  # keep most of the value
        else:
            m = self.pick(ms)
        return E("(%s %% %d)" % (e.text, m), e.ty, m - 1)

    def int_arrays(self, ty):
        return [a for a in self.arrays if a.elem == ty]

    def index(self, arr, depth=1):
        """An index expression in [0, arr.size)."""
        size = arr.size
        r = self.r
        if self.grad and arr.writable:
            # Only the thread's own slots: no data flows between threads.
            if self.cur_func is not None:
                return "base + %d" % r.randint(0, SLOTS - 1)
            return "i * %d + %d" % (SLOTS, r.randint(0, SLOTS - 1))
        # A loop counter or tid whose range is known to fit.
        fits = [v for v in self.visible() if v.ty == INT and v.lo is not None
                and v.lo >= 0 and v.hi < size]
        if fits and self.chance(0.35):
            v = self.pick(fits)
            off = r.randint(0, size - 1 - v.hi)
            if off and self.chance(0.5):
                return "%s + %d" % (v.name, off)
            return v.name
        if arr.size == self.out_size and self.cur_func is None and \
                self.chance(0.3):
            return "i * %d + %d" % (SLOTS, r.randint(0, SLOTS - 1))
        if self.chance(0.12):
            return str(r.randint(0, size - 1))
        e = self.gen(self.pick([INT, INT, INT, I64]), depth, None)
        form = r.randint(0, 4)
        if form == 0:
            return "((%s %% %d) + %d) %% %d" % (e.text, size, size, size)
        if form == 1 and size & (size - 1) == 0:
            return "%s & %d" % (e.text, size - 1)
        if form == 2 and e.ty == INT:
            return "min(max(%s, 0), %d)" % (e.text, size - 1)
        if form == 3:
            return "abs(%s) %% %d" % (e.text, size)
        return "((%s %% %d) + %d) %% %d" % (e.text, size, size, size)

    def array_read(self, ty, depth):
        arrs = [a for a in self.arrays if a.elem == ty]
        if not arrs:
            return None
        a = self.pick(arrs)
        text = "%s[%s]" % (a.name, self.index(a, depth))
        if ty in INTS:
            if a.bound is None:
                return self.wrap(E(text, ty, LIMIT[ty]),
                                 1000 if ty == INT else 1000000)
            return E(text, ty, a.bound)
        return E(text, ty)

    def divisor(self, ty, depth):
        """A nonzero expression of type ty (or int)."""
        r = self.r
        form = r.randint(0, 5)
        t2 = ty if ty == INT or self.chance(0.5) else INT
        if form == 0:
            v = r.choice([-9, -7, -3, -2, -1, 1, 2, 3, 5, 7, 10])
            return E(str(v) if v > 0 else "(%d)" % v, INT, abs(v))
        e = self.gen(t2, depth, 50 if form in (3, 4) else None)
        if form == 1:
            return E("(%s %% 7 + 8)" % e.text, t2, 14)
        if form == 2:
            return E("(abs(%s) %% 5 + 1)" % e.text, t2, 5)
        if form == 3:
            one = "1" if t2 == INT else "int64_t(1)"
            return E("max(%s, %s)" % (e.text, one), t2, max(e.bound, 1))
        if form == 4 and not (t2 == INT and self.for_depth and
                              "for-ternary" in self.avoid):
            return E("(%s == 0 ? 3 : %s)" % (e.text, e.text), t2,
                     max(e.bound, 3))
        return E("(%s %% 5 - 6)" % e.text, t2, 10)

    # --- expressions -------------------------------------------------------

    def gen(self, ty, depth, cap=None):
        if ty in INTS:
            if cap is None:
                cap = ASSIGN_CAP[ty]
            cap = min(cap, LIMIT[ty])
            e = self.gen_int(ty, depth, cap)
            return self.wrap(e, cap)
        if ty in FLOATS:
            return self.gen_float(ty, depth)
        return self.gen_bool(depth)

    def var_leaf(self, ty):
        vs = self.vars_of(ty)
        if not vs:
            return None
        v = self.pick(vs)
        if v.kind == "const" and "const-lvalue" in self.avoid:
            return E("(+%s)" % v.name, ty, v.bound)
        return E(v.name, ty, v.bound)

    def call_expr(self, ret, depth):
        fs = [f for f in self.funcs if f.ret == ret]
        if self.cur_func is not None:
            idx = self.funcs.index(self.cur_func)
            fs = [f for f in fs if self.funcs.index(f) < idx]
        if not self.writing_call_ok:
            fs = [f for f in fs if not f.may_write()]
        # Its arguments are operands of one call: none may write.
        self.writing_call_ok = False
        if not fs or depth <= 0:
            return None
        f = self.pick(fs)
        if f.uses_trans:
            self.uses_trans = True
        args = self.call_args(f, depth - 1)
        if args is None:
            return None
        bound = ASSIGN_CAP[ret] if ret in INTS else None
        return E("%s(%s)" % (f.name, ", ".join(args)), ret, bound)

    def call_args(self, f, depth):
        args = []
        for kind, ty, _ in f.params:
            if kind == "base":
                # --grad: the calling thread's first slot.
                args.append("base" if self.cur_func is not None else
                            "i * %d" % SLOTS)
            elif kind == "arr":
                elem, const = parse_array_type(ty)
                cands = [a for a in self.arrays if a.elem == elem and
                         (const or a.writable)]
                if self.grad and const:
                    # Not an output as a read-only array: it would be read
                    # at any index.
                    cands = [a for a in cands if not a.writable]
                if not cands:
                    return None
                args.append(self.pick(cands).name)
            else:
                args.append(self.gen(ty, depth).text)
        return args

    def int_leaf(self, ty, cap):
        r = self.r
        for _ in range(4):
            k = r.randint(0, 9)
            if k <= 3:
                e = self.var_leaf(ty)
                if e is not None:
                    return e
            elif k <= 5:
                return self.int_literal(ty, cap)
            elif k <= 7:
                e = self.array_read(ty, 1)
                if e is not None:
                    return e
            elif k == 8 and ty == I64:
                e = self.var_leaf(INT)
                if e is not None:
                    return E(self.pick(["(int64_t)%s", "int64_t(%s)",
                                        "static_cast<int64_t>(%s)"])
                             % e.text, I64, e.bound)
            elif k == 9 and self.cur_func is None and self.chance(0.3):
                return E("tid()", INT, self.nthreads - 1) if ty == INT else \
                    E("int64_t(tid())", I64, self.nthreads - 1)
        return self.int_literal(ty, cap)

    def gen_int(self, ty, depth, cap):
        r = self.r
        if depth <= 0 or cap < 4 or self.chance(0.2):
            return self.int_leaf(ty, cap)
        other = ty if ty == INT or self.chance(0.6) else INT
        k = r.randint(0, 24)
        d = depth - 1
        no_ternary = ty == INT and self.for_depth and \
            "for-ternary" in self.avoid
        if no_ternary and k in (13, 21, 22, 23):
            k = 0

        def operands(c):
            a = self.gen(ty, d, c)
            b = self.gen(other, d, c)
            if self.chance(0.5):
                a, b = b, a
            return a, b

        if k <= 3:
            a, b = operands(cap // 2)
            op = self.pick(["+", "-"])
            return E("(%s %s %s)" % (a.text, op, b.text), ty, a.bound + b.bound)
        if k <= 5:
            c = isqrt(cap)
            a, b = operands(c)
            return E("(%s * %s)" % (a.text, b.text), ty, a.bound * b.bound)
        if k == 6:
            a = self.gen(ty, d, cap)
            b = self.divisor(ty, d)
            return E("(%s / %s)" % (a.text, b.text), ty, a.bound)
        if k == 7:
            a = self.gen(ty, d, cap)
            b = self.divisor(ty, d)
            return E("(%s %% %s)" % (a.text, b.text), ty,
                     min(a.bound, b.bound))
        if k == 8:
            a = self.gen(ty, d, cap)
            return E("(-%s)" % a.text, ty, a.bound)
        if k == 9:
            kbits = min(cap.bit_length() - 1, 30 if ty == INT else 62)
            a, b = operands((1 << kbits) - 1)
            op = self.pick(["&", "|", "^"])
            return E("(%s %s %s)" % (a.text, op, b.text), ty, 1 << kbits)
        if k == 10:
            a = self.gen(ty, d, cap - 1)
            return E("(~%s)" % a.text, ty, a.bound + 1)
        if k == 11:
            s = self.pick([1, 3, 7])
            ms = [m for m in (1, 3, 7, 15, 255, 1023) if (m << s) <= cap]
            if ms:
                m = self.pick(ms)
                a = self.gen(ty, d)
                b = self.gen(other, d)
                return E("((%s & %d) << (%s & %d))" % (a.text, m, b.text, s),
                         ty, m << s)
            return self.int_leaf(ty, cap)
        if k == 12:
            a = self.gen(ty, d, cap)
            b = self.gen(other, d)
            return E("(%s >> (%s & %d))" % (a.text, b.text,
                                            7 if ty == INT else 15),
                     ty, a.bound)
        if k == 13:
            c = self.gen(BOOL, d)
            a = self.gen(ty, d, cap)
            b = self.gen(ty, d, cap)
            return E("(%s ? %s : %s)" % (c.text, a.text, b.text), ty,
                     max(a.bound, b.bound))
        if k == 14:
            a = self.gen(ty, d, cap)
            b = self.gen(ty, d, cap)
            f = self.pick(["min", "max"])
            return E("%s(%s, %s)" % (f, a.text, b.text), ty,
                     max(a.bound, b.bound))
        if k == 15:
            a = self.gen(ty, d, cap)
            return E("abs(%s)" % a.text, ty, a.bound)
        if k == 16:
            e = self.call_expr(ty, depth)
            if e is not None:
                return e
            return self.int_leaf(ty, cap)
        if k == 17:
            # float -> int, clamped first (NaN -> the low bound: fmax).
            ft = self.pick(FLOATS)
            f = self.gen(ft, d)
            if ty == INT:
                lim = "1000.0f" if ft == FLT else "1000.0"
                bound = 1000
            else:
                lim = "1e12f" if ft == FLT else "1e12"
                bound = 10 ** 12
            form = r.randint(0, 2)
            if no_ternary and form == 1:
                form = 0
            if form == 0:
                text = "%s(min(max(%s, -%s), %s))" % (
                    self.cast_spelling(ty), f.text, lim, lim)
            elif form == 1:
                text = "(%s > -%s && %s < %s ? %s(%s) : %s)" % (
                    f.text, lim, f.text, lim, self.cast_spelling(ty), f.text,
                    self.int_literal(ty, 5).text)
            else:
                text = "%s(max(min(%s, %s), -%s))" % (
                    self.cast_spelling(ty), f.text, lim, lim)
            return E(text, ty, bound)
        if k == 18:
            if ty == INT:
                a = self.gen(I64, d, LIMIT[I64])
                return E("%s(%s %% 1000)" % (self.cast_spelling(INT), a.text),
                         INT, 999)
            a = self.gen(INT, d, LIMIT[INT])
            return E("%s(%s)" % (self.cast_spelling(I64), a.text), I64,
                     a.bound)
        if k == 19:
            c = self.gen(BOOL, d)
            return E("%s(%s)" % (self.cast_spelling(ty), c.text), ty, 1)
        if k == 20:
            a = self.gen(ty, d, cap - 1)
            c = self.gen(BOOL, d)
            return E("(%s + %s)" % (a.text, c.text), ty, a.bound + 1)
        if k == 21:
            # Division guarded by ?: -- the division must not be speculated.
            a = self.gen(ty, d, cap)
            b = self.gen(ty, d)
            alt = self.int_literal(ty, min(cap, 9))
            return E("(%s != 0 ? %s / %s : %s)" % (b.text, a.text, b.text,
                                                   alt.text), ty,
                     max(a.bound, alt.bound))
        if k == 22:
            # Array read guarded by ?:.
            arrs = [x for x in self.arrays if x.elem == ty and
                    x.bound is not None]
            if arrs:
                a = self.pick(arrs)
                e = self.gen(INT, d)
                alt = self.int_literal(ty, 9)
                return E("((%s >= 0 && %s < %d) ? %s[%s] : %s)" % (
                    e.text, e.text, a.size, a.name, e.text, alt.text), ty,
                    max(a.bound, alt.bound))
            return self.int_leaf(ty, cap)
        if k == 23:
            # Comma operator with a side-effect-free left operand would warn;
            # use a nested ternary chain instead.
            c1 = self.gen(BOOL, d)
            c2 = self.gen(BOOL, d)
            a = self.gen(ty, d, cap)
            b = self.gen(ty, d, cap)
            c = self.gen(ty, d, cap)
            return E("(%s ? %s : %s ? %s : %s)" % (c1.text, a.text, c2.text,
                                                   b.text, c.text), ty,
                     max(a.bound, b.bound, c.bound))
        return self.int_leaf(ty, cap)

    def cast_spelling(self, ty):
        return self.pick(["(%s)" % ty, ty, "static_cast<%s>" % ty])

    def float_leaf(self, ty):
        r = self.r
        for _ in range(4):
            k = r.randint(0, 7)
            if k <= 2:
                e = self.var_leaf(ty)
                if e is not None:
                    return e
            elif k <= 3:
                return self.float_literal(ty)
            elif k <= 5:
                e = self.array_read(ty, 1)
                if e is not None:
                    return e
            elif k == 6:
                src = self.pick([INT, I64, FLT if ty == DBL else DBL])
                e = self.var_leaf(src)
                if e is not None and self.grad and src in INTS:
                    e = self.small_int(e)
                if e is not None:
                    return E("%s(%s)" % (self.cast_spelling(ty), e.text), ty)
            else:
                e = self.var_leaf(FLT if ty == DBL else DBL)
                if e is not None:
                    return E("%s(%s)" % (self.cast_spelling(ty), e.text), ty)
        return self.float_literal(ty)

    def small_int(self, e):
        """--grad: an int operand of float arithmetic, made small (large
        ints would make the float values, and so the derivatives, large)."""
        return self.wrap(e, 4)

    def one_plus_square(self, e, ty):
        """--grad: 1 + e * e, a smooth value >= 1 (a divisor)."""
        one = "1.0f" if ty == FLT else "1.0"
        return "(%s + %s * %s)" % (one, e.text, e.text)

    def squash(self, e, ty):
        """--grad: e mapped smoothly into [-1, 1], so that values cannot
        grow from statement to statement (x = x * x in a loop)."""
        self.uses_trans = True
        return E("%s(%s)" % (self.pick(["sin", "cos", "tanh"]), e.text), ty)

    def gen_float(self, ty, depth):
        r = self.r
        if depth <= 0 or self.chance(0.2):
            return self.float_leaf(ty)
        d = depth - 1
        k = r.randint(0, 15)
        if self.grad:
            return self.gen_float_grad(ty, d, k)
        if k <= 4:
            a = self.gen(ty, d)
            # The other operand may be of a lower type: the usual arithmetic
            # conversions make the result ty.
            lower = [ty, ty, INT] + ([FLT] if ty == DBL else []) + [I64]
            b = self.gen(self.pick(lower), d)
            if self.chance(0.5):
                a, b = b, a
            op = self.pick(["+", "-", "*", "/", "+", "*"])
            return E("(%s %s %s)" % (a.text, op, b.text), ty)
        if k == 5:
            return E("(-%s)" % self.gen(ty, d).text, ty)
        if k == 6:
            f = self.pick(["sqrt", "abs"] * 5 + ["sin", "cos", "exp", "log"])
            if f in ("sin", "cos", "exp", "log"):
                self.uses_trans = True
            return E("%s(%s)" % (f, self.gen(ty, d).text), ty)
        if k == 7:
            a = self.gen(ty, d)
            b = self.gen(ty, d)
            return E("%s(%s, %s)" % (self.pick(["min", "max"]), a.text,
                                     b.text), ty)
        if k == 8:
            c = self.gen(BOOL, d)
            a = self.gen(ty, d)
            b = self.gen(ty, d)
            return E("(%s ? %s : %s)" % (c.text, a.text, b.text), ty)
        if k == 9:
            e = self.call_expr(ty, depth)
            if e is not None:
                return e
            return self.float_leaf(ty)
        if k == 10:
            src = self.pick([INT, I64, FLT if ty == DBL else DBL, BOOL])
            e = self.gen(src, d)
            return E("%s(%s)" % (self.cast_spelling(ty), e.text), ty)
        if k == 11:
            # Guarded read of the other float array.
            arrs = [a for a in self.arrays if a.elem == ty]
            if arrs:
                a = self.pick(arrs)
                e = self.gen(INT, d)
                return E("((%s >= 0 && %s < %d) ? %s[%s] : %s)" % (
                    e.text, e.text, a.size, a.name, e.text,
                    self.float_literal(ty).text), ty)
        return self.float_leaf(ty)

    def gen_float_grad(self, ty, d, k):
        """gen_float's --grad profile: every operation differentiable at
        the values it meets (divisors >= 1, sqrt and log of values >= 0.25,
        exp of values in [-1, 1]); min, max, abs and ?: have kinks, but the
        inputs are random reals, so their operands are almost never equal
        (or zero) there."""
        r = self.r
        if k <= 4:
            a = self.gen(ty, d)
            b = self.gen(self.pick([ty, ty, INT]), d)
            if b.ty in INTS:
                b = self.small_int(b)
            op = self.pick(["+", "-", "*", "/", "+", "*"])
            if op == "/":
                return E("(%s / %s)" % (a.text, self.one_plus_square(
                    E("%s(%s)" % (ty, b.text), ty) if b.ty != ty else b, ty)),
                    ty)
            if self.chance(0.5):
                a, b = b, a
            return E("(%s %s %s)" % (a.text, op, b.text), ty)
        if k == 5:
            return E("(-%s)" % self.gen(ty, d).text, ty)
        if k == 6:
            f = self.pick(["sqrt", "abs", "abs", "sin", "cos", "exp", "log",
                           "tanh"])
            e = self.gen(ty, d)
            suffix = "f" if ty == FLT else ""
            if f != "abs":
                self.uses_trans = True
            if f == "sqrt":
                return E("sqrt(%s * %s + 0.25%s)" % (e.text, e.text, suffix),
                         ty)
            if f == "log":
                return E("log(%s * %s + 0.5%s)" % (e.text, e.text, suffix),
                         ty)
            if f == "exp":
                return E("exp(%s)" % self.squash(e, ty).text, ty)
            return E("%s(%s)" % (f, e.text), ty)
        if k == 7:
            a = self.gen(ty, d)
            b = self.gen(ty, d)
            return E("%s(%s, %s)" % (self.pick(["min", "max"]), a.text,
                                     b.text), ty)
        if k == 8:
            c = self.gen(BOOL, d)
            a = self.gen(ty, d)
            b = self.gen(ty, d)
            return E("(%s ? %s : %s)" % (c.text, a.text, b.text), ty)
        if k == 9:
            e = self.call_expr(ty, d + 1)
            if e is not None:
                return e
            return self.float_leaf(ty)
        if k == 10:
            src = self.pick([INT, I64, FLT if ty == DBL else DBL, BOOL])
            e = self.gen(src, d)
            if src in INTS:
                e = self.small_int(e)
            return E("%s(%s)" % (self.cast_spelling(ty), e.text), ty)
        if k == 11:
            # Guarded read of a read-only float array.
            arrs = [a for a in self.arrays if a.elem == ty and
                    not a.writable]
            if arrs:
                a = self.pick(arrs)
                e = self.gen(INT, d)
                return E("((%s >= 0 && %s < %d) ? %s[%s] : %s)" % (
                    e.text, e.text, a.size, a.name, e.text,
                    self.float_literal(ty).text), ty)
        return self.float_leaf(ty)

    def bool_leaf(self):
        r = self.r
        k = r.randint(0, 4)
        if k <= 1:
            e = self.var_leaf(BOOL)
            if e is not None:
                return e
        if k == 2:
            e = self.array_read(BOOL, 1)
            if e is not None:
                return e
        if k == 3:
            return E(self.pick(["true", "false"]), BOOL)
        return self.comparison(0)

    def comparison(self, d):
        r = self.r
        t1 = self.pick([INT, INT, I64, FLT, DBL, FLT])
        t2 = t1 if self.chance(0.7) else self.pick([INT, FLT, DBL, I64])
        a = self.gen(t1, d)
        b = self.gen(t2, d)
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        return E("(%s %s %s)" % (a.text, op, b.text), BOOL)

    def gen_bool(self, depth):
        r = self.r
        if depth <= 0 or self.chance(0.15):
            return self.bool_leaf()
        d = depth - 1
        k = r.randint(0, 13)
        if k <= 3:
            return self.comparison(d)
        if k == 4:
            return E("(!%s)" % self.gen(BOOL, d).text, BOOL)
        if k <= 6:
            a = self.gen(BOOL, d)
            b = self.gen(BOOL, d)
            return E("(%s %s %s)" % (a.text, self.pick(["&&", "||"]), b.text),
                     BOOL)
        if k == 7:
            a = self.gen(BOOL, d)
            b = self.gen(BOOL, d)
            return E("(%s %s %s)" % (a.text, self.pick(["==", "!="]), b.text),
                     BOOL)
        if k == 8:
            # Guarded array reads: the read must only happen when in range.
            arrs = [a for a in self.arrays if a.elem != BOOL]
            if self.grad:
                arrs = [a for a in arrs if not a.writable]
            if not arrs:
                return self.comparison(d)
            a = self.pick(arrs)
            e = self.gen(INT, d)
            val = self.gen(a.elem if a.elem != I64 else INT, 0)
            op = self.pick(["<", ">", "==", "!=", ">="])
            if self.chance(0.5):
                return E("(%s >= 0 && %s < %d && %s[%s] %s %s)" % (
                    e.text, e.text, a.size, a.name, e.text, op, val.text),
                    BOOL)
            return E("(%s < 0 || %s >= %d || %s[%s] %s %s)" % (
                e.text, e.text, a.size, a.name, e.text, op, val.text), BOOL)
        if k == 9:
            # Guarded division.
            a = self.gen(INT, d)
            b = self.gen(INT, d)
            c = self.gen(INT, 0)
            if self.chance(0.5):
                return E("(%s != 0 && %s / %s > %s)" % (b.text, a.text, b.text,
                                                        c.text), BOOL)
            return E("(%s == 0 || %s %% %s == %s)" % (b.text, a.text, b.text,
                                                      c.text), BOOL)
        if k == 10:
            src = self.pick([INT, I64, FLT, DBL])
            e = self.gen(src, d)
            return E("%s(%s)" % (self.cast_spelling(BOOL), e.text), BOOL)
        if k == 11:
            c = self.gen(BOOL, d)
            a = self.gen(BOOL, d)
            b = self.gen(BOOL, d)
            return E("(%s ? %s : %s)" % (c.text, a.text, b.text), BOOL)
        if k == 12:
            e = self.call_expr(BOOL, depth)
            if e is not None:
                return e
        if k == 13:
            # Ordered/unordered comparisons spelled with ! (NaN matters).
            t = self.pick(FLOATS)
            a = self.gen(t, d)
            b = self.gen(t, d)
            op = self.pick(["<", "<=", ">", ">=", "==", "!="])
            return E("(!(%s %s %s))" % (a.text, op, b.text), BOOL)
        return self.bool_leaf()

    # --- statements --------------------------------------------------------

    def expr_depth(self):
        return self.pick([1, 2, 2, 3, 3, 4])

    def restore(self, v):
        """Brings integer variable v back below ASSIGN_CAP."""
        if v.ty not in INTS:
            return
        name = v.name
        if v.ty == INT:
            form = self.r.randint(0, 4)
            if form == 0:
                self.emit("%s %%= 1000;" % name)
            elif form == 1:
                self.emit("%s = %s %% 997;" % (name, name))
            elif form == 2:
                self.emit("if (%s > 1000 || %s < -1000) %s %%= 1000;" %
                          (name, name, name))
            elif form == 3:
                self.emit("%s = min(max(%s, -1000), 1000);" % (name, name))
            else:
                self.emit("%s = %s %% 1000;" % (name, name))
        else:
            form = self.r.randint(0, 2)
            if form == 0:
                self.emit("%s %%= 1000000007;" % name)
            elif form == 1:
                self.emit("%s = %s %% 999999937;" % (name, name))
            else:
                self.emit("if (%s > 1000000000 || %s < -1000000000) "
                          "%s %%= 1000000000;" % (name, name, name))

    def mutable_vars(self, ty=None):
        return [v for v in self.visible() if v.mutable and
                (ty is None or v.ty == ty)]

    def rhs(self, e):
        """The value a statement stores into an existing float variable or
        element: with --grad, squashed (values cannot grow without bound)."""
        if self.grad and e.ty in FLOATS:
            return self.squash(e, e.ty)
        return e

    def stmt_assign(self, ctx):
        vs = self.mutable_vars()
        if not vs:
            return self.stmt_decl(ctx)
        v = self.pick(vs)
        e = self.rhs(self.gen(v.ty, self.expr_depth()))
        self.emit("%s = %s;" % (v.name, e.text))

    def stmt_compound(self, ctx):
        vs = self.mutable_vars()
        vs = [v for v in vs if v.ty != BOOL] or vs
        if not vs:
            return self.stmt_decl(ctx)
        v = self.pick(vs)
        d = self.expr_depth()
        if v.ty == BOOL:
            op = self.pick(["&=", "|=", "^="])
            self.emit("%s %s %s;" % (v.name, op, self.gen(BOOL, d).text))
            return
        if v.ty in FLOATS:
            op = self.pick(["+=", "-=", "*=", "/="])
            src = self.pick([v.ty, v.ty, INT])
            if self.grad:
                e = self.gen(v.ty, d)
                if op == "/=":
                    text = self.one_plus_square(e, v.ty)
                else:
                    text = self.squash(e, v.ty).text
                self.emit("%s %s %s;" % (v.name, op, text))
                return
            self.emit("%s %s %s;" % (v.name, op, self.gen(src, d).text))
            return
        k = self.r.randint(0, 8)
        if k <= 2:
            op = self.pick(["+=", "-="])
            self.emit("%s %s %s;" % (v.name, op,
                                     self.gen(v.ty, d, ASSIGN_CAP[INT]).text))
            self.restore(v)
        elif k == 3:
            self.emit("%s *= %s;" % (v.name, self.gen(v.ty, d, 30).text))
            self.restore(v)
        elif k == 4:
            self.emit("%s /= %s;" % (v.name, self.divisor(v.ty, d).text))
        elif k == 5:
            self.emit("%s %%= %s;" % (v.name, self.divisor(v.ty, d).text))
        elif k == 6:
            op = self.pick(["&=", "|=", "^="])
            self.emit("%s %s %s;" % (v.name, op, self.gen(v.ty, d, 1023).text))
            self.restore(v)
        elif k == 7:
            self.emit("%s >>= %s & 7;" % (v.name, self.gen(INT, d).text))
        else:
            op = self.pick(["+=", "-="])
            self.emit("%s %s %d;" % (v.name, op, self.r.randint(1, 3)))

    def stmt_incdec(self, ctx):
        vs = [v for v in self.mutable_vars() if v.ty != BOOL]
        if not vs:
            return self.stmt_decl(ctx)
        v = self.pick(vs)
        op = self.pick(["++", "--"])
        form = self.r.randint(0, 3)
        if form == 0:
            self.emit("%s%s;" % (v.name, op))
        elif form == 1:
            self.emit("%s%s;" % (op, v.name))
        else:
            # Use the value of the increment: w = v++ / w = ++v (w != v).
            ws = [w for w in self.mutable_vars(v.ty) if w.name != v.name]
            if not ws:
                self.emit("%s%s;" % (v.name, op))
                return
            w = self.pick(ws)
            if form == 2:
                self.emit("%s = %s%s;" % (w.name, v.name, op))
            else:
                self.emit("%s = %s%s;" % (w.name, op, v.name))
            # w may now hold a drifted value: that is fine, it is v's bound.

    def stmt_decl(self, ctx):
        ty = self.pick([INT, INT, INT, FLT, FLT, DBL, I64, BOOL])
        name = self.fresh_name()
        self.hidden = {name}
        try:
            if self.chance(0.1):
                init = None
            else:
                init = self.gen(ty, self.expr_depth())
        finally:
            self.hidden = set()
        if init is None:
            self.emit("%s %s;" % (ty, name))
        elif self.chance(0.1) and ty != BOOL:
            # Two declarators in one statement.
            name2 = self.fresh_name()
            if name2 == name:
                self.emit("%s %s = %s;" % (ty, name, init.text))
            else:
                self.hidden = {name, name2}
                try:
                    init2 = self.gen(ty, 1)
                finally:
                    self.hidden = set()
                self.emit("%s %s = %s, %s = %s;" % (ty, name, init.text, name2,
                                                     init2.text))
                self.declare(Var(name2, ty))
        else:
            self.emit("%s %s = %s;" % (ty, name, init.text))
        self.declare(Var(name, ty))

    def stmt_store(self, ctx):
        arrs = [a for a in self.arrays if a.writable]
        if not arrs:
            return self.stmt_assign(ctx)
        a = self.pick(arrs)
        idx = self.index(a)
        d = self.expr_depth()
        el = a.elem
        k = self.r.randint(0, 5)
        if k <= 2 or el == BOOL:
            self.emit("%s[%s] = %s;" % (a.name, idx,
                                        self.rhs(self.gen(el, d)).text))
        elif k == 3:
            cap = ASSIGN_CAP[el] if el in INTS else None
            self.emit("%s[%s] %s %s;" % (a.name, idx, self.pick(["+=", "-="]),
                                         self.rhs(self.gen(el, d, cap)).text))
        elif k == 4:
            self.emit("%s[%s]%s;" % (a.name, idx, self.pick(["++", "--"])))
        else:
            if el in FLOATS and self.grad:
                op = self.pick(["*=", "/="])
                e = self.gen(el, d)
                self.emit("%s[%s] %s %s;" % (a.name, idx, op, (
                    self.squash(e, el).text if op == "*=" else
                    self.one_plus_square(e, el))))
            elif el in FLOATS:
                self.emit("%s[%s] %s %s;" % (a.name, idx,
                                             self.pick(["*=", "/="]),
                                             self.gen(el, d).text))
            else:
                self.emit("%s[%s] /= %s;" % (a.name, idx,
                                             self.divisor(el, d).text))

    def stmt_dump(self, ctx, vs=None):
        """Makes variables observable: stores them into the output slots."""
        if vs is None:
            vs = [v for v in self.visible() if v.kind != "const"]
            if not vs:
                return
            vs = [self.pick(vs)]
        for v in vs:
            if self.cur_func is None:
                arr = {INT: "oi", BOOL: "ob", FLT: "of", DBL: "od",
                       I64: "ol"}[v.ty]
                slot = "i * %d + %d" % (SLOTS, self.r.randint(0, SLOTS - 1))
            else:
                arrs = [a for a in self.arrays if a.writable and a.elem == v.ty]
                if not arrs:
                    continue
                a = self.pick(arrs)
                arr = a.name
                slot = self.index(a, 0)
            if v.ty == BOOL or self.chance(0.5):
                self.emit("%s[%s] = %s;" % (arr, slot, v.name))
            elif v.ty in INTS:
                self.emit("%s[%s] += %s;" % (
                    arr, slot, self.wrap(E(v.name, v.ty, v.bound),
                                         ASSIGN_CAP[INT]).text))
            else:
                self.emit("%s[%s] += %s;" % (arr, slot, v.name))

    def cond(self):
        return self.gen(BOOL, self.pick([1, 2, 2, 3]))

    def block(self, ctx, n, scope=True, prologue=None, forbid=()):
        """Prints `{`, n statements, `}` content (caller prints braces)."""
        self.indent += 1
        if scope:
            self.push(forbid)
        if prologue:
            prologue()
        for _ in range(n):
            self.stmt(ctx)
        if scope:
            mine = [v for v in self.scopes[-1].values() if v.kind == "local"]
            if mine and self.chance(0.6):
                self.stmt_dump(ctx, mine[:4])
            self.pop()
        self.indent -= 1

    def nstmts(self, ctx):
        hi = max(1, int(5 * self.size) - ctx.depth)
        return self.r.randint(1, hi)

    def stmt_if(self, ctx):
        c = self.cond()
        kind = self.r.randint(0, 5)
        if kind == 5:
            # C++17 if with an init-statement.
            ty = self.pick([INT, FLT, BOOL])
            name = self.fresh_name()
            self.hidden = {name}
            try:
                init = self.gen(ty, 2)
            finally:
                self.hidden = set()
            self.push()
            self.declare(Var(name, ty))
            c = self.cond()
            self.emit("if (%s %s = %s; %s) {" % (ty, name, init.text, c.text))
            self.block(ctx.child(), self.nstmts(ctx), forbid={name})
            if self.chance(0.6):
                self.emit("} else {")
                self.block(ctx.child(), self.nstmts(ctx), forbid={name})
            self.emit("}")
            self.pop()
            return
        self.emit("if (%s) {" % c.text)
        self.block(ctx.child(), self.nstmts(ctx))
        if kind == 0:
            self.emit("}")
            return
        while kind >= 3 and self.chance(0.6):
            self.emit("} else if (%s) {" % self.cond().text)
            self.block(ctx.child(), self.nstmts(ctx))
        self.emit("} else {")
        self.block(ctx.child(), self.nstmts(ctx))
        self.emit("}")

    def stmt_if_single(self, ctx):
        """An if without braces around a single simple statement."""
        self.emit("if (%s)" % self.cond().text)
        self.single_body(ctx)
        if self.chance(0.3):
            self.emit("else")
            self.single_body(ctx)

    def single_body(self, ctx):
        """A simple statement without braces (braces if it needs two)."""
        start = len(self.lines)
        self.indent += 1
        self.push()
        self.simple_stmt(ctx)
        self.pop()
        self.indent -= 1
        if len(self.lines) - start > 1:
            self.lines[start - 1] += " {"
            self.emit("}")

    def simple_stmt(self, ctx):
        k = self.r.randint(0, 5)
        if k == 0:
            self.stmt_assign(ctx)
        elif k == 1:
            self.stmt_compound(ctx)
        elif k == 2:
            self.stmt_incdec(ctx)
        elif k == 3:
            self.stmt_store(ctx)
        elif k == 4 and ctx.in_loop:
            self.emit(self.pick(["break;", "continue;"]))
        else:
            self.stmt_assign(ctx)

    def loop_ctx(self, ctx, trips):
        c = ctx.child(in_loop=True)
        c.loop_mult = ctx.loop_mult * trips
        return c

    def can_loop(self, ctx, trips):
        return ctx.loop_mult * trips <= ctx.max_mult and ctx.depth < 6

    def freeze(self, names):
        """Makes the variables named `names` read-only; returns an undo."""
        saved = []
        for v in self.visible():
            if v.name in names and v.mutable:
                v.mutable = False
                saved.append(v)

        def undo():
            for v in saved:
                v.mutable = True
        return undo

    def stmt_for(self, ctx):
        r = self.r
        trips = r.randint(1, 8)
        if not self.can_loop(ctx, trips):
            return self.stmt_if(ctx)
        name = self.fresh_name(LOOP_NAMES)
        step = self.pick([1, 1, 1, 2, 3])
        lo = r.randint(-2, 3)
        hi = lo + trips * step
        form = r.randint(0, 6)
        decl_outside = self.chance(0.25)
        self.hidden = {name}
        try:
            if self.chance(0.3):
                # A bound computed at run time, still within [lo, hi].
                e = self.gen(INT, 1)
                span = hi - lo
                hi_text = "%d + %s %% %d" % (lo, "abs(%s)" % e.text, span + 1) \
                    if span > 0 else str(hi)
            else:
                hi_text = str(hi)
        finally:
            self.hidden = set()
        var_hi = hi
        if decl_outside:
            self.emit("int %s = %d;" % (name, r.randint(-3, 3)))
            outer = self.declare(Var(name, INT))
            init = "%s = %d" % (name, lo)
        else:
            outer = None
            init = "int %s = %d" % (name, lo)
        incr = {1: "%s++" % name, 2: "%s += 2" % name, 3: "%s += 3" % name}[
            step]
        if step == 1 and self.chance(0.5):
            incr = "++%s" % name
        self.push()
        lv = self.declare(Var(name, INT, mutable=False, lo=lo, hi=var_hi,
                              bound=max(abs(lo), abs(var_hi)) + 3,
                              kind="loop"))
        if form <= 3:
            header = "for (%s; %s < %s; %s)" % (init, name, hi_text, incr)
        elif form == 4:
            # Decreasing.
            header = "for (%s; %s > %d; %s)" % (
                init.replace("= %d" % lo, "= %d" % hi), name, lo,
                {1: "%s--" % name, 2: "%s -= 2" % name,
                 3: "%s -= 3" % name}[step])
            lv.lo, lv.hi = lo + 1, hi
        elif form == 5:
            # A condition that also reads an array, guarded by the bound.
            arrs = [x for x in self.arrays if x.elem in (INT, FLT)]
            if self.grad:
                arrs = [x for x in arrs if not x.writable]
            a = self.pick(arrs) if arrs else None
            if a is not None and lo >= 0 and hi <= a.size:
                val = self.gen(a.elem, 0)
                header = "for (%s; %s < %s && %s[%s] %s %s; %s)" % (
                    init, name, hi_text, a.name, name,
                    self.pick(["!=", "<", ">="]), val.text, incr)
            else:
                c = self.cond()
                header = "for (%s; %s < %s && %s; %s)" % (
                    init, name, hi_text, c.text, incr)
        else:
            # Two counters.
            other = self.fresh_name(LOOP_NAMES)
            if other == name or decl_outside:
                header = "for (%s; %s < %s; %s)" % (init, name, hi_text, incr)
            else:
                start = r.randint(0, 9)
                header = "for (%s, %s = %d; %s < %s; %s, %s--)" % (
                    init, other, start, name, hi_text, incr, other)
                self.declare(Var(other, INT, mutable=False, lo=start - trips,
                                 hi=start, bound=12, kind="loop"))
        c2 = self.loop_ctx(ctx, trips)
        self.emit(header + " {")
        # The counters are read-only in the body (loops must terminate).
        undo = self.freeze({name})
        self.for_depth += 1
        prologue = None
        if form != 4 and self.chance(0.12):
            # The body also advances the counter (the loop is not a counted
            # loop then); it stays <= its bound (the body runs when it is
            # below).
            def prologue():
                if self.chance(0.5):
                    self.emit("%s++;" % name)
                else:
                    self.emit("if (%s) %s += 1;" % (self.cond().text, name))
        self.block(c2, self.nstmts(ctx), forbid=set(self.scopes[-1]),
                   prologue=prologue)
        self.for_depth -= 1
        undo()
        self.emit("}")
        self.pop()
        if outer is not None:
            # After the loop the counter is an ordinary small variable.
            targets = self.mutable_vars(INT)
            if targets and self.chance(0.7):
                self.emit("%s = %s * 3 + 1;" % (self.pick(targets).name, name))

    def guard_var(self, ctx):
        name = self.fresh_name(GUARD_NAMES)
        self.emit("int %s = 0;" % name)
        return self.declare(Var(name, INT, mutable=False, lo=0, hi=9, bound=9,
                                kind="guard"))

    def stmt_while(self, ctx):
        trips = self.r.randint(1, 8)
        if not self.can_loop(ctx, trips):
            return self.stmt_if(ctx)
        g = self.guard_var(ctx)
        c = self.cond()
        form = self.r.randint(0, 3)
        c2 = self.loop_ctx(ctx, trips)
        if form == 0:
            self.emit("while (%s < %d && %s) {" % (g.name, trips, c.text))
            self.block(c2, self.nstmts(ctx),
                       prologue=lambda: self.emit("%s++;" % g.name))
        elif form == 1:
            self.emit("while (%s && %s < %d) {" % (c.text, g.name, trips))
            self.block(c2, self.nstmts(ctx),
                       prologue=lambda: self.emit("++%s;" % g.name))
        elif form == 2:
            # The guard is incremented in the condition. ksc rejects a
            # condition with side effects in a loop with break or return
            # (a known limitation): such loops get the plain form.
            start = len(self.lines)
            self.emit("while (%s++ < %d && %s) {" % (g.name, trips, c.text))
            self.block(c2, self.nstmts(ctx))
            body = self.lines[start + 1:]
            if any("break;" in l or "return" in l for l in body):
                self.lines[start] = "  " * self.indent + \
                    "while (%s < %d && %s) {" % (g.name, trips, c.text)
                self.lines.insert(start + 1, "  " * (self.indent + 1) +
                                  "%s++;" % g.name)
        else:
            self.emit("while (true) {")

            def pro():
                self.emit("if (%s >= %d) break;" % (g.name, trips))
                self.emit("%s++;" % g.name)
                if self.chance(0.5):
                    self.emit("if (!%s) break;" % self.cond().text)
            self.block(c2, self.nstmts(ctx), prologue=pro)
        self.emit("}")

    def stmt_do(self, ctx):
        trips = self.r.randint(1, 8)
        if not self.can_loop(ctx, trips):
            return self.stmt_if(ctx)
        g = self.guard_var(ctx)
        c2 = self.loop_ctx(ctx, trips)
        self.emit("do {")
        self.block(c2, self.nstmts(ctx),
                   prologue=lambda: self.emit("%s++;" % g.name))
        c = self.cond()
        self.emit("} while (%s < %d && %s);" % (g.name, trips, c.text))

    def stmt_swap(self, ctx):
        ty = self.pick([INT, FLT, DBL, I64, BOOL, INT])
        vs = self.mutable_vars(ty)
        if len(vs) < 2:
            return self.stmt_decl(ctx)
        self.r.shuffle(vs)
        if len(vs) >= 3 and self.chance(0.3):
            a, b, c = vs[:3]
            ts = [t for t in vs[3:]]
            if ts and self.chance(0.5):
                t = ts[0]
                self.emit("%s = %s;" % (t.name, a.name))
                tname = t.name
            else:
                self.emit("{")
                self.indent += 1
                tname = "t_rot"
                self.emit("%s %s = %s;" % (ty, tname, a.name))
            self.emit("%s = %s;" % (a.name, b.name))
            self.emit("%s = %s;" % (b.name, c.name))
            self.emit("%s = %s;" % (c.name, tname))
            if tname == "t_rot":
                self.indent -= 1
                self.emit("}")
            return
        a, b = vs[:2]
        rest = vs[2:]
        if rest and self.chance(0.4):
            t = rest[0]
            self.emit("%s = %s;" % (t.name, a.name))
            self.emit("%s = %s;" % (a.name, b.name))
            self.emit("%s = %s;" % (b.name, t.name))
        else:
            tname = self.fresh_name(exclude={a.name, b.name})
            if self.chance(0.5):
                self.emit("{")
                self.indent += 1
                self.emit("%s %s = %s;" % (ty, tname, a.name))
                self.emit("%s = %s;" % (a.name, b.name))
                self.emit("%s = %s;" % (b.name, tname))
                self.indent -= 1
                self.emit("}")
            else:
                self.emit("%s %s = %s;" % (ty, tname, a.name))
                self.emit("%s = %s;" % (a.name, b.name))
                self.emit("%s = %s;" % (b.name, tname))
                self.declare(Var(tname, ty))

    def stmt_shuffle(self, ctx):
        """A run of plain copies among a few variables of one type (`a = b;
        b = c; c = a + 1;`): parallel copies, cycles and chains for the
        emitter's variable coalescing, especially inside loops."""
        ty = self.pick([INT, INT, FLT, DBL, BOOL, I64])
        vs = self.mutable_vars(ty)
        if len(vs) < 2:
            return self.stmt_swap(ctx)
        self.r.shuffle(vs)
        vs = vs[:self.r.randint(2, min(4, len(vs)))]
        for _ in range(self.r.randint(2, 6)):
            a, b = self.pick(vs), self.pick(vs)
            if a is b:
                continue
            k = self.r.randint(0, 5)
            if k == 0 and ty in INTS:
                self.emit("%s = %s + %d;" % (a.name, b.name,
                                             self.r.randint(1, 3)))
            elif k == 0 and ty in FLOATS:
                self.emit("%s = %s * 0.5%s;" % (a.name, b.name,
                                                "f" if ty == FLT else ""))
            elif k == 0 and ty == BOOL:
                self.emit("%s = !%s;" % (a.name, b.name))
            elif k == 1 and self.chance(0.5):
                self.emit("if (%s) %s = %s;" % (self.gen(BOOL, 1).text,
                                                a.name, b.name))
            else:
                self.emit("%s = %s;" % (a.name, b.name))

    def stmt_hazard(self, ctx):
        """A value read, then what it read is overwritten, then the value
        used: an expression must not be moved past the write (`t = a[k];
        a[k] = 1; y = t;`, `t = x + 1; x = 5; y = t;`)."""
        r = self.r
        kind = r.randint(0, 2)
        arrs = [a for a in self.arrays if a.writable and a.elem != BOOL]
        if kind == 0 and arrs:
            a = self.pick(arrs)
            ty = a.elem
            tname = self.fresh_name()
            # The new name must not be read by its own initializer.
            self.hidden = {tname}
            try:
                idx = self.index(a, 0)
            finally:
                self.hidden = set()
            read = "%s[%s]" % (a.name, idx)
            if ty in INTS:
                read = self.wrap(E(read, ty, LIMIT[ty]), ASSIGN_CAP[ty]).text
            self.emit("%s %s = %s;" % (ty, tname, read))
            t = self.declare(Var(tname, ty))
            if r.random() < 0.7:
                self.emit("%s[%s] = %s;" % (a.name, idx,
                                            self.rhs(self.gen(ty, 1)).text))
            else:
                self.stmt_call(ctx)
        else:
            ty = self.pick([INT, FLT, DBL])
            vs = self.mutable_vars(ty)
            if not vs:
                return self.stmt_decl(ctx)
            x = self.pick(vs)
            tname = self.fresh_name(exclude={x.name})
            self.hidden = {tname}
            try:
                other = self.gen(ty, 1)
            finally:
                self.hidden = set()
            if ty in INTS:
                e = self.wrap(E("(%s + %s)" % (x.name, other.text), ty,
                                x.bound + other.bound), ASSIGN_CAP[ty])
            else:
                e = E("(%s * %s)" % (x.name, other.text), ty)
            self.emit("%s %s = %s;" % (ty, tname, e.text))
            t = self.declare(Var(tname, ty))
            self.emit("%s = %s;" % (x.name, self.rhs(self.gen(ty, 1)).text))
        # The use: straight, or under an if.
        ws = [w for w in self.mutable_vars(t.ty) if w is not t]
        if not ws:
            return
        w = self.pick(ws)
        if r.random() < 0.5:
            self.emit("%s = %s;" % (w.name, t.name))
        else:
            self.emit("if (%s) %s = %s;" % (self.gen(BOOL, 1).text, w.name,
                                            t.name))

    def stmt_copy_old(self, ctx):
        ty = self.pick([INT, FLT, DBL, I64])
        vs = self.mutable_vars(ty)
        if not vs:
            return self.stmt_decl(ctx)
        x = self.pick(vs)
        oname = self.fresh_name(["old", "prev", "x_old", "before", "o"])
        if oname == x.name:
            return
        self.emit("%s %s = %s;" % (ty, oname, x.name))
        old = self.declare(Var(oname, ty))
        e = self.rhs(self.gen(ty, 2))
        self.emit("%s = %s;" % (x.name, e.text))
        ws = self.mutable_vars(ty)
        w = self.pick(ws)
        if ty in INTS:
            self.emit("%s = %s;" % (w.name, self.wrap(
                E("(%s - %s)" % (old.name, x.name), ty, 2 * READ_BOUND[ty]),
                ASSIGN_CAP[ty]).text))
        else:
            self.emit("%s = %s - %s;" % (w.name, old.name, x.name))

    def stmt_call(self, ctx):
        fs = [f for f in self.funcs if f.ret == "void"]
        if self.cur_func is not None:
            idx = self.funcs.index(self.cur_func)
            fs = [f for f in fs if self.funcs.index(f) < idx]
        if not fs:
            rets = [f for f in self.funcs if f.ret != "void"]
            if self.cur_func is not None:
                idx = self.funcs.index(self.cur_func)
                rets = [f for f in rets if self.funcs.index(f) < idx]
            if not rets:
                return self.stmt_assign(ctx)
            f = self.pick(rets)
            vs = self.mutable_vars(f.ret)
            self.writing_call_ok = True
            e = self.call_expr(f.ret, 2)
            if e is None or not vs:
                return self.stmt_assign(ctx)
            self.emit("%s = %s;" % (self.pick(vs).name, e.text))
            return
        f = self.pick(fs)
        if f.uses_trans:
            self.uses_trans = True
        args = self.call_args(f, 2)
        if args is None:
            return self.stmt_assign(ctx)
        self.emit("%s(%s);" % (f.name, ", ".join(args)))

    def stmt_jump(self, ctx):
        """break / continue / return, usually under an if."""
        opts = ["return"]
        if ctx.in_loop:
            opts += ["break", "continue", "break", "continue"]
        what = self.pick(opts)
        if what == "return":
            if ctx.ret == "void":
                text = "return;"
            else:
                text = "return %s;" % self.gen(ctx.ret, 2).text
        else:
            text = what + ";"
        if self.chance(0.85):
            c = self.cond()
            if self.chance(0.5):
                self.emit("if (%s) {" % c.text)
                self.indent += 1
                self.push()
                if self.chance(0.6):
                    self.simple_stmt(ctx)
                if ctx.kernel and what == "return" and self.chance(0.7):
                    self.stmt_dump(ctx)
                self.emit(text)
                self.pop()
                self.indent -= 1
                self.emit("}")
            else:
                self.emit("if (%s) %s" % (c.text, text))
        else:
            self.emit(text)

    def stmt_chain(self, ctx):
        ty = self.pick([INT, FLT, DBL])
        vs = self.mutable_vars(ty)
        if len(vs) < 2:
            return self.stmt_assign(ctx)
        a, b = self.r.sample(vs, 2)
        self.emit("%s = %s = %s;" % (a.name, b.name,
                                      self.rhs(self.gen(ty, 2)).text))

    def stmt_block(self, ctx):
        self.emit("{")
        self.block(ctx.child(), self.nstmts(ctx))
        self.emit("}")

    def stmt_local_array(self, ctx):
        if self.cur_func is not None or ctx.depth > 0:
            return self.stmt_assign(ctx)
        elem = self.pick([INT, FLT])
        name = self.fresh_name(["src", "view", "arr", "xs"])
        srcs = [a for a in self.arrays if a.elem == elem and
                a.size >= IN_SIZE and a.name in ("ia", "fa", "oi", "of")]
        if self.grad:
            # Views of the inputs only: a view of an output would be read
            # at other threads' slots.
            srcs = [a for a in srcs if not a.writable]
        if not srcs or any(a.name == name for a in self.arrays):
            return self.stmt_assign(ctx)
        s = self.pick(srcs)
        self.emit("array<const %s> %s = %s;" % (elem, name, s.name))
        # Only visible to the rest of this kernel (kept simple: arrays are
        # never shadowed, so the name is reserved from here on).
        self.arrays.append(Arr(name, elem, IN_SIZE, False,
                               IN_INT_MAX if s.name == "ia" else None))
        if self.chance(0.4) and "array-reassign" not in self.avoid:
            other = self.pick([a for a in srcs])
            self.emit("if (%s) %s = %s;" % (self.cond().text, name,
                                            other.name))
            self.arrays[-1].bound = None

    def stmt(self, ctx):
        r = self.r
        weights = [
            ("decl", 8), ("assign", 12), ("compound", 8), ("incdec", 5),
            ("store", 5), ("if", 10), ("if1", 3), ("for", 8), ("while", 4),
            ("do", 3), ("swap", 5), ("shuffle", 4), ("copy", 3),
            ("hazard", 3), ("call", 4), ("dump", 3),
            ("jump", 4 if ctx.in_loop else 1), ("chain", 1), ("block", 1),
            ("array", 1 if ctx.kernel else 0),
        ]
        if ctx.depth >= 4:
            weights = [(k, w) for k, w in weights
                       if k not in ("if", "for", "while", "do", "block")]
        total = sum(w for _, w in weights)
        x = r.uniform(0, total)
        for kind, w in weights:
            x -= w
            if x <= 0:
                break
        getattr(self, {
            "decl": "stmt_decl", "assign": "stmt_assign",
            "compound": "stmt_compound", "incdec": "stmt_incdec",
            "store": "stmt_store", "if": "stmt_if", "if1": "stmt_if_single",
            "for": "stmt_for", "while": "stmt_while", "do": "stmt_do",
            "swap": "stmt_swap", "shuffle": "stmt_shuffle",
            "copy": "stmt_copy_old", "hazard": "stmt_hazard", "call": "stmt_call",
            "dump": "stmt_dump", "jump": "stmt_jump", "chain": "stmt_chain",
            "block": "stmt_block", "array": "stmt_local_array",
        }[kind])(ctx)

    # --- functions and kernels ---------------------------------------------

    def gen_consts(self):
        for k in range(self.r.randint(0, 3)):
            ty = self.pick([INT, INT, FLT, DBL])
            name = "K%d" % k
            if ty == INT:
                v = self.r.randint(-50, 50)
                self.lines.append("constexpr int %s = %d;" % (name, v))
                self.consts.append(Var(name, INT, mutable=False, bound=abs(v),
                                       kind="const"))
            else:
                lit = self.float_literal(ty).text
                kw = self.pick(["constexpr", "const"])
                self.lines.append("%s %s %s = %s;" % (kw, ty, name, lit))
                self.consts.append(Var(name, ty, mutable=False, kind="const"))
        if self.consts:
            self.lines.append("")

    def gen_func(self, k):
        r = self.r
        ret = self.pick([INT, INT, FLT, DBL, I64, BOOL, "void"])
        name = self.pick(["f%d" % k, "helper%d" % k, "step%d" % k,
                          "fn_%d" % k])
        params = []
        used = set()
        nscalar = r.randint(1, 4)
        pnames = ["a", "b", "c", "x", "y", "w", "s", "t", "u", "v", "p", "q"]
        for _ in range(nscalar):
            ty = self.pick([INT, INT, FLT, DBL, I64, BOOL])
            pn = self.pick([p for p in pnames if p not in used])
            used.add(pn)
            kind = "cref" if self.chance(0.2) else "val"
            params.append((kind, ty, pn))
        arr_choices = ["array<const int>", "array<const float>", "array<int>",
                       "array<float>", "array<double>"]
        if self.grad:
            # Device functions cannot call tid(): they get the first slot of
            # the calling thread as a parameter (`base`, i * SLOTS from the
            # kernel) and read and write their writable arrays only at
            # base + k.
            arr_choices = ["array<const int>", "array<const float>",
                           "array<float>", "array<double>", "array<int>"]
            params.append(("base", INT, "base"))
        for _ in range(r.randint(0 if ret != "void" else 1, 2)):
            ty = self.pick(arr_choices)
            pn = self.pick(["xs", "ys", "out", "data", "buf", "vals"])
            if pn in used:
                continue
            used.add(pn)
            params.append(("arr", ty, pn))
        f = Func(name, ret, params)
        self.cur_func = f
        self.funcs.append(f)
        self.uses_trans = False
        ptext = []
        self.scopes = []
        self.push()
        self.arrays = []
        for kind, ty, pn in params:
            if kind == "base":
                ptext.append("%s %s" % (ty, pn))
            elif kind == "arr":
                elem, const = parse_array_type(ty)
                size = IN_SIZE if const else self.out_size
                self.arrays.append(Arr(pn, elem, size, not const, None))
                ptext.append("%s %s" % (ty, pn))
            elif kind == "cref":
                ptext.append("const %s &%s" % (ty, pn))
                self.declare(Var(pn, ty, mutable=False, kind="param"))
            else:
                ptext.append("%s %s" % (ty, pn))
                self.declare(Var(pn, ty, kind="param",
                                 mutable="param-write" not in self.avoid))
        self.lines.append("KSC_FUNC %s %s(%s) {" % (ret, name, ", ".join(ptext)))
        ctx = Ctx(False, ret, 1, FUNC_LOOP_MULT)
        self.indent = 1
        for _ in range(self.r.randint(0, 3)):
            self.stmt_decl(ctx)
        for _ in range(r.randint(2, max(2, int(7 * self.size)))):
            self.stmt(ctx)
        if ret != "void":
            self.emit("return %s;" % self.gen(ret, 3).text)
        elif self.chance(0.3):
            self.emit("return;")
        self.indent = 0
        self.lines.append("}")
        self.lines.append("")
        f.uses_trans = self.uses_trans
        self.cur_func = None
        self.pop()

    def gen_kernel(self, k):
        name = "k%d" % k
        self.scopes = []
        self.push()
        self.uses_trans = False
        self.arrays = [
            Arr("ia", INT, IN_SIZE, False, IN_INT_MAX),
            Arr("fa", FLT, IN_SIZE, False),
            Arr("da", DBL, IN_SIZE, False),
            Arr("oi", INT, self.out_size, True, None),
            Arr("of", FLT, self.out_size, True),
            Arr("od", DBL, self.out_size, True),
            Arr("ol", I64, self.out_size, True, None),
            Arr("ob", BOOL, self.out_size, True),
        ]
        ptext = []
        for kind, ty, pn in self.KERNEL_PARAMS:
            ptext.append("%s %s" % (ty, pn))
            if kind == "val":
                self.declare(Var(pn, ty, kind="param",
                                 mutable="param-write" not in self.avoid))
        self.lines.append("KSC_KERNEL void %s(%s) {" % (name, ", ".join(ptext)))
        self.indent = 1
        self.emit("int i = tid();")
        self.declare(Var("i", INT, mutable=False, lo=0, hi=self.nthreads - 1,
                         bound=self.nthreads, kind="tid"))
        ctx = Ctx(True, "void")
        for _ in range(self.r.randint(2, 5)):
            self.stmt_decl(ctx)
        for _ in range(self.r.randint(4, max(4, int(14 * self.size)))):
            self.stmt(ctx)
        # Everything still in scope is observed at the end.
        locs = [v for v in self.scopes[-1].values()
                if v.kind in ("local", "param")]
        self.stmt_dump(ctx, locs)
        self.indent = 0
        self.lines.append("}")
        self.lines.append("")
        self.pop()
        return name, self.uses_trans

    def generate(self):
        """Returns (source, [(kernel, uses_trans)], inputs)."""
        self.lines.append("// ksc-difftest seed %d" % self.seed)
        self.gen_consts()
        nfuncs = self.r.randint(0, 4)
        for k in range(nfuncs):
            self.gen_func(k)
        kernels = []
        for k in range(self.nkernels):
            kernels.append(self.gen_kernel(k))
        return "\n".join(self.lines) + "\n", kernels, self.gen_inputs()

    # --- inputs ------------------------------------------------------------

    def rand_float(self, special=True):
        r = self.r
        k = r.randint(0, 19)
        if special and k == 0:
            return self.pick([float("nan"), float("inf"), float("-inf"),
                              -0.0, 1e30, -1e-30, 3e38])
        if k <= 10:
            return r.randint(-32, 32) / 4.0
        if k <= 15:
            return r.uniform(-10, 10)
        return r.uniform(-1000, 1000)

    def gen_inputs(self):
        r = self.r
        n = self.nthreads
        f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
        if self.grad:
            # Finite, moderate reals: random ones, so that operands of min,
            # max, abs, comparisons and float-to-int conversions are almost
            # never at a kink (ties would be likely on a grid of quarters).
            u = lambda: f32(r.uniform(-2, 2))
            return {
                "ia": [r.randint(-IN_INT_MAX, IN_INT_MAX)
                       for _ in range(IN_SIZE)],
                "fa": [u() for _ in range(IN_SIZE)],
                "da": [u() for _ in range(IN_SIZE)],
                "oi": [r.randint(-20, 20) for _ in range(n * SLOTS)],
                "of": [u() for _ in range(n * SLOTS)],
                "od": [u() for _ in range(n * SLOTS)],
                "ol": [r.randint(-1000, 1000) for _ in range(n * SLOTS)],
                "ob": [r.random() < 0.5 for _ in range(n * SLOTS)],
                "n": r.randint(-20, 20),
                "fs": u(),
                "ds": u(),
                "ls": r.randint(-1000, 1000),
                "bs": r.random() < 0.5,
            }
        return {
            "ia": [r.randint(-IN_INT_MAX, IN_INT_MAX) for _ in range(IN_SIZE)],
            "fa": [f32(self.rand_float()) for _ in range(IN_SIZE)],
            "da": [self.rand_float() for _ in range(IN_SIZE)],
            "oi": [r.randint(-20, 20) for _ in range(n * SLOTS)],
            "of": [f32(self.rand_float(False)) for _ in range(n * SLOTS)],
            "od": [self.rand_float(False) for _ in range(n * SLOTS)],
            "ol": [r.randint(-(10 ** 6), 10 ** 6) for _ in range(n * SLOTS)],
            "ob": [r.random() < 0.5 for _ in range(n * SLOTS)],
            "n": r.randint(-20, 20),
            "fs": f32(self.rand_float()),
            "ds": self.rand_float(),
            "ls": r.randint(-(10 ** 9), 10 ** 9),
            "bs": r.random() < 0.5,
        }


def parse_array_type(ty):
    inner = ty[len("array<"):-1]
    const = inner.startswith("const ")
    if const:
        inner = inner[len("const "):]
    return inner, const


# ===----------------------------------------------------------------------===
# The native side
# ===----------------------------------------------------------------------===

NATIVE_PRELUDE = r"""// Native prelude of ksc-difftest: the kernel language as plain C++.
#include <stdint.h>
#define KSC_KERNEL
#define KSC_FUNC
namespace kscn {
inline int g_tid = 0;
[[noreturn]] inline void out_of_bounds(long long index, long long size) {
  __builtin_printf("NATIVE-OUT-OF-BOUNDS index %lld size %lld\n", index, size);
  __builtin_abort();
}
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };
template <bool C, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <class T> struct array {
  T *data = nullptr;
  long long size = 0;
  array() = default;
  array(T *data, long long size) : data(data), size(size) {}
  array(const array &) = default;
  array &operator=(const array &) = default;
  template <class U, class = typename enable_if<same<const U, T>::value>::type>
  array(const array<U> &other) : data(other.data), size(other.size) {}
  template <class I> T &operator[](I index) const {
    long long k = (long long)index;
    if (k < 0 || k >= size)
      out_of_bounds(k, size);
    return data[k];
  }
};
inline int tid() { return g_tid; }
inline float sin(float x) { return __builtin_sinf(x); }
inline double sin(double x) { return __builtin_sin(x); }
inline float cos(float x) { return __builtin_cosf(x); }
inline double cos(double x) { return __builtin_cos(x); }
inline float exp(float x) { return __builtin_expf(x); }
inline double exp(double x) { return __builtin_exp(x); }
inline float log(float x) { return __builtin_logf(x); }
inline double log(double x) { return __builtin_log(x); }
inline float sqrt(float x) { return __builtin_sqrtf(x); }
inline double sqrt(double x) { return __builtin_sqrt(x); }
inline float abs(float x) { return __builtin_fabsf(x); }
inline double abs(double x) { return __builtin_fabs(x); }
inline int abs(int x) { return x < 0 ? -x : x; }
inline int64_t abs(int64_t x) { return x < 0 ? -x : x; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline int min(int a, int b) { return b < a ? b : a; }
inline int64_t min(int64_t a, int64_t b) { return b < a ? b : a; }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }
inline int max(int a, int b) { return a < b ? b : a; }
inline int64_t max(int64_t a, int64_t b) { return a < b ? b : a; }
} // namespace kscn
using namespace kscn;
// ---- the kernel file ----
"""

NATIVE_MAIN_HEAD = r"""
// ---- the harness ----
#include <cmath>
#include <cstdio>
#include <cstring>
namespace harness {
static void put(int v) { std::printf("%d", v); }
static void put(long v) { std::printf("%ld", v); }
static void put(long long v) { std::printf("%lld", v); }
static void put(bool v) { std::printf(v ? "true" : "false"); }
static void putf(double v, const char *fmt) {
  if (std::isnan(v)) std::printf("\"nan\"");
  else if (std::isinf(v)) std::printf(v > 0 ? "\"inf\"" : "\"-inf\"");
  else std::printf(fmt, v);
}
static void put(float v) { putf(v, "%.9g"); }
static void put(double v) { putf(v, "%.17g"); }
template <class T>
static void put_array(const char *name, const T *v, int n, bool last) {
  std::printf("\"%s\": [", name);
  for (int k = 0; k < n; ++k) {
    if (k) std::printf(", ");
    put(v[k]);
  }
  std::printf(last ? "]" : "], ");
}
} // namespace harness
"""


def c_float(x, ty):
    if math.isnan(x):
        return "__builtin_nanf(\"\")" if ty == FLT else "__builtin_nan(\"\")"
    if math.isinf(x):
        inf = "__builtin_inff()" if ty == FLT else "__builtin_inf()"
        return inf if x > 0 else "-" + inf
    text = float(x).hex()
    return text + ("f" if ty == FLT else "")


ARRAY_PARAMS = [("ia", INT), ("fa", FLT), ("da", DBL), ("oi", INT),
                ("of", FLT), ("od", DBL), ("ol", I64), ("ob", BOOL)]
SCALAR_PARAMS = [("n", INT), ("fs", FLT), ("ds", DBL), ("ls", I64),
                 ("bs", BOOL)]


def c_value(x, ty):
    if ty in FLOATS:
        return c_float(x, ty)
    if ty == BOOL:
        return "true" if x else "false"
    if ty == I64:
        return "int64_t(%dLL)" % x
    return str(x)


UNINIT_DECL = re.compile(r"^(\s*)(int|int64_t|float|double|bool) (\w+);$")


def native_kernel_text(source):
    """The kernel file as plain C++: locals declared without an initializer
    start at zero in the kernel language, so they get one. (GCC's
    -ftrivial-auto-var-init=zero is not enough: it still optimizes reads of
    such variables as undefined.)"""
    out = []
    for line in source.splitlines():
        m = UNINIT_DECL.match(line)
        if m:
            line = "%s%s %s = %s();" % (m.group(1), m.group(2), m.group(3),
                                       m.group(2))
        out.append(line)
    return "\n".join(out) + "\n"


def native_source(source, kernels, inputs, nthreads):
    out = [NATIVE_PRELUDE, native_kernel_text(source), NATIVE_MAIN_HEAD]
    for name, ty in ARRAY_PARAMS:
        vals = ", ".join(c_value(x, ty) for x in inputs[name])
        out.append("static const %s init_%s[] = {%s};" % (ty, name, vals))
    out.append("int main() {")
    for kernel, _ in kernels:
        out.append("  {")
        for name, ty in ARRAY_PARAMS:
            size = len(inputs[name])
            out.append("    static %s buf_%s[%d];" % (ty, name, size))
            out.append("    std::memcpy(buf_%s, init_%s, sizeof buf_%s);" %
                       (name, name, name))
        args = []
        for name, ty in ARRAY_PARAMS:
            args.append("array<%s%s>(buf_%s, %d)" % (
                "const " if name in ("ia", "fa", "da") else "", ty, name,
                len(inputs[name])))
        for name, ty in SCALAR_PARAMS:
            args.append(c_value(inputs[name], ty))
        out.append("    for (int t = 0; t < %d; ++t) {" % nthreads)
        out.append("      kscn::g_tid = t;")
        out.append("      %s(%s);" % (kernel, ", ".join(args)))
        out.append("    }")
        out.append("    std::printf(\"{\\\"kernel\\\": \\\"%s\\\", "
                   "\\\"arrays\\\": {\");" % kernel)
        for k, (name, ty) in enumerate(ARRAY_PARAMS):
            out.append("    harness::put_array(\"%s\", buf_%s, %d, %s);" % (
                name, name, len(inputs[name]),
                "true" if k == len(ARRAY_PARAMS) - 1 else "false"))
        out.append("    std::printf(\"}}\\n\");")
        out.append("    std::fflush(stdout);")
        out.append("  }")
    out.append("  return 0;")
    out.append("}")
    return "\n".join(out) + "\n"


# ===----------------------------------------------------------------------===
# Comparing
# ===----------------------------------------------------------------------===


def parse_json(text):
    # Keep -0 distinguishable from 0.
    return json.loads(text, parse_int=lambda s: -0.0 if s == "-0" else int(s))


def as_float(v):
    if isinstance(v, str):
        return float(v)
    return float(v)


def f32(x):
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return x


def same_float(a, b, ty, tol):
    a, b = as_float(a), as_float(b)
    if ty == FLT:
        a, b = f32(a), f32(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return math.copysign(1, a) == math.copysign(1, b) or tol
    if tol and not math.isinf(a) and not math.isinf(b):
        return abs(a - b) <= 1e-6 + 1e-4 * max(abs(a), abs(b))
    return False


def compare(expected, actual, tol):
    """Returns a list of difference descriptions."""
    diffs = []
    types = dict(ARRAY_PARAMS)
    for name, ty in ARRAY_PARAMS:
        e = expected.get(name)
        a = actual.get(name)
        if not isinstance(a, list) or len(a) != len(e):
            diffs.append("%s: expected %d elements, got %r" % (
                name, len(e), a))
            continue
        for k, (x, y) in enumerate(zip(e, a)):
            if ty in FLOATS:
                ok = same_float(x, y, ty, tol)
            elif ty == BOOL:
                ok = x is y
            else:
                ok = (not isinstance(y, bool) and isinstance(y, (int, float))
                      and int(x) == y)
            if not ok:
                diffs.append("%s[%d]: expected %s, got %s" % (
                    name, k, json.dumps(x), json.dumps(y)))
    del types
    return diffs


# ===----------------------------------------------------------------------===
# Running
# ===----------------------------------------------------------------------===


class Tools:
    def __init__(self, build_dir, cxx, cache_dir, ubsan):
        self.ksc = os.path.join(build_dir, "bin", "ksc")
        self.ksc_run = os.path.join(build_dir, "bin", "ksc-run")
        self.cxx = cxx
        self.cache_dir = cache_dir
        self.ubsan = ubsan
        self.timeout = 60  # seconds a native run may take


def run(cmd, timeout, env=None):
    # In a session of its own, so that a timeout also ends what the command
    # started (ksc-run's host compiler would otherwise run on, orphaned).
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)
    try:
        so, se = p.communicate(timeout=timeout)
        return p.returncode, so.decode("utf-8", "replace"), \
            se.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return "timeout", "", "timed out after %ss" % timeout


def wait_for_tool(path, tries=30):
    for _ in range(tries):
        if os.access(path, os.X_OK):
            return True
        time.sleep(2)
    return False


class Outcome:
    def __init__(self, seed):
        self.seed = seed
        self.kernels = 0
        self.failures = []  # (kind, kernel, message)
        self.invalid = None  # the generator's fault: the native side failed
        self.tags = []  # known_bug_tags of a failing case
        self.workdir = None
        self.seconds = 0.0
        self.checked = 0  # --grad: kernels whose gradients passed
        self.refused = []  # --grad: (kernel, reason) ksc refused


def native_cmd(tools, src, exe):
    cmd = [tools.cxx, "-std=c++17", "-O1", "-w"]
    if tools.ubsan:
        cmd += ["-fsanitize=undefined,float-cast-overflow",
                "-fno-sanitize-recover=all"]
    return cmd + ["-o", exe, src]


def check_case(work, source, kernels, inputs, nthreads, tools,
               bounds_check=True):
    """Runs every kernel of `source` both ways. Returns (invalid, failures):
    invalid is None or why the native side failed (the generator's fault),
    failures a list of (kind, kernel, message)."""
    failures = []
    invalid = None
    kdsl = os.path.join(work, "case.kdsl")
    with open(kdsl, "w") as f:
        f.write(source)
    in_json = os.path.join(work, "inputs.json")
    with open(in_json, "w") as f:
        json.dump(json_inputs(inputs), f)
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump({"dim": nthreads,
                   "kernels": [[k, t] for k, t in kernels]}, f)
    native_cpp = os.path.join(work, "native.cpp")
    with open(native_cpp, "w") as f:
        f.write(native_source(source, kernels, inputs, nthreads))
    exe = os.path.join(work, "native")
    rc, so, se = run(native_cmd(tools, native_cpp, exe), 300)
    if rc != 0:
        return "native compile failed:\n" + se[-4000:], failures
    rc, so, se = run([exe], tools.timeout)
    expected = {}
    for line in so.splitlines():
        try:
            obj = parse_json(line)
            expected[obj["kernel"]] = obj["arrays"]
        except ValueError:
            pass
    if rc != 0:
        # Kernels that finished before the failing one are still compared;
        # the failing one (and later ones) are the generator's fault.
        invalid = "native run failed (rc %s) after %d kernels:\n%s" % (
            rc, len(expected), se[-3000:] + so[-1000:])
    env = dict(os.environ)
    env["KSC_CACHE_DIR"] = tools.cache_dir
    env["KSC_CXX"] = tools.cxx
    for kernel, trans in kernels:
        if kernel not in expected:
            continue
        # The generated kernels read and write elements of other threads
        # (racy under the language's contract) and the native side runs
        # threads 0..N-1 in order: so does one OS thread's parallel launch.
        cmd = [tools.ksc_run, kdsl, "--kernel=" + kernel,
               "--dim=%d" % nthreads, "--inputs=" + in_json, "--threads=1"]
        if not bounds_check:
            cmd.append("--bounds-check=false")
        for attempt in range(10):
            if not os.access(tools.ksc_run, os.X_OK):
                wait_for_tool(tools.ksc_run)
            rc, so, se = run(cmd, max(120, 2 * tools.timeout), env)
            # Others may be rebuilding ksc: a missing tool or runtime header
            # (or any other failure, once) is retried after a pause.
            transient = rc != 0 and rc != "timeout" and (
                "No such file or directory" in se or
                not os.access(tools.ksc_run, os.X_OK) or attempt == 0)
            if not transient:
                break
            time.sleep(5 if attempt == 0 else 15)
        if rc != 0:
            # Only the errors, not Clang's warnings about the source.
            errs = [l for l in se.splitlines() if "error" in l]
            msg = "rc %s\n%s" % (rc, "\n".join(errs[:20]) if errs
                                  else se[-3000:])
            if rc == "timeout":
                failures.append(("timeout", kernel, msg))
            elif "kernel '%s'" % kernel in se:
                failures.append(("ksc-run-error", kernel, msg))
            elif rc < 0 or rc > 1:
                failures.append(("ksc-run-crash", kernel, msg))
            else:
                # The whole file failed (rejected, or the emitted C++ does
                # not compile): one report is enough.
                failures.append(("ksc-compile-error", kernel, msg))
                break
            continue
        try:
            actual = parse_json(so)
        except ValueError:
            failures.append(("bad-output", kernel, so[-2000:]))
            continue
        diffs = compare(expected[kernel], actual, trans)
        if diffs:
            failures.append((
                "mismatch" + ("-transcendental" if trans else ""), kernel,
                "\n".join(diffs[:20]) +
                ("\n... %d more" % (len(diffs) - 20) if len(diffs) > 20
                 else "")))
    return invalid, failures


# The float arguments of every generated kernel: --grad differentiates with
# respect to all of them (the read-only inputs, the scalars and the in-out
# outputs).
GRAD_WRT = "fa,da,of,od,fs,ds"
# Tolerances of the finite-difference checks (ksc-run's double defaults are
# rtol 1e-6, atol 1e-7). The step is cbrt(eps) |x|, and the generated
# kernels nest sin/cos/tanh over sums of many terms: their truncation error
# reaches 1e-5 relative on correct derivatives. A wrong derivative is off by
# far more, and the dot-product test (K_adj against K_jvp, 1e-10 relative,
# not changed by these) stays as strict as it is.
GRAD_TOLERANCES = ["--rtol=1e-4", "--atol=1e-6"]
# What ksc says when it refuses to differentiate a construct (docs/
# autodiff.md, "What cannot be differentiated yet").
REFUSED = re.compile(r"([^\s:]+:\d+:\d+: )?error: (cannot (differentiate|"
                     r"propagate)[^\n]*)")


def run_ksc_run(cmd, tools, env, timeout):
    """Runs ksc-run, retrying while someone else rebuilds it."""
    for attempt in range(10):
        if not os.access(tools.ksc_run, os.X_OK):
            wait_for_tool(tools.ksc_run)
        rc, so, se = run(cmd, timeout, env)
        transient = rc not in (0, 1, "timeout") and (
            "No such file or directory" in se or
            not os.access(tools.ksc_run, os.X_OK) or attempt == 0)
        if rc == 1 and "No such file or directory" in se:
            transient = True
        if not transient:
            break
        time.sleep(5 if attempt == 0 else 15)
    return rc, so, se


def check_grad_case(work, source, kernels, inputs, nthreads, tools,
                    bounds_check=True):
    """--grad: checks every kernel's derivative kernels with `ksc-run
    --check-grad --precision=double` (K_adj and K_jvp against central
    differences and the dot-product test). Returns (failures, checked,
    refused): failures a list of (kind, kernel, message), checked the
    number of kernels whose gradients passed, refused [(kernel, reason)]
    for the kernels ksc refuses to differentiate (not a failure)."""
    failures = []
    checked = 0
    refused = []
    kdsl = os.path.join(work, "case.kdsl")
    with open(kdsl, "w") as f:
        f.write(source)
    in_json = os.path.join(work, "inputs.json")
    with open(in_json, "w") as f:
        json.dump(json_inputs(inputs), f)
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump({"dim": nthreads, "grad": True,
                   "kernels": [[k, t] for k, t in kernels]}, f)
    env = dict(os.environ)
    env["KSC_CACHE_DIR"] = tools.cache_dir
    env["KSC_CXX"] = tools.cxx
    for kernel, _ in kernels:
        cmd = [tools.ksc_run, kdsl, "--kernel=" + kernel,
               "--dim=%d" % nthreads, "--inputs=" + in_json, "--threads=1",
               "--check-grad", "--precision=double", "--wrt=" + GRAD_WRT
               ] + GRAD_TOLERANCES
        if not bounds_check:
            cmd.append("--bounds-check=false")
        # Compiling K, K_adj and K_jvp of a large kernel takes the host
        # compiler over a minute of CPU, more on a loaded machine.
        rc, so, se = run_ksc_run(cmd, tools, env, max(300, 2 * tools.timeout))
        if rc == 0:
            checked += 1
            continue
        m = REFUSED.search(se)
        if rc == 1 and m:
            # Where (line:column of case.kdsl) and why.
            where = m.group(1) or ""
            where = where.split(":", 1)[1] if where else ""
            refused.append((kernel, where + m.group(2).strip()))
            continue
        if rc == 1 and "check failed" in se:
            # The command as run in a case directory kept with --keep.
            again = ["ksc-run", "case.kdsl"] + [
                "--inputs=inputs.json" if c.startswith("--inputs=") else c
                for c in cmd[2:]]
            # Only the errors, not Clang's warnings about the source.
            errs = [l for l in se.splitlines() if "error" in l]
            failures.append(("grad-mismatch", kernel, "%s\n%s\n%s" % (
                " ".join(again), so.rstrip(), "\n".join(errs))))
            continue
        errs = [l for l in se.splitlines() if "error" in l]
        msg = "rc %s\n%s" % (rc, "\n".join(errs[:20]) if errs
                              else se[-3000:])
        if rc == "timeout":
            failures.append(("timeout", kernel, msg))
        elif rc != 1:
            failures.append(("ksc-run-crash", kernel, msg))
        else:
            failures.append(("ksc-run-error", kernel, msg))
    return failures, checked, refused


def known_bug_tags(emitted, source):
    """Tags for failures that look like bugs found before (to triage a run:
    see the report of ksc-difftest's first runs). Heuristics only."""
    tags = []
    lines = emitted.splitlines()
    # An scf.if result given the variable of a for loop's induction
    # variable, which the loop still needs: `for (int k ...) { ... k = ...`.
    for a, line in enumerate(lines):
        m = re.match(r"^(\s*)for \(int (\w+) = .*\{$", line)
        if not m:
            continue
        ind, var = m.group(1), m.group(2)
        for b in range(a + 1, len(lines)):
            if lines[b].startswith(ind + "}"):
                break
            if re.match(r"^\s*%s = " % re.escape(var), lines[b]):
                tags.append("known:for-counter-overwritten(%s)" % var)
                break
    # A parameter commented out as unused but assigned.
    for func in re.split(r"\n(?=static )", emitted):
        header = func.split("{", 1)[0]
        for m in re.finditer(r"/\*(\w+)\*/", header):
            if re.search(r"^\s*%s [-+*/%%&|^]?= " % re.escape(m.group(1)),
                         func, re.M):
                tags.append("known:unused-parameter-assigned(%s)" %
                            m.group(1))
    if re.search(r"'K\d+' cannot be used here: kernel code reads only",
                 emitted):
        tags.append("known:constant-as-lvalue")
    # A local array reassigned under a condition.
    if re.search(r"if \(.*\) \w+ = (ia|fa|oi|of);$", source, re.M):
        tags.append("maybe:array-reassigned-under-if")
    return sorted(set(tags))


def emitted_cpp(tools, kdsl, bounds_check):
    cmd = [tools.ksc, kdsl] + (["--bounds-check"] if bounds_check else [])
    rc, so, se = run(cmd, 120)
    return so + se


def run_seed(seed, args, tools):
    start = time.time()
    out = Outcome(seed)
    gen = Generator(seed, kernels=args.kernels, size=args.size,
                    avoid=args.avoid, grad=args.grad)
    source, kernels, inputs = gen.generate()
    out.kernels = len(kernels)
    out.workdir = tempfile.mkdtemp(prefix="ksc-difftest-%d-" % seed,
                                   dir=args.work_dir)
    if args.grad:
        out.failures, out.checked, out.refused = check_grad_case(
            out.workdir, source, kernels, inputs, gen.nthreads, tools,
            not args.no_bounds_check)
        return finish(out, args, start)
    out.invalid, out.failures = check_case(
        out.workdir, source, kernels, inputs, gen.nthreads, tools,
        not args.no_bounds_check)
    if out.failures:
        out.tags = known_bug_tags(emitted_cpp(
            tools, os.path.join(out.workdir, "case.kdsl"),
            not args.no_bounds_check), source)
    return finish(out, args, start)


def inputs_from_json(obj):
    def conv(x):
        if isinstance(x, str):
            return float(x)
        return x
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v)
            for k, v in obj.items()}


def json_inputs(inputs):
    def conv(x):
        if isinstance(x, float):
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
        return x
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v)
            for k, v in inputs.items()}


def finish(out, args, start):
    out.seconds = time.time() - start
    bad = out.failures or (out.invalid and args.strict)
    if bad and args.keep:
        dest = os.path.join(args.keep, "seed-%d" % out.seed)
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(out.workdir, dest,
                        ignore=shutil.ignore_patterns("native"))
        with open(os.path.join(dest, "report.txt"), "w") as f:
            f.write(describe(out))
    shutil.rmtree(out.workdir, ignore_errors=True)
    return out


def describe(out):
    lines = []
    if out.invalid:
        lines.append("seed %d: INVALID (generator): %s" % (out.seed,
                                                          out.invalid))
    for kind, kernel, msg in out.failures:
        lines.append("seed %d kernel %s: %s\n%s" % (
            out.seed, kernel, kind.upper(), indent_text(msg)))
    if out.tags:
        lines.append("seed %d tags: %s" % (out.seed, " ".join(out.tags)))
    return "\n".join(lines) + "\n"


def indent_text(text):
    return "\n".join("    " + l for l in text.splitlines())


# ===----------------------------------------------------------------------===
# Reducing a failing case
# ===----------------------------------------------------------------------===


def top_level_chunks(lines):
    """[(start, end)] line ranges of the top-level items (functions, kernels,
    constants) of a generated file."""
    chunks = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("KSC_"):
            end = k
            while lines[end] != "}":
                end += 1
            chunks.append((k, end))
            k = end + 1
        elif line.startswith("const"):
            chunks.append((k, k))
            k += 1
        else:
            k += 1
    return chunks


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def block_end(lines, a):
    """For a line ending with `{`, the index of the line closing it."""
    d = indent_of(lines[a])
    for b in range(a + 1, len(lines)):
        if indent_of(lines[b]) == d and lines[b].lstrip().startswith("}"):
            return b
        if indent_of(lines[b]) < d:
            break
    return None


def statement_end(lines, a):
    """The last line of the statement starting at line a (an if chain with
    its else branches, a loop, a braced or unbraced if/else)."""
    line = lines[a]
    s = line.strip()
    if s.endswith("{"):
        b = block_end(lines, a)
        if b is None:
            return None
        while lines[b].strip().endswith("{"):  # } else {, } else if (...) {
            b = block_end(lines, b)
            if b is None:
                return None
        if a + 1 < len(lines) and False:
            pass
        return after_else(lines, a, b)
    if s.startswith("if (") and s.endswith(")") or s == "else":
        # Unbraced: the next line (or its braced block) is the body.
        body_end = statement_end(lines, a + 1)
        if body_end is None:
            return None
        return after_else(lines, a, body_end)
    return a


def after_else(lines, a, b):
    d = indent_of(lines[a])
    if b + 1 < len(lines) and lines[b + 1].strip() == "else" and \
            indent_of(lines[b + 1]) == d:
        return statement_end(lines, b + 1)
    return b


def reduction_candidates(lines, lo, hi):
    """Smaller versions of lines[lo..hi] (a function body): statements
    removed, blocks unwrapped, else branches removed."""
    cands = []
    for a in range(lo, hi + 1):
        s = lines[a].strip()
        if s.startswith("}") or s == "else" or s.startswith("KSC_"):
            continue
        b = statement_end(lines, a)
        if b is None or b > hi:
            continue
        cands.append(lines[:a] + lines[b + 1:])
        if s.endswith("{") and b > a + 1:
            c = block_end(lines, a)
            if c is not None and c <= b:
                body = lines[a + 1:c]
                rest = lines[c + 1:b + 1]
                # Keep the body (run once, unconditionally) ...
                cands.append(lines[:a] + body + lines[b + 1:])
                if lines[c].strip().startswith("} else"):
                    # ... or drop the else branches.
                    cands.append(lines[:c] + [" " * indent_of(lines[c]) + "}"]
                                 + lines[b + 1:])
                del rest
    return cands


def statement_spans(lines, lo, hi):
    """The statements of the block lines[lo..hi], as line ranges."""
    spans = []
    a = lo
    while a <= hi:
        b = statement_end(lines, a)
        if b is None or b > hi:
            return spans
        spans.append((a, b))
        a = b + 1
    return spans


def ddmin_block(lines, lo, hi, interesting):
    """Removes groups of statements of lines[lo..hi] (delta debugging)."""
    spans = statement_spans(lines, lo, hi)
    n = 2
    while len(spans) >= 2:
        size = max(1, (len(spans) + n - 1) // n)
        removed = False
        for k in range(0, len(spans), size):
            group = spans[k:k + size]
            a, b = group[0][0], group[-1][1]
            cand = lines[:a] + lines[b + 1:]
            if interesting(cand):
                lines = cand
                hi -= b - a + 1
                spans = statement_spans(lines, lo, hi)
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if size == 1:
                break
            n = min(n * 2, len(spans))
    return lines


def check_file(path, kernel, tools):
    d = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        source = f.read()
    with open(os.path.join(d, "inputs.json")) as f:
        inputs = inputs_from_json(json.load(f))
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    work = tempfile.mkdtemp(prefix="ksc-check-", dir=d)
    trans = any(f + "(" in source for f in ("sin", "cos", "exp", "log"))
    if meta.get("grad"):
        invalid = None
        failures, _, refused = check_grad_case(
            work, source, [(kernel, trans)], inputs, meta["dim"], tools)
        for k, why in refused:
            print("GRAD-REFUSED %s: %s" % (k, why))
    else:
        invalid, failures = check_case(work, source, [(kernel, trans)],
                                       inputs, meta["dim"], tools)
    shutil.rmtree(work, ignore_errors=True)
    if invalid:
        print("INVALID: " + invalid)
    for kind, k, msg in failures:
        print("%s %s:\n%s" % (kind.upper(), k, indent_text(msg)))
    if not invalid and not failures:
        print("ok")
    return 1 if invalid or failures else 0


def reduce_case(case_dir, kernel, tools, out_path, verbose):
    with open(os.path.join(case_dir, "case.kdsl")) as f:
        lines = f.read().splitlines()
    with open(os.path.join(case_dir, "inputs.json")) as f:
        inputs = inputs_from_json(json.load(f))
    with open(os.path.join(case_dir, "meta.json")) as f:
        meta = json.load(f)
    dim = meta["dim"]
    work = tempfile.mkdtemp(prefix="ksc-reduce-", dir=os.path.dirname(
        os.path.abspath(out_path)))

    def trans_of(src_lines):
        text = "\n".join(src_lines)
        return any(f + "(" in text for f in ("sin", "cos", "exp", "log"))

    def signature(src_lines):
        if meta.get("grad"):
            invalid = None
            failures, _, _ = check_grad_case(
                work, "\n".join(src_lines) + "\n",
                [(kernel, trans_of(src_lines))], inputs, dim, tools)
        else:
            invalid, failures = check_case(
                work, "\n".join(src_lines) + "\n",
                [(kernel, trans_of(src_lines))], inputs, dim, tools)
        if invalid or not failures:
            return None
        kind, _, msg = failures[0]
        kind = kind.replace("-transcendental", "")
        if kind == "mismatch":
            return kind
        if kind == "grad-mismatch":
            # Which check failed, and for which argument.
            m = re.search(r"check failed: (the \w+ of '\w+'|[^:(]*)", msg)
            return kind + ":" + (m.group(1) if m else "")
        errs = [l for l in msg.splitlines() if "error:" in l]
        first = errs[0].split("error:", 1)[1] if errs else msg
        return kind + ":" + " ".join(
            w for w in first.split() if not ("'" in w or "\u2018" in w))

    want = signature(lines)
    if want is None:
        print("ksc-difftest: the case does not fail (anymore)")
        return 1
    print("reducing: %s" % want)
    tries = 0

    def interesting(cand):
        nonlocal tries
        tries += 1
        return signature(cand) == want

    # All other kernels at once, then one by one the functions and constants.
    others = [c for c in top_level_chunks(lines)
              if lines[c[0]].startswith("KSC_KERNEL") and
              not lines[c[0]].startswith("KSC_KERNEL void %s(" % kernel)]
    cand = [l for k, l in enumerate(lines)
            if not any(a <= k <= b for a, b in others)]
    if interesting(cand):
        lines = cand
        if verbose:
            print("  removed the other kernels: %d lines" % len(lines))
    changed = True
    while changed:
        changed = False
        for start, end in reversed(top_level_chunks(lines)):
            if lines[start].startswith("KSC_KERNEL void %s(" % kernel):
                continue
            cand = lines[:start] + lines[end + 1:]
            if interesting(cand):
                lines = cand
                changed = True
                if verbose:
                    print("  removed an item: %d lines" % len(lines))
    # Groups of statements of each function body.
    k = 0
    while k < len(top_level_chunks(lines)):
        start, end = top_level_chunks(lines)[k]
        if lines[start].startswith("KSC_"):
            lines = ddmin_block(lines, start + 1, end - 1, interesting)
            if verbose:
                print("  %d lines" % len(lines))
        k += 1
    # Statements, to a fixpoint.
    changed = True
    while changed:
        changed = False
        # Functions by their first line: the line numbers move as
        # statements go.
        headers = [lines[start] for start, _ in top_level_chunks(lines)
                   if lines[start].startswith("KSC_")]
        for header in headers:
            k = 0
            while True:
                chunks = [c for c in top_level_chunks(lines)
                          if lines[c[0]] == header]
                if not chunks:
                    break
                lo, hi = chunks[0][0] + 1, chunks[0][1] - 1
                cands = reduction_candidates(lines, lo, hi)
                if k >= len(cands):
                    break
                if interesting(cands[k]):
                    lines = cands[k]
                    changed = True
                    if verbose:
                        print("  %d lines" % len(lines))
                else:
                    k += 1
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print("ksc-difftest: reduced to %d lines in %d tries: %s" % (
        len(lines), tries, out_path))
    return 0


# Constructs --avoid can leave out.
AVOIDABLE = {
    "param-write": "assignments to parameters",
    "const-lvalue": "global constants used as lvalues (in ?:, as const T& "
                    "arguments): they are read as (+K) instead",
    "array-reassign": "assignments to local array variables",
    "for-ternary": "int-typed ?: inside for loops (their scf.if results "
                   "could take over the loop counter's variable)",
}

QUICK_SEEDS = [1, 2, 3]
QUICK_KERNELS = 6
# --grad --quick: fixed seeds (3 kernels each) whose gradients all check,
# picked among seeds 10..49 (one FD-noise failure there, seed 10, before
# GRAD_TOLERANCES) for being quick to compile: about 55 s of CPU.
QUICK_GRAD_SEEDS = [20, 26, 27, 28]
QUICK_GRAD_KERNELS = 3


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(
        description="Differential random tester of ksc (ksc-run vs. the "
        ".kdsl file compiled natively).")
    p.add_argument("--seed", type=int, default=1, help="first seed")
    p.add_argument("--count", type=int, default=10,
                   help="number of seeds (kernel files) to run")
    p.add_argument("--seeds", help="comma-separated list of seeds to run")
    p.add_argument("--quick", action="store_true",
                   help="run the fixed list of seeds used by the lit test "
                   "(with --grad: the one of test/Fuzz/difftest-grad.test)")
    p.add_argument("--kernels", type=int, default=10,
                   help="kernels per file (all share one ksc-run compile)")
    p.add_argument("--size", type=float, default=1.0,
                   help="scale of the generated kernels (statements)")
    p.add_argument("--keep", help="directory to keep failing cases in")
    p.add_argument("--build-dir", default=os.path.join(root, "build"),
                   help="the ksc build directory (bin/ksc, bin/ksc-run)")
    p.add_argument("--work-dir", help="where temporary files go")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--no-ubsan", action="store_true",
                   help="build the native side without UBSan (faster)")
    p.add_argument("--no-bounds-check", action="store_true",
                   help="run ksc-run with --bounds-check=false")
    p.add_argument("--strict", action="store_true",
                   help="also fail (and keep) when the generator made an "
                   "invalid program")
    p.add_argument("--print", type=int, metavar="SEED",
                   help="print the kernel file of SEED and exit")
    p.add_argument("--print-native", type=int, metavar="SEED",
                   help="print the native C++ of SEED and exit")
    p.add_argument("--avoid", default="",
                   help="comma-separated constructs not to generate, to look "
                   "past known bugs: " + ", ".join(sorted(AVOIDABLE)))
    p.add_argument("--reduce", metavar="DIR",
                   help="reduce the failing case kept in DIR (see --keep) "
                   "line by line; needs --kernel-name")
    p.add_argument("--kernel-name", help="the failing kernel, for --reduce")
    p.add_argument("--check", metavar="FILE",
                   help="run kernel --kernel-name of FILE (a generated file, "
                   "maybe edited by hand) both ways (a --grad case: its "
                   "gradient check), on the inputs.json and meta.json next "
                   "to it, and print the differences")
    p.add_argument("--grad", action="store_true",
                   help="derivative mode: generate differentiable, "
                   "well-conditioned kernels (own output slots only, "
                   "moderate literals and inputs, guarded sqrt/log/division) "
                   "and check each one's K_adj and K_jvp with ksc-run "
                   "--check-grad --precision=double instead of running it "
                   "natively; failures are GRAD-MISMATCH, kernels ksc "
                   "refuses to differentiate are counted (listed with -v)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    args.avoid = [a for a in args.avoid.split(",") if a]
    for a in args.avoid:
        if a not in AVOIDABLE:
            p.error("unknown --avoid value %r" % a)

    if args.print is not None or args.print_native is not None:
        seed = args.print if args.print is not None else args.print_native
        gen = Generator(seed, kernels=args.kernels, size=args.size,
                        avoid=args.avoid, grad=args.grad)
        source, kernels, inputs = gen.generate()
        if args.print is not None:
            sys.stdout.write(source)
            sys.stdout.write("// inputs (--dim=%d): %s\n" % (
                gen.nthreads, json.dumps(json_inputs(inputs))))
        else:
            sys.stdout.write(native_source(source, kernels, inputs,
                                           gen.nthreads))
        return 0

    if args.quick and args.grad:
        # Fixed seeds, few kernels per file (each kernel is compiled and
        # checked on its own).
        seeds = QUICK_GRAD_SEEDS
        args.kernels = QUICK_GRAD_KERNELS
    elif args.quick:
        # Fixed seeds, fewer kernels per file, no UBSan (these seeds are
        # known to generate valid programs): about 12 s of CPU.
        seeds = QUICK_SEEDS
        args.no_ubsan = True
        args.kernels = QUICK_KERNELS
    elif args.seeds:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    else:
        seeds = list(range(args.seed, args.seed + args.count))

    cxx = os.environ.get("KSC_CXX") or "c++"
    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="ksc-difftest-cache-", dir=args.work_dir)
    tools = Tools(os.path.abspath(args.build_dir), cxx, cache,
                  not args.no_ubsan)
    for tool in (tools.ksc, tools.ksc_run):
        if not wait_for_tool(tool, 5):
            print("ksc-difftest: cannot find %s (use --build-dir)" % tool,
                  file=sys.stderr)
            return 2
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    if args.check:
        tools.timeout = 10
        try:
            return check_file(args.check, args.kernel_name, tools)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    if args.reduce:
        tools.timeout = 5
        try:
            return reduce_case(args.reduce, args.kernel_name, tools,
                               os.path.join(args.reduce, "reduced.kdsl"),
                               args.verbose)
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    total_kernels = 0
    failed = 0
    invalid = 0
    checked = 0
    refused = 0
    start = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            futures = [ex.submit(run_seed, s, args, tools) for s in seeds]
            for fut in futures:
                out = fut.result()
                total_kernels += out.kernels
                checked += out.checked
                refused += len(out.refused)
                if args.verbose:
                    for kernel, why in out.refused:
                        print("seed %d kernel %s: grad-refused: %s" % (
                            out.seed, kernel, why))
                if out.invalid:
                    invalid += 1
                if out.failures:
                    failed += 1
                if out.failures or out.invalid:
                    sys.stdout.write(describe(out))
                elif args.verbose:
                    print("seed %d: %d kernels ok (%.1fs)" % (
                        out.seed, out.kernels, out.seconds))
                sys.stdout.flush()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if args.grad:
        print("ksc-difftest --grad: %d seeds, %d kernels, checked %d "
              "gradients, %d refused, %d seeds with failures, %.1fs" % (
                  len(seeds), total_kernels, checked, refused, failed,
                  time.time() - start))
        if checked == 0:
            # A run that checked nothing must not pass.
            print("ksc-difftest: no gradient was checked")
            return 1
        return 1 if failed else 0
    print("ksc-difftest: %d seeds, %d kernels, %d seeds with failures, "
          "%d invalid (generator), %.1fs" % (
              len(seeds), total_kernels, failed, invalid,
              time.time() - start))
    if failed or (args.strict and invalid):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
