//===- CodeGenConstant.cpp - Constants and conversions -------------------===//
//
// Part of ksc. Clang has made every implicit conversion explicit in the
// AST; each becomes an `arith` cast here, so the IR has no implicit
// conversions left. Constant expressions of the language fold to
// `arith.constant` with Clang's evaluator.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

mlir::Value FunctionBuilder::constantInt(mlir::Type type, int64_t value,
                                         mlir::Location loc) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

mlir::Value FunctionBuilder::constantBool(bool value, mlir::Location loc) {
  return arith::ConstantOp::create(b, loc, b.getBoolAttr(value));
}

mlir::Value FunctionBuilder::zero(mlir::Type type, mlir::Location loc) {
  if (auto structType = mlir::dyn_cast<ks::StructType>(type)) {
    llvm::SmallVector<mlir::Value> fields;
    for (unsigned i = 0; i < structType.getNumFields(); ++i)
      fields.push_back(zero(structType.getFieldValueType(i), loc));
    return ks::StructMakeOp::create(b, loc, structType, fields).getResult();
  }
  // Scalars, and vectors and matrices (a splat of zeros).
  return arith::ConstantOp::create(b, loc,
                                   mlir::cast<mlir::TypedAttr>(
                                       b.getZeroAttr(type)));
}

/// Whether `stmt` is made only of what the kernel language allows in a
/// constant: literals, constants, sizeof, casts and operators on them.
/// Anything else (pointers, statement expressions, ...) must reach the checks
/// of emitRValue even when Clang could evaluate it.
static bool isFoldable(const Stmt *stmt,
                       llvm::DenseMap<const Stmt *, bool> &cache);

static bool isFoldableImpl(const Stmt *stmt,
                           llvm::DenseMap<const Stmt *, bool> &cache) {
  // sizeof, noexcept and type traits do not evaluate their operands.
  if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr, CXXNoexceptExpr, TypeTraitExpr,
          SourceLocExpr>(stmt))
    return true;
  if (auto *ref = dyn_cast<DeclRefExpr>(stmt)) {
    auto *var = dyn_cast<VarDecl>(ref->getDecl());
    return var && var->getType()->isArithmeticType() &&
           var->getType().isConstQualified();
  }
  if (auto *cast = dyn_cast<CastExpr>(stmt)) {
    switch (cast->getCastKind()) {
    case CK_NoOp:
    case CK_LValueToRValue:
    case CK_IntegralCast:
    case CK_IntegralToBoolean:
    case CK_IntegralToFloating:
    case CK_FloatingToIntegral:
    case CK_FloatingToBoolean:
    case CK_FloatingCast:
      break;
    default:
      return false;
    }
    if (!isa<ImplicitCastExpr, CStyleCastExpr, CXXFunctionalCastExpr,
             CXXStaticCastExpr>(cast))
      return false;
  } else if (auto *unary = dyn_cast<UnaryOperator>(stmt)) {
    if (unary->getOpcode() != UO_Plus && unary->getOpcode() != UO_Minus &&
        unary->getOpcode() != UO_Not && unary->getOpcode() != UO_LNot)
      return false;
  } else if (auto *binary = dyn_cast<BinaryOperator>(stmt)) {
    if (binary->isAssignmentOp() || binary->isCommaOp() ||
        binary->isPtrMemOp() || binary->getOpcode() == BO_Cmp)
      return false;
  } else if (!isa<ParenExpr, ConditionalOperator, ConstantExpr,
                  SubstNonTypeTemplateParmExpr>(stmt)) {
    return false;
  }
  return llvm::all_of(stmt->children(), [&](const Stmt *child) {
    return child && isFoldable(child, cache);
  });
}

