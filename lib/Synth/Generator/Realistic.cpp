//===- Realistic.cpp - Kernels made of real kernels' patterns -------------===//
//
// Part of ksc. The `realistic` category: kernels composed of the patterns
// real simulation, graphics and learning kernels are made of: stencils,
// reductions, particle interactions, time integrators, small matrix algebra,
// ray and geometry math. A kernel chains two or three patterns, each drawn
// with its variants (which neighbours, which force law, which integrator,
// which activation), coefficients that are parameters or constants, side
// terms drawn by the grammar, random statements between them, and the
// values one pattern computes feeding the next (the force of a particle
// loop is what the integrator after it integrates).
//
// The patterns keep the grammar's guarantees (Generator.h): indices are
// tid(), loop counters bounded by a shape or clamped; divisions and square
// roots are of values kept away from zero by a constant (r2 = dot(d, d) +
// 0.1f, sqrt(var + 0.01f), a normal matrix plus a multiple of the
// identity); exponentials are of values that cannot be large (x[j] - max).
//
//===----------------------------------------------------------------------===//

#include "Kernel.h"

#include <map>
#include <optional>

using namespace ksc::synth;
using namespace ksc::synth::detail;

namespace {

enum class Pattern {
  Stencil,
  Reduction,
  Particles,
  Integrator,
  Algebra,
  Geometry
};

/// What a kernel computes on: a scalar field (stencils, reductions, ODEs
/// per element, maybe in double), particles (forces, steps, collisions),
/// or shapes (rays, meshes, transforms, strains). The patterns of a kernel
/// are of one domain, as in real code.
enum class Domain { Field, Particles, Shapes };

/// The patterns that may follow `p` in `domain`: the ones that take what
/// it makes.
llvm::ArrayRef<Pattern> followers(Domain domain, Pattern p) {
  static const Pattern field[] = {Pattern::Stencil, Pattern::Reduction,
                                  Pattern::Integrator};
  static const Pattern afterForces[] = {Pattern::Integrator,
                                        Pattern::Reduction};
  static const Pattern afterSteps[] = {Pattern::Geometry, Pattern::Reduction};
  static const Pattern shapes[] = {Pattern::Geometry, Pattern::Algebra,
                                   Pattern::Reduction};
  switch (domain) {
  case Domain::Field:
    return field;
  case Domain::Particles:
    return p == Pattern::Particles ? llvm::ArrayRef<Pattern>(afterForces)
                                   : llvm::ArrayRef<Pattern>(afterSteps);
  case Domain::Shapes:
    return shapes;
  }
  return field;
}

/// The patterns a kernel of `domain` starts with.
llvm::ArrayRef<Pattern> leads(Domain domain) {
  static const Pattern field[] = {Pattern::Stencil, Pattern::Reduction,
                                  Pattern::Integrator};
  static const Pattern particles[] = {Pattern::Particles, Pattern::Particles,
                                      Pattern::Integrator};
  static const Pattern shapes[] = {Pattern::Geometry, Pattern::Algebra};
  switch (domain) {
  case Domain::Field:
    return field;
  case Domain::Particles:
    return particles;
  case Domain::Shapes:
    return shapes;
  }
  return field;
}

/// A value a pattern computed, which a later one may take.
struct Made {
  std::string name;
  Ty ty;
  bool taken = false;
  /// What it is, for the output it goes to: "pos", "vel", or "".
  std::string role;
};

/// A kernel under composition: its arrays and parameters by role (made on
/// first use, so that two patterns share the positions they both read),
/// and the values the patterns made.
struct Composer {
  explicit Composer(Draft &d) : d(d), b(d.b), rng(d.rng) {}
  Draft &d;
  Builder &b;
  Rng &rng;
  std::map<std::string, std::string> roles;
  std::vector<Made> made;
  Domain domain = Domain::Field;
  /// The role of the value take() returned last.
  std::string takenRole;
  std::vector<std::vector<std::string>> hiddenInLoops;

  std::string R() const { return tyName(b.real).str(); }
  std::string lit(int hundredths) const {
    return b.realLit(b.real, hundredths);
  }
  std::string flit(int hundredths) const {
    return b.realLit(Ty::Float, hundredths);
  }
  const std::string &i() const { return b.tidName; }

  std::string input(const std::string &role, Ty elem, unsigned rank,
                    llvm::ArrayRef<const char *> words) {
    auto [it, fresh] = roles.try_emplace(role);
    if (fresh)
      it->second = d.addArray(elem, rank, /*isConst=*/true, words);
    return it->second;
  }
  std::string param(const std::string &role, Ty ty,
                    llvm::ArrayRef<const char *> words) {
    auto [it, fresh] = roles.try_emplace(role);
    if (fresh)
      it->second = d.addScalar(ty, words);
    return it->second;
  }
  /// A coefficient: the parameter of `role` or a constant in
  /// [lo, hi] hundredths.
  std::string coefficient(const std::string &role,
                          llvm::ArrayRef<const char *> words, int lo, int hi) {
    if (roles.count(role) || rng.chance(50))
      return param(role, b.real, words);
    return lit(rng.range(lo, hi));
  }
  /// Declares `ty name = init;`. The random statements may read it but
  /// not assign it: only the pattern's own statements do.
  std::string local(Ty ty, llvm::ArrayRef<const char *> words,
                    const std::string &init, double mag, bool active = true) {
    std::string name = b.freshName(words);
    b.line(tyName(ty).str() + " " + name + " = " + init + ";");
    b.declare(name, ty, mag, active).assignable = false;
    return name;
  }
  /// Records that the kernel has the form `pattern` ("stencil.upwind") and
  /// names the kernel after its first: a verb and a noun.
  void form(const char *pattern, std::vector<const char *> verbs,
            std::vector<const char *> nouns) {
    patterns.push_back(pattern);
    if (nameVerbs.empty()) {
      nameVerbs = std::move(verbs);
      nameNouns = std::move(nouns);
    }
  }
  std::vector<const char *> nameVerbs, nameNouns;
  std::vector<std::string> patterns;
  void make(const std::string &name, Ty ty, const std::string &role = "") {
    made.push_back({name, ty, false, role});
  }
  /// The latest value of `ty` no pattern took yet (the latest of
  /// `preferRole` if there is one), now and then, bounded by `maxMag`
  /// (squashed if it may be larger).
  std::optional<Expr> take(Ty ty, double maxMag, unsigned percent = 75,
                           llvm::StringRef preferRole = "") {
    Made *pick = nullptr;
    for (size_t k = made.size(); k-- > 0;) {
      Made &m = made[k];
      if (m.ty == ty && !m.taken &&
          (!pick || (m.role == preferRole && pick->role != preferRole)))
        pick = &m;
    }
    if (!pick || !rng.chance(percent))
      return std::nullopt;
    pick->taken = true;
    takenRole = pick->role;
    Expr e{pick->name, PPrimary, b.findVar(pick->name)->mag, true};
    return b.limit(e, ty, maxMag);
  }
  /// One of `forms` (an index), drawn again a few times while it is one
  /// the kernel has already.
  unsigned drawForm(llvm::ArrayRef<const char *> forms) {
    unsigned pick = rng.below(forms.size());
    for (int tries = 0; tries < 4 && llvm::is_contained(patterns, forms[pick]);
         ++tries)
      pick = rng.below(forms.size());
    return pick;
  }
  /// A grammar expression of the real type, bounded by `maxMag`.
  Expr term(double maxMag) {
    return b.limit(b.expr(b.real, depthOf(d)), b.real, maxMag);
  }

