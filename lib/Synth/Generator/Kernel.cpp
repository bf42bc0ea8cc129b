//===- Kernel.cpp - Kernel signatures, device functions -------------------===//
//
// Part of ksc. What the category generators share: a kernel under
// construction (its arguments, names and body), the assembly of the .kdsl
// source, and the generation of device functions and function templates.
//
//===----------------------------------------------------------------------===//

#include "Kernel.h"

#include <algorithm>
#include <cmath>

using namespace ksc::synth;
using namespace ksc::synth::detail;

Draft::Draft(Category category, uint64_t seed, const GeneratorOptions &options)
    : rng(seed * 0x2545f4914f6cdd1dull + unsigned(category) * 0x9e37ull + 1),
      b(rng, options), category(category) {}

static std::string spellType(Ty elem) { return tyName(elem).str(); }

std::string Draft::addArray(Ty elem, unsigned rank, bool isConst,
                            llvm::ArrayRef<const char *> words,
                            bool atomicOnly) {
  ArrayInfo a;
  a.name = b.freshName(words);
  a.elem = elem;
  a.rank = rank;
  a.isConst = isConst;
  a.atomicOnly = atomicOnly;
  b.arrays.push_back(a);
  std::string type =
      "array<" + std::string(isConst ? "const " : "") + spellType(elem);
  if (rank > 1)
    type += ", " + std::to_string(rank);
  type += ">";
  args.push_back({a.name, type});
  return a.name;
}

std::string Draft::addScalar(Ty ty, llvm::ArrayRef<const char *> words) {
  std::string name = b.freshName(words);
  double mag = ty == Ty::Int ? 1e6 : 4;
  bool active = ty != Ty::Int && ty != Ty::Bool;
  Var &v = b.declare(name, ty, mag, active);
  v.assignable = false;
  args.push_back({name, spellType(ty)});
  return name;
}

static const char *const kInputs[] = {
    "x",       "a",       "src",    "input",  "values", "data",
    "mass",    "weights", "coeffs", "u",      "signal", "field",
    "density", "samples", "feat",   "inputs", "state",  "prev",
    "rho",     "temp",    "phi",    "height", "charge", "radius"};
static const char *const kOutputs[] = {
    "out", "result", "dst",  "y",          "res",  "output",    "accum",
    "z",   "target", "next", "values_out", "flux", "energy_out"};
static const char *const kRealParams[] = {
    "dt",    "scale",    "alpha",   "beta",      "gamma",     "eps",   "gain",
    "k",     "strength", "damping", "bias",      "mu",        "sigma", "tau",
    "omega", "rate",     "lr",      "threshold", "stiffness", "h0"};
static const char *const kIntParams[] = {"n",      "steps", "count", "iters",
                                         "stride", "order", "niter", "width",
                                         "rounds", "taps"};
static const char *const kBoolParams[] = {
    "flip", "use_bias", "enabled",   "invert",
    "wrap", "relu",     "symmetric", "normalize_out"};
static const char *const kVecInputs[] = {"pos",  "vel",    "normals", "points",
                                         "dirs", "forces", "verts",   "colors"};
static const char *const kVecParams[] = {
    "gravity", "wind", "origin", "axis", "center", "light_dir", "offset_v"};
static const char *const kMatInputs[] = {"xforms",  "rots",      "frames",
                                         "tensors", "jacobians", "bases"};
static const char *const kMatParams[] = {"transform", "rotation", "basis",
                                         "model", "proj"};

std::string Draft::input(Ty elem, unsigned rank) {
  if (isVec(elem))
    return addArray(elem, rank, true, kVecInputs);
  if (isMat(elem))
    return addArray(elem, rank, true, kMatInputs);
  return addArray(elem, rank, true, kInputs);
}

std::string Draft::output(Ty elem, unsigned rank) {
  return addArray(elem, rank, false, kOutputs);
}

std::string Draft::scalar(Ty ty) {
  if (ty == Ty::Int)
    return addScalar(ty, kIntParams);
  if (ty == Ty::Bool)
    return addScalar(ty, kBoolParams);
  if (isVec(ty))
    return addScalar(ty, kVecParams);
  if (isMat(ty))
    return addScalar(ty, kMatParams);
  return addScalar(ty, kRealParams);
}

