//===- Categories.cpp - One generator per category ------------------------===//
//
// Part of ksc. The category generators (the struct one in
// GeneratorStructs.cpp) of ksc-synth and the public API of
// Generator.h. Each generator chooses the kernel's arguments and the
// constructs the grammar may draw, emits its category's construct at least
// once between random statements, and lets the builder write the outputs.
//
//===----------------------------------------------------------------------===//

#include "Kernel.h"

#include <algorithm>
#include <iterator>

using namespace ksc::synth;
using namespace ksc::synth::detail;

std::string detail::declareActive(Draft &d, Ty ty, unsigned depth) {
  Expr e = d.b.limit(d.b.activeExpr(ty, depth), ty, 1e3);
  std::string name = d.b.nameFor(ty);
  d.b.line(tyName(ty).str() + " " + name + " = " + e.text + ";");
  d.b.declare(name, ty, e.mag, e.active);
  return name;
}

unsigned detail::depthOf(Draft &d) {
  return unsigned(d.rng.range(1, int(d.b.opts.maxDepth)));
}

void detail::chooseReal(Draft &d) {
  d.b.real = d.rng.chance(20) ? Ty::Double : Ty::Float;
}

void detail::storeVar(Draft &d, const std::string &name, Ty ty) {
  for (ArrayInfo &a : d.b.arrays) {
    if (a.isConst || a.atomicOnly || a.elem != ty || a.rank != 1 || a.written)
      continue;
    Expr rest = d.b.limit(d.b.expr(ty, depthOf(d)), ty, 1e3);
    Var *v = d.b.findVar(name);
    std::string text = name;
    if (v && v->mag > 1e3)
      text = d.b.squash(Expr{name, PPrimary, v->mag, true}, ty).text;
    std::string op = d.rng.chance(50) ? " + " : " * ";
    if (op == " * " && (rest.mag > 1e3 || !isReal(ty)))
      op = " + ";
    d.b.line(a.name + "[" + d.b.tidName + "] = " + text + op +
             d.b.paren(rest, PMul + 1).text + ";");
    a.written = true;
    return;
  }
}

void detail::useScalars(Draft &d,
                        llvm::ArrayRef<std::pair<std::string, Ty>> params) {
  Builder &b = d.b;
  std::string acc = declareActive(d, b.real, 1);
  for (auto &[name, ty] : params) {
    Expr e = b.limit(b.expr(b.real, depthOf(d)), b.real, 1e3);
    if (ty == Ty::Int) {
      std::string k = b.freshName({"k", "j", "s"});
      b.line("for (int " + k + " = 0; " + k + " < min(" + name + ", " +
             std::to_string(d.rng.range(2, 8)) + "); ++" + k + ") {");
      b.line("  " + acc + " += " + e.text + ";");
      b.line("}");
    } else if (ty == Ty::Bool) {
      if (d.rng.chance(50))
        b.line(acc + " = " + name + " ? " + b.paren(e, POr).text + " : " + acc +
               ";");
      else {
        b.line("if (" + name + ") {");
        b.line("  " + acc + " = -" + acc + ";");
        b.line("}");
      }
    } else if (isVec(ty)) {
      static const char *const comps[] = {"x", "y", "z"};
      b.line(acc + " += " + name + "." +
             d.rng.pick(llvm::ArrayRef<const char *>(comps)) + " * " +
             b.paren(e, PMul + 1).text + ";");
    } else {
      std::string p = name;
      if (ty != b.real)
        p = tyName(b.real).str() + "(" + name + ")";
      b.line(acc + " = " + acc + (d.rng.chance(50) ? " * " : " + ") + p + ";");
    }
    b.findVar(acc)->mag = b.findVar(acc)->mag * 8 + 1e3 * e.mag;
  }
  Var *v = b.findVar(acc);
  if (v->mag > 1e3) {
    Expr s = b.squash({acc, PPrimary, v->mag, true}, b.real);
    b.line(acc + " = " + s.text + ";");
    b.findVar(acc)->mag = 1.6;
  }
  storeVar(d, acc, b.real);
}

const char *const detail::kScatterArrays[4] = {"forces", "impulses", "accum",
                                               "deltas"};

