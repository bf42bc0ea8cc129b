#!/usr/bin/env python3
"""Expected results of the `ops` kernel of test/Run/unsigned.kdsl.

Computed without ksc, from C++'s rules for uint32_t: arithmetic is modulo
2^32, / and % truncate, >> is a logical shift, ~ flips 32 bits, conversions
to int keep the bits (two's complement), to int64_t and double keep the
value, to float round to nearest even, and float -> uint32_t truncates.

    unsigned_reference.py                  prints the expected JSON
    unsigned_reference.py --inputs         prints the kernel's input JSON
"""

import json
import struct
import sys

A = [0, 1, 4294967295, 2147483648, 3000000000, 16777217]
B = [1, 4294967295, 2, 3, 7, 1000]
OUTPUTS = ["sum", "diff", "prod", "quot", "rem", "shr", "shl", "neg", "bits",
           "less", "as_int", "as_int64", "as_float", "as_double", "from_float",
           "smaller"]

M = 2**32


def u32(x):
    return x % M


def as_int(x):
    return x - M if x >= 2**31 else x


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def expected():
    out = {name: [] for name in OUTPUTS}
    for x, y in zip(A, B):
        s = y % 32
        out["sum"].append(u32(x + y))
        out["diff"].append(u32(x - y))
        out["prod"].append(u32(x * y))
        out["quot"].append(x // y)
        out["rem"].append(x % y)
        out["shr"].append(x >> s)
        out["shl"].append(u32(x << s))
        out["neg"].append(u32(-x))
        out["bits"].append((x & y) ^ (~(x | 255) % M))
        out["less"].append(x < y)
        out["as_int"].append(as_int(x))
        out["as_int64"].append(x)
        f = f32(float(x))
        out["as_float"].append(f)
        out["as_double"].append(float(x))
        # as_float * 0.5f is exact (a power of two); the conversion truncates.
        out["from_float"].append(int(f32(f * 0.5)))
        out["smaller"].append(min(x, y))
    return out


def inputs():
    data = {"a": A, "b": B}
    for name in OUTPUTS:
        data[name] = [False if name == "less" else 0] * len(A)
    return data


if __name__ == "__main__":
    result = inputs() if "--inputs" in sys.argv[1:] else expected()
    print(json.dumps(result))
