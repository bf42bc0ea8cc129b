//===- Differentiator.h - The sweeps of an adjoint kernel ---*- C++ -*-===//
//
// Part of ksc. Builds the body of one adjoint kernel `K_adj` from a kernel
// `K` (with its device functions inlined): the forward sweep, a copy of K's
// body that keeps what the reverse sweep needs (in the results of `scf.if`
// ops, and on the thread's tape in loops), then the reverse sweep.
// Differentiator.cpp has straight-line code and `scf.if`,
// DifferentiateLoops.cpp has `scf.for` and `scf.while`.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_TRANSFORMS_DIFFERENTIATOR_H
#define KSC_DIALECT_KS_TRANSFORMS_DIFFERENTIATOR_H

#include "AD.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace ksc::ks::ad {

/// The source position of `loc` without its variable names: adjoint code
/// must not be named after the primal variables it is computed for.
mlir::Location plain(mlir::Location loc);

/// Whether the reverse sweep of a loop body may run `op` (an operation of
/// the body) again instead of keeping its results on the tape: a cheap
/// operation without effects (arithmetic, vector and matrix operations, not
/// the math library's functions), or a read of an array the kernel cannot
/// write (`array<const T>`). With `gpuCost` (code for a GPU, whose tape is
/// the thread's local memory) square roots too: a few instructions there,
/// while on a CPU recomputing n-body's square root was 10% slower than
/// keeping it (docs/performance.md).
bool isCheapToRecompute(mlir::Operation *op, bool gpuCost);

class KernelDifferentiator {
public:
  /// What the reverse sweep of a loop body (`scf.for` body, `scf.while`
  /// region) gets back of one iteration: the values the forward sweep
  /// pushes on the tape, in order, and the cheap operations of the body it
  /// runs again on them (in order) for the other values it needs.
  struct Tape {
    llvm::SmallVector<mlir::Value> pushed;
    llvm::SmallVector<mlir::Operation *> recomputed;
  };

  /// `adjointArgOf[j]` is the index of the argument of `primal` whose
  /// adjoint is argument `numPrimal + j` of `adjoint`, an empty kernel;
  /// `readBack[i]`: whether the adjoint writes primal argument i as the
  /// primal does (PrimalWrites).
  /// `gpuCost`: the cost model of a GPU (isCheapToRecompute).
  KernelDifferentiator(KernelOp primal, const Activity &activity,
                       llvm::ArrayRef<int> adjointArgOf, KernelOp adjoint,
                       llvm::ArrayRef<bool> readBack, bool gpuCost);

  /// Fills the body of the adjoint kernel.
  mlir::LogicalResult run();

private:
  /// Fills `needed`.
  void collectNeeded();

  // Forward sweep: copies `block`'s operations (not its terminator) at `b`
  // and lists in `defined` the values of `block` (at any depth, as far as
  // they are kept) that the copies make available after them.
  mlir::LogicalResult cloneForward(mlir::Block &block, mlir::OpBuilder &b,
                                   llvm::SmallVectorImpl<mlir::Value> &defined);
  mlir::LogicalResult cloneIf(mlir::scf::IfOp op, mlir::OpBuilder &b,
                              llvm::SmallVectorImpl<mlir::Value> &defined);
  mlir::LogicalResult cloneFor(mlir::scf::ForOp op, mlir::OpBuilder &b);
  mlir::LogicalResult cloneWhile(mlir::scf::WhileOp op, mlir::OpBuilder &b);
  /// Clones `body` (not its terminator) at the end of `target`, whose
  /// arguments `fwd` maps `body`'s to, with the forward sweep, then pushes
  /// onto the tape what the reverse sweep needs of `body` and cannot
  /// recompute cheaply from other values (see `tapes`).
  mlir::LogicalResult cloneTapedBody(mlir::Block &body, mlir::Block &target);
  /// Pops what `cloneTapedBody` pushed for `body`, recomputes the rest, and
  /// makes them the primal values of the reverse sweep.
  void restoreTaped(mlir::Block &body, mlir::OpBuilder &b);
  /// Drops the adjoints of the values defined in `op`'s regions.
  void forgetInner(mlir::Operation *op);
  /// The positions of the active values among `values`.
  llvm::SmallVector<unsigned> activePositions(mlir::ValueRange values);
  /// What a reversed loop carries: the adjoints of `values[i]` for `i` in
  /// `carried` (zero where none yet), then those of `outer`.
  llvm::SmallVector<mlir::Value> loopAdjoints(mlir::ValueRange values,
                                              llvm::ArrayRef<unsigned> carried,
                                              llvm::ArrayRef<mlir::Value> outer,
                                              mlir::OpBuilder &b,
                                              mlir::Location loc);
  /// After the reversed loop `reversed`: names its results after
  /// `named[i]` (i in `carried`) and `outer`, makes them the adjoints of the
  /// outer values, and adds the loop-carried ones to the adjoints of the
  /// loop's initial values `inits`.
  void takeLoopAdjoints(mlir::Operation *reversed, mlir::ValueRange named,
                        mlir::ValueRange inits,
                        llvm::ArrayRef<unsigned> carried,
                        llvm::ArrayRef<mlir::Value> outer, mlir::OpBuilder &b);

