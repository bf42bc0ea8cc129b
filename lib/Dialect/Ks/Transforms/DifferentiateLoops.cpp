//===- DifferentiateLoops.cpp - Adjoints of scf.for and scf.while ------===//
//
// Part of ksc. Loops whose trip count is known only at run time are
// differentiated exactly with a tape (see docs/autodiff.md):
//
//  - the forward sweep runs the loop as the kernel does and, at the end of
//    every iteration, pushes onto the thread's tape the values of the
//    iteration that the reverse sweep needs (loop-carried values, values
//    read from arrays, intermediate results the derivative rules use);
//    an `scf.while` also counts its iterations and pushes the count;
//  - the reverse sweep runs a loop of as many iterations that pops them back
//    (the last iteration's first) and runs the reverse sweep of the body on
//    them, carrying the adjoints of the loop-carried values and of the
//    values from outside the loop that the body updates.
//
// An `scf.while` is a sequence before(0) after(0) before(1) ... after(n-1)
// before(n) of its two regions; its reverse is before(n) reversed, then n
// times after reversed followed by before reversed.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;
using namespace ksc::ks::ad;

/// A block with the argument types and locations of `like`.
static Block *newBlockLike(Block &like, Region &region,
                           TypeRange extraTypes = {}) {
  Block *block = new Block();
  region.push_back(block);
  for (BlockArgument arg : like.getArguments())
    block->addArgument(arg.getType(), arg.getLoc());
  for (Type type : extraTypes)
    block->addArgument(type, region.getLoc());
  return block;
}

bool ad::isCheapToRecompute(Operation *op) {
  if (op->getNumRegions() != 0 || isa<TapePopOp>(op))
    return false;
  if (auto load = dyn_cast<LoadOp>(op))
    return load.getArray().getType().getIsConst();
  if (!isMemoryEffectFree(op))
    return false;
  if (isa<math::MathDialect>(op->getDialect()))
    return isa<math::AbsFOp, math::AbsIOp, math::FloorOp, math::CeilOp,
               math::TruncOp>(op);
  return !isa<InverseOp, DeterminantOp, RandIOp, RandFOp, RandNOp, RandInitOp>(
      op);
}

LogicalResult KernelDifferentiator::cloneTapedBody(Block &body, Block &target) {
  OpBuilder inner = OpBuilder::atBlockEnd(&target);
  SmallVector<Value> defined(body.getArguments().begin(),
                             body.getArguments().end());
  if (failed(cloneForward(body, inner, defined)))
    return failure();
  // Walk back from what the reverse sweep needs: values of cheap operations
  // of the body are recomputed from their operands, the others are pushed.
  llvm::DenseSet<Value> push;
  llvm::DenseSet<Operation *> recompute;
  SmallVector<Value> worklist;
  for (Value v : defined)
    if (needed.contains(v) && !isa<ArrayType>(v.getType()))
      worklist.push_back(v);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (derived.contains(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &body && isCheapToRecompute(def)) {
      if (!recompute.insert(def).second)
        continue;
      for (Value operand : def->getOperands())
        if (operand.getParentBlock() == &body)
          worklist.push_back(operand);
      continue;
    }
    if (v.getParentRegion() == body.getParent() ||
        body.getParentOp()->isAncestor(v.getParentRegion()->getParentOp()))
      push.insert(v);
  }
  Tape &tape = tapes[&body];
  for (Value v : defined)
    if (push.contains(v)) {
      TapePushOp::create(inner, plain(v.getLoc()), primalValue(v));
      tape.pushed.push_back(v);
    }
  for (Operation &op : body.without_terminator())
    if (recompute.contains(&op))
      tape.recomputed.push_back(&op);
  return success();
}

void KernelDifferentiator::restoreTaped(Block &body, OpBuilder &b) {
  Tape &tape = tapes[&body];
  for (Value v : llvm::reverse(tape.pushed)) {
    Value popped = TapePopOp::create(b, plain(v.getLoc()), v.getType());
    // The popped value is the primal value: it keeps the source name.
    if (Operation *def = popped.getDefiningOp())
      if (StringRef name = getSourceName(v); !name.empty())
        def->setLoc(NameLoc::get(b.getStringAttr(name), def->getLoc()));
    fwd.map(v, popped);
  }
  for (Operation *op : tape.recomputed)
    b.clone(*op, fwd);
}

void KernelDifferentiator::forgetInner(Operation *op) {
  SmallVector<Value> inner;
  for (auto &[value, adj] : adjoints)
    if (op->isProperAncestor(value.getParentRegion()->getParentOp()) ||
        value.getParentRegion()->getParentOp() == op)
      inner.push_back(value);
  for (Value v : inner)
    adjoints.erase(v);
}

//===----------------------------------------------------------------------===//
// Reverse loops
//===----------------------------------------------------------------------===//

// A reversed loop (of either kind) is an scf.for that carries, per
// loop-carried position in `carried`, the adjoint of the loop-carried value,
// then the adjoints of the values from outside the loop its body updates.

