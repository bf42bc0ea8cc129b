//===- CodeGenLoop.cpp - Loops -------------------------------------------===//
//
// Part of ksc. `for` loops that count become `scf.for`, every other loop
// (and any loop that breaks or returns) an `scf.while`; see CodeGen.h.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

namespace {
/// A `for` loop that `scf.for` can run: `for (int i = a; i < b; i += c)`
/// (or `<=`, `++i`, `i++`) with a positive constant step, `i` not written
/// by the body, a bound the body cannot change, and no break or return.
struct CountedLoop {
  const VarDecl *iv = nullptr;
  const Expr *upper = nullptr;
  bool inclusive = false;
  int64_t step = 1;
};
} // namespace

/// Variables (and whether arrays) a statement writes.
static void collectWrites(const Stmt *stmt,
                          llvm::SmallPtrSetImpl<const ValueDecl *> &vars,
                          bool &writesMemory) {
  if (!stmt)
    return;
  auto target = [&](const Expr *lhs) {
    if (auto *ref = dyn_cast<DeclRefExpr>(assignedObject(lhs)))
      vars.insert(ref->getDecl());
    else
      writesMemory = true;
  };
  if (auto *call = dyn_cast<CXXOperatorCallExpr>(stmt);
      call && call->isAssignmentOp())
    target(call->getArg(0)); // Assigning an array, vector or matrix.
  else if (auto *op = dyn_cast<BinaryOperator>(stmt);
           op && op->isAssignmentOp())
    target(op->getLHS());
  else if (auto *op = dyn_cast<UnaryOperator>(stmt);
           op && op->isIncrementDecrementOp())
    target(op->getSubExpr());
  else if (auto *call = dyn_cast<CallExpr>(stmt);
           call && !isa<CXXOperatorCallExpr>(call)) {
    writesMemory = true; // A device function may store to arrays.
    for (const Expr *arg : inoutArguments(call))
      target(arg);
  }
  for (const Stmt *child : stmt->children())
    collectWrites(child, vars, writesMemory);
}

