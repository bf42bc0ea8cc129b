//===- Cuda.h - Run kernels on an NVIDIA GPU -----------------*- C++ -*-===//
//
// Part of ksc. What `ksc-run --target=cuda` needs beyond the CPU runner:
// GPU code for a module (PTX from ksc, or the CUDA C++ compiled with
// NVRTC), the devices, and an executor that copies the arguments to the
// GPU, launches a kernel and copies the arrays back. The CUDA driver and
// NVRTC are loaded at run time (dlopen), so that ksc-run builds and runs
// where they are missing; `NoDeviceError` says that there is no GPU to run
// on.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_CUDA_H
#define KSC_RUNNER_CUDA_H

#include "ksc/Runner/Executor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace ksc::runner {

/// No CUDA driver, no device, or a driver that does not start: ksc-run
/// exits with status 77 (what lit and CTest report as skipped).
class NoDeviceError : public llvm::ErrorInfo<NoDeviceError> {
public:
  static char ID;
  explicit NoDeviceError(std::string why) : why(std::move(why)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  std::string why;
};

/// How ksc's GPU code launches a kernel (convert-ks-to-cuda's
/// conversion::GpuLaunchPlan): what its launch function knows, which a
/// runner must know too.
struct CudaKernelLaunch {
  /// Its threads sum across the block: at most ks::getMaxSumBlocks blocks
  /// (its code loops over the grid).
  bool blockSums = false;
  /// One GPU thread runs every thread in order (`--deterministic`).
  bool serial = false;
  /// The i64 elements per block of the partials of each ordered sum
  /// (`--deterministic`): trailing kernel parameters (1-D i64 arrays of
  /// 1 + blocks * words elements, zero-filled) the launch allocates.
  std::vector<int64_t> partialWords;
};

/// GPU code for the kernels of a module.
struct CudaModule {
  /// The architecture it is for, `sm_90`.
  std::string arch;
  /// Its PTX.
  std::string ptx;
  /// What the driver loads: a CUBIN, or the PTX with its terminating NUL.
  std::string image;
  /// The entry point of each kernel: its name in ksc's PTX, the mangled
  /// name of its `__global__` function in the CUDA C++.
  llvm::StringMap<std::string> entries;
  /// How each kernel is launched, when not one GPU thread per thread.
  llvm::StringMap<CudaKernelLaunch> launches;
};

/// ksc's PTX (emitPtx), whose entry points are named after the kernels.
CudaModule makePtxModule(std::string ptx, llvm::ArrayRef<std::string> kernels,
                         llvm::StringRef arch);

/// A kernel of CUDA C++, and the C++ expression that names its `__global__`
/// function, which NVRTC lowers to the name of its entry point: `::saxpy`
/// in ksc's CUDA C++ (the name is C++-mangled), the name of an
/// `extern "C"` kernel in hand-written code.
struct CudaSourceKernel {
  std::string kernel;
  std::string expression;
  /// How it is launched (CudaModule::launches).
  CudaKernelLaunch launch;
};

/// Records in `module` how each of `kernels` is launched.
inline void addLaunches(CudaModule &module,
                        llvm::ArrayRef<CudaSourceKernel> kernels) {
  for (const CudaSourceKernel &kernel : kernels)
    if (kernel.launch.blockSums || kernel.launch.serial ||
        !kernel.launch.partialWords.empty())
      module.launches[kernel.kernel] = kernel.launch;
}

/// Compiles `source`, CUDA C++ of `ksc --target=cuda` (or code with the same
/// kernel ABI) whose kernels are `kernels`, with NVRTC for `arch` (sm_XY),
/// with the runtime header `runtimeHeader` as "ksc_runtime.h". NVRTC is
/// looked for in `cudaPath`, then $CUDA_HOME, then /usr/local/cuda
/// (lib64/libnvrtc.so*).
llvm::Expected<CudaModule>
compileWithNvrtc(llvm::StringRef source, llvm::StringRef sourceName,
                 llvm::ArrayRef<CudaSourceKernel> kernels, llvm::StringRef arch,
                 llvm::StringRef runtimeHeader, llvm::StringRef cudaPath);

/// Compiles PTX for device 0 with the CUDA driver's compiler, which is what
/// loading PTX does, on many threads at once: ksc-replay compiles the PTX of
/// all its cases first. Holds a reference to device 0's primary context
/// while it lives, so that the executors made meanwhile, one after
/// another, share one context instead of each making its own.
class CudaJit {
public:
  static llvm::Expected<std::unique_ptr<CudaJit>> create();
  virtual ~CudaJit();
  /// The CUBIN of `ptx` for the device (thread-safe).
  virtual llvm::Expected<std::string> compile(llvm::StringRef ptx) = 0;
};

struct CudaDevice {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;
  size_t memory = 0;
  /// `sm_90`.
  std::string arch() const;
};

/// The devices the driver sees (CUDA_VISIBLE_DEVICES applies), and the
/// driver's version (12080 for 12.8); a NoDeviceError without any.
llvm::Expected<std::vector<CudaDevice>> listCudaDevices(int *driverVersion);

struct CudaLaunchOptions {
  /// GPU threads per block; blocks = ceil(threads / blockSize).
  unsigned blockSize = 256;
  /// The kernels loop over the grid (--launch=grid-stride): at most 65535
  /// blocks, as the emitted K_launch launches them.
  bool gridStride = false;
  /// The code checks indices: a failed check prints and traps.
  bool boundsCheck = true;
  /// Launches timed per launch (0: not timed); see CudaExecutor.
  unsigned repeat = 0;
  /// For reports: "ptx" or "cuda-source".
  std::string via;
  /// Where the device's printf output goes (the message of a failed bounds
  /// check): a file it is appended to; empty: standard error.
  std::string deviceOutput;
};

/// The times of the launches of one kernel.
struct LaunchTiming {
  std::string kernel;
  int64_t threads = 0;
  unsigned blocks = 0, blockSize = 0;
  /// Every array argument's bytes once, the writable ones twice (read and
  /// written).
  uint64_t bytes = 0;
  std::vector<double> milliseconds;
  double median() const;
};

/// Runs kernels on device 0. With `repeat` N > 0 every launch is timed:
/// after a first launch (warming up), the arrays are copied to the device
/// again before each of N launches, each timed with CUDA events, and the
/// arrays after the last one are copied back; every launch starts from
/// the same inputs, and the results are those of one launch.
class CudaExecutor : public Executor {
public:
  static llvm::Expected<std::unique_ptr<CudaExecutor>>
  create(const CudaModule &module, const Grid &grid,
         const CudaLaunchOptions &options);
  virtual const std::vector<LaunchTiming> &getTimings() const = 0;
  /// Whether a kernel failed on the GPU. CUDA's errors of a kernel (a trap,
  /// an illegal address) are sticky: the process's context stays unusable
  /// until the process ends, resetting it does not help, and every later
  /// executor of the process fails too (ksc-replay runs the later cases in
  /// a new worker process).
  virtual bool lostContext() const = 0;
};

/// A table of `timings`, one row per timed launch.
void writeTimings(llvm::raw_ostream &os, llvm::ArrayRef<LaunchTiming> timings,
                  llvm::StringRef device);

} // namespace ksc::runner

#endif // KSC_RUNNER_CUDA_H
