#!/usr/bin/env python3
"""Checks numbers in JSON against expected values, with a tolerance.

Used by the run tests, whose expected numbers are computed independently of
ksc (by hand or with Python) and may differ from what the compiled kernel
produces in the last bits (a different libm, a fused multiply-add).

    ksc-run ... | json-close.py --expect '{"y": [2.5, 4.5]}' [--rtol R] [--atol A]
    ksc-run ... | json-close.py --expect-file EXPECTED.json ...

Every key of the expected object must be in the actual one (extra keys are
ignored), lists must have the same shape, and each number must satisfy
|actual - expected| <= atol + rtol * |expected|. Strings "nan", "inf" and
"-inf" stand for the IEEE values. Exits 1 with a message naming the first
mismatch.
"""

import argparse
import json
import math
import struct
import sys


def as_number(value):
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    return value


def to_float32(value):
    """A JSON number that is not an integer, rounded to float32."""
    if isinstance(value, float) and math.isfinite(value):
        return struct.unpack("f", struct.pack("f", value))[0]
    return value


def compare(actual, expected, path, rtol, atol, float32=False):
    actual, expected = as_number(actual), as_number(expected)
    if float32:
        actual, expected = to_float32(actual), to_float32(expected)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "%s: expected an object, got %r" % (path, actual)
        for key, value in expected.items():
            if key not in actual:
                return "%s: missing key %r" % (path, key)
            error = compare(actual[key], value, "%s.%s" % (path, key), rtol,
                            atol, float32)
            if error:
                return error
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: expected a list of %d, got %r" % (path, len(expected), actual)
        for i, (a, e) in enumerate(zip(actual, expected)):
            error = compare(a, e, "%s[%d]" % (path, i), rtol, atol, float32)
            if error:
                return error
        return None
    if isinstance(expected, bool) or isinstance(actual, bool):
        if actual is not expected:
            return "%s: expected %r, got %r" % (path, expected, actual)
        return None
    if isinstance(expected, (int, float)):
        if not isinstance(actual, (int, float)):
            return "%s: expected a number, got %r" % (path, actual)
        if math.isnan(expected) or math.isnan(actual):
            ok = math.isnan(expected) and math.isnan(actual)
        elif math.isinf(expected) or math.isinf(actual):
            ok = actual == expected
        else:
            ok = abs(actual - expected) <= atol + rtol * abs(expected)
        if not ok:
            return "%s: expected %r, got %r (rtol %g, atol %g)" % (
                path, expected, actual, rtol, atol)
        return None
    if actual != expected:
        return "%s: expected %r, got %r" % (path, expected, actual)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("actual", nargs="?", default="-",
                        help="JSON file to check (default: stdin)")
    expect = parser.add_mutually_exclusive_group(required=True)
    expect.add_argument("--expect", help="the expected JSON (an object)")
    expect.add_argument("--expect-file",
                        help="a file holding the expected JSON")
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--float32", action="store_true",
                        help="compare non-integer numbers as float32 values: "
                             "the shortest decimal that ksc-run prints for a "
                             "float and the exact float32 value in the "
                             "expected JSON then compare equal (rtol 0)")
    args = parser.parse_args()
    text = sys.stdin.read() if args.actual == "-" else open(args.actual).read()
    try:
        actual = json.loads(text)
    except ValueError as e:
        print("json-close: the input is not JSON (%s):\n%s" % (e, text))
        return 1
    expected = (open(args.expect_file).read() if args.expect_file
                else args.expect)
    error = compare(actual, json.loads(expected), "$", args.rtol, args.atol,
                    args.float32)
    if error:
        print("json-close: mismatch at " + error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
