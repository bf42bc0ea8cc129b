//===- ReverseAD.cpp - Adjoint kernels by reverse-mode AD --------------===//
//
// Part of ksc. For every kernel `K`, builds the adjoint kernel `K_adj`: K's
// arguments followed by one adjoint array per argument that has an adjoint
// (see docs/autodiff.md), and a body of two sweeps:
//
//  - the forward sweep, a copy of K's body (stores included, so that a
//    thread reads back what it wrote), in which every `scf.if` that the
//    reverse sweep enters also yields the values its branches computed, so
//    that they stay available after it;
//  - the reverse sweep, the operations that need adjoint code in reverse
//    order: each pure operation passes the adjoints of its results to its
//    operands by its derivative rule (DerivativeRules.cpp), a load adds the
//    adjoint of the value read to the adjoint array's element, a store
//    moves the element's adjoint to the stored value and zeroes it, an
//    `scf.if` becomes an `scf.if` on the same condition whose branches are
//    the reverse sweeps of the original branches and yield the adjoints of
//    the values from outside that they update.
//
// Device functions are inlined into a copy of the kernel first; the primal
// kernel keeps its calls.
//
//===----------------------------------------------------------------------===//

#include "AD.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Dialect/Ks/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace ksc::ks {
#define GEN_PASS_DEF_KSREVERSEAD
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"
} // namespace ksc::ks

using namespace mlir;
using namespace ksc;
using namespace ksc::ks;

static constexpr llvm::StringLiteral kAdjointOfAttr = "ks.adjoint_of";
static constexpr llvm::StringLiteral kAdjointArgsAttr = "ks.adjoint_args";

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

