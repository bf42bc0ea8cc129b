"""Statements with blocks: blocks, if/else, for, while and do loops (with
bounded trip counts), break/continue/return."""

from .types import FLT, INT, BOOL, Var

LOOP_NAMES = ["j", "k", "m", "jj", "kk", "e", "step", "it"]
GUARD_NAMES = ["g", "guard", "n_iter", "trip", "g_1"]


class ControlGen:
    """Generator mixin: blocks, branches, loops and jumps."""

    # --- blocks ------------------------------------------------------------

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

    def stmt_block(self, ctx):
        self.emit("{")
        self.block(ctx.child(), self.nstmts(ctx))
        self.emit("}")

    # --- branches ----------------------------------------------------------

    def stmt_if(self, ctx):
        c = self.cond()
        kind = self.r.randint(0, 5)
        if kind == 5:
            return self.if_with_init(ctx)
        self.emit("if (%s) {" % c.text)
        self.block(ctx.child(), self.nstmts(ctx))
        if kind == 0:
            self.emit("}")
            return None
        while kind >= 3 and self.chance(0.6):
            self.emit("} else if (%s) {" % self.cond().text)
            self.block(ctx.child(), self.nstmts(ctx))
        self.emit("} else {")
        self.block(ctx.child(), self.nstmts(ctx))
        self.emit("}")
        return None

    def if_with_init(self, ctx):
        """C++17 if with an init-statement."""
        ty = self.pick([INT, FLT, BOOL])
        name = self.fresh_name()
        with self.hiding(name):
            init = self.gen(ty, 2)
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
        if k == 1:
            self.stmt_compound(ctx)
        elif k == 2:
            self.stmt_incdec(ctx)
        elif k == 3:
            self.stmt_store(ctx)
        elif k == 4 and ctx.in_loop:
            self.emit(self.pick(["break;", "continue;"]))
        else:
            self.stmt_assign(ctx)

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
        if not self.chance(0.85):
            self.emit(text)
            return
        c = self.cond()
        if not self.chance(0.5):
            self.emit("if (%s) %s" % (c.text, text))
            return
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

    # --- loops -------------------------------------------------------------

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
        with self.hiding(name):
            if self.chance(0.3):
                # A bound computed at run time, still within [lo, hi].
                e = self.gen(INT, 1)
                span = hi - lo
                hi_text = "%d + abs(%s) %% %d" % (lo, e.text, span + 1) \
                    if span > 0 else str(hi)
            else:
                hi_text = str(hi)
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
        lv = self.declare(Var(name, INT, mutable=False, lo=lo, hi=hi,
                              bound=max(abs(lo), abs(hi)) + 3, kind="loop"))
        header = self.for_header(form, lv, trips, step, init, hi_text, incr,
                                 decl_outside)
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
        self.block(self.loop_ctx(ctx, trips), self.nstmts(ctx),
                   forbid=set(self.scopes[-1]), prologue=prologue)
        self.for_depth -= 1
        undo()
        self.emit("}")
        self.pop()
        if outer is not None:
            # After the loop the counter is an ordinary small variable.
            targets = self.mutable_vars(INT)
            if targets and self.chance(0.7):
                self.emit("%s = %s * 3 + 1;" % (self.pick(targets).name, name))
        return None

    def for_header(self, form, lv, trips, step, init, hi_text, incr,
                   decl_outside):
        """stmt_for's `for (...)`: counting up from lv.lo to lv.hi (form <=
        3), down (4), also while an array element or a condition holds (5),
        with a second counter (6). May narrow lv's range, declares the
        second counter."""
        name, lo, hi = lv.name, lv.lo, lv.hi
        if form <= 3:
            return "for (%s; %s < %s; %s)" % (init, name, hi_text, incr)
        if form == 4:
            lv.lo, lv.hi = lo + 1, hi
            return "for (%s; %s > %d; %s)" % (
                init.replace("= %d" % lo, "= %d" % hi), name, lo,
                {1: "%s--" % name, 2: "%s -= 2" % name,
                 3: "%s -= 3" % name}[step])
        if form == 5:
            # A condition that also reads an array, guarded by the bound.
            arrs = [x for x in self.arrays if x.elem in (INT, FLT)]
            if self.grad:
                arrs = [x for x in arrs if not x.writable]
            a = self.pick(arrs) if arrs else None
            if a is not None and lo >= 0 and hi <= a.size:
                val = self.gen(a.elem, 0)
                return "for (%s; %s < %s && %s[%s] %s %s; %s)" % (
                    init, name, hi_text, a.name, name,
                    self.pick(["!=", "<", ">="]), val.text, incr)
            c = self.cond()
            return "for (%s; %s < %s && %s; %s)" % (
                init, name, hi_text, c.text, incr)
        other = self.fresh_name(LOOP_NAMES)
        if other == name or decl_outside:
            return "for (%s; %s < %s; %s)" % (init, name, hi_text, incr)
        start = self.r.randint(0, 9)
        self.declare(Var(other, INT, mutable=False, lo=start - trips,
                         hi=start, bound=12, kind="loop"))
        return "for (%s, %s = %d; %s < %s; %s, %s--)" % (
            init, other, start, name, hi_text, incr, other)

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
        return None

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
        return None
