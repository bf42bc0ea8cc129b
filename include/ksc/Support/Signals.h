//===- Signals.h - Signals a tool was started with ignored --*- C++ -*-===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_SIGNALS_H
#define KSC_SUPPORT_SIGNALS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

namespace ksc {

/// The interrupt signals (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR2) that
/// the process started with ignored: under `nohup`, or as a background job
/// of a shell script. LLVM's InitLLVM installs handlers for them that
/// remove the files being written and then re-raise the signal, which an
/// ignored signal does not stop: the tool went on without its output. A
/// tool records them before InitLLVM and ignores them again after (ToolInit
/// below), so that such a signal is ignored and the run completes; the
/// others stop it, leaving no partial output.
class IgnoredSignals {
public:
  IgnoredSignals();
  /// Ignores the recorded signals again.
  void restore() const;

private:
  static constexpr int kMaxSignals = 8;
  int signals[kMaxSignals];
  int count = 0;
};

/// Makes running out of memory (an allocation that fails: a machine or a
/// `ulimit -v` too small for the data) end the process with
/// `TOOL: error: out of memory` on stderr and exit status 1, instead of
/// LLVM's "LLVM ERROR: out of memory" and crash report (abort, status
/// 134). `tool` is the name the message starts with.
void reportOutOfMemoryAs(llvm::StringRef tool);

/// What a ksc tool's main starts with instead of llvm::InitLLVM: InitLLVM,
/// with the signals the process started with ignored still ignored, and
/// running out of memory reported (reportOutOfMemoryAs).
///
///   int main(int argc, char **argv) {
///     ksc::ToolInit init(argc, argv);
class ToolInit {
public:
  ToolInit(int &argc, char **&argv) : init(argc, argv) {
    ignored.restore();
    reportOutOfMemoryAs(argc ? llvm::sys::path::filename(argv[0]) : "ksc");
  }

private:
  IgnoredSignals ignored; // recorded before `init` installs its handlers
  llvm::InitLLVM init;
};

} // namespace ksc

#endif // KSC_SUPPORT_SIGNALS_H
