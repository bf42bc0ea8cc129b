//===- Ksc.cpp - The ksc compiler --------------------------------------===//
//
// Part of ksc. The ksc tool (tools/ksc/ksc.cpp is its main): its options,
// their checks, and the compile they ask for.
//
//   ksc FILE.kdsl [--target=cpu|cuda] [--emit=cpp|cuda|mlir] [-o OUT]
//
// Compiles a kernel file (or ks IR in a .mlir file) to C++ for the CPU or
// CUDA C++ for NVIDIA GPUs, or prints its ks IR. Errors go to standard error
// with their source location; the exit status is then 1 and no output file is
// written.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"
#include "ksc/Driver/Driver.h"
#include "ksc/Driver/Tool.h"
#include "ksc/Driver/ToolOptions.h"
#include "ksc/Frontend/Builtins.h"
#include "ksc/InitAll.h"
#include "ksc/Support/Escape.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Paths.h"
#include "ksc/Support/Signals.h"
#include "ksc/Target/Python/PythonModule.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ksc;

namespace {
enum class Target { Cpu, Cuda };
enum class Emit { Cpp, Cuda, Ptx, LLVM, Mlir, Warp, Python };

cl::OptionCategory kscCategory("ksc options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<input .kdsl or .mlir file>"),
                               cl::cat(kscCategory));
cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(kscCategory));
cl::opt<Target> target(
    "target", cl::desc("Code generation target"),
    cl::values(clEnumValN(Target::Cpu, "cpu", "C++ for the CPU (default)"),
               clEnumValN(Target::Cuda, "cuda", "CUDA for NVIDIA GPUs")),
    cl::init(Target::Cpu), cl::cat(kscCategory));
cl::opt<Emit> emit(
    "emit", cl::desc("What to write"),
    cl::values(clEnumValN(Emit::Cpp, "cpp",
                          "C++ source (the default for --target=cpu)"),
               clEnumValN(Emit::Cuda, "cuda",
                          "CUDA C++ source (the default for --target=cuda)"),
               clEnumValN(Emit::Ptx, "ptx",
                          "PTX assembly, through LLVM's NVPTX backend "
                          "(--target=cuda)"),
               clEnumValN(Emit::LLVM, "llvm",
                          "the NVPTX LLVM IR the PTX is made from "
                          "(--target=cuda)"),
               clEnumValN(Emit::Mlir, "mlir", "the ks dialect IR"),
               clEnumValN(Emit::Warp, "warp",
                          "the kernel file as an NVIDIA Warp Python module "
                          "(docs/warp.md)"),
               clEnumValN(Emit::Python, "python",
                          "C++ of a Python extension module (nanobind) "
                          "with a function per kernel (docs/python.md)")),
    cl::init(Emit::Cpp), cl::cat(kscCategory));
cl::opt<std::string> pythonModule(
    "python-module",
    cl::desc("With --emit=python: the name of the Python module (default: "
             "the input file's name up to its first '.')"),
    cl::value_desc("name"), cl::cat(kscCategory));
cl::opt<std::string> pythonInit(
    "python-init",
    cl::desc("With --emit=python: write a function of this name that adds "
             "the kernels to a module (void F(nanobind::module_ &)), for "
             "modules made of several kernel files, instead of the module "
             "itself"),
    cl::value_desc("function"), cl::cat(kscCategory));
cl::opt<bool> standalone(
    "standalone",
    cl::desc("Copy the runtime header into the C++ output so that it "
             "compiles on its own"),
    cl::cat(kscCategory));
cl::opt<bool> boundsCheck(
    "bounds-check",
    cl::desc("Check every array index and run-time vector or matrix "
             "component index; an out-of-range one stops the launch with an "
             "error"),
    cl::cat(kscCategory));
