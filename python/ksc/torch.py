"""ksc kernels as PyTorch operators (docs/python.md, "PyTorch").

``op(module, "K")`` is kernel ``K`` of a module made by ``ksc
--emit=python`` as a ``torch.library`` custom operator
(``torch.ops.ksc.<module>_K``) under the functional rule of
``ksc.signature``: it takes the kernel's arguments (floating-point scalars
as numbers or tensors, integers as ints) and returns the values after the
launch of the arrays the kernel writes (a tensor, or a tuple of them). It
has a fake implementation, so ``torch.compile`` traces it without a graph
break, and, when the module has the adjoint kernel ``K_adj`` (``ksc
--grad``), an autograd formula that launches it: gradients flow to every
argument the adjoint has an adjoint for.

``inplace(module, "K")`` is the kernel as it is, as an operator that
updates its arrays in place (declared in ``mutates_args``); it has no
autograd formula.
"""

import torch

from .signature import kernel_params as _kernel_params
from .signature import signature as _signature

_ops = {}

_SCALAR_SCHEMA = {"int32": "int", "uint32": "int", "int64": "int",
                  "bool": "bool"}
_DTYPES = {"float32": torch.float32, "float64": torch.float64,
           "int32": torch.int32, "uint32": torch.uint32,
           "int64": torch.int64, "bool": torch.bool}


def _is_tensor_param(p):
    """Arrays and floating-point values passed by value are tensors in the
    operator's schema (so that values can have gradients)."""
    return p.is_array or p.is_floating


def _schema_params(params, mutated=()):
    fields = []
    for i, p in enumerate(params):
        if _is_tensor_param(p):
            kind = "Tensor(a%d!)" % i if i in mutated else "Tensor"
        else:
            kind = _SCALAR_SCHEMA[p.dtype]
        fields.append(f"{kind} {p.name}")
    return fields


def _returns(count):
    if count == 1:
        return "Tensor"
    return "(" + ", ".join(["Tensor"] * count) + ")"


def _value(p, arg):
    """An argument as the module's function takes it."""
    if p.is_array:
        return arg.detach()
    if isinstance(arg, torch.Tensor):
        return arg.item() if p.element_shape == () else arg.tolist()
    return arg


def _launch(module, kernel, params, args, grid):
    """Launches ``kernel``; a CUDA kernel on PyTorch's current stream of the
    arguments' device, so that it is ordered with PyTorch's own work."""
    extra = {}
    if module.__ksc_kernels__[kernel]["target"] == "cuda":
        device = next((a.device for p, a in zip(params, args)
                       if p.is_array and isinstance(a, torch.Tensor)), None)
        if device is not None and device.type == "cuda":
            extra["stream"] = torch.cuda.current_stream(device).cuda_stream
    getattr(module, kernel)(*[_value(p, a) for p, a in zip(params, args)],
                            dim=grid, **extra)


def _as_tensor(p, arg, like):
    """A floating-point scalar argument given as a number, as a tensor."""
    if _is_tensor_param(p) and not isinstance(arg, torch.Tensor):
        device = like.device if like is not None else None
        return torch.as_tensor(arg, dtype=_DTYPES[p.dtype], device=device)
    return arg


def _key(namespace, opname, dim):
    """What tells the operators ``op`` and ``inplace`` made apart."""
    if dim is not None:
        dim = tuple([dim] if isinstance(dim, int) else dim)
    return namespace, opname, dim


def _grid(sig, args, dim):
    """The launch grid of ``sig``'s kernel on ``args``."""
    return sig.launch_grid([tuple(a.shape) if isinstance(a, torch.Tensor)
                            else () for a in args], dim)


def op(module, name, *, dim=None, namespace="ksc"):
    """Kernel ``name`` of ``module`` as a functional, differentiable
    operator (see the module's docstring). ``dim`` fixes the launch grid;
    by default it is the shape of the first array the kernel writes."""
    sig = _signature(module, name)
    opname = f"{module.__name__}_{name}"
    key = _key(namespace, opname, dim)
    if key in _ops:
        return _ops[key]
    params, outputs = sig.params, sig.outputs
    single = len(outputs) == 1

    def grid(args):
        return _grid(sig, args, dim)

    def forward_impl(*args):
        args = list(args)
        results = []
        for i in outputs:
            args[i] = args[i].clone()
            results.append(args[i])
        _launch(module, name, params, args, grid(args))
        return results[0] if single else tuple(results)

    def forward_fake(*args):
        results = [torch.empty_like(args[i]) for i in outputs]
        return results[0] if single else tuple(results)

    schema = "(" + ", ".join(_schema_params(params)) + ") -> " + \
        _returns(len(outputs))
    forward = torch.library.custom_op(f"{namespace}::{opname}", forward_impl,
                                      mutates_args=(), schema=schema)
    forward.register_fake(forward_fake)

    if sig.adjoint:
        _register_autograd(module, sig, namespace, opname, forward, grid)

    def call(*args):
        if len(args) != len(params):
            raise TypeError(f"{name}() takes {len(params)} arguments "
                            f"({', '.join(p.name for p in params)}), got "
                            f"{len(args)}")
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        return forward(*[_as_tensor(p, a, like)
                         for p, a in zip(params, args)])

    call.__name__ = name
    call.__doc__ = f"{name}({', '.join(p.name for p in params)}): " \
        f"the kernel {name} of {module.__name__} (ksc.torch.op)."
    call.operator = forward
    _ops[key] = call
    return call


