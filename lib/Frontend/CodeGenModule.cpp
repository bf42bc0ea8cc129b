//===- CodeGenModule.cpp - Top-level declarations and types -----------===//
//
// Part of ksc. Checks what a .kdsl file declares at the top level, converts
// types, declares kernels and device functions and rejects recursion.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/IR/Verifier.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclLookups.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace ksc;
using namespace ksc::frontend;

ModuleBuilder::ModuleBuilder(ASTContext &ast, mlir::MLIRContext &context)
    : ast(ast), sourceManager(ast.getSourceManager()),
      diags(ast.getDiagnostics()), context(context), builder(&context) {
  context.loadDialect<ks::KsDialect>();
  errorID = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  noteID = diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
}

void ModuleBuilder::error(SourceLocation loc, const llvm::Twine &message,
                          SourceRange range) {
  ++errorCount;
  DiagnosticBuilder report = diags.Report(loc, errorID);
  report << message.str();
  if (range.isValid())
    report << CharSourceRange::getTokenRange(range);
}

void ModuleBuilder::note(SourceLocation loc, const llvm::Twine &message) {
  diags.Report(loc, noteID) << message.str();
}

mlir::Location ModuleBuilder::loc(SourceLocation loc) {
  if (loc.isInvalid())
    return builder.getUnknownLoc();
  PresumedLoc presumed =
      sourceManager.getPresumedLoc(sourceManager.getExpansionLoc(loc));
  if (presumed.isInvalid())
    return builder.getUnknownLoc();
  return mlir::FileLineColLoc::get(&context, presumed.getFilename(),
                                   presumed.getLine(), presumed.getColumn());
}

mlir::Location ModuleBuilder::nameLoc(StringRef name, SourceLocation at) {
  return mlir::NameLoc::get(builder.getStringAttr(name), loc(at));
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

std::string ModuleBuilder::spell(QualType type) const {
  PrintingPolicy policy = ast.getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  policy.SuppressScope = true;
  policy.Bool = true;
  return type.getAsString(policy);
}

bool ModuleBuilder::isArrayType(QualType type) {
  auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
  auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record);
  if (!spec || spec->getName() != "array")
    return false;
  auto *ns = dyn_cast<NamespaceDecl>(spec->getDeclContext());
  return ns && ns->getName() == "ksc" && ns->getParent()->isTranslationUnit();
}

bool ModuleBuilder::isUnsigned32(QualType type) {
  const auto *builtin =
      type.getNonReferenceType().getCanonicalType()->getAs<BuiltinType>();
  return builtin && builtin->getKind() == BuiltinType::UInt;
}

bool ModuleBuilder::isPreludeDecl(const Decl *decl) const {
  const DeclContext *ctx = decl->getDeclContext();
  while (ctx && !isa<NamespaceDecl>(ctx) && !ctx->isTranslationUnit())
    ctx = ctx->getParent();
  auto *ns = dyn_cast_or_null<NamespaceDecl>(ctx);
  return ns && ns->getName() == "ksc" &&
         isProvidedHeader(sourceManager, decl->getLocation());
}

