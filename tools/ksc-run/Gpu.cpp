//===- Gpu.cpp - ksc-run's GPU target ---------------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "Gpu.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Driver/Driver.h"
#include "ksc/Target/Cpp/CppEmitter.h"

#include "llvm/Support/Format.h"

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

Expected<runner::CudaModule> tool::buildGpuModule(mlir::ModuleOp module,
                                                  const GpuSettings &settings,
                                                  StringRef arch) {
  std::vector<std::string> kernels;
  for (ks::KernelOp kernel : module.getOps<ks::KernelOp>())
    kernels.push_back(kernel.getSymName().str());
  CudaPipelineOptions pipeline;
  pipeline.boundsCheck = settings.boundsCheck;
  pipeline.gridStride = settings.gridStride;
  // Errors of the lowering are reported at their source locations.
  auto failed = [] {
    return createStringError(inconvertibleErrorCode(),
                             "cannot compile the kernels for the GPU");
  };
  if (settings.via == Via::Ptx) {
    PtxOptions options;
    options.arch = arch.str();
    options.cudaPath = settings.cudaPath;
    options.blockSize = settings.blockSize;
    std::string ptx;
    if (mlir::failed(emitPtx(module, ptx, pipeline, options)))
      return failed();
    return runner::makePtxModule(std::move(ptx), kernels, arch);
  }
  CppEmitterOptions emitter;
  emitter.target = CppTarget::Cuda;
  emitter.blockSize = settings.blockSize;
  emitter.sourceName = settings.sourceName;
  std::string source;
  if (mlir::failed(emitCudaCpp(module, source, pipeline, emitter)))
    return failed();
  return runner::compileWithNvrtc(source, settings.sourceName, kernels, arch,
                                  getCpuRuntimeHeader(), settings.cudaPath);
}
