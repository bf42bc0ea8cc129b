//===- KsDialect.h - The ks dialect -------------------------*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSDIALECT_H
#define KSC_DIALECT_KS_IR_KSDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "ksc/Dialect/Ks/IR/KsOpsDialect.h.inc"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace ksc::ks {
// The names of the ks attributes (declared, with their meaning, as the
// dialect's discardableAttrs in KsBase.td; verified by the dialect).
inline constexpr llvm::StringLiteral kAdjointOfAttr =
    KsDialect::AdjointOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kAdjointArgsAttr =
    KsDialect::AdjointArgsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kTangentOfAttr =
    KsDialect::TangentOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kTangentArgsAttr =
    KsDialect::TangentArgsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kTangentWidthAttr =
    KsDialect::TangentWidthAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kFinalValueArgsAttr =
    KsDialect::FinalValueArgsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCustomAdjointAttr =
    KsDialect::CustomAdjointAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCustomTangentAttr =
    KsDialect::CustomTangentAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kNamesAttr =
    KsDialect::NamesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUnsignedNamesAttr =
    KsDialect::UnsignedNamesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kLaunchOfAttr =
    KsDialect::LaunchOfAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCudaLaunchAttr =
    KsDialect::CudaLaunchAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPartialWordsAttr =
    KsDialect::PartialWordsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kNameAttr =
    KsDialect::NameAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kInoutAttr =
    KsDialect::InoutAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUnsignedAttr =
    KsDialect::UnsignedAttrHelper::getNameStr();

/// Adds the canonicalization of `scf.for` that drops loop-carried values
/// whose only use is computing their own next value (part of the dialect's
/// canonicalization patterns; DeadLoopValues.cpp).
void populateDeadLoopValuePatterns(mlir::RewritePatternSet &patterns);
} // namespace ksc::ks

#endif // KSC_DIALECT_KS_IR_KSDIALECT_H
