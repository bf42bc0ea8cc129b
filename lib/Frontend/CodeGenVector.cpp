//===- CodeGenVector.cpp - Vectors and matrices --------------------------===//
//
// Part of ksc. The prelude's `vec<N, T>` and `mat<N, T>` are values: MLIR
// vectors (`vector<3xf32>`, `vector<3x3xf32>`) in the IR. Their components
// are lvalues made of the variable or array element holding the whole value
// and the component's position: reading one is a `vector.extract`, writing
// one a `vector.insert` into the whole value, which is then stored back.
// Operators are `arith` on vectors (a scalar operand is broadcast) and
// `ks.matmul`; constructors are constants, `vector.broadcast` and
// `vector.from_elements`.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;
namespace arith = mlir::arith;
namespace vector = mlir::vector;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// The specialization of the prelude's class template `name` that `type`
/// is, or null.
static const ClassTemplateSpecializationDecl *
getPreludeSpecialization(QualType type, StringRef name) {
  auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
  auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record);
  if (!spec || spec->getName() != name)
    return nullptr;
  auto *ns = dyn_cast<NamespaceDecl>(spec->getDeclContext());
  if (!ns || ns->getName() != "ksc" || !ns->getParent()->isTranslationUnit())
    return nullptr;
  return spec;
}

bool ModuleBuilder::isVectorType(QualType type) {
  return getPreludeSpecialization(type, "vec");
}

bool ModuleBuilder::isMatrixType(QualType type) {
  return getPreludeSpecialization(type, "mat");
}

bool ModuleBuilder::isQuatType(QualType type) {
  return getPreludeSpecialization(type, "quat_t");
}

/// The number of components (rows) of a vector, matrix or quaternion type.
static int64_t getExtent(QualType type) {
  if (ModuleBuilder::isQuatType(type))
    return 4;
  const auto *spec = cast<ClassTemplateSpecializationDecl>(
      type.getNonReferenceType()->getAsCXXRecordDecl());
  return spec->getTemplateArgs()[0].getAsIntegral().getSExtValue();
}

mlir::FailureOr<mlir::Type>
ModuleBuilder::convertVectorType(QualType canonical, SourceLocation at,
                                 StringRef what) {
  bool isMatrix = isMatrixType(canonical), isQuat = isQuatType(canonical);
  const ClassTemplateSpecializationDecl *spec = getPreludeSpecialization(
      canonical, isMatrix ? "mat" : isQuat ? "quat_t" : "vec");
  const TemplateArgumentList &args = spec->getTemplateArgs();
  int64_t n = getExtent(canonical);
  QualType element =
      args[isQuat ? 0 : 1].getAsType().getCanonicalType();
  mlir::Type elementType;
  if (element->isSpecificBuiltinType(BuiltinType::Float))
    elementType = builder.getF32Type();
  else if (element->isSpecificBuiltinType(BuiltinType::Double))
    elementType = builder.getF64Type();
  else if (!isMatrix && !isQuat &&
           element->isSpecificBuiltinType(BuiltinType::Int))
    elementType = builder.getI32Type();
  if (!elementType || element.hasQualifiers()) {
    // Name the types of the same size: mat22 for a mat<2, int>.
    std::string size = std::to_string(n);
    error(at, "type '" + spell(canonical) + "' of " + what +
                  " is not supported: " +
                  (isQuat ? "quaternions have float or double components; "
                            "use quat or quatd"
                   : isMatrix ? "matrices have float or double elements; use "
                                "mat" + size + size + " or mat" + size + size +
                                "d"
                              : "vectors have float, double or int "
                                "components; use vec" + size + ", vec" + size +
                                "d or vec" + size + "i"));
    return mlir::failure();
  }
  if (isMatrix)
    return mlir::Type(mlir::VectorType::get({n, n}, elementType));
  return mlir::Type(mlir::VectorType::get({n}, elementType));
}

//===----------------------------------------------------------------------===//
// Components
//===----------------------------------------------------------------------===//

