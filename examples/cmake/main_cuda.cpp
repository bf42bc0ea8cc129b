// The Euler steps of main.cpp on a GPU, through the header ksc wrote for
// the CUDA C++ of integrate.kdsl: plain C++, which needs the CUDA runtime
// library for device memory but not ksc's CUDA code. Without a GPU it
// reports the CUDA runtime's error and exits with status 2.
#include "integrate.kdsl.h"

#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  sim::Body host[4] = {{10, 0}, {20, 0}, {30, 0}, {40, 0}};
  sim::Body *device = nullptr;
  cudaError_t error = cudaMalloc(reinterpret_cast<void **>(&device), sizeof host);
  if (error == cudaSuccess)
    error = cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
  for (int k = 0; k < 100 && error == cudaSuccess; ++k)
    error = cudaError_t(sim::step_launch(
        4, nullptr, 9.81f, 0.01f, ksc::array<sim::Body>(device, 4)));
  if (error == cudaSuccess)
    error = cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
  if (error != cudaSuccess) {
    std::fprintf(stderr, "projectile_cuda: %s\n", cudaGetErrorString(error));
    return 2;
  }
  std::printf("{\"euler\": [%g, %g, %g, %g]}\n", host[0].y, host[1].y,
              host[2].y, host[3].y);
  cudaFree(device);
  return 0;
}
