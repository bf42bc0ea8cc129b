//===- KsOps.cpp - Operations of the ks dialect -----------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace ksc::ks;

//===----------------------------------------------------------------------===//
// Kernels and device functions
//===----------------------------------------------------------------------===//

namespace {
/// Shared parse/print/verify code for `ks.kernel` and `ks.func`.
template <typename OpT> struct FunctionLike {
  static bool isIdentifier(StringRef name) {
    if (name.empty() || !(isalpha(name[0]) || name[0] == '_'))
      return false;
    return llvm::all_of(name, [](char c) { return isalnum(c) || c == '_'; });
  }

  /// The argument names can be printed as the SSA names of the entry block
  /// arguments (and recovered by the parser) when they are unique identifiers.
  static bool namesArePrintable(ArrayAttr names) {
    llvm::StringSet<> seen;
    for (Attribute name : names) {
      StringRef str = cast<StringAttr>(name).getValue();
      if (str.empty())
        continue;
      if (!isIdentifier(str) || !seen.insert(str).second)
        return false;
    }
    return true;
  }

  // `ks.func` (visibility)? @name `(` args `)` (`->` results)?
  //     (`attributes` dict)? region
  static ParseResult parse(OpAsmParser &parser, OperationState &result) {
    Builder &builder = parser.getBuilder();
    MLIRContext *ctx = builder.getContext();
    (void)mlir::impl::parseOptionalVisibilityKeyword(parser, result.attributes);

    StringAttr name;
    if (parser.parseSymbolName(name, SymbolTable::getSymbolAttrName(),
                               result.attributes))
      return failure();

    SmallVector<OpAsmParser::Argument> args;
    SmallVector<Type> resultTypes;
    SmallVector<DictionaryAttr> resultAttrs;
    bool isVariadic = false;
    if (function_interface_impl::parseFunctionSignatureWithArguments(
            parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
            resultAttrs))
      return failure();

    SmallVector<Type> argTypes;
    SmallVector<Attribute> argNames;
    bool anyName = false;
    for (OpAsmParser::Argument &arg : args) {
      argTypes.push_back(arg.type);
      // SSA names such as `%0` or `%arg3` carry no source name.
      // SSA names the printer makes up (`%0`, `%arg3`) carry no source
      // name; everything else does (`%argval` too).
      StringRef ssa = arg.ssaName.name.drop_front();
      StringRef digits = ssa.starts_with("arg") ? ssa.drop_front(3) : ssa;
      if (!digits.empty() && llvm::all_of(digits, isdigit))
        ssa = "";
      anyName |= !ssa.empty();
      argNames.push_back(StringAttr::get(ctx, ssa));
    }
    result.addAttribute(
        OpT::getFunctionTypeAttrName(result.name),
        TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));

    if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
      return failure();
    StringAttr argNamesAttrName = OpT::getArgNamesAttrName(result.name);
    if (anyName && !result.attributes.get(argNamesAttrName))
      result.addAttribute(argNamesAttrName, builder.getArrayAttr(argNames));

    call_interface_impl::addArgAndResultAttrs(
        builder, result, args, resultAttrs,
        OpT::getArgAttrsAttrName(result.name),
        OpT::getResAttrsAttrName(result.name));
    return parser.parseRegion(*result.addRegion(), args);
  }

