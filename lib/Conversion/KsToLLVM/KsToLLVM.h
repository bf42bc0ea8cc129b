//===- KsToLLVM.h - What the ks-to-LLVM patterns share ----------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Conversion/KsToLLVM: the type converter of
// convert-ks-to-llvm and the patterns of each family of ks operations.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_CONVERSION_KSTOLLVM_KSTOLLVM_H
#define KSC_LIB_CONVERSION_KSTOLLVM_KSTOLLVM_H

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/KsTypes.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ksc::conversion {

/// The LLVM types of ks values (see convert-ks-to-llvm): `!ks.array` and
/// `!ks.grid` as the structs of the runtime's `ksc::array` and
/// `ksc::grid`, `!ks.struct` as an LLVM struct with C++'s layout, the rest
/// as the upstream LLVM type converter converts it.
class KsLLVMTypeConverter : public mlir::LLVMTypeConverter {
public:
  explicit KsLLVMTypeConverter(mlir::MLIRContext *ctx);

  /// How a value of ks type `type` (a scalar, vector, matrix or struct;
  /// `ui32` is an `i32`) lies in memory, as C++ lays it out: a vector as
  /// an `!llvm.array` of its components, a matrix as an array of rows.
  mlir::Type convertMemoryType(mlir::Type type) const;

  /// `value`, of ks type `type` and converted (LLVM) type, as its memory
  /// type, and back.
  mlir::Value toMemory(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Type type) const;
  mlir::Value fromMemory(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value memory, mlir::Type type) const;
};

/// A pattern of convert-ks-to-llvm for `Op`, with the ks type converter's
/// memory types at hand (`ks`).
template <typename Op>
struct KsPattern : public mlir::ConvertOpToLLVMPattern<Op> {
  KsPattern(const KsLLVMTypeConverter &converter)
      : mlir::ConvertOpToLLVMPattern<Op>(converter), ks(converter) {}
  const KsLLVMTypeConverter &ks;
};

/// The index `index` (a signless integer, signed) as an i64.
mlir::Value signExtendIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value index);

/// Continues after the rewriter's insertion point only if `failed` is
/// false; else prints `format` (printf's) with `args` in one `gpu.printf`,
/// so that the messages of threads failing together do not interleave, and
/// traps, which ends the launch with an error.
void failLaunchIf(mlir::ConversionPatternRewriter &rewriter, mlir::Location loc,
                  mlir::Value failed, llvm::StringRef format,
                  mlir::ValueRange args);

/// Updates the value of ks type `element` (a scalar, or a vector or matrix,
/// component by component) at `address` with `value` (converted) as
/// ks.atomic_rmw of `kind` does: atomically, or with `exclusive` as a
/// plain read and write. Returns the old value (converted).
mlir::Value updateElement(mlir::ConversionPatternRewriter &rewriter,
                          mlir::Location loc,
                          const KsLLVMTypeConverter &converter,
                          ks::AtomicKind kind, mlir::Type element,
                          mlir::Value address, mlir::Value value,
                          bool exclusive);

/// The update of ks.atomic_rmw `kind` (add or sub) with `aggregate`: the
/// lanes of the warp running it together that update the same `address`
/// sum their values first, in a tree of shuffles, and the lowest of them
/// updates the element (with updateElement) for them all.
void aggregateUpdate(mlir::ConversionPatternRewriter &rewriter,
                     mlir::Location loc, const KsLLVMTypeConverter &converter,
                     ks::AtomicKind kind, mlir::Type element,
                     mlir::Value address, mlir::Value value);

/// Checks what the reduction patterns cannot lower before the conversion:
/// a `ks.flush_accumulator` must flush the `ks.accumulator` of its own
/// function, and sums must have element types a warp can shuffle.
mlir::LogicalResult checkReductions(mlir::ModuleOp module);

/// vector.extract and vector.insert of a matrix row at a run-time index as
/// selects between the rows (LLVM has no run-time index into an array).
void populateMatrixAccessPatterns(mlir::RewritePatternSet &patterns);

/// ks.load, ks.store, ks.atomic_rmw, ks.slice, ks.dim, ks.as_const,
/// ks.grid_size and ks.grid_extent.
void populateMemoryToLLVMPatterns(const KsLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);

/// ks.check_bounds and ks.check_index (gpu.printf, then a trap).
void populateChecksToLLVMPatterns(const KsLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);

/// ks.tape_create, ks.tape_push and ks.tape_pop on a GPU thread's tape.
void populateTapesToLLVMPatterns(const KsLLVMTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// ks.accumulator (a GPU thread's partial sums, in registers when indexed
/// by constants) and ks.flush_accumulator (`block`: summed across the
/// block, one atomic per scalar and block).
void populateReductionsToLLVMPatterns(const KsLLVMTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// ks.struct_make, ks.struct_extract and ks.struct_insert.
void populateStructsToLLVMPatterns(const KsLLVMTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

} // namespace ksc::conversion

#endif // KSC_LIB_CONVERSION_KSTOLLVM_KSTOLLVM_H
