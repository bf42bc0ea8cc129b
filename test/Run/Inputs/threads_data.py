"""Inputs and expected results of test/Run/threads.kdsl, computed here
without ksc: `threads_data.py WHAT N DIR` writes DIR/WHAT.json (the
inputs) and DIR/WHAT.expected.json (what the launch must give exactly).

Every value is a small integer or a multiple of a power of two, so that
float sums are exact in any order and the expected results are exact.
"""
import json
import os
import sys


def main():
    what, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    x = [float((i * 7) % 13 - 6) for i in range(n)]
    if what == "shifted_adj":
        # y[i] = x[i] * x[i + 1] for i < n - 1, adj_y[i] = 1 + i % 3:
        # adj_x[k] = adj_y[k] * x[k + 1] + adj_y[k - 1] * x[k - 1].
        m = n - 1
        adj_y = [float(1 + i % 3) for i in range(m)]
        adj_x = [0.0] * n
        for i in range(m):
            adj_x[i] += adj_y[i] * x[i + 1]
            adj_x[i + 1] += adj_y[i] * x[i]
        inputs = {"x": x, "y": [0.0] * m}
        adjoints = {"y": adj_y}
        expected = {"x": adj_x}
        json.dump(adjoints, open(os.path.join(out, what + ".adjoints.json"), "w"))
    elif what == "scaled_adj":
        # y[i] = a * x[i] * x[i], adj_y[i] = 1: adj_a = sum of x[i]^2.
        inputs = {"a": 0.5, "x": x, "y": [0.0] * n}
        json.dump({"y": [1.0] * n},
                  open(os.path.join(out, what + ".adjoints.json"), "w"))
        expected = {"a": [sum(v * v for v in x)]}
    elif what == "histogram":
        # counts[b] += 1 and sums[b] += x[i] for b = (i * 5) % 16.
        counts, sums = [0] * 16, [0.0] * 16
        for i in range(n):
            b = (i * 5) % 16
            counts[b] += 1
            sums[b] += x[i]
        inputs = {"x": x, "counts": [0] * 16, "sums": [0.0] * 16}
        expected = {"counts": counts, "sums": sums}
    else:
        sys.exit("unknown " + what)
    json.dump(inputs, open(os.path.join(out, what + ".json"), "w"))
    json.dump(expected, open(os.path.join(out, what + ".expected.json"), "w"))


if __name__ == "__main__":
    main()
