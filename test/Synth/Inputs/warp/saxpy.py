# Warp twin of saxpy.kdsl: y = a x + y over float arrays.
import warp as wp


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
