//===- KscRun.cpp - ksc-run: run a kernel on JSON data ----------------===//
//
// Part of ksc. The ksc-run tool (tools/ksc-run/ksc-run.cpp is its main):
// its options, their checks, and what it does with them.
//
//   ksc-run FILE.kdsl --kernel=NAME --dim=N --inputs=IN.json [-o OUT.json]
//
// Compiles the kernel for the CPU (through the emitted C++ and the host C++
// compiler, cached by content hash), runs one launch of N threads on the
// arguments in IN.json, and prints the final contents of every array
// argument as a JSON object.
//
// With --grad=reverse it runs the adjoint kernel K_adj instead, on the
// output adjoints in ADJ.json, and prints the input adjoints; with
// --grad=forward the tangent kernel K_jvp, on the tangents in TAN.json,
// and prints the outputs and their tangents; with --grad=hvp the
// Hessian-vector kernel K_hvp, on both, and prints the Hessian-vector
// products. --check-grad compares K_adj and K_jvp with central finite
// differences of K, and with each other (the dot-product test).
//
// With --target=cuda it runs the kernels on an NVIDIA GPU instead (all of
// the modes above), from ksc's PTX (--via=ptx, the default) or from the
// CUDA C++ compiled with NVRTC (--via=cuda-source), and prints the same
// JSON. The CUDA driver and NVRTC are loaded at run time; without a driver
// or a device ksc-run exits with status 77 ("ksc-run: no CUDA device:
// ..."), which lit and CTest report as skipped. --compare=cpu also runs
// every launch on the CPU and compares the arrays (a report on stderr,
// status 1 when they differ); --time times the launches with CUDA events
// (median of --repeat, on stderr). See docs/cuda.md.
//
// With --record=DIR it runs on the CPU and adds the run to the GPU bundle
// DIR: its GPU code, its job and data, and the CPU's results of every
// launch, for ksc-replay to run on a GPU machine (docs/cuda.md, "GPU
// bundles").
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Driver/Driver.h"
#include "ksc/Driver/ToolOptions.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/InitAll.h"
#include "ksc/Runner/Bundle.h"
#include "ksc/Runner/Cuda.h"
#include "ksc/Runner/Executor.h"
#include "ksc/Runner/Gradient.h"
#include "ksc/Runner/Job.h"
#include "ksc/Runner/Tangent.h"
#include "ksc/Runner/Runner.h"
#include "ksc/Runner/Tool.h"
#include "ksc/Support/Escape.h"
#include "ksc/Support/Json.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Signals.h"
#include "ksc/Target/PTX/PtxEmitter.h"

#include "Gpu.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include <cstdlib>
#include <string>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ksc;

namespace {
enum class Target { Cpu, Cuda };

cl::OptionCategory runCategory("ksc-run options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<input .kdsl or .mlir file>"),
                               cl::cat(runCategory));
cl::opt<std::string>
    kernelName("kernel",
               cl::desc("The kernel to run (optional if the file has one)"),
               cl::value_desc("name"), cl::cat(runCategory));
cl::opt<std::string>
    dim("dim",
        cl::desc("The launch grid: N threads, or N,M (2-D) or N,M,K (3-D)"),
        cl::value_desc("N[,M[,K]]"), cl::cat(runCategory));
cl::opt<std::string> inputsFile(
    "inputs",
    cl::desc("JSON object with a value for every kernel argument ('-' for "
             "stdin)"),
    cl::value_desc("file"), cl::cat(runCategory));
