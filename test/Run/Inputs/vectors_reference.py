#!/usr/bin/env python3
"""Expected values of the vector and matrix run tests (test/Run/vectors-*.kdsl
and test/Run/matrices.kdsl), computed independently of ksc with Python's
standard library only.

    vectors_reference.py KERNEL

reads the kernel's inputs from Inputs/<file>.json (see KERNELS below) and
prints, as a JSON object, the arrays the kernel writes.

Each reference function restates its kernel's body, operation by operation,
in one of these number systems (class Arith):

  f32     float arithmetic: every +, -, *, / and sqrt of two floats is done
          in double and rounded to float, which gives the correctly rounded
          float result (a double has more than 2 * 24 + 2 bits), so the
          values are what IEEE float arithmetic gives in the order the
          kernel's source (and docs/language.md for the builtins) says;
  f64     IEEE double arithmetic (Python's float);
  exact32 exact rational arithmetic (fractions.Fraction) that checks that
          every intermediate result is a float, so that the kernel's float
          arithmetic is exact too and its results can be compared exactly.

determinant and inverse are computed exactly (Fraction), whatever the
kernel's precision, from the Leibniz formula and the adjugate (not the
cofactor expansion that ksc documents), and rounded once at the end.
"""
import json
import math
import os
import struct
import sys
from fractions import Fraction
from itertools import permutations

INPUTS = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    """x rounded to the nearest float (ties to even)."""
    return struct.unpack("f", struct.pack("f", float(x)))[0]


class Arith:
    def __init__(self, kind):
        self.kind = kind

    def r(self, x):
        """Rounds an operation's exact (or double) result to the type."""
        if self.kind == "f32":
            return f32(x)
        if self.kind == "f64":
            return float(x)
        if self.kind == "exact32":
            assert Fraction(f32(x)) == x, "not exact in float: %s" % x
            return x
        raise ValueError(self.kind)

    def c(self, x):
        """A JSON input or a literal, converted to the type."""
        if self.kind == "f32":
            return f32(x)
        if self.kind == "f64":
            return float(x)
        return Fraction(f32(x))

    def add(self, a, b):
        return self.r(a + b)

    def sub(self, a, b):
        return self.r(a - b)

    def mul(self, a, b):
        return self.r(a * b)

    def div(self, a, b):
        return self.r(a / b)

    def sqrt(self, a):
        if self.kind in ("f32", "f64"):
            return self.r(math.sqrt(a))
        root = Fraction(math.sqrt(a))
        assert root * root == a, "sqrt not exact: %s" % a
        return root

    # Vectors are lists, matrices lists of rows.
    def vec(self, v):
        return [self.c(x) for x in v]

    def vadd(self, a, b):
        return [self.add(x, y) for x, y in zip(a, b)]

    def vsub(self, a, b):
        return [self.sub(x, y) for x, y in zip(a, b)]

    def vneg(self, a):
        return [-x for x in a]

    def vscale(self, a, s):
        return [self.mul(x, s) for x in a]

    def vdiv(self, a, s):
        return [self.div(x, s) for x in a]

    def dot(self, a, b):
        """Added left to right, as docs/language.md says."""
        total = self.mul(a[0], b[0])
        for x, y in zip(a[1:], b[1:]):
            total = self.add(total, self.mul(x, y))
        return total

    def cross(self, a, b):
        return [self.sub(self.mul(a[1], b[2]), self.mul(a[2], b[1])),
                self.sub(self.mul(a[2], b[0]), self.mul(a[0], b[2])),
                self.sub(self.mul(a[0], b[1]), self.mul(a[1], b[0]))]

    def length(self, a):
        return self.sqrt(self.dot(a, a))

    def normalize(self, a):
        """v / length(v); zero when the length is 0."""
        n = self.length(a)
        return self.vdiv(a, n) if n > 0 else [self.c(0)] * len(a)

    def madd(self, a, b):
        return [self.vadd(x, y) for x, y in zip(a, b)]

    def msub(self, a, b):
        return [self.vsub(x, y) for x, y in zip(a, b)]

    def mneg(self, a):
        return [self.vneg(x) for x in a]

    def mscale(self, a, s):
        return [self.vscale(x, s) for x in a]

    def mdiv(self, a, s):
        return [self.vdiv(x, s) for x in a]

    def mat(self, m):
        return [self.vec(row) for row in m]

    def column(self, m, j):
        return [row[j] for row in m]

    def transpose(self, m):
        return [self.column(m, j) for j in range(len(m))]

    def mv(self, m, v):
        """m * v: v is a column."""
        return [self.dot(row, v) for row in m]

    def vm(self, v, m):
        """v * m: v is a row."""
        return [self.dot(v, self.column(m, j)) for j in range(len(m))]

    def mm(self, a, b):
        return [self.vm(row, b) for row in a]

    def trace(self, m):
        total = m[0][0]
        for i in range(1, len(m)):
            total = self.add(total, m[i][i])
        return total

    def diag(self, v):
        return [[v[i] if i == j else self.c(0) for j in range(len(v))]
                for i in range(len(v))]

    def identity(self, n):
        return self.diag([self.c(1)] * n)

    def outer(self, a, b):
        return [[self.mul(x, y) for y in b] for x in a]

    def determinant(self, m):
        """Exact, by the Leibniz formula, then rounded."""
        return self.r_final(exact_det(m))

    def inverse(self, m):
        """Exact adjugate / determinant, each element rounded once; zero
        for a singular matrix."""
        det = exact_det(m)
        n = len(m)
        if det == 0:
            return [[self.c(0)] * n for _ in range(n)]
        return [[self.r_final((-1) ** (i + j) * exact_det(minor(m, j, i)) / det)
                 for j in range(n)] for i in range(n)]

    def r_final(self, x):
        """An exact value rounded once to the type."""
        return f32(x) if self.kind in ("f32", "exact32") else float(x)


