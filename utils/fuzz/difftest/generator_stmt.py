"""Simple statements (assignments, declarations, stores, swaps, calls, ...)
and the choice of the next statement. Statements with blocks are in
generator_control."""

from .types import (ASSIGN_CAP, BOOL, DBL, FLOATS, FLT, I64, IN_INT_MAX,
                    IN_SIZE, INT, INTS, LIMIT, OUTPUT_OF, READ_BOUND, SLOTS,
                    Arr, E, Var)

# The statements stmt() chooses from: (kind, weight, method). The weights
# of jump and array depend on where the statement goes (see stmt()). Their
# order is part of what a seed generates.
STATEMENTS = [
    ("decl", 8, "stmt_decl"), ("assign", 12, "stmt_assign"),
    ("compound", 8, "stmt_compound"), ("incdec", 5, "stmt_incdec"),
    ("store", 5, "stmt_store"), ("if", 10, "stmt_if"),
    ("if1", 3, "stmt_if_single"), ("for", 8, "stmt_for"),
    ("while", 4, "stmt_while"), ("do", 3, "stmt_do"),
    ("swap", 5, "stmt_swap"), ("shuffle", 4, "stmt_shuffle"),
    ("copy", 3, "stmt_copy_old"), ("hazard", 3, "stmt_hazard"),
    ("call", 4, "stmt_call"), ("dump", 3, "stmt_dump"),
    ("jump", None, "stmt_jump"), ("chain", 1, "stmt_chain"),
    ("block", 1, "stmt_block"), ("array", None, "stmt_local_array"),
]
# Left out at depth >= 4.
NESTING = ("if", "for", "while", "do", "block")


