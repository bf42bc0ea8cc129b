//===- PythonModule.cpp - Kernels as a Python extension module -----------===//
//
// Part of ksc. See PythonModule.h. The signatures come from the runner's
// readers (ksc/Runner: getSignature, getAdjointSignature,
// getTangentSignature), which also check that a derivative kernel's
// parameters are the ones docs/autodiff.md describes.
//
//===----------------------------------------------------------------------===//

#include "ksc/Target/Python/PythonModule.h"

#include "ksc/Dialect/Ks/IR/KsDialect.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Runner/Gradient.h"
#include "ksc/Runner/Tangent.h"
#include "ksc/Support/Escape.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;
using namespace ksc;
using runner::Param;
using runner::Scalar;
using runner::Signature;

namespace {

/// What the table says of one kernel.
struct KernelEntry {
  ks::KernelOp op;
  Signature signature;
  StringRef kind = "primal";
  std::string primal;
  unsigned numPrimal = 0;
  std::vector<unsigned> primalOf;
  std::vector<unsigned> finalValueArgs;
  unsigned width = 1;
  /// The Python names of the function and of its parameters, and the
  /// C++ names of the parameters of the function's lambda.
  std::string pythonName;
  std::vector<std::string> paramNames;
  std::vector<std::string> cppNames;
};

StringRef scalarEnumerator(Scalar scalar) {
  switch (scalar) {
  case Scalar::F32:
    return "f32";
  case Scalar::F64:
    return "f64";
  case Scalar::I1:
    return "boolean";
  case Scalar::I32:
    return "i32";
  case Scalar::U32:
    return "u32";
  case Scalar::I64:
    return "i64";
  }
  llvm_unreachable("unknown scalar");
}

/// `name` as a Python name not in `taken` (nor a keyword): a trailing `_`
/// until it is free. Adds it to `taken`.
std::string freePythonName(StringRef name, StringSet<> &taken) {
  std::string result = name.str();
  while (isPythonKeyword(result) || taken.contains(result))
    result += "_";
  taken.insert(result);
  return result;
}

/// Fills in what `entry` derives from (its kind, the primal kernel, how
/// its parameters map to the primal ones) from its attributes, through the
/// runner's readers of derivative signatures.
LogicalResult readDerivative(KernelEntry &entry, unsigned width) {
  ks::KernelOp op = entry.op;
  bool adjoint = op->hasAttr(ks::kAdjointOfAttr);
  auto of = op->getAttrOfType<mlir::FlatSymbolRefAttr>(
      adjoint ? ks::kAdjointOfAttr : ks::kTangentOfAttr);
  if (!of)
    return op.emitError("the attribute naming the kernel '")
           << op.getSymName() << "' differentiates is not a symbol";
  auto primal = mlir::SymbolTable::lookupNearestSymbolFrom<ks::KernelOp>(
      op, of.getAttr());
  if (!primal)
    return op.emitError("kernel '")
           << op.getSymName() << "' differentiates an unknown kernel " << of;
  Expected<Signature> primalSig = runner::getSignature(primal);
  if (!primalSig)
    return op.emitError(toString(primalSig.takeError()));
  runner::DerivativeSignature derivative;
  if (adjoint) {
    Expected<runner::AdjointSignature> sig =
        runner::getAdjointSignature(primal, *primalSig);
    if (!sig)
      return op.emitError(toString(sig.takeError()));
    derivative = std::move(*sig);
  } else {
    bool hvp = primal->hasAttr(ks::kAdjointOfAttr);
    entry.kind = hvp ? "hvp" : "tangent";
    entry.width = hvp ? 1 : width;
    Expected<runner::TangentSignature> sig =
        runner::getTangentSignature(primal, *primalSig, entry.width);
    if (!sig)
      return op.emitError(toString(sig.takeError()));
    derivative = std::move(*sig);
  }
  if (adjoint)
    entry.kind = "adjoint";
  entry.primal = primal.getSymName().str();
  entry.numPrimal = derivative.numPrimal;
  entry.primalOf = derivative.primalOf;
  entry.finalValueArgs = derivative.finalValueArgs;
  return success();
}

/// One row of a kernel's parameter table.
std::string paramRow(const Param &param, StringRef pythonName) {
  const std::vector<int64_t> &components = param.type.components;
  std::string row =
      "    {" + cppStringLiteral(pythonName) +
      ", kpy::scalar::" + scalarEnumerator(param.type.scalar).str() + ", " +
      std::to_string(param.isArray ? param.rank : 0) + ", " +
      (param.isArray && !param.isConst ? "true" : "false") + ", " +
      std::to_string(components.size()) + ", {";
  for (size_t i = 0; i < 2; ++i)
    row += (i ? ", " : "") +
           std::to_string(i < components.size() ? components[i] : 0);
  return row + "}},\n";
}

std::string indexList(ArrayRef<unsigned> indices) {
  std::string text;
  for (unsigned index : indices)
    text += (text.empty() ? "" : ", ") + std::to_string(index);
  return text;
}

/// The qualified C++ name of the C entry point of `kernel`.
std::string entryPoint(StringRef kernel, const PythonModuleOptions &options) {
  StringRef cppNamespace = options.cppNamespace;
  std::string symbol =
      ((options.cuda ? "ksc_cuda_launch_" : "ksc_launch_") + kernel).str();
  if (cppNamespace.empty())
    return symbol;
  SmallVector<StringRef> components;
  cppNamespace.split(components, "::");
  return cppNamespace.str() + "::" + join(components, "__") + "__" + symbol;
}

/// The docstring of a kernel's function.
std::string docString(const KernelEntry &entry, bool cuda) {
  std::string text = entry.pythonName + "(";
  for (auto [i, name] : llvm::enumerate(entry.paramNames))
    text += (i ? ", " : "") + name;
  text += std::string(", *, dim=None") + (cuda ? ", stream=None" : "") +
          ")\n\nLaunches the kernel " + entry.signature.describe();
  if (entry.kind == "adjoint")
    text += ", the adjoint (reverse-mode derivative) of " + entry.primal;
  else if (entry.kind == "tangent")
    text += ", the tangent (forward-mode derivative) of " + entry.primal;
  else if (entry.kind == "hvp")
    text += ", the forward-mode derivative of the adjoint " + entry.primal;
  return text +
         (cuda ? ", on the arrays' CUDA device and `stream` (default: the "
                 "default stream)"
               : ", on the CPU") +
         ". Arrays are updated in place; dim is the launch grid (default: "
         "the shape of the first array the kernel writes). See "
         "docs/python.md.";
}

} // namespace