def minor(m, row, col):
    return [[x for j, x in enumerate(r) if j != col]
            for i, r in enumerate(m) if i != row]


def exact_det(m):
    n = len(m)
    total = Fraction(0)
    for p in permutations(range(n)):
        inversions = sum(1 for i in range(n) for j in range(i + 1, n)
                         if p[i] > p[j])
        term = Fraction(-1 if inversions % 2 else 1)
        for i in range(n):
            term *= Fraction(m[i][p[i]])
        total += term
    return total


def load(name):
    with open(os.path.join(INPUTS, name + ".json")) as f:
        return json.load(f)


# --- vectors-arith.kdsl ---------------------------------------------------

def arith_f32(A, d):
    """Exact float arithmetic (A is exact32)."""
    out = {k: [] for k in ("sum", "diff", "neg", "scaled", "scaled_left",
                           "halved", "literals", "compound", "v2", "v4")}
    for a, b, s in zip(d["a"], d["b"], d["s"]):
        x, y, s = A.vec(a), A.vec(b), A.c(s)
        out["sum"].append(A.vadd(x, y))
        out["diff"].append(A.vsub(x, y))
        out["neg"].append(A.vneg(x))
        out["scaled"].append(A.vscale(x, s))
        out["scaled_left"].append(A.vscale(x, s))
        out["halved"].append(A.vdiv(x, s))
        # x * 2 + 0.5 * y - x / 4
        out["literals"].append(A.vsub(
            A.vadd(A.vscale(x, A.c(2)), A.vscale(y, A.c(0.5))),
            A.vdiv(x, A.c(4))))
        c = A.vadd(x, y)
        c = A.vsub(c, A.vec([1, 1, 1]))
        c = A.vscale(c, A.c(4))
        c = A.vdiv(c, s)
        out["compound"].append(A.vneg(c))
        # p = (x.x, y.y); (p + (1, -1)) * s - p / 2
        p = [x[0], y[1]]
        out["v2"].append(A.vsub(A.vscale(A.vadd(p, A.vec([1, -1])), s),
                                A.vdiv(p, A.c(2))))
        # q = (x.x, x.y, y.x, y.y) - 0.25, / 0.5, -(q * s)
        q = [x[0], x[1], y[0], y[1]]
        q = A.vdiv(A.vsub(q, A.vec([0.25] * 4)), A.c(0.5))
        out["v4"].append(A.vneg(A.vscale(q, s)))
    return out


