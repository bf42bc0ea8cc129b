//===- Emitter.h - State of the C++ emitter -----------------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Target/Cpp.
//
// The emitter turns SSA back into C++ variables and expressions:
//
//  * Expressions. A single-use value without a source name whose use comes
//    next in the same block with nothing in between that could change what
//    it reads is printed inline at its use (`a * x[i] + y[i]`). Everything
//    else is materialized into a variable.
//  * Variables. Materialized values, function arguments and the results of
//    `scf` operations live in C++ variables named after the source. A value
//    reuses the variable of an earlier value with the same source name when
//    that earlier value is dead, so `s = s + x[i];` stays an assignment. The
//    results of `scf.if`/`scf.for`/`scf.while` share one variable with their
//    region arguments ("slots"); yields become assignments to the slots.
//  * Liveness is computed on the structured IR: a use in the other branch of
//    an `scf.if` does not keep a value alive, a use anywhere in a loop keeps
//    a value defined outside the loop alive for the whole loop.
//  * Signedness. The IR's `i32` is signless; C++ has `int` and `uint32_t`.
//    Every expression knows which of the two its text has (Expr::isUnsigned,
//    the true C++ type of the text), and every operation converts its
//    operands to what it needs (`uint32_t(x)` for `arith.divui`, `int(u)`
//    for `arith.divsi`; literals are printed in the type needed, `5u`), so
//    the code is right whatever the variables are declared as. Which type a
//    variable is declared with is a matter of readability, decided by
//    analyzeSignedness: parameters and results marked `ks.unsigned`, values
//    named after a variable listed in the function's `ks.unsigned_names`,
//    and unnamed values whose operation gives an unsigned result (see
//    there) are `uint32_t`. Additions, subtractions and multiplications
//    without `overflow<nsw>` wrap, so they are computed in `uint32_t`
//    (`uint64_t` for i64, converted back).
//
// The op families are printed in EmitArith.cpp (arith, math), EmitScf.cpp
// (scf), EmitFunc.cpp (func, launchers and C entry points), EmitKs.cpp
// (ks arrays and random numbers), EmitVector.cpp (vectors and matrices),
// EmitStruct.cpp (structs) and EmitCuda.cpp (what only CUDA C++ has: thread
// indices, `__global__` kernels and their host launch functions).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_TARGET_CPP_EMITTER_H
#define KSC_LIB_TARGET_CPP_EMITTER_H

#include "ksc/Dialect/Ks/IR/KsDialect.h"
#include "ksc/Dialect/Ks/IR/KsTypes.h"
#include "ksc/Target/Cpp/CppEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

namespace ksc::cpp {

using ks::kLaunchOfAttr;

/// C++ operator precedence, higher binds tighter.
enum Prec : int {
  kComma = 1,
  kAssign = 2,
  kCond = 3,
  kLogOr = 4,
  kLogAnd = 5,
  kBitOr = 6,
  kBitXor = 7,
  kBitAnd = 8,
  kEq = 9,
  kRel = 10,
  kShift = 11,
  kAdd = 12,
  kMul = 13,
  kUnary = 15,
  kPostfix = 16,
  kPrimary = 17,
};

/// Expressions longer than this get a temporary instead of being printed
/// inside the expression that uses them.
inline constexpr size_t kMaxInlineLength = 100;

/// A C++ expression and what evaluating it depends on.
struct Expr {
  std::string text;
  int prec = kPrimary;
  /// Variables the text reads.
  llvm::SmallVector<unsigned, 2> reads;
  /// Whether it reads array memory or calls a function.
  bool readsMemory = false;
  /// Whether the text is a `uint32_t` (for an `i32` value; else `int`).
  bool isUnsigned = false;

