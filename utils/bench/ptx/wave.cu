// wave.kdsl and its adjoint, written by hand (run-ptx-latency.sh).
#include <cstdint>

__global__ void wave(int64_t rows, int64_t cols, const float *h, float *u,
                     float t) {
  int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (k >= rows * cols)
    return;
  int i = int(k / cols), j = int(k % cols);
  u[k] = h[k] * sinf(t * float(i)) * cosf(t * float(j)) + expf(-t);
}

__global__ void wave_adj(int64_t rows, int64_t cols, const float *h, float t,
                         float *adj_h, float *adj_u, float *adj_t) {
  int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (k >= rows * cols)
    return;
  int i = int(k / cols), j = int(k % cols);
  float fi = float(i), fj = float(j);
  float s = sinf(t * fi), c = cosf(t * fj);
  float g = adj_u[k];
  adj_u[k] = 0.0f;
  adj_h[k] += g * s * c;
  float gt = g * h[k] * (fi * cosf(t * fi) * c - fj * s * sinf(t * fj)) -
             g * expf(-t);
  atomicAdd(adj_t, gt);
}
