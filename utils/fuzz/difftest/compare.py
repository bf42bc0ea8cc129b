"""Comparing the arrays ksc-run printed with the native side's."""

import json
import math

from .types import ARRAY_PARAMS, BOOL, FLOATS, FLT, f32


def parse_json(text):
    # Keep -0 distinguishable from 0.
    return json.loads(text, parse_int=lambda s: -0.0 if s == "-0" else int(s))


def same_float(a, b, ty, tol):
    """Whether float values a and b (numbers, or "nan", "inf", "-inf") are
    the same: bit for bit (-0 is not 0, every NaN is the same) or, with
    tol, within a relative 1e-4."""
    a, b = float(a), float(b)
    if ty == FLT:
        a, b = f32(a), f32(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return math.copysign(1, a) == math.copysign(1, b) or tol
    if tol and not math.isinf(a) and not math.isinf(b):
        return abs(a - b) <= 1e-6 + 1e-4 * max(abs(a), abs(b))
    return False


def compare(expected, actual, tol):
    """Returns a list of difference descriptions."""
    diffs = []
    for name, ty in ARRAY_PARAMS:
        e = expected.get(name)
        a = actual.get(name)
        if not isinstance(a, list) or len(a) != len(e):
            diffs.append("%s: expected %d elements, got %r" % (
                name, len(e), a))
            continue
        for k, (x, y) in enumerate(zip(e, a)):
            if ty in FLOATS:
                ok = same_float(x, y, ty, tol)
            elif ty == BOOL:
                ok = x is y
            else:
                ok = (not isinstance(y, bool) and isinstance(y, (int, float))
                      and int(x) == y)
            if not ok:
                diffs.append("%s[%d]: expected %s, got %s" % (
                    name, k, json.dumps(x), json.dumps(y)))
    return diffs
