//===- HostCompiler.cpp - Compile, cache, load and launch kernels -----===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Runner/Executor.h"
#include "ksc/Runner/Runner.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Paths.h"
#include "ksc/Support/Process.h"
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
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"

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

namespace {
/// A key (32 hex digits) of what decides the contents of a file the host
/// compiler makes: this ksc, the compiler, its runtime header, then
/// `parts`, `flags` and `moreFlags`.
std::string cacheKey(StringRef program, ArrayRef<std::string> flags,
                     ArrayRef<StringRef> parts,
                     ArrayRef<std::string> moreFlags = {}) {
  SHA256 hash;
  auto add = [&](StringRef part) {
    hash.update(part);
    hash.update(StringRef("\0", 1));
  };
  for (StringRef part : {StringRef(KSC_VERSION), program,
                         getCpuRuntimeHeader()})
    add(part);
  for (StringRef part : parts)
    add(part);
  for (const std::string &flag : llvm::concat<const std::string>(flags,
                                                                 moreFlags))
    add(flag);
  return toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);
}

/// Runs `args` (the program first) with its output in `logPath`; returns
/// whether it succeeded and, in `log`, why it could not run and its output.
bool runLogged(ArrayRef<StringRef> args, StringRef logPath, std::string &log) {
  ProgramResult result = runProgram(args, logPath);
  log = result.error + result.output;
  return result.succeeded();
}

/// Files removed if a signal ends the process while they exist
/// (sys::RemoveFileOnSignal), until this goes out of scope; the caller
/// removes or keeps them after that.
class TemporaryFiles {
public:
  TemporaryFiles(std::initializer_list<StringRef> paths)
      : paths(paths.begin(), paths.end()) {
    for (const std::string &path : this->paths)
      sys::RemoveFileOnSignal(path);
  }
  ~TemporaryFiles() {
    for (const std::string &path : paths)
      sys::DontRemoveFileOnSignal(path);
  }
private:
  std::vector<std::string> paths;
};

/// What the cache records of its file `path` (FILE.sum next to it): its
/// size and, `hashed`, the SHA-256 of its contents; empty when it cannot
/// be read. (A precompiled header, some 30 MB, is recorded by its size.)
std::string describeCacheFile(StringRef path, bool hashed) {
  uint64_t size;
  if (sys::fs::file_size(path, size))
    return "";
  std::string record = "size " + std::to_string(size);
  if (!hashed)
    return record;
  ErrorOr<std::unique_ptr<MemoryBuffer>> contents = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!contents)
    return "";
  return record + " sha256 " + toHex(SHA256::hash(arrayRefFromStringRef(
                                         (*contents)->getBuffer())),
                                     /*LowerCase=*/true);
}

/// Moves the file `temp` into the cache as `path`, after its record: a
/// process that sees the file sees its record. An error of the record's
/// writing or of the move.
std::error_code putInCache(StringRef temp, StringRef path, bool hashed) {
  std::string record = describeCacheFile(temp, hashed);
  if (record.empty())
    return std::make_error_code(std::errc::io_error);
  if (Error error = writeFileIfChanged((path + ".sum").str(), record + "\n"))
    return errorToErrorCode(std::move(error));
  return sys::fs::rename(temp, path);
}

/// Whether the cache has `path` as it was written (its record says so);
/// one that is not (cut short by a full disk, written over) is removed
/// with a warning, for the caller to make again: a library cut short
/// crashes the process that loads it (SIGBUS). One without a record (from
/// a ksc before records) is made again without a warning.
bool isIntactInCache(StringRef path, bool hashed, StringRef what) {
  if (!sys::fs::exists(path))
    return false;
  ErrorOr<std::unique_ptr<MemoryBuffer>> record =
      MemoryBuffer::getFile(path + ".sum");
  if (record && (*record)->getBuffer().rtrim() ==
                    describeCacheFile(path, hashed))
    return true;
  if (record)
    WithColor::warning(errs())
        << "the cached " << what << " '" << path
        << "' is damaged (not the size and contents it was written with); "
           "making it again\n";
  sys::fs::remove(path);
  sys::fs::remove(path + ".sum");
  return false;
}

/// The compilers whose precompiled headers ksc-run knows how to use.
enum class CompilerFamily { Gcc, Clang, Other };

CompilerFamily identifyCompiler(StringRef program, StringRef logPath) {
  std::string version;
  if (!runLogged({program, "--version"}, logPath, version))
    return CompilerFamily::Other;
  if (StringRef(version).contains("clang version"))
    return CompilerFamily::Clang;
  if (StringRef(version).contains("Free Software Foundation"))
    return CompilerFamily::Gcc;
  return CompilerFamily::Other;
}

