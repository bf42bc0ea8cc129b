//===- ksc-run.cpp - Run a kernel on JSON data ------------------------===//
//
// Part of ksc.
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
// --check-grad it compares K_adj with central finite differences of K.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Driver/Driver.h"
#include "ksc/InitAll.h"
#include "ksc/Runner/Gradient.h"
#include "ksc/Runner/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ksc;

namespace {
enum class Target { Cpu };

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
                                             "on this machine (default)")),
                       cl::init(Target::Cpu), cl::cat(runCategory));
cl::opt<bool>
    boundsCheck("bounds-check",
                cl::desc("Check array indices and stop with an error on an "
                         "out-of-bounds access (default: true)"),
                cl::init(true), cl::cat(runCategory));
cl::opt<std::string> cxx("cxx",
                         cl::desc("Host C++ compiler (default: $KSC_CXX, "
                                  "else the compiler ksc was built with)"),
                         cl::value_desc("path"), cl::cat(runCategory));
cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Directory for compiled kernels (default: $KSC_CACHE_DIR, else "
             "~/.cache/ksc)"),
    cl::value_desc("dir"), cl::cat(runCategory));
cl::list<std::string> includeDirs("I", cl::Prefix,
                                  cl::desc("Add a directory to search for "
                                           "#include \"...\""),
                                  cl::value_desc("dir"), cl::cat(runCategory));
cl::list<std::string> defines("D", cl::Prefix,
                              cl::desc("Define a macro (NAME or NAME=VALUE)"),
                              cl::value_desc("macro"), cl::cat(runCategory));

cl::opt<Precision> &precision = precisionOption(runCategory);
enum class Grad { None, Reverse };
cl::opt<Grad> grad(
    "grad",
    cl::desc("Run the adjoint kernel K_adj on the output adjoints in "
             "--adjoints and print the input adjoints (reverse mode; see "
             "docs/autodiff.md)"),
    cl::ValueOptional,
    cl::values(clEnumValN(Grad::Reverse, "reverse",
                          "reverse mode: vector-Jacobian products (default)"),
               clEnumValN(Grad::Reverse, "", "")),
    cl::init(Grad::None), cl::cat(runCategory));
cl::opt<std::string> adjointsFile(
    "adjoints",
    cl::desc("With --grad: JSON object with the output adjoint of "
             "arguments, by argument name (missing ones are zero)"),
    cl::value_desc("file"), cl::cat(runCategory));
cl::opt<bool>
    checkGrad("check-grad",
              cl::desc("Check the adjoint kernel K_adj against central finite "
                       "differences of the kernel; exit 1 if they differ"),
              cl::cat(runCategory));
cl::list<std::string>
    wrt("wrt",
        cl::desc("With --grad or --check-grad: differentiate with respect "
                 "to these arguments only"),
        cl::CommaSeparated, cl::value_desc("arg,..."), cl::cat(runCategory));
cl::opt<double> absTol("atol",
                       cl::desc("With --check-grad: absolute tolerance "
                                "(default 1e-3 for float, 1e-7 for double)"),
                       cl::value_desc("a"), cl::cat(runCategory));
cl::opt<double> relTol("rtol",
                       cl::desc("With --check-grad: relative tolerance "
                                "(default 1e-2 for float, 1e-6 for double)"),
                       cl::value_desc("r"), cl::cat(runCategory));
cl::alias tol("tol", cl::desc("Alias for --rtol"), cl::aliasopt(relTol),
              cl::cat(runCategory));
cl::opt<uint64_t> seed("seed",
                       cl::desc("With --check-grad: seed of the random "
                                "output adjoints (default 1)"),
                       cl::value_desc("n"), cl::init(1), cl::cat(runCategory));
} // namespace

static int fail(const Twine &message) {
  errs() << "ksc-run: error: " << message << "\n";
  return 1;
}

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// `value` with 6 significant digits.
static std::string formatNumber(double value) {
  std::string text;
  raw_string_ostream(text) << format("%.6g", value);
  return text;
}

static bool isGradMode() { return checkGrad || grad != Grad::None; }

/// Refuses options that do not go together.
static Error checkGradOptions() {
  if (checkGrad && grad != Grad::None)
    return makeError("--check-grad and --grad are two different modes; choose "
                     "one");
  if (grad != Grad::None && adjointsFile.empty())
    return makeError("--grad needs --adjoints=FILE: a JSON object with the "
                     "output adjoint of arguments, by argument name");
  if (grad == Grad::None && !adjointsFile.empty())
    return makeError("--adjoints needs --grad");
  if (!isGradMode() && !wrt.empty())
    return makeError("--wrt needs --grad or --check-grad");
  if (!checkGrad && (absTol.getNumOccurrences() || relTol.getNumOccurrences() ||
                     seed.getNumOccurrences()))
    return makeError("--atol, --rtol, --tol and --seed need --check-grad");
  if (absTol < 0 || relTol < 0)
    return makeError("--atol and --rtol must not be negative");
  return Error::success();
}

