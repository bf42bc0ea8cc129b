//===- CodeGenExpr.cpp - Expressions ----------------------------------===//
//
// Part of ksc. Clang has made every implicit conversion explicit in the
// AST; each becomes an `arith` cast here, so the IR has no implicit
// conversions left.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "clang/AST/DeclCXX.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
  if (isa<mlir::FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  return constantInt(type, 0, loc);
}

/// Whether `stmt` is made only of what the kernel language allows in a
/// constant: literals, constants, sizeof, casts and operators on them.
/// Anything else (pointers, statement expressions, ...) must reach the checks
/// of emitRValue even when Clang could evaluate it.
static bool isFoldable(const Stmt *stmt) {
  if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
          UnaryExprOrTypeTraitExpr>(stmt))
    return true; // sizeof's operand is not evaluated.
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
  } else if (!isa<ParenExpr, ConditionalOperator, ConstantExpr>(stmt)) {
    return false;
  }
  return llvm::all_of(stmt->children(), [](const Stmt *child) {
    return child && isFoldable(child);
  });
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::tryEmitConstant(const Expr *expr) {
  if (!expr->getType()->isArithmeticType() || expr->isGLValue() ||
      !isFoldable(expr))
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
    return arith::ConstantOp::create(
               b, loc, b.getFloatAttr(*type, value.getFloat()))
        .getResult();
  return mlir::Value();
}

//===----------------------------------------------------------------------===//
// Values and lvalues
//===----------------------------------------------------------------------===//

/// Whether `expr` is an lvalue ksc reads by loading: a variable or an array
/// element.
static bool isStorage(const Expr *expr) {
  expr = expr->IgnoreParens();
  if (auto *cast = dyn_cast<ImplicitCastExpr>(expr);
      cast && cast->getCastKind() == CK_NoOp)
    return isStorage(cast->getSubExpr());
  return isa<DeclRefExpr>(expr) ||
         (isa<CXXOperatorCallExpr>(expr) &&
          cast<CXXOperatorCallExpr>(expr)->getOperator() == OO_Subscript);
}

