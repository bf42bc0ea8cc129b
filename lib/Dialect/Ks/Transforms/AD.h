//===- AD.h - Differentiation of ks kernels -------------------*- C++ -*-===//
//
// Part of ksc. What the pieces of the reverse-mode (ReverseAD.cpp) and
// forward-mode (ForwardAD.cpp) passes share: which types carry
// derivatives, building zeros and sums of them, the activity analysis
// (Activity.cpp), the derivative rules of pure operations
// (DerivativeRules.cpp) and the preparation of a kernel
// (Prepare.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_TRANSFORMS_AD_H
#define KSC_DIALECT_KS_TRANSFORMS_AD_H

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

namespace ksc::ks::ad {

/// `sum + contribution`, an accumulation of adjoints: marked `nsz` (the sign
/// of a zero adjoint does not matter), so that canonicalization drops
/// additions of a zero accumulator. Structs add field by field.
mlir::Value accumulate(mlir::OpBuilder &b, mlir::Location loc, mlir::Value sum,
                       mlir::Value contribution);

/// Field `index` of the struct `value`: the value an insert or make that
/// built it put there, else a new `ks.struct_extract`.
mlir::Value structField(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, unsigned index);

/// Whether `value` is a constant zero (or a struct built of them).
bool isKnownZero(mlir::Value value);

/// What the derivative of an atomic_min or atomic_max does per scalar part
/// of the updated value: given the part's position (appended to `path`,
/// the atomic's own `fields`), the part of the thread's value `v` and of
/// the element's final value `f`, it builds its code and returns the
/// part's adjoint, or null.
using WinnerFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &b, llvm::ArrayRef<int64_t> path, mlir::Value v,
    mlir::Value f)>;
/// Applies `fn` to every scalar part of `value` and `final` (the values
/// themselves for scalars, each component of a vector or matrix: each
/// component of a component-wise min or max wins on its own), and returns
/// what it returned assembled into a value of value's type (null when it
/// returned null).
mlir::Value forEachScalarPart(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value value, mlir::Value final,
                              llvm::SmallVectorImpl<int64_t> &path,
                              WinnerFn fn);

/// Which values of a kernel carry derivatives that matter: those that
/// depend on an active input (varied) and reach a store or an atomic update
/// of an array that has an adjoint (useful).
class Activity {
public:
  /// `activeInputs`: per argument of `kernel`, whether its value before the
  /// launch is differentiated (an argument in --wrt); `adjointArrays`:
  /// per argument, whether it has an adjoint (the active inputs and the
  /// arrays the kernel writes).
  Activity(KernelOp kernel, llvm::ArrayRef<bool> activeInputs,
           llvm::ArrayRef<bool> adjointArrays);

  bool isVaried(mlir::Value value) const { return varied.contains(value); }
  bool isActive(mlir::Value value) const {
    return varied.contains(value) && useful.contains(value);
  }
  /// Whether `array` is (a view of) an argument with an adjoint.
  bool hasAdjoint(mlir::Value array) const;
  /// Whether some element of `array` may be varied: the array (its view
  /// root) is an active input, or a varied value may be written into it.
  bool isVariedArray(mlir::Value array) const;
  /// Whether `op` or an operation nested in it needs adjoint code: it has
  /// an active result, or writes an array with an adjoint.
  bool needsAdjoint(mlir::Operation *op) const {
    return withAdjoint.contains(op);
  }

  /// Prints, per operation with results, which results are active.
  void print(llvm::raw_ostream &os) const;

private:
  /// The argument `array` is a view of, if any.
  mlir::BlockArgument rootArgument(mlir::Value array) const;
  bool propagateVaried();
  /// Marks (with `mark`) the results of `op` read from varied memory, and
  /// records `op` as a varied write of the arrays it writes a varied value
  /// into; returns whether it recorded a new one.
  bool propagateThroughMemory(mlir::Operation *op,
                              llvm::function_ref<void(mlir::Value)> mark);
  /// Whether what `op` reads of the array with view root `root` may be
  /// varied.
  bool readsVaried(mlir::Operation *op, mlir::Value root) const;
  bool propagateUseful();
  void collectNeedsAdjoint();

