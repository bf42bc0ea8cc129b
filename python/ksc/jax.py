"""ksc kernels as JAX operations (docs/python.md, "JAX").

``op(module, "K")`` is kernel ``K`` of a module made by ``ksc
--emit=python`` (built with jaxlib's headers: ``jax.ffi.include_dir()``) as
a JAX function under the functional rule of ``ksc.signature``: it takes
the kernel's arguments and returns the values after the launch of the
arrays the kernel writes (one array, or a tuple of them). It is an XLA FFI
custom call on the CPU, so it works under ``jax.jit``, and differentiable:

- ``mode="vjp"`` (the default when the module has ``K_adj``): a
  ``jax.custom_vjp`` whose backward pass launches the adjoint kernel, for
  ``jax.grad``, ``jax.vjp`` and ``jax.jacrev``;
- ``mode="jvp"`` (needs ``K_jvp``, ``ksc --grad=forward`` or ``all``): a
  ``jax.custom_jvp`` that launches the tangent kernel, for ``jax.jvp`` and
  ``jax.jacfwd``. JAX cannot transpose it, so it has no reverse mode.
"""

import numpy as np

import jax
import jax.numpy as jnp

from .signature import kernel_params as _kernel_params
from .signature import signature as _signature

_registered = set()


def _target(module, kernel):
    """Registers the FFI handler of ``kernel`` (once) and returns the name
    of its XLA custom call target."""
    handlers = getattr(module, "__ksc_ffi__", None)
    if module.__ksc_kernels__[kernel]["target"] != "cpu":
        raise TypeError(f"{module.__name__} runs its kernels on CUDA "
                        "devices: ksc.jax takes modules of CPU kernels only")
    if handlers is None:
        raise TypeError(
            f"{module.__name__} was built without jaxlib's headers, so its "
            "kernels are no XLA FFI handlers: build it with "
            "jax.ffi.include_dir() on the include path (ksc_add_python_module "
            "does when jax is installed)")
    name = f"ksc.{module.__name__}.{kernel}"
    if name not in _registered:
        jax.ffi.register_ffi_target(name, handlers[kernel], platform="cpu")
        _registered.add(name)
    return name


def _operand(param, value):
    """An argument as the operand of the custom call: an array of the
    parameter's dtype (a scalar as an array of its element shape)."""
    array = jnp.asarray(value, dtype=jnp.dtype(param.dtype))
    if not param.is_array and array.shape != param.element_shape:
        array = jnp.reshape(array, param.element_shape)
    return array


def _launch(module, kernel, params, operands, dim):
    """Launches ``kernel`` on ``operands``: returns the new values of the
    arrays it writes, in order."""
    written = [i for i, p in enumerate(params) if p.is_array and p.writable]
    results = [jax.ShapeDtypeStruct(operands[i].shape, operands[i].dtype)
               for i in written]
    call = jax.ffi.ffi_call(_target(module, kernel), results,
                            input_output_aliases={i: j for j, i in
                                                  enumerate(written)},
                            vmap_method="sequential")
    return list(call(*operands, dim=np.asarray(dim, dtype=np.int64)))


def op(module, name, *, dim=None, mode=None):
    """Kernel ``name`` of ``module`` as a differentiable JAX function (see
    the module's docstring). ``dim`` fixes the launch grid; by default it
    is the shape of the first array the kernel writes."""
    sig = _signature(module, name)
    if mode is None:
        mode = "vjp" if sig.adjoint else "jvp" if sig.tangent else None
    if mode == "vjp" and not sig.adjoint:
        raise ValueError(f"{name} has no adjoint kernel: compile it with "
                         "ksc --grad (or --grad=all)")
    if mode == "jvp" and not sig.tangent:
        raise ValueError(f"{name} has no tangent kernel: compile it with "
                         "ksc --grad=forward (or --grad=all)")
    if mode not in (None, "vjp", "jvp"):
        raise ValueError(f"mode must be 'vjp' or 'jvp', not {mode!r}")
    outputs = sig.outputs
    single = len(outputs) == 1

    def operands_of(args):
        if len(args) != len(sig.params):
            raise TypeError(f"{name}() takes {len(sig.params)} arguments "
                            f"({', '.join(p.name for p in sig.params)}), "
                            f"got {len(args)}")
        return [_operand(p, a) for p, a in zip(sig.params, args)]

    def grid(operands):
        return sig.launch_grid([o.shape for o in operands], dim)

    def forward(*args):
        operands = operands_of(args)
        results = _launch(module, name, sig.params, operands, grid(operands))
        return results[0] if single else tuple(results)

    if mode is None:
        return forward

    if mode == "vjp":
        f = jax.custom_vjp(forward)

        def fwd(*args):
            operands = operands_of(args)
            results = _launch(module, name, sig.params, operands,
                              grid(operands))
            out = results[0] if single else tuple(results)
            return out, (operands, results)

        def bwd(residuals, cotangents):
            operands, results = residuals
            cotangents = [cotangents] if single else list(cotangents)
            adj_operands = sig.adjoint_arguments(
                operands, results, cotangents,
                zeros=lambda shape, x: jnp.zeros(shape, x.dtype),
                cotangent=lambda c, x: jnp.asarray(c, x.dtype))
            adj_params = _kernel_params(module, sig.adjoint)
            new = _launch(module, sig.adjoint, adj_params, adj_operands,
                          grid(operands))
            written = [k for k, p in enumerate(adj_params)
                       if p.is_array and p.writable]
            grads = sig.gradients(
                [new[written.index(len(sig.params) + j)]
                 for j in range(len(sig.adjoint_of))])
            # Inputs without an adjoint (integers, --wrt) get zeros.
            for i, p in enumerate(sig.params):
                if grads[i] is None:
                    x = operands[i]
                    grads[i] = (jnp.zeros_like(x) if jnp.issubdtype(
                        x.dtype, jnp.inexact) else np.zeros(
                            x.shape, dtype=jax.dtypes.float0))
            return tuple(grads)

        f.defvjp(fwd, bwd)
        return f

    f = jax.custom_jvp(forward)

    @f.defjvp
    def jvp(primals, tangents):
        operands = operands_of(primals)
        tan_params = _kernel_params(module, sig.tangent)
        tan_operands = []
        for i in sig.tangent_of:
            t = tangents[i]
            if type(t) is jax.custom_derivatives.SymbolicZero or t is None:
                t = jnp.zeros_like(operands[i])
            tan_operands.append(_operand(sig.params[i], t))
        new = _launch(module, sig.tangent, tan_params,
                      operands + tan_operands, grid(operands))
        written = [k for k, p in enumerate(tan_params)
                   if p.is_array and p.writable]
        out = [new[written.index(i)] for i in outputs]
        out_tangents = []
        for i in outputs:
            position = len(sig.params) + sig.tangent_of.index(i) \
                if i in sig.tangent_of else None
            out_tangents.append(new[written.index(position)]
                                if position is not None else
                                jnp.zeros_like(operands[i]))
        if single:
            return out[0], out_tangents[0]
        return tuple(out), tuple(out_tangents)

    return f
