//===- Driver.cpp - What ksc and ksc-run have in common ---------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/Driver.h"
#include "ksc/Conversion/Passes.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"
#include "ksc/InitAll.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <sys/resource.h>

using namespace mlir;
using namespace ksc;

bool ksc::isMlirFile(StringRef path) {
  return llvm::sys::path::extension(path) == ".mlir";
}

OwningOpRef<ModuleOp> ksc::loadModule(MLIRContext &context,
                                      llvm::SourceMgr &sourceMgr,
                                      StringRef path,
                                      const FrontendOptions &options,
                                      StringRef toolName) {
  if (path != "-" && !llvm::sys::fs::exists(path)) {
    llvm::errs() << toolName << ": error: cannot open input file '" << path
                 << "': No such file or directory\n";
    return nullptr;
  }
  if (!isMlirFile(path)) {
    FrontendResult result = importKdsl(context, path, options);
    return std::move(result.module);
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      mlir::openInputFile(path, &error);
  if (!buffer) {
    llvm::errs() << toolName << ": error: " << error << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

llvm::cl::opt<Precision> &
ksc::precisionOption(llvm::cl::OptionCategory &category) {
  static llvm::cl::opt<Precision> option(
      "precision",
      llvm::cl::desc("The floating-point precision kernels compute in"),
      llvm::cl::values(
          clEnumValN(Precision::Source, "source",
                     "as the source says (default)"),
          clEnumValN(Precision::Double, "double",
                     "every float as a double (arrays, vectors, matrices "
                     "and constants included)")),
      llvm::cl::init(Precision::Source), llvm::cl::cat(category));
  return option;
}

void ksc::addKsCleanupPasses(OpPassManager &pm, Precision precision) {
  if (precision == Precision::Double)
    pm.addPass(ks::createKsPromoteToF64());
  pm.addPass(createCanonicalizerPass());
}

/// `pass` with canonicalization and CSE before and after it.
static void addBetweenCleanups(OpPassManager &pm, std::unique_ptr<Pass> pass) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(std::move(pass));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void ksc::addReverseADPasses(OpPassManager &pm, ArrayRef<std::string> wrt,
                             bool printActivity, bool gpuCost) {
  ks::KsReverseADOptions options;
  options.wrt = llvm::to_vector(wrt);
  options.printActivity = printActivity;
  options.gpuCost = gpuCost;
  addBetweenCleanups(pm, ks::createKsReverseAD(options));
}

void ksc::addForwardADPasses(OpPassManager &pm, ArrayRef<std::string> wrt,
                             unsigned width) {
  ks::KsForwardADOptions options;
  options.wrt = llvm::to_vector(wrt);
  options.width = width;
  addBetweenCleanups(pm, ks::createKsForwardAD(options));
}

void ksc::addHessianVectorPasses(OpPassManager &pm, ArrayRef<std::string> wrt,
                                 bool gpuCost) {
  addReverseADPasses(pm, wrt, /*printActivity=*/false, gpuCost);
  ks::KsForwardADOptions options;
  options.wrt = llvm::to_vector(wrt);
  options.ofAdjoints = true;
  pm.addPass(ks::createKsForwardAD(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void ksc::addCpuLoweringPasses(OpPassManager &pm,
                               const CpuPipelineOptions &options) {
  if (options.boundsCheck)
    pm.addPass(ks::createKsInsertBoundsChecks());
  ConvertKsToCpuOptions lowering;
  lowering.parallel = options.parallelLaunches;
  lowering.deterministic = options.deterministic;
  pm.addPass(createConvertKsToCpu(lowering));
  pm.addPass(createCanonicalizerPass());
}

LogicalResult ksc::emitLoweredCpp(OwningOpRef<ModuleOp> module,
                                  PassManager &lowering, std::string &out,
                                  const CppEmitterOptions &emitter,
                                  std::string *header) {
  // One verification of the result, also when `lowering` does not verify
  // after each pass (ksc-synth's pipelines).
  if (failed(lowering.run(*module)) || failed(verify(*module)))
    return failure();
  llvm::raw_string_ostream os(out);
  std::optional<llvm::raw_string_ostream> headerStream;
  if (header)
    headerStream.emplace(*header);
  return translateToCpp(*module, os, emitter,
                        headerStream ? &*headerStream : nullptr);
}

LogicalResult ksc::emitLoweredCpp(ModuleOp module, PassManager &lowering,
                                  std::string &out,
                                  const CppEmitterOptions &emitter,
                                  std::string *header) {
  return emitLoweredCpp(OwningOpRef<ModuleOp>(cast<ModuleOp>(module->clone())),
                        lowering, out, emitter, header);
}

LogicalResult ksc::emitLoweredPtx(OwningOpRef<ModuleOp> module,
                                  PassManager &lowering, std::string &out,
                                  const PtxOptions &options) {
  if (failed(lowering.run(*module)) || failed(verify(*module)))
    return failure();
  llvm::raw_string_ostream os(out);
  return translateToPtx(*module, os, options);
}

LogicalResult ksc::emitLoweredPtx(ModuleOp module, PassManager &lowering,
                                  std::string &out, const PtxOptions &options) {
  return emitLoweredPtx(OwningOpRef<ModuleOp>(cast<ModuleOp>(module->clone())),
                        lowering, out, options);
}

LogicalResult ksc::emitCpuCpp(ModuleOp module, std::string &out,
                              const CpuPipelineOptions &pipeline,
                              const CppEmitterOptions &emitter,
                              std::string *header) {
  PassManager pm(module->getContext());
  if (failed(applyPassManagerOptions(pm)))
    return failure();
  addCpuLoweringPasses(pm, pipeline);
  return emitLoweredCpp(module, pm, out, emitter, header);
}

void ksc::addCudaLoweringPasses(OpPassManager &pm,
                                const CudaPipelineOptions &options) {
  if (options.boundsCheck)
    pm.addPass(ks::createKsInsertBoundsChecks());
  ConvertKsToCudaOptions lowering;
  lowering.launch = options.gridStride ? "grid-stride" : "guarded";
  lowering.deterministic = options.deterministic;
  lowering.tapeBytes = options.tapeBytes;
  pm.addPass(createConvertKsToCuda(lowering));
  pm.addPass(createCanonicalizerPass());
}

LogicalResult ksc::emitCudaCpp(ModuleOp module, std::string &out,
                               const CudaPipelineOptions &pipeline,
                               const CppEmitterOptions &emitter,
                               std::string *header) {
  PassManager pm(module->getContext());
  if (failed(applyPassManagerOptions(pm)))
    return failure();
  addCudaLoweringPasses(pm, pipeline);
  return emitLoweredCpp(module, pm, out, emitter, header);
}

void ksc::addPtxLoweringPasses(OpPassManager &pm,
                               const CudaPipelineOptions &pipeline,
                               unsigned blockSize) {
  addCudaLoweringPasses(pm, pipeline);
  pm.addPass(ks::createKsExpandBuiltins());
  pm.addPass(createSCFToControlFlowPass());
  ConvertKsToLLVMOptions lowering;
  lowering.blockSize = blockSize;
  pm.addPass(createConvertKsToLLVM(lowering));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult ksc::emitPtx(ModuleOp module, std::string &out,
                           const CudaPipelineOptions &pipeline,
                           const PtxOptions &options) {
  PassManager pm(module->getContext());
  if (failed(applyPassManagerOptions(pm)))
    return failure();
  addPtxLoweringPasses(pm, pipeline, options.blockSize);
  return emitLoweredPtx(module, pm, out, options);
}

void ksc::registerPassManagerOptions() {
  // The passes by name, for --mlir-print-ir-after=PASS and the like.
  registerAllPasses();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
}

LogicalResult ksc::applyPassManagerOptions(PassManager &pm) {
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  return success();
}

int ksc::runWithLargeStack(llvm::function_ref<int()> fn) {
  // 1 GiB of address space; only the pages a program touches are used.
  // Under a limit on the address space (ulimit -v), a quarter of it (but
  // 8 MiB, a thread's usual stack, at least): a stack the limit does not
  // leave room for would be a fatal error before anything runs.
  unsigned stackSize = 1u << 30;
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    stackSize = static_cast<unsigned>(std::clamp<rlim_t>(
        limit.rlim_cur / 4, rlim_t(8) << 20, rlim_t(stackSize)));
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(stackSize),
                      [&] { result = fn(); });
  worker.join();
  return result;
}

void ksc::registerPipelines() {
  PassPipelineRegistration<>(
      "ksc-cpu-pipeline",
      "The passes `ksc --target=cpu` runs between the frontend and the C++ "
      "emitter",
      [](OpPassManager &pm) {
        addKsCleanupPasses(pm);
        addCpuLoweringPasses(pm, CpuPipelineOptions());
      });
  PassPipelineRegistration<>(
      "ksc-cuda-pipeline",
      "The passes `ksc --target=cuda` runs between the frontend and the "
      "CUDA C++ emitter",
      [](OpPassManager &pm) {
        addKsCleanupPasses(pm);
        addCudaLoweringPasses(pm, CudaPipelineOptions());
      });
  PassPipelineRegistration<>(
      "ksc-ptx-pipeline",
      "The passes `ksc --target=cuda --emit=ptx` runs between the frontend "
      "and the translation to LLVM IR",
      [](OpPassManager &pm) {
        addKsCleanupPasses(pm);
        addPtxLoweringPasses(pm, CudaPipelineOptions(), /*blockSize=*/0);
      });
}