cl::opt<std::string> outputFile("o",
                                cl::desc("Where to write the resulting "
                                         "arrays as JSON (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(runCategory));
cl::opt<Target> target("target", cl::desc("Where to run the kernel"),
                       cl::values(clEnumValN(Target::Cpu, "cpu",
                                             "on this machine (default)"),
                                  clEnumValN(Target::Cuda, "cuda",
                                             "on an NVIDIA GPU (exit status "
                                             "77 without one)")),
                       cl::init(Target::Cpu), cl::cat(runCategory));
cl::opt<bool> deterministic(
    "deterministic",
    cl::desc("Make every launch give the same bits, as ksc --deterministic "
             "does: on the CPU, kernels whose results depend on the order of "
             "atomic updates run serially; on the GPU, sums across blocks "
             "are added in a fixed order and such kernels run on one GPU "
             "thread"),
    cl::cat(runCategory));
cl::opt<bool>
    boundsCheck("bounds-check",
                cl::desc("Check array indices and stop with an error on an "
                         "out-of-bounds access (default: true)"),
                cl::init(true), cl::cat(runCategory));
/// --threads. libLLVM registers an undocumented option of that name that
/// ksc-run has no use for: this one takes its place (before the command
/// line is parsed).
cl::opt<int> &numThreadsOption() {
  auto &options = cl::getRegisteredOptions();
  static bool replaced = [&] {
    if (auto it = options.find("threads"); it != options.end())
      it->second->removeArgument();
    return true;
  }();
  (void)replaced;
  static cl::opt<int> option(
      "threads",
      cl::desc("Run CPU launches on at most N OS threads, 1 to 4096 (sets "
               "KSC_NUM_THREADS; default: $KSC_NUM_THREADS, else every "
               "hardware thread)"),
      cl::value_desc("N"), cl::init(0), cl::cat(runCategory));
  return option;
}
cl::opt<std::string> cxx("cxx",
                         cl::desc("Host C++ compiler (default: $KSC_CXX, "
                                  "else the compiler ksc was built with)"),
                         cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Directory for compiled kernels (default: $KSC_CACHE_DIR, else "
             "~/.cache/ksc)"),
    cl::value_desc("dir"), cl::cat(runCategory));
SourceOptions sourceOptions(runCategory);
DerivativeOptions derivatives(runCategory);
GpuCodeOptions gpuCode(runCategory, "With --target=cuda or --record",
                       "With --target=cuda or --record",
                       "the device's; sm_80 with --compile-only or --record");

cl::opt<Precision> &precision = precisionOption(runCategory);
enum class Grad { None, Reverse, Forward, Hvp };
cl::opt<Grad> grad(
    "grad",
    cl::desc("Run a derivative kernel of the kernel (see docs/autodiff.md "
             "and the README)"),
    cl::ValueOptional,
    cl::values(
        clEnumValN(Grad::Reverse, "reverse",
                   "the adjoint kernel K_adj on the output adjoints in "
                   "--adjoints; prints the input adjoints (default)"),
        clEnumValN(Grad::Forward, "forward",
                   "the tangent kernel K_jvp on the tangents in --tangents; "
                   "prints the outputs and their tangents"),
        clEnumValN(Grad::Hvp, "hvp",
                   "the Hessian-vector kernel K_hvp on --adjoints and "
                   "--tangents; prints the Hessian-vector products"),
        clEnumValN(Grad::Reverse, "", "")),
    cl::init(Grad::None), cl::cat(runCategory));
cl::opt<std::string> adjointsFile(
    "adjoints",
    cl::desc("With --grad=reverse or hvp: JSON object with the output "
             "adjoint of arguments, by argument name (missing ones are "
             "zero)"),
    cl::value_desc("file"), cl::cat(runCategory));
cl::opt<std::string> tangentsFile(
    "tangents",
    cl::desc("With --grad=forward or hvp: JSON object with the tangent of "
             "arguments, by argument name (missing ones are zero)"),
    cl::value_desc("file"), cl::cat(runCategory));
cl::opt<bool>
    checkGrad("check-grad",
              cl::desc("Check the adjoint kernel K_adj and the tangent "
                       "kernel K_jvp against central finite differences of "
                       "the kernel and against each other; exit 1 if they "
                       "differ"),
              cl::cat(runCategory));
cl::opt<double> absTol("atol",
                       cl::desc("With --check-grad: absolute tolerance "
                                "(default 1e-3 for float, 1e-7 for double); "
                                "with --compare: of both precisions"),
                       cl::value_desc("a"), cl::cat(runCategory));
cl::opt<double> relTol("rtol",
                       cl::desc("With --check-grad: relative tolerance "
                                "(default 1e-2 for float, 1e-6 for double); "
                                "with --compare: of both precisions"),
                       cl::value_desc("r"), cl::cat(runCategory));
cl::alias tol("tol", cl::desc("Alias for --rtol"), cl::aliasopt(relTol),
              cl::cat(runCategory));

// The GPU target.
cl::opt<tool::Via>
    via("via", cl::desc("With --target=cuda: the GPU code to run"),
        cl::values(clEnumValN(tool::Via::Ptx, "ptx",
                              "ksc's PTX, from LLVM's NVPTX backend (default)"),
                   clEnumValN(tool::Via::CudaSource, "cuda-source",
                              "ksc's CUDA C++, compiled with NVRTC")),
        cl::init(tool::Via::Ptx), cl::cat(runCategory));
enum class Compare { None, Cpu };
cl::opt<Compare> compareWith(
    "compare",
    cl::desc("With --target=cuda: also run every launch on the CPU and "
             "compare the arrays (report on stderr; exit 1 if they differ)"),
    cl::values(clEnumValN(Compare::Cpu, "cpu", "with the CPU runner")),
    cl::init(Compare::None), cl::cat(runCategory));
cl::opt<bool>
    timeLaunches("time",
                 cl::desc("With --target=cuda: time every launch with CUDA "
                          "events, the median of --repeat launches from the "
                          "same inputs, and its bandwidth (on stderr)"),
                 cl::cat(runCategory));
cl::opt<double> timeout(
    "timeout",
    cl::desc("Stop when one launch runs longer than this many seconds: an "
             "error naming the kernel, exit status 124 (default: no limit)"),
    cl::value_desc("seconds"), cl::init(0), cl::cat(runCategory));
cl::opt<unsigned> repeat("repeat",
                         cl::desc("With --time: timed launches (default 10)"),
                         cl::value_desc("N"), cl::init(10),
                         cl::cat(runCategory));
cl::opt<bool>
    listDevices("list-devices",
                cl::desc("List the CUDA devices; exit 77 without one"),
                cl::cat(runCategory));
cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("With --target=cuda: print the PTX of the file's kernels (and "
             "derivative kernels) and stop before using a GPU; --dim and "
             "--inputs are not needed"),
    cl::Hidden, cl::cat(runCategory));

cl::opt<uint64_t> seed("seed",
                       cl::desc("With --check-grad: seed of the random "
                                "output adjoints and tangents (default 1)"),
                       cl::value_desc("n"), cl::init(1), cl::cat(runCategory));
// Recording for a GPU elsewhere (docs/cuda.md, "GPU bundles").
cl::opt<std::string> recordDir(
    "record",
    cl::desc("Run on the CPU and record the run (its GPU code, its data and "
             "the results of every launch) as a case of the GPU bundle DIR, "
             "for ksc-replay to run on a GPU"),
    cl::value_desc("DIR"), cl::cat(runCategory));
cl::opt<std::string> recordName(
    "record-name",
    cl::desc("With --record: the name of the case (default: made from the "
             "file, the kernel and the mode)"),
    cl::value_desc("name"), cl::cat(runCategory));
cl::opt<std::string> recordGpuFailure(
    "record-gpu-failure",
    cl::desc("With --record: the GPU run must fail with an error or device "
             "output containing TEXT (a failure only the GPU has, such as a "
             "full tape); the CPU does not run"),
    cl::value_desc("TEXT"), cl::cat(runCategory));
} // namespace

