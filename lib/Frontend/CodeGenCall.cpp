//===- CodeGenCall.cpp - Calls -------------------------------------------===//
//
// Part of ksc. Calls of device functions (ks.call) and of the builtins of
// the prelude (Builtins.cpp).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CodeGen.h"

#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

bool frontend::isInoutParam(const ParmVarDecl *param) {
  QualType type = param->getType();
  return type->isLValueReferenceType() &&
         !type->getPointeeType().isConstQualified();
}

bool frontend::isArrayShapeCall(const CallExpr *call) {
  auto *member = dyn_cast<CXXMemberCallExpr>(call);
  return member && member->getMethodDecl() &&
         member->getMethodDecl()->getName() == "shape" &&
         ModuleBuilder::isArrayType(
             member->getImplicitObjectArgument()->getType());
}

std::optional<int64_t>
FunctionBuilder::constantDimension(const Expr *arg, int64_t count) {
  Expr::EvalResult result;
  if (arg->isValueDependent() || !arg->EvaluateAsInt(result, mb.ast))
    return std::nullopt;
  int64_t dim = result.Val.getInt().getSExtValue();
  if (dim < 0 || dim >= count)
    return std::nullopt;
  return dim;
}

llvm::SmallVector<const Expr *, 2>
frontend::inoutArguments(const CallExpr *call) {
  llvm::SmallVector<const Expr *, 2> args;
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee || isa<CXXOperatorCallExpr>(call))
    return args;
  for (auto [param, arg] : llvm::zip(callee->parameters(), call->arguments()))
    if (isInoutParam(param))
      args.push_back(arg);
  return args;
}

