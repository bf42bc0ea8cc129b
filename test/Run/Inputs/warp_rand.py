#!/usr/bin/env python3
"""A reference for ksc's random numbers: NVIDIA Warp's generator
(warp/native/rand.h), written from its definition in plain Python, without
ksc. Prints, as JSON, what the kernels of test/Run/random.kdsl must write.

The state is a uint32 that every draw replaces by the PCG hash of Jarzynski
and Olano (JCGT 2020) of it; the numbers come from the new state:

    pcg(x):  b = x * 747796405 + 2891336453            (mod 2^32)
             c = ((b >> ((b >> 28) + 4)) ^ b) * 277803737
             return (c >> 22) ^ c
    rand_init(seed) = pcg(seed),  rand_init(seed, offset) = pcg(seed + pcg(offset))
    randi(s) = int(s'),  randi(s, lo, hi) = int(s' % uint(hi - lo) + uint(lo))
    randf(s) = float(s' >> 8) * 2^-24,  randf(s, lo, hi) = (hi - lo) * randf(s) + lo
    randn(s) = sqrt(-2 * log(randf(s) + 5.96e-8)) * cos(2 * pi * randf(s))

where s' = pcg(s) is the new state, ints are 32-bit two's complement, and
every float operation rounds to float32 (no fused multiply-add). In randn
the first draw gives the radius and the second the angle. Its log and cos
are float32 functions whose last bit depends on the math library; here they
are computed in double and rounded to float32, so randn is compared with a
tolerance while everything else is exact.

    warp_rand.py streams SEED N     the `streams` kernel for N threads, but
                                    the randn numbers
    warp_rand.py normal SEED N      only the randn numbers
    warp_rand.py elements SEED      the `elements` kernel
    warp_rand.py inputs SEED        the input of the `elements` kernel
"""

import json
import math
import struct
import sys

M = 2**32
RANDN_EPSILON = 5.96e-8
PI_F = 3.14159265358979323846


def f32(x):
    """x rounded to the nearest float32."""
    return struct.unpack("f", struct.pack("f", x))[0]


def as_int(x):
    """The int32 with the bits of uint32 x."""
    return x - M if x >= 2**31 else x


def pcg(x):
    b = (x * 747796405 + 2891336453) % M
    c = (((b >> ((b >> 28) + 4)) ^ b) * 277803737) % M
    return (c >> 22) ^ c


def rand_init(seed, offset=None):
    if offset is None:
        return pcg(seed % M)
    return pcg((seed % M + pcg(offset % M)) % M)


class Stream:
    def __init__(self, state):
        self.state = state

    def randi(self, lo=None, hi=None):
        self.state = pcg(self.state)
        if lo is None:
            return as_int(self.state)
        return as_int((self.state % ((hi - lo) % M) + lo % M) % M)

    def randf(self, lo=None, hi=None):
        self.state = pcg(self.state)
        # Exact: a 24-bit integer times a power of two.
        unit = (self.state >> 8) * 2.0**-24
        if lo is None:
            return unit
        scaled = f32(f32(f32(hi) - f32(lo)) * unit)
        return f32(scaled + f32(lo))

    def randn(self):
        u1 = self.randf()
        u2 = self.randf()
        radius = f32(math.sqrt(f32(-2.0 * f32(math.log(f32(u1 + f32(RANDN_EPSILON)))))))
        angle = f32(f32(2.0 * f32(PI_F)) * u2)
        return f32(radius * f32(math.cos(angle)))


def streams(seed, n):
    """What the `streams` kernel writes: per thread i, the stream
    rand_init(seed, i) and its draws, in the kernel's order."""
    out = {name: [] for name in ("init", "bits", "dice", "unit", "ranged",
                                 "normal", "final")}
    for i in range(n):
        s = Stream(rand_init(seed, i))
        out["init"].append(s.state)
        out["bits"].append(s.randi())
        out["dice"].append(s.randi(-3, 7))
        out["unit"].append(s.randf())
        out["ranged"].append(s.randf(-2.5, 4.0))
        out["normal"].append(s.randn())
        out["final"].append(s.state)
    return out


STATES = [0, 1, 4294967295, 123456789, 2147483648]


def elements(seed):
    """What the `elements` kernel writes: thread i draws a randf from
    states[i] (STATES, advanced in place) and makes rand_init(seed + i)."""
    out = {"states": [], "first": [], "fresh": []}
    for i, state in enumerate(STATES):
        s = Stream(state)
        out["first"].append(s.randf())
        out["states"].append(s.state)
        out["fresh"].append(rand_init(seed + i))
    return out


if __name__ == "__main__":
    kind, seed = sys.argv[1], int(sys.argv[2])
    if kind == "streams":  # Everything but randn, to compare exactly.
        result = streams(seed, int(sys.argv[3]))
        del result["normal"]
    elif kind == "normal":  # randn, to compare with a tolerance.
        result = {"normal": streams(seed, int(sys.argv[3]))["normal"]}
    elif kind == "elements":
        result = elements(seed)
    else:  # The input of the `elements` kernel.
        result = {"states": STATES, "first": [0] * len(STATES),
                  "fresh": [0] * len(STATES), "seed": seed}
    print(json.dumps(result))
