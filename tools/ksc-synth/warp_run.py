#!/usr/bin/env python3
"""Run NVIDIA Warp kernels on Warp's CPU backend with ksc-run's JSON data.

Usage: warp_run.py JOBS.jsonl RESULTS.jsonl

Each line of JOBS.jsonl is one job:

  {"id": ANY, "module": "/path/k.py", "kernel": "name", "dim": [N] | [N, M] | [N, M, K],
   "inputs": {arg: value, ...},          # exactly ksc-run's --inputs object
   "adjoints": {arg: value, ...},        # optional: also run reverse mode
   "wrt": ["arg", ...],                  # optional: whose .grad to report
   "adjoint_mode": "before" | "tape",    # optional, see below
   "arguments": ["name", ...]}           # optional: the data's names of the
                                         # kernel's parameters, in order

For every job one line is written to RESULTS.jsonl, in the order of the jobs:

  {"id": ANY, "outputs": {arg: value}}                       # every array argument
  {"id": ANY, "outputs": {...}, "adjoints": {arg: value}}    # with "adjoints"
  {"id": ANY, "error": "ExceptionType: first line of the message"}

Values are read and printed as ksc-run reads and prints them: scalars as
numbers (true/false for bool), vectors as [x, y, z], matrices as lists of
rows, quaternions as [x, y, z, w], structs as objects by field (in
declaration order), arrays as nested lists; NaN and infinities as the strings
"nan", "inf", "-inf"; float32 values with the fewest digits that read back
exactly. An array input may also be a generator {"random": "uniform"|"normal",
"shape": [...], "seed", "low", "high", "mean", "std"} (the same numbers as
ksc-run: SplitMix64) or a strided view {"data": [...], "shape": [...],
"strides": [...], "offset": 0}, printed back in the same form.

Reverse mode makes the inputs afresh, with requires_grad on every array of
float, double, vectors, matrices or structs with such a field, and sets the
output adjoints ("adjoints": arrays only, missing ones zero, struct fields
without derivatives may be left out) as the arrays' .grad. Then, by default
("before"), it launches Warp's adjoint kernel (wp.launch(adjoint=True), the
launch tape.backward() makes) on the inputs as they were before the launch,
as ksc-run launches K_adj. With "adjoint_mode": "tape" it launches the kernel
under wp.Tape() and calls tape.backward(), Warp's usual way, whose adjoint
kernel then sees the arrays as the launch left them (a kernel that reads an
array it writes, or advances random states kept in an array, gets other
adjoints than ksc-run's). "adjoints" in the result holds the .grad of the
arrays named in "wrt" (default: every array with a gradient), like
ksc-run --grad=reverse --adjoints=... (which also prints scalar arguments'
adjoints as lists of one element: Warp has none, so scalars are skipped).

Warp is kept quiet (what its native code prints goes to stderr) and caches
its compiled kernels in $KSC_WARP_CACHE when set. A job's error does not stop
the batch. Results go to RESULTS.jsonl.tmp, flushed line by line (a crash
leaves the finished lines there), then renamed to RESULTS.jsonl. Exit status:
0 when the batch ran, 2 on bad usage or an unreadable JOBS file.
"""

import hashlib
import importlib.util
import json
import math
import os
import sys

import numpy as np

wp = None  # warp, imported by init_warp() after the arguments are checked


def init_warp():
    global wp
    import warp

    wp = warp
    wp.config.quiet = True  # Warp before 1.10; later ones have log_level
    if hasattr(wp, "LOG_ERROR"):
        wp.config.log_level = wp.LOG_ERROR
    if os.environ.get("KSC_WARP_CACHE"):
        wp.config.kernel_cache_dir = os.environ["KSC_WARP_CACHE"]
    wp.init()


# Element types: scalars, composites (vectors, matrices, quaternions: a
# scalar type and a shape) and structs (fields in t.vars, in order).
def is_struct(t):
    return wp.types.type_is_struct(t)


def is_composite(t):
    return hasattr(t, "_wp_scalar_type_") and hasattr(t, "_shape_")


def scalar_of(t):
    return t._wp_scalar_type_ if is_composite(t) else t


def np_dtype(t):
    return np.dtype(t.numpy_dtype() if is_struct(t) else wp.dtype_to_numpy(scalar_of(t)))