bool ModuleBuilder::isSmallValueType(QualType type) {
  return isVectorType(type) || isMatrixType(type) || isQuatType(type);
}

bool FunctionBuilder::isComponentAccess(const Expr *expr) {
  expr = expr->IgnoreParens();
  if (auto *member = dyn_cast<MemberExpr>(expr))
    return isa<FieldDecl>(member->getMemberDecl()) && !member->isArrow() &&
           (ModuleBuilder::isVectorType(member->getBase()->getType()) ||
            ModuleBuilder::isQuatType(member->getBase()->getType()) ||
            ModuleBuilder::isStructType(member->getBase()->getType()));
  auto *call = dyn_cast<CXXOperatorCallExpr>(expr);
  return call &&
         (call->getOperator() == OO_Subscript ||
          call->getOperator() == OO_Call) &&
         ModuleBuilder::isSmallValueType(call->getArg(0)->getType());
}

const Expr *frontend::assignedObject(const Expr *target) {
  while (true) {
    target = target->IgnoreParens();
    if (auto *noop = dyn_cast<ImplicitCastExpr>(target);
        noop && noop->getCastKind() == CK_NoOp)
      target = noop->getSubExpr();
    else if (!FunctionBuilder::isComponentAccess(target))
      return target;
    else if (auto *member = dyn_cast<MemberExpr>(target))
      target = member->getBase();
    else
      target = cast<CXXOperatorCallExpr>(target)->getArg(0);
  }
}

