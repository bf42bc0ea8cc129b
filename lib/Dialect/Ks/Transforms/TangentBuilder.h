//===- TangentBuilder.h - The body of a tangent kernel -------*- C++ -*-===//
//
// Part of ksc. Builds the body of one tangent kernel `K_jvp` from a kernel
// `K` (with its device functions inlined): a copy of K's body in which
// every active value is followed by its tangents, one per direction.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_TRANSFORMS_TANGENTBUILDER_H
#define KSC_DIALECT_KS_TRANSFORMS_TANGENTBUILDER_H

#include "AD.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace ksc::ks::ad {

class TangentBuilder {
public:
  /// `tangentArgOf[j]` is the index of the argument of `primal` whose
  /// tangent is argument `numPrimal + j` of `tangent`, an empty kernel;
  /// `width` is the number of directions.
  TangentBuilder(KernelOp primal, const Activity &activity,
                 llvm::ArrayRef<int> tangentArgOf, KernelOp tangent,
                 unsigned width);

  /// Fills the body of the tangent kernel.
  mlir::LogicalResult run();

private:
  using Tangents = llvm::SmallVector<mlir::Value, 1>;

  /// Copies `block`'s operations (not its terminator) at `b`, each with
  /// the tangent code it needs.
  mlir::LogicalResult processBlock(mlir::Block &block, mlir::OpBuilder &b);
  mlir::LogicalResult processOp(mlir::Operation &op, mlir::OpBuilder &b);
  mlir::LogicalResult processIf(mlir::scf::IfOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processFor(mlir::scf::ForOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processWhile(mlir::scf::WhileOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processLoad(LoadOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processStore(StoreOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processAtomic(AtomicRMWOp op, mlir::OpBuilder &b);
  mlir::LogicalResult processPure(mlir::Operation &op, mlir::OpBuilder &b);

  /// The tangents of `value` (empty for zero tangents).
  llvm::ArrayRef<mlir::Value> tangentsOf(mlir::Value value) const;
  /// The tangents of `value`, zeros built at `b` where it has none.
  Tangents tangentsOrZero(mlir::Value value, mlir::OpBuilder &b,
                          mlir::Location loc);
  /// Records the tangents of `value` and names them after it.
  void setTangents(mlir::Value value, llvm::ArrayRef<mlir::Value> tangents,
                   mlir::OpBuilder &b);
  /// The positions of `values` that carry tangents: active, or (for the
  /// results of region operations) `alsoActive` active at that position.
  llvm::SmallVector<unsigned> carriedPositions(mlir::ValueRange values,
                                               mlir::ValueRange alsoActive);
  /// `ks.names` for the results of a region operation: those of `op`, then
  /// `tan_` names for the tangents at `positions`.
  void nameResults(mlir::Operation *op, mlir::Operation *copy,
                   llvm::ArrayRef<unsigned> positions, mlir::OpBuilder &b);

  /// The tangent array of the argument `array` is (a view of), null if
  /// it has none; adds to `prefix` the indices (of the primal kernel) that
  /// the views fix, in order.
  mlir::Value shadow(mlir::Value array,
                     llvm::SmallVectorImpl<mlir::Value> &prefix);
  /// The indices in a tangent array of element `indices` of a view with
  /// `prefix` fixed, in direction `k`: with several directions, the
  /// direction comes first (each direction is an array shaped like the
  /// argument).
  llvm::SmallVector<mlir::Value>
  tangentIndices(llvm::ArrayRef<mlir::Value> prefix, mlir::ValueRange indices,
                 unsigned k, mlir::OpBuilder &b, mlir::Location loc);
  mlir::Value mapped(mlir::Value value) { return map.lookupOrDefault(value); }
  llvm::SmallVector<mlir::Value> mapped(mlir::ValueRange values) {
    return llvm::map_to_vector(values,
                               [&](mlir::Value v) { return mapped(v); });
  }

  KernelOp primal;
  const Activity &activity;
  KernelOp tangent;
  unsigned width;
  /// Whether the thread's tape (of an adjoint kernel) carries tangents:
  /// then every push of a float value also pushes its tangents.
  bool tapeCarriesTangents = false;
  /// Values of `primal` -> their copies.
  mlir::IRMapping map;
  llvm::DenseMap<mlir::Value, Tangents> tangents;
  llvm::DenseMap<mlir::Value, mlir::Value> shadows;
};

} // namespace ksc::ks::ad

#endif // KSC_DIALECT_KS_TRANSFORMS_TANGENTBUILDER_H
