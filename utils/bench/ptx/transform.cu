// transform.kdsl and its adjoint, written by hand (run-ptx-latency.sh).
#include <cstdint>

struct vec3 {
  float v[3];
};
struct mat33 {
  float m[3][3];
};

__device__ vec3 mul(const mat33 &a, const vec3 &x) {
  vec3 r;
  for (int i = 0; i < 3; ++i)
    r.v[i] = a.m[i][0] * x.v[0] + a.m[i][1] * x.v[1] + a.m[i][2] * x.v[2];
  return r;
}
__device__ vec3 mul_transposed(const mat33 &a, const vec3 &x) {
  vec3 r;
  for (int j = 0; j < 3; ++j)
    r.v[j] = a.m[0][j] * x.v[0] + a.m[1][j] * x.v[1] + a.m[2][j] * x.v[2];
  return r;
}

__global__ void transform(int64_t n, const mat33 *m, const vec3 *x, vec3 b,
                          vec3 *y) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  mat33 a = m[i];
  vec3 u = mul(a, x[i]);
  for (int k = 0; k < 3; ++k)
    u.v[k] += b.v[k];
  y[i] = mul_transposed(a, u);
}

// With u = A x + b and y = A^T u: du = A gy, dA = u gy^T + du x^T,
// dx = A^T du, db = du.
__global__ void transform_adj(int64_t n, const mat33 *m, const vec3 *x, vec3 b,
                              mat33 *adj_m, vec3 *adj_x, float *adj_b,
                              vec3 *adj_y) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  mat33 a = m[i];
  vec3 xi = x[i];
  vec3 u = mul(a, xi);
  for (int k = 0; k < 3; ++k)
    u.v[k] += b.v[k];
  vec3 gy = adj_y[i];
  vec3 gu = mul(a, gy);
  vec3 gx = mul_transposed(a, gu);
  mat33 ga = adj_m[i];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      ga.m[r][c] += u.v[r] * gy.v[c] + gu.v[r] * xi.v[c];
  adj_m[i] = ga;
  vec3 ax = adj_x[i];
  for (int k = 0; k < 3; ++k) {
    ax.v[k] += gx.v[k];
    atomicAdd(&adj_b[k], gu.v[k]);
  }
  adj_x[i] = ax;
  adj_y[i] = vec3{};
}