def elem_shape(t):  # the numpy dimensions an element adds (structs: none)
    return tuple(t._shape_) if is_composite(t) else ()


def has_grad(t):
    if is_struct(t):
        return any(has_grad(v.type) for v in t.vars.values())
    return wp.types.type_is_float(scalar_of(t))


# ----------------------------------------------------- JSON -> values

def number(t, v):
    if v in ("nan", "inf", "-inf"):
        v = float(v)
    if t is wp.bool:
        if v in (True, False, 0, 1):
            return bool(v)
        raise ValueError(f"expected true, false, 0 or 1, got {v!r}")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {v!r}")
    return float(v) if wp.types.type_is_float(t) else int(v)


def nested(v, f, depth):
    if depth == 0:
        return f(v)
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {json.dumps(v)}")
    return [nested(x, f, depth - 1) for x in v]


def element(t, v, partial=False):
    """One element as numpy takes it: a number, nested lists, a struct's tuple.
    partial: a struct may leave out the fields without derivatives (adjoints)."""
    if is_struct(t):
        if not isinstance(v, dict) or set(v) - set(t.vars):
            raise ValueError(f"expected an object with the fields {', '.join(t.vars)}, got {json.dumps(v)}")
        out = []
        for name, var in t.vars.items():
            if name in v:
                out.append(element(var.type, v[name], partial))
            elif partial and not has_grad(var.type):
                out.append(np.zeros((), np_dtype(var.type)).item() if is_struct(var.type)
                           else np.zeros(elem_shape(var.type), np_dtype(var.type)).tolist())
            else:
                raise ValueError(f"missing field {name!r}")
        return tuple(out)
    if is_composite(t):
        a = np.array(nested(v, lambda x: number(scalar_of(t), x), len(t._shape_)), dtype=object)
        if a.shape != elem_shape(t):
            raise ValueError(f"expected a {wp.types.type_repr(t)} of shape {elem_shape(t)}, got {json.dumps(v)}")
        return a.tolist()
    return number(t, v)


def array_of(t, shape, data):
    a = np.array(data, dtype=np_dtype(t)) if math.prod(shape) else np.zeros(0, np_dtype(t))
    return a.reshape(tuple(shape) + elem_shape(t))


def to_numpy(t, ndim, v, partial=False):
    shape, x = [], v
    for _ in range(ndim):  # the extents, from the first element of each level
        shape.append(len(x) if isinstance(x, list) else 0)
        x = x[0] if isinstance(x, list) and x else []
    return array_of(t, shape, nested(v, lambda e: element(t, e, partial), ndim))


def splitmix64(seed):
    """ksc's generator of {"random": ...} inputs (include/ksc/Support/SplitMix64.h)."""
    m, state = 2**64 - 1, int(seed) % 2**64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & m
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        yield ((z ^ (z >> 31)) >> 11) * 2.0**-53  # uniform in [0, 1)


def random_numpy(t, ndim, spec):
    shape = [int(n) for n in spec["shape"]]
    if len(shape) != ndim:
        raise ValueError(f"a random input needs a shape of {ndim} extents")
    rng, normal = splitmix64(spec.get("seed", 0)), spec["random"] == "normal"
    lo, hi, mean, std = (spec.get(k, d) for k, d in (("low", 0), ("high", 1), ("mean", 0), ("std", 1)))

    def draw(t):  # every scalar of an element in order, as ksc-run draws them
        if is_struct(t):
            return tuple(draw(var.type) for var in t.vars.values())
        if is_composite(t):
            flat = [draw(scalar_of(t)) for _ in range(math.prod(t._shape_))]
            return np.array(flat, dtype=object).reshape(t._shape_).tolist()
        if t is wp.bool:
            return next(rng) < 0.5
        if normal:  # Box-Muller, as SplitMix64::normal()
            u1, u2 = 1.0 - next(rng), next(rng)
            u = mean + std * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
        else:
            u = lo + (hi - lo) * next(rng)
        return u if wp.types.type_is_float(t) else math.floor(u)

    return array_of(t, shape, [draw(t) for _ in range(math.prod(shape))])