  static void print(OpT op, OpAsmPrinter &p) {
    p << ' ';
    if (auto visibility = op.getSymVisibility())
      p << *visibility << ' ';
    p.printSymbolName(op.getSymName());
    FunctionType type = op.getFunctionType();
    function_interface_impl::printFunctionSignature(
        p, op, type.getInputs(), /*isVariadic=*/false, type.getResults());

    SmallVector<StringRef> elided = {
        op.getSymVisibilityAttrName(), op.getFunctionTypeAttrName(),
        op.getArgAttrsAttrName(), op.getResAttrsAttrName()};
    if (ArrayAttr names = op.getArgNamesAttr();
        !names || namesArePrintable(names))
      elided.push_back(op.getArgNamesAttrName());
    function_interface_impl::printFunctionAttributes(p, op, elided);
    p << ' ';
    p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false,
                  /*printBlockTerminators=*/true);
  }

  static LogicalResult verify(OpT op) {
    FunctionType type = op.getFunctionType();
    if (ArrayAttr names = op.getArgNamesAttr();
        names && names.size() != type.getNumInputs())
      return op.emitOpError()
             << "has " << names.size() << " argument names for "
             << type.getNumInputs() << " arguments";
    // `ks.unsigned` marks i32 arguments and results as uint32_t (the
    // dialect checks that it is a unit attribute, KsAttributes.cpp).
    auto checkUnsigned = [&](Attribute attr, Type type, StringRef what,
                             unsigned index) -> LogicalResult {
      if (!attr)
        return success();
      if (!type.isSignlessInteger(32))
        return op.emitOpError("attribute '")
               << kUnsignedAttr << "' marks " << what << " " << index
               << " of type " << type << "; only i32 values can be unsigned";
      return success();
    };
    for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
      if (failed(checkUnsigned(op.getArgAttr(i, kUnsignedAttr),
                               type.getInput(i), "argument", i)))
        return failure();
    for (unsigned i = 0, e = type.getNumResults(); i < e; ++i)
      if (failed(checkUnsigned(op.getResultAttr(i, kUnsignedAttr),
                               type.getResult(i), "result", i)))
        return failure();
    // FunctionOpInterface checks the entry block against the signature.
    return success();
  }

  static void getAsmBlockArgumentNames(OpT op, Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
    ArrayAttr names = op.getArgNamesAttr();
    if (!names || &region != &op.getBody() || region.empty() ||
        !namesArePrintable(names))
      return;
    for (auto [arg, name] : llvm::zip(region.getArguments(), names))
      if (StringRef str = cast<StringAttr>(name).getValue(); !str.empty())
        setNameFn(arg, str);
  }

  static StringRef getArgName(OpT op, unsigned i) {
    ArrayAttr names = op.getArgNamesAttr();
    if (!names || i >= names.size())
      return "";
    return cast<StringAttr>(names[i]).getValue();
  }

  static void build(OpBuilder &builder, OperationState &state, StringRef name,
                    FunctionType type, ArrayRef<StringRef> argNames) {
    state.addAttribute(SymbolTable::getSymbolAttrName(),
                       builder.getStringAttr(name));
    state.addAttribute(OpT::getFunctionTypeAttrName(state.name),
                       TypeAttr::get(type));
    if (!argNames.empty())
      state.addAttribute(OpT::getArgNamesAttrName(state.name),
                         builder.getStrArrayAttr(argNames));
    Region *body = state.addRegion();
    Block *entry = new Block();
    body->push_back(entry);
    for (Type input : type.getInputs())
      entry->addArgument(input, state.location);
  }
};
} // namespace

#define KS_FUNCTION_LIKE_METHODS(OpT)                                          \
  ParseResult OpT::parse(OpAsmParser &parser, OperationState &result) {        \
    return FunctionLike<OpT>::parse(parser, result);                           \
  }                                                                            \
  void OpT::print(OpAsmPrinter &p) { FunctionLike<OpT>::print(*this, p); }     \
  void OpT::getAsmBlockArgumentNames(Region &region,                           \
                                     OpAsmSetValueNameFn setNameFn) {          \
    FunctionLike<OpT>::getAsmBlockArgumentNames(*this, region, setNameFn);     \
  }                                                                            \
  StringRef OpT::getArgName(unsigned i) {                                      \
    return FunctionLike<OpT>::getArgName(*this, i);                            \
  }                                                                            \
  void OpT::build(OpBuilder &builder, OperationState &state, StringRef name,   \
                  FunctionType type, ArrayRef<StringRef> argNames) {           \
    FunctionLike<OpT>::build(builder, state, name, type, argNames);            \
  }

KS_FUNCTION_LIKE_METHODS(KernelOp)
KS_FUNCTION_LIKE_METHODS(FuncOp)
#undef KS_FUNCTION_LIKE_METHODS

