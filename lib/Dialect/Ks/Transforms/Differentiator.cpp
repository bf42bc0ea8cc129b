//===- Differentiator.cpp - Forward and reverse sweeps -----------------===//
//
// Part of ksc. The sweeps of an adjoint kernel for straight-line code and
// `scf.if` (see Differentiator.h; loops are in DifferentiateLoops.cpp).
//
// The reverse sweep handles, in reverse order, the operations that need
// adjoint code: each pure operation passes the adjoints of its results to
// its operands by its derivative rule (DerivativeRules.cpp); a load adds the
// adjoint of the value read to the adjoint array's element (atomically
// unless the index is c * tid() + d with c != 0, when no other thread reads
// the element); a store moves the element's adjoint to the stored value and
// zeroes it; an `scf.if` becomes an `scf.if` on the same condition whose
// branches are the reverse sweeps of the original branches and yield the
// adjoints of the values from outside that they update.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;
using namespace ksc::ks::ad;

/// The coefficient c of `value` = c * tid() + d, if it has that form.
static std::optional<int64_t> tidCoefficient(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto tid = dyn_cast<TidOp>(def))
    return tid.getDim() ? std::nullopt : std::optional<int64_t>(1);
  if (isa<arith::ExtSIOp, arith::IndexCastOp>(def))
    return tidCoefficient(def->getOperand(0));
  auto constant = [](Value v) -> std::optional<int64_t> {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  };
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  Value lhs = def->getOperand(0), rhs = def->getOperand(1);
  std::optional<int64_t> lc = constant(lhs), rc = constant(rhs);
  if (isa<arith::MulIOp>(def)) {
    if (rc)
      if (auto inner = tidCoefficient(lhs))
        return *inner * *rc;
    if (lc)
      if (auto inner = tidCoefficient(rhs))
        return *inner * *lc;
    return std::nullopt;
  }
  if (rc)
    return tidCoefficient(lhs);
  if (lc) {
    std::optional<int64_t> inner = tidCoefficient(rhs);
    if (inner && isa<arith::SubIOp>(def))
      return -*inner;
    return inner;
  }
  return std::nullopt;
}

/// Whether no two threads of a launch access the element at `indices`: one
/// index is c * tid() + d with c != 0.
static bool isUniquePerThread(ValueRange indices) {
  return llvm::any_of(indices, [](Value index) {
    std::optional<int64_t> c = tidCoefficient(index);
    return c && *c != 0;
  });
}

/// The position and value of the index that is c * tid() + d with c != 0,
/// if `indices` has one.
static std::optional<std::pair<unsigned, Value>>
ownIndexOf(ValueRange indices) {
  for (auto [position, index] : llvm::enumerate(indices)) {
    std::optional<int64_t> c = tidCoefficient(index);
    if (c && *c != 0)
      return std::make_pair(unsigned(position), index);
  }
  return std::nullopt;
}

/// Adds `value` into the element of `array` at `indices` atomically; a
/// struct field by field (its differentiable ones), through `path`.
static void atomicAdd(OpBuilder &b, Location loc, Value array,
                      ValueRange indices, Value value,
                      SmallVectorImpl<int64_t> &path) {
  auto structType = dyn_cast<StructType>(value.getType());
  if (!structType) {
    AtomicRMWOp::create(b, loc, AtomicKind::add, array, indices, value, path);
    return;
  }
  for (unsigned i = 0, e = structType.getNumFields(); i < e; ++i) {
    if (!isDifferentiable(structType.getFieldTypes()[i]))
      continue;
    Value field = structField(b, loc, value, i);
    if (isKnownZero(field))
      continue;
    path.push_back(i);
    atomicAdd(b, loc, array, indices, field, path);
    path.pop_back();
  }
}
static void atomicAdd(OpBuilder &b, Location loc, Value array,
                      ValueRange indices, Value value) {
  SmallVector<int64_t> path;
  atomicAdd(b, loc, array, indices, value, path);
}

//===----------------------------------------------------------------------===//
// The two sweeps
//===----------------------------------------------------------------------===//

