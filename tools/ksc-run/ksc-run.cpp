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
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Driver/Driver.h"
#include "ksc/InitAll.h"
#include "ksc/Runner/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
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
} // namespace

static int fail(const Twine &message) {
  errs() << "ksc-run: error: " << message << "\n";
  return 1;
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
  addKsCleanupPasses(cleanup);
  if (mlir::failed(cleanup.run(*module)))
    return 1;

  // The kernel to run.
  SmallVector<ks::KernelOp> kernels(module->getOps<ks::KernelOp>());
  std::string available;
  for (ks::KernelOp k : kernels)
    available += (available.empty() ? "" : ", ") + k.getSymName().str();
  ks::KernelOp kernel;
  if (kernels.empty())
    return fail(inputFile + " has no kernels to run (mark one KSC_KERNEL)");
  if (kernelName.empty()) {
    if (kernels.size() != 1)
      return fail(inputFile + " has " + Twine(kernels.size()) +
                  " kernels; choose one with --kernel (" + available + ")");
    kernel = kernels.front();
  } else {
    for (ks::KernelOp k : kernels)
      if (k.getSymName() == kernelName)
        kernel = k;
    if (!kernel)
      return fail("no kernel named '" + kernelName + "' in " + inputFile +
                  " (kernels: " + available + ")");
  }
  Expected<runner::Signature> signature = runner::getSignature(kernel);
  if (!signature)
    return fail(toString(signature.takeError()));

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
  if (Error error = runner::launch(*library, signature->kernel, *grid, *args))
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