SmallVector<unsigned> KernelDifferentiator::activePositions(ValueRange values) {
  SmallVector<unsigned> positions;
  for (auto [i, value] : llvm::enumerate(values))
    if (activity.isActive(value))
      positions.push_back(i);
  return positions;
}

SmallVector<Value> KernelDifferentiator::loopAdjoints(
    ValueRange values, ArrayRef<unsigned> carried, ArrayRef<Value> outer,
    OpBuilder &b, Location loc) {
  SmallVector<Value> adjoint;
  for (unsigned i : carried)
    adjoint.push_back(adjointOrZero(values[i], b, loc));
  for (Value u : outer)
    adjoint.push_back(adjointOrZero(u, b, loc));
  return adjoint;
}

void KernelDifferentiator::takeLoopAdjoints(scf::ForOp reversed,
                                            ValueRange named, ValueRange inits,
                                            ArrayRef<unsigned> carried,
                                            ArrayRef<Value> outer,
                                            OpBuilder &b) {
  SmallVector<Value> namedAfter;
  for (unsigned i : carried)
    namedAfter.push_back(named[i]);
  llvm::append_range(namedAfter, outer);
  if (!namedAfter.empty())
    reversed->setAttr(kNamesAttr, adjointNames(namedAfter, b));
  for (auto [k, u] : llvm::enumerate(outer))
    adjoints[u] = reversed.getResult(carried.size() + k);
  for (auto [k, i] : llvm::enumerate(carried))
    addAdjoint(inits[i], reversed.getResult(k), b);
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

LogicalResult KernelDifferentiator::cloneFor(scf::ForOp op, OpBuilder &b) {
  auto loop = cast<scf::ForOp>(b.cloneWithoutRegions(*op, fwd));
  Block &body = *op.getBody();
  Block *target = newBlockLike(body, loop.getRegion());
  fwd.map(body.getArguments(), target->getArguments());
  // With a constant positive step the reverse loop knows the induction
  // variable of the iteration it undoes.
  APInt step;
  if (!op.getUnsignedCmp() &&
      matchPattern(op.getStep(), m_ConstantInt(&step)) &&
      step.isStrictlyPositive())
    derived.insert(op.getInductionVar());
  if (failed(cloneTapedBody(body, *target)))
    return failure();
  OpBuilder::atBlockEnd(target).clone(*body.getTerminator(), fwd);
  return success();
}

LogicalResult KernelDifferentiator::reverseFor(scf::ForOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Block &body = *op.getBody();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  llvm::SetVector<Value> outer = outerActiveValues(op);
  // The loop-carried values with adjoints, then the values from outside.
  SmallVector<unsigned> carried = activePositions(op.getRegionIterArgs());
  SmallVector<Value> inits =
      loopAdjoints(op.getResults(), carried, outer.getArrayRef(), b, loc);
  LogicalResult status = success();
  // The trip count, for the induction variable: iteration t of the reverse
  // loop undoes iteration count - 1 - t, whose variable is lb + that * step.
  Value lb = primalValue(op.getLowerBound());
  Value step = primalValue(op.getStep());
  Value count;
  auto nsw = arith::IntegerOverflowFlags::nsw;
  if (derived.contains(op.getInductionVar())) {
    Value one =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(lb.getType(), 1));
    Value span =
        arith::SubIOp::create(b, loc, primalValue(op.getUpperBound()), lb, nsw);
    // ceil(span / step) - 1 (only used when span > 0, the loop runs).
    Value rounded = arith::AddIOp::create(
        b, loc, span, arith::SubIOp::create(b, loc, step, one, nsw), nsw);
    count = arith::DivSIOp::create(b, loc, rounded, step);
    count = arith::SubIOp::create(b, loc, count, one, nsw);
  }
  auto buildBody = [&](OpBuilder &inner, Location, Value iv, ValueRange args) {
    llvm::DenseMap<Value, Value> saved = adjoints;
    if (count) {
      Location named = loc;
      if (StringRef name = getSourceName(op.getInductionVar()); !name.empty())
        named = NameLoc::get(inner.getStringAttr(name), loc);
      Value t = arith::DivSIOp::create(
          inner, loc, arith::SubIOp::create(inner, loc, iv, lb, nsw), step);
      Value undone = arith::SubIOp::create(inner, named, count, t, nsw);
      Value var = arith::AddIOp::create(
          inner, named, lb,
          arith::MulIOp::create(inner, loc, undone, step, nsw), nsw);
      fwd.map(op.getInductionVar(), var);
    }
    restoreTaped(body, inner);
    for (auto [k, u] : llvm::enumerate(outer))
      adjoints[u] = args[carried.size() + k];
    // The adjoints at the end of the iteration are those of what it yields.
    for (auto [k, i] : llvm::enumerate(carried))
      addAdjoint(yield.getOperand(i), args[k], inner);
    if (failed(reverseBlock(body, inner)))
      status = failure();
    scf::YieldOp::create(inner, loc,
                         loopAdjoints(op.getRegionIterArgs(), carried,
                                      outer.getArrayRef(), inner, loc));
    adjoints = std::move(saved);
  };
  auto reversed = scf::ForOp::create(
      b, loc, primalValue(op.getLowerBound()), primalValue(op.getUpperBound()),
      primalValue(op.getStep()), inits, buildBody);
  if (failed(status))
    return failure();
  takeLoopAdjoints(reversed, op.getResults(), op.getInitArgs(), carried,
                   outer.getArrayRef(), b);
  return success();
}

