//===- TangentBuilder.cpp - The body of a tangent kernel ---------------===//
//
// Part of ksc. Forward mode is one sweep: K's body is copied in order, and
// after every operation with an active result comes the code of its
// tangents, one per direction, by the operation's tangent rule
// (TangentRules.cpp). A load of an array with a tangent also loads the
// element's tangents; a store also stores them (zeros for an inactive
// value), an atomic add also adds the value's tangents. Region operations
// carry the tangents of their active values as further results (`scf.if`),
// loop-carried values (`scf.for`, `scf.while`) and yielded values, so the
// control flow of K is kept as it is: dynamic loops, `while`, `break` and
// `continue` are differentiated exactly, without a tape.
//
// In an adjoint kernel (forward over reverse, `K_hvp`), the thread's tape
// carries the tangents of the values pushed on it, right after them.
//
//===----------------------------------------------------------------------===//

#include "TangentBuilder.h"
#include "Differentiator.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;
using namespace ksc::ks::ad;

TangentBuilder::TangentBuilder(KernelOp primal, const Activity &activity,
                               ArrayRef<int> tangentArgOf, KernelOp tangent,
                               unsigned width)
    : primal(primal), activity(activity), tangent(tangent), width(width) {
  Block &entry = tangent.getBody().front();
  unsigned numPrimal = primal.getNumArguments();
  map.map(primal.getBody().getArguments(),
          entry.getArguments().take_front(numPrimal));
  for (auto [j, argIndex] : llvm::enumerate(tangentArgOf)) {
    BlockArgument arg = primal.getArgument(argIndex);
    Value shadowArg = entry.getArgument(numPrimal + j);
    // A scalar's tangents: the argument, or an array of one per direction.
    if (isa<ArrayType>(arg.getType()) || width > 1)
      shadows[arg] = shadowArg;
    else
      tangents[arg] = {shadowArg};
  }
  primal.walk([&](TapePushOp push) {
    tapeCarriesTangents |= activity.isVaried(push.getValue());
  });
}

LogicalResult TangentBuilder::run() {
  Block &entry = tangent.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&entry);
  // With several directions a scalar's tangents come in an array.
  if (width > 1)
    for (BlockArgument arg : primal.getBody().getArguments()) {
      Value shadowArg = shadows.lookup(arg);
      if (!shadowArg || isa<ArrayType>(arg.getType()))
        continue;
      Tangents loaded;
      for (unsigned k = 0; k < width; ++k)
        loaded.push_back(
            LoadOp::create(b, plain(arg.getLoc()), shadowArg,
                           tangentIndices({}, {}, k, b, arg.getLoc())));
      setTangents(arg, loaded, b);
    }
  Block &body = primal.getBody().front();
  if (failed(processBlock(body, b)))
    return failure();
  b.clone(*body.getTerminator(), map);
  return success();
}

//===----------------------------------------------------------------------===//
// Tangents of values and arrays
//===----------------------------------------------------------------------===//

ArrayRef<Value> TangentBuilder::tangentsOf(Value value) const {
  auto it = tangents.find(value);
  if (it == tangents.end())
    return {};
  return it->second;
}

TangentBuilder::Tangents
TangentBuilder::tangentsOrZero(Value value, OpBuilder &b, Location loc) {
  ArrayRef<Value> known = tangentsOf(value);
  if (!known.empty())
    return Tangents(known.begin(), known.end());
  return Tangents(width, zero(b, plain(loc), value.getType()));
}

void TangentBuilder::setTangents(Value value, ArrayRef<Value> values,
                                 OpBuilder &b) {
  tangents[value] = Tangents(values.begin(), values.end());
  StringRef name = getSourceName(value);
  if (name.empty())
    return;
  for (Value t : values) {
    Operation *def = t.getDefiningOp();
    if (def && def->getNumResults() == 1 &&
        getNameFromLoc(def->getLoc()).empty() && tangent->isProperAncestor(def))
      def->setLoc(
          NameLoc::get(b.getStringAttr("tan_" + name), plain(def->getLoc())));
  }
}