static int fail(const Twine &message) {
  errs() << "ksc-run: error: " << message << "\n";
  return 1;
}

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static bool isGradMode() { return checkGrad || grad != Grad::None; }

/// Refuses options that do not go together.
static Error checkGradOptions() {
  if (checkGrad && grad != Grad::None)
    return makeError("--check-grad and --grad are two different modes; choose "
                     "one");
  bool needsAdjoints = grad == Grad::Reverse || grad == Grad::Hvp;
  bool needsTangents = grad == Grad::Forward || grad == Grad::Hvp;
  // (--compile-only reads no data.)
  if (needsAdjoints && adjointsFile.empty() && !compileOnly)
    return makeError(
        (grad == Grad::Hvp ? "--grad=hvp" : "--grad") +
        Twine(" needs --adjoints=FILE: a JSON object with the output "
              "adjoint of arguments, by argument name"));
  if (needsTangents && tangentsFile.empty() && !compileOnly)
    return makeError(
        (grad == Grad::Hvp ? "--grad=hvp" : "--grad=forward") +
        Twine(" needs --tangents=FILE: a JSON object with the tangent of "
              "arguments, by argument name"));
  if (grad == Grad::None && !adjointsFile.empty())
    return makeError("--adjoints needs --grad");
  if (!needsAdjoints && !adjointsFile.empty())
    return makeError("--adjoints goes with --grad=reverse or --grad=hvp, not "
                     "--grad=forward");
  if (!needsTangents && !tangentsFile.empty())
    return makeError("--tangents needs --grad=forward or --grad=hvp");
  if (derivatives.hasWidth() && grad != Grad::Forward)
    return makeError("--width needs --grad=forward");
  if (Error error = derivatives.validate())
    return error;
  if (!isGradMode() && derivatives.hasWrt())
    return makeError("--wrt needs --grad or --check-grad");
  if (!checkGrad && compareWith == Compare::None &&
      (absTol.getNumOccurrences() || relTol.getNumOccurrences()))
    return makeError("--atol, --rtol and --tol need --check-grad or "
                     "--compare");
  if (!checkGrad && seed.getNumOccurrences())
    return makeError("--seed needs --check-grad");
  if (cl::opt<int> &threads = numThreadsOption();
      threads.getNumOccurrences() && (threads < 1 || threads > 4096))
    return makeError("--threads must be 1 to 4096");
  if (absTol < 0 || relTol < 0)
    return makeError("--atol and --rtol must not be negative");
  return Error::success();
}

/// Refuses GPU options that do not go together.
static Error checkGpuOptions() {
  bool recording = !recordDir.empty();
  if (recording && target == Target::Cuda)
    return makeError("--record runs the kernel on the CPU and records it for "
                     "a GPU; it does not go with --target=cuda");
  for (const cl::Option *option :
       {(const cl::Option *)&recordName, (const cl::Option *)&recordGpuFailure})
    if (option->getNumOccurrences() && !recording)
      return makeError("--" + option->ArgStr + " needs --record");
  if (target != Target::Cuda) {
    for (const cl::Option *option :
         {(const cl::Option *)&via, (const cl::Option *)&compareWith,
          (const cl::Option *)&compileOnly})
      if (option->getNumOccurrences())
        return makeError("--" + option->ArgStr + " needs --target=cuda");
    // What the GPU code is and how it is launched, also for a recording.
    if (!recording) {
      SmallVector<const cl::Option *> given = gpuCode.givenNvptxOptions();
      llvm::append_range(given, gpuCode.givenLaunchOptions());
      if (timeLaunches.getNumOccurrences())
        given.push_back(&timeLaunches);
      if (!given.empty())
        return makeError("--" + given.front()->ArgStr +
                         " needs --target=cuda or --record");
    }
    if (!recording)
      return Error::success();
  }
  if (Error error = gpuCode.validate())
    return error;
  if (repeat.getNumOccurrences() && !timeLaunches)
    return makeError("--repeat needs --time");
  if (repeat < 1)
    return makeError("--repeat must be at least 1");
  if (timeLaunches && checkGrad)
    return makeError("--time and --check-grad do not go together (the check "
                     "launches the kernel twice per number)");
  if (compileOnly && (timeLaunches || compareWith != Compare::None))
    return makeError("--compile-only runs nothing: no --time or --compare");
  return Error::success();
}