enum class CpuLaunch { Serial, Parallel };
cl::opt<CpuLaunch> cpuLaunch(
    "cpu-launch",
    cl::desc("With --target=cpu: how a launcher runs the threads of a launch "
             "(see docs/language.md)"),
    cl::values(clEnumValN(CpuLaunch::Parallel, "parallel",
                          "chunks of threads on every core, through the "
                          "runtime's thread pool (default)"),
               clEnumValN(CpuLaunch::Serial, "serial",
                          "every thread one after another on the calling "
                          "thread")),
    cl::init(CpuLaunch::Parallel), cl::cat(kscCategory));
cl::opt<bool> deterministic(
    "deterministic",
    cl::desc("Every launch gives the same bits: kernels whose results could "
             "depend on the order of atomic updates (float ones at "
             "data-dependent indices, ones whose old value is used) run "
             "every thread one after another (on the GPU, on one GPU "
             "thread), and GPU sums across blocks are added in a fixed "
             "order"),
    cl::cat(kscCategory));
SourceOptions sourceOptions(kscCategory);
GpuCodeOptions gpuCode(kscCategory, "With --target=cuda",
                       "With --emit=ptx or --emit=llvm",
                       kDefaultCudaArch);
/// The name --gpu-arch had before ksc-run and ksc shared it.
cl::alias archAlias("arch", cl::desc("Alias for --gpu-arch"),
                    cl::aliasopt(gpuCode.getArchOption()), cl::Hidden);
DerivativeOptions derivatives(kscCategory);
cl::opt<Precision> &precision = precisionOption(kscCategory);
enum class Grad { None, Reverse, Forward, All, Hvp };
cl::opt<Grad> grad(
    "grad",
    cl::desc("Also emit derivative kernels of every kernel K (see "
             "docs/autodiff.md)"),
    cl::ValueOptional,
    cl::values(
        clEnumValN(Grad::Reverse, "reverse",
                   "reverse mode: adjoint kernels K_adj, vector-Jacobian "
                   "products (default)"),
        clEnumValN(Grad::Reverse, "", ""),
        clEnumValN(Grad::Forward, "forward",
                   "forward mode: tangent kernels K_jvp, Jacobian-vector "
                   "products"),
        clEnumValN(Grad::All, "all", "both K_jvp and K_adj"),
        clEnumValN(Grad::Hvp, "hvp",
                   "K_adj and K_hvp, Hessian-vector products (forward mode "
                   "over reverse)")),
    cl::init(Grad::None), cl::cat(kscCategory));
cl::opt<bool> printActivity(
    "print-activity",
    cl::desc("With --grad: print which arguments and values are active "
             "(to stderr)"),
    cl::cat(kscCategory));
cl::opt<std::string> emitHeader(
    "emit-header",
    cl::desc("Also write a header declaring what the C++ or CUDA C++ output "
             "defines (its launchers, entry points and the structs they "
             "take), for the code that calls it"),
    cl::value_desc("file"), cl::cat(kscCategory));
cl::opt<std::string> cppNamespace(
    "namespace",
    cl::desc("Put everything the output defines into this C++ namespace "
             "(a or a::b); its extern \"C\" symbols then start with "
             "a__b__"),
    cl::value_desc("ns"), cl::cat(kscCategory));
cl::opt<bool> dependencyFile(
    "MD",
    cl::desc("Also write a Make rule listing the files the output depends "
             "on (the input and every file it includes), as clang -MD does"),
    cl::cat(kscCategory));
cl::alias dependencyFileAlias("MMD", cl::desc("Alias for -MD"),
                              cl::aliasopt(dependencyFile),
                              cl::cat(kscCategory));
cl::opt<std::string> dependencyOutput(
    "MF",
    cl::desc("With -MD: the file to write the rule to (default: the output "
             "with its extension replaced by .d)"),
    cl::value_desc("file"), cl::cat(kscCategory));
cl::list<std::string> dependencyTargets(
    "MT",
    cl::desc("With -MD: the target of the rule, written as given (default: "
             "the output file, escaped for Make; may be given several "
             "times)"),
    cl::value_desc("target"), cl::cat(kscCategory));
