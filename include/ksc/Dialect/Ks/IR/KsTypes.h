//===- KsTypes.h - Types of the ks dialect ------------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSTYPES_H
#define KSC_DIALECT_KS_IR_KSTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "ksc/Dialect/Ks/IR/KsOpsTypes.h.inc"

namespace ksc::ks {
/// The type in which values of an element or field type `type` are read
/// and written: `type`, signless (`i32` for `ui32`).
mlir::Type getSignless(mlir::Type type);
} // namespace ksc::ks

#endif // KSC_DIALECT_KS_IR_KSTYPES_H
