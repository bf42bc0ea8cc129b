//===- Frontend.cpp - Run Clang on a kernel file ----------------------===//
//
// Part of ksc. Drives Clang (libTooling) over a .kdsl file with the prelude
// injected, keeps kernel code away from system headers, and hands the AST to
// the ModuleBuilder.
//
//===----------------------------------------------------------------------===//

#include "ksc/Frontend/Frontend.h"
#include "CodeGen.h"
#include "ksc/Support/Paths.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace ksc;

constexpr llvm::StringLiteral kPrelude = "ksc/dsl.h";

bool ksc::frontend::isProvidedHeader(const SourceManager &sm,
                                     SourceLocation loc) {
  if (loc.isInvalid())
    return false;
  // The paths as they were passed to Clang (-isystem, -resource-dir).
  static const std::string prelude = [] {
    llvm::SmallString<256> path(getPreludeIncludeDir());
    llvm::sys::path::append(path, kPrelude);
    return std::string(path);
  }();
  static const std::string resource = getClangResourceDir();
  StringRef file = sm.getFilename(sm.getExpansionLoc(loc));
  return file == prelude || file.starts_with(resource + "/");
}

namespace {

/// Kernel code may include the prelude and the user's own files, nothing
/// else: there is no C++ standard library on a GPU.
class IncludeChecker : public PPCallbacks {
public:
  IncludeChecker(CompilerInstance &ci, unsigned &errors)
      : ci(ci), errors(errors) {}

  void InclusionDirective(SourceLocation hashLoc, const Token &,
                          StringRef fileName, bool isAngled,
                          CharSourceRange filenameRange,
                          OptionalFileEntryRef file, StringRef, StringRef,
                          const Module *, bool,
                          SrcMgr::CharacteristicKind fileType) override {
    SourceManager &sm = ci.getSourceManager();
    // The prelude and Clang's own headers include what they need.
    if (fileName == kPrelude || ksc::frontend::isProvidedHeader(sm, hashLoc) ||
        sm.isWrittenInBuiltinFile(hashLoc))
      return;
    DiagnosticsEngine &diags = ci.getDiagnostics();
    SourceLocation loc = filenameRange.getBegin();
    if (isAngled || (file && fileType != SrcMgr::C_User)) {
      unsigned id = diags.getCustomDiagID(
          DiagnosticsEngine::Error,
          "'%0' cannot be included: kernel code has no system or standard "
          "library headers (only \"ksc/dsl.h\" and your own files)");
      diags.Report(loc, id) << fileName;
      ++errors;
      return;
    }
    if (!file) {
      unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error,
                                          "'%0' file not found");
      diags.Report(loc, id) << fileName;
      ++errors;
    }
  }

private:
  CompilerInstance &ci;
  unsigned &errors;
};

class KdslConsumer : public ASTConsumer {
public:
  KdslConsumer(mlir::MLIRContext &context,
               mlir::OwningOpRef<mlir::ModuleOp> &result,
               const unsigned &includeErrors)
      : context(context), result(result), includeErrors(includeErrors) {}

  void HandleTranslationUnit(ASTContext &ast) override {
    // After Clang's own errors the AST may be incomplete; after rejected
    // includes only, it is whole and the rest of the file is checked too.
    if (ast.getDiagnostics().getNumErrors() > includeErrors)
      return;
    ksc::frontend::ModuleBuilder builder(ast, context);
    result = builder.build();
    if (includeErrors)
      result = nullptr;
  }

private:
  mlir::MLIRContext &context;
  mlir::OwningOpRef<mlir::ModuleOp> &result;
  const unsigned &includeErrors;
};

class KdslAction : public ASTFrontendAction {
public:
  KdslAction(mlir::MLIRContext &context,
             mlir::OwningOpRef<mlir::ModuleOp> &result)
      : context(context), result(result) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci,
                                                 StringRef) override {
    Preprocessor &pp = ci.getPreprocessor();
    pp.SetSuppressIncludeNotFoundError(true);
    pp.addPPCallbacks(std::make_unique<IncludeChecker>(ci, includeErrors));
    return std::make_unique<KdslConsumer>(context, result, includeErrors);
  }

private:
  mlir::MLIRContext &context;
  mlir::OwningOpRef<mlir::ModuleOp> &result;
  unsigned includeErrors = 0;
};

} // namespace

FrontendResult ksc::importKdsl(mlir::MLIRContext &context, StringRef path,
                               const FrontendOptions &options) {
  FrontendResult result;
  std::string includeDir = getPreludeIncludeDir();
  llvm::SmallString<256> prelude(includeDir);
  llvm::sys::path::append(prelude, kPrelude);
  if (!llvm::sys::fs::exists(prelude)) {
    llvm::errs() << "ksc: error: the kernel-language prelude " << prelude
                 << " is missing; reinstall ksc\n";
    return result;
  }

  // A fixed target: the kernel language has 32-bit int and 64-bit int64_t
  // whatever machine ksc runs on.
  std::vector<std::string> args = {
      "ksc",
      "-fsyntax-only",
      "--target=x86_64-unknown-linux-gnu",
      "-x",
      "c++",
      "-std=c++17",
      "-ffreestanding",
      "-nostdinc++",
      "-nostdlibinc",
      "-fexceptions",
      "-fcxx-exceptions",
      "-resource-dir",
      getClangResourceDir(),
      "-isystem",
      includeDir,
      "-include",
      std::string(kPrelude),
      "-D__KSC__=1",
  };
  if (llvm::errs().has_colors())
    args.push_back("-fcolor-diagnostics");
  for (const std::string &dir : options.includeDirs)
    args.push_back("-I" + dir);
  for (const std::string &define : options.defines)
    args.push_back("-D" + define);
  if (options.verifyDiagnostics) {
    args.push_back("-Xclang");
    args.push_back("-verify");
    args.push_back("-ferror-limit=0");
  }
  args.push_back(path.str());

  llvm::IntrusiveRefCntPtr<FileManager> files(
      new FileManager(FileSystemOptions()));
  tooling::ToolInvocation invocation(
      args, std::make_unique<KdslAction>(context, result.module), files.get());
  bool ok = invocation.run();
  if (options.verifyDiagnostics) {
    result.success = ok;
    result.module = nullptr;
    return result;
  }
  result.success = ok && result.module;
  if (!result.success)
    result.module = nullptr;
  return result;
}