//===----------------------------------------------------------------------===//
// scf.while
//===----------------------------------------------------------------------===//

LogicalResult KernelDifferentiator::cloneWhile(scf::WhileOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  // The same loop, counting its iterations in one more carried value.
  Type i32 = b.getI32Type();
  SmallVector<Value> inits = primalValues(op.getInits());
  inits.push_back(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
  SmallVector<Type> types(op.getResultTypes());
  types.push_back(i32);
  auto loop = scf::WhileOp::create(b, op.getLoc(), types, inits);
  if (auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr)) {
    SmallVector<Attribute> all(names.begin(), names.end());
    all.push_back(b.getStringAttr("iterations"));
    loop->setAttr(kNamesAttr, b.getArrayAttr(all));
  }
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  Block *newBefore = newBlockLike(before, loop.getBefore(), {i32});
  Block *newAfter = newBlockLike(after, loop.getAfter(), {i32});
  fwd.map(before.getArguments(), newBefore->getArguments().drop_back());
  fwd.map(after.getArguments(), newAfter->getArguments().drop_back());

  if (failed(cloneTapedBody(before, *newBefore)))
    return failure();
  scf::ConditionOp condition = op.getConditionOp();
  SmallVector<Value> args = primalValues(condition.getArgs());
  args.push_back(newBefore->getArguments().back());
  OpBuilder beforeEnd = OpBuilder::atBlockEnd(newBefore);
  scf::ConditionOp::create(beforeEnd, condition.getLoc(),
                           primalValue(condition.getCondition()), args);

  if (failed(cloneTapedBody(after, *newAfter)))
    return failure();
  OpBuilder afterEnd = OpBuilder::atBlockEnd(newAfter);
  SmallVector<Value> next = primalValues(op.getYieldOp().getOperands());
  Value one = arith::ConstantOp::create(afterEnd, loc, b.getI32IntegerAttr(1));
  next.push_back(arith::AddIOp::create(afterEnd, loc,
                                       newAfter->getArguments().back(), one,
                                       arith::IntegerOverflowFlags::nsw));
  scf::YieldOp::create(afterEnd, op.getYieldOp().getLoc(), next);

  for (auto [result, copy] : llvm::zip(op.getResults(), loop.getResults()))
    fwd.map(result, copy);
  // The count goes on the tape after everything the loop pushed.
  TapePushOp::create(b, loc, loop.getResults().back());
  return success();
}

LogicalResult KernelDifferentiator::reverseWhile(scf::WhileOp op,
                                                 OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  scf::ConditionOp condition = op.getConditionOp();
  scf::YieldOp yield = op.getYieldOp();
  llvm::SetVector<Value> outer = outerActiveValues(op);
  Value count = TapePopOp::create(
      b, NameLoc::get(b.getStringAttr("iterations"), loc), b.getI32Type());

  // before(n): the results are its condition's arguments.
  restoreTaped(before, b);
  for (auto [result, arg] : llvm::zip(op.getResults(), condition.getArgs()))
    if (Value adj = adjoints.lookup(result))
      addAdjoint(arg, adj, b);
  if (failed(reverseBlock(before, b)))
    return failure();

  SmallVector<unsigned> carried = activePositions(before.getArguments());
  SmallVector<Value> inits =
      loopAdjoints(before.getArguments(), carried, outer.getArrayRef(), b, loc);
  forgetInner(op);

  // n times: after(k) then before(k), for k = n - 1 down to 0.
  LogicalResult status = success();
  auto buildBody = [&](OpBuilder &inner, Location, Value, ValueRange args) {
    llvm::DenseMap<Value, Value> saved = adjoints;
    for (auto [k, u] : llvm::enumerate(outer))
      adjoints[u] = args[carried.size() + k];
    restoreTaped(after, inner);
    for (auto [k, i] : llvm::enumerate(carried))
      addAdjoint(yield.getOperand(i), args[k], inner);
    if (failed(reverseBlock(after, inner)))
      status = failure();
    restoreTaped(before, inner);
    for (auto [arg, conditionArg] :
         llvm::zip(after.getArguments(), condition.getArgs()))
      if (Value adj = adjoints.lookup(arg))
        addAdjoint(conditionArg, adj, inner);
    if (failed(reverseBlock(before, inner)))
      status = failure();
    scf::YieldOp::create(inner, loc,
                         loopAdjoints(before.getArguments(), carried,
                                      outer.getArrayRef(), inner, loc));
    adjoints = std::move(saved);
  };
  Value zeroIndex = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value oneIndex = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  auto reversed =
      scf::ForOp::create(b, loc, zeroIndex, count, oneIndex, inits, buildBody);
  if (failed(status))
    return failure();
  takeLoopAdjoints(reversed, before.getArguments(), op.getInits(), carried,
                   outer.getArrayRef(), b);
  return success();
}
