//===- KsTypes.cpp - Types of the ks dialect --------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ksc::ks;

#define GET_TYPEDEF_CLASSES
#include "ksc/Dialect/Ks/IR/KsOpsTypes.cpp.inc"

void KsDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ksc/Dialect/Ks/IR/KsOpsTypes.cpp.inc"
      >();
}

bool ArrayType::isValidElementType(Type type) {
  if (type.isF32() || type.isF64())
    return true;
  return type.isSignlessInteger(1) || type.isSignlessInteger(32) ||
         type.isUnsignedInteger(32) || type.isSignlessInteger(64);
}

Type ArrayType::getValueType() const {
  Type element = getElementType();
  if (auto integer = dyn_cast<IntegerType>(element);
      integer && !integer.isSignless())
    return IntegerType::get(getContext(), integer.getWidth());
  return element;
}

LogicalResult ArrayType::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type elementType, unsigned rank, bool isConst) {
  if (!isValidElementType(elementType))
    return emitError() << "array element type must be f32, f64, i1, i32, ui32 "
                          "or i64, got "
                       << elementType;
  if (rank < 1 || rank > 4)
    return emitError() << "array rank must be between 1 and 4, got " << rank;
  return success();
}

// `!ks.array<` (`const`)? type (`,` rank)? `>`
Type ArrayType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  bool isConst = succeeded(parser.parseOptionalKeyword("const"));
  Type elementType;
  if (parser.parseType(elementType))
    return {};
  unsigned rank = 1;
  if (succeeded(parser.parseOptionalComma()) && parser.parseInteger(rank))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    elementType, rank, isConst);
}

void ArrayType::print(AsmPrinter &printer) const {
  printer << '<';
  if (getIsConst())
    printer << "const ";
  printer << getElementType();
  if (getRank() != 1)
    printer << ", " << getRank();
  printer << '>';
}