/// Declares an int local that is a data-dependent index into `array`:
/// `int bin = clamp(int(key * 3.0f), 0, array.shape(0) - 1);`, the key an
/// active expression; returns its name.
static std::string dataIndex(Draft &d, const std::string &array) {
  Builder &b = d.b;
  Expr key = b.limit(b.activeExpr(Ty::Float, depthOf(d)), Ty::Float, 1e3);
  std::string at = b.nameFor(Ty::Int);
  int scale = d.rng.range(1, 8);
  b.line("int " + at + " = clamp(int(" + b.paren(key, PMul).text + " * " +
         b.realLit(Ty::Float, scale * 100) + "), 0, " + array +
         ".shape(0) - 1);");
  b.declare(at, Ty::Int, 1e6, false);
  return at;
}

void detail::scatterVector(Draft &d, const std::string &scatter,
                           const std::string &p, Ty v) {
  Builder &b = d.b;
  std::string at = dataIndex(d, scatter);
  const Var *var = b.findVar(p);
  Expr pe{p, PPrimary, var ? var->mag : 1e3, true};
  std::string value = b.limit(pe, v, 1e3).text;
  static const char *const forms[] = {"atomic_min", "atomic_max",
                                      "atomic_add", "atomic_add",
                                      "atomic_sub", "+=",
                                      "+=",         "-="};
  std::string form = forms[d.rng.below(8)];
  if (form[0] == 'a')
    b.line(form + "(" + scatter + ", " + at + ", " + value + ");");
  else
    b.line(scatter + "[" + at + "] " + form + " " + value + ";");
}

namespace {

const char *const kVerbs[] = {"update",    "compute",   "apply",  "scale",
                              "blend",     "smooth",    "advect", "relax",
                              "filter",    "transform", "mix",    "accumulate",
                              "integrate", "project",   "warp",   "eval"};
const char *const kNouns[] = {"velocity", "positions", "sum",      "weights",
                              "forces",   "field",     "density",  "energy",
                              "signal",   "particles", "features", "samples",
                              "values",   "state",     "pressure", "heat"};

GeneratedKernel arithmetic(Draft &d) {
  chooseReal(d);
  d.b.feat.math = false;
  static const char *const verbs[] = {"scale",  "shift", "combine", "axpy",
                                      "affine", "weigh", "mix",     "offset"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 2);
  d.begin();
  around(d, [&] {
    // A cast and a compound assignment.
    Expr k = d.b.intExpr(1);
    std::string t = d.b.nameFor(d.b.real);
    std::string real = tyName(d.b.real).str();
    Expr scale = d.b.activeExpr(d.b.real, depthOf(d));
    scale = d.b.limit(scale, d.b.real, 1e3);
    Expr kk = d.b.limit(k, Ty::Int, 64);
    d.b.line(real + " " + t + " = " + real + "(" + kk.text + ") * " +
             d.b.paren(scale, PMul + 1).text + ";");
    d.b.declare(t, d.b.real, kk.mag * scale.mag, true);
    static const char *const ops[] = {" += ", " -= ", " *= ", " /= "};
    const char *op = d.rng.pick(llvm::ArrayRef<const char *>(ops));
    Expr e = d.b.limit(d.b.expr(d.b.real, depthOf(d)), d.b.real, 4);
    if (llvm::StringRef(op) == " /= ")
      e = Expr{d.b.realLit(d.b.real, d.rng.range(3, 8) * 50), PPrimary, 1,
               false};
    d.b.line(t + op + e.text + ";");
    Var *v = d.b.findVar(t);
    v->mag = v->mag * 4 + 4;
    if (d.rng.chance(50))
      storeVar(d, t, d.b.real);
  });
  return d.finish();
}

GeneratedKernel math(Draft &d) {
  chooseReal(d);
  d.b.feat.math = true;
  d.b.feat.ternary = d.rng.chance(30);
  static const char *const verbs[] = {"activate",  "squash",    "softplus",
                                      "gauss",     "attenuate", "shape",
                                      "normalize", "warp"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 2);
  d.begin();
  around(d, [&] {
    unsigned n = unsigned(d.rng.range(1, 2));
    std::string last;
    for (unsigned k = 0; k < n; ++k) {
      Expr e = d.b.mathCall(d.b.real, depthOf(d) + 1);
      if (!e.active) {
        Expr a = d.b.activeExpr(d.b.real, 1);
        e = d.b.binary(d.b.limit(a, d.b.real, 1e3), "+", e, PAdd);
        e.active = true;
      }
      last = d.b.nameFor(d.b.real);
      d.b.line(tyName(d.b.real).str() + " " + last + " = " + e.text + ";");
      d.b.declare(last, d.b.real, std::min(e.mag, 1e6), true);
    }
    storeVar(d, last, d.b.real);
  });
  return d.finish();
}

GeneratedKernel conditional(Draft &d) {
  chooseReal(d);
  d.b.feat.ifs = true;
  d.b.feat.ternary = true;
  d.b.feat.math = d.rng.chance(40);
  static const char *const verbs[] = {"clip", "select", "threshold", "relu",
                                      "mask", "gate",   "rectify",   "limit"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 2);
  d.begin();
  around(d, [&] {
    bool withElse = d.rng.chance(70);
    bool ternaryFirst = d.rng.chance(50);
    if (ternaryFirst || !withElse)
      d.b.ternaryDecl(0);
    d.b.ifStmt(0, 1, withElse);
    if (!ternaryFirst && d.rng.chance(50))
      d.b.ternaryDecl(0);
  });
  return d.finish();
}

GeneratedKernel multiConditional(Draft &d) {
  chooseReal(d);
  d.b.feat.ifs = true;
  d.b.feat.ternary = d.rng.chance(50);
  d.b.feat.math = d.rng.chance(40);
  static const char *const verbs[] = {"classify", "piecewise", "bucket",
                                      "tier",     "route",     "grade",
                                      "band",     "segment"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 3);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string acc = declareActive(d, b.real, depthOf(d));
    unsigned branches = unsigned(d.rng.range(2, 4));
    unsigned nested = d.rng.below(branches + 1);
    for (unsigned k = 0; k <= branches; ++k) {
      if (k == 0) {
        Expr c = b.boolExpr(depthOf(d));
        b.line("if (" + c.text + ") {");
      } else if (k < branches) {
        Expr c = b.boolExpr(depthOf(d));
        b.line("} else if (" + c.text + ") {");
      } else {
        b.line("} else {");
      }
      ++b.indent;
      b.pushScope();
      if (k == nested) {
        // (One draw a statement: the order of a call's arguments is
        // unspecified.)
        bool forceElse = d.rng.chance(50);
        b.ifStmt(1, unsigned(d.rng.range(1, 2)), forceElse);
      }
      b.block(1, unsigned(d.rng.range(0, 2)));
      Expr e = b.limit(b.differentFrom(Expr{acc, PPrimary, 1, false},
                                       [&] {
                                         return b.expr(b.real, depthOf(d));
                                       }),
                       b.real, 1e3);
      // `acc = e` only over a value something has read.
      bool plain = d.rng.chance(50) && e.text != acc &&
                   !b.lastWriteUnread(*b.findVar(acc));
      b.line(acc + (plain ? " = " : " += ") + e.text + ";");
      b.findVar(acc)->mag += e.mag;
      b.popScope();
      --b.indent;
    }
    b.line("}");
    storeVar(d, acc, b.real);
  });
  return d.finish();
}

