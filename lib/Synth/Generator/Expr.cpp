//===- Expr.cpp - Random typed expressions --------------------------------===//
//
// Part of ksc. The expression grammar of the kernel generator: random trees
// of a requested type over the variables, arrays and functions in scope,
// with a bound on the magnitude of every value (see GeneratorImpl.h).
//
//===----------------------------------------------------------------------===//

#include "Impl.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace ksc::synth;
using namespace ksc::synth::detail;

/// The largest magnitude an operand may have before it is squashed.
static constexpr double kMaxMag = 1e6;
/// Assumed magnitude of tid() and shapes.
static constexpr double kIndexMag = 1e6;

static Expr atom(std::string text, double mag, bool active = false) {
  Expr e;
  e.text = std::move(text);
  e.prec = PPrimary;
  e.mag = mag;
  e.active = active;
  return e;
}

Expr Builder::paren(const Expr &e, int minPrec) const {
  if (e.prec >= minPrec)
    return e;
  Expr r = e;
  r.text = "(" + e.text + ")";
  r.prec = PPrimary;
  return r;
}

Expr Builder::binary(const Expr &a, llvm::StringRef op, const Expr &b,
                     int prec) const {
  Expr l = paren(a, prec);
  Expr r = paren(b, prec + 1);
  Expr e;
  e.text = l.text + " " + op.str() + " " + r.text;
  e.prec = prec;
  e.active = a.active || b.active;
  e.mag = std::max(a.mag, b.mag);
  return e;
}

/// Whether `e` is built from number literals only (`7`, `-0.27f`, `9 - 2`,
/// `tanh(2.0f)`, `vec3(1.5f)`): no name in it but those of functions and
/// types called, and the suffixes and exponents of literals.
static bool isConstant(const Expr &e) {
  llvm::StringRef t = e.text;
  for (size_t k = 0; k < t.size(); ++k) {
    if (!(llvm::isAlpha(t[k]) || t[k] == '_') ||
        (k && (llvm::isDigit(t[k - 1]) || t[k - 1] == '.')))
      continue;
    size_t end = k;
    while (end < t.size() && (llvm::isAlnum(t[end]) || t[end] == '_'))
      ++end;
    if (end == t.size() || (t[end] != '(' && t[end] != '<'))
      return false;
    k = end - 1;
  }
  return true;
}

Expr Builder::differentFrom(const Expr &other, llvm::function_ref<Expr()> gen,
                            bool notConstant) {
  Expr e = gen();
  for (int tries = 0; tries < 5; ++tries) {
    if (e.text != other.text && !(notConstant && isConstant(e)))
      break;
    e = gen();
  }
  return e;
}

/// A vector or matrix times a constant.
static Expr scaled(Builder &b, const Expr &a) {
  Expr e = b.binary(a, "*", atom(b.smallRealLit(Ty::Float), 4), PMul);
  e.mag = a.mag * 4;
  return e;
}

Expr Builder::differentOrLiteral(const Expr &other,
                                 llvm::function_ref<Expr()> gen, Ty ty) {
  Expr e = differentFrom(other, gen);
  if (e.text != other.text)
    return e;
  if (isVec(ty) || isMat(ty))
    return scaled(*this, other);
  if (!(ty == Ty::Int || isReal(ty)))
    return e;
  if (ty == Ty::Int) {
    int v = rng.range(1, 9);
    return atom(intLit(v), v);
  }
  return atom(smallRealLit(ty), 4);
}

Expr Builder::call(llvm::StringRef fn, llvm::ArrayRef<Expr> args,
                   double mag) const {
  // A builtin (a row of include/ksc/Frontend/Builtins.def), a type or a
  // function of the kernel.
  assert(used.contains(fn) && "a call of an unknown function");
  std::string text = fn.str() + "(";
  bool active = false;
  for (size_t k = 0; k < args.size(); ++k) {
    if (k)
      text += ", ";
    text += args[k].text;
    active = active || args[k].active;
  }
  text += ")";
  return atom(text, mag, active);
}

Expr Builder::squash(const Expr &e, Ty ty) {
  if (isVec(ty))
    return call("normalize", {e}, 1);
  if (isMat(ty)) {
    int digits = int(std::ceil(std::log10(std::max(e.mag, 10.0))));
    Expr k = atom("1e-" + std::to_string(digits) + "f", 1);
    Expr r = binary(e, "*", k, PMul);
    r.mag = e.mag / std::pow(10.0, digits);
    return r;
  }
  if (ty == Ty::Int)
    return call("clamp", {e, atom("-64", 64), atom("64", 64)}, 64);
  switch (rng.below(4)) {
  case 0:
    return call("tanh", {e}, 1);
  case 1:
    return call("sin", {e}, 1);
  case 2:
    return call("atan", {e}, 1.6);
  default: {
    Expr one = atom(realLit(ty, 100), 1);
    Expr den = binary(one, "+", call("abs", {e}, e.mag), PAdd);
    Expr r = binary(e, "/", paren(den, PPrimary), PMul);
    r.mag = 1;
    return r;
  }
  }
}

