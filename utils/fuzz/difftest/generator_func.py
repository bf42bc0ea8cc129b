"""The top-level items of a kernel file: global constants, device functions
(KSC_FUNC) and kernels (KSC_KERNEL)."""

from .types import (ARRAY_PARAMS, BOOL, DBL, FLT, FUNC_LOOP_MULT, I64,
                    IN_INT_MAX, IN_SIZE, INPUT_ARRAYS, INT, SCALAR_PARAMS,
                    Arr, Ctx, Func, Var, parse_array_type)


class FuncGen:
    """Generator mixin: constants, device functions and kernels."""

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

    def func_params(self, ret):
        """The parameters of a new device function: [(kind, type, name)]."""
        r = self.r
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
        return params

    def declare_params(self, params):
        """Makes a function's parameters visible (arrays included); returns
        their declarations."""
        ptext = []
        for kind, ty, pn in params:
            if kind == "arr":
                elem, const = parse_array_type(ty)
                size = IN_SIZE if const else self.out_size
                self.arrays.append(Arr(pn, elem, size, not const, None))
            elif kind == "cref":
                ptext.append("const %s &%s" % (ty, pn))
                self.declare(Var(pn, ty, mutable=False, kind="param"))
                continue
            elif kind == "val":
                self.declare(Var(pn, ty, kind="param",
                                 mutable="param-write" not in self.avoid))
            ptext.append("%s %s" % (ty, pn))
        return ptext

    def gen_func(self, k):
        r = self.r
        ret = self.pick([INT, INT, FLT, DBL, I64, BOOL, "void"])
        name = self.pick(["f%d" % k, "helper%d" % k, "step%d" % k,
                          "fn_%d" % k])
        f = Func(name, ret, self.func_params(ret))
        self.cur_func = f
        self.funcs.append(f)
        self.uses_trans = False
        self.scopes = []
        self.push()
        self.arrays = []
        ptext = self.declare_params(f.params)
        self.lines.append("KSC_FUNC %s %s(%s) {" % (ret, name,
                                                    ", ".join(ptext)))
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
        """Returns (name, uses_trans)."""
        name = "k%d" % k
        self.scopes = []
        self.push()
        self.uses_trans = False
        inputs = dict(INPUT_ARRAYS)
        self.arrays = [
            Arr(pn, ty, IN_SIZE if pn in inputs else self.out_size,
                pn not in inputs, IN_INT_MAX if pn == "ia" else None)
            for pn, ty in ARRAY_PARAMS]
        ptext = ["array<%s%s> %s" % ("const " if pn in inputs else "", ty, pn)
                 for pn, ty in ARRAY_PARAMS]
        for pn, ty in SCALAR_PARAMS:
            ptext.append("%s %s" % (ty, pn))
            self.declare(Var(pn, ty, kind="param",
                             mutable="param-write" not in self.avoid))
        self.lines.append("KSC_KERNEL void %s(%s) {" % (name,
                                                      ", ".join(ptext)))
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