def make_array(t, ndim, v, grad):
    """A Warp array for a JSON value: (array, base array of a strided view or None)."""
    if isinstance(v, dict) and "data" in v:
        base = wp.array(to_numpy(t, 1, v["data"]), dtype=t, device="cpu")
        shape, strides, offset = tuple(v["shape"]), tuple(v["strides"]), v.get("offset", 0)
        if len(shape) != ndim or len(strides) != ndim:
            raise ValueError(f"a strided view needs {ndim} extents and strides")
        if 0 in shape:
            return wp.zeros(shape, dtype=t, device="cpu"), base
        reach = [offset + sum(min(0, s * (n - 1)) for n, s in zip(shape, strides)),
                 offset + sum(max(0, s * (n - 1)) for n, s in zip(shape, strides))]
        if reach[0] < 0 or reach[1] >= base.shape[0]:
            raise ValueError(f"the view reaches element {reach[0] if reach[0] < 0 else reach[1]} of \"data\"")
        size = base.strides[0]
        return wp.array(ptr=base.ptr + offset * size, dtype=t, shape=shape,
                        strides=tuple(s * size for s in strides), device="cpu"), base
    a = random_numpy(t, ndim, v) if isinstance(v, dict) and "random" in v else to_numpy(t, ndim, v)
    return wp.array(a, dtype=t, shape=a.shape[:ndim], device="cpu", requires_grad=grad), None


def make_value(t, v):
    """A scalar, vector, matrix, quaternion or struct argument."""
    if is_struct(t):
        if not isinstance(v, dict) or set(v) != set(t.vars):
            raise ValueError(f"expected an object with the fields {', '.join(t.vars)}, got {json.dumps(v)}")
        s = t()
        for name, var in t.vars.items():
            setattr(s, name, make_value(var.type, v[name]))
        return s
    if is_composite(t):
        return t(*np.asarray(element(t, v), dtype=np_dtype(t)).flatten().tolist())
    x = number(t, v)
    return x if t in (wp.float32, wp.int32, wp.bool) else t(x)


# ----------------------------------------------------- values -> JSON

def out_number(t, x):
    if t is wp.bool:
        return bool(x)
    if not wp.types.type_is_float(t):
        return int(x)
    if math.isnan(x) or math.isinf(x):
        return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"
    # A float32 as the shortest decimal that reads back as it (as ksc-run).
    return float(str(np.float32(x))) if t is wp.float32 else float(x)


def out_element(t, x):
    if is_struct(t):
        return {name: out_element(var.type, x[name]) for name, var in t.vars.items()}
    if is_composite(t):
        return nested(np.asarray(x).tolist(), lambda c: out_number(scalar_of(t), c), len(t._shape_))
    return out_number(t, x)


def out_nd(a, ndim, f):
    return f(a) if ndim == 0 else [out_nd(x, ndim - 1, f) for x in a]


# ----------------------------------------------------------- jobs

_modules = {}


def load_module(path):
    """Imports a module file under a name made from its content: a fresh name
    for new code, the same module (and Warp kernel-cache entry) for the same."""
    with open(path, "rb") as f:
        name = "ksc_warp_" + hashlib.sha256(f.read()).hexdigest()[:16]
    if name not in _modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # Warp resolves the code's names through it
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _modules[name] = module
    return _modules[name]


def argument_names(kernel, job):
    """The data's name of each kernel parameter: the job's "arguments" in
    order (ksc --emit=warp renames parameters Python reserves: `lambda`
    is `lambda_`), else the parameters' own names."""
    names = job.get("arguments") or [a.label for a in kernel.adj.args]
    if len(names) != len(kernel.adj.args):
        raise ValueError(f"{len(names)} argument names for {len(kernel.adj.args)} parameters")
    return names


def build_args(kernel, names, inputs, grad):
    """The launch's arguments, and {name: (array, base, type, ndim)} of the arrays."""
    unknown = set(inputs) - set(names)
    if unknown:
        raise ValueError(f"no kernel argument {sorted(unknown)[0]!r}")
    args, arrays = [], {}
    for a, name in zip(kernel.adj.args, names):
        if name not in inputs:
            raise ValueError(f"no input for argument {name!r}")
        try:
            if wp.types.is_array(a.type):
                t, nd = a.type.dtype, a.type.ndim
                arr, base = make_array(t, nd, inputs[name], grad and has_grad(t))
                arrays[name] = (arr, base, t, nd)
                args.append(arr)
            else:
                args.append(make_value(a.type, inputs[name]))
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"argument {name!r}: {e}") from None
    return args, arrays


