//===- ExpandBuiltins.h - Patterns of ks-expand-builtins --------*- C++ -*-===//
//
// Part of ksc. Internal to lib/Conversion/KsToLLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_CONVERSION_KSTOLLVM_EXPANDBUILTINS_H
#define KSC_LIB_CONVERSION_KSTOLLVM_EXPANDBUILTINS_H

#include "mlir/IR/PatternMatch.h"

namespace ksc::conversion {

/// ks.dot, ks.cross, ks.outer, ks.matmul, ks.determinant, ks.inverse and
/// the quaternion operations as arith and vector operations.
void populateExpandLinalgPatterns(mlir::RewritePatternSet &patterns);

/// ks.rand_init, ks.randi, ks.randf and ks.randn as arith and math
/// operations.
void populateExpandRandomPatterns(mlir::RewritePatternSet &patterns);

} // namespace ksc::conversion

#endif // KSC_LIB_CONVERSION_KSTOLLVM_EXPANDBUILTINS_H
