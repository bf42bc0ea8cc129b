//===- Process.cpp - Running a program for its output -------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace llvm;

ksc::ProgramResult ksc::runProgram(ArrayRef<StringRef> args,
                                   StringRef logPath, bool noInput) {
  std::optional<StringRef> redirects[] = {
      noInput ? std::optional<StringRef>(StringRef("")) : std::nullopt,
      logPath, logPath};
  ProgramResult result;
  result.status = sys::ExecuteAndWait(args[0], args, std::nullopt, redirects,
                                      /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                      &result.error);
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
          MemoryBuffer::getFile(logPath))
    result.output = (*buffer)->getBuffer().str();
  sys::fs::remove(logPath);
  return result;
}