/// A for loop that accumulates into a new variable.
void reductionLoop(Draft &d, bool forceShape) {
  Builder &b = d.b;
  std::string acc = b.nameFor(b.real);
  b.line(tyName(b.real).str() + " " + acc + " = " +
         b.realLit(b.real, d.rng.chance(70) ? 0 : 100) + ";");
  b.declare(acc, b.real, 1, false);
  b.hooks.accumulator = acc;
  b.hooks.body = [&d, acc](unsigned depth) {
    Builder &b = d.b;
    Expr e = b.limit(b.activeExpr(b.real, depthOf(d)), b.real, 1e3);
    (void)depth;
    b.line(acc + " += " + e.text + ";");
    Var *v = b.findVar(acc);
    v->mag += 1e3 * e.mag;
    v->active = true;
  };
  b.forStmt(0, forceShape);
  storeVar(d, acc, b.real);
}

GeneratedKernel loop(Draft &d) {
  chooseReal(d);
  d.b.feat.loops = true;
  d.b.feat.ifs = d.rng.chance(30);
  d.b.feat.math = d.rng.chance(40);
  static const char *const verbs[] = {"sum",    "reduce", "convolve", "stencil",
                                      "prefix", "dot",    "average",  "power"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 2);
  d.begin();
  around(d, [&] { reductionLoop(d, d.rng.chance(60)); });
  return d.finish();
}

