"""A module of CUDA kernels on a machine that may have no GPU: what it
says of itself, and the arguments it refuses before touching a GPU."""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import kernels_cuda as k  # noqa: E402

print("target", k.__ksc_kernels__["saxpy"]["target"])
print(k.saxpy.__doc__.splitlines()[0])


def error(call):
    try:
        call()
    except (TypeError, ValueError) as e:
        print(type(e).__name__ + ": " + str(e))
    else:
        print("no error")


x = np.ones(4, np.float32)
error(lambda: k.saxpy(2.0, x, x.copy()))
error(lambda: k.saxpy(2.0, x, x.copy(), stream="default"))
try:
    import jax  # noqa: F401
    import ksc.jax
    error(lambda: ksc.jax.op(k, "saxpy")(2.0, x, x))
except ImportError:
    print("TypeError: kernels_cuda runs its kernels on CUDA devices: ksc.jax "
          "takes modules of CPU kernels only")
