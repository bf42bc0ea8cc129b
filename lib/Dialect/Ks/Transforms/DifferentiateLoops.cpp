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
#include "mlir/Interfaces/LoopLikeInterface.h"
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

bool ad::isCheapToRecompute(Operation *op, bool gpuCost) {
  if (op->getNumRegions() != 0 || isa<TapePopOp>(op))
    return false;
  if (auto load = dyn_cast<LoadOp>(op))
    return load.getArray().getType().getIsConst();
  if (!isMemoryEffectFree(op))
    return false;
  if (isa<math::MathDialect>(op->getDialect()))
    return isa<math::AbsFOp, math::AbsIOp, math::FloorOp, math::CeilOp,
               math::TruncOp>(op) ||
           (gpuCost && isa<math::SqrtOp, math::RsqrtOp>(op));
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
    if (def && def->getBlock() == &body && isCheapToRecompute(def, gpuCost)) {
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
  // (A checkpointed loop clones its body again: the same record, anew.)
  Tape &tape = tapes[&body];
  tape = Tape();
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

void KernelDifferentiator::takeLoopAdjoints(Operation *reversed,
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
    adjoints[u] = reversed->getResult(carried.size() + k);
  for (auto [k, i] : llvm::enumerate(carried))
    addAdjoint(inits[i], reversed->getResult(k), b);
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

/// Erases the yields an `scf.if` without results gets when it is built:
/// the code that fills its branches yields itself.
static void dropImplicitYields(scf::IfOp op) {
  for (Block *block : {op.thenBlock(), op.elseBlock()})
    if (!block->empty())
      block->getTerminator()->erase();
}

/// Drops from `mapping` the arguments of the blocks in `op`'s regions: the
/// body of a loop runs (is cloned) again, and a clone of a region
/// operation takes the mapped arguments of its blocks for the
/// replacements of inlining and makes blocks without them.
static void forgetBlockArguments(Operation *op, IRMapping &mapping) {
  op->walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      mapping.erase(arg);
  });
}

/// The bytes a push of a value of `type` takes on a GPU tape (8-byte
/// slots; the CPU's take at most that).
static int64_t slotBytes(Type type) {
  int64_t bytes = 8;
  if (auto structType = dyn_cast<StructType>(type)) {
    bytes = 0;
    for (Type field : structType.getFieldTypes())
      bytes += slotBytes(field);
  } else if (auto vector = dyn_cast<VectorType>(type)) {
    bytes = vector.getNumElements() *
            llvm::divideCeil(vector.getElementTypeBitWidth(), 8);
  } else if (type.isIntOrFloat()) {
    bytes = llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  }
  return llvm::alignTo(bytes, 8);
}

/// The bytes the taped loop `op` pushes per iteration.
static int64_t bytesPerIteration(const KernelDifferentiator::Tape &tape) {
  int64_t bytes = 0;
  for (Value v : tape.pushed)
    bytes += slotBytes(v.getType());
  return bytes;
}

/// Whether `op`, taped as `tape` says, keeps at most kAlwaysTaped bytes:
/// a constant trip count small enough that checkpointing is not worth the
/// code.
static constexpr int64_t kAlwaysTaped = 1024;
static bool fitsAnyTape(scf::ForOp op,
                        const KernelDifferentiator::Tape &tape) {
  std::optional<APInt> count = op.getStaticTripCount();
  return count && count->getSExtValue() * bytesPerIteration(tape) <=
                      kAlwaysTaped;
}

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
  if (tapes[&body].pushed.empty() || !canCheckpoint(op) ||
      fitsAnyTape(op, tapes[&body]))
    return success();
  // Where the taped loop would not fit in the tape: if (checkpoint) { save
  // the loop-carried values with the iteration index 0; run the loop as
  // the primal does } else { the taped loop }.
  checkpointed.insert(op);
  Location loc = plain(op.getLoc());
  b.setInsertionPoint(loop);
  Value use = useCheckpoints(op, b);
  auto choice = scf::IfOp::create(b, loc, loop.getResultTypes(), use,
                                  /*withElseRegion=*/true);
  dropImplicitYields(choice);
  OpBuilder thenB = OpBuilder::atBlockBegin(choice.thenBlock());
  Value first = arith::ConstantOp::create(
      thenB, loc, thenB.getZeroAttr(loop.getLowerBound().getType()));
  TapePushOp::create(thenB, loc, first);
  SmallVector<Value> inits = primalValues(op.getInitArgs());
  for (Value init : inits)
    TapePushOp::create(thenB, loc, init);
  SmallVector<Value> results = advance(op, first, nullptr, inits, thenB);
  scf::YieldOp::create(thenB, loc, results);
  OpBuilder elseB = OpBuilder::atBlockBegin(choice.elseBlock());
  auto yield = scf::YieldOp::create(elseB, loc, loop.getResults());
  loop->moveBefore(yield);
  for (auto [result, value] : llvm::zip(op.getResults(), choice.getResults()))
    fwd.map(result, value);
  if (auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr))
    choice->setAttr(kNamesAttr, names);
  b.setInsertionPointAfter(choice);
  return success();
}

