//===- CudaDriver.cpp - Load the CUDA driver at run time --------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Process.h"

#include <optional>
#include <vector>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::cuda;

char NoDeviceError::ID = 0;

void NoDeviceError::log(raw_ostream &os) const { os << why; }

std::error_code NoDeviceError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

std::string DriverApi::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(result);
  std::string out = name;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    out += std::string(" (") + text + ")";
  return out;
}

Error DriverApi::fail(CUresult result, const Twine &what) const {
  return createStringError(inconvertibleErrorCode(),
                           what + ": " + describe(result));
}

std::string cuda::getDriverLibraryName() {
  if (std::optional<std::string> name = sys::Process::GetEnv("KSC_CUDA_DRIVER"))
    return *name;
  return "libcuda.so.1";
}

/// Loads the library and its entry points; the error says what is missing.
static Expected<DriverApi> openDriver() {
  std::string name = getDriverLibraryName(), error;
  auto noDevice = [&](const Twine &why) {
    return make_error<NoDeviceError>(why.str());
  };
  if (name.empty())
    return noDevice("KSC_CUDA_DRIVER is set but empty");
  sys::DynamicLibrary library =
      sys::DynamicLibrary::getPermanentLibrary(name.c_str(), &error);
  if (!library.isValid())
    return noDevice("cannot load the CUDA driver: " + error);

  DriverApi api;
  std::vector<std::string> missing;
  // Each entry point under the name cuda.h maps it to (CUDA 12 and 13):
  // `cuMemAlloc` is cuMemAlloc_v2, but cuCtxSynchronize_v2 is another
  // function than cuCtxSynchronize (it takes a context), so the names are
  // spelled out, never guessed. `fallback`: the name in older drivers.
  auto resolve = [&](auto &entry, const char *symbol,
                     const char *fallback = nullptr) {
    void *address = library.getAddressOfSymbol(symbol);
    if (!address && fallback)
      address = library.getAddressOfSymbol(fallback);
    if (!address)
      missing.push_back(symbol);
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(address);
  };
#define KSC_RESOLVE(name) resolve(api.name, #name)
#define KSC_RESOLVE_V2(name) resolve(api.name, #name "_v2")
  KSC_RESOLVE(cuInit);
  KSC_RESOLVE(cuDriverGetVersion);
  KSC_RESOLVE(cuDeviceGetCount);
  KSC_RESOLVE(cuDeviceGet);
  KSC_RESOLVE(cuDeviceGetName);
  KSC_RESOLVE(cuDeviceGetAttribute);
  KSC_RESOLVE_V2(cuDeviceTotalMem);
  KSC_RESOLVE(cuDevicePrimaryCtxRetain);
  KSC_RESOLVE_V2(cuDevicePrimaryCtxRelease);
  KSC_RESOLVE_V2(cuDevicePrimaryCtxReset);
  KSC_RESOLVE(cuCtxSetCurrent);
  KSC_RESOLVE(cuCtxSynchronize);
  KSC_RESOLVE(cuModuleLoadDataEx);
  KSC_RESOLVE(cuModuleUnload);
  KSC_RESOLVE_V2(cuLinkCreate);
  KSC_RESOLVE_V2(cuLinkAddData);
  KSC_RESOLVE(cuLinkComplete);
  KSC_RESOLVE(cuLinkDestroy);
  KSC_RESOLVE(cuModuleGetFunction);
  KSC_RESOLVE_V2(cuMemAlloc);
  KSC_RESOLVE_V2(cuMemFree);
  KSC_RESOLVE_V2(cuMemcpyHtoD);
  KSC_RESOLVE_V2(cuMemcpyDtoH);
  KSC_RESOLVE(cuLaunchKernel);
  KSC_RESOLVE(cuEventCreate);
  KSC_RESOLVE_V2(cuEventDestroy);
  KSC_RESOLVE(cuEventRecord);
  KSC_RESOLVE(cuEventSynchronize);
  // (cuda.h maps it to _v2 from CUDA 12.8 on; the same signature.)
  resolve(api.cuEventElapsedTime, "cuEventElapsedTime_v2",
          "cuEventElapsedTime");
  KSC_RESOLVE(cuGetErrorName);
  KSC_RESOLVE(cuGetErrorString);
#undef KSC_RESOLVE_V2
#undef KSC_RESOLVE
  if (!missing.empty())
    return noDevice(
        name + " is not a usable CUDA driver: it has no " + missing.front() +
        (missing.size() > 1 ? " (nor " + Twine(missing.size() - 1) + " more)"
                            : ""));
  if (CUresult result = api.cuInit(0))
    return noDevice("the CUDA driver does not start (cuInit): " +
                    api.describe(result));
  return api;
}

Expected<const DriverApi &> cuda::loadDriver() {
  // Once per process: the driver cannot be unloaded, and cuInit's verdict
  // does not change.
  static std::string why;
  static std::optional<DriverApi> api = []() -> std::optional<DriverApi> {
    Expected<DriverApi> opened = openDriver();
    if (!opened) {
      why = toString(opened.takeError());
      return std::nullopt;
    }
    return *opened;
  }();
  if (!api)
    return make_error<NoDeviceError>(why);
  return *api;
}
