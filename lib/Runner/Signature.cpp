//===- Signature.cpp - The signature of a kernel, from its IR ---------===//
//
// Part of ksc. The parameters of a `ks.kernel` as ksc-run passes them
// (Runner.h): the MLIR types of its arguments as ValueTypes, whose layout
// Layout.cpp computes.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Runner/Runner.h"

#include <optional>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

/// The scalar of `type`; an i32 is a uint32_t if `isUnsigned`.
static std::optional<Scalar> toScalar(mlir::Type type, bool isUnsigned) {
  if (type.isF32())
    return Scalar::F32;
  if (type.isF64())
    return Scalar::F64;
  if (type.isSignlessInteger(1))
    return Scalar::I1;
  if (type.isSignlessInteger(32))
    return isUnsigned ? Scalar::U32 : Scalar::I32;
  if (type.isUnsignedInteger(32))
    return Scalar::U32;
  if (type.isSignlessInteger(64))
    return Scalar::I64;
  return std::nullopt;
}

Expected<ValueType> runner::getValueType(mlir::Type type, bool isUnsigned) {
  if (auto structType = dyn_cast<ks::StructType>(type)) {
    std::vector<std::pair<std::string, ValueType>> fields;
    for (auto [name, fieldType] : llvm::zip(structType.getFieldNames(),
                                            structType.getFieldTypes())) {
      // A ui32 field is a uint32_t; its signedness is in the type.
      Expected<ValueType> field = getValueType(fieldType, false);
      if (!field)
        return field.takeError();
      fields.emplace_back(name.getValue().str(), std::move(*field));
    }
    return ValueType::getStruct(structType.getName().getValue().str(),
                                std::move(fields));
  }
  std::vector<int64_t> components;
  mlir::Type scalarType = type;
  if (auto vector = dyn_cast<mlir::VectorType>(type)) {
    components.assign(vector.getShape().begin(), vector.getShape().end());
    scalarType = vector.getElementType();
  }
  std::optional<Scalar> scalar = toScalar(scalarType, isUnsigned);
  if (!scalar) {
    std::string text;
    raw_string_ostream os(text);
    os << type;
    return createStringError(inconvertibleErrorCode(),
                             "ksc-run cannot pass values of type " + text);
  }
  return ValueType::get(*scalar, std::move(components));
}

Expected<Signature> runner::getSignature(ks::KernelOp kernel) {
  Signature sig;
  sig.kernel = kernel.getSymName().str();
  for (auto [index, type] :
       llvm::enumerate(kernel.getFunctionType().getInputs())) {
    Param param;
    param.name = kernel.getArgName(index).str();
    if (param.name.empty())
      param.name = "arg" + std::to_string(index);
    mlir::Type valueType = type;
    if (auto array = dyn_cast<ks::ArrayType>(type)) {
      param.isArray = true;
      param.isConst = array.getIsConst();
      param.rank = array.getRank();
      valueType = array.getElementType();
    }
    Expected<ValueType> value =
        getValueType(valueType, ks::isUnsignedArg(kernel, index));
    if (!value)
      return createStringError(inconvertibleErrorCode(),
                               "kernel '%s': cannot pass argument '%s': %s",
                               sig.kernel.c_str(), param.name.c_str(),
                               toString(value.takeError()).c_str());
    param.type = std::move(*value);
    sig.params.push_back(std::move(param));
  }
  return sig;
}
