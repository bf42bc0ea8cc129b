// A stand-in for the CUDA driver (libcuda.so.1) for testing ksc's GPU
// runners on machines without a GPU: ksc-run and ksc-replay load it with
// KSC_CUDA_DRIVER=<this library>. "Device memory" is host memory.
//
// It runs kernels in one of two ways:
//
// - With FAKE_CUDA_CODE=DIR, as host code: the GPU code it is given (ksc's
//   PTX, or what the stand-in NVRTC, test/Replay/Inputs/fake_nvrtc.cpp,
//   makes of CUDA C++) names host code in DIR, the CUDA C++ of the same
//   kernels compiled for the host (utils/lit/stand-in-code.py), whose
//   entry point ksc_host_entry_KEY_K runs kernel K's GPU threads one after
//   another, as test/Replay/Inputs/cuda_host.h says. DIR/HASH.entry names
//   its library and KEY; PTX is named by the FNV-1a hash of its text, the
//   stand-in NVRTC's code by the hash it carries. A kernel that stops (a failed bounds check, a full
//   tape) makes the next synchronization print the device's message on
//   stdout and fail with CUDA_ERROR_LAUNCH_FAILED, as on a GPU; the error
//   stays until the primary context is reset or its last reference is
//   released. The driver's compiler (cuLink*) makes PTX into itself.
//
// - Otherwise the one kernel it can run is saxpy from test/Run/saxpy.kdsl
//   (y = a * x + y), read from the kernel parameters as the GPU code would
//   read them (the grid, a float, then two ksc::array<float> views: data,
//   extent, stride). Every GPU thread of the launch runs a grid-stride loop,
//   which is what the guarded kernels do too for the threads that exist.
//   With a = -1 the "kernel" traps.
//
// With FAKE_CUDA_LOG set, every launch prints its configuration on stderr;
// with FAKE_CUDA_WRONG set, the stand-in's saxpy adds 1 to y[0] too much;
// a kernel whose entry point contains FAKE_CUDA_CRASH aborts the process,
// one that contains FAKE_CUDA_HANG never returns.
// Entry points cuda.h maps to _v2 versions are exported only under those
// names.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {
struct Function {
  std::string name;
  // ksc_host_entry_K of a module of host code.
  int (*host)(unsigned, unsigned, void **, char *, size_t) = nullptr;
};
struct Module {
  std::string image;
  void *host = nullptr;
  // What the names of its entry points start with, after ksc_host_entry_.
  std::string prefix;
  // As the real driver's, a module's functions go with it.
  std::vector<std::unique_ptr<Function>> functions;
};
struct Array {
  float *data;
  int64_t extent, stride;
};
int sticky = 0;
int retained = 0;
bool trapped = false;
// The modules loaded and not unloaded.
std::set<Module *> modules;
std::string devicePrintf = "ksc: fake device printf before a trap\n";

