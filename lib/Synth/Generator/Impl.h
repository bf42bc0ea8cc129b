//===- Impl.h - The machinery of the kernel generator -----------*- C++ -*-===//
//
// Part of ksc. Private to lib/Synth: the random number generator, the types,
// names and scopes of a kernel under construction, and the typed grammar of
// expressions and statements the category generators draw from.
//
// Safety is by construction. Every expression carries a bound on its
// magnitude (`mag`): products whose bound grows too large become sums, and
// values that are too large are squashed (tanh, x / (1 + |x|)) before they
// multiply, so float inputs in [-4, 4] give finite values and gradients.
// Inside a loop, variables declared before it are either read-only or
// accumulators: those are updated only by bounded forms (`acc += e`,
// `acc = max(acc, e)`, `acc = acc * 0.5f + e`) and not read otherwise, so
// nothing grows geometrically with the trip count.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_SYNTH_GENERATOR_IMPL_H
#define KSC_LIB_SYNTH_GENERATOR_IMPL_H

#include "ksc/Support/SplitMix64.h"
#include "ksc/Synth/Generator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ksc::synth::detail {

/// Draws from SplitMix64. Every draw is a statement of its own in the
/// callers, never two in one argument list.
class Rng {
public:
  explicit Rng(uint64_t seed) : bits(seed) {}
  uint64_t next() { return bits.next(); }
  /// Uniform in [0, n); n > 0.
  unsigned below(unsigned n);
  /// Uniform in [lo, hi].
  int range(int lo, int hi);
  /// True with probability percent / 100.
  bool chance(unsigned percent);
  template <typename T> const T &pick(llvm::ArrayRef<T> items) {
    return items[below(items.size())];
  }
  /// An index into `weights`, each drawn with probability weight / sum;
  /// the sum must be positive.
  unsigned weighted(llvm::ArrayRef<unsigned> weights);

private:
  SplitMix64 bits;
};

enum class Ty {
  Float,
  Double,
  Int,
  Bool,
  Vec2,
  Vec3,
  Vec4,
  Mat22,
  Mat33,
  Mat44,
};

llvm::StringRef tyName(Ty ty);
bool isReal(Ty ty);
bool isVec(Ty ty);
bool isMat(Ty ty);
/// The number of components of a vector, the side of a matrix.
unsigned dimOf(Ty ty);
Ty vecOfDim(unsigned n);
Ty matOfDim(unsigned n);

/// An array argument.
struct ArrayInfo {
  std::string name;
  Ty elem;
  unsigned rank = 1;
  bool isConst = true;
  /// Updated only by atomics: never read, never stored to.
  bool atomicOnly = false;
  /// Written by the kernel somewhere at top level.
  bool written = false;
  /// Stored into anywhere: the stores finishOutputs adds then add to it
  /// rather than overwrite what was stored.
  bool stored = false;
  /// Bound on the magnitude of its elements (inputs are in [-4, 4]).
  double mag = 4;
};

struct Var {
  std::string name;
  Ty ty;
  /// Assignable (locals; not parameters, loop counters, tid).
  bool assignable = true;
  /// Bound on the magnitude of its value (components of vectors).
  double mag = 1;
  /// Depends on a differentiable input.
  bool active = false;
  /// The loop nesting level it was declared at.
  unsigned level = 0;
  /// Inside the current loop: not readable (an accumulator of it).
  bool hidden = false;
  /// Inside the current loop: updatable with accumulating forms.
  bool accumulator = false;
  /// A loop counter `c < boundArray.shape(boundDim)`.
  std::string boundArray;
  unsigned boundDim = 0;
  bool isCounter = false;
  /// The first line that may read it: the one after its declaration.
  size_t firstLine = 0;
};

struct Expr {
  std::string text;
  /// C++ precedence class, higher binds tighter.
  int prec = 0;
  double mag = 1;
  bool active = false;
};

