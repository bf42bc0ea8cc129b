//===- Driver.h - What ksc and ksc-run have in common -------*- C++ -*-===//
//
// Part of ksc. Loading input files and the pass pipelines from ks IR to
// emitted code, shared by the command-line tools.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DRIVER_DRIVER_H
#define KSC_DRIVER_DRIVER_H

#include "ksc/Frontend/Frontend.h"
#include "ksc/Target/Cpp/CppEmitter.h"
#include "ksc/Target/PTX/PtxEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace ksc {

/// Loads `path` ("-" for standard input) as ks IR: a `.mlir` file is parsed,
/// anything else goes through the kernel-language frontend. Errors are
/// reported on standard error (prefixed with `toolName` where they are not
/// about a source location); returns null after one.
mlir::OwningOpRef<mlir::ModuleOp> loadModule(mlir::MLIRContext &context,
                                             llvm::SourceMgr &sourceMgr,
                                             llvm::StringRef path,
                                             const FrontendOptions &options,
                                             llvm::StringRef toolName);

/// Whether `path` names an MLIR file rather than a kernel file.
bool isMlirFile(llvm::StringRef path);

/// The floating-point precision kernels compute in (ksc --precision).
enum class Precision {
  /// As the source says.
  Source,
  /// Every float as a double (the ks-promote-to-f64 pass).
  Double,
};

/// The `--precision` option of the tools that compile kernels, in
/// `category`: created on the first call, which must come before the
/// command line is parsed (a tool's global initializer).
llvm::cl::opt<Precision> &precisionOption(llvm::cl::OptionCategory &category);

/// The cleanups run on ks IR straight from the frontend, after promoting
/// it to double when `precision` asks for it.
void addKsCleanupPasses(mlir::OpPassManager &pm,
                        Precision precision = Precision::Source);

/// The passes of `ksc --grad`: cleanup, the reverse-mode pass (adjoint
/// kernels `K_adj`, differentiated with respect to the arguments in `wrt`,
/// or all differentiable ones when it is empty), cleanup again. `gpuCost`:
/// the adjoints are for a GPU (the pass's `gpu-cost`).
void addReverseADPasses(mlir::OpPassManager &pm,
                        llvm::ArrayRef<std::string> wrt,
                        bool printActivity = false, bool gpuCost = false);

/// The passes of `ksc --grad=forward`: cleanup, the forward-mode pass
/// (tangent kernels `K_jvp` propagating `width` tangent directions, with
/// respect to the arguments in `wrt`, or all differentiable ones when it is
/// empty), cleanup again.
void addForwardADPasses(mlir::OpPassManager &pm,
                        llvm::ArrayRef<std::string> wrt, unsigned width = 1);

/// The passes of `ksc --grad=hvp`: the reverse-mode passes, then forward
/// mode applied to the adjoint kernels (`K_hvp`, Hessian-vector products,
/// with respect to the primal arguments in `wrt` or all of them).
void addHessianVectorPasses(mlir::OpPassManager &pm,
                            llvm::ArrayRef<std::string> wrt,
                            bool gpuCost = false);

struct CpuPipelineOptions {
  /// Insert bounds checks on every array access.
  bool boundsCheck = false;
  /// Launchers run chunks of threads on several OS threads (`ksc
  /// --cpu-launch=parallel`), else every thread one after another.
  bool parallelLaunches = true;
  /// With parallelLaunches: kernels whose results could depend on the order
  /// of atomic updates get serial launchers (`ksc --deterministic`).
  bool deterministic = false;
};

/// From ks IR to the IR the C++ emitter prints.
void addCpuLoweringPasses(mlir::OpPassManager &pm,
                          const CpuPipelineOptions &options);

/// Lowers a copy of `module` for the CPU and prints it as C++ into `out`.
/// With `header`, also the header declaring what the C++ defines
/// (translateToCpp).
mlir::LogicalResult emitCpuCpp(mlir::ModuleOp module, std::string &out,
                               const CpuPipelineOptions &pipeline,
                               const CppEmitterOptions &emitter,
                               std::string *header = nullptr);

/// The default capacity of a GPU thread's tape (`--tape-bytes`).
inline constexpr int64_t kDefaultTapeBytes = 4096;

