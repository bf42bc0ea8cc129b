//===- EmitStruct.cpp - Structs as C++ --------------------------------===//
//
// Part of ksc. A `!ks.struct<"Particle", pos: vector<3xf32>, mass: f32>` is
// declared once at the top of the output as the source declared it
// (`struct Particle { ksc::vec3 pos; float mass; };`), nested structs
// first. `ks.struct_make` is aggregate initialization (`Particle{pos, m}`,
// `Particle{}` when every field is zero), `ks.struct_extract` a member
// access (`p.mass`), and `ks.struct_insert` an assignment to a member of a
// variable, like `vector.insert` (EmitVector.cpp).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;

/// Adds the struct types `type` contains (array elements, fields), and
/// `type` itself if it is one, to `structs`, each after the structs it
/// contains.
std::string ksc::cpp::structName(ks::StructType type) {
  std::string name = type.getName().getValue().str();
  if (isMacroOfRuntimeHeaders(name))
    name += "_";
  return name;
}

std::string ksc::cpp::fieldName(ks::StructType type, unsigned index) {
  std::string name = type.getFieldNames()[index].getValue().str();
  if (!isMacroOfRuntimeHeaders(name))
    return name;
  // `M_PI_` may be the name of another field: add `_` until none has it.
  auto taken = [&](StringRef candidate) {
    return llvm::any_of(type.getFieldNames(), [&](StringAttr field) {
      return field.getValue() == candidate;
    });
  };
  do
    name += "_";
  while (taken(name));
  return name;
}

static void collectStructs(Type type, llvm::SetVector<ks::StructType> &structs) {
  if (auto array = dyn_cast<ks::ArrayType>(type))
    return collectStructs(array.getElementType(), structs);
  auto structType = dyn_cast<ks::StructType>(type);
  if (!structType || structs.contains(structType))
    return;
  for (Type field : structType.getFieldTypes())
    collectStructs(field, structs);
  structs.insert(structType);
}

LogicalResult Emitter::emitStructDeclarations() {
  llvm::SetVector<ks::StructType> structs;
  module.walk([&](Operation *op) {
    for (Type type : op->getOperandTypes())
      collectStructs(type, structs);
    for (Type type : op->getResultTypes())
      collectStructs(type, structs);
    if (auto func = dyn_cast<func::FuncOp>(op))
      for (Type type : func.getArgumentTypes())
        collectStructs(type, structs);
  });
  if (structs.empty())
    return success();
  Location loc = module.getLoc();
  llvm::StringMap<ks::StructType> byName;
  for (ks::StructType type : structs) {
    std::string name = structName(type);
    if (!isCppIdentifier(name))
      return emitError(loc) << "struct name '" << name
                            << "' is not a C++ identifier";
    auto [it, inserted] = byName.try_emplace(name, type);
    if (!inserted)
      return emitError(loc) << "two different structs are named '" << name
                            << "': " << it->second << " and " << type;
    reservedNames.insert(name);
    os << "struct " << name << " {\n";
    for (auto [index, fieldType] : llvm::enumerate(type.getFieldTypes())) {
      std::string field = fieldName(type, index);
      if (!isCppIdentifier(field))
        return emitError(loc) << "field name '" << field << "' of struct '"
                              << name << "' is not a C++ identifier";
      FailureOr<std::string> cppType = typeName(fieldType, loc);
      if (failed(cppType))
        return failure();
      os << "  " << *cppType << " " << field << ";\n";
    }
    os << "};\n\n";
  }
  return success();
}

/// Whether `value` is zero: a zero constant (scalar or vector), or a struct
/// of zeros.
static bool isZero(Value value) {
  if (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()))
    return true;
  DenseElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant)) && constant.isSplat()) {
    Attribute element = constant.getSplatValue<Attribute>();
    if (auto f = dyn_cast<FloatAttr>(element))
      return f.getValue().isPosZero();
    if (auto i = dyn_cast<IntegerAttr>(element))
      return i.getValue().isZero();
  }
  if (auto make = value.getDefiningOp<ks::StructMakeOp>())
    return llvm::all_of(make.getFields(), isZero);
  return false;
}

bool Emitter::isZeroStructMake(Operation &op) {
  return isa<ks::StructMakeOp>(op) && isZero(op.getResult(0));
}

/// `base.field`.
static Expr memberOf(const Expr &base, ks::StructType type, int64_t index) {
  Expr result;
  result.merge(base);
  result.text = Emitter::operand(base, kPostfix) + "." +
                fieldName(type, index);
  result.prec = kPostfix;
  result.isUnsigned = type.getFieldTypes()[index].isUnsignedInteger(32);
  return result;
}

FailureOr<Expr> Emitter::buildStructExpr(Operation &op) {
  return llvm::TypeSwitch<Operation *, FailureOr<Expr>>(&op)
      .Case([&](ks::StructMakeOp o) -> FailureOr<Expr> {
        ks::StructType type = o.getType();
        std::string name = structName(type);
        // Value initialization zeroes every field.
        if (isZero(o.getResult()))
          return Expr(name + "{}", kPostfix);
        SmallVector<Expr> fields;
        for (auto [index, field] : llvm::enumerate(o.getFields()))
          fields.push_back(operandAs(
              field, type.getFieldTypes()[index].isUnsignedInteger(32)));
        Expr result = call(name, fields);
        // `Particle{a, b}`: aggregate initialization, not a constructor.
        result.text[name.size()] = '{';
        result.text.back() = '}';
        return result;
      })
      .Case([&](ks::StructExtractOp o) -> FailureOr<Expr> {
        return memberOf(valueExpr(o.getInput()), o.getInput().getType(),
                        o.getIndex());
      })
      .Default([&](Operation *) -> FailureOr<Expr> {
        return op.emitError("cannot emit '")
               << op.getName() << "' as C++ (not supported by the C++ "
               << "emitter)";
      });
}

LogicalResult Emitter::emitStructInsert(Operation &insertOp) {
  auto op = cast<ks::StructInsertOp>(insertOp);
  ks::StructType type = op.getInput().getType();
  bool isUnsignedField =
      type.getFieldTypes()[op.getIndex()].isUnsignedInteger(32);
  return emitComponentUpdate(
      op, op.getInput(), operandAs(op.getValue(), isUnsignedField),
      [&](const Expr &whole) { return memberOf(whole, type, op.getIndex()); });
}
