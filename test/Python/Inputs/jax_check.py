"""ksc.jax on examples/python's kernels: the loop kernel's gradient (which
NVIDIA Warp gets wrong) through jax.grad, jax.test_util.check_grads in
reverse (custom_vjp) and forward (custom_jvp) mode, under jax.jit."""
import sys

import numpy as np

import jax
import jax.numpy as jnp
from jax.test_util import check_grads

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, sys.argv[1])
import kernels as k  # noqa: E402
import ksc.jax  # noqa: E402

product = ksc.jax.op(k, "product")


def total(x, n, scale, out):
    return jnp.sum(product(x, n, scale, out))


x = jnp.array([2.0, 2.0, 2.0])
scale = jnp.ones(1)
out = jnp.zeros(1)
print("product", product(x, 3, scale, out))
print("grad", jax.grad(total)(x, 3, scale, out))
print("jit grad", jax.jit(jax.grad(total), static_argnums=1)(x, 3, scale, out))
# The inputs are left as they were.
assert (out == 0).all()

rng = np.random.default_rng(3)
x = jnp.asarray(rng.uniform(0.5, 1.5, 5))
scale = jnp.asarray(rng.standard_normal(4))
out = jnp.asarray(rng.standard_normal(4))
grads = jax.grad(total, argnums=(0, 2))(x, 4, scale, out)
want_x = np.array([np.sum(scale) * np.prod(x[:4]) / x[j] if j < 4 else 0.0
                   for j in range(5)])
np.testing.assert_allclose(grads[0], want_x, rtol=1e-12)
np.testing.assert_allclose(grads[1], np.full(4, np.prod(x[:4])), rtol=1e-12)
check_grads(lambda x, s: product(x, 4, s, out), (x, scale), order=1,
            modes=["rev"])
product_fwd = ksc.jax.op(k, "product", mode="jvp")
check_grads(lambda x, s: product_fwd(x, 4, s, out), (x, scale), order=1,
            modes=["fwd"])
print("check_grads ok")

# saxpy in float32: a scalar's gradient is the sum over all threads.
saxpy = ksc.jax.op(k, "saxpy")
a, xs, ys = 2.0, jnp.arange(4.0, dtype=jnp.float32), jnp.ones(4, jnp.float32)
print("saxpy", jax.jit(saxpy)(a, xs, ys))
print("saxpy grad a", jax.grad(lambda a: saxpy(a, xs, ys).sum())(a))
try:
    ksc.jax.op(k, "nothing")
except KeyError as e:
    print("KeyError", e)
