//===- Emitter.cpp - Expressions and statements ----------------------===//
//
// Part of ksc. The op-independent half of the C++ emitter, with
// Variables.cpp and Analysis.cpp; see Emitter.h.
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
// Expressions
//===----------------------------------------------------------------------===//

void Expr::merge(const Expr &other) {
  for (unsigned var : other.reads)
    if (!llvm::is_contained(reads, var))
      reads.push_back(var);
  readsMemory |= other.readsMemory;
}

std::string Emitter::operand(const Expr &expr, int prec) {
  if (expr.prec >= prec)
    return expr.text;
  return "(" + expr.text + ")";
}

Expr Emitter::valueExpr(Value value) {
  if (auto it = exprOf.find(value); it != exprOf.end())
    return it->second;
  if (auto it = varOf.find(value); it != varOf.end()) {
    Expr expr(vars[it->second].name, kPrimary);
    expr.reads.push_back(it->second);
    expr.isUnsigned = isUnsignedType(vars[it->second].type);
    return expr;
  }
  // Only reachable for IR the structural checks let through by mistake.
  hadError = true;
  if (Operation *def = value.getDefiningOp())
    def->emitError("internal error: value used before the C++ emitter "
                   "gave it a name");
  return Expr("<error>", kPrimary);
}

/// Whether an operand of precedence `operandPrec` inside an operator of
/// precedence `prec` reads better (and avoids compiler warnings) with
/// parentheses even where C++ does not need them: `a && b || c`,
/// `a & b == c`, `a << b + c`.
static bool wantsClarifyingParens(int prec, int operandPrec) {
  // A comparison of comparisons (`(a < b) == c`) reads as a chain without
  // them, and -Wparentheses says so.
  if ((prec == kEq || prec == kRel) &&
      (operandPrec == kEq || operandPrec == kRel))
    return true;
  if (operandPrec == prec || operandPrec >= kUnary)
    return false;
  if (prec == kLogOr && operandPrec == kLogAnd)
    return true;
  if (prec >= kBitOr && prec <= kBitAnd && operandPrec >= kBitOr)
    return true;
  if (prec == kShift && operandPrec >= kShift)
    return true;
  return false;
}

Expr Emitter::binary(StringRef op, int prec, Value lhs, Value rhs) {
  return binary(op, prec, valueExpr(lhs), valueExpr(rhs));
}

Expr Emitter::binary(StringRef op, int prec, const Expr &l, const Expr &r) {
  auto wrap = [&](const Expr &e, int minPrec) {
    if (wantsClarifyingParens(prec, e.prec))
      return "(" + e.text + ")";
    return operand(e, minPrec);
  };
  // Left-associative: the right operand needs strictly higher precedence.
  Expr result(wrap(l, prec) + " " + op.str() + " " + wrap(r, prec + 1), prec);
  result.merge(l);
  result.merge(r);
  return result;
}

Expr Emitter::negate(Value cond) {
  Operation *def = cond.getDefiningOp();
  if (def && isInlined(def)) {
    // A bool's signed order is not C++'s (see buildArithExpr).
    if (auto cmp = dyn_cast<arith::CmpIOp>(def);
        cmp && !cmp.getLhs().getType().isSignlessInteger(1)) {
      using P = arith::CmpIPredicate;
      StringRef op;
      int prec = kRel;
      switch (cmp.getPredicate()) {
      case P::eq:
        op = "!=";
        prec = kEq;
        break;
      case P::ne:
        op = "==";
        prec = kEq;
        break;
      case P::slt:
      case P::ult:
        op = ">=";
        break;
      case P::sle:
      case P::ule:
        op = ">";
        break;
      case P::sgt:
      case P::ugt:
        op = "<=";
        break;
      case P::sge:
      case P::uge:
        op = "<";
        break;
      }
      auto [lhs, rhs] = comparisonOperands(cmp);
      return binary(op, prec, lhs, rhs);
    }
    if (auto xorOp = dyn_cast<arith::XOrIOp>(def)) {
      APInt one;
      if (cond.getType().isSignlessInteger(1) &&
          matchPattern(xorOp.getRhs(), m_ConstantInt(&one)) && !one.isZero())
        return valueExpr(xorOp.getLhs());
    }
  }
  return negate(valueExpr(cond));
}