KernelDifferentiator::KernelDifferentiator(KernelOp primal,
                                           const Activity &activity,
                                           ArrayRef<int> adjointArgOf,
                                           KernelOp adjoint,
                                           ArrayRef<bool> readBack,
                                           bool gpuCost)
    : primal(primal), activity(activity), adjoint(adjoint),
      readBack(readBack.begin(), readBack.end()), gpuCost(gpuCost) {
  Block &entry = adjoint.getBody().front();
  unsigned numPrimal = primal.getNumArguments();
  fwd.map(primal.getBody().getArguments(),
          entry.getArguments().take_front(numPrimal));
  for (auto [j, argIndex] : llvm::enumerate(adjointArgOf))
    shadows[primal.getArgument(argIndex)] = entry.getArgument(numPrimal + j);
}

/// The values of `op` that its reverse sweep reads (besides adjoints): the
/// array and indices of an access, the condition or bounds of a region
/// operation, the operands a derivative rule reads.
static SmallVector<Value> readsOf(Operation *op, const Activity &activity) {
  SmallVector<Value> reads;
  auto access = [&](Value array, ValueRange indices) {
    reads.push_back(array);
    llvm::append_range(reads, indices);
  };
  if (auto load = dyn_cast<LoadOp>(op))
    access(load.getArray(), load.getIndices());
  else if (auto store = dyn_cast<StoreOp>(op))
    access(store.getArray(), store.getIndices());
  else if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
    access(atomic.getArray(), atomic.getIndices());
    // Whether the value won: compared with what the element ends with.
    if (atomic.getKind() == AtomicKind::min ||
        atomic.getKind() == AtomicKind::max)
      reads.push_back(atomic.getValue());
  }
  else if (auto ifOp = dyn_cast<scf::IfOp>(op))
    reads.push_back(ifOp.getCondition());
  else if (auto loop = dyn_cast<scf::ForOp>(op))
    reads = {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  else if (!isa<scf::WhileOp>(op))
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (ruleReadsOperand(op, i,
                           [&](Value v) { return activity.isActive(v); }))
        reads.push_back(operand);
  return reads;
}

void KernelDifferentiator::collectNeeded() {
  // Arrays some read of which other threads may share: every adjoint
  // accumulation into them is atomic, also at a thread's own index, or a
  // plain += would race with the other threads' atomic updates. A read at
  // an index unique to the thread is shared too when another read of the
  // array is at another such index: thread i reading x[i] and x[i + 1]
  // shares x[i + 1] with thread i + 1.
  llvm::DenseMap<Value, std::pair<unsigned, Value>> ownIndex;
  primal.walk([&](LoadOp load) {
    if (!activity.isActive(load.getResult()))
      return;
    Value root = getViewRoot(load.getArray());
    std::optional<std::pair<unsigned, Value>> own =
        ownIndexOf(load.getIndices());
    if (!own) {
      sharedAdjoints.insert(root);
      return;
    }
    auto [it, inserted] = ownIndex.try_emplace(root, *own);
    if (!inserted && it->second != *own)
      sharedAdjoints.insert(root);
  });
  primal.walk([&](Operation *op) {
    if (!activity.needsAdjoint(op))
      return;
    for (Value value : readsOf(op, activity)) {
      needed.insert(value);
      // Views are rebuilt in the reverse sweep from their indices.
      while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
        needed.insert(view->getOperands().begin(), view->getOperands().end());
        value = view.getViewSource();
      }
    }
    if (ruleUsesResult(op))
      needed.insert(op->getResults().begin(), op->getResults().end());
  });
  // The reverse sweep of a loop body runs the body's cheap operations again
  // (cloneTapedBody): what they read is needed too. An operand from an
  // enclosing loop body must come back from that body's tape, or the
  // recomputation would use the forward sweep's value, which does not
  // dominate the reverse sweep of the enclosing loop.
  SmallVector<Value> worklist(needed.begin(), needed.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !isa<scf::ForOp, scf::WhileOp>(def->getParentOp()) ||
        !isCheapToRecompute(def, gpuCost))
      continue;
    for (Value operand : def->getOperands())
      if (needed.insert(operand).second)
        worklist.push_back(operand);
  }
}

LogicalResult KernelDifferentiator::run() {
  Block &body = primal.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&adjoint.getBody().front());
  SmallVector<Value> defined;
  collectNeeded();
  if (failed(cloneForward(body, b, defined)))
    return failure();
  if (failed(reverseBlock(body, b)))
    return failure();
  // Scalar arguments: every thread adds its adjoint to the one element.
  for (BlockArgument arg : primal.getBody().getArguments()) {
    if (isa<ArrayType>(arg.getType()) || !shadows.count(arg))
      continue;
    Value adj = adjoints.lookup(arg);
    if (!adj)
      continue;
    Location loc = primal.getLoc();
    Value index = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    atomicAdd(b, loc, shadows[arg], ValueRange{index}, adj);
  }
  ReturnOp::create(b, primal.getLoc());
  return success();
}