/// The `#define NAME VALUE` lines the emitted `source` has before it
/// includes the runtime header, as -D flags; none when it has anything
/// else there.
std::optional<std::vector<std::string>> prologueDefines(StringRef source) {
  std::vector<std::string> defines;
  while (!source.empty()) {
    auto [line, rest] = source.split('\n');
    source = rest;
    line = line.trim();
    if (line.empty() || line.starts_with("//"))
      continue;
    if (line == "#include \"ksc_runtime.h\"")
      return defines;
    if (!line.consume_front("#define "))
      return std::nullopt;
    auto [name, value] = line.split(' ');
    defines.push_back(("-D" + name + "=" + value.trim()).str());
  }
  return std::nullopt;
}

/// A precompiled runtime header in the cache: the flags that use it
/// (none without one) and the file that says it is not to be used.
struct PrecompiledHeader {
  std::vector<std::string> flags;
  std::string file, failed;
  /// Why the header could not be made (the compiler's log); recorded in
  /// `failed` only once a kernel has compiled without it, so that a
  /// failure of the machine's rather than the header's (a full disk, a
  /// killed compiler) does not disable the header for good.
  std::string notMade;

  /// Records why the header is not to be used, and removes it.
  void discard(StringRef why) const {
    // Without the file (a full disk) the header is tried again next time.
    consumeError(writeFileIfChanged(failed, why));
    if (!file.empty()) {
      sys::fs::remove(file);
      sys::fs::remove(file + ".sum");
    }
  }
};

/// The precompiled runtime header for compiling `source` with `program`
/// and `compileFlags`, made once per compiler, flags and prologue in the
/// cache (ksc-pch-KEY/; `unique` names this process's temporary files):
/// the header is most of what a small kernel's compilation parses. None
/// when the compiler is neither GCC nor Clang or cannot make one; the
/// kernel then compiles without.
PrecompiledHeader precompiledHeader(StringRef program,
                                    ArrayRef<std::string> compileFlags,
                                    StringRef source,
                                    const HostCompiler &compiler,
                                    StringRef unique) {
  std::optional<std::vector<std::string>> defines = prologueDefines(source);
  if (!defines)
    return {};
  // The flags that decide the header's contents: not those that say what
  // to make of the source.
  std::vector<std::string> flags;
  for (const std::string &flag : compileFlags)
    if (flag != "-shared" && flag != "-fsyntax-only" && flag != "-c")
      flags.push_back(flag);
  SmallString<256> dir(compiler.cacheDir);
  sys::path::append(dir, "ksc-pch-" +
                             cacheKey(program, flags, {"pch"}, *defines));
  SmallString<256> gch(dir), pch(dir), failed(dir);
  sys::path::append(gch, "ksc_runtime.h.gch");
  sys::path::append(pch, "ksc_runtime.h.pch");
  sys::path::append(failed, "failed");
  // GCC looks for HEADER.gch in each include directory before HEADER;
  // Clang is given its file.
  PrecompiledHeader result;
  result.failed = std::string(failed);
  auto use = [&](bool gcc) {
    result.flags = *defines;
    if (gcc)
      result.flags.push_back(("-I" + dir).str());
    else
      result.flags.insert(result.flags.end(),
                          {"-include-pch", std::string(pch)});
    result.file = std::string(gcc ? gch : pch);
    return result;
  };
  if (isIntactInCache(gch, /*hashed=*/false, "precompiled header"))
    return use(true);
  if (isIntactInCache(pch, /*hashed=*/false, "precompiled header"))
    return use(false);
  if (sys::fs::exists(failed) || sys::fs::create_directories(dir))
    return result;

  SmallString<256> logPath(dir);
  sys::path::append(logPath, unique + ".log");
  CompilerFamily family = identifyCompiler(program, logPath);
  bool gcc = family == CompilerFamily::Gcc;
  std::string log = "not GCC or Clang";
  if (family != CompilerFamily::Other) {
    // Made under a name of our own, then moved into place: concurrent runs
    // never see a partial file.
    std::string temp = ((gcc ? gch : pch) + "." + unique + ".tmp").str();
    TemporaryFiles temporaries({temp, logPath});
    SmallString<256> header(compiler.runtimeDir);
    sys::path::append(header, "ksc_runtime.h");
    std::vector<StringRef> args = {program};
    for (const std::string &flag : flags)
      args.push_back(flag);
    for (const std::string &define : *defines)
      args.push_back(define);
    // The key has the header's contents: Clang need not check its time.
    if (!gcc)
      args.insert(args.end(), {"-Xclang", "-fno-pch-timestamp"});
    args.insert(args.end(), {"-x", "c++-header", header, "-o", temp});
    if (runLogged(args, logPath, log) &&
        !putInCache(temp, gcc ? gch : pch, /*hashed=*/false))
      return use(gcc);
    sys::fs::remove(temp);
  }
  // Not tried again once a kernel of this compiler compiles without.
  result.notMade = log;
  return result;
}
} // namespace