  Expr() = default;
  Expr(std::string text, int prec) : text(std::move(text)), prec(prec) {}
  void merge(const Expr &other);
};

/// A C++ variable of the function being printed.
struct Var {
  std::string name;
  /// The source name it was created for (the base of `name`).
  std::string baseName;
  /// The C++ type it is declared with: the IR type of its values, except
  /// `ui32` for a `uint32_t` variable of `i32` values.
  mlir::Type type;
  /// The SSA value it holds at the current point of printing; null when its
  /// value is dead and the variable can be reused.
  mlir::Value current;
  /// Whether later values may take it over (not an unused parameter, whose
  /// name is commented out, nor a for loop's counter).
  bool reusable = true;
};

/// Whether `name` is a C++ identifier (letters, digits and `_`, not
/// starting with a digit).
bool isCppIdentifier(llvm::StringRef name);

/// Whether `site` can execute after `point` in the same activation of the
/// function (ignoring back edges of loops). `site` is neither `point` nor
/// nested in it.
bool executesAfter(mlir::Operation *site, mlir::Operation *point);

/// Whether `name` is a macro of the headers emitted code includes.
bool isMacroOfRuntimeHeaders(llvm::StringRef name);

/// The C++ names of a struct and of its field `index`: the source's names,
/// with a trailing `_` where they are macros of the runtime headers
/// (`INFINITY_`), as for functions and variables.
std::string structName(ks::StructType type);
std::string fieldName(ks::StructType type, unsigned index);

/// The runtime's name of a vector or matrix type (`ksc::vec3`,
/// `ksc::mat33d`), or none for other vector types.
std::optional<std::string> vectorTypeName(mlir::VectorType type);

/// The namespace of the functions the emitted code keeps to itself (device
/// functions and the bodies of kernel threads), away from the C library's.
inline constexpr llvm::StringLiteral kKernelNamespace = "ksc_kernels";

class Emitter {
public:
  explicit Emitter(const CppEmitterOptions &options) : options(options) {}

  mlir::LogicalResult emitModule(mlir::ModuleOp module);
  /// After emitModule: the header declaring what the output defines for
  /// callers (`--emit-header`).
  void emitHeader(llvm::raw_ostream &header);
  /// The first line of the C++ file and of its header: ksc's version and
  /// the kernel file's name (escaped).
  std::string banner() const;

  //===--------------------------------------------------------------------===//
  // Types and literals (EmitArith.cpp)
  //===--------------------------------------------------------------------===//

  /// The C++ spelling of `type`, or failure (with an error at `loc`).
  mlir::FailureOr<std::string> typeName(mlir::Type type, mlir::Location loc);
  /// A literal for a constant attribute of type `type`; an `i32` one as a
  /// `uint32_t` literal (`4294967295u`) if `asUnsigned`.
  mlir::FailureOr<Expr> literal(mlir::Attribute value, mlir::Location loc,
                                bool asUnsigned = false);

  //===--------------------------------------------------------------------===//
  // Signedness (Signedness.cpp)
  //===--------------------------------------------------------------------===//

  /// Decides which `i32` values of `func` live in `uint32_t` variables.
  void analyzeSignedness(mlir::func::FuncOp func);
  /// Whether `value` is an `i32` the emitter declares as `uint32_t`.
  bool isUnsigned(mlir::Value value) const {
    return unsignedValues.contains(value);
  }
  /// The C++ type of `value`'s variable, as a Var type: `ui32` for a
  /// `uint32_t`, else the value's type.
  mlir::Type cppType(mlir::Value value) const;
  /// The same for a type that is `uint32_t` if `isUnsigned` (an `i32`).
  mlir::Type cppType(mlir::Type type, bool isUnsigned) const;
  /// Whether a Var of C++ type `type` holds `uint32_t`.
  static bool isUnsignedType(mlir::Type type) {
    return type.isUnsignedInteger(32);
  }
  /// `expr` (an `i32` expression) converted to `uint32_t` or `int`.
  static Expr withSign(const Expr &expr, bool toUnsigned);
  /// `value` read as an operand that must be a `uint32_t` (`toUnsigned`) or
  /// an `int`: a constant becomes a literal of that type, anything else is
  /// converted if it has the other type. Values of other types are read
  /// as they are.
  Expr operandAs(mlir::Value value, bool toUnsigned);

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  /// The expression that reads `value` at this point.
  Expr valueExpr(mlir::Value value);
  /// `expr` as an operand of an operator of precedence `prec`.
  static std::string operand(const Expr &expr, int prec);
  Expr binary(llvm::StringRef op, int prec, mlir::Value lhs, mlir::Value rhs);
  Expr binary(llvm::StringRef op, int prec, const Expr &lhs, const Expr &rhs);
  /// The negation of boolean `cond`, inverting a comparison where exact.
  Expr negate(mlir::Value cond);
  Expr negate(const Expr &cond);
  Expr unary(llvm::StringRef op, mlir::Value value);
  Expr unary(llvm::StringRef op, const Expr &expr);
  Expr call(llvm::StringRef callee, mlir::ValueRange args);
  Expr call(llvm::StringRef callee, llvm::ArrayRef<Expr> args);
  /// `type(expr)`: a functional cast.
  static Expr castTo(llvm::StringRef type, const Expr &expr);
  /// The operands of integer comparison `op`, converted to a common type:
  /// `uint32_t` for the unsigned predicates, `int` for the signed ones.
  std::pair<Expr, Expr> comparisonOperands(mlir::Operation *op);
  Expr ternary(const Expr &cond, const Expr &lhs, const Expr &rhs);

