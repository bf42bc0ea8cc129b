"""Writes the inputs of a kernel of gpu-sums.kdsl for a grid of DIM
threads, as ksc-run's --inputs JSON, on stdout; with --adjoints, output
adjoints for --grad instead (--adjoints).

    gpu-sums-inputs.py KERNEL DIM [--adjoints]
"""
import json
import math
import sys

kernel, dim = sys.argv[1], int(sys.argv[2])
# Values in (-1, -0.2] and [0.2, 1): away from the kernels' branches at 0,
# where finite differences would cross them.
x = [round(math.copysign(0.2 + 0.8 * abs(math.sin(1.7 * i + 0.3)),
                         math.sin(1.7 * i + 0.3)), 4) for i in range(dim)]
bins = [(7 * i) % 5 for i in range(dim)]
if kernel == "scale":
    inputs = {"a": 1.5, "x": x, "y": [0.0] * dim}
elif kernel == "horner":
    inputs = {"c": [0.5, -0.25, 0.125, 1.0, -0.5, 0.75, 0.3, -0.1],
              "x": x, "y": [0.0] * dim}
elif kernel == "gather":
    inputs = {"bin": bins, "x": x[:5], "w": 0.75, "y": [0.0] * dim}
elif kernel == "pull":
    inputs = {"p": [[x[i], x[(i + 1) % dim], x[(i + 2) % dim]]
                    for i in range(dim)],
              "g": [0.0, -9.8, 0.0], "s": {"k": 2.0, "rest": [0.1, 0.2, 0.3]},
              "dt": 0.01}
elif kernel == "stats":
    inputs = {"x": x, "bin": bins, "moments": [0.0, 0.0],
              "hist": [0.0] * 5, "count": [0], "last": [0]}
elif kernel == "drift":
    inputs = {"p": [[x[i], x[(i + 1) % dim], x[(i + 2) % dim]]
                    for i in range(dim)],
              "v": [0.5, -1.0, 0.25], "dt": 0.01, "s": 1.25, "q": x}
elif kernel == "big_sum":
    inputs = {"total": [0.0]}
else:
    sys.exit("unknown kernel " + kernel)
if sys.argv[3:] == ["--adjoints"]:
    # Every writable array's adjoint: a value per component that varies.
    def adjoint(value, k):
        if isinstance(value, list):
            return [adjoint(v, k + 7 * i) for i, v in enumerate(value)]
        return round(math.cos(0.9 * k), 3)
    outputs = {"scale": ["y"], "horner": ["y"], "gather": ["y"],
               "pull": ["p"], "stats": ["moments", "hist"], "drift": ["p", "q"],
               "big_sum": []}
    inputs = {name: adjoint(inputs[name], 1) for name in outputs[kernel]}
json.dump(inputs, sys.stdout)