/// Whether `expr` has the same value before and after any run of a body
/// writing `vars` (and memory if `writesMemory`).
static bool isInvariant(const Expr *expr,
                        const llvm::SmallPtrSetImpl<const ValueDecl *> &vars,
                        bool writesMemory) {
  bool invariant = true;
  std::function<void(const Stmt *)> walk = [&](const Stmt *stmt) {
    if (!stmt || !invariant)
      return;
    if (auto *ref = dyn_cast<DeclRefExpr>(stmt))
      if (vars.count(ref->getDecl()))
        invariant = false;
    if (isa<CXXOperatorCallExpr>(stmt) && writesMemory)
      invariant = false;
    // Calls may write memory, except a.shape(d): an array's shape changes
    // only when the variable is assigned, which `vars` shows.
    if (auto *call = dyn_cast<CallExpr>(stmt);
        call && !isa<CXXOperatorCallExpr>(call) && !isArrayShapeCall(call))
      invariant = false;
    if (auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
      invariant = false;
    if (auto *op = dyn_cast<UnaryOperator>(stmt);
        op && op->isIncrementDecrementOp())
      invariant = false;
    for (const Stmt *child : stmt->children())
      walk(child);
  };
  walk(expr);
  return invariant;
}

static std::optional<CountedLoop>
matchCountedLoop(const ForStmt *stmt, ASTContext &ast, const Exits &bodyExits) {
  if (bodyExits.mayReturn || bodyExits.mayBreak)
    return std::nullopt;
  CountedLoop loop;
  auto *init = dyn_cast_or_null<DeclStmt>(stmt->getInit());
  if (!init || !init->isSingleDecl())
    return std::nullopt;
  loop.iv = dyn_cast<VarDecl>(init->getSingleDecl());
  if (!loop.iv || !loop.iv->getInit() ||
      !loop.iv->getType()->isSignedIntegerType() ||
      loop.iv->getType().isVolatileQualified())
    return std::nullopt;
  QualType ivType = loop.iv->getType().getUnqualifiedType();
  auto isIv = [&](const Expr *e) {
    auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == loop.iv;
  };

  // i < upper, i <= upper: both sides of the induction variable's type.
  auto *cond = dyn_cast_or_null<BinaryOperator>(
      stmt->getCond() ? stmt->getCond()->IgnoreParens() : nullptr);
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) ||
      !isIv(cond->getLHS()) ||
      !ast.hasSameUnqualifiedType(cond->getLHS()->getType(), ivType) ||
      !ast.hasSameUnqualifiedType(cond->getRHS()->getType(), ivType))
    return std::nullopt;
  loop.upper = cond->getRHS();
  loop.inclusive = cond->getOpcode() == BO_LE;

  // ++i, i++, i += c, i = i + c with a constant c > 0.
  const Expr *inc = stmt->getInc() ? stmt->getInc()->IgnoreParens() : nullptr;
  if (!inc)
    return std::nullopt;
  if (auto *unary = dyn_cast<UnaryOperator>(inc)) {
    if (!unary->isIncrementOp() || !isIv(unary->getSubExpr()))
      return std::nullopt;
    loop.step = 1;
  } else if (auto *binary = dyn_cast<BinaryOperator>(inc)) {
    const Expr *stepExpr = nullptr;
    if (binary->getOpcode() == BO_AddAssign && isIv(binary->getLHS()))
      stepExpr = binary->getRHS();
    else if (binary->getOpcode() == BO_Assign && isIv(binary->getLHS()))
      if (auto *add =
              dyn_cast<BinaryOperator>(binary->getRHS()->IgnoreParenImpCasts());
          add && add->getOpcode() == BO_Add && isIv(add->getLHS()))
        stepExpr = add->getRHS();
    Expr::EvalResult result;
    unsigned width = ast.getIntWidth(ivType);
    if (!stepExpr || !stepExpr->EvaluateAsInt(result, ast) ||
        !result.Val.getInt().isStrictlyPositive() ||
        !result.Val.getInt().isSignedIntN(width))
      return std::nullopt;
    loop.step = result.Val.getInt().getExtValue();
  } else {
    return std::nullopt;
  }

  llvm::SmallPtrSet<const ValueDecl *, 8> writes;
  bool writesMemory = false;
  collectWrites(stmt->getBody(), writes, writesMemory);
  if (writes.count(loop.iv) || !isInvariant(loop.upper, writes, writesMemory))
    return std::nullopt;
  return loop;
}

