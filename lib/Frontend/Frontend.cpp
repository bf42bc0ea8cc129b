//===- Frontend.cpp - Run Clang on a kernel file ----------------------===//
//
// Part of ksc. Drives Clang (libTooling) over a .kdsl file with the prelude
// injected, keeps kernel code away from system headers, and hands the AST to
// the ModuleBuilder.
//
//===----------------------------------------------------------------------===//

#include "ksc/Frontend/Frontend.h"
#include "Builtins.h"
#include "CodeGen.h"
#include "Session.h"
#include "WarpPrinter.h"
#include "ksc/Frontend/Builtins.h"
#include "ksc/Support/Escape.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Paths.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/FileManager.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
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

/// Clang's errors speak C++. Kernel code meets a few of them often, where
/// C++ has an answer that kernel code does not (include a header, use the
/// standard library): after those errors a note says what to write in the
/// kernel language instead, and an error whose own advice would be wrong
/// (include <typeinfo>) says what is not supported instead. Wraps the
/// consumer Clang set up (the printer, or -verify's checker, which then
/// checks the notes too) and passes everything else through unchanged.
class KernelLanguageAdvice : public DiagnosticConsumer {
public:
  explicit KernelLanguageAdvice(DiagnosticsEngine &diags)
      : owned(diags.ownsClient() ? diags.takeClient() : nullptr),
        inner(owned ? owned.get() : diags.getClient()) {
    noteID = diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
  }

  void BeginSourceFile(const LangOptions &langOpts,
                       const Preprocessor *pp) override {
    inner->BeginSourceFile(langOpts, pp);
    sync();
  }
  void EndSourceFile() override {
    inner->EndSourceFile();
    sync();
  }
  void finish() override {
    inner->finish();
    sync();
  }
  void clear() override {
    inner->clear();
    sync();
  }
  bool IncludeInDiagnosticCounts() const override {
    return inner->IncludeInDiagnosticCounts();
  }

  void HandleDiagnostic(DiagnosticsEngine::Level level,
                        const Diagnostic &info) override {
    std::string replacement, advice;
    if (level == DiagnosticsEngine::Error || level == DiagnosticsEngine::Fatal)
      explain(info, replacement, advice);
    if (replacement.empty()) {
      inner->HandleDiagnostic(level, info);
    } else {
      DiagnosticStorage storage;
      storage.DiagRanges.append(info.getRanges().begin(),
                                info.getRanges().end());
      storage.FixItHints.append(info.getFixItHints().begin(),
                                info.getFixItHints().end());
      inner->HandleDiagnostic(level,
                              Diagnostic(info.getDiags(), info.getLocation(),
                                         info.getID(), storage, replacement));
    }
    if (!advice.empty()) {
      DiagnosticStorage storage;
      inner->HandleDiagnostic(DiagnosticsEngine::Note,
                              Diagnostic(info.getDiags(), info.getLocation(),
                                         noteID, storage, advice));
    }
    sync();
  }

private:
  /// Integer types of the C and C++ libraries the prelude does not declare.
  static constexpr llvm::StringLiteral kLibraryIntegerTypes[] = {
      "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t"};

  /// The name of a declaration argument of `info` (`call to %0`).
  static std::string nameArg(const Diagnostic &info, unsigned index) {
    if (index >= info.getNumArgs())
      return "";
    switch (info.getArgKind(index)) {
    case DiagnosticsEngine::ak_declarationname:
      return DeclarationName::getFromOpaqueInteger(info.getRawArg(index))
          .getAsString();
    case DiagnosticsEngine::ak_identifierinfo:
      return info.getArgIdentifier(index)->getName().str();
    case DiagnosticsEngine::ak_nameddecl:
      return reinterpret_cast<const NamedDecl *>(info.getRawArg(index))
          ->getNameAsString();
    default:
      return "";
    }
  }

