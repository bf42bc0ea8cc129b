//===- Structs.cpp - The struct category ----------------------------------===//
//
// Part of ksc. Kernels that keep their state in structs, as simulation code
// does: an array of structs updated in place or copied into another
// (`Particle p = particles[i]; ... particles[i] = p;`), a struct argument of
// parameters, nested structs, brace initialization, and device functions
// that take and return structs. The fields are read-only variables of the
// grammar (`p.vel`, `params.dt`, `p.mat.friction`), so the random
// statements around the updates read them as they read any other value;
// only the category's own statements assign them.
//
//===----------------------------------------------------------------------===//

#include "Kernel.h"

#include <optional>

using namespace ksc::synth;
using namespace ksc::synth::detail;

namespace {

struct Field {
  std::string name;
  Ty ty = Ty::Float;
  /// A nested struct (an index into Structs), or none.
  std::optional<unsigned> nested;
};

struct StructDecl {
  std::string name;
  std::vector<Field> fields;
};

/// A scalar, vector or matrix field of a struct value, nested ones
/// flattened: `p.mat.friction`.
struct Leaf {
  std::string path;
  Ty ty;
};

const char *const kElementNames[] = {"Particle", "Body",   "Agent",
                                     "Cell",     "Node",   "Vertex",
                                     "Sample",   "Tracer", "Droplet"};
const char *const kParamsNames[] = {"Params", "SimParams", "Config", "Settings",
                                    "Constants"};
const char *const kNestedNames[] = {"Material", "Contact", "Surface", "Spring"};

/// Field names by kind, for elements, parameters and nested structs.
struct FieldWords {
  llvm::ArrayRef<const char *> reals, vectors, ints, bools;
};
const char *const kElementReals[] = {"mass", "radius",   "charge",  "energy",
                                     "temp", "weight",   "density", "age",
                                     "drag", "pressure", "phase",   "inv_mass"};
const char *const kElementVectors[] = {"pos",   "vel", "force", "normal",
                                       "color", "acc", "dir",   "torque"};
const char *const kElementInts[] = {"id", "flags", "group", "kind", "cell"};
const char *const kElementBools[] = {"alive", "fixed", "active", "pinned"};
const char *const kParamReals[] = {
    "dt",    "damping", "stiffness", "drag", "restitution",
    "scale", "gain",    "friction",  "eps",  "rate"};
const char *const kParamVectors[] = {"gravity", "wind", "origin", "axis"};
const char *const kParamInts[] = {"substeps", "mode", "count", "iters"};
const char *const kParamBools[] = {"enabled", "clamp_out", "use_drag"};
const char *const kNestedReals[] = {"stiffness", "friction",    "damping",
                                    "softness",  "restitution", "bounce"};
const char *const kNestedFields[] = {"mat", "contact", "surface", "spring"};

/// The structs of one kernel, declared into the draft as they are made.
class Structs {
public:
  explicit Structs(Draft &d) : d(d) {}

  /// Declares a struct of simulation state (an array element) or of
  /// parameters; returns its index.
  unsigned declare(bool params);
  const StructDecl &operator[](unsigned k) const { return decls[k]; }

  /// The leaves of a value `prefix` of struct `k`.
  std::vector<Leaf> leaves(const std::string &prefix, unsigned k) const;
  /// Declares the leaves of `prefix` as read-only variables of `b`: reals
  /// and vectors active with magnitude `mag`.
  void declareLeaves(Builder &b, const std::string &prefix, unsigned k,
                     double mag) const;

private:
  unsigned add(StructDecl decl);

