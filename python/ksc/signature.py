"""The functional rule shared by ksc.torch and ksc.jax (docs/python.md).

A kernel ``K(a, x, y)`` launched by a module made by ``ksc --emit=python``
updates its arrays in place. As a functional operator:

- every parameter is an input, in the kernel's order; scalars (and
  vectors and matrices passed by value) are numbers or 0-d (element-shaped)
  arrays;
- the results are the values after the launch of the arrays the kernel
  may write (``array<T>``, not ``array<const T>``), in the kernel's order:
  the operator copies each of them and launches the kernel on the copies,
  so its inputs are never changed;
- the launch grid is ``dim`` when given, else the shape of the first array
  the kernel writes (the first array, if it writes none): the module's
  own rule;
- a parameter is differentiable when the adjoint kernel ``K_adj`` has an
  adjoint for it (float and double scalars, vectors, matrices and arrays
  of them; with ``ksc --wrt`` only those named). The gradient of a
  written array's input value is what ``K_adj`` leaves in its adjoint
  array when that array starts as the output's cotangent; of an array
  the kernel only reads, the sum ``K_adj`` adds into a zero array; of a
  scalar, its one-element adjoint array.
"""

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple


@dataclass(frozen=True)
class Param:
    name: str
    dtype: str  # "float32", "float64", "int32", "uint32", "int64", "bool"
    rank: int  # 0 for a value passed by value, else the array's dimensions
    writable: bool
    element_shape: Tuple[int, ...]  # () for a scalar, (3,) for a vec3

    @property
    def is_array(self) -> bool:
        return self.rank > 0

    @property
    def is_floating(self) -> bool:
        return self.dtype in ("float32", "float64")


@dataclass(frozen=True)
class KernelSignature:
    """A kernel of a module and its derivative kernels, as the module
    describes them (``module.__ksc_kernels__``)."""

    module: object
    name: str
    params: Tuple[Param, ...]
    target: str
    adjoint: Optional[str]
    # For each parameter of the adjoint kernel after the primal ones, the
    # index of the primal parameter it is the adjoint of.
    adjoint_of: Tuple[int, ...]
    # Primal arrays the adjoint reads as the kernel left them.
    final_value_args: Tuple[int, ...]
    tangent: Optional[str]
    tangent_of: Tuple[int, ...]

    @property
    def outputs(self) -> Tuple[int, ...]:
        """The parameters whose values after the launch are the results."""
        return tuple(i for i, p in enumerate(self.params)
                     if p.is_array and p.writable)

    @property
    def differentiable(self) -> Tuple[int, ...]:
        """The parameters that get gradients (through the adjoint)."""
        return tuple(sorted(set(self.adjoint_of)))

    def launch_grid(self, shapes: Sequence[Tuple[int, ...]],
                    dim=None) -> Tuple[int, ...]:
        """The launch grid for arguments of the given shapes (the arrays'
        shapes with their element shapes; anything for scalars)."""
        if dim is not None:
            grid = (dim,) if isinstance(dim, int) else tuple(dim)
            if not 1 <= len(grid) <= 3:
                raise TypeError(f"{self.name}: dim must be an int or a "
                                "sequence of 1 to 3 ints")
            return grid
        arrays = [i for i, p in enumerate(self.params) if p.is_array]
        written = [i for i in arrays if self.params[i].writable]
        chosen = (written or arrays or [None])[0]
        if chosen is None:
            raise TypeError(f"{self.name}: the kernel takes no array, so "
                            "dim= must give the launch grid")
        p = self.params[chosen]
        if p.rank > 3:
            raise TypeError(f"{self.name}: the launch grid cannot be taken "
                            f"from the 4-D array '{p.name}': give dim=")
        return tuple(int(n) for n in shapes[chosen][:p.rank])

    def adjoint_arguments(self, inputs, results, cotangents, zeros,
                          cotangent, copy=lambda x: x):
        """The arguments of the adjoint kernel in the backward pass of the
        functional operator that ran on ``inputs`` and returned
        ``results``: the primal inputs (``copy`` of the arrays the kernel
        writes, which the adjoint may write again; the results where it
        reads arrays as the kernel left them), then each adjoint array's
        starting value: the result's cotangent for an array the kernel
        writes (``cotangent(c, input)``), zeros for one it only reads and
        for a value passed by value (``zeros(shape, input)``, one element
        of it)."""
        primal = list(inputs)
        for i in self.outputs:
            primal[i] = copy(primal[i])
        for i in self.final_value_args:
            primal[i] = copy(results[self.outputs.index(i)])
        adjoints = []
        for i in self.adjoint_of:
            p, x = self.params[i], inputs[i]
            if p.is_array and p.writable:
                adjoints.append(cotangent(
                    cotangents[self.outputs.index(i)], x))
            elif p.is_array:
                adjoints.append(zeros(x.shape, x))
            else:
                adjoints.append(zeros((1,) + p.element_shape, x))
        return primal + adjoints

    def gradients(self, adjoints):
        """Each parameter's gradient from the adjoint arrays after the
        adjoint's launch (in the order of ``adjoint_of``): the array, or a
        value's one element in its element shape; None for parameters the
        adjoint has no adjoint for."""
        grads = [None] * len(self.params)
        for value, i in zip(adjoints, self.adjoint_of):
            p = self.params[i]
            grads[i] = value if p.is_array else value.reshape(p.element_shape)
        return grads


def _params(info) -> Tuple[Param, ...]:
    return tuple(Param(p["name"], p["dtype"], p["rank"], p["writable"],
                       tuple(p["element_shape"])) for p in info["params"])


def kernel_params(module, kernel: str) -> Tuple[Param, ...]:
    """The parameters of any kernel of ``module`` (a derivative kernel's
    too), as the module describes them."""
    return _params(module.__ksc_kernels__[kernel])


def signature(module, name: str) -> KernelSignature:
    """The signature of kernel ``name`` of ``module`` with its adjoint and
    tangent kernels, if the module has them (``ksc --grad``)."""
    kernels = getattr(module, "__ksc_kernels__", None)
    if kernels is None:
        raise TypeError(f"{module!r} is not a module made by ksc "
                        "--emit=python (it has no __ksc_kernels__)")
    if name not in kernels or kernels[name]["kind"] != "primal":
        primal = sorted(k for k, v in kernels.items()
                        if v["kind"] == "primal")
        raise KeyError(f"{module.__name__} has no kernel '{name}' (its "
                       f"kernels: {', '.join(primal)})")
    info = kernels[name]
    adjoint = tangent = None
    adjoint_of = final_values = tangent_of = ()
    for other, derived in kernels.items():
        if derived.get("primal") != name:
            continue
        if derived["kind"] == "adjoint":
            adjoint = other
            adjoint_of = tuple(derived["primal_of"])
            final_values = tuple(derived["final_value_args"])
        elif derived["kind"] == "tangent" and derived["width"] == 1:
            tangent = other
            tangent_of = tuple(derived["primal_of"])
    return KernelSignature(module, name, _params(info), info["target"],
                           adjoint, adjoint_of, final_values, tangent,
                           tangent_of)