def arith_f32_round(A, d):
    out = {"third": [], "tenth": [], "mixed": []}
    for a, b, s in zip(d["a"], d["b"], d["s"]):
        x, y, s = A.vec(a), A.vec(b), A.c(s)
        out["third"].append(A.vdiv(x, A.c(3)))
        # 0.1f * x + y * s
        out["tenth"].append(A.vadd(A.vscale(x, A.c(0.1)), A.vscale(y, s)))
        q = [x[0], x[1], y[2], s]
        q = A.vadd(q, A.vec([0.1] * 4))
        q = A.vscale(q, A.c(1.5))
        q = A.vdiv(q, s)
        out["mixed"].append(A.vsub(q, A.vdiv([y[0], y[1], y[2], x[2]],
                                             A.c(7))))
    return out


def arith_f64(A, d):
    out = {k: [] for k in ("sum", "diff", "neg", "scaled", "quotient",
                           "compound", "v2", "v4")}
    for a, b, s in zip(d["a"], d["b"], d["s"]):
        x, y, s = A.vec(a), A.vec(b), A.c(s)
        out["sum"].append(A.vadd(x, y))
        out["diff"].append(A.vsub(x, y))
        out["neg"].append(A.vneg(x))
        out["scaled"].append(A.vadd(A.vscale(x, s), A.vscale(y, s)))
        out["quotient"].append(A.vdiv(x, s))
        c = A.vadd(x, y)
        c = A.vsub(c, A.vec([0.1] * 3))
        c = A.vscale(c, s)
        c = A.vdiv(c, A.c(3))
        out["compound"].append(c)
        # vec2d(x.x, y.y) / 10 - vec2d(s)
        out["v2"].append(A.vsub(A.vdiv([x[0], y[1]], A.c(10)), [s, s]))
        # w = (x, s) - (y.z, y.y, y.x, 1) * 0.5; -w / s
        w = A.vsub(x + [s], A.vscale([y[2], y[1], y[0], A.c(1)], A.c(0.5)))
        out["v4"].append(A.vdiv(A.vneg(w), s))
    return out


# --- vectors-builtins.kdsl ------------------------------------------------

def builtins(A, d):
    out = {k: [] for k in ("dots", "crosses", "lengths", "length_sqs",
                           "normals", "products", "quotients", "dot2",
                           "normal2", "length4", "normal4")}
    for a, b, p, q in zip(d["a"], d["b"], d["p"], d["q"]):
        x, y, p, q = A.vec(a), A.vec(b), A.vec(p), A.vec(q)
        out["dots"].append(A.dot(x, y))
        out["crosses"].append(A.cross(x, y))
        out["lengths"].append(A.length(x))
        out["length_sqs"].append(A.dot(x, x))
        out["normals"].append(A.normalize(x))
        out["products"].append([A.mul(u, v) for u, v in zip(x, y)])
        out["quotients"].append([A.div(u, v) for u, v in zip(x, y)])
        out["dot2"].append(A.dot(p, y[:2]))
        out["normal2"].append(A.normalize(p))
        out["length4"].append(A.length(q))
        out["normal4"].append(A.normalize(q))
    return out


# --- matrices.kdsl --------------------------------------------------------

