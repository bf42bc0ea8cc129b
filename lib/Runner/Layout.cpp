//===- Layout.cpp - The types and byte layout of kernel arguments -----===//
//
// Part of ksc. ksc-run hands the generated launcher pointers to bytes laid
// out as the generated C++ lays out its values: a scalar as itself, a
// vector or matrix as its components with no padding (ksc::vec, ksc::mat),
// and a struct as the C++ compiler lays out a plain aggregate on the
// targets ksc-run runs on (x86-64 and AArch64 Linux): each field at the
// next multiple of its alignment, the struct's alignment the largest of
// its fields', its size rounded up to that alignment.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Runner.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

StringRef runner::getScalarName(Scalar scalar) {
  switch (scalar) {
  case Scalar::F32:
    return "float";
  case Scalar::F64:
    return "double";
  case Scalar::I1:
    return "bool";
  case Scalar::I32:
    return "int";
  case Scalar::U32:
    return "uint32_t";
  case Scalar::I64:
    return "int64_t";
  }
  llvm_unreachable("unknown scalar");
}

size_t runner::getScalarSize(Scalar scalar) {
  switch (scalar) {
  case Scalar::F32:
  case Scalar::I32:
  case Scalar::U32:
    return 4;
  case Scalar::F64:
  case Scalar::I64:
    return 8;
  case Scalar::I1:
    return 1;
  }
  llvm_unreachable("unknown scalar");
}

ValueType ValueType::get(Scalar scalar, std::vector<int64_t> components) {
  ValueType type;
  type.scalar = scalar;
  type.components = std::move(components);
  type.byteAlignment = getScalarSize(scalar);
  type.byteSize = type.byteAlignment;
  for (int64_t extent : type.components)
    type.byteSize *= extent;
  return type;
}

ValueType
ValueType::getStruct(std::string name,
                     std::vector<std::pair<std::string, ValueType>> fields) {
  ValueType type;
  type.structName = std::move(name);
  type.byteSize = 0;
  type.byteAlignment = 1;
  for (auto &[fieldName, fieldType] : fields) {
    size_t align = fieldType.alignment();
    size_t offset = alignTo(type.byteSize, align);
    type.byteSize = offset + fieldType.size();
    type.byteAlignment = std::max(type.byteAlignment, align);
    type.fields.push_back({std::move(fieldName), std::move(fieldType), offset});
  }
  // C++ gives every object at least one byte (ksc refuses empty structs).
  type.byteSize = std::max<size_t>(alignTo(type.byteSize, type.byteAlignment),
                                   1);
  return type;
}

std::string ValueType::describe() const {
  if (isStruct())
    return structName;
  if (components.empty())
    return getScalarName(scalar).str();
  std::string suffix = scalar == Scalar::F64   ? "d"
                       : scalar == Scalar::I32 ? "i"
                                               : "";
  std::string n = std::to_string(components[0]);
  return (components.size() == 1 ? "vec" + n : "mat" + n + n) + suffix;
}

void ValueType::forEachScalar(function_ref<void(Scalar, size_t)> fn,
                              size_t offset) const {
  if (isStruct()) {
    for (const Field &field : fields)
      field.type.forEachScalar(fn, offset + field.offset);
    return;
  }
  size_t scalarSize = getScalarSize(scalar);
  for (size_t at = 0; at < byteSize; at += scalarSize)
    fn(scalar, offset + at);
}

bool ValueType::hasDerivative() const {
  bool found = false;
  forEachScalar([&](Scalar scalar, size_t) {
    found |= scalar == Scalar::F32 || scalar == Scalar::F64;
  });
  return found;
}

std::string Param::describe() const {
  if (!isArray)
    return type.describe();
  std::string text = "array<";
  if (isConst)
    text += "const ";
  text += type.describe();
  if (rank != 1)
    text += ", " + std::to_string(rank);
  return text + ">";
}

std::string Signature::paramList() const {
  std::string text;
  ListSeparator sep;
  for (const Param &param : params)
    text += std::string(StringRef(sep)) + param.name;
  return text;
}

std::string Signature::describe() const {
  std::string text = kernel + "(";
  ListSeparator sep;
  for (const Param &param : params)
    text += std::string(StringRef(sep)) + param.describe() + " " + param.name;
  return text + ")";
}

int64_t Argument::numStoredElements() const {
  return static_cast<int64_t>(bytes.size() / param.type.size());
}

int64_t Argument::numElements() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}