Expr Builder::limit(const Expr &e, Ty ty, double maxMag) {
  if (e.mag <= maxMag)
    return e;
  // A smaller constant rather than `tanh(2.0f)`.
  if (isConstant(e) && isReal(ty) && maxMag >= 1)
    return atom(realLit(ty, rng.range(5, 95)), 1);
  if (isConstant(e) && ty == Ty::Int && maxMag >= 1) {
    int v = rng.range(1, int(std::min(maxMag, 9.0)));
    return atom(intLit(v), v);
  }
  return squash(e, ty);
}

//===----------------------------------------------------------------------===//
// Leaves and arrays
//===----------------------------------------------------------------------===//

std::string Builder::index(const ArrayInfo &a, unsigned dim, bool own) {
  std::string shape = a.name + ".shape(" + std::to_string(dim) + ")";
  if (dim == 0 && !tidName.empty() && (own || rng.chance(75)))
    return tidName;
  // A counter bounded by this very dimension indexes it as it is.
  std::vector<Var *> bound, counters;
  for (auto &scope : scopes)
    for (Var &var : scope)
      if (var.isCounter) {
        counters.push_back(&var);
        if (var.boundArray == a.name && var.boundDim == dim)
          bound.push_back(&var);
      }
  if (!bound.empty() && rng.chance(85))
    return rng.pick(llvm::ArrayRef<Var *>(bound))->name;
  if (!counters.empty() && rng.chance(60)) {
    Var *c = rng.pick(llvm::ArrayRef<Var *>(counters));
    return "min(" + c->name + ", " + shape + " - 1)";
  }
  if (rng.chance(30))
    return "0";
  Expr k = intExpr(1);
  return "clamp(" + k.text + ", 0, " + shape + " - 1)";
}

std::string Builder::access(const ArrayInfo &a, bool own) {
  std::vector<std::string> idx;
  for (unsigned d = 0; d < a.rank; ++d)
    idx.push_back(index(a, d, own));
  if (a.rank == 1)
    return a.name + "[" + idx[0] + "]";
  if (rng.chance(25)) {
    std::string text = a.name;
    for (auto &s : idx)
      text += "[" + s + "]";
    return text;
  }
  std::string text = a.name + "(";
  for (size_t d = 0; d < idx.size(); ++d)
    text += (d ? ", " : "") + idx[d];
  return text + ")";
}

Expr Builder::arrayRead(const ArrayInfo &a) {
  bool own = !a.isConst;
  bool active = a.elem != Ty::Int && a.elem != Ty::Bool;
  return atom(access(a, own), 4, active);
}

/// Arrays whose elements of type `ty` may be read here.
static std::vector<const ArrayInfo *> readableArrays(Builder &b, Ty ty) {
  std::vector<const ArrayInfo *> result;
  for (const ArrayInfo &a : b.arrays) {
    if (a.elem != ty || a.atomicOnly)
      continue;
    if (!a.isConst && (b.loopLevel > 0 || b.tidName.empty()))
      continue;
    result.push_back(&a);
  }
  return result;
}

