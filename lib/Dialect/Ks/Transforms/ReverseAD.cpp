//===- ReverseAD.cpp - Adjoint kernels by reverse-mode AD --------------===//
//
// Part of ksc. For every kernel `K`, builds the adjoint kernel `K_adj`: K's
// arguments followed by one adjoint array per argument that has an adjoint
// (see docs/autodiff.md), and a body of two sweeps:
//
//  - the forward sweep, a copy of K's body, in which every `scf.if` that
//    the reverse sweep enters also yields the values its branches computed,
//    so that they stay available after it; it writes only the primal
//    arrays that a thread reads back after writing them (PrimalWrites.cpp);
//  - the reverse sweep, the operations that need adjoint code in reverse
//    order: each pure operation passes the adjoints of its results to its
//    operands by its derivative rule (DerivativeRules.cpp), a load adds the
//    adjoint of the value read to the adjoint array's element, a store
//    moves the element's adjoint to the stored value and zeroes it, an
//    `scf.if` becomes an `scf.if` on the same condition whose branches are
//    the reverse sweeps of the original branches and yield the adjoints of
//    the values from outside that they update.
//
// Device functions are inlined into a copy of the kernel first; the primal
// kernel keeps its calls.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSREVERSEAD
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

/// The adjoint argument type for a primal argument type: the non-const
/// array of the same shape, or a one-element array for a scalar.
static ArrayType adjointType(Type type) {
  if (auto array = dyn_cast<ArrayType>(type))
    return array.withConst(false);
  return ArrayType::get(type);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ReverseAD : public ks::impl::KsReverseADBase<ReverseAD> {
  using KsReverseADBase::KsReverseADBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    KsReverseADBase::getDependentDialects(registry);
    registerDerivativeExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    auto select = [&](KernelOp kernel) {
      return !kernel->hasAttr(kAdjointOfAttr) &&
             !kernel->hasAttr(kTangentOfAttr);
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
    std::string name = (kernel.getSymName() + "_adj").str();
    ad::DerivativeSetup setup;
    if (failed(ad::setUpDerivative(kernel, symbols, name, "adjoint",
                                   kAdjointOfAttr, wanted, seen,
                                   kernel.getNumArguments(), setup)))
      return failure();
    KernelOp work = setup.work;
    if (!work)
      return success();
    ArrayRef<int> adjointArgOf = setup.args.derivativeOf;
    ad::Activity activity(work, setup.args.activeInputs,
                          setup.args.hasDerivative);
    if (printActivity)
      activity.print(llvm::errs());

    SmallVector<Type> types;
    SmallVector<std::string> names;
    for (int i : adjointArgOf) {
      types.push_back(adjointType(kernel.getArgumentTypes()[i]));
      names.push_back("adj_" + kernel.getArgName(i).str());
    }
    OpBuilder b(kernel);
    auto adjoint = ad::createDerivativeKernel(b, kernel, name, types, names,
                                              setup.finalValueArgs);
    adjoint->setAttr(kAdjointOfAttr,
                     FlatSymbolRefAttr::get(kernel.getSymNameAttr()));
    adjoint->setAttr(kAdjointArgsAttr,
                     b.getDenseI64ArrayAttr(llvm::map_to_vector(
                         adjointArgOf, [](int i) { return int64_t(i); })));
    ad::KernelDifferentiator differentiator(work, activity, adjointArgOf,
                                            adjoint, setup.writes.readBack,
                                            gpuCost);
    if (failed(differentiator.run())) {
      adjoint.erase();
      return failure();
    }
    ad::dropPrimalWrites(adjoint, setup.writes.readBack);
    symbols.insert(adjoint);
    return success();
  }
};
} // namespace
