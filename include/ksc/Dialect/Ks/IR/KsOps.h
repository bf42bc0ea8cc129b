//===- KsOps.h - Operations of the ks dialect ---------------*- C++ -*-===//
//
// Part of ksc. Include this header to use the ks dialect: it brings the
// dialect, its types and its operations.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSOPS_H
#define KSC_DIALECT_KS_IR_KSOPS_H

#include "ksc/Dialect/Ks/IR/KsDialect.h"
#include "ksc/Dialect/Ks/IR/KsTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ksc/Dialect/Ks/IR/KsOps.h.inc"

#endif // KSC_DIALECT_KS_IR_KSOPS_H