/// The source position of `loc` without its variable names: adjoint code
/// must not be named after the primal variables it is computed for.
Location ad::plain(Location loc) {
  if (std::optional<FileLineColRange> file = getFileLoc(loc))
    return *file;
  return UnknownLoc::get(loc->getContext());
}

LogicalResult
KernelDifferentiator::cloneForward(Block &block, OpBuilder &b,
                                   SmallVectorImpl<Value> &defined) {
  for (Operation &op : block.without_terminator()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op);
        ifOp && activity.needsAdjoint(ifOp)) {
      if (failed(cloneIf(ifOp, b, defined)))
        return failure();
      continue;
    }
    if (isa<scf::ForOp, scf::WhileOp>(op) && activity.needsAdjoint(&op)) {
      if (failed(isa<scf::ForOp>(op) ? cloneFor(cast<scf::ForOp>(op), b)
                                     : cloneWhile(cast<scf::WhileOp>(op), b)))
        return failure();
      llvm::append_range(defined, op.getResults());
      continue;
    }
    b.clone(op, fwd);
    llvm::append_range(defined, op.getResults());
  }
  return success();
}

/// A zero of any type a branch may have to yield for a value computed only
/// in the other branch; null for types that are never needed (arrays,
/// random states).
static Value placeholder(OpBuilder &b, Location loc, Type type) {
  if (ad::isDifferentiable(type) || type.isIntOrIndex() ||
      isa<StructType>(type))
    return ad::zero(b, loc, type);
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isIntOrIndex())
    return ad::zero(b, loc, type);
  return nullptr;
}

LogicalResult KernelDifferentiator::cloneIf(scf::IfOp op, OpBuilder &b,
                                            SmallVectorImpl<Value> &defined) {
  Location loc = op.getLoc();
  Value cond = primalValue(op.getCondition());
  // The branches first, in an scf.if of the original result types.
  auto staging = scf::IfOp::create(b, loc, op.getResultTypes(), cond,
                                   /*withElseRegion=*/true);
  SmallVector<Value> branchDefined[2];
  Region *regions[2] = {&op.getThenRegion(), &op.getElseRegion()};
  Region *targets[2] = {&staging.getThenRegion(), &staging.getElseRegion()};
  for (int i = 0; i < 2; ++i) {
    Block *target = &targets[i]->front();
    // Empty blocks of an op without results get an implicit yield.
    if (!target->empty())
      target->getTerminator()->erase();
    if (regions[i]->empty())
      continue;
    OpBuilder inner = OpBuilder::atBlockEnd(target);
    if (failed(cloneForward(regions[i]->front(), inner, branchDefined[i])))
      return failure();
    inner.clone(*regions[i]->front().getTerminator(), fwd);
  }
  // Then the values the branches computed become further results.
  SmallVector<Value> saved;
  SmallVector<Type> types(op.getResultTypes());
  for (int i = 0; i < 2; ++i)
    for (Value v : branchDefined[i]) {
      if (isa<ArrayType>(v.getType()))
        continue;
      saved.push_back(v);
      types.push_back(v.getType());
    }
  auto final = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  for (int i = 0; i < 2; ++i) {
    Region &target = i == 0 ? final.getThenRegion() : final.getElseRegion();
    target.front().erase();
    target.takeBody(*targets[i]);
    Block &block = target.front();
    SmallVector<Value> yielded;
    if (!block.empty())
      if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator())) {
        yielded.assign(yield.getOperands().begin(), yield.getOperands().end());
        yield.erase();
      }
    OpBuilder inner = OpBuilder::atBlockEnd(&block);
    llvm::DenseSet<Value> mine(branchDefined[i].begin(),
                               branchDefined[i].end());
    for (Value v : saved) {
      if (mine.contains(v)) {
        yielded.push_back(primalValue(v));
        continue;
      }
      Value zero = placeholder(inner, loc, v.getType());
      if (!zero)
        return op.emitError("cannot differentiate this branch: a value of "
                            "type ")
               << v.getType() << " would have to be kept for the reverse sweep";
      yielded.push_back(zero);
    }
    scf::YieldOp::create(inner, loc, yielded);
  }
  // Name the kept values after their source names.
  SmallVector<Attribute> names;
  auto original = op->getAttrOfType<ArrayAttr>(kNamesAttr);
  for (unsigned i = 0; i < op.getNumResults(); ++i)
    names.push_back(original && i < original.size() ? original[i]
                                                    : b.getStringAttr(""));
  for (Value v : saved)
    names.push_back(b.getStringAttr(getSourceName(v)));
  final->setAttr(kNamesAttr, b.getArrayAttr(names));
  staging.erase();
  unsigned numResults = op.getNumResults();
  for (unsigned i = 0; i < numResults; ++i)
    fwd.map(op.getResult(i), final.getResult(i));
  for (auto [k, v] : llvm::enumerate(saved))
    fwd.map(v, final.getResult(numResults + k));
  llvm::append_range(defined, op.getResults());
  llvm::append_range(defined, saved);
  return success();
}

