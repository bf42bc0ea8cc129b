"""Expressions: literals, leaves, int, float and bool expressions, array
indices, nonzero divisors and calls of device functions. Every int
expression comes with a bound on its absolute value (E.bound), which the
generator keeps below the limits of its type (see types.py)."""

from .types import (ASSIGN_CAP, BOOL, DBL, FLOATS, FLT, I64, INT, INTS,
                    LIMIT, SLOTS, TRANSCENDENTAL, E, isqrt, parse_array_type)

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
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]


class ExprGen:
    """Generator mixin: expressions."""

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

    def cast_spelling(self, ty):
        return self.pick(["(%s)" % ty, ty, "static_cast<%s>" % ty])

    def guarded_read(self, a, index, alt):
        """a[index] where index is in range, alt elsewhere: the read must
        only happen when in range (?: must not be speculated)."""
        return "((%s >= 0 && %s < %d) ? %s[%s] : %s)" % (
            index, index, a.size, a.name, index, alt)

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

    # --- leaves and calls --------------------------------------------------

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
        fs = [f for f in self.callable_funcs() if f.ret == ret]
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

    # --- int ---------------------------------------------------------------

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
        """An int expression of type ty with |value| <= cap (before the
        caller's wrap)."""
        r = self.r
        if depth <= 0 or cap < 4 or self.chance(0.2):
            return self.int_leaf(ty, cap)
        other = ty if ty == INT or self.chance(0.6) else INT
        k = r.randint(0, 24)
        no_ternary = ty == INT and self.for_depth and \
            "for-ternary" in self.avoid
        if no_ternary and k in (13, 21, 22, 23):
            k = 0
        if k <= 12:
            return self.int_arith(k, ty, other, depth - 1, cap)
        return self.int_other(k, ty, other, depth, cap, no_ternary)

    def int_operands(self, ty, other, d, cap):
        """Two operands (of ty and other, in either order)."""
        a = self.gen(ty, d, cap)
        b = self.gen(other, d, cap)
        if self.chance(0.5):
            a, b = b, a
        return a, b

    def int_arith(self, k, ty, other, d, cap):
        """gen_int's arithmetic (k <= 12): + - * / %, negation, bitwise
        operators and shifts."""
        if k <= 3:
            a, b = self.int_operands(ty, other, d, cap // 2)
            op = self.pick(["+", "-"])
            return E("(%s %s %s)" % (a.text, op, b.text), ty,
                     a.bound + b.bound)
        if k <= 5:
            c = isqrt(cap)
            a, b = self.int_operands(ty, other, d, c)
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
            a, b = self.int_operands(ty, other, d, (1 << kbits) - 1)
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
        a = self.gen(ty, d, cap)
        b = self.gen(other, d)
        return E("(%s >> (%s & %d))" % (a.text, b.text,
                                        7 if ty == INT else 15),
                 ty, a.bound)

    def int_other(self, k, ty, other, depth, cap, no_ternary):
        """gen_int's other forms (k >= 13): ?:, min, max, abs, calls,
        conversions, guarded divisions and reads."""
        d = depth - 1
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
            return self.int_of_float(ty, d, no_ternary)
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
                return E(self.guarded_read(a, e.text, alt.text), ty,
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

    def int_of_float(self, ty, d, no_ternary):
        """A float converted to ty, clamped first (NaN -> the low bound:
        fmax)."""
        ft = self.pick(FLOATS)
        f = self.gen(ft, d)
        if ty == INT:
            lim = "1000.0f" if ft == FLT else "1000.0"
            bound = 1000
        else:
            lim = "1e12f" if ft == FLT else "1e12"
            bound = 10 ** 12
        form = self.r.randint(0, 2)
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

    # --- float -------------------------------------------------------------

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
        """A float expression. With --grad every operation is
        differentiable at the values it meets (divisors >= 1, sqrt and log
        of values >= 0.25, exp of values in [-1, 1]); min, max, abs and ?:
        have kinks, but the inputs are random reals, so their operands are
        almost never equal (or zero) there."""
        if depth <= 0 or self.chance(0.2):
            return self.float_leaf(ty)
        d = depth - 1
        k = self.r.randint(0, 15)
        if k <= 4:
            if self.grad:
                return self.float_arith_grad(ty, d)
            return self.float_arith(ty, d)
        if k == 5:
            return E("(-%s)" % self.gen(ty, d).text, ty)
        if k == 6:
            if self.grad:
                return self.float_builtin_grad(ty, d)
            return self.float_builtin(ty, d)
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
            if self.grad and src in INTS:
                e = self.small_int(e)
            return E("%s(%s)" % (self.cast_spelling(ty), e.text), ty)
        if k == 11:
            # Guarded read of a float array (with --grad, a read-only one).
            arrs = [a for a in self.arrays if a.elem == ty and
                    not (self.grad and a.writable)]
            if arrs:
                a = self.pick(arrs)
                e = self.gen(INT, d)
                return E(self.guarded_read(
                    a, e.text, self.float_literal(ty).text), ty)
        return self.float_leaf(ty)

    def float_arith(self, ty, d):
        a = self.gen(ty, d)
        # The other operand may be of a lower type: the usual arithmetic
        # conversions make the result ty.
        lower = [ty, ty, INT] + ([FLT] if ty == DBL else []) + [I64]
        b = self.gen(self.pick(lower), d)
        if self.chance(0.5):
            a, b = b, a
        op = self.pick(["+", "-", "*", "/", "+", "*"])
        return E("(%s %s %s)" % (a.text, op, b.text), ty)

    def float_arith_grad(self, ty, d):
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

    def float_builtin(self, ty, d):
        f = self.pick(["sqrt", "abs"] * 5 + list(TRANSCENDENTAL))
        if f in TRANSCENDENTAL:
            self.uses_trans = True
        return E("%s(%s)" % (f, self.gen(ty, d).text), ty)

    def float_builtin_grad(self, ty, d):
        f = self.pick(["sqrt", "abs", "abs", "sin", "cos", "exp", "log",
                       "tanh"])
        e = self.gen(ty, d)
        suffix = "f" if ty == FLT else ""
        if f != "abs":
            self.uses_trans = True
        if f == "sqrt":
            return E("sqrt(%s * %s + 0.25%s)" % (e.text, e.text, suffix), ty)
        if f == "log":
            return E("log(%s * %s + 0.5%s)" % (e.text, e.text, suffix), ty)
        if f == "exp":
            return E("exp(%s)" % self.squash(e, ty).text, ty)
        return E("%s(%s)" % (f, e.text), ty)

    # --- bool --------------------------------------------------------------

    def bool_leaf(self):
        k = self.r.randint(0, 4)
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
        t1 = self.pick([INT, INT, I64, FLT, DBL, FLT])
        t2 = t1 if self.chance(0.7) else self.pick([INT, FLT, DBL, I64])
        a = self.gen(t1, d)
        b = self.gen(t2, d)
        op = self.pick(COMPARISONS)
        return E("(%s %s %s)" % (a.text, op, b.text), BOOL)

    def cond(self):
        return self.gen(BOOL, self.pick([1, 2, 2, 3]))

    def gen_bool(self, depth):
        if depth <= 0 or self.chance(0.15):
            return self.bool_leaf()
        d = depth - 1
        k = self.r.randint(0, 13)
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
            return self.bool_guarded_read(d)
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
            op = self.pick(COMPARISONS)
            return E("(!(%s %s %s))" % (a.text, op, b.text), BOOL)
        return self.bool_leaf()

    def bool_guarded_read(self, d):
        """A comparison of an array element, read only when the index is in
        range (&& and || must not be speculated)."""
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
