//===- KsTypes.cpp - Types of the ks dialect --------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
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

Type ksc::ks::getSignless(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type);
      integer && !integer.isSignless())
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

Type ArrayType::getValueType() const { return getSignless(getElementType()); }

bool ArrayType::isValidElementType(Type type) {
  // A struct's fields were checked when it was built.
  if (isScalar(type) || isa<StructType>(type))
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
                          "a square matrix (2x2 to 4x4) of f32 or f64, or a "
                          "struct, got "
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

//===----------------------------------------------------------------------===//
// StructType
//===----------------------------------------------------------------------===//

LogicalResult StructType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringAttr name, ArrayRef<StringAttr> fieldNames,
                                 ArrayRef<Type> fieldTypes) {
  if (!name || name.getValue().empty())
    return emitError() << "a struct needs a name";
  if (fieldNames.size() != fieldTypes.size())
    return emitError() << "struct '" << name.getValue() << "' has "
                       << fieldNames.size() << " field names but "
                       << fieldTypes.size() << " field types";
  if (fieldTypes.empty())
    return emitError() << "struct '" << name.getValue()
                       << "' needs at least one field";
  llvm::StringSet<> seen;
  for (auto [fieldName, fieldType] : llvm::zip(fieldNames, fieldTypes)) {
    if (!fieldName || fieldName.getValue().empty())
      return emitError() << "a field of struct '" << name.getValue()
                         << "' has no name";
    if (!seen.insert(fieldName.getValue()).second)
      return emitError() << "struct '" << name.getValue()
                         << "' has two fields named '" << fieldName.getValue()
                         << "'";
    if (!ArrayType::isValidElementType(fieldType))
      return emitError() << "field '" << fieldName.getValue() << "' of struct '"
                         << name.getValue()
                         << "' must have a scalar, vector, matrix or struct "
                            "type, got "
                         << fieldType;
  }
  return success();
}

Type StructType::getFieldValueType(unsigned index) const {
  return getSignless(getFieldTypes()[index]);
}

std::optional<unsigned> StructType::getFieldIndex(StringRef name) const {
  for (auto [index, fieldName] : llvm::enumerate(getFieldNames()))
    if (fieldName.getValue() == name)
      return index;
  return std::nullopt;
}

/// Whether `name` can be printed as a bare keyword and read back as one
/// (not `i32`, `ui8`, `si16`, which the parser reads as integer types).
static bool isBareFieldName(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  if (!llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return false;
  StringRef digits = name;
  if (!(digits.consume_front("i") || digits.consume_front("ui") ||
        digits.consume_front("si")))
    return true;
  return digits.empty() || !llvm::all_of(digits, llvm::isDigit);
}

// `!ks.struct<` string (`,` (keyword | string) `:` type)* `>`
Type StructType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  SmallVector<StringAttr> fieldNames;
  SmallVector<Type> fieldTypes;
  while (succeeded(parser.parseOptionalComma())) {
    std::string fieldName;
    Type fieldType;
    if (parser.parseKeywordOrString(&fieldName) || parser.parseColon() ||
        parser.parseType(fieldType))
      return {};
    fieldNames.push_back(StringAttr::get(parser.getContext(), fieldName));
    fieldTypes.push_back(fieldType);
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    StringAttr::get(parser.getContext(), name), fieldNames,
                    fieldTypes);
}

void StructType::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printString(getName().getValue());
  for (auto [fieldName, fieldType] :
       llvm::zip(getFieldNames(), getFieldTypes())) {
    printer << ", ";
    if (isBareFieldName(fieldName.getValue()))
      printer << fieldName.getValue();
    else
      printer.printString(fieldName.getValue());
    printer << ": " << fieldType;
  }
  printer << '>';
}