SmallVector<unsigned> TangentBuilder::carriedPositions(ValueRange values,
                                                       ValueRange alsoActive) {
  SmallVector<unsigned> positions;
  for (auto [i, value] : llvm::enumerate(values))
    if (activity.isActive(value) ||
        (i < alsoActive.size() && activity.isActive(alsoActive[i])))
      positions.push_back(i);
  return positions;
}

void TangentBuilder::nameResults(Operation *op, Operation *copy,
                                 ArrayRef<unsigned> positions, OpBuilder &b) {
  auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr);
  if (!names)
    return;
  SmallVector<Attribute> all(names.begin(), names.end());
  for (unsigned i : positions) {
    StringRef name =
        i < names.size() ? cast<StringAttr>(names[i]).getValue() : "";
    std::string tangentName = name.empty() ? "" : "tan_" + name.str();
    all.append(width, b.getStringAttr(tangentName));
  }
  copy->setAttr(kNamesAttr, b.getArrayAttr(all));
}

Value TangentBuilder::shadow(Value array, SmallVectorImpl<Value> &prefix) {
  // Views fix leading dimensions: element (j) of the view x[i] is x(i, j).
  while (Operation *def = array.getDefiningOp()) {
    if (auto slice = dyn_cast<SliceOp>(def))
      prefix.insert(prefix.begin(), slice.getIndices().begin(),
                    slice.getIndices().end());
    else if (!isa<AsConstOp>(def))
      return nullptr;
    array = def->getOperand(0);
  }
  return shadows.lookup(array);
}

SmallVector<Value> TangentBuilder::tangentIndices(ArrayRef<Value> prefix,
                                                  ValueRange indices,
                                                  unsigned k, OpBuilder &b,
                                                  Location loc) {
  SmallVector<Value> result;
  if (width > 1)
    result.push_back(
        arith::ConstantOp::create(b, plain(loc), b.getI32IntegerAttr(k)));
  llvm::append_range(result, mapped(prefix));
  llvm::append_range(result, mapped(indices));
  return result;
}

//===----------------------------------------------------------------------===//
// Straight-line code
//===----------------------------------------------------------------------===//

LogicalResult TangentBuilder::processBlock(Block &block, OpBuilder &b) {
  for (Operation &op : block.without_terminator())
    if (failed(processOp(op, b)))
      return failure();
  return success();
}