GeneratedKernel nestedLoop(Draft &d) {
  chooseReal(d);
  d.b.feat.loops = true;
  d.b.feat.math = d.rng.chance(40);
  d.b.feat.ifs = d.rng.chance(20);
  static const char *const verbs[] = {"matvec",    "row_reduce", "gram",
                                      "correlate", "blur",       "pairwise",
                                      "tile",      "bilinear"};
  d.chooseName(verbs, kNouns);
  std::string grid = d.input(d.b.real, 2);
  d.standardIO(2, 2);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string acc = b.nameFor(b.real);
    b.line(tyName(b.real).str() + " " + acc + " = " + b.realLit(b.real, 0) +
           ";");
    b.declare(acc, b.real, 1, false);
    b.hooks.accumulator = acc;
    b.hooks.body = [&d, acc, grid](unsigned depth) {
      Builder &b = d.b;
      b.hooks.accumulator = acc;
      b.hooks.boundArray = grid;
      b.hooks.boundDim = 1;
      b.hooks.body = [&d, acc, grid](unsigned) {
        Builder &b = d.b;
        Expr e = b.limit(b.activeExpr(b.real, depthOf(d)), b.real, 1e3);
        // The 2-D element of this row (or of a clamped other row).
        std::string row = b.tidName;
        for (auto &scope : b.scopes)
          for (Var &v : scope)
            if (v.isCounter && !v.hidden && v.boundArray != grid &&
                d.rng.chance(50))
              row = "min(" + v.name + ", " + grid + ".shape(0) - 1)";
        std::string j;
        for (auto &scope : b.scopes)
          for (Var &v : scope)
            if (v.isCounter && v.boundArray == grid && v.boundDim == 1)
              j = v.name;
        b.line(acc + " += " + grid + "(" + row + ", " + j + ") * " +
               b.paren(e, PMul + 1).text + ";");
        b.findVar(acc)->mag += 1e6 * (e.mag * 4);
        b.findVar(acc)->active = true;
      };
      b.forStmt(depth, true);
    };
    b.forStmt(0, d.rng.chance(50));
    storeVar(d, acc, b.real);
  });
  return d.finish();
}

GeneratedKernel whileLoop(Draft &d) {
  chooseReal(d);
  d.b.feat.whiles = true;
  d.b.feat.ifs = d.rng.chance(30);
  d.b.feat.math = d.rng.chance(40);
  static const char *const verbs[] = {"iterate", "search", "converge",
                                      "bisect",  "refine", "walk",
                                      "settle",  "anneal"};
  d.chooseName(verbs, kNouns);
  d.standardIO(3, 2);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string acc = declareActive(d, b.real, 1);
    b.hooks.accumulator = acc;
    b.hooks.breakAndContinue = true;
    b.hooks.body = [&d, acc](unsigned) {
      Builder &b = d.b;
      Expr e = b.limit(b.activeExpr(b.real, depthOf(d)), b.real, 1e3);
      std::string half = b.realLit(b.real, 50);
      if (d.rng.chance(50))
        b.line(acc + " = " + acc + " * " + half + " + " +
               b.paren(e, PAdd + 1).text + ";");
      else
        b.line(acc + " += " + e.text + ";");
      b.findVar(acc)->mag += 1e3 * e.mag;
    };
    b.whileStmt(0, d.rng.chance(40));
    storeVar(d, acc, b.real);
  });
  return d.finish();
}

GeneratedKernel vector(Draft &d) {
  d.b.feat.vectors = true;
  d.b.feat.math = d.rng.chance(30);
  static const char *const verbs[] = {"integrate", "reflect", "steer",  "shade",
                                      "project",   "advect",  "orient", "push"};
  d.chooseName(verbs, kNouns);
  Ty v = d.rng.chance(70) ? Ty::Vec3 : vecOfDim(unsigned(d.rng.range(2, 4)));
  unsigned nin = unsigned(d.rng.range(1, 2));
  for (unsigned k = 0; k < nin; ++k)
    d.input(v);
  if (d.rng.chance(50))
    d.input(Ty::Float);
  if (d.rng.chance(40))
    d.scalar(v);
  if (d.rng.chance(50))
    d.scalar(Ty::Float);
  d.output(d.rng.chance(50) ? v : Ty::Float);
  if (d.rng.chance(25))
    d.output(Ty::Float);
  // Forces scattered into shared elements, as Warp's force kernels do.
  std::string scatter;
  if (d.rng.chance(35))
    scatter = d.addArray(v, 1, false, kScatterArrays, true);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string p = declareActive(d, v, depthOf(d));
    Expr q = b.limit(b.expr(v, depthOf(d)), v, 1e3);
    std::string s = b.nameFor(Ty::Float);
    Expr pe{p, PPrimary, b.findVar(p)->mag, true};
    pe = b.limit(pe, v, 1e3);
    switch (d.rng.below(4)) {
    case 0:
      b.line("float " + s + " = dot(" + pe.text + ", " + q.text + ");");
      break;
    case 1:
      b.line("float " + s + " = length(" + pe.text + ") + " +
             b.realLit(Ty::Float, 10) + ";");
      break;
    case 2:
      b.line("float " + s + " = dot(normalize(" + pe.text + "), " + q.text +
             ");");
      break;
    default:
      if (v == Ty::Vec3)
        b.line("float " + s + " = length(cross(" + pe.text + ", " + q.text +
               "));");
      else
        b.line("float " + s + " = " + pe.text + ".x * " +
               b.paren(q, PMul + 1).text + ".y;");
      break;
    }
    b.declare(s, Ty::Float, 4 * 1e6, true);
    static const char *const comps[] = {"x", "y", "z", "w"};
    std::string comp = comps[d.rng.below(dimOf(v))];
    b.line(p + "." + comp +
           " += " + b.squash({s, PPrimary, 1e6, true}, Ty::Float).text + ";");
    if (!scatter.empty())
      scatterVector(d, scatter, p, v);
    if (d.rng.chance(50))
      storeVar(d, p, v);
    else
      storeVar(d, s, Ty::Float);
  });
  return d.finish();
}