mlir::LogicalResult FunctionBuilder::emitFor(const ForStmt *stmt) {
  if (stmt->getConditionVariable())
    return unsupported(stmt, "declarations in a for condition are not "
                             "supported; declare the variable before the "
                             "loop");
  Exits bodyExits = exitsOf(stmt->getBody());
  std::optional<CountedLoop> counted =
      matchCountedLoop(stmt, mb.ast, bodyExits);
  if (!counted) {
    if (stmt->getInit() && mlir::failed(emitStmt(stmt->getInit())))
      return mlir::failure();
    return emitLoop(stmt, stmt->getCond(), stmt->getBody(), stmt->getInc(),
                    /*isDoWhile=*/false);
  }

  mlir::Location loc = mb.loc(stmt->getBeginLoc());
  mlir::FailureOr<mlir::Value> lower = emitRValue(counted->iv->getInit());
  if (mlir::failed(lower))
    return mlir::failure();
  mlir::FailureOr<mlir::Value> upper = emitRValue(counted->upper);
  if (mlir::failed(upper))
    return mlir::failure();
  mlir::Type ivType = lower->getType();
  // i <= n runs to n + 1, which overflows only where the C++ loop's own
  // ++i would.
  if (counted->inclusive)
    upper = mlir::arith::AddIOp::create(
                b, loc, *upper, constantInt(ivType, 1, loc),
                mlir::arith::IntegerOverflowFlagsAttr::get(
                    b.getContext(), mlir::arith::IntegerOverflowFlags::nsw))
                .getResult();
  mlir::Value step = constantInt(ivType, counted->step, loc);

  // continue skips the rest of the body; the flag lives for one iteration.
  Key outerBroke = broke, outerContinued = continued;
  broke = nullptr;
  continued = nullptr;
  if (bodyExits.mayContinue) {
    flags.push_back({"did_continue"});
    continued = &flags.back();
  }
  llvm::SmallVector<Key> carried = assignedIn({stmt->getBody()});
  llvm::SmallVector<mlir::Value> inits;
  llvm::SmallVector<llvm::StringRef> names;
  for (Key key : carried) {
    inits.push_back(env[key]);
    names.push_back(nameOf(key));
  }
  auto forOp = mlir::scf::ForOp::create(b, loc, *lower, *upper, step, inits);
  if (!carried.empty())
    forOp->setAttr(kNamesAttr, b.getStrArrayAttr(names));
  forOp.getInductionVar().setLoc(
      mb.nameLoc(counted->iv->getName(), counted->iv->getLocation()));
  for (auto [key, arg] : llvm::zip(carried, forOp.getRegionIterArgs()))
    arg.setLoc(mlir::NameLoc::get(b.getStringAttr(nameOf(key)), loc));

  llvm::DenseMap<Key, mlir::Value> saved = env;
  mlir::Block *body = forOp.getBody();
  if (carried.empty())
    b.setInsertionPoint(body->getTerminator());
  else
    b.setInsertionPointToEnd(body);
  env[counted->iv] = forOp.getInductionVar();
  for (auto [key, arg] : llvm::zip(carried, forOp.getRegionIterArgs()))
    env[key] = arg;
  if (continued)
    env[continued] = constantBool(false, loc);
  mlir::LogicalResult result = emitStmts({stmt->getBody()});
  if (mlir::succeeded(result) && !carried.empty()) {
    llvm::SmallVector<mlir::Value> values;
    for (Key key : carried)
      values.push_back(env[key]);
    mlir::scf::YieldOp::create(b, loc, values);
  }
  env = saved;
  broke = outerBroke;
  continued = outerContinued;
  if (mlir::failed(result))
    return mlir::failure();
  b.setInsertionPointAfter(forOp);
  for (auto [key, value] : llvm::zip(carried, forOp.getResults()))
    env[key] = value;
  return mlir::success();
}