/// The kernel --kernel names, or the only one (adjoint and tangent kernels
/// do not count in the gradient modes).
static Expected<ks::KernelOp> selectKernel(mlir::ModuleOp module) {
  SmallVector<ks::KernelOp> kernels;
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (!isGradMode() ||
        (!runner::isAdjointKernel(k) && !runner::isTangentKernel(k)))
      kernels.push_back(k);
  std::string available;
  for (ks::KernelOp k : kernels)
    available += (available.empty() ? "" : ", ") + k.getSymName().str();
  if (kernels.empty())
    return makeError(inputFile +
                     " has no kernels to run (mark one KSC_KERNEL)");
  if (kernelName.empty()) {
    if (kernels.size() != 1)
      return makeError(inputFile + " has " + Twine(kernels.size()) +
                       " kernels; choose one with --kernel (" + available +
                       ")");
    return kernels.front();
  }
  for (ks::KernelOp k : kernels)
    if (k.getSymName() == kernelName)
      return k;
  return makeError("no kernel named '" + kernelName + "' in " + inputFile +
                   " (kernels: " + available + ")");
}

/// Erases the device functions nothing in `module` uses any more (after
/// other kernels were dropped): they would be compiled for nothing.
static void eraseUnusedFunctions(mlir::ModuleOp module) {
  for (bool erased = true; erased;) {
    erased = false;
    for (ks::FuncOp func :
         llvm::make_early_inc_range(module.getOps<ks::FuncOp>()))
      if (mlir::SymbolTable::symbolKnownUseEmpty(func, module)) {
        func.erase();
        erased = true;
      }
  }
}

/// Drops every kernel but `kernel` from `module`, and the functions only
/// they used: a run compiles what it launches, not the whole file (a file
/// of 1,600 kernels took minutes to compile for one).
static void keepOnlyKernel(mlir::ModuleOp module, ks::KernelOp kernel) {
  for (ks::KernelOp k :
       llvm::make_early_inc_range(module.getOps<ks::KernelOp>()))
    if (k != kernel)
      k.erase();
  eraseUnusedFunctions(module);
}

/// Whether `k` is the adjoint kernel of `kernel`, its tangent kernel, or
/// the tangent kernel of one of `adjoints`.
static bool isDerivativeOf(ks::KernelOp k, ks::KernelOp kernel,
                           ArrayRef<ks::KernelOp> adjoints) {
  return runner::isAdjointOf(k, kernel) || runner::isTangentOf(k, kernel) ||
         llvm::any_of(adjoints, [&](ks::KernelOp adjoint) {
           return runner::isTangentOf(k, adjoint);
         });
}

/// Makes the derivative kernels of `kernel` the gradient mode needs (K_adj
/// for --grad=reverse, K_jvp for --grad=forward, both for --check-grad,
/// K_adj and its tangent kernel K_hvp for --grad=hvp), unless the module
/// has them (a .mlir file may), after dropping the other kernels: they
/// need not be differentiable. `gpuCost`: for GPU code (adjoints recompute
/// what is cheap on a GPU).
static mlir::LogicalResult addDerivatives(mlir::ModuleOp module,
                                          ks::KernelOp kernel,
                                          bool gpuCost = false) {
  SmallVector<ks::KernelOp> adjoints;
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (runner::isAdjointOf(k, kernel))
      adjoints.push_back(k);
  bool hasTangent = false, hasHvp = false;
  for (ks::KernelOp k :
       llvm::make_early_inc_range(module.getOps<ks::KernelOp>())) {
    hasTangent |= runner::isTangentOf(k, kernel);
    hasHvp |= !runner::isTangentOf(k, kernel) &&
              isDerivativeOf(k, kernel, adjoints) && runner::isTangentKernel(k);
    if (k != kernel && !isDerivativeOf(k, kernel, adjoints))
      k.erase();
  }
  eraseUnusedFunctions(module);
  mlir::PassManager pm(module.getContext());
  if (mlir::failed(applyPassManagerOptions(pm)))
    return mlir::failure();
  bool differentiate = false;
  if (grad == Grad::Hvp && !hasHvp) {
    // The passes make K_adj and its tangent kernel together.
    for (ks::KernelOp adjoint : adjoints)
      adjoint.erase();
    adjoints.clear();
    addHessianVectorPasses(pm, derivatives.getWrt(), gpuCost);
    differentiate = true;
  }
  if ((checkGrad || grad == Grad::Reverse) && adjoints.empty()) {
    addReverseADPasses(pm, derivatives.getWrt(), /*printActivity=*/false,
                       gpuCost);
    differentiate = true;
  }
  if ((checkGrad || grad == Grad::Forward) && !hasTangent) {
    addForwardADPasses(pm, derivatives.getWrt(), derivatives.getWidth());
    differentiate = true;
  }
  if (differentiate && mlir::failed(pm.run(module))) {
    fail("cannot differentiate kernel '" + kernel.getSymName() + "'");
    return mlir::failure();
  }
  return mlir::success();
}

