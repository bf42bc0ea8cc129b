//===- CodeGenStmt.cpp - Statements and structured control flow -------===//
//
// Part of ksc. See CodeGen.h for how variables and control flow map to SSA
// and `scf`.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;

/// Attribute naming the variables an `scf` operation carries, so that the
/// emitters can name the C++ variables that hold them.
static constexpr llvm::StringLiteral kNamesAttr = "ks.names";

FunctionBuilder::FunctionBuilder(ModuleBuilder &mb, const FunctionDecl *decl,
                                 mlir::Operation *function, FunctionKind kind)
    : mb(mb), b(mb.builder), decl(decl), function(function), kind(kind) {
  flags.push_back({"result"});
  returnValue = &flags.back();
  flags.push_back({"did_return"});
  returned = &flags.back();
}

StringRef FunctionBuilder::nameOf(Key key) const {
  for (const Flag &flag : flags)
    if (&flag == key)
      return flag.name;
  return static_cast<const VarDecl *>(key)->getName();
}

mlir::LogicalResult FunctionBuilder::unsupported(const Stmt *stmt,
                                           const llvm::Twine &what) {
  mb.error(stmt->getBeginLoc(), what);
  return mlir::failure();
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::exprError(const Expr *expr, const llvm::Twine &message) {
  mb.error(expr->getExprLoc(), message, expr->getSourceRange());
  return mlir::failure();
}

mlir::LogicalResult FunctionBuilder::build() {
  mlir::Block &entry = function->getRegion(0).front();
  b.setInsertionPointToStart(&entry);
  for (auto [param, arg] : llvm::zip(decl->parameters(), entry.getArguments()))
    env[param] = arg;
  mlir::Location start = mb.loc(decl->getBody()->getBeginLoc());
  if (auto func = dyn_cast<ks::FuncOp>(function);
      func && func.getFunctionType().getNumResults() == 1) {
    returnType = func.getFunctionType().getResult(0);
    env[returnValue] = zero(returnType, start);
  }
  env[returned] = constantBool(false, start);

  auto *body = cast<CompoundStmt>(decl->getBody());
  llvm::SmallVector<const Stmt *> stmts(body->body());
  if (mlir::failed(emitStmts(stmts)))
    return mlir::failure();

  b.setInsertionPointToEnd(&entry);
  mlir::Location end = mb.loc(body->getRBracLoc());
  if (returnType)
    ks::ReturnOp::create(b, end, mlir::ValueRange{env[returnValue]});
  else
    ks::ReturnOp::create(b, end);
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// Analyses of the AST
//===----------------------------------------------------------------------===//

Exits FunctionBuilder::exitsOf(const Stmt *stmt) {
  Exits exits;
  if (!stmt)
    return exits;
  if (isa<ReturnStmt>(stmt)) {
    exits.mayReturn = true;
    exits.fallsThrough = false;
  } else if (isa<BreakStmt>(stmt)) {
    exits.mayBreak = true;
    exits.fallsThrough = false;
  } else if (isa<ContinueStmt>(stmt)) {
    exits.mayContinue = true;
    exits.fallsThrough = false;
  } else if (auto *compound = dyn_cast<CompoundStmt>(stmt)) {
    for (const Stmt *child : compound->body()) {
      Exits e = exitsOf(child);
      exits.mayReturn |= e.mayReturn;
      exits.mayBreak |= e.mayBreak;
      exits.mayContinue |= e.mayContinue;
      if (!e.fallsThrough) {
        exits.fallsThrough = false;
        break;
      }
    }
  } else if (auto *ifStmt = dyn_cast<IfStmt>(stmt)) {
    Exits t = exitsOf(ifStmt->getThen()), e = exitsOf(ifStmt->getElse());
    exits.mayReturn = t.mayReturn || e.mayReturn;
    exits.mayBreak = t.mayBreak || e.mayBreak;
    exits.mayContinue = t.mayContinue || e.mayContinue;
    exits.fallsThrough = t.fallsThrough || e.fallsThrough;
  } else if (isa<ForStmt, WhileStmt, DoStmt>(stmt)) {
    // break and continue inside belong to the loop.
    const Stmt *body = isa<ForStmt>(stmt)     ? cast<ForStmt>(stmt)->getBody()
                       : isa<WhileStmt>(stmt) ? cast<WhileStmt>(stmt)->getBody()
                                              : cast<DoStmt>(stmt)->getBody();
    exits.mayReturn = exitsOf(body).mayReturn;
  } else if (auto *attributed = dyn_cast<AttributedStmt>(stmt)) {
    return exitsOf(attributed->getSubStmt());
  }
  return exits;
}

llvm::SmallVector<FunctionBuilder::Key>
FunctionBuilder::assignedIn(llvm::ArrayRef<const Stmt *> stmts) {
  llvm::SetVector<Key> keys;
  std::function<void(const Stmt *, bool)> walk = [&](const Stmt *stmt,
                                                     bool inInnerLoop) {
    if (!stmt)
      return;
    auto addVar = [&](const Expr *target) {
      if (auto *ref = dyn_cast<DeclRefExpr>(target->IgnoreParens()))
        keys.insert(ref->getDecl());
    };
    if (auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
      addVar(op->getLHS());
    else if (auto *op = dyn_cast<UnaryOperator>(stmt);
             op && op->isIncrementDecrementOp())
      addVar(op->getSubExpr());
    else if (isa<ReturnStmt>(stmt)) {
      keys.insert(returnValue);
      keys.insert(returned);
    } else if (isa<BreakStmt>(stmt) && !inInnerLoop && broke)
      keys.insert(broke);
    else if (isa<ContinueStmt>(stmt) && !inInnerLoop && continued)
      keys.insert(continued);
    bool inner = inInnerLoop || isa<ForStmt, WhileStmt, DoStmt>(stmt);
    for (const Stmt *child : stmt->children())
      walk(child, inner);
  };
  for (const Stmt *stmt : stmts)
    walk(stmt, false);
  llvm::SmallVector<Key> result;
  for (Key key : keys)
    if (env.count(key))
      result.push_back(key);
  return result;
}

mlir::Value FunctionBuilder::notExited(const Exits &exits, mlir::Location loc) {
  mlir::Value any;
  auto add = [&](Key flag) {
    if (!flag || !env.count(flag))
      return;
    any = any ? mlir::arith::OrIOp::create(b, loc, any, env[flag]).getResult()
              : env[flag];
  };
  if (exits.mayReturn)
    add(returned);
  if (exits.mayBreak)
    add(broke);
  if (exits.mayContinue)
    add(continued);
  if (!any)
    return constantBool(true, loc);
  return mlir::arith::XOrIOp::create(b, loc, any, constantBool(true, loc));
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

mlir::LogicalResult
FunctionBuilder::emitStmts(llvm::ArrayRef<const Stmt *> stmts) {
  for (size_t i = 0; i < stmts.size(); ++i) {
    const Stmt *stmt = stmts[i];
    llvm::ArrayRef<const Stmt *> rest = stmts.drop_front(i + 1);
    Exits exits = exitsOf(stmt);
    mlir::Location loc = mb.loc(stmt->getBeginLoc());

    // `if (c) return; rest`: the rest belongs in the branch that goes on.
    if (auto *ifStmt = dyn_cast<IfStmt>(stmt);
        ifStmt && exits.mayExit() && !rest.empty()) {
      Exits t = exitsOf(ifStmt->getThen()), e = exitsOf(ifStmt->getElse());
      if (t.fallsThrough != e.fallsThrough) {
        if (ifStmt->getInit() && mlir::failed(emitStmt(ifStmt->getInit())))
          return mlir::failure();
        if (auto *var = ifStmt->getConditionVariable())
          if (mlir::failed(emitDecl(var)))
            return mlir::failure();
        mlir::FailureOr<mlir::Value> cond = emitRValue(ifStmt->getCond());
        if (mlir::failed(cond))
          return mlir::failure();
        llvm::SmallVector<const Stmt *> thenStmts = {ifStmt->getThen()};
        llvm::SmallVector<const Stmt *> elseStmts;
        if (ifStmt->getElse())
          elseStmts.push_back(ifStmt->getElse());
        llvm::append_range(t.fallsThrough ? thenStmts : elseStmts, rest);
        return emitIf(*cond, thenStmts, elseStmts, ifStmt->getBeginLoc());
      }
    }

    if (mlir::failed(emitStmt(stmt)))
      return mlir::failure();
    if (!exits.fallsThrough)
      return mlir::success(); // The rest is unreachable.
    if (exits.mayExit() && !rest.empty())
      return emitIf(notExited(exits, loc), rest, {}, stmt->getEndLoc());
  }
  return mlir::success();
}

mlir::LogicalResult FunctionBuilder::emitStmt(const Stmt *stmt) {
  mlir::Location loc = mb.loc(stmt->getBeginLoc());
  if (auto *compound = dyn_cast<CompoundStmt>(stmt)) {
    llvm::SmallVector<const Stmt *> stmts(compound->body());
    return emitStmts(stmts);
  }
  if (auto *declStmt = dyn_cast<DeclStmt>(stmt)) {
    for (const Decl *d : declStmt->decls()) {
      if (auto *var = dyn_cast<VarDecl>(d)) {
        if (mlir::failed(emitDecl(var)))
          return mlir::failure();
      } else if (!mb.checkOtherDecl(d, /*local=*/true)) {
        return mlir::failure();
      }
    }
    return mlir::success();
  }
  if (isa<NullStmt>(stmt))
    return mlir::success();
  if (auto *attributed = dyn_cast<AttributedStmt>(stmt))
    return emitStmt(attributed->getSubStmt());
  if (auto *expr = dyn_cast<Expr>(stmt))
    return mlir::success(mlir::succeeded(emitRValue(expr)));
  if (auto *ifStmt = dyn_cast<IfStmt>(stmt)) {
    if (ifStmt->isConsteval())
      return unsupported(stmt, "'if consteval' is not supported");
    if (ifStmt->getInit() && mlir::failed(emitStmt(ifStmt->getInit())))
      return mlir::failure();
    if (auto *var = ifStmt->getConditionVariable())
      if (mlir::failed(emitDecl(var)))
        return mlir::failure();
    mlir::FailureOr<mlir::Value> cond = emitRValue(ifStmt->getCond());
    if (mlir::failed(cond))
      return mlir::failure();
    llvm::SmallVector<const Stmt *> elseStmts;
    if (ifStmt->getElse())
      elseStmts.push_back(ifStmt->getElse());
    return emitIf(*cond, {ifStmt->getThen()}, elseStmts,
                  ifStmt->getBeginLoc());
  }
  if (auto *forStmt = dyn_cast<ForStmt>(stmt))
    return emitFor(forStmt);
  if (auto *whileStmt = dyn_cast<WhileStmt>(stmt)) {
    if (whileStmt->getConditionVariable())
      return unsupported(stmt, "declarations in a while condition are not "
                               "supported; declare the variable before");
    return emitLoop(stmt, whileStmt->getCond(), whileStmt->getBody(), nullptr,
                    /*isDoWhile=*/false);
  }
  if (auto *doStmt = dyn_cast<DoStmt>(stmt))
    return emitLoop(stmt, doStmt->getCond(), doStmt->getBody(), nullptr,
                    /*isDoWhile=*/true);
  if (isa<BreakStmt>(stmt)) {
    env[broke] = constantBool(true, loc);
    return mlir::success();
  }
  if (isa<ContinueStmt>(stmt)) {
    env[continued] = constantBool(true, loc);
    return mlir::success();
  }
  if (auto *ret = dyn_cast<ReturnStmt>(stmt))
    return emitReturn(ret);
  if (isa<SwitchStmt>(stmt))
    return unsupported(stmt, "switch statements are not supported; use "
                             "if/else");
  if (isa<GotoStmt, IndirectGotoStmt, LabelStmt>(stmt))
    return unsupported(stmt, "goto and labels are not supported in kernel "
                             "code");
  if (isa<CXXTryStmt>(stmt))
    return unsupported(stmt, "exceptions (try/catch) are not supported in "
                             "kernel code");
  if (isa<CXXForRangeStmt>(stmt))
    return unsupported(stmt, "range-based for loops are not supported; use "
                             "a counted for loop");
  if (isa<AsmStmt>(stmt))
    return unsupported(stmt, "inline assembly is not supported in kernel "
                             "code");
  return unsupported(stmt, llvm::Twine("'") + stmt->getStmtClassName() +
                               "' statements are not supported in kernel "
                               "code");
}

mlir::LogicalResult FunctionBuilder::emitDecl(const VarDecl *var) {
  // `static constexpr` locals are constants, folded where they are used.
  if (var->isStaticLocal() && var->getType()->isArithmeticType() &&
      (var->isConstexpr() || (var->getType().isConstQualified() &&
                              var->hasConstantInitialization())))
    return mlir::success();
  if (var->hasGlobalStorage())
    return mb.error(var->getLocation(), "static local variables are not "
                                        "supported in kernel code"),
           mlir::failure();
  QualType type = var->getType();
  if (type->isReferenceType())
    return mb.error(var->getLocation(),
                    "references are not supported in kernel code; copy the "
                    "value into a local variable"),
           mlir::failure();
  mlir::FailureOr<mlir::Type> irType = mb.convertType(
      type, var->getLocation(), "variable '" + var->getNameAsString() + "'");
  if (mlir::failed(irType))
    return mlir::failure();
  mlir::Value value;
  const Expr *init = var->getInit();
  if (auto *construct = dyn_cast_or_null<CXXConstructExpr>(init);
      construct && construct->getNumArgs() == 0)
    init = nullptr; // `array<float> a;` default-constructs.
  if (init) {
    mlir::FailureOr<mlir::Value> v = emitNamedRValue(init, var->getName());
    if (mlir::failed(v))
      return mlir::failure();
    value = *v;
  } else if (isa<ks::ArrayType>(*irType)) {
    return mb.error(var->getLocation(),
                    "an array variable must be initialized from an array"),
           mlir::failure();
  } else {
    // Locals without an initializer start at zero.
    value = zero(*irType, mb.nameLoc(var->getName(), var->getLocation()));
  }
  env[var] = value;
  return mlir::success();
}

mlir::LogicalResult FunctionBuilder::emitReturn(const ReturnStmt *stmt) {
  mlir::Location loc = mb.loc(stmt->getBeginLoc());
  if (const Expr *value = stmt->getRetValue()) {
    mlir::FailureOr<mlir::Value> v = emitRValue(value);
    if (mlir::failed(v))
      return mlir::failure();
    if (returnType)
      env[returnValue] = *v;
  }
  env[returned] = constantBool(true, loc);
  return mlir::success();
}

mlir::LogicalResult
FunctionBuilder::emitIf(mlir::Value cond, llvm::ArrayRef<const Stmt *> thenStmts,
                        llvm::ArrayRef<const Stmt *> elseStmts,
                        SourceLocation at) {
  mlir::Location loc = mb.loc(at);
  llvm::SmallVector<const Stmt *> all(thenStmts);
  llvm::append_range(all, elseStmts);
  llvm::SmallVector<Key> carried = assignedIn(all);
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<llvm::StringRef> names;
  for (Key key : carried) {
    types.push_back(env[key].getType());
    names.push_back(nameOf(key));
  }
  auto ifOp = mlir::scf::IfOp::create(
      b, loc, types, cond, !elseStmts.empty() || !carried.empty());
  if (!carried.empty())
    ifOp->setAttr(kNamesAttr, b.getStrArrayAttr(names));

  llvm::DenseMap<Key, mlir::Value> saved = env;
  auto emitBranch = [&](mlir::Region &region,
                        llvm::ArrayRef<const Stmt *> stmts) {
    mlir::Block &block = region.front();
    if (carried.empty())
      b.setInsertionPoint(block.getTerminator());
    else
      b.setInsertionPointToEnd(&block);
    if (mlir::failed(emitStmts(stmts)))
      return mlir::failure();
    if (!carried.empty()) {
      llvm::SmallVector<mlir::Value> values;
      for (Key key : carried)
        values.push_back(env[key]);
      mlir::scf::YieldOp::create(b, loc, values);
    }
    env = saved;
    return mlir::success();
  };
  if (mlir::failed(emitBranch(ifOp.getThenRegion(), thenStmts)))
    return mlir::failure();
  if (!ifOp.getElseRegion().empty() &&
      mlir::failed(emitBranch(ifOp.getElseRegion(), elseStmts)))
    return mlir::failure();
  b.setInsertionPointAfter(ifOp);
  for (auto [key, result] : llvm::zip(carried, ifOp.getResults()))
    env[key] = result;
  return mlir::success();
}

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
    if (auto *ref = dyn_cast<DeclRefExpr>(lhs->IgnoreParens()))
      vars.insert(ref->getDecl());
    else
      writesMemory = true;
  };
  if (auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
    target(op->getLHS());
  else if (auto *op = dyn_cast<UnaryOperator>(stmt);
           op && op->isIncrementDecrementOp())
    target(op->getSubExpr());
  else if (auto *call = dyn_cast<CallExpr>(stmt);
           call && !isa<CXXOperatorCallExpr>(call))
    writesMemory = true; // A device function may store to arrays.
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
    if (auto *call = dyn_cast<CallExpr>(stmt); call &&
                                              !isa<CXXOperatorCallExpr>(call))
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

static std::optional<CountedLoop> matchCountedLoop(const ForStmt *stmt,
                                                   ASTContext &ast,
                                                   const Exits &bodyExits) {
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
      if (auto *add = dyn_cast<BinaryOperator>(
              binary->getRHS()->IgnoreParenImpCasts());
          add && add->getOpcode() == BO_Add && isIv(add->getLHS()))
        stepExpr = add->getRHS();
    Expr::EvalResult result;
    if (!stepExpr || !stepExpr->EvaluateAsInt(result, ast) ||
        !result.Val.getInt().isStrictlyPositive())
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
                             "supported");
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
  if (counted->inclusive)
    upper = mlir::arith::AddIOp::create(b, loc, *upper,
                                        constantInt(ivType, 1, loc))
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
  mlir::Block *before =
      b.createBlock(&whileOp.getBefore(), {}, types, locs);
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
               "break or return in the loop");
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
