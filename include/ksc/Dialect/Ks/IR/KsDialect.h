//===- KsDialect.h - The ks dialect -------------------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSDIALECT_H
#define KSC_DIALECT_KS_IR_KSDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dialect.h"

#include "ksc/Dialect/Ks/IR/KsOpsDialect.h.inc"

#endif // KSC_DIALECT_KS_IR_KSDIALECT_H