/// Memoized: every subexpression of an expression is asked again.
static bool isFoldable(const Stmt *stmt,
                       llvm::DenseMap<const Stmt *, bool> &cache) {
  if (auto it = cache.find(stmt); it != cache.end())
    return it->second;
  bool result = isFoldableImpl(stmt, cache);
  cache[stmt] = result;
  return result;
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::tryEmitConstant(const Expr *expr) {
  // A glvalue folds only when it names a constant (`c ? i : K` reads the
  // global constant K as an lvalue); other glvalues are storage.
  if (!expr->getType()->isArithmeticType() ||
      (expr->isGLValue() && !isa<DeclRefExpr>(expr->IgnoreParens())) ||
      !isFoldable(expr, foldable))
    return mlir::Value();
  Expr::EvalResult result;
  if (!expr->EvaluateAsRValue(result, mb.ast) || result.HasSideEffects)
    return mlir::Value();
  if (!result.Val.isInt() && !result.Val.isFloat())
    return mlir::Value();
  mlir::FailureOr<mlir::Type> type =
      mb.convertType(expr->getType(), expr->getExprLoc(), "this expression");
  if (mlir::failed(type))
    return mlir::failure();
  mlir::Location loc = mb.loc(expr->getExprLoc());
  const APValue &value = result.Val;
  if (value.isInt()) {
    llvm::APInt v = value.getInt();
    unsigned width = cast<mlir::IntegerType>(*type).getWidth();
    return arith::ConstantOp::create(
               b, loc, b.getIntegerAttr(*type, v.sextOrTrunc(width)))
        .getResult();
  }
  if (value.isFloat())
    return arith::ConstantOp::create(b, loc,
                                     b.getFloatAttr(*type, value.getFloat()))
        .getResult();
  return mlir::Value();
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

mlir::FailureOr<mlir::Value> FunctionBuilder::convert(mlir::Value value,
                                                      QualType from,
                                                      QualType to,
                                                      SourceLocation at) {
  mlir::FailureOr<mlir::Type> target = mb.convertType(to, at, "the result");
  if (mlir::failed(target))
    return mlir::failure();
  mlir::Location loc = mb.loc(at);
  mlir::Type source = value.getType();
  if (source == *target)
    return value;
  bool fromFloat = isa<mlir::FloatType>(source);
  bool toFloat = isa<mlir::FloatType>(*target);
  bool fromSigned = from->isSignedIntegerType();
  if (target->isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   zero(source, loc))
          .getResult();
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero(source, loc))
        .getResult();
  }
  if (fromFloat && toFloat) {
    if (source.getIntOrFloatBitWidth() < target->getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, *target, value).getResult();
    return arith::TruncFOp::create(b, loc, *target, value).getResult();
  }
  if (fromFloat) {
    if (to->isSignedIntegerType())
      return arith::FPToSIOp::create(b, loc, *target, value).getResult();
    return arith::FPToUIOp::create(b, loc, *target, value).getResult();
  }
  if (toFloat) {
    if (fromSigned)
      return arith::SIToFPOp::create(b, loc, *target, value).getResult();
    return arith::UIToFPOp::create(b, loc, *target, value).getResult();
  }
  unsigned fromWidth = source.getIntOrFloatBitWidth();
  unsigned toWidth = target->getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, *target, value).getResult();
  if (fromSigned)
    return arith::ExtSIOp::create(b, loc, *target, value).getResult();
  return arith::ExtUIOp::create(b, loc, *target, value).getResult();
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitCast(mlir::Value value, QualType from, QualType to,
                          CastKind kind, const Expr *expr) {
  switch (kind) {
  case CK_NoOp:
    return value;
  case CK_ConstructorConversion:
    // array<T> -> array<const T>: the constructor call did it.
    if (ModuleBuilder::isArrayType(to) || ModuleBuilder::isSmallValueType(to))
      return value;
    break;
  case CK_IntegralCast:
  case CK_IntegralToBoolean:
  case CK_IntegralToFloating:
  case CK_FloatingToIntegral:
  case CK_FloatingToBoolean:
  case CK_FloatingCast:
  case CK_BooleanToSignedIntegral:
    return convert(value, from, to, expr->getExprLoc());
  case CK_ArrayToPointerDecay:
  case CK_FunctionToPointerDecay:
  case CK_NullToPointer:
  case CK_PointerToBoolean:
  case CK_PointerToIntegral:
  case CK_IntegralToPointer:
  case CK_BitCast:
  case CK_LValueBitCast:
    mb.error(expr->getExprLoc(), "pointers are not supported in kernel code; "
                                 "pass arrays as array<T> and values by "
                                 "value");
    return mlir::failure();
  default:
    break;
  }
  mb.error(expr->getExprLoc(),
           "this conversion is not supported in kernel "
           "code",
           expr->getSourceRange());
  return mlir::failure();
}
