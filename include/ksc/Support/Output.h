//===- Output.h - Writing generated files -------------------*- C++ -*-===//
//
// Part of ksc. How the tools write the files a build depends on.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_SUPPORT_OUTPUT_H
#define KSC_SUPPORT_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace ksc {

/// Whether `a` and `b` name the same file: the same path, or two paths
/// (through links, `..`, hard links) of one existing file. The tools refuse
/// an output that is one of their inputs (`ksc k.kdsl -o k.kdsl`).
bool sameFile(llvm::StringRef a, llvm::StringRef b);

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
class StreamedOutput {
public:
  static llvm::Expected<std::unique_ptr<StreamedOutput>>
  create(llvm::StringRef path);
  /// Removes the temporary file unless committed.
  ~StreamedOutput();

  llvm::raw_ostream &os() { return *stream; }
  /// Flushes the stream and puts the file in place; an error of the
  /// stream or of the renaming.
  llvm::Error commit();

private:
  StreamedOutput() = default;
  std::string path, temp;
  std::unique_ptr<llvm::raw_fd_ostream> owned;
  llvm::raw_fd_ostream *stream = nullptr;
  bool committed = false;
};

} // namespace ksc

#endif // KSC_SUPPORT_OUTPUT_H
