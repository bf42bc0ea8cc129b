//===- Adjoint.cpp - Find the adjoint kernel of a kernel --------------===//
//
// Part of ksc. The adjoint kernel `K_adj` of `K` is the kernel marked
// `ks.adjoint_of = @K`; `ks.adjoint_args` gives, per adjoint argument, the
// index of its primal argument. Its arguments are `K`'s, then one adjoint
// per argument of `K` that has one: a non-const array of the primal array's
// shape, or a one-element array for a scalar (docs/autodiff.md).
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Runner/Gradient.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;


static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static std::string print(mlir::Type type) {
  std::string text;
  raw_string_ostream os(text);
  os << type;
  return text;
}

bool runner::isAdjointKernel(ks::KernelOp kernel) {
  return kernel->hasAttr(ks::kAdjointOfAttr);
}

bool runner::isAdjointOf(ks::KernelOp adjoint, ks::KernelOp kernel) {
  auto of =
      adjoint->getAttrOfType<mlir::FlatSymbolRefAttr>(ks::kAdjointOfAttr);
  return of && of.getValue() == kernel.getSymName();
}

/// The kernels of `kernel`'s module marked as its adjoint.
static SmallVector<ks::KernelOp> findAdjointKernels(ks::KernelOp kernel) {
  SmallVector<ks::KernelOp> found;
  auto module = kernel->getParentOfType<mlir::ModuleOp>();
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (isAdjointOf(k, kernel))
      found.push_back(k);
  return found;
}

static Error noAdjoint(ks::KernelOp kernel) {
  std::string name = kernel.getSymName().str();
  auto module = kernel->getParentOfType<mlir::ModuleOp>();
  std::string note =
      module.lookupSymbol(name + "_adj")
          ? "; '" + name + "_adj' is not marked ks.adjoint_of = @" + name
          : "; the reverse-mode pass makes none for a kernel without "
            "float, double, vector or matrix arguments";
  return fail("kernel '" + name + "' has no adjoint kernel (a kernel with " +
              "ks.adjoint_of = @" + name + ")" + note);
}

/// The adjoint argument type of a primal argument type.
static ks::ArrayType getAdjointType(mlir::Type type) {
  if (auto array = dyn_cast<ks::ArrayType>(type))
    return array.withConst(false);
  return ks::ArrayType::get(type);
}

/// Whether `param` can have an adjoint: made of floats or doubles, no
/// struct.
static bool isDifferentiable(const Param &param) {
  const ValueType &type = param.type;
  return !type.isStruct() &&
         (type.scalar == Scalar::F32 || type.scalar == Scalar::F64);
}

/// Checks that adjoint argument `j` of `adjoint`, of type `type`, belongs to
/// primal argument `index` of `kernel`.
static Error checkAdjointArgument(ks::KernelOp kernel,
                                  const AdjointSignature &adjoint, unsigned j,
                                  int64_t index, mlir::Type type) {
  std::string what = "adjoint argument " + std::to_string(j) + " of '" +
                     adjoint.signature.kernel + "'";
  if (index < 0 || index >= adjoint.numPrimal)
    return fail(what + ": ks.adjoint_args names argument " + Twine(index) +
                " of '" + adjoint.primalKernel + "', which has " +
                Twine(adjoint.numPrimal));
  if (j > 0 && index <= adjoint.primalOf[j - 1])
    return fail("ks.adjoint_args of '" + adjoint.signature.kernel +
                "' must be increasing (one adjoint per argument, in order)");
  const Param &primal = adjoint.signature.params[index];
  if (!isDifferentiable(primal))
    return fail(what + ": argument '" + primal.name + "' (" +
                primal.describe() + ") has no adjoint");
  mlir::Type expected = getAdjointType(kernel.getArgumentTypes()[index]);
  if (type != expected)
    return fail(what + " has type " + print(type) + "; the adjoint of '" +
                primal.name + "' has type " + print(expected));
  return Error::success();
}

Expected<AdjointSignature>
runner::getAdjointSignature(ks::KernelOp kernel, const Signature &primal) {
  SmallVector<ks::KernelOp> found = findAdjointKernels(kernel);
  if (found.empty())
    return noAdjoint(kernel);
  if (found.size() > 1) {
    std::string names;
    ListSeparator sep;
    for (ks::KernelOp k : found)
      names += std::string(StringRef(sep)) + k.getSymName().str();
    return fail("kernel '" + kernel.getSymName() + "' has " +
                Twine(found.size()) + " adjoint kernels (" + names + ")");
  }
  ks::KernelOp adjKernel = found.front();
  Expected<Signature> sig = getSignature(adjKernel);
  if (!sig)
    return sig.takeError();
  AdjointSignature adjoint;
  adjoint.primalKernel = primal.kernel;
  adjoint.signature = std::move(*sig);
  adjoint.numPrimal = primal.params.size();
  const std::string &name = adjoint.signature.kernel;
  auto args =
      adjKernel->getAttrOfType<mlir::DenseI64ArrayAttr>(ks::kAdjointArgsAttr);
  if (!args)
    return fail("adjoint kernel '" + name +
                "' has no ks.adjoint_args = array<i64: ...>");
  ArrayRef<mlir::Type> types = adjKernel.getArgumentTypes();
  size_t numAdjoints = args.asArrayRef().size();
  if (types.size() != adjoint.numPrimal + numAdjoints)
    return fail("adjoint kernel '" + name + "' has " + Twine(types.size()) +
                " arguments; it needs the " + Twine(adjoint.numPrimal) +
                " of '" + primal.kernel + "' and the " + Twine(numAdjoints) +
                " adjoints its ks.adjoint_args lists");
  for (unsigned i = 0; i < adjoint.numPrimal; ++i)
    if (types[i] != kernel.getArgumentTypes()[i] ||
        adjoint.signature.params[i].name != primal.params[i].name)
      return fail("argument " + Twine(i) + " of adjoint kernel '" + name +
                  "' is '" + adjoint.signature.params[i].describe() + " " +
                  adjoint.signature.params[i].name + "'; '" + primal.kernel +
                  "' has '" + primal.params[i].describe() + " " +
                  primal.params[i].name + "' there");
  for (auto [j, index] : llvm::enumerate(args.asArrayRef())) {
    if (Error error = checkAdjointArgument(kernel, adjoint, j, index,
                                           types[adjoint.numPrimal + j]))
      return std::move(error);
    adjoint.primalOf.push_back(index);
  }
  return adjoint;
}