/// The JSON value in `file` ('-' for stdin), whose text goes to `text`.
static Expected<json::Value> readJson(StringRef file, std::string &text) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFileOrSTDIN(file);
  if (!buffer)
    return makeError("cannot read '" + file +
                     "': " + buffer.getError().message());
  text = (*buffer)->getBuffer().str();
  Expected<json::Value> value = parseJsonStrictly(text);
  if (!value)
    return makeError(file + " is not valid JSON: " +
                     toString(value.takeError()));
  return value;
}

/// Writes `text` to -o (as ksc writes its outputs: writeFileIfChanged).
static int writeResult(StringRef text) {
  if (Error error = writeFileIfChanged(outputFile, text))
    return fail("cannot write '" + outputFile +
                "': " + errorToErrorCode(std::move(error)).message());
  return 0;
}

/// The mode of the run.
static runner::JobMode getJobMode() {
  if (checkGrad)
    return runner::JobMode::CheckGrad;
  switch (grad) {
  case Grad::Reverse:
    return runner::JobMode::Reverse;
  case Grad::Forward:
    return runner::JobMode::Forward;
  case Grad::Hvp:
    return runner::JobMode::Hvp;
  case Grad::None:
    break;
  }
  return runner::JobMode::Run;
}

/// The job of the run: its mode, the signatures of the kernels it launches
/// (`kernel` and its derivative kernels in `module`), its options and data.
static Expected<runner::Job> makeJob(mlir::ModuleOp module,
                                     ks::KernelOp kernel,
                                     const runner::Grid &grid) {
  runner::Job job;
  job.mode = getJobMode();
  job.grid = grid;
  Expected<runner::Signature> signature = runner::getSignature(kernel);
  if (!signature)
    return signature.takeError();
  job.signature = std::move(*signature);
  if (job.usesAdjoint()) {
    Expected<runner::AdjointSignature> adjoint =
        runner::getAdjointSignature(kernel, job.signature);
    if (!adjoint)
      return adjoint.takeError();
    job.adjoint = std::move(*adjoint);
  }
  // K_jvp, or for --grad=hvp K_hvp: the tangent kernel of K_adj.
  Expected<runner::TangentSignature> tangent = runner::TangentSignature();
  if (checkGrad || grad == Grad::Forward)
    tangent = runner::getTangentSignature(kernel, job.signature,
                                           derivatives.getWidth());
  if (grad == Grad::Hvp)
    tangent = runner::getTangentSignature(
        module.lookupSymbol<ks::KernelOp>(job.adjoint.signature.kernel),
        job.adjoint.signature);
  if (!tangent)
    return tangent.takeError();
  job.tangent = std::move(*tangent);
  job.wrt = derivatives.getWrt().vec();
  if (absTol.getNumOccurrences())
    job.check.atol = absTol;
  if (relTol.getNumOccurrences())
    job.check.rtol = relTol;
  job.check.seed = seed;
  job.inputsFile = inputsFile;
  job.adjointsFile = adjointsFile;
  job.tangentsFile = tangentsFile;
  return job;
}

static tool::GpuSettings getGpuSettings() {
  tool::GpuSettings settings;
  settings.via = via;
  settings.cudaPath = gpuCode.getCudaPath();
  settings.boundsCheck = boundsCheck;
  settings.gridStride = gpuCode.isGridStride();
  settings.deterministic = deterministic;
  settings.blockSize = gpuCode.getBlockSize();
  settings.tapeBytes = gpuCode.getTapeBytes();
  settings.sourceName = inputFile;
  return settings;
}

/// --compile-only: prints the PTX of every kernel of `module` (with
/// --kernel and a gradient mode: of the kernel and its derivative kernels;
/// without --kernel: of every kernel and its derivative kernels).
static int compileOnlyAndPrint(mlir::ModuleOp module) {
  if (isGradMode()) {
    if (!kernelName.empty()) {
      Expected<ks::KernelOp> kernel = selectKernel(module);
      if (!kernel)
        return fail(toString(kernel.takeError()));
      if (mlir::failed(addDerivatives(module, *kernel, /*gpuCost=*/true)))
        return 1;
    } else {
      mlir::PassManager pm(module.getContext());
      if (mlir::failed(applyPassManagerOptions(pm)))
        return 1;
      if (grad == Grad::Hvp)
        addHessianVectorPasses(pm, derivatives.getWrt(), /*gpuCost=*/true);
      if (checkGrad || grad == Grad::Reverse)
        addReverseADPasses(pm, derivatives.getWrt(), /*printActivity=*/false,
                           /*gpuCost=*/true);
      if (checkGrad || grad == Grad::Forward)
        addForwardADPasses(pm, derivatives.getWrt(), derivatives.getWidth());
      if (mlir::failed(pm.run(module)))
        return fail("cannot differentiate the kernels of " + inputFile);
    }
  }
  Expected<runner::CudaModule> code = tool::buildGpuModule(
      module, getGpuSettings(), gpuCode.getArch(kDefaultCudaArch));
  if (!code)
    return tool::reportError(code.takeError());
  return writeResult(code->ptx);
}

