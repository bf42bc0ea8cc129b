//===- Stmt.cpp - Random statements ---------------------------------------===//
//
// Part of ksc. The statement grammar of the kernel generator: declarations,
// assignments, compound assignments, stores, if/else chains, counted loops,
// while and do-while loops with break and continue, nested blocks.
//
//===----------------------------------------------------------------------===//

#include "Impl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cassert>

using namespace ksc::synth;
using namespace ksc::synth::detail;

/// The factor by which a loop may multiply an accumulated magnitude.
static constexpr double kTripMag = 1e3;

/// An expression depth for a statement at control depth `depth`.
static unsigned exprDepth(Builder &b, unsigned depth) {
  unsigned most = b.opts.maxDepth;
  if (depth > 0 && most > 1)
    --most;
  return unsigned(b.rng.range(1, int(most)));
}

void Builder::block(unsigned depth, unsigned count) {
  for (unsigned k = 0; k < count; ++k)
    statement(depth);
}

void Builder::statement(unsigned depth) {
  bool nest = depth < opts.maxDepth;
  bool hasOutputs = false;
  for (const ArrayInfo &a : arrays)
    if (!a.isConst && !a.atomicOnly && !tidName.empty())
      hasOutputs = true;
  unsigned w[9] = {30,
                   assignableVars().empty() ? 0u : 26u,
                   hasOutputs ? 8u : 0u,
                   feat.ifs && nest ? 14u : 0u,
                   feat.loops && nest && loopLevel < 2 ? 12u : 0u,
                   feat.whiles && nest && loopLevel < 2 ? 9u : 0u,
                   feat.ternary ? 7u : 0u,
                   nest ? 2u : 0u,
                   randState.empty() ? 0u : 12u};
  switch (rng.weighted(w)) {
  case 0:
    return declStmt(depth);
  case 1:
    return assignStmt(depth);
  case 2:
    return storeStmt(depth);
  case 3: {
    unsigned branches = rng.chance(30) ? unsigned(rng.range(2, 3)) : 1;
    return ifStmt(depth, branches, rng.chance(50));
  }
  case 4:
    return forStmt(depth, false);
  case 5:
    return whileStmt(depth, rng.chance(35));
  case 6:
    return ternaryDecl(depth);
  case 8:
    return randomDraw(depth);
  default: {
    line("{");
    ++indent;
    pushScope();
    block(depth + 1, blockSize(depth + 1));
    popScope();
    --indent;
    line("}");
    return;
  }
  }
}

void Builder::declOf(Ty ty, unsigned depth) {
  Expr e = expr(ty, exprDepth(*this, depth));
  std::string name = nameFor(ty);
  line(tyName(ty).str() + " " + name + " = " + e.text + ";");
  declare(name, ty, e.mag, e.active);
}

void Builder::declStmt(unsigned depth) { declOf(randomLocalType(), depth); }

void Builder::ternaryDecl(unsigned depth) {
  Ty ty = randomLocalType();
  if (ty == Ty::Bool)
    ty = real;
  unsigned d = exprDepth(*this, depth);
  Expr c = boolExpr(d);
  Expr a = expr(ty, d > 0 ? d - 1 : 0);
  Expr b = differentOrLiteral(
      a, [&] { return expr(ty, d > 0 ? d - 1 : 0); }, ty);
  std::string name = nameFor(ty);
  line(tyName(ty).str() + " " + name + " = " + paren(c, POr).text + " ? " +
       paren(a, POr).text + " : " + paren(b, POr).text + ";");
  declare(name, ty, std::max(a.mag, b.mag), a.active || b.active);
}

