//===- EmitScf.cpp - Structured control flow as C++ -------------------===//
//
// Part of ksc. `scf.if` becomes `if`/`else` (or `?:`, `&&`, `||` when its
// regions only compute a value), `scf.for` a counted `for`, `scf.while` a
// `while`, `do`/`while` or `while (true)` loop. Region results live in slot
// variables (see Emitter.h).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

/// The first non-empty source name among `values`.
static std::string firstName(ArrayRef<Value> values) {
  for (Value value : values)
    if (value)
      if (StringRef name = getSourceName(value); !name.empty())
        return name.str();
  return "";
}

/// A name for `result` when the source gave it none: what it becomes.
static std::string roleName(Value result) {
  if (result.hasOneUse() && isa<func::ReturnOp>(*result.getUsers().begin()))
    return "result";
  return "";
}

/// The name the frontend recorded for result `index` of an `scf` op (in its
/// `ks.names` attribute), or "".
static std::string recordedName(Operation *op, unsigned index) {
  auto names = op->getAttrOfType<ArrayAttr>(kNamesAttr);
  if (!names || names.size() != op->getNumResults())
    return "";
  auto name = dyn_cast<StringAttr>(names[index]);
  return name ? name.getValue().str() : "";
}

static bool isDefinedOutside(Value value, Operation *op) {
  return !op->isAncestor(value.getParentBlock()->getParentOp());
}

/// Whether printing `block` (without its terminator) prints nothing.
static bool printsNothing(Block &block, Emitter &emitter) {
  return llvm::all_of(block.without_terminator(), [&](Operation &op) {
    if (emitter.isInlined(&op))
      return true;
    return emitter.isExpressionOp(op) && op.use_empty() &&
           !emitter.hasWriteEffects(op);
  });
}

/// Whether `yield` would assign anything to `slots`.
static bool assignsSlots(Operation *yield, ArrayRef<unsigned> slots,
                         Emitter &emitter) {
  for (auto [slot, value] : llvm::zip(slots, yield->getOperands())) {
    auto it = emitter.varOf.find(value);
    if (it == emitter.varOf.end() || it->second != slot ||
        emitter.vars[slot].current != value)
      return true;
  }
  return false;
}

LogicalResult Emitter::emitScfOp(Operation &op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return emitIf(ifOp);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return emitFor(forOp);
  return emitWhile(cast<scf::WhileOp>(op));
}

//===----------------------------------------------------------------------===//
// scf.if
//===----------------------------------------------------------------------===//

FailureOr<Expr> Emitter::buildIfExpr(scf::IfOp op) {
  // The regions hold only inlined expression operations.
  if (failed(emitBlock(op.getThenRegion().front())) ||
      failed(emitBlock(op.getElseRegion().front())))
    return failure();
  Value thenValue = op.thenYield().getOperand(0);
  Value elseValue = op.elseYield().getOperand(0);
  Expr thenExpr = valueExpr(thenValue), elseExpr = valueExpr(elseValue);
  if (op.getResult(0).getType().isSignlessInteger(1)) {
    // Short-circuit logic reads better as && and ||.
    auto isBool = [](Value v, bool expected) {
      APInt value;
      return matchPattern(v, m_ConstantInt(&value)) &&
             value.isZero() != expected;
    };
    Expr cond = valueExpr(op.getCondition());
    if (isBool(elseValue, false))
      return binary("&&", kLogAnd, cond, thenExpr);
    if (isBool(thenValue, true))
      return binary("||", kLogOr, cond, elseExpr);
    if (isBool(thenValue, false))
      return binary("&&", kLogAnd, negate(op.getCondition()), elseExpr);
    if (isBool(elseValue, true))
      return binary("||", kLogOr, negate(op.getCondition()), thenExpr);
  }
  if (op.getResult(0).getType().isSignlessInteger(32)) {
    // Both operands of the type of the result.
    bool u = isUnsigned(op.getResult(0));
    Expr result = ternary(valueExpr(op.getCondition()),
                          operandAs(thenValue, u), operandAs(elseValue, u));
    result.isUnsigned = u;
    return result;
  }
  return ternary(valueExpr(op.getCondition()), thenExpr, elseExpr);
}

/// The C++ types of the slots for `values` (an op's results or a block's
/// arguments).
static SmallVector<Type> slotTypes(Emitter &emitter, ValueRange values) {
  SmallVector<Type> types;
  for (Value value : values)
    types.push_back(emitter.cppType(value));
  return types;
}