/// How the GPU launches the kernels.
static runner::CudaLaunchOptions getLaunchOptions() {
  runner::CudaLaunchOptions options;
  if (gpuCode.getBlockSize())
    options.blockSize = gpuCode.getBlockSize();
  options.gridStride = gpuCode.isGridStride();
  options.boundsCheck = boundsCheck;
  options.repeat = timeLaunches ? unsigned(repeat) : 0;
  return options;
}

/// The executor of --target=cuda: the GPU code of `module` for device 0
/// (or --gpu-arch), loaded on it.
static Expected<std::unique_ptr<runner::CudaExecutor>>
createCudaExecutor(mlir::ModuleOp module, const runner::Grid &grid) {
  // The device first: without one, nothing else matters (status 77).
  Expected<std::vector<runner::CudaDevice>> devices =
      runner::listCudaDevices(nullptr);
  if (!devices)
    return devices.takeError();
  std::string arch =
      gpuCode.getArch(devices->front().arch());
  Expected<runner::CudaModule> code =
      tool::buildGpuModule(module, getGpuSettings(), arch);
  if (!code)
    return code.takeError();
  runner::CudaLaunchOptions options = getLaunchOptions();
  options.via = tool::getViaName(via).str();
  return runner::CudaExecutor::create(*code, grid, options);
}

/// --compare: the tolerances, --atol and --rtol for both precisions.
static runner::CompareOptions getCompareOptions() {
  runner::CompareOptions options;
  for (runner::Tolerance *tolerance : {&options.f32, &options.f64}) {
    if (absTol.getNumOccurrences())
      tolerance->atol = absTol;
    if (relTol.getNumOccurrences())
      tolerance->rtol = relTol;
  }
  return options;
}

/// A copy of `module` whose locations in the kernel file `file` name no
/// file: the run-time messages of its code (a failed bounds check's
/// "FILE:LINE:COL: ...") say ":LINE:COL: ...", which the CPU executor
/// completes. The code, and so the kernel cache's key, is then the same
/// whatever path the kernel file is run by.
static mlir::OwningOpRef<mlir::ModuleOp> withoutFileName(mlir::ModuleOp module,
                                                         StringRef file) {
  mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
  auto none = mlir::StringAttr::get(module.getContext(), "");
  mlir::AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](mlir::FileLineColRange loc) -> std::optional<mlir::Attribute> {
        if (loc.getFilename() != file)
          return std::nullopt;
        return mlir::FileLineColRange::get(
            none, loc.getStartLine(), loc.getStartColumn(), loc.getEndLine(),
            loc.getEndColumn());
      });
  replacer.recursivelyReplaceElementsIn(*copy, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/true);
  return copy;
}

/// The executor of --target=cpu and --compare=cpu: the module's C++
/// compiled into a shared library; null when an error was reported.
static std::unique_ptr<runner::Executor>
createCpuExecutor(mlir::ModuleOp module, const runner::Grid &grid) {
  std::string source;
  // No file name in the code (the banner has none either): the kernel
  // cache has one entry for a kernel, whatever its path.
  CppEmitterOptions emitterOptions;
  CpuPipelineOptions pipeline;
  pipeline.boundsCheck = boundsCheck;
  pipeline.deterministic = deterministic;
  mlir::OwningOpRef<mlir::ModuleOp> pathless =
      withoutFileName(module, inputFile);
  bool emitted;
  {
    // Its diagnostics (none is expected after the frontend's) would name
    // no file: those of the module itself are reported instead.
    mlir::ScopedDiagnosticHandler quiet(
        module.getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
    emitted = mlir::succeeded(
        emitCpuCpp(*pathless, source, pipeline, emitterOptions));
  }
  if (!emitted) {
    (void)emitCpuCpp(module, source, pipeline, emitterOptions);
    return nullptr;
  }
  runner::HostCompiler compiler = runner::getDefaultHostCompiler();
  if (!cxx.empty())
    compiler.command = cxx;
  if (!cacheDir.empty())
    compiler.cacheDir = cacheDir;
  Expected<std::string> library = runner::compileSharedLibrary(source, compiler);
  if (!library) {
    fail(toString(library.takeError()));
    return nullptr;
  }
  // A kernel that traps (an integer division by zero) is reported, not a
  // crash of ksc-run.
  return std::make_unique<runner::TrapReportingExecutor>(
      runner::createCpuExecutor(*library, grid, inputFile), "ksc-run");
}

/// Runs `job` through `executor` and writes what it prints to -o; the
/// status.
static int runAndWrite(const runner::Job &job, runner::JobArguments &data,
                       runner::Executor &executor) {
  std::optional<runner::TimeLimitedExecutor> limited;
  runner::Executor &launcher =
      timeout > 0 ? limited.emplace(executor, timeout, "ksc-run") : executor;
  std::string text;
  raw_string_ostream os(text);
  Error error = runner::runJob(
      job, data,
      [&](StringRef kernel, std::vector<runner::Argument> &args) {
        return launcher.launch(kernel, args);
      },
      os);
  if (!text.empty())
    if (int status = writeResult(text)) {
      consumeError(std::move(error));
      return status;
    }
  if (error)
    return fail(toString(std::move(error)));
  return 0;
}

/// The ksc-run command line, for the case of a recording: the arguments
/// as a shell reads them, those with other characters than letters, digits
/// and `_-+=/.,:@%` in single quotes.
static std::string getCommandLine(int argc, char **argv) {
  std::string text = "ksc-run";
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
      return isAlnum(c) || StringRef("_-+=/.,:@%").contains(c);
    });
    text += ' ';
    if (plain) {
      text += arg;
      continue;
    }
    text += '\'';
    for (char c : arg)
      text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

