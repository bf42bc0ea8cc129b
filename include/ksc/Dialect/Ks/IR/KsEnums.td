//===- KsEnums.td - Enumerations of the ks dialect ---------*- tablegen -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#ifndef KSC_DIALECT_KS_IR_KSENUMS_TD
#define KSC_DIALECT_KS_IR_KSENUMS_TD

include "mlir/IR/EnumAttr.td"

/// What `ks.atomic_rmw` does to the element. The operation's description
/// gives the semantics of each kind per element type.
def Ks_AtomicKind : I32EnumAttr<"AtomicKind",
    "the update a ks.atomic_rmw makes", [
      I32EnumAttrCase<"add", 0>,
      I32EnumAttrCase<"sub", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"exchange", 4>
    ]> {
  let cppNamespace = "::ksc::ks";
}

#endif // KSC_DIALECT_KS_IR_KSENUMS_TD
