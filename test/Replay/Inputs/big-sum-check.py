"""Checks the million-thread sum of gpu-sums.kdsl's big_sum against the
exact sum of its float terms (in double precision): the CPU's total (as
ksc-run printed it) and, through the replay report's largest difference
from it, the GPU's of each code path.

    big-sum-check.py CPU_OUTPUT.json REPORT.json
"""
import json
import struct
import sys


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


exact = 0.0
for i in range(1000):
    exact += f32(f32(float(i)) * f32(0.001))
exact *= 1000

with open(sys.argv[1]) as f:
    cpu = json.load(f)["total"][0]
with open(sys.argv[2]) as f:
    report = json.load(f)
status = 0
for run in report["runs"]:
    if run["case"] != "big_sum":
        continue
    diffs = [c["max_abs_diff"] for c in run["comparisons"]
             if c["array"] == "total"]
    if run["status"] != "pass" or not diffs:
        print("big_sum %s: %s" % (run["via"], run["status"]))
        status = 1
        continue
    bound = abs(cpu - exact) + diffs[0]
    relative = bound / exact
    print("big_sum %s: total within %.3g of the double-precision sum %.1f "
          "(relative %.2g %s 1e-06)" % (run["via"], bound, exact, relative,
                                        "<" if relative < 1e-6 else ">="))
    status = status or relative >= 1e-6
sys.exit(status)