Expr Emitter::negate(const Expr &cond) {
  Expr result("!" + operand(cond, kUnary), kUnary);
  result.merge(cond);
  return result;
}

Expr Emitter::unary(StringRef op, Value value) {
  return unary(op, valueExpr(value));
}

Expr Emitter::unary(StringRef op, const Expr &e) {
  std::string inner = operand(e, kUnary);
  // `- -x` must not become the decrement operator.
  if (!inner.empty() && (inner[0] == '-' || inner[0] == '+') &&
      (op == "-" || op == "+"))
    inner = "(" + inner + ")";
  Expr result(op.str() + inner, kUnary);
  result.merge(e);
  return result;
}

Expr Emitter::call(StringRef callee, ValueRange args) {
  SmallVector<Expr> exprs;
  for (Value arg : args)
    exprs.push_back(valueExpr(arg));
  return call(callee, exprs);
}

Expr Emitter::call(StringRef callee, ArrayRef<Expr> args) {
  Expr result;
  std::string text = callee.str() + "(";
  llvm::ListSeparator sep;
  for (const Expr &e : args) {
    text += std::string(StringRef(sep)) + operand(e, kAssign);
    result.merge(e);
  }
  result.text = text + ")";
  result.prec = kPostfix;
  return result;
}

Expr Emitter::ternary(const Expr &cond, const Expr &lhs, const Expr &rhs) {
  Expr result(operand(cond, kLogOr) + " ? " + operand(lhs, kAssign) + " : " +
                  operand(rhs, kCond),
              kCond);
  result.merge(cond);
  result.merge(lhs);
  result.merge(rhs);
  return result;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult Emitter::bindResult(Operation &op, Expr expr) {
  Value result = op.getResult(0);
  // An i32 has the type its variable is declared with; an inlined one the
  // type its variable would have, which its uses convert from as needed.
  if (result.getType().isSignlessInteger(32))
    expr = withSign(expr, isUnsigned(result));
  // Inline, unless the expression has grown too long to read: then it gets
  // a temporary of its own, computed here instead of at its use (nothing in
  // between changes what it reads). Not inside an expression that is
  // printed as a whole elsewhere (an operand of ?:, which only one side
  // evaluates, whether or not the ?: itself is inlined; a while condition;
  // an `else if` condition).
  Operation *parent = op.getParentOp();
  bool printedAsWhole =
      keepInline || (isa<scf::IfOp>(parent) && isExpressionOp(*parent)) ||
      (isa<scf::WhileOp>(parent) &&
       op.getParentRegion() == &cast<scf::WhileOp>(parent).getBefore());
  if (isInlined(&op) &&
      (expr.text.size() <= kMaxInlineLength || printedAsWhole)) {
    exprOf[result] = std::move(expr);
    return success();
  }
  if (isInlined(&op)) {
    unsigned var = newVar("", cppType(result));
    os << declare(var) << " = " << expr.text << ";\n";
    bindVar(result, var);
    return success();
  }
  if (result.use_empty()) {
    // Dead values are not printed; calls with effects are.
    if (hasWriteEffects(op))
      os << expr.text << ";\n";
    return success();
  }

  auto assign = [&](unsigned var) {
    // A slot of the other signedness (a value computed into it).
    if (result.getType().isSignlessInteger(32))
      expr = withSign(expr, isUnsignedType(vars[var].type));
    os << vars[var].name << " = " << expr.text << ";\n";
    bindVar(result, var);
  };
  // A value a yield will copy into a slot is computed there directly, or
  // else into `<slot>_next`.
  StringRef name = getSourceName(result);
  std::string nextName;
  if (auto it = preferredSlot.find(result); it != preferredSlot.end()) {
    Var &slot = vars[it->second];
    if (!slot.current || !isLiveAfter(slot.current, &op)) {
      assign(it->second);
      return success();
    }
    nextName = slot.baseName + "_next";
  }
  if (!nextName.empty()) {
    unsigned var = newVar(nextName, cppType(result));
    os << declare(var) << " = " << expr.text << ";\n";
    bindVar(result, var);
    return success();
  }
  // A new value of a source variable reuses its C++ variable.
  if (!name.empty())
    if (std::optional<unsigned> var =
            findReusableVar(name, cppType(result), &op)) {
      assign(*var);
      return success();
    }
  unsigned var = newVar(chooseName(result), cppType(result));
  os << declare(var) << " = " << expr.text << ";\n";
  bindVar(result, var);
  return success();
}

LogicalResult Emitter::emitBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(emitOperation(op)))
      return failure();
  return success();
}