cl::list<std::string> quotedDependencyTargets(
    "MQ",
    cl::desc("With -MD: as -MT, with the characters Make treats specially "
             "(spaces, '#', '$') escaped"),
    cl::value_desc("target"), cl::cat(kscCategory));
cl::opt<bool> dependencyPhony(
    "MP",
    cl::desc("With -MD: also a rule without prerequisites for each file the "
             "input includes, so that Make goes on when one is deleted"),
    cl::cat(kscCategory));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* comments in the input "
             "instead of printing them (for tests)"),
    cl::cat(kscCategory));
cl::opt<bool> printRuntimeDir(
    "print-runtime-dir",
    cl::desc("Print the directory holding ksc_runtime.h and exit"),
    cl::cat(kscCategory));
cl::opt<bool> printPythonDir(
    "print-python-dir",
    cl::desc("Print the directory holding the Python helpers (the package "
             "ksc: ksc.torch, ksc.jax) and exit"),
    cl::cat(kscCategory));
cl::opt<bool> printResourceDir(
    "print-resource-dir",
    cl::desc("Print the directory of the Clang builtin headers ksc uses and "
             "exit"),
    cl::cat(kscCategory));
cl::opt<bool>
    printIncludeDir("print-include-dir",
                    cl::desc("Print the directory holding ksc/dsl.h and exit"),
                    cl::cat(kscCategory));
cl::opt<bool> printBuiltinTable(
    "print-builtins",
    cl::desc("Print the kernel language's builtin functions as JSON (name, "
             "group, arity, operands, domain of the derivative) and exit"),
    cl::cat(kscCategory));
} // namespace

static void printVersion(raw_ostream &os) {
  os << "ksc " << KSC_VERSION << " (LLVM " << KSC_LLVM_VERSION << ")\n";
}

/// The files to write, with the options that name them (after
/// checkOutputOptions has filled in -MF's default).
static SmallVector<std::pair<StringRef, StringRef>> getOutputFiles() {
  SmallVector<std::pair<StringRef, StringRef>> outputs = {{"-o", outputFile}};
  if (!emitHeader.empty())
    outputs.push_back({"--emit-header", emitHeader});
  if (dependencyFile)
    outputs.push_back({"-MF", dependencyOutput});
  return outputs;
}

/// Whether no output is one of `filesRead`, the files the compile read
/// (the kernel's includes: the kernel file itself is checked before):
/// the same file by device and inode, whatever the paths. Returns false
/// after an error on stderr.
static bool checkOutputsNotRead(ArrayRef<std::string> filesRead) {
  for (auto [option, path] : getOutputFiles())
    if (const std::string *file = findSameFile(path, filesRead)) {
      errs() << "ksc: error: the " << option << " file '" << path << "' is '"
             << escapeLineComment(*file)
             << "', which the kernel file includes\n";
      return false;
    }
  return true;
}