GeneratedKernel matrix(Draft &d) {
  d.b.feat.vectors = true;
  d.b.feat.matrices = true;
  static const char *const verbs[] = {"rotate", "transform", "deform",
                                      "skin",   "strain",    "covariance",
                                      "solve",  "frame"};
  d.chooseName(verbs, kNouns);
  unsigned n = d.rng.chance(60) ? 3 : unsigned(d.rng.range(2, 4));
  Ty m = matOfDim(n), v = vecOfDim(n);
  if (d.rng.chance(60))
    d.input(m);
  else
    d.scalar(m);
  if (d.rng.chance(60))
    d.input(v);
  else
    d.input(Ty::Float);
  if (d.rng.chance(30))
    d.input(Ty::Float);
  unsigned out = d.rng.below(3);
  d.output(out == 0 ? m : out == 1 ? v : Ty::Float);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string a = declareActive(d, m, depthOf(d));
    Expr ae{a, PPrimary, b.findVar(a)->mag, true};
    ae = b.limit(ae, m, 10);
    Expr other = b.limit(b.expr(m, depthOf(d)), m, 10);
    std::string prod = b.nameFor(m);
    std::string mt = tyName(m).str();
    switch (d.rng.below(3)) {
    case 0:
      b.line(mt + " " + prod + " = " + ae.text + " * " +
             b.paren(other, PMul + 1).text + ";");
      break;
    case 1:
      b.line(mt + " " + prod + " = transpose(" + ae.text + ") * " +
             b.paren(other, PMul + 1).text + ";");
      break;
    default:
      b.line(mt + " " + prod + " = " + ae.text + " * transpose(" + other.text +
             ");");
      break;
    }
    b.declare(prod, m, n * 100.0, true);
    std::string s = b.nameFor(Ty::Float);
    if (d.rng.chance(50))
      b.line("float " + s + " = determinant(" + prod + ");");
    else
      b.line("float " + s + " = trace(" + prod + ") + " + prod + "[0][" +
             std::to_string(d.rng.below(n)) + "];");
    b.declare(s, Ty::Float, 24 * 1e8, true);
    storeVar(d, prod, m);
    storeVar(d, s, Ty::Float);
  });
  return d.finish();
}

