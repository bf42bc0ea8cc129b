//===- BuilderOrder.cpp - A Clang plugin: IR built in unspecified order --===//
//
// Part of ksc. ksc's output must be the same bytes whatever compiler built
// ksc. C++ leaves the order in which a call's arguments are evaluated
// unspecified (GCC evaluates them right to left, Clang left to right), so
//
//   Value y = m.add(m.mul(a, b), m.mul(c, d));
//
// creates the two arith.mulf in one order with one compiler and in the
// other with the other: semantically the same IR, different bytes. The same
// holds for ksc-synth's random draws (`f(rng.chance(50), rng.below(3))`
// draws in either order: another kernel). This plugin reports every call
// (or constructor call with parentheses) of which two or more arguments
// have such effects, as an error at the call with a note at each such
// argument. An expression has them when it calls
//
//  - a function or method with a non-const parameter of type
//    mlir::OpBuilder (or a class derived from it, such as a rewriter) or
//    ksc::SplitMix64, or of a class that holds one (a rule context, a
//    helper like the rules' Math, ksc-synth's Rng and Builder):
//    OpTy::create, ad::zero, m.mul;
//  - a non-const method of a class that holds one, lambdas that capture
//    one included (their captures are fields of the closure class): ksc's
//    convention is that a const method has no such effect (keep pure
//    helpers const);
//  - OpBuilder's own create, clone, insert, createOrFold or createBlock.
//
// Calls that return a builder, a location, a type or an attribute are
// lookups, not building. Braced initializer lists (`ValueRange{f(b), g(b)}`) are evaluated left to
// right and are not reported, nor are the bodies of lambdas given as
// arguments (they run later). Loaded into Clang with
//
//   clang++ -fplugin=KscLint.so \
//     -fplugin-arg-ksc_builder_order-root=/path/to/ksc/ ...
//
// it reports only in files below `root` (default: the main file only) and
// not below any `exclude=DIR` given (the build tree's generated code);
// cmake/KscLint.cmake builds it and adds it to every ksc target of a
// build with Clang.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace {

/// The files the plugin reports in: those below `root` but not below an
/// `excluded` directory (a build tree's generated code); without a root,
/// the main file.
struct Scope {
  std::string root;
  std::vector<std::string> excluded;
};

/// What the plugin knows of the classes it has looked at.
class BuilderTypes {
public:
  /// Whether `type` (a reference or pointer to it, or an array of it) is
  /// mlir::OpBuilder, a class derived from it, or a class with a field of
  /// such a type (at any depth of nesting).
  bool holdsBuilder(QualType type) { return holds(stripped(type), 0); }
  bool holdsBuilder(const CXXRecordDecl *record) { return holds(record, 0); }

  static bool isOpBuilder(const CXXRecordDecl *record) {
    return isOneOf(record, {"mlir::OpBuilder"});
  }
  /// A builder, or ksc's random-number generator, whose draws are as much
  /// part of what ksc makes (ksc-synth's kernels) as operations are.
  static bool isStateful(const CXXRecordDecl *record) {
    return isOneOf(record, {"mlir::OpBuilder", "ksc::SplitMix64"});
  }

  /// Whether `record` is one of the classes `names` or derived from one.
  static bool isOneOf(const CXXRecordDecl *record,
                      std::initializer_list<llvm::StringRef> names) {
    if (!record || !record->hasDefinition())
      return false;
    auto isIt = [&](const CXXRecordDecl *r) {
      return llvm::is_contained(names, r->getQualifiedNameAsString());
    };
    if (isIt(record))
      return true;
    return !record->forallBases(
        [&](const CXXRecordDecl *base) { return !isIt(base); });
  }

private:
  static QualType stripped(QualType type) {
    type = type.getNonReferenceType();
    while (true) {
      if (const auto *pointer = type->getAs<PointerType>())
        type = pointer->getPointeeType();
      else if (const auto *array = type->getAsArrayTypeUnsafe())
        type = array->getElementType();
      else
        return type;
    }
  }

  bool holds(QualType type, int depth) {
    return holds(type->getAsCXXRecordDecl(), depth);
  }

  bool holds(const CXXRecordDecl *record, int depth) {
    if (!record || !record->hasDefinition() || depth > 3)
      return false;
    record = record->getDefinition();
    auto it = known.find(record);
    if (it != known.end())
      return it->second;
    known[record] = false; // (a class that contains itself through pointers)
    bool result = isStateful(record);
    for (const FieldDecl *field : record->fields())
      result = result || holds(stripped(field->getType()), depth + 1);
    known[record] = result;
    return result;
  }

  llvm::DenseMap<const CXXRecordDecl *, bool> known;
};

