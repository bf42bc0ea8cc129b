"""Helpers for Python modules made by ``ksc --emit=python`` (docs/python.md).

A module made by ksc has a function per kernel that launches it on arrays,
updating them in place (``module.saxpy(a, x, y)``). This package turns such
a kernel into a functional, differentiable operator:

- ``ksc.torch.op(module, "saxpy")``: a ``torch.library`` custom operator
  with a fake implementation and an autograd formula from the adjoint
  kernel ``saxpy_adj``;
- ``ksc.jax.op(module, "saxpy")``: an XLA FFI custom call with a
  ``jax.custom_vjp`` from the adjoint (or a ``jax.custom_jvp`` from the
  tangent kernel ``saxpy_jvp``).

Both follow one rule (``ksc.signature``): every argument is an input, the
results are the new values of the arrays the kernel writes, and the
gradients flow to every floating-point argument the adjoint kernel has an
adjoint for. Nothing here is needed to call a module's functions directly.
"""

from .signature import KernelSignature, Param, kernel_params, signature

__all__ = ["KernelSignature", "Param", "kernel_params", "signature"]
