//===- Process.h - Running a program for its output ------------*- C++ -*-===//
//
// Part of ksc. The one way ksc's libraries run another program (the host
// C++ compiler, nvcc, ptxas) and read what it printed.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_PROCESS_H
#define KSC_SUPPORT_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ksc {

struct ProgramResult {
  /// The exit status; negative when the program could not be run or
  /// crashed (LLVM's sys::ExecuteAndWait).
  int status = -1;
  /// What it wrote to standard output and standard error, interleaved.
  std::string output;
  /// Why it could not be run or did not finish; empty otherwise.
  std::string error;

  bool succeeded() const { return status == 0; }
};

/// Runs `args` (the program first, a path or found on PATH by the caller)
/// with its standard input empty and its standard output and error going
/// to the file `logPath`, which is read back and removed.
///
/// The program runs in a process group of its own, so that it outlives
/// no tool: a signal that ends the tool (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGUSR2; not one the tool ignores) is forwarded to the groups of the
/// programs running then, and the tool ends as the signal says (LLVM's handler: the files registered
/// with sys::RemoveFileOnSignal removed). A compiler's own children
/// (cc1plus, as, ld) end with it. The program reads no terminal: a
/// process group of its own is not the terminal's foreground one.
ProgramResult runProgram(llvm::ArrayRef<llvm::StringRef> args,
                         llvm::StringRef logPath);
} // namespace ksc

#endif // KSC_SUPPORT_PROCESS_H
