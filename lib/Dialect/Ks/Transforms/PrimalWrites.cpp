//===- PrimalWrites.cpp - Which primal arrays adjoint kernels write ----===//
//
// Part of ksc. The forward sweep of an adjoint kernel recomputes the values
// of the primal kernel; it needs to write the primal arrays only where a
// thread reads back what it wrote. Elsewhere (outputs, in-place updates
// such as y[i] = a * x[i] + y[i]) the adjoint kernel leaves the arrays
// alone: it does less work, and it can run again on the same arguments.
//
//===----------------------------------------------------------------------===//

#include "AD.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

/// The argument of `kernel` that `array` is (a view of); null if none.
static BlockArgument arrayArgument(KernelOp kernel, Value array) {
  auto arg = dyn_cast<BlockArgument>(getViewRoot(array));
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return nullptr;
  return arg;
}

ad::ArrayAccess ad::accessOf(Operation *op, Value array) {
  ArrayAccess access;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->hasTrait<OpTrait::IsTerminator>() ||
      llvm::any_of(op->getResultTypes(), llvm::IsaPred<ArrayType>)) {
    access.unknown = true;
    return access;
  }
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffectsOnValue(array, list);
  for (const MemoryEffects::EffectInstance &effect : list) {
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      access.reads = true;
    else if (isa<MemoryEffects::Write>(effect.getEffect()))
      access.writes = true;
    else
      access.unknown = true;
  }
  return access;
}

bool ad::mayRunAfter(Operation *later, Operation *earlier) {
  for (Operation *parent = earlier->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp>(parent) && parent->isAncestor(later))
      return true;
  for (Operation *outer = earlier; outer; outer = outer->getParentOp()) {
    Block *block = outer->getBlock();
    if (!block)
      return false;
    if (Operation *other = block->findAncestorOpInBlock(*later))
      return other != outer && outer->isBeforeInBlock(other);
  }
  return false;
}

/// Whether `op` is an atomic_min or atomic_max whose old value is unused.
static bool isPlainMinMax(Operation *op) {
  auto atomic = dyn_cast<AtomicRMWOp>(op);
  return atomic && atomic.getResult().use_empty() &&
         (atomic.getKind() == AtomicKind::min ||
          atomic.getKind() == AtomicKind::max);
}

ad::PrimalWrites ad::analyzePrimalWrites(KernelOp kernel) {
  unsigned n = kernel.getNumArguments();
  SmallVector<SmallVector<Operation *>> reads(n), writes(n);
  SmallVector<bool> keep(n, false);
  PrimalWrites result;
  result.minMax.assign(n, nullptr);
  result.otherAccess.assign(n, nullptr);
  kernel.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (!isa<ArrayType>(operand.getType()))
        continue;
      BlockArgument arg = arrayArgument(kernel, operand);
      if (!arg)
        continue;
      unsigned i = arg.getArgNumber();
      // Views are followed to their uses (arrayArgument).
      if (isa<ViewLikeOpInterface>(op))
        continue;
      ArrayAccess access = accessOf(op, operand);
      Operation *&first =
          isPlainMinMax(op) ? result.minMax[i] : result.otherAccess[i];
      if (!first && (access.reads || access.writes || access.unknown))
        first = op;
      if (access.unknown) {
        keep[i] = true;
      } else if (access.writes) {
        // An old value an update reads (an atomic's) depends on what was
        // written before: the updates must happen as in the primal kernel.
        if (access.reads && !op->use_empty())
          keep[i] = true;
        writes[i].push_back(op);
      } else if (access.reads) {
        reads[i].push_back(op);
      }
    }
  });
  for (unsigned i = 0; i < n; ++i) {
    result.written.push_back(!writes[i].empty());
    for (Operation *write : writes[i])
      for (Operation *read : reads[i])
        keep[i] = keep[i] || mayRunAfter(read, write);
  }
  result.readBack = std::move(keep);
  return result;
}

void ad::dropPrimalWrites(KernelOp adjoint, ArrayRef<bool> keep) {
  SmallVector<Operation *> dead;
  adjoint.walk([&](Operation *op) {
    if (!op->use_empty() || isa<ViewLikeOpInterface>(op))
      return;
    for (Value array : op->getOperands()) {
      if (!isa<ArrayType>(array.getType()))
        continue;
      ArrayAccess access = accessOf(op, array);
      BlockArgument arg = arrayArgument(adjoint, array);
      if (access.writes && !access.unknown && arg &&
          arg.getArgNumber() < keep.size() && !keep[arg.getArgNumber()]) {
        dead.push_back(op);
        return;
      }
    }
  });
  for (Operation *op : dead)
    op->erase();
}