void Builder::assignStmt(unsigned depth) {
  std::vector<Var *> vars = assignableVars();
  if (vars.empty())
    return declStmt(depth);
  Var *v = rng.pick(llvm::ArrayRef<Var *>(vars));
  std::string name = v->name;
  Ty ty = v->ty;
  unsigned d = exprDepth(*this, depth);
  // Read what we need before `v` may move (declarations reallocate scopes).
  if (v->accumulator) {
    // Bounded updates of a variable carried by the loop.
    if (ty == Ty::Bool) {
      Expr b = boolExpr(d);
      line(name + " = " + name + (rng.chance(50) ? " || " : " && ") +
           paren(b, PCmp).text + ";");
      return;
    }
    if (ty == Ty::Int) {
      if (rng.chance(50)) {
        line(rng.chance(50) ? name + "++;" : name + " += 1;");
      } else {
        Expr c = boolExpr(d);
        line(name + " += " + paren(c, POr).text + " ? 1 : 0;");
      }
      findVar(name)->mag += kTripMag;
      return;
    }
    Expr e = limit(expr(ty, d), ty, 1e3);
    unsigned form = isReal(ty) ? rng.below(5) : rng.below(2);
    std::string half = realLit(isReal(ty) ? ty : Ty::Float, 50);
    switch (form) {
    case 0:
      line(name + " += " + e.text + ";");
      break;
    case 1:
      line(name + " -= " + e.text + ";");
      break;
    case 2:
      line(name + " = max(" + name + ", " + e.text + ");");
      break;
    case 3:
      line(name + " = min(" + name + ", " + e.text + ");");
      break;
    default:
      line(name + " = " + name + " * " + half + " + " +
           paren(e, PAdd + 1).text + ";");
      break;
    }
    Var *w = findVar(name);
    w->mag += kTripMag * e.mag;
    w->active = w->active || e.active;
    return;
  }
  if (ty == Ty::Bool) {
    Expr b = differentFrom(Expr{name, PPrimary, 1, false},
                           [&] { return boolExpr(d); });
    if (b.text == name)
      return;
    // Not over a value nothing has read: that write would be dead code.
    if (lastWriteUnread(*v))
      line(name + " = " + name + (rng.chance(50) ? " || " : " && ") +
           paren(b, PCmp).text + ";");
    else
      line(name + " = " + b.text + ";");
    return;
  }
  if (ty == Ty::Int) {
    Expr e = differentOrLiteral(Expr{name, PPrimary, 1, false},
                                [&] { return intExpr(d); });
    unsigned form = rng.below(4);
    Var *w = findVar(name);
    if (form == 0 && lastWriteUnread(*w))
      form = 1;
    if (form == 0) {
      line(name + " = " + e.text + ";");
      w->mag = std::max(w->mag, e.mag);
    } else if (form == 1 && w->mag + e.mag < 1e8) {
      line(name + " += " + e.text + ";");
      w->mag += e.mag;
    } else if (form == 2) {
      line(name + " %= " + intLit(rng.range(2, 9)) + ";");
    } else {
      line(name + (rng.chance(50) ? "++;" : "--;"));
      w->mag += 1;
    }
    return;
  }
  return compoundStmt(depth);
}

void Builder::compoundStmt(unsigned depth) {
  std::vector<Var *> vars;
  for (Var *v : assignableVars())
    if (!v->accumulator && v->ty != Ty::Bool && v->ty != Ty::Int)
      vars.push_back(v);
  if (vars.empty())
    return declStmt(depth);
  Var *v = rng.pick(llvm::ArrayRef<Var *>(vars));
  std::string name = v->name;
  Ty ty = v->ty;
  double mag = v->mag;
  unsigned d = exprDepth(*this, depth);
  Ty scalarTy = isReal(ty) ? ty : Ty::Float;
  unsigned form = rng.below(6);
  Expr e;
  if (form == 2 && isMat(ty))
    form = 4; // no `m *= s`
  // Not over a value nothing has read: that write would be dead code.
  if (form >= 4 && lastWriteUnread(*v))
    form = 0;
  if (form <= 1) {
    // `x -= x` reads as a mistake.
    e = differentFrom(Expr{name, PPrimary, 1, false},
                      [&] { return expr(ty, d); });
    if (mag + e.mag > 1e6)
      e = limit(e, ty, 1);
    line(name + (form == 0 ? " += " : " -= ") + e.text + ";");
    mag += e.mag;
  } else if (form == 2) {
    e = expr(scalarTy, d);
    if (mag * e.mag > 1e6)
      e = limit(e, scalarTy, 1);
    if (mag * e.mag > 1e6)
      e = Expr{realLit(scalarTy, 50), PPrimary, 1, false};
    line(name + " *= " + e.text + ";");
    mag *= e.mag;
  } else if (form == 3) {
    line(name + " /= " + realLit(scalarTy, rng.range(3, 8) * 50) + ";");
  } else {
    e = differentFrom(Expr{name, PPrimary, 1, false},
                      [&] { return expr(ty, d); });
    if (e.text == name)
      return;
    line(name + " = " + e.text + ";");
    mag = std::max(mag, e.mag);
  }
  Var *w = findVar(name);
  w->mag = mag;
  w->active = w->active || e.active;
}