class StmtGen:
    """Generator mixin: simple statements."""

    def stmt(self, ctx):
        """A statement of any kind (a random one, by STATEMENTS' weights)."""
        weights = []
        for kind, w, method in STATEMENTS:
            if kind == "jump":
                w = 4 if ctx.in_loop else 1
            elif kind == "array":
                w = 1 if ctx.kernel else 0
            if ctx.depth < 4 or kind not in NESTING:
                weights.append((w, method))
        total = sum(w for w, _ in weights)
        x = self.r.uniform(0, total)
        for w, method in weights:
            x -= w
            if x <= 0:
                break
        getattr(self, method)(ctx)

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
        with self.hiding(name):
            if self.chance(0.1):
                init = None
            else:
                init = self.gen(ty, self.expr_depth())
        if init is None:
            self.emit("%s %s;" % (ty, name))
        elif self.chance(0.1) and ty != BOOL:
            # Two declarators in one statement.
            name2 = self.fresh_name()
            if name2 == name:
                self.emit("%s %s = %s;" % (ty, name, init.text))
            else:
                with self.hiding(name, name2):
                    init2 = self.gen(ty, 1)
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
        elif el in FLOATS and self.grad:
            op = self.pick(["*=", "/="])
            e = self.gen(el, d)
            self.emit("%s[%s] %s %s;" % (a.name, idx, op, (
                self.squash(e, el).text if op == "*=" else
                self.one_plus_square(e, el))))
        elif el in FLOATS:
            self.emit("%s[%s] %s %s;" % (a.name, idx, self.pick(["*=", "/="]),
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
                arr = OUTPUT_OF[v.ty]
                slot = "i * %d + %d" % (SLOTS, self.r.randint(0, SLOTS - 1))
            else:
                arrs = [a for a in self.arrays
                        if a.writable and a.elem == v.ty]
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

    def stmt_swap(self, ctx):
        ty = self.pick([INT, FLT, DBL, I64, BOOL, INT])
        vs = self.mutable_vars(ty)
        if len(vs) < 2:
            return self.stmt_decl(ctx)
        self.r.shuffle(vs)
        if len(vs) >= 3 and self.chance(0.3):
            return self.rotate3(ty, vs)
        a, b = vs[:2]
        rest = vs[2:]
        if rest and self.chance(0.4):
            t = rest[0]
            self.emit("%s = %s;" % (t.name, a.name))
            self.emit("%s = %s;" % (a.name, b.name))
            self.emit("%s = %s;" % (b.name, t.name))
            return
        tname = self.fresh_name(exclude={a.name, b.name})
        braced = self.chance(0.5)
        if braced:
            self.emit("{")
            self.indent += 1
        self.emit("%s %s = %s;" % (ty, tname, a.name))
        self.emit("%s = %s;" % (a.name, b.name))
        self.emit("%s = %s;" % (b.name, tname))
        if braced:
            self.indent -= 1
            self.emit("}")
        else:
            self.declare(Var(tname, ty))

    def rotate3(self, ty, vs):
        """stmt_swap's rotation of three variables (vs[:3]), through a
        fourth one or a temporary in a block of its own."""
        a, b, c = vs[:3]
        ts = vs[3:]
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
            t = self.hazard_array(ctx, arrs)
        else:
            t = self.hazard_var(ctx)
            if t is None:
                return None
        # The use: straight, or under an if.
        ws = [w for w in self.mutable_vars(t.ty) if w is not t]
        if not ws:
            return None
        w = self.pick(ws)
        if r.random() < 0.5:
            self.emit("%s = %s;" % (w.name, t.name))
        else:
            self.emit("if (%s) %s = %s;" % (self.gen(BOOL, 1).text, w.name,
                                            t.name))
        return None

    def hazard_array(self, ctx, arrs):
        """stmt_hazard's `t = a[k]; a[k] = ...;` (or a call); returns t."""
        a = self.pick(arrs)
        ty = a.elem
        tname = self.fresh_name()
        # The new name must not be read by its own initializer.
        with self.hiding(tname):
            idx = self.index(a, 0)
        read = "%s[%s]" % (a.name, idx)
        if ty in INTS:
            read = self.wrap(E(read, ty, LIMIT[ty]), ASSIGN_CAP[ty]).text
        self.emit("%s %s = %s;" % (ty, tname, read))
        t = self.declare(Var(tname, ty))
        if self.r.random() < 0.7:
            self.emit("%s[%s] = %s;" % (a.name, idx,
                                        self.rhs(self.gen(ty, 1)).text))
        else:
            self.stmt_call(ctx)
        return t

    def hazard_var(self, ctx):
        """stmt_hazard's `t = x + e; x = ...;`; returns t (None if it made
        a declaration instead)."""
        ty = self.pick([INT, FLT, DBL])
        vs = self.mutable_vars(ty)
        if not vs:
            self.stmt_decl(ctx)
            return None
        x = self.pick(vs)
        tname = self.fresh_name(exclude={x.name})
        with self.hiding(tname):
            other = self.gen(ty, 1)
        if ty in INTS:
            e = self.wrap(E("(%s + %s)" % (x.name, other.text), ty,
                            x.bound + other.bound), ASSIGN_CAP[ty])
        else:
            e = E("(%s * %s)" % (x.name, other.text), ty)
        self.emit("%s %s = %s;" % (ty, tname, e.text))
        t = self.declare(Var(tname, ty))
        self.emit("%s = %s;" % (x.name, self.rhs(self.gen(ty, 1)).text))
        return t

    def stmt_copy_old(self, ctx):
        ty = self.pick([INT, FLT, DBL, I64])
        vs = self.mutable_vars(ty)
        if not vs:
            return self.stmt_decl(ctx)
        x = self.pick(vs)
        oname = self.fresh_name(["old", "prev", "x_old", "before", "o"])
        if oname == x.name:
            return None
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
        return None

    def stmt_call(self, ctx):
        funcs = self.callable_funcs()
        fs = [f for f in funcs if f.ret == "void"]
        if not fs:
            rets = [f for f in funcs if f.ret != "void"]
            if not rets:
                return self.stmt_assign(ctx)
            f = self.pick(rets)
            vs = self.mutable_vars(f.ret)
            self.writing_call_ok = True
            e = self.call_expr(f.ret, 2)
            if e is None or not vs:
                return self.stmt_assign(ctx)
            self.emit("%s = %s;" % (self.pick(vs).name, e.text))
            return None
        f = self.pick(fs)
        if f.uses_trans:
            self.uses_trans = True
        args = self.call_args(f, 2)
        if args is None:
            return self.stmt_assign(ctx)
        self.emit("%s(%s);" % (f.name, ", ".join(args)))
        return None

    def stmt_chain(self, ctx):
        ty = self.pick([INT, FLT, DBL])
        vs = self.mutable_vars(ty)
        if len(vs) < 2:
            return self.stmt_assign(ctx)
        a, b = self.r.sample(vs, 2)
        self.emit("%s = %s = %s;" % (a.name, b.name,
                                      self.rhs(self.gen(ty, 2)).text))
        return None

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
            other = self.pick(srcs)
            self.emit("if (%s) %s = %s;" % (self.cond().text, name,
                                            other.name))
            self.arrays[-1].bound = None
        return None
