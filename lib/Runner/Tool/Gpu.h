//===- Gpu.h - ksc-run's GPU target -------------------------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Runner/Tool. What ksc-run does for `--target=cuda` beyond parsing its
// options: list the devices, and make the GPU code of a module, PTX from
// ksc (`--via=ptx`) or the CUDA C++ compiled with NVRTC
// (`--via=cuda-source`).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_RUNNER_TOOL_GPU_H
#define KSC_LIB_RUNNER_TOOL_GPU_H

#include "ksc/Driver/Driver.h"
#include "ksc/Runner/Bundle.h"

#include "mlir/IR/BuiltinOps.h"

namespace ksc::tool {

/// The status ksc-run exits with when it has no GPU to run on (what lit and
/// CTest report as a skipped test).
inline constexpr int kNoDeviceStatus = 77;

enum class Via { Ptx, CudaSource };

struct GpuSettings {
  Via via = Via::Ptx;
  /// The CUDA toolkit (NVRTC, libdevice); empty: $CUDA_HOME, then
  /// /usr/local/cuda.
  std::string cudaPath;
  bool boundsCheck = true;
  bool gridStride = false;
  /// --deterministic: sums across blocks in a fixed order, serial launches
  /// for kernels with other order-dependent atomics.
  bool deterministic = false;
  /// --block-size, 0 when not given (256 without launch bounds).
  unsigned blockSize = 0;
  /// The capacity of each GPU thread's tape (--tape-bytes).
  int64_t tapeBytes = kDefaultTapeBytes;
  /// For the banner of the CUDA C++ and NVRTC's messages.
  std::string sourceName;
};

llvm::StringRef getViaName(Via via);

/// Reports `error` on stderr: `ksc-run: no CUDA device: ...` and
/// kNoDeviceStatus for a NoDeviceError, else `ksc-run: error: ...` and 1.
int reportError(llvm::Error error);

/// --list-devices: prints the driver's version and one line per device;
/// kNoDeviceStatus (and why, on stderr) without one.
int listDevices(llvm::raw_ostream &os);

/// The kernels of `module` and the C++ names of their `__global__`
/// functions in its CUDA C++ (what NVRTC lowers to entry points), and how
/// they are launched (with `--deterministic` or not).
std::vector<runner::CudaSourceKernel>
getCudaSourceKernels(mlir::ModuleOp module, bool deterministic);

/// The GPU code of every kernel of `module` for a bundle: ksc's PTX for
/// `arch` and its CUDA C++ (`settings.via` does not matter).
llvm::Expected<runner::BundleCode>
buildBundleCode(mlir::ModuleOp module, const GpuSettings &settings,
                llvm::StringRef arch);

/// What the GPU code of `module` for `arch` depends on, hashed: its IR
/// (with the source locations, which messages name) and `settings`. A
/// recording reuses the code of a module with the same key.
std::string getBundleCodeKey(mlir::ModuleOp module,
                             const GpuSettings &settings,
                             llvm::StringRef arch);

/// The GPU code of every kernel of `module` for `arch` (sm_XY).
llvm::Expected<runner::CudaModule> buildGpuModule(mlir::ModuleOp module,
                                                  const GpuSettings &settings,
                                                  llvm::StringRef arch);

} // namespace ksc::tool

#endif // KSC_LIB_RUNNER_TOOL_GPU_H