LogicalResult Emitter::emitIf(scf::IfOp op) {
  unsigned numResults = op.getNumResults();
  SmallVector<std::string> names;
  SmallVector<SmallVector<Value>> candidates(numResults);
  for (unsigned i = 0; i < numResults; ++i) {
    Value thenValue = op.thenYield().getOperand(i);
    Value elseValue = op.elseYield().getOperand(i);
    std::string name = recordedName(op, i);
    if (name.empty())
      name = firstName({thenValue, elseValue});
    if (name.empty())
      name = roleName(op.getResult(i));
    names.push_back(name);
    for (Value value : {thenValue, elseValue})
      if (isDefinedOutside(value, op))
        candidates[i].push_back(value);
  }
  FailureOr<SmallVector<unsigned>> slots =
      makeSlots(op, slotTypes(*this, op.getResults()), names, {}, candidates);
  if (failed(slots))
    return failure();

  Block &thenBlock = op.getThenRegion().front();
  Block *elseBlock =
      op.getElseRegion().empty() ? nullptr : &op.getElseRegion().front();
  SmallVector<Value> before = saveVarState();
  auto emitBranch = [&](Block &block) {
    preferSlots(block, *slots);
    return emitScope(block, [&] {
      return assignSlots(*slots, block.getTerminator()->getOperands());
    });
  };
  auto elseNeeded = [&] {
    return elseBlock &&
           (!printsNothing(*elseBlock, *this) ||
            assignsSlots(elseBlock->getTerminator(), *slots, *this));
  };

  // `if (c) {} else { ... }` reads better as `if (!c) { ... }`.
  if (printsNothing(thenBlock, *this) &&
      !assignsSlots(thenBlock.getTerminator(), *slots, *this) && elseNeeded()) {
    os << "if (" << negate(op.getCondition()).text << ") {\n";
    if (failed(emitBranch(*elseBlock)))
      return failure();
    os << "}\n";
  } else {
    os << "if (" << valueExpr(op.getCondition()).text << ") {\n";
    if (failed(emitBranch(thenBlock)))
      return failure();
    os << "}";
    SmallVector<Value> afterThen = saveVarState();
    restoreVarState(before);
    if (elseNeeded()) {
      // `else if` for an else branch that is only another if (and the
      // expressions of its condition).
      Operation *last = elseBlock->getTerminator()->getPrevNode();
      auto nested = dyn_cast_or_null<scf::IfOp>(last);
      bool onlyIf =
          nested && numResults == 0 && nested.getNumResults() == 0 &&
          llvm::all_of(elseBlock->without_terminator(), [&](Operation &inner) {
            return &inner == last || isInlined(&inner);
          });
      if (onlyIf) {
        {
          // Nothing may be printed between `}` and `else`: the condition's
          // expressions stay inline, however long.
          llvm::SaveAndRestore<bool> inlineAll(keepInline, true);
          for (Operation &inner : elseBlock->without_terminator())
            if (&inner != last && failed(emitOperation(inner)))
              return failure();
        }
        os << " else ";
        pushScope();
        LogicalResult result = emitIf(nested);
        popScope();
        if (failed(result))
          return failure();
      } else {
        os << " else {\n";
        if (failed(emitBranch(*elseBlock)))
          return failure();
        os << "}\n";
      }
    } else {
      os << "\n";
    }
    // A variable the two paths leave with different values holds neither
    // afterwards (both were dead).
    for (auto [var, value] : llvm::zip(vars, afterThen))
      if (var.current != value)
        var.current = Value();
  }
  for (auto [result, slot] : llvm::zip(op.getResults(), *slots))
    bindVar(result, slot);
  return success();
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

LogicalResult Emitter::emitFor(scf::ForOp op) {
  if (op.getUnsignedCmp())
    return op.emitError("cannot emit an unsigned scf.for as C++");
  SmallVector<std::string> names;
  SmallVector<SmallVector<Value>> candidates;
  for (auto [index, iterArg, init, yielded] : llvm::enumerate(
           op.getRegionIterArgs(), op.getInitArgs(), op.getYieldedValues())) {
    std::string name = recordedName(op, index);
    if (name.empty())
      name = getNameFromLoc(iterArg.getLoc()).str();
    if (name.empty())
      name = firstName({yielded, init});
    names.push_back(name);
    candidates.push_back({init});
  }
  FailureOr<SmallVector<unsigned>> slots =
      makeSlots(op, slotTypes(*this, op.getResults()), names,
                op.getInitArgs(), candidates);
  if (failed(slots))
    return failure();

  // A signed loop: the counter and its bounds are ints.
  Expr lower = operandAs(op.getLowerBound(), false);
  Expr upper = operandAs(op.getUpperBound(), false);
  Expr step = operandAs(op.getStep(), false);
  // C++ re-evaluates the bound on every iteration, scf.for once.
  if (upper.readsMemory || llvm::any_of(upper.reads, [&](unsigned var) {
        return llvm::is_contained(*slots, var);
      })) {
    unsigned var = newVar("end", op.getUpperBound().getType());
    os << declare(var) << " = " << upper.text << ";\n";
    upper = Expr(vars[var].name, kPrimary);
  }

  pushScope();
  Value iv = op.getInductionVar();
  std::string ivName = getNameFromLoc(iv.getLoc()).str();
  unsigned ivVar = newVar(ivName.empty() ? "i" : ivName, iv.getType());
  // The loop's increment reads the counter after the body: no value of the
  // body may take its variable over.
  vars[ivVar].reusable = false;
  bindVar(iv, ivVar);
  StringRef name = vars[ivVar].name;
  APInt stepValue;
  std::string increment =
      matchPattern(op.getStep(), m_ConstantInt(&stepValue)) && stepValue.isOne()
          ? "++" + name.str()
          : name.str() + " += " + step.text;
  os << "for (" << declare(ivVar) << " = " << lower.text << "; " << name
     << " < " << operand(upper, kRel + 1) << "; " << increment << ") {\n";
  for (auto [iterArg, slot] : llvm::zip(op.getRegionIterArgs(), *slots))
    bindVar(iterArg, slot);
  preferSlots(*op.getBody(), *slots);
  LogicalResult result = emitScope(*op.getBody(), [&] {
    return assignSlots(*slots, op.getYieldedValues());
  });
  os << "}\n";
  popScope();
  if (failed(result))
    return failure();
  for (auto [res, slot] : llvm::zip(op.getResults(), *slots))
    bindVar(res, slot);
  return success();
}

//===----------------------------------------------------------------------===//
// scf.while
//===----------------------------------------------------------------------===//

LogicalResult Emitter::emitWhile(scf::WhileOp op) {
  Block &before = *op.getBeforeBody();
  Block &after = *op.getAfterBody();
  scf::ConditionOp condition = op.getConditionOp();

  SmallVector<std::string> names;
  SmallVector<SmallVector<Value>> candidates;
  for (auto [index, arg] : llvm::enumerate(before.getArguments())) {
    std::string name = recordedName(op, index);
    if (name.empty())
      name = getNameFromLoc(arg.getLoc()).str();
    if (name.empty() && index < after.getNumArguments())
      name = getNameFromLoc(after.getArgument(index).getLoc()).str();
    if (name.empty())
      name = firstName({op.getInits()[index]});
    names.push_back(name);
    candidates.push_back({op.getInits()[index]});
  }
  FailureOr<SmallVector<unsigned>> slots =
      makeSlots(op, slotTypes(*this, before.getArguments()), names,
                op.getInits(), candidates);
  if (failed(slots))
    return failure();
  for (auto [arg, slot] : llvm::zip(before.getArguments(), *slots))
    bindVar(arg, slot);

  bool forwarded = llvm::equal(condition.getArgs(), before.getArguments());
  bool afterForwards =
      after.getOperations().size() == 1 &&
      llvm::equal(after.getTerminator()->getOperands(), after.getArguments());
  bool beforeIsExpression =
      llvm::all_of(before.without_terminator(),
                   [&](Operation &inner) { return isInlined(&inner); });
  if (forwarded && beforeIsExpression)
    return emitWhileLoop(op, *slots);
  if (afterForwards)
    return emitDoWhile(op, *slots);
  return emitWhileTrue(op, *slots, forwarded);
}

/// while (cond) { after }: the condition is an expression of the loop's
/// variables.
LogicalResult Emitter::emitWhileLoop(scf::WhileOp op,
                                     ArrayRef<unsigned> slots) {
  Block &before = *op.getBeforeBody();
  Block &after = *op.getAfterBody();
  if (failed(emitBlock(before)))
    return failure();
  os << "while (" << valueExpr(op.getConditionOp().getCondition()).text
     << ") {\n";
  for (auto [arg, slot] : llvm::zip(after.getArguments(), slots))
    bindVar(arg, slot);
  preferSlots(after, slots);
  LogicalResult result = emitScope(after, [&] {
    return assignSlots(slots, after.getTerminator()->getOperands());
  });
  os << "}\n";
  if (failed(result))
    return failure();
  for (auto [res, slot] : llvm::zip(op.getResults(), slots))
    bindVar(res, slot);
  return success();
}

/// do { before } while (cond);: the after region only forwards.
LogicalResult Emitter::emitDoWhile(scf::WhileOp op, ArrayRef<unsigned> slots) {
  Block &before = *op.getBeforeBody();
  scf::ConditionOp condition = op.getConditionOp();
  ValueRange condArgs = condition.getArgs();
  unsigned firstBodyVar = vars.size();
  std::optional<unsigned> running;
  std::string condText;
  std::string body;
  LogicalResult result = capture(body, [&] {
    preferSlots(before, slots);
    return emitScope(before, [&] {
      Expr cond = valueExpr(condition.getCondition());
      // `while (cond)` is outside the body's scope: it can only read
      // variables declared before the loop, and only if copying the new
      // values into the slots leaves them alone.
      bool inScope = llvm::none_of(
          cond.reads, [&](unsigned var) { return var >= firstBodyVar; });
      for (auto [slot, value] : llvm::zip(slots, condArgs))
        if (llvm::is_contained(cond.reads, slot) &&
            !(varOf.lookup(value) == slot && vars[slot].current == value))
          inScope = false;
      if (!inScope) {
        // Keep the condition in a variable declared before the loop.
        SmallVector<unsigned> inner = scopes.pop_back_val();
        running = newVar("running", condition.getCondition().getType());
        scopes.push_back(std::move(inner));
        os << vars[*running].name << " = " << cond.text << ";\n";
        condText = vars[*running].name;
      } else {
        condText = cond.text;
      }
      return assignSlots(slots, condArgs);
    });
  });
  if (failed(result))
    return failure();
  if (running)
    os << declare(*running) << ";\n";
  os << "do {\n";
  os.indent();
  os.printReindented(body);
  os.unindent();
  os << "} while (" << condText << ");\n";
  for (auto [res, slot] : llvm::zip(op.getResults(), slots))
    bindVar(res, slot);
  return success();
}

/// The general form: while (true) { before; if (!cond) break; after }.
/// Unless the condition forwards the loop's variables, the values it
/// passes on get variables of their own.
LogicalResult Emitter::emitWhileTrue(scf::WhileOp op, ArrayRef<unsigned> slots,
                                     bool forwarded) {
  Block &before = *op.getBeforeBody();
  Block &after = *op.getAfterBody();
  scf::ConditionOp condition = op.getConditionOp();
  ValueRange condArgs = condition.getArgs();
  SmallVector<unsigned> resultSlots(slots);
  if (!forwarded) {
    SmallVector<std::string> resultNames;
    for (auto [index, arg] : llvm::enumerate(after.getArguments()))
      resultNames.push_back(getNameFromLoc(arg.getLoc()).str());
    FailureOr<SmallVector<unsigned>> declared =
        makeSlots(op, slotTypes(*this, op.getResults()), resultNames, {},
                  SmallVector<SmallVector<Value>>(op.getNumResults()));
    if (failed(declared))
      return failure();
    resultSlots = *declared;
  }
  os << "while (true) {\n";
  pushScope();
  os.indent();
  LogicalResult result = emitBlock(before);
  if (succeeded(result)) {
    Expr cond = valueExpr(condition.getCondition());
    if (!forwarded) {
      if (llvm::any_of(cond.reads, [&](unsigned var) {
            return llvm::is_contained(resultSlots, var);
          })) {
        unsigned var = newVar("running", condition.getCondition().getType());
        os << declare(var) << " = " << cond.text << ";\n";
        cond = Expr(vars[var].name, kPrimary);
      }
      result = assignSlots(resultSlots, condArgs);
    }
    os << "if (" << negate(cond).text << ") {\n";
    os.indent() << "break;\n";
    os.unindent() << "}\n";
  }
  for (auto [arg, slot] : llvm::zip(after.getArguments(), resultSlots))
    bindVar(arg, slot);
  if (succeeded(result)) {
    preferSlots(after, slots);
    result = emitBlock(after);
  }
  if (succeeded(result))
    result = assignSlots(slots, after.getTerminator()->getOperands());
  os.unindent();
  popScope();
  os << "}\n";
  if (failed(result))
    return failure();
  for (auto [res, slot] : llvm::zip(op.getResults(), resultSlots))
    bindVar(res, slot);
  return success();
}