/// The kernel --kernel names, or the only one (adjoint kernels do not count
/// in the gradient modes).
static Expected<ks::KernelOp> selectKernel(mlir::ModuleOp module) {
  SmallVector<ks::KernelOp> kernels;
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (!isGradMode() || !runner::isAdjointKernel(k))
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

/// Makes the adjoint kernel of `kernel` unless the module has it (a .mlir
/// file may), after dropping the other kernels: they need not be
/// differentiable.
static mlir::LogicalResult addAdjoint(mlir::ModuleOp module,
                                      ks::KernelOp kernel) {
  bool found = false;
  for (ks::KernelOp k :
       llvm::make_early_inc_range(module.getOps<ks::KernelOp>())) {
    found |= runner::isAdjointOf(k, kernel);
    if (k != kernel && !runner::isAdjointOf(k, kernel))
      k.erase();
  }
  if (found)
    return mlir::success();
  mlir::PassManager pm(module.getContext());
  addReverseADPasses(pm, wrt);
  if (mlir::failed(pm.run(module))) {
    fail("cannot differentiate kernel '" + kernel.getSymName() + "'");
    return mlir::failure();
  }
  return mlir::success();
}

/// --grad: the output adjoints in --adjoints.
static Expected<std::vector<runner::Argument>>
readAdjoints(const runner::AdjointSignature &adjoint,
             ArrayRef<runner::Argument> args) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFileOrSTDIN(adjointsFile);
  if (!buffer)
    return makeError("cannot read '" + adjointsFile +
                     "': " + buffer.getError().message());
  Expected<json::Value> value = json::parse((*buffer)->getBuffer());
  if (!value)
    return makeError(adjointsFile +
                     " is not valid JSON: " + toString(value.takeError()));
  Expected<std::vector<runner::Argument>> adjoints =
      runner::parseAdjoints(adjoint, args, *value);
  if (!adjoints)
    return makeError(adjointsFile + ": " + toString(adjoints.takeError()));
  return adjoints;
}

/// --grad: runs K_adj on `adjoints` and writes the input adjoints.
static int runAdjointKernel(const runner::AdjointSignature &adjoint,
                            ArrayRef<runner::Argument> args,
                            std::vector<runner::Argument> &adjoints,
                            runner::Launcher launch) {
  if (Error error = runner::runAdjoint(adjoint, args, adjoints, launch))
    return fail(toString(std::move(error)));
  if (Error error = writeToOutput(outputFile, [&](raw_ostream &os) {
        runner::writeArrays(os, adjoints);
        return Error::success();
      }))
    return fail("cannot write '" + outputFile +
                "': " + errorToErrorCode(std::move(error)).message());
  return 0;
}

/// --check-grad: compares K_adj with finite differences and writes the
/// report; 1 when an input adjoint is off.
static int runGradCheck(const runner::AdjointSignature &adjoint,
                        ArrayRef<runner::Argument> args,
                        runner::Launcher launch) {
  runner::GradCheckOptions options;
  if (absTol.getNumOccurrences())
    options.atol = absTol;
  if (relTol.getNumOccurrences())
    options.rtol = relTol;
  options.seed = seed;
  options.only = wrt;
  Expected<runner::GradCheckReport> report =
      runner::checkGradient(adjoint, args, launch, options);
  if (!report)
    return fail(toString(report.takeError()));
  if (Error error = writeToOutput(outputFile, [&](raw_ostream &os) {
        runner::writeGradCheckReport(os, *report);
        return Error::success();
      }))
    return fail("cannot write '" + outputFile +
                "': " + errorToErrorCode(std::move(error)).message());
  const runner::GradCheckResult *worst = report->worstFailure();
  if (!worst)
    return 0;
  return fail("gradient check failed: the adjoint of '" + worst->name +
              "' differs from central differences at " + worst->worst +
              ": AD " + formatNumber(worst->worstAD) + ", FD " +
              formatNumber(worst->worstFD) + " (|AD - FD| is " +
              formatNumber(worst->worstRatio) + " times atol + rtol * |FD|)");
}

