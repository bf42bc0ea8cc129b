//===- TangentKernel.cpp - Find the tangent kernel of a kernel --------===//
//
// Part of ksc. The tangent kernel `K_jvp` of `K` is the kernel marked
// `ks.tangent_of = @K`; `ks.tangent_args` gives, per tangent argument, the
// index of its primal argument, and `ks.tangent_width` the number of
// tangent directions W when there are more than one (docs/autodiff.md).
// This file finds it and checks its signature.
//
//===----------------------------------------------------------------------===//

#include "DerivativeKernels.h"
#include "ksc/Runner/Tangent.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

static const DerivativeKind kTangent = {"tangent", ks::kTangentOfAttr,
                                        ks::kTangentArgsAttr};

//===----------------------------------------------------------------------===//
// The tangent kernel and its signature
//===----------------------------------------------------------------------===//

bool runner::isTangentKernel(ks::KernelOp kernel) {
  return kernel->hasAttr(ks::kTangentOfAttr);
}

bool runner::isTangentOf(ks::KernelOp tangent, ks::KernelOp kernel) {
  return isDerivativeOf(kTangent, tangent, kernel);
}

static Error noTangent(ks::KernelOp kernel) {
  std::string name = kernel.getSymName().str();
  std::string note =
      isAdjointKernel(kernel)
          ? "; the forward-mode pass makes none for an adjoint kernel "
            "(ksc-run --grad=hvp asks for one)"
          : "; the forward-mode pass makes none for a kernel without "
            "float, double, vector or matrix arguments";
  return fail("kernel '" + name + "' has no tangent kernel (a kernel with " +
              "ks.tangent_of = @" + name + ")" + note);
}

/// The type of the tangent of an argument of type `type` with `width`
/// directions.
static Expected<mlir::Type> getTangentType(mlir::Type type, unsigned width) {
  if (width == 1)
    return type;
  auto array = dyn_cast<ks::ArrayType>(type);
  if (!array)
    return mlir::Type(ks::ArrayType::get(type, 1, /*isConst=*/true));
  if (array.getRank() >= 4)
    return fail("with " + Twine(width) +
                " tangent directions, the tangent of a rank-4 array would "
                "need 5 dimensions");
  return mlir::Type(ks::ArrayType::get(array.getElementType(),
                                       array.getRank() + 1, array.getIsConst()));
}

static std::string printAttribute(mlir::Attribute attr) {
  std::string text;
  raw_string_ostream(text) << attr;
  return text;
}

/// The number of tangent directions `tangent` is marked with.
static Expected<unsigned> getWidth(ks::KernelOp tangent) {
  mlir::Attribute attr = tangent->getAttr(ks::kTangentWidthAttr);
  if (!attr)
    return 1;
  auto integer = dyn_cast<mlir::IntegerAttr>(attr);
  if (!integer || integer.getValue().getSignificantBits() > 32 ||
      integer.getInt() < 2)
    return fail("tangent kernel '" + tangent.getSymName() + "' has " +
                ks::kTangentWidthAttr + " = " + printAttribute(attr) +
                "; it must be an integer above 1 (left out for one "
                "direction)");
  return static_cast<unsigned>(integer.getInt());
}

Expected<TangentSignature> runner::getTangentSignature(ks::KernelOp kernel,
                                                       const Signature &primal,
                                                       unsigned width) {
  Expected<ks::KernelOp> tanKernel = findDerivativeKernel(
      kTangent, kernel, [&] { return noTangent(kernel); });
  if (!tanKernel)
    return tanKernel.takeError();
  Expected<unsigned> marked = getWidth(*tanKernel);
  if (!marked)
    return marked.takeError();
  if (*marked != width)
    return fail("tangent kernel '" + tanKernel->getSymName() + "' has " +
                Twine(*marked) + " tangent direction" +
                (*marked == 1 ? "" : "s") + "; " + Twine(width) + " " +
                (width == 1 ? "is" : "are") + " asked for (--width)");
  TangentSignature tangent;
  tangent.width = width;
  auto typeOf = [&](unsigned index) {
    return getTangentType(kernel.getArgumentTypes()[index], width);
  };
  if (Error error = readDerivativeSignature(kTangent, kernel, *tanKernel,
                                            primal, typeOf, tangent))
    return std::move(error);
  return tangent;
}
