//===- Gpu.cpp - ksc-run's GPU target ---------------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "Gpu.h"

#include "ksc/Conversion/Accumulations.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Driver/Driver.h"
#include "ksc/Target/Cpp/CppEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::tool;

StringRef tool::getViaName(Via via) {
  return via == Via::Ptx ? "ptx" : "cuda-source";
}

int tool::reportError(Error error) {
  int status = 1;
  handleAllErrors(
      std::move(error),
      [&](const runner::NoDeviceError &noDevice) {
        errs() << "ksc-run: no CUDA device: ";
        noDevice.log(errs());
        errs() << "\n";
        status = kNoDeviceStatus;
      },
      [&](const ErrorInfoBase &other) {
        errs() << "ksc-run: error: ";
        other.log(errs());
        errs() << "\n";
      });
  return status;
}

int tool::listDevices(raw_ostream &os) {
  int driverVersion = 0;
  Expected<std::vector<runner::CudaDevice>> devices =
      runner::listCudaDevices(&driverVersion);
  if (!devices)
    return reportError(devices.takeError());
  os << "CUDA driver " << driverVersion / 1000 << "."
     << driverVersion % 1000 / 10 << "\n";
  for (const runner::CudaDevice &device : *devices)
    os << "device " << device.ordinal << ": " << device.name << ", "
       << device.arch() << ", "
       << format("%.1f", device.memory / double(1ull << 30)) << " GiB\n";
  return 0;
}

std::vector<runner::CudaSourceKernel>
tool::getCudaSourceKernels(mlir::ModuleOp module, bool deterministic) {
  // The __global__ functions are at namespace scope, next to the thread
  // bodies of the same name in namespace ksc_kernels.
  std::vector<runner::CudaSourceKernel> kernels;
  mlir::SymbolTable symbols(module);
  for (ks::KernelOp kernel : module.getOps<ks::KernelOp>()) {
    conversion::GpuLaunchPlan plan =
        conversion::planGpuLaunch(kernel, symbols, deterministic);
    runner::CudaKernelLaunch launch;
    launch.blockSums = plan.blockSums;
    launch.serial = plan.serial;
    launch.partialWords.assign(plan.partialWords.begin(),
                               plan.partialWords.end());
    kernels.push_back({kernel.getSymName().str(),
                       "::" + getCppFunctionName(kernel.getSymName()),
                       std::move(launch)});
  }
  return kernels;
}

/// The lowering's options of `settings`.
static CudaPipelineOptions getPipelineOptions(const GpuSettings &settings) {
  CudaPipelineOptions pipeline;
  pipeline.boundsCheck = settings.boundsCheck;
  pipeline.gridStride = settings.gridStride;
  pipeline.deterministic = settings.deterministic;
  pipeline.tapeBytes = settings.tapeBytes;
  return pipeline;
}

/// Errors of the lowering are reported at their source locations.
static Error failedToCompile() {
  return createStringError(inconvertibleErrorCode(),
                           "cannot compile the kernels for the GPU");
}

/// ksc's PTX of `module` for `arch`.
static Expected<std::string> buildPtx(mlir::ModuleOp module,
                                      const GpuSettings &settings,
                                      StringRef arch) {
  PtxOptions options;
  options.arch = arch.str();
  options.cudaPath = settings.cudaPath;
  options.blockSize = settings.blockSize;
  std::string ptx;
  if (mlir::failed(emitPtx(module, ptx, getPipelineOptions(settings), options)))
    return failedToCompile();
  return ptx;
}

/// ksc's CUDA C++ of `module`.
static Expected<std::string> buildCudaSource(mlir::ModuleOp module,
                                             const GpuSettings &settings) {
  CppEmitterOptions emitter;
  emitter.target = CppTarget::Cuda;
  emitter.blockSize = settings.blockSize;
  emitter.sourceName = settings.sourceName;
  std::string source;
  if (mlir::failed(
          emitCudaCpp(module, source, getPipelineOptions(settings), emitter)))
    return failedToCompile();
  return source;
}

std::string tool::getBundleCodeKey(mlir::ModuleOp module,
                                   const GpuSettings &settings,
                                   StringRef arch) {
  std::string text;
  raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  os << "\n"
     << settings.cudaPath << "\n"
     << settings.boundsCheck << settings.gridStride << settings.deterministic
     << " " << settings.blockSize << " " << settings.tapeBytes << "\n"
     << settings.sourceName << "\n"
     << arch << "\n";
  std::array<uint8_t, 32> hash = SHA256::hash(
      ArrayRef(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return toHex(ArrayRef(hash).take_front(12), /*LowerCase=*/true);
}

Expected<runner::BundleCode> tool::buildBundleCode(mlir::ModuleOp module,
                                                   const GpuSettings &settings,
                                                   StringRef arch) {
  runner::BundleCode code;
  code.arch = arch.str();
  code.kernels = getCudaSourceKernels(module, settings.deterministic);
  Expected<std::string> ptx = buildPtx(module, settings, arch);
  if (!ptx)
    return ptx.takeError();
  code.ptx = std::move(*ptx);
  Expected<std::string> source = buildCudaSource(module, settings);
  if (!source)
    return source.takeError();
  code.cuda = std::move(*source);
  return code;
}

Expected<runner::CudaModule> tool::buildGpuModule(mlir::ModuleOp module,
                                                  const GpuSettings &settings,
                                                  StringRef arch) {
  std::vector<runner::CudaSourceKernel> kernels =
      getCudaSourceKernels(module, settings.deterministic);
  Expected<runner::CudaModule> code = [&]() -> Expected<runner::CudaModule> {
    if (settings.via == Via::Ptx) {
      Expected<std::string> ptx = buildPtx(module, settings, arch);
      if (!ptx)
        return ptx.takeError();
      std::vector<std::string> names;
      for (const runner::CudaSourceKernel &kernel : kernels)
        names.push_back(kernel.kernel);
      return runner::makePtxModule(std::move(*ptx), names, arch);
    }
    Expected<std::string> source = buildCudaSource(module, settings);
    if (!source)
      return source.takeError();
    return runner::compileWithNvrtc(*source, settings.sourceName, kernels,
                                    arch, getCpuRuntimeHeader(),
                                    settings.cudaPath);
  }();
  if (code)
    runner::addLaunches(*code, kernels);
  return code;
}
