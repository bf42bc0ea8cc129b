//===- ForwardAD.cpp - Tangent kernels by forward-mode AD ----------------===//
//
// Part of ksc. For every kernel `K`, builds the tangent kernel `K_jvp`: K's
// arguments followed by one tangent per argument that has one (see
// docs/autodiff.md), and a body that is K's with the tangent code of every
// active value after it (TangentBuilder.cpp). With `of-adjoints` the
// kernels differentiated are the adjoint kernels `K_adj`, and the result
// `K_hvp` computes Hessian-vector products (forward over reverse).
//
//===----------------------------------------------------------------------===//

#include "TangentBuilder.h"

#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSFORWARDAD
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

/// The tangent argument type of a primal argument of `type` for `width`
/// directions: the type itself for one; with more, an array gets a further,
/// leading dimension (the direction) and a scalar becomes an array.
static Type tangentType(Type type, unsigned width) {
  if (width == 1)
    return type;
  if (auto array = dyn_cast<ArrayType>(type))
    return ArrayType::get(array.getElementType(), array.getRank() + 1,
                          array.getIsConst());
  return ArrayType::get(type, 1, /*isConst=*/true);
}

namespace {
struct ForwardAD : public ks::impl::KsForwardADBase<ForwardAD> {
  using KsForwardADBase::KsForwardADBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    KsForwardADBase::getDependentDialects(registry);
    registerDerivativeExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (width == 0) {
      module.emitError("the tangent width must be at least 1");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    auto select = [&](KernelOp kernel) {
      return !kernel->hasAttr(kTangentOfAttr) &&
             kernel->hasAttr(kAdjointOfAttr) == ofAdjoints;
    };
    auto differentiate = [&](KernelOp kernel, const llvm::StringSet<> &wanted,
                             llvm::StringSet<> &seen) {
      return this->differentiate(kernel, symbols, wanted, seen);
    };
    if (failed(ad::differentiateKernels(module, wrt, select, differentiate)))
      return signalPassFailure();
  }

  LogicalResult differentiate(KernelOp kernel, SymbolTable &symbols,
                              const llvm::StringSet<> &wanted,
                              llvm::StringSet<> &seen) {
    unsigned n = kernel.getNumArguments();
    // The arguments that may be active inputs: an adjoint kernel's primal
    // ones (its adjoint arrays are the fixed output adjoints).
    unsigned numCandidates = n;
    std::string name = (kernel.getSymName() + "_jvp").str();
    if (ofAdjoints) {
      auto of = kernel->getAttrOfType<FlatSymbolRefAttr>(kAdjointOfAttr);
      auto adjointArgs =
          kernel->getAttrOfType<DenseI64ArrayAttr>(kAdjointArgsAttr);
      if (!of || !adjointArgs)
        return kernel.emitError("adjoint kernel '")
               << kernel.getSymName()
               << "' needs ks.adjoint_of and ks.adjoint_args";
      numCandidates = n - adjointArgs.size();
      name = (of.getValue() + "_hvp").str();
    }
    ad::DerivativeSetup setup;
    if (failed(ad::setUpDerivative(kernel, symbols, name, "tangent kernel",
                                   kTangentOfAttr, wanted, seen,
                                   numCandidates, setup)))
      return failure();
    KernelOp work = setup.work;
    if (!work)
      return success();
    const ad::DerivativeArguments *args = &setup.args;

    // What a thread reads of an array with a tangent is varied: the
    // element's tangent is in the tangent array (zero before the launch
    // for an argument outside --wrt, then what threads wrote or added).
    ad::Activity activity(work, args->hasDerivative, args->hasDerivative);

    SmallVector<Type> types;
    SmallVector<std::string> names;
    for (int i : args->derivativeOf) {
      Type type = kernel.getArgumentTypes()[i];
      if (auto array = dyn_cast<ArrayType>(type);
          array && width > 1 && array.getRank() == 4)
        return kernel.emitError("cannot propagate several tangent "
                                "directions (--width) for the 4-D array '")
               << kernel.getArgName(i)
               << "': its tangent would need a fifth dimension";
      types.push_back(tangentType(type, width));
      names.push_back("tan_" + kernel.getArgName(i).str());
    }
    OpBuilder b(kernel);
    KernelOp tangent =
        ad::createDerivativeKernel(b, kernel, name, types, names,
                                   setup.finalValueArgs);
    tangent->setAttr(kTangentOfAttr,
                     FlatSymbolRefAttr::get(kernel.getSymNameAttr()));
    tangent->setAttr(
        kTangentArgsAttr,
        b.getDenseI64ArrayAttr(llvm::map_to_vector(
            args->derivativeOf, [](int i) { return int64_t(i); })));
    if (width > 1)
      tangent->setAttr(kTangentWidthAttr, b.getI64IntegerAttr(width));
    ad::TangentBuilder builder(work, activity, args->derivativeOf, tangent,
                               width);
    if (failed(builder.run())) {
      tangent.erase();
      return failure();
    }
    symbols.insert(tangent);
    return success();
  }
};
} // namespace