/// Kernel and function arguments are scalars, vectors, matrices or arrays.
static bool isKernelLanguageType(Type type) {
  return isa<ArrayType>(type) || ArrayType::isValidElementType(type);
}

LogicalResult KernelOp::verify() {
  if (failed(FunctionLike<KernelOp>::verify(*this)))
    return failure();
  if (getFunctionType().getNumResults() != 0)
    return emitOpError("must not return values");
  for (Type type : getFunctionType().getInputs())
    if (!isKernelLanguageType(type))
      return emitOpError("argument type ")
             << type << " is not a scalar, vector, matrix, struct or !ks.array type";
  return success();
}

SmallVector<unsigned> ksc::ks::getInoutArgs(FunctionOpInterface function) {
  SmallVector<unsigned> inout;
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (function.getArgAttr(i, kInoutAttr))
      inout.push_back(i);
  return inout;
}

bool ksc::ks::isUnsignedArg(FunctionOpInterface function, unsigned index) {
  return function.getArgAttr(index, kUnsignedAttr) != nullptr;
}

bool ksc::ks::isUnsignedResult(FunctionOpInterface function, unsigned index) {
  return function.getResultAttr(index, kUnsignedAttr) != nullptr;
}

unsigned ksc::ks::getNumDirectResults(FunctionOpInterface function) {
  size_t inout = getInoutArgs(function).size();
  size_t results = function.getNumResults();
  return results >= inout ? results - inout : 0;
}

LogicalResult FuncOp::verify() {
  if (failed(FunctionLike<FuncOp>::verify(*this)))
    return failure();
  for (Type type : getFunctionType().getInputs())
    if (!isKernelLanguageType(type))
      return emitOpError("argument type ")
             << type << " is not a scalar, vector, matrix, struct or !ks.array type";
  for (Type type : getFunctionType().getResults())
    if (isa<ArrayType>(type) || !isKernelLanguageType(type))
      return emitOpError("result type ") << type << " is not a scalar type";
  // In-out arguments: their final values are the last results.
  SmallVector<unsigned> inout = getInoutArgs(*this);
  ArrayRef<Type> results = getFunctionType().getResults();
  if (results.size() < inout.size() || results.size() > inout.size() + 1)
    return emitOpError("has ")
           << inout.size() << " in-out arguments and " << results.size()
           << " results; it must return the final value of each in-out "
              "argument after at most one result of its own";
  ArrayRef<Type> inoutResults = results.take_back(inout.size());
  for (auto [arg, result] : llvm::zip(inout, inoutResults)) {
    // Results are scalars (checked above), so in-out arrays fail here.
    Type type = getFunctionType().getInput(arg);
    if (type != result)
      return emitOpError("in-out argument ")
             << arg << " has type " << type
             << " but the result that returns its final value has type "
             << result;
  }
  unsigned firstInout = results.size() - inout.size();
  for (auto [k, arg] : llvm::enumerate(inout))
    if (isUnsignedArg(*this, arg) != isUnsignedResult(*this, firstInout + k))
      return emitOpError("in-out argument ")
             << arg << " and the result that returns its final value must "
             << "both be '" << kUnsignedAttr << "' or neither";
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto function = cast<FunctionOpInterface>((*this)->getParentOp());
  ArrayRef<Type> results = function.getResultTypes();
  if (getNumOperands() != results.size())
    return emitOpError("has ")
           << getNumOperands() << " operands, but the enclosing "
           << function->getName() << " returns " << results.size();
  for (auto [index, operand, expected] :
       llvm::enumerate(getOperandTypes(), results))
    if (operand != expected)
      return emitOpError("type of operand #")
             << index << " (" << operand << ") does not match result type "
             << expected << " of the enclosing " << function->getName();
  return success();
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *callee =
      symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("callee @")
           << getCallee() << " does not name a symbol in scope";
  if (isa<KernelOp>(callee))
    return emitOpError("cannot call kernel @")
           << getCallee() << "; kernels are launched, not called";
  auto func = dyn_cast<FuncOp>(callee);
  if (!func)
    return emitOpError("callee @") << getCallee() << " is not a ks.func";
  if (func.getFunctionType() != getCalleeType())
    return emitOpError("call type ")
           << getCalleeType() << " does not match the callee's type "
           << func.getFunctionType();
  return success();
}

