//===- Frontend.h - From .kdsl source to the ks dialect -----*- C++ -*-===//
//
// Part of ksc. Parses a kernel file with Clang (C++17 plus the prelude
// include/ksc/dsl.h) and builds ks IR from the AST. Everything outside the
// kernel language is rejected with a Clang diagnostic (file:line:col, the
// source line and a caret) on standard error.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_FRONTEND_FRONTEND_H
#define KSC_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace ksc {

/// What `ksc -MD` asks of the frontend: a Make rule listing the files a
/// kernel file reads (itself and every file it includes, not the prelude
/// or Clang's headers), made by Clang's dependency-file machinery.
struct MakeDependencies {
  /// The rule's targets (`-MT`), at least one.
  std::vector<std::string> targets;
  /// Also a rule without prerequisites for each dependency other than the
  /// kernel file (`-MP`), so that Make does not fail when one is deleted.
  bool phonyTargets = false;
  /// Filled in by a successful compile: the rule, with the paths escaped
  /// the way Make and Ninja read them.
  std::string rule;
};

struct FrontendOptions {
  /// Extra `-I` directories for `#include "..."` of the user's own files.
  std::vector<std::string> includeDirs;
  /// `-D` macro definitions (`NAME` or `NAME=VALUE`).
  std::vector<std::string> defines;
  /// Check diagnostics against `// expected-error {{...}}` comments in the
  /// source (Clang's -verify) instead of printing them.
  bool verifyDiagnostics = false;
  /// Where Clang's diagnostics go; null: standard error (in color when it
  /// is a terminal).
  llvm::raw_ostream *diagnostics = nullptr;
  /// A precompiled header made by FrontendSession (with the same
  /// includeDirs and defines), read instead of parsing the prelude; empty:
  /// parse it.
  std::string preludePch;
  /// When set, importKdsl records the files the kernel file reads into it
  /// (not with verifyDiagnostics or FrontendSession).
  MakeDependencies *dependencies = nullptr;
  /// When set, importKdsl lists in it every file the compile opened: the
  /// kernel file, the files it includes and the prelude's headers (as
  /// opened, not resolved), so that a tool can refuse to write an output
  /// over one of them.
  std::vector<std::string> *filesRead = nullptr;
  /// Also print the kernel file as an NVIDIA Warp Python module
  /// (FrontendResult::warp; docs/warp.md).
  bool emitWarp = false;
};

struct FrontendResult {
  /// The ks module; null when the file has errors.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Without verifyDiagnostics: whether there were no errors. With it:
  /// whether the diagnostics matched the expectations.
  bool success = false;
  /// With emitWarp, after success: the kernel file as a Warp module, or
  /// empty with `warpError` saying ("file:line:col: error: ...") which
  /// construct of it Warp has no counterpart for.
  std::string warp, warpError;
};

/// Compiles the kernel file `path` ("-" for standard input) to ks IR.
FrontendResult importKdsl(mlir::MLIRContext &context, llvm::StringRef path,
                          const FrontendOptions &options);

/// Compiles kernel source held in memory, as if it were the file `name`
/// (which need not exist; diagnostics and locations use it). The result is
/// what importKdsl gives for a file `name` with the contents `source`.
FrontendResult importKdslSource(mlir::MLIRContext &context,
                                llvm::StringRef name, llvm::StringRef source,
                                const FrontendOptions &options);

/// Compiles many kernel sources in one process, several times faster than
/// importKdslSource and with the same results: Clang's command line is
/// processed once, and the prelude is read from a precompiled header made
/// once. import() may be called from several threads at once.
class FrontendSession {
public:
  /// Precompiles the prelude into `pchPath`, by way of the header
  /// `pchPath`.h (both for the caller to remove when done), for `options`
  /// (includeDirs, defines). Null after an error,
  /// reported on `options.diagnostics` or standard error.
  static std::unique_ptr<FrontendSession> create(const FrontendOptions &options,
                                                 llvm::StringRef pchPath);
  ~FrontendSession();

  /// Compiles `source` as the kernel file `name` (which need not exist),
  /// writing diagnostics to `diagnostics`; with `emitWarp`, also its Warp
  /// module (FrontendOptions::emitWarp).
  FrontendResult import(mlir::MLIRContext &context, llvm::StringRef name,
                        llvm::StringRef source, llvm::raw_ostream &diagnostics,
                        bool emitWarp = false) const;

private:
  friend class IncrementalFrontend;
  struct Impl;
  explicit FrontendSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Compiles source after source faster still than FrontendSession, with
/// the same results, by keeping one Clang instance and the prelude it has
/// read: each source is parsed as the next part of one incremental
/// translation unit, turned into ks IR, and its declarations are removed
/// again, so that the next source sees the prelude and nothing of the ones
/// before. A source that could leave more behind (one with preprocessor
/// directives, namespaces or using-directives) or that has errors goes
/// through `session.import` instead, so that its module and diagnostics
/// are exactly those of a fresh compilation. One per thread.
class IncrementalFrontend {
public:
  explicit IncrementalFrontend(const FrontendSession &session);
  ~IncrementalFrontend();

  /// As FrontendSession::import.
  FrontendResult import(mlir::MLIRContext &context, llvm::StringRef name,
                        llvm::StringRef source, llvm::raw_ostream &diagnostics,
                        bool emitWarp = false);

  /// How many sources went through session.import instead (for tests).
  unsigned fallbacks() const { return fallbackCount; }

private:
  struct Instance;
  const FrontendSession &session;
  std::unique_ptr<Instance> instance;
  unsigned parts = 0;
  unsigned fallbackCount = 0;
};

} // namespace ksc

#endif // KSC_FRONTEND_FRONTEND_H
