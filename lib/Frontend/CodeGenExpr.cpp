//===- CodeGenExpr.cpp - Expressions and lvalues -------------------------===//
//
// Part of ksc. The dispatch over Clang's expression classes, variables and
// array elements as lvalues, and the messages for everything outside the
// language. Operators are in CodeGenOperator.cpp, calls in CodeGenCall.cpp,
// constants and conversions in CodeGenConstant.cpp.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/StmtVisitor.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;
namespace arith = mlir::arith;

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
  if (isa<DeclRefExpr>(expr) || FunctionBuilder::isComponentAccess(expr))
    return true;
  auto *call = dyn_cast<CXXOperatorCallExpr>(expr);
  return call && (call->getOperator() == OO_Subscript ||
                  (call->getOperator() == OO_Call &&
                   ModuleBuilder::isArrayType(call->getArg(0)->getType())));
}

/// `expr` without the temporaries and no-op conversions Clang wraps around
/// the object of a member call (`a[i]` in `a[i][j]`).
static const Expr *stripTemporaries(const Expr *expr) {
  while (true) {
    expr = expr->IgnoreParens();
    if (auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr))
      expr = temp->getSubExpr();
    else if (auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr))
      expr = bind->getSubExpr();
    else if (auto *cast = dyn_cast<ImplicitCastExpr>(expr);
             cast && cast->getCastKind() == CK_NoOp)
      expr = cast->getSubExpr();
    else
      return expr;
  }
}