  static void explain(const Diagnostic &info, std::string &replacement,
                      std::string &advice) {
    switch (info.getID()) {
    case diag::err_undeclared_var_use:
    case diag::err_undeclared_var_use_suggest:
    case diag::err_unknown_typename:
    case diag::err_unknown_typename_suggest: {
      std::string name = nameArg(info, 0);
      if (name == "std")
        advice = "kernel code has no C++ standard library; call the "
                 "kernel-language builtins (sqrt, min, abs, ...) without "
                 "'std::'";
      else if (llvm::is_contained(kLibraryIntegerTypes, name))
        advice = name + " is not a type of the kernel language (it has no "
                        "standard library): use int for sizes and indices, "
                        "int64_t for large ones, uint32_t for bit patterns";
      return;
    }
    case diag::err_typecheck_assign_const: {
      // "cannot assign to return value because function %1 returns a const
      // value": %1 is the prelude's operator[] or operator() of a read-only
      // array.
      if (info.getNumArgs() < 2 ||
          (info.getArgKind(0) != DiagnosticsEngine::ak_uint &&
           info.getArgKind(0) != DiagnosticsEngine::ak_sint) ||
          info.getRawArg(0) != 0 ||
          info.getArgKind(1) != DiagnosticsEngine::ak_nameddecl)
        return;
      auto *method = dyn_cast<CXXMethodDecl>(
          reinterpret_cast<const NamedDecl *>(info.getRawArg(1)));
      const CXXRecordDecl *record = method ? method->getParent() : nullptr;
      auto *ns = record ? dyn_cast<NamespaceDecl>(record->getDeclContext())
                        : nullptr;
      if (record && record->getName() == "array" && ns &&
          ns->getName() == "ksc" && ns->getParent()->isTranslationUnit())
        advice = "the elements of an array<const T> are read-only; to write "
                 "them, declare the array as array<T>";
      return;
    }
    case diag::err_ovl_ambiguous_call:
    case diag::err_ovl_no_viable_function_in_call: {
      std::string name = nameArg(info, 0);
      if (name == "tid")
        advice = "tid() takes no argument or the constant dimension 0, 1 or "
                 "2";
      else if (ksc::frontend::getAtomicBuiltinKind(name))
        advice = name + "(a, i, ..., v) takes an array<T> of float, double, "
                        "int, uint32_t, int64_t, vectors, matrices or "
                        "quaternions, one index per dimension of the array, "
                        "and the value, of T; not an array<const T>, whose "
                        "elements are read-only (declare it array<T>), nor "
                        "an array<bool> or of structs";
      else if (ksc::frontend::isRandomBuiltin(name))
        advice = "rand_init takes an int seed (and an int offset); randi, "
                 "randf and randn take the state as a uint32_t variable they "
                 "advance (uint32_t s = rand_init(seed); float r = randf(s);), "
                 "then int or float bounds";
      else if (const ksc::BuiltinInfo *info = ksc::lookupBuiltin(name);
               info && info->group == ksc::BuiltinGroup::Vector &&
               info->takes(ksc::builtin::Vec) &&
               !info->takes(ksc::builtin::IntVec))
        advice = name + " takes " +
                 (info->takes(ksc::builtin::Vec3) ? "two 3-vectors"
                                                  : "vectors") +
                 " of float or double (vec3, vec3d)" +
                 (info->takes(ksc::builtin::Quat) ? " or a quaternion" : "") +
                 ", not int vectors: convert the components first, as in "
                 "vec3(float(v.x), float(v.y), float(v.z))";
      else if (ksc::frontend::isBuiltin(name))
        advice = "the builtins take arguments of one type (float, double, "
                 "and for some int, int64_t or uint32_t); write literals of that type "
                 "(1.0f for a float) or convert with a cast";
      return;
    }
    case diag::err_for_range_invalid:
      advice = "range-based for loops are not supported in kernel code; use a "
               "counted loop: for (int i = 0; i < a.shape(0); ++i)";
      return;
    case diag::err_need_header_before_typeid:
      replacement = "typeid is not supported in kernel code: there is no "
                    "run-time type information; write an overloaded device "
                    "function for each type instead";
      return;
    case diag::err_implied_std_initializer_list_not_found:
      replacement = "lists of values in braces are not supported in kernel "
                    "code (there is no std::initializer_list); use separate "
                    "variables, or pass the values in an array<T>";
      return;
    default:
      return;
    }
  }

  /// The counts are the inner consumer's: -verify's checker counts what did
  /// not match, not what was reported.
  void sync() {
    NumErrors = inner->getNumErrors();
    NumWarnings = inner->getNumWarnings();
  }

