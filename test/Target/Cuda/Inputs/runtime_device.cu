// Calls every part of the runtime header that CUDA device code may use
// (what the CUDA C++ that ksc emits calls, and more) from a __global__
// kernel, so that nvcc compiles all of it for the device: arrays of every
// rank, the launch grid, vectors, matrices and quaternions, bounds checks,
// bit casts, floating-point comparisons, minimum/maximum, the atomics on
// every element type, and the random numbers. Compiled only, not run.
#include "ksc_runtime.h"

namespace {

/// Every atomic on element type T, on arrays of rank 1 to 4.
template <typename T>
__device__ T atomics(ksc::array<T> a1, ksc::array<T, 2> a2,
                     ksc::array<T, 3> a3, ksc::array<T, 4> a4, T v) {
  T sum = ksc::atomic_add(a1, 0, v);
  sum += ksc::atomic_sub(a1, 1, v);
  sum += ksc::atomic_min(a1, 2, v);
  sum += ksc::atomic_max(a1, 3, v);
  sum += ksc::atomic_add(a2, 0, 1, v);
  sum += ksc::atomic_sub(a2, 1, 0, v);
  sum += ksc::atomic_min(a3, 0, 1, 2, v);
  sum += ksc::atomic_max(a4, 0, 1, 2, 3, v);
  return sum;
}

/// The comparisons, minimum and maximum of floating-point type T.
template <typename T> __device__ T compare(T a, T b) {
  int flags = int(ksc::ordered(a, b)) + 2 * int(ksc::unordered(a, b)) +
              4 * int(ksc::ordered_not_equal(a, b)) +
              8 * int(ksc::unordered_or_equal(a, b));
  return ksc::minimum(a, b) + ksc::maximum(a, b) + T(flags);
}

/// The vector and matrix operations on N x N matrices of T.
template <int N, typename T>
__device__ ksc::vec<N, T> linear_algebra(const ksc::vec<N, T> &a,
                                         const ksc::vec<N, T> &b) {
  ksc::mat<N, T> m = ksc::outer(a, b) + ksc::mat<N, T>(T(1));
  m = m - ksc::transpose(m) * T(2) + T(3) * -m / T(4);
  m = ksc::cw_mul(m, m) + ksc::cw_div(m, ksc::mat<N, T>(T(5)));
  m = m * ksc::inverse(m);
  m(0, 0) = ksc::determinant(m);
  m[1][0] = ksc::dot(a, b);
  ksc::vec<N, T> v = m * a + b * m - ksc::cw_mul(a, b) + ksc::cw_div(a, b);
  v = -v * T(2) + T(3) * v / T(4) + ksc::vec<N, T>(T(1));
  v[N - 1] = m(0, 1);
  return v;
}

} // namespace

// A thread body as ksc emits them, and a device function.
static __device__ KSC_INLINE void saxpy(int i, float a,
                                        ksc::array<const float> x,
                                        ksc::array<float> y) {
  y[i] = a * x[i] + y[i];
}