enum Prec : int {
  PTernary = 1,
  POr = 2,
  PAnd = 3,
  PCmp = 4,
  PAdd = 5,
  PMul = 6,
  PUnary = 7,
  PPrimary = 8,
};

/// A device function the kernel may call.
struct FuncInfo {
  std::string name;
  Ty result;
  std::vector<Ty> params;
  /// Template arguments spelled at the call ("<3>"), or empty.
  std::string explicitArgs;
  /// The magnitude bound its arguments must respect, and its result's.
  double argMag = 16;
  double resultMag = 1;
  /// Has a loop: not called inside loops (see enterLoop).
  bool hasLoop = false;
};

/// The constructs the grammar may draw.
struct Features {
  bool math = false;
  bool ternary = false;
  bool ifs = false;
  bool loops = false;
  bool whiles = false;
  bool vectors = false;
  bool matrices = false;
  bool casts = true;
  bool ints = true;
};

/// Statements the next loop must contain, set by the category generators.
struct LoopHooks {
  /// Runs at the end of the next loop body (then cleared).
  std::function<void(unsigned depth)> body;
  /// A variable the next loop must take as an accumulator.
  std::string accumulator;
  /// The next for loop runs over this array's dimension.
  std::string boundArray;
  unsigned boundDim = 0;
  /// The next while loop has both a break and a continue.
  bool breakAndContinue = false;
};

class Builder {
public:
  Builder(Rng &rng, const GeneratorOptions &options);

  Rng &rng;
  GeneratorOptions opts;
  Features feat;
  /// The floating-point type of the kernel: Float, or Double.
  Ty real = Ty::Float;
  /// In a kernel (tid() is the variable `i`); false in device functions.
  bool inKernel = true;
  std::string tidName;

  std::vector<std::string> lines;
  unsigned indent = 1;
  void line(const std::string &text);

  // Names.
  llvm::StringSet<> used;
  std::string freshName(llvm::ArrayRef<const char *> words);
  std::string nameFor(Ty ty);

  // Environment.
  std::vector<std::vector<Var>> scopes;
  std::vector<ArrayInfo> arrays;
  std::vector<FuncInfo> funcs;
  LoopHooks hooks;
  /// The uint32_t random state variable, or empty.
  std::string randState;
  unsigned loopLevel = 0;
  unsigned ctlDepth = 0;
  void pushScope() { scopes.emplace_back(); }
  /// Leaves a block: first reads the locals of the innermost scope that
  /// nothing has read (readUnread).
  void popScope();
  /// Whether a statement after the declaration of `var` reads it (rather
  /// than only assigning to it).
  bool isRead(const Var &var) const;
  /// Whether the value `var` holds was written (declared, assigned or
  /// updated) and nothing has read it since: assigning `var` again would
  /// make that write dead code.
  bool lastWriteUnread(const Var &var) const;
  /// Makes the locals of `scope` that nothing has read count: in a kernel,
  /// adds each to an element of an output array it fits (`out[i] += v;`),
  /// before a `break;`, `continue;` or `return` that ends the block.
  /// Without one (device functions, histograms), adds each to a real local
  /// of an enclosing block that may be assigned there (`acc += v;`); a
  /// device function's own locals go into its result (Draft::addFunction).
  /// Where nothing fits they stay unread.
  void readUnread(std::vector<Var> &scope);
  /// `var` as a value of the real type `ty`: converted, a vector's x, a
  /// matrix's trace, 1 or 0 for a bool.
  Expr asReal(const Var &var, Ty ty);
  Var &declare(const std::string &name, Ty ty, double mag, bool active);
  std::vector<Var *> visible(Ty ty, bool forReading);
  std::vector<Var *> assignableVars();
  Var *findVar(llvm::StringRef name);
  ArrayInfo *findArray(llvm::StringRef name);

  // Literals.
  std::string realLit(Ty ty, int hundredths) const;
  std::string smallRealLit(Ty ty);
  std::string intLit(int v) const;

