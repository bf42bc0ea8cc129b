//===- Nvrtc.cpp - Compile CUDA C++ with NVRTC, loaded at run time ----===//
//
// Part of ksc. `ksc-run --target=cuda --via=cuda-source` compiles the CUDA
// C++ of `ksc --target=cuda` with NVRTC, the CUDA toolkit's compiler
// library, which ksc-run loads with dlopen from the toolkit (--cuda-path,
// $CUDA_HOME, /usr/local/cuda). NVRTC has no host headers: the runtime
// header compiles without them under __CUDACC_RTC__, and the launch
// functions of the emitted code, host code, are skipped there.
//
// Options: -std=c++17; -default-device, since NVRTC takes the lambdas of
// the runtime's vector operations (inside templates) for host functions
// otherwise; --fmad=false, because the kernel language rounds `a * b + c`
// twice (the CPU runner compiles with -ffp-contract=off).
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Cuda.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

namespace {
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram *;

/// The NVRTC entry points ksc-run calls (nvrtc.h's declarations).
struct NvrtcApi {
  nvrtcResult (*nvrtcVersion)(int *major, int *minor);
  const char *(*nvrtcGetErrorString)(nvrtcResult result);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *program, const char *source,
                                    const char *name, int numHeaders,
                                    const char *const *headers,
                                    const char *const *includeNames);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *program);
  nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram program,
                                        const char *nameExpression);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram program, int numOptions,
                                     const char *const *options);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram program, size_t *size);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram program, char *log);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram program, size_t *size);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram program, char *ptx);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram program, size_t *size);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram program, char *cubin);
  nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram program,
                                     const char *nameExpression,
                                     const char **loweredName);

  std::string library;
  std::string describe(nvrtcResult result) const {
    const char *text = nvrtcGetErrorString(result);
    return text ? text : "NVRTC error " + std::to_string(result);
  }
};
} // namespace

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// lib64/libnvrtc.so in `root`, else its libnvrtc.so.N with the highest N
/// (not libnvrtc-builtins, nor the .alt variant); empty when none.
static std::string findNvrtcIn(StringRef root) {
  SmallString<256> dir(root);
  sys::path::append(dir, "lib64");
  SmallString<256> plain(dir);
  sys::path::append(plain, "libnvrtc.so");
  if (sys::fs::exists(plain))
    return std::string(plain);
  std::string best;
  unsigned bestVersion = 0;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    unsigned version;
    if (name.consume_front("libnvrtc.so.") &&
        !name.split('.').first.getAsInteger(10, version) &&
        (best.empty() || version > bestVersion)) {
      best = it->path();
      bestVersion = version;
    }
  }
  return best;
}

static Expected<const NvrtcApi &> loadNvrtc(StringRef cudaPath) {
  // NVRTC compiles programs on several threads at once (ksc-replay); the
  // libraries loaded so far are shared.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  static std::map<std::string, NvrtcApi> loaded;
  SmallVector<std::string> roots;
  if (!cudaPath.empty())
    roots.push_back(cudaPath.str());
  if (std::optional<std::string> home = sys::Process::GetEnv("CUDA_HOME"))
    if (!home->empty())
      roots.push_back(*home);
  roots.push_back("/usr/local/cuda");
  std::string path;
  for (const std::string &root : roots)
    if (!(path = findNvrtcIn(root)).empty())
      break;
  if (path.empty())
    return fail("cannot find NVRTC, which --via=cuda-source needs: no "
                "lib64/libnvrtc.so* in " +
                join(roots, ", ") +
                " (--cuda-path, $CUDA_HOME, /usr/local/cuda)");
  auto it = loaded.find(path);
  if (it != loaded.end())
    return it->second;

  std::string error;
  sys::DynamicLibrary library =
      sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
  if (!library.isValid())
    return fail("cannot load NVRTC " + path + ": " + error);
#ifdef RTLD_NODELETE
  // NVRTC brings its own C++ runtime, whose emergency exception pool (72
  // KiB, allocated as it loads) only NVRTC's data points to. LLVM unloads
  // the libraries it opened at exit, before LeakSanitizer looks, which then
  // reports the pool as leaked: keep NVRTC loaded to the end.
  (void)dlopen(path.c_str(), RTLD_LAZY | RTLD_NODELETE);
#endif
  NvrtcApi api;
  api.library = path;
  std::string missing;
  auto resolve = [&](auto &entry, const char *symbol) {
    void *address = library.getAddressOfSymbol(symbol);
    if (!address)
      missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(address);
  };
#define KSC_RESOLVE(name) resolve(api.name, #name)
  KSC_RESOLVE(nvrtcVersion);
  KSC_RESOLVE(nvrtcGetErrorString);
  KSC_RESOLVE(nvrtcCreateProgram);
  KSC_RESOLVE(nvrtcDestroyProgram);
  KSC_RESOLVE(nvrtcAddNameExpression);
  KSC_RESOLVE(nvrtcCompileProgram);
  KSC_RESOLVE(nvrtcGetProgramLogSize);
  KSC_RESOLVE(nvrtcGetProgramLog);
  KSC_RESOLVE(nvrtcGetPTXSize);
  KSC_RESOLVE(nvrtcGetPTX);
  KSC_RESOLVE(nvrtcGetCUBINSize);
  KSC_RESOLVE(nvrtcGetCUBIN);
  KSC_RESOLVE(nvrtcGetLoweredName);
#undef KSC_RESOLVE
  if (!missing.empty())
    return fail(path + " is not a usable NVRTC: it has no " + missing);
  return loaded.emplace(path, api).first->second;
}