//===----------------------------------------------------------------------===//
// TidOp
//===----------------------------------------------------------------------===//

LogicalResult TidOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("is only valid inside a ks.kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// Array access
//===----------------------------------------------------------------------===//

static LogicalResult verifyIndices(Operation *op, ArrayType type,
                                   ValueRange indices) {
  if (indices.size() != type.getRank())
    return op->emitOpError("expects ") << type.getRank() << " indices for "
                                       << type << ", got " << indices.size();
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyIndices(*this, getArray().getType(), getIndices());
}

LogicalResult StoreOp::verify() {
  ArrayType type = getArray().getType();
  if (type.getIsConst())
    return emitOpError("cannot store to read-only array of type ") << type;
  return verifyIndices(*this, type, getIndices());
}

/// Whether `ks.atomic_rmw kind` can update `element`, an element of an
/// array of type `type` or a field of one.
static LogicalResult verifyAtomicElements(Operation *op, ArrayType type,
                                          AtomicKind kind,
                                          Type element = nullptr) {
  if (type.getIsConst())
    return op->emitOpError("cannot update read-only array of type ") << type;
  if (!element)
    element = type.getElementType();
  if (element.isSignlessInteger(1) || isa<StructType>(element))
    return op->emitOpError(
               "needs an f32, f64, i32, ui32 or i64 element type, got ")
           << type;
  // Vectors and matrices (of f32, f64 or i32, as arrays and structs hold
  // them) are updated component by component, with any kind.
  return success();
}

Type ksc::ks::getPartType(Type type, int64_t index) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (index < 0 || index >= vector.getDimSize(0))
      return nullptr;
    if (vector.getRank() == 1)
      return vector.getElementType();
    return VectorType::get(vector.getShape().drop_front(),
                           vector.getElementType());
  }
  auto structType = dyn_cast<StructType>(type);
  if (!structType || index < 0 || index >= structType.getNumFields())
    return nullptr;
  return structType.getFieldTypes()[index];
}

/// The type of the part at `path` of values of `type` (getPartType, step by
/// step); null when `path` names none.
static Type fieldAt(Type type, ArrayRef<int64_t> path) {
  for (int64_t index : path)
    if (type)
      type = getPartType(type, index);
  return type;
}

Type AtomicRMWOp::getTargetType() {
  return fieldAt(getArray().getType().getElementType(),
                 getFields().value_or(ArrayRef<int64_t>()));
}

Type AtomicRMWOp::getTargetValueType() {
  Type target = getTargetType();
  return target ? getSignless(target) : nullptr;
}

LogicalResult AtomicRMWOp::verify() {
  ArrayType type = getArray().getType();
  Type target = getTargetType();
  if (!target)
    return emitOpError("has fields ")
           << getFieldsAttr() << " that name no field or component of "
           << type;
  if (failed(verifyAtomicElements(*this, type, getKind(), target)))
    return failure();
  if (getAggregate() && (getExclusive() || (getKind() != AtomicKind::add &&
                                             getKind() != AtomicKind::sub)))
    return emitOpError("can aggregate only add and sub updates that are not "
                       "exclusive");
  if (getValue().getType() != getSignless(target) ||
      getResult().getType() != getValue().getType())
    return emitOpError("expects the value and the result to have type ")
           << getSignless(target) << ", got " << getValue().getType()
           << " and " << getResult().getType();
  return verifyIndices(*this, type, getIndices());
}