/// Replaces every `ks.call` in `kernel` by the body of its callee, until
/// none is left (the language has no recursion).
static LogicalResult inlineCalls(KernelOp kernel, SymbolTable &symbols) {
  while (true) {
    SmallVector<CallOp> calls;
    kernel.walk([&](CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    for (CallOp call : calls) {
      auto callee = symbols.lookup<FuncOp>(call.getCallee());
      if (!callee || callee.isDeclaration())
        return call.emitError("cannot differentiate a call to '")
               << call.getCallee() << "', which has no body";
      OpBuilder b(call);
      IRMapping mapping;
      Block &body = callee.getBody().front();
      mapping.map(body.getArguments(), call.getOperands());
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      auto ret = cast<ReturnOp>(body.getTerminator());
      for (auto [result, value] :
           llvm::zip(call.getResults(), ret.getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      call.erase();
    }
  }
}

/// Whether `type` has an adjoint: a differentiable scalar, vector or
/// matrix, or an array of those.
static bool isDifferentiableArgument(Type type) {
  if (auto array = dyn_cast<ArrayType>(type))
    return ad::isDifferentiable(array.getElementType());
  return ad::isDifferentiable(type);
}

/// The adjoint argument type for a primal argument type: the non-const
/// array of the same shape, or a one-element array for a scalar.
static ArrayType adjointType(Type type) {
  if (auto array = dyn_cast<ArrayType>(type))
    return array.withConst(false);
  return ArrayType::get(type);
}

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

//===----------------------------------------------------------------------===//
// The two sweeps
//===----------------------------------------------------------------------===//

/// The source position of `loc` without its variable names: adjoint code
/// must not be named after the primal variables it is computed for.
static Location plain(Location loc) {
  if (std::optional<FileLineColRange> file = getFileLoc(loc))
    return *file;
  return UnknownLoc::get(loc->getContext());
}

namespace {
class KernelDifferentiator {
public:
  KernelDifferentiator(KernelOp primal, const ad::Activity &activity,
                       ArrayRef<int> adjointArgOf, KernelOp adjoint)
      : primal(primal), activity(activity), adjoint(adjoint) {
    Block &entry = adjoint.getBody().front();
    unsigned numPrimal = primal.getNumArguments();
    fwd.map(primal.getBody().getArguments(),
            entry.getArguments().take_front(numPrimal));
    for (auto [j, argIndex] : llvm::enumerate(adjointArgOf))
      shadows[primal.getArgument(argIndex)] = entry.getArgument(numPrimal + j);
  }

  LogicalResult run() {
    Block &body = primal.getBody().front();
    OpBuilder b = OpBuilder::atBlockEnd(&adjoint.getBody().front());
    SmallVector<Value> defined;
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
      if (isa<VectorType>(arg.getType()))
        return primal.emitError("the adjoint of the vector argument '")
               << primal.getArgName(arg.getArgNumber())
               << "' cannot be accumulated yet: pass it in a one-element "
                  "array instead";
      Location loc = primal.getLoc();
      Value index = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
      AtomicRMWOp::create(b, loc, AtomicKind::add, shadows[arg],
                          ValueRange{index}, adj);
    }
    ReturnOp::create(b, primal.getLoc());
    return success();
  }

private:
  // Forward sweep.
  LogicalResult cloneForward(Block &block, OpBuilder &b,
                             SmallVectorImpl<Value> &defined);
  LogicalResult cloneIf(scf::IfOp op, OpBuilder &b,
                        SmallVectorImpl<Value> &defined);

  // Reverse sweep.
  LogicalResult reverseBlock(Block &block, OpBuilder &b);
  LogicalResult reverseOp(Operation *op, OpBuilder &b);
  LogicalResult reverseIf(scf::IfOp op, OpBuilder &b);
  LogicalResult reverseStore(StoreOp op, OpBuilder &b);
  LogicalResult reverseAtomic(AtomicRMWOp op, OpBuilder &b);
  LogicalResult reverseLoad(LoadOp op, OpBuilder &b);
  LogicalResult reversePure(Operation *op, OpBuilder &b);

  /// The forward sweep's copy of `value`, usable in the reverse sweep.
  Value primalValue(Value value) { return fwd.lookupOrDefault(value); }
  SmallVector<Value> primalValues(ValueRange values) {
    return llvm::map_to_vector(values,
                               [&](Value v) { return primalValue(v); });
  }
  /// The adjoint array of the array `array` (an argument or a view of one),
  /// built at `b` for views.
  Value shadow(Value array, OpBuilder &b);
  /// Adds `contribution` to the adjoint of `value`.
  void addAdjoint(Value value, Value contribution, OpBuilder &b);

  KernelOp primal;
  const ad::Activity &activity;
  KernelOp adjoint;
  IRMapping fwd;
  llvm::DenseMap<Value, Value> adjoints;
  llvm::DenseMap<Value, Value> shadows;
};
} // namespace

LogicalResult KernelDifferentiator::cloneForward(Block &block, OpBuilder &b,
                                                 SmallVectorImpl<Value> &defined) {
  for (Operation &op : block.without_terminator()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op);
        ifOp && activity.needsAdjoint(ifOp)) {
      if (failed(cloneIf(ifOp, b, defined)))
        return failure();
      continue;
    }
    if (isa<scf::ForOp, scf::WhileOp>(op) && activity.needsAdjoint(&op))
      return op.emitError("cannot differentiate this loop yet: the reverse "
                          "sweep of loops that compute with active values is "
                          "not implemented");
    Operation *copy = b.clone(op, fwd);
    (void)copy;
    llvm::append_range(defined, op.getResults());
  }
  return success();
}

/// A zero of any type a branch may have to yield for a value computed only
/// in the other branch; null for types that are never needed (arrays,
/// structs).
static Value placeholder(OpBuilder &b, Location loc, Type type) {
  if (ad::isDifferentiable(type))
    return ad::zero(b, loc, type);
  if (type.isIntOrIndex())
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isIntOrIndex())
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
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
      if (isa<ArrayType, StructType>(v.getType()))
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
        getNameFromLoc(def->getLoc()).empty() &&
        adjoint->isProperAncestor(def))
      def->setLoc(NameLoc::get(b.getStringAttr("adj_" + name),
                               plain(def->getLoc())));
    return;
  }
  Location loc = plain(value.getLoc());
  if (!name.empty())
    loc = NameLoc::get(b.getStringAttr("adj_" + name), loc);
  slot = arith::AddFOp::create(b, loc, slot, contribution);
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
  if (isUniquePerThread(op.getIndices())) {
    Value old = LoadOp::create(b, loc, adjArray, indices);
    StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, adj),
                    adjArray, indices);
    return success();
  }
  if (isa<VectorType>(adj.getType()))
    return op.emitError("cannot differentiate this read yet: the adjoint of "
                        "a vector or matrix element that several threads may "
                        "read needs an atomic update of a vector");
  AtomicRMWOp::create(b, loc, AtomicKind::add, adjArray, indices, adj);
  return success();
}