/// Gives the value the name of the variable it is stored in. A value that
/// already has a name is another variable's value too (`float old = t;`):
/// the new name is added after the first.
static mlir::Value nameValue(mlir::Value value, StringRef name) {
  mlir::Operation *def = value.getDefiningOp();
  // A call with in-out arguments (or a random-number operation, which also
  // returns the next state) has more results; its own result, the first,
  // carries the name in the operation's location.
  bool callResult =
      isa_and_nonnull<ks::CallOp, ks::RandIOp, ks::RandFOp, ks::RandNOp>(
          def) &&
      def->getResult(0) == value;
  if (!def || (def->getNumResults() != 1 && !callResult))
    return value;
  // scf operations carry the names of their results in ks.names (a `?:` that
  // is not speculated is an scf.if with one result).
  if (def->getNumRegions() != 0) {
    if (!def->hasAttr(kNamesAttr))
      def->setAttr(kNamesAttr, mlir::ArrayAttr::get(
                                   def->getContext(),
                                   {mlir::StringAttr::get(def->getContext(),
                                                          name)}));
    return value;
  }
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

mlir::FailureOr<mlir::Value> FunctionBuilder::emitNamedRValue(const Expr *expr,
                                                              StringRef name) {
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
    if (var && !env.count(var) && var->hasGlobalStorage() &&
        var->isConstexpr()) {
      mb.error(expr->getExprLoc(),
               "'" + var->getNameAsString() +
                   "' cannot be used here: kernel code has constexpr "
                   "constants of scalar types only; make each field a "
                   "constant of its own");
      return mlir::failure();
    }
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
  if (isComponentAccess(expr))
    return emitComponent(expr);
  if (auto *call = dyn_cast<CXXOperatorCallExpr>(expr);
      call && (call->getOperator() == OO_Subscript ||
               call->getOperator() == OO_Call)) {
    if (!ModuleBuilder::isArrayType(call->getArg(0)->getType())) {
      mb.error(expr->getExprLoc(), "only array<T> can be indexed");
      return mlir::failure();
    }
    return emitArrayElement(call);
  }
  if (isa<CXXMemberCallExpr>(expr)) {
    mb.error(expr->getExprLoc(), "member functions are not supported in "
                                 "kernel code (arrays support a[i], a(i, j) "
                                 "and a.shape(d))");
    return mlir::failure();
  }
  if (auto *unary = dyn_cast<UnaryOperator>(expr);
      unary && unary->getOpcode() == UO_Deref) {
    (void)exprError(expr, "pointers are not supported in kernel code; pass "
                          "arrays as array<T> and values by value");
    return mlir::failure();
  }
  mb.error(expr->getExprLoc(),
           "this kind of expression cannot be assigned to in kernel code; "
           "assign to a variable or an array element",
           expr->getSourceRange());
  return mlir::failure();
}

mlir::FailureOr<FunctionBuilder::Subscripts>
FunctionBuilder::emitSubscripts(const CXXOperatorCallExpr *access) {
  // `a(i, j)`, or `a[i][j]`: a chain of subscripts, outermost last.
  llvm::SmallVector<const Expr *, 4> indexExprs;
  const Expr *object = access->getArg(0);
  if (access->getOperator() == OO_Call) {
    for (unsigned k = 1; k < access->getNumArgs(); ++k)
      indexExprs.push_back(access->getArg(k));
  } else {
    indexExprs.push_back(access->getArg(1));
    while (auto *inner =
               dyn_cast<CXXOperatorCallExpr>(stripTemporaries(object))) {
      if (inner->getOperator() != OO_Subscript ||
          !ModuleBuilder::isArrayType(inner->getArg(0)->getType()))
        break;
      indexExprs.insert(indexExprs.begin(), inner->getArg(1));
      object = inner->getArg(0);
    }
  }
  Subscripts result;
  mlir::FailureOr<mlir::Value> array = emitRValue(object);
  if (mlir::failed(array))
    return mlir::failure();
  result.array = *array;
  unsigned rank = cast<ks::ArrayType>(array->getType()).getRank();
  if (indexExprs.size() > rank) {
    mb.error(access->getExprLoc(),
             "a " + std::to_string(rank) + "-D array needs " +
                 std::to_string(rank) + " indices, got " +
                 std::to_string(indexExprs.size()),
             access->getSourceRange());
    return mlir::failure();
  }
  for (const Expr *index : indexExprs) {
    mlir::FailureOr<mlir::Value> indexValue = emitIndex(index);
    if (mlir::failed(indexValue))
      return mlir::failure();
    result.indices.push_back(*indexValue);
  }
  return result;
}

mlir::FailureOr<FunctionBuilder::LValue>
FunctionBuilder::emitArrayElement(const CXXOperatorCallExpr *access) {
  mlir::FailureOr<Subscripts> subscripts = emitSubscripts(access);
  if (mlir::failed(subscripts))
    return mlir::failure();
  unsigned rank = cast<ks::ArrayType>(subscripts->array.getType()).getRank();
  if (subscripts->indices.size() < rank &&
      access->getOperator() == OO_Call) {
    mb.error(access->getExprLoc(),
             "a(i, ...) of a " + std::to_string(rank) + "-D array needs " +
                 std::to_string(rank) + " indices, got " +
                 std::to_string(subscripts->indices.size()) +
                 "; for the view of a slice write a[i] (a[i][j] for two "
                 "indices)",
             access->getSourceRange());
    return mlir::failure();
  }
  if (subscripts->indices.size() < rank) {
    // Only an element can be assigned; a slice is a view (a value).
    mb.error(access->getExprLoc(),
             "a slice of a " + std::to_string(rank) +
                 "-D array (with " +
                 std::to_string(subscripts->indices.size()) + " of its " +
                 std::to_string(rank) +
                 " indices) is a view and cannot be assigned to; assign its "
                 "elements (a[i][j] = v), or assign the view to an array "
                 "variable (array<float> row = a[i])",
             access->getSourceRange());
    return mlir::failure();
  }
  LValue lvalue;
  lvalue.type = access->getType();
  lvalue.array = subscripts->array;
  lvalue.indices = std::move(subscripts->indices);
  return lvalue;
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitArraySlice(const CXXOperatorCallExpr *access) {
  mlir::FailureOr<Subscripts> subscripts = emitSubscripts(access);
  if (mlir::failed(subscripts))
    return mlir::failure();
  auto type = cast<ks::ArrayType>(subscripts->array.getType());
  unsigned count = subscripts->indices.size();
  if (count >= type.getRank()) {
    mb.error(access->getExprLoc(), "expected a slice of an array",
             access->getSourceRange());
    return mlir::failure();
  }
  auto resultType = ks::ArrayType::get(type.getElementType(),
                                       type.getRank() - count,
                                       type.getIsConst());
  return ks::SliceOp::create(b, mb.loc(access->getExprLoc()), resultType,
                             subscripts->array, subscripts->indices)
      .getResult();
}

mlir::FailureOr<mlir::Value> FunctionBuilder::emitIndex(const Expr *index) {
  QualType indexType = index->getType();
  if (!indexType->isIntegerType() || indexType->isBooleanType()) {
    mb.error(index->getExprLoc(),
             "an array index must be an integer, not '" + mb.spell(indexType) +
                 "'; convert it (a[int(x)])",
             index->getSourceRange());
    return mlir::failure();
  }
  mlir::FailureOr<mlir::Value> indexValue = emitRValue(index);
  if (mlir::failed(indexValue))
    return mlir::failure();
  if (!isa<mlir::IntegerType>(indexValue->getType()) ||
      indexValue->getType().getIntOrFloatBitWidth() < 32) {
    mb.error(index->getExprLoc(), "an array index must be int or int64_t");
    return mlir::failure();
  }
  // Indices are signed in the IR: a uint32_t index is widened to the
  // int64_t of the same value.
  if (ModuleBuilder::isUnsigned32(indexType))
    indexValue = arith::ExtUIOp::create(b, mb.loc(index->getExprLoc()),
                                        b.getI64Type(), *indexValue)
                     .getResult();
  return indexValue;
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitArrayShape(const CXXMemberCallExpr *call) {
  mlir::FailureOr<mlir::Value> array =
      emitRValue(call->getImplicitObjectArgument());
  if (mlir::failed(array))
    return mlir::failure();
  unsigned rank = cast<ks::ArrayType>(array->getType()).getRank();
  const Expr *arg = call->getArg(0);
  std::optional<int64_t> dim = constantDimension(arg, rank);
  if (!dim) {
    mb.error(arg->getExprLoc(),
             "the dimension of a.shape(d) must be a constant in [0, " +
                 std::to_string(rank) + ") for a " + std::to_string(rank) +
                 "-D array",
             arg->getSourceRange());
    return mlir::failure();
  }
  mlir::Location loc = mb.loc(call->getExprLoc());
  mlir::Value extent = ks::DimOp::create(b, loc, *array, *dim);
  // shape() is an int, as tid() is.
  return arith::TruncIOp::create(b, loc, b.getI32Type(), extent).getResult();
}

mlir::Value FunctionBuilder::loadBase(const LValue &lvalue,
                                      mlir::Location loc) {
  if (lvalue.var)
    return env.lookup(lvalue.var);
  if (lvalue.value)
    return lvalue.value;
  return ks::LoadOp::create(b, loc, lvalue.array, lvalue.indices);
}

void FunctionBuilder::storeBase(const LValue &lvalue, mlir::Value value,
                                mlir::Location loc) {
  if (lvalue.var) {
    env[lvalue.var] = nameValue(value, nameOf(lvalue.var));
    return;
  }
  // A write to a component of a temporary is not observable.
  if (lvalue.value)
    return;
  ks::StoreOp::create(b, loc, value, lvalue.array, lvalue.indices);
}

mlir::Value FunctionBuilder::load(const LValue &lvalue, mlir::Location loc) {
  mlir::Value base = loadBase(lvalue, loc);
  return extractComponent(base, lvalue.components, loc);
}

void FunctionBuilder::store(const LValue &lvalue, mlir::Value value,
                            mlir::Location loc) {
  if (lvalue.components.empty())
    return storeBase(lvalue, value, loc);
  // A component: the whole value with that component replaced.
  mlir::Value base = loadBase(lvalue, loc);
  storeBase(lvalue, insertComponent(value, base, lvalue.components, loc), loc);
}

mlir::Value FunctionBuilder::atomicUpdate(ks::AtomicKind kind,
                                          const LValue &element,
                                          mlir::Value value,
                                          mlir::Location loc) {
  return ks::AtomicRMWOp::create(b, loc, kind, element.array, element.indices,
                                 value)
      .getResult();
}

mlir::FailureOr<mlir::Value> FunctionBuilder::emitCondition(const Expr *expr) {
  return emitRValue(expr);
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
      // Builtins neither trap nor write, but for the atomics and the state
      // the random-number builtins advance; reading arrays may be out of
      // bounds and functions may store.
      if (!callee || !mb.isPreludeDecl(callee) ||
          isa<CXXOperatorCallExpr>(call) ||
          getAtomicBuiltinKind(callee->getName()) ||
          !inoutArguments(call).empty())
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

namespace {
/// Emits the value of an expression, one method per class of Clang
/// expression the kernel language has; every other class reaches VisitStmt,
/// which rejects it with a located diagnostic that says why.
class RValueEmitter
    : public ConstStmtVisitor<RValueEmitter, mlir::FailureOr<mlir::Value>> {
public:
  explicit RValueEmitter(FunctionBuilder &fb) : fb(fb) {}

  // Wrappers of the value.
  mlir::FailureOr<mlir::Value> VisitParenExpr(const ParenExpr *e) {
    return fb.emitRValue(e->getSubExpr());
  }
  mlir::FailureOr<mlir::Value> VisitFullExpr(const FullExpr *e) {
    return fb.emitRValue(e->getSubExpr());
  }
  mlir::FailureOr<mlir::Value>
  VisitMaterializeTemporaryExpr(const MaterializeTemporaryExpr *e) {
    return fb.emitRValue(e->getSubExpr());
  }
  mlir::FailureOr<mlir::Value>
  VisitCXXBindTemporaryExpr(const CXXBindTemporaryExpr *e) {
    return fb.emitRValue(e->getSubExpr());
  }
  mlir::FailureOr<mlir::Value>
  VisitCXXDefaultArgExpr(const CXXDefaultArgExpr *e) {
    return fb.emitRValue(e->getExpr());
  }
  /// A template's value parameter (`N`) in an instantiation.
  mlir::FailureOr<mlir::Value>
  VisitSubstNonTypeTemplateParmExpr(const SubstNonTypeTemplateParmExpr *e) {
    return fb.emitRValue(e->getReplacement());
  }

  mlir::FailureOr<mlir::Value> VisitCastExpr(const CastExpr *cast);
  mlir::FailureOr<mlir::Value> VisitUnaryOperator(const UnaryOperator *e) {
    return fb.emitUnary(e);
  }
  mlir::FailureOr<mlir::Value> VisitBinaryOperator(const BinaryOperator *e) {
    return fb.emitBinary(e);
  }
  mlir::FailureOr<mlir::Value>
  VisitConditionalOperator(const ConditionalOperator *e) {
    return fb.emitConditional(e);
  }
  mlir::FailureOr<mlir::Value>
  VisitCXXOperatorCallExpr(const CXXOperatorCallExpr *call);
  mlir::FailureOr<mlir::Value>
  VisitCXXMemberCallExpr(const CXXMemberCallExpr *member) {
    if (isArrayShapeCall(member))
      return fb.emitArrayShape(member);
    return fb.exprError(member, "member functions are not supported in "
                                "kernel code (arrays support a[i], a(i, j) "
                                "and a.shape(d))");
  }
  mlir::FailureOr<mlir::Value> VisitCallExpr(const CallExpr *call) {
    return fb.emitCall(call);
  }
  /// `int()`: a zero.
  mlir::FailureOr<mlir::Value>
  VisitCXXScalarValueInitExpr(const CXXScalarValueInitExpr *init) {
    return zeroOf(init, "'T()'");
  }
  /// A field left out of a brace initializer (`{pos}`, `{.mass = m}`).
  mlir::FailureOr<mlir::Value>
  VisitImplicitValueInitExpr(const ImplicitValueInitExpr *init) {
    return zeroOf(init, "the field");
  }
  mlir::FailureOr<mlir::Value> VisitCXXConstructExpr(const CXXConstructExpr *e);
  mlir::FailureOr<mlir::Value> VisitInitListExpr(const InitListExpr *list);
  mlir::FailureOr<mlir::Value> VisitDeclRefExpr(const DeclRefExpr *ref) {
    if (isa<EnumConstantDecl>(ref->getDecl()))
      return fb.exprError(ref, "enums are not supported in kernel code; use "
                               "constexpr int constants");
    if (isa<FunctionDecl>(ref->getDecl()))
      return fb.exprError(ref, "functions can only be called in kernel code");
    return VisitStmt(ref);
  }
  mlir::FailureOr<mlir::Value>
  VisitArraySubscriptExpr(const ArraySubscriptExpr *e) {
    return fb.exprError(e, "C arrays and pointers are not supported in "
                           "kernel code; use array<T>");
  }
  mlir::FailureOr<mlir::Value>
  VisitCharacterLiteral(const CharacterLiteral *e) {
    return fb.exprError(e, "character literals are not supported: the "
                           "kernel language has no char type; write the "
                           "character's code as an int (65 for 'A')");
  }

  /// Everything else is outside the language.
  mlir::FailureOr<mlir::Value> VisitStmt(const Stmt *stmt) {
    auto *expr = cast<Expr>(stmt);
    return fb.exprError(expr, unsupportedReason(expr));
  }

private:
  mlir::FailureOr<mlir::Value> zeroOf(const Expr *expr, llvm::StringRef what) {
    mlir::FailureOr<mlir::Type> type =
        fb.mb.convertType(expr->getType(), expr->getExprLoc(), what);
    if (mlir::failed(type))
      return mlir::failure();
    return fb.zero(*type, fb.mb.loc(expr->getExprLoc()));
  }
  mlir::FailureOr<mlir::Value> emitArrayAssign(const CXXOperatorCallExpr *call);
  static llvm::StringRef unsupportedReason(const Expr *expr);

  FunctionBuilder &fb;
};
} // namespace

mlir::FailureOr<mlir::Value> FunctionBuilder::emitRValue(const Expr *expr) {
  mlir::FailureOr<mlir::Value> constant = tryEmitConstant(expr);
  if (mlir::failed(constant) || *constant)
    return constant;
  if (expr->isGLValue() && isStorage(expr)) {
    mlir::FailureOr<LValue> lvalue = emitLValue(expr);
    if (mlir::failed(lvalue))
      return mlir::failure();
    return load(*lvalue, mb.loc(expr->getExprLoc()));
  }
  return RValueEmitter(*this).Visit(expr);
}

mlir::FailureOr<mlir::Value> RValueEmitter::VisitCastExpr(const CastExpr *cast) {
  if (isa<CXXReinterpretCastExpr, CXXConstCastExpr, CXXDynamicCastExpr>(
          cast)) {
    fb.mb.error(cast->getExprLoc(),
                isa<CXXDynamicCastExpr>(cast)
                    ? "dynamic_cast is not supported in kernel code; there "
                      "are no classes (convert scalars with static_cast)"
                    : "reinterpret_cast and const_cast are not supported in "
                      "kernel code; convert scalars with static_cast");
    return mlir::failure();
  }
  const Expr *sub = cast->getSubExpr();
  if (cast->getCastKind() == CK_LValueToRValue)
    return fb.emitRValue(sub);
  if (cast->getCastKind() == CK_ToVoid) {
    if (mlir::failed(fb.emitRValue(sub)))
      return mlir::failure();
    return mlir::Value();
  }
  mlir::FailureOr<mlir::Value> value = fb.emitRValue(sub);
  if (mlir::failed(value))
    return mlir::failure();
  return fb.emitCast(*value, sub->getType(), cast->getType(),
                     cast->getCastKind(), cast);
}

mlir::FailureOr<mlir::Value>
RValueEmitter::VisitCXXOperatorCallExpr(const CXXOperatorCallExpr *call) {
  auto *method = dyn_cast_or_null<CXXMethodDecl>(call->getCalleeDecl());
  if (method && method->getParent()->isLambda())
    return fb.exprError(call, "lambdas are not supported in kernel code; "
                              "write a KSC_FUNC device function instead");
  if (const FunctionDecl *callee = call->getDirectCallee();
      callee && fb.mb.isPreludeDecl(callee) &&
      llvm::any_of(call->arguments(), [](const Expr *arg) {
        return ModuleBuilder::isSmallValueType(arg->getType());
      }))
    return fb.emitVectorOperator(call);
  if (ModuleBuilder::isStructType(call->getArg(0)->getType()))
    return fb.emitStructAssign(call);
  if (call->getOperator() == OO_Equal &&
      ModuleBuilder::isArrayType(call->getArg(0)->getType()))
    return emitArrayAssign(call);
  // A subscript of a multi-dimensional array with fewer indices than
  // dimensions (`a[i]` of a 2-D array) is a view: an array value.
  if ((call->getOperator() == OO_Subscript ||
       call->getOperator() == OO_Call) &&
      ModuleBuilder::isArrayType(call->getArg(0)->getType()) &&
      ModuleBuilder::isArrayType(call->getType()))
    return fb.emitArraySlice(call);
  return fb.exprError(call, "overloaded operators are not supported in "
                            "kernel code; call a KSC_FUNC instead");
}

/// `a = b` for arrays: `a` now views what `b` views.
mlir::FailureOr<mlir::Value>
RValueEmitter::emitArrayAssign(const CXXOperatorCallExpr *call) {
  mlir::FailureOr<mlir::Value> value = fb.emitRValue(call->getArg(1));
  if (mlir::failed(value))
    return mlir::failure();
  // `a[i] = b` assigns to a temporary view: emitArrayElement explains.
  if (auto *slice =
          dyn_cast<CXXOperatorCallExpr>(stripTemporaries(call->getArg(0))))
    if (ModuleBuilder::isArrayType(slice->getArg(0)->getType()) &&
        mlir::failed(fb.emitArrayElement(slice)))
      return mlir::failure();
  mlir::FailureOr<FunctionBuilder::LValue> target =
      fb.emitLValue(call->getArg(0));
  if (mlir::failed(target))
    return mlir::failure();
  if (!target->var)
    return fb.exprError(call, "only array variables can be assigned");
  fb.store(*target, *value, fb.mb.loc(call->getExprLoc()));
  return *value;
}

mlir::FailureOr<mlir::Value>
RValueEmitter::VisitCXXConstructExpr(const CXXConstructExpr *construct) {
  if (ModuleBuilder::isSmallValueType(construct->getType()))
    return fb.emitVectorConstruct(construct);
  if (ModuleBuilder::isStructType(construct->getType()))
    return fb.emitStructConstruct(construct);
  // Copies of arrays, and array<T> -> array<const T>.
  if (ModuleBuilder::isArrayType(construct->getType()) &&
      construct->getNumArgs() == 1 &&
      ModuleBuilder::isArrayType(construct->getArg(0)->getType())) {
    mlir::FailureOr<mlir::Value> array = fb.emitRValue(construct->getArg(0));
    if (mlir::failed(array))
      return mlir::failure();
    mlir::FailureOr<mlir::Type> type = fb.mb.convertType(
        construct->getType(), construct->getExprLoc(), "the array");
    if (mlir::failed(type))
      return mlir::failure();
    if (array->getType() != *type)
      return ks::AsConstOp::create(fb.b, fb.mb.loc(construct->getExprLoc()),
                                   *array)
          .getResult();
    return *array;
  }
  fb.mb.error(construct->getExprLoc(), "constructing objects is not "
                                       "supported in kernel code");
  return mlir::failure();
}

mlir::FailureOr<mlir::Value>
RValueEmitter::VisitInitListExpr(const InitListExpr *list) {
  if (ModuleBuilder::isStructType(list->getType()))
    return fb.emitStructInit(list);
  // `int y{6}`, `return {x};`: one value in braces is that value.
  if (list->getType()->isArithmeticType() && list->getNumInits() <= 1) {
    if (list->getNumInits() == 1)
      return fb.emitRValue(list->getInit(0));
    return zeroOf(list, "'{}'");
  }
  return VisitStmt(list);
}

/// Why `expr`, of a class of expression the kernel language does not have,
/// is rejected.
llvm::StringRef RValueEmitter::unsupportedReason(const Expr *expr) {
  if (isa<CXXThrowExpr>(expr))
    return "exceptions are not supported in kernel code; check for errors "
           "with if and report them through an output array";
  if (isa<CXXNewExpr, CXXDeleteExpr>(expr))
    return "dynamic memory (new and delete) is not supported in kernel "
           "code; allocate on the host and pass the memory as an array<T>";
  if (isa<LambdaExpr>(expr))
    return "lambdas are not supported in kernel code; write a KSC_FUNC "
           "device function instead";
  if (isa<StringLiteral, PredefinedExpr>(expr))
    return "string literals are not supported in kernel code: there is no "
           "char or string type; compute with numbers";
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(expr))
    return "pointers are not supported in kernel code; pass arrays as "
           "array<T> and values by value";
  if (isa<MemberExpr>(expr))
    return "member access is not supported in kernel code yet";
  if (isa<CXXThisExpr>(expr))
    return "'this' is not supported in kernel code";
  if (isa<InitListExpr, CXXStdInitializerListExpr>(expr))
    return "initializer lists are not supported in kernel code";
  if (isa<CXXTypeidExpr>(expr))
    return "typeid is not supported in kernel code";
  if (isa<StmtExpr>(expr))
    return "statement expressions are not supported in kernel code; use a "
           "KSC_FUNC device function";
  if (isa<BinaryConditionalOperator>(expr))
    return "'?:' with an omitted operand (a GNU extension) is not supported "
           "in kernel code; write both operands (x ? x : y)";
  if (isa<GenericSelectionExpr>(expr))
    return "_Generic is not supported in kernel code";
  if (isa<ChooseExpr>(expr))
    return "__builtin_choose_expr is not supported in kernel code";
  if (isa<AtomicExpr>(expr))
    return "atomic builtins are not supported in kernel code";
  if (isa<ExtVectorElementExpr>(expr))
    return "vector extensions are not supported in kernel code";
  if (isa<UnaryExprOrTypeTraitExpr>(expr))
    return "sizeof of a variable-length type is not supported in kernel code";
  return "this expression is not supported in kernel code";
}
