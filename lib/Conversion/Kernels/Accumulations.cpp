//===- Accumulations.cpp - How a kernel's threads add into memory ---------===//
//
// Part of ksc. See Accumulations.h.
//
//===----------------------------------------------------------------------===//

#include "ksc/Conversion/Accumulations.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

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

bool conversion::hasBlockSums(ks::KernelOp kernel) {
  return hasUniformSums(llvm::map_to_vector(
      kernel.getArguments(), [](BlockArgument arg) { return classifySums(arg); }));
}
