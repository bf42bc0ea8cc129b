//===- SourceNames.h - Source names and locations in ks IR --*- C++ -*-===//
//
// Part of ksc. The frontend records the source name of every variable: as a
// `NameLoc` on the operation that computes it, as `arg_names` on kernels and
// functions, and as `ks.name` argument attributes after lowering. These
// helpers read them back.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_SOURCENAMES_H
#define KSC_DIALECT_KS_IR_SOURCENAMES_H

#include "ksc/Dialect/Ks/IR/KsDialect.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include <string>

namespace ksc {

// The attributes of source names (KsDialect.h): kNameAttr, the argument
// attribute that carries a source name after lowering; kNamesAttr, on `scf`
// operations, the source names of their results ("" for a result without
// one); kUnsignedNamesAttr, on kernels and functions (`ks.kernel`,
// `ks.func`, and the `func.func` they become), the sorted source names of
// their `uint32_t` local variables. Like the names themselves it is a hint
// for the emitters: a value named after one of them is declared `uint32_t`,
// one named after another variable `int`. A name that the function uses for
// an `int` and a `uint32_t` variable is not listed.
using ks::kNameAttr;
using ks::kNamesAttr;
using ks::kUnsignedNamesAttr;

/// The source name of `loc` if it is (or wraps, through call-site or fused
/// locations) a `NameLoc`; "" otherwise.
llvm::StringRef getNameFromLoc(mlir::Location loc);

/// The source name of `value`: the argument name of a function argument, the
/// `NameLoc` of a block argument or of the single-result operation defining
/// it, or the `ks.names` entry of a single-result region operation (a `?:`).
/// Returns "" when the value has none.
llvm::StringRef getSourceName(mlir::Value value);

/// Every source name in `loc`, in order: a value first assigned to `t` and
/// then copied into `old` (`float old = t;`) has the names `t`, `old`.
llvm::SmallVector<llvm::StringRef, 1> getNamesFromLoc(mlir::Location loc);

/// `loc` with `name` added as a further name of the value it locates.
mlir::Location addNameToLoc(mlir::Location loc, llvm::StringRef name);

/// The innermost file location in `loc`, if any.
std::optional<mlir::FileLineColRange> getFileLoc(mlir::Location loc);

/// `file:line:col` for `loc`, or "<unknown>".
std::string formatFileLoc(mlir::Location loc);

} // namespace ksc

#endif // KSC_DIALECT_KS_IR_SOURCENAMES_H
