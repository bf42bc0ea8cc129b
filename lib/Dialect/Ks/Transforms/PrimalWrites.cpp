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

/// The argument of `kernel` that `array` is a view of (through `ks.slice`
/// and `ks.as_const`); null if none.
static BlockArgument arrayArgument(KernelOp kernel, Value array) {
  while (Operation *def = array.getDefiningOp()) {
    if (!isa<SliceOp, AsConstOp>(def))
      return nullptr;
    array = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(array);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return nullptr;
  return arg;
}

/// Whether `later` may run after `earlier` in one thread: both are in one
/// loop, or `later` follows `earlier` in program order (not in the other
/// branch of an `scf.if`).
static bool mayRunAfter(Operation *later, Operation *earlier) {
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

ad::PrimalWrites ad::analyzePrimalWrites(KernelOp kernel) {
  unsigned n = kernel.getNumArguments();
  SmallVector<SmallVector<Operation *>> reads(n), writes(n);
  SmallVector<bool> keep(n, false);
  kernel.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      if (!isa<ArrayType>(operand.getType()))
        continue;
      BlockArgument arg = arrayArgument(kernel, operand);
      if (!arg)
        continue;
      unsigned i = arg.getArgNumber();
      if (isa<LoadOp>(op)) {
        reads[i].push_back(op);
      } else if (isa<StoreOp>(op)) {
        writes[i].push_back(op);
      } else if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
        // An old value depends on what was written before: the updates
        // must happen as in the primal kernel.
        if (!atomic.getResult().use_empty())
          keep[i] = true;
        writes[i].push_back(op);
      } else if (!isa<SliceOp, AsConstOp, DimOp, CheckBoundsOp>(op)) {
        keep[i] = true; // an operation this analysis does not know
      }
    }
  });
  PrimalWrites result;
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
    Value array;
    if (auto store = dyn_cast<StoreOp>(op))
      array = store.getArray();
    else if (auto atomic = dyn_cast<AtomicRMWOp>(op);
             atomic && atomic.getResult().use_empty())
      array = atomic.getArray();
    if (!array)
      return;
    BlockArgument arg = arrayArgument(adjoint, array);
    if (arg && arg.getArgNumber() < keep.size() && !keep[arg.getArgNumber()])
      dead.push_back(op);
  });
  for (Operation *op : dead)
    op->erase();
}