/// --record: runs `job` on the CPU (unless --record-gpu-failure), writes
/// its results, and adds the run to the bundle --record names: the GPU code
/// of `gpuModule` (`module` differentiated for a GPU), the job, its data,
/// and the results of every launch.
static int recordRun(mlir::ModuleOp module, mlir::ModuleOp gpuModule,
                     const runner::Job &job,
                     runner::JobArguments &data,
                     const std::map<std::string, std::string> &files,
                     const std::string &commandLine) {
  runner::BundleCase recorded;
  recorded.name = recordName;
  if (recorded.name.empty())
    recorded.name = (sys::path::stem(inputFile) + "." + job.signature.kernel +
                     "." + runner::getJobModeName(job.mode))
                        .str();
  if (Error error = runner::checkCaseName(recorded.name))
    return fail(toString(std::move(error)));
  // The code of the module, unless the bundle has it from another case.
  std::string arch = gpuCode.getArch(kDefaultCudaArch);
  std::string key =
      tool::getBundleCodeKey(gpuModule, getGpuSettings(), arch);
  std::optional<runner::BundleCode> reused =
      runner::findRecordedCode(recordDir, key);
  if (reused) {
    recorded.code = std::move(*reused);
  } else {
    Expected<runner::BundleCode> code =
        tool::buildBundleCode(gpuModule, getGpuSettings(), arch);
    if (!code)
      return tool::reportError(code.takeError());
    recorded.code = std::move(*code);
  }
  recorded.command = commandLine;
  recorded.launch = getLaunchOptions();
  recorded.job = job;
  recorded.data = files;
  recorded.compare = getCompareOptions();
  recorded.gpuFailure = recordGpuFailure;
  int status = 0;
  if (recordGpuFailure.empty()) {
    std::unique_ptr<runner::Executor> cpu =
        createCpuExecutor(module, job.grid);
    if (!cpu)
      return 1;
    runner::RecordingExecutor recorder(*cpu);
    status = runAndWrite(job, data, recorder);
    // Only a run that succeeds, or fails in a launch (a bounds check), is
    // one for the GPU to repeat.
    if (status && !recorder.hasLaunchError())
      return status;
    // A benchmark compares nothing (its arrays may be large).
    if (!timeLaunches)
      recorder.takeInto(recorded);
  }
  if (Error error =
          runner::writeCase(recordDir, recorded, getCpuRuntimeHeader()))
    return fail(toString(std::move(error)));
  if (!reused)
    if (Error error = runner::rememberCode(recordDir, key, recorded.code))
      return fail(toString(std::move(error)));
  return status;
}

/// Runs `job` on the executors --target and --compare ask for (the GPU's
/// code from `gpuModule`, `module` differentiated for a GPU), writes its
/// results and the reports; the status.
static int runOnTarget(mlir::ModuleOp module, mlir::ModuleOp gpuModule,
                       const runner::Job &job, runner::JobArguments &data) {
  // The GPU's first: without a GPU nothing else matters (status 77).
  std::unique_ptr<runner::Executor> cpu;
  std::unique_ptr<runner::CudaExecutor> gpu;
  if (target == Target::Cuda) {
    Expected<std::unique_ptr<runner::CudaExecutor>> created =
        createCudaExecutor(gpuModule, job.grid);
    if (!created)
      return tool::reportError(created.takeError());
    gpu = std::move(*created);
  }
  if (target == Target::Cpu || compareWith == Compare::Cpu) {
    cpu = createCpuExecutor(module, job.grid);
    if (!cpu)
      return 1;
  }
  runner::Executor *executor = gpu ? gpu.get() : cpu.get();
  std::optional<runner::CompareExecutor> compare;
  if (compareWith == Compare::Cpu)
    executor = &compare.emplace(*gpu, *cpu, getCompareOptions());
  int status = runAndWrite(job, data, *executor);

  // The reports, on stderr: stdout has the results.
  if (compare && !compare->getResults().empty()) {
    compare->writeReport(errs());
    if (const runner::ArrayComparison *worst = compare->worstFailure())
      status = fail("the GPU's results differ from the CPU's: " +
                    runner::CompareExecutor::describeFailure(*worst));
  }
  if (gpu && timeLaunches && !gpu->getTimings().empty())
    runner::writeTimings(errs(), gpu->getTimings(), gpu->describe());
  return status;
}