GeneratedKernel atomic(Draft &d) {
  d.b.feat.math = d.rng.chance(40);
  d.b.feat.ifs = d.rng.chance(30);
  static const char *const verbs[] = {"histogram", "bin",   "count",  "scatter",
                                      "splat",     "tally", "reduce", "vote"};
  d.chooseName(verbs, kNouns);
  d.standardIO(2, 1);
  static const char *const hists[] = {"hist", "bins",     "totals",
                                      "sums", "grid_sum", "partial"};
  static const char *const counts[] = {"counts", "votes",  "occupancy",
                                       "maxbin", "minbin", "tally"};
  std::string hist;
  if (d.rng.chance(80))
    hist = d.addArray(Ty::Float, 1, false, hists, true);
  std::string cnt;
  if (hist.empty() || d.rng.chance(50))
    cnt = d.addArray(Ty::Int, 1, false, counts, true);
  d.begin();
  around(d, [&] {
    Builder &b = d.b;
    std::string target = hist.empty() ? cnt : hist;
    std::string bin = dataIndex(d, target);
    if (!hist.empty()) {
      Expr w = b.limit(b.activeExpr(Ty::Float, depthOf(d)), Ty::Float, 1e3);
      unsigned form = d.rng.below(10);
      if (form < 3) {
        // The largest (smallest) value per bin: differentiated as the
        // update the element ends with (docs/autodiff.md), so no other
        // update of the array.
        b.line(std::string(form == 0 ? "atomic_min(" : "atomic_max(") + hist +
               ", " + bin + ", " + w.text + ");");
      } else {
        if (form < 7)
          b.line("atomic_add(" + hist + ", " + bin + ", " + w.text + ");");
        else
          b.line(hist + "[" + bin + "] += " + w.text + ";");
        if (d.rng.chance(30))
          b.line("atomic_add(" + hist + ", 0, " +
                 b.realLit(Ty::Float, 100) + ");");
      }
    }
    if (!cnt.empty()) {
      unsigned form = d.rng.below(4);
      std::string cb =
          target == cnt ? bin : "min(" + bin + ", " + cnt + ".shape(0) - 1)";
      if (form == 0)
        b.line("atomic_add(" + cnt + ", " + cb + ", 1);");
      else if (form == 1)
        b.line(cnt + "[" + cb + "] += 1;");
      else {
        Expr k = b.limit(b.intExpr(1), Ty::Int, 64);
        b.line(std::string(form == 2 ? "atomic_max(" : "atomic_min(") + cnt +
               ", " + cb + ", " + k.text + ");");
      }
    }
  });
  return d.finish();
}

GeneratedKernel scalarParam(Draft &d) {
  chooseReal(d);
  d.b.feat.ifs = d.rng.chance(50);
  d.b.feat.ternary = true;
  d.b.feat.math = d.rng.chance(40);
  static const char *const verbs[] = {"configure", "parametrize", "tune",
                                      "adjust",    "calibrate",   "step",
                                      "damp",      "rescale"};
  d.chooseName(verbs, kNouns);
  unsigned nin = unsigned(d.rng.range(1, 2));
  for (unsigned k = 0; k < nin; ++k)
    d.input(d.b.real);
  d.output(d.b.real);
  // Several scalars of different types.
  std::vector<std::pair<std::string, Ty>> params;
  std::vector<Ty> kinds = {d.b.real, Ty::Int, Ty::Bool, Ty::Float, Ty::Double};
  unsigned np = unsigned(d.rng.range(3, 5));
  for (unsigned k = 0; k < np; ++k) {
    Ty ty = k < 3 ? kinds[k] : kinds[d.rng.below(kinds.size())];
    params.push_back({d.scalar(ty), ty});
  }
  d.begin();
  around(d, [&] { useScalars(d, params); });
  return d.finish();
}

GeneratedKernel randomMath(Draft &d) {
  d.b.feat.math = d.rng.chance(40);
  d.b.feat.loops = d.rng.chance(30);
  static const char *const verbs[] = {"jitter", "perturb", "sample", "dropout",
                                      "noise",  "shuffle", "dither", "mc"};
  d.chooseName(verbs, kNouns);
  d.standardIO(2, 1);
  static const char *const seeds[] = {"seed", "rng_seed", "frame", "epoch"};
  std::string seed = d.addScalar(Ty::Int, seeds);
  d.begin();
  static const char *const states[] = {"state", "rng", "s", "st", "gen"};
  std::string st = d.b.freshName(states);
  switch (d.rng.below(3)) {
  case 0:
    d.b.line("uint32_t " + st + " = rand_init(" + seed + ", " + d.b.tidName +
             ");");
    break;
  case 1:
    d.b.line("uint32_t " + st + " = rand_init(" + seed + " + " + d.b.tidName +
             ");");
    break;
  default:
    d.b.line("uint32_t " + st + " = rand_init(" + seed + " * 7 + " +
             d.b.tidName + ");");
    break;
  }
  d.b.randState = st;
  around(d, [&] {
    unsigned n = unsigned(d.rng.range(1, 3));
    for (unsigned k = 0; k < n; ++k)
      d.b.randomDraw(0);
  });
  return d.finish();
}