LogicalResult KernelDifferentiator::reverseIf(scf::IfOp op, OpBuilder &b) {
  Location loc = plain(op.getLoc());
  // The values from outside whose adjoints the branches update.
  llvm::SetVector<Value> outer;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (activity.isActive(v) && !op->isAncestor(v.getParentRegion()->getParentOp()))
        outer.insert(v);
  });
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
    for (Value v : outer) {
      Value adj = adjoints.lookup(v);
      yielded.push_back(adj ? adj : ad::zero(inner, loc, v.getType()));
    }
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
  // Name the results after the adjoints they are.
  SmallVector<Attribute> names;
  for (Value v : outer) {
    StringRef name = getSourceName(v);
    names.push_back(
        b.getStringAttr(name.empty() ? std::string() : "adj_" + name.str()));
  }
  if (!names.empty())
    reversed->setAttr(kNamesAttr, b.getArrayAttr(names));
  return success();
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
  ad::RuleContext ctx{b,       plain(op->getLoc()), op,
                      operands, results, resultAdjoints, operandAdjoints};
  if (failed(ad::applyDerivativeRule(ctx)))
    return op->emitError("cannot differentiate '")
           << op->getName() << "' yet (no derivative rule)";
  for (auto [operand, adj] : llvm::zip(op->getOperands(), operandAdjoints))
    addAdjoint(operand, adj, b);
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Refuses what the activity analysis would silently drop: an active value
/// that flows into a struct.
static LogicalResult checkSupported(KernelOp kernel,
                                    const ad::Activity &activity) {
  WalkResult result = kernel.walk([&](Operation *op) {
    if (!isa<StructMakeOp, StructInsertOp>(op))
      return WalkResult::advance();
    for (Value v : op->getOperands())
      if (activity.isVaried(v)) {
        op->emitError("cannot differentiate through a struct yet: keep the "
                      "differentiated values in scalars, vectors or arrays");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct ReverseAD : public ks::impl::KsReverseADBase<ReverseAD> {
  using KsReverseADBase::KsReverseADBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringSet<> wanted;
    for (const std::string &name : wrt)
      wanted.insert(name);
    llvm::StringSet<> seen;
    SmallVector<KernelOp> kernels;
    for (auto kernel : module.getOps<KernelOp>())
      if (!kernel->hasAttr(kAdjointOfAttr))
        kernels.push_back(kernel);
    for (KernelOp kernel : kernels)
      if (failed(differentiate(kernel, symbols, wanted, seen)))
        return signalPassFailure();
    for (const auto &entry : wanted)
      if (!seen.contains(entry.getKey())) {
        module.emitError("--wrt names '")
            << entry.getKey() << "', which is not an argument of any kernel";
        return signalPassFailure();
      }
  }

  LogicalResult differentiate(KernelOp kernel, SymbolTable &symbols,
                              const llvm::StringSet<> &wanted,
                              llvm::StringSet<> &seen) {
    std::string name = (kernel.getSymName() + "_adj").str();
    if (Operation *existing = symbols.lookup(name)) {
      // The pass ran before: the adjoint is there.
      if (auto of = existing->getAttrOfType<FlatSymbolRefAttr>(kAdjointOfAttr);
          of && of.getValue() == kernel.getSymName())
        return success();
    }
    if (symbols.lookup(name))
      return kernel.emitError("cannot name the adjoint of '")
             << kernel.getSymName() << "' '" << name
             << "': the module has a symbol of that name";
    unsigned n = kernel.getNumArguments();
    SmallVector<bool> activeInputs(n, false), hasAdjoint(n, false);
    SmallVector<bool> written(n, false);
    kernel.walk([&](Operation *op) {
      Value array;
      if (auto store = dyn_cast<StoreOp>(op))
        array = store.getArray();
      else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
        array = atomic.getArray();
      while (array && array.getDefiningOp())
        array = array.getDefiningOp()->getOperand(0); // slices, as_const
      if (auto arg = dyn_cast_or_null<BlockArgument>(array))
        written[arg.getArgNumber()] = true;
    });
    for (unsigned i = 0; i < n; ++i) {
      StringRef argName = kernel.getArgName(i);
      bool differentiable = isDifferentiableArgument(kernel.getArgumentTypes()[i]);
      if (wanted.contains(argName)) {
        seen.insert(argName);
        if (!differentiable)
          return kernel.emitError("cannot differentiate with respect to '")
                 << argName << "': its type " << kernel.getArgumentTypes()[i]
                 << " has no derivative";
      }
      activeInputs[i] =
          differentiable && (wanted.empty() || wanted.contains(argName));
      hasAdjoint[i] = activeInputs[i] || (differentiable && written[i]);
    }
    SmallVector<int> adjointArgOf;
    for (unsigned i = 0; i < n; ++i)
      if (hasAdjoint[i])
        adjointArgOf.push_back(i);
    if (adjointArgOf.empty())
      return success();

    // Work on a copy with the device functions inlined.
    OpBuilder b(kernel);
    auto work = cast<KernelOp>(b.clone(*kernel));
    work.setSymName((kernel.getSymName() + "_adj_work").str());
    auto cleanup = llvm::make_scope_exit([&] { work.erase(); });
    if (failed(inlineCalls(work, symbols)))
      return failure();
    ad::Activity activity(work, activeInputs, hasAdjoint);
    if (printActivity)
      activity.print(llvm::errs());
    if (failed(checkSupported(work, activity)))
      return failure();

    SmallVector<Type> inputs(kernel.getArgumentTypes());
    SmallVector<std::string> names;
    for (unsigned i = 0; i < n; ++i)
      names.push_back(kernel.getArgName(i).str());
    for (int i : adjointArgOf) {
      inputs.push_back(adjointType(kernel.getArgumentTypes()[i]));
      names.push_back("adj_" + kernel.getArgName(i).str());
    }
    SmallVector<StringRef> nameRefs(names.begin(), names.end());
    b.setInsertionPointAfter(kernel);
    auto adjoint = KernelOp::create(b, kernel.getLoc(), name,
                                    b.getFunctionType(inputs, {}), nameRefs);
    for (NamedAttribute attr : kernel->getDiscardableAttrs())
      adjoint->setAttr(attr.getName(), attr.getValue());
    if (ArrayAttr argAttrs = kernel.getArgAttrsAttr()) {
      SmallVector<Attribute> all(argAttrs.begin(), argAttrs.end());
      all.append(adjointArgOf.size(), b.getDictionaryAttr({}));
      adjoint.setArgAttrsAttr(b.getArrayAttr(all));
    }
    adjoint->setAttr(kAdjointOfAttr,
                     FlatSymbolRefAttr::get(kernel.getSymNameAttr()));
    adjoint->setAttr(kAdjointArgsAttr,
                     b.getDenseI64ArrayAttr(llvm::map_to_vector(
                         adjointArgOf, [](int i) { return int64_t(i); })));
    KernelDifferentiator differentiator(work, activity, adjointArgOf, adjoint);
    if (failed(differentiator.run())) {
      adjoint.erase();
      return failure();
    }
    symbols.insert(adjoint);
    return success();
  }
};
} // namespace
