//===- Passes.h - Transformations of the ks dialect ---------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_TRANSFORMS_PASSES_H
#define KSC_DIALECT_KS_TRANSFORMS_PASSES_H

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "mlir/Pass/Pass.h"

namespace ksc::ks {

#define GEN_PASS_DECL
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ksc/Dialect/Ks/Transforms/Passes.h.inc"

} // namespace ksc::ks

#endif // KSC_DIALECT_KS_TRANSFORMS_PASSES_H