// `add exclusive %a[%i, %j] fields [0, 1], %v : !ks.array<T, 2>, i32, i32`
ParseResult AtomicRMWOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef kindName;
  OpAsmParser::UnresolvedOperand array, value;
  SmallVector<OpAsmParser::UnresolvedOperand> indices;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kindName))
    return failure();
  std::optional<AtomicKind> kind = symbolizeAtomicKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc, "expected one of the atomic kinds add, "
                                     "sub, min, max, got '")
           << kindName << "'";
  Builder &b = parser.getBuilder();
  result.addAttribute(getKindAttrName(result.name),
                      AtomicKindAttr::get(b.getContext(), *kind));
  if (succeeded(parser.parseOptionalKeyword("exclusive")))
    result.addAttribute(getExclusiveAttrName(result.name), b.getUnitAttr());
  if (succeeded(parser.parseOptionalKeyword("aggregate")))
    result.addAttribute(getAggregateAttrName(result.name), b.getUnitAttr());
  if (parser.parseOperand(array) ||
      parser.parseOperandList(indices, OpAsmParser::Delimiter::Square))
    return failure();
  SmallVector<int64_t> fields;
  if (succeeded(parser.parseOptionalKeyword("fields"))) {
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              return parser.parseInteger(fields.emplace_back());
            }))
      return failure();
    result.addAttribute(getFieldsAttrName(result.name),
                        b.getDenseI64ArrayAttr(fields));
  }
  ArrayType arrayType;
  SmallVector<Type> indexTypes;
  SMLoc typeLoc;
  if (parser.parseComma() || parser.parseOperand(value) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      (typeLoc = parser.getCurrentLocation(), false) ||
      parser.parseType(arrayType))
    return failure();
  for (size_t i = 0; i < indices.size(); ++i)
    if (parser.parseComma() || parser.parseType(indexTypes.emplace_back()))
      return failure();
  Type target = fieldAt(arrayType.getElementType(), fields);
  if (!target)
    return parser.emitError(typeLoc,
                            "the fields name no field or component of ")
           << arrayType;
  Type valueType = getSignless(target);
  if (parser.resolveOperand(array, arrayType, result.operands) ||
      parser.resolveOperands(indices, indexTypes, typeLoc, result.operands) ||
      parser.resolveOperand(value, valueType, result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void AtomicRMWOp::print(OpAsmPrinter &p) {
  p << " " << stringifyAtomicKind(getKind());
  if (getExclusive())
    p << " exclusive";
  if (getAggregate())
    p << " aggregate";
  p << " " << getArray() << "[" << getIndices() << "]";
  if (std::optional<ArrayRef<int64_t>> fields = getFields())
    p << " fields [" << *fields << "]";
  p << ", " << getValue();
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getKindAttrName(), getExclusiveAttrName(),
                           getAggregateAttrName(), getFieldsAttrName()});
  p << " : ";
  p << getArray().getType();
  for (Value index : getIndices())
    p << ", " << index.getType();
}

LogicalResult AccumulatorOp::verify() {
  ArrayType type = getArray().getType();
  if (type.getRank() != 1)
    return emitOpError("sums elements of 1-D arrays only, got ") << type;
  return verifyAtomicElements(*this, type, AtomicKind::add);
}

LogicalResult ParallelLaunchOp::verify() {
  if (getSizes().size() != getSums().size())
    return emitOpError("expects one size per summed array, got ")
           << getSizes().size() << " for " << getSums().size();
  for (auto [sum, size] : llvm::zip(getSums(), getSizes())) {
    auto type = cast<ArrayType>(sum.getType());
    if (type.getRank() != 1)
      return emitOpError("sums elements of 1-D arrays only, got ") << type;
    if (size < 1)
      return emitOpError("expects sizes >= 1, got ") << size;
    if (failed(verifyAtomicElements(*this, type, AtomicKind::add)))
      return failure();
  }
  for (Value array : getPrivateSums())
    if (failed(verifyAtomicElements(*this, cast<ArrayType>(array.getType()),
                                    AtomicKind::add)))
      return failure();
  Block &body = getBody().front();
  Type i32 = IntegerType::get(getContext(), 32);
  SmallVector<Type> expected = {i32, i32};
  llvm::append_range(expected, getSums().getTypes());
  llvm::append_range(expected, getPrivateSums().getTypes());
  if (body.getArgumentTypes() != ArrayRef<Type>(expected))
    return emitOpError("expects the body to take (i32, i32, ")
           << "<the summed arrays' types>), got " << body.getNumArguments()
           << " arguments";
  return success();
}

