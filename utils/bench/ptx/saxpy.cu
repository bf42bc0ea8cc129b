// saxpy.kdsl and its adjoint, written by hand (run-ptx-latency.sh).
#include <cstdint>

__global__ void saxpy(int64_t n, float a, const float *x, float *y) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void saxpy_adj(int64_t n, float a, const float *x, float *adj_a,
                          float *adj_x, float *adj_y) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    float g = adj_y[i];
    adj_x[i] += a * g;
    atomicAdd(adj_a, x[i] * g);
  }
}
