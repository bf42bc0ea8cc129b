//===- Activity.cpp - Which values of a kernel carry derivatives -------===//
//
// Part of ksc. A value is active when it is varied (it depends on the value
// of an active input) and useful (it reaches a store or an atomic update of
// an array that has an adjoint). Only active values get adjoints;
// everything else is left out of the reverse sweep.
//
// Derivatives also flow through memory: an element read from an array is
// varied when the array is an active input, or when the read may run after
// (in the thread's program order, or in a later iteration of a loop
// around both) a write of a varied value into the array (a store, an
// atomic update), whichever array it is (an output, a scratch array) and
// whatever the index: threads read only what they wrote themselves (the
// language's rule). The old value an atomic update returns includes other
// threads' updates: it is varied when any varied value is written into the
// array. Arrays are tracked per view root, the argument a slice is of: a
// write through one view counts for every read of the argument.
// Both properties are propagated through the structured control flow
// (scf.if results from their yields, loop-carried values from the initial
// and the yielded values) and through memory until nothing changes.
//
//===----------------------------------------------------------------------===//

#include "AD.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Iterators.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

ad::Activity::Activity(KernelOp kernel, ArrayRef<bool> activeInputs,
                       ArrayRef<bool> adjointArrays)
    : kernel(kernel), activeInputs(activeInputs), adjointArrays(adjointArrays) {
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    if (!activeInputs[arg.getArgNumber()])
      continue;
    if (isDifferentiable(arg.getType()))
      varied.insert(arg);
    else if (isa<ArrayType>(arg.getType()))
      variedInputs.insert(arg);
  }
  while (propagateVaried()) {
  }
  while (propagateUseful()) {
  }
  collectNeedsAdjoint();
}

BlockArgument ad::Activity::rootArgument(Value array) const {
  auto arg = dyn_cast<BlockArgument>(getViewRoot(array));
  if (!arg || arg.getOwner()->getParentOp() != kernel)
    return nullptr;
  return arg;
}

bool ad::Activity::hasAdjoint(Value array) const {
  BlockArgument arg = rootArgument(array);
  return arg && adjointArrays[arg.getArgNumber()];
}

bool ad::Activity::isVariedArray(Value array) const {
  Value root = getViewRoot(array);
  return variedInputs.contains(root) || variedWrites.count(root);
}

bool ad::Activity::readsVaried(Operation *op, Value root) const {
  if (variedInputs.contains(root))
    return true;
  auto it = variedWrites.find(root);
  if (it == variedWrites.end())
    return false;
  // The old value of an atomic update (or what an operation whose effects
  // are unknown reads) may come from any thread's write.
  if (!isa<LoadOp>(op))
    return true;
  return llvm::any_of(it->second, [&](Operation *write) {
    return mayRunAfter(op, write);
  });
}

bool ad::Activity::propagateThroughMemory(Operation *op,
                                          function_ref<void(Value)> mark) {
  // Views are followed to the accesses through them (getViewRoot).
  if (isa<ViewLikeOpInterface>(op))
    return false;
  bool changed = false;
  bool variedOperand = llvm::any_of(
      op->getOperands(), [&](Value v) { return varied.contains(v); });
  for (Value operand : op->getOperands()) {
    if (!isa<ArrayType>(operand.getType()))
      continue;
    ArrayAccess access = accessOf(op, operand);
    Value root = getViewRoot(operand);
    // A varied value written into the array (a store's, an atomic
    // update's): a read that may run after it may see it.
    if ((access.writes || access.unknown) && variedOperand &&
        variedWrites[root].insert(op))
      changed = true;
    if ((access.reads || access.unknown) && readsVaried(op, root))
      for (Value result : op->getResults())
        mark(result);
  }
  return changed;
}

/// The values a region-holding operation passes to `result`'s position:
/// the operands of the terminators that yield into it and, for loops, the
/// initial value.
static void forEachSource(Operation *op, unsigned index,
                          llvm::function_ref<void(Value)> fn) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator()))
        fn(yield.getOperand(index));
  if (auto loop = dyn_cast<scf::ForOp>(op))
    fn(loop.getInitArgs()[index]);
}