  Draft &d;
  std::vector<StructDecl> decls;
};

unsigned Structs::add(StructDecl decl) {
  std::string text = "struct " + decl.name + " {\n";
  for (const Field &f : decl.fields)
    text += "  " + (f.nested ? decls[*f.nested].name : tyName(f.ty).str()) +
            " " + f.name + ";\n";
  text += "};\n";
  d.structs.push_back(text);
  decls.push_back(std::move(decl));
  return unsigned(decls.size() - 1);
}

unsigned Structs::declare(bool params) {
  Rng &rng = d.rng;
  Builder &b = d.b;
  StructDecl decl;
  decl.name = b.freshName(params ? llvm::ArrayRef<const char *>(kParamsNames)
                                 : llvm::ArrayRef<const char *>(kElementNames));
  FieldWords words =
      params ? FieldWords{kParamReals, kParamVectors, kParamInts, kParamBools}
             : FieldWords{kElementReals, kElementVectors, kElementInts,
                          kElementBools};
  llvm::StringSet<> taken;
  auto fieldName = [&](llvm::ArrayRef<const char *> pool) {
    for (;;) {
      std::string name = rng.pick(pool);
      if (taken.insert(name).second)
        return name;
    }
  };
  auto addField = [&](Ty ty, llvm::ArrayRef<const char *> pool) {
    Field f;
    f.ty = ty;
    f.name = fieldName(pool);
    decl.fields.push_back(f);
  };
  bool vectors = b.feat.vectors;
  unsigned nvec =
      vectors ? unsigned(rng.range(params ? 0 : 1, params ? 1 : 2)) : 0;
  unsigned nreal = unsigned(rng.range(nvec ? 1 : 2, params ? 3 : 2));
  for (unsigned k = 0; k < nvec; ++k)
    addField(Ty::Vec3, words.vectors);
  for (unsigned k = 0; k < nreal; ++k)
    addField(b.real, words.reals);
  if (rng.chance(40))
    addField(Ty::Int, words.ints);
  if (rng.chance(params ? 25 : 15))
    addField(Ty::Bool, words.bools);
  if (!params && rng.chance(25)) {
    // A nested struct of two reals.
    StructDecl inner;
    inner.name = b.freshName(kNestedNames);
    llvm::StringSet<> innerTaken;
    for (unsigned k = 0; k < 2; ++k) {
      Field f;
      f.ty = b.real;
      do
        f.name = rng.pick(llvm::ArrayRef<const char *>(kNestedReals));
      while (!innerTaken.insert(f.name).second);
      inner.fields.push_back(f);
    }
    Field f;
    f.name = fieldName(kNestedFields);
    f.nested = add(std::move(inner));
    decl.fields.push_back(f);
  }
  // Fields in an order people write them in, or shuffled.
  if (rng.chance(40))
    for (size_t k = decl.fields.size(); k > 1; --k)
      std::swap(decl.fields[k - 1], decl.fields[rng.below(unsigned(k))]);
  return add(std::move(decl));
}

std::vector<Leaf> Structs::leaves(const std::string &prefix, unsigned k) const {
  std::vector<Leaf> result;
  for (const Field &f : decls[k].fields) {
    std::string path = prefix + "." + f.name;
    if (f.nested) {
      std::vector<Leaf> inner = leaves(path, *f.nested);
      result.insert(result.end(), inner.begin(), inner.end());
    } else {
      result.push_back({path, f.ty});
    }
  }
  return result;
}

void Structs::declareLeaves(Builder &b, const std::string &prefix, unsigned k,
                            double mag) const {
  for (const Leaf &leaf : leaves(prefix, k)) {
    bool real = isReal(leaf.ty) || isVec(leaf.ty);
    Var &v = b.declare(leaf.path, leaf.ty,
                       leaf.ty == Ty::Int    ? 1e6
                       : leaf.ty == Ty::Bool ? 1
                                             : mag,
                       real);
    v.assignable = false;
  }
}

/// The real and vector leaves of `all`.
std::vector<Leaf> differentiable(const std::vector<Leaf> &all) {
  std::vector<Leaf> result;
  for (const Leaf &leaf : all)
    if (isReal(leaf.ty) || isVec(leaf.ty))
      result.push_back(leaf);
  return result;
}

const char *const kStructParams[] = {"p", "s", "self", "st", "q"};

/// A device function of a real result that reads a struct's fields
/// (`float kinetic(const Particle &p)`); returns its name.
std::string addMeasure(Draft &d, const Structs &structs, unsigned k) {
  static const char *const names[] = {"kinetic",   "potential", "penalty",
                                      "measure",   "speed_of",  "weight_of",
                                      "energy_of", "cost"};
  Builder fb = d.functionBuilder();
  std::string name = fb.freshName(names);
  std::string p = fb.freshName(kStructParams);
  structs.declareLeaves(fb, p, k, 16);
  fb.indent = 1;
  fb.block(1,
           unsigned(d.rng.range(0, int(std::min(2u, d.b.opts.maxStatements)))));
  Expr e = fb.activeExpr(fb.real, depthOf(d));
  e = fb.limit(foldUnread(fb, e, fb.real), fb.real, 1e3);
  fb.line("return " + e.text + ";");
  std::string param = d.rng.chance(60) ? "const " + structs[k].name + " &" + p
                                       : structs[k].name + " " + p;
  d.functions.push_back(functionText("KSC_FUNC " + tyName(fb.real).str() + " " +
                                         name + "(" + param + ")",
                                     fb));
  d.b.used = fb.used;
  return name;
}

/// A device function that returns a struct with a field updated
/// (`Particle kick(Particle p, float h)`); returns its name.
std::string addUpdate(Draft &d, const Structs &structs, unsigned k) {
  static const char *const names[] = {"kick",  "advance", "relax", "nudge",
                                      "drift", "apply",   "settle"};
  Builder fb = d.functionBuilder();
  std::string name = fb.freshName(names);
  std::string p = fb.freshName(kStructParams);
  static const char *const hs[] = {"h", "dt", "t", "w"};
  std::string h = fb.freshName(hs);
  structs.declareLeaves(fb, p, k, 16);
  Var &hv = fb.declare(h, fb.real, 4, true);
  hv.assignable = false;
  fb.indent = 1;
  fb.block(1,
           unsigned(d.rng.range(0, int(std::min(2u, d.b.opts.maxStatements)))));
  std::vector<Leaf> fields = differentiable(structs.leaves(p, k));
  const Leaf &target = d.rng.pick(llvm::ArrayRef<Leaf>(fields));
  Expr e = fb.limit(fb.activeExpr(target.ty, depthOf(d)), target.ty, 1e3);
  fb.line(target.path + " += " + fb.paren(e, PMul).text + " * " + h + ";");
  // The locals nothing read go into a real field.
  for (const Var &var : fb.scopes.back())
    if (var.assignable && !fb.isRead(var)) {
      const Leaf &to = d.rng.pick(llvm::ArrayRef<Leaf>(fields));
      Expr term = fb.limit(fb.asReal(var, Ty::Float), Ty::Float, 16);
      if (isVec(to.ty))
        term.text = tyName(to.ty).str() + "(" + term.text + ")";
      else if (to.ty != Ty::Float)
        term = fb.limit(fb.asReal(var, to.ty), to.ty, 16);
      fb.line(to.path + " += " + term.text + ";");
    }
  fb.line("return " + p + ";");
  std::string real = tyName(fb.real).str();
  d.functions.push_back(functionText("KSC_FUNC " + structs[k].name + " " +
                                         name + "(" + structs[k].name + " " +
                                         p + ", " + real + " " + h + ")",
                                     fb));
  d.b.used = fb.used;
  return name;
}

/// `p.f op= e` for a few real or vector fields of the element `p`, as an
/// integrator writes them; returns the leaves it updated.
std::vector<Leaf> updateFields(Draft &d, const std::vector<Leaf> &fields,
                               const std::vector<Leaf> &params) {
  Builder &b = d.b;
  std::vector<Leaf> updated;
  std::vector<Leaf> steps;
  for (const Leaf &leaf : params)
    if (leaf.ty == b.real)
      steps.push_back(leaf);
  unsigned n =
      unsigned(d.rng.range(1, int(std::min<size_t>(3, fields.size()))));
  std::vector<Leaf> pool = fields;
  for (unsigned k = 0; k < n; ++k) {
    unsigned at = d.rng.below(unsigned(pool.size()));
    Leaf leaf = pool[at];
    pool.erase(pool.begin() + at);
    Var *v = b.findVar(leaf.path);
    Expr self{leaf.path, PPrimary, v->mag, true};
    Expr e =
        b.limit(b.differentFrom(
                    self, [&] { return b.activeExpr(leaf.ty, depthOf(d)); }),
                leaf.ty, 1e3);
    double mag = v->mag;
    switch (d.rng.below(3)) {
    case 0: {
      // A step: `p.vel += f * params.dt`, or by a constant step.
      std::string step = !steps.empty() && d.rng.chance(70)
                             ? d.rng.pick(llvm::ArrayRef<Leaf>(steps)).path
                             : b.realLit(b.real, d.rng.range(1, 10));
      b.line(leaf.path + " += " + b.paren(e, PMul).text + " * " + step + ";");
      mag += e.mag * 4;
      break;
    }
    case 1: {
      // A relaxation: `p.temp = p.temp * 0.9f + e`.
      Expr kept = b.limit(self, leaf.ty, 1e3);
      b.line(leaf.path + " = " + b.paren(kept, PMul).text + " * " +
             b.realLit(b.real, d.rng.range(50, 99)) + " + " +
             b.paren(e, PAdd + 1).text + ";");
      mag = std::min(mag, 1e3) + e.mag;
      break;
    }
    default:
      b.line(leaf.path + " = " + e.text + ";");
      mag = e.mag;
      break;
    }
    v->mag = mag;
    updated.push_back(leaf);
  }
  return updated;
}

const char *const kVerbs[] = {"integrate", "step",    "advance", "simulate",
                              "relax",     "collide", "damp",    "update"};
const char *const kNouns[] = {"particles", "bodies", "agents", "cells",
                              "nodes",     "state",  "swarm",  "cloth"};
const char *const kArrays[] = {"particles", "bodies", "agents", "cells",
                               "nodes",     "state",  "items",  "points"};
const char *const kOutArrays[] = {"next", "next_state", "updated", "out_state",
                                  "result"};
const char *const kParamsArgs[] = {"params", "sim", "cfg", "config", "consts"};

} // namespace