  std::unique_ptr<DiagnosticConsumer> owned;
  DiagnosticConsumer *inner;
  unsigned noteID;
};

class KdslConsumer : public ASTConsumer {
public:
  KdslConsumer(mlir::MLIRContext &context, FrontendResult &result,
               bool emitWarp, const unsigned &includeErrors)
      : context(context), result(result), emitWarp(emitWarp),
        includeErrors(includeErrors) {}

  void HandleTranslationUnit(ASTContext &ast) override {
    // After Clang's own errors the AST may be incomplete; after rejected
    // includes only, it is whole and the rest of the file is checked too.
    if (ast.getDiagnostics().getNumErrors() > includeErrors)
      return;
    ksc::frontend::ModuleBuilder builder(ast, context);
    result.module = builder.build();
    if (includeErrors)
      result.module = nullptr;
    if (result.module && emitWarp)
      ksc::frontend::printWarp(builder, FileID(), mainFileName(ast),
                               result.warp, result.warpError);
  }

private:
  static std::string mainFileName(ASTContext &ast) {
    const SourceManager &sm = ast.getSourceManager();
    OptionalFileEntryRef entry = sm.getFileEntryRefForID(sm.getMainFileID());
    return entry ? llvm::sys::path::filename(entry->getName()).str() : "-";
  }

  mlir::MLIRContext &context;
  FrontendResult &result;
  bool emitWarp;
  const unsigned &includeErrors;
};

/// Clang's `-MD` dependency file, kept in memory: the rule is printed when
/// the caller asks for it (after a successful compile), not written to a
/// file at the end of the main file as Clang does.
class DependencyRecorder : public DependencyFileGenerator {
public:
  explicit DependencyRecorder(const MakeDependencies &request)
      : DependencyFileGenerator(outputOptions(request)) {}

  void finishedMainFile(DiagnosticsEngine &) override {}

  std::string rule() {
    std::string text;
    llvm::raw_string_ostream os(text);
    outputDependencyFile(os);
    return text;
  }

private:
  static DependencyOutputOptions outputOptions(const MakeDependencies &request) {
    DependencyOutputOptions options;
    options.Targets = request.targets;
    options.UsePhonyTargets = request.phonyTargets;
    // Never written: finishedMainFile is a no-op.
    options.OutputFile = "-";
    return options;
  }
};

class KdslAction : public ASTFrontendAction {
public:
  KdslAction(mlir::MLIRContext &context, FrontendResult &result, bool emitWarp,
             DependencyRecorder *dependencies = nullptr,
             std::vector<std::string> *filesRead = nullptr)
      : context(context), result(result), emitWarp(emitWarp),
        dependencies(dependencies), filesRead(filesRead) {}

  void EndSourceFileAction() override {
    if (!filesRead)
      return;
    SourceManager &sm = getCompilerInstance().getSourceManager();
    for (auto file = sm.fileinfo_begin(), e = sm.fileinfo_end(); file != e;
         ++file)
      filesRead->push_back(file->first.getName().str());
    llvm::sort(*filesRead);
  }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci,
                                                 StringRef) override {
    Preprocessor &pp = ci.getPreprocessor();
    pp.SetSuppressIncludeNotFoundError(true);
    DiagnosticsEngine &diags = ci.getDiagnostics();
    diags.setClient(new KernelLanguageAdvice(diags), /*ShouldOwnClient=*/true);
    pp.addPPCallbacks(std::make_unique<IncludeChecker>(ci, includeErrors));
    if (dependencies)
      dependencies->attachToPreprocessor(pp);
    return std::make_unique<KdslConsumer>(context, result, emitWarp,
                                          includeErrors);
  }

private:
  mlir::MLIRContext &context;
  FrontendResult &result;
  bool emitWarp;
  DependencyRecorder *dependencies;
  std::vector<std::string> *filesRead;
  unsigned includeErrors = 0;
};

} // namespace

/// The prelude's path; empty, after an error on standard error, when it is
/// missing.
static std::string findPrelude() {
  llvm::SmallString<256> prelude(getPreludeIncludeDir());
  llvm::sys::path::append(prelude, kPrelude);
  if (!llvm::sys::fs::exists(prelude)) {
    llvm::errs() << "ksc: error: the kernel-language prelude " << prelude
                 << " is missing; reinstall ksc\n";
    return "";
  }
  return std::string(prelude);
}