mlir::FailureOr<mlir::Value> FunctionBuilder::emitCall(const CallExpr *expr) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  const FunctionDecl *callee = expr->getDirectCallee();
  if (!callee) {
    mb.error(expr->getExprLoc(), "indirect calls are not supported in "
                                 "kernel code; call the function by its "
                                 "name");
    return mlir::failure();
  }
  if (mb.isPreludeDecl(callee))
    return emitBuiltinCall(expr, callee);
  if (callee->getBuiltinID())
    return exprError(expr, "compiler builtins ('" + callee->getNameAsString() +
                               "') are not supported in kernel code; use the "
                               "kernel-language functions (sqrt, sin, ...)");
  if (auto *method = dyn_cast<CXXMethodDecl>(callee);
      method && method->getParent()->isLambda())
    return exprError(expr, "lambdas are not supported in kernel code; "
                           "write a KSC_FUNC device function instead");
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
                 "' cannot be called; kernels are launched from the host "
                 "(move the shared code into a KSC_FUNC and call that)");
    return mlir::failure();
  }
  auto func =
      dyn_cast_or_null<ks::FuncOp>(mb.declareCallee(callee, *calleeKind));
  if (!func) {
    // (A definition whose declaration failed has reported why.)
    if (!callee->getDefinition())
      mb.error(expr->getExprLoc(), "function '" + callee->getNameAsString() +
                                       "' is declared but never defined; "
                                       "define it in this file");
    return mlir::failure();
  }
  // In-out arguments (`T &` parameters) are copied in, and the values the
  // function returns for them are stored back after the call.
  llvm::SmallVector<mlir::Value> args;
  llvm::SmallVector<LValue> inout;
  for (auto [param, arg] : llvm::zip(callee->parameters(), expr->arguments())) {
    if (!isInoutParam(param)) {
      mlir::FailureOr<mlir::Value> value = emitRValue(arg);
      if (mlir::failed(value))
        return mlir::failure();
      args.push_back(*value);
      continue;
    }
    mlir::FailureOr<LValue> target = emitLValue(arg);
    if (mlir::failed(target))
      return mlir::failure();
    // Two parts of one variable may be passed (p.lo and p.hi, v.x and
    // v.y): each is written back into the variable in turn. Overlapping ones
    // (p and p.lo, v[i] and v[j]) would lose a write.
    auto overlaps = [&](const LValue &other) {
      if (!target->var || other.var != target->var)
        return false;
      for (auto [mine, theirs] :
           llvm::zip(target->components, other.components)) {
        std::optional<int64_t> a = mlir::getConstantIntValue(mine);
        std::optional<int64_t> b = mlir::getConstantIntValue(theirs);
        if (a && b && *a != *b)
          return false;
      }
      return true;
    };
    if (llvm::any_of(inout, overlaps)) {
      mb.error(arg->getExprLoc(),
               "'" + nameOf(target->var) +
                   "' is passed to two reference parameters of the same "
                   "call; pass a copy to one of them",
               arg->getSourceRange());
      return mlir::failure();
    }
    args.push_back(load(*target, mb.loc(arg->getExprLoc())));
    inout.push_back(*target);
  }
  mb.recordCall(decl, callee, expr->getExprLoc());
  auto call = ks::CallOp::create(b, loc, func, args);
  unsigned direct = call.getNumResults() - inout.size();
  // The variables the call writes name its in-out results.
  if (!inout.empty()) {
    llvm::SmallVector<llvm::StringRef> names(direct, "");
    for (const LValue &target : inout)
      names.push_back(target.var ? nameOf(target.var) : "");
    if (llvm::any_of(names, [](StringRef name) { return !name.empty(); }))
      call->setAttr(kNamesAttr, b.getStrArrayAttr(names));
  }
  for (auto [index, target] : llvm::enumerate(inout))
    store(target, call.getResult(direct + index), loc);
  if (direct == 0)
    return mlir::Value();
  return call.getResult(0);
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitBuiltinCall(const CallExpr *expr,
                                 const FunctionDecl *callee) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  StringRef name = callee->getName();
  if (name == "tid")
    return emitTid(expr);
  if (name == "identity")
    return emitIdentity(expr);
  if (name == "quat_identity")
    return emitQuatIdentity(expr);
  // Warp's normalize of a zero quaternion is the identity, not zero.
  bool quatNormalize = name == "normalize" && expr->getNumArgs() == 1 &&
                       ModuleBuilder::isQuatType(expr->getArg(0)->getType());
  if (std::optional<ks::AtomicKind> kind = getAtomicBuiltinKind(name))
    return emitAtomicCall(expr, *kind);
  if (isRandomBuiltin(name))
    return emitRandom(expr, name);
  if (!isBuiltin(name)) {
    mb.error(expr->getExprLoc(), "builtin '" + name + "' is not supported yet");
    return mlir::failure();
  }
  llvm::SmallVector<mlir::Value> args;
  for (const Expr *arg : expr->arguments()) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    args.push_back(*value);
  }
  bool isUnsigned = callee->getNumParams() != 0 &&
                    ModuleBuilder::isUnsigned32(callee->getParamDecl(0)->getType());
  mlir::FailureOr<mlir::Value> result =
      quatNormalize ? buildQuatNormalize(b, loc, args)
                    : buildBuiltin(name, b, loc, args, isUnsigned);
  if (mlir::failed(result))
    mb.error(expr->getExprLoc(), "builtin '" + name +
                                     "' is not supported yet for these "
                                     "argument types");
  return result;
}

/// `tid()`, the thread's index in the launch, or `tid(d)`, its coordinate
/// along dimension d of the grid.
mlir::FailureOr<mlir::Value> FunctionBuilder::emitTid(const CallExpr *expr) {
  if (kind != FunctionKind::Kernel) {
    mb.error(expr->getExprLoc(),
             "tid() can only be called in a kernel; pass the index to the "
             "function as an argument");
    return mlir::failure();
  }
  mlir::IntegerAttr dim;
  if (expr->getNumArgs() == 1) {
    const Expr *arg = expr->getArg(0);
    std::optional<int64_t> value = constantDimension(arg, 3);
    if (!value) {
      mb.error(arg->getExprLoc(),
               "the dimension of tid(d) must be the constant 0, 1 or 2",
               arg->getSourceRange());
      return mlir::failure();
    }
    dim = b.getI64IntegerAttr(*value);
  }
  return ks::TidOp::create(b, mb.loc(expr->getExprLoc()), b.getI32Type(), dim)
      .getResult();
}