GeneratedKernel detail::structKernel(Draft &d) {
  chooseReal(d);
  Builder &b = d.b;
  b.feat.vectors = b.real == Ty::Float && d.rng.chance(75);
  b.feat.math = d.rng.chance(40);
  b.feat.ifs = d.rng.chance(30);
  b.feat.ternary = d.rng.chance(20);
  d.chooseName(kVerbs, kNouns);
  Structs structs(d);
  // An element array updated in place, one read into another, or only a
  // struct of parameters.
  enum Shape { InPlace, Copy, ParamsOnly };
  Shape shape = Shape(d.rng.below(3));
  std::optional<unsigned> elem, params;
  std::string items, outItems, paramsName;
  if (shape != ParamsOnly) {
    elem = structs.declare(false);
    const std::string &type = structs[*elem].name;
    items = b.freshName(kArrays);
    d.args.push_back(
        {items,
         "array<" + std::string(shape == Copy ? "const " : "") + type + ">"});
    if (shape == Copy) {
      outItems = b.freshName(kOutArrays);
      d.args.push_back({outItems, "array<" + type + ">"});
    }
  }
  if (shape == ParamsOnly || d.rng.chance(50)) {
    params = structs.declare(true);
    paramsName = b.freshName(kParamsArgs);
    d.args.push_back({paramsName, structs[*params].name});
  }
  if (shape == ParamsOnly) {
    d.standardIO(2, 1);
  } else {
    unsigned nin = unsigned(d.rng.range(0, 2));
    for (unsigned k = 0; k < nin; ++k)
      d.input(b.real);
    d.output(b.real);
  }
  // A vector field of the element scattered into shared elements (forces
  // into the particles they act on, as Warp's force kernels do).
  std::optional<Field> scattered;
  std::string scatter;
  if (elem)
    for (const Field &f : structs[*elem].fields)
      if (!f.nested && isVec(f.ty) && !scattered)
        scattered = f;
  if (scattered && d.rng.chance(35))
    scatter = d.addArray(scattered->ty, 1, false, kScatterArrays, true);
  d.begin();
  std::vector<Leaf> paramLeaves;
  if (params) {
    structs.declareLeaves(b, paramsName, *params, 4);
    paramLeaves = structs.leaves(paramsName, *params);
  }
  if (shape == ParamsOnly) {
    around(d, [&] {
      std::vector<std::pair<std::string, Ty>> uses;
      for (const Leaf &leaf : paramLeaves)
        uses.push_back({leaf.path, leaf.ty});
      useScalars(d, uses);
    });
    return d.finish();
  }

  // The element, its fields the grammar's variables.
  const StructDecl &decl = structs[*elem];
  std::string lower = llvm::StringRef(decl.name).lower();
  const char *locals[] = {"p", lower.c_str(), "cur", "s"};
  std::string p = b.freshName(locals);
  b.line(decl.name + " " + p + " = " + items + "[" + b.tidName + "];");
  structs.declareLeaves(b, p, *elem, 4);
  std::vector<Leaf> leaves = structs.leaves(p, *elem);
  std::vector<Leaf> fields = differentiable(leaves);
  std::vector<Leaf> updated;
  around(d, [&] {
    updated = updateFields(d, fields, paramLeaves);
    for (const Leaf &leaf : leaves)
      if (leaf.ty == Ty::Int && d.rng.chance(30)) {
        b.line(leaf.path + " += 1;");
        updated.push_back(leaf);
      }
    unsigned fn = d.rng.below(10);
    if (fn < 2) {
      std::string f = addMeasure(d, structs, *elem);
      std::string e = b.nameFor(b.real);
      b.line(tyName(b.real).str() + " " + e + " = " + f + "(" + p + ");");
      b.declare(e, b.real, 1e3, true);
    } else if (fn < 4) {
      std::string f = addUpdate(d, structs, *elem);
      Expr h = b.limit(b.expr(b.real, depthOf(d)), b.real, 1);
      b.line(p + " = " + f + "(" + p + ", " + h.text + ");");
      for (const Leaf &leaf : fields) {
        b.findVar(leaf.path)->mag += 1e3;
        if (llvm::none_of(updated,
                          [&](const Leaf &u) { return u.path == leaf.path; }))
          updated.push_back(leaf);
      }
    }
  });

  // The element written back: whole, field by field, or a new one made of
  // the updated fields with brace initialization.
  std::string target = shape == Copy ? outItems : items;
  std::string at = target + "[" + b.tidName + "]";
  unsigned form = d.rng.below(10);
  if (form < 6 || (shape == InPlace && form < 8)) {
    b.line(at + " = " + p + ";");
  } else if (shape == InPlace) {
    for (const Leaf &leaf : updated)
      b.line(at + leaf.path.substr(p.size()) + " = " + leaf.path + ";");
    if (updated.empty())
      b.line(at + " = " + p + ";");
  } else {
    // `Particle q = {p.pos + e, p.vel, ...};` over the top-level fields.
    std::string q = b.freshName({"q", "nxt", "moved"});
    std::string init;
    for (const Field &f : decl.fields) {
      std::string value = p + "." + f.name;
      if (!f.nested && (isReal(f.ty) || isVec(f.ty)) && d.rng.chance(50)) {
        Expr e = b.limit(b.activeExpr(f.ty, depthOf(d)), f.ty, 1e3);
        value += " + " + b.paren(e, PAdd + 1).text;
      }
      init += (init.empty() ? "" : ", ") + value;
    }
    b.line(decl.name + " " + q + " = {" + init + "};");
    b.line(at + " = " + q + ";");
  }
  if (!scatter.empty())
    scatterVector(d, scatter, p + "." + scattered->name, scattered->ty);
  return d.finish();
}
