//===- DerivativeOpInterface.h - Derivative rules on ops -----*- C++ -*-===//
//
// Part of ksc. The interface through which the differentiation passes find
// the derivative rules of an operation (declared in KsInterfaces.td), the
// contexts a rule works in, and the registration of the rules of the
// arith, math and vector operations as external models.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_DERIVATIVEOPINTERFACE_H
#define KSC_DIALECT_KS_IR_DERIVATIVEOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ksc::ks::ad {

/// The reverse-mode rule of a pure operation at work: `op` is the
/// operation of the kernel being differentiated, `operands` and `results`
/// its values as the reverse sweep sees them (their copies in the adjoint
/// kernel), `resultAdjoints` the adjoints of its results (null where a
/// result has none). The rule sets `operandAdjoints[i]` to what operand i's
/// adjoint gets, or leaves it null for nothing.
struct RuleContext {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Operation *op;
  mlir::ValueRange operands;
  mlir::ValueRange results;
  llvm::ArrayRef<mlir::Value> resultAdjoints;
  llvm::SmallVectorImpl<mlir::Value> &operandAdjoints;
};

/// The forward-mode rule of a pure operation at work: `op` is the
/// operation of the kernel being differentiated, `operands` and `results`
/// its values in the tangent kernel, `operandTangents` the tangents of its
/// operands in one direction (null for a zero). The rule sets
/// `resultTangents[i]` to the tangent of result i, or leaves it null for a
/// zero.
struct TangentContext {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Operation *op;
  mlir::ValueRange operands;
  mlir::ValueRange results;
  llvm::ArrayRef<mlir::Value> operandTangents;
  llvm::SmallVectorImpl<mlir::Value> &resultTangents;
};

/// The tangent of a pointwise operation (diagonal Jacobian): the sum over
/// the operands i with a tangent dx_i of operand i's reverse rule applied
/// to dx_i in place of the result's adjoint.
mlir::LogicalResult pointwiseTangent(TangentContext &ctx);

/// Whether values of `type` carry derivatives: `f32`, `f64`, vectors and
/// matrices of them (quaternions are `vector<4xf32>`), and structs with
/// such a field (at any depth). A struct's derivative is a struct of the
/// same type whose other fields (integers, `bool`) are zero.
bool isDifferentiable(mlir::Type type);

/// The zero of a value type: of a float, vector, matrix or integer type,
/// or a struct of zeros (the derivative of a struct with no contribution).
mlir::Value zero(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

} // namespace ksc::ks::ad

#include "ksc/Dialect/Ks/IR/KsInterfaces.h.inc"

namespace ksc::ks {

/// Attaches the DerivativeOpInterface models of the arith, math and vector
/// operations (ArithDerivatives.cpp, VectorDerivatives.cpp) when those
/// dialects are loaded.
void registerDerivativeExternalModels(mlir::DialectRegistry &registry);

} // namespace ksc::ks

#endif // KSC_DIALECT_KS_IR_DERIVATIVEOPINTERFACE_H