void Builder::storeStmt(unsigned depth) {
  std::vector<ArrayInfo *> outs;
  for (ArrayInfo &a : arrays)
    if (!a.isConst && !a.atomicOnly)
      outs.push_back(&a);
  if (outs.empty() || tidName.empty())
    return declStmt(depth);
  ArrayInfo *a = rng.pick(llvm::ArrayRef<ArrayInfo *>(outs));
  std::string name = a->name;
  Ty ty = a->elem;
  unsigned d = exprDepth(*this, depth);
  std::string target = access(*a, /*own=*/true);
  bool active = rng.chance(80);
  // Not `out[i] = out[i];`.
  Expr e = differentFrom(Expr{target, PPrimary, 1, false}, [&] {
    return active ? activeExpr(ty, d) : expr(ty, d);
  });
  // In a loop, or after an earlier store that `=` would overwrite.
  bool accumulate = loopLevel > 0 || a->stored || rng.chance(25);
  e = limit(e, ty, 1e3);
  line(target + (accumulate ? " += " : " = ") + e.text + ";");
  for (ArrayInfo &b : arrays)
    if (b.name == name) {
      b.stored = true;
      b.mag = accumulate ? b.mag + kTripMag * e.mag : std::max(b.mag, e.mag);
      if (depth == 0 && loopLevel == 0 && !accumulate)
        b.written = true;
    }
}

void Builder::ifStmt(unsigned depth, unsigned branches, bool forceElse) {
  unsigned d = exprDepth(*this, depth);
  for (unsigned k = 0; k < branches; ++k) {
    Expr c = boolExpr(d);
    line((k == 0 ? std::string("if (") : "} else if (") + c.text + ") {");
    ++indent;
    pushScope();
    block(depth + 1, blockSize(depth + 1));
    popScope();
    --indent;
  }
  if (forceElse || branches > 1) {
    line("} else {");
    ++indent;
    pushScope();
    block(depth + 1, blockSize(depth + 1));
    popScope();
    --indent;
  }
  line("}");
}

std::vector<std::pair<Var *, std::pair<bool, bool>>> Builder::enterLoop() {
  std::vector<std::pair<Var *, std::pair<bool, bool>>> saved;
  ++loopLevel;
  unsigned picked = 0;
  for (auto &scope : scopes)
    for (Var &var : scope) {
      if (var.hidden || var.level >= loopLevel)
        continue;
      // Only variables of the enclosing body accumulate: one from further
      // out is read-only in the enclosing loop, which may read it anywhere.
      bool candidate =
          var.assignable && !var.accumulator && var.level + 1 == loopLevel;
      bool forced = candidate && var.name == hooks.accumulator;
      if (forced || (candidate && picked < 2 && rng.chance(45))) {
        saved.push_back({&var, {var.hidden, var.accumulator}});
        var.hidden = true;
        var.accumulator = true;
        ++picked;
      }
    }
  hooks.accumulator.clear();
  return saved;
}

void Builder::leaveLoop(
    std::vector<std::pair<Var *, std::pair<bool, bool>>> &saved) {
  for (auto &[var, flags] : saved) {
    var->hidden = flags.first;
    var->accumulator = flags.second;
  }
  --loopLevel;
}

