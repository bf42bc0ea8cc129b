//===- ToolOptions.h - Options ksc and ksc-run share ------------*- C++ -*-===//
//
// Part of ksc. The command-line options both tools take with the same
// meaning, defined and checked here once: -I and -D (how the kernel file
// is preprocessed), --precision (Driver.h, precisionOption), what the
// derivative kernels are taken with respect to (--wrt, --width) and how GPU
// code is generated and launched (--launch, --block-size, --tape-bytes,
// --gpu-arch, --cuda-path). Each tool says when they apply (which --target
// or --emit) and which --grad modes it offers.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_DRIVER_TOOLOPTIONS_H
#define KSC_DRIVER_TOOLOPTIONS_H

#include "ksc/Frontend/Frontend.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ksc {

/// -I DIR and -D NAME[=VALUE] in a tool's option category.
class SourceOptions {
public:
  explicit SourceOptions(llvm::cl::OptionCategory &category);

  /// The frontend options they give, or the error of an -I without a
  /// directory or a -D without a macro name.
  llvm::Expected<FrontendOptions> getFrontendOptions() const;

private:
  llvm::cl::list<std::string> includeDirs;
  llvm::cl::list<std::string> defines;
};

/// --wrt ARG,... and --width W: the arguments derivative kernels
/// differentiate with respect to, and the tangent directions of K_jvp.
class DerivativeOptions {
public:
  explicit DerivativeOptions(llvm::cl::OptionCategory &category);

  llvm::ArrayRef<std::string> getWrt() const { return wrt; }
  unsigned getWidth() const { return width; }
  bool hasWrt() const { return !wrt.empty(); }
  bool hasWidth() const { return width.getNumOccurrences() != 0; }

  /// The check of their values (a width of at least 1).
  llvm::Error validate() const;

private:
  llvm::cl::list<std::string> wrt;
  llvm::cl::opt<unsigned> width;
};

/// How GPU code is generated and launched: --launch, --block-size,
/// --tape-bytes, and --gpu-arch and --cuda-path for what goes through
/// LLVM's NVPTX backend (PTX and NVRTC).
class GpuCodeOptions {
public:
  /// `when` and `nvptxWhen` start their help texts (the tool's conditions,
  /// such as "With --target=cuda"); `archDefault` says what the tool does
  /// without --gpu-arch.
  GpuCodeOptions(llvm::cl::OptionCategory &category, llvm::StringRef when,
                 llvm::StringRef nvptxWhen, llvm::StringRef archDefault);

  /// --launch=grid-stride.
  bool isGridStride() const;
  /// --block-size, or 0 when not given.
  unsigned getBlockSize() const { return blockSize; }
  int64_t getTapeBytes() const { return tapeBytes; }
  /// --gpu-arch, or `fallback` when not given.
  std::string getArch(llvm::StringRef fallback) const;
  const std::string &getCudaPath() const { return cudaPath; }

  /// The options given on the command line, the NVPTX ones (--gpu-arch,
  /// --cuda-path) or the others, for the tool's "needs --target=cuda".
  llvm::SmallVector<const llvm::cl::Option *> givenLaunchOptions() const;
  llvm::SmallVector<const llvm::cl::Option *> givenNvptxOptions() const;
  /// The option --gpu-arch, for a tool's alias of it.
  llvm::cl::opt<std::string> &getArchOption() { return gpuArch; }

  /// The one check of their values: a block size of 1 to 1024, a tape of
  /// 8 to 524288 bytes, a GPU architecture NVPTX knows.
  llvm::Error validate() const;

private:
  std::string launchHelp, blockSizeHelp, tapeBytesHelp, archHelp,
      cudaPathHelp;
  enum class Launch { Guarded, GridStride };
  llvm::cl::opt<Launch> launch;
  llvm::cl::opt<unsigned> blockSize;
  llvm::cl::opt<int64_t> tapeBytes;
  llvm::cl::opt<std::string> gpuArch;
  llvm::cl::opt<std::string> cudaPath;
};

} // namespace ksc

#endif // KSC_DRIVER_TOOLOPTIONS_H