/// Checks the options that say which files to write besides the output
/// (--emit-header, -MD and its companions, --namespace) and fills in the
/// defaults of -MF and -MT. Returns false after an error on stderr.
static bool checkOutputOptions(bool emitsSource) {
  auto fail = [](const Twine &message) {
    errs() << "ksc: error: " << message << "\n";
    return false;
  };
  if (emit == Emit::Python && emitHeader.getNumOccurrences())
    return fail("--emit=python writes one file, the whole module (no "
                "--emit-header)");
  if (!emitsSource && (emitHeader.getNumOccurrences() ||
                       cppNamespace.getNumOccurrences()))
    return fail("--emit-header and --namespace need C++ or CUDA C++ output "
                "(--emit=cpp or --emit=cuda)");
  if (cppNamespace.getNumOccurrences()) {
    std::string why = checkCppNamespace(cppNamespace);
    if (!why.empty())
      return fail("invalid --namespace '" + cppNamespace + "': " + why);
  }
  if (emitHeader.getNumOccurrences() && (emitHeader.empty() ||
                                         emitHeader == "-"))
    return fail("--emit-header needs a file name");
  if (!dependencyFile && (dependencyOutput.getNumOccurrences() ||
                          dependencyTargets.getNumOccurrences() ||
                          quotedDependencyTargets.getNumOccurrences() ||
                          dependencyPhony))
    return fail("-MF, -MT, -MQ and -MP need -MD");
  for (const std::string &target : quotedDependencyTargets)
    dependencyTargets.push_back(quoteMakePath(target));
  if (dependencyFile) {
    if (isMlirFile(inputFile))
      return fail("-MD needs a kernel file (.kdsl) as input");
    if (outputFile == "-" && (!dependencyOutput.getNumOccurrences() ||
                              dependencyTargets.empty()))
      return fail("-MD with the output on stdout needs -MF FILE and -MT "
                  "TARGET (or -MQ)");
    if (!dependencyOutput.getNumOccurrences()) {
      SmallString<128> path(outputFile);
      sys::path::replace_extension(path, ".d");
      dependencyOutput = std::string(path);
    }
    if (dependencyOutput.empty() || dependencyOutput == "-")
      return fail("-MF needs a file name");
    if (dependencyTargets.empty())
      dependencyTargets.push_back(quoteMakePath(outputFile));
    for (const std::string &target : dependencyTargets)
      if (!canWriteMakePath(target))
        return fail("-MD cannot write a Make rule with the target '" +
                    escapeLineComment(target) + "': it has a line break");
  }
  // No output may overwrite the input or another output.
  SmallVector<std::pair<StringRef, StringRef>> outputs = getOutputFiles();
  for (auto [i, output] : llvm::enumerate(outputs)) {
    if (output.second == "-")
      continue;
    if (inputFile != "-" && sameFile(output.second, inputFile))
      return fail("the " + output.first + " file '" + output.second +
                  "' is the input file");
    for (auto other : ArrayRef(outputs).drop_front(i + 1))
      if (sameFile(output.second, other.second))
        return fail(output.first + " and " + other.first +
                    " name the same file '" + output.second + "'");
  }
  return true;
}

/// Writes `contents` to `path` (writeFileIfChanged). Returns false after an
/// error on stderr.
static bool writeOutput(StringRef path, StringRef contents) {
  if (Error error = writeFileIfChanged(path, contents)) {
    errs() << "ksc: error: cannot write '" << path
           << "': " << errorToErrorCode(std::move(error)).message() << "\n";
    return false;
  }
  return true;
}

/// The name of the module --emit=python writes: --python-module, or the
/// input file's name up to its first '.'.
static std::string getPythonModuleName() {
  if (pythonModule.getNumOccurrences())
    return pythonModule;
  StringRef name = sys::path::filename(inputFile);
  return name.take_until([](char c) { return c == '.'; }).str();
}

/// Whether --emit asks for the output of LLVM's NVPTX backend (PTX, or the
/// LLVM IR it is made from).
static bool emitsNvptx() { return emit == Emit::Ptx || emit == Emit::LLVM; }