static int runKernel(int argc, char **argv) {
  cl::HideUnrelatedOptions(runCategory);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "ksc-run " << KSC_VERSION << " (LLVM " << KSC_LLVM_VERSION << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "ksc-run: run a ksc kernel on JSON data\n\n"
      "  ksc-run saxpy.kdsl --kernel=saxpy --dim=4 --inputs=in.json\n");

  if (inputFile.empty())
    return fail("no input file (see ksc-run --help)");
  if (!dim.getNumOccurrences())
    return fail("--dim=N is required: the number of threads to launch (or "
                "N,M / N,M,K for a 2-D / 3-D launch)");
  Expected<runner::Grid> grid = runner::parseGrid(dim);
  if (!grid)
    return fail(toString(grid.takeError()));
  if (inputsFile.empty())
    return fail("--inputs=FILE is required: a JSON object with a value for "
                "every kernel argument");
  if (Error error = checkGradOptions())
    return fail(toString(std::move(error)));

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at source locations; a dump of the IR would be noise.
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  FrontendOptions frontendOptions;
  for (const std::string &dir : includeDirs)
    if (dir.empty()) {
      errs() << "ksc-run: error: -I needs a directory\n";
      return 1;
    }
  for (const std::string &define : defines)
    if (define.empty() || define[0] == '=') {
      errs() << "ksc-run: error: -D needs a macro name (NAME or NAME=VALUE)\n";
      return 1;
    }
  frontendOptions.includeDirs = includeDirs;
  frontendOptions.defines = defines;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadModule(context, sourceMgr, inputFile, frontendOptions, "ksc-run");
  if (!module)
    return 1;
  mlir::PassManager cleanup(&context);
  addKsCleanupPasses(cleanup, precision);
  if (mlir::failed(cleanup.run(*module)))
    return 1;

  // The kernel to run, and its adjoint kernel.
  Expected<ks::KernelOp> kernel = selectKernel(*module);
  if (!kernel)
    return fail(toString(kernel.takeError()));
  if (isGradMode() && mlir::failed(addAdjoint(*module, *kernel)))
    return 1;
  Expected<runner::Signature> signature = runner::getSignature(*kernel);
  if (!signature)
    return fail(toString(signature.takeError()));
  Expected<runner::AdjointSignature> adjoint = runner::AdjointSignature();
  if (isGradMode())
    adjoint = runner::getAdjointSignature(*kernel, *signature);
  if (!adjoint)
    return fail(toString(adjoint.takeError()));

  // Its arguments.
  ErrorOr<std::unique_ptr<MemoryBuffer>> inputsBuffer =
      MemoryBuffer::getFileOrSTDIN(inputsFile);
  if (!inputsBuffer)
    return fail("cannot read '" + inputsFile +
                "': " + inputsBuffer.getError().message());
  Expected<json::Value> inputs = json::parse((*inputsBuffer)->getBuffer());
  if (!inputs)
    return fail(inputsFile +
                " is not valid JSON: " + toString(inputs.takeError()));
  Expected<std::vector<runner::Argument>> args =
      runner::parseArguments(*signature, *inputs);
  if (!args)
    return fail(inputsFile + ": " + toString(args.takeError()));
  std::vector<runner::Argument> adjoints;
  if (isGradMode())
    if (Error error = runner::checkContiguous(*adjoint, *args))
      return fail(inputsFile + ": " + toString(std::move(error)));
  if (grad != Grad::None) {
    Expected<std::vector<runner::Argument>> read =
        readAdjoints(*adjoint, *args);
    if (!read)
      return fail(toString(read.takeError()));
    adjoints = std::move(*read);
  }

  // Compile, load, launch.
  std::string source;
  CppEmitterOptions emitterOptions;
  emitterOptions.sourceName = inputFile;
  CpuPipelineOptions pipeline;
  pipeline.boundsCheck = boundsCheck;
  if (mlir::failed(emitCpuCpp(*module, source, pipeline, emitterOptions)))
    return 1;
  runner::HostCompiler compiler = runner::getDefaultHostCompiler();
  if (!cxx.empty())
    compiler.command = cxx;
  if (!cacheDir.empty())
    compiler.cacheDir = cacheDir;
  Expected<std::string> library =
      runner::compileSharedLibrary(source, compiler);
  if (!library)
    return fail(toString(library.takeError()));
  auto launch = [&](StringRef name, std::vector<runner::Argument> &values) {
    return runner::launch(*library, name, *grid, values);
  };
  if (checkGrad)
    return runGradCheck(*adjoint, *args, launch);
  if (grad != Grad::None)
    return runAdjointKernel(*adjoint, *args, adjoints, launch);
  if (Error error = launch(signature->kernel, *args))
    return fail(toString(std::move(error)));

  if (Error error = writeToOutput(outputFile, [&](raw_ostream &os) {
        runner::writeArrays(os, *args);
        return Error::success();
      }))
    return fail("cannot write '" + outputFile +
                "': " + errorToErrorCode(std::move(error)).message());
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  return runWithLargeStack([&] { return runKernel(argc, argv); });
}
