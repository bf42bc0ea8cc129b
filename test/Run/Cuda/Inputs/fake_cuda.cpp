// A stand-in for the CUDA driver (libcuda.so.1) for testing ksc-run's GPU
// runner on machines without a GPU: ksc-run loads it with
// KSC_CUDA_DRIVER=<this library>. "Device memory" is host memory, and the
// one kernel it can run is saxpy from test/Run/saxpy.kdsl (y = a * x + y),
// read from the kernel parameters as the GPU code would read them (the
// grid, a float, then two ksc::array<float> views: data, extent, stride).
// Every GPU thread of the launch runs a grid-stride loop, which is what the
// guarded kernels do too for the threads that exist.
//
// With FAKE_CUDA_LOG set, every launch prints its configuration on stderr;
// with FAKE_CUDA_WRONG set, saxpy adds 1 to y[0] too much.
// With a = -1 the "kernel" traps: the next synchronization prints a device
// printf message on stdout and fails with CUDA_ERROR_LAUNCH_FAILED, as a
// failed bounds check does. Entry points cuda.h maps to _v2 versions are
// exported only under those names.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
struct Module {
  std::string image;
};
struct Function {
  std::string name;
};
struct Array {
  float *data;
  int64_t extent, stride;
};
int sticky = 0;
bool trapped = false;
} // namespace

extern "C" {
typedef unsigned long long CUdeviceptr;

int cuInit(unsigned) { return std::getenv("FAKE_CUDA_NO_DEVICE") ? 100 : 0; }
int cuDriverGetVersion(int *version) {
  *version = 13000;
  return 0;
}
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;
}
int cuDeviceGetName(char *name, int length, int) {
  std::snprintf(name, length, "Fake GPU");
  return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75 ? 8 : 0; // compute capability 8.0
  return 0;
}
int cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = size_t(1) << 30;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int) {
  static int theContext;
  *context = &theContext;
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int) { return 0; }
int cuCtxSetCurrent(void *) { return 0; }
int cuCtxSynchronize() {
  if (trapped) {
    trapped = false;
    std::printf("ksc: fake device printf before a trap\n");
    sticky = 719;
  }
  return sticky;
}
int cuModuleLoadDataEx(Module **module, const void *image, unsigned, int *,
                       void **) {
  const char *bytes = static_cast<const char *>(image);
  // A CUBIN (ELF) from NVRTC for sm_XY; PTX text otherwise.
  size_t size = std::memcmp(bytes,
                            "\x7f"
                            "ELF",
                            4) == 0
                    ? 1 << 20
                    : std::strlen(bytes);
  *module = new Module{std::string(bytes, size)};
  return 0;
}
int cuModuleUnload(Module *module) {
  delete module;
  return 0;
}
int cuModuleGetFunction(Function **function, Module *module, const char *name) {
  // The entry point must be in the code (CUBINs and PTX name them).
  if (module->image.find(name) == std::string::npos)
    return 500; // CUDA_ERROR_NOT_FOUND
  *function = new Function{name};
  return 0;
}
int cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return sticky;
}
int cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  return sticky;
}
int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return sticky;
}
int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return sticky;
}
int cuLaunchKernel(Function *function, unsigned gridX, unsigned gridY,
                   unsigned gridZ, unsigned blockX, unsigned blockY,
                   unsigned blockZ, unsigned, void *, void **params, void **) {
  if (sticky)
    return sticky;
  const int64_t *dim = static_cast<const int64_t *>(params[0]);
  if (std::getenv("FAKE_CUDA_LOG"))
    std::fprintf(stderr,
                 "fake launch %s: blocks (%u, %u, %u) of (%u, %u, %u), grid "
                 "(%lld, %lld, %lld)\n",
                 function->name.c_str(), gridX, gridY, gridZ, blockX, blockY,
                 blockZ, (long long)dim[0], (long long)dim[1],
                 (long long)dim[2]);
  if (function->name.find("saxpy") == std::string::npos)
    return 801; // CUDA_ERROR_NOT_SUPPORTED
  float a = *static_cast<const float *>(params[1]);
  Array x = *static_cast<const Array *>(params[2]);
  Array y = *static_cast<const Array *>(params[3]);
  if (a == -1) {
    trapped = true;
    return 0;
  }
  int64_t threads = dim[0] * dim[1] * dim[2];
  int64_t gpuThreads = int64_t(gridX) * blockX;
  for (int64_t g = 0; g < gpuThreads; ++g)
    for (int64_t i = g; i < threads; i += gpuThreads)
      y.data[i * y.stride] = a * x.data[i * x.stride] + y.data[i * y.stride];
  if (std::getenv("FAKE_CUDA_WRONG") && threads > 0)
    y.data[0] += 1;
  return 0;
}
int cuEventCreate(void **event, unsigned) {
  *event = std::malloc(1);
  return 0;
}
int cuEventDestroy_v2(void *event) {
  std::free(event);
  return 0;
}
int cuEventRecord(void *, void *) { return sticky; }
int cuEventSynchronize(void *) { return cuCtxSynchronize(); }
int cuEventElapsedTime_v2(float *milliseconds, void *, void *) {
  *milliseconds = 0.5f;
  return sticky;
}
int cuGetErrorName(int result, const char **name) {
  *name = result == 719   ? "CUDA_ERROR_LAUNCH_FAILED"
          : result == 100 ? "CUDA_ERROR_NO_DEVICE"
          : result == 500 ? "CUDA_ERROR_NOT_FOUND"
                          : "CUDA_ERROR_NOT_SUPPORTED";
  return 0;
}
int cuGetErrorString(int result, const char **text) {
  *text = result == 719   ? "unspecified launch failure"
          : result == 100 ? "no CUDA-capable device is detected"
          : result == 500 ? "named symbol not found"
                          : "operation not supported";
  return 0;
}
}