//===----------------------------------------------------------------------===//
// Checkpointed loops
//===----------------------------------------------------------------------===//

// The adjoint of a loop of n iterations that pushes B bytes per iteration
// tapes it when n * B fits in half the tape (ks.tape_capacity); otherwise
// it keeps only checkpoints: the loop-carried values before some
// iterations, with their index. The forward sweep saves the values before
// iteration 0 and runs the loop as the primal does. The reverse sweep
// undoes iterations n - 1 down to 0; for iteration t it takes the last
// checkpoint (before iteration c <= t) and, while c < t, saves it again and
// runs the loop from c to the middle of [c, t] (bisection), checkpointing
// there; from the state before t it runs iteration t, keeping its values,
// and undoes it. At most about log2(n) checkpoints are kept at once, and
// the body runs about (log2(n) / 2 + 2) n times in all.

/// The trip count of a loop from `lb` to `ub` by `step`, a positive
/// constant.
static Value tripCount(Value lb, Value ub, Value step, OpBuilder &b,
                       Location loc) {
  Type type = lb.getType();
  auto nsw = arith::IntegerOverflowFlags::nsw;
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  Value span = arith::SubIOp::create(b, loc, ub, lb, nsw);
  Value rounded = arith::AddIOp::create(
      b, loc, span, arith::SubIOp::create(b, loc, step, one, nsw), nsw);
  Value count = arith::DivSIOp::create(b, loc, rounded, step);
  return arith::MaxSIOp::create(b, loc, count, zero);
}

bool KernelDifferentiator::canCheckpoint(scf::ForOp op) {
  // Outside other loops (an inner loop's tape lasts one iteration of the
  // outer one), with an induction variable the reverse loop can compute.
  if (op->getParentOfType<LoopLikeOpInterface>() ||
      !derived.contains(op.getInductionVar()))
    return false;
  // The loop-carried values go on the tape as they are.
  for (Type type : op.getResultTypes())
    if (!isa<IntegerType, FloatType, IndexType, VectorType, StructType>(type))
      return false;
  // Running the body again must neither write nor read an array the
  // adjoint's forward sweep writes (readBack): a write would happen twice,
  // and a read would see what the forward sweep wrote after the loop, not
  // what the primal loop read.
  WalkResult walk = op.getBody()->walk([&](Operation *inner) {
    if (isa<ViewLikeOpInterface>(inner))
      return WalkResult::advance();
    for (Value operand : inner->getOperands()) {
      if (!isa<ArrayType>(operand.getType()))
        continue;
      auto arg = dyn_cast<BlockArgument>(getViewRoot(operand));
      if (!arg || arg.getOwner() != &primal.getBody().front() ||
          (arg.getArgNumber() < readBack.size() &&
           readBack[arg.getArgNumber()]))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

Value KernelDifferentiator::useCheckpoints(scf::ForOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Value n = tripCount(primalValue(op.getLowerBound()),
                      primalValue(op.getUpperBound()),
                      primalValue(op.getStep()), b, loc);
  int64_t bytes = bytesPerIteration(tapes[op.getBody()]);
  Type i64 = b.getI64Type();
  if (n.getType() != i64)
    n = arith::ExtSIOp::create(b, loc, i64, n);
  Value perIteration =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(bytes));
  Value taped = arith::MulIOp::create(b, loc, n, perIteration,
                                      arith::IntegerOverflowFlags::nsw);
  Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
  Value half =
      arith::ShRSIOp::create(b, loc, TapeCapacityOp::create(b, loc), one);
  return arith::CmpIOp::create(b, NameLoc::get(b.getStringAttr("checkpoint"), loc),
                               arith::CmpIPredicate::sgt, taped, half);
}

SmallVector<Value> KernelDifferentiator::advance(scf::ForOp op, Value from,
                                                 Value to, ValueRange state,
                                                 OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Value lb = primalValue(op.getLowerBound());
  Value step = primalValue(op.getStep());
  // From iteration `from` to `to` (null: to the end, the primal's bounds).
  auto nsw = arith::IntegerOverflowFlags::nsw;
  Value start = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, from, step, nsw), nsw);
  Value end = to ? arith::AddIOp::create(
                       b, loc, lb, arith::MulIOp::create(b, loc, to, step, nsw),
                       nsw)
                       .getResult()
                 : primalValue(op.getUpperBound());
  auto loop = scf::ForOp::create(
      b, op.getLoc(), start, end, step, state,
      [&](OpBuilder &inner, Location, Value iv, ValueRange args) {
        IRMapping local = fwd;
        forgetBlockArguments(op, local);
        local.map(op.getInductionVar(), iv);
        local.map(op.getRegionIterArgs(), args);
        for (Operation &bodyOp : op.getBody()->without_terminator())
          inner.clone(bodyOp, local);
        scf::YieldOp::create(
            inner, loc,
            llvm::map_to_vector(op.getBody()->getTerminator()->getOperands(),
                                [&](Value v) { return local.lookupOrDefault(v); }));
      });
  if (auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr))
    loop->setAttr(kNamesAttr, names);
  return SmallVector<Value>(loop.getResults());
}

