//===- HostCompiler.cpp - Compile, cache, load and launch kernels -----===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Runner/Executor.h"
#include "ksc/Runner/Runner.h"
#include "ksc/Support/Paths.h"
#include "ksc/Target/Cpp/CppEmitter.h"

#include "ksc_runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

HostCompiler runner::getDefaultHostCompiler() {
  HostCompiler compiler;
  if (std::optional<std::string> cxx = sys::Process::GetEnv("KSC_CXX"))
    compiler.command = *cxx;
  else
    compiler.command = KSC_DEFAULT_HOST_CXX;

  SmallString<256> cache;
  if (std::optional<std::string> dir = sys::Process::GetEnv("KSC_CACHE_DIR")) {
    cache = *dir;
  } else if (std::optional<std::string> xdg =
                 sys::Process::GetEnv("XDG_CACHE_HOME")) {
    cache = *xdg;
    sys::path::append(cache, "ksc");
  } else if (sys::path::cache_directory(cache)) {
    sys::path::append(cache, "ksc");
  } else {
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, cache);
    sys::path::append(cache, "ksc-cache");
  }
  compiler.cacheDir = std::string(cache);
  compiler.runtimeDir = getRuntimeDir();
  // No fused multiply-adds: a * b + c rounds twice, as the kernel language
  // says (Clang contracts by default, GCC in its GNU modes).
  compiler.flags = {"-std=c++17", "-O2", "-ffp-contract=off", "-fPIC",
                    "-shared"};
  return compiler;
}

Expected<std::string>
runner::compileSharedLibrary(StringRef source, const HostCompiler &compiler) {
  std::string program = compiler.command;
  if (!StringRef(program).contains('/')) {
    ErrorOr<std::string> found = sys::findProgramByName(program);
    if (!found)
      return createStringError(inconvertibleErrorCode(),
                               "cannot find the host C++ compiler '%s' (set "
                               "KSC_CXX or --cxx)",
                               program.c_str());
    program = *found;
  }

  // The cache key covers everything that decides the library's contents.
  SHA256 hash;
  for (StringRef part : {StringRef(KSC_VERSION), StringRef(program),
                         getCpuRuntimeHeader(), source}) {
    hash.update(part);
    hash.update(StringRef("\0", 1));
  }
  for (const std::string &flag : compiler.flags) {
    hash.update(flag);
    hash.update(StringRef("\0", 1));
  }
  std::string key = toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);

  if (std::error_code ec = sys::fs::create_directories(compiler.cacheDir))
    return createStringError(ec, "cannot create the cache directory '%s': %s",
                             compiler.cacheDir.c_str(), ec.message().c_str());
  SmallString<256> library(compiler.cacheDir);
  sys::path::append(library, "ksc-" + key + ".so");
  if (sys::fs::exists(library))
    return std::string(library);

  // Compile under names of our own, then move the library into place, so
  // that concurrent runs never see a partial file.
  std::string unique = key + "-" + std::to_string(sys::Process::getProcessId());
  SmallString<256> sourcePath(compiler.cacheDir),
      tempLibrary(compiler.cacheDir), logPath(compiler.cacheDir);
  sys::path::append(sourcePath, "ksc-" + unique + ".cpp");
  sys::path::append(tempLibrary, "ksc-" + unique + ".so.tmp");
  sys::path::append(logPath, "ksc-" + unique + ".log");
  {
    std::error_code ec;
    raw_fd_ostream os(sourcePath, ec);
    if (ec)
      return createStringError(ec, "cannot write '%s': %s", sourcePath.c_str(),
                               ec.message().c_str());
    os << source;
  }

  std::vector<StringRef> args = {program};
  for (const std::string &flag : compiler.flags)
    args.push_back(flag);
  std::string include = "-I" + compiler.runtimeDir;
  args.push_back(include);
  args.push_back("-o");
  args.push_back(tempLibrary);
  args.push_back(sourcePath);
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string execError;
  int status =
      sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                          /*SecondsToWait=*/0, /*MemoryLimit=*/0, &execError);
  std::string log;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
          MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().str();
  sys::fs::remove(logPath);
  if (status != 0) {
    sys::fs::remove(tempLibrary);
    return createStringError(
        inconvertibleErrorCode(),
        "the host compiler failed on the generated C++ (kept in %s):\n%s%s",
        sourcePath.c_str(), execError.c_str(), log.c_str());
  }
  if (std::error_code ec = sys::fs::rename(tempLibrary, library))
    return createStringError(ec,
                             "cannot move the compiled kernel into the "
                             "cache: %s",
                             ec.message().c_str());
  // Keep the source next to the library for whoever wants to read it.
  SmallString<256> keptSource(compiler.cacheDir);
  sys::path::append(keptSource, "ksc-" + key + ".cpp");
  (void)sys::fs::rename(sourcePath, keptSource);
  return std::string(library);
}

