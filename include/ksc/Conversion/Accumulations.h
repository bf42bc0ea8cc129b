//===- Accumulations.h - How a kernel's threads add into memory -*- C++ -*-===//
//
// Part of ksc. The one analysis of the sums a kernel's threads make in
// memory (the adjoints a derivative kernel accumulates, and the user's own
// atomic sums), which the CPU launcher uses to privatize them, both GPU
// code paths use to reduce them before the atomic, and the GPU runners use
// to bound the blocks of a launch. See "How adjoints accumulate on the
// GPU" in docs/cuda.md.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_CONVERSION_ACCUMULATIONS_H
#define KSC_CONVERSION_ACCUMULATIONS_H

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/SymbolTable.h"

namespace ksc::conversion {

/// The most leading elements of an array a launch sums privately (per
/// chunk of CPU threads, per GPU thread before the block's reduction).
inline constexpr int64_t kMaxAccumulatorSize = 16;

/// How the threads of a launch update one of its kernel's array arguments.
/// (An element only its own thread updates needs no atomic at all: the
/// reverse-mode pass already makes such adjoints plain read-modify-writes,
/// see "Unique indices" in docs/autodiff.md.)
enum class SumClass {
  /// Not a sum: the kernel reads the array, writes it, passes it to a
  /// function, or updates it otherwise.
  None,
  /// A sum over the launch into the same few elements from every thread:
  /// only atomic add or sub whose old values are unused, at constant
  /// indices in [0, kMaxAccumulatorSize) of a 1-D array of scalars,
  /// vectors or matrices (the adjoint of a scalar argument).
  Uniform,
  /// A sum at indices that vary (from thread to thread, or with a loop's
  /// iteration: the adjoint of `c[k]` read in a loop over `k`): only atomic
  /// add or sub whose old values are unused.
  Scattered,
};

/// What the kernel does with array argument `arg`.
struct ArgumentSums {
  SumClass kind = SumClass::None;
  /// For Uniform: how many leading elements the threads add into.
  int64_t size = 0;
  /// Whether some update is inside a loop (a thread adds into many
  /// elements).
  bool inLoop = false;
};

/// Classifies what the kernel of `arg` (a block argument of a ks.kernel)
/// adds into it. Arrays of structs (added into field by field) are None.
ArgumentSums classifySums(mlir::BlockArgument arg);

/// Whether `atomic` is a sum whose old value is unused: an atomic add or
/// sub a GPU may combine with the same updates of other lanes of its warp
/// before updating memory (`aggregate`).
bool isAggregatableSum(ks::AtomicRMWOp atomic);

/// Whether one of `args` (the classes of a kernel's arguments) is Uniform.
bool hasUniformSums(llvm::ArrayRef<ArgumentSums> args);

/// The first atomic update in `op` (or the functions it calls, looked up
/// in `symbols`) that can give a result that depends on the order of the
/// threads, or null: one not `exclusive` that is a float add, sub, min or
/// max, or whose old value is used. Integer sums, minima and maxima whose
/// old values are unused come out the same in any order. `skip` says which
/// updates not to count (those a launch sums privately).
ks::AtomicRMWOp findOrderDependentAtomic(
    mlir::Operation *op, mlir::SymbolTable &symbols,
    llvm::function_ref<bool(ks::AtomicRMWOp)> skip = nullptr);

/// How a GPU launch runs a kernel: what convert-ks-to-cuda builds, and what
/// the launch functions and the GPU runners must know of it.
struct GpuLaunchPlan {
  /// The classes of the kernel's arguments (classifySums).
  llvm::SmallVector<ArgumentSums> args;
  /// Whether the threads sum across blocks (an argument is a Uniform sum):
  /// the launcher loops over the grid, and it is launched with at most
  /// getMaxSumBlocks blocks (ksc/Support/CudaLaunch.h).
  bool blockSums = false;
  /// With `deterministic`: the kernel has atomic updates other than its
  /// Uniform sums whose results depend on the order of the threads (the
  /// first of them), so one GPU thread runs every thread, in index order.
  bool serial = false;
  ks::AtomicRMWOp serialBecause;
  /// With `deterministic` and not serial: for each Uniform sum in argument
  /// order, the `i64` elements per block of its partials
  /// (`ks.flush_accumulator ... ordered`), which the launch allocates.
  llvm::SmallVector<int64_t> partialWords;
};

/// Plans the GPU launch of `kernel` (in a module whose symbols are
/// `symbols`), with or without `--deterministic`.
GpuLaunchPlan planGpuLaunch(ks::KernelOp kernel, mlir::SymbolTable &symbols,
                            bool deterministic);

} // namespace ksc::conversion

#endif // KSC_CONVERSION_ACCUMULATIONS_H