/// Checks what to write and for which target (--target, --emit and the
/// options of the CUDA and PTX outputs), after defaulting --emit to the
/// target's source language. Returns false after an error on stderr.
static bool checkTargetOptions() {
  // What to write: --emit defaults to the target's source language.
  if (target == Target::Cuda && !emit.getNumOccurrences())
    emit = Emit::Cuda;
  if (target == Target::Cpu && emit == Emit::Cuda) {
    errs() << "ksc: error: --emit=cuda needs --target=cuda\n";
    return false;
  }
  bool nvptx = emitsNvptx();
  if (target == Target::Cpu && nvptx) {
    errs() << "ksc: error: --emit=" << (emit == Emit::Ptx ? "ptx" : "llvm")
           << " needs --target=cuda\n";
    return false;
  }
  if (!nvptx && !gpuCode.givenNvptxOptions().empty()) {
    errs() << "ksc: error: --gpu-arch and --cuda-path need --emit=ptx or "
              "--emit=llvm\n";
    return false;
  }
  if ((pythonModule.getNumOccurrences() || pythonInit.getNumOccurrences()) &&
      emit != Emit::Python) {
    errs() << "ksc: error: --python-module and --python-init need "
              "--emit=python\n";
    return false;
  }
  if (pythonInit.getNumOccurrences() &&
      !checkPythonModuleName(pythonInit).empty()) {
    errs() << "ksc: error: invalid --python-init '"
           << escapeLineComment(pythonInit)
           << "': it must be a C++ identifier of ASCII letters, digits and "
              "'_'\n";
    return false;
  }
  if (target == Target::Cuda && emit == Emit::Cpp) {
    errs() << "ksc: error: --target=cuda writes CUDA C++ (--emit=cuda), not "
              "--emit=cpp\n";
    return false;
  }
  if (target != Target::Cuda && !gpuCode.givenLaunchOptions().empty()) {
    errs() << "ksc: error: --launch, --block-size and --tape-bytes need "
              "--target=cuda\n";
    return false;
  }
  if (target != Target::Cpu && cpuLaunch.getNumOccurrences()) {
    errs() << "ksc: error: --cpu-launch needs --target=cpu\n";
    return false;
  }
  if (emit == Emit::Python) {
    std::string why = checkPythonModuleName(getPythonModuleName());
    if (!why.empty()) {
      errs() << "ksc: error: invalid Python module name '"
             << escapeLineComment(getPythonModuleName()) << "': " << why
             << (pythonModule.getNumOccurrences()
                     ? ""
                     : " (name the module with --python-module)")
             << "\n";
      return false;
    }
  }
  if (Error error = gpuCode.validate()) {
    errs() << "ksc: error: " << toString(std::move(error)) << "\n";
    return false;
  }
  return true;
}

static CpuPipelineOptions cpuPipeline() {
  CpuPipelineOptions options;
  options.boundsCheck = boundsCheck;
  options.parallelLaunches = cpuLaunch == CpuLaunch::Parallel;
  options.deterministic = deterministic;
  return options;
}

/// --emit=warp: the kernel file as a Warp module, from its Clang AST (the
/// ks IR has lost the source's statements).
static int emitWarp(mlir::MLIRContext &context, FrontendOptions &options,
                    const MakeDependencies &dependencies) {
  if (isMlirFile(inputFile)) {
    errs() << "ksc: error: --emit=warp needs a kernel file (.kdsl), not ks "
              "IR\n";
    return 1;
  }
  if (target != Target::Cpu) {
    errs() << "ksc: error: --emit=warp takes no --target: Warp compiles "
              "the module for CPUs and GPUs itself\n";
    return 1;
  }
  if (grad != Grad::None) {
    errs() << "ksc: error: --emit=warp writes the kernels only: Warp "
              "differentiates them itself (no --grad)\n";
    return 1;
  }
  options.emitWarp = true;
  FrontendResult result = importKdsl(context, inputFile, options);
  if (!result.success)
    return 1;
  if (result.warp.empty()) {
    errs() << result.warpError << "\n";
    return 1;
  }
  if (!checkOutputsNotRead(*options.filesRead) ||
      !writeOutput(outputFile, result.warp) ||
      (dependencyFile && !writeOutput(dependencyOutput, dependencies.rule)))
    return 1;
  return 0;
}

/// --emit=python: appends the module's bindings to the kernels' C++ or
/// CUDA C++ in `output`.
static mlir::LogicalResult emitBindings(mlir::ModuleOp module,
                                        std::string &output) {
  PythonModuleOptions python;
  python.moduleName = getPythonModuleName();
  python.initFunction = pythonInit;
  python.cppNamespace = cppNamespace;
  python.cuda = target == Target::Cuda;
  python.width = derivatives.getWidth();
  raw_string_ostream os(output);
  return translateToPythonBindings(module, os, python);
}