bool ad::Activity::propagateVaried() {
  bool changed = false;
  auto mark = [&](Value value) {
    if (isDifferentiable(value.getType()) && varied.insert(value).second)
      changed = true;
  };
  // The tape of an adjoint kernel (differentiated again in forward mode):
  // what is popped is varied when a varied value is pushed.
  bool variedOnTape = false;
  kernel.walk([&](TapePushOp push) {
    variedOnTape |= varied.contains(push.getValue());
  });
  kernel.walk([&](Operation *op) {
    if (auto pop = dyn_cast<TapePopOp>(op)) {
      if (variedOnTape)
        mark(pop.getResult());
      return;
    }
    if (propagateThroughMemory(op, mark))
      changed = true;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        forEachSource(op, i, [&](Value source) {
          if (varied.contains(source)) {
            mark(loop.getRegionIterArgs()[i]);
            mark(loop.getResult(i));
          }
        });
      return;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // before(args) -> condition(args') -> after(args') -> yield -> before.
      for (unsigned i = 0; i < loop.getInits().size(); ++i)
        if (varied.contains(loop.getInits()[i]) ||
            varied.contains(loop.getYieldOp().getOperand(i)))
          mark(loop.getBeforeArguments()[i]);
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        if (varied.contains(loop.getConditionOp().getArgs()[i])) {
          mark(loop.getAfterArguments()[i]);
          mark(loop.getResult(i));
        }
      return;
    }
    if (op->getNumRegions() != 0) {
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        forEachSource(op, i, [&](Value source) {
          if (varied.contains(source))
            mark(op->getResult(i));
        });
      return;
    }
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return varied.contains(v); }))
      for (Value result : op->getResults())
        mark(result);
  });
  return changed;
}

bool ad::Activity::propagateUseful() {
  bool changed = false;
  auto mark = [&](Value value) {
    if (isDifferentiable(value.getType()) && useful.insert(value).second)
      changed = true;
  };
  // What is pushed on the tape is useful when something popped is.
  bool usefulOnTape = false;
  kernel.walk(
      [&](TapePopOp pop) { usefulOnTape |= useful.contains(pop.getResult()); });
  // Backwards, so that most values are settled in one sweep.
  kernel.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
    if (auto push = dyn_cast<TapePushOp>(op)) {
      if (usefulOnTape)
        mark(push.getValue());
      return;
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      if (hasAdjoint(store.getArray()))
        mark(store.getValue());
      return;
    }
    if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
      if (hasAdjoint(atomic.getArray()))
        mark(atomic.getValue());
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        if (useful.contains(loop.getResult(i)) ||
            useful.contains(loop.getRegionIterArgs()[i])) {
          mark(loop.getInitArgs()[i]);
          mark(loop.getYieldedValues()[i]);
          mark(loop.getRegionIterArgs()[i]);
        }
      return;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        if (useful.contains(loop.getResult(i)) ||
            useful.contains(loop.getAfterArguments()[i]))
          mark(loop.getConditionOp().getArgs()[i]);
      for (unsigned i = 0; i < loop.getInits().size(); ++i)
        if (useful.contains(loop.getBeforeArguments()[i])) {
          mark(loop.getInits()[i]);
          mark(loop.getYieldOp().getOperand(i));
        }
      return;
    }
    if (op->getNumRegions() != 0) {
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        if (useful.contains(op->getResult(i)))
          forEachSource(op, i, mark);
      return;
    }
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return useful.contains(v); }))
      for (Value operand : op->getOperands())
        mark(operand);
  });
  // Block arguments of loop bodies are marked through their loop above;
  // an argument useful inside a loop body also makes the loop's values
  // useful on the next sweep.
  return changed;
}

void ad::Activity::collectNeedsAdjoint() {
  // Post-order: an operation needs adjoint code when it or an operation
  // nested in it does.
  kernel.walk([&](Operation *op) {
    bool needs = false;
    if (auto store = dyn_cast<StoreOp>(op))
      needs = hasAdjoint(store.getArray());
    else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
      needs = hasAdjoint(atomic.getArray());
    needs = needs || llvm::any_of(op->getResults(),
                                  [&](Value v) { return isActive(v); });
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        needs = needs || withAdjoint.contains(&inner);
    if (needs)
      withAdjoint.insert(op);
  });
}

void ad::Activity::print(llvm::raw_ostream &os) const {
  os << "activity of @" << kernel.getSymName() << ":\n";
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    StringRef name = kernel.getArgName(arg.getArgNumber());
    os << "  argument " << name << ": "
       << (activeInputs[arg.getArgNumber()] ? "active input" : "inactive")
       << (adjointArrays[arg.getArgNumber()] ? ", has an adjoint" : "")
       << (!activeInputs[arg.getArgNumber()] && variedWrites.count(arg)
               ? ", varied values written into it"
               : "")
       << "\n";
  }
  kernel.walk([&](Operation *op) {
    if (op->getNumResults() == 0 || op == kernel)
      return;
    bool any =
        llvm::any_of(op->getResults(), [&](Value v) { return isActive(v); });
    os << "  " << (any ? "active   " : "inactive ") << op->getName() << " at "
       << op->getLoc() << "\n";
  });
}
