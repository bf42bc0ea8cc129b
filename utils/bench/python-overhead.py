#!/usr/bin/env python3
"""The cost of calling a ksc kernel from Python (docs/performance.md,
"Calling kernels from Python"): the same saxpy through a module made by
ksc --emit=python (on NumPy arrays and on PyTorch tensors), as a
ksc.torch operator (in place, functional, forward + backward), as a
ksc.jax operation under jax.jit, next to the framework's own operation
and to NVIDIA Warp's wp.launch of the same kernel on its CPU backend.
Each is timed at 1 element (the per-call overhead) and at 1M elements,
in one run; what is not installed is left out.

  python-overhead.py [--ksc build/bin/ksc] [--threads N]

Run it with a Python that has nanobind and NumPy (and PyTorch, JAX, Warp
for their rows). Prints a Markdown table of microseconds per call (the
best of several repeats).
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAXPY = os.path.join(ROOT, "examples", "python", "kernels", "saxpy.kdsl")


def best_us(call, sync=None, min_time=0.2):
    """Microseconds per call: the best of 5 repeats of enough calls to take
    min_time seconds."""
    def run(k):
        for _ in range(k):
            call()
        if sync:
            sync()
    number = 1
    while timeit.timeit(lambda: run(number), number=1) < min_time / 5:
        number *= 2
    times = timeit.repeat(lambda: run(number), number=1, repeat=5)
    return min(times) / number * 1e6


def build_module(ksc, outdir):
    subprocess.run([sys.executable, os.path.join(ROOT, "utils", "python",
                                                 "build-module.py"),
                    ksc, SAXPY, outdir, "bench_saxpy", "--grad"],
                   check=True)
    sys.path.insert(0, outdir)
    import bench_saxpy
    return bench_saxpy


def rows_numpy(mod, n):
    x = np.ones(n, np.float32)
    y = np.ones(n, np.float32)
    yield "NumPy `y += a * x`", best_us(lambda: np.add(y, 2.0 * x, out=y))
    yield "ksc module on NumPy arrays", best_us(lambda: mod.saxpy(2.0, x, y))


def rows_torch(mod, n):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ksc.torch
    x = torch.ones(n)
    y = torch.ones(n)
    yield "torch `y.add_(x, alpha=a)`", best_us(lambda: y.add_(x, alpha=2.0))
    yield "ksc module on torch tensors", best_us(lambda: mod.saxpy(2.0, x, y))
    inplace = ksc.torch.inplace(mod, "saxpy")
    yield "ksc.torch.inplace", best_us(lambda: inplace(2.0, x, y))
    yield "torch `a * x + y`", best_us(lambda: 2.0 * x + y)
    op = ksc.torch.op(mod, "saxpy")
    yield "ksc.torch.op (functional)", best_us(lambda: op(2.0, x, y))
    a = torch.tensor(2.0, requires_grad=True)
    xg = torch.ones(n, requires_grad=True)
    yg = torch.ones(n, requires_grad=True)

    def torch_step():
        (a * xg + yg).sum().backward()

    def ksc_step():
        op(a, xg, yg).sum().backward()
    yield "torch `a * x + y`, forward + backward", best_us(torch_step)
    yield "ksc.torch.op, forward + backward", best_us(ksc_step)


def rows_jax(mod, n):
    import jax
    import jax.numpy as jnp
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ksc.jax
    x = jnp.ones(n, jnp.float32)
    y = jnp.ones(n, jnp.float32)
    plain = jax.jit(lambda a, x, y: a * x + y)
    plain(2.0, x, y).block_until_ready()
    yield "jax.jit `a * x + y`", best_us(
        lambda: plain(2.0, x, y).block_until_ready())
    op = jax.jit(ksc.jax.op(mod, "saxpy"))
    op(2.0, x, y).block_until_ready()
    yield "jax.jit(ksc.jax.op)", best_us(
        lambda: op(2.0, x, y).block_until_ready())


def rows_warp(n):
    import warp as wp
    wp.config.quiet = True
    wp.init()

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]
    x = wp.ones(n, dtype=float, device="cpu")
    y = wp.ones(n, dtype=float, device="cpu")
    wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device="cpu")
    yield "Warp `wp.launch` (CPU)", best_us(
        lambda: wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device="cpu"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ksc", default=os.path.join(ROOT, "build", "bin",
                                                      "ksc"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as outdir:
        mod = build_module(args.ksc, outdir)
        table = {}
        for n in (1, 1 << 20):
            rows = list(rows_numpy(mod, n))
            for name, module in (("torch", rows_torch), ("jax", rows_jax)):
                if importlib.util.find_spec(name):
                    rows += list(module(mod, n))
            if importlib.util.find_spec("warp"):
                rows += list(rows_warp(n))
            for name, us in rows:
                table.setdefault(name, {})[n] = us
    print("| call | 1 element (us) | 1M elements (us) |")
    print("| --- | ---: | ---: |")
    for name, times in table.items():
        print(f"| {name} | {times[1]:.2f} | {times[1 << 20]:.0f} |")


if __name__ == "__main__":
    main()