void Builder::forStmt(unsigned depth, bool forceShape) {
  static const char *const counters[] = {"j", "k", "r", "c", "s", "m", "t"};
  std::string name = freshName(counters);
  std::vector<const ArrayInfo *> arrs;
  for (const ArrayInfo &a : arrays)
    arrs.push_back(&a);
  std::string boundArray;
  unsigned boundDim = 0;
  std::string header;
  double mag;
  bool down = false;
  // Counting down or with break, the loop becomes an scf.while.
  bool breaks = feat.whiles && rng.chance(25);
  bool shape = !hooks.boundArray.empty() ||
               (!arrs.empty() && (forceShape || rng.chance(55)));
  if (shape) {
    // Prefer the dimensions other than 0 of 2-D arrays: they are short.
    const ArrayInfo *a = rng.pick(llvm::ArrayRef<const ArrayInfo *>(arrs));
    boundDim = a->rank > 1 && rng.chance(75) ? 1 : 0;
    if (!a->isConst && boundDim == 0 && a->rank > 1)
      boundDim = 1;
    if (!hooks.boundArray.empty()) {
      for (const ArrayInfo *x : arrs)
        if (x->name == hooks.boundArray)
          a = x;
      boundDim = hooks.boundDim;
      hooks.boundArray.clear();
    }
    boundArray = a->name;
    std::string bound = a->name + ".shape(" + std::to_string(boundDim) + ")";
    down = !rng.chance(80);
    if (!down)
      header = "for (int " + name + " = 0; " + name + " < " + bound + "; ++" +
               name + ")";
    else
      header = "for (int " + name + " = " + bound + " - 1; " + name +
               " >= 0; --" + name + ")";
    mag = 1e6;
  } else {
    int n = rng.range(2, 8);
    unsigned form = rng.below(4);
    down = form == 0;
    if (down)
      header = "for (int " + name + " = " + intLit(n - 1) + "; " + name +
               " >= 0; " + name + "--)";
    else if (form == 1)
      header = "for (int " + name + " = 0; " + name + " < " + intLit(2 * n) +
               "; " + name + " += 2)";
    else
      header = "for (int " + name + " = 0; " + name + " < " + intLit(n) + "; " +
               name + "++)";
    mag = 2 * n;
  }
  line(header + " {");
  ++indent;
  pushScope();
  Var &c = declare(name, Ty::Int, mag, false);
  c.assignable = false;
  c.isCounter = true;
  c.boundArray = boundArray;
  c.boundDim = boundDim;
  c.level = loopLevel + 1;
  auto hook = std::move(hooks.body);
  hooks.body = nullptr;
  auto saved = enterLoop();
  block(depth + 1, blockSize(depth + 1));
  if (hook)
    hook(depth + 1);
  if (breaks) {
    Expr cond = boolExpr(1);
    line("if (" + cond.text + ") {");
    line(rng.chance(50) ? "  break;" : "  continue;");
    line("}");
  }
  leaveLoop(saved);
  popScope();
  --indent;
  line("}");
}

void Builder::whileStmt(unsigned depth, bool doWhile) {
  static const char *const counters[] = {"iter",  "it",    "step",
                                         "tries", "round", "pass"};
  std::string name = freshName(counters);
  int n = rng.range(3, 12);
  line("int " + name + " = 0;");
  Var &c = declare(name, Ty::Int, n, false);
  c.assignable = false;
  std::string cond = name + " < " + intLit(n);
  // An extra condition on values the loop does not change.
  if (!doWhile && rng.chance(35)) {
    Expr extra = boolExpr(1);
    cond += " && " + paren(extra, PCmp).text;
  }
  line(doWhile ? std::string("do {") : "while (" + cond + ") {");
  ++indent;
  pushScope();
  auto hook = std::move(hooks.body);
  hooks.body = nullptr;
  bool both = hooks.breakAndContinue;
  hooks.breakAndContinue = false;
  auto saved = enterLoop();
  // The counter goes up first, so `continue` cannot skip it.
  line(rng.chance(50) ? "++" + name + ";" : name + "++;");
  unsigned size = blockSize(depth + 1);
  unsigned half = size / 2;
  block(depth + 1, half);
  bool withContinue = both || rng.chance(70);
  if (withContinue) {
    Expr k = boolExpr(1);
    line("if (" + k.text + ") {");
    line("  continue;");
    line("}");
  }
  block(depth + 1, size - half);
  if (hook)
    hook(depth + 1);
  if (both || !withContinue || rng.chance(70)) {
    Expr k = boolExpr(1);
    line("if (" + k.text + ") {");
    line("  break;");
    line("}");
  }
  leaveLoop(saved);
  popScope();
  --indent;
  line(doWhile ? "} while (" + cond + ");" : std::string("}"));
}

//===----------------------------------------------------------------------===//
// Unread locals
//===----------------------------------------------------------------------===//

