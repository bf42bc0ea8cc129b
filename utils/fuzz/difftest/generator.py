"""The random kernel generator: its state (the random stream, the lines
written so far, scopes, visible arrays), names, and the whole file and its
inputs. What it generates comes from the mixins: expressions
(generator_expr), simple statements (generator_stmt), blocks, branches,
loops and jumps (generator_control), constants, device functions and
kernels (generator_func).

Every random choice is drawn from self.r in a fixed order: a seed must keep
generating the same file and inputs, so a change that draws one more (or
one fewer) number changes every seed's program after it."""

import contextlib
import random

from .generator_control import ControlGen
from .generator_expr import ExprGen
from .generator_func import FuncGen
from .generator_stmt import StmtGen
from .types import IN_INT_MAX, IN_SIZE, SLOTS, f32

NAME_POOL = [
    "a", "b", "c", "x", "y", "z", "s", "t", "u", "v", "w", "p", "q", "r",
    "acc", "old", "tmp", "sum", "prod", "cnt", "best", "lo", "hi",
    # names the emitter makes up or that the C library / runtime use
    "result", "cond", "did_break", "did_return", "did_continue", "x_1",
    "a_next", "b_next", "k_1", "s_1", "result_1", "y1", "j0", "index",
    "fabs", "sinf", "std", "ksc", "tid_1", "i_1", "t_next", "cond_1",
]


class Generator(ExprGen, StmtGen, ControlGen, FuncGen):
    def __init__(self, seed, kernels=10, size=1.0, avoid=(), grad=False):
        self.seed = seed
        # The --grad profile: differentiable, well-conditioned kernels (see
        # ksc-difftest.py's docstring). Every choice it changes is guarded by
        # this flag, so that the default mode's seeds stay as they were.
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

    @contextlib.contextmanager
    def hiding(self, *names):
        """Hides `names` (being declared: not readable by their own
        initializer) while the block runs."""
        self.hidden = set(names)
        try:
            yield
        finally:
            self.hidden = set()

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

    def mutable_vars(self, ty=None):
        return [v for v in self.visible() if v.mutable and
                (ty is None or v.ty == ty)]

    def callable_funcs(self):
        """The device functions the code being generated may call: all of
        them in a kernel, those defined before it in a function."""
        if self.cur_func is None:
            return self.funcs
        return self.funcs[:self.funcs.index(self.cur_func)]

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

    # --- randomness --------------------------------------------------------

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

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