GeneratedKernel function(Draft &d) {
  chooseReal(d);
  d.b.feat.math = d.rng.chance(50);
  d.b.feat.ifs = d.rng.chance(30);
  d.b.feat.ternary = d.rng.chance(30);
  d.b.feat.vectors = d.b.real == Ty::Float && d.rng.chance(30);
  static const char *const verbs[] = {"apply",    "evaluate", "map",
                                      "compose",  "shade",    "transform",
                                      "activate", "call"};
  d.chooseName(verbs, kNouns);
  unsigned nf = unsigned(d.rng.range(1, 3));
  for (unsigned k = 0; k < nf; ++k) {
    if (d.rng.chance(35))
      d.addTemplate();
    else if (d.b.feat.vectors && d.rng.chance(40))
      d.addFunction(Ty::Vec3, unsigned(d.rng.range(1, 3)));
    else
      d.addFunction(d.b.real, unsigned(d.rng.range(1, 3)));
  }
  d.standardIO(3, 2);
  if (d.b.feat.vectors)
    d.input(Ty::Vec3);
  d.begin();
  around(d, [&] {
    // Call every function once, so that templates are instantiated.
    std::vector<std::string> seen;
    std::vector<FuncInfo> fs = d.b.funcs;
    std::string last;
    Ty lastTy = d.b.real;
    for (const FuncInfo &f : fs) {
      if (std::find(seen.begin(), seen.end(), f.name) != seen.end())
        continue;
      seen.push_back(f.name);
      Expr c = d.b.funcCall(f, depthOf(d));
      if (!c.active) {
        // Make the first argument active: call again with one.
        std::vector<Expr> args;
        for (size_t k = 0; k < f.params.size(); ++k) {
          Ty p = f.params[k];
          Expr a = k == 0 ? d.b.activeExpr(p, 1) : d.b.expr(p, 1);
          if (p == Ty::Int)
            a = d.b.call("clamp",
                         {a, Expr{"0", PPrimary, 0, false},
                          Expr{"8", PPrimary, 8, false}},
                         8);
          else
            a = d.b.limit(a, p, f.argMag);
          args.push_back(a);
        }
        c = d.b.call(f.name + f.explicitArgs, args, f.resultMag);
      }
      last = d.b.nameFor(f.result);
      d.b.line(tyName(f.result).str() + " " + last + " = " + c.text + ";");
      d.b.declare(last, f.result, f.resultMag, true);
      lastTy = f.result;
    }
    if (lastTy == d.b.real)
      storeVar(d, last, lastTy);
  });
  return d.finish();
}

GeneratedKernel combined(Draft &d) {
  Features &f = d.b.feat;
  f.math = d.rng.chance(60);
  f.ifs = d.rng.chance(60);
  f.ternary = d.rng.chance(40);
  f.loops = d.rng.chance(60);
  f.whiles = d.rng.chance(30);
  f.vectors = d.rng.chance(40);
  f.matrices = f.vectors && d.rng.chance(40);
  static const char *const verbs[] = {"simulate", "step",    "solve",
                                      "update",   "process", "render",
                                      "fuse",     "pipeline"};
  d.chooseName(verbs, kNouns);
  if (d.rng.chance(30))
    d.addFunction(Ty::Float, unsigned(d.rng.range(1, 3)));
  d.standardIO(3, 2);
  if (f.vectors)
    d.input(Ty::Vec3);
  bool random = d.rng.chance(25);
  std::string seed;
  if (random) {
    static const char *const seeds[] = {"seed", "rng_seed"};
    seed = d.addScalar(Ty::Int, seeds);
  }
  d.begin();
  if (random) {
    static const char *const states[] = {"state", "rng", "gen"};
    std::string st = d.b.freshName(states);
    d.b.line("uint32_t " + st + " = rand_init(" + seed + ", " + d.b.tidName +
             ");");
    d.b.randState = st;
  }
  // Two or three constructs of other categories.
  unsigned n = unsigned(d.rng.range(2, 3));
  for (unsigned k = 0; k < n; ++k) {
    unsigned pick = d.rng.below(5);
    if (pick == 0) {
      d.b.feat.ifs = true;
      bool forceElse = d.rng.chance(60);
      d.b.ifStmt(0, unsigned(d.rng.range(1, 3)), forceElse);
    } else if (pick == 1) {
      d.b.feat.loops = true;
      reductionLoop(d, d.rng.chance(50));
    } else if (pick == 2) {
      std::string acc = declareActive(d, d.b.real, 1);
      d.b.hooks.accumulator = acc;
      d.b.whileStmt(0, d.rng.chance(30));
    } else if (pick == 3) {
      Expr e = d.b.mathCall(Ty::Float, 2);
      std::string name = d.b.nameFor(Ty::Float);
      d.b.line("float " + name + " = " + e.text + ";");
      d.b.declare(name, Ty::Float, e.mag, e.active);
    } else {
      d.randomStatements(d.b.blockSize(1));
    }
  }
  d.randomStatements(d.b.blockSize(1));
  return d.finish();
}

} // namespace

//===----------------------------------------------------------------------===//
// The API of Generator.h
//===----------------------------------------------------------------------===//

