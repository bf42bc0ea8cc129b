//===- CodeGenModule.cpp - Top-level declarations and types -----------===//
//
// Part of ksc. Checks what a .kdsl file declares at the top level, converts
// types, declares kernels and device functions and rejects recursion.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "mlir/IR/Verifier.h"
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

void ModuleBuilder::error(SourceLocation loc, const llvm::Twine &message) {
  ++errorCount;
  diags.Report(loc, errorID) << message.str();
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

bool ModuleBuilder::isArrayType(QualType type) {
  auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
  auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record);
  if (!spec || spec->getName() != "array")
    return false;
  auto *ns = dyn_cast<NamespaceDecl>(spec->getDeclContext());
  return ns && ns->getName() == "ksc" && ns->getParent()->isTranslationUnit();
}

bool ModuleBuilder::isPreludeDecl(const Decl *decl) const {
  const DeclContext *ctx = decl->getDeclContext();
  while (ctx && !isa<NamespaceDecl>(ctx) && !ctx->isTranslationUnit())
    ctx = ctx->getParent();
  auto *ns = dyn_cast_or_null<NamespaceDecl>(ctx);
  return ns && ns->getName() == "ksc" &&
         sourceManager.isInSystemHeader(decl->getLocation());
}

mlir::FailureOr<mlir::Type> ModuleBuilder::convertType(QualType type,
                                                       SourceLocation at,
                                                       StringRef what) {
  QualType canonical = type.getCanonicalType();
  if (canonical->isPointerType() || canonical->isMemberPointerType()) {
    error(at, "pointers are not supported in kernel code (" + what +
                  " has type '" + type.getAsString() +
                  "'); pass arrays as array<T>");
    return mlir::failure();
  }
  if (canonical->isReferenceType()) {
    error(at, "references are not supported here (" + what + " has type '" +
                  type.getAsString() + "')");
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
      return mlir::Type(builder.getI32Type());
    case BuiltinType::Long:
    case BuiltinType::LongLong:
      return mlir::Type(builder.getI64Type());
    default:
      break;
    }
  }
  if (isArrayType(canonical)) {
    auto *spec = cast<ClassTemplateSpecializationDecl>(
        canonical->getAsCXXRecordDecl());
    QualType element = spec->getTemplateArgs()[0].getAsType();
    mlir::FailureOr<mlir::Type> elementType =
        convertType(element.getUnqualifiedType(), at, "the array element");
    if (mlir::failed(elementType))
      return mlir::failure();
    if (!ks::ArrayType::isValidElementType(*elementType)) {
      error(at, "arrays of '" + element.getAsString() + "' are not supported");
      return mlir::failure();
    }
    return mlir::Type(ks::ArrayType::get(*elementType, 1,
                                         element.isConstQualified()));
  }
  std::string reason;
  if (canonical->isRecordType())
    reason = "structs and classes are not supported yet";
  else if (canonical->isEnumeralType())
    reason = "enums are not supported";
  else if (canonical->isArrayType())
    reason = "C arrays are not supported; use array<T> parameters";
  else
    reason = "the kernel language has float, double, int, int64_t, bool "
             "and array<T>";
  error(at, "type '" + type.getAsString() + "' of " + what +
                " is not supported: " + reason);
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

mlir::Operation *
ModuleBuilder::lookupFunction(const FunctionDecl *decl) const {
  return functions.lookup(decl->getCanonicalDecl());
}

void ModuleBuilder::recordCall(const FunctionDecl *caller,
                               const FunctionDecl *callee,
                               SourceLocation loc) {
  calls[caller->getCanonicalDecl()].push_back(
      {callee->getCanonicalDecl(), loc});
}

void ModuleBuilder::checkTopLevelDecl(Decl *decl) {
  if (decl->isImplicit() || sourceManager.isInSystemHeader(decl->getLocation()))
    return;
  SourceLocation at = decl->getLocation();
  if (isa<UsingDirectiveDecl, UsingDecl, TypedefNameDecl, StaticAssertDecl,
          EmptyDecl>(decl))
    return;
  if (auto *function = dyn_cast<FunctionDecl>(decl)) {
    std::optional<FunctionKind> kind = getKind(function);
    if (!kind) {
      error(at, "function '" + function->getNameAsString() +
                    "' must be marked KSC_KERNEL (a kernel) or KSC_FUNC (a "
                    "device function)");
      return;
    }
    if (isa<CXXMethodDecl>(function)) {
      error(at, "member functions are not supported");
      return;
    }
    if (function->isThisDeclarationADefinition())
      declareFunction(function, *kind);
    return;
  }
  if (auto *var = dyn_cast<VarDecl>(decl)) {
    // constexpr scalars are compile-time constants; they are folded where
    // they are used.
    if (var->isConstexpr() || (var->getType().isConstQualified() &&
                               var->getType()->isArithmeticType() &&
                               var->hasConstantInitialization()))
      return;
    error(at, "global variables are not supported in kernel code; pass the "
              "value as a kernel argument or make it constexpr");
    return;
  }
  if (auto *record = dyn_cast<CXXRecordDecl>(decl)) {
    for (const CXXMethodDecl *method : record->methods())
      if (method->isVirtual()) {
        error(method->getLocation(), "virtual functions are not supported in "
                                     "kernel code");
        return;
      }
    error(at, "structs and classes are not supported yet");
    return;
  }
  if (isa<FunctionTemplateDecl, ClassTemplateDecl, VarTemplateDecl,
          TypeAliasTemplateDecl>(decl)) {
    error(at, "templates are not supported yet");
    return;
  }
  if (isa<NamespaceDecl>(decl)) {
    error(at, "namespaces are not supported in kernel code");
    return;
  }
  if (isa<LinkageSpecDecl>(decl)) {
    error(at, "linkage specifications (extern \"C\") are not supported in "
              "kernel code");
    return;
  }
  if (isa<EnumDecl>(decl)) {
    error(at, "enums are not supported");
    return;
  }
  error(at, llvm::Twine("'") + decl->getDeclKindName() +
                "' declarations are not supported in kernel code");
}