Value KernelDifferentiator::shadow(Value array, OpBuilder &b) {
  if (Value known = shadows.lookup(array))
    return known;
  Operation *def = array.getDefiningOp();
  if (auto asConst = dyn_cast_or_null<AsConstOp>(def))
    return shadow(asConst.getArray(), b);
  if (auto slice = dyn_cast_or_null<SliceOp>(def)) {
    Value base = shadow(slice.getArray(), b);
    if (!base)
      return nullptr;
    auto type = cast<ArrayType>(slice.getType()).withConst(false);
    return SliceOp::create(b, slice.getLoc(), type, base,
                           primalValues(slice.getIndices()));
  }
  return nullptr;
}

void KernelDifferentiator::addAdjoint(Value value, Value contribution,
                                      OpBuilder &b) {
  if (!contribution || !activity.isActive(value))
    return;
  StringRef name = getSourceName(value);
  Value &slot = adjoints[value];
  if (!slot) {
    slot = contribution;
    Operation *def = contribution.getDefiningOp();
    if (!name.empty() && def && def->getNumResults() == 1 &&
        getNameFromLoc(def->getLoc()).empty() && adjoint->isProperAncestor(def))
      def->setLoc(
          NameLoc::get(b.getStringAttr("adj_" + name), plain(def->getLoc())));
    return;
  }
  Location loc = plain(value.getLoc());
  if (!name.empty())
    loc = NameLoc::get(b.getStringAttr("adj_" + name), loc);
  slot = ad::accumulate(b, loc, slot, contribution);
}

llvm::SetVector<Value> KernelDifferentiator::outerActiveValues(Operation *op) {
  llvm::SetVector<Value> outer;
  op->walk([&](Operation *inner) {
    // The operation's own operands (loop inits) are not from inside it.
    if (inner == op)
      return;
    for (Value v : inner->getOperands())
      if (activity.isActive(v) &&
          !op->isAncestor(v.getParentRegion()->getParentOp()))
        outer.insert(v);
  });
  return outer;
}

Value KernelDifferentiator::adjointOrZero(Value value, OpBuilder &b,
                                          Location loc) {
  if (Value adj = adjoints.lookup(value))
    return adj;
  return zero(b, loc, value.getType());
}

ArrayAttr KernelDifferentiator::adjointNames(ArrayRef<Value> values,
                                             OpBuilder &b) {
  SmallVector<Attribute> names;
  for (Value v : values) {
    StringRef name = getSourceName(v);
    names.push_back(
        b.getStringAttr(name.empty() ? std::string() : "adj_" + name.str()));
  }
  return b.getArrayAttr(names);
}

LogicalResult KernelDifferentiator::reverseBlock(Block &block, OpBuilder &b) {
  for (Operation &op : llvm::reverse(block.without_terminator()))
    if (activity.needsAdjoint(&op) && failed(reverseOp(&op, b)))
      return failure();
  return success();
}

LogicalResult KernelDifferentiator::reverseOp(Operation *op, OpBuilder &b) {
  if (auto store = dyn_cast<StoreOp>(op))
    return reverseStore(store, b);
  if (auto atomic = dyn_cast<AtomicRMWOp>(op))
    return reverseAtomic(atomic, b);
  if (auto load = dyn_cast<LoadOp>(op))
    return reverseLoad(load, b);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return reverseIf(ifOp, b);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return reverseFor(loop, b);
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return reverseWhile(loop, b);
  return reversePure(op, b);
}

