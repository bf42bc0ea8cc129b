"""Runs the installed example package (pip install ./examples/python): the
kernels on NumPy arrays, and, where JAX or PyTorch is installed, the loop
kernel's gradient through jax.grad and torch.autograd."""
import importlib.util

import numpy as np

import ksc_example

x = np.arange(4, dtype=np.float32)
y = np.ones(4, dtype=np.float32)
ksc_example.saxpy(2.0, x, y)
print("saxpy", y)

# The gradient NVIDIA Warp gets wrong: d(x0 x1 x2)/dx at x = [2, 2, 2].
x = np.full(3, 2.0)
out = np.zeros(1)
adj_x, adj_scale, adj_out = np.zeros(3), np.zeros(1), np.ones(1)
ksc_example.product_adj(x, 3, np.ones(1), out, adj_x, adj_scale, adj_out)
print("product_adj", adj_x)

if importlib.util.find_spec("jax"):
    import jax
    import jax.numpy as jnp
    from ksc_example.ksc import jax as kjax

    jax.config.update("jax_enable_x64", True)
    product = kjax.op(ksc_example._kernels, "product")
    grad = jax.grad(lambda x: product(x, 3, jnp.ones(1), jnp.zeros(1))[0])
    print("jax.grad", grad(jnp.full(3, 2.0)))
if importlib.util.find_spec("torch"):
    import torch
    from ksc_example.ksc import torch as ktorch

    product = ktorch.op(ksc_example._kernels, "product")
    x = torch.full((3,), 2.0, dtype=torch.float64, requires_grad=True)
    product(x, 3, torch.ones(1, dtype=torch.float64),
            torch.zeros(1, dtype=torch.float64)).sum().backward()
    print("torch.autograd", x.grad)
