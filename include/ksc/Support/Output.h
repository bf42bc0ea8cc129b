//===- Output.h - Writing generated files -------------------*- C++ -*-===//
//
// Part of ksc. How the tools write the files a build depends on.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_OUTPUT_H
#define KSC_SUPPORT_OUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace ksc {

/// Whether `a` and `b` name the same file: the same path, or two paths
/// (through links, `..`, hard links) of one existing file. The tools refuse
/// an output that is one of their inputs (`ksc k.kdsl -o k.kdsl`).
bool sameFile(llvm::StringRef a, llvm::StringRef b);

/// The first of `files` that is the same file as the output `path`
/// (sameFile), or null; null for standard output ("-"). The tools refuse
/// an output onto a file the compile read (the kernel's includes).
const std::string *findSameFile(llvm::StringRef path,
                                llvm::ArrayRef<std::string> files);

/// Writes `contents` to `path` the way a compiler writes its outputs:
///  - `-`: standard output;
///  - a FIFO, a character or block device or a socket (`/dev/stdout`,
///    `/dev/null`, a pipe made with `mkfifo`): written through, as a
///    stream; it is never replaced;
///  - a symbolic link: the file it points to is written, as below, and the
///    link stays;
///  - a regular file, or a path where nothing is yet: through a temporary
///    file in the same directory renamed into place, so that a failure
///    never leaves a partial file; and not at all when it already holds
///    exactly `contents`, so that its timestamp stays and build systems that
///    check it (Ninja's `restat`, which CMake sets on custom commands) skip
///    what depends on it.
/// A directory is an error.
llvm::Error writeFileIfChanged(llvm::StringRef path, llvm::StringRef contents);

/// An output written as a stream, for one too large to hold in memory
/// (ksc-synth's datasets), put where it goes as writeFileIfChanged puts
/// its output (standard output, written through a FIFO or a device, a
/// symbolic link's target): a regular file is written into a temporary
/// file next to it (`NAME.partial-XXXXXX`, removed if the process is
/// interrupted) that commit() renames into place, so that an interrupted
/// or failed run leaves the previous file, or none, never part of one.
///
/// A resumable output (createResumable) is written instead into
/// `NAME.partial`, a fixed name, which is kept when the process is
/// interrupted or fails, so that a later run can continue it: opened as it
/// is, positioned at its end, and locked (an advisory lock) while it is
/// written, so that a second process writing the same output is an error
/// rather than a mixed file.
class StreamedOutput {
public:
  static llvm::Expected<std::unique_ptr<StreamedOutput>>
  create(llvm::StringRef path);
  static llvm::Expected<std::unique_ptr<StreamedOutput>>
  createResumable(llvm::StringRef path);
  /// Removes the temporary file unless committed, or resumable and not
  /// empty.
  ~StreamedOutput();

  llvm::raw_ostream &os() { return *stream; }
  /// The file the output is put in place as (a symbolic link resolved);
  /// empty for standard output.
  llvm::StringRef path() const { return destination; }
  /// The file being written until commit(): the temporary file; empty
  /// when the output is written through.
  llvm::StringRef partialPath() const { return temp; }
  /// Flushes the stream; the length of the file written so far, or the
  /// stream's error.
  llvm::Expected<uint64_t> flush();
  /// Cuts the partial file to its first `size` bytes and goes on writing
  /// after them.
  llvm::Error truncate(uint64_t size);
  /// The partial file's contents as they are now (flushed); empty for an
  /// output written through. Read through the locked descriptor: an
  /// advisory lock is released when the process closes any descriptor of
  /// the file.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readPartial();
  /// Flushes the stream and puts the file in place; an error of the
  /// stream or of the renaming.
  llvm::Error commit();

private:
  StreamedOutput() = default;
  std::string destination, temp;
  std::unique_ptr<llvm::raw_fd_ostream> owned;
  llvm::raw_fd_ostream *stream = nullptr;
  int fd = -1;
  bool resumable = false;
  bool closed = false;
  bool committed = false;
};

} // namespace ksc

#endif // KSC_SUPPORT_OUTPUT_H
