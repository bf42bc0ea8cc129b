//===- KsBase.td - The ks dialect definition ---------------*- tablegen -*-===//
//
// Part of ksc. The `ks` dialect holds what upstream MLIR dialects lack for a
// kernel language: kernels and device functions, the thread index, and
// kernel arrays. Arithmetic, math and structured control flow reuse `arith`,
// `math` and `scf`.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSBASE_TD
#define KSC_DIALECT_KS_IR_KSBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Ks_Dialect : Dialect {
  let name = "ks";
  let cppNamespace = "::ksc::ks";
  let summary = "Kernels, device functions and arrays of the ksc kernel language";
  let description = [{
    The `ks` dialect is the IR the ksc frontend produces from a `.kdsl` file.
    A module holds `ks.kernel` operations (entry points launched over a grid
    of threads) and `ks.func` operations (device functions callable from
    kernels and other device functions). Kernel bodies use `arith`, `math`
    and `scf` for computation and control flow, and the operations of this
    dialect for what is specific to kernels: `ks.tid` for the index of the
    running thread, and `ks.load`/`ks.store`/`ks.atomic_rmw` on `!ks.array`
    values.

    Source variable names survive as `NameLoc` locations on the operations
    that define them (a `FusedLoc` of several `NameLoc`s when one value is
    stored in several variables), as the `arg_names` of kernels and
    functions, and as a `ks.names` string array on the `scf` operations the
    frontend creates (one name per result), so that the emitters can print
    readable code. Names are hints: no transformation depends on them.

    Integers are signless, as in `arith`: whether an `i32` is the source's
    `int` or `uint32_t` shows in the operations that read it (`arith.divui`,
    `arith.cmpi ult`, `arith.uitofp`, `arith.extui`) and in the absence of
    `overflow<nsw>` on its additions, subtractions and multiplications, which
    wrap. Where the distinction must survive for the outside world, it is
    marked: the `ks.unsigned` argument and result attribute on `uint32_t`
    parameters and results of kernels and functions, the `ui32` element type
    of `!ks.array` for arrays of `uint32_t`, and the `ks.unsigned_names`
    attribute of a kernel or function, which lists the names of its
    `uint32_t` locals so that emitted code declares them as such.

    ```mlir
    ks.kernel @saxpy(%a: f32, %x: !ks.array<const f32>, %y: !ks.array<f32>) {
      %i = ks.tid : i32
      %xi = ks.load %x[%i] : !ks.array<const f32>, i32
      %yi = ks.load %y[%i] : !ks.array<f32>, i32
      %0 = arith.mulf %a, %xi : f32
      %1 = arith.addf %0, %yi : f32
      ks.store %1, %y[%i] : !ks.array<f32>, i32
      ks.return
    }
    ```
  }];
  // Simplifications of `arith` and `scf` operations those dialects lack,
  // which the adjoint code relies on (KsDialect::getCanonicalizationPatterns).
  let hasCanonicalizer = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];

  // The attributes ks puts on operations of any dialect, checked by
  // KsDialect::verifyOperationAttribute (operations) and
  // verifyRegionArgAttribute / verifyRegionResultAttribute (arguments and
  // results of kernels and functions). Their names are the k...Attr
  // constants of KsDialect.h.
  //
  // - ks.adjoint_of, ks.adjoint_args: on an adjoint kernel (ks-reverse-ad),
  //   the kernel it is the adjoint of, and per adjoint argument the index
  //   of its primal one.
  // - ks.tangent_of, ks.tangent_args, ks.tangent_width: the same for a
  //   tangent kernel (ks-forward-ad), and its number of tangent directions
  //   when it is more than one.
  // - ks.custom_adjoint, ks.custom_tangent: on a device function, the
  //   device functions that are its reverse-mode and forward-mode
  //   derivative rules (KSC_ADJOINT, KSC_TANGENT in the source).
  // - ks.final_value_args: on an adjoint or tangent kernel, the indices of
  //   the primal arrays it must be given as the primal kernel left them
  //   (those it updates with atomic_min/atomic_max), not as it found them.
  // - ks.names: on scf operations, the source name of each result ("" for
  //   none).
  // - ks.unsigned_names: on kernels and functions, the sorted source names
  //   of their uint32_t local variables.
  // - ks.launch_of: on a launcher (convert-ks-to-cpu, convert-ks-to-cuda),
  //   the kernel it launches; ks.cuda_launch: how a CUDA launcher covers
  //   the grid ("grid-stride", "guarded", one thread per index, or
  //   "serial", one GPU thread runs the grid-stride loop over every index).
  // - ks.partial_words (argument): on a CUDA launcher, marks an argument
  //   the launch allocates, not the caller: the partials of a
  //   `ks.flush_accumulator ... ordered`, with this many i64 elements per
  //   block after its ticket.
  // - ks.name (argument): the source name of an argument after lowering.
  // - ks.inout (argument): an in-out (`T &`) argument of a device function.
  // - ks.unsigned (argument, result): an i32 that is a uint32_t in the
  //   source.
  let discardableAttrs = (ins
    "::mlir::FlatSymbolRefAttr":$adjoint_of,
    "::mlir::DenseI64ArrayAttr":$adjoint_args,
    "::mlir::FlatSymbolRefAttr":$tangent_of,
    "::mlir::DenseI64ArrayAttr":$tangent_args,
    "::mlir::IntegerAttr":$tangent_width,
    "::mlir::DenseI64ArrayAttr":$final_value_args,
    "::mlir::FlatSymbolRefAttr":$custom_adjoint,
    "::mlir::FlatSymbolRefAttr":$custom_tangent,
    "::mlir::ArrayAttr":$names,
    "::mlir::ArrayAttr":$unsigned_names,
    "::mlir::StringAttr":$launch_of,
    "::mlir::StringAttr":$cuda_launch,
    "::mlir::StringAttr":$name,
    "::mlir::IntegerAttr":$partial_words,
    "::mlir::UnitAttr":$inout,
    "::mlir::UnitAttr":$unsigned
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

// An operation the C++ emitters may print as an expression where its
// result is used, instead of a statement of its own (Target/Cpp/
// Analysis.cpp, isExpressionOp): it has one result, and evaluating it later
// than where it stands changes nothing but which memory it reads, which the
// emitter tracks. As EmitC's CExpressionInterface; arith, math and gpu
// operations are expressions by their dialect.
def Ks_CppExpression : NativeOpTrait<"CppExpression"> {
  let cppNamespace = "::ksc::ks";
}

// A vector, matrix or quaternion operation (KsLinalgOps.td): the C++
// emitter prints it with the vector family (Target/Cpp/EmitVector.cpp), as
// it does the vector dialect's operations.
def Ks_LinearAlgebra : NativeOpTrait<"LinearAlgebra"> {
  let cppNamespace = "::ksc::ks";
}

class Ks_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ks_Dialect, mnemonic, traits>;

class Ks_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Ks_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // KSC_DIALECT_KS_IR_KSBASE_TD
