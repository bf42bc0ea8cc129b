//===- Incremental.cpp - One Clang instance for many kernel sources ---===//
//
// Part of ksc. IncrementalFrontend parses each source as the next part of an
// incremental translation unit (as clang-repl does), builds its ks module,
// and removes the part's declarations from name lookup again. Creating a
// Clang instance and reading the prelude back from the precompiled header
// is most of the cost of a small kernel; here it is paid once per
// kPartsPerInstance sources.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"
#include "Session.h"
#include "WarpPrinter.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclContextInternals.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Parse/Parser.h"
#include "clang/Sema/Sema.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;
using namespace ksc;

/// Sources parsed in one instance before it is replaced: the AST of every
/// part stays allocated in the instance's ASTContext.
static constexpr unsigned kPartsPerInstance = 200;

/// The empty main file the parts are added to.
static constexpr llvm::StringLiteral kMainFile = "<ksc-incremental>";

/// Whether `source` leaves nothing behind in the instance but declarations
/// that cleanUp removes: no macros (or any other preprocessor directive),
/// namespaces, or using-directives. A conservative test on the text; a
/// source that fails it is compiled afresh.
static bool canParseIncrementally(StringRef source) {
  return !source.contains('#') && !source.contains("namespace") &&
         !source.contains("using");
}

namespace {
/// Sets up the preprocessor and Sema of an incremental translation unit and
/// keeps them past ExecuteAction: EndSourceFile, which would tear them down,
/// waits for finish().
class IncrementalAction : public ASTFrontendAction {
public:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<ASTConsumer>();
  }
  TranslationUnitKind getTranslationUnitKind() override {
    return TU_Incremental;
  }
  void ExecuteAction() override {
    CompilerInstance &ci = getCompilerInstance();
    ci.getPreprocessor().enableIncrementalProcessing();
    ci.getPreprocessor().EnterMainSourceFile();
    if (!ci.hasSema())
      ci.createSema(getTranslationUnitKind(), /*CompletionConsumer=*/nullptr);
  }
  void EndSourceFile() override {
    if (finishing)
      ASTFrontendAction::EndSourceFile();
  }
  void finish() {
    finishing = true;
    EndSourceFile();
  }

private:
  bool finishing = false;
};
} // namespace

struct IncrementalFrontend::Instance {
  ~Instance() {
    parser.reset();
    if (started)
      action.finish();
  }

  /// Starts the instance from the session's command line; false after an
  /// error.
  bool start(const FrontendSession::Impl &session);

  /// Builds the module of `source` into `result`; false when the source has
  /// errors or the instance cannot take it (the instance may then hold part
  /// of it and is not to be used again).
  bool parse(mlir::MLIRContext &context, StringRef name, StringRef source,
             bool emitWarp, FrontendResult &result);

  /// Removes the declarations of `part` from name lookup.
  void cleanUp(TranslationUnitDecl *part);

  std::unique_ptr<CompilerInstance> compiler;
  IncrementalAction action;
  bool started = false;
  std::unique_ptr<Parser> parser;
};

bool IncrementalFrontend::Instance::start(
    const FrontendSession::Impl &session) {
  auto invocation = std::make_shared<CompilerInvocation>(*session.invocation);
  clang::FrontendOptions &frontend = invocation->getFrontendOpts();
  frontend.Inputs.clear();
  frontend.Inputs.emplace_back(kMainFile, InputKind(Language::CXX));
  // Owned by the preprocessor from here on.
  invocation->getPreprocessorOpts().addRemappedFile(
      kMainFile, llvm::MemoryBuffer::getMemBuffer("", kMainFile).release());
  compiler = std::make_unique<CompilerInstance>(std::move(invocation));
  compiler->setFileManager(llvm::makeIntrusiveRefCnt<FileManager>(
      FileSystemOptions(), llvm::vfs::getRealFileSystem()));
  // A source with errors is compiled again by the session, which reports
  // them; here they only need counting.
  compiler->createDiagnostics(new IgnoringDiagConsumer(),
                              /*ShouldOwnClient=*/true);
  compiler->createSourceManager();
  started = compiler->ExecuteAction(action);
  if (!started || compiler->getDiagnostics().hasErrorOccurred() ||
      !compiler->hasSema())
    return false;
  parser = std::make_unique<Parser>(compiler->getPreprocessor(),
                                    compiler->getSema(),
                                    /*SkipFunctionBodies=*/false);
  parser->Initialize();
  return true;
}

