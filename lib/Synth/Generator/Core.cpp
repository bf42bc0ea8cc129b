//===- Core.cpp - Random numbers, types, names, literals ------------------===//
//
// Part of ksc. The machinery under the kernel generator's grammar: draws
// from the SplitMix64 generator, the types of the grammar, unique names from word
// lists, literals and the environment of variables in scope.
//
//===----------------------------------------------------------------------===//

#include "Impl.h"

#include "ksc/Frontend/Builtins.h"

#include <cassert>

using namespace ksc::synth;
using namespace ksc::synth::detail;

//===----------------------------------------------------------------------===//
// Rng
//===----------------------------------------------------------------------===//

unsigned Rng::below(unsigned n) {
  assert(n > 0 && "empty range");
  return unsigned(next() % n);
}

int Rng::range(int lo, int hi) {
  if (hi <= lo)
    return lo;
  return lo + int(below(unsigned(hi - lo + 1)));
}

bool Rng::chance(unsigned percent) { return below(100) < percent; }

unsigned Rng::weighted(llvm::ArrayRef<unsigned> weights) {
  unsigned total = 0;
  for (unsigned weight : weights)
    total += weight;
  unsigned roll = below(total);
  unsigned pick = 0;
  while (roll >= weights[pick]) {
    roll -= weights[pick];
    ++pick;
  }
  return pick;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

llvm::StringRef detail::tyName(Ty ty) {
  switch (ty) {
  case Ty::Float:
    return "float";
  case Ty::Double:
    return "double";
  case Ty::Int:
    return "int";
  case Ty::Bool:
    return "bool";
  case Ty::Vec2:
    return "vec2";
  case Ty::Vec3:
    return "vec3";
  case Ty::Vec4:
    return "vec4";
  case Ty::Mat22:
    return "mat22";
  case Ty::Mat33:
    return "mat33";
  case Ty::Mat44:
    return "mat44";
  }
  return "float";
}

bool detail::isReal(Ty ty) { return ty == Ty::Float || ty == Ty::Double; }
bool detail::isVec(Ty ty) {
  return ty == Ty::Vec2 || ty == Ty::Vec3 || ty == Ty::Vec4;
}
bool detail::isMat(Ty ty) {
  return ty == Ty::Mat22 || ty == Ty::Mat33 || ty == Ty::Mat44;
}

unsigned detail::dimOf(Ty ty) {
  switch (ty) {
  case Ty::Vec2:
  case Ty::Mat22:
    return 2;
  case Ty::Vec3:
  case Ty::Mat33:
    return 3;
  case Ty::Vec4:
  case Ty::Mat44:
    return 4;
  default:
    return 1;
  }
}

Ty detail::vecOfDim(unsigned n) {
  return n == 2 ? Ty::Vec2 : n == 3 ? Ty::Vec3 : Ty::Vec4;
}
Ty detail::matOfDim(unsigned n) {
  return n == 2 ? Ty::Mat22 : n == 3 ? Ty::Mat33 : Ty::Mat44;
}

//===----------------------------------------------------------------------===//
// Builder: lines, names, environment, literals
//===----------------------------------------------------------------------===//

// Names that must never be taken by a variable or a function: the builtins
// (ksc::getBuiltins()), and types and keywords a word list might otherwise
// produce.
static const char *const kReserved[] = {
    "i", "array", "vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "int",
    "float", "double", "bool", "do", "if", "for", "while", "quat", "signed",
    "unsigned", "main", "std", "ksc", "delete", "new", "this", "char",
    "short", "long", "auto", "case", "default", "union", "enum", "struct",
    "class", "template", "typename", "return", "break", "continue", "switch",
    "goto", "true", "false", "const", "static", "register", "volatile",
    "sizeof"};

Builder::Builder(Rng &rng, const GeneratorOptions &options)
    : rng(rng), opts(options) {
  if (opts.maxDepth == 0)
    opts.maxDepth = 1;
  if (opts.maxStatements == 0)
    opts.maxStatements = 1;
  for (const char *word : kReserved)
    used.insert(word);
  for (const BuiltinInfo &builtin : getBuiltins())
    used.insert(builtin.name);
  pushScope();
}

void Builder::line(const std::string &text) {
  lines.push_back(std::string(2 * indent, ' ') + text);
}

std::string Builder::freshName(llvm::ArrayRef<const char *> words) {
  // A few tries for an unused word, then a numbered one.
  for (unsigned attempt = 0; attempt < 3; ++attempt) {
    std::string word = rng.pick(words);
    if (used.insert(word).second)
      return word;
  }
  std::string word = rng.pick(words);
  for (unsigned n = 2;; ++n) {
    std::string candidate = word + std::to_string(n);
    if (used.insert(candidate).second)
      return candidate;
  }
}

std::string Builder::nameFor(Ty ty) {
  static const char *const reals[] = {
      "acc",   "sum",    "val",   "w",     "scale", "energy", "dist",
      "delta", "gain",   "tmp",   "ratio", "bias",  "offset", "alpha",
      "beta",  "temp",   "rate",  "score", "speed", "phase",  "damp",
      "diff",  "total",  "avg",   "h",     "res",   "f",      "a",
      "b",     "weight", "decay", "slope", "prod",  "mag"};
  static const char *const ints[] = {"n",     "idx",  "count", "bin",
                                     "lane",  "slot", "cell",  "hits",
                                     "level", "off",  "pick",  "base"};
  static const char *const bools[] = {"inside", "active", "flag", "hit",
                                      "valid",  "mask",   "done", "keep",
                                      "above",  "neg"};
  static const char *const vecs[] = {
      "pos", "vel", "dir",   "force",  "normal", "axis",    "p",
      "q",   "v",   "accel", "center", "disp",   "tangent", "u"};
  static const char *const mats[] = {"rot", "m",     "xf",     "basis",
                                     "jac", "frame", "stress", "inertia",
                                     "cov", "A",     "R",      "M"};
  switch (ty) {
  case Ty::Float:
  case Ty::Double:
    return freshName(reals);
  case Ty::Int:
    return freshName(ints);
  case Ty::Bool:
    return freshName(bools);
  case Ty::Vec2:
  case Ty::Vec3:
  case Ty::Vec4:
    return freshName(vecs);
  default:
    return freshName(mats);
  }
}

Var &Builder::declare(const std::string &name, Ty ty, double mag, bool active) {
  Var var;
  var.name = name;
  var.ty = ty;
  var.mag = mag;
  var.active = active;
  var.level = loopLevel;
  var.firstLine = lines.size();
  scopes.back().push_back(var);
  return scopes.back().back();
}

std::vector<Var *> Builder::visible(Ty ty, bool forReading) {
  std::vector<Var *> result;
  for (auto &scope : scopes)
    for (Var &var : scope)
      if (var.ty == ty && !(forReading && var.hidden))
        result.push_back(&var);
  return result;
}

std::vector<Var *> Builder::assignableVars() {
  std::vector<Var *> result;
  for (auto &scope : scopes)
    for (Var &var : scope)
      if (var.assignable && (var.accumulator || var.level == loopLevel))
        result.push_back(&var);
  return result;
}

Var *Builder::findVar(llvm::StringRef name) {
  for (auto &scope : scopes)
    for (Var &var : scope)
      if (var.name == name)
        return &var;
  return nullptr;
}

ArrayInfo *Builder::findArray(llvm::StringRef name) {
  for (ArrayInfo &a : arrays)
    if (a.name == name)
      return &a;
  return nullptr;
}

std::string Builder::realLit(Ty ty, int hundredths) const {
  std::string text;
  if (hundredths < 0) {
    text = "-";
    hundredths = -hundredths;
  }
  text += std::to_string(hundredths / 100);
  int frac = hundredths % 100;
  text += ".";
  if (frac % 10 == 0)
    text += std::to_string(frac / 10);
  else {
    text += char('0' + frac / 10);
    text += char('0' + frac % 10);
  }
  if (ty == Ty::Float)
    text += "f";
  return text;
}

std::string Builder::smallRealLit(Ty ty) {
  static const int values[] = {10,  25,  50,  75,  100, 125, 150, 200,
                               250, 300, 5,   20,  40,  60,  80,  90,
                               120, 175, 350, 400, 15,  35,  65,  1};
  return realLit(ty, rng.pick(llvm::ArrayRef<int>(values)));
}

std::string Builder::intLit(int v) const { return std::to_string(v); }

unsigned Builder::blockSize(unsigned depth) {
  unsigned most = opts.maxStatements;
  if (depth > 0)
    most = std::max(1u, most / (depth + 1) + 1);
  most = std::min(most, opts.maxStatements);
  // Bias towards small blocks: the smaller of two draws.
  unsigned a = unsigned(rng.range(1, int(most)));
  unsigned b = unsigned(rng.range(1, int(most)));
  return depth == 0 ? std::max(a, b) : std::min(a, b);
}

std::vector<Ty> Builder::localTypes() {
  std::vector<Ty> types = {real, real, real};
  if (feat.ints)
    types.push_back(Ty::Int);
  if (feat.ifs || feat.ternary)
    types.push_back(Ty::Bool);
  if (feat.vectors) {
    types.push_back(Ty::Vec3);
    types.push_back(Ty::Vec3);
    types.push_back(Ty::Vec2);
    types.push_back(Ty::Vec4);
  }
  if (feat.matrices) {
    types.push_back(Ty::Mat33);
    types.push_back(Ty::Mat22);
    types.push_back(Ty::Mat44);
  }
  return types;
}

Ty Builder::randomLocalType() {
  std::vector<Ty> types = localTypes();
  return rng.pick(llvm::ArrayRef<Ty>(types));
}