bool runner::runHostCompiler(StringRef program, ArrayRef<std::string> flags,
                             StringRef source, ArrayRef<StringRef> args,
                             const HostCompiler &compiler, StringRef logPath,
                             std::string &log) {
  std::string include = "-I" + compiler.runtimeDir;
  auto compile = [&](ArrayRef<std::string> pchFlags, std::string &log) {
    std::vector<StringRef> argv = {program};
    for (const std::string &flag : llvm::concat<const std::string>(flags,
                                                                   pchFlags))
      argv.push_back(flag);
    argv.push_back(include);
    argv.insert(argv.end(), args.begin(), args.end());
    return runLogged(argv, logPath, log);
  };
  PrecompiledHeader pch = precompiledHeader(
      program, flags, source, compiler, sys::path::stem(logPath));
  if (compile(pch.flags, log)) {
    if (!pch.notMade.empty())
      pch.discard(pch.notMade);
    return true;
  }
  if (pch.flags.empty())
    return false;
  // A precompiled header never fails a compilation that succeeds without;
  // one that fails without too reports its own errors.
  std::string plainLog;
  if (!compile({}, plainLog)) {
    log = plainLog;
    return false;
  }
  pch.discard(log);
  return true;
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
  std::string key = cacheKey(program, compiler.flags, {source});

  if (std::error_code ec = sys::fs::create_directories(compiler.cacheDir))
    return createStringError(ec, "cannot create the cache directory '%s': %s",
                             compiler.cacheDir.c_str(), ec.message().c_str());
  SmallString<256> library(compiler.cacheDir);
  sys::path::append(library, "ksc-" + key + ".so");
  if (isIntactInCache(library, /*hashed=*/true, "compiled kernel")) {
    // Libraries are moved into the cache whole and checked against their
    // record, but one can still fail to load (a library another system's
    // compiler made), which would fail every later run of the kernel: one
    // that does not load is compiled again.
    std::string error;
    if (sys::DynamicLibrary::getPermanentLibrary(library.c_str(), &error)
            .isValid())
      return std::string(library);
    WithColor::warning(errs())
        << "the cached compiled kernel '" << library
        << "' does not load (" << error << "); compiling it again\n";
    sys::fs::remove(library);
  }

  // Compile under names of our own, then move the library into place, so
  // that concurrent runs never see a partial file.
  std::string unique = key + "-" + std::to_string(sys::Process::getProcessId());
  SmallString<256> sourcePath(compiler.cacheDir),
      tempLibrary(compiler.cacheDir), logPath(compiler.cacheDir);
  sys::path::append(sourcePath, "ksc-" + unique + ".cpp");
  sys::path::append(tempLibrary, "ksc-" + unique + ".so.tmp");
  sys::path::append(logPath, "ksc-" + unique + ".log");
  // A signal that ends ksc-run (after ending the compiler: runProgram)
  // leaves none of them in the cache.
  TemporaryFiles temporaries({sourcePath, tempLibrary, logPath});
  if (Error error = writeFileIfChanged(sourcePath, source))
    return createStringError("cannot write '" + sourcePath +
                             "': " + toString(std::move(error)));

  std::string log;
  bool compiled =
      runHostCompiler(program, compiler.flags, source,
                      {"-o", tempLibrary, sourcePath}, compiler, logPath, log);
  if (!compiled) {
    sys::fs::remove(tempLibrary);
    return createStringError(
        inconvertibleErrorCode(),
        "the host compiler failed on the generated C++ (kept in %s):\n%s",
        sourcePath.c_str(), log.c_str());
  }
  if (std::error_code ec = putInCache(tempLibrary, library, /*hashed=*/true)) {
    sys::fs::remove(tempLibrary);
    return createStringError(ec,
                             "cannot move the compiled kernel into the "
                             "cache: %s",
                             ec.message().c_str());
  }
  // Keep the source next to the library for whoever wants to read it.
  SmallString<256> keptSource(compiler.cacheDir);
  sys::path::append(keptSource, "ksc-" + key + ".cpp");
  if (sys::fs::rename(sourcePath, keptSource))
    sys::fs::remove(sourcePath);
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
  CpuExecutor(std::string library, const Grid &grid, std::string kernelFile)
      : library(std::move(library)), grid(grid),
        kernelFile(std::move(kernelFile)) {}
  Error launch(StringRef kernel, std::vector<Argument> &args) override {
    Error error = runner::launch(library, kernel, grid, args);
    if (!error || kernelFile.empty())
      return error;
    // "kernel 'K': :LINE:COL: ..." (ksc_runtime.h's run_launch).
    std::string message = toString(std::move(error));
    std::string prefix = ("kernel '" + kernel + "': ").str();
    StringRef rest = message;
    if (rest.consume_front(prefix) && rest.consume_front(":") &&
        !rest.empty() && isDigit(rest.front()))
      message = prefix + kernelFile + ":" + rest.str();
    return createStringError(message);
  }
  std::string describe() const override { return "cpu"; }

private:
  std::string library;
  Grid grid;
  std::string kernelFile;
};
} // namespace

std::unique_ptr<Executor> runner::createCpuExecutor(std::string library,
                                                    const Grid &grid,
                                                    std::string kernelFile) {
  return std::make_unique<CpuExecutor>(std::move(library), grid,
                                       std::move(kernelFile));
}