void ModuleBuilder::declareFunction(const FunctionDecl *decl,
                                    FunctionKind kind) {
  std::string name = decl->getNameAsString();
  if (!decl->getDeclName().isIdentifier()) {
    error(decl->getLocation(), "operator overloading is not supported");
    return;
  }
  if (decl->isVariadic()) {
    error(decl->getLocation(), "variadic functions are not supported");
    return;
  }
  if (decl->isMain()) {
    error(decl->getLocation(), "'main' cannot be a kernel or device function");
    return;
  }
  bool ok = true;
  llvm::SmallVector<mlir::Type> inputs;
  llvm::SmallVector<llvm::StringRef> argNames;
  for (const ParmVarDecl *param : decl->parameters()) {
    QualType type = param->getType();
    std::string what = "parameter '" + param->getNameAsString() + "'";
    if (type->isReferenceType()) {
      QualType pointee = type->getPointeeType();
      if (kind == FunctionKind::Kernel) {
        error(param->getLocation(),
              "kernel parameters cannot be references; pass by value");
        ok = false;
        continue;
      }
      if (!pointee.isConstQualified() ||
          type->isRValueReferenceType()) {
        error(param->getLocation(),
              "non-const reference parameters are not supported yet; use "
              "'const " +
                  pointee.getAsString() + " &' or pass by value");
        ok = false;
        continue;
      }
      type = pointee;
    }
    mlir::FailureOr<mlir::Type> converted =
        convertType(type.getUnqualifiedType(), param->getLocation(), what);
    if (mlir::failed(converted)) {
      ok = false;
      continue;
    }
    inputs.push_back(*converted);
    argNames.push_back(param->getName());
  }
  llvm::SmallVector<mlir::Type> results;
  QualType returnType = decl->getReturnType();
  if (kind == FunctionKind::Kernel) {
    if (!returnType->isVoidType()) {
      error(decl->getReturnTypeSourceRange().getBegin(),
            "a kernel must return void; write results to arrays");
      ok = false;
    }
  } else if (!returnType->isVoidType()) {
    mlir::FailureOr<mlir::Type> converted =
        convertType(returnType, decl->getReturnTypeSourceRange().getBegin(),
                    "the result of '" + name + "'");
    if (mlir::failed(converted))
      ok = false;
    else if (isa<ks::ArrayType>(*converted)) {
      error(decl->getReturnTypeSourceRange().getBegin(),
            "functions cannot return arrays");
      ok = false;
    } else
      results.push_back(*converted);
  }
  if (!ok)
    return;

  // C++ overloads share a name; symbols cannot.
  std::string symbol = name;
  for (unsigned i = 1; !symbolNames.insert(symbol).second; ++i)
    symbol = name + "_" + std::to_string(i);

  builder.setInsertionPointToEnd(module.getBody());
  auto type = builder.getFunctionType(inputs, results);
  mlir::Location location = loc(decl->getLocation());
  mlir::Operation *op;
  if (kind == FunctionKind::Kernel)
    op = ks::KernelOp::create(builder, location, symbol, type, argNames);
  else
    op = ks::FuncOp::create(builder, location, symbol, type, argNames);
  // Argument locations carry the parameters' names and positions.
  for (auto [arg, param] : llvm::zip(op->getRegion(0).getArguments(),
                                     decl->parameters()))
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
              error(call.loc, "recursion is not supported: '" +
                                  call.callee->getNameAsString() +
                                  "' calls itself" +
                                  (call.callee == function
                                       ? llvm::Twine("")
                                       : llvm::Twine(" through '") +
                                             function->getNameAsString() +
                                             "'"));
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
  for (auto &entry : functions)
    if (!state.lookup(entry.first) && visit(entry.first))
      return;
}

mlir::OwningOpRef<mlir::ModuleOp> ModuleBuilder::build() {
  TranslationUnitDecl *tu = ast.getTranslationUnitDecl();
  SourceLocation start =
      sourceManager.getLocForStartOfFile(sourceManager.getMainFileID());
  module = mlir::ModuleOp::create(loc(start));
  mlir::OwningOpRef<mlir::ModuleOp> owned(module);

  for (Decl *decl : tu->decls())
    checkTopLevelDecl(decl);

  for (auto &[decl, op] : functions) {
    const FunctionDecl *definition = decl->getDefinition();
    FunctionBuilder function(*this, definition, op,
                             isa<ks::KernelOp>(op) ? FunctionKind::Kernel
                                                   : FunctionKind::Func);
    (void)function.build();
  }
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
