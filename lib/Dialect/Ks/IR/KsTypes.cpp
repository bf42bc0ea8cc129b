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

/// A scalar of the kernel language.
static bool isScalar(Type type) {
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

bool ArrayType::isValidElementType(Type type) {
  if (isScalar(type))
    return true;
  // vecN (2..4 components of f32, f64 or i32) and matNN (f32 or f64).
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || vector.isScalable() || vector.getRank() < 1 ||
      vector.getRank() > 2)
    return false;
  Type element = vector.getElementType();
  for (int64_t extent : vector.getShape())
    if (extent != vector.getDimSize(0) || extent < 2 || extent > 4)
      return false;
  if (vector.getRank() == 2)
    return element.isF32() || element.isF64();
  return element.isF32() || element.isF64() || element.isSignlessInteger(32);
}

LogicalResult ArrayType::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type elementType, unsigned rank, bool isConst) {
  if (!isValidElementType(elementType))
    return emitError() << "array element type must be f32, f64, i1, i32, "
                          "ui32, i64, a vector of 2 to 4 f32, f64 or i32, "
                          "or a square matrix (2x2 to 4x4) of f32 or f64, got "
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