/// Checks the options, and parses --dim into `grid`; 0, or the status to
/// exit with.
static int checkOptions(runner::Grid &grid) {
  if (inputFile.empty())
    return fail("no input file (see ksc-run --help)");
  if (Error error = checkGpuOptions())
    return fail(toString(std::move(error)));
  if (!dim.getNumOccurrences() && !compileOnly)
    return fail("--dim=N is required: the number of threads to launch (or "
                "N,M / N,M,K for a 2-D / 3-D launch)");
  grid = {1, 1, 1};
  if (dim.getNumOccurrences()) {
    Expected<runner::Grid> parsed = runner::parseGrid(dim);
    if (!parsed)
      return fail(toString(parsed.takeError()));
    grid = *parsed;
  }
  if (inputsFile.empty() && !compileOnly)
    return fail("--inputs=FILE is required: a JSON object with a value for "
                "every kernel argument");
  if (!(timeout >= 0) || timeout > 1e9)
    return fail("--timeout needs a number of seconds, 0 (no limit) to 1e9");
  if (outputFile != "-" && sameFile(outputFile, inputFile))
    return fail("the -o file '" + outputFile + "' is the input file");
  if (outputFile != "-" && !inputsFile.empty() && inputsFile != "-" &&
      sameFile(outputFile, inputsFile))
    return fail("the -o file '" + outputFile + "' is the --inputs file");
  if (outputFile != "-" && !adjointsFile.empty() && adjointsFile != "-" &&
      sameFile(outputFile, adjointsFile))
    return fail("the -o file '" + outputFile + "' is the --adjoints file");
  if (Error error = checkGradOptions())
    return fail(toString(std::move(error)));
  if (Expected<FrontendOptions> source = sourceOptions.getFrontendOptions();
      !source)
    return fail(toString(source.takeError()));
  return 0;
}

/// The kernels of --input, cleaned up; null after reporting an error.
static mlir::OwningOpRef<mlir::ModuleOp> loadInput(mlir::MLIRContext &context,
                                                   SourceMgr &sourceMgr) {
  // (Checked by checkOptions.)
  FrontendOptions frontendOptions = cantFail(sourceOptions.getFrontendOptions());
  std::vector<std::string> filesRead;
  frontendOptions.filesRead = &filesRead;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadModule(context, sourceMgr, inputFile, frontendOptions, "ksc-run");
  if (!module)
    return nullptr;
  // (The kernel file itself and --inputs are checked by checkOptions.)
  if (const std::string *file = findSameFile(outputFile, filesRead)) {
    fail("the -o file '" + outputFile + "' is '" + escapeLineComment(*file) +
         "', which the kernel file includes");
    return nullptr;
  }
  mlir::PassManager cleanup(&context);
  if (mlir::failed(applyPassManagerOptions(cleanup)))
    return nullptr;
  addKsCleanupPasses(cleanup, precision);
  if (mlir::failed(cleanup.run(*module)))
    return nullptr;
  return module;
}

int runner::kscRunMain(int argc, char **argv) {
  numThreadsOption();
  registerPassManagerOptions();
  cl::HideUnrelatedOptions(runCategory);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "ksc-run " << KSC_VERSION << " (LLVM " << KSC_LLVM_VERSION << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "ksc-run: run a ksc kernel on JSON data\n\n"
      "  ksc-run saxpy.kdsl --kernel=saxpy --dim=4 --inputs=in.json\n");

  if (listDevices)
    return tool::listDevices(outs());
  runner::Grid grid;
  if (int status = checkOptions(grid))
    return status;

  // The runtime of the kernels this process loads reads it at their first
  // launch.
  if (cl::opt<int> &threads = numThreadsOption(); threads.getNumOccurrences())
    ::setenv("KSC_NUM_THREADS", std::to_string(threads).c_str(), 1);

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at source locations; a dump of the IR would be noise.
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module = loadInput(context, sourceMgr);
  if (!module)
    return 1;
  if (compileOnly)
    return compileOnlyAndPrint(*module);

  // The kernel to run, and its derivative kernels.
  Expected<ks::KernelOp> kernel = selectKernel(*module);
  if (!kernel)
    return fail(toString(kernel.takeError()));
  if (!isGradMode())
    keepOnlyKernel(*module, *kernel);
  // The GPU's code from its own copy: its adjoints recompute what is cheap
  // on a GPU (docs/autodiff.md, "Loops"); the kernels' arguments are the
  // same.
  mlir::OwningOpRef<mlir::ModuleOp> gpuModule;
  if (isGradMode() && (target == Target::Cuda || !recordDir.empty())) {
    gpuModule = module->clone();
    Expected<ks::KernelOp> gpuKernel = selectKernel(*gpuModule);
    if (!gpuKernel)
      return fail(toString(gpuKernel.takeError()));
    if (mlir::failed(addDerivatives(*gpuModule, *gpuKernel, /*gpuCost=*/true)))
      return 1;
  }
  if (isGradMode() && mlir::failed(addDerivatives(*module, *kernel)))
    return 1;
  mlir::ModuleOp forGpu = gpuModule ? *gpuModule : *module;
  Expected<runner::Job> job = makeJob(*module, *kernel, grid);
  if (!job)
    return fail(toString(job.takeError()));

  // Its arguments, from its data files (kept for a recording).
  std::map<std::string, std::string> files;
  auto read = [&](StringRef file) -> Expected<json::Value> {
    return readJson(file, files[file.str()]);
  };
  Expected<runner::JobArguments> data = runner::parseJobArguments(*job, read);
  if (!data)
    return fail(toString(data.takeError()));
  if (!recordDir.empty())
    return recordRun(*module, forGpu, *job, *data, files,
                     getCommandLine(argc, argv));
  return runOnTarget(*module, forGpu, *job, *data);
}