void Draft::standardIO(unsigned maxInputs, unsigned maxScalars) {
  unsigned nin = unsigned(b.rng.range(1, int(maxInputs)));
  for (unsigned k = 0; k < nin; ++k) {
    unsigned rank = b.rng.chance(15) ? 2 : 1;
    input(b.real, rank);
  }
  unsigned nout = b.rng.chance(25) ? 2 : 1;
  for (unsigned k = 0; k < nout; ++k) {
    unsigned rank = b.rng.chance(12) ? 2 : 1;
    output(b.real, rank);
  }
  unsigned ns = unsigned(b.rng.range(0, int(maxScalars)));
  for (unsigned k = 0; k < ns; ++k)
    scalar(b.rng.chance(80) ? b.real : Ty::Int);
}

void Draft::chooseName(llvm::ArrayRef<const char *> verbs,
                       llvm::ArrayRef<const char *> nouns) {
  std::string verb = b.rng.pick(verbs);
  std::string noun = b.rng.pick(nouns);
  std::string base = verb + "_" + noun;
  const char *one[] = {nullptr};
  one[0] = base.c_str();
  kernelName = b.freshName(one);
}

void Draft::begin() {
  b.indent = 1;
  static const char *const tids[] = {"idx", "gid", "tid_x", "t_idx", "e"};
  b.tidName = b.rng.chance(80) ? std::string("i") : b.freshName(tids);
  b.line("int " + b.tidName + " = tid();");
  Var &t = b.declare(b.tidName, Ty::Int, 1e6, false);
  t.assignable = false;
}

void Draft::randomStatements(unsigned count) { b.block(0, count); }

static std::string wrapSignature(const std::string &head,
                                 const std::vector<KernelArgument> &args,
                                 const std::string &tail) {
  std::string text = head;
  size_t column = head.size();
  std::string pad(head.size(), ' ');
  for (size_t k = 0; k < args.size(); ++k) {
    std::string piece = args[k].type + " " + args[k].name;
    piece += k + 1 < args.size() ? "," : tail;
    if (k > 0 && column + 1 + piece.size() > 80) {
      text += "\n" + pad;
      column = pad.size();
    } else if (k > 0) {
      text += " ";
      ++column;
    }
    text += piece;
    column += piece.size();
  }
  if (args.empty())
    text += tail;
  return text;
}

GeneratedKernel Draft::finish() {
  b.finishOutputs();
  for (std::vector<Var> &scope : b.scopes)
    b.readUnread(scope);
  // Shuffle the arguments now and then; most kernels keep a natural order
  // (inputs, outputs, scalars) as people write them.
  if (b.rng.chance(40)) {
    for (size_t k = args.size(); k > 1; --k) {
      size_t j = b.rng.below(unsigned(k));
      std::swap(args[k - 1], args[j]);
    }
  } else {
    std::stable_sort(args.begin(), args.end(),
                     [](const KernelArgument &x, const KernelArgument &y) {
                       auto rank = [](const KernelArgument &a) {
                         if (llvm::StringRef(a.type).starts_with("array<const"))
                           return 0;
                         if (llvm::StringRef(a.type).starts_with("array<"))
                           return 1;
                         return 2;
                       };
                       return rank(x) < rank(y);
                     });
  }
  GeneratedKernel k;
  k.kernelName = kernelName;
  k.arguments = args;
  std::string text;
  for (const std::string &s : structs)
    text += s + "\n";
  for (const std::string &f : functions)
    text += f + "\n";
  text += wrapSignature("KSC_KERNEL void " + kernelName + "(", args, ") {");
  text += "\n";
  for (const std::string &l : b.lines)
    text += l + "\n";
  text += "}\n";
  k.source = std::move(text);
  return k;
}

//===----------------------------------------------------------------------===//
// Device functions
//===----------------------------------------------------------------------===//

static const char *const kFuncNames[] = {
    "soft_clip",  "falloff",   "blend",    "penalty",   "response",
    "activation", "potential", "spring",   "damped",    "bump",
    "ramp",       "wave",      "shade",    "attenuate", "kernel_weight",
    "smooth_abs", "saturate",  "envelope", "profile",   "warp_value"};
static const char *const kVecFuncNames[] = {
    "reflect_dir", "project_onto", "rotate_about", "orthogonal",
    "steer",       "deflect",      "align",        "pull_towards"};
