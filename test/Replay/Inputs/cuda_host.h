// Compiles CUDA C++ of `ksc --target=cuda` (and hand-written kernels with
// its ABI) as host C++, for the stand-in CUDA driver
// (test/Run/Cuda/Inputs/fake_cuda.cpp) to run as a GPU would: the CUDA
// keywords are nothing, blockIdx, blockDim, threadIdx and gridDim are
// variables that ksc_host::launch sets for one GPU thread after another,
// and what the runtime header does on the host when a check fails (it
// throws ksc::launch_error) becomes the message the device prints before
// it traps. utils/lit/stand-in-code.py includes this before each CUDA C++
// file of a bundle and adds an entry point per kernel.
#ifndef KSC_TEST_CUDA_HOST_H
#define KSC_TEST_CUDA_HOST_H

#include "ksc_runtime.h"

#include <cstdio>
#include <cstring>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct ksc_host_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline ksc_host_dim3 blockIdx, threadIdx, blockDim, gridDim;

// What the launch functions of ksc's CUDA C++ use; the stand-in never calls
// them.
typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
enum : int { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1)
      : x(x_), y(y_), z(z_) {}
};
inline cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t,
                                    cudaStream_t) {
  return 98; // cudaErrorInvalidDeviceFunction
}

// CUDA's integer min and max, at namespace scope.
#define KSC_HOST_MIN_MAX(T)                                                    \
  inline T min(T a, T b) { return a < b ? a : b; }                             \
  inline T max(T a, T b) { return a < b ? b : a; }
KSC_HOST_MIN_MAX(int)
KSC_HOST_MIN_MAX(unsigned)
KSC_HOST_MIN_MAX(long)
KSC_HOST_MIN_MAX(unsigned long)
KSC_HOST_MIN_MAX(long long)
KSC_HOST_MIN_MAX(unsigned long long)
#undef KSC_HOST_MIN_MAX

namespace ksc_host {
template <typename G, typename... A, size_t... I>
int launch(void (*kernel)(G, A...), unsigned blocks, unsigned blockSize,
           void **params, char *message, size_t size,
           std::index_sequence<I...>) {
  gridDim = {blocks, 1, 1};
  blockDim = {blockSize, 1, 1};
  G dim = *static_cast<const G *>(params[0]);
  try {
    for (unsigned block = 0; block < blocks; ++block)
      for (unsigned thread = 0; thread < blockSize; ++thread) {
        blockIdx = {block, 0, 0};
        threadIdx = {thread, 0, 0};
        kernel(dim, *static_cast<A *>(params[I + 1])...);
      }
  } catch (const ksc::launch_error &error) {
    std::snprintf(message, size, "ksc: %s\n", error.what());
    return 1;
  }
  return 0;
}

/// Runs `kernel` as the GPU runs a launch of `blocks` blocks of `blockSize`
/// threads, on the driver's kernel parameters `params` (the launch grid,
/// then the kernel's arguments). Returns 0, or 1 with what the device
/// prints before it traps in `message`.
template <typename G, typename... A>
int launch(void (*kernel)(G, A...), unsigned blocks, unsigned blockSize,
           void **params, char *message, size_t size) {
  return launch(kernel, blocks, blockSize, params, message, size,
                std::index_sequence_for<A...>());
}
} // namespace ksc_host

#endif // KSC_TEST_CUDA_HOST_H