LogicalResult CheckBoundsOp::verify() {
  ArrayType type = getArray().getType();
  if (getIndices().empty() || getIndices().size() > type.getRank()) {
    if (type.getRank() == 1)
      return emitOpError("expects 1 index for ")
             << type << ", got " << getIndices().size();
    return emitOpError("expects 1 to ")
           << type.getRank() << " indices for " << type << ", got "
           << getIndices().size();
  }
  return success();
}

LogicalResult SliceOp::verify() {
  ArrayType type = getArray().getType();
  unsigned count = getIndices().size();
  if (type.getRank() == 1)
    return emitOpError("needs an array of 2 or more dimensions, got ")
           << type;
  if (count == 0 || count >= type.getRank())
    return emitOpError("fixes 1 to ")
           << type.getRank() - 1 << " leading dimensions of " << type
           << ", got " << count << " indices";
  ArrayType expected = ArrayType::get(getContext(), type.getElementType(),
                                      type.getRank() - count,
                                      type.getIsConst());
  if (getType() != expected)
    return emitOpError("result must be ") << expected << ", got " << getType();
  return success();
}

Value SliceOp::getViewSource() { return getArray(); }
Value AsConstOp::getViewSource() { return getArray(); }

Value ksc::ks::getViewRoot(Value array) {
  while (auto view = array.getDefiningOp<ViewLikeOpInterface>())
    array = view.getViewSource();
  return array;
}

OpFoldResult AsConstOp::fold(FoldAdaptor) {
  if (getArray().getType() == getType())
    return getArray();
  return {};
}

LogicalResult DimOp::verify() {
  if (static_cast<uint64_t>(getDim()) >= getArray().getType().getRank())
    return emitOpError("dimension ")
           << getDim() << " is out of range for " << getArray().getType();
  return success();
}

#include "ksc/Dialect/Ks/IR/KsEnums.cpp.inc"
//===----------------------------------------------------------------------===//
// Structs
//===----------------------------------------------------------------------===//

/// Checks that `index` names a field of `type` and, when `value` is given,
/// that it has the field's value type.
static LogicalResult verifyField(Operation *op, StructType type, int64_t index,
                                 Type valueType, StringRef what) {
  if (index < 0 || index >= static_cast<int64_t>(type.getNumFields()))
    return op->emitOpError("field index ")
           << index << " is out of range for " << type;
  Type expected = type.getFieldValueType(index);
  if (valueType != expected)
    return op->emitOpError() << what << " of field " << index << " ('"
                             << type.getFieldNames()[index].getValue()
                             << "') must have type " << expected << ", got "
                             << valueType;
  return success();
}

LogicalResult StructMakeOp::verify() {
  StructType type = getType();
  if (getFields().size() != type.getNumFields())
    return emitOpError("expects ")
           << type.getNumFields() << " field values for " << type << ", got "
           << getFields().size();
  for (auto [index, field] : llvm::enumerate(getFields()))
    if (failed(verifyField(*this, type, index, field.getType(), "the value")))
      return failure();
  return success();
}

// `ks.struct_make` operands attr-dict `:` struct-type
ParseResult StructMakeOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> fields;
  Type type;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(fields) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(type))
    return failure();
  auto structType = dyn_cast<StructType>(type);
  if (!structType)
    return parser.emitError(loc, "expected a !ks.struct type, got ") << type;
  if (fields.size() != structType.getNumFields())
    return parser.emitError(loc, "expected ")
           << structType.getNumFields() << " field values for " << structType
           << ", got " << fields.size();
  SmallVector<Type> fieldTypes;
  for (unsigned i = 0; i < structType.getNumFields(); ++i)
    fieldTypes.push_back(structType.getFieldValueType(i));
  result.addTypes(structType);
  return parser.resolveOperands(fields, fieldTypes, loc, result.operands);
}

void StructMakeOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getFields();
  printer.printOptionalAttrDict((*this)->getAttrs());
  printer << " : " << getType();
}

LogicalResult StructExtractOp::verify() {
  return verifyField(*this, getInput().getType(), getIndex(), getType(),
                     "the result");
}