LogicalResult KernelDifferentiator::reverseStore(StoreOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  Value adjArray = shadow(op.getArray(), b);
  if (!adjArray)
    return op.emitError("cannot differentiate this store: the array has no "
                        "adjoint");
  SmallVector<Value> indices = primalValues(op.getIndices());
  if (activity.isActive(op.getValue()))
    addAdjoint(op.getValue(), LoadOp::create(b, loc, adjArray, indices), b);
  // The value before the store is overwritten: its adjoint is zero.
  StoreOp::create(b, loc, ad::zero(b, loc, op.getValue().getType()), adjArray,
                  indices);
  return success();
}

LogicalResult KernelDifferentiator::reverseAtomic(AtomicRMWOp op,
                                                  OpBuilder &b) {
  Location loc = plain(op.getLoc());
  if (activity.isActive(op.getResult()))
    return op.emitError("cannot differentiate the value an atomic update "
                        "returns: it depends on the order of the threads; "
                        "read the element with a[i] instead");
  if (op.getKind() == AtomicKind::min || op.getKind() == AtomicKind::max)
    return reverseMinMax(op, b);
  if (op.getKind() != AtomicKind::add && op.getKind() != AtomicKind::sub)
    return op.emitError("cannot differentiate atomic_")
           << stringifyAtomicKind(op.getKind()) << " yet";
  if (!activity.isActive(op.getValue()))
    return success();
  Value adjArray = shadow(op.getArray(), b);
  if (!adjArray)
    return op.emitError("cannot differentiate this atomic update: the array "
                        "has no adjoint");
  // element += v: v gets the element's adjoint, which stays the element's.
  Value adj = LoadOp::create(b, loc, adjArray, primalValues(op.getIndices()));
  if (op.getKind() == AtomicKind::sub)
    adj = arith::NegFOp::create(b, loc, adj);
  addAdjoint(op.getValue(), adj, b);
  return success();
}

// The element ends with the value of one update (or its value before the
// launch); that one gets the element's adjoint. The adjoint kernel reads
// the array as the launch left it (ks.final_value_args): an update whose
// value equals the element's takes the element's adjoint, atomically
// exchanged for zero, so that at a tie exactly one of the tied updates
// gets it. What no update takes is the adjoint of the value before the
// launch.
LogicalResult KernelDifferentiator::reverseMinMax(AtomicRMWOp op,
                                                  OpBuilder &b) {
  Value adjArray = shadow(op.getArray(), b);
  if (!adjArray)
    return success();
  Location loc = plain(op.getLoc());
  SmallVector<Value> indices = primalValues(op.getIndices());
  Value value = primalValue(op.getValue());
  Value final = LoadOp::create(b, loc, primalValue(op.getArray()), indices);
  // Per scalar part (each component of a vector or matrix wins on its own).
  SmallVector<int64_t> path(op.getFields().value_or(ArrayRef<int64_t>()));
  auto take = [&](OpBuilder &pb, ArrayRef<int64_t> at, Value v, Value f) {
    Value won = arith::CmpFOp::create(pb, loc, arith::CmpFPredicate::OEQ, v,
                                      f);
    Value zero = ad::zero(pb, loc, v.getType());
    auto taken = scf::IfOp::create(
        pb, loc, won,
        [&](OpBuilder &inner, Location l) {
          Value adj = AtomicRMWOp::create(inner, l, AtomicKind::exchange,
                                          adjArray, indices, zero, at);
          scf::YieldOp::create(inner, l, adj);
        },
        [&](OpBuilder &inner, Location l) {
          scf::YieldOp::create(inner, l, zero);
        });
    return taken.getResult(0);
  };
  Value adjoint = ad::forEachScalarPart(b, loc, value, final, path, take);
  if (activity.isActive(op.getValue()))
    addAdjoint(op.getValue(), adjoint, b);
  return success();
}