LogicalResult TangentBuilder::processOp(Operation &op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  if (tapeCarriesTangents) {
    if (auto push = dyn_cast<TapePushOp>(op)) {
      b.clone(op, map);
      if (isDifferentiable(push.getValue().getType()))
        for (Value t : tangentsOrZero(push.getValue(), b, loc))
          TapePushOp::create(b, loc, t);
      return success();
    }
    if (auto pop = dyn_cast<TapePopOp>(op);
        pop && isDifferentiable(pop.getType())) {
      // Pushed after the value: popped before it, last direction first.
      Tangents popped(width);
      for (unsigned k = width; k-- > 0;)
        popped[k] = TapePopOp::create(b, loc, pop.getType());
      b.clone(op, map);
      setTangents(pop.getResult(), popped, b);
      return success();
    }
  }
  if (!activity.needsAdjoint(&op)) {
    b.clone(op, map);
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return processIf(ifOp, b);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return processFor(loop, b);
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return processWhile(loop, b);
  if (auto load = dyn_cast<LoadOp>(op))
    return processLoad(load, b);
  if (auto store = dyn_cast<StoreOp>(op))
    return processStore(store, b);
  if (auto atomic = dyn_cast<AtomicRMWOp>(op))
    return processAtomic(atomic, b);
  if (op.getNumRegions() != 0)
    return op.emitError("cannot differentiate '")
           << op.getName() << "' in forward mode";
  return processPure(op, b);
}

LogicalResult TangentBuilder::processLoad(LoadOp op, OpBuilder &b) {
  b.clone(*op, map);
  if (!activity.isActive(op.getResult()))
    return success();
  Location loc = plain(op.getLoc());
  SmallVector<Value> prefix;
  Value array = shadow(op.getArray(), prefix);
  if (!array)
    return op.emitError("cannot differentiate this read: the array has no "
                        "tangent");
  Tangents loaded;
  for (unsigned k = 0; k < width; ++k)
    loaded.push_back(LoadOp::create(
        b, loc, array, tangentIndices(prefix, op.getIndices(), k, b, loc)));
  setTangents(op.getResult(), loaded, b);
  return success();
}

LogicalResult TangentBuilder::processStore(StoreOp op, OpBuilder &b) {
  b.clone(*op, map);
  SmallVector<Value> prefix;
  Value array = shadow(op.getArray(), prefix);
  if (!array)
    return success();
  Location loc = plain(op.getLoc());
  // An inactive value has a zero tangent, which replaces the element's.
  Tangents values = tangentsOrZero(op.getValue(), b, loc);
  for (unsigned k = 0; k < width; ++k)
    StoreOp::create(b, loc, values[k], array,
                    tangentIndices(prefix, op.getIndices(), k, b, loc));
  return success();
}

LogicalResult TangentBuilder::processAtomic(AtomicRMWOp op, OpBuilder &b) {
  b.clone(*op, map);
  SmallVector<Value> prefix;
  Value array = shadow(op.getArray(), prefix);
  if (!array)
    return success();
  // The adjoint of an atomic_min or atomic_max (in K_adj, for --grad=hvp).
  if (op.getKind() == AtomicKind::exchange)
    return op.emitError("cannot take second derivatives of atomic_min and "
                        "atomic_max yet");
  if (activity.isActive(op.getResult()))
    return op.emitError("cannot differentiate the value an atomic update "
                        "returns: it depends on the order of the threads; "
                        "read the element with a[i] instead");
  Location loc = plain(op.getLoc());
  AtomicKind kind = op.getKind();
  if (kind == AtomicKind::min || kind == AtomicKind::max) {
    // The tangent kernel gets the array as the launch left it
    // (ks.final_value_args): the update whose value the element ends with
    // writes its tangent (atomically: one of several tied updates does).
    // Per scalar part (each component of a vector or matrix wins on its
    // own).
    SmallVector<Value> indices = mapped(op.getIndices());
    Value value = mapped(op.getValue());
    Value final = LoadOp::create(b, loc, mapped(op.getArray()), indices);
    SmallVector<int64_t> path(op.getFields().value_or(ArrayRef<int64_t>()));
    size_t depth = path.size();
    auto write = [&](OpBuilder &pb, ArrayRef<int64_t> at, Value v,
                     Value f) -> Value {
      Value won =
          arith::CmpFOp::create(pb, loc, arith::CmpFPredicate::OEQ, v, f);
      auto ifOp = scf::IfOp::create(pb, loc, won, /*withElseRegion=*/false);
      OpBuilder inner = OpBuilder::atBlockBegin(ifOp.thenBlock());
      Tangents values = tangentsOrZero(op.getValue(), inner, loc);
      for (unsigned k = 0; k < width; ++k) {
        Value part = values[k];
        for (int64_t p : at.drop_front(depth))
          part = vector::ExtractOp::create(inner, loc, part, p);
        SmallVector<Value> tangentAt =
            tangentIndices(prefix, op.getIndices(), k, inner, loc);
        AtomicRMWOp::create(inner, loc, AtomicKind::exchange, array, tangentAt,
                            part, at);
      }
      return Value();
    };
    ad::forEachScalarPart(b, loc, value, final, path, write);
    return success();
  }

  ArrayRef<Value> values = tangentsOf(op.getValue());
  for (unsigned k = 0; k < values.size(); ++k)
    AtomicRMWOp::create(b, loc, kind, array,
                        tangentIndices(prefix, op.getIndices(), k, b, loc),
                        values[k], op.getFields().value_or(ArrayRef<int64_t>()));
  return success();
}

LogicalResult TangentBuilder::processPure(Operation &op, OpBuilder &b) {
  Operation *copy = b.clone(op, map);
  if (llvm::none_of(op.getResults(),
                    [&](Value v) { return activity.isActive(v); }))
    return success();
  Location loc = plain(op.getLoc());
  SmallVector<Tangents> results(op.getNumResults());
  for (unsigned k = 0; k < width; ++k) {
    SmallVector<Value> operandTangents;
    for (Value operand : op.getOperands()) {
      ArrayRef<Value> known = tangentsOf(operand);
      operandTangents.push_back(known.empty() ? Value() : known[k]);
    }
    SmallVector<Value> resultTangents;
    TangentContext ctx{b,
                       loc,
                       &op,
                       copy->getOperands(),
                       copy->getResults(),
                       operandTangents,
                       resultTangents};
    if (failed(applyTangentRule(ctx)))
      return op.emitError("cannot differentiate '")
             << op.getName() << "' in forward mode";
    for (auto [i, t] : llvm::enumerate(resultTangents))
      if (t)
        results[i].push_back(t);
  }
  for (auto [i, result] : llvm::enumerate(op.getResults()))
    if (results[i].size() == width)
      setTangents(result, results[i], b);
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// A block at the end of `region` with the arguments of `like`, then
/// `width` tangents of each argument of `like` at `positions`, named after
/// it.
static Block *newBlockWithTangents(Block &like, Region &region,
                                   ArrayRef<unsigned> positions, unsigned width,
                                   OpBuilder &b) {
  Block *block = new Block();
  region.push_back(block);
  for (BlockArgument arg : like.getArguments())
    block->addArgument(arg.getType(), arg.getLoc());
  for (unsigned i : positions) {
    BlockArgument arg = like.getArgument(i);
    Location loc = plain(arg.getLoc());
    if (StringRef name = getSourceName(arg); !name.empty())
      loc = NameLoc::get(b.getStringAttr("tan_" + name), loc);
    for (unsigned k = 0; k < width; ++k)
      block->addArgument(arg.getType(), loc);
  }
  return block;
}

LogicalResult TangentBuilder::processIf(scf::IfOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  SmallVector<unsigned> carried = carriedPositions(op.getResults(), {});
  SmallVector<Type> types(op.getResultTypes());
  for (unsigned i : carried)
    types.append(width, op.getResult(i).getType());
  bool withElse = !op.getElseRegion().empty();
  auto copy =
      scf::IfOp::create(b, loc, types, mapped(op.getCondition()), withElse);
  copy->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  nameResults(op, copy, carried, b);
  Region *regions[2] = {&op.getThenRegion(), &op.getElseRegion()};
  Region *targets[2] = {&copy.getThenRegion(), &copy.getElseRegion()};
  for (int r = 0; r < 2; ++r) {
    if (regions[r]->empty())
      continue;
    Block *target = &targets[r]->front();
    // Blocks of an op without results come with a yield.
    if (!target->empty())
      target->getTerminator()->erase();
    OpBuilder inner = OpBuilder::atBlockEnd(target);
    Block &block = regions[r]->front();
    if (failed(processBlock(block, inner)))
      return failure();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    SmallVector<Value> values = mapped(yield.getOperands());
    for (unsigned i : carried)
      llvm::append_range(values,
                         tangentsOrZero(yield.getOperand(i), inner, loc));
    scf::YieldOp::create(inner, yield.getLoc(), values);
  }
  unsigned n = op.getNumResults();
  map.map(op.getResults(), copy.getResults().take_front(n));
  for (auto [j, i] : llvm::enumerate(carried))
    setTangents(
        op.getResult(i),
        SmallVector<Value>(copy.getResults().slice(n + j * width, width)), b);
  return success();
}

LogicalResult TangentBuilder::processFor(scf::ForOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  SmallVector<unsigned> carried =
      carriedPositions(op.getRegionIterArgs(), op.getResults());
  SmallVector<Value> inits = mapped(op.getInitArgs());
  for (unsigned i : carried)
    llvm::append_range(inits, tangentsOrZero(op.getInitArgs()[i], b, loc));
  auto loop = scf::ForOp::create(
      b, loc, mapped(op.getLowerBound()), mapped(op.getUpperBound()),
      mapped(op.getStep()), inits, nullptr, op.getUnsignedCmp());
  loop->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  nameResults(op, loop, carried, b);
  // The body, with the tangents of the carried values as further arguments.
  Block &body = *op.getBody();
  SmallVector<unsigned> argPositions =
      llvm::map_to_vector(carried, [](unsigned i) { return i + 1; });
  loop.getRegion().front().erase();
  Block *target =
      newBlockWithTangents(body, loop.getRegion(), argPositions, width, b);
  unsigned n = body.getNumArguments();
  map.map(body.getArguments(), target->getArguments().take_front(n));
  for (auto [j, i] : llvm::enumerate(carried))
    setTangents(
        op.getRegionIterArgs()[i],
        SmallVector<Value>(target->getArguments().slice(n + j * width, width)),
        b);
  OpBuilder inner = OpBuilder::atBlockEnd(target);
  if (failed(processBlock(body, inner)))
    return failure();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  SmallVector<Value> next = mapped(yield.getOperands());
  for (unsigned i : carried)
    llvm::append_range(next, tangentsOrZero(yield.getOperand(i), inner, loc));
  scf::YieldOp::create(inner, yield.getLoc(), next);
  unsigned numResults = op.getNumResults();
  map.map(op.getResults(), loop.getResults().take_front(numResults));
  for (auto [j, i] : llvm::enumerate(carried))
    setTangents(op.getResult(i),
                SmallVector<Value>(
                    loop.getResults().slice(numResults + j * width, width)),
                b);
  return success();
}

LogicalResult TangentBuilder::processWhile(scf::WhileOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  // before(args) -> condition(args') -> after(args') / results -> yield.
  SmallVector<unsigned> beforeCarried =
      carriedPositions(op.getBeforeArguments(), {});
  SmallVector<unsigned> afterCarried =
      carriedPositions(op.getAfterArguments(), op.getResults());
  SmallVector<Value> inits = mapped(op.getInits());
  for (unsigned i : beforeCarried)
    llvm::append_range(inits, tangentsOrZero(op.getInits()[i], b, loc));
  SmallVector<Type> types(op.getResultTypes());
  for (unsigned i : afterCarried)
    types.append(width, op.getResult(i).getType());
  auto loop = scf::WhileOp::create(b, loc, types, inits);
  loop->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  nameResults(op, loop, afterCarried, b);

  auto fill = [&](Block &block, Region &region, ArrayRef<unsigned> carried,
                  ArrayRef<unsigned> passed, Operation *terminator,
                  ValueRange terminatorArgs) -> FailureOr<Block *> {
    Block *target = newBlockWithTangents(block, region, carried, width, b);
    unsigned n = block.getNumArguments();
    map.map(block.getArguments(), target->getArguments().take_front(n));
    for (auto [j, i] : llvm::enumerate(carried))
      setTangents(block.getArgument(i),
                  SmallVector<Value>(
                      target->getArguments().slice(n + j * width, width)),
                  b);
    OpBuilder inner = OpBuilder::atBlockEnd(target);
    if (failed(processBlock(block, inner)))
      return failure();
    SmallVector<Value> values = mapped(terminatorArgs);
    for (unsigned i : passed)
      llvm::append_range(values, tangentsOrZero(terminatorArgs[i], inner, loc));
    if (auto condition = dyn_cast<scf::ConditionOp>(terminator))
      scf::ConditionOp::create(inner, condition.getLoc(),
                               mapped(condition.getCondition()), values);
    else
      scf::YieldOp::create(inner, terminator->getLoc(), values);
    return target;
  };
  scf::ConditionOp condition = op.getConditionOp();
  if (failed(fill(before, loop.getBefore(), beforeCarried, afterCarried,
                  condition, condition.getArgs())))
    return failure();
  scf::YieldOp yield = op.getYieldOp();
  if (failed(fill(after, loop.getAfter(), afterCarried, beforeCarried, yield,
                  yield.getOperands())))
    return failure();
  unsigned n = op.getNumResults();
  map.map(op.getResults(), loop.getResults().take_front(n));
  for (auto [j, i] : llvm::enumerate(afterCarried))
    setTangents(
        op.getResult(i),
        SmallVector<Value>(loop.getResults().slice(n + j * width, width)), b);
  return success();
}
