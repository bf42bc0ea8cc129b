//===- CodeGenOperator.cpp - Operators -----------------------------------===//
//
// Part of ksc. Unary and binary operators, assignments, && || and ?: with
// C++'s evaluation order and short-circuiting.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "mlir/IR/Matchers.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

/// `overflow<nsw>` for the integer arithmetic of a signed type, where C++
/// makes overflow undefined; none for unsigned types, whose arithmetic wraps
/// (and for which the IR's plain operations are exactly right).
static arith::IntegerOverflowFlagsAttr overflowFlags(mlir::OpBuilder &b,
                                                     QualType type) {
  return arith::IntegerOverflowFlagsAttr::get(
      b.getContext(), type->isSignedIntegerType()
                          ? arith::IntegerOverflowFlags::nsw
                          : arith::IntegerOverflowFlags::none);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitUnary(const UnaryOperator *expr) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  const Expr *sub = expr->getSubExpr();
  switch (expr->getOpcode()) {
  case UO_Plus:
    return emitRValue(sub);
  case UO_Minus: {
    mlir::FailureOr<mlir::Value> value = emitRValue(sub);
    if (mlir::failed(value))
      return mlir::failure();
    if (isa<mlir::FloatType>(value->getType()))
      return arith::NegFOp::create(b, loc, *value).getResult();
    return arith::SubIOp::create(b, loc, zero(value->getType(), loc), *value,
                                 overflowFlags(b, expr->getType()))
        .getResult();
  }
  case UO_Not:
  case UO_LNot: {
    mlir::FailureOr<mlir::Value> value = emitRValue(sub);
    if (mlir::failed(value))
      return mlir::failure();
    mlir::Value ones = constantInt(value->getType(), -1, loc);
    return arith::XOrIOp::create(b, loc, *value, ones).getResult();
  }
  case UO_PreInc:
  case UO_PreDec:
  case UO_PostInc:
  case UO_PostDec: {
    mlir::FailureOr<LValue> lvalue = emitLValue(sub);
    if (mlir::failed(lvalue))
      return mlir::failure();
    mlir::Value old = load(*lvalue, loc);
    mlir::Type type = old.getType();
    if (type.isInteger(1)) {
      mb.error(expr->getExprLoc(),
               "incrementing a bool is not supported; assign true instead");
      return mlir::failure();
    }
    bool increment = expr->isIncrementOp();
    mlir::Value updated;
    if (isa<mlir::FloatType>(type)) {
      mlir::Value one =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
      updated = increment ? arith::AddFOp::create(b, loc, old, one).getResult()
                          : arith::SubFOp::create(b, loc, old, one).getResult();
    } else {
      mlir::Value one = constantInt(type, 1, loc);
      arith::IntegerOverflowFlagsAttr flags = overflowFlags(b, sub->getType());
      updated = increment
                    ? arith::AddIOp::create(b, loc, old, one, flags).getResult()
                    : arith::SubIOp::create(b, loc, old, one, flags).getResult();
    }
    store(*lvalue, updated, loc);
    return expr->isPrefix() ? updated : old;
  }
  case UO_AddrOf:
  case UO_Deref:
    mb.error(expr->getExprLoc(), "pointers are not supported in kernel code; "
                                 "pass arrays as array<T> and values by "
                                 "value");
    return mlir::failure();
  default:
    mb.error(expr->getExprLoc(),
             "the '" + UnaryOperator::getOpcodeStr(expr->getOpcode()) +
                 "' operator is not supported in kernel code");
    return mlir::failure();
  }
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitArithmetic(BinaryOperatorKind op, mlir::Value lhs,
                                mlir::Value rhs, QualType type,
                                mlir::Location loc, const Expr *expr) {
  bool isFloat = type->isRealFloatingType();
  bool isSigned = type->isSignedIntegerType();
  using IP = arith::CmpIPredicate;
  using FP = arith::CmpFPredicate;
  auto cmp = [&](FP f, IP s, IP u) -> mlir::Value {
    if (isFloat)
      return arith::CmpFOp::create(b, loc, f, lhs, rhs);
    return arith::CmpIOp::create(b, loc, isSigned ? s : u, lhs, rhs);
  };
  switch (op) {
  case BO_Mul:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs,
                                           overflowFlags(b, type))
                         .getResult();
  case BO_Div:
    if (isFloat)
      return arith::DivFOp::create(b, loc, lhs, rhs).getResult();
    return isSigned ? arith::DivSIOp::create(b, loc, lhs, rhs).getResult()
                    : arith::DivUIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Rem:
    return isSigned ? arith::RemSIOp::create(b, loc, lhs, rhs).getResult()
                    : arith::RemUIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs,
                                           overflowFlags(b, type))
                         .getResult();
  case BO_Sub:
    return isFloat ? arith::SubFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::SubIOp::create(b, loc, lhs, rhs,
                                           overflowFlags(b, type))
                         .getResult();
  case BO_Shl:
  case BO_Shr: {
    // The shift amount keeps its own type in C++.
    if (rhs.getType() != lhs.getType()) {
      unsigned from = rhs.getType().getIntOrFloatBitWidth();
      unsigned to = lhs.getType().getIntOrFloatBitWidth();
      rhs =
          from > to
              ? arith::TruncIOp::create(b, loc, lhs.getType(), rhs).getResult()
              : arith::ExtUIOp::create(b, loc, lhs.getType(), rhs).getResult();
    }
    if (op == BO_Shl)
      return arith::ShLIOp::create(b, loc, lhs, rhs).getResult();
    return isSigned ? arith::ShRSIOp::create(b, loc, lhs, rhs).getResult()
                    : arith::ShRUIOp::create(b, loc, lhs, rhs).getResult();
  }
  case BO_And:
  case BO_Or:
  case BO_Xor: {
    // C++ promotes bool operands of & | ^ to int; the result of the
    // operation on 0s and 1s is the operation on the bools, which the
    // canonicalizer can simplify (b | true is true).
    auto fromBool = [&](mlir::Value v) -> mlir::Value {
      if (auto ext = v.getDefiningOp<arith::ExtUIOp>())
        if (ext.getIn().getType().isInteger(1))
          return ext.getIn();
      llvm::APInt c;
      if (mlir::matchPattern(v, mlir::m_ConstantInt(&c)) && c.ule(1))
        return constantBool(c.isOne(), loc);
      return {};
    };
    mlir::Value l = fromBool(lhs), r = fromBool(rhs);
    // At least one operand must really be a bool for this to pay.
    bool onBools = l && r &&
                   !(mlir::matchPattern(lhs, mlir::m_Constant()) &&
                     mlir::matchPattern(rhs, mlir::m_Constant()));
    if (onBools && !lhs.getDefiningOp<arith::ExtUIOp>() &&
        !rhs.getDefiningOp<arith::ExtUIOp>())
      onBools = false;
    if (!onBools) {
      l = lhs;
      r = rhs;
    }
    mlir::Value result =
        op == BO_And  ? arith::AndIOp::create(b, loc, l, r).getResult()
        : op == BO_Or ? arith::OrIOp::create(b, loc, l, r).getResult()
                      : arith::XOrIOp::create(b, loc, l, r).getResult();
    if (onBools)
      result = arith::ExtUIOp::create(b, loc, lhs.getType(), result);
    return result;
  }
  case BO_LT:
    return cmp(FP::OLT, IP::slt, IP::ult);
  case BO_GT:
    return cmp(FP::OGT, IP::sgt, IP::ugt);
  case BO_LE:
    return cmp(FP::OLE, IP::sle, IP::ule);
  case BO_GE:
    return cmp(FP::OGE, IP::sge, IP::uge);
  case BO_EQ:
    return cmp(FP::OEQ, IP::eq, IP::eq);
  case BO_NE:
    return cmp(FP::UNE, IP::ne, IP::ne);
  default:
    mb.error(expr->getExprLoc(),
             "the '" + BinaryOperator::getOpcodeStr(op) +
                 "' operator is not supported in kernel code");
    return mlir::failure();
  }
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitBinary(const BinaryOperator *expr) {
  mlir::Location loc = mb.loc(expr->getOperatorLoc());
  BinaryOperatorKind op = expr->getOpcode();
  if (op == BO_LAnd || op == BO_LOr)
    return emitLogical(expr);
  if (op == BO_Comma) {
    if (mlir::failed(emitRValue(expr->getLHS())))
      return mlir::failure();
    return emitRValue(expr->getRHS());
  }
  if (op == BO_Cmp || op == BO_PtrMemD || op == BO_PtrMemI) {
    mb.error(expr->getOperatorLoc(),
             "the '" + BinaryOperator::getOpcodeStr(op) +
                 "' operator is not supported in kernel code");
    return mlir::failure();
  }
  // In C++17 the right operand of an assignment is sequenced first.
  if (op == BO_Assign) {
    mlir::FailureOr<mlir::Value> value = emitRValue(expr->getRHS());
    if (mlir::failed(value))
      return mlir::failure();
    mlir::FailureOr<LValue> lvalue = emitLValue(expr->getLHS());
    if (mlir::failed(lvalue))
      return mlir::failure();
    store(*lvalue, *value, loc);
    return *value;
  }
  if (auto *compound = dyn_cast<CompoundAssignOperator>(expr)) {
    // a op= b is a = (T)((C)a op (C)b) for the computation type C.
    mlir::FailureOr<mlir::Value> rhs = emitRValue(expr->getRHS());
    if (mlir::failed(rhs))
      return mlir::failure();
    mlir::FailureOr<LValue> lvalue = emitLValue(expr->getLHS());
    if (mlir::failed(lvalue))
      return mlir::failure();
    QualType lhsType = expr->getLHS()->getType();
    QualType computeType = compound->getComputationResultType();
    mlir::FailureOr<mlir::Value> lhs =
        convert(load(*lvalue, loc), lhsType, compound->getComputationLHSType(),
                expr->getExprLoc());
    if (mlir::failed(lhs))
      return mlir::failure();
    if (op != BO_ShlAssign && op != BO_ShrAssign)
      rhs = convert(*rhs, expr->getRHS()->getType(), computeType,
                    expr->getExprLoc());
    if (mlir::failed(rhs))
      return mlir::failure();
    mlir::FailureOr<mlir::Value> result =
        emitArithmetic(BinaryOperator::getOpForCompoundAssignment(op), *lhs,
                       *rhs, computeType, loc, expr);
    if (mlir::failed(result))
      return mlir::failure();
    mlir::FailureOr<mlir::Value> stored =
        convert(*result, computeType, lhsType, expr->getExprLoc());
    if (mlir::failed(stored))
      return mlir::failure();
    store(*lvalue, *stored, loc);
    return *stored;
  }
  mlir::FailureOr<mlir::Value> lhs = emitRValue(expr->getLHS());
  if (mlir::failed(lhs))
    return mlir::failure();
  mlir::FailureOr<mlir::Value> rhs = emitRValue(expr->getRHS());
  if (mlir::failed(rhs))
    return mlir::failure();
  return emitArithmetic(op, *lhs, *rhs, expr->getLHS()->getType(), loc, expr);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitLogical(const BinaryOperator *expr) {
  mlir::Location loc = mb.loc(expr->getOperatorLoc());
  bool isAnd = expr->getOpcode() == BO_LAnd;
  mlir::FailureOr<mlir::Value> lhs = emitRValue(expr->getLHS());
  if (mlir::failed(lhs))
    return mlir::failure();
  const Expr *rhsExpr = expr->getRHS();
  if (!assignedIn({rhsExpr}).empty()) {
    mb.error(rhsExpr->getExprLoc(), "assignments in the right operand of "
                                    "'&&' or '||' are not supported; assign "
                                    "in an if statement instead");
    return mlir::failure();
  }
  if (isSafeToSpeculate(rhsExpr)) {
    mlir::FailureOr<mlir::Value> rhs = emitRValue(rhsExpr);
    if (mlir::failed(rhs))
      return mlir::failure();
    if (isAnd)
      return arith::AndIOp::create(b, loc, *lhs, *rhs).getResult();
    return arith::OrIOp::create(b, loc, *lhs, *rhs).getResult();
  }
  // The right operand runs only when it decides the result.
  auto ifOp = mlir::scf::IfOp::create(b, loc, b.getI1Type(), *lhs, true);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(isAnd ? &ifOp.getThenRegion().front()
                                   : &ifOp.getElseRegion().front());
  mlir::FailureOr<mlir::Value> rhs = emitRValue(rhsExpr);
  if (mlir::failed(rhs))
    return mlir::failure();
  mlir::scf::YieldOp::create(b, loc, *rhs);
  b.setInsertionPointToStart(isAnd ? &ifOp.getElseRegion().front()
                                   : &ifOp.getThenRegion().front());
  mlir::scf::YieldOp::create(b, loc, constantBool(!isAnd, loc));
  return ifOp.getResult(0);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitConditional(const ConditionalOperator *expr) {
  mlir::Location loc = mb.loc(expr->getQuestionLoc());
  mlir::FailureOr<mlir::Value> cond = emitRValue(expr->getCond());
  if (mlir::failed(cond))
    return mlir::failure();
  const Expr *lhs = expr->getTrueExpr(), *rhs = expr->getFalseExpr();
  if (!assignedIn({lhs, rhs}).empty()) {
    mb.error(expr->getQuestionLoc(),
             "assignments in the operands of '?:' are not supported; use "
             "if/else instead");
    return mlir::failure();
  }
  if (isSafeToSpeculate(lhs) && isSafeToSpeculate(rhs)) {
    mlir::FailureOr<mlir::Value> t = emitRValue(lhs);
    if (mlir::failed(t))
      return mlir::failure();
    mlir::FailureOr<mlir::Value> f = emitRValue(rhs);
    if (mlir::failed(f))
      return mlir::failure();
    return arith::SelectOp::create(b, loc, *cond, *t, *f).getResult();
  }
  if (expr->getType()->isVoidType()) {
    mb.error(expr->getQuestionLoc(), "'?:' with void operands is not "
                                     "supported in kernel code; use if/else");
    return mlir::failure();
  }
  // Only the chosen operand is evaluated.
  mlir::FailureOr<mlir::Type> type =
      mb.convertType(expr->getType(), expr->getExprLoc(), "'?:'");
  if (mlir::failed(type))
    return mlir::failure();
  auto ifOp = mlir::scf::IfOp::create(b, loc, *type, *cond, true);
  mlir::OpBuilder::InsertionGuard guard(b);
  for (auto [block, operand] :
       {std::pair(&ifOp.getThenRegion().front(), lhs),
        std::pair(&ifOp.getElseRegion().front(), rhs)}) {
    b.setInsertionPointToStart(block);
    mlir::FailureOr<mlir::Value> value = emitRValue(operand);
    if (mlir::failed(value))
      return mlir::failure();
    mlir::scf::YieldOp::create(b, loc, *value);
  }
  return ifOp.getResult(0);
}
