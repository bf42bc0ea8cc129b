//===- CudaDriver.h - The CUDA driver API, loaded at run time -*- C++ -*-===//
//
// Part of ksc. Internal to the runner library. ksc-run neither links
// against the CUDA driver nor needs its headers to build: it loads
// libcuda.so.1 with dlopen when `--target=cuda` asks for a GPU and looks up
// the few `cu*` entry points it calls (the `_v2` versions where the driver
// has them, which is what cuda.h maps the plain names to). The types below
// are those of cuda.h, declared for the ABI only.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_LIB_RUNNER_CUDADRIVER_H
#define KSC_LIB_RUNNER_CUDADRIVER_H

#include "ksc/Runner/Cuda.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>

namespace ksc::runner::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUlinkState = struct CUlinkState_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
// cuDeviceGetAttribute.
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
// cuModuleLoadDataEx: where the JIT compiler writes its errors.
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
// cuLinkAddData: what the data is.
inline constexpr int CU_JIT_INPUT_PTX = 1;

/// The entry points of the driver ksc-run calls.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuDevicePrimaryCtxReset)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuLinkCreate)(unsigned numOptions, int *options,
                           void **optionValues, CUlinkState *state);
  CUresult (*cuLinkAddData)(CUlinkState state, int type, void *data,
                            size_t size, const char *name, unsigned numOptions,
                            int *options, void **optionValues);
  CUresult (*cuLinkComplete)(CUlinkState state, void **cubin, size_t *size);
  CUresult (*cuLinkDestroy)(CUlinkState state);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
  CUresult (*cuGetErrorName)(CUresult result, const char **name);
  CUresult (*cuGetErrorString)(CUresult result, const char **text);

  /// `CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)`.
  std::string describe(CUresult result) const;
  /// An error "<what>: <describe(result)>".
  llvm::Error fail(CUresult result, const llvm::Twine &what) const;
};

/// The driver library ksc-run loads: $KSC_CUDA_DRIVER when set (a path or
/// a library name; tests point it at a missing file), else libcuda.so.1.
std::string getDriverLibraryName();

/// Loads the driver (once per process), looks up its entry points and
/// initializes it (cuInit). A NoDeviceError when any of that fails.
llvm::Expected<const DriverApi &> loadDriver();

} // namespace ksc::runner::cuda

#endif // KSC_LIB_RUNNER_CUDADRIVER_H