def run_job(job):
    kernel = getattr(load_module(job["module"]), job["kernel"])
    if not isinstance(kernel, wp.Kernel):
        raise TypeError(f"{job['kernel']!r} is not a Warp kernel")
    dim = tuple(int(n) for n in job["dim"])
    if not 1 <= len(dim) <= 3:
        raise ValueError(f"dim must have 1 to 3 extents, got {job['dim']!r}")
    names = argument_names(kernel, job)
    args, arrays = build_args(kernel, names, job["inputs"], False)
    wp.launch(kernel, dim=dim, inputs=args, device="cpu")
    wp.synchronize_device("cpu")
    outputs = {}
    for name, (arr, base, t, nd) in arrays.items():
        if base is None:
            outputs[name] = out_nd(arr.numpy(), nd, lambda x: out_element(t, x))
        else:  # a strided view: the whole of data, the rest as given
            spec = job["inputs"][name]
            outputs[name] = dict(spec, data=out_nd(base.numpy(), 1, lambda x: out_element(t, x)))
    result = {"id": job.get("id"), "outputs": outputs}
    if "adjoints" not in job:
        return result

    args, arrays = build_args(kernel, names, job["inputs"], True)  # fresh inputs
    scalars = {name for a, name in zip(kernel.adj.args, names)
               if not wp.types.is_array(a.type)}
    graded = {n: a for n, a in arrays.items() if a[0].grad is not None}
    for name, v in job["adjoints"].items():
        if name in scalars:
            continue  # Warp has no adjoints of scalar arguments
        if name not in graded:
            raise ValueError(f"adjoint of {name!r}: not an array argument with a gradient")
        arr, _, t, nd = graded[name]
        g = to_numpy(t, nd, v, partial=True)
        if g.shape[:nd] != arr.shape:
            raise ValueError(f"adjoint of {name!r}: shape {g.shape[:nd]}, the array's is {arr.shape}")
        arr.grad.assign(g)
    mode = job.get("adjoint_mode", "before")
    tape = wp.Tape()
    if mode == "tape":  # Warp's usual way: backward() after the launch
        with tape:
            wp.launch(kernel, dim=dim, inputs=args, device="cpu")
        tape.backward()
    elif mode == "before":  # ksc-run's: the adjoint sees the inputs before the launch
        adj_args = [tape.get_adjoint(a) for a in args]
        wp.launch(kernel, dim=dim, inputs=args, adj_inputs=adj_args, adjoint=True, device="cpu")
    else:
        raise ValueError(f"adjoint_mode must be \"before\" or \"tape\", got {mode!r}")
    wp.synchronize_device("cpu")
    result["adjoints"] = {}
    for name in job.get("wrt", list(graded)):
        if name in scalars:
            continue
        if name not in graded:
            raise ValueError(f"wrt {name!r}: not an argument with a gradient")
        arr, _, t, nd = graded[name]
        result["adjoints"][name] = out_nd(arr.grad.numpy(), nd, lambda x: out_element(t, x))
    return result


def one_line(e):
    """The exception's type and the first line of its message, and the last
    line when there are more (Warp's codegen errors end with the reason)."""
    text = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], str) else str(e)
    lines = [s.strip() for s in text.splitlines() if s.strip()]
    if len(lines) > 1:
        lines = [lines[0], lines[-1].lstrip(";")]
    return f"{type(e).__name__}: {' ... '.join(lines)}".rstrip(": ")


def main(argv):
    if any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__)
        return 0
    if len(argv) != 3:
        print("usage: warp_run.py JOBS.jsonl RESULTS.jsonl (--help: the protocol)", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        print(f"warp_run.py: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.dup2(2, 1)  # what Warp's native code prints goes to stderr
    init_warp()
    tmp = argv[2] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for line_number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            job_id = None
            try:
                job = json.loads(line)
                if not isinstance(job, dict):
                    raise ValueError(f"line {line_number} is not a JSON object")
                job_id = job.get("id")
                result = run_job(job)
            except Exception as e:  # one job's error, not the batch's
                result = {"id": job_id, "error": one_line(e)}
            out.write(json.dumps(result, allow_nan=False) + "\n")
            out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
