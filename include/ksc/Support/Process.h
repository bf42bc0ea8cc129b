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
/// with its standard output and error going to the file `logPath`, which
/// is read back and removed; with `noInput`, standard input is empty
/// instead of this process's.
ProgramResult runProgram(llvm::ArrayRef<llvm::StringRef> args,
                         llvm::StringRef logPath, bool noInput = false);

} // namespace ksc

#endif // KSC_SUPPORT_PROCESS_H
