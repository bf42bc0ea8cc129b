#!/usr/bin/env python3
"""Compile latency of `ksc --target=cuda --emit=ptx --grad` against
`nvcc -ptx` of the same kernels and adjoints written by hand in CUDA.

    utils/bench/run-ptx-latency.py [--ksc KSC] [--nvcc NVCC] [--repeat N]
                                    [--arch sm_80]

For every kernel K in utils/bench/ptx/ (K.kdsl and K.cu), runs each
compiler N times (default 10) one after another, writing the PTX to a
temporary file, and prints the median wall time of each and their ratio
(ksc / nvcc; the target is at most 0.2) as a Markdown table, then the
median of the ratios. Both compile for the same architecture; ksc includes
its frontend (Clang), the AD passes, LLVM's -O3 and the NVPTX backend, nvcc
its preprocessing of the CUDA headers, cicc and no ptxas (-ptx).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def median_seconds(command, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ksc", default=os.path.join(ROOT, "build", "bin",
                                                      "ksc"))
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or
                        os.path.join(cuda, "bin", "nvcc"))
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--arch", default="sm_80")
    args = parser.parse_args()
    for tool in (args.ksc, args.nvcc):
        if not os.access(tool, os.X_OK):
            sys.exit("run-ptx-latency.py: %s is not an executable" % tool)

    kernels = sorted(name[:-5] for name in os.listdir(os.path.join(HERE, "ptx"))
                     if name.endswith(".kdsl"))
    ratios = []
    print("| kernel | ksc --emit=ptx --grad (ms) | nvcc -ptx (ms) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.ptx")
        for kernel in kernels:
            source = os.path.join(HERE, "ptx", kernel)
            ksc = median_seconds(
                [args.ksc, source + ".kdsl", "--target=cuda", "--emit=ptx",
                 "--grad", "--gpu-arch=" + args.arch, "-o", out], args.repeat)
            nvcc = median_seconds(
                [args.nvcc, "-ptx", "-arch=" + args.arch, source + ".cu",
                 "-o", out], args.repeat)
            ratios.append(ksc / nvcc)
            print("| %s | %.1f | %.1f | %.3f |"
                  % (kernel, ksc * 1e3, nvcc * 1e3, ksc / nvcc))
    print("\nmedian ratio ksc / nvcc: %.3f (target <= 0.2)"
          % statistics.median(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
