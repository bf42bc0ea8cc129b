#!/usr/bin/env python3
"""Expected values of test/Run/quaternions.kdsl, computed independently of
ksc in double precision from the inputs rounded to float with the formulas of NVIDIA Warp's quat.h (as
documented in docs/language.md). Prints the JSON object the test expects.
"""
import json
import math
import struct


def f32(x):
    """x rounded to float, as the kernels read their float inputs."""
    return struct.unpack("f", struct.pack("f", x))[0]


inputs = json.load(open(__file__.replace("quat_reference.py", "quaternions.json")))
for name in ("axis", "angle", "v", "r"):
    inputs[name] = [[f32(c) for c in x] if isinstance(x, list) else f32(x)
                    for x in inputs[name]]


def from_axis_angle(axis, angle):
    half = angle * 0.5
    s = math.sin(half)
    return [axis[0] * s, axis[1] * s, axis[2] * s, math.cos(half)]


def mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [aw * bx + bw * ax + ay * bz - by * az,
            aw * by + bw * ay + az * bx - bz * ax,
            aw * bz + bw * az + ax * by - bx * ay,
            aw * bw - ax * bx - ay * by - az * bz]


def rotate(q, v, sign=1.0):
    c = 2 * q[3] * q[3] - 1
    d = 2 * (q[0] * v[0] + q[1] * v[1] + q[2] * v[2])
    cr = [q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
          q[0] * v[1] - q[1] * v[0]]
    return [v[i] * c + q[i] * d + sign * cr[i] * q[3] * 2 for i in range(3)]


def normalize(q):
    length = math.sqrt(sum(c * c for c in q))
    return [c / length for c in q] if length > 0 else [0.0, 0.0, 0.0, 1.0]


out = {"rotated": [], "back": [], "product": [], "matrix": [], "scalars": []}
for axis, angle, v, r in zip(inputs["axis"], inputs["angle"], inputs["v"],
                             inputs["r"]):
    q = from_axis_angle(axis, angle)
    rn = normalize(r)
    rotated = rotate(q, v)
    out["rotated"].append(rotated)
    out["back"].append(rotate(q, rotated, -1.0))
    inverse = [-q[0], -q[1], -q[2], q[3]]
    out["product"].append([p + 0.5 * i for p, i in zip(mul(q, rn), inverse)])
    columns = [rotate(q, e) for e in ([1, 0, 0], [0, 1, 0], [0, 0, 1])]
    out["matrix"].append([[columns[j][i] for j in range(3)] for i in range(3)])
    out["scalars"].append(sum(c * c for c in rn) + q[3] +
                          normalize([0, 0, 0, 0])[3])
print(json.dumps(out))