  /// Builds the expression computed by an expression operation (one result,
  /// printed as a C++ expression). Defined per op family.
  mlir::FailureOr<Expr> buildExpr(mlir::Operation &op);
  mlir::FailureOr<Expr> buildArithExpr(mlir::Operation &op);
  mlir::FailureOr<Expr> buildMathExpr(mlir::Operation &op);
  mlir::FailureOr<Expr> buildKsExpr(mlir::Operation &op);
  /// The CUDA thread indices of the gpu dialect (EmitCuda.cpp).
  mlir::FailureOr<Expr> buildGpuExpr(mlir::Operation &op);
  /// vector operations and the linear algebra of ks (EmitVector.cpp).
  mlir::FailureOr<Expr> buildVectorExpr(mlir::Operation &op);
  mlir::LogicalResult emitVectorInsert(mlir::vector::InsertOp op);
  /// Prints the update of one component of `dest` to `value`, the
  /// operation `op` (which returns the updated whole): in place in the
  /// variable of `dest` if `dest` dies here, else in a copy. `component`
  /// gives the component of a whole value (`v.x`, `p.mass`).
  mlir::LogicalResult
  emitComponentUpdate(mlir::Operation *op, mlir::Value dest, const Expr &value,
                      llvm::function_ref<Expr(const Expr &)> component);
  /// Struct operations (EmitStruct.cpp).
  mlir::FailureOr<Expr> buildStructExpr(mlir::Operation &op);
  /// Whether `op` is a `ks.struct_make` of zeros (printed `T{}`, and like a
  /// constant printed inline rather than kept in a variable).
  static bool isZeroStructMake(mlir::Operation &op);
  mlir::LogicalResult emitStructInsert(mlir::Operation &op);
  /// `struct Particle { ... };` for every struct type the module uses.
  mlir::LogicalResult emitStructDeclarations();
  /// `ksc::vec3(1.0f, 2.0f, 3.0f)`.
  mlir::FailureOr<Expr> vectorLiteral(mlir::DenseElementsAttr value,
                                      mlir::Location loc);
  /// The scalar every component of vector `value` is, when `value` is a
  /// splat constant or a broadcast printed at its use (so that `v * s` can be
  /// printed instead of `v * ksc::vec3(s)`).
  std::optional<Expr> scalarOperand(mlir::Value value);
  mlir::FailureOr<Expr> buildCallExpr(mlir::func::CallOp op);
  /// The arguments of a call of `callee`, each converted to the type of its
  /// parameter; `skip` are printed by the caller (in-out arguments).
  llvm::SmallVector<Expr> callArguments(mlir::func::CallOp op,
                                        llvm::ArrayRef<unsigned> skip = {});
  /// How the function being printed names function `symbol`.
  std::string calleeName(llvm::StringRef symbol);
  mlir::FailureOr<Expr> buildIfExpr(mlir::scf::IfOp op);
  /// Whether `op` is printed as an expression.
  bool isExpressionOp(mlir::Operation &op);
  /// Whether `op` may write memory (or has unknown effects).
  bool hasWriteEffects(mlir::Operation &op);

  //===--------------------------------------------------------------------===//
  // Functions and statements
  //===--------------------------------------------------------------------===//