mlir::FailureOr<FunctionBuilder::LValue>
FunctionBuilder::emitComponent(const Expr *expr) {
  expr = expr->IgnoreParens();
  const Expr *base;
  llvm::SmallVector<const Expr *, 2> indexExprs;
  std::optional<int64_t> field;
  if (auto *member = dyn_cast<MemberExpr>(expr)) {
    base = member->getBase();
    field = cast<FieldDecl>(member->getMemberDecl())->getFieldIndex();
  } else {
    auto *call = cast<CXXOperatorCallExpr>(expr);
    base = call->getArg(0);
    for (unsigned k = 1; k < call->getNumArgs(); ++k)
      indexExprs.push_back(call->getArg(k));
  }

  // The whole value: a variable, an array element, a component of a matrix
  // (`m[i]` in `m[i][j]`), or a temporary.
  LValue lvalue;
  const Expr *stripped = base->IgnoreParens();
  if (auto *noop = dyn_cast<ImplicitCastExpr>(stripped);
      noop && noop->getCastKind() == CK_NoOp)
    stripped = noop->getSubExpr()->IgnoreParens();
  if (base->isGLValue() && !isa<MaterializeTemporaryExpr>(stripped)) {
    mlir::FailureOr<LValue> whole = emitLValue(base);
    if (mlir::failed(whole))
      return mlir::failure();
    lvalue = *whole;
  } else {
    mlir::FailureOr<mlir::Value> whole = emitRValue(base);
    if (mlir::failed(whole))
      return mlir::failure();
    lvalue.value = *whole;
  }
  lvalue.type = expr->getType();

  if (field) {
    lvalue.components.push_back(b.getI64IntegerAttr(*field));
    return lvalue;
  }
  for (const Expr *index : indexExprs) {
    QualType indexType = index->getType();
    if (!indexType->isIntegerType() || indexType->isBooleanType()) {
      mb.error(index->getExprLoc(),
               "a component index must be an integer, not '" +
                   mb.spell(indexType) + "'",
               index->getSourceRange());
      return mlir::failure();
    }
    // A constant index is a static position (and must be in range).
    Expr::EvalResult constant;
    if (!index->isValueDependent() &&
        index->EvaluateAsInt(constant, mb.ast)) {
      int64_t position = constant.Val.getInt().getSExtValue();
      int64_t extent = getExtent(base->getType());
      if (position < 0 || position >= extent) {
        mb.error(index->getExprLoc(),
                 "index " + std::to_string(position) + " is out of range for '" +
                     mb.spell(base->getType().getNonReferenceType()
                                  .getUnqualifiedType()) +
                     "' (valid: 0 to " + std::to_string(extent - 1) + ")",
                 index->getSourceRange());
        return mlir::failure();
      }
      lvalue.components.push_back(b.getI64IntegerAttr(position));
      continue;
    }
    mlir::FailureOr<mlir::Value> value = emitRValue(index);
    if (mlir::failed(value))
      return mlir::failure();
    mlir::Location loc = mb.loc(index->getExprLoc());
    lvalue.components.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), *value)
            .getResult());
  }
  return lvalue;
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitVectorConstruct(const CXXConstructExpr *construct) {
  mlir::Location loc = mb.loc(construct->getExprLoc());
  mlir::FailureOr<mlir::Type> type = mb.convertType(
      construct->getType(), construct->getExprLoc(), "the constructed value");
  if (mlir::failed(type))
    return mlir::failure();
  llvm::SmallVector<mlir::Value> args;
  for (const Expr *arg : construct->arguments()) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    args.push_back(*value);
  }
  auto vectorType = mlir::cast<mlir::VectorType>(*type);
  // `vec3()`: zero.
  if (args.empty())
    return zero(vectorType, loc);
  // A copy.
  if (args.size() == 1 && args[0].getType() == vectorType)
    return args[0];
  // `vec3(s)`: every component s.
  if (args.size() == 1)
    return vector::BroadcastOp::create(b, loc, vectorType, args[0])
        .getResult();
  // The components (elements row by row).
  if (static_cast<int64_t>(args.size()) != vectorType.getNumElements())
    return exprError(construct, "this constructor is not supported in kernel "
                                "code; list every component");
  return vector::FromElementsOp::create(b, loc, vectorType, args).getResult();
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitQuatIdentity(const CallExpr *call) {
  mlir::FailureOr<mlir::Type> type =
      mb.convertType(call->getType(), call->getExprLoc(), "quat_identity()");
  if (mlir::failed(type))
    return mlir::failure();
  return buildQuatIdentity(b, mb.loc(call->getExprLoc()),
                           mlir::cast<mlir::VectorType>(*type));
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitIdentity(const CallExpr *call) {
  mlir::FailureOr<mlir::Type> type =
      mb.convertType(call->getType(), call->getExprLoc(), "identity<M>()");
  if (mlir::failed(type))
    return mlir::failure();
  auto matrixType = mlir::dyn_cast<mlir::VectorType>(*type);
  if (!matrixType || matrixType.getRank() != 2)
    return exprError(call, "identity<M>() makes matrices; M must be a matrix "
                           "type such as mat33");
  int64_t n = matrixType.getDimSize(0);
  mlir::Type element = matrixType.getElementType();
  llvm::SmallVector<mlir::Attribute> values;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      values.push_back(b.getFloatAttr(element, i == j ? 1.0 : 0.0));
  return arith::ConstantOp::create(
             b, mb.loc(call->getExprLoc()),
             mlir::DenseElementsAttr::get(matrixType, values))
      .getResult();
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

namespace {
/// Component-wise arithmetic of `lhs` and `rhs` (vectors or matrices of the
/// same type, or one a scalar, which is broadcast).
mlir::FailureOr<mlir::Value> buildComponentwise(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                OverloadedOperatorKind op,
                                                mlir::Value lhs,
                                                mlir::Value rhs) {
  auto type = mlir::isa<mlir::VectorType>(lhs.getType())
                  ? mlir::cast<mlir::VectorType>(lhs.getType())
                  : mlir::cast<mlir::VectorType>(rhs.getType());
  if (lhs.getType() != type)
    lhs = vector::BroadcastOp::create(b, loc, type, lhs);
  if (rhs.getType() != type)
    rhs = vector::BroadcastOp::create(b, loc, type, rhs);
  bool isFloat = mlir::isa<mlir::FloatType>(type.getElementType());
  switch (op) {
  case OO_Plus:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case OO_Minus:
    return isFloat ? arith::SubFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::SubIOp::create(b, loc, lhs, rhs).getResult();
  case OO_Star:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case OO_Slash:
    return isFloat ? arith::DivFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::DivSIOp::create(b, loc, lhs, rhs).getResult();
  default:
    return mlir::failure();
  }
}

/// The arithmetic operator of a compound assignment (`+` for `+=`).
std::optional<OverloadedOperatorKind>
arithmeticOfAssignment(OverloadedOperatorKind op) {
  switch (op) {
  case OO_PlusEqual:
    return OO_Plus;
  case OO_MinusEqual:
    return OO_Minus;
  case OO_StarEqual:
    return OO_Star;
  case OO_SlashEqual:
    return OO_Slash;
  default:
    return std::nullopt;
  }
}
} // namespace

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitVectorOperator(const CXXOperatorCallExpr *call) {
  mlir::Location loc = mb.loc(call->getOperatorLoc());
  OverloadedOperatorKind op = call->getOperator();

  // `v = w`, `v += w`, `v *= s`: the new value of the left operand.
  if (op == OO_Equal || arithmeticOfAssignment(op)) {
    mlir::FailureOr<mlir::Value> rhs = emitRValue(call->getArg(1));
    if (mlir::failed(rhs))
      return mlir::failure();
    mlir::FailureOr<LValue> target = emitLValue(call->getArg(0));
    if (mlir::failed(target))
      return mlir::failure();
    mlir::Value value = *rhs;
    // `a[i] += v`, `a[i] -= v` on a whole array element: an atomic update,
    // as on scalar elements (a component, `a[i].x += s`, is not).
    bool atomic = (op == OO_PlusEqual || op == OO_MinusEqual) &&
                  target->array && target->components.empty();
    if (atomic) {
      mlir::Value old =
          atomicUpdate(op == OO_PlusEqual ? ks::AtomicKind::add
                                          : ks::AtomicKind::sub,
                       *target, *rhs, loc);
      // The value of the assignment is what this update wrote.
      return buildComponentwise(b, loc, *arithmeticOfAssignment(op), old,
                                *rhs);
    }
    if (op != OO_Equal) {
      mlir::FailureOr<mlir::Value> result = buildComponentwise(
          b, loc, *arithmeticOfAssignment(op), load(*target, loc), *rhs);
      if (mlir::failed(result))
        return mlir::failure();
      value = *result;
    }
    store(*target, value, loc);
    return value;
  }

  llvm::SmallVector<mlir::Value, 2> args;
  for (const Expr *arg : call->arguments()) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    args.push_back(*value);
  }
  if (args.size() == 1 && op == OO_Minus) {
    mlir::Value x = args[0];
    auto type = mlir::cast<mlir::VectorType>(x.getType());
    if (mlir::isa<mlir::FloatType>(type.getElementType()))
      return arith::NegFOp::create(b, loc, x).getResult();
    return arith::SubIOp::create(b, loc, zero(type, loc), x).getResult();
  }
  if (args.size() == 2) {
    auto lhsType = mlir::dyn_cast<mlir::VectorType>(args[0].getType());
    auto rhsType = mlir::dyn_cast<mlir::VectorType>(args[1].getType());
    if (op == OO_Star && lhsType && rhsType &&
        ModuleBuilder::isQuatType(call->getArg(0)->getType()))
      return ks::QuatMulOp::create(b, loc, args[0], args[1]).getResult();
    // Matrix products: m * m, m * v, v * m.
    if (op == OO_Star && lhsType && rhsType) {
      mlir::VectorType result =
          lhsType.getRank() == 2 && rhsType.getRank() == 2 ? lhsType
          : lhsType.getRank() == 1                         ? lhsType
                                                           : rhsType;
      return ks::MatmulOp::create(b, loc, result, args[0], args[1])
          .getResult();
    }
    mlir::FailureOr<mlir::Value> result =
        buildComponentwise(b, loc, op, args[0], args[1]);
    if (mlir::succeeded(result))
      return result;
  }
  return exprError(call, "this operator is not supported on vectors and "
                         "matrices");
}
