//===- Builtins.h - The builtins of the kernel language --------*- C++ -*-===//
//
// Part of ksc. The facts about each builtin function of the kernel language
// that tools need (its name, group, arity, argument kinds and where its
// derivative is defined), from the one table of them,
// include/ksc/Frontend/Builtins.def.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_FRONTEND_BUILTINS_H
#define KSC_FRONTEND_BUILTINS_H

#include "ksc/Frontend/Frontend.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace ksc {

/// What a builtin works on; its section of the prelude.
enum class BuiltinGroup { Thread, Math, Vector, Quaternion, Random, Atomic };

namespace builtin {
/// The kinds of arguments a builtin's overloads take (bits), the OPERANDS
/// column of Builtins.def.
enum Operand : unsigned {
  /// float and double.
  Float = 1u << 0,
  /// int and int64_t.
  Int = 1u << 1,
  /// uint32_t (min, max and clamp).
  Uint = 1u << 2,
  /// Vectors of float or double.
  Vec = 1u << 3,
  /// Vectors of int.
  IntVec = 1u << 4,
  /// 3-vectors only.
  Vec3 = 1u << 5,
  /// Matrices.
  Mat = 1u << 6,
  /// Quaternions.
  Quat = 1u << 7,
  /// Arrays.
  Array = 1u << 8,
  /// The uint32_t state of a random-number stream, which the call advances.
  State = 1u << 9,
};
} // namespace builtin

struct BuiltinInfo {
  llvm::StringLiteral name;
  BuiltinGroup group;
  /// The number of arguments of every overload; -1 when they differ.
  int arity;
  /// builtin::Operand bits.
  unsigned operands;
  /// Where the derivative is defined (Builtins.def, DOMAIN); empty for
  /// builtins that are not differentiable functions of their arguments.
  llvm::StringLiteral domain;

  bool takes(builtin::Operand kind) const { return operands & kind; }
};

/// Every builtin, in the order of Builtins.def.
llvm::ArrayRef<BuiltinInfo> getBuiltins();

/// The builtin called `name`; null when there is none.
const BuiltinInfo *lookupBuiltin(llvm::StringRef name);

/// The lowercase name of `group` (in JSON and messages).
llvm::StringRef getBuiltinGroupName(BuiltinGroup group);

/// Writes the builtins as a JSON array of objects (name, group, arity,
/// operands, domain), after checking them against the prelude's
/// declarations (with `options`' -I and -D): a function the prelude
/// declares in namespace ksc that the table lacks, a row the prelude does
/// not declare, or an overload with another number of parameters than the
/// row's arity is an error on `errors`. Returns whether they agree.
bool printBuiltins(llvm::raw_ostream &os, llvm::raw_ostream &errors,
                   const FrontendOptions &options);

} // namespace ksc

#endif // KSC_FRONTEND_BUILTINS_H