uint64_t fnv1a(const char *bytes, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// The host code for `image` in $FAKE_CUDA_CODE (DIR/KEY.entry names its
/// library and the prefix of its entry points), or null with why in `log`.
void *loadHostCode(const char *image, const char *directory,
                   std::string &prefix, char *log, size_t logSize) {
  static const char nvrtc[] = "KSC-FAKE-NVRTC ";
  char key[32];
  if (std::strncmp(image, nvrtc, sizeof(nvrtc) - 1) == 0)
    std::snprintf(key, sizeof(key), "%.16s", image + sizeof(nvrtc) - 1);
  else
    std::snprintf(key, sizeof(key), "%016llx",
                  (unsigned long long)fnv1a(image, std::strlen(image)));
  std::string entry = std::string(directory) + "/" + key + ".entry";
  char library[256] = "", name[64] = "";
  FILE *file = std::fopen(entry.c_str(), "r");
  bool found = file && std::fscanf(file, "%255s %63s", library, name) == 2;
  if (file)
    std::fclose(file);
  void *handle =
      found ? dlopen((std::string(directory) + "/" + library).c_str(),
                     RTLD_NOW | RTLD_LOCAL)
            : nullptr;
  if (!handle && log && logSize)
    std::snprintf(log, logSize, "stand-in: no host code %s for this image",
                  entry.c_str());
  prefix = std::string(name) + "_";
  return handle;
}
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
  // A context is made when nothing holds one: FAKE_CUDA_CONTEXTS names a
  // file that gets a line each time.
  if (retained++ == 0)
    if (const char *path = std::getenv("FAKE_CUDA_CONTEXTS"))
      if (FILE *file = std::fopen(path, "a")) {
        std::fputs("context\n", file);
        std::fclose(file);
      }
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int) {
  if (retained > 0)
    --retained;
  return 0;
}
// As on a GPU, a kernel's error is sticky: neither releasing nor resetting
// the context clears it, only the end of the process does. Resetting frees
// what the context had: its modules.
int cuModuleUnload(Module *module);
int cuDevicePrimaryCtxReset_v2(int) {
  while (!modules.empty())
    cuModuleUnload(*modules.begin());
  return 0;
}
int cuCtxSetCurrent(void *) { return 0; }
int cuCtxSynchronize() {
  if (trapped) {
    trapped = false;
    std::fputs(devicePrintf.c_str(), stdout);
    std::fflush(stdout);
    sticky = 719;
  }
  return sticky;
}
// CUDA 13's libcuda has this too: not the _v2 of the above, which cuda.h
// maps cuCtxSynchronize to, but another function (it synchronizes the
// context it is given). Called without one, it fails.
int cuCtxSynchronize_v2(void *context) { return context ? 0 : 709; }
/// The size of a 64-bit ELF image: it ends with its section headers or
/// its program headers, whichever come last (a driver is given no size).
static size_t elf64Size(const char *image) {
  auto field = [&](size_t offset, size_t bytes) {
    uint64_t value = 0;
    std::memcpy(&value, image + offset, bytes); // little-endian
    return value;
  };
  uint64_t sections = field(0x28, 8) + field(0x3C, 2) * field(0x3A, 2);
  uint64_t segments = field(0x20, 8) + field(0x38, 2) * field(0x36, 2);
  return std::max(sections, segments);
}