  /// Opens a loop body: `header {`, with `counter` declared in it, bounded
  /// by `boundArray` (dimension 0) if not empty; `hide` are the locals the
  /// body updates, which the grammar must not read there.
  void open(const std::string &header, const std::string &counter,
            const std::string &boundArray, std::vector<std::string> hide) {
    b.line(header + " {");
    ++b.indent;
    b.pushScope();
    Var &c = b.declare(counter, Ty::Int, 1e6, false);
    c.assignable = false;
    c.isCounter = true;
    c.boundArray = boundArray;
    c.level = b.loopLevel + 1;
    ++b.loopLevel;
    for (const std::string &h : hide)
      b.findVar(h)->hidden = true;
    hiddenInLoops.push_back(std::move(hide));
  }
  /// `for (int j = 0; j < a.shape(0); ++j) {`; returns the counter.
  std::string openOver(const std::string &a, std::vector<std::string> hide) {
    static const char *const counters[] = {"j", "k", "n2", "other"};
    std::string j = b.freshName(counters);
    open("for (int " + j + " = 0; " + j + " < " + a + ".shape(0); ++" + j + ")",
         j, a, std::move(hide));
    return j;
  }
  void close() {
    for (const std::string &h : hiddenInLoops.back())
      b.findVar(h)->hidden = false;
    hiddenInLoops.pop_back();
    --b.loopLevel;
    b.popScope();
    --b.indent;
    b.line("}");
  }
  /// Writes `value` (of `ty`) to the output of `role`: `out[i] = value;`
  /// the first time, `out[i] += value;` after.
  void store(const std::string &role, Ty ty, const std::string &value,
             double mag, llvm::ArrayRef<const char *> words) {
    auto [it, fresh] = roles.try_emplace(role);
    if (fresh)
      it->second = d.addArray(ty, 1, /*isConst=*/false, words);
    ArrayInfo *out = b.findArray(it->second);
    Expr v = b.limit(Expr{value, PPrimary, mag, true}, ty, 1e6);
    // After a store of the random statements, add to it.
    bool add = out->written || out->stored;
    b.line(out->name + "[" + i() + "]" + (add ? " += " : " = ") + v.text + ";");
    out->written = true;
    out->stored = true;
    out->mag = 1e6;
  }
};

const char *const kFields[] = {"u",    "field", "temp", "phi",
                               "conc", "rho",   "h",    "heat"};
const char *const kFeatures[] = {"x", "logits", "features", "scores",
                                 "activations"};
const char *const kPositions[] = {"pos", "positions", "points", "centers"};
const char *const kVelocities[] = {"vel", "velocities", "v"};
const char *const kDt[] = {"dt", "h_step", "tau"};
const char *const kRealOut[] = {"out", "result", "y", "values_out", "dst"};
const char *const kVecOut[] = {"out_vec", "result_v", "dir_out", "vec_out"};

//===----------------------------------------------------------------------===//
// Stencils
//===----------------------------------------------------------------------===//

/// A weighted average over a window of neighbours, Gaussian or bilateral.
void smoothing(Composer &c, const std::string &u) {
  Builder &b = c.b;
  c.form("stencil.smoothing", {"smooth", "blur", "filter", "denoise"},
         {"signal", "field", "heights", "samples"});
  std::string last = u + ".shape(0) - 1";
  int radius = c.rng.range(1, 3);
  std::string acc = c.local(b.real, {"acc", "wsum", "blur"}, c.lit(0), 1e3);
  std::string norm =
      c.local(b.real, {"norm", "wtotal", "denom"}, c.lit(0), 1e3);
  static const char *const counters[] = {"k", "o", "t"};
  std::string k = b.freshName(counters);
  c.open("for (int " + k + " = -" + std::to_string(radius) + "; " + k +
             " <= " + std::to_string(radius) + "; ++" + k + ")",
         k, "", {acc, norm});
  std::string j =
      c.local(Ty::Int, {"j", "nb", "at"},
              "clamp(" + c.i() + " + " + k + ", 0, " + last + ")", 1e6, false);
  std::string spatial =
      "-" + c.R() + "(" + k + " * " + k + ") * " + c.lit(c.rng.range(20, 100));
  std::string w;
  if (c.rng.chance(40)) {
    std::string dv = c.local(b.real, {"dv", "du", "range_d"},
                             u + "[" + j + "] - " + u + "[" + c.i() + "]", 8);
    w = c.local(b.real, {"w", "weight", "wk"},
                "exp(" + spatial + " - " + dv + " * " + dv + " * " +
                    c.lit(c.rng.range(20, 200)) + ")",
                1);
  } else {
    w = c.local(b.real, {"w", "weight", "wk"}, "exp(" + spatial + ")", 1);
  }
  b.line(acc + " += " + w + " * " + u + "[" + j + "];");
  b.line(norm + " += " + w + ";");
  c.close();
  c.make(c.local(b.real, {"smooth", "avg", "filtered"}, acc + " / " + norm, 4),
         b.real);
}

/// A 5-point stencil over the rows of a grid, into a 2-D output.
void gridStencil(Composer &c) {
  Builder &b = c.b;
  static const char *const grids[] = {"grid", "img", "height2d", "tex"};
  std::string g = c.input("grid", b.real, 2, grids);
  std::string o =
      c.d.addArray(b.real, 2, false, {"out2d", "next_grid", "dst2d"});
  std::string up = c.local(Ty::Int, {"up", "north", "row_prev"},
                           "max(" + c.i() + " - 1, 0)", 1e6, false);
  std::string down =
      c.local(Ty::Int, {"down", "south", "row_next"},
              "min(" + c.i() + " + 1, " + g + ".shape(0) - 1)", 1e6, false);
  bool energy = c.rng.chance(50);
  std::string e;
  if (energy)
    e = c.local(b.real, {"energy", "row_sum", "total"}, c.lit(0), 1e6);
  static const char *const counters[] = {"j", "col", "x"};
  std::string j = b.freshName(counters);
  c.open("for (int " + j + " = 0; " + j + " < " + o + ".shape(1); ++" + j + ")",
         j, "",
         energy ? std::vector<std::string>{e} : std::vector<std::string>{});
  std::string lastCol = g + ".shape(1) - 1";
  std::string jc = c.local(Ty::Int, {"jc", "cj", "col_c"},
                           "min(" + j + ", " + lastCol + ")", 1e6, false);
  std::string jl = c.local(Ty::Int, {"jl", "west", "col_l"},
                           "max(" + jc + " - 1, 0)", 1e6, false);
  std::string jr = c.local(Ty::Int, {"jr", "east", "col_r"},
                           "min(" + jc + " + 1, " + lastCol + ")", 1e6, false);
  auto at = [&](const std::string &r, const std::string &col) {
    return g + "(" + r + ", " + col + ")";
  };
  std::string center =
      c.local(b.real, {"center", "c0", "here"}, at(c.i(), jc), 4);
  std::string value;
  switch (c.rng.below(3)) {
  case 0: {
    c.form("stencil.grid_diffusion", {"diffuse", "relax"},
           {"image", "grid", "heat"});
    std::string lap =
        c.local(b.real, {"lap", "laplacian", "d2"},
                at(up, jc) + " + " + at(down, jc) + " + " + at(c.i(), jl) +
                    " + " + at(c.i(), jr) + " - " + c.lit(400) + " * " + center,
                32);
    std::string alpha =
        c.coefficient("alpha", {"alpha", "kappa", "diffusivity"}, 5, 25);
    value = c.local(b.real, {"next", "relaxed", "v_new"},
                    center + " + " + alpha + " * " + lap, 200);
    break;
  }
  case 1:
    c.form("stencil.grid_blur", {"blur", "box_filter"},
           {"image", "grid", "heightmap"});
    value = c.local(b.real, {"blurred", "mean5", "box"},
                    "(" + center + " + " + at(up, jc) + " + " + at(down, jc) +
                        " + " + at(c.i(), jl) + " + " + at(c.i(), jr) + ") * " +
                        c.lit(20),
                    4);
    break;
  default: {
    c.form("stencil.grid_gradient", {"detect_edges", "sobel"},
           {"image", "heightmap", "depth"});
    std::string gx = c.local(b.real, {"gx", "dx", "grad_x"},
                             at(c.i(), jr) + " - " + at(c.i(), jl), 8);
    std::string gy = c.local(b.real, {"gy", "dy", "grad_y"},
                             at(down, jc) + " - " + at(up, jc), 8);
    value = c.local(b.real, {"edge", "grad_mag", "sobel"},
                    "sqrt(" + gx + " * " + gx + " + " + gy + " * " + gy +
                        " + " + c.lit(1) + ") - " + center,
                    16);
    break;
  }
  }
  b.line(o + "(" + c.i() + ", " + j + ") = " + value + ";");
  if (energy)
    b.line(e + " += " + value + " * " + value + ";");
  c.close();
  b.findArray(o)->written = true;
  if (energy)
    c.make(e, b.real);
}

void stencil(Composer &c) {
  Builder &b = c.b;
  unsigned form = c.rng.below(4);
  if (form == 3) {
    gridStencil(c);
    return;
  }
  std::string u = c.input("field", b.real, 1, kFields);
  if (form == 2) {
    smoothing(c, u);
    return;
  }
  std::string l = c.local(Ty::Int, {"left", "im", "west"},
                          "max(" + c.i() + " - 1, 0)", 1e6, false);
  std::string r =
      c.local(Ty::Int, {"right", "ip", "east"},
              "min(" + c.i() + " + 1, " + u + ".shape(0) - 1)", 1e6, false);
  std::string ui = u + "[" + c.i() + "]";
  std::string ul = u + "[" + l + "]", ur = u + "[" + r + "]";
  std::string dt = c.param("dt", b.real, kDt);
  std::string next;
  if (form == 0) {
    // Explicit diffusion, with a source term now and then.
    c.form("stencil.diffusion", {"diffuse", "heat_step", "relax"},
           {"heat", "temperature", "concentration", "field"});
    std::string lap =
        c.local(b.real, {"lap", "laplacian", "curv"},
                ul + " - " + c.lit(200) + " * " + ui + " + " + ur, 16);
    std::string alpha = c.coefficient("alpha", {"alpha", "kappa", "nu"}, 5, 50);
    std::string rhs = alpha + " * " + lap;
    double mag = 4 + 16 * 4 * 4;
    if (c.rng.chance(50)) {
      Expr src = c.term(4);
      rhs += " + " + b.paren(src, PAdd + 1).text;
      mag += 16;
    }
    next = c.local(b.real, {"next", "u_new", "updated"},
                   ui + " + " + dt + " * (" + rhs + ")", mag);
  } else {
    // First-order upwind advection.
    c.form("stencil.upwind", {"advect", "transport", "upwind"},
           {"density", "tracer", "field", "dye"});
    std::string speed =
        c.param("speed", b.real, {"speed", "velocity", "wind_x"});
    std::string du = c.local(b.real, {"du", "slope", "grad_u"},
                             speed + " > " + c.lit(0) + " ? " + ui + " - " +
                                 ul + " : " + ur + " - " + ui,
                             8);
    next = c.local(b.real, {"advected", "u_new", "next"},
                   ui + " - " + dt + " * " + speed + " * " + du, 4 + 128);
  }
  c.make(next, b.real);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// A dense layer's row: a dot product, a bias and an activation.
void denseRow(Composer &c) {
  Builder &b = c.b;
  c.form("reduction.dense", {"dense", "linear", "forward", "apply_layer"},
         {"layer", "features", "activations", "neurons"});
  static const char *const mats[] = {"W", "weights", "w_mat", "A"};
  std::string w = c.input("matrix", b.real, 2, mats);
  std::string x = c.input("features", b.real, 1, kFeatures);
  std::string init = c.lit(0);
  if (std::optional<Expr> bias = c.take(b.real, 16))
    init = bias->text;
  else if (c.rng.chance(50))
    init = c.param("bias", b.real, {"bias", "b0", "offset"});
  std::string s = c.local(b.real, {"s", "pre", "z"}, init, 1e6);
  static const char *const counters[] = {"j", "col", "k"};
  std::string j = b.freshName(counters);
  c.open("for (int " + j + " = 0; " + j + " < " + w + ".shape(1); ++" + j + ")",
         j, "", {s});
  b.line(s + " += " + w + "(" + c.i() + ", " + j + ") * " + x + "[min(" + j +
         ", " + x + ".shape(0) - 1)];");
  c.close();
  std::string act;
  switch (c.rng.below(4)) {
  case 0:
    act = "tanh(" + s + ")";
    break;
  case 1:
    act = "max(" + s + ", " + c.lit(0) + ")";
    break;
  case 2:
    act = s + " / (" + c.lit(100) + " + abs(" + s + "))";
    break;
  default:
    act = c.lit(50) + " * tanh(" + c.lit(50) + " * " + s + ") + " + c.lit(50);
    break;
  }
  c.make(c.local(b.real, {"act", "h_out", "a"}, act, 1e6), b.real);
}

/// Softmax over a whole input: its maximum, the normalizer, one share.
void softmax(Composer &c) {
  Builder &b = c.b;
  c.form("reduction.softmax", {"softmax", "attend", "normalize"},
         {"logits", "scores", "weights"});
  std::string x = c.input("features", b.real, 1, kFeatures);
  std::string m = c.local(b.real, {"m", "peak", "xmax"}, x + "[0]", 4);
  std::string j = c.openOver(x, {m});
  b.line(m + " = max(" + m + ", " + x + "[" + j + "]);");
  c.close();
  std::string scale;
  if (c.rng.chance(40))
    scale = " * " + c.lit(c.rng.range(50, 200));
  std::string z = c.local(b.real, {"z", "denom", "partition"}, c.lit(0), 1e6);
  std::string k = c.openOver(x, {z});
  auto shifted = [&](const std::string &at) {
    std::string diff = x + "[" + at + "] - " + m;
    return scale.empty() ? diff : "(" + diff + ")" + scale;
  };
  b.line(z + " += exp(" + shifted(k) + ");");
  c.close();
  c.make(c.local(b.real, {"p", "prob", "share"},
                 "exp(" + shifted(c.i()) + ") / " + z, 1),
         b.real);
}

/// Normalization by the mean and variance of a whole input.
void normalization(Composer &c) {
  Builder &b = c.b;
  c.form("reduction.normalization", {"normalize", "standardize", "layer_norm"},
         {"features", "activations", "samples"});
  std::string x = c.input("features", b.real, 1, kFeatures);
  std::string count = c.R() + "(" + x + ".shape(0))";
  std::string mean = c.local(b.real, {"mean", "mu_x", "avg"}, c.lit(0), 4);
  std::string j = c.openOver(x, {mean});
  b.line(mean + " += " + x + "[" + j + "];");
  c.close();
  b.line(mean + " /= " + count + ";");
  std::string var =
      c.local(b.real, {"var", "variance", "spread"}, c.lit(0), 64);
  std::string k = c.openOver(x, {var});
  std::string dx = c.local(b.real, {"dx", "dev", "centered"},
                           x + "[" + k + "] - " + mean, 8);
  b.line(var + " += " + dx + " * " + dx + ";");
  c.close();
  b.line(var + " /= " + count + ";");
  std::string value = "(" + x + "[" + c.i() + "] - " + mean + ") / sqrt(" +
                      var + " + " + c.lit(1) + ")";
  if (c.rng.chance(50)) {
    std::string beta = c.param("beta", b.real, {"beta", "shift"});
    std::string gamma = c.param("gamma", b.real, {"gamma", "gain"});
    value = value + " * " + gamma + " + " + beta;
  }
  c.make(c.local(b.real, {"xn", "normed", "zscore"}, value, 1e3), b.real);
}

/// Atomic accumulation of a value: into one total, or into a histogram.
void atomicTotal(Composer &c) {
  Builder &b = c.b;
  Expr v;
  const Made *vec = nullptr;
  for (const Made &m : c.made)
    if (m.ty == Ty::Vec3)
      vec = &m;
  if (std::optional<Expr> made = c.take(b.real, 1e3, 100))
    v = *made;
  else if (vec)
    // A kinetic energy, a squared length.
    v = b.limit(Expr{"0.5f * dot(" + vec->name + ", " + vec->name + ")", PMul,
                     1e8, true},
                b.real, 1e3);
  else
    v = b.limit(b.activeExpr(b.real, depthOf(c.d)), b.real, 1e3);
  if (c.rng.chance(60)) {
    c.form("reduction.atomic_total", {"accumulate", "tally", "reduce"},
           {"energy", "values", "samples"});
    std::string total =
        c.d.addArray(b.real, 1, false, {"total", "energy", "sum_out"}, true);
    b.line("atomic_add(" + total + ", 0, " + v.text + ");");
    return;
  }
  c.form("reduction.histogram", {"histogram", "bin", "count"},
         {"values", "samples", "energies"});
  std::string hist =
      c.d.addArray(b.real, 1, false, {"hist", "bins", "counts"}, true);
  std::string bin = c.local(Ty::Int, {"bin", "bucket", "slot"},
                            "clamp(int(floor(" + b.paren(v, PAdd + 1).text +
                                " * " + c.lit(c.rng.range(25, 200)) +
                                ")), 0, " + hist + ".shape(0) - 1)",
                            1e6, false);
  std::string w = c.rng.chance(50) ? c.lit(100) : "abs(" + v.text + ")";
  b.line("atomic_add(" + hist + ", " + bin + ", " + w + ");");
}

void reduction(Composer &c) {
  // Over particles and shapes: a total of what the patterns computed.
  if (c.domain != Domain::Field) {
    atomicTotal(c);
    return;
  }
  switch (c.rng.below(4)) {
  case 0:
    denseRow(c);
    return;
  case 1:
    softmax(c);
    return;
  case 2:
    normalization(c);
    return;
  default:
    atomicTotal(c);
    return;
  }
}

//===----------------------------------------------------------------------===//
// Particles
//===----------------------------------------------------------------------===//

/// The pairwise loop of an n-body, spring, SPH or Lennard-Jones force.
void particles(Composer &c) {
  Builder &b = c.b;
  std::string pos = c.input("points", Ty::Vec3, 1, kPositions);
  std::string mass;
  if (c.rng.chance(50))
    mass = c.input("mass", Ty::Float, 1, {"mass", "masses", "charge"});
  bool density = c.rng.chance(25);
  std::string acc =
      density ? c.local(Ty::Float, {"rho", "density_i", "dens"}, "0.0f", 1e4)
              : c.local(Ty::Vec3, {"force", "f", "f_total"}, "vec3(0.0f)", 1e4);
  std::string j = c.openOver(pos, {acc});
  if (c.rng.chance(40)) {
    b.line("if (" + j + " == " + c.i() + ") {");
    b.line("  continue;");
    b.line("}");
  }
  std::string d = c.local(Ty::Vec3, {"d", "rij", "sep"},
                          pos + "[" + j + "] - " + pos + "[" + c.i() + "]", 8);
  int soft = c.rng.range(5, 25);
  std::string r2 = c.local(Ty::Float, {"r2", "dist2", "rsq"},
                           "dot(" + d + ", " + d + ") + " + c.flit(soft), 200);
  bool cutoff = c.rng.chance(30);
  if (cutoff) {
    b.line("if (" + r2 + " < " + c.flit(c.rng.range(100, 400)) + ") {");
    ++b.indent;
  }
  std::string m = mass.empty() ? "" : mass + "[" + j + "]";
  auto weighted = [&](const std::string &s) {
    return m.empty() ? s : m + " * " + s;
  };
  unsigned law = density ? 2 : c.rng.below(4);
  static const char *const lawNames[] = {"particles.gravity",
                                         "particles.spring", "particles.sph",
                                         "particles.lennard_jones"};
  static const std::vector<const char *> lawVerbs[] = {
      {"gravitate", "nbody", "attract"},
      {"spring_forces", "connect", "relax"},
      {"sph_forces", "smooth", "cohere"},
      {"lennard_jones", "repel", "interact"}};
  if (density)
    c.form("particles.density", {"sph_density", "estimate_density", "splat"},
           {"particles", "fluid", "droplets"});
  else
    c.form(lawNames[law], lawVerbs[law],
           {"particles", "bodies", "atoms", "charges"});
  std::string scalar;
  if (law == 0) {
    scalar = c.local(Ty::Float, {"inv", "inv_r3", "w3"},
                     "1.0f / (" + r2 + " * sqrt(" + r2 + "))", 100);
    scalar = weighted(scalar);
  } else if (law == 1) {
    std::string r =
        c.local(Ty::Float, {"r", "dist", "len"}, "sqrt(" + r2 + ")", 8);
    std::string k = c.rng.chance(50)
                        ? c.param("stiffness", Ty::Float, {"stiffness", "ks"})
                        : c.flit(c.rng.range(50, 300));
    scalar = k + " * (" + r + " - " + c.flit(c.rng.range(50, 150)) + ") / " + r;
  } else if (law == 2) {
    std::string w =
        c.local(Ty::Float, {"w", "kern", "wij"},
                "exp(-" + r2 + " * " + c.flit(c.rng.range(50, 200)) + ")", 1);
    scalar = weighted(w);
  } else {
    std::string s2 = c.local(Ty::Float, {"s2", "sr2", "ratio2"},
                             c.flit(c.rng.range(1, soft)) + " / " + r2, 1);
    std::string s6 = c.local(Ty::Float, {"s6", "sr6", "ratio6"},
                             s2 + " * " + s2 + " * " + s2, 1);
    scalar = "(" + s6 + " * " + s6 + " - " + s6 + ") / " + r2;
  }
  if (density)
    b.line(acc + " += " + scalar + ";");
  else
    b.line(acc + " += " + d + " * (" + scalar + ");");
  if (cutoff) {
    --b.indent;
    b.line("}");
  }
  c.close();
  c.make(acc, density ? Ty::Float : Ty::Vec3);
}

//===----------------------------------------------------------------------===//
// Integrators
//===----------------------------------------------------------------------===//

/// One step of a particle: acceleration, velocity, position, a floor.
void integrateParticle(Composer &c) {
  Builder &b = c.b;
  std::vector<const char *> verbs = {"step", "integrate", "advance"};
  std::vector<const char *> nouns = {"particles", "bodies", "cloth", "points"};
  std::string pos = c.input("points", Ty::Vec3, 1, kPositions);
  std::string vel = c.input("velocities", Ty::Vec3, 1, kVelocities);
  std::string dt = c.param("dt", Ty::Float, kDt);
  std::string pi = pos + "[" + c.i() + "]", vi = vel + "[" + c.i() + "]";
  std::string accel;
  if (std::optional<Expr> f = c.take(Ty::Vec3, 1e4, 100)) {
    std::string g = c.rng.chance(50)
                        ? c.param("gravity", Ty::Vec3, {"gravity", "g_vec"})
                        : "vec3(0.0f, -9.8f, 0.0f)";
    std::string invMass =
        c.coefficient("inv_mass", {"inv_mass", "inv_m"}, 10, 100);
    accel = b.paren(*f, PMul).text + " * " + invMass + " + " + g;
  } else {
    std::string k =
        c.coefficient("stiffness", {"stiffness", "k_spring"}, 50, 400);
    std::string damping = c.coefficient("damping", {"damping", "drag"}, 5, 50);
    accel = "-" + pi + " * " + k + " - " + vi + " * " + damping;
  }
  std::string a = c.local(Ty::Vec3, {"a", "accel", "acc_v"}, accel, 64);
  std::string v1, x1;
  if (c.rng.chance(60)) {
    // Symplectic Euler, with drag now and then.
    c.form("integrator.symplectic_euler", verbs, nouns);
    std::string v = vi + " + " + a + " * " + dt;
    if (c.rng.chance(40))
      v = "(" + v + ") * " + c.flit(c.rng.range(90, 99));
    v1 = c.local(Ty::Vec3, {"v_new", "vel1", "vn"}, v, 300);
    x1 = c.local(Ty::Vec3, {"x_new", "pos1", "xn"},
                 pi + " + " + v1 + " * " + dt, 1300);
  } else {
    // Velocity Verlet's half steps.
    c.form("integrator.verlet", verbs, nouns);
    std::string half =
        c.local(Ty::Float, {"half_dt", "hdt"}, "0.5f * " + dt, 2);
    std::string vh = c.local(Ty::Vec3, {"v_half", "vh", "vmid"},
                             vi + " + " + a + " * " + half, 200);
    x1 = c.local(Ty::Vec3, {"x_new", "pos1", "xn"},
                 pi + " + " + vh + " * " + dt, 1000);
    v1 = c.local(Ty::Vec3, {"v_new", "vel1", "vn"},
                 vh + " + " + a + " * " + half, 400);
  }
  if (c.rng.chance(40)) {
    std::string ground =
        c.coefficient("ground", {"ground", "floor_y"}, -100, 0);
    b.line("if (" + x1 + ".y < " + ground + ") {");
    b.line("  " + x1 + ".y = " + ground + ";");
    b.line("  " + v1 + ".y = -" + v1 + ".y * " + c.flit(c.rng.range(30, 90)) +
           ";");
    b.line("}");
  }
  c.make(x1, Ty::Vec3, "pos");
  c.make(v1, Ty::Vec3, "vel");
}

/// A scalar ODE, a few fixed substeps of Euler, midpoint or an oscillator.
void integrateScalar(Composer &c) {
  Builder &b = c.b;
  std::vector<const char *> verbs = {"integrate", "evolve", "advance"};
  std::vector<const char *> nouns = {"state", "ode", "decay"};
  std::string init;
  if (std::optional<Expr> v = c.take(b.real, 16))
    init = v->text;
  else
    init = c.input("field", b.real, 1, kFields) + "[" + c.i() + "]";
  std::string dt = c.param("dt", b.real, kDt);
  int steps = c.rng.pick(llvm::ArrayRef<int>({2, 4, 5, 8}));
  std::string h = c.local(b.real, {"h", "sub_dt", "step_h"},
                          dt + " * " + c.lit(100 / steps), 4);
  std::string drive;
  if (c.rng.chance(50))
    drive = c.local(b.real, {"drive", "forcing", "src"}, c.term(4).text, 4);
  std::string y = c.local(b.real, {"y", "state_y", "q"}, init, 1e6);
  std::string k = c.coefficient("rate", {"rate", "lambda", "k_decay"}, 25, 200);
  unsigned law = c.rng.below(3);
  auto rhs = [&](const std::string &at) {
    std::string f;
    switch (law) {
    case 0:
      f = "-" + k + " * " + at;
      break;
    case 1:
      f = "-" + k + " * sin(" + at + ")";
      break;
    default:
      f = k + " * tanh(" + at + ")";
      break;
    }
    return drive.empty() ? f : f + " + " + drive;
  };
  static const char *const counters[] = {"s", "sub", "it"};
  std::string s = b.freshName(counters);
  std::string header = "for (int " + s + " = 0; " + s + " < " +
                       std::to_string(steps) + "; ++" + s + ")";
  switch (c.rng.below(3)) {
  case 0:
    c.form("integrator.euler", verbs, nouns);
    c.open(header, s, "", {y});
    b.line(y + " += " + h + " * (" + rhs(y) + ");");
    c.close();
    break;
  case 1: {
    c.form("integrator.midpoint", verbs, nouns);
    c.open(header, s, "", {y});
    std::string k1 = c.local(b.real, {"k1", "slope1"}, rhs(y), 1e6);
    std::string ym =
        c.local(b.real, {"ymid", "y_half"},
                y + " + " + c.lit(50) + " * " + h + " * " + k1, 1e6);
    std::string k2 = c.local(b.real, {"k2", "slope2"}, rhs(ym), 1e6);
    b.line(y + " += " + h + " * " + k2 + ";");
    c.close();
    break;
  }
  default: {
    c.form("integrator.oscillator", {"oscillate", "ring", "vibrate"},
           {"oscillators", "springs", "modes"});
    std::string v = c.local(b.real, {"vy", "rate_y", "ydot"}, c.lit(0), 1e6);
    c.open(header, s, "", {y, v});
    b.line(v + " += " + h + " * (" + rhs(y) + " - " +
           c.lit(c.rng.range(5, 50)) + " * " + v + ");");
    b.line(y + " += " + h + " * " + v + ";");
    c.close();
    break;
  }
  }
  c.make(y, b.real);
}

//===----------------------------------------------------------------------===//
// Small matrix algebra
//===----------------------------------------------------------------------===//

const char *const kMatInputs[] = {"xforms", "frames", "jacobians", "F_def"};

/// A vector a pattern made (a position first), or a point of an input.
std::string pointOf(Composer &c) {
  c.takenRole.clear();
  // A particle collides where the step before moved it.
  unsigned percent = c.domain == Domain::Particles ? 100 : 75;
  if (std::optional<Expr> v = c.take(Ty::Vec3, 1e4, percent, "pos"))
    return v->text;
  return c.input("points", Ty::Vec3, 1, kPositions) + "[" + c.i() + "]";
}

void algebra(Composer &c) {
  // The kernel's matrix of this thread.
  auto matrix = [&c] {
    return c.input("matrices", Ty::Mat33, 1, kMatInputs) + "[" + c.i() + "]";
  };
  static const char *const forms[] = {
      "algebra.transform", "algebra.strain_energy", "algebra.gauss_newton",
      "algebra.rotation"};
  switch (c.drawForm(forms)) {
  case 0: {
    std::string mi = matrix();
    // A transform, or its inverse for a rotation.
    c.form("algebra.transform", {"transform", "to_world", "apply_xform"},
           {"points", "vertices", "frames"});
    std::string p = pointOf(c);
    std::string value =
        c.rng.chance(50) ? mi + " * " + p : "transpose(" + mi + ") * " + p;
    if (c.rng.chance(50))
      value += " + " + c.param("offset", Ty::Vec3, {"offset_v", "translation"});
    c.make(c.local(Ty::Vec3, {"p_world", "moved", "xp"}, value, 100), Ty::Vec3);
    return;
  }
  case 1: {
    // St. Venant-Kirchhoff strain energy of a deformation gradient.
    c.form("algebra.strain_energy", {"strain_energy", "deform", "stvk"},
           {"elements", "tets", "material"});
    std::string mi = matrix();
    std::string f = c.rng.chance(50) ? mi
                                     : "identity<mat33>() + " + mi + " * " +
                                           c.flit(c.rng.range(5, 30));
    std::string F = c.local(Ty::Mat33, {"F", "defgrad"}, f, 8);
    std::string E = c.local(
        Ty::Mat33, {"E", "strain", "green"},
        "(transpose(" + F + ") * " + F + " - identity<mat33>()) * 0.5f", 100);
    std::string tr = c.local(Ty::Float, {"tr", "trE", "vol_strain"},
                             "trace(" + E + ")", 300);
    std::string mu = c.coefficient("mu", {"mu", "shear"}, 10, 100);
    std::string lam = c.coefficient("lambda", {"lam", "lame"}, 10, 100);
    c.make(c.local(Ty::Float, {"psi", "energy_density", "w_strain"},
                   mu + " * trace(transpose(" + E + ") * " + E + ") + " + lam +
                       " * 0.5f * " + tr + " * " + tr,
                   1e6),
           Ty::Float);
    return;
  }
  case 2: {
    // A damped Gauss-Newton (Levenberg-Marquardt) step.
    c.form("algebra.gauss_newton", {"solve", "gauss_newton", "lm_step"},
           {"poses", "residuals", "joints"});
    std::string mi = matrix();
    std::string r = pointOf(c);
    std::string A =
        c.local(Ty::Mat33, {"JtJ", "normal_m", "H"},
                "transpose(" + mi + ") * " + mi + " + identity<mat33>() * " +
                    c.flit(c.rng.range(50, 200)),
                100);
    std::string g = c.local(Ty::Vec3, {"g", "grad_v", "rhs"},
                            "transpose(" + mi + ") * " + r, 100);
    c.make(c.local(Ty::Vec3, {"step", "dx", "delta_x"},
                   "inverse(" + A + ") * " + g, 300),
           Ty::Vec3);
    return;
  }
  default: {
    // Rodrigues' rotation of a vector about an axis.
    c.form("algebra.rotation", {"rotate", "spin", "orient"},
           {"vectors", "frames", "points"});
    std::string v = pointOf(c);
    std::string k =
        c.local(Ty::Vec3, {"axis_n", "k_hat", "unit_axis"},
                "normalize(" + c.param("axis", Ty::Vec3, {"axis"}) + ")", 1);
    std::string angle;
    if (std::optional<Expr> a = c.take(Ty::Float, 16))
      angle = a->text;
    else
      angle = c.param("angle", Ty::Float, {"angle", "theta"});
    std::string cs =
        c.local(Ty::Float, {"cs", "cos_t"}, "cos(" + angle + ")", 1);
    std::string sn =
        c.local(Ty::Float, {"sn", "sin_t"}, "sin(" + angle + ")", 1);
    c.make(c.local(Ty::Vec3, {"rotated", "v_rot"},
                   v + " * " + cs + " + cross(" + k + ", " + v + ") * " + sn +
                       " + " + k + " * (dot(" + k + ", " + v + ") * (1.0f - " +
                       cs + "))",
                   16),
           Ty::Vec3);
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Rays and geometry
//===----------------------------------------------------------------------===//

void raySphere(Composer &c) {
  c.form("geometry.ray_sphere", {"trace", "intersect", "shade"},
         {"rays", "spheres", "scene"});
  Builder &b = c.b;
  std::string o = c.input("origins", Ty::Vec3, 1, {"origins", "ray_o", "eye"});
  std::string dirs = c.input("dirs", Ty::Vec3, 1, {"dirs", "ray_d", "rays"});
  std::string center = c.param("center", Ty::Vec3, {"center", "sphere_c"});
  std::string radius = c.param("radius", Ty::Float, {"radius", "r_sphere"});
  std::string oi = o + "[" + c.i() + "]";
  std::string dir = c.local(Ty::Vec3, {"dir", "rd", "ray_dir"},
                            "normalize(" + dirs + "[" + c.i() + "])", 1);
  std::string oc =
      c.local(Ty::Vec3, {"oc", "to_origin", "rel"}, oi + " - " + center, 8);
  std::string bq = c.local(Ty::Float, {"b", "half_b", "proj"},
                           "dot(" + oc + ", " + dir + ")", 16);
  std::string cq =
      c.local(Ty::Float, {"c", "cq", "off2"},
              "dot(" + oc + ", " + oc + ") - " + radius + " * " + radius, 300);
  std::string disc = c.local(Ty::Float, {"disc", "discr", "delta_q"},
                             bq + " * " + bq + " - " + cq, 600);
  std::string t = c.local(Ty::Float, {"t", "t_hit", "depth"},
                          c.flit(c.rng.range(1000, 10000)), 1e3);
  b.line("if (" + disc + " > 0.0f) {");
  b.line("  " + t + " = -" + bq + " - sqrt(" + disc + ");");
  b.line("}");
  if (c.rng.chance(60)) {
    std::string hit = c.local(Ty::Vec3, {"hit", "p_hit", "surf"},
                              oi + " + " + dir + " * " + t, 1e4);
    std::string n = c.local(Ty::Vec3, {"n", "nrm", "normal_h"},
                            "normalize(" + hit + " - " + center + ")", 1);
    std::string light =
        c.param("light", Ty::Vec3, {"light_dir", "sun", "to_light"});
    c.make(c.local(Ty::Float, {"lambert", "diffuse", "shade"},
                   "max(dot(" + n + ", normalize(" + light + ")), 0.0f)", 1),
           Ty::Float);
    c.make(n, Ty::Vec3);
    return;
  }
  c.make(t, Ty::Float);
}

/// A point pushed out of a sphere it is inside.
void pushOutOfSphere(Composer &c) {
  c.form("geometry.sphere_collision", {"collide", "push_out", "resolve"},
         {"particles", "points", "sphere"});
  std::string p = c.local(Ty::Vec3, {"p", "pc", "q"}, pointOf(c), 16);
  std::string role = c.takenRole;
  std::string center = c.param("center", Ty::Vec3, {"center", "sphere_c"});
  std::string radius = c.param("radius", Ty::Float, {"radius", "r_sphere"});
  std::string rel =
      c.local(Ty::Vec3, {"rel", "from_c", "offset_p"}, p + " - " + center, 32);
  std::string pen = c.local(Ty::Float, {"pen", "depth_in", "sd_s"},
                            "length(" + rel + ") - " + radius, 64);
  c.b.line("if (" + pen + " < 0.0f) {");
  c.b.line("  " + p + " -= normalize(" + rel + ") * " + pen + ";");
  c.b.line("}");
  c.make(p, Ty::Vec3, role);
}

void geometry(Composer &c) {
  Builder &b = c.b;
  static const char *const forms[] = {"geometry.ray_sphere", "geometry.plane",
                                      "geometry.reflection",
                                      "geometry.triangle", "geometry.sdf"};
  unsigned form = c.drawForm(forms);
  // Particles collide: with a plane, or with a sphere.
  if (c.domain == Domain::Particles)
    form = c.rng.chance(50) ? 1 : 5;
  switch (form) {
  case 0:
    raySphere(c);
    return;
  case 5:
    pushOutOfSphere(c);
    return;
  case 1: {
    // Projection of a point out of a half-space.
    c.form("geometry.plane", {"project", "collide", "push_out"},
           {"points", "plane", "halfspace"});
    std::string p = c.local(Ty::Vec3, {"q", "p_proj", "pc"}, pointOf(c), 8);
    std::string role = c.takenRole;
    std::string n = c.local(
        Ty::Vec3, {"plane_n", "nrm", "up"},
        "normalize(" + c.param("normal", Ty::Vec3, {"normal", "n_plane"}) + ")",
        1);
    std::string dist =
        c.local(Ty::Float, {"dist", "sd_plane", "height_p"},
                "dot(" + p + ", " + n + ") - " +
                    c.coefficient("plane_d", {"plane_d", "offset"}, -100, 100),
                16);
    b.line("if (" + dist + " < 0.0f) {");
    b.line("  " + p + " -= " + n + " * " + dist + ";");
    b.line("}");
    c.make(p, Ty::Vec3, role);
    return;
  }
  case 2: {
    // Reflection of a direction about a normal.
    c.form("geometry.reflection", {"reflect", "bounce"},
           {"rays", "directions", "light"});
    std::string d = c.local(Ty::Vec3, {"d_in", "incident", "wi"},
                            "normalize(" + pointOf(c) + ")", 1);
    std::string n = c.local(
        Ty::Vec3, {"n_surf", "normal_v", "ns"},
        "normalize(" + c.input("normals", Ty::Vec3, 1, {"normals", "nrms"}) +
            "[" + c.i() + "])",
        1);
    c.make(c.local(Ty::Vec3, {"refl", "wo", "bounce"},
                   d + " - " + n + " * (2.0f * dot(" + d + ", " + n + "))", 3),
           Ty::Vec3);
    return;
  }
  case 3: {
    // A triangle of consecutive vertices: normal and area.
    c.form("geometry.triangle", {"triangle_area", "face_normals", "mesh_area"},
           {"mesh", "faces", "triangles"});
    std::string v =
        c.input("verts", Ty::Vec3, 1, {"verts", "vertices", "mesh"});
    std::string last = v + ".shape(0) - 1";
    std::string i1 =
        c.local(Ty::Int, {"i1", "ia", "next1"},
                "min(" + c.i() + " + 1, " + last + ")", 1e6, false);
    std::string i2 =
        c.local(Ty::Int, {"i2", "ib", "next2"},
                "min(" + c.i() + " + 2, " + last + ")", 1e6, false);
    std::string vi = v + "[" + c.i() + "]";
    std::string e1 =
        c.local(Ty::Vec3, {"e1", "edge1", "ab"}, v + "[" + i1 + "] - " + vi, 8);
    std::string e2 =
        c.local(Ty::Vec3, {"e2", "edge2", "ac"}, v + "[" + i2 + "] - " + vi, 8);
    std::string n = c.local(Ty::Vec3, {"fn", "face_n", "cr"},
                            "cross(" + e1 + ", " + e2 + ")", 128);
    c.make(c.local(Ty::Float, {"area", "tri_area"}, "0.5f * length(" + n + ")",
                   128),
           Ty::Float);
    c.make(n, Ty::Vec3);
    return;
  }
  default: {
    // A smooth union of a sphere's and a ground plane's distance fields.
    c.form("geometry.sdf", {"sdf", "distance", "smooth_union"},
           {"scene", "field", "shapes"});
    std::string p = c.local(Ty::Vec3, {"p", "sample_p", "pt"}, pointOf(c), 8);
    std::string center = c.param("center", Ty::Vec3, {"center", "sphere_c"});
    std::string radius = c.param("radius", Ty::Float, {"radius", "r_sphere"});
    std::string d1 =
        c.local(Ty::Float, {"d_sphere", "ds", "sd1"},
                "length(" + p + " - " + center + ") - " + radius, 16);
    std::string d2 = c.local(
        Ty::Float, {"d_ground", "dg", "sd2"},
        p + ".y - " + c.coefficient("ground", {"ground", "floor_y"}, -100, 0),
        8);
    std::string k = c.flit(c.rng.range(10, 90));
    std::string h = c.local(Ty::Float, {"blend_h", "hk", "mixw"},
                            "clamp(0.5f + 0.5f * (" + d2 + " - " + d1 + ") / " +
                                k + ", 0.0f, 1.0f)",
                            1);
    c.make(c.local(Ty::Float, {"sdf", "dist_u", "sd"},
                   "lerp(" + d2 + ", " + d1 + ", " + h + ") - " + k + " * " +
                       h + " * (1.0f - " + h + ")",
                   32),
           Ty::Float);
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Composition
//===----------------------------------------------------------------------===//

/// Writes what no pattern took to outputs of its type, one each.
void storeResults(Composer &c) {
  unsigned reals = 0, vecs = 0;
  for (const Made &m : c.made) {
    if (m.taken)
      continue;
    if (m.role == "pos")
      c.store("pos_out", m.ty, m.name, 1e4, {"pos_out", "new_pos", "x_out"});
    else if (m.role == "vel")
      c.store("vel_out", m.ty, m.name, 1e4, {"vel_out", "new_vel", "v_out"});
    else if (isVec(m.ty))
      c.store("vec_out" + std::to_string(vecs++), m.ty, m.name, 1e4, kVecOut);
    else if (isReal(m.ty))
      c.store(reals++ ? "real_out" + std::to_string(reals) : "real_out", m.ty,
              m.name, 1e6, kRealOut);
  }
}

} // namespace

GeneratedKernel detail::realisticKernel(Draft &d) {
  Composer c(d);
  // Two or three patterns of one domain, each taking what the one before
  // made.
  c.domain = Domain(d.rng.below(3));
  std::vector<Pattern> chain;
  chain.push_back(d.rng.pick(leads(c.domain)));
  unsigned n = unsigned(d.rng.range(2, 3));
  while (chain.size() < n) {
    // Not the same pattern twice in a row where another may follow.
    llvm::SmallVector<Pattern> next;
    for (Pattern p : followers(c.domain, chain.back()))
      if (p != chain.back())
        next.push_back(p);
    chain.push_back(d.rng.pick(llvm::ArrayRef<Pattern>(next)));
  }
  if (c.domain == Domain::Field)
    chooseReal(d);
  // The random statements between the patterns: scalar code, few and
  // short; the patterns declare their vectors themselves.
  Features &f = d.b.feat;
  f.math = true;
  f.ternary = d.rng.chance(30);
  d.begin();
  // An output the random statements may add to from the start.
  c.roles["real_out"] = d.addArray(d.b.real, 1, false, kRealOut);
  for (size_t k = 0; k < chain.size(); ++k) {
    if (k > 0 && d.rng.chance(40))
      d.randomStatements(d.b.blockSize(2));
    switch (chain[k]) {
    case Pattern::Stencil:
      stencil(c);
      break;
    case Pattern::Reduction:
      reduction(c);
      break;
    case Pattern::Particles:
      particles(c);
      break;
    case Pattern::Integrator:
      if (c.domain == Domain::Field)
        integrateScalar(c);
      else
        integrateParticle(c);
      break;
    case Pattern::Algebra:
      algebra(c);
      break;
    case Pattern::Geometry:
      geometry(c);
      break;
    }
  }
  if (d.rng.chance(40))
    d.randomStatements(d.b.blockSize(2));
  storeResults(c);
  d.chooseName(c.nameVerbs, c.nameNouns);
  GeneratedKernel kernel = d.finish();
  kernel.patterns = std::move(c.patterns);
  return kernel;
}
