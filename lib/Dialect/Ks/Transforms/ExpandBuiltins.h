//===- ExpandBuiltins.h - Patterns of ks-expand-builtins --------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Dialect/Ks/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_DIALECT_KS_TRANSFORMS_EXPANDBUILTINS_H
#define KSC_LIB_DIALECT_KS_TRANSFORMS_EXPANDBUILTINS_H

#include "mlir/IR/PatternMatch.h"

namespace ksc::ks {

/// ks.dot, ks.cross, ks.outer, ks.matmul, ks.determinant, ks.inverse and
/// the quaternion operations as arith and vector operations.
void populateExpandLinalgPatterns(mlir::RewritePatternSet &patterns);

/// ks.rand_init, ks.randi, ks.randf and ks.randn as arith and math
/// operations.
void populateExpandRandomPatterns(mlir::RewritePatternSet &patterns);

} // namespace ksc::ks

#endif // KSC_LIB_DIALECT_KS_TRANSFORMS_EXPANDBUILTINS_H