int cuModuleLoadDataEx(Module **module, const void *image, unsigned numOptions,
                       int *options, void **values) {
  const char *bytes = static_cast<const char *>(image);
  if (const char *directory = std::getenv("FAKE_CUDA_CODE")) {
    char *log = nullptr;
    size_t logSize = 0;
    for (unsigned i = 0; i < numOptions; ++i) {
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        log = static_cast<char *>(values[i]);
      if (options[i] == 6) // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        logSize = reinterpret_cast<size_t>(values[i]);
    }
    std::string prefix;
    void *host = loadHostCode(bytes, directory, prefix, log, logSize);
    if (!host)
      return 200; // CUDA_ERROR_INVALID_IMAGE
    *module = new Module{"", host, prefix, {}};
    modules.insert(*module);
    return 0;
  }
  // A CUBIN (ELF) from NVRTC for sm_XY; PTX text otherwise.
  bool elf = std::memcmp(bytes,
                         "\x7f"
                         "ELF",
                         4) == 0;
  size_t size = elf ? elf64Size(bytes) : std::strlen(bytes);
  *module = new Module{std::string(bytes, size), nullptr, "", {}};
  modules.insert(*module);
  return 0;
}
int cuModuleUnload(Module *module) {
  if (module->host)
    dlclose(module->host);
  modules.erase(module);
  delete module;
  return 0;
}
int cuModuleGetFunction(Function **function, Module *module, const char *name) {
  if (module->host) {
    auto entry = reinterpret_cast<int (*)(unsigned, unsigned, void **, char *,
                                          size_t)>(
        dlsym(module->host,
              ("ksc_host_entry_" + module->prefix + name).c_str()));
    if (!entry)
      return 500; // CUDA_ERROR_NOT_FOUND
    module->functions.push_back(
        std::unique_ptr<Function>(new Function{name, entry}));
    *function = module->functions.back().get();
    return 0;
  }
  // The entry point must be in the code (CUBINs and PTX name them).
  if (module->image.find(name) == std::string::npos)
    return 500; // CUDA_ERROR_NOT_FOUND
  module->functions.push_back(std::unique_ptr<Function>(new Function{name}));
  *function = module->functions.back().get();
  return 0;
}
// The driver's compiler: the "CUBIN" of PTX is the PTX, which
// cuModuleLoadDataEx takes as it is.
struct Link {
  std::string code;
};
int cuLinkCreate_v2(unsigned, int *, void **, Link **link) {
  *link = new Link;
  return 0;
}
int cuLinkAddData_v2(Link *link, int type, void *data, size_t size,
                     const char *, unsigned, int *, void **) {
  if (type != 1) // CU_JIT_INPUT_PTX
    return 801;
  link->code.assign(static_cast<const char *>(data), size);
  return 0;
}
int cuLinkComplete(Link *link, void **cubin, size_t *size) {
  *cubin = link->code.data();
  *size = link->code.size();
  return 0;
}
int cuLinkDestroy(Link *link) {
  delete link;
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

/// The stand-in's saxpy.
static int runSaxpy(unsigned gridX, unsigned blockX, void **params) {
  const int64_t *dim = static_cast<const int64_t *>(params[0]);
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

int cuLaunchKernel(Function *function, unsigned gridX, unsigned gridY,
                   unsigned gridZ, unsigned blockX, unsigned blockY,
                   unsigned blockZ, unsigned, void *, void **params, void **) {
  if (sticky)
    return sticky;
  // A kernel that brings the process down, or never ends.
  const char *crash = std::getenv("FAKE_CUDA_CRASH");
  if (crash && function->name.find(crash) != std::string::npos)
    std::abort();
  const char *hang = std::getenv("FAKE_CUDA_HANG");
  if (hang && function->name.find(hang) != std::string::npos)
    for (;;)
      pause();
  const int64_t *dim = static_cast<const int64_t *>(params[0]);
  if (std::getenv("FAKE_CUDA_LOG"))
    std::fprintf(stderr,
                 "fake launch %s: blocks (%u, %u, %u) of (%u, %u, %u), grid "
                 "(%lld, %lld, %lld)\n",
                 function->name.c_str(), gridX, gridY, gridZ, blockX, blockY,
                 blockZ, (long long)dim[0], (long long)dim[1],
                 (long long)dim[2]);
  if (!function->host) {
    if (function->name.find("saxpy") == std::string::npos)
      return 801; // CUDA_ERROR_NOT_SUPPORTED
    return runSaxpy(gridX, blockX, params);
  }
  char message[4096] = "";
  if (function->host(gridX, blockX, params, message, sizeof(message))) {
    devicePrintf = message;
    trapped = true;
  }
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
          : result == 709 ? "CUDA_ERROR_CONTEXT_IS_DESTROYED"
          : result == 100 ? "CUDA_ERROR_NO_DEVICE"
          : result == 200 ? "CUDA_ERROR_INVALID_IMAGE"
          : result == 500 ? "CUDA_ERROR_NOT_FOUND"
                          : "CUDA_ERROR_NOT_SUPPORTED";
  return 0;
}
int cuGetErrorString(int result, const char **text) {
  *text = result == 719   ? "unspecified launch failure"
          : result == 709 ? "context is destroyed"
          : result == 100 ? "no CUDA-capable device is detected"
          : result == 200 ? "device kernel image is invalid"
          : result == 500 ? "named symbol not found"
                          : "operation not supported";
  return 0;
}
}
