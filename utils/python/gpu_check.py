#!/usr/bin/env python3
"""The Python part of the GPU check (utils/gpu-check.sh; docs/python.md):
a module of CUDA kernels (examples/python's, built by gpu-module.sh on the
GPU machine) called on PyTorch and CuPy arrays in device memory: values
against the frameworks' own, ksc.torch's gradients (the loop kernel whose
gradient NVIDIA Warp gets wrong, torch.autograd.gradcheck), a non-default
stream, torch.compile without graph breaks, a CPU tensor refused; then the
per-call overhead against PyTorch's own operations (a Markdown table).

Prints one line per check (PASS or FAIL); exits 0 when all passed, 1 when
one failed, 77 without a GPU.
"""

import sys
import time
import traceback

import kernels_cuda as k

failures = []


def check(name, body):
    try:
        body()
    except Exception:  # noqa: BLE001 - every failure is reported
        failures.append(name)
        print(f"FAIL {name}")
        traceback.print_exc(file=sys.stdout)
    else:
        print(f"PASS {name}")


def torch_checks(torch):
    import ksc.torch
    dev = torch.device("cuda")

    def saxpy_values():
        x = torch.randn(1000, device=dev)
        y = torch.randn(1000, device=dev)
        want = 2.5 * x + y
        k.saxpy(2.5, x, y, stream=torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        torch.testing.assert_close(y, want)

    def loop_gradient():
        product = ksc.torch.op(k, "product")
        x = torch.full((3,), 2.0, dtype=torch.float64, device=dev,
                       requires_grad=True)
        product(x, 3, torch.ones(1, dtype=torch.float64, device=dev),
                torch.zeros(1, dtype=torch.float64, device=dev)
                ).sum().backward()
        assert x.grad.tolist() == [4.0, 4.0, 4.0], x.grad

    def gradcheck():
        product = ksc.torch.op(k, "product")
        x = (torch.rand(5, dtype=torch.float64, device=dev) + 0.5
             ).requires_grad_()
        s = torch.randn(300, dtype=torch.float64, device=dev,
                        requires_grad=True)
        o = torch.randn(300, dtype=torch.float64, device=dev,
                        requires_grad=True)
        assert torch.autograd.gradcheck(lambda x, s, o: product(x, 4, s, o),
                                        (x, s, o))

    def side_stream():
        saxpy = ksc.torch.op(k, "saxpy")
        x = torch.randn(1 << 20, device=dev)
        y = torch.randn(1 << 20, device=dev)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            out = saxpy(3.0, x, y)
        torch.cuda.current_stream().wait_stream(stream)
        torch.testing.assert_close(out, 3.0 * x + y)

    def compiled():
        saxpy = ksc.torch.op(k, "saxpy")
        a = torch.tensor(2.0, device=dev, requires_grad=True)
        x = torch.randn(256, device=dev, requires_grad=True)
        y = torch.randn(256, device=dev, requires_grad=True)

        def step(a, x, y):
            return (saxpy(a, x, y) ** 2).sum()
        eager = torch.autograd.grad(step(a, x, y), (a, x, y))
        f = torch.compile(step, fullgraph=True, backend="aot_eager")
        graph = torch.autograd.grad(f(a, x, y), (a, x, y))
        for e, g in zip(eager, graph):
            torch.testing.assert_close(e, g)

    def cpu_refused():
        try:
            k.saxpy(2.0, torch.ones(4), torch.ones(4))
        except ValueError as e:
            assert "CUDA device memory" in str(e), e
        else:
            raise AssertionError("a CPU tensor was taken")

    for name, body in [("torch saxpy values", saxpy_values),
                       ("torch loop gradient [4, 4, 4]", loop_gradient),
                       ("torch gradcheck (float64, CUDA)", gradcheck),
                       ("torch non-default stream", side_stream),
                       ("torch.compile fullgraph", compiled),
                       ("torch CPU tensor refused", cpu_refused)]:
        check(name, body)


def cupy_checks(cupy):
    def saxpy_values():
        x = cupy.random.standard_normal(1000, dtype=cupy.float32)
        y = cupy.random.standard_normal(1000, dtype=cupy.float32)
        want = 2.5 * x + y
        k.saxpy(2.5, x, y, stream=cupy.cuda.get_current_stream())
        cupy.cuda.get_current_stream().synchronize()
        assert float(cupy.abs(y - want).max()) < 1e-5
    check("cupy saxpy values", saxpy_values)


def overhead(torch):
    """Microseconds per call (best of 5), synchronized at the end."""
    import ksc.torch
    dev = torch.device("cuda")
    op = ksc.torch.op(k, "saxpy")

    def timed(call):
        best = float("inf")
        for _ in range(5):
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(200):
                call()
            torch.cuda.synchronize()
            best = min(best, (time.perf_counter() - start) / 200 * 1e6)
        return best

    rows = {}
    for n in (1, 1 << 20):
        x = torch.ones(n, device=dev)
        y = torch.ones(n, device=dev)
        a = torch.tensor(2.0, device=dev, requires_grad=True)
        xg = torch.ones(n, device=dev, requires_grad=True)
        yg = torch.ones(n, device=dev, requires_grad=True)
        stream = torch.cuda.current_stream().cuda_stream
        cases = [
            ("torch `y.add_(x, alpha=a)`", lambda: y.add_(x, alpha=2.0)),
            ("ksc module on torch tensors",
             lambda: k.saxpy(2.0, x, y, stream=stream)),
            ("torch `a * x + y`", lambda: 2.0 * x + y),
            ("ksc.torch.op (functional)", lambda: op(2.0, x, y)),
            ("torch `a * x + y`, forward + backward",
             lambda: (a * xg + yg).sum().backward()),
            ("ksc.torch.op, forward + backward",
             lambda: op(a, xg, yg).sum().backward()),
        ]
        for name, call in cases:
            call()
            rows.setdefault(name, {})[n] = timed(call)
    print("| call (CUDA) | 1 element (us) | 1M elements (us) |")
    print("| --- | ---: | ---: |")
    for name, times in rows.items():
        print(f"| {name} | {times[1]:.2f} | {times[1 << 20]:.1f} |")


def main():
    try:
        import torch
        has_torch = torch.cuda.is_available()
    except ImportError:
        torch, has_torch = None, False
    try:
        import cupy
        has_cupy = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, or no device
        cupy, has_cupy = None, False
    if not has_torch and not has_cupy:
        print("gpu_check: no GPU through PyTorch or CuPy")
        return 77
    if has_torch:
        print("device:", torch.cuda.get_device_name(), "torch",
              torch.__version__)
        torch_checks(torch)
    if has_cupy:
        cupy_checks(cupy)
    if has_torch:
        check("overhead", lambda: overhead(torch))
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
