//===- Analysis.cpp - What the emitter knows about a function ---------===//
//
// Part of ksc. Which values are printed inline, where each value is read,
// and structured liveness; see Emitter.h.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

bool Emitter::hasWriteEffects(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return !isPureFunction(call.getCallee());
  if (isa<ks::CheckBoundsOp, ks::CheckIndexOp>(op))
    return true;
  if (op.getNumRegions() != 0) {
    // Region operations write what their bodies write (memoized, as for
    // isExpressionOp).
    if (auto it = regionWrites.find(&op); it != regionWrites.end())
      return it->second;
    bool writes = false;
    for (Region &region : op.getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          writes = writes || hasWriteEffects(nested);
    regionWrites[&op] = writes;
    return writes;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op.hasTrait<OpTrait::IsTerminator>() &&
           !op.hasTrait<OpTrait::ConstantLike>();
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Free>() ||
         effects.hasEffect<MemoryEffects::Allocate>();
}

bool Emitter::isPureFunction(StringRef name) {
  if (auto it = pureFunctions.find(name); it != pureFunctions.end())
    return it->second;
  func::FuncOp func = functionsByName.lookup(name);
  // Recursion is rejected by the frontend; be conservative while analyzing.
  pureFunctions[name] = false;
  bool pure = func && !func.isExternal();
  if (pure)
    func.walk([&](Operation *op) {
      if (op->getNumRegions() == 0 && hasWriteEffects(*op))
        pure = false;
    });
  pureFunctions[name] = pure;
  return pure;
}

/// The block and region structure that `analyzeFunction` inlines into
/// expressions: `scf.if` whose regions compute one value with expression
/// operations only.
static bool isExpressionIfShape(scf::IfOp op) {
  if (op.getNumResults() != 1 || op.getElseRegion().empty())
    return false;
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
    for (Operation &inner : region->front().without_terminator()) {
      if (inner.getNumResults() != 1 || !inner.getResult(0).hasOneUse())
        return false;
      if (inner.getResult(0).getUsers().begin()->getBlock() != inner.getBlock())
        return false;
      // A nested scf.if is checked on its own (isExpressionOp).
      if (!isa<scf::IfOp>(inner) && inner.getNumRegions() != 0)
        return false;
    }
  return true;
}

bool Emitter::isExpressionOp(Operation &op) {
  if (op.getNumResults() != 1)
    return false;
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    // Memoized: nested ifs would otherwise be examined once per enclosing if,
    // exponentially often.
    if (auto it = expressionIfs.find(&op); it != expressionIfs.end())
      return it->second;
    bool result = isExpressionIfShape(ifOp);
    // Everything inside must itself be an expression without side effects.
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
      for (Operation &inner : region->front().without_terminator())
        result = result && isExpressionOp(inner) && !hasWriteEffects(inner);
    expressionIfs[&op] = result;
    return result;
  }
  if (auto call = dyn_cast<func::CallOp>(op))
    return !hasInoutArgs(call);
  Dialect *dialect = op.getDialect();
  if (!dialect)
    return false;
  StringRef ns = dialect->getNamespace();
  // The gpu thread indices (threadIdx.x, ...) of CUDA launchers.
  if (ns == "arith" || ns == "math" || ns == "gpu")
    return true;
  // vector.insert assigns a component of a variable.
  if (ns == "vector")
    return !isa<vector::InsertOp>(op);
  return op.hasTrait<ks::CppExpression>();
}

/// Whether `op` itself reads memory, as its declared memory effects say
/// (a call may read anything).
static bool readsMemory(Operation *op) {
  if (isa<func::CallOp>(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.hasEffect<MemoryEffects::Read>();
}

/// Whether evaluating `op` where it is printed reads memory.
static bool readsMemoryAt(Operation &op,
                          const llvm::DenseMap<Operation *, bool> &memo) {
  bool reads = false;
  op.walk([&](Operation *inner) { reads = reads || readsMemory(inner); });
  for (Value operand : op.getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (auto it = memo.find(def); it != memo.end())
        reads |= it->second;
  return reads;
}

void Emitter::analyzeFunction(func::FuncOp func) {
  inlined.clear();
  sites.clear();
  assignments.clear();
  func.walk([&](Operation *op) {
    if (op->getNumResults() == 1) {
      if (StringRef name = getNameFromLoc(op->getLoc()); !name.empty())
        assignments[name].push_back(op);
    } else if (auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr)) {
      for (Attribute name : names)
        if (auto str = dyn_cast<StringAttr>(name))
          assignments[str.getValue()].push_back(op);
    }
  });
  llvm::DenseMap<Operation *, bool> inlinedReadsMemory;

  // Operations of an expression `scf.if` are part of its expression.
  std::function<void(Block &)> analyzeBlock = [&](Block &block) {
    for (Operation &op : block) {
      bool isExpr = isExpressionOp(op);
      if (isExpr && isa<scf::IfOp>(op)) {
        op.walk([&](Operation *inner) {
          if (inner != &op && !inner->hasTrait<OpTrait::IsTerminator>())
            inlined.insert(inner);
        });
      } else {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            analyzeBlock(nested);
      }
      if (!isExpr)
        continue;

      Value result = op.getResult(0);
      bool readsMemory = readsMemoryAt(op, inlinedReadsMemory);
      auto decide = [&]() {
        if (op.hasTrait<OpTrait::ConstantLike>() || isZeroStructMake(op))
          return getSourceName(result).empty() ||
                 !llvm::hasNItemsOrMore(result.getUses(), 2);
        if (!result.hasOneUse() || !getSourceName(result).empty())
          return false;
        Operation *user = *result.getUsers().begin();
        if (user->getBlock() != op.getBlock())
          return false;
        for (Operation *between = op.getNextNode(); between != user;
             between = between->getNextNode())
          if (between->getNumRegions() != 0 || hasWriteEffects(*between))
            return false;
        // A loop bound that reads memory would be re-read (or an atomic
        // update redone) every iteration.
        if (auto loop = dyn_cast<scf::ForOp>(user))
          if (readsMemory &&
              (result == loop.getUpperBound() || result == loop.getStep()))
            return false;
        if (hasWriteEffects(op))
          return user == op.getNextNode();
        return true;
      };
      if (decide()) {
        inlined.insert(&op);
        inlinedReadsMemory[&op] = readsMemory;
      }
    }
  };
  for (Block &block : func.getBody())
    analyzeBlock(block);

  // Where is the text that reads each operand printed? An inlined operation
  // is printed where its result is used, and so on up the chain; the chain
  // is followed once per operation (memoized), not once per operand.
  llvm::DenseMap<Operation *, Operation *> printedAt;
  std::function<Operation *(Operation *, Value)> effectiveSite =
      [&](Operation *user, Value used) -> Operation * {
    if (auto loop = dyn_cast<scf::ForOp>(user))
      if (used == loop.getUpperBound() || used == loop.getStep())
        // Re-evaluated by the C++ loop condition on every iteration.
        return loop.getBody()->getTerminator();
    if (user->hasTrait<OpTrait::IsTerminator>()) {
      Operation *parent = user->getParentOp();
      if (parent && isInlined(parent) && isa<scf::IfOp>(parent))
        user = parent; // Part of the expression the if is printed as.
      else
        return user;
    }
    if (!isInlined(user))
      return user;
    if (auto it = printedAt.find(user); it != printedAt.end())
      return it->second;
    Value result = user->getResult(0);
    Operation *site = result.use_empty()
                          ? user
                          : effectiveSite(*result.getUsers().begin(), result);
    printedAt[user] = site;
    return site;
  };
  func.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      sites[operand].push_back(effectiveSite(op, operand));
  });
}

bool ksc::cpp::executesAfter(Operation *site, Operation *point) {
  for (Operation *p = point; p && !isa<func::FuncOp>(p); p = p->getParentOp()) {
    Block *block = p->getBlock();
    Operation *s = block->findAncestorOpInBlock(*site);
    if (!s)
      continue;
    if (s != p)
      return p->isBeforeInBlock(s);
    // Both are inside `p`, in different regions.
    if (isa<scf::IfOp>(p))
      return false;
    return true;
  }
  return false;
}

static bool isLoop(Operation *op) { return isa<scf::ForOp, scf::WhileOp>(op); }

static bool isDefinedInside(Value value, Operation *op) {
  Operation *def = value.getParentBlock()->getParentOp();
  return op->isAncestor(def);
}

bool Emitter::isLiveAfter(Value value, Operation *point) {
  auto it = sites.find(value);
  if (it == sites.end())
    return false;
  for (Operation *site : it->second) {
    if (site == point || point->isAncestor(site))
      continue;
    if (executesAfter(site, point))
      return true;
  }
  // A value defined outside a loop and read inside it is read again by the
  // next iteration.
  for (Operation *loop = point->getParentOp(); loop && !isa<func::FuncOp>(loop);
       loop = loop->getParentOp()) {
    if (!isLoop(loop) || isDefinedInside(value, loop))
      continue;
    for (Operation *site : it->second)
      if (loop->isProperAncestor(site))
        return true;
  }
  return false;
}

bool Emitter::isUsedInside(Value value, Operation *op) {
  auto it = sites.find(value);
  if (it == sites.end())
    return false;
  return llvm::any_of(
      it->second, [&](Operation *site) { return op->isProperAncestor(site); });
}