static const char *const kParamReals[] = {"x", "y", "t", "s", "a",
                                          "b", "w", "r", "z", "v"};
static const char *const kParamVecs[] = {"p", "q", "d", "n", "dir", "u"};

Expr detail::foldUnread(Builder &fb, Expr into, Ty ty) {
  for (const Var &var : fb.scopes.back())
    if (var.assignable && !fb.isRead(var)) {
      // Vectors are of float: they scale by a float.
      Ty real = isVec(ty) ? Ty::Float : ty;
      Expr term = fb.limit(fb.asReal(var, real), real, 16);
      double mag = isVec(ty) ? into.mag * term.mag : into.mag + term.mag;
      into = isVec(ty) ? fb.binary(into, "*", term, PMul)
                       : fb.binary(into, "+", term, PAdd);
      into.mag = mag;
    }
  return into;
}

std::string detail::functionText(const std::string &head, const Builder &fb) {
  std::string text = head + " {\n";
  for (const std::string &l : fb.lines)
    text += l + "\n";
  return text + "}\n";
}

Builder Draft::functionBuilder() {
  Builder fb(rng, b.opts);
  fb.used = b.used;
  fb.real = b.real;
  fb.feat = b.feat;
  fb.feat.whiles = false;
  fb.feat.loops = b.feat.loops && rng.chance(50);
  fb.inKernel = false;
  fb.tidName.clear();
  fb.funcs = b.funcs;
  return fb;
}

void Draft::addFunction(Ty result, unsigned nparams) {
  Builder fb = functionBuilder();
  std::string name =
      fb.freshName(isVec(result) ? llvm::ArrayRef<const char *>(kVecFuncNames)
                                 : llvm::ArrayRef<const char *>(kFuncNames));
  FuncInfo f;
  f.name = name;
  f.result = result;
  std::string params;
  for (unsigned k = 0; k < nparams; ++k) {
    Ty ty =
        k == 0 ? result : (isVec(result) && rng.chance(50) ? result : b.real);
    if (!isVec(result) && k > 0 && rng.chance(20))
      ty = Ty::Int;
    std::string pn =
        fb.freshName(isVec(ty) ? llvm::ArrayRef<const char *>(kParamVecs)
                               : llvm::ArrayRef<const char *>(kParamReals));
    if (ty == Ty::Int) {
      const char *ints[] = {"n", "k", "m"};
      pn = fb.freshName(ints);
    }
    f.params.push_back(ty);
    Var &v = fb.declare(pn, ty, ty == Ty::Int ? 8 : f.argMag, ty != Ty::Int);
    v.assignable = false;
    if (!params.empty())
      params += ", ";
    params +=
        (rng.chance(25) && ty != Ty::Int ? "const " + tyName(ty).str() + " &"
                                         : tyName(ty).str() + " ") +
        pn;
  }
  fb.indent = 1;
  fb.block(1, unsigned(rng.range(0, int(std::min(3u, b.opts.maxStatements)))));
  Expr e = fb.activeExpr(result, unsigned(rng.range(1, int(b.opts.maxDepth))));
  e = fb.limit(foldUnread(fb, e, result), result, 1e3);
  fb.line("return " + e.text + ";");
  f.resultMag = e.mag;
  for (const std::string &l : fb.lines)
    if (llvm::StringRef(l).contains("for ("))
      f.hasLoop = true;
  functions.push_back(functionText("KSC_FUNC " + tyName(result).str() + " " +
                                       name + "(" + params + ")",
                                   fb));
  b.used = fb.used;
  b.funcs.push_back(f);
}

