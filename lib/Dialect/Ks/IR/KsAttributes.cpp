//===- KsAttributes.cpp - The ks attributes on other operations --------===//
//
// Part of ksc. Verifies the discardable attributes of the ks dialect
// (KsBase.td, discardableAttrs) wherever they appear: on operations, and on
// the arguments and results of kernels and functions. Their meaning (and
// the checks that need the operation, such as ks.unsigned on i32 only) is
// with the operations that use them.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

using namespace mlir;
using namespace ksc::ks;

namespace {
/// What each ks attribute must be: whether its value is right, and the
/// words that say what it must be.
struct AttributeKind {
  llvm::StringLiteral name;
  bool (*matches)(Attribute);
  llvm::StringLiteral expected;
};

template <typename T> bool isA(Attribute attr) { return isa<T>(attr); }

bool isStringArray(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && llvm::all_of(array, isA<StringAttr>);
}

bool isPositiveInteger(Attribute attr) {
  auto integer = dyn_cast<IntegerAttr>(attr);
  return integer && integer.getType().isInteger(64) && integer.getInt() > 0;
}

bool isCudaLaunch(Attribute attr) {
  auto string = dyn_cast<StringAttr>(attr);
  return string &&
         (string == "grid-stride" || string == "guarded" || string == "serial");
}

bool isPartialWords(Attribute attr) {
  auto words = dyn_cast<IntegerAttr>(attr);
  return words && words.getType().isInteger(64) && words.getInt() >= 1;
}

/// The attributes of operations.
constexpr AttributeKind kOperationAttributes[] = {
    {kAdjointOfAttr, isA<FlatSymbolRefAttr>,
     "a symbol reference to the primal kernel"},
    {kAdjointArgsAttr, isA<DenseI64ArrayAttr>,
     "an array<i64> of argument indices"},
    {kTangentOfAttr, isA<FlatSymbolRefAttr>,
     "a symbol reference to the primal kernel"},
    {kTangentArgsAttr, isA<DenseI64ArrayAttr>,
     "an array<i64> of argument indices"},
    {kTangentWidthAttr, isPositiveInteger, "a positive i64"},
    {kFinalValueArgsAttr, isA<DenseI64ArrayAttr>,
     "an array<i64> of argument indices"},
    {kCustomAdjointAttr, isA<FlatSymbolRefAttr>,
     "a symbol reference to a device function"},
    {kCustomTangentAttr, isA<FlatSymbolRefAttr>,
     "a symbol reference to a device function"},
    {kNamesAttr, isStringArray, "an array of strings"},
    {kUnsignedNamesAttr, isStringArray, "an array of strings"},
    {kLaunchOfAttr, isA<StringAttr>, "the name of a kernel"},
    {kCudaLaunchAttr, isCudaLaunch,
     "\"grid-stride\", \"guarded\" or \"serial\""},
};

/// The attributes of arguments (and, for ks.unsigned, results).
constexpr AttributeKind kArgumentAttributes[] = {
    {kNameAttr, isA<StringAttr>, "a string"},
    {kPartialWordsAttr, isPartialWords, "a positive i64"},
    {kInoutAttr, isA<UnitAttr>, "a unit attribute"},
    {kUnsignedAttr, isA<UnitAttr>, "a unit attribute"},
};

/// Checks `attribute` against `kinds`; `where` names its place in errors,
/// `places` the places of its kind ("operations").
LogicalResult verifyAttribute(Operation *op, NamedAttribute attribute,
                              llvm::ArrayRef<AttributeKind> kinds,
                              const llvm::Twine &where, StringRef places) {
  StringRef name = attribute.getName().getValue();
  for (const AttributeKind &kind : kinds)
    if (kind.name == name) {
      if (kind.matches(attribute.getValue()))
        return success();
      return op->emitOpError() << "attribute '" << name << "'" << where
                             << " must be " << kind.expected << ", not "
                             << attribute.getValue();
    }
  return op->emitOpError() << "the ks dialect has no attribute '" << name
                         << "' for " << places;
}
} // namespace

LogicalResult KsDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  return verifyAttribute(op, attribute, kOperationAttributes,
                         "", "operations");
}

LogicalResult KsDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  return verifyAttribute(op, attribute, kArgumentAttributes,
                         " of argument " + llvm::Twine(argIndex), "arguments");
}

LogicalResult KsDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attribute) {
  return verifyAttribute(op, attribute,
                         llvm::ArrayRef(kArgumentAttributes).take_back(),
                         " of result " + llvm::Twine(resultIndex), "results");
}