/// Writes what --emit asks for into `output` (and with `header` the
/// header of --emit-header): the ks IR, or the module lowered and printed
/// as C++, CUDA C++, PTX or LLVM IR.
static mlir::LogicalResult emitCode(mlir::ModuleOp module, std::string &output,
                                    std::string *header) {
  bool nvptx = emitsNvptx();
  if (emit == Emit::Mlir) {
    // The ks-level passes the options ask for show in the IR.
    if (boundsCheck) {
      mlir::PassManager pm(module->getContext());
      if (mlir::failed(applyPassManagerOptions(pm)))
        return mlir::failure();
      pm.addPass(ks::createKsInsertBoundsChecks());
      if (mlir::failed(pm.run(module)))
        return mlir::failure();
    }
    raw_string_ostream os(output);
    mlir::OpPrintingFlags flags;
    flags.printNameLocAsPrefix();
    module->print(os, flags);
  } else {
    CppEmitterOptions emitterOptions;
    emitterOptions.standalone = standalone;
    emitterOptions.sourceName =
        inputFile == "-" ? std::string("<stdin>") : inputFile.getValue();
    emitterOptions.cppNamespace = cppNamespace;
    CudaPipelineOptions cudaPipeline;
    cudaPipeline.boundsCheck = boundsCheck;
    cudaPipeline.gridStride = gpuCode.isGridStride();
    cudaPipeline.deterministic = deterministic;
    cudaPipeline.tapeBytes = gpuCode.getTapeBytes();
    if (nvptx) {
      PtxOptions ptxOptions;
      ptxOptions.arch = gpuCode.getArch(kDefaultCudaArch);
      ptxOptions.cudaPath = gpuCode.getCudaPath();
      ptxOptions.llvmIR = emit == Emit::LLVM;
      ptxOptions.blockSize = gpuCode.getBlockSize();
      if (mlir::failed(emitPtx(module, output, cudaPipeline, ptxOptions)))
        return mlir::failure();
    } else if (emit == Emit::Cuda ||
               (emit == Emit::Python && target == Target::Cuda)) {
      emitterOptions.target = CppTarget::Cuda;
      emitterOptions.cudaEntryPoints = emit == Emit::Python;
      emitterOptions.blockSize = gpuCode.getBlockSize();
      if (mlir::failed(emitCudaCpp(module, output, cudaPipeline,
                                   emitterOptions, header)))
        return mlir::failure();
      if (emit == Emit::Python && mlir::failed(emitBindings(module, output)))
        return mlir::failure();
    } else if (mlir::failed(emitCpuCpp(module, output, cpuPipeline(),
                                       emitterOptions, header))) {
      return mlir::failure();
    } else if (emit == Emit::Python) {
      return emitBindings(module, output);
    }
  }
  return mlir::success();
}