/// Gives the value the name of the variable it is stored in. A value that
/// already has a name is another variable's value too (`float old = t;`):
/// the new name is added after the first.
static mlir::Value nameValue(mlir::Value value, StringRef name) {
  mlir::Operation *def = value.getDefiningOp();
  // scf operations carry the names of their results in ks.names.
  if (!def || def->getNumResults() != 1 || def->getNumRegions() != 0)
    return value;
  llvm::SmallVector<StringRef, 1> names = getNamesFromLoc(def->getLoc());
  if (llvm::is_contained(names, name))
    return value;
  if (names.empty())
    def->setLoc(mlir::NameLoc::get(
        mlir::StringAttr::get(def->getContext(), name), def->getLoc()));
  else
    def->setLoc(addNameToLoc(def->getLoc(), name));
  return value;
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitNamedRValue(const Expr *expr, StringRef name) {
  mlir::FailureOr<mlir::Value> value = emitRValue(expr);
  if (mlir::succeeded(value) && *value)
    nameValue(*value, name);
  return value;
}

mlir::FailureOr<FunctionBuilder::LValue>
FunctionBuilder::emitLValue(const Expr *expr) {
  expr = expr->IgnoreParens();
  if (auto *cast = dyn_cast<ImplicitCastExpr>(expr);
      cast && cast->getCastKind() == CK_NoOp)
    return emitLValue(cast->getSubExpr());
  LValue lvalue;
  lvalue.type = expr->getType();
  if (auto *ref = dyn_cast<DeclRefExpr>(expr)) {
    auto *var = dyn_cast<VarDecl>(ref->getDecl());
    if (!var || !env.count(var)) {
      mb.error(expr->getExprLoc(),
               "'" + ref->getDecl()->getNameAsString() +
                   "' cannot be used here: kernel code reads only its "
                   "parameters, locals and constexpr constants");
      return mlir::failure();
    }
    lvalue.var = var;
    return lvalue;
  }
  if (auto *call = dyn_cast<CXXOperatorCallExpr>(expr);
      call && call->getOperator() == OO_Subscript) {
    const Expr *object = call->getArg(0);
    if (!ModuleBuilder::isArrayType(object->getType())) {
      mb.error(expr->getExprLoc(), "only array<T> can be indexed");
      return mlir::failure();
    }
    const Expr *index = call->getArg(1);
    QualType indexType = index->getType();
    if (!indexType->isIntegerType() || indexType->isBooleanType()) {
      mb.error(index->getExprLoc(),
               "an array index must be an integer, not '" +
                   mb.spell(indexType) + "'",
               index->getSourceRange());
      return mlir::failure();
    }
    mlir::FailureOr<mlir::Value> array = emitRValue(object);
    if (mlir::failed(array))
      return mlir::failure();
    mlir::FailureOr<mlir::Value> indexValue = emitRValue(index);
    if (mlir::failed(indexValue))
      return mlir::failure();
    if (!isa<mlir::IntegerType>(indexValue->getType()) ||
        indexValue->getType().getIntOrFloatBitWidth() < 32) {
      mb.error(index->getExprLoc(), "an array index must be int or int64_t");
      return mlir::failure();
    }
    lvalue.array = *array;
    lvalue.indices.push_back(*indexValue);
    return lvalue;
  }
  if (isa<CXXMemberCallExpr>(expr)) {
    mb.error(expr->getExprLoc(), "member functions are not supported in "
                                 "kernel code (arrays support only a[i])");
    return mlir::failure();
  }
  mb.error(expr->getExprLoc(),
           "this kind of expression cannot be assigned to in kernel code",
           expr->getSourceRange());
  return mlir::failure();
}

mlir::Value FunctionBuilder::load(const LValue &lvalue, mlir::Location loc) {
  if (lvalue.var)
    return env.lookup(lvalue.var);
  return ks::LoadOp::create(b, loc, lvalue.array, lvalue.indices);
}

void FunctionBuilder::store(const LValue &lvalue, mlir::Value value,
                            mlir::Location loc) {
  if (lvalue.var) {
    env[lvalue.var] = nameValue(value, nameOf(lvalue.var));
    return;
  }
  ks::StoreOp::create(b, loc, value, lvalue.array, lvalue.indices);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitCondition(const Expr *expr) {
  return emitRValue(expr);
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
    if (ModuleBuilder::isArrayType(to))
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
    mb.error(expr->getExprLoc(), "pointers are not supported in kernel code");
    return mlir::failure();
  default:
    break;
  }
  mb.error(expr->getExprLoc(),
           llvm::Twine("'") + CastExpr::getCastKindName(kind) +
               "' conversions are not supported in kernel code");
  return mlir::failure();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool FunctionBuilder::isSafeToSpeculate(const Expr *expr) {
  bool safe = true;
  std::function<void(const Stmt *)> walk = [&](const Stmt *stmt) {
    if (!stmt || !safe)
      return;
    if (auto *call = dyn_cast<CallExpr>(stmt)) {
      const FunctionDecl *callee = call->getDirectCallee();
      // Builtins neither trap nor write; reading arrays may be out of
      // bounds and functions may store.
      if (!callee || !mb.isPreludeDecl(callee) ||
          isa<CXXOperatorCallExpr>(call))
        safe = false;
    }
    if (auto *op = dyn_cast<BinaryOperator>(stmt)) {
      if (op->isAssignmentOp())
        safe = false;
      if ((op->getOpcode() == BO_Div || op->getOpcode() == BO_Rem) &&
          op->getType()->isIntegerType())
        safe = false;
    }
    if (auto *op = dyn_cast<UnaryOperator>(stmt);
        op && op->isIncrementDecrementOp())
      safe = false;
    for (const Stmt *child : stmt->children())
      walk(child);
  };
  walk(expr);
  return safe;
}

mlir::FailureOr<mlir::Value> FunctionBuilder::emitRValue(const Expr *expr) {
  mlir::FailureOr<mlir::Value> constant = tryEmitConstant(expr);
  if (mlir::failed(constant) || *constant)
    return constant;
  mlir::Location loc = mb.loc(expr->getExprLoc());

  if (expr->isGLValue() && isStorage(expr)) {
    mlir::FailureOr<LValue> lvalue = emitLValue(expr);
    if (mlir::failed(lvalue))
      return mlir::failure();
    return load(*lvalue, loc);
  }
  if (auto *paren = dyn_cast<ParenExpr>(expr))
    return emitRValue(paren->getSubExpr());
  if (auto *full = dyn_cast<FullExpr>(expr))
    return emitRValue(full->getSubExpr());
  if (auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr))
    return emitRValue(temp->getSubExpr());
  if (auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr))
    return emitRValue(bind->getSubExpr());
  if (auto *def = dyn_cast<CXXDefaultArgExpr>(expr))
    return emitRValue(def->getExpr());
  if (auto *cast = dyn_cast<CastExpr>(expr)) {
    if (isa<CXXReinterpretCastExpr, CXXConstCastExpr, CXXDynamicCastExpr>(
            cast)) {
      mb.error(expr->getExprLoc(),
               isa<CXXDynamicCastExpr>(cast)
                   ? "dynamic_cast is not supported in kernel code"
                   : "reinterpret_cast and const_cast are not supported in "
                     "kernel code");
      return mlir::failure();
    }
    const Expr *sub = cast->getSubExpr();
    if (cast->getCastKind() == CK_LValueToRValue)
      return emitRValue(sub);
    if (cast->getCastKind() == CK_ToVoid) {
      if (mlir::failed(emitRValue(sub)))
        return mlir::failure();
      return mlir::Value();
    }
    mlir::FailureOr<mlir::Value> value = emitRValue(sub);
    if (mlir::failed(value))
      return mlir::failure();
    return emitCast(*value, sub->getType(), cast->getType(),
                    cast->getCastKind(), cast);
  }
  if (auto *unary = dyn_cast<UnaryOperator>(expr))
    return emitUnary(unary);
  if (auto *binary = dyn_cast<BinaryOperator>(expr))
    return emitBinary(binary);
  if (auto *cond = dyn_cast<ConditionalOperator>(expr))
    return emitConditional(cond);
  if (auto *call = dyn_cast<CXXOperatorCallExpr>(expr)) {
    auto *method = dyn_cast_or_null<CXXMethodDecl>(call->getCalleeDecl());
    if (method && method->getParent()->isLambda())
      return exprError(expr, "lambdas are not supported in kernel code");
    // `a = b` for arrays: `a` now views what `b` views.
    if (call->getOperator() == OO_Equal &&
        ModuleBuilder::isArrayType(call->getArg(0)->getType())) {
      mlir::FailureOr<mlir::Value> value = emitRValue(call->getArg(1));
      if (mlir::failed(value))
        return mlir::failure();
      mlir::FailureOr<LValue> target = emitLValue(call->getArg(0));
      if (mlir::failed(target))
        return mlir::failure();
      if (!target->var)
        return exprError(expr, "only array variables can be assigned");
      store(*target, *value, loc);
      return *value;
    }
    return exprError(expr,
                     "overloaded operators are not supported in kernel code");
  }
  if (isa<CXXMemberCallExpr>(expr))
    return exprError(expr, "member functions are not supported in kernel "
                           "code (arrays support only a[i])");
  if (auto *init = dyn_cast<CXXScalarValueInitExpr>(expr)) {
    // `int()`: a zero.
    mlir::FailureOr<mlir::Type> type =
        mb.convertType(init->getType(), init->getExprLoc(), "'T()'");
    if (mlir::failed(type))
      return mlir::failure();
    return zero(*type, loc);
  }
  if (auto *ref = dyn_cast<DeclRefExpr>(expr)) {
    if (isa<EnumConstantDecl>(ref->getDecl()))
      return exprError(expr, "enums are not supported in kernel code");
    if (isa<FunctionDecl>(ref->getDecl()))
      return exprError(expr, "functions can only be called in kernel code");
  }
  if (isa<ArraySubscriptExpr>(expr))
    return exprError(expr, "C arrays and pointers are not supported in "
                           "kernel code; use array<T>");
  if (isa<CharacterLiteral>(expr))
    return exprError(expr, "character literals are not supported: the "
                           "kernel language has no char type");
  if (auto *call = dyn_cast<CallExpr>(expr))
    return emitCall(call);
  if (auto *construct = dyn_cast<CXXConstructExpr>(expr)) {
    // Copies of arrays, and array<T> -> array<const T>.
    if (ModuleBuilder::isArrayType(construct->getType()) &&
        construct->getNumArgs() == 1 &&
        ModuleBuilder::isArrayType(construct->getArg(0)->getType())) {
      mlir::FailureOr<mlir::Value> array = emitRValue(construct->getArg(0));
      if (mlir::failed(array))
        return mlir::failure();
      mlir::FailureOr<mlir::Type> type = mb.convertType(
          construct->getType(), construct->getExprLoc(), "the array");
      if (mlir::failed(type))
        return mlir::failure();
      if (array->getType() != *type)
        return ks::AsConstOp::create(b, loc, *array).getResult();
      return *array;
    }
    mb.error(expr->getExprLoc(), "constructing objects is not supported in "
                                 "kernel code");
    return mlir::failure();
  }

  // Everything else is outside the language.
  llvm::StringRef what;
  if (isa<CXXThrowExpr>(expr))
    what = "exceptions are not supported in kernel code";
  else if (isa<CXXNewExpr, CXXDeleteExpr>(expr))
    what = "dynamic memory (new and delete) is not supported in kernel code";
  else if (isa<LambdaExpr>(expr))
    what = "lambdas are not supported in kernel code";
  else if (isa<StringLiteral>(expr))
    what = "string literals are not supported in kernel code";
  else if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(expr))
    what = "pointers are not supported in kernel code";
  else if (isa<MemberExpr>(expr))
    what = "member access is not supported in kernel code yet";
  else if (isa<CXXThisExpr>(expr))
    what = "'this' is not supported in kernel code";
  else if (isa<InitListExpr, CXXStdInitializerListExpr>(expr))
    what = "initializer lists are not supported in kernel code";
  else if (isa<CXXTypeidExpr>(expr))
    what = "typeid is not supported in kernel code";
  else if (isa<StmtExpr>(expr))
    what = "statement expressions are not supported in kernel code";
  if (!what.empty())
    return exprError(expr, what);
  return exprError(expr, llvm::Twine("this expression ('") +
                             expr->getStmtClassName() +
                             "') is not supported in kernel code");
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
    return arith::SubIOp::create(b, loc, zero(value->getType(), loc), *value)
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
      mb.error(expr->getExprLoc(), "incrementing a bool is not supported");
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
      updated = increment ? arith::AddIOp::create(b, loc, old, one).getResult()
                          : arith::SubIOp::create(b, loc, old, one).getResult();
    }
    store(*lvalue, updated, loc);
    return expr->isPrefix() ? updated : old;
  }
  case UO_AddrOf:
  case UO_Deref:
    mb.error(expr->getExprLoc(), "pointers are not supported in kernel code");
    return mlir::failure();
  default:
    mb.error(expr->getExprLoc(),
             "the '" + UnaryOperator::getOpcodeStr(expr->getOpcode()) +
                 "' operator is not supported in kernel code");
    return mlir::failure();
  }
}

