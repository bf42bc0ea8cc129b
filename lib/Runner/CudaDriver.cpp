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
  auto resolve = [&](auto &entry, const char *symbol) {
    // cuda.h maps the plain names to the _v2 versions where there are two.
    void *address =
        library.getAddressOfSymbol((symbol + Twine("_v2")).str().c_str());
    if (!address)
      address = library.getAddressOfSymbol(symbol);
    if (!address)
      missing.push_back(symbol);
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(address);
  };
#define KSC_RESOLVE(name) resolve(api.name, #name)
  KSC_RESOLVE(cuInit);
  KSC_RESOLVE(cuDriverGetVersion);
  KSC_RESOLVE(cuDeviceGetCount);
  KSC_RESOLVE(cuDeviceGet);
  KSC_RESOLVE(cuDeviceGetName);
  KSC_RESOLVE(cuDeviceGetAttribute);
  KSC_RESOLVE(cuDeviceTotalMem);
  KSC_RESOLVE(cuDevicePrimaryCtxRetain);
  KSC_RESOLVE(cuDevicePrimaryCtxRelease);
  KSC_RESOLVE(cuDevicePrimaryCtxReset);
  KSC_RESOLVE(cuCtxSetCurrent);
  KSC_RESOLVE(cuCtxSynchronize);
  KSC_RESOLVE(cuModuleLoadDataEx);
  KSC_RESOLVE(cuModuleUnload);
  KSC_RESOLVE(cuLinkCreate);
  KSC_RESOLVE(cuLinkAddData);
  KSC_RESOLVE(cuLinkComplete);
  KSC_RESOLVE(cuLinkDestroy);
  KSC_RESOLVE(cuModuleGetFunction);
  KSC_RESOLVE(cuMemAlloc);
  KSC_RESOLVE(cuMemFree);
  KSC_RESOLVE(cuMemcpyHtoD);
  KSC_RESOLVE(cuMemcpyDtoH);
  KSC_RESOLVE(cuLaunchKernel);
  KSC_RESOLVE(cuEventCreate);
  KSC_RESOLVE(cuEventDestroy);
  KSC_RESOLVE(cuEventRecord);
  KSC_RESOLVE(cuEventSynchronize);
  KSC_RESOLVE(cuEventElapsedTime);
  KSC_RESOLVE(cuGetErrorName);
  KSC_RESOLVE(cuGetErrorString);
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
