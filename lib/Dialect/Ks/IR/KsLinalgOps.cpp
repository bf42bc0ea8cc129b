//===- KsLinalgOps.cpp - Vector and matrix operations -----------------===//
//
// Part of ksc. Verifiers of the operations in KsLinalgOps.td.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

using namespace mlir;
using namespace ksc::ks;

/// The extent of square matrix `type` (2, 3 or 4), or an error.
static FailureOr<int64_t> squareExtent(Operation *op, VectorType type) {
  int64_t n = type.getDimSize(0);
  if (type.getDimSize(1) != n || n < 2 || n > 4)
    return op->emitOpError("expects a 2x2, 3x3 or 4x4 matrix, got ") << type;
  return n;
}

LogicalResult CrossOp::verify() {
  if (getResult().getType().getDimSize(0) != 3)
    return emitOpError("expects 3-component vectors, got ")
           << getResult().getType();
  return success();
}

LogicalResult OuterOp::verify() {
  VectorType vector = getLhs().getType();
  VectorType result = getResult().getType();
  int64_t n = vector.getDimSize(0);
  if (result.getElementType() != vector.getElementType() ||
      result.getDimSize(0) != n || result.getDimSize(1) != n)
    return emitOpError("expects a result of type ")
           << VectorType::get({n, n}, vector.getElementType()) << ", got "
           << result;
  return success();
}

LogicalResult MatmulOp::verify() {
  auto lhs = cast<VectorType>(getLhs().getType());
  auto rhs = cast<VectorType>(getRhs().getType());
  auto result = cast<VectorType>(getResult().getType());
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != result.getElementType())
    return emitOpError("expects operands and result of one element type");
  if (lhs.getRank() == 1 && rhs.getRank() == 1)
    return emitOpError("expects at least one matrix operand (use ks.dot or "
                       "ks.outer for two vectors)");
  VectorType matrix = lhs.getRank() == 2 ? lhs : rhs;
  FailureOr<int64_t> n = squareExtent(*this, matrix);
  if (failed(n))
    return failure();
  for (VectorType operand : {lhs, rhs, result})
    for (int64_t extent : operand.getShape())
      if (extent != *n)
        return emitOpError("expects operands and result of extent ")
               << *n << ", got " << operand;
  // A matrix result only from two matrices.
  if ((result.getRank() == 2) != (lhs.getRank() == 2 && rhs.getRank() == 2))
    return emitOpError("expects a ")
           << (result.getRank() == 2 ? "vector" : "matrix")
           << " result for these operands, got " << result;
  return success();
}

LogicalResult DeterminantOp::verify() {
  return squareExtent(*this, getMatrix().getType());
}

LogicalResult InverseOp::verify() {
  return squareExtent(*this, getMatrix().getType());
}

LogicalResult NormalizeOp::verify() {
  if (getQuaternion() &&
      cast<VectorType>(getVector().getType()).getDimSize(0) != 4)
    return emitOpError("of a quaternion expects a vector of 4 components, got ")
           << getVector().getType();
  return success();
}

LogicalResult QuatToMatrixOp::verify() {
  auto quat = cast<VectorType>(getQuat().getType());
  auto expected = VectorType::get({3, 3}, quat.getElementType());
  if (getResult().getType() != expected)
    return emitOpError("expects a result of type ")
           << expected << ", got " << getResult().getType();
  return success();
}