  /// Mutable: ops' accessors are not const.
  mutable KernelOp kernel;
  llvm::SmallVector<bool> activeInputs, adjointArrays;
  llvm::DenseSet<mlir::Value> varied, useful;
  /// The view roots of the active inputs among the arrays.
  llvm::DenseSet<mlir::Value> variedInputs;
  /// Per view root, the operations that write a varied value into it.
  llvm::DenseMap<mlir::Value, llvm::SetVector<mlir::Operation *>> variedWrites;
  /// The operations `needsAdjoint` holds for, computed once.
  llvm::DenseSet<mlir::Operation *> withAdjoint;
};

// The derivative rules of pure operations: their DerivativeOpInterface
// (KsInterfaces.td), with RuleContext and TangentContext
// (DerivativeOpInterface.h). Rules build zeros with ad::zero.

/// Applies the reverse-mode rule of `ctx.op` (sizing
/// `ctx.operandAdjoints`); fails (without a diagnostic) when the operation
/// has none.
mlir::LogicalResult applyDerivativeRule(RuleContext &ctx);

/// Whether the derivative rule of `op` reads its result (exp does, mulf
/// does not): only then does the reverse sweep need the result.
bool ruleUsesResult(mlir::Operation *op);

/// Whether the derivative rule of `op` reads its operand `index`, given
/// which values are active (mulf reads x2 only for x1's adjoint; addf reads
/// neither operand).
bool ruleReadsOperand(mlir::Operation *op, unsigned index,
                      llvm::function_ref<bool(mlir::Value)> isActive);

/// Whether the operation only ever has zero derivatives (comparisons,
/// rounding, integer operations): active operands contribute nothing.
bool hasZeroDerivative(mlir::Operation *op);

/// Applies the forward-mode rule of `ctx.op` (sizing
/// `ctx.resultTangents`); fails (without a diagnostic) when the operation
/// has none.
mlir::LogicalResult applyTangentRule(TangentContext &ctx);

/// What an operation does to an array operand, by its declared memory
/// effects (the `MemRead`/`MemWrite` of its ODS arguments): the one place
/// the AD analyses (PrimalWrites, Activity) learn an operation's accesses.
struct ArrayAccess {
  bool reads = false;
  bool writes = false;
  /// Effects the analyses cannot follow: the operation declares none, has
  /// other kinds of effects on the array, or may pass the array on (a
  /// terminator, an array result; struct fields cannot hold arrays). Treat
  /// as a read and a write.
  bool unknown = false;
};
ArrayAccess accessOf(mlir::Operation *op, mlir::Value array);

/// Whether `later` may run after `earlier` in one thread: both are in one
/// loop, or `later` follows `earlier` in program order (not in the other
/// branch of an `scf.if`).
bool mayRunAfter(mlir::Operation *later, mlir::Operation *earlier);

/// How a kernel (with its device functions inlined) writes its array
/// arguments, per argument.
struct PrimalWrites {
  /// Whether the kernel stores into it or updates it atomically.
  llvm::SmallVector<bool> written;
  /// Whether a thread may read elements of it after writing it (a load, in
  /// program order or a later loop iteration, after a store or an atomic
  /// update), or uses the old value an atomic update of it returns: then
  /// the forward sweep of the adjoint kernel must write the array as the
  /// kernel does.
  llvm::SmallVector<bool> readBack;
  /// The first atomic_min or atomic_max of it, if any, and the first other
  /// access of it (a read, another write, or a min or max whose old value
  /// is used).
  llvm::SmallVector<mlir::Operation *> minMax, otherAccess;
};
PrimalWrites analyzePrimalWrites(KernelOp kernel);

//===----------------------------------------------------------------------===//
// Preparation (Prepare.cpp), shared by both modes
//===----------------------------------------------------------------------===//

/// Replaces every `ks.call` in `kernel` by the body of its callee, until
/// none is left (the language has no recursion), except the calls of the
/// functions `keep` accepts.
mlir::LogicalResult inlineCalls(KernelOp kernel, mlir::SymbolTable &symbols,
                                llvm::function_ref<bool(FuncOp)> keep);

/// Whether an argument of `type` has a derivative: a differentiable
/// scalar, vector, matrix or struct, or an array of those.
bool isDifferentiableArgument(mlir::Type type);