  // Expressions.
  Expr expr(Ty ty, unsigned depth);
  /// expr's cases for float and double, vectors and matrices; `fs` are the
  /// functions of the kernel expr may call.
  Expr realExpr(Ty ty, unsigned depth,
                llvm::ArrayRef<const FuncInfo *> fs);
  Expr vecExpr(Ty ty, unsigned depth, llvm::ArrayRef<const FuncInfo *> fs);
  Expr matExpr(Ty ty, unsigned depth);
  /// a / den with a den that cannot be 0 (1 + b * b, 1 + abs(b), a constant).
  Expr guardedDivision(Ty ty, unsigned sub);
  /// c ? a : b.
  Expr conditional(Ty ty, unsigned sub);
  /// A float from a vector (dot, length, a component) or from a matrix
  /// (determinant, trace, an element).
  Expr vectorReduction(unsigned sub);
  Expr matrixReduction(unsigned sub);
  Expr leaf(Ty ty);
  Expr activeExpr(Ty ty, unsigned depth);
  Expr squash(const Expr &e, Ty ty);
  Expr limit(const Expr &e, Ty ty, double maxMag);
  Expr binary(const Expr &a, llvm::StringRef op, const Expr &b,
              int prec) const;
  Expr call(llvm::StringRef fn, llvm::ArrayRef<Expr> args, double mag) const;
  Expr paren(const Expr &e, int minPrec) const;
  /// `gen()`, tried again a few times while it gives an expression that
  /// reads like a mistake next to `other` (the same text: `x - x`,
  /// `min(i, i)`, `u[i] < u[i]`; or, with `notConstant`, one made of
  /// literals only).
  Expr differentFrom(const Expr &other, llvm::function_ref<Expr()> gen,
                     bool notConstant = false);
  /// differentFrom, then, when every try gave `other` again, a literal of
  /// `ty` (an int or real scalar type) or `other` times a constant (a
  /// vector or matrix type).
  Expr differentOrLiteral(const Expr &other, llvm::function_ref<Expr()> gen,
                          Ty ty = Ty::Int);
  Expr mathCall(Ty ty, unsigned depth);
  Expr boolExpr(unsigned depth);
  Expr intExpr(unsigned depth);
  Expr arrayRead(const ArrayInfo &a);
  std::string index(const ArrayInfo &a, unsigned dim, bool own);
  std::string access(const ArrayInfo &a, bool own);
  Expr funcCall(const FuncInfo &f, unsigned depth);

  // Statements.
  void block(unsigned depth, unsigned count);
  void statement(unsigned depth);
  void declStmt(unsigned depth);
  void declOf(Ty ty, unsigned depth);
  void assignStmt(unsigned depth);
  void storeStmt(unsigned depth);
  void ifStmt(unsigned depth, unsigned branches, bool forceElse);
  void forStmt(unsigned depth, bool forceShape);
  void whileStmt(unsigned depth, bool doWhile);
  void ternaryDecl(unsigned depth);
  void compoundStmt(unsigned depth);
  void randomDraw(unsigned depth);
  /// Enters a loop: picks accumulators among outer variables and hides
  /// them; returns the saved flags to restore with leaveLoop.
  std::vector<std::pair<Var *, std::pair<bool, bool>>> enterLoop();
  void leaveLoop(std::vector<std::pair<Var *, std::pair<bool, bool>>> &saved);
  /// Stores into every output array that has not been written yet.
  void finishOutputs();
  /// A number of statements for a block at `depth`: 1..maxStatements,
  /// smaller deeper.
  unsigned blockSize(unsigned depth);
  /// Types locals may have.
  std::vector<Ty> localTypes();
  Ty randomLocalType();
};

/// Whether `text` mentions the variable or array `name` (not as a field
/// or part of a longer name).
bool mentions(llvm::StringRef text, llvm::StringRef name);

/// The kernel signature, built by the category generators.
struct Signature {
  std::vector<KernelArgument> args;
};

} // namespace ksc::synth::detail

#endif // KSC_LIB_SYNTH_GENERATOR_IMPL_H