class Visitor : public RecursiveASTVisitor<Visitor> {
public:
  Visitor(ASTContext &context, const Scope &scope)
      : context(context), sm(context.getSourceManager()), scope(scope) {
    DiagnosticsEngine &diags = context.getDiagnostics();
    errorId = diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "%0 arguments of this call build IR or draw random numbers, in an "
        "order C++ leaves unspecified (GCC and Clang differ, and so would "
        "ksc's output); compute them into variables first, in the order "
        "wanted");
    noteId = diags.getCustomDiagID(DiagnosticsEngine::Note,
                                   "this argument builds IR or draws");
  }

  /// Only declarations in scope: the visitor does not walk the AST of
  /// MLIR's, LLVM's and Clang's headers.
  bool TraverseDecl(Decl *decl) {
    if (!decl)
      return true;
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(decl) &&
        !inScope(decl->getBeginLoc()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(decl);
  }

  bool VisitCallExpr(CallExpr *call) {
    // Overloaded operators that C++17 sequences (<<, =, [], &&, ...) are
    // evaluated in order; others (+, *) are not.
    if (auto *op = dyn_cast<CXXOperatorCallExpr>(call)) {
      switch (op->getOperator()) {
      case OO_Call:
        check(call, llvm::drop_begin(call->arguments()));
        return true;
      case OO_Plus:
      case OO_Minus:
      case OO_Star:
      case OO_Slash:
      case OO_EqualEqual:
      case OO_ExclaimEqual:
      case OO_Less:
      case OO_Greater:
        check(call, call->arguments());
        return true;
      default:
        return true;
      }
    }
    check(call, call->arguments());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *construct) {
    if (!construct->isListInitialization() &&
        !construct->isStdInitListInitialization())
      check(construct, construct->arguments());
    return true;
  }

private:
  template <typename Range> void check(Expr *call, Range args) {
    if (!inScope(call->getBeginLoc()))
      return;
    llvm::SmallVector<const Expr *> building;
    for (const Expr *arg : args)
      if (buildsIR(arg))
        building.push_back(arg);
    if (building.size() < 2)
      return;
    DiagnosticsEngine &diags = context.getDiagnostics();
    diags.Report(call->getBeginLoc(), errorId)
        << unsigned(building.size()) << call->getSourceRange();
    for (const Expr *arg : building)
      diags.Report(arg->getBeginLoc(), noteId) << arg->getSourceRange();
  }

  bool inScope(SourceLocation loc) {
    loc = sm.getExpansionLoc(loc);
    if (loc.isInvalid())
      return false;
    if (scope.root.empty())
      return sm.isInMainFile(loc);
    OptionalFileEntryRef file = sm.getFileEntryRefForID(sm.getFileID(loc));
    if (!file)
      return false;
    llvm::StringRef name = file->getName();
    return name.starts_with(scope.root) &&
           llvm::none_of(scope.excluded, [&](const std::string &dir) {
             return name.starts_with(dir);
           });
  }

  /// Whether evaluating `expr` may create or insert operations.
  bool buildsIR(const Stmt *stmt) {
    if (!stmt || isa<LambdaExpr>(stmt))
      return false;
    if (const auto *call = dyn_cast<CallExpr>(stmt); call && isBuilderCall(call))
      return true;
    for (const Stmt *child : stmt->children())
      if (buildsIR(child))
        return true;
    return false;
  }

  /// Whether a call returning `type` is only a lookup: of a builder, a
  /// location, a type or an attribute (which are uniqued, so the order of
  /// their creation shows nowhere).
  bool isLookupResult(QualType type) {
    type = type.getNonReferenceType();
    if (types.holdsBuilder(type))
      return !type->isVoidType();
    const CXXRecordDecl *record = type->getAsCXXRecordDecl();
    if (!record || !record->hasDefinition())
      return false;
    auto isOneOf = [](const CXXRecordDecl *r) {
      std::string name = r->getQualifiedNameAsString();
      return name == "mlir::Location" || name == "mlir::Type" ||
             name == "mlir::Attribute" || name == "mlir::TypeRange";
    };
    if (isOneOf(record))
      return true;
    return !record->forallBases(
        [&](const CXXRecordDecl *base) { return !isOneOf(base); });
  }

  bool isBuilderCall(const CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || isLookupResult(callee->getReturnType()))
      return false;
    if (const auto *method = dyn_cast<CXXMethodDecl>(callee)) {
      const CXXRecordDecl *parent = method->getParent();
      if (BuilderTypes::isOpBuilder(parent))
        return llvm::is_contained({"create", "clone", "insert", "createOrFold",
                                   "createBlock"},
                                  method->getNameAsString());
      // (A const method of such a class is taken not to build: keep it so.)
      // (A lambda's call operator is const unless `mutable`: it counts.)
      if (!method->isStatic() && (!method->isConst() || parent->isLambda()) &&
          types.holdsBuilder(parent))
        return true;
    }
    // (A parameter of a const builder-holding type, `const RuleContext &`,
    // is taken to be read only: keep it so.)
    for (const ParmVarDecl *param : callee->parameters()) {
      QualType type = param->getType().getNonReferenceType();
      if (const auto *pointer = type->getAs<PointerType>())
        type = pointer->getPointeeType();
      if (!type.isConstQualified() && types.holdsBuilder(type))
        return true;
    }
    return false;
  }

  ASTContext &context;
  SourceManager &sm;
  const Scope &scope;
  BuilderTypes types;
  unsigned errorId, noteId;
};

class Consumer : public ASTConsumer {
public:
  explicit Consumer(Scope scope) : scope(std::move(scope)) {}
  void HandleTranslationUnit(ASTContext &context) override {
    Visitor(context, scope).TraverseDecl(context.getTranslationUnitDecl());
  }

private:
  Scope scope;
};

class Action : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<Consumer>(scope);
  }
  bool ParseArgs(const CompilerInstance &ci,
                 const std::vector<std::string> &args) override {
    for (const std::string &arg : args) {
      llvm::StringRef text(arg);
      if (text.consume_front("root=")) {
        scope.root = text.str();
        continue;
      }
      if (text.consume_front("exclude=")) {
        scope.excluded.push_back(text.str());
        continue;
      }
      DiagnosticsEngine &diags = ci.getDiagnostics();
      diags.Report(diags.getCustomDiagID(
          DiagnosticsEngine::Error,
          "ksc_builder_order: unknown argument '%0' (it takes root=DIR and "
          "exclude=DIR)"))
          << arg;
      return false;
    }
    return true;
  }
  ActionType getActionType() override { return AddAfterMainAction; }

private:
  Scope scope;
};

} // namespace

static FrontendPluginRegistry::Add<Action>
    registration("ksc_builder_order",
                 "report calls with several IR-building or drawing "
                 "arguments");
