"""ksc kernels as a Python package (examples/python).

``saxpy(a, x, y)`` and ``product(x, n, scale, out)`` launch the kernels on
NumPy arrays (or PyTorch, JAX, CuPy ones on the CPU), updating ``y`` and
``out`` in place; ``saxpy_adj``, ``saxpy_jvp``, ... are their derivative
kernels. ``ksc_example.ksc.torch.op(_kernels, "product")`` and
``ksc_example.ksc.jax.op(_kernels, "product")`` make differentiable
operators of them.
"""

from . import _kernels
from ._kernels import *  # noqa: F401,F403
