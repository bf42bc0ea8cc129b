//===- CodeGenStruct.cpp - Structs --------------------------------------===//
//
// Part of ksc. A struct declared in the source (a plain aggregate of the
// language's value types) is a `!ks.struct` value in the IR, with the
// source's name and field names. Its fields are lvalues as vector components
// are (CodeGenVector.cpp): the variable or array element holding the whole
// struct and the field's position; reading one is a `ks.struct_extract`,
// writing one a `ks.struct_insert` into the whole value, which is then
// stored back. Aggregate initialization is `ks.struct_make`; copies are the
// value itself.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

bool ModuleBuilder::isStructType(QualType type) {
  auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
  return record && !record->isUnion() && !record->isLambda() &&
         !isArrayType(type) && !isSmallValueType(type);
}

/// Why `record` cannot be a struct of the kernel language, with where to
/// point, or an empty message.
static std::pair<SourceLocation, std::string>
checkStructShape(ModuleBuilder &mb, const CXXRecordDecl *record) {
  SourceLocation at = record->getLocation();
  if (record->getIdentifier() == nullptr)
    return {at, "anonymous structs are not supported in kernel code; give "
                "the struct a name (struct Particle { ... };)"};
  if (!record->getDeclContext()->isTranslationUnit())
    return {at, "structs must be declared at file scope in kernel code; "
                "move the declaration of '" +
                    record->getNameAsString() + "' out of the " +
                    (record->getDeclContext()->isRecord() ? "struct"
                                                          : "function")};
  StringRef name = record->getName();
  if (ModuleBuilder::isReservedName(name))
    return {at, "the name '" + name.str() +
                    "' is reserved by ksc; rename the struct"};
  // The launcher of kernel `k` is `launch_k`, at file scope as structs are.
  if (name.starts_with("launch_"))
    for (const NamedDecl *other : record->getDeclContext()->lookup(
             &record->getASTContext().Idents.get(name.drop_front(7))))
      if (auto *function = dyn_cast<FunctionDecl>(other);
          function && mb.getKind(function) == FunctionKind::Kernel)
        return {at, "the name '" + name.str() +
                        "' is reserved for the launcher of kernel '" +
                        function->getNameAsString() + "'; rename the struct"};
  // Emitted structs have the natural layout, which ksc-run relies on.
  auto layoutAttr = [](const Decl *decl) -> const Attr * {
    if (auto *attr = decl->getAttr<AlignedAttr>())
      return attr;
    if (auto *attr = decl->getAttr<PackedAttr>())
      return attr;
    return decl->getAttr<MaxFieldAlignmentAttr>();
  };
  auto layoutProblem = [](const Attr *attr) -> std::string {
    if (isa<AlignedAttr>(attr))
      return "alignment attributes (alignas, aligned) are not supported in "
             "kernel code: structs have the natural layout of their fields; "
             "remove the attribute";
    return "packed structs are not supported in kernel code: structs have "
           "the natural layout of their fields; remove the packed attribute "
           "or the #pragma pack";
  };
  if (const Attr *attr = layoutAttr(record))
    return {attr->getLocation().isValid() ? attr->getLocation() : at,
            layoutProblem(attr)};
  for (const FieldDecl *field : record->fields())
    if (const Attr *attr = layoutAttr(field))
      return {attr->getLocation().isValid() ? attr->getLocation()
                                            : field->getLocation(),
              layoutProblem(attr)};
  if (record->getNumBases() != 0)
    return {record->bases_begin()->getBeginLoc(),
            "base classes are not supported in kernel code; make the base a "
            "field of '" +
                record->getNameAsString() + "'"};
  for (const Decl *member : record->decls()) {
    if (member->isImplicit())
      continue;
    if (auto *method = dyn_cast<CXXMethodDecl>(member))
      return {method->getLocation(),
              isa<CXXConstructorDecl>(method)
                  ? "constructors are not supported in kernel code; "
                    "initialize structs with braces (Particle p = {pos, "
                    "1.0f};)"
                  : "member functions are not supported in kernel code; "
                    "write a KSC_FUNC device function at file scope that "
                    "takes the struct"};
    if (auto *tmpl = dyn_cast<FunctionTemplateDecl>(member))
      return {tmpl->getLocation(),
              "member functions are not supported in kernel code; write a "
              "KSC_FUNC device function at file scope that takes the struct"};
    if (isa<VarDecl>(member))
      return {member->getLocation(),
              "static data members are not supported in kernel code; use a "
              "constexpr constant at file scope"};
    if (isa<AccessSpecDecl, FieldDecl, StaticAssertDecl>(member))
      continue;
    if (isa<CXXRecordDecl>(member))
      return {member->getLocation(),
              "structs must be declared at file scope in kernel code; move "
              "this declaration out of '" +
                  record->getNameAsString() + "'"};
    if (isa<TypedefNameDecl>(member))
      return {member->getLocation(),
              "type aliases inside structs are not supported in kernel "
              "code; declare them at file scope"};
    return {member->getLocation(),
            "this member is not supported in a struct of the kernel "
            "language; structs hold fields only"};
  }
  for (const FieldDecl *field : record->fields()) {
    SourceLocation fieldAt = field->getLocation();
    if (field->getAccess() != AS_public)
      return {fieldAt, "private and protected fields are not supported in "
                       "kernel code; make the fields public (use struct)"};
    if (field->isBitField())
      return {fieldAt, "bit-fields are not supported in kernel code; use a "
                       "whole int or uint32_t field and shift and mask it"};
    if (field->hasInClassInitializer())
      return {field->getInClassInitializer()->getExprLoc(),
              "default member initializers are not supported in kernel "
              "code; initialize the struct where it is declared (Particle "
              "p = {pos, 1.0f};)"};
    if (field->isMutable())
      return {fieldAt, "mutable fields are not supported in kernel code; "
                       "remove 'mutable'"};
    if (field->getType().isConstQualified())
      return {fieldAt, "const fields are not supported in kernel code; "
                       "remove 'const' (declare the struct variable const "
                       "instead)"};
    if (ModuleBuilder::isArrayType(field->getType()))
      return {fieldAt, "array fields are not supported in structs yet; pass "
                       "the array as a kernel argument of its own"};
  }
  if (record->field_empty())
    return {at, "struct '" + record->getNameAsString() +
                    "' has no fields; a struct of the kernel language needs "
                    "at least one"};
  return {at, ""};
}

