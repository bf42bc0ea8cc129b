#!/usr/bin/env python3
"""The Warp column of the CPU throughput benchmark (run-cpu-bench.sh).

The kernels of grad-kernels.kdsl and stream.kdsl written in NVIDIA Warp,
timed on Warp's "cpu" device with the sizes of cpu_bench.h: K as one
wp.launch, K_adj as tape.backward() of a wp.Tape that recorded that launch
(the output's adjoint seeded, untimed, before every run). Inputs a kernel
overwrites are restored untimed before every run. Prints JSON on stdout:

    {"_runs": R, "_launch_us": us, "saxpy": {"K": us, "K_adj": us}, ...}

("_launch_us": a wp.launch of one thread, what Warp's Python API adds to
every launch.)

each time the median of R runs in microseconds, after warm-up runs (the
first compiles the kernels). A kernel Warp cannot run or differentiate is
left out (with a message on stderr).

    warp_cpu_bench.py [--filter=REGEX] [--runs=R]

--filter takes a Google Benchmark filter: a kernel runs when the regex
matches its name, or "<name>/K" or "<name>/K_adj"; a leading "-" negates.
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

import numpy as np
import warp as wp

THREADS = 1 << 14
BODIES = 256
TERMS = 64
STREAM_THREADS = 1 << 22


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def integrate(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3),
              mass: wp.array(dtype=float), gravity: wp.vec3, dt: float):
    i = wp.tid()
    v = vel[i]
    p = pos[i]
    drag = 0.1 / mass[i]
    v = v + (gravity - v * drag) * dt
    p = p + v * dt
    if p[1] < 0.0:
        p = wp.vec3(p[0], -p[1], p[2])
        v = wp.vec3(v[0], -0.8 * v[1], v[2])
    pos[i] = p
    vel[i] = v


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float),
          force: wp.array(dtype=wp.vec3), n: int):
    i = wp.tid()
    p = pos[i]
    f = wp.vec3(0.0)
    for j in range(n):
        r = pos[j] - p
        d2 = wp.dot(r, r) + 0.01
        f += r * (mass[j] / (d2 * wp.sqrt(d2)))
    force[i] = f * mass[i]


@wp.kernel
def transform(m: wp.array(dtype=wp.mat33), x: wp.array(dtype=wp.vec3),
              b: wp.vec3, y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = m[i]
    u = a @ x[i] + b
    y[i] = wp.transpose(a) @ u


@wp.kernel
def horner(coeff: wp.array(dtype=float), x: wp.array(dtype=float),
           y: wp.array(dtype=float), n: int):
    i = wp.tid()
    t = x[i]
    s = float(0.0)
    for k in range(n):
        s = s * t + coeff[k]
    y[i] = s


@wp.kernel
def newton_sqrt(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    t = v
    steps = int(0)
    while wp.abs(t * t - v) > 1.0e-5 * v and steps < 50:
        t = 0.5 * (t + v / t)
        steps += 1
    y[i] = t


@wp.kernel
def stream_triad(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float,
                 c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = a[i] + s * b[i]


@wp.kernel
def empty(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 0.0


def values(rng, shape, lo, hi):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def setups(device):
    """name -> (kernel, dim, inputs, output to seed, restore) per kernel,
    the arrays made on the device with requires_grad."""
    rng = np.random.default_rng(42)

    def arr(data, dtype=float):
        return wp.array(data, dtype=dtype, device=device, requires_grad=True)

    def restore(*pairs):
        return lambda: [a.assign(v) for a, v in pairs]

    def saxpy_setup():
        x = arr(values(rng, THREADS, -1, 1))
        y0 = values(rng, THREADS, -1, 1)
        y = arr(y0)
        return saxpy, THREADS, [2.0, x, y], y, restore((y, y0))

    def integrate_setup():
        p0 = values(rng, (THREADS, 3), 0, 1)
        v0 = values(rng, (THREADS, 3), -1, 1)
        p, v = arr(p0, wp.vec3), arr(v0, wp.vec3)
        m = arr(values(rng, THREADS, 1, 2))
        return (integrate, THREADS, [p, v, m, wp.vec3(0.0, -9.8, 0.0), 0.01],
                p, restore((p, p0), (v, v0)))

    def nbody_setup():
        pos = arr(values(rng, (THREADS, 3), -1, 1), wp.vec3)
        m = arr(values(rng, THREADS, 1, 2))
        f = arr(np.zeros((THREADS, 3), np.float32), wp.vec3)
        return nbody, THREADS, [pos, m, f, BODIES], f, restore()

    def transform_setup():
        m = arr(values(rng, (THREADS, 3, 3), -1, 1), wp.mat33)
        x = arr(values(rng, (THREADS, 3), -1, 1), wp.vec3)
        y = arr(np.zeros((THREADS, 3), np.float32), wp.vec3)
        return (transform, THREADS, [m, x, wp.vec3(1.0, 2.0, 3.0), y], y,
                restore())

    def horner_setup():
        c = arr(values(rng, TERMS, -1, 1))
        x = arr(values(rng, THREADS, -1, 1))
        y = arr(np.zeros(THREADS, np.float32))
        return horner, THREADS, [c, x, y, TERMS], y, restore()

    def newton_setup():
        x = arr(values(rng, THREADS, 0.5, 100))
        y = arr(np.zeros(THREADS, np.float32))
        return newton_sqrt, THREADS, [x, y], y, restore()

    def stream_setup():
        a = arr(values(rng, STREAM_THREADS, -1, 1))
        b = arr(values(rng, STREAM_THREADS, -1, 1))
        c = arr(np.zeros(STREAM_THREADS, np.float32))
        return stream_triad, STREAM_THREADS, [a, b, 3.0, c], c, restore()

    return {"saxpy": saxpy_setup, "integrate": integrate_setup,
            "nbody": nbody_setup, "transform": transform_setup,
            "horner": horner_setup, "newton_sqrt": newton_setup,
            "stream_triad": stream_setup}


def median_us(run, reset, runs, warmup=3):
    times = []
    for k in range(warmup + runs):
        reset()
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        if k >= warmup:
            times.append(elapsed * 1e6)
    return statistics.median(times)


def selected(name, pattern):
    if not pattern:
        return True
    negate = pattern.startswith("-")
    regex = re.compile(pattern[1:] if negate else pattern)
    hit = any(regex.search(n) for n in (name, name + "/K", name + "/K_adj"))
    return hit != negate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="")
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()

    # Warp prints its banner and messages on stdout: send them to stderr,
    # stdout is for the JSON.
    sys.stdout.flush()
    json_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    wp.config.quiet = True
    wp.init()
    device = "cpu"
    out = {"_runs": args.runs}
    # What wp.launch costs from Python: a launch of one thread.
    x = wp.zeros(1, dtype=float, device=device)
    out["_launch_us"] = median_us(
        lambda: (wp.launch(empty, dim=1, inputs=[x], device=device),
                 wp.synchronize_device(device)), lambda: None, args.runs)
    for name, setup in setups(device).items():
        if not selected(name, args.filter):
            continue
        kernel, dim, inputs, output, restore = setup()
        result = {}

        def forward():
            wp.launch(kernel, dim=dim, inputs=inputs, device=device)
            wp.synchronize_device(device)

        try:
            result["K"] = median_us(forward, restore, args.runs)
            restore()
            tape = wp.Tape()
            with tape:
                wp.launch(kernel, dim=dim, inputs=inputs, device=device)
            seed = np.random.default_rng(7).uniform(
                -1, 1, size=output.grad.numpy().shape).astype(np.float32)

            def backward():
                tape.backward()
                wp.synchronize_device(device)

            result["K_adj"] = median_us(
                backward, lambda: output.grad.assign(seed), args.runs)
        except Exception as error:  # Warp cannot run or differentiate it
            print("warp_cpu_bench: %s: %s" % (name, error), file=sys.stderr)
        if result:
            out[name] = result
    sys.stdout.flush()
    json.dump(out, json_out, indent=1)
    json_out.write("\n")
    json_out.close()


if __name__ == "__main__":
    main()
