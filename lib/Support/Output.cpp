//===- Output.cpp - Writing generated files ---------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

/// Whether `path` is a regular file holding exactly `contents`.
static bool holds(StringRef path, StringRef contents) {
  sys::fs::file_status status;
  if (sys::fs::status(path, status) ||
      status.type() != sys::fs::file_type::regular_file ||
      status.getSize() != contents.size())
    return false;
  ErrorOr<std::unique_ptr<MemoryBuffer>> existing =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  return existing && (*existing)->getBuffer() == contents;
}

Error ksc::writeFileIfChanged(StringRef path, StringRef contents) {
  if (path != "-" && holds(path, contents))
    return Error::success();
  return writeToOutput(path, [&](raw_ostream &os) {
    os << contents;
    return Error::success();
  });
}