mlir::FailureOr<mlir::Type>
ModuleBuilder::convertStructType(const CXXRecordDecl *record) {
  record = record->getDefinition();
  if (auto it = structTypes.find(record); it != structTypes.end())
    return it->second ? mlir::FailureOr<mlir::Type>(it->second)
                      : mlir::FailureOr<mlir::Type>(mlir::failure());
  // Marked failed while converting, so that an error is reported once.
  structTypes[record] = nullptr;
  auto [at, problem] = checkStructShape(*this, record);
  if (!problem.empty()) {
    error(at, problem);
    return mlir::failure();
  }
  llvm::SmallVector<mlir::StringAttr> names;
  llvm::SmallVector<mlir::Type> types;
  for (const FieldDecl *field : record->fields()) {
    std::string what = "field '" + field->getNameAsString() + "'";
    mlir::FailureOr<mlir::Type> type =
        convertType(field->getType(), field->getLocation(), what);
    if (mlir::failed(type))
      return mlir::failure();
    // uint32_t fields keep it in their type, as array elements do.
    if (isUnsigned32(field->getType()))
      type = mlir::Type(mlir::IntegerType::get(&context, 32,
                                               mlir::IntegerType::Unsigned));
    names.push_back(builder.getStringAttr(field->getName()));
    types.push_back(*type);
  }
  mlir::Type type = ks::StructType::get(
      &context, builder.getStringAttr(record->getName()), names, types);
  structTypes[record] = type;
  return type;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitStructConstruct(const CXXConstructExpr *construct) {
  const CXXConstructorDecl *ctor = construct->getConstructor();
  // `Particle p;`, `Particle()`: the implicit default constructor, which
  // ksc zeroes as it does other uninitialized locals.
  if (construct->getNumArgs() == 0 && ctor->isDefaultConstructor()) {
    mlir::FailureOr<mlir::Type> type = mb.convertType(
        construct->getType(), construct->getExprLoc(), "the struct");
    if (mlir::failed(type))
      return mlir::failure();
    return zero(*type, mb.loc(construct->getExprLoc()));
  }
  // Copies and moves are the value.
  if (construct->getNumArgs() == 1 &&
      (ctor->isCopyConstructor() || ctor->isMoveConstructor()))
    return emitRValue(construct->getArg(0));
  return exprError(construct, "this way of constructing a struct is not "
                              "supported in kernel code; use braces");
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitStructInit(const InitListExpr *list) {
  mlir::Location loc = mb.loc(list->getExprLoc());
  mlir::FailureOr<mlir::Type> type =
      mb.convertType(list->getType(), list->getExprLoc(), "the struct");
  if (mlir::failed(type))
    return mlir::failure();
  auto structType = mlir::cast<ks::StructType>(*type);
  // `Particle p = q;` written with braces: a copy.
  if (list->getNumInits() == 1 &&
      mb.ast.hasSameUnqualifiedType(list->getInit(0)->getType(),
                                    list->getType()))
    return emitRValue(list->getInit(0));
  if (list->getNumInits() != structType.getNumFields())
    return exprError(list, "internal error: initializer list of " +
                               std::to_string(list->getNumInits()) +
                               " values for a struct of " +
                               std::to_string(structType.getNumFields()) +
                               " fields");
  llvm::SmallVector<mlir::Value> fields;
  for (auto [index, init] : llvm::enumerate(list->inits())) {
    mlir::FailureOr<mlir::Value> value = emitRValue(init);
    if (mlir::failed(value))
      return mlir::failure();
    fields.push_back(*value);
  }
  return ks::StructMakeOp::create(b, loc, structType, fields).getResult();
}

mlir::FailureOr<mlir::Value>
FunctionBuilder::emitStructAssign(const CXXOperatorCallExpr *call) {
  if (call->getOperator() != OO_Equal)
    return exprError(call, "this operator is not supported on structs; "
                           "structs can be assigned and their fields used");
  mlir::FailureOr<mlir::Value> value = emitRValue(call->getArg(1));
  if (mlir::failed(value))
    return mlir::failure();
  mlir::FailureOr<LValue> target = emitLValue(call->getArg(0));
  if (mlir::failed(target))
    return mlir::failure();
  store(*target, *value, mb.loc(call->getOperatorLoc()));
  return *value;
}

mlir::Value FunctionBuilder::extractComponent(
    mlir::Value whole, llvm::ArrayRef<mlir::OpFoldResult> path,
    mlir::Location loc) {
  while (!path.empty()) {
    auto structType = mlir::dyn_cast<ks::StructType>(whole.getType());
    if (!structType)
      // The rest indexes a vector or matrix.
      return mlir::vector::ExtractOp::create(b, loc, whole, path);
    int64_t index = getConstantIntValue(path.front()).value_or(0);
    whole = ks::StructExtractOp::create(
        b, loc, structType.getFieldValueType(index), whole, index);
    path = path.drop_front();
  }
  return whole;
}

mlir::Value FunctionBuilder::insertComponent(
    mlir::Value value, mlir::Value whole,
    llvm::ArrayRef<mlir::OpFoldResult> path, mlir::Location loc) {
  if (path.empty())
    return value;
  auto structType = mlir::dyn_cast<ks::StructType>(whole.getType());
  if (!structType)
    return mlir::vector::InsertOp::create(b, loc, value, whole, path);
  int64_t index = getConstantIntValue(path.front()).value_or(0);
  mlir::Value field = whole;
  if (path.size() > 1)
    field = ks::StructExtractOp::create(
        b, loc, structType.getFieldValueType(index), whole, index);
  mlir::Value updated = insertComponent(value, field, path.drop_front(), loc);
  return ks::StructInsertOp::create(b, loc, updated, whole, index)
      .getResult();
}