Expected<CudaModule>
runner::compileWithNvrtc(StringRef source, StringRef sourceName,
                         ArrayRef<CudaSourceKernel> kernels, StringRef arch,
                         StringRef runtimeHeader, StringRef cudaPath) {
  Expected<const NvrtcApi &> api = loadNvrtc(cudaPath);
  if (!api)
    return api.takeError();
  std::string sourceText = source.str(), header = runtimeHeader.str(),
              name = sourceName.str();
  const char *headers[] = {header.c_str()};
  const char *includeNames[] = {"ksc_runtime.h"};
  nvrtcProgram program = nullptr;
  if (nvrtcResult result = api->nvrtcCreateProgram(
          &program, sourceText.c_str(), name.c_str(), 1, headers, includeNames))
    return fail("NVRTC cannot create a program: " + api->describe(result));
  scope_exit destroy([&] { (void)api->nvrtcDestroyProgram(&program); });

  for (const CudaSourceKernel &kernel : kernels)
    if (nvrtcResult result =
            api->nvrtcAddNameExpression(program, kernel.expression.c_str()))
      return fail("NVRTC: cannot name kernel '" + kernel.kernel +
                  "': " + api->describe(result));

  std::string archOption = ("--gpu-architecture=" + arch).str();
  const char *options[] = {"-std=c++17", archOption.c_str(), "-default-device",
                           "--fmad=false"};
  nvrtcResult compiled =
      api->nvrtcCompileProgram(program, std::size(options), options);
  std::string log;
  size_t size = 0;
  if (!api->nvrtcGetProgramLogSize(program, &size) && size > 1) {
    log.resize(size);
    if (api->nvrtcGetProgramLog(program, log.data()))
      log.clear();
    log.resize(StringRef(log.c_str()).size());
  }
  if (compiled)
    return fail("NVRTC (" + api->library +
                ") cannot compile the CUDA C++ for " + arch + ": " +
                api->describe(compiled) + (log.empty() ? "" : "\n" + log));

  CudaModule module;
  module.arch = arch.str();
  if (nvrtcResult result = api->nvrtcGetPTXSize(program, &size))
    return fail("NVRTC made no PTX: " + api->describe(result));
  module.ptx.resize(size);
  if (nvrtcResult result = api->nvrtcGetPTX(program, module.ptx.data()))
    return fail("NVRTC made no PTX: " + api->describe(result));
  module.ptx.resize(StringRef(module.ptx.c_str()).size());
  // A CUBIN for a real architecture (sm_XY): the driver loads it as is,
  // whatever PTX version it understands. PTX (with its NUL) otherwise.
  if (!api->nvrtcGetCUBINSize(program, &size) && size > 0) {
    module.image.resize(size);
    if (api->nvrtcGetCUBIN(program, module.image.data()))
      module.image.clear();
  }
  if (module.image.empty())
    module.image = module.ptx + '\0';
  for (const CudaSourceKernel &kernel : kernels) {
    const char *lowered = nullptr;
    if (nvrtcResult result = api->nvrtcGetLoweredName(
            program, kernel.expression.c_str(), &lowered))
      return fail("NVRTC has no name for kernel '" + kernel.kernel +
                  "': " + api->describe(result));
    module.entries[kernel.kernel] = lowered;
  }
  return module;
}
