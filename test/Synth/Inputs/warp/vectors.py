# Warp twin of vectors.kdsl: vec3 and mat33 arrays, a 2-D float array, a
# 2-D launch, a double scalar and an output written only (pairs).
import warp as wp


@wp.func
def weight(d: wp.vec3, w: float):
    return w * wp.dot(d, d) / (1.0 + wp.length(d))


@wp.kernel
def pairs(pos: wp.array(dtype=wp.vec3), w: wp.array2d(dtype=float), rot: wp.array(dtype=wp.mat33),
          scale: wp.float64, energy: wp.array2d(dtype=float), moved: wp.array2d(dtype=wp.vec3)):
    i, j = wp.tid()
    d = pos[i] - pos[j]
    energy[i, j] = weight(d, w[i, j]) * float(scale)
    moved[i, j] = rot[i] * d + wp.cross(pos[i], pos[j])