__global__ void runtime_device(
    ksc::grid dim, float a, ksc::array<const float> x, ksc::array<float> y,
    ksc::array<float, 2> y2, ksc::array<float, 3> y3, ksc::array<float, 4> y4,
    ksc::array<double> d1, ksc::array<double, 2> d2, ksc::array<double, 3> d3,
    ksc::array<double, 4> d4, ksc::array<int> i1, ksc::array<int, 2> i2,
    ksc::array<int, 3> i3, ksc::array<int, 4> i4, ksc::array<uint32_t> u1,
    ksc::array<uint32_t, 2> u2, ksc::array<uint32_t, 3> u3,
    ksc::array<uint32_t, 4> u4, ksc::array<int64_t> l1,
    ksc::array<int64_t, 2> l2, ksc::array<int64_t, 3> l3,
    ksc::array<int64_t, 4> l4, ksc::array<ksc::vec3> v3,
    ksc::array<ksc::vec2d> v2d, ksc::array<ksc::vec4i> v4i,
    ksc::array<ksc::mat33> m33, ksc::array<ksc::mat44d> m44d) {
  int64_t g = blockIdx.x * blockDim.x + threadIdx.x;
  ksc::grid local(dim.x, dim.y, dim.z);
  if (g >= local.size())
    return;
  int i = int(g);

  // Arrays: construction, conversion to const, the shape, elements and
  // slices.
  ksc::array<float> raw(y.data(), y.size());
  ksc::array<const float> view = raw;
  ksc_array_desc desc = {y2.data(), 2, {y2.shape(0), y2.shape(1)},
                         {y2.stride(0), y2.stride(1)}};
  ksc::array<float, 2> fromDesc(desc);
  ksc::check_bounds(x, "x", "runtime_device.cu:1:1", i);
  ksc::check_bounds(fromDesc, "y2", "runtime_device.cu:2:1", i);
  ksc::check_bounds(fromDesc, "y2", "runtime_device.cu:3:1", i, 0);
  ksc::check_bounds(y3, "y3", "runtime_device.cu:4:1", i, 0, 1);
  ksc::check_bounds(y4, "y4", "runtime_device.cu:5:1", i, 0, 1, 2);
  saxpy(i, a, view, raw);
  fromDesc[i][0] = y3[i][0](1) + y4(i, 0, 1, 2) + y4[i][0][1][2] +
                   float(y3.stride(2) + y4.shape(3));

  // Atomics on every element type; vectors and matrices add and subtract.
  float fa = atomics(y, y2, y3, y4, x[i]);
  double da = atomics(d1, d2, d3, d4, double(x[i]));
  int ia = atomics(i1, i2, i3, i4, i);
  uint32_t ua = atomics(u1, u2, u3, u4, uint32_t(i));
  int64_t la = atomics(l1, l2, l3, l4, int64_t(i));
  ksc::vec3 va = ksc::atomic_add(v3, 0, ksc::vec3(fa)) +
                 ksc::atomic_sub(v3, 1, ksc::vec3(1.0f, 2.0f, 3.0f));
  ksc::vec2d vda = ksc::atomic_add(v2d, 0, ksc::vec2d(da, 1.0)) -
                   ksc::atomic_sub(v2d, 1, ksc::vec2d(2.0));
  ksc::vec4i via = ksc::atomic_add(v4i, 0, ksc::vec4i(ia, 1, 2, 3));
  ksc::mat33 ma = ksc::atomic_add(m33, 0, ksc::mat33(1.0f)) +
                  ksc::atomic_sub(m33, 1, ksc::mat33(1, 2, 3, 4, 5, 6, 7, 8,
                                                     9));
  ksc::mat44d mda = ksc::atomic_add(m44d, 0, ksc::mat44d(da)) -
                    ksc::atomic_sub(m44d, 1, ksc::mat44d(2.0));

  // Vectors, matrices and quaternions.
  ksc::vec3 v = ksc::cross(va, ksc::vec3(1.0f, 0.0f, 0.0f));
  ksc::check_index(i % 3, 3, "vec3", "runtime_device.cu:6:1");
  v[i % 3] += ma(0, 1) + ma[1][2];
  ksc::vec2 p = linear_algebra(ksc::vec2(v.x, v.y), ksc::vec2(1.0f, 2.0f));
  ksc::vec3 q3 = linear_algebra(v, va);
  ksc::vec4 q = linear_algebra(ksc::vec4(v.x, v.y, v.z, p.x),
                               ksc::vec4(0.5f, 0.5f, 0.5f, 0.5f));
  ksc::vec3 r = ksc::quat_rotate(q, v) + ksc::quat_rotate_inv(q, q3) +
                ksc::quat_to_matrix(ksc::quat_mul(q, q)) * v;
  ksc::vec4d qd = linear_algebra(ksc::vec4d(mda[0]), ksc::vec4d(vda.x));
  ksc::mat22d m2d(qd.x, qd.y, qd.z, qd.w);
  ksc::mat33 m3 = ksc::outer(r, r);
  double det = ksc::determinant(m2d) + double(ksc::determinant(m3)) +
               ksc::inverse(m2d)(1, 1) + double(ksc::inverse(m3)[2][2]);

  // Bit casts, comparisons, minimum and maximum.
  uint32_t bits = ksc::bit_cast<uint32_t>(r.x) +
                  uint32_t(ksc::bit_cast<uint64_t>(det));
  float cf = compare(r.y, ksc::bit_cast<float>(bits));
  double cd = compare(det, double(via.w));

  // Random numbers.
  uint32_t state = ksc::rand_init(int(la)) + ksc::rand_init(42, i);
  int ri = ksc::randi(state) + ksc::randi(state, -5, 5);
  float rf = ksc::randf(state) + ksc::randf(state, -1.0f, 1.0f) +
             ksc::randn(state);

  y[i] = cf + float(cd) + float(ri) + rf + float(ua) +
         std::sqrt(std::fabs(r.z));
}

// The host launches the kernel, as the launch functions ksc emits do.
extern "C" cudaError_t runtime_device_launch(
    ksc::grid dim, cudaStream_t stream, float a, ksc::array<const float> x,
    ksc::array<float> y, ksc::array<float, 2> y2, ksc::array<float, 3> y3,
    ksc::array<float, 4> y4, ksc::array<double> d1, ksc::array<double, 2> d2,
    ksc::array<double, 3> d3, ksc::array<double, 4> d4, ksc::array<int> i1,
    ksc::array<int, 2> i2, ksc::array<int, 3> i3, ksc::array<int, 4> i4,
    ksc::array<uint32_t> u1, ksc::array<uint32_t, 2> u2,
    ksc::array<uint32_t, 3> u3, ksc::array<uint32_t, 4> u4,
    ksc::array<int64_t> l1, ksc::array<int64_t, 2> l2,
    ksc::array<int64_t, 3> l3, ksc::array<int64_t, 4> l4,
    ksc::array<ksc::vec3> v3, ksc::array<ksc::vec2d> v2d,
    ksc::array<ksc::vec4i> v4i, ksc::array<ksc::mat33> m33,
    ksc::array<ksc::mat44d> m44d) {
  if (!ksc::valid_grid(dim))
    return cudaErrorInvalidValue;
  if (dim.size() == 0)
    return cudaSuccess;
  int64_t blocks = (dim.size() + 255) / 256;
  runtime_device<<<unsigned(blocks), 256, 0, stream>>>(
      dim, a, x, y, y2, y3, y4, d1, d2, d3, d4, i1, i2, i3, i4, u1, u2, u3, u4,
      l1, l2, l3, l4, v3, v2d, v4i, m33, m44d);
  return cudaGetLastError();
}