mlir::FailureOr<mlir::Value> FunctionBuilder::emitArithmetic(
    BinaryOperatorKind op, mlir::Value lhs, mlir::Value rhs, QualType type,
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
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
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
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Sub:
    return isFloat ? arith::SubFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::SubIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Shl:
  case BO_Shr: {
    // The shift amount keeps its own type in C++.
    if (rhs.getType() != lhs.getType()) {
      unsigned from = rhs.getType().getIntOrFloatBitWidth();
      unsigned to = lhs.getType().getIntOrFloatBitWidth();
      rhs = from > to ? arith::TruncIOp::create(b, loc, lhs.getType(), rhs)
                            .getResult()
                      : arith::ExtUIOp::create(b, loc, lhs.getType(), rhs)
                            .getResult();
    }
    if (op == BO_Shl)
      return arith::ShLIOp::create(b, loc, lhs, rhs).getResult();
    return isSigned ? arith::ShRSIOp::create(b, loc, lhs, rhs).getResult()
                    : arith::ShRUIOp::create(b, loc, lhs, rhs).getResult();
  }
  case BO_And:
    return arith::AndIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Or:
    return arith::OrIOp::create(b, loc, lhs, rhs).getResult();
  case BO_Xor:
    return arith::XOrIOp::create(b, loc, lhs, rhs).getResult();
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
        convert(load(*lvalue, loc), lhsType,
                compound->getComputationLHSType(), expr->getExprLoc());
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
                                    "'&&' or '||' are not supported");
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
             "assignments in the operands of '?:' are not supported");
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