bool IncrementalFrontend::Instance::parse(mlir::MLIRContext &context,
                                          StringRef name, StringRef source,
                                          bool emitWarp,
                                          FrontendResult &result) {
  Sema &sema = compiler->getSema();
  Preprocessor &preprocessor = compiler->getPreprocessor();
  SourceManager &sourceManager = compiler->getSourceManager();
  ASTContext &ast = compiler->getASTContext();
  DiagnosticsEngine &diagnostics = compiler->getDiagnostics();

  // Instantiate what the part uses at its end, as at the end of a file.
  Sema::GlobalEagerInstantiationScope globalInstantiations(
      sema, /*Enabled=*/true, /*AtEndOfTU=*/true);
  Sema::LocalEagerInstantiationScope localInstantiations(sema,
                                                         /*AtEndOfTU=*/true);
  ast.addTranslationUnitDecl();
  TranslationUnitDecl *part = ast.getTranslationUnitDecl();

  SourceLocation mainStart =
      sourceManager.getLocForStartOfFile(sourceManager.getMainFileID());
  FileID file = sourceManager.createFileID(
      llvm::MemoryBuffer::getMemBufferCopy(source, name), SrcMgr::C_User,
      /*LoadedID=*/0, /*LoadedOffset=*/0, mainStart);
  if (preprocessor.EnterSourceFile(file, /*Dir=*/nullptr, mainStart))
    return false;
  // Past the end of the previous part (or of the empty main file), into a
  // fresh file scope for this part.
  if (parser->getCurToken().isOneOf(tok::eof, tok::annot_repl_input_end)) {
    parser->ConsumeAnyToken();
    parser->ExitScope();
    sema.CurContext = nullptr;
    parser->EnterScope(Scope::DeclScope);
    sema.ActOnTranslationUnitScope(parser->getCurScope());
  }
  Parser::DeclGroupPtrTy declarations;
  Sema::ModuleImportState importState;
  for (bool atEnd = parser->ParseFirstTopLevelDecl(declarations, importState);
       !atEnd; atEnd = parser->ParseTopLevelDecl(declarations, importState))
    ;
  if (diagnostics.hasErrorOccurred())
    return false;
  localInstantiations.perform();
  globalInstantiations.perform();
  if (diagnostics.hasErrorOccurred())
    return false;

  frontend::ModuleBuilder builder(ast, context);
  result.module = builder.build(file);
  result.success = bool(result.module);
  if (result.success && emitWarp)
    frontend::printWarp(builder, file, llvm::sys::path::filename(name),
                        result.warp, result.warpError);
  cleanUp(part);
  return result.success && !diagnostics.hasErrorOccurred();
}

void IncrementalFrontend::Instance::cleanUp(TranslationUnitDecl *part) {
  StoredDeclsMap *map = part->getFirstDecl()->getPrimaryContext()->getLookupPtr();
  if (!map)
    return;
  for (auto it = map->begin(); it != map->end(); ++it) {
    StoredDeclsList &list = it->second;
    for (NamedDecl *decl : list.getLookupResult())
      if (decl->getTranslationUnitDecl() == part)
        list.remove(decl);
    if (list.isNull())
      map->erase(it);
  }
}

IncrementalFrontend::IncrementalFrontend(const FrontendSession &session)
    : session(session) {}

IncrementalFrontend::~IncrementalFrontend() = default;

FrontendResult IncrementalFrontend::import(mlir::MLIRContext &context,
                                           StringRef name, StringRef source,
                                           llvm::raw_ostream &diagnostics,
                                           bool emitWarp) {
  auto fresh = [&] {
    ++fallbackCount;
    return session.import(context, name, source, diagnostics, emitWarp);
  };
  if (!canParseIncrementally(source))
    return fresh();
  if (instance && parts == kPartsPerInstance)
    instance.reset();
  if (!instance) {
    instance = std::make_unique<Instance>();
    parts = 0;
    if (!instance->start(*session.impl)) {
      instance.reset();
      return fresh();
    }
  }
  ++parts;
  FrontendResult result;
  if (instance->parse(context, name, source, emitWarp, result))
    return result;
  instance.reset();
  return fresh();
}
