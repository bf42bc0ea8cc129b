//===- PtxEmitter.h - LLVM dialect to PTX through NVPTX ---------*- C++ -*-===//
//
// Part of ksc. Translates a module in the LLVM and NVVM dialects (the output
// of convert-ks-to-llvm) to LLVM IR, links the libdevice functions it calls,
// optimizes it and writes PTX with LLVM's NVPTX backend, in process.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_TARGET_PTX_PTXEMITTER_H
#define KSC_TARGET_PTX_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ksc {

/// The GPU architecture ksc writes PTX for unless told otherwise.
inline constexpr llvm::StringLiteral kDefaultCudaArch = "sm_80";

/// What `emitPtx` (ksc/Driver/Driver.h) and `translateToPtx` write.
struct PtxOptions {
  /// The GPU architecture: sm_XX or sm_XXa (default sm_80).
  std::string arch = kDefaultCudaArch.str();
  /// The CUDA toolkit, for libdevice; empty: $CUDA_HOME, then
  /// /usr/local/cuda.
  std::string cudaPath;
  /// Write the NVPTX LLVM IR instead of PTX.
  bool llvmIR = false;
  /// GPU threads per block the kernels are launched with (their `maxntid`);
  /// 0: not said.
  unsigned blockSize = 0;
};

/// Whether `arch` names a GPU architecture the NVPTX backend knows
/// (sm_50 ... sm_120a).
bool isKnownCudaArch(llvm::StringRef arch);

/// The CUDA toolkit's directory: `cudaPath`, or if empty $CUDA_HOME, then
/// /usr/local/cuda.
std::string cudaToolkitRoot(llvm::StringRef cudaPath);

/// The libdevice bitcode of the CUDA toolkit at `cudaPath` (or, if empty,
/// $CUDA_HOME, then /usr/local/cuda).
std::string libdevicePath(llvm::StringRef cudaPath);

/// Writes `module` (LLVM and NVVM dialects) as PTX, or as LLVM IR with
/// `options.llvmIR`, for `options.arch`. Kernels keep their names; every
/// other function is internal. Errors are reported on `module`.
mlir::LogicalResult translateToPtx(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   const PtxOptions &options);

} // namespace ksc

#endif // KSC_TARGET_PTX_PTXEMITTER_H