mlir::LogicalResult FunctionBuilder::emitLoop(const Stmt *loop,
                                              const Expr *cond,
                                              const Stmt *body, const Expr *inc,
                                              bool isDoWhile) {
  mlir::Location loc = mb.loc(loop->getBeginLoc());
  Exits bodyExits = exitsOf(body);
  Key outerBroke = broke, outerContinued = continued;
  broke = nullptr;
  continued = nullptr;
  if (bodyExits.mayBreak) {
    flags.push_back({"did_break"});
    broke = &flags.back();
    env[broke] = constantBool(false, loc);
  }
  if (bodyExits.mayContinue) {
    flags.push_back({"did_continue"});
    continued = &flags.back();
  }
  Key loopBroke = broke;

  llvm::SmallVector<const Stmt *> parts = {body};
  if (cond)
    parts.push_back(cond);
  if (inc)
    parts.push_back(inc);
  llvm::SmallVector<Key> carried = assignedIn(parts);
  llvm::SmallVector<mlir::Value> inits;
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<mlir::Location> locs;
  llvm::SmallVector<llvm::StringRef> names;
  for (Key key : carried) {
    inits.push_back(env[key]);
    types.push_back(env[key].getType());
    names.push_back(nameOf(key));
    locs.push_back(mlir::NameLoc::get(b.getStringAttr(nameOf(key)), loc));
  }
  auto whileOp = mlir::scf::WhileOp::create(b, loc, types, inits);
  if (!carried.empty())
    whileOp->setAttr(kNamesAttr, b.getStrArrayAttr(names));
  mlir::Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
  mlir::Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
  llvm::DenseMap<Key, mlir::Value> saved = env;
  auto bind = [&](mlir::Block *block) {
    for (auto [key, arg] : llvm::zip(carried, block->getArguments()))
      env[key] = arg;
  };
  auto current = [&] {
    llvm::SmallVector<mlir::Value> values;
    for (Key key : carried)
      values.push_back(env[key]);
    return values;
  };
  // Whether to go on: no break or return happened, and the condition holds
  // (evaluated only if C++ would evaluate it).
  auto keepGoing = [&]() -> mlir::FailureOr<mlir::Value> {
    Exits stop;
    stop.mayReturn = bodyExits.mayReturn;
    stop.mayBreak = bodyExits.mayBreak;
    mlir::Value go = stop.mayExit() ? notExited(stop, loc) : mlir::Value();
    if (!cond)
      return go ? go : constantBool(true, loc);
    if (!go)
      return emitRValue(cond);
    if (isSafeToSpeculate(cond)) {
      mlir::FailureOr<mlir::Value> c = emitRValue(cond);
      if (mlir::failed(c))
        return mlir::failure();
      return mlir::arith::AndIOp::create(b, loc, go, *c).getResult();
    }
    if (!assignedIn({cond}).empty()) {
      mb.error(cond->getBeginLoc(),
               "a loop condition with side effects cannot be combined with "
               "break or return in the loop; move the side effects into the "
               "loop body");
      return mlir::failure();
    }
    auto ifOp = mlir::scf::IfOp::create(b, loc, b.getI1Type(), go, true);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    mlir::FailureOr<mlir::Value> c = emitRValue(cond);
    if (mlir::failed(c))
      return mlir::failure();
    mlir::scf::YieldOp::create(b, loc, *c);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    mlir::scf::YieldOp::create(b, loc, constantBool(false, loc));
    return ifOp.getResult(0);
  };
  // The body, then `inc` unless a break or return happened.
  auto emitBody = [&]() -> mlir::LogicalResult {
    if (continued)
      env[continued] = constantBool(false, loc);
    if (mlir::failed(emitStmts({body})))
      return mlir::failure();
    if (!inc)
      return mlir::success();
    Exits stop;
    stop.mayReturn = bodyExits.mayReturn;
    stop.mayBreak = bodyExits.mayBreak;
    if (!stop.mayExit())
      return emitStmt(inc);
    return emitIf(notExited(stop, loc), {inc}, {}, inc->getBeginLoc());
  };

  mlir::LogicalResult result = mlir::success();
  b.setInsertionPointToStart(before);
  bind(before);
  if (!isDoWhile) {
    mlir::FailureOr<mlir::Value> go = keepGoing();
    if (mlir::failed(go))
      result = mlir::failure();
    else
      mlir::scf::ConditionOp::create(b, loc, *go, current());
    env = saved;
    if (mlir::succeeded(result)) {
      b.setInsertionPointToStart(after);
      bind(after);
      result = emitBody();
      if (mlir::succeeded(result))
        mlir::scf::YieldOp::create(b, loc, current());
    }
  } else {
    result = emitBody();
    mlir::FailureOr<mlir::Value> go = mlir::failure();
    if (mlir::succeeded(result))
      go = keepGoing();
    if (mlir::failed(go))
      result = mlir::failure();
    else
      mlir::scf::ConditionOp::create(b, loc, *go, current());
    b.setInsertionPointToStart(after);
    mlir::scf::YieldOp::create(
        b, loc, llvm::SmallVector<mlir::Value>(after->getArguments()));
  }
  env = saved;
  broke = outerBroke;
  continued = outerContinued;
  if (mlir::failed(result))
    return mlir::failure();
  b.setInsertionPointAfter(whileOp);
  for (auto [key, value] : llvm::zip(carried, whileOp.getResults()))
    env[key] = value;
  // The loop's break flag means nothing after it.
  if (loopBroke)
    env.erase(loopBroke);
  return mlir::success();
}