  // Reverse sweep.
  mlir::LogicalResult reverseBlock(mlir::Block &block, mlir::OpBuilder &b);
  mlir::LogicalResult reverseOp(mlir::Operation *op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseIf(mlir::scf::IfOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseFor(mlir::scf::ForOp op, mlir::OpBuilder &b);
  /// In the body of a reverse loop of `op`, whose arguments `args` are the
  /// adjoints (of the positions `carried`, then of `outer`) after the
  /// iteration, with the iteration's values in `fwd`: its reverse sweep,
  /// and the yield of the adjoints before it.
  mlir::LogicalResult undoIteration(mlir::scf::ForOp op,
                                    llvm::ArrayRef<unsigned> carried,
                                    llvm::ArrayRef<mlir::Value> outer,
                                    mlir::ValueRange args, mlir::OpBuilder &b);
  /// The reverse loop of `op` that pops what the taped loop pushed.
  mlir::FailureOr<mlir::scf::ForOp>
  reverseTapedFor(mlir::scf::ForOp op, llvm::ArrayRef<unsigned> carried,
                  llvm::ArrayRef<mlir::Value> outer,
                  llvm::ArrayRef<mlir::Value> inits, mlir::OpBuilder &b);
  /// Checkpointing (DifferentiateLoops.cpp): whether the adjoint may run
  /// `op`'s body again from a saved state, and the reverse loop that does.
  bool canCheckpoint(mlir::scf::ForOp op);
  mlir::Value useCheckpoints(mlir::scf::ForOp op, mlir::OpBuilder &b);
  mlir::FailureOr<mlir::scf::ForOp>
  reverseCheckpointedFor(mlir::scf::ForOp op, llvm::ArrayRef<unsigned> carried,
                         llvm::ArrayRef<mlir::Value> outer,
                         llvm::ArrayRef<mlir::Value> inits,
                         mlir::OpBuilder &b);
  /// Runs iterations [from, to) of `op`'s body from the loop-carried values
  /// `state`, as the primal does (nothing pushed); returns the values after.
  llvm::SmallVector<mlir::Value> advance(mlir::scf::ForOp op,
                                         mlir::Value from, mlir::Value to,
                                         mlir::ValueRange state,
                                         mlir::OpBuilder &b);
  mlir::LogicalResult reverseWhile(mlir::scf::WhileOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseStore(StoreOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseAtomic(AtomicRMWOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseMinMax(AtomicRMWOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reverseLoad(LoadOp op, mlir::OpBuilder &b);
  mlir::LogicalResult reversePure(mlir::Operation *op, mlir::OpBuilder &b);

  /// The active values defined outside `op` that operations in it use:
  /// the adjoints a reversed region operation carries out.
  llvm::SetVector<mlir::Value> outerActiveValues(mlir::Operation *op);
  /// The adjoint of `value` so far, or a zero of its type.
  mlir::Value adjointOrZero(mlir::Value value, mlir::OpBuilder &b,
                            mlir::Location loc);
  /// `ks.names` for region results that carry the adjoints of `values`.
  mlir::ArrayAttr adjointNames(llvm::ArrayRef<mlir::Value> values,
                               mlir::OpBuilder &b);

  /// The forward sweep's copy of `value`, usable in the reverse sweep.
  mlir::Value primalValue(mlir::Value value) {
    return fwd.lookupOrDefault(value);
  }
  llvm::SmallVector<mlir::Value> primalValues(mlir::ValueRange values) {
    return llvm::map_to_vector(values,
                               [&](mlir::Value v) { return primalValue(v); });
  }
  /// The adjoint array of the array `array` (an argument or a view of one),
  /// built at `b` for views.
  mlir::Value shadow(mlir::Value array, mlir::OpBuilder &b);
  /// Adds `contribution` to the adjoint of `value`.
  void addAdjoint(mlir::Value value, mlir::Value contribution,
                  mlir::OpBuilder &b);

  KernelOp primal;
  const Activity &activity;
  KernelOp adjoint;
  /// Original values -> their forward-sweep copies (in loops: the values
  /// popped from the tape in the reverse sweep).
  mlir::IRMapping fwd;
  /// Values of `primal` that the reverse sweep reads.
  llvm::DenseSet<mlir::Value> needed;
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
  llvm::DenseMap<mlir::Value, mlir::Value> shadows;
  /// The arrays (of `primal`) whose adjoints other threads also update.
  llvm::DenseSet<mlir::Value> sharedAdjoints;
  /// The tapes of the loop bodies.
  llvm::DenseMap<mlir::Block *, Tape> tapes;
  /// Values of loop bodies the reverse sweep computes itself (induction
  /// variables of loops with a constant positive step): never pushed.
  llvm::DenseSet<mlir::Value> derived;
  llvm::SmallVector<bool> readBack;
  bool gpuCost;
  /// The loops whose adjoint chooses at run time between taping and
  /// checkpointing.
  llvm::DenseSet<mlir::Operation *> checkpointed;
};

} // namespace ksc::ks::ad

#endif // KSC_DIALECT_KS_TRANSFORMS_DIFFERENTIATOR_H
