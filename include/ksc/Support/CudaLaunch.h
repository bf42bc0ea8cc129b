//===- CudaLaunch.h - How ksc's GPU kernels are launched -------*- C++ -*-===//
//
// Part of ksc. The numbers of blocks of the launch contract of ksc's GPU
// kernels (docs/cuda.md), shared by the CUDA C++ launch functions the
// emitter writes and the GPU runners (ksc-run, ksc-replay). No LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_CUDALAUNCH_H
#define KSC_SUPPORT_CUDALAUNCH_H

#include <cstdint>

namespace ksc {

/// The most blocks of a grid-stride launch (`--launch=grid-stride`).
inline constexpr int64_t kMaxGridStrideBlocks = 65535;

/// The most blocks of `blockSize` threads a launch of a GPU kernel whose
/// threads sum across the block (`ks.flush_accumulator block`) uses: its
/// launcher loops over the grid, and every block makes one atomic update
/// per summed element, so about one wave of a large GPU (an H200 holds
/// 132 x 2048 threads) keeps them to about a thousand per element whatever
/// the grid.
inline constexpr int64_t getMaxSumBlocks(int64_t blockSize) {
  int64_t wave = (int64_t(1) << 18) / blockSize;
  return wave > 1024 ? wave : 1024;
}

} // namespace ksc

#endif // KSC_SUPPORT_CUDALAUNCH_H