  mlir::LogicalResult emitFunction(mlir::func::FuncOp func);
  mlir::LogicalResult emitLauncherEntry(mlir::func::FuncOp launcher);
  /// CUDA (EmitCuda.cpp): the `__global__` qualifiers of launcher
  /// `launcher`'s signature, and its host launch function.
  std::string cudaKernelQualifiers();
  mlir::LogicalResult emitCudaLaunch(mlir::func::FuncOp launcher);
  /// The name of the `extern "C"` symbol `name` of the output: `name`, or
  /// with `--namespace=a::b` `a__b__name`.
  std::string cSymbol(llvm::StringRef name) const;
  bool isCuda() const { return options.target == CppTarget::Cuda; }
  /// Whether CUDA launcher `launcher` covers the grid with a grid-stride
  /// loop (`ks.cuda_launch = "grid-stride"`) rather than one GPU thread
  /// per thread.
  static bool isGridStrideLauncher(mlir::func::FuncOp launcher);
  /// Whether `launcher` is launched on one GPU thread (`--deterministic`).
  static bool isSerialLauncher(mlir::func::FuncOp launcher);
  /// Whether a CUDA launcher's threads sum across the block
  /// (`ks.flush_accumulator block`): its launches have few blocks.
  static bool hasBlockSums(mlir::func::FuncOp launcher);
  /// The comment above the function a launcher of `kernel` becomes.
  std::string launcherComment(mlir::func::FuncOp launcher,
                              llvm::StringRef kernel);
  /// Allocates, in a CUDA launch function, the partials of its ordered
  /// sums (name, i64 elements per block of each).
  void
  emitLaunchPartials(llvm::ArrayRef<std::pair<std::string, int64_t>> partials);
  /// The C entry point `ksc_cuda_launch_K` of kernel `kernel`, which calls
  /// its launch function `launch` with the arguments `fromArgs` reads
  /// (CppEmitterOptions::cudaEntryPoints).
  void emitCudaEntryPoint(llvm::StringRef kernel, llvm::StringRef launch,
                          llvm::StringRef fromArgs);
  /// Prints the operations of `block` except its terminator.
  mlir::LogicalResult emitBlock(mlir::Block &block);
  mlir::LogicalResult emitOperation(mlir::Operation &op);
  mlir::LogicalResult emitScfOp(mlir::Operation &op);
  mlir::LogicalResult emitKsStatement(mlir::Operation &op);
  mlir::LogicalResult emitParallelLaunch(mlir::Operation &op);
  mlir::LogicalResult emitReturn(mlir::func::ReturnOp op);
  /// The variables of the in-out (`T &`) parameters of `func`.
  llvm::SmallVector<unsigned> inoutParamVars(mlir::func::FuncOp func);
  /// Whether `op` calls a function with in-out parameters: a statement that
  /// writes the variables it passes.
  bool hasInoutArgs(mlir::func::CallOp op);
  mlir::LogicalResult emitInoutCall(mlir::func::CallOp op);
  /// `float r = ksc::randf(s);`: ks.randi, ks.randf and ks.randn advance
  /// their state in place, in a uint32_t variable.
  mlir::LogicalResult emitRandom(mlir::Operation &op);
  mlir::LogicalResult emitIf(mlir::scf::IfOp op);
  mlir::LogicalResult emitFor(mlir::scf::ForOp op);
  mlir::LogicalResult emitWhile(mlir::scf::WhileOp op);
  mlir::LogicalResult emitWhileLoop(mlir::scf::WhileOp op,
                                    llvm::ArrayRef<unsigned> slots);
  mlir::LogicalResult emitDoWhile(mlir::scf::WhileOp op,
                                  llvm::ArrayRef<unsigned> slots);
  mlir::LogicalResult emitWhileTrue(mlir::scf::WhileOp op,
                                    llvm::ArrayRef<unsigned> slots,
                                    bool forwarded);

  /// Gives the result of an expression operation a value: inline, or a
  /// variable declaration or assignment.
  mlir::LogicalResult bindResult(mlir::Operation &op, Expr expr);

  /// Assigns `values` to the slot variables `slots` as one parallel copy.
  mlir::LogicalResult assignSlots(llvm::ArrayRef<unsigned> slots,
                                  mlir::ValueRange values);
  /// Slot variables for the results of `op`; `inits` are the initial values
  /// (empty for `scf.if`), `names` the source names, `candidates[i]` the
  /// values whose variable slot `i` may take over when they die at `op`.
  /// Declares the variables that are not taken over.
  mlir::FailureOr<llvm::SmallVector<unsigned>>
  makeSlots(mlir::Operation *op, mlir::TypeRange types,
            llvm::ArrayRef<std::string> names, mlir::ValueRange inits,
            llvm::ArrayRef<llvm::SmallVector<mlir::Value>> candidates);
  /// Prepares the yield of `block` to compute its values in place.
  void preferSlots(mlir::Block &block, llvm::ArrayRef<unsigned> slots);
  /// The same for `values`, which `block` ends by copying into `slots`.
  void preferSlots(mlir::Block &block, llvm::ArrayRef<unsigned> slots,
                   mlir::ValueRange values);
  /// Prints a nested block (its operations, then `terminator`) in its own
  /// C++ scope; the caller prints the braces.
  mlir::LogicalResult
  emitScope(mlir::Block &block,
            llvm::function_ref<mlir::LogicalResult()> terminator);
  /// The value each variable holds, to print alternative branches.
  llvm::SmallVector<mlir::Value> saveVarState() const;
  void restoreVarState(llvm::ArrayRef<mlir::Value> state);

  //===--------------------------------------------------------------------===//
  // Variables
  //===--------------------------------------------------------------------===//

