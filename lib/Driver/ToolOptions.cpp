//===- ToolOptions.cpp - Options ksc and ksc-run share ------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Driver/ToolOptions.h"

#include "ksc/Driver/Driver.h"
#include "ksc/Target/PTX/PtxEmitter.h"

using namespace llvm;
using namespace ksc;

SourceOptions::SourceOptions(cl::OptionCategory &category)
    : includeDirs("I", cl::Prefix,
                  cl::desc("Add a directory to search for #include \"...\""),
                  cl::value_desc("dir"), cl::cat(category)),
      defines("D", cl::Prefix,
              cl::desc("Define a macro (NAME or NAME=VALUE)"),
              cl::value_desc("macro"), cl::cat(category)) {}

Expected<FrontendOptions> SourceOptions::getFrontendOptions() const {
  for (const std::string &dir : includeDirs)
    if (dir.empty())
      return createStringError("-I needs a directory");
  for (const std::string &define : defines)
    if (define.empty() || define[0] == '=')
      return createStringError("-D needs a macro name (NAME or NAME=VALUE)");
  FrontendOptions options;
  options.includeDirs.assign(includeDirs.begin(), includeDirs.end());
  options.defines.assign(defines.begin(), defines.end());
  return options;
}

/// The name of the option that selects the GPU architecture in both tools.
static constexpr StringLiteral kGpuArchOption = "gpu-arch";

/// An error unless `arch` is a GPU architecture LLVM's NVPTX backend knows
/// (sm_XX or sm_XXa).
static Error checkGpuArch(StringRef arch) {
  if (isKnownCudaArch(arch))
    return Error::success();
  return createStringError(
      "unknown GPU architecture '" + arch + "' for --" + kGpuArchOption +
      " (expected sm_XX or sm_XXa, such as sm_80, sm_90 or sm_90a)");
}

DerivativeOptions::DerivativeOptions(cl::OptionCategory &category)
    : wrt("wrt",
          cl::desc("Differentiate with respect to these kernel arguments "
                   "only (default: every float argument)"),
          cl::CommaSeparated, cl::value_desc("arg,..."), cl::cat(category)),
      width("width",
            cl::desc("The number of tangent directions K_jvp propagates in "
                     "one launch (default 1)"),
            cl::value_desc("W"), cl::init(1), cl::cat(category)) {}

Error DerivativeOptions::validate() const {
  if (width == 0)
    return createStringError("--width must be at least 1");
  return Error::success();
}

GpuCodeOptions::GpuCodeOptions(cl::OptionCategory &category, StringRef when,
                               StringRef nvptxWhen, StringRef archDefault)
    : launchHelp((when + ": how GPU threads cover the launch grid").str()),
      blockSizeHelp((when + ": GPU threads per block, 1 to 1024 (default "
                            "256); when given, also the kernels' "
                            "__launch_bounds__")
                        .str()),
      tapeBytesHelp((when + ": the capacity of each GPU thread's tape, 8 to "
                            "524288 bytes, for adjoint kernels whose loops "
                            "keep values on it (default 4096, in the "
                            "thread's local memory)")
                        .str()),
      archHelp((nvptxWhen + ": the GPU architecture (sm_80, sm_90, sm_90a, "
                            "... any the NVPTX backend knows; default: " +
                archDefault + ")")
                   .str()),
      cudaPathHelp((nvptxWhen + ": the CUDA toolkit whose libdevice (and, "
                                "in ksc-run, NVRTC) is used (default: "
                                "$CUDA_HOME, else /usr/local/cuda)")
                       .str()),
      launch("launch", cl::desc(launchHelp),
             cl::values(clEnumValN(Launch::Guarded, "guarded",
                                   "one GPU thread per thread of the grid, "
                                   "the extra ones of the last block idle "
                                   "(default)"),
                        clEnumValN(Launch::GridStride, "grid-stride",
                                   "at most 65535 blocks, each GPU thread "
                                   "running every gridDim.x * blockDim.x-th "
                                   "thread")),
             cl::init(Launch::Guarded), cl::cat(category)),
      blockSize("block-size", cl::desc(blockSizeHelp), cl::value_desc("N"),
                cl::init(0), cl::cat(category)),
      tapeBytes("tape-bytes", cl::desc(tapeBytesHelp), cl::value_desc("N"),
                cl::init(kDefaultTapeBytes), cl::cat(category)),
      gpuArch(StringRef(kGpuArchOption), cl::desc(archHelp),
              cl::value_desc("sm_XX"), cl::cat(category)),
      cudaPath("cuda-path", cl::desc(cudaPathHelp), cl::value_desc("dir"),
               cl::cat(category)) {}

bool GpuCodeOptions::isGridStride() const {
  return launch == Launch::GridStride;
}

std::string GpuCodeOptions::getArch(StringRef fallback) const {
  return gpuArch.empty() ? fallback.str() : gpuArch.getValue();
}

SmallVector<const cl::Option *> GpuCodeOptions::givenLaunchOptions() const {
  SmallVector<const cl::Option *> given;
  for (const cl::Option *option :
       {(const cl::Option *)&launch, (const cl::Option *)&blockSize,
        (const cl::Option *)&tapeBytes})
    if (option->getNumOccurrences())
      given.push_back(option);
  return given;
}

SmallVector<const cl::Option *> GpuCodeOptions::givenNvptxOptions() const {
  SmallVector<const cl::Option *> given;
  for (const cl::Option *option :
       {(const cl::Option *)&gpuArch, (const cl::Option *)&cudaPath})
    if (option->getNumOccurrences())
      given.push_back(option);
  return given;
}

Error GpuCodeOptions::validate() const {
  if (blockSize.getNumOccurrences() && (blockSize < 1 || blockSize > 1024))
    return createStringError("--block-size must be between 1 and 1024 "
                             "(CUDA's limit of threads per block)");
  if (tapeBytes < 8 || tapeBytes > 512 * 1024)
    return createStringError("--tape-bytes must be between 8 and 524288 "
                             "(CUDA's limit of local memory per thread)");
  if (gpuArch.getNumOccurrences())
    return checkGpuArch(gpuArch);
  return Error::success();
}
