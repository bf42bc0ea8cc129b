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

/// The names of the uint32_t variables of `decl` (parameters and locals,
/// and `result` for a uint32_t result), less those that also name an int:
/// the emitter declares the values named after them uint32_t.
static mlir::ArrayAttr unsignedNames(mlir::Builder &b,
                                     const FunctionDecl *decl) {
  llvm::StringSet<> unsignedVars, signedVars;
  auto add = [&](StringRef name, QualType type) {
    type = type.getNonReferenceType().getCanonicalType();
    if (ModuleBuilder::isUnsigned32(type))
      unsignedVars.insert(name);
    else if (type->isSpecificBuiltinType(BuiltinType::Int))
      signedVars.insert(name);
  };
  for (const ParmVarDecl *param : decl->parameters())
    add(param->getName(), param->getType());
  add("result", decl->getReturnType());
  std::function<void(const Stmt *)> walk = [&](const Stmt *stmt) {
    if (!stmt)
      return;
    if (auto *declStmt = dyn_cast<DeclStmt>(stmt))
      for (const Decl *d : declStmt->decls())
        if (auto *var = dyn_cast<VarDecl>(d))
          add(var->getName(), var->getType());
    for (const Stmt *child : stmt->children())
      walk(child);
  };
  walk(decl->getBody());
  llvm::SmallVector<StringRef> names;
  for (const auto &entry : unsignedVars)
    if (!signedVars.contains(entry.getKey()))
      names.push_back(entry.getKey());
  if (names.empty())
    return nullptr;
  llvm::sort(names);
  return b.getStrArrayAttr(names);
}

mlir::LogicalResult FunctionBuilder::build() {
  if (mlir::ArrayAttr names = unsignedNames(b, decl))
    function->setAttr(kUnsignedNamesAttr, names);
  mlir::Block &entry = function->getRegion(0).front();
  b.setInsertionPointToStart(&entry);
  for (auto [param, arg] : llvm::zip(decl->parameters(), entry.getArguments()))
    env[param] = arg;
  mlir::Location start = mb.loc(decl->getBody()->getBeginLoc());
  if (auto func = dyn_cast<ks::FuncOp>(function);
      func && ks::getNumDirectResults(func) == 1) {
    returnType = func.getFunctionType().getResult(0);
    env[returnValue] = zero(returnType, start);
  }
  env[returned] = constantBool(false, start);

  auto *body = dyn_cast<CompoundStmt>(decl->getBody());
  if (!body) // A function-try-block.
    return unsupported(decl->getBody(),
                       "exceptions (try/catch) are not supported in kernel "
                       "code; check for errors with if and report them "
                       "through an output array");
  llvm::SmallVector<const Stmt *> stmts(body->body());
  if (mlir::failed(emitStmts(stmts)))
    return mlir::failure();

  // A device function returns its result, then the final values of its
  // in-out parameters.
  b.setInsertionPointToEnd(&entry);
  mlir::Location end = mb.loc(body->getRBracLoc());
  llvm::SmallVector<mlir::Value> results;
  if (returnType)
    results.push_back(env[returnValue]);
  for (const ParmVarDecl *param : decl->parameters())
    if (isInoutParam(param))
      results.push_back(env[param]);
  ks::ReturnOp::create(b, end, results);
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
      if (auto *ref = dyn_cast<DeclRefExpr>(assignedObject(target)))
        keys.insert(ref->getDecl());
    };
    if (auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp())
      addVar(op->getLHS());
    else if (auto *op = dyn_cast<UnaryOperator>(stmt);
             op && op->isIncrementDecrementOp())
      addVar(op->getSubExpr());
    else if (auto *call = dyn_cast<CXXOperatorCallExpr>(stmt);
             call && call->isAssignmentOp())
      addVar(call->getArg(0)); // Assigning an array, vector or matrix.
    else if (auto *call = dyn_cast<CallExpr>(stmt))
      for (const Expr *arg : inoutArguments(call))
        addVar(arg);
    if (isa<ReturnStmt>(stmt)) {
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
      if (isa<DecompositionDecl>(d)) {
        mb.error(d->getLocation(),
                 "structured bindings are not supported in kernel code; copy "
                 "the value into a variable and read its fields (Particle p "
                 "= ps[i]; float m = p.mass;)");
        return mlir::failure();
      }
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
    return emitIf(*cond, {ifStmt->getThen()}, elseStmts, ifStmt->getBeginLoc());
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
                             "code; use if/else, loops with break and "
                             "continue, or return");
  if (isa<CXXTryStmt>(stmt))
    return unsupported(stmt, "exceptions (try/catch) are not supported in "
                             "kernel code; check for errors with if and "
                             "report them through an output array");
  if (isa<CXXForRangeStmt>(stmt))
    return unsupported(stmt, "range-based for loops are not supported; use "
                             "a counted for loop");
  if (isa<AsmStmt>(stmt))
    return unsupported(stmt, "inline assembly is not supported in kernel "
                             "code; write the computation in C++");
  return unsupported(stmt, llvm::Twine("'") + stmt->getStmtClassName() +
                               "' statements are not supported in kernel "
                               "code");
}

mlir::LogicalResult FunctionBuilder::emitDecl(const VarDecl *var) {
  // `static constexpr` locals are constants, folded where they are used.
  if (var->isStaticLocal() && var->getType()->isArithmeticType() &&
      (var->isConstexpr() ||
       (var->getType().isConstQualified() && var->hasConstantInitialization())))
    return mlir::success();
  if (var->hasExternalStorage())
    return mb.error(var->getLocation(),
                    "extern declarations are not supported in kernel code; "
                    "pass the value as a kernel argument"),
           mlir::failure();
  if (var->hasGlobalStorage())
    return mb.error(var->getLocation(),
                    var->getTLSKind() != VarDecl::TLS_None
                        ? "thread_local variables are not supported in "
                          "kernel code; use a local variable"
                        : "static local variables are not supported in "
                          "kernel code; use a local variable, a constexpr "
                          "constant, or an array<T> argument to keep state"),
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

mlir::LogicalResult FunctionBuilder::emitIf(
    mlir::Value cond, llvm::ArrayRef<const Stmt *> thenStmts,
    llvm::ArrayRef<const Stmt *> elseStmts, SourceLocation at) {
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
  auto ifOp = mlir::scf::IfOp::create(b, loc, types, cond,
                                      !elseStmts.empty() || !carried.empty());
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