static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// Whether `text` names `name` as a variable: a whole identifier, not a
/// member (`v.w` for a local `w`) nor part of a literal (`2.0f` for `f`).
bool detail::mentions(llvm::StringRef text, llvm::StringRef name) {
  for (size_t at = text.find(name); at != llvm::StringRef::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || (!isIdentChar(text[at - 1]) && text[at - 1] != '.')) &&
        (end == text.size() || !isIdentChar(text[end])))
      return true;
  }
  return false;
}

/// Whether the statement only assigns to `name` or a component of it
/// (`name = ...;`, `name.x += ...;`, `name++;`): it may read `name`, but
/// only to update `name`.
static bool onlyAssigns(llvm::StringRef statement, llvm::StringRef name) {
  if (statement == ("++" + name + ";").str() ||
      statement == ("--" + name + ";").str() ||
      statement == (name + "++;").str() || statement == (name + "--;").str())
    return true;
  if (!statement.consume_front(name) || !statement.ends_with(";"))
    return false;
  if (statement.consume_front("."))
    statement = statement.drop_while(isIdentChar);
  return llvm::any_of(
      llvm::ArrayRef<llvm::StringRef>{" = ",
                                      " += ", " -= ", " *= ", " /= ", " %= "},
      [&](llvm::StringRef op) { return statement.starts_with(op); });
}

bool Builder::lastWriteUnread(const Var &var) const {
  for (size_t k = lines.size(); k > var.firstLine; --k) {
    llvm::StringRef statement = llvm::StringRef(lines[k - 1]).trim();
    if (mentions(statement, var.name))
      return onlyAssigns(statement, var.name);
  }
  // Its declaration is the last write.
  return true;
}

bool Builder::isRead(const Var &var) const {
  for (size_t k = var.firstLine; k < lines.size(); ++k) {
    llvm::StringRef statement = llvm::StringRef(lines[k]).trim();
    if (mentions(statement, var.name) && !onlyAssigns(statement, var.name))
      return true;
  }
  return false;
}

Expr Builder::asReal(const Var &var, Ty ty) {
  Expr e{var.name, PPrimary, var.mag, var.active};
  if (var.ty == Ty::Bool) {
    e.text = "(" + var.name + " ? " + realLit(ty, 100) + " : " +
             realLit(ty, 0) + ")";
    e.mag = 1;
    return e;
  }
  Ty from = var.ty;
  if (isVec(var.ty)) {
    e.text += ".x";
    from = Ty::Float;
  } else if (isMat(var.ty)) {
    e.text = "trace(" + var.name + ")";
    e.mag *= 4;
    from = Ty::Float;
  }
  if (from != ty)
    e.text = tyName(ty).str() + "(" + e.text + ")";
  return e;
}

/// What `var` adds to an element of `a` (of a real, vector or matrix
/// type): `var` itself when it has the element's type, else a real made of
/// it (asReal), as a vector (`vec3(float(n))`) or a multiple of the
/// identity matrix.
static Expr addendFor(Builder &b, const Var &var, const ArrayInfo &a) {
  if (isReal(a.elem))
    return b.limit(b.asReal(var, a.elem), a.elem, 1e3);
  if (var.ty == a.elem)
    return Expr{var.name, PPrimary, var.mag, var.active};
  Expr e = b.limit(b.asReal(var, Ty::Float), Ty::Float, 1e3);
  if (isVec(a.elem)) {
    e.text = tyName(a.elem).str() + "(" + e.text + ")";
    e.prec = PPrimary;
    return e;
  }
  assert(isMat(a.elem) && "not an output of real, vector or matrix type");
  return b.binary(Expr{"identity<" + tyName(a.elem).str() + ">()", PPrimary,
                       1, false},
                  "*", e, PMul);
}