def _register_autograd(module, sig, namespace, opname, forward, grid):
    """The backward pass of ``forward``: an operator launching the adjoint
    kernel on the primal arguments and the outputs' cotangents."""
    params, outputs = sig.params, sig.outputs
    adjoint_params = _kernel_params(module, sig.adjoint)
    grads_of = sig.adjoint_of

    def adjoint_impl(*args):
        n, m = len(params), len(outputs)
        # Copies: the adjoint must not change the saved inputs.
        arguments = sig.adjoint_arguments(
            args[:n], args[n:n + m], args[n + m:],
            zeros=lambda shape, x: torch.zeros_like(x) if shape == x.shape
            else torch.zeros(shape, dtype=x.dtype, device=x.device),
            cotangent=lambda c, x: c.to(x.dtype).clone(),
            copy=torch.Tensor.clone)
        _launch(module, sig.adjoint, adjoint_params, arguments,
                grid(args[:n]))
        grads = sig.gradients(arguments[n:])
        return tuple(grads[i] for i in grads_of)

    def adjoint_fake(*args):
        return tuple(torch.empty_like(args[i]) for i in grads_of)

    schema = "(" + ", ".join(
        _schema_params(params) +
        [f"Tensor result_{params[i].name}" for i in outputs] +
        [f"Tensor grad_{params[i].name}" for i in outputs]) + ") -> (" + \
        ", ".join(["Tensor"] * len(grads_of)) + ")"
    adjoint = torch.library.custom_op(f"{namespace}::{opname}_vjp",
                                      adjoint_impl, mutates_args=(),
                                      schema=schema)
    adjoint.register_fake(adjoint_fake)

    def setup_context(ctx, inputs, output):
        results = (output,) if len(outputs) == 1 else tuple(output)
        # Tensors through save_for_backward, which notices when one is
        # changed in place before the backward pass; the rest as they are.
        ctx.tensor_at = [i for i, a in enumerate(inputs)
                         if isinstance(a, torch.Tensor)]
        ctx.others = [None if isinstance(a, torch.Tensor) else a
                      for a in inputs]
        ctx.save_for_backward(*[inputs[i] for i in ctx.tensor_at], *results)

    def backward(ctx, *cotangents):
        saved = ctx.saved_tensors
        inputs = list(ctx.others)
        for position, i in enumerate(ctx.tensor_at):
            inputs[i] = saved[position]
        results = saved[len(ctx.tensor_at):]
        cotangents = [torch.zeros_like(r) if c is None else c
                      for c, r in zip(cotangents, results)]
        grads = adjoint(*inputs, *results, *cotangents)
        result = [None] * len(params)
        for g, i in zip(grads, grads_of):
            result[i] = g
        return tuple(result)

    forward.register_autograd(backward, setup_context=setup_context)


def inplace(module, name, *, dim=None, namespace="ksc"):
    """Kernel ``name`` of ``module`` as an operator that updates the arrays
    it writes in place (``torch.ops.<namespace>.<module>_<name>_``), as the
    module's function does, but known to PyTorch (``mutates_args``), so
    that ``torch.compile`` traces it. It returns nothing and has no
    autograd formula: use ``op`` for gradients."""
    sig = _signature(module, name)
    opname = f"{module.__name__}_{name}_"
    key = _key(namespace, opname, dim)
    if key in _ops:
        return _ops[key]
    params = sig.params

    def impl(*args):
        _launch(module, name, params, args, _grid(sig, args, dim))

    mutated = [params[i].name for i in sig.outputs]
    schema = "(" + ", ".join(_schema_params(params, sig.outputs)) + ") -> ()"
    operator = torch.library.custom_op(f"{namespace}::{opname}", impl,
                                       mutates_args=mutated, schema=schema)
    operator.register_fake(lambda *args: None)

    def call(*args):
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        operator(*[_as_tensor(p, a, like) for p, a in zip(params, args)])

    call.__name__ = name + "_"
    call.operator = operator
    _ops[key] = call
    return call