struct CudaPipelineOptions {
  /// Insert bounds checks on every array access.
  bool boundsCheck = false;
  /// Cover the grid with grid-stride loops instead of one GPU thread per
  /// thread of the grid.
  bool gridStride = false;
  /// Sums across blocks in a fixed order; a serial launch (one GPU thread)
  /// for a kernel with other order-dependent atomic updates.
  bool deterministic = false;
  /// The capacity of each GPU thread's tape, in bytes.
  int64_t tapeBytes = kDefaultTapeBytes;
};

/// From ks IR to the IR the C++ emitter prints as CUDA C++.
void addCudaLoweringPasses(mlir::OpPassManager &pm,
                           const CudaPipelineOptions &options);

/// Lowers a copy of `module` for CUDA and prints it as CUDA C++ into `out`
/// (`emitter.target` must be CppTarget::Cuda).
mlir::LogicalResult emitCudaCpp(mlir::ModuleOp module, std::string &out,
                                const CudaPipelineOptions &pipeline,
                                const CppEmitterOptions &emitter,
                                std::string *header = nullptr);

/// The CUDA lowering, then ks-expand-builtins, convert-scf-to-cf and
/// convert-ks-to-llvm: the module in the LLVM and NVVM dialects.
void addPtxLoweringPasses(mlir::OpPassManager &pm,
                          const CudaPipelineOptions &pipeline,
                          unsigned blockSize);

/// Lowers a copy of `module` for CUDA through the LLVM dialect and writes
/// PTX (or LLVM IR) for `options.arch` with LLVM's NVPTX backend, in
/// process. Every kernel K becomes an entry `K` whose parameters are those
/// of the CUDA C++ `__global__` function: the grid (`ksc::grid`, three
/// int64 by value), then the kernel's arguments, arrays as their
/// `ksc::array` struct by value (data pointer, shape, strides).
mlir::LogicalResult emitPtx(mlir::ModuleOp module, std::string &out,
                            const CudaPipelineOptions &pipeline,
                            const PtxOptions &options);

/// What emitCpuCpp/emitCudaCpp and emitPtx do, with the lowering already
/// built (by addCpuLoweringPasses, addCudaLoweringPasses or
/// addPtxLoweringPasses) so that a caller compiling many modules builds it
/// once: runs `lowering` on a copy of `module`, verifies the result (once,
/// so `lowering` may run without verification after each pass) and prints
/// it.
mlir::LogicalResult emitLoweredCpp(mlir::ModuleOp module,
                                   mlir::PassManager &lowering,
                                   std::string &out,
                                   const CppEmitterOptions &emitter,
                                   std::string *header = nullptr);
mlir::LogicalResult emitLoweredPtx(mlir::ModuleOp module,
                                   mlir::PassManager &lowering,
                                   std::string &out, const PtxOptions &options);
/// The same, lowering `module` itself instead of a copy, for a caller that
/// has no further use for it.
mlir::LogicalResult emitLoweredCpp(mlir::OwningOpRef<mlir::ModuleOp> module,
                                   mlir::PassManager &lowering,
                                   std::string &out,
                                   const CppEmitterOptions &emitter,
                                   std::string *header = nullptr);
mlir::LogicalResult emitLoweredPtx(mlir::OwningOpRef<mlir::ModuleOp> module,
                                   mlir::PassManager &lowering,
                                   std::string &out, const PtxOptions &options);

/// Runs `fn` on a thread with a stack large enough for deeply nested source
/// (Clang's parser and ksc recurse on the nesting) and returns its result.
int runWithLargeStack(llvm::function_ref<int()> fn);

/// Registers MLIR's pass-manager and timing options (--mlir-print-ir-after-all,
/// --mlir-print-ir-after=PASS, --mlir-timing, ...) for a tool's command line,
/// and ksc's passes by name (registerAllPasses) for them.
void registerPassManagerOptions();
/// Applies those options to `pm`, as every pass manager of ksc and ksc-run
/// does; fails (after an error) when they are inconsistent. A no-op in a
/// tool that did not register them.
mlir::LogicalResult applyPassManagerOptions(mlir::PassManager &pm);

/// Registers the pipelines above with the pass registry (for ksc-opt).
void registerPipelines();

} // namespace ksc

#endif // KSC_DRIVER_DRIVER_H
