//===- DeadLoopValues.cpp - Loop-carried values nothing reads ----------===//
//
// Part of ksc. A canonicalization of `scf.for` that the SCF dialect lacks:
// a loop-carried value whose final value is unused and which feeds nothing
// but its own next value is dead, even though each iteration reads it.
// Adjoint kernels leave such values behind when the primal code that read a
// loop's result is dropped (`weight` below once `y[i] = weight` is gone):
//
//   for (...) { if (c) weight = x * x; }   // weight is never read
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {
/// Finds the values of an `scf.for` body that can influence something
/// other than the loop-carried values nobody reads: the operands of
/// operations with effects (and the conditions of the `scf.if`s around
/// them), the yielded values of results used after the loop, and,
/// transitively, what those are computed from. Nested `scf.if`s are looked
/// into; other region operations count as operations with effects.
class LoopLiveness {
public:
  explicit LoopLiveness(scf::ForOp loop) : loop(loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [result, yielded] :
         llvm::zip(loop.getResults(), yield.getOperands()))
      if (!result.use_empty())
        markLive(yielded);
    seedEffects(*loop.getBody());
    seedNestedReads();
    while (!worklist.empty())
      propagate(worklist.pop_back_val());
  }

  bool isLive(Value value) const { return live.contains(value); }

private:
  void markLive(Value value) {
    if (live.insert(value).second)
      worklist.push_back(value);
  }

  /// The conditions of the `scf.if`s between `op` and the loop.
  void markConditionsLive(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent != loop;
         parent = parent->getParentOp())
      if (auto ifOp = dyn_cast<scf::IfOp>(parent))
        markLive(ifOp.getCondition());
  }

  void seedEffects(Block &block) {
    scope.insert(&block);
    for (Operation &op : block) {
      if (isa<scf::YieldOp>(op))
        continue;
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (Region &region : ifOp->getRegions())
          for (Block &inner : region)
            seedEffects(inner);
        continue;
      }
      if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
        continue;
      // An operation with effects: everything it and the operations of its
      // regions read counts (the latter: seedNestedReads).
      for (Value operand : op.getOperands())
        markLive(operand);
      markConditionsLive(&op);
    }
  }

  /// The values of the scope that operations in the regions of operations
  /// with effects read: those with a user outside the scope, since a value
  /// of the loop's body is only visible inside it. Only the scope's values
  /// are asked about or propagated, and following their uses, rather than
  /// walking the regions of every loop in the loop, keeps a nest of loops
  /// from being walked once per level (reverse mode was quartic in the
  /// depth of a nest).
  void seedNestedReads() {
    auto readOutsideScope = [&](Value value) {
      return llvm::any_of(value.getUsers(), [&](Operation *user) {
        return !scope.contains(user->getBlock());
      });
    };
    for (Block *block : scope) {
      for (BlockArgument arg : block->getArguments())
        if (readOutsideScope(arg))
          markLive(arg);
      for (Operation &op : *block)
        for (Value result : op.getResults())
          if (readOutsideScope(result))
            markLive(result);
    }
  }

  void propagate(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      // A region iter_arg of the loop: what the previous iteration yielded.
      if (arg.getOwner() == loop.getBody() && arg.getArgNumber() > 0)
        markLive(loop.getYieldedValues()[arg.getArgNumber() - 1]);
      return;
    }
    // Outside the scope: computed before the loop, or in a region of an
    // operation with effects, whose reads of the scope are live already.
    Operation *def = value.getDefiningOp();
    if (!scope.contains(def->getBlock()))
      return;
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      markLive(ifOp.getCondition());
      markLive(ifOp.thenYield().getOperand(index));
      if (!ifOp.getElseRegion().empty())
        markLive(ifOp.elseYield().getOperand(index));
      return;
    }
    for (Value operand : def->getOperands())
      markLive(operand);
  }

  scf::ForOp loop;
  /// The loop's body and the blocks of the `scf.if`s in it, recursively.
  llvm::SmallSetVector<Block *, 8> scope;
  llvm::DenseSet<Value> live;
  SmallVector<Value> worklist;
};

/// Makes every dead loop-carried value yield itself unchanged, which the
/// SCF canonicalization then removes with the computation that fed it.
struct YieldDeadIterArgsUnchanged : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    LoopLiveness liveness(loop);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    bool changed = false;
    for (auto [arg, yielded] :
         llvm::zip(loop.getRegionIterArgs(), yield->getOpOperands())) {
      // Nothing to drop when the yielded value comes from outside the loop
      // (SCF's canonicalization forwards the initial value into the body so).
      Value value = yielded.get();
      if (value == arg ||
          !loop->isAncestor(value.getParentRegion()->getParentOp()))
        continue;
      if (liveness.isLive(arg) || liveness.isLive(value))
        continue;
      // (Not a lambda capturing the bindings: that is C++20.)
      rewriter.startOpModification(yield);
      yielded.set(arg);
      rewriter.finalizeOpModification(yield);
      changed = true;
    }
    return success(changed);
  }
};
} // namespace

void ksc::ks::populateDeadLoopValuePatterns(RewritePatternSet &patterns) {
  patterns.add<YieldDeadIterArgsUnchanged>(patterns.getContext());
}
