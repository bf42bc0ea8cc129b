//===- KsOps.h - Operations of the ks dialect ---------------*- C++ -*-===//
//
// Part of ksc. Include this header to use the ks dialect: it brings the
// dialect, its types and its operations.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DIALECT_KS_IR_KSOPS_H
#define KSC_DIALECT_KS_IR_KSOPS_H

#include "ksc/Dialect/Ks/IR/DerivativeOpInterface.h"
#include "ksc/Dialect/Ks/IR/KsDialect.h"
#include "ksc/Dialect/Ks/IR/KsTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "ksc/Dialect/Ks/IR/KsEnums.h.inc"

namespace ksc::ks {
/// The running thread's tape (`ks.tape_push`, `ks.tape_pop`), as a resource
/// of memory effects: tape operations are ordered among themselves only.
struct TapeResource : public mlir::SideEffects::Resource::Base<TapeResource> {
  llvm::StringRef getName() final { return "ks.tape"; }
};
/// The trait Ks_CppExpression (KsBase.td): the C++ emitters may print the
/// operation inline, as an expression.
template <typename ConcreteType>
class CppExpression
    : public mlir::OpTrait::TraitBase<ConcreteType, CppExpression> {};
/// The trait Ks_LinearAlgebra (KsBase.td): a vector, matrix or quaternion
/// operation, which the C++ emitter prints with the vector family.
template <typename ConcreteType>
class LinearAlgebra
    : public mlir::OpTrait::TraitBase<ConcreteType, LinearAlgebra> {};
} // namespace ksc::ks

#define GET_OP_CLASSES
#include "ksc/Dialect/Ks/IR/KsOps.h.inc"

namespace ksc::ks {

// kInoutAttr (KsDialect.h) marks an in-out argument of a device function:
// a `T &` parameter in the source. Such a function returns the final value
// of each in-out argument, in argument order, after its own result (if
// any); callers write those values back.
//
// kUnsignedAttr marks an `i32` argument or result of a kernel or function
// as a `uint32_t` of the source. The IR's integers are signless: the
// operations say how a value is read (`arith.divui`, `arith.uitofp`), and
// this attribute says how the parameter is declared in emitted code and how
// `ksc-run` reads it.

/// Whether argument `index` of `function` is marked `ks.unsigned`.
bool isUnsignedArg(mlir::FunctionOpInterface function, unsigned index);
/// Whether result `index` of `function` is marked `ks.unsigned`.
bool isUnsignedResult(mlir::FunctionOpInterface function, unsigned index);

/// The indices of the in-out arguments of `function`, in order.
llvm::SmallVector<unsigned> getInoutArgs(mlir::FunctionOpInterface function);

/// The number of results of `function` that are not in-out values.
unsigned getNumDirectResults(mlir::FunctionOpInterface function);

/// The array `array` is a view of, through the operations that make views
/// (`ks.slice`, `ks.as_const`: the ViewLikeOpInterface); `array` itself if
/// it is no view.
mlir::Value getViewRoot(mlir::Value array);

/// The type of part `index` of a value of `type` (what `ks.atomic_rmw`'s
/// `fields` step into): field `index` of a struct, row `index` of a
/// matrix, component `index` of a vector; null when there is none.
mlir::Type getPartType(mlir::Type type, int64_t index);

} // namespace ksc::ks

#endif // KSC_DIALECT_KS_IR_KSOPS_H