/// A random expression over T-typed names with + - and scalar products, as
/// a template body; returns its magnitude bound.
static Expr genericExpr(Rng &rng, llvm::ArrayRef<std::string> names,
                        const std::string &w, unsigned depth, double argMag) {
  if (depth == 0 || rng.chance(25)) {
    Expr e;
    e.text = rng.pick(names);
    e.prec = PPrimary;
    e.mag = argMag;
    return e;
  }
  Expr a = genericExpr(rng, names, w, depth - 1, argMag);
  unsigned pick = rng.below(4);
  Expr e, c;
  if (pick <= 1) {
    // Not `a - a`: another operand, or a product below.
    c = genericExpr(rng, names, w, depth - 1, argMag);
    for (int tries = 0; tries < 5 && c.text == a.text; ++tries)
      c = genericExpr(rng, names, w, depth - 1, argMag);
    if (c.text == a.text)
      pick = 3;
  }
  if (pick <= 1) {
    std::string l = a.prec >= PAdd ? a.text : "(" + a.text + ")";
    std::string r = c.prec > PAdd ? c.text : "(" + c.text + ")";
    e.text = l + (pick == 0 ? " + " : " - ") + r;
    e.prec = PAdd;
    e.mag = a.mag + c.mag;
  } else {
    std::string l = a.prec >= PMul ? a.text : "(" + a.text + ")";
    static const char *const lits[] = {"0.5f", "0.25f", "2.0f", "0.75f"};
    std::string k =
        pick == 2 ? w
                  : std::string(rng.pick(llvm::ArrayRef<const char *>(lits)));
    e.text = l + " * " + k;
    e.prec = PMul;
    e.mag = a.mag * (pick == 2 ? argMag : 2);
  }
  return e;
}

void Draft::addTemplate() {
  Builder fb = functionBuilder();
  std::string name = fb.freshName(kFuncNames);
  if (rng.chance(35)) {
    // A value parameter: an iteration count.
    std::string x = fb.freshName(kParamReals);
    Var &v = fb.declare(x, b.real, 16, true);
    v.assignable = false;
    fb.indent = 1;
    Expr init = fb.expr(b.real, 1);
    std::string acc = fb.nameFor(b.real);
    fb.line(tyName(b.real).str() + " " + acc + " = " + init.text + ";");
    fb.declare(acc, b.real, init.mag, init.active);
    fb.line("for (int k = 0; k < N; ++k) {");
    ++fb.indent;
    fb.pushScope();
    Var &k = fb.declare("k", Ty::Int, 8, false);
    k.assignable = false;
    k.isCounter = true;
    ++fb.loopLevel;
    fb.findVar(acc)->hidden = true;
    Expr step = fb.limit(fb.expr(b.real, 2), b.real, 16);
    fb.line(acc + " = " + acc + " * " + fb.realLit(b.real, 50) + " + " +
            fb.paren(step, PMul).text + ";");
    --fb.loopLevel;
    fb.popScope();
    --fb.indent;
    fb.line("}");
    fb.findVar(acc)->hidden = false;
    fb.line("return " + acc + ";");
    std::string t = tyName(b.real).str();
    functions.push_back(functionText("template <int N> KSC_FUNC " + t + " " +
                                         name + "(" + t + " " + x + ")",
                                     fb));
    FuncInfo f;
    f.name = name;
    f.result = b.real;
    f.params = {b.real};
    f.explicitArgs = "<" + std::to_string(rng.range(1, 6)) + ">";
    f.resultMag = init.mag + 2 * step.mag + 16;
    f.hasLoop = true;
    b.used = fb.used;
    b.funcs.push_back(f);
    return;
  }
  // A type parameter: a blend of values of any arithmetic type.
  std::vector<std::string> names;
  std::string a = fb.freshName(kParamReals);
  std::string c = fb.freshName(kParamReals);
  std::string w = fb.freshName(kParamReals);
  names = {a, c};
  std::string body;
  // A bound on every name (the arguments are limited to 4 at the calls).
  double argMag = 64;
  if (rng.chance(60)) {
    std::string dname = fb.freshName(kParamReals);
    Expr d0 = genericExpr(rng, names, w, 1, argMag);
    body += "  T " + dname + " = " + d0.text + ";\n";
    names.push_back(dname);
  }
  Expr r = genericExpr(rng, names, w, 2, argMag);
  body += "  return " + r.text + ";\n";
  functions.push_back("template <typename T>\nKSC_FUNC T " + name + "(T " + a +
                      ", T " + c + ", float " + w + ") {\n" + body + "}\n");
  b.used = fb.used;
  std::vector<Ty> types = {b.real};
  if (b.feat.vectors && b.real == Ty::Float) {
    types.push_back(Ty::Vec3);
    types.push_back(Ty::Vec2);
  }
  for (Ty t : types) {
    FuncInfo f;
    f.name = name;
    f.result = t;
    f.params = {t, t, Ty::Float};
    f.argMag = 4;
    f.resultMag = std::min(r.mag, 1e6);
    if (rng.chance(40))
      f.explicitArgs = "<" + tyName(t).str() + ">";
    b.funcs.push_back(f);
  }
}