int ksc::kscMain(int argc, char **argv) {
  cl::HideUnrelatedOptions(kscCategory);
  cl::SetVersionPrinter(printVersion);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  registerPassManagerOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "ksc: ahead-of-time compiler for GPU-style kernels written in C++\n\n"
      "  ksc saxpy.kdsl --target=cpu --emit=cpp -o saxpy.cpp\n"
      "  ksc saxpy.kdsl --target=cuda --emit=cuda -o saxpy.cu\n");

  if (printRuntimeDir) {
    outs() << getRuntimeDir() << "\n";
    return 0;
  }
  if (printPythonDir) {
    outs() << getPythonDir() << "\n";
    return 0;
  }
  if (printResourceDir) {
    outs() << getClangResourceDir() << "\n";
    return 0;
  }
  if (printIncludeDir) {
    outs() << getPreludeIncludeDir() << "\n";
    return 0;
  }
  if (inputFile.empty() && !printBuiltinTable) {
    errs() << "ksc: error: no input file (see ksc --help)\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at source locations; a dump of the IR would be noise.
  context.printOpOnDiagnostic(false);

  SourceMgr sourceMgr;
  Expected<FrontendOptions> source = sourceOptions.getFrontendOptions();
  if (!source) {
    errs() << "ksc: error: " << toString(source.takeError()) << "\n";
    return 1;
  }
  FrontendOptions frontendOptions = std::move(*source);
  if (printBuiltinTable)
    return printBuiltins(outs(), errs(), frontendOptions) ? 0 : 1;
  if (verifyDiagnostics && (dependencyFile || !emitHeader.empty())) {
    errs() << "ksc: error: --verify-diagnostics writes no files (-MD, "
              "--emit-header)\n";
    return 1;
  }

  if (verifyDiagnostics) {
    if (!isMlirFile(inputFile)) {
      if (inputFile != "-" && !sys::fs::exists(inputFile)) {
        errs() << "ksc: error: cannot open input file '" << inputFile
               << "': No such file or directory\n";
        return 1;
      }
      frontendOptions.verifyDiagnostics = true;
      return importKdsl(context, inputFile, frontendOptions).success ? 0 : 1;
    }
    mlir::SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        loadModule(context, sourceMgr, inputFile, frontendOptions, "ksc");
    if (module && emit == Emit::Cpp) {
      std::string ignored;
      CppEmitterOptions emitterOptions;
      (void)emitCpuCpp(*module, ignored, cpuPipeline(), emitterOptions);
    }
    return mlir::succeeded(handler.verify()) ? 0 : 1;
  }

  if (!checkTargetOptions())
    return 1;
  if (!checkOutputOptions(emit == Emit::Cpp || emit == Emit::Cuda ||
                          emit == Emit::Python))
    return 1;
  MakeDependencies dependencies;
  if (dependencyFile) {
    dependencies.targets = dependencyTargets;
    dependencies.phonyTargets = dependencyPhony;
    frontendOptions.dependencies = &dependencies;
  }
  std::vector<std::string> filesRead;
  frontendOptions.filesRead = &filesRead;
  if (emit == Emit::Warp)
    return emitWarp(context, frontendOptions, dependencies);

  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadModule(context, sourceMgr, inputFile, frontendOptions, "ksc");
  if (!module)
    return 1;
  if (grad == Grad::None && (derivatives.hasWrt() || printActivity)) {
    errs() << "ksc: error: --wrt and --print-activity need --grad\n";
    return 1;
  }
  mlir::PassManager cleanup(&context);
  if (mlir::failed(applyPassManagerOptions(cleanup)))
    return 1;
  addKsCleanupPasses(cleanup, precision);
  if (derivatives.hasWidth() && grad != Grad::Forward && grad != Grad::All) {
    errs() << "ksc: error: --width needs --grad=forward or --grad=all\n";
    return 1;
  }
  if (Error error = derivatives.validate()) {
    errs() << "ksc: error: " << toString(std::move(error)) << "\n";
    return 1;
  }
  if (printActivity && grad != Grad::Reverse && grad != Grad::All) {
    errs() << "ksc: error: --print-activity needs --grad=reverse or "
              "--grad=all\n";
    return 1;
  }
  if (grad == Grad::Forward || grad == Grad::All)
    addForwardADPasses(cleanup, derivatives.getWrt(), derivatives.getWidth());
  // Adjoints for a GPU recompute what is cheap there (docs/autodiff.md,
  // "Loops").
  bool gpuCost = target == Target::Cuda;
  if (grad == Grad::Reverse || grad == Grad::All)
    addReverseADPasses(cleanup, derivatives.getWrt(), printActivity, gpuCost);
  if (grad == Grad::Hvp)
    addHessianVectorPasses(cleanup, derivatives.getWrt(), gpuCost);
  if (mlir::failed(cleanup.run(*module)))
    return 1;

  std::string output, header;
  std::string *headerOut = emitHeader.empty() ? nullptr : &header;
  if (mlir::failed(emitCode(*module, output, headerOut)))
    return 1;

  // Only once everything compiled, each through a temporary file (a
  // failing compile leaves no partial output behind) and only when it
  // changed; the dependency file last, so that it never describes an
  // output that is not there.
  if (!checkOutputsNotRead(filesRead) || !writeOutput(outputFile, output) ||
      (headerOut && !writeOutput(emitHeader, header)) ||
      (dependencyFile && !writeOutput(dependencyOutput, dependencies.rule)))
    return 1;
  return 0;
}

