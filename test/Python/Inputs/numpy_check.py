"""The module of kernels.kdsl called from NumPy: values against NumPy's,
derivative kernels against finite differences and each other (the
dot-product test), and every rejected argument's exception (printed, for
FileCheck)."""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import kernels as k  # noqa: E402

rng = np.random.default_rng(7)


def close(got, want, tol):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# saxpy: in place, also on strided views.
x = rng.standard_normal(10).astype(np.float32)
y = rng.standard_normal(10).astype(np.float32)
want = 2.5 * x + y
k.saxpy(2.5, x, y)
close(y, want, 1e-6)
base = np.zeros(20, np.float32)
view = base[::2]
k.saxpy(np.float32(1.5), x, view)
close(base[::2], 1.5 * x, 1e-6)
assert not base[1::2].any()
print("saxpy ok")

# transform: mat33 and vec3 by value (nested or flat sequences), arrays
# of vec3 and mat33 as (n, 3) and (n, 3, 3).
m = rng.standard_normal((3, 3)).astype(np.float32)
shift = [0.5, -1.0, 2.0]
p = rng.standard_normal((6, 3)).astype(np.float32)
out = np.zeros((6, 3), np.float32)
scaled = np.zeros((6, 3, 3), np.float32)
k.transform(m.tolist(), shift, p, out, scaled)
close(out, p @ m.T + np.array(shift, np.float32), 1e-5)
close(scaled, m[None] * p[:, 0, None, None], 1e-5)
out2 = np.zeros_like(out)
k.transform(m.ravel().tolist(), tuple(shift), p, out2, scaled)
close(out2, out, 0)
print("transform ok")

# square: a 2-D launch from the shape of `out`, on a transposed view.
a = rng.standard_normal((4, 5))
out = np.zeros((5, 4)).T
k.square(a, 3.0, out)
close(out, 3.0 * a * a, 1e-12)
print("square ok, dim", out.shape)

# count: int32, uint32, bool and int64.
v = np.array([-3, 7, 12, 5], np.int32)
out = np.zeros(4, np.int64)
k.count(v, 5, True, 100, out)
want = -(v.astype(np.uint32) % 5).astype(np.int64) + 100
assert (out == want).all(), (out, want)
# dim given: only the first two threads run.
out[:] = 0
k.count(v, 5, False, 1, out, dim=2)
assert list(out) == [(2**32 - 3) % 5 + 1, 3, 0, 0], out
print("count ok")

# Derivative kernels of square (double): the adjoint against central
# differences, and against the tangent kernel (the dot-product test).
a = rng.standard_normal((3, 4))
s = 0.7
u = rng.standard_normal((3, 4))   # output cotangent
da = rng.standard_normal((3, 4))  # input direction
ds = 0.3


def f(a, s):
    out = np.zeros_like(a)
    k.square(a, s, out)
    return out


adj_a, adj_s, adj_out = np.zeros_like(a), np.zeros(1), u.copy()
k.square_adj(a, s, np.zeros_like(a), adj_a, adj_s, adj_out)
h = 1e-6
fd = (f(a + h * da, s + h * ds) - f(a - h * da, s - h * ds)) / (2 * h)
lhs = np.sum(u * fd)
rhs = np.sum(adj_a * da) + adj_s[0] * ds
close(lhs, rhs, 1e-6)
tan_out = np.zeros_like(a)
k.square_jvp(a, s, np.zeros_like(a), da, ds, tan_out)
close(tan_out, fd, 1e-6)
close(np.sum(u * tan_out), rhs, 1e-10)
assert not adj_out.any()  # out was overwritten: its input adjoint is 0
print("square derivatives ok")


def error(call):
    try:
        call()
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ": " + str(e))
    else:
        print("no error")


x = np.ones(4, np.float32)
y = np.ones(4, np.float32)
error(lambda: k.saxpy(2.0, x.astype(np.float64), y))
error(lambda: k.saxpy("2", x, y))
error(lambda: k.saxpy(2.0, [1.0, 2.0], y))
error(lambda: k.saxpy(2.0, x, np.ones((2, 2), np.float32)))
readonly = np.ones(4, np.float32)
readonly.flags.writeable = False
error(lambda: k.saxpy(2.0, x, readonly))
k.saxpy(2.0, readonly, y)  # read-only is fine where the kernel only reads
error(lambda: k.saxpy(2.0, x, y, dim=(1, 2, 3, 4)))
error(lambda: k.saxpy(2.0, x, y, dim=-1))
error(lambda: k.transform([1.0] * 8, shift, p, np.zeros((6, 3), np.float32),
                          np.zeros((6, 3, 3), np.float32)))
error(lambda: k.transform(m, shift, p, np.zeros((6, 4), np.float32),
                          np.zeros((6, 3, 3), np.float32)))
error(lambda: k.transform(m.tolist(), shift,
                          np.zeros((6, 3), np.float32, order="F"),
                          np.zeros((6, 3), np.float32),
                          np.zeros((6, 3, 3), np.float32)))
error(lambda: k.count(v, -1, True, 0, np.zeros(4, np.int64)))
error(lambda: k.count(v, 5, 1, 0, np.zeros(4, np.int64)))
error(lambda: k.count(v, 5.0, True, 0, np.zeros(4, np.int64)))
error(lambda: k.count(v, 5, True, 0, np.zeros(4, np.int32)))
print(k.saxpy.__doc__.splitlines()[0])