def mat_ops(A, d):
    """mat33 (mat33d) arithmetic, products and the simple builtins."""
    out = {k: [] for k in ("sum", "diff", "neg", "scaled", "divided",
                           "product", "mv", "vm", "transposed", "traces",
                           "diags", "outers", "compound", "m2", "m4v",
                           "m4t")}
    for m, n, v, w, s in zip(d["m"], d["n"], d["v"], d["w"], d["s"]):
        m, n, v, w, s = A.mat(m), A.mat(n), A.vec(v), A.vec(w), A.c(s)
        out["sum"].append(A.madd(m, n))
        out["diff"].append(A.msub(m, n))
        out["neg"].append(A.mneg(m))
        # m * s - s * n (each product rounded, then the difference)
        out["scaled"].append(A.msub(A.mscale(m, s), A.mscale(n, s)))
        out["divided"].append(A.mdiv(m, s))
        out["product"].append(A.mm(m, n))
        out["mv"].append(A.mv(m, v))
        out["vm"].append(A.vm(v, m))
        out["transposed"].append(A.transpose(m))
        out["traces"].append(A.trace(m))
        out["diags"].append(A.madd(A.diag(v), A.identity(3)))
        out["outers"].append(A.outer(v, w))
        # c = m; c += n; c -= identity; c *= s; c /= 2
        c = A.madd(m, n)
        c = A.msub(c, A.identity(3))
        c = A.mscale(c, s)
        c = A.mdiv(c, A.c(2))
        out["compound"].append(c)
        # m2 = top-left 2x2 of m; m2 * transpose(m2) * (v.x, v.y)
        m2 = [m[0][:2], m[1][:2]]
        out["m2"].append(A.mv(A.mm(m2, A.transpose(m2)), v[:2]))
        # m4 = [[m, v], [w, s]]; p4 = m4 * m4; p4 * (w, 1) and trace(p4)
        m4 = [m[0] + [v[0]], m[1] + [v[1]], m[2] + [v[2]], w + [s]]
        p4 = A.mm(m4, m4)
        out["m4v"].append(A.mv(p4, w + [A.c(1)]))
        out["m4t"].append(A.trace(p4))
    return out


def det_inv(A, d):
    out = {k: [] for k in ("det2", "det3", "det4", "inv2", "inv3", "inv4")}
    for name, n in (("m2", 2), ("m3", 3), ("m4", 4)):
        for m in d[name]:
            m = A.mat(m)
            out["det%d" % n].append(A.determinant(m))
            out["inv%d" % n].append(A.inverse(m))
    return out


KERNELS = {
    "arith_f32": ("vectors-arith-f32", arith_f32, "exact32"),
    "arith_f32_round": ("vectors-arith-f32-round", arith_f32_round, "f32"),
    "arith_f64": ("vectors-arith-f64", arith_f64, "f64"),
    "builtins_f32": ("vectors-builtins-fp", builtins, "f32"),
    "builtins_f64": ("vectors-builtins-fp", builtins, "f64"),
    "mat_f32": ("matrices-ops-f32", mat_ops, "exact32"),
    "mat_f64": ("matrices-ops-f64", mat_ops, "f64"),
    "det_inv_f32": ("matrices-det-inv-f32", det_inv, "f32"),
    "det_inv_f64": ("matrices-det-inv-f64", det_inv, "f64"),
}


def short32(x):
    """The float x with the fewest digits that still read back as x (as
    ksc-run prints floats)."""
    for digits in range(1, 10):
        y = float("%.*g" % (digits, x))
        if f32(y) == x:
            return y
    raise AssertionError(x)


def plain(x, kind):
    """The results as JSON numbers: Fractions as floats (exact: they were
    checked to be floats), floats with as few digits as read back."""
    if isinstance(x, dict):
        return {k: plain(v, kind) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(y, kind) for y in x]
    x = float(x)
    if x == int(x) and abs(x) < 2 ** 53:
        return int(x)
    return short32(x) if kind in ("f32", "exact32") else x


def main():
    inputs, function, kind = KERNELS[sys.argv[1]]
    print(json.dumps(plain(function(Arith(kind), load(inputs)), kind)))


if __name__ == "__main__":
    main()