void Builder::readUnread(std::vector<Var> &scope) {
  std::vector<const Var *> unread;
  for (const Var &var : scope)
    if (var.assignable && !isRead(var))
      unread.push_back(&var);
  if (unread.empty())
    return;
  std::vector<ArrayInfo *> outs;
  if (!tidName.empty())
    for (ArrayInfo &a : arrays)
      if (!a.isConst && !a.atomicOnly && a.elem != Ty::Int &&
          a.elem != Ty::Bool)
        outs.push_back(&a);
  // Without such an output (device functions, histograms): real locals of
  // enclosing blocks that may be assigned here.
  std::vector<Var *> outer;
  if (outs.empty())
    for (Var *var : assignableVars())
      if (isReal(var->ty) &&
          llvm::none_of(scope, [&](const Var &v) { return &v == var; }))
        outer.push_back(var);
  if (outs.empty() && outer.empty())
    return;
  // A jump that ends the block stays last: nothing after it would run.
  std::optional<std::string> jump;
  llvm::StringRef last = llvm::StringRef(lines.back()).trim();
  if (last == "break;" || last == "continue;" || last.starts_with("return")) {
    jump = lines.back();
    lines.pop_back();
  }
  for (const Var *var : unread) {
    // Added up once per iteration when in a loop.
    double times = loopLevel > 0 || var->level > loopLevel ? kTripMag : 1;
    if (outs.empty()) {
      Var *to = rng.pick(llvm::ArrayRef<Var *>(outer));
      Expr e = limit(asReal(*var, to->ty), to->ty, 1);
      line(to->name + " += " + e.text + ";");
      to->mag += times * e.mag;
      continue;
    }
    // What it adds to each output (drawing for each), then one of them.
    std::vector<Expr> addends;
    for (ArrayInfo *a : outs)
      addends.push_back(addendFor(*this, *var, *a));
    unsigned pick = rng.below(unsigned(outs.size()));
    ArrayInfo *a = outs[pick];
    const Expr &e = addends[pick];
    line(access(*a, /*own=*/true) + " += " + e.text + ";");
    a->mag += times * e.mag;
    a->stored = true;
  }
  if (jump)
    lines.push_back(*jump);
}

void Builder::popScope() {
  readUnread(scopes.back());
  scopes.pop_back();
}

void Builder::finishOutputs() {
  for (size_t k = 0; k < arrays.size(); ++k) {
    if (arrays[k].isConst || arrays[k].atomicOnly || arrays[k].written)
      continue;
    std::string name = arrays[k].name;
    Ty ty = arrays[k].elem;
    unsigned d = unsigned(rng.range(1, int(opts.maxDepth)));
    // Adding to what the kernel stored before, instead of overwriting it.
    std::string assign = arrays[k].stored ? " += " : " = ";
    if (arrays[k].rank == 1) {
      std::string target = name + "[" + tidName + "]";
      Expr e = limit(differentFrom(Expr{target, PPrimary, 1, false},
                                   [&] { return activeExpr(ty, d); }),
                     ty, 1e6);
      line(target + assign + e.text + ";");
    } else {
      static const char *const counters[] = {"j", "col", "c", "k"};
      std::string j = freshName(counters);
      line("for (int " + j + " = 0; " + j + " < " + name + ".shape(1); ++" + j +
           ") {");
      ++indent;
      pushScope();
      Var &c = declare(j, Ty::Int, 1e6, false);
      c.assignable = false;
      c.isCounter = true;
      c.boundArray = name;
      c.boundDim = 1;
      c.level = loopLevel + 1;
      ++loopLevel;
      Expr e = limit(activeExpr(ty, d), ty, 1e6);
      line(name + "(" + tidName + ", " + j + ")" + assign + e.text + ";");
      --loopLevel;
      popScope();
      --indent;
      line("}");
    }
    arrays[k].written = true;
  }
}

void Builder::randomDraw(unsigned depth) {
  (void)depth;
  std::string name;
  switch (rng.below(4)) {
  case 0:
    name = nameFor(Ty::Float);
    line("float " + name + " = randf(" + randState + ");");
    declare(name, Ty::Float, 1, false);
    return;
  case 1: {
    name = nameFor(Ty::Float);
    int lo = rng.range(-300, 0);
    int hi = rng.range(50, 300);
    line("float " + name + " = randf(" + randState + ", " +
         realLit(Ty::Float, lo) + ", " + realLit(Ty::Float, hi) + ");");
    declare(name, Ty::Float, 3, false);
    return;
  }
  case 2:
    name = nameFor(Ty::Float);
    line("float " + name + " = randn(" + randState + ");");
    declare(name, Ty::Float, 8, false);
    return;
  default: {
    name = nameFor(Ty::Int);
    int hi = rng.range(2, 9);
    line("int " + name + " = randi(" + randState + ", 0, " + intLit(hi) + ");");
    declare(name, Ty::Int, hi, false);
    return;
  }
  }
}
