// The work of two benchmark kernels of grad-kernels.kdsl written by hand in
// CUDA, and a copy, for ksc-replay to time next to ksc's PTX and CUDA C++
// of those kernels (utils/gpu-bundle makes the cases, docs/performance.md
// has the numbers): what a CUDA programmer would write, with loads and
// stores through __restrict__ pointers of contiguous arrays, no bounds
// checks. They take the parameters of ksc's kernels, laid out as ksc lays
// them out (the launch grid, then the arguments; an array as its data
// pointer, extent and stride), so that the same launch runs either.
//
// Compiled by NVRTC in ksc-replay (no host headers). The kernels of
// utils/bench/ptx/ are another hand-written set, for the compile-latency
// benchmark against nvcc: they take raw pointers, which a launch of ksc's
// kernels does not pass.

struct Grid {
  long long x, y, z;
};
template <typename T> struct View {
  T *data;
  long long extent, stride;
};
struct Vec3 {
  float x, y, z;
};

// y = a * x + y.
extern "C" __global__ void saxpy_handwritten(Grid dim, float a,
                                             View<const float> x,
                                             View<float> y) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const float *__restrict__ xs = x.data;
  float *__restrict__ ys = y.data;
  if (i < dim.x)
    ys[i] = a * xs[i] + ys[i];
}

// y = x, with saxpy's parameters: what the device's memory system gives a
// kernel that reads and writes each element once (its bandwidth counts the
// 8 bytes it moves per element).
extern "C" __global__ void copy_handwritten(Grid dim, float,
                                            View<const float> x,
                                            View<float> y) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const float *__restrict__ xs = x.data;
  float *__restrict__ ys = y.data;
  if (i < dim.x)
    ys[i] = xs[i];
}

// The particle integrator: gravity, drag, a bouncing floor.
extern "C" __global__ void integrate_handwritten(Grid dim, View<Vec3> pos,
                                                 View<Vec3> vel,
                                                 View<const float> mass,
                                                 Vec3 gravity, float dt) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= dim.x)
    return;
  Vec3 *__restrict__ ps = pos.data;
  Vec3 *__restrict__ vs = vel.data;
  const float *__restrict__ ms = mass.data;
  Vec3 v = vs[i], p = ps[i];
  float drag = 0.1f / ms[i];
  v.x += (gravity.x - v.x * drag) * dt;
  v.y += (gravity.y - v.y * drag) * dt;
  v.z += (gravity.z - v.z * drag) * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  if (p.y < 0.0f) {
    p.y = -p.y;
    v.y = -0.8f * v.y;
  }
  ps[i] = p;
  vs[i] = v;
}
