// dot.kdsl and its adjoint, written by hand (run-ptx-latency.sh).
#include <cstdint>

__global__ void dot(int64_t n, const float *x, const float *y, float *sum) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i] * y[i]);
}

__global__ void dot_adj(int64_t n, const float *x, const float *y,
                        float *adj_x, float *adj_y, const float *adj_sum) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    float g = adj_sum[0];
    adj_x[i] += g * y[i];
    adj_y[i] += g * x[i];
  }
}
