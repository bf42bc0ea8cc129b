//===- DerivativeKernels.cpp - Find derivative kernels in the IR ------===//
//
// Part of ksc. Finding a derivative kernel (`K_adj`, `K_jvp`) of a kernel in
// its module and checking its signature against the attributes the
// derivative passes put on it.
//
//===----------------------------------------------------------------------===//

#include "DerivativeKernels.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

//===----------------------------------------------------------------------===//
// Derivative kernels and their signatures
//===----------------------------------------------------------------------===//

bool derivatives::isDerivativeOf(const DerivativeKind &kind,
                            ks::KernelOp derivative, ks::KernelOp kernel) {
  auto of = derivative->getAttrOfType<mlir::FlatSymbolRefAttr>(kind.ofAttr);
  return of && of.getValue() == kernel.getSymName();
}

Expected<ks::KernelOp>
derivatives::findDerivativeKernel(const DerivativeKind &kind, ks::KernelOp kernel,
                             function_ref<Error()> none) {
  SmallVector<ks::KernelOp> found;
  auto module = kernel->getParentOfType<mlir::ModuleOp>();
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (isDerivativeOf(kind, k, kernel))
      found.push_back(k);
  if (found.empty())
    return none();
  if (found.size() > 1) {
    std::string names;
    ListSeparator sep;
    for (ks::KernelOp k : found)
      names += std::string(StringRef(sep)) + k.getSymName().str();
    return fail("kernel '" + kernel.getSymName() + "' has " +
                Twine(found.size()) + " " + kind.name + " kernels (" + names +
                ")");
  }
  return found.front();
}

std::string derivatives::print(mlir::Type type) {
  std::string text;
  raw_string_ostream os(text);
  os << type;
  return text;
}

/// Checks that derivative argument `j` of `sig`, of type `type`, belongs to
/// primal argument `index`.
static Error
checkDerivativeArgument(const DerivativeKind &kind,
                        const DerivativeSignature &sig, unsigned j,
                        int64_t index, mlir::Type type,
                        function_ref<Expected<mlir::Type>(unsigned)> typeOf) {
  std::string what = kind.name.str() + " argument " + std::to_string(j) +
                     " of '" + sig.signature.kernel + "'";
  if (index < 0 || index >= sig.numPrimal)
    return fail(what + ": " + kind.argsAttr + " names argument " +
                Twine(index) + " of '" + sig.primalKernel + "', which has " +
                Twine(sig.numPrimal));
  if (j > 0 && index <= sig.primalOf[j - 1])
    return fail(kind.argsAttr + " of '" + sig.signature.kernel +
                "' must be increasing (one " + kind.name +
                " per argument, in order)");
  const Param &primal = sig.signature.params[index];
  if (!isDifferentiable(primal))
    return fail(what + ": argument '" + primal.name + "' (" +
                primal.describe() + ") has no " + kind.name);
  Expected<mlir::Type> expected = typeOf(index);
  if (!expected)
    return fail(what + ": " + toString(expected.takeError()));
  if (type != *expected)
    return fail(what + " has type " + print(type) + "; the " + kind.name +
                " of '" + primal.name + "' has type " + print(*expected));
  return Error::success();
}

Error derivatives::readDerivativeSignature(
    const DerivativeKind &kind, ks::KernelOp kernel, ks::KernelOp derivative,
    const Signature &primal,
    function_ref<Expected<mlir::Type>(unsigned index)> typeOf,
    DerivativeSignature &out) {
  Expected<Signature> sig = getSignature(derivative);
  if (!sig)
    return sig.takeError();
  out.primalKernel = primal.kernel;
  out.signature = std::move(*sig);
  out.numPrimal = primal.params.size();
  out.primalOf.clear();
  const std::string &name = out.signature.kernel;
  auto args = derivative->getAttrOfType<mlir::DenseI64ArrayAttr>(kind.argsAttr);
  if (!args)
    return fail(kind.name + " kernel '" + name + "' has no " + kind.argsAttr +
                " = array<i64: ...>");
  ArrayRef<mlir::Type> types = derivative.getArgumentTypes();
  size_t numDerivatives = args.asArrayRef().size();
  if (types.size() != out.numPrimal + numDerivatives)
    return fail(kind.name + " kernel '" + name + "' has " +
                Twine(types.size()) + " arguments; it needs the " +
                Twine(out.numPrimal) + " of '" + primal.kernel + "' and the " +
                Twine(numDerivatives) + " " + kind.name + "s its " +
                kind.argsAttr + " lists");
  for (unsigned i = 0; i < out.numPrimal; ++i)
    if (types[i] != kernel.getArgumentTypes()[i] ||
        out.signature.params[i].name != primal.params[i].name)
      return fail("argument " + Twine(i) + " of " + kind.name + " kernel '" +
                  name + "' is '" + out.signature.params[i].describe() + " " +
                  out.signature.params[i].name + "'; '" + primal.kernel +
                  "' has '" + primal.params[i].describe() + " " +
                  primal.params[i].name + "' there");
  for (auto [j, index] : llvm::enumerate(args.asArrayRef())) {
    if (Error error = checkDerivativeArgument(
            kind, out, j, index, types[out.numPrimal + j], typeOf))
      return error;
    out.primalOf.push_back(index);
  }
  // The custom rules it calls.
  out.customRules.clear();
  llvm::StringMap<std::string> rules;
  if (auto module = derivative->getParentOfType<mlir::ModuleOp>())
    for (auto func : module.getOps<ks::FuncOp>())
      for (auto [attr, macro] :
           {std::pair(ks::kCustomAdjointAttr, "KSC_ADJOINT"),
            std::pair(ks::kCustomTangentAttr, "KSC_TANGENT")})
        if (auto rule = func->getAttrOfType<mlir::FlatSymbolRefAttr>(attr))
          rules[rule.getValue()] = (func.getSymName() + " (" + macro + " " +
                                    rule.getValue() + ")")
                                       .str();
  derivative.walk([&](ks::CallOp call) {
    auto it = rules.find(call.getCallee());
    if (it != rules.end() && !llvm::is_contained(out.customRules, it->second))
      out.customRules.push_back(it->second);
  });
  out.finalValueArgs.clear();
  if (auto finals = derivative->getAttrOfType<mlir::DenseI64ArrayAttr>(
          ks::kFinalValueArgsAttr))
    for (int64_t index : finals.asArrayRef()) {
      if (index < 0 || index >= out.numPrimal ||
          !out.signature.params[index].isArray)
        return fail(kind.name + " kernel '" + name + "': " +
                    ks::kFinalValueArgsAttr + " names argument " +
                    Twine(index) + ", which is not an array of '" +
                    primal.kernel + "'");
      out.finalValueArgs.push_back(index);
    }
  return Error::success();
}
