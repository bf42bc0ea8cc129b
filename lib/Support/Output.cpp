//===- Output.cpp - Writing generated files ---------------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <unistd.h>

using namespace llvm;

bool ksc::sameFile(StringRef a, StringRef b) {
  bool equivalent = false;
  return a == b || (!sys::fs::equivalent(a, b, equivalent) && equivalent);
}

const std::string *ksc::findSameFile(StringRef path,
                                     ArrayRef<std::string> files) {
  if (path == "-")
    return nullptr;
  for (const std::string &file : files)
    if (sameFile(path, file))
      return &file;
  return nullptr;
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

namespace {
/// Where an output named by a path goes.
struct Destination {
  enum Kind { Stdout, Through, Create, Replace } kind;
  /// The file to write: a symbolic link's target, resolved.
  SmallString<256> path;
};
} // namespace

/// What writing `path` means: standard output; a file written through (a
/// FIFO, a device, the target of a link to nothing yet, which writing
/// through the link creates); or a regular file put in place whole.
static Expected<Destination> resolve(StringRef path) {
  if (path == "-")
    return Destination{Destination::Stdout, {}};
  Destination destination{Destination::Replace, path};
  sys::fs::file_status link;
  if (!sys::fs::status(path, link, /*Follow=*/false) &&
      link.type() == sys::fs::file_type::symlink_file) {
    SmallString<256> real;
    if (sys::fs::real_path(path, real))
      return Destination{Destination::Create, path};
    destination.path = real;
  }
  sys::fs::file_status status;
  if (!sys::fs::status(destination.path, status)) {
    switch (status.type()) {
    case sys::fs::file_type::regular_file:
      break;
    case sys::fs::file_type::directory_file:
      return errorCodeToError(
          std::make_error_code(std::errc::is_a_directory));
    default:
      destination.kind = Destination::Through;
    }
  }
  return destination;
}

/// The stream of a destination that is not replaced whole: standard
/// output, or the file opened for writing through it, which `owned` then
/// holds.
static Expected<raw_fd_ostream *>
openStream(const Destination &destination,
           std::unique_ptr<raw_fd_ostream> &owned) {
  if (destination.kind == Destination::Stdout)
    return &outs();
  std::error_code ec;
  owned = std::make_unique<raw_fd_ostream>(
      destination.path, ec,
      destination.kind == Destination::Create ? sys::fs::CD_CreateAlways
                                              : sys::fs::CD_OpenExisting,
      sys::fs::FA_Write, sys::fs::OF_None);
  if (ec)
    return errorCodeToError(ec);
  return owned.get();
}

Error ksc::writeFileIfChanged(StringRef path, StringRef contents) {
  Expected<Destination> destination = resolve(path);
  if (!destination)
    return destination.takeError();
  if (destination->kind != Destination::Replace) {
    std::unique_ptr<raw_fd_ostream> owned;
    Expected<raw_fd_ostream *> os = openStream(*destination, owned);
    if (!os)
      return os.takeError();
    return writeAll(**os, contents);
  }
  if (holds(destination->path, contents))
    return Error::success();
  // Not llvm::writeToOutput, which renames the temporary file into place
  // even when a write failed (a full disk) and then ends the process with
  // a fatal error: every write and the close are checked before the
  // rename, and a failure removes the temporary file.
  Expected<std::unique_ptr<StreamedOutput>> output =
      StreamedOutput::create(destination->path);
  if (!output)
    return output.takeError();
  (*output)->os() << contents;
  return (*output)->commit();
}

Expected<std::unique_ptr<ksc::StreamedOutput>>
ksc::StreamedOutput::create(StringRef path) {
  Expected<Destination> destination = resolve(path);
  if (!destination)
    return destination.takeError();
  std::unique_ptr<StreamedOutput> output(new StreamedOutput());
  output->destination = destination->path.str().str();
  if (destination->kind != Destination::Replace) {
    Expected<raw_fd_ostream *> os = openStream(*destination, output->owned);
    if (!os)
      return os.takeError();
    output->stream = *os;
    return std::move(output);
  }
  SmallString<256> temp;
  if (std::error_code ec = sys::fs::createUniqueFile(
          destination->path + ".partial-%%%%%%", output->fd, temp))
    return errorCodeToError(ec);
  output->temp = temp.str().str();
  sys::RemoveFileOnSignal(output->temp);
  output->owned =
      std::make_unique<raw_fd_ostream>(output->fd, /*shouldClose=*/true);
  output->stream = output->owned.get();
  return std::move(output);
}

Expected<std::unique_ptr<ksc::StreamedOutput>>
ksc::StreamedOutput::createResumable(StringRef path) {
  Expected<Destination> destination = resolve(path);
  if (!destination)
    return destination.takeError();
  if (destination->kind != Destination::Replace)
    return create(path);
  std::unique_ptr<StreamedOutput> output(new StreamedOutput());
  output->destination = destination->path.str().str();
  output->temp = (destination->path + ".partial").str();
  output->resumable = true;
  int fd;
  if (std::error_code ec = sys::fs::openFileForReadWrite(
          output->temp, fd, sys::fs::CD_OpenAlways, sys::fs::OF_None))
    return errorCodeToError(ec);
  if (sys::fs::tryLockFile(fd)) {
    sys::Process::SafelyCloseFileDescriptor(fd);
    return createStringError("another process is writing '" + output->temp +
                                 "'");
  }
  // raw_fd_ostream writes from the descriptor's position.
  if (::lseek(fd, 0, SEEK_END) < 0) {
    std::error_code ec(errno, std::generic_category());
    sys::Process::SafelyCloseFileDescriptor(fd);
    return errorCodeToError(ec);
  }
  output->fd = fd;
  output->owned = std::make_unique<raw_fd_ostream>(fd, /*shouldClose=*/true);
  output->stream = output->owned.get();
  return std::move(output);
}

ksc::StreamedOutput::~StreamedOutput() {
  // An error of the stream was reported by flush() or commit(), or the
  // output is abandoned: never raw_fd_ostream's fatal error at its end.
  if (stream) {
    stream->flush();
    stream->clear_error();
  }
  // A resumable output keeps what it holds for a later run; an empty one
  // (a run that stopped before its first record) holds nothing to keep.
  bool empty = resumable && owned && !closed && owned->tell() == 0;
  if (owned && !closed) {
    owned->close();
    owned->clear_error();
  }
  if (resumable) {
    if (empty)
      sys::fs::remove(temp);
    return;
  }
  if (!temp.empty() && !committed) {
    sys::fs::remove(temp);
    sys::DontRemoveFileOnSignal(temp);
  }
}

Expected<uint64_t> ksc::StreamedOutput::flush() {
  if (Error error = writeAll(*stream, ""))
    return std::move(error);
  return stream->tell();
}

Error ksc::StreamedOutput::truncate(uint64_t size) {
  if (Error error = writeAll(*stream, ""))
    return error;
  if (fd < 0)
    return createStringError("the output is written through");
  if (std::error_code ec = sys::fs::resize_file(fd, size))
    return errorCodeToError(ec);
  stream->seek(size);
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> ksc::StreamedOutput::readPartial() {
  Expected<uint64_t> size = flush();
  if (!size)
    return size.takeError();
  if (fd < 0)
    return MemoryBuffer::getMemBuffer("", "", /*RequiresNullTerminator=*/false);
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getOpenFileSlice(sys::fs::convertFDToNativeFile(fd), temp,
                                     *size, /*Offset=*/0);
  if (!buffer)
    return errorCodeToError(buffer.getError());
  return std::move(*buffer);
}

Error ksc::StreamedOutput::commit() {
  if (Error error = writeAll(*stream, ""))
    return error;
  if (owned) {
    // Closed first: closing reports the last write errors.
    owned->close();
    closed = true;
    if (owned->has_error()) {
      std::error_code error = owned->error();
      owned->clear_error();
      return errorCodeToError(error);
    }
  }
  if (!temp.empty()) {
    if (std::error_code ec = sys::fs::rename(temp, destination))
      return errorCodeToError(ec);
    sys::DontRemoveFileOnSignal(temp);
  }
  committed = true;
  return Error::success();
}