/// `atomic_add(a, i, ..., v)`: Clang chose the overload for the array's rank
/// and element type and converted `v` to the element type; the indices are
/// checked as those of `a[i]` are.
mlir::FailureOr<mlir::Value>
FunctionBuilder::emitAtomicCall(const CallExpr *expr, ks::AtomicKind kind) {
  unsigned numArgs = expr->getNumArgs();
  mlir::FailureOr<mlir::Value> array = emitRValue(expr->getArg(0));
  if (mlir::failed(array))
    return mlir::failure();
  auto arrayType = dyn_cast<ks::ArrayType>(array->getType());
  if (!arrayType || numArgs != arrayType.getRank() + 2)
    return exprError(expr, "internal error: unexpected overload of '" +
                               expr->getDirectCallee()->getNameAsString() +
                               "'");
  LValue element;
  element.array = *array;
  element.type = expr->getType();
  for (unsigned k = 1; k + 1 < numArgs; ++k) {
    mlir::FailureOr<mlir::Value> index = emitIndex(expr->getArg(k));
    if (mlir::failed(index))
      return mlir::failure();
    element.indices.push_back(*index);
  }
  mlir::FailureOr<mlir::Value> value = emitRValue(expr->getArg(numArgs - 1));
  if (mlir::failed(value))
    return mlir::failure();
  if (value->getType() != arrayType.getValueType())
    return exprError(expr, "internal error: the value of '" +
                               expr->getDirectCallee()->getNameAsString() +
                               "' does not have the array's value type");
  return atomicUpdate(kind, element, *value, mb.loc(expr->getExprLoc()));
}

/// Whether `expr` names a variable or an array element (what a reference to
/// a state can be bound to in kernel code).
static bool isVariableOrElement(const Expr *expr) {
  expr = expr->IgnoreParens();
  if (auto *cast = dyn_cast<ImplicitCastExpr>(expr);
      cast && cast->getCastKind() == CK_NoOp)
    return isVariableOrElement(cast->getSubExpr());
  if (isa<DeclRefExpr>(expr))
    return true;
  auto *call = dyn_cast<CXXOperatorCallExpr>(expr);
  return call &&
         (call->getOperator() == OO_Subscript ||
          call->getOperator() == OO_Call) &&
         ModuleBuilder::isArrayType(call->getArg(0)->getType());
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitRandom(const CallExpr *expr, StringRef name) {
  mlir::Location loc = mb.loc(expr->getExprLoc());
  if (name == "rand_init") {
    llvm::SmallVector<mlir::Value, 2> args;
    for (const Expr *arg : expr->arguments()) {
      mlir::FailureOr<mlir::Value> value = emitRValue(arg);
      if (mlir::failed(value))
        return mlir::failure();
      args.push_back(*value);
    }
    return ks::RandInitOp::create(b, loc, args[0],
                                  args.size() > 1 ? args[1] : mlir::Value())
        .getResult();
  }
  // The state is passed by reference: the operation reads it and the call
  // stores the next state back.
  const Expr *stateArg = expr->getArg(0);
  if (!isVariableOrElement(stateArg))
    return exprError(stateArg, "the state of " + name +
                                   "() must be a uint32_t variable or array "
                                   "element, which it advances; keep it in "
                                   "one (uint32_t s = rand_init(seed);) and "
                                   "pass that");
  mlir::FailureOr<LValue> state = emitLValue(stateArg);
  if (mlir::failed(state))
    return mlir::failure();
  // The bounds are evaluated before the state is read: a draw inside them
  // (randf(s, 0.0f, randf(s))) happens first, as the call's own draw
  // happens in its body.
  llvm::SmallVector<mlir::Value, 2> bounds;
  for (const Expr *arg : llvm::drop_begin(expr->arguments())) {
    mlir::FailureOr<mlir::Value> value = emitRValue(arg);
    if (mlir::failed(value))
      return mlir::failure();
    bounds.push_back(*value);
  }
  mlir::Value current = load(*state, mb.loc(stateArg->getExprLoc()));
  mlir::Operation *op;
  if (name == "randi")
    op = ks::RandIOp::create(b, loc, current, bounds);
  else if (name == "randf")
    op = ks::RandFOp::create(b, loc, current, bounds);
  else
    op = ks::RandNOp::create(b, loc, current);
  // Like a call's in-out result, the next state carries the name of the
  // variable it is stored in.
  if (state->var)
    op->setAttr(kNamesAttr, b.getStrArrayAttr({"", nameOf(state->var)}));
  store(*state, op->getResult(1), loc);
  return op->getResult(0);
}