FailureOr<scf::ForOp> KernelDifferentiator::reverseCheckpointedFor(
    scf::ForOp op, ArrayRef<unsigned> carried, ArrayRef<Value> outer,
    ArrayRef<Value> inits, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Block &body = *op.getBody();
  Value lb = primalValue(op.getLowerBound());
  Value step = primalValue(op.getStep());
  Type type = lb.getType();
  Value n = tripCount(lb, primalValue(op.getUpperBound()), step, b, loc);
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value two = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 2));
  auto nsw = arith::IntegerOverflowFlags::nsw;
  Value last = arith::SubIOp::create(b, loc, n, one, nsw);
  LogicalResult status = success();
  auto buildBody = [&](OpBuilder &inner, Location, Value t, ValueRange args) {
    llvm::DenseMap<Value, Value> saved = adjoints;
    auto named = [&](StringRef name) {
      return name.empty() ? loc : Location(NameLoc::get(
                                      inner.getStringAttr(name), loc));
    };
    // The iteration undone: n - 1 - t.
    Value target = arith::SubIOp::create(
        inner, named(getSourceName(op.getInductionVar())), last, t, nsw);
    // The last checkpoint: its index, then its values, were pushed.
    TypeRange types = op.getResultTypes();
    SmallVector<Value> state(types.size());
    for (unsigned k = types.size(); k-- > 0;)
      state[k] = TapePopOp::create(
          inner, named(getSourceName(op.getRegionIterArgs()[k])), types[k]);
    Value at = TapePopOp::create(inner, named("from"), type);
    // Up to the state before iteration `target`, checkpointing halfway.
    SmallVector<Type> whileTypes{type};
    llvm::append_range(whileTypes, types);
    SmallVector<Value> whileInits{at};
    llvm::append_range(whileInits, state);
    auto walk = scf::WhileOp::create(inner, loc, whileTypes, whileInits);
    Block *before = inner.createBlock(&walk.getBefore(), {}, whileTypes,
                                      SmallVector<Location>(whileTypes.size(), loc));
    Value behind = arith::CmpIOp::create(inner, loc, arith::CmpIPredicate::slt,
                                         before->getArgument(0), target);
    scf::ConditionOp::create(inner, loc, behind, before->getArguments());
    Block *after = inner.createBlock(&walk.getAfter(), {}, whileTypes,
                                     SmallVector<Location>(whileTypes.size(), loc));
    Value from = after->getArgument(0);
    for (Value v : after->getArguments())
      TapePushOp::create(inner, loc, v);
    Value middle = arith::AddIOp::create(
        inner, loc, from,
        arith::DivSIOp::create(
            inner, loc,
            arith::AddIOp::create(
                inner, loc,
                arith::SubIOp::create(inner, loc, target, from, nsw), one,
                nsw),
            two),
        nsw);
    SmallVector<Value> next{middle};
    llvm::append_range(next, advance(op, from, middle,
                                     after->getArguments().drop_front(), inner));
    scf::YieldOp::create(inner, loc, next);
    inner.setInsertionPointAfter(walk);
    // Iteration `target`, its values kept, then undone.
    fwd.map(op.getInductionVar(),
            arith::AddIOp::create(
                inner, loc, lb,
                arith::MulIOp::create(inner, loc, target, step, nsw), nsw));
    fwd.map(op.getRegionIterArgs(), walk.getResults().drop_front());
    for (Operation &inner : body)
      forgetBlockArguments(&inner, fwd);
    SmallVector<Value> defined;
    if (failed(cloneForward(body, inner, defined)) ||
        failed(undoIteration(op, carried, outer, args, inner)))
      status = failure();
    adjoints = std::move(saved);
  };
  auto reversed = scf::ForOp::create(b, loc, zero, n, one, inits, buildBody);
  if (failed(status))
    return failure();
  return reversed;
}

