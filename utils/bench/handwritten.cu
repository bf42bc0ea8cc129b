// The work of benchmark kernels of grad-kernels.kdsl written by hand in
// CUDA, and a copy, for ksc-replay to time next to ksc's PTX and CUDA C++
// of those kernels (utils/gpu-bundle makes the cases, docs/performance.md
// has the numbers): what a CUDA programmer would write, with loads and
// stores through __restrict__ pointers of contiguous arrays, no bounds
// checks. They take the parameters of ksc's kernels, laid out as ksc lays
// them out (the launch grid, then the arguments; an array as its data
// pointer, extent and stride), so that the same launch runs either.
//
// The adjoints (saxpy, transform, horner) compute what ksc's K_adj does
// with the best known technique for their shared sums: each thread's terms
// in registers, a warp sum with shuffles, the warps' sums through shared
// memory, one atomic per block and element (they assume blocks of a
// multiple of 32 threads, as the benchmarks launch them).
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

struct Mat33 {
  float m[3][3];
};

// The sum of `v` over the (whole) block, in thread 0; every thread calls
// it. `partial` holds one value per warp.
__device__ float block_sum(float v, float *partial) {
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, d);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  v = 0.0f;
  if (warp == 0) {
    if (lane < (blockDim.x >> 5))
      v = partial[lane];
    for (int d = 16; d > 0; d /= 2)
      v += __shfl_xor_sync(0xffffffffu, v, d);
  }
  __syncthreads();
  return v;
}

// The adjoint of saxpy: adj_x += adj_y * a, adj_a += sum(adj_y * x).
extern "C" __global__ void saxpy_adj_handwritten(
    Grid dim, float a, View<const float> x, View<float>, View<float> adj_a,
    View<float> adj_x, View<float> adj_y) {
  __shared__ float partial[32];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const float *__restrict__ xs = x.data;
  float *__restrict__ gx = adj_x.data;
  const float *__restrict__ gy = adj_y.data;
  float ga = 0.0f;
  if (i < dim.x) {
    float g = gy[i];
    gx[i] += g * a;
    ga = g * xs[i];
  }
  ga = block_sum(ga, partial);
  if (threadIdx.x == 0)
    atomicAdd(adj_a.data, ga);
}

// The adjoint of y = transpose(A) (A x + b): with u = A x + b and g the
// adjoint of y, adj_u = A g, adj_A += u g^T + adj_u x^T, adj_x += A^T adj_u,
// adj_b += sum(adj_u); the adjoint of y is consumed (zeroed).
extern "C" __global__ void transform_adj_handwritten(
    Grid dim, View<const Mat33> m, View<const Vec3> x, Vec3 b, View<Vec3>,
    View<Mat33> adj_m, View<Vec3> adj_x, View<Vec3> adj_b, View<Vec3> adj_y) {
  __shared__ float partial[32];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float gb[3] = {0.0f, 0.0f, 0.0f};
  if (i < dim.x) {
    Mat33 A = m.data[i];
    Vec3 xv = x.data[i];
    float xs[3] = {xv.x, xv.y, xv.z};
    float bs[3] = {b.x, b.y, b.z};
    Vec3 gv = adj_y.data[i];
    float g[3] = {gv.x, gv.y, gv.z};
    adj_y.data[i] = Vec3{0.0f, 0.0f, 0.0f};
    float u[3], gu[3];
    for (int r = 0; r < 3; ++r) {
      u[r] = A.m[r][0] * xs[0] + A.m[r][1] * xs[1] + A.m[r][2] * xs[2] + bs[r];
      gu[r] = A.m[r][0] * g[0] + A.m[r][1] * g[1] + A.m[r][2] * g[2];
    }
    Mat33 gA = adj_m.data[i];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        gA.m[r][c] += u[r] * g[c] + gu[r] * xs[c];
    adj_m.data[i] = gA;
    Vec3 gx = adj_x.data[i];
    gx.x += A.m[0][0] * gu[0] + A.m[1][0] * gu[1] + A.m[2][0] * gu[2];
    gx.y += A.m[0][1] * gu[0] + A.m[1][1] * gu[1] + A.m[2][1] * gu[2];
    gx.z += A.m[0][2] * gu[0] + A.m[1][2] * gu[1] + A.m[2][2] * gu[2];
    adj_x.data[i] = gx;
    for (int r = 0; r < 3; ++r)
      gb[r] = gu[r];
  }
  for (int r = 0; r < 3; ++r) {
    float sum = block_sum(gb[r], partial);
    if (threadIdx.x == 0)
      atomicAdd(&adj_b.data[0].x + r, sum);
  }
}

// The adjoint of Horner's rule s = s * t + c[k], k < n (n <= 32): the
// forward values of s in registers, then the reverse loop; each thread's
// adj_c[k] terms stay in registers until the block sums them, one atomic
// per block and coefficient.
extern "C" __global__ void horner_adj_handwritten(
    Grid dim, View<const float> coeff, View<const float> x, View<float>,
    int n, View<float> adj_coeff, View<float> adj_x, View<float> adj_y) {
  __shared__ float partial[32];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const float *__restrict__ c = coeff.data;
  float gc[32];
  int count = n < 32 ? n : 32;
  for (int k = 0; k < count; ++k)
    gc[k] = 0.0f;
  if (i < dim.x) {
    float t = x.data[i];
    float s[32];
    float v = 0.0f;
    for (int k = 0; k < count; ++k) {
      s[k] = v;
      v = v * t + c[k];
    }
    float g = adj_y.data[i];
    adj_y.data[i] = 0.0f;
    float gt = 0.0f;
    for (int k = count - 1; k >= 0; --k) {
      gc[k] = g;
      gt += g * s[k];
      g *= t;
    }
    adj_x.data[i] += gt;
  }
  for (int k = 0; k < count; ++k) {
    float sum = block_sum(gc[k], partial);
    if (threadIdx.x == 0)
      atomicAdd(&adj_coeff.data[k], sum);
  }
}