/// The Clang command line for kernel files, up to the input file: the
/// prelude comes in as source, or from `options.preludePch`.
static std::vector<std::string>
clangArguments(const ksc::FrontendOptions &options) {
  // A fixed target: the kernel language has 32-bit int and 64-bit int64_t
  // whatever machine ksc runs on.
  std::vector<std::string> args = {
      "ksc",
      "--target=x86_64-unknown-linux-gnu",
      "-std=c++17",
      "-ffreestanding",
      "-nostdinc++",
      "-nostdlibinc",
      "-fexceptions",
      "-fcxx-exceptions",
      "-resource-dir",
      getClangResourceDir(),
      "-isystem",
      getPreludeIncludeDir(),
      "-D__KSC__=1",
  };
  if (!options.diagnostics && llvm::errs().has_colors())
    args.push_back("-fcolor-diagnostics");
  for (const std::string &dir : options.includeDirs)
    args.push_back("-I" + dir);
  for (const std::string &define : options.defines)
    args.push_back("-D" + define);
  return args;
}

/// The Clang command line that compiles the kernel file `path`.
static std::vector<std::string>
kdslArguments(const ksc::FrontendOptions &options, StringRef path) {
  std::vector<std::string> args = clangArguments(options);
  args.insert(args.end(), {"-fsyntax-only", "-x", "c++"});
  if (options.preludePch.empty())
    args.insert(args.end(), {"-include", std::string(kPrelude)});
  else
    args.insert(args.end(), {"-include-pch", options.preludePch});
  if (options.verifyDiagnostics) {
    args.push_back("-Xclang");
    args.push_back("-verify");
    args.push_back("-ferror-limit=0");
  }
  args.push_back(path.str());
  return args;
}

/// Runs `action` as Clang's frontend on the command line `args`, with the
/// files of `fileSystem` and the diagnostics going where `options` says.
static bool runClang(std::vector<std::string> args,
                     std::unique_ptr<FrontendAction> action,
                     llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fileSystem,
                     const ksc::FrontendOptions &options) {
  llvm::IntrusiveRefCntPtr<FileManager> files(
      new FileManager(FileSystemOptions(), std::move(fileSystem)));
  tooling::ToolInvocation invocation(std::move(args), std::move(action),
                                     files.get());
  std::unique_ptr<DiagnosticOptions> diagnosticOptions;
  std::unique_ptr<TextDiagnosticPrinter> printer;
  if (options.diagnostics) {
    diagnosticOptions = std::make_unique<DiagnosticOptions>();
    printer = std::make_unique<TextDiagnosticPrinter>(*options.diagnostics,
                                                      *diagnosticOptions);
    invocation.setDiagnosticConsumer(printer.get());
  }
  return invocation.run();
}

/// What a FrontendSession precompiles: the prelude, and the class template
/// specializations kernels use most, instantiated once here instead of in
/// every kernel (the same declarations either way).
static constexpr llvm::StringLiteral kSessionHeader = R"(#include "ksc/dsl.h"
namespace ksc_session_detail {
template <typename... T> struct complete {
  static constexpr bool value = (sizeof(T) + ... + 0) > 0;
};
static_assert(complete<
    ksc::array<float>, ksc::array<const float>, ksc::array<double>,
    ksc::array<const double>, ksc::array<int>, ksc::array<const int>,
    ksc::array<float, 2>, ksc::array<const float, 2>, ksc::array<int, 2>,
    ksc::array<double, 2>, ksc::array<const double, 2>,
    ksc::array<float, 3>, ksc::array<const float, 3>,
    ksc::vec2, ksc::vec3, ksc::vec4, ksc::vec2d, ksc::vec3d, ksc::vec4d,
    ksc::vec2i, ksc::vec3i, ksc::vec4i, ksc::mat22, ksc::mat33, ksc::mat44,
    ksc::mat22d, ksc::mat33d, ksc::mat44d, ksc::quat>::value, "");
} // namespace ksc_session_detail
)";