std::string ksc::checkPythonModuleName(StringRef name) {
  if (name.empty())
    return "it is empty";
  if (!isAlpha(name.front()) && name.front() != '_')
    return "it does not start with a letter or '_'";
  if (!llvm::all_of(name, [](char c) { return isAlnum(c) || c == '_'; }))
    return "it has characters other than ASCII letters, digits and '_'";
  if (isPythonKeyword(name))
    return "it is a Python keyword";
  return "";
}

/// The table entries of the kernels of `module`, with their Python names;
/// fails with an error on what a module cannot pass.
static FailureOr<std::vector<KernelEntry>>
collectEntries(mlir::ModuleOp module, const PythonModuleOptions &options) {
  std::vector<KernelEntry> entries;
  StringSet<> functionNames;
  for (ks::KernelOp op : module.getOps<ks::KernelOp>()) {
    KernelEntry entry;
    entry.op = op;
    Expected<Signature> sig = runner::getSignature(op);
    if (!sig)
      return op.emitError(toString(sig.takeError()));
    entry.signature = std::move(*sig);
    for (auto [index, param] : llvm::enumerate(entry.signature.params))
      if (!param.type.structName.empty())
        return mlir::emitError(op.getBody().getArgument(index).getLoc(),
                               "--emit=python: kernel '")
               << op.getSymName() << "' takes the struct parameter '"
               << param.name
               << "': Python modules cannot pass structs or arrays of "
                  "structs yet; pass their fields as separate arguments";
    if ((op->hasAttr(ks::kAdjointOfAttr) || op->hasAttr(ks::kTangentOfAttr)) &&
        failed(readDerivative(entry, options.width)))
      return failure();
    entry.pythonName = freePythonName(op.getSymName(), functionNames);
    // `dim` and `stream` are the launch's keywords.
    StringSet<> paramNames = {"dim", "stream"};
    // The lambda's parameters must not hide what its body names.
    StringSet<> cppNames = {"dim", "stream", "kpy", "kernels", "nb", "m"};
    for (const Param &param : entry.signature.params) {
      entry.paramNames.push_back(freePythonName(param.name, paramNames));
      entry.cppNames.push_back(
          freePythonName(entry.paramNames.back(), cppNames));
    }
    entries.push_back(std::move(entry));
  }
  if (entries.empty())
    return module.emitError("--emit=python: the file defines no kernel "
                            "(KSC_KERNEL)");
  // Derivative kernels name their primal kernel by its Python name.
  StringMap<std::string> pythonNameOf;
  for (const KernelEntry &entry : entries)
    pythonNameOf[entry.signature.kernel] = entry.pythonName;
  for (KernelEntry &entry : entries)
    if (!entry.primal.empty())
      entry.primal = pythonNameOf.lookup(entry.primal);
  return entries;
}