Expected<Grid> runner::parseGrid(StringRef text) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ',');
  auto invalid = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "--dim=" + text + ": " + why);
  };
  if (parts.size() > 3)
    return invalid("a launch grid has 1 to 3 dimensions (N, N,M or N,M,K)");
  Grid grid = {1, 1, 1};
  for (auto [index, part] : llvm::enumerate(parts)) {
    int64_t extent;
    if (part.trim().getAsInteger(10, extent))
      return invalid("'" + part + "' is not an integer");
    if (extent < 0)
      return invalid("a launch has 0 or more threads along each dimension");
    if (extent > INT32_MAX)
      return invalid("a launch has at most 2147483647 threads");
    grid[index] = extent;
  }
  if (grid[0] && grid[1] && grid[2] &&
      (grid[1] > INT32_MAX / grid[2] ||
       grid[0] > INT32_MAX / (grid[1] * grid[2])))
    return invalid("a launch has at most 2147483647 threads");
  return grid;
}

Error runner::launch(StringRef library, StringRef kernel, const Grid &grid,
                     std::vector<Argument> &args) {
  std::string error;
  sys::DynamicLibrary lib =
      sys::DynamicLibrary::getPermanentLibrary(library.str().c_str(), &error);
  if (!lib.isValid())
    return createStringError(inconvertibleErrorCode(), "cannot load '%s': %s",
                             library.str().c_str(), error.c_str());
  std::string symbol = ("ksc_launch_" + kernel).str();
  using Entry = int (*)(const int64_t *, void *const *, char *, size_t);
  auto entry = reinterpret_cast<Entry>(lib.getAddressOfSymbol(symbol.c_str()));
  if (!entry)
    return createStringError(inconvertibleErrorCode(),
                             "'%s' has no entry point %s",
                             library.str().c_str(), symbol.c_str());

  std::vector<ksc_array_desc> descriptors(args.size());
  std::vector<void *> pointers;
  for (auto [arg, desc] : llvm::zip(args, descriptors)) {
    if (!arg.param.isArray) {
      pointers.push_back(arg.bytes.data());
      continue;
    }
    size_t elementSize = arg.param.type.size();
    desc.data = arg.bytes.data() + arg.offset * elementSize;
    desc.rank = arg.shape.size();
    int64_t stride = 1;
    for (int d = static_cast<int>(arg.shape.size()) - 1; d >= 0; --d) {
      desc.shape[d] = arg.shape[d];
      desc.strides[d] = arg.strides.empty() ? stride : arg.strides[d];
      stride *= arg.shape[d];
    }
    pointers.push_back(&desc);
  }
  char message[2048] = "";
  if (entry(grid.data(), pointers.data(), message, sizeof(message)) != 0)
    return createStringError(inconvertibleErrorCode(), "%s", message);
  return Error::success();
}

namespace {
/// Launches kernels from a shared library of the host compiler.
class CpuExecutor : public Executor {
public:
  CpuExecutor(std::string library, const Grid &grid)
      : library(std::move(library)), grid(grid) {}
  Error launch(StringRef kernel, std::vector<Argument> &args) override {
    return runner::launch(library, kernel, grid, args);
  }
  std::string describe() const override { return "cpu"; }

private:
  std::string library;
  Grid grid;
};
} // namespace

std::unique_ptr<Executor> runner::createCpuExecutor(std::string library,
                                                    const Grid &grid) {
  return std::make_unique<CpuExecutor>(std::move(library), grid);
}