LogicalResult Emitter::emitOperation(Operation &op) {
  if (isExpressionOp(op)) {
    FailureOr<Expr> expr = buildExpr(op);
    if (failed(expr))
      return failure();
    return bindResult(op, std::move(*expr));
  }
  if (isa<scf::IfOp, scf::ForOp, scf::WhileOp>(op))
    return emitScfOp(op);
  if (isa<ks::StoreOp, ks::CheckBoundsOp, ks::CheckIndexOp, ks::TapePushOp,
          ks::TapeCreateOp, ks::AccumulatorOp, ks::FlushAccumulatorOp,
          ks::ParallelLaunchOp>(op))
    return emitKsStatement(op);
  if (auto insert = dyn_cast<vector::InsertOp>(op))
    return emitVectorInsert(insert);
  if (isa<ks::StructInsertOp>(op))
    return emitStructInsert(op);
  if (isa<ks::RandIOp, ks::RandFOp, ks::RandNOp>(op))
    return emitRandom(op);
  if (auto callOp = dyn_cast<func::CallOp>(op)) {
    if (hasInoutArgs(callOp))
      return emitInoutCall(callOp);
    if (callOp.getNumResults() != 0)
      return op.emitError("cannot emit a call with ")
             << callOp.getNumResults() << " results as C++";
    os << call(calleeName(callOp.getCallee()), callArguments(callOp)).text
       << ";\n";
    return success();
  }
  return op.emitError("cannot emit '")
         << op.getName() << "' as C++ (not supported by the C++ emitter)";
}

FailureOr<Expr> Emitter::buildExpr(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return buildCallExpr(call);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return buildIfExpr(ifOp);
  StringRef ns = op.getDialect()->getNamespace();
  if (ns == "arith")
    return buildArithExpr(op);
  if (ns == "math")
    return buildMathExpr(op);
  if (ns == "vector" || op.hasTrait<ks::LinearAlgebra>())
    return buildVectorExpr(op);
  if (isa<ks::StructMakeOp, ks::StructExtractOp>(op))
    return buildStructExpr(op);
  if (ns == "gpu")
    return buildGpuExpr(op);
  return buildKsExpr(op);
}

LogicalResult Emitter::emitScope(Block &block,
                                 function_ref<LogicalResult()> terminator) {
  pushScope();
  os.indent();
  LogicalResult result = emitBlock(block);
  if (succeeded(result) && terminator)
    result = terminator();
  os.unindent();
  popScope();
  // Values defined in the block are gone; their variables are free.
  for (Var &var : vars)
    if (var.current && block.getParent()->isAncestor(
                           var.current.getParentBlock()->getParent()))
      var.current = Value();
  return result;
}

LogicalResult Emitter::capture(std::string &text,
                               function_ref<LogicalResult()> fn) {
  std::string saved;
  std::swap(saved, output);
  LogicalResult result = fn();
  text = std::move(output);
  output = std::move(saved);
  return result;
}