mlir::FailureOr<mlir::Value> FunctionBuilder::emitCall(const CallExpr *expr) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  const FunctionDecl *callee = expr->getDirectCallee();
  if (!callee) {
    mb.error(expr->getExprLoc(), "indirect calls are not supported in "
                                 "kernel code");
    return mlir::failure();
  }
  if (mb.isPreludeDecl(callee))
    return emitBuiltinCall(expr, callee);
  if (callee->getBuiltinID())
    return exprError(expr, "compiler builtins ('" +
                               callee->getNameAsString() +
                               "') are not supported in kernel code; use the "
                               "kernel-language functions (sqrt, sin, ...)");
  if (auto *method = dyn_cast<CXXMethodDecl>(callee);
      method && method->getParent()->isLambda())
    return exprError(expr, "lambdas are not supported in kernel code");
  std::optional<FunctionKind> calleeKind = mb.getKind(callee);
  if (!calleeKind) {
    mb.error(expr->getExprLoc(),
             "'" + callee->getNameAsString() +
                 "' is not a device function (mark it KSC_FUNC)");
    return mlir::failure();
  }
  if (*calleeKind == FunctionKind::Kernel) {
    mb.error(expr->getExprLoc(),
             "kernel '" + callee->getNameAsString() +
                 "' cannot be called; kernels are launched from the host");
    return mlir::failure();
  }
  auto func = dyn_cast_or_null<ks::FuncOp>(mb.lookupFunction(callee));
  if (!func) {
    if (!callee->getDefinition())
      mb.error(expr->getExprLoc(), "function '" + callee->getNameAsString() +
                                       "' is declared but never defined");
    return mlir::failure();
  }
  llvm::SmallVector<mlir::Value> args;
  for (const Expr *arg : expr->arguments()) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    args.push_back(*value);
  }
  mb.recordCall(decl, callee, expr->getExprLoc());
  auto call = ks::CallOp::create(b, loc, func, args);
  if (call.getNumResults() == 0)
    return mlir::Value();
  return call.getResult(0);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitBuiltinCall(const CallExpr *expr,
                                 const FunctionDecl *callee) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  StringRef name = callee->getName();
  if (!isBuiltin(name)) {
    mb.error(expr->getExprLoc(),
             "builtin '" + name + "' is not supported yet");
    return mlir::failure();
  }
  if (name == "tid" && kind != FunctionKind::Kernel) {
    mb.error(expr->getExprLoc(),
             "tid() can only be called in a kernel; pass the index to the "
             "function as an argument");
    return mlir::failure();
  }
  llvm::SmallVector<mlir::Value> args;
  for (const Expr *arg : expr->arguments()) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    args.push_back(*value);
  }
  return buildBuiltin(name, b, loc, args);
}
