//===- Adjoint.cpp - Find the adjoint kernel of a kernel --------------===//
//
// Part of ksc. The adjoint kernel `K_adj` of `K` is the kernel marked
// `ks.adjoint_of = @K`; `ks.adjoint_args` gives, per adjoint argument, the
// index of its primal argument. Its arguments are `K`'s, then one adjoint
// per argument of `K` that has one: a non-const array of the primal array's
// shape, or a one-element array for a scalar (docs/autodiff.md).
//
//===----------------------------------------------------------------------===//

#include "DerivativeKernels.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

static const DerivativeKind kAdjoint = {
    "adjoint", ks::kAdjointOfAttr, ks::kAdjointArgsAttr};

bool runner::isAdjointKernel(ks::KernelOp kernel) {
  return kernel->hasAttr(ks::kAdjointOfAttr);
}

bool runner::isAdjointOf(ks::KernelOp adjoint, ks::KernelOp kernel) {
  return isDerivativeOf(kAdjoint, adjoint, kernel);
}

static Error noAdjoint(ks::KernelOp kernel) {
  std::string name = kernel.getSymName().str();
  auto module = kernel->getParentOfType<mlir::ModuleOp>();
  std::string note =
      module.lookupSymbol(name + "_adj")
          ? "; '" + name + "_adj' is not marked ks.adjoint_of = @" + name
          : "; the reverse-mode pass makes none for a kernel without "
            "float, double, vector or matrix arguments";
  return fail("kernel '" + name +
                      "' has no adjoint kernel (a kernel with " +
                      "ks.adjoint_of = @" + name + ")" + note);
}

/// The adjoint argument type of a primal argument type.
static ks::ArrayType getAdjointType(mlir::Type type) {
  if (auto array = dyn_cast<ks::ArrayType>(type))
    return array.withConst(false);
  return ks::ArrayType::get(type);
}

Expected<AdjointSignature>
runner::getAdjointSignature(ks::KernelOp kernel, const Signature &primal) {
  Expected<ks::KernelOp> adjKernel = findDerivativeKernel(
      kAdjoint, kernel, [&] { return noAdjoint(kernel); });
  if (!adjKernel)
    return adjKernel.takeError();
  AdjointSignature adjoint;
  auto typeOf = [&](unsigned index) -> Expected<mlir::Type> {
    return getAdjointType(kernel.getArgumentTypes()[index]);
  };
  if (Error error = readDerivativeSignature(
          kAdjoint, kernel, *adjKernel, primal, typeOf, adjoint))
    return std::move(error);
  return adjoint;
}
