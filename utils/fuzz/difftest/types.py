"""The kernel language as the generator sees it: its types, the bounds that
keep generated programs free of undefined behaviour, the parameters every
generated kernel has, and the records the generator works with (E, Var,
Arr, Func, Ctx)."""

import math
import struct

INT, I64, FLT, DBL, BOOL = "int", "int64_t", "float", "double", "bool"
INTS = (INT, I64)
FLOATS = (FLT, DBL)

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

# The parameters of every generated kernel, in order: the read-only input
# arrays (IN_SIZE elements), the output arrays (SLOTS elements per thread),
# then the scalars.
INPUT_ARRAYS = [("ia", INT), ("fa", FLT), ("da", DBL)]
OUTPUT_ARRAYS = [("oi", INT), ("of", FLT), ("od", DBL), ("ol", I64),
                 ("ob", BOOL)]
ARRAY_PARAMS = INPUT_ARRAYS + OUTPUT_ARRAYS
SCALAR_PARAMS = [("n", INT), ("fs", FLT), ("ds", DBL), ("ls", I64),
                 ("bs", BOOL)]
# The output array of each type.
OUTPUT_OF = {ty: name for name, ty in OUTPUT_ARRAYS}

# The builtins whose results the native side may round differently from
# ksc-run's (a kernel using them is compared with a tolerance).
TRANSCENDENTAL = ("sin", "cos", "exp", "log")


def uses_transcendental(text):
    """Whether source text calls one of TRANSCENDENTAL."""
    return any(f + "(" in text for f in TRANSCENDENTAL)


def isqrt(n):
    return int(math.isqrt(max(n, 0)))


def f32(x):
    """x rounded to float (x itself if it is out of float's range)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return x


def parse_array_type(ty):
    """"array<const float>" -> ("float", True)."""
    inner = ty[len("array<"):-1]
    const = inner.startswith("const ")
    if const:
        inner = inner[len("const "):]
    return inner, const


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
        # [(kind, type, name)]; kind: val, cref, arr, base (--grad)
        self.params = params
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
