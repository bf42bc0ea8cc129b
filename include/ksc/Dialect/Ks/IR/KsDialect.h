//===- KsDialect.h - The ks dialect -------------------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSDIALECT_H
#define KSC_DIALECT_KS_IR_KSDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ksc/Dialect/Ks/IR/KsOpsDialect.h.inc"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace ksc::ks {
/// Adds the canonicalization of `scf.for` that drops loop-carried values
/// whose only use is computing their own next value (part of the dialect's
/// canonicalization patterns; DeadLoopValues.cpp).
void populateDeadLoopValuePatterns(mlir::RewritePatternSet &patterns);
} // namespace ksc::ks

#endif // KSC_DIALECT_KS_IR_KSDIALECT_H