/// Precompiles kSessionHeader, written to `outputPath`.h, into the Clang
/// precompiled header `outputPath`.
static bool precompileSessionHeader(StringRef outputPath,
                                    const ksc::FrontendOptions &options) {
  if (findPrelude().empty())
    return false;
  std::string header = (outputPath + ".h").str();
  if (llvm::Error error = ksc::writeFileIfChanged(header, kSessionHeader)) {
    (options.diagnostics ? *options.diagnostics : llvm::errs())
        << "ksc: error: cannot write '" << header
        << "': " << llvm::toString(std::move(error)) << "\n";
    return false;
  }
  std::vector<std::string> args = clangArguments(options);
  args.insert(args.end(),
              {"-x", "c++-header", header, "-o", outputPath.str()});
  return runClang(std::move(args), std::make_unique<GeneratePCHAction>(),
                  llvm::vfs::getRealFileSystem(), options);
}

/// Fills in the rule of `options.dependencies`, or says on stderr which
/// file a Make rule cannot name (a line break) and returns false.
static bool dependencyRule(DependencyRecorder &dependencies,
                           const ksc::FrontendOptions &options) {
  for (const std::string &file : dependencies.getDependencies()) {
    // Clang's rule writer turns a backslash into '/': the rule would name
    // another file.
    const char *why = !ksc::canWriteMakePath(file) ? "has a line break"
                      : StringRef(file).contains('\\')
                          ? "has a backslash, which the rule would write as '/'"
                          : nullptr;
    if (why) {
      llvm::errs() << "ksc: error: -MD cannot write a Make rule with the "
                      "file '"
                   << ksc::escapeLineComment(file) << "': its name " << why
                   << "\n";
      return false;
    }
  }
  options.dependencies->rule = dependencies.rule();
  return true;
}

/// Runs Clang and the ModuleBuilder on `path`, read from `fileSystem`.
static FrontendResult
runFrontend(mlir::MLIRContext &context, StringRef path,
            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fileSystem,
            const ksc::FrontendOptions &options) {
  FrontendResult result;
  if (options.preludePch.empty() && findPrelude().empty())
    return result;
  std::optional<DependencyRecorder> dependencies;
  if (options.dependencies && !options.verifyDiagnostics)
    dependencies.emplace(*options.dependencies);
  bool ok = runClang(
      kdslArguments(options, path),
      std::make_unique<KdslAction>(context, result, options.emitWarp,
                                   dependencies ? &*dependencies : nullptr,
                                   options.filesRead),
      std::move(fileSystem), options);
  if (options.verifyDiagnostics) {
    result.success = ok;
    result.module = nullptr;
    return result;
  }
  result.success = ok && result.module;
  if (!result.success)
    result.module = nullptr;
  else if (dependencies && !dependencyRule(*dependencies, options))
    result = FrontendResult();
  return result;
}

/// The real file system with `source` as the file `name`, which shadows
/// any file of that name; the prelude and includes come from disk.
static llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
sourceOverlay(StringRef name, StringRef source) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  // Pushed first, so that it takes the working directory a relative `name`
  // is resolved in.
  overlay->pushOverlay(memory);
  memory->addFile(name, /*ModificationTime=*/0,
                  llvm::MemoryBuffer::getMemBufferCopy(source, name));
  return overlay;
}

FrontendResult ksc::importKdsl(mlir::MLIRContext &context, StringRef path,
                               const ksc::FrontendOptions &options) {
  return runFrontend(context, path, llvm::vfs::getRealFileSystem(), options);
}

FrontendResult ksc::importKdslSource(mlir::MLIRContext &context,
                                     StringRef name, StringRef source,
                                     const ksc::FrontendOptions &options) {
  return runFrontend(context, name, sourceOverlay(name, source), options);
}

namespace {
/// Records the functions the prelude declares in namespace ksc (not in
/// ksc::detail, not operators) with their numbers of parameters.
class PreludeFunctionCollector : public ASTConsumer {
public:
  explicit PreludeFunctionCollector(ksc::frontend::PreludeFunctions &functions)
      : functions(functions) {}