/// Which arguments of a kernel get derivatives.
struct DerivativeArguments {
  /// Per argument: whether its value before the launch is differentiated.
  llvm::SmallVector<bool> activeInputs;
  /// Per argument: whether it has a derivative argument (an active input,
  /// or a differentiable array the kernel writes).
  llvm::SmallVector<bool> hasDerivative;
  /// The indices of the arguments with derivatives, in order.
  llvm::SmallVector<int> derivativeOf;
};

/// Chooses the arguments of `kernel` with derivatives: the active inputs
/// are the differentiable arguments among the first `numCandidates` that
/// `wanted` names (all of them when it is empty); the names found are added
/// to `seen`. Fails with an error on a named argument without derivative.
mlir::FailureOr<DerivativeArguments>
chooseArguments(KernelOp kernel, const PrimalWrites &writes,
                const llvm::StringSet<> &wanted, llvm::StringSet<> &seen,
                unsigned numCandidates);

/// What a differentiation pass does per kernel: builds its derivative
/// kernel, with the --wrt names in `wanted`, adding to `seen` those the
/// kernel has.
using DifferentiateFn = llvm::function_ref<mlir::LogicalResult(
    KernelOp kernel, const llvm::StringSet<> &wanted, llvm::StringSet<> &seen)>;

/// Runs `differentiate` on the kernels of `module` that `select` accepts
/// (chosen before any is added), then fails with an error if a name in
/// `wrt` is no kernel's argument.
mlir::LogicalResult
differentiateKernels(mlir::ModuleOp module, llvm::ArrayRef<std::string> wrt,
                     llvm::function_ref<bool(KernelOp)> select,
                     DifferentiateFn differentiate);

/// What both passes start a derivative kernel from.
struct DerivativeSetup {
  /// A copy of the kernel with its device functions inlined (erased with
  /// this object); null when there is nothing to build.
  KernelOp work;
  PrimalWrites writes;
  DerivativeArguments args;
  /// The arrays with derivatives that atomic_min/atomic_max update: the
  /// derivative kernel reads them as the kernel left them
  /// (ks.final_value_args).
  llvm::SmallVector<int64_t> finalValueArgs;

  DerivativeSetup() = default;
  DerivativeSetup(const DerivativeSetup &) = delete;
  DerivativeSetup &operator=(const DerivativeSetup &) = delete;
  ~DerivativeSetup();
};

/// Sets up the derivative kernel `name` of `kernel` (`what` names its kind
/// in errors): fails with an error when another symbol has that name, or
/// when inlining or choosing the arguments (see chooseArguments) fails.
/// Leaves `setup.work` null when there is nothing to build: the module
/// has the kernel already (marked `ofAttr` = `kernel`), or no argument
/// gets a derivative.
mlir::LogicalResult
setUpDerivative(KernelOp kernel, mlir::SymbolTable &symbols,
                llvm::StringRef name, llvm::StringRef what,
                llvm::StringRef ofAttr, const llvm::StringSet<> &wanted,
                llvm::StringSet<> &seen, unsigned numCandidates,
                DerivativeSetup &setup);

/// An empty kernel `name` after `kernel`, with its arguments (names and
/// attributes) followed by `extraTypes` named `extraNames`, its
/// discardable attributes except those of derivative kernels, and
/// `ks.final_value_args` when `finalValueArgs` is not empty.
KernelOp createDerivativeKernel(mlir::OpBuilder &b, KernelOp kernel,
                                llvm::StringRef name,
                                llvm::ArrayRef<mlir::Type> extraTypes,
                                llvm::ArrayRef<std::string> extraNames,
                                llvm::ArrayRef<int64_t> finalValueArgs = {});

/// Erases from `adjoint` the stores and atomic updates (whose old value is
/// unused) of the primal array arguments `i < keep.size()` with `!keep[i]`:
/// the adjoint kernel reads K's arrays but leaves them as they were.
void dropPrimalWrites(KernelOp adjoint, llvm::ArrayRef<bool> keep);

} // namespace ksc::ks::ad

#endif // KSC_DIALECT_KS_TRANSFORMS_AD_H