static const Category kCategories[] = {
    Category::Arithmetic,       Category::Math,        Category::Conditional,
    Category::MultiConditional, Category::Loop,        Category::NestedLoop,
    Category::WhileLoop,        Category::Vector,      Category::Matrix,
    Category::Atomic,           Category::ScalarParam, Category::RandomMath,
    Category::Function,         Category::Combined,    Category::Struct,
    Category::Realistic};

static const char *const kCategoryNames[] = {
    "arithmetic", "math",        "conditional",  "multi_conditional",
    "loop",       "nested_loop", "while_loop",   "vector",
    "matrix",     "atomic",      "scalar_param", "random_math",
    "function",   "combined",    "struct",       "realistic"};
static_assert(std::size(kCategories) == kNumCategories &&
                  std::size(kCategoryNames) == kNumCategories,
              "one name per category");

llvm::ArrayRef<Category> ksc::synth::allCategories() { return kCategories; }

llvm::ArrayRef<Category> ksc::synth::profileCategories(Profile profile) {
  static const Category realistic[] = {Category::Realistic};
  if (profile == Profile::Realistic)
    return realistic;
  return llvm::ArrayRef<Category>(kCategories).drop_back();
}

static const char *const kProfileNames[] = {"basic", "realistic"};

llvm::StringRef ksc::synth::profileName(Profile profile) {
  return kProfileNames[unsigned(profile)];
}

std::optional<Profile> ksc::synth::parseProfile(llvm::StringRef name) {
  for (Profile p : {Profile::Basic, Profile::Realistic})
    if (profileName(p) == name)
      return p;
  return std::nullopt;
}

GeneratorOptions ksc::synth::realisticOptions() {
  GeneratorOptions options;
  options.maxDepth = 2;
  options.maxStatements = 4;
  options.minStatements = 16;
  return options;
}

llvm::StringRef ksc::synth::categoryName(Category category) {
  return kCategoryNames[unsigned(category)];
}

std::optional<Category> ksc::synth::parseCategory(llvm::StringRef name) {
  for (Category c : kCategories)
    if (categoryName(c) == name)
      return c;
  return std::nullopt;
}

unsigned ksc::synth::countStatements(llvm::StringRef source) {
  llvm::SmallVector<llvm::StringRef> lines;
  source.split(lines, '\n');
  unsigned statements = 0;
  bool inStruct = false;
  for (llvm::StringRef raw : lines) {
    llvm::StringRef line = raw.trim();
    if (line.starts_with("struct "))
      inStruct = true;
    if (inStruct) {
      inStruct = line != "};";
      continue;
    }
    if (line.ends_with(";") && !line.starts_with("}"))
      ++statements;
  }
  return statements;
}

static GeneratedKernel generateOnce(Category category, uint64_t seed,
                                    const GeneratorOptions &options);

GeneratedKernel ksc::synth::generateKernel(Category category, uint64_t seed,
                                           const GeneratorOptions &options) {
  GeneratedKernel best = generateOnce(category, seed, options);
  if (!options.minStatements)
    return best;
  unsigned most = countStatements(best.source);
  for (unsigned draw = 1;
       most < options.minStatements && draw < GeneratorOptions::kMaxDraws;
       ++draw) {
    GeneratedKernel again = generateOnce(
        category, SplitMix64::mix(seed + draw * SplitMix64::kGamma),
        options);
    unsigned statements = countStatements(again.source);
    if (statements > most) {
      most = statements;
      best = std::move(again);
    }
  }
  return best;
}

static GeneratedKernel generateOnce(Category category, uint64_t seed,
                                    const GeneratorOptions &options) {
  Draft d(category, seed, options);
  switch (category) {
  case Category::Arithmetic:
    return arithmetic(d);
  case Category::Math:
    return math(d);
  case Category::Conditional:
    return conditional(d);
  case Category::MultiConditional:
    return multiConditional(d);
  case Category::Loop:
    return loop(d);
  case Category::NestedLoop:
    return nestedLoop(d);
  case Category::WhileLoop:
    return whileLoop(d);
  case Category::Vector:
    return vector(d);
  case Category::Matrix:
    return matrix(d);
  case Category::Atomic:
    return atomic(d);
  case Category::ScalarParam:
    return scalarParam(d);
  case Category::RandomMath:
    return randomMath(d);
  case Category::Function:
    return function(d);
  case Category::Combined:
    return combined(d);
  case Category::Struct:
    return structKernel(d);
  case Category::Realistic:
    return realisticKernel(d);
  }
  return arithmetic(d);
}
