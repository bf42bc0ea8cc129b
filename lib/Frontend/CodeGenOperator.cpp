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
    // The type of what is incremented: a variable, an array element or a
    // component of either.
    mlir::FailureOr<mlir::Type> converted = mb.convertType(
        sub->getType().getNonReferenceType().getUnqualifiedType(),
        sub->getExprLoc(), "the operand");
    if (mlir::failed(converted))
      return mlir::failure();
    mlir::Type type = *converted;
    if (type.isInteger(1)) {
      mb.error(expr->getExprLoc(),
               "incrementing a bool is not supported; assign true instead");
      return mlir::failure();
    }
    bool increment = expr->isIncrementOp();
    mlir::Value one =
        isa<mlir::FloatType>(type)
            ? arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0))
                  .getResult()
            : constantInt(type, 1, loc);
    arith::IntegerOverflowFlagsAttr flags = overflowFlags(b, sub->getType());
    auto apply = [&](mlir::Value old) -> mlir::Value {
      if (isa<mlir::FloatType>(type))
        return increment ? arith::AddFOp::create(b, loc, old, one).getResult()
                         : arith::SubFOp::create(b, loc, old, one).getResult();
      return increment
                 ? arith::AddIOp::create(b, loc, old, one, flags).getResult()
                 : arith::SubIOp::create(b, loc, old, one, flags).getResult();
    };
    // ++ and -- on an array element are atomic, as `a[i] += 1` is (not on
    // a component of one, `a[i].x++`).
    if (lvalue->array && lvalue->components.empty()) {
      mlir::Value old =
          atomicUpdate(increment ? ks::AtomicKind::add : ks::AtomicKind::sub,
                       *lvalue, one, loc);
      return expr->isPrefix() ? apply(old) : old;
    }
    mlir::Value old = load(*lvalue, loc);
    mlir::Value updated = apply(old);
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
    // `a[i] += v` and `a[i] -= v` are atomic, as in Warp (`a[i].x += v`, a
    // component of an element, is not).
    if (lvalue->array && lvalue->components.empty() &&
        (op == BO_AddAssign || op == BO_SubAssign))
      return emitAtomicCompound(compound, *lvalue, *rhs);
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
FunctionBuilder::emitAtomicCompound(const CompoundAssignOperator *expr,
                                    const LValue &element, mlir::Value rhs) {
  mlir::Location loc = mb.loc(expr->getOperatorLoc());
  bool isAdd = expr->getOpcode() == BO_AddAssign;
  StringRef opText = isAdd ? "'+='" : "'-='";
  QualType elementType = expr->getLHS()->getType().getUnqualifiedType();
  QualType rhsType = expr->getRHS()->getType();
  QualType computeType = expr->getComputationResultType();
  if (elementType->isBooleanType()) {
    mb.error(expr->getOperatorLoc(),
             opText +
                 " on an element of an array<bool> is not supported: "
                 "on array elements it is an atomic " +
                 (isAdd ? "add" : "subtraction") +
                 ", and atomics work on float, double, int, uint32_t and int64_t "
                 "elements; assign the element instead (a[i] = ...)",
             expr->getSourceRange());
    return mlir::failure();
  }
  // C++ computes in the common type of the element and the operand, then
  // converts back; the atomic update computes in the element type. The two
  // agree when the common type is the element type, and for integers (the
  // conversion back wraps) but not when the sum is a wider or other floating
  // type: refuse those rather than round or truncate differently.
  if (computeType->isRealFloatingType() &&
      !mb.ast.hasSameUnqualifiedType(computeType, elementType)) {
    // The element type as the source spells it (the sugar of int64_t is lost
    // in the prelude's operator[]).
    mlir::Type irType =
        cast<ks::ArrayType>(element.array.getType()).getElementType();
    std::string type = irType.isF32()         ? "float"
                       : irType.isF64()               ? "double"
                       : irType.isUnsignedInteger(32) ? "uint32_t"
                       : irType.isInteger(32)         ? "int"
                                                      : "int64_t";
    std::string example =
        type == "float" ? "float(v), or a literal such as 1.0f" : type + "(v)";
    mb.error(expr->getOperatorLoc(),
             opText + " on an array element is an atomic " +
                 (isAdd ? "add" : "subtraction") + " in the element type '" +
                 type + "', but the right operand is a '" + mb.spell(rhsType) +
                 "' (C++ would compute in '" + mb.spell(computeType) +
                 "'); convert it to '" + type + "' (" + example + ")",
             expr->getSourceRange());
    return mlir::failure();
  }
  mlir::FailureOr<mlir::Value> value =
      convert(rhs, rhsType, elementType, expr->getExprLoc());
  if (mlir::failed(value))
    return mlir::failure();
  mlir::Value old = atomicUpdate(
      isAdd ? ks::AtomicKind::add : ks::AtomicKind::sub, element, *value, loc);
  // The value of the assignment is what this update wrote.
  BinaryOperatorKind arithmetic = isAdd ? BO_Add : BO_Sub;
  return emitArithmetic(arithmetic, old, *value, elementType, loc, expr);
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