OpFoldResult StructExtractOp::fold(FoldAdaptor) {
  // A field just written, or of a struct just built. (Not through inserts
  // of other fields: that would keep the older struct alive, and emitted
  // code could no longer update one variable in place.)
  if (auto insert = getInput().getDefiningOp<StructInsertOp>();
      insert && insert.getIndex() == getIndex())
    return insert.getValue();
  if (auto make = getInput().getDefiningOp<StructMakeOp>())
    return make.getFields()[getIndex()];
  return {};
}

LogicalResult StructInsertOp::verify() {
  return verifyField(*this, getInput().getType(), getIndex(),
                     getValue().getType(), "the value");
}

OpFoldResult StructInsertOp::fold(FoldAdaptor) {
  // Writing back the field just read changes nothing.
  if (auto extract = getValue().getDefiningOp<StructExtractOp>();
      extract && extract.getInput() == getInput() &&
      extract.getIndex() == getIndex())
    return getInput();
  // A write of the field right before this one is overwritten.
  if (auto inner = getInput().getDefiningOp<StructInsertOp>();
      inner && inner.getIndex() == getIndex()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// `randi` and `randf` draw from their whole range, or from [low, high)
/// given both bounds.
static LogicalResult verifyBounds(Operation *op, ValueRange bounds) {
  if (bounds.empty() || bounds.size() == 2)
    return success();
  return op->emitOpError("takes no bounds or two (low and high), got ")
         << bounds.size();
}

LogicalResult RandIOp::verify() { return verifyBounds(*this, getBounds()); }

LogicalResult RandFOp::verify() { return verifyBounds(*this, getBounds()); }

#define GET_OP_CLASSES
#include "ksc/Dialect/Ks/IR/KsOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Store-to-load forwarding between accesses with nothing but pure
// operations between them
//===----------------------------------------------------------------------===//

/// Whether `store` writes the element `array[indices]` (the same SSA values,
/// so the same element).
static bool writesElement(StoreOp store, Value array, ValueRange indices) {
  return store && store.getArray() == array && store.getIndices() == indices;
}

/// The nearest operation before (after) `op` in its block that may touch
/// memory, skipping pure ones.
static Operation *nearestEffect(Operation *op, bool before) {
  Operation *other = before ? op->getPrevNode() : op->getNextNode();
  while (other && other->getNumRegions() == 0 && isMemoryEffectFree(other))
    other = before ? other->getPrevNode() : other->getNextNode();
  return other;
}

LogicalResult LoadOp::canonicalize(LoadOp op, PatternRewriter &rewriter) {
  auto store = dyn_cast_or_null<StoreOp>(nearestEffect(op, /*before=*/true));
  if (!writesElement(store, op.getArray(), op.getIndices()))
    return failure();
  rewriter.replaceOp(op, store.getValue());
  return success();
}

LogicalResult StoreOp::canonicalize(StoreOp op, PatternRewriter &rewriter) {
  // A store the next store to the element overwrites is dead.
  auto next = dyn_cast_or_null<StoreOp>(nearestEffect(op, /*before=*/false));
  if (writesElement(next, op.getArray(), op.getIndices())) {
    rewriter.eraseOp(op);
    return success();
  }
  // So is a store of the value just read from the element.
  auto load = op.getValue().getDefiningOp<LoadOp>();
  if (load && load.getArray() == op.getArray() &&
      load.getIndices() == op.getIndices() &&
      nearestEffect(op, /*before=*/true) == load.getOperation()) {
    rewriter.eraseOp(op);
    return success();
  }
  return failure();
}

LogicalResult FlushAccumulatorOp::verify() {
  Value partials = getPartials();
  if (!partials)
    return success();
  if (!getBlock())
    return emitOpError("orders the sums of blocks only with 'block'");
  auto type = cast<ArrayType>(partials.getType());
  if (type.getRank() != 1 || type.getIsConst() ||
      !type.getElementType().isSignlessInteger(64))
    return emitOpError("expects the partials to be a 1-D array of i64, got ")
           << type;
  return success();
}
