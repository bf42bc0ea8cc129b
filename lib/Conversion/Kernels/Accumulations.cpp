//===- Accumulations.cpp - How a kernel's threads add into memory ---------===//
//
// Part of ksc. See Accumulations.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Conversion/Accumulations.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <functional>

using namespace mlir;
using namespace ksc;
using namespace ksc::conversion;

bool conversion::isAggregatableSum(ks::AtomicRMWOp atomic) {
  return (atomic.getKind() == ks::AtomicKind::add ||
          atomic.getKind() == ks::AtomicKind::sub) &&
         !atomic.getExclusive() && atomic.getResult().use_empty();
}

ArgumentSums conversion::classifySums(BlockArgument arg) {
  auto type = dyn_cast<ks::ArrayType>(arg.getType());
  if (!type || type.getIsConst() || isa<ks::StructType>(type.getElementType()))
    return {};
  ArgumentSums sums;
  bool constant = type.getRank() == 1, updated = false;
  for (Operation *user : arg.getUsers()) {
    Value index;
    if (auto atomic = dyn_cast<ks::AtomicRMWOp>(user)) {
      if (!isAggregatableSum(atomic))
        return {};
      index = atomic.getIndices().front();
      updated = true;
      sums.inLoop =
          sums.inLoop || user->getParentOfType<LoopLikeOpInterface>();
    } else if (auto check = dyn_cast<ks::CheckBoundsOp>(user)) {
      index = check.getIndices().front();
    } else {
      return {};
    }
    APInt value;
    if (!matchPattern(index, m_ConstantInt(&value)) || value.isNegative() ||
        value.sge(kMaxAccumulatorSize))
      constant = false;
    else
      sums.size = std::max(sums.size, value.getSExtValue() + 1);
  }
  if (!updated)
    return {};
  sums.kind = constant && sums.size ? SumClass::Uniform : SumClass::Scattered;
  if (sums.kind == SumClass::Scattered)
    sums.size = 0;
  return sums;
}

bool conversion::hasUniformSums(ArrayRef<ArgumentSums> args) {
  return llvm::any_of(args, [](const ArgumentSums &sums) {
    return sums.kind == SumClass::Uniform;
  });
}

ks::AtomicRMWOp conversion::findOrderDependentAtomic(
    Operation *op, SymbolTable &symbols,
    function_ref<bool(ks::AtomicRMWOp)> skip) {
  llvm::DenseSet<Operation *> visited;
  std::function<ks::AtomicRMWOp(Operation *)> visit =
      [&](Operation *root) -> ks::AtomicRMWOp {
    if (!visited.insert(root).second)
      return nullptr;
    ks::AtomicRMWOp found;
    root->walk([&](Operation *inner) {
      if (auto atomic = dyn_cast<ks::AtomicRMWOp>(inner)) {
        if (!atomic.getExclusive() && !(skip && skip(atomic)) &&
            (!atomic.getResult().use_empty() ||
             !isa<IntegerType>(getElementTypeOrSelf(
                 atomic.getArray().getType().getElementType()))))
          found = atomic;
      } else if (auto call = dyn_cast<ks::CallOp>(inner)) {
        if (Operation *callee = symbols.lookup(call.getCallee()))
          found = visit(callee);
      }
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    return found;
  };
  return visit(op);
}

GpuLaunchPlan conversion::planGpuLaunch(ks::KernelOp kernel,
                                        SymbolTable &symbols,
                                        bool deterministic) {
  GpuLaunchPlan plan;
  for (BlockArgument arg : kernel.getArguments())
    plan.args.push_back(classifySums(arg));
  plan.blockSums = hasUniformSums(plan.args);
  if (!deterministic)
    return plan;
  auto isUniformSum = [&](ks::AtomicRMWOp atomic) {
    auto arg = dyn_cast<BlockArgument>(atomic.getArray());
    return arg && arg.getOwner()->getParentOp() == kernel &&
           plan.args[arg.getArgNumber()].kind == SumClass::Uniform;
  };
  plan.serialBecause = findOrderDependentAtomic(kernel, symbols, isUniformSum);
  plan.serial = bool(plan.serialBecause);
  if (plan.serial)
    return plan;
  for (auto [arg, sums] : llvm::zip(kernel.getArguments(), plan.args)) {
    if (sums.kind != SumClass::Uniform)
      continue;
    Type element = cast<ks::ArrayType>(arg.getType()).getElementType();
    Type scalar = getElementTypeOrSelf(element);
    int64_t parts = 1;
    if (auto shaped = dyn_cast<ShapedType>(element))
      parts = shaped.getNumElements();
    plan.partialWords.push_back(ks::FlushAccumulatorOp::getPartialWords(
        sums.size * parts, scalar.getIntOrFloatBitWidth() / 8));
  }
  return plan;
}