/// The parameter tables of the kernels and the table of the kernels.
static void printTables(raw_ostream &os, ArrayRef<KernelEntry> entries,
                        const PythonModuleOptions &options) {
  for (const KernelEntry &entry : entries) {
    StringRef name = entry.signature.kernel;
    os << "// " << escapeLineComment(entry.signature.describe()) << "\n";
    if (!entry.signature.params.empty()) {
      os << "const kpy::param " << name << "_params[] = {\n";
      for (auto [param, pythonName] :
           llvm::zip(entry.signature.params, entry.paramNames))
        os << paramRow(param, pythonName);
      os << "};\n";
    }
    if (!entry.primalOf.empty())
      os << "const int32_t " << name << "_primal_of[] = {"
         << indexList(entry.primalOf) << "};\n";
    if (!entry.finalValueArgs.empty())
      os << "const int32_t " << name << "_final_value_args[] = {"
         << indexList(entry.finalValueArgs) << "};\n";
    os << "\n";
  }
  os << "const kpy::kernel kernels[] = {\n";
  for (const KernelEntry &entry : entries) {
    StringRef name = entry.signature.kernel;
    bool derivative = !entry.primal.empty();
    os << "    {" << cppStringLiteral(entry.pythonName) << ", "
       << (entry.signature.params.empty() ? "nullptr"
                                          : (name + "_params").str())
       << ", " << entry.signature.params.size()
       << ", kpy::kernel_kind::" << entry.kind << ",\n     "
       << (derivative ? cppStringLiteral(entry.primal) : "nullptr") << ", "
       << entry.numPrimal << ", "
       << (entry.primalOf.empty() ? "nullptr" : (name + "_primal_of").str())
       << ", "
       << (entry.finalValueArgs.empty() ? "nullptr"
                                        : (name + "_final_value_args").str())
       << ", " << entry.finalValueArgs.size() << ", " << entry.width
       << ",\n     " << (options.cuda ? "nullptr, " : "")
       << entryPoint(name, options) << (options.cuda ? "" : ", nullptr")
       << "},\n";
  }
  os << "};\n";
}

/// JAX: each kernel of the CPU as an XLA FFI handler (ksc_python.h
/// defines KSC_PYTHON_JAX where jaxlib's headers are found).
static void printFfiHandlers(raw_ostream &os, ArrayRef<KernelEntry> entries) {
  os << "\n#ifdef KSC_PYTHON_JAX\n";
  for (auto [index, entry] : llvm::enumerate(entries))
    os << "XLA_FFI_Error *ffi_" << entry.signature.kernel
       << "(XLA_FFI_CallFrame *frame) {\n"
       << "  static kpy::ffi::Ffi *handler = kpy::ffi_bind(kernels[" << index
       << "]);\n"
       << "  return handler->Call(frame);\n"
       << "}\n";
  os << "const kpy::ffi_handler ffi_handlers[] = {";
  for (auto [index, entry] : llvm::enumerate(entries))
    os << (index ? ", " : "") << "ffi_" << entry.signature.kernel;
  os << "};\n"
     << "#endif\n";
}

/// The module (or --python-init's function): a function per kernel.
static void printModule(raw_ostream &os, ArrayRef<KernelEntry> entries,
                        const PythonModuleOptions &options) {
  os << (options.initFunction.empty()
             ? "NB_MODULE(" + options.moduleName + ", m) {\n"
             : "void " + options.initFunction + "(nanobind::module_ &m) {\n")
     << "  namespace nb = nanobind;\n"
     << "  using namespace nb::literals;\n";
  for (auto [index, entry] : llvm::enumerate(entries)) {
    os << "  m.def(" << cppStringLiteral(entry.pythonName) << ",\n"
       << "        [](";
    for (const std::string &param : entry.cppNames)
      os << "nb::handle " << param << ", ";
    os << "nb::handle dim" << (options.cuda ? ", nb::handle stream" : "")
       << ") {\n"
       << "          kpy::launch(ksc_python_tables::kernels[" << index << "], {"
       << join(entry.cppNames, ", ") << "}, dim"
       << (options.cuda ? ", stream" : "") << ");\n"
       << "        },\n"
       << "        ";
    for (const std::string &param : entry.paramNames)
      os << cppStringLiteral(param) << "_a, ";
    os << "nb::kw_only(), \"dim\"_a = nb::none(),"
       << (options.cuda ? " \"stream\"_a = nb::none()," : "") << "\n"
       << "        " << cppStringLiteral(docString(entry, options.cuda))
       << ");\n";
  }
  os << "  kpy::add_kernels(m, ksc_python_tables::kernels, " << entries.size();
  if (options.cuda)
    os << ", \"cuda\", nullptr);\n";
  else
    os << ", \"cpu\",\n"
       << "#ifdef KSC_PYTHON_JAX\n"
       << "                   ksc_python_tables::ffi_handlers);\n"
       << "#else\n"
       << "                   nullptr);\n"
       << "#endif\n";
  os << "}\n";
}

LogicalResult
ksc::translateToPythonBindings(mlir::ModuleOp module, raw_ostream &os,
                               const PythonModuleOptions &options) {
  FailureOr<std::vector<KernelEntry>> entries = collectEntries(module, options);
  if (failed(entries))
    return failure();
  os << "\n// The Python module " << options.moduleName
     << " (ksc --emit=python): a function per kernel, through its C entry "
        "point.\n"
     << (options.initFunction.empty()
             ? ""
             : "// " + options.initFunction +
                   " adds them to the module (--python-init).\n")
     << "#include \"ksc_python.h\"\n\n"
     << "namespace {\n"
     << "namespace kpy = ksc::python;\n"
     << "namespace ksc_python_tables {\n\n";
  printTables(os, *entries, options);
  if (!options.cuda)
    printFfiHandlers(os, *entries);
  os << "} // namespace ksc_python_tables\n"
     << "} // namespace\n\n";
  printModule(os, *entries, options);
  return success();
}