  void HandleTranslationUnit(ASTContext &ast) override {
    for (Decl *decl : ast.getTranslationUnitDecl()->decls()) {
      auto *ns = dyn_cast<NamespaceDecl>(decl);
      if (!ns || ns->getName() != "ksc")
        continue;
      for (Decl *member : ns->decls()) {
        const FunctionDecl *function = member->getAsFunction();
        if (function && function->getDeclName().isIdentifier())
          functions[function->getName()].insert(function->getNumParams());
      }
    }
  }

private:
  ksc::frontend::PreludeFunctions &functions;
};

class PreludeFunctionAction : public ASTFrontendAction {
public:
  explicit PreludeFunctionAction(ksc::frontend::PreludeFunctions &functions)
      : functions(functions) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<PreludeFunctionCollector>(functions);
  }

private:
  ksc::frontend::PreludeFunctions &functions;
};
} // namespace

bool ksc::frontend::collectPreludeFunctions(const ksc::FrontendOptions &options,
                                       PreludeFunctions &functions) {
  if (findPrelude().empty())
    return false;
  constexpr StringRef name = "prelude-functions.kdsl";
  ksc::FrontendOptions prelude = options;
  prelude.preludePch.clear();
  prelude.verifyDiagnostics = false;
  return runClang(kdslArguments(prelude, name),
                  std::make_unique<PreludeFunctionAction>(functions),
                  sourceOverlay(name, ""), prelude);
}

FrontendSession::FrontendSession(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
FrontendSession::~FrontendSession() = default;

std::unique_ptr<FrontendSession>
FrontendSession::create(const ksc::FrontendOptions &options,
                        StringRef pchPath) {
  if (!precompileSessionHeader(pchPath, options))
    return nullptr;
  ksc::FrontendOptions sessionOptions = options;
  sessionOptions.preludePch = pchPath.str();
  // Without colors: the diagnostics of import() go to a stream.
  llvm::raw_null_ostream quiet;
  if (!sessionOptions.diagnostics)
    sessionOptions.diagnostics = &quiet;
  std::vector<std::string> args = kdslArguments(sessionOptions, "input.kdsl");
  std::vector<const char *> argv;
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  DiagnosticOptions diagnosticOptions;
  TextDiagnosticPrinter printer(
      options.diagnostics ? *options.diagnostics : llvm::errs(),
      diagnosticOptions);
  CreateInvocationOptions createOptions;
  createOptions.Diags = CompilerInstance::createDiagnostics(
      *llvm::vfs::getRealFileSystem(), diagnosticOptions, &printer,
      /*ShouldOwnClient=*/false);
  std::unique_ptr<CompilerInvocation> invocation =
      createInvocation(argv, std::move(createOptions));
  if (!invocation)
    return nullptr;
  // The driver asks cc1 not to free the AST at exit; a session compiles
  // source after source.
  invocation->getFrontendOpts().DisableFree = false;
  auto impl = std::make_unique<Impl>();
  impl->invocation = std::move(invocation);
  return std::unique_ptr<FrontendSession>(new FrontendSession(std::move(impl)));
}

FrontendResult FrontendSession::import(mlir::MLIRContext &context,
                                       StringRef name, StringRef source,
                                       llvm::raw_ostream &diagnostics,
                                       bool emitWarp) const {
  auto invocation = std::make_shared<CompilerInvocation>(*impl->invocation);
  clang::FrontendOptions &frontend = invocation->getFrontendOpts();
  frontend.Inputs.clear();
  frontend.Inputs.emplace_back(name, InputKind(Language::CXX));
  // Owned by the preprocessor from here on.
  invocation->getPreprocessorOpts().addRemappedFile(
      name, llvm::MemoryBuffer::getMemBufferCopy(source, name).release());

  FrontendResult result;
  CompilerInstance compiler(invocation);
  compiler.setFileManager(llvm::makeIntrusiveRefCnt<FileManager>(
      FileSystemOptions(), llvm::vfs::getRealFileSystem()));
  TextDiagnosticPrinter printer(diagnostics, invocation->getDiagnosticOpts());
  compiler.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  // "N errors generated." too, which would go to standard error.
  compiler.setVerboseOutputStream(diagnostics);
  compiler.createSourceManager();
  KdslAction action(context, result, emitWarp);
  bool ok = compiler.ExecuteAction(action);
  result.success = ok && result.module;
  if (!result.success)
    result.module = nullptr;
  return result;
}