Expr Builder::leaf(Ty ty) {
  std::vector<Var *> vars = visible(ty, /*forReading=*/true);
  std::vector<const ArrayInfo *> arrs = readableArrays(*this, ty);
  unsigned roll = rng.below(100);
  if (!vars.empty() && (roll < 50 || arrs.empty())) {
    Var *v = rng.pick(llvm::ArrayRef<Var *>(vars));
    if (roll < 45 || arrs.empty() || ty == Ty::Int || ty == Ty::Bool)
      return atom(v->name, v->mag, v->active);
  }
  if (!arrs.empty() && roll < 85) {
    const ArrayInfo *a = rng.pick(llvm::ArrayRef<const ArrayInfo *>(arrs));
    Expr e = arrayRead(*a);
    e.mag = a->isConst ? 4 : a->mag;
    return e;
  }
  switch (ty) {
  case Ty::Float:
  case Ty::Double: {
    std::string lit = smallRealLit(ty);
    return atom(lit, 4);
  }
  case Ty::Int: {
    if (!arrays.empty() && rng.chance(30)) {
      const ArrayInfo &a = rng.pick(llvm::ArrayRef<ArrayInfo>(arrays));
      unsigned d = rng.below(a.rank);
      return atom(a.name + ".shape(" + std::to_string(d) + ")", kIndexMag);
    }
    int v = rng.range(1, 9);
    return atom(intLit(v), v);
  }
  case Ty::Bool:
    return boolExpr(1);
  default:
    break;
  }
  if (isVec(ty)) {
    unsigned n = dimOf(ty);
    if (rng.chance(40)) {
      Expr s = leaf(Ty::Float);
      return call(tyName(ty), {s}, s.mag);
    }
    std::vector<Expr> comps;
    double mag = 0;
    for (unsigned k = 0; k < n; ++k) {
      Expr c =
          rng.chance(50) ? leaf(Ty::Float) : atom(smallRealLit(Ty::Float), 4);
      mag = std::max(mag, c.mag);
      comps.push_back(c);
    }
    return call(tyName(ty), comps, mag);
  }
  // Matrices.
  unsigned n = dimOf(ty);
  unsigned pick = rng.below(3);
  if (pick == 0)
    return atom("identity<" + tyName(ty).str() + ">()", 1);
  Ty v = vecOfDim(n);
  if (pick == 1) {
    Expr d = leaf(v);
    return call("diag", {d}, d.mag);
  }
  Expr a = leaf(v);
  Expr b = leaf(v);
  return call("outer", {a, b}, a.mag * b.mag);
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Expr Builder::intExpr(unsigned depth) {
  if (depth == 0 || rng.chance(35))
    return leaf(Ty::Int);
  unsigned pick = rng.below(feat.casts ? 7 : 6);
  switch (pick) {
  case 0:
  case 1: {
    Expr a = intExpr(depth - 1);
    auto gen = [&] { return intExpr(depth - 1); };
    Expr b = isConstant(a) ? differentFrom(a, gen, /*notConstant=*/true)
                           : differentOrLiteral(a, gen);
    if (a.mag + b.mag > 1e8 || (isConstant(a) && isConstant(b)))
      return a;
    Expr e = binary(a, rng.chance(60) ? "+" : "-", b, PAdd);
    e.mag = a.mag + b.mag;
    return e;
  }
  case 2: {
    Expr a = intExpr(depth - 1);
    Expr b = isConstant(a) ? differentFrom(
                                 a, [&] { return intExpr(depth - 1); },
                                 /*notConstant=*/true)
                           : intExpr(depth - 1);
    if (a.mag * b.mag > 1e8 || (isConstant(a) && isConstant(b)))
      return a;
    Expr e = binary(a, "*", b, PMul);
    e.mag = a.mag * b.mag;
    return e;
  }
  case 3: {
    Expr a = differentFrom(
        Expr{}, [&] { return intExpr(depth - 1); },
        /*notConstant=*/true);
    if (isConstant(a))
      return a; // not `2 / 2`
    int c = rng.range(2, 7);
    Expr e = binary(a, rng.chance(50) ? "/" : "%", atom(intLit(c), c), PMul);
    e.mag = a.mag;
    return e;
  }
  case 4: {
    // Of a value, not of constants only (`min(1, 3)`).
    Expr a = differentFrom(
        Expr{}, [&] { return intExpr(depth - 1); },
        /*notConstant=*/true);
    Expr b = differentOrLiteral(a, [&] { return intExpr(depth - 1); });
    return call(rng.chance(50) ? "min" : "max", {a, b}, std::max(a.mag, b.mag));
  }
  case 5: {
    Expr a = differentFrom(
        Expr{}, [&] { return intExpr(depth - 1); },
        /*notConstant=*/true);
    int hi = rng.range(2, 16);
    return call("clamp", {a, atom("0", 0), atom(intLit(hi), hi)}, hi);
  }
  default: {
    Expr x = differentFrom(
        Expr{}, [&] { return expr(real, depth - 1); },
        /*notConstant=*/true);
    if (isConstant(x))
      return leaf(Ty::Int);
    x = limit(x, real, kMaxMag);
    return call("int", {x}, x.mag + 1);
  }
  }
}

Expr Builder::boolExpr(unsigned depth) {
  std::vector<Var *> vars = visible(Ty::Bool, true);
  unsigned pick = rng.below(10);
  if (!vars.empty() && pick == 0)
    return atom(rng.pick(llvm::ArrayRef<Var *>(vars))->name, 1);
  if (depth >= 2 && pick <= 2) {
    Expr a = boolExpr(depth - 1);
    Expr b = differentFrom(a, [&] { return boolExpr(depth - 1); });
    return binary(paren(a, PCmp), rng.chance(50) ? "&&" : "||", paren(b, PCmp),
                  PCmp - 1);
  }
  static const char *const ops[] = {"<", ">", "<=", ">="};
  const char *op = rng.pick(llvm::ArrayRef<const char *>(ops));
  Ty ty = (feat.ints && rng.chance(25)) ? Ty::Int : real;
  unsigned sub = depth ? depth - 1 : 0;
  // Not two constants (`7 <= 1`, `9 - 2 > 2`), nor a value against itself.
  Expr a = differentFrom(
      Expr(), [&] { return ty == Ty::Int ? intExpr(sub) : expr(real, sub); },
      /*notConstant=*/true);
  if (ty == Ty::Int && isConstant(a)) {
    // No int variable in sight (a function's body).
    ty = real;
    a = differentFrom(
        Expr(), [&] { return expr(real, sub); }, /*notConstant=*/true);
  }
  Expr b = ty == Ty::Int    ? atom(intLit(rng.range(0, 5)), 5)
           : rng.chance(60) ? atom(realLit(real, rng.range(-200, 200)), 2)
                            : differentFrom(a, [&] { return expr(real, sub); },
                                            isConstant(a));
  Expr e = binary(paren(a, PAdd), op, paren(b, PAdd), PCmp);
  e.active = false;
  if (pick == 9) {
    Expr n = paren(e, PPrimary);
    n.text = "!" + n.text;
    n.prec = PUnary;
    return n;
  }
  return e;
}

Expr Builder::mathCall(Ty ty, unsigned depth) {
  unsigned sub = depth ? depth - 1 : 0;
  // Of a value, not of a constant (`sin(0.9f)`).
  Expr a = differentFrom(
      Expr{}, [&] { return expr(ty, sub); },
      /*notConstant=*/true);
  if (isConstant(a))
    return a;
  Expr one = atom(realLit(ty, 100), 1);
  switch (rng.below(22)) {
  case 0:
    return call("sin", {a}, 1);
  case 1:
    return call("cos", {a}, 1);
  case 2:
    return call("tanh", {a}, 1);
  case 3:
    return call("atan", {a}, 1.6);
  case 4: {
    // exp of something bounded.
    if (rng.chance(50)) {
      Expr n = call("abs", {a}, a.mag);
      n.text = "-" + n.text;
      n.prec = PUnary;
      return call("exp", {n}, 1);
    }
    int c = rng.range(1, 4);
    Expr lo = atom(realLit(ty, -100 * c), c);
    Expr hi = atom(realLit(ty, 100 * c), c);
    return call("exp", {call("clamp", {a, lo, hi}, c)}, std::exp(double(c)));
  }
  case 5: {
    Expr inner = binary(call("abs", {a}, a.mag), "+", one, PAdd);
    return call("sqrt", {inner}, std::sqrt(a.mag + 1));
  }
  case 6: {
    a = limit(a, ty, 1e3);
    Expr sq = binary(a, "*", a, PMul);
    return call("log", {binary(one, "+", sq, PAdd)},
                std::log(1 + a.mag * a.mag) + 1);
  }
  case 7: {
    Expr inner = binary(call("abs", {a}, a.mag), "+", one, PAdd);
    const char *fn =
        rng.chance(50) ? "log" : (rng.chance(50) ? "log2" : "log10");
    return call(fn, {inner}, std::log2(a.mag + 1) + 1);
  }
  case 8: {
    static const int exps[] = {50, 150, 200, 25, 300, 75};
    int p = rng.pick(llvm::ArrayRef<int>(exps));
    a = limit(a, ty, p > 100 ? 100 : 1e3);
    Expr base = binary(call("abs", {a}, a.mag), "+", one, PAdd);
    return call("pow", {base, atom(realLit(ty, p), 1)},
                std::pow(a.mag + 1, p / 100.0));
  }
  case 9:
    return call("abs", {a}, a.mag);
  case 10:
  case 11: {
    Expr b = differentOrLiteral(a, [&] { return expr(ty, sub); }, ty);
    return call(rng.chance(50) ? "min" : "max", {a, b}, std::max(a.mag, b.mag));
  }
  case 12: {
    int c = rng.range(25, 300);
    Expr lo = atom(realLit(ty, -c), 1);
    Expr hi = atom(realLit(ty, c), 1);
    if (rng.chance(30))
      lo = atom(realLit(ty, 0), 0);
    return call("clamp", {a, lo, hi}, c / 100.0);
  }
  case 13: {
    static const char *const fns[] = {"floor", "ceil", "round", "trunc"};
    return call(rng.pick(llvm::ArrayRef<const char *>(fns)), {a}, a.mag + 1);
  }
  case 14: {
    int c = rng.range(50, 300);
    return call("fmod", {a, atom(realLit(ty, c), 3)}, c / 100.0);
  }
  case 15: {
    Expr b = expr(ty, sub);
    Expr t = atom(realLit(ty, rng.range(5, 95)), 1);
    return call("lerp", {a, b, t}, std::max(a.mag, b.mag));
  }
  case 16: {
    int c = rng.range(50, 300);
    return call("smoothstep",
                {atom(realLit(ty, -c), 3), atom(realLit(ty, c), 3), a}, 1);
  }
  case 17:
    return call("erf", {a}, 1);
  case 18: {
    Expr b = expr(ty, sub);
    return call(
        "atan2",
        {a, binary(paren(b, PAdd), "+", atom(realLit(ty, 500), 5), PAdd)}, 3.2);
  }
  case 19: {
    Expr lo = atom(realLit(ty, -90), 1);
    Expr hi = atom(realLit(ty, 90), 1);
    return call(rng.chance(50) ? "asin" : "acos",
                {call("clamp", {a, lo, hi}, 1)}, 3.2);
  }
  case 20: {
    Expr lo = atom(realLit(ty, -300), 3);
    Expr hi = atom(realLit(ty, 300), 3);
    return call(rng.chance(50) ? "cosh" : "sinh",
                {call("clamp", {a, lo, hi}, 3)}, 11);
  }
  default: {
    Expr inner = binary(call("abs", {a}, a.mag), "+", one, PAdd);
    return call("cbrt", {inner}, std::cbrt(a.mag + 1));
  }
  }
}

/// A binary arithmetic node of `ty` with the magnitude rules.
static Expr arith(Builder &b, Ty ty, const Expr &x0, char op, const Expr &y0) {
  Expr x = x0, y = y0;
  if (op == '*') {
    if (x.mag * y.mag > kMaxMag)
      x = b.limit(x, ty, 1);
    if (x.mag * y.mag > kMaxMag)
      y = b.limit(y, ty, 1);
    Expr e = b.binary(x, "*", y, PMul);
    e.mag = x.mag * y.mag;
    return e;
  }
  if (x.mag + y.mag > kMaxMag) {
    x = b.limit(x, ty, 1e3);
    y = b.limit(y, ty, 1e3);
  }
  Expr e = b.binary(x, op == '+' ? "+" : "-", y, PAdd);
  e.mag = x.mag + y.mag;
  return e;
}

Expr Builder::expr(Ty ty, unsigned depth) {
  if (ty == Ty::Int)
    return intExpr(depth);
  if (ty == Ty::Bool)
    return boolExpr(depth);
  if (depth == 0 || rng.chance(20))
    return leaf(ty);
  std::vector<const FuncInfo *> fs;
  for (const FuncInfo &f : funcs)
    if (f.result == ty && !(f.hasLoop && loopLevel > 0))
      fs.push_back(&f);
  if (isReal(ty))
    return realExpr(ty, depth, fs);
  if (isVec(ty))
    return vecExpr(ty, depth, fs);
  return matExpr(ty, depth);
}

Expr Builder::realExpr(Ty ty, unsigned depth,
                       llvm::ArrayRef<const FuncInfo *> fs) {
  unsigned sub = depth - 1;
  // Weights of: + -, *, guarded /, unary -, math, ?:, int cast, real cast,
  // vector, matrix, call.
  unsigned w[11] = {30,
                    22,
                    8,
                    3,
                    feat.math ? 30u : 4u,
                    feat.ternary ? 10u : 0u,
                    feat.casts && feat.ints ? 5u : 0u,
                    feat.casts ? 2u : 0u,
                    feat.vectors ? 16u : 0u,
                    feat.matrices ? 14u : 0u,
                    fs.empty() ? 0u : 25u};
  if (ty != Ty::Float)
    w[8] = w[9] = 0;
  switch (rng.weighted(w)) {
  case 0: {
    // Not `a - a`, nor `0.5f + 0.25f`: a constant folded by hand.
    Expr a = expr(ty, sub);
    auto gen = [&] { return expr(ty, sub); };
    Expr b = isConstant(a) ? differentFrom(a, gen, /*notConstant=*/true)
                           : differentOrLiteral(a, gen, ty);
    if (isConstant(a) && isConstant(b))
      return a;
    return arith(*this, ty, a, rng.chance(60) ? '+' : '-', b);
  }
  case 1: {
    Expr a = expr(ty, sub);
    Expr b = isConstant(a) ? differentFrom(
                                 a, [&] { return expr(ty, sub); },
                                 /*notConstant=*/true)
                           : expr(ty, sub);
    if (isConstant(a) && isConstant(b))
      return a;
    return arith(*this, ty, a, '*', b);
  }
  case 2:
    return guardedDivision(ty, sub);
  case 3: {
    Expr a = paren(expr(ty, sub), PPrimary);
    a.text = "-" + a.text;
    a.prec = PUnary;
    return a;
  }
  case 4:
    return mathCall(ty, depth);
  case 5:
    return conditional(ty, sub);
  case 6: {
    // Conversions of values: `float(2)` reads as a mistake for `2.0f`.
    Expr k = differentFrom(
        Expr{}, [&] { return intExpr(sub); },
        /*notConstant=*/true);
    if (isConstant(k))
      return leaf(ty);
    return call(tyName(ty), {k}, k.mag);
  }
  case 7: {
    Ty other = ty == Ty::Float ? Ty::Double : Ty::Float;
    Expr x = differentFrom(
        Expr{}, [&] { return expr(other, sub); },
        /*notConstant=*/true);
    if (isConstant(x))
      return leaf(ty);
    return call(tyName(ty), {x}, x.mag);
  }
  case 8:
    return vectorReduction(sub);
  case 9:
    return matrixReduction(sub);
  default:
    return funcCall(*rng.pick(fs), depth);
  }
}

Expr Builder::guardedDivision(Ty ty, unsigned sub) {
  // Of values, not of constants (`0.6f / 3.5f`, `1.0f + 0.2f * 0.2f`).
  auto gen = [&] { return expr(ty, sub); };
  Expr a = differentFrom(Expr{}, gen, /*notConstant=*/true);
  Expr b = limit(differentFrom(Expr{}, gen, /*notConstant=*/true), ty, 1e3);
  if (isConstant(a))
    return a;
  Expr one = atom(realLit(ty, 100), 1);
  Expr den;
  unsigned form = isConstant(b) ? 2 : rng.below(3);
  if (form == 0)
    den = binary(one, "+", binary(b, "*", b, PMul), PAdd);
  else if (form == 1)
    den = binary(one, "+", call("abs", {b}, b.mag), PAdd);
  else
    den = atom(realLit(ty, rng.range(3, 8) * 50), 1); // not by 1
  Expr e = binary(a, "/", paren(den, PPrimary), PMul);
  e.mag = a.mag;
  return e;
}

Expr Builder::conditional(Ty ty, unsigned sub) {
  Expr c = boolExpr(sub);
  Expr a = expr(ty, sub);
  Expr b = differentOrLiteral(
      a, [&] { return expr(ty, sub); }, ty);
  Expr e;
  e.text = paren(c, POr).text + " ? " + paren(a, POr).text + " : " +
           paren(b, POr).text;
  e.prec = PTernary;
  e.mag = std::max(a.mag, b.mag);
  e.active = a.active || b.active;
  return e;
}

Expr Builder::vectorReduction(unsigned sub) {
  Ty v = vecOfDim(unsigned(rng.range(2, 4)));
  Expr a = limit(expr(v, sub), v, 1e3);
  unsigned n = dimOf(v);
  switch (rng.below(4)) {
  case 0: {
    Expr b = limit(expr(v, sub), v, 1e3);
    return call("dot", {a, b}, n * a.mag * b.mag);
  }
  case 1:
    return call("length", {a}, 2 * a.mag);
  case 2:
    return call("length_sq", {a}, n * a.mag * a.mag);
  default: {
    static const char *const comps[] = {"x", "y", "z", "w"};
    Expr p = paren(a, PPrimary);
    if (rng.chance(70))
      return atom(p.text + "." + comps[rng.below(n)], a.mag, a.active);
    return atom(p.text + "[" + std::to_string(rng.below(n)) + "]", a.mag,
                a.active);
  }
  }
}

Expr Builder::matrixReduction(unsigned sub) {
  Ty m = matOfDim(unsigned(rng.range(2, 4)));
  unsigned n = dimOf(m);
  Expr a = limit(expr(m, sub), m, 10);
  switch (rng.below(3)) {
  case 0:
    return call("determinant", {a}, 24 * std::pow(a.mag, n));
  case 1:
    return call("trace", {a}, n * a.mag);
  default: {
    Expr p = paren(a, PPrimary);
    unsigned r = rng.below(n);
    unsigned c = rng.below(n);
    if (rng.chance(50))
      return atom(p.text + "[" + std::to_string(r) + "][" +
                      std::to_string(c) + "]",
                  a.mag, a.active);
    return atom(p.text + "(" + std::to_string(r) + ", " + std::to_string(c) +
                    ")",
                a.mag, a.active);
  }
  }
}

/// The vector variables and arrays of vectors `text` reads.
static std::vector<std::string> directVectors(Builder &b,
                                              llvm::StringRef text) {
  std::vector<std::string> names;
  for (auto &scope : b.scopes)
    for (Var &v : scope)
      if (isVec(v.ty) && mentions(text, v.name))
        names.push_back(v.name);
  for (const ArrayInfo &a : b.arrays)
    if (isVec(a.elem) && mentions(text, a.name))
      names.push_back(a.name);
  return names;
}

/// The right-hand sides of the statements so far that assign `name`
/// (`vec3 d = p * 2.5f;`, `d += ...;`, `p.pos = ...;`).
static std::vector<llvm::StringRef> assignmentsOf(Builder &b,
                                                  llvm::StringRef name) {
  std::vector<llvm::StringRef> values;
  for (llvm::StringRef line : b.lines) {
    line = line.ltrim();
    // `T name = ...;` or `name op= ...;`
    size_t space = line.find(' ');
    if (!line.starts_with(name) && space != llvm::StringRef::npos &&
        line.substr(space + 1).starts_with(name))
      line = line.substr(space + 1);
    if (!line.consume_front(name))
      continue;
    line = line.ltrim();
    for (llvm::StringRef op : {"=", "+=", "-=", "*=", "/="})
      if (line.starts_with(op) && !line.starts_with("==")) {
        values.push_back(line.drop_front(op.size()).rtrim(" ;"));
        break;
      }
  }
  return values;
}

/// Adds to `roots` the vectors the value of `name` derives from: for a
/// vector variable assigned from other vectors, those (recursively); else
/// `name` itself (a parameter, an array, a field read from an array, a
/// local made of scalars).
static void addRoots(Builder &b, const std::string &name,
                     std::set<std::string> &seen,
                     std::set<std::string> &roots) {
  if (!seen.insert(name).second)
    return;
  std::vector<llvm::StringRef> values = assignmentsOf(b, name);
  bool fresh = values.empty();
  for (llvm::StringRef value : values) {
    std::vector<std::string> from = directVectors(b, value);
    llvm::erase(from, name);
    fresh = fresh || from.empty();
    for (const std::string &source : from)
      addRoots(b, source, seen, roots);
  }
  if (fresh)
    roots.insert(name);
}

/// The vectors `e` derives from (directVectors, with the locals it reads
/// followed to what they were computed from: `d` of `vec3 d = p * 2.5f;`
/// derives from `p`), sorted.
static std::vector<std::string> vectorRoots(Builder &b, const Expr &e) {
  std::set<std::string> seen, roots;
  for (const std::string &name : directVectors(b, e.text))
    addRoots(b, name, seen, roots);
  return std::vector<std::string>(roots.begin(), roots.end());
}

Expr Builder::vecExpr(Ty ty, unsigned depth,
                      llvm::ArrayRef<const FuncInfo *> fs) {
  unsigned sub = depth - 1;
  unsigned n = dimOf(ty);
  unsigned pick = rng.below(fs.empty() ? 9 : 11);
  switch (pick) {
  case 0:
  case 1: {
    Expr a = expr(ty, sub);
    Expr b = differentFrom(a, [&] { return expr(ty, sub); });
    if (b.text == a.text)
      return scaled(*this, a); // not `a - a`
    return arith(*this, ty, a, rng.chance(60) ? '+' : '-', b);
  }
  case 2:
  case 3: {
    Expr a = expr(ty, sub);
    Expr s = expr(Ty::Float, sub);
    if (a.mag * s.mag > kMaxMag)
      s = limit(s, Ty::Float, 1);
    if (a.mag * s.mag > kMaxMag)
      a = limit(a, ty, 1);
    Expr e =
        rng.chance(70) ? binary(a, "*", s, PMul) : binary(s, "*", a, PMul);
    e.mag = a.mag * s.mag;
    return e;
  }
  case 4:
    return call("normalize", {expr(ty, sub)}, 1);
  case 5: {
    if (n == 3) {
      // Not of two vectors made of one and the same vector (and scalars),
      // directly or through locals computed from it: those are parallel,
      // their cross product is rounding noise, and normalize would make a
      // direction of the noise.
      Expr a = limit(expr(ty, sub), ty, 1e3);
      std::vector<std::string> roots = vectorRoots(*this, a);
      Expr b = limit(expr(ty, sub), ty, 1e3);
      for (int tries = 0;
           tries < 5 && roots.size() == 1 && vectorRoots(*this, b) == roots;
           ++tries)
        b = limit(expr(ty, sub), ty, 1e3);
      if (roots.size() != 1 || vectorRoots(*this, b) != roots)
        return call("cross", {a, b}, 2 * a.mag * b.mag);
      return call("cw_mul", {a, b}, a.mag * b.mag);
    }
    Expr a = expr(ty, sub);
    Expr b = limit(expr(ty, sub), ty, 1e3);
    a = limit(a, ty, 1e3);
    return call("cw_mul", {a, b}, a.mag * b.mag);
  }
  case 6: {
    Ty m = matOfDim(n);
    Expr a = limit(expr(m, sub), m, 1e3);
    Expr v = limit(expr(ty, sub), ty, 1e3);
    Expr e =
        rng.chance(75) ? binary(a, "*", v, PMul) : binary(v, "*", a, PMul);
    e.mag = n * a.mag * v.mag;
    return e;
  }
  case 7: {
    Expr a = paren(expr(ty, sub), PPrimary);
    a.text = "-" + a.text;
    a.prec = PUnary;
    return a;
  }
  case 8: {
    std::vector<Expr> comps;
    double mag = 0;
    for (unsigned k = 0; k < n; ++k) {
      Expr c = expr(Ty::Float, sub > 0 ? sub - 1 : 0);
      mag = std::max(mag, c.mag);
      comps.push_back(c);
    }
    return call(tyName(ty), comps, mag);
  }
  default:
    return funcCall(*rng.pick(fs), depth);
  }
}

Expr Builder::matExpr(Ty ty, unsigned depth) {
  unsigned sub = depth - 1;
  unsigned n = dimOf(ty);
  switch (rng.below(7)) {
  case 0:
  case 1: {
    Expr a = expr(ty, sub);
    Expr b = differentFrom(a, [&] { return expr(ty, sub); });
    if (b.text == a.text)
      return scaled(*this, a); // not `a - a`
    return arith(*this, ty, a, rng.chance(60) ? '+' : '-', b);
  }
  case 2: {
    Expr a = limit(expr(ty, sub), ty, 1e2);
    Expr s = limit(expr(Ty::Float, sub), Ty::Float, 1e2);
    Expr e = binary(a, "*", s, PMul);
    e.mag = a.mag * s.mag;
    return e;
  }
  case 3:
  case 4: {
    Expr a = limit(expr(ty, sub), ty, 1e2);
    Expr b = limit(expr(ty, sub), ty, 1e2);
    Expr e = binary(a, "*", b, PMul);
    e.mag = n * a.mag * b.mag;
    return e;
  }
  case 5: {
    Expr a = expr(ty, sub);
    return call("transpose", {a}, a.mag);
  }
  default: {
    Ty v = vecOfDim(n);
    Expr a = limit(expr(v, sub), v, 1e3);
    Expr b = limit(expr(v, sub), v, 1e3);
    return call("outer", {a, b}, a.mag * b.mag);
  }
  }
}

Expr Builder::funcCall(const FuncInfo &f, unsigned depth) {
  std::vector<Expr> args;
  for (Ty p : f.params) {
    Expr a = expr(p, depth ? depth - 1 : 0);
    if (p != Ty::Int && p != Ty::Bool)
      a = limit(a, p, f.argMag);
    else if (p == Ty::Int)
      a = call("clamp", {a, atom("0", 0), atom("8", 8)}, 8);
    args.push_back(a);
  }
  return call(f.name + f.explicitArgs, args, f.resultMag);
}

Expr Builder::activeExpr(Ty ty, unsigned depth) {
  for (unsigned attempt = 0; attempt < 2; ++attempt) {
    Expr e = expr(ty, depth);
    if (e.active)
      return e;
  }
  // Combine with an active source converted to `ty`.
  std::vector<std::pair<Expr, Ty>> typed;
  for (auto &scope : scopes)
    for (Var &var : scope)
      if (var.active && !var.hidden)
        typed.push_back({atom(var.name, var.mag, true), var.ty});
  for (const ArrayInfo &a : arrays)
    if (a.isConst && a.elem != Ty::Int && a.elem != Ty::Bool &&
        !tidName.empty()) {
      Expr r = arrayRead(a);
      typed.push_back({r, a.elem});
    }
  Expr base = expr(ty, depth ? depth - 1 : 0);
  if (typed.empty())
    return base;
  auto [src, sty] = typed[rng.below(typed.size())];
  Expr conv = src;
  if (sty != ty) {
    // First to a float scalar, then to `ty`.
    Expr s = src;
    if (isVec(sty))
      s = atom(src.text + ".x", src.mag, true);
    else if (isMat(sty))
      s = call("trace", {src}, dimOf(sty) * src.mag);
    else if (sty != Ty::Float)
      s = call("float", {src}, src.mag);
    s.active = true;
    if (ty == Ty::Float)
      conv = s;
    else if (ty == Ty::Double)
      conv = call("double", {s}, s.mag);
    else if (isVec(ty))
      conv = call(tyName(ty), {s}, s.mag);
    else if (isMat(ty))
      conv =
          call("diag", {call(tyName(vecOfDim(dimOf(ty))), {s}, s.mag)}, s.mag);
    else
      conv = s;
  }
  conv.active = true;
  conv = limit(conv, ty, 1e3);
  base = limit(base, ty, 1e3);
  if (base.text == conv.text)
    return conv; // not `x[i] - x[i]`
  return arith(*this, ty, conv, rng.chance(70) ? '+' : '-', base);
}
