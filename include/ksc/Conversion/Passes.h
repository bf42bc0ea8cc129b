//===- Passes.h - Conversions out of the ks dialect ---------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_CONVERSION_PASSES_H
#define KSC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace ksc {

#define GEN_PASS_DECL
#include "ksc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ksc/Conversion/Passes.h.inc"

} // namespace ksc

#endif // KSC_CONVERSION_PASSES_H