LogicalResult KernelDifferentiator::reverseLoad(LoadOp op, OpBuilder &b) {
  Value adj = adjoints.lookup(op.getResult());
  if (!adj)
    return success();
  Location loc = plain(op.getLoc());
  Value adjArray = shadow(op.getArray(), b);
  if (!adjArray)
    return op.emitError("cannot differentiate this read: the array has no "
                        "adjoint");
  SmallVector<Value> indices = primalValues(op.getIndices());
  if (isUniquePerThread(op.getIndices()) &&
      !sharedAdjoints.contains(getViewRoot(op.getArray()))) {
    Value old = LoadOp::create(b, loc, adjArray, indices);
    StoreOp::create(b, loc, ad::accumulate(b, loc, old, adj), adjArray,
                    indices);
    return success();
  }
  atomicAdd(b, loc, adjArray, indices, adj);
  return success();
}

LogicalResult KernelDifferentiator::reverseIf(scf::IfOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  // The values from outside whose adjoints the branches update.
  llvm::SetVector<Value> outer = outerActiveValues(op);
  LogicalResult status = success();
  auto buildBranch = [&](Region &region, OpBuilder &inner, Location) {
    llvm::DenseMap<Value, Value> saved = adjoints;
    if (!region.empty()) {
      auto yield = cast<scf::YieldOp>(region.front().getTerminator());
      for (auto [result, value] :
           llvm::zip(op.getResults(), yield.getOperands()))
        if (Value adj = saved.lookup(result))
          addAdjoint(value, adj, inner);
      if (failed(reverseBlock(region.front(), inner)))
        status = failure();
    }
    SmallVector<Value> yielded;
    for (Value v : outer)
      yielded.push_back(adjointOrZero(v, inner, loc));
    scf::YieldOp::create(inner, loc, yielded);
    adjoints = std::move(saved);
  };
  auto reversed = scf::IfOp::create(
      b, loc, primalValue(op.getCondition()),
      [&](OpBuilder &inner, Location l) {
        buildBranch(op.getThenRegion(), inner, l);
      },
      [&](OpBuilder &inner, Location l) {
        buildBranch(op.getElseRegion(), inner, l);
      });
  if (failed(status))
    return failure();
  for (auto [i, v] : llvm::enumerate(outer))
    adjoints[v] = reversed.getResult(i);
  if (!outer.empty())
    reversed->setAttr(kNamesAttr, adjointNames(outer.getArrayRef(), b));
  return success();
}

namespace {
/// Records the operations a builder creates.
struct CreatedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.insert(op);
  }
  llvm::SmallPtrSet<Operation *, 8> ops;
};
} // namespace

/// Erases the operations among `created` that compute `value` and that
/// nothing uses, but not those computing a value in `keep`: what a rule
/// built for an inactive operand (which may read primal values the reverse
/// sweep does not keep).
static void eraseIfDead(Value value, CreatedOps &created,
                        const llvm::DenseSet<Value> &keep) {
  SmallVector<Operation *> worklist;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!created.ops.contains(op) || !op->use_empty() ||
        llvm::any_of(op->getResults(),
                     [&](Value v) { return keep.contains(v); }))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    created.ops.erase(op);
    op->erase();
  }
}

LogicalResult KernelDifferentiator::reversePure(Operation *op, OpBuilder &b) {
  SmallVector<Value> resultAdjoints;
  bool any = false;
  for (Value result : op->getResults()) {
    resultAdjoints.push_back(adjoints.lookup(result));
    any |= bool(resultAdjoints.back());
  }
  if (!any || ad::hasZeroDerivative(op))
    return success();
  SmallVector<Value> operands = primalValues(op->getOperands());
  SmallVector<Value> results = primalValues(op->getResults());
  SmallVector<Value> operandAdjoints;
  ad::RuleContext ctx{b,
                      plain(op->getLoc()),
                      op,
                      operands,
                      results,
                      resultAdjoints,
                      operandAdjoints};
  CreatedOps created;
  OpBuilder::Listener *listener = b.getListener();
  b.setListener(&created);
  LogicalResult applied = ad::applyDerivativeRule(ctx);
  b.setListener(listener);
  if (failed(applied))
    return op->emitError("cannot differentiate '")
           << op->getName() << "' yet (no derivative rule)";
  llvm::DenseSet<Value> keep(resultAdjoints.begin(), resultAdjoints.end());
  for (auto [operand, adj] : llvm::zip(op->getOperands(), operandAdjoints))
    if (adj && activity.isActive(operand))
      keep.insert(adj);
  for (auto [operand, adj] : llvm::zip(op->getOperands(), operandAdjoints)) {
    if (activity.isActive(operand))
      addAdjoint(operand, adj, b);
    else if (adj)
      eraseIfDead(adj, created, keep);
  }
  return success();
}