LogicalResult KernelDifferentiator::reverseFor(scf::ForOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  llvm::SetVector<Value> outer = outerActiveValues(op);
  // The loop-carried values with adjoints, then the values from outside.
  SmallVector<unsigned> carried = activePositions(op.getRegionIterArgs());
  SmallVector<Value> inits =
      loopAdjoints(op.getResults(), carried, outer.getArrayRef(), b, loc);
  Operation *reversed;
  if (!checkpointed.contains(op)) {
    FailureOr<scf::ForOp> loop =
        reverseTapedFor(op, carried, outer.getArrayRef(), inits, b);
    if (failed(loop))
      return failure();
    reversed = *loop;
  } else {
    // As the forward sweep chose.
    auto choice = scf::IfOp::create(b, loc, ValueRange(inits).getTypes(),
                                    useCheckpoints(op, b),
                                    /*withElseRegion=*/true);
    dropImplicitYields(choice);
    OpBuilder thenB = OpBuilder::atBlockBegin(choice.thenBlock());
    FailureOr<scf::ForOp> checkpointedLoop = reverseCheckpointedFor(
        op, carried, outer.getArrayRef(), inits, thenB);
    if (failed(checkpointedLoop))
      return failure();
    scf::YieldOp::create(thenB, loc, checkpointedLoop->getResults());
    OpBuilder elseB = OpBuilder::atBlockBegin(choice.elseBlock());
    FailureOr<scf::ForOp> tapedLoop =
        reverseTapedFor(op, carried, outer.getArrayRef(), inits, elseB);
    if (failed(tapedLoop))
      return failure();
    scf::YieldOp::create(elseB, loc, tapedLoop->getResults());
    reversed = choice;
  }
  takeLoopAdjoints(reversed, op.getResults(), op.getInitArgs(), carried,
                   outer.getArrayRef(), b);
  return success();
}

LogicalResult KernelDifferentiator::undoIteration(scf::ForOp op,
                                                  ArrayRef<unsigned> carried,
                                                  ArrayRef<Value> outer,
                                                  ValueRange args,
                                                  OpBuilder &b) {
  Location loc = plain(op.getLoc());
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  for (auto [k, u] : llvm::enumerate(outer))
    adjoints[u] = args[carried.size() + k];
  // The adjoints at the end of the iteration are those of what it yields.
  for (auto [k, i] : llvm::enumerate(carried))
    addAdjoint(yield.getOperand(i), args[k], b);
  LogicalResult status = reverseBlock(*op.getBody(), b);
  scf::YieldOp::create(
      b, loc, loopAdjoints(op.getRegionIterArgs(), carried, outer, b, loc));
  return status;
}

FailureOr<scf::ForOp> KernelDifferentiator::reverseTapedFor(
    scf::ForOp op, ArrayRef<unsigned> carried, ArrayRef<Value> outer,
    ArrayRef<Value> inits, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Block &body = *op.getBody();
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
    if (failed(undoIteration(op, carried, outer, args, inner)))
      status = failure();
    adjoints = std::move(saved);
  };
  auto reversed = scf::ForOp::create(
      b, loc, primalValue(op.getLowerBound()), primalValue(op.getUpperBound()),
      primalValue(op.getStep()), inits, buildBody);
  if (failed(status))
    return failure();
  return reversed;
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
