//===- Output.cpp - Writing generated files ---------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

bool ksc::sameFile(StringRef a, StringRef b) {
  bool equivalent = false;
  return a == b || (!sys::fs::equivalent(a, b, equivalent) && equivalent);
}

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

/// Writes `contents` to `os` and flushes it; its error, if any (cleared,
/// so that the stream does not abort the program for it later).
static Error writeAll(raw_fd_ostream &os, StringRef contents) {
  os << contents;
  os.flush();
  if (!os.has_error())
    return Error::success();
  std::error_code error = os.error();
  os.clear_error();
  return errorCodeToError(error);
}

/// Writes `contents` into the file at `path` through the file itself,
/// replacing nothing (a FIFO, a device); `create`: creating it if there is
/// none (the target of a symbolic link to nothing yet).
static Error writeThrough(StringRef path, StringRef contents,
                          bool create = false) {
  std::error_code ec;
  raw_fd_ostream os(path, ec,
                    create ? sys::fs::CD_CreateAlways
                           : sys::fs::CD_OpenExisting,
                    sys::fs::FA_Write, sys::fs::OF_None);
  if (ec)
    return errorCodeToError(ec);
  return writeAll(os, contents);
}

Error ksc::writeFileIfChanged(StringRef path, StringRef contents) {
  if (path == "-")
    return writeAll(outs(), contents);
  // What the path names, its symbolic links followed: a link is kept and
  // the file it points to replaced (a link to nothing yet is written
  // through, which creates its target).
  SmallString<256> target(path);
  sys::fs::file_status link;
  if (!sys::fs::status(path, link, /*Follow=*/false) &&
      link.type() == sys::fs::file_type::symlink_file) {
    SmallString<256> real;
    if (sys::fs::real_path(path, real))
      return writeThrough(path, contents, /*create=*/true);
    target = real;
  }
  sys::fs::file_status status;
  if (!sys::fs::status(target, status)) {
    switch (status.type()) {
    case sys::fs::file_type::regular_file:
      break;
    case sys::fs::file_type::directory_file:
      return errorCodeToError(
          std::make_error_code(std::errc::is_a_directory));
    default:
      return writeThrough(target, contents);
    }
  }
  if (holds(target, contents))
    return Error::success();
  return writeToOutput(target, [&](raw_ostream &os) {
    os << contents;
    return Error::success();
  });
}