  unsigned newVar(llvm::StringRef baseName, mlir::Type type);
  void pushScope() { scopes.emplace_back(); }
  void popScope();
  void bindVar(mlir::Value value, unsigned var);
  std::string uniqueName(llvm::StringRef base);
  /// The name to declare `value`'s variable with: the first of its source
  /// names no other value of that name needs while `value` is alive.
  std::string chooseName(mlir::Value value);
  /// A variable named `name` visible here whose value is dead at `at`.
  std::optional<unsigned> findReusableVar(llvm::StringRef name, mlir::Type type,
                                          mlir::Operation *at);
  std::string declare(unsigned var);

  //===--------------------------------------------------------------------===//
  // Analysis of the function being printed (Emitter.cpp)
  //===--------------------------------------------------------------------===//

  void analyzeFunction(mlir::func::FuncOp func);
  bool isInlined(mlir::Operation *op) const { return inlined.contains(op); }
  /// Whether `value` is read after `point` executes (not counting reads
  /// inside `point` itself).
  bool isLiveAfter(mlir::Value value, mlir::Operation *point);
  /// Whether `value` is read inside the regions of `op`.
  bool isUsedInside(mlir::Value value, mlir::Operation *op);
  bool isPureFunction(llvm::StringRef name);

  /// Runs `fn`, returning what it printed in `text` instead of printing it.
  mlir::LogicalResult capture(std::string &text,
                              llvm::function_ref<mlir::LogicalResult()> fn);

  /// Everything is printed into `output` and copied to the caller's stream
  /// only when the whole module was printed.
  std::string output;
  llvm::raw_string_ostream outputStream{output};
  mlir::raw_indented_ostream os{outputStream};
  const CppEmitterOptions &options;
  mlir::ModuleOp module;
  /// Set when an internal inconsistency was reported.
  bool hadError = false;

  // Per function.
  llvm::SmallVector<Var> vars;
  llvm::DenseMap<mlir::Value, unsigned> varOf;
  llvm::DenseMap<mlir::Value, Expr> exprOf;
  /// Variables declared in each open C++ scope, innermost last.
  llvm::SmallVector<llvm::SmallVector<unsigned>> scopes;
  /// How many open scopes declare each name.
  llvm::StringMap<unsigned> openNames;
  /// The variables of open scopes by their base name, with the depth of
  /// their scope, in the order of `scopes` (outermost first).
  llvm::StringMap<llvm::SmallVector<std::pair<unsigned, unsigned>, 1>>
      openVarsByBaseName;
  /// For each name uniqueName was asked for, a suffix below which every
  /// candidate (`name`, `name_1`, ...) is taken; 0 stands for `name`.
  llvm::StringMap<unsigned> firstFreeSuffix;
  llvm::DenseSet<mlir::Operation *> inlined;
  /// Where the text that reads each value is printed.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Operation *>> sites;
  /// The operations that assign each source variable (define a value whose
  /// first name it is).
  llvm::StringMap<llvm::SmallVector<mlir::Operation *>> assignments;
  /// Values a yield would assign to a slot, computed into the slot directly.
  llvm::DenseMap<mlir::Value, unsigned> preferredSlot;
  /// The `i32` values declared `uint32_t` (analyzeSignedness).
  llvm::DenseSet<mlir::Value> unsignedValues;
  /// The function's `ks.unsigned_names`.
  llvm::StringSet<> unsignedNames;

  // Per module.
  llvm::DenseMap<llvm::StringRef, bool> pureFunctions;
  llvm::DenseMap<mlir::Operation *, bool> expressionIfs;
  llvm::DenseMap<mlir::Operation *, bool> regionWrites;
  llvm::StringMap<mlir::func::FuncOp> functionsByName;
  /// Functions some call calls.
  llvm::StringSet<> calledFunctions;
  /// Thread bodies: the functions launchers call in their loops.
  llvm::StringSet<> threadBodies;
  /// Names local variables must not take: the module's functions.
  llvm::StringSet<> reservedNames;
  /// The C++ name of each function of the module.
  llvm::StringMap<std::string> functionNames;
  /// The struct declarations and the declarations of the launchers and
  /// entry points, with their comments, for the header (emitHeader).
  std::string structDeclarations;
  std::string headerDeclarations;
  /// Whether the function being printed is outside kKernelNamespace.
  bool inPublicFunction = false;
  /// The variable holding the OS thread's tape (`ksc::tape &tape =
  /// ksc::thread_tape();`) in a function with CPU tape operations, which
  /// print as its `push` and `pop`; empty in other functions.
  std::string threadTape;
  /// Inlined expressions stay inline however long they grow: set while the
  /// condition of an `else if` is built, where no declaration can go.
  bool keepInline = false;
};

} // namespace ksc::cpp

#endif // KSC_LIB_TARGET_CPP_EMITTER_H