mlir::FailureOr<mlir::Type>
ModuleBuilder::convertType(QualType type, SourceLocation at, StringRef what) {
  QualType canonical = type.getCanonicalType();
  if (canonical.isVolatileQualified()) {
    error(at, "volatile is not supported in kernel code (" + what +
                  "); remove the qualifier");
    return mlir::failure();
  }
  if (canonical->isPointerType() || canonical->isMemberPointerType()) {
    error(at, "pointers are not supported in kernel code (" + what +
                  " has type '" + spell(type) + "'); " +
                  (canonical->isFunctionPointerType()
                       ? "call the function by its name instead"
                       : "pass arrays as array<T>"));
    return mlir::failure();
  }
  if (canonical->isReferenceType()) {
    error(at, "references are not supported here (" + what + " has type '" +
                  spell(type) + "'); use '" +
                  spell(type.getNonReferenceType().getUnqualifiedType()) +
                  "'");
    return mlir::failure();
  }
  if (const auto *builtin = canonical->getAs<BuiltinType>()) {
    switch (builtin->getKind()) {
    case BuiltinType::Float:
      return mlir::Type(builder.getF32Type());
    case BuiltinType::Double:
      return mlir::Type(builder.getF64Type());
    case BuiltinType::Bool:
      return mlir::Type(builder.getI1Type());
    case BuiltinType::Int:
    // uint32_t: a signless i32 too; the operations say it is unsigned.
    case BuiltinType::UInt:
      return mlir::Type(builder.getI32Type());
    case BuiltinType::Long:
    case BuiltinType::LongLong:
      return mlir::Type(builder.getI64Type());
    default:
      break;
    }
  }
  if (isSmallValueType(canonical))
    return convertVectorType(canonical, at, what);
  if (isArrayType(canonical)) {
    auto *spec =
        cast<ClassTemplateSpecializationDecl>(canonical->getAsCXXRecordDecl());
    QualType element = spec->getTemplateArgs()[0].getAsType();
    if (element.isVolatileQualified()) {
      error(at, "volatile is not supported in kernel code (" + what +
                    "); remove the qualifier");
      return mlir::failure();
    }
    mlir::FailureOr<mlir::Type> elementType =
        convertType(element.getUnqualifiedType(), at, "the array element");
    if (mlir::failed(elementType))
      return mlir::failure();
    // Arrays of uint32_t keep it in their element type (for emitted code
    // and ksc-run); their elements are read and written as i32.
    if (isUnsigned32(element))
      elementType = mlir::Type(mlir::IntegerType::get(
          &context, 32, mlir::IntegerType::Unsigned));
    if (!ks::ArrayType::isValidElementType(*elementType)) {
      error(at, "arrays of '" + spell(element) +
                    "' are not supported; use a multi-dimensional "
                    "array<T, N> instead");
      return mlir::failure();
    }
    unsigned rank = 1;
    if (spec->getTemplateArgs().size() > 1 &&
        spec->getTemplateArgs()[1].getKind() == TemplateArgument::Integral) {
      llvm::APSInt value = spec->getTemplateArgs()[1].getAsIntegral();
      if (value < 1 || value > 4) {
        error(at, "arrays have 1 to 4 dimensions, not " +
                      llvm::toString(value, 10) +
                      (value > 4 ? "; merge two dimensions into one and "
                                   "index it with i * n + j"
                                 : "; use array<T> for one dimension"));
        return mlir::failure();
      }
      rank = value.getZExtValue();
    }
    return mlir::Type(
        ks::ArrayType::get(*elementType, rank, element.isConstQualified()));
  }
  if (isStructType(canonical)) {
    const CXXRecordDecl *record = canonical->getAsCXXRecordDecl();
    if (!record->hasDefinition()) {
      error(at, "struct '" + spell(type) + "' of " + what +
                    " is declared but not defined; define it before its "
                    "use");
      return mlir::failure();
    }
    return convertStructType(record);
  }
  std::string reason;
  if (auto *record = canonical->getAsCXXRecordDecl();
      record && record->isLambda()) {
    error(at, "lambdas are not supported in kernel code; write a KSC_FUNC "
              "device function instead");
    return mlir::failure();
  }
  constexpr llvm::StringLiteral types =
      "the kernel language has float, double, int, uint32_t, int64_t, bool "
      "and array<T>";
  if (canonical->isUnsignedIntegerType() && !canonical->isBooleanType() &&
      ast.getTypeSize(canonical) > 32)
    reason = "64-bit unsigned integers are not supported; use int64_t, or "
             "uint32_t for values below 2^32";
  else if (canonical->isUnsignedIntegerType() && !canonical->isBooleanType())
    reason = "the only unsigned type of the kernel language is uint32_t; "
             "use uint32_t (or int)";
  else if (canonical->isUnionType())
    reason = "unions are not supported; use separate variables";
  else if (canonical->isEnumeralType())
    reason = "enums are not supported; use int";
  else if (canonical->isArrayType())
    reason = "C arrays are not supported; use array<T> parameters";
  else if (canonical->isRealFloatingType())
    reason = (types + "; use float or double").str();
  else if (canonical->isIntegerType())
    reason = (types + "; use int or int64_t").str();
  else
    reason = types.str();
  std::string spelled = "'" + spell(type) + "'";
  // Internal typedefs (`__size_t` from sizeof) say little on their own.
  if (StringRef(spell(type)).starts_with("__") &&
      spell(canonical) != spell(type))
    spelled += " (aka '" + spell(canonical) + "')";
  error(at, "type " + spelled + " of " + what + " is not supported: " + reason);
  return mlir::failure();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

std::optional<FunctionKind>
ModuleBuilder::getKind(const FunctionDecl *decl) const {
  for (const FunctionDecl *redecl : decl->redecls())
    for (const auto *attr : redecl->specific_attrs<AnnotateAttr>()) {
      if (attr->getAnnotation() == "ksc.kernel")
        return FunctionKind::Kernel;
      if (attr->getAnnotation() == "ksc.func")
        return FunctionKind::Func;
    }
  return std::nullopt;
}

mlir::Operation *ModuleBuilder::lookupFunction(const FunctionDecl *decl) const {
  return functions.lookup(decl->getCanonicalDecl());
}

void ModuleBuilder::recordCall(const FunctionDecl *caller,
                               const FunctionDecl *callee, SourceLocation loc) {
  calls[caller->getCanonicalDecl()].push_back(
      {callee->getCanonicalDecl(), loc});
}

bool ModuleBuilder::checkOtherDecl(const Decl *decl, bool local) {
  SourceLocation at = decl->getLocation();
  if (isa<UsingDirectiveDecl, UsingDecl, TypedefNameDecl, StaticAssertDecl,
          EmptyDecl>(decl))
    return true;
  if (auto *record = dyn_cast<CXXRecordDecl>(decl)) {
    if (record->isUnion()) {
      error(at, "unions are not supported in kernel code; use separate "
                "variables");
      return false;
    }
    if (record->isLambda()) {
      error(at, "lambdas are not supported in kernel code; write a KSC_FUNC "
                "device function instead");
      return false;
    }
    if (record->hasDefinition())
      for (const CXXMethodDecl *method : record->methods())
        if (method->isVirtual() && !method->isImplicit()) {
          error(method->getLocation(),
                "virtual functions are not supported in kernel code; write "
                "KSC_FUNC device functions and choose between them with "
                "if/else");
          return false;
        }
    // A struct of the language: checked (and its IR type made) here, so
    // that what is wrong with it is reported even if it is never used.
    if (!record->isThisDeclarationADefinition())
      return true;
    return mlir::succeeded(convertStructType(record));
  }
  if (isa<FunctionTemplateDecl, ClassTemplateDecl, VarTemplateDecl,
          TypeAliasTemplateDecl, ClassTemplatePartialSpecializationDecl>(
          decl)) {
    error(at, "only function templates are supported in kernel code "
              "(KSC_FUNC templates); write the class, variable or alias "
              "for each type");
    return false;
  }
  if (isa<NamespaceDecl, NamespaceAliasDecl>(decl)) {
    error(at, "namespaces are not supported in kernel code; declare "
              "everything at file scope");
    return false;
  }
  if (isa<LinkageSpecDecl>(decl)) {
    error(at, "linkage specifications (extern \"C\") are not supported in "
              "kernel code; declare the functions KSC_FUNC without them");
    return false;
  }
  if (isa<EnumDecl>(decl)) {
    error(at, "enums are not supported in kernel code; use constexpr int "
              "constants");
    return false;
  }
  if (isa<FileScopeAsmDecl>(decl)) {
    error(at, "inline assembly is not supported in kernel code; write the "
              "computation in C++");
    return false;
  }
  if (local && isa<FunctionDecl>(decl)) {
    error(at, "functions cannot be declared inside functions in kernel "
              "code; declare it at file scope");
    return false;
  }
  error(at, "this declaration is not supported in kernel code");
  return false;
}

bool ModuleBuilder::isReservedName(StringRef name) {
  return name.starts_with("ksc_") || name == "ksc" || name == "std" ||
         name == "size_t";
}

void ModuleBuilder::handleTopLevelDecl(Decl *decl) {
  if (decl->isImplicit() ||
      isProvidedHeader(sourceManager, decl->getLocation()))
    return;
  SourceLocation at = decl->getLocation();
  if (auto *function = dyn_cast<FunctionDecl>(decl)) {
    if (function->getDeclName().isIdentifier() &&
        function->getName() == "main") {
      error(at, "'main' is not allowed in kernel code; kernels are launched "
                "from the host (mark the entry points KSC_KERNEL)");
      return;
    }
    if (function->getDeclName().isIdentifier()) {
      StringRef name = function->getName();
      // Names the emitted code itself uses.
      if (isReservedName(name)) {
        error(at, "the name '" + name + "' is reserved by ksc; rename the "
                                         "function");
        return;
      }
      // Emitted C++ and C entry points need plain identifiers.
      if (!llvm::all_of(name, [](char c) { return isalnum(c) || c == '_'; })) {
        error(at, "function names must be ASCII letters, digits and '_'; "
                  "rename the function");
        return;
      }
    }
    std::optional<FunctionKind> kind = getKind(function);
    if (!kind) {
      error(at, "function '" + function->getNameAsString() +
                    "' must be marked KSC_KERNEL (a kernel) or KSC_FUNC (a "
                    "device function)");
      return;
    }
    if (isa<CXXMethodDecl>(function)) {
      error(at, "member functions are not supported in kernel code; write a "
                "KSC_FUNC device function at file scope");
      return;
    }
    // A deleted overload only forbids calls, which Clang checks.
    if (function->isDeleted())
      return;
    if (function->hasAttr<AliasAttr>() || function->hasAttr<IFuncAttr>() ||
        function->hasAttr<WeakRefAttr>()) {
      error(at, "function aliases are not supported in kernel code; call "
                "the function by its own name");
      return;
    }
    // Declared at its first declaration (calls may come before the
    // definition), built at its definition: errors come in source order.
    const FunctionDecl *definition = function->getDefinition();
    if (!definition) {
      // Calls to a function are errors where they are; a kernel is an
      // entry point, so it needs a body whether called or not.
      if (*kind == FunctionKind::Kernel && function->isFirstDecl())
        error(at, "kernel '" + function->getNameAsString() +
                      "' is declared but never defined; give it a body in "
                      "this file");
      return;
    }
    if (!lookupFunction(function) &&
        declared.insert(function->getCanonicalDecl()).second)
      declareFunction(definition, *kind, symbolBaseOf(function));
    if (function->isThisDeclarationADefinition())
      if (mlir::Operation *op = lookupFunction(function)) {
        FunctionBuilder builder(*this, function, op, *kind);
        (void)builder.build();
        definitions.push_back(function->getCanonicalDecl());
      }
    return;
  }
  if (auto *var = dyn_cast<VarDecl>(decl)) {
    // constexpr scalars are compile-time constants; they are folded where
    // they are used.
    bool constant = var->isConstexpr() || (var->getType().isConstQualified() &&
                                           var->hasConstantInitialization());
    if (constant && var->getType()->isArithmeticType())
      return;
    if (constant)
      error(at, "only constants of scalar type (float, double, int, "
                "int64_t, bool) are supported in kernel code, not '" +
                    spell(var->getType()) +
                    "'; pass the values in an array<const T> argument");
    else
      error(at, "global variables are not supported in kernel code; pass the "
                "value as a kernel argument or make it constexpr");
    return;
  }
  if (auto *tmpl = dyn_cast<FunctionTemplateDecl>(decl)) {
    handleFunctionTemplate(tmpl);
    return;
  }
  (void)checkOtherDecl(decl, /*local=*/false);
}

/// The part of a symbol name that tells instantiations apart: the template
/// arguments as the source would spell them (`float`, `vec3`, `3`).
std::string ModuleBuilder::templateArgumentsSuffix(const FunctionDecl *spec) {
  std::string suffix;
  const TemplateArgumentList *args = spec->getTemplateSpecializationArgs();
  for (const TemplateArgument &arg : args->asArray()) {
    std::string text;
    if (arg.getKind() == TemplateArgument::Type) {
      QualType type = arg.getAsType();
      // Vectors by their prelude names (vec3, mat33d, quat).
      mlir::FailureOr<mlir::Type> irType =
          isSmallValueType(type) ? convertType(type, SourceLocation(), "")
                                 : mlir::FailureOr<mlir::Type>(mlir::failure());
      if (mlir::succeeded(irType)) {
        auto vector = mlir::cast<mlir::VectorType>(*irType);
        std::string n = std::to_string(vector.getDimSize(0));
        mlir::Type element = vector.getElementType();
        text = (isQuatType(type)       ? std::string("quat")
                : vector.getRank() == 2 ? "mat" + n + n
                                        : "vec" + n) +
               (element.isF64() ? "d" : element.isInteger(32) ? "i" : "");
      } else if (isUnsigned32(type)) {
        text = "uint32_t"; // not "unsigned int", as Clang spells it
      } else {
        text = spell(type);
      }
    } else if (arg.getKind() == TemplateArgument::Integral) {
      text = llvm::toString(arg.getAsIntegral(), 10);
    } else {
      text = "arg";
    }
    for (char &c : text)
      if (!isalnum(static_cast<unsigned char>(c)))
        c = '_';
    suffix += "_" + text;
  }
  return suffix;
}

std::string ModuleBuilder::symbolBaseOf(const FunctionDecl *function) {
  // A specialization, instantiated or explicit (`template <> f<0>`), by
  // its template's name and its arguments (`scale_float`, `power_0`).
  if (function->getTemplateSpecializationArgs())
    return function->getNameAsString() + templateArgumentsSuffix(function);
  return function->getNameAsString();
}

void ModuleBuilder::handleFunctionTemplate(const FunctionTemplateDecl *tmpl) {
  const FunctionDecl *pattern = tmpl->getTemplatedDecl();
  // Once per template, at its definition.
  if (!pattern->isThisDeclarationADefinition())
    return;
  SourceLocation at = pattern->getLocation();
  std::optional<FunctionKind> kind = getKind(pattern);
  if (!kind) {
    error(at, "function template '" + pattern->getNameAsString() +
                  "' must be marked KSC_FUNC (a device function template)");
    return;
  }
  if (*kind == FunctionKind::Kernel) {
    error(at, "kernels cannot be templates (a launch needs one signature); "
              "write a KSC_FUNC template and one kernel per type that calls "
              "it");
    return;
  }
  // Every instantiation Clang made for a call is a device function of its
  // own, named after the template and its arguments (`scale_float`).
  for (const FunctionDecl *spec : tmpl->specializations()) {
    const FunctionDecl *definition = spec->getDefinition();
    if (!definition || !spec->isTemplateInstantiation())
      continue;
    if (!lookupFunction(spec) &&
        declared.insert(spec->getCanonicalDecl()).second)
      declareFunction(definition, *kind, symbolBaseOf(spec));
    if (mlir::Operation *op = lookupFunction(spec)) {
      FunctionBuilder builder(*this, definition, op, *kind);
      (void)builder.build();
      definitions.push_back(spec->getCanonicalDecl());
    }
  }
}

bool ModuleBuilder::convertParameters(
    const FunctionDecl *decl, FunctionKind kind,
    llvm::SmallVectorImpl<mlir::Type> &inputs,
    llvm::SmallVectorImpl<llvm::StringRef> &argNames) {
  bool ok = true;
  for (const ParmVarDecl *param : decl->parameters()) {
    QualType type = param->getType();
    std::string what = "parameter '" + param->getNameAsString() + "'";
    if (param->getOriginalType()->isArrayType()) {
      error(param->getLocation(), "C arrays are not supported in kernel code "
                                  "(" +
                                      what + "); use array<T>");
      ok = false;
      continue;
    }
    if (type->isReferenceType()) {
      QualType pointee = type->getPointeeType();
      if (kind == FunctionKind::Kernel) {
        error(param->getLocation(),
              "kernel parameters cannot be references; pass by value");
        ok = false;
        continue;
      }
      if (type->isRValueReferenceType()) {
        error(param->getLocation(),
              "rvalue reference parameters are not supported; use "
              "'const " +
                  spell(pointee.getUnqualifiedType()) +
                  " &' or pass by value");
        ok = false;
        continue;
      }
      if (!pointee.isConstQualified() && isArrayType(pointee)) {
        error(param->getLocation(),
              "arrays cannot be passed by non-const reference; pass them by "
              "value (an array is a view: the function writes its elements "
              "either way)");
        ok = false;
        continue;
      }
      type = pointee;
    }
    mlir::FailureOr<mlir::Type> converted = convertType(
        type.isVolatileQualified() ? type : type.getUnqualifiedType(),
        param->getLocation(), what);
    if (mlir::failed(converted)) {
      ok = false;
      continue;
    }
    inputs.push_back(*converted);
    argNames.push_back(param->getName());
  }
  return ok;
}

bool ModuleBuilder::convertResult(const FunctionDecl *decl, FunctionKind kind,
                                  llvm::SmallVectorImpl<mlir::Type> &results) {
  QualType returnType = decl->getReturnType();
  if (returnType->isVoidType())
    return true;
  if (kind == FunctionKind::Kernel) {
    error(decl->getReturnTypeSourceRange().getBegin(),
          "a kernel must return void; write results to arrays");
    return false;
  }
  mlir::FailureOr<mlir::Type> converted =
      convertType(returnType, decl->getReturnTypeSourceRange().getBegin(),
                  "the result of '" + decl->getNameAsString() + "'");
  if (mlir::failed(converted))
    return false;
  if (isa<ks::ArrayType>(*converted)) {
    error(decl->getReturnTypeSourceRange().getBegin(),
          "functions cannot return arrays; pass the array to the "
          "function as a parameter instead");
    return false;
  }
  results.push_back(*converted);
  return true;
}

bool ModuleBuilder::checkFunctionName(const FunctionDecl *decl,
                                      FunctionKind kind) {
  // C++ overloads share a name; symbols cannot. Device functions are
  // renamed; a kernel is an entry point found by its name, so no other
  // function may share it.
  std::string name = decl->getNameAsString();
  for (const NamedDecl *found :
       decl->getDeclContext()->lookup(decl->getDeclName())) {
    auto *other = dyn_cast<FunctionDecl>(found);
    if (!other || other->getCanonicalDecl() == decl->getCanonicalDecl() ||
        other->isDeleted() ||
        !sourceManager.isBeforeInTranslationUnit(
            other->getCanonicalDecl()->getLocation(),
            decl->getCanonicalDecl()->getLocation()))
      continue;
    std::optional<FunctionKind> otherKind = getKind(other);
    if (kind == FunctionKind::Kernel || otherKind == FunctionKind::Kernel) {
      error(decl->getCanonicalDecl()->getLocation(),
            "'" + name +
                "' names a kernel and another function; a kernel "
                "needs a name of its own");
      note(other->getCanonicalDecl()->getLocation(),
           "the other function named '" + name + "'");
      return false;
    }
  }
  if (kind != FunctionKind::Kernel)
    return true;
  // The launcher of kernel `k` is `launch_k`.
  for (const NamedDecl *other :
       decl->getDeclContext()->lookup(&ast.Idents.get("launch_" + name)))
    if (isa<FunctionDecl>(other)) {
      error(other->getLocation(),
            "the name 'launch_" + name +
                "' is reserved for the launcher of kernel '" + name +
                "'; rename the function");
      return false;
    }
  return true;
}

mlir::Operation *ModuleBuilder::declareCallee(const FunctionDecl *callee,
                                             FunctionKind kind) {
  if (mlir::Operation *op = lookupFunction(callee))
    return op;
  const FunctionDecl *definition = callee->getDefinition();
  if (!definition || !declared.insert(callee->getCanonicalDecl()).second)
    return nullptr;
  // (The caller's body is being built with the same builder.)
  mlir::OpBuilder::InsertionGuard guard(builder);
  declareFunction(definition, kind, symbolBaseOf(callee));
  return lookupFunction(callee);
}

void ModuleBuilder::declareFunction(const FunctionDecl *decl,
                                    FunctionKind kind,
                                    std::string symbolBase) {
  std::string name = decl->getNameAsString();
  if (!decl->getDeclName().isIdentifier()) {
    error(decl->getLocation(), "operator overloading is not supported; "
                               "write a KSC_FUNC with a name instead");
    return;
  }
  if (decl->isVariadic()) {
    error(decl->getLocation(),
          "variadic functions are not supported; give the function a fixed "
          "list of parameters (overloads are allowed)");
    return;
  }
  llvm::SmallVector<mlir::Type> inputs;
  llvm::SmallVector<llvm::StringRef> argNames;
  bool ok = convertParameters(decl, kind, inputs, argNames);
  llvm::SmallVector<mlir::Type> results;
  ok = convertResult(decl, kind, results) && ok;
  // In-out parameters return their final values after the result.
  llvm::SmallVector<unsigned> inoutArgs;
  for (auto [index, param] : llvm::enumerate(decl->parameters()))
    if (isInoutParam(param) && index < inputs.size()) {
      inoutArgs.push_back(index);
      results.push_back(inputs[index]);
    }
  if (!ok || !checkFunctionName(decl, kind))
    return;
  if (symbolBase.empty())
    symbolBase = name;
  std::string symbol = symbolBase;
  for (unsigned i = 1; !symbolNames.insert(symbol).second; ++i)
    symbol = symbolBase + "_" + std::to_string(i);

  builder.setInsertionPointToEnd(module.getBody());
  auto type = builder.getFunctionType(inputs, results);
  mlir::Location location = loc(decl->getLocation());
  mlir::Operation *op;
  if (kind == FunctionKind::Kernel)
    op = ks::KernelOp::create(builder, location, symbol, type, argNames);
  else
    op = ks::FuncOp::create(builder, location, symbol, type, argNames);
  auto function = cast<mlir::FunctionOpInterface>(op);
  for (unsigned index : inoutArgs)
    function.setArgAttr(index, ks::kInoutAttr, builder.getUnitAttr());
  // uint32_t parameters and results (an in-out one in both places).
  for (auto [index, param] : llvm::enumerate(decl->parameters()))
    if (isUnsigned32(param->getType()))
      function.setArgAttr(index, ks::kUnsignedAttr, builder.getUnitAttr());
  unsigned direct = results.size() - inoutArgs.size();
  if (direct == 1 && isUnsigned32(decl->getReturnType()))
    function.setResultAttr(0, ks::kUnsignedAttr, builder.getUnitAttr());
  for (auto [k, index] : llvm::enumerate(inoutArgs))
    if (isUnsigned32(decl->getParamDecl(index)->getType()))
      function.setResultAttr(direct + k, ks::kUnsignedAttr,
                             builder.getUnitAttr());
  // Argument locations carry the parameters' names and positions.
  for (auto [arg, param] :
       llvm::zip(op->getRegion(0).getArguments(), decl->parameters()))
    arg.setLoc(nameLoc(param->getName(), param->getLocation()));
  functions[decl->getCanonicalDecl()] = op;
}

void ModuleBuilder::checkRecursion() {
  // Depth-first search for a cycle in the call graph; report the call that
  // closes it, with the chain of calls that leads there.
  llvm::DenseMap<const FunctionDecl *, int> state; // 1: on stack, 2: done
  llvm::SmallVector<std::pair<const FunctionDecl *, SourceLocation>> stack;
  std::function<bool(const FunctionDecl *)> visit =
      [&](const FunctionDecl *function) {
        state[function] = 1;
        auto it = calls.find(function);
        if (it != calls.end())
          for (const Call &call : it->second) {
            int s = state.lookup(call.callee);
            if (s == 1) {
              error(call.loc,
                    "recursion is not supported: '" +
                        call.callee->getNameAsString() + "' calls itself" +
                        (call.callee == function
                             ? llvm::Twine("")
                             : llvm::Twine(" through '") +
                                   function->getNameAsString() + "'") +
                        "; rewrite it as a loop");
              return true;
            }
            if (s == 0) {
              stack.push_back({function, call.loc});
              if (visit(call.callee))
                return true;
              stack.pop_back();
            }
          }
        state[function] = 2;
        return false;
      };
  // In the order of the definitions, so that a cycle is reported at the
  // call that closes it as one reads the file.
  for (const FunctionDecl *function : definitions)
    if (!state.lookup(function) && visit(function))
      return;
}

mlir::OwningOpRef<mlir::ModuleOp> ModuleBuilder::build(FileID file) {
  TranslationUnitDecl *tu = ast.getTranslationUnitDecl();
  SourceLocation start = sourceManager.getLocForStartOfFile(
      file.isValid() ? file : sourceManager.getMainFileID());
  module = mlir::ModuleOp::create(loc(start));
  mlir::OwningOpRef<mlir::ModuleOp> owned(module);

  // Not decls(): with the prelude in a precompiled header (FrontendSession),
  // that would read all of it back; its declarations are skipped anyway,
  // and without one both give the same declarations.
  for (Decl *decl : tu->noload_decls())
    handleTopLevelDecl(decl);

  if (!hadError())
    attachCustomDerivatives();
  if (!hadError())
    checkRecursion();
  if (hadError())
    return nullptr;
  if (mlir::failed(mlir::verify(module))) {
    error(start, "internal error: ksc built invalid IR for this file");
    return nullptr;
  }
  return owned;
}
