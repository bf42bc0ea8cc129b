//===- MatrixAccess.cpp - Run-time row indices of matrices ----------------===//
//
// Part of ksc. A matrix is an LLVM array of row vectors, whose elements LLVM
// can only extract and insert at constant positions: convert-ks-to-llvm
// first rewrites `vector.extract` and `vector.insert` with a run-time row
// index (`m[i]`, `m[i][j]` in the source) as a choice between the rows
// (`arith.select`), as the runtime's `vec::operator[]` chooses between the
// components. A run-time column index within a row is an LLVM
// `extractelement`/`insertelement` and stays.
//
//===----------------------------------------------------------------------===//

#include "KsToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// Whether `op` (a vector.extract or vector.insert) indexes the rows of a
/// matrix with a run-time value.
template <typename Op> bool hasRuntimeRow(Op op, VectorType matrix) {
  return matrix.getRank() == 2 && !op.getMixedPosition().empty() &&
         isa<Value>(op.getMixedPosition().front());
}

/// `index == row`, for the row index `index` of any integer type.
Value isRow(PatternRewriter &rewriter, Location loc, Value index, int64_t row) {
  Value constant = arith::ConstantOp::create(
      rewriter, loc, rewriter.getIntegerAttr(index.getType(), row));
  return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, index,
                               constant);
}

/// Row `index` of `matrix`: the last row unless `index` is an earlier one
/// (the runtime's `i == 0 ? rows[0] : i == 1 ? rows[1] : rows[2]`).
Value selectRow(PatternRewriter &rewriter, Location loc, Value matrix,
                Value index) {
  int64_t rows = cast<VectorType>(matrix.getType()).getDimSize(0);
  Value result = vector::ExtractOp::create(rewriter, loc, matrix,
                                           ArrayRef<int64_t>{rows - 1});
  for (int64_t row = rows - 2; row >= 0; --row) {
    Value condition = isRow(rewriter, loc, index, row);
    Value candidate = vector::ExtractOp::create(rewriter, loc, matrix,
                                                ArrayRef<int64_t>{row});
    result =
        arith::SelectOp::create(rewriter, loc, condition, candidate, result);
  }
  return result;
}

struct RuntimeRowExtract : OpRewritePattern<vector::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasRuntimeRow(op, op.getSourceVectorType()))
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> position = op.getMixedPosition();
    Value row =
        selectRow(rewriter, loc, op.getSource(), cast<Value>(position.front()));
    if (position.size() == 1)
      rewriter.replaceOp(op, row);
    else
      rewriter.replaceOpWithNewOp<vector::ExtractOp>(op, row, position[1]);
    return success();
  }
};

struct RuntimeRowInsert : OpRewritePattern<vector::InsertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::InsertOp op,
                                PatternRewriter &rewriter) const override {
    VectorType matrixType = op.getDestVectorType();
    if (!hasRuntimeRow(op, matrixType))
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> position = op.getMixedPosition();
    Value index = cast<Value>(position.front());
    Value matrix = op.getDest();
    Value newRow = op.getValueToStore();
    if (position.size() == 2)
      newRow = vector::InsertOp::create(rewriter, loc, newRow,
                                        selectRow(rewriter, loc, matrix, index),
                                        position[1]);
    // Every row: the new one where the index points, the old one elsewhere.
    Value result = matrix;
    for (int64_t row = 0; row < matrixType.getDimSize(0); ++row) {
      Value old = vector::ExtractOp::create(rewriter, loc, matrix,
                                            ArrayRef<int64_t>{row});
      Value chosen = arith::SelectOp::create(
          rewriter, loc, isRow(rewriter, loc, index, row), newRow, old);
      result = vector::InsertOp::create(rewriter, loc, chosen, result,
                                        ArrayRef<int64_t>{row});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void ksc::conversion::populateMatrixAccessPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RuntimeRowExtract, RuntimeRowInsert>(patterns.getContext());
}
