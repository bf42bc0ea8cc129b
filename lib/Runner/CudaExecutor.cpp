//===- CudaExecutor.cpp - Launch kernels on a GPU ---------------------===//
//
// Part of ksc. Loads GPU code into the primary context of device 0 and
// launches its kernels the way the emitted `K_launch` functions do: 1-D
// blocks of `blockSize` threads, ceil(threads / blockSize) of them (at most
// 65535 with grid-stride loops, getMaxSumBlocks for a kernel whose threads
// sum across the block), the kernel computing its coordinates from
// the flat index. A kernel's parameters are the launch grid (`ksc::grid`,
// three int64 by value), then its arguments in order: scalars, vectors and
// structs as their bytes (laid out as C++ lays them out, as on the CPU),
// arrays as `ksc::array<T, N>` by value (the data pointer, then N extents,
// then N strides in elements), their data copied to device memory before
// the launch and back after it.
//
// Device printf (the message of a failed bounds check before its trap)
// reaches the process's standard output when the host synchronizes; the
// executor points standard output at standard error meanwhile (or at the
// file CudaLaunchOptions::deviceOutput names, where ksc-replay reads it),
// so that ksc-run's standard output stays the JSON of the results.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "ksc/Support/CudaLaunch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>

#if __has_include(<unistd.h>)
#include <fcntl.h>
#include <unistd.h>
#define KSC_HAVE_DUP2 1
#endif

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::cuda;

std::string CudaDevice::arch() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

double LaunchTiming::median() const {
  if (milliseconds.empty())
    return 0;
  std::vector<double> sorted = milliseconds;
  llvm::sort(sorted);
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

CudaModule runner::makePtxModule(std::string ptx, ArrayRef<std::string> kernels,
                                 StringRef arch) {
  CudaModule module;
  module.arch = arch.str();
  module.image = ptx + '\0';
  module.ptx = std::move(ptx);
  for (const std::string &kernel : kernels)
    module.entries[kernel] = kernel;
  return module;
}

Expected<std::vector<CudaDevice>> runner::listCudaDevices(int *driverVersion) {
  Expected<const DriverApi &> api = loadDriver();
  if (!api)
    return api.takeError();
  if (driverVersion && api->cuDriverGetVersion(driverVersion))
    *driverVersion = 0;
  int count = 0;
  if (CUresult result = api->cuDeviceGetCount(&count))
    return make_error<NoDeviceError>("cannot count the CUDA devices: " +
                                     api->describe(result));
  if (count == 0)
    return make_error<NoDeviceError>("the CUDA driver sees no devices");
  std::vector<CudaDevice> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CudaDevice device;
    device.ordinal = ordinal;
    CUdevice handle;
    char name[256] = "";
    if (CUresult result = api->cuDeviceGet(&handle, ordinal))
      return api->fail(result, "cannot open CUDA device " + Twine(ordinal));
    if (api->cuDeviceGetName(name, sizeof(name), handle) ||
        api->cuDeviceGetAttribute(&device.major,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  handle) ||
        api->cuDeviceGetAttribute(&device.minor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  handle) ||
        api->cuDeviceTotalMem(&device.memory, handle))
      return createStringError(inconvertibleErrorCode(),
                               "cannot query CUDA device %d", ordinal);
    device.name = name;
    devices.push_back(std::move(device));
  }
  return devices;
}

namespace {
/// Points standard output at standard error, or at the end of the file
/// `path`, while it lives (see the file comment).
class DeviceOutputToStderr {
public:
  explicit DeviceOutputToStderr(const std::string &path) {
#ifdef KSC_HAVE_DUP2
    std::fflush(stdout);
    int target = 2;
    if (!path.empty())
      target = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                    0644);
    if (target < 0)
      return;
    saved = dup(1);
    if (saved >= 0)
      dup2(target, 1);
    if (target != 2)
      close(target);
#endif
  }
  ~DeviceOutputToStderr() {
#ifdef KSC_HAVE_DUP2
    std::fflush(stdout);
    if (saved >= 0) {
      dup2(saved, 1);
      close(saved);
    }
#endif
  }

private:
  int saved = -1;
};

/// Device memory, freed when it goes.
struct DeviceBuffer {
  const DriverApi *api = nullptr;
  CUdeviceptr pointer = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (pointer)
      (void)api->cuMemFree(pointer);
  }
};

class CudaExecutorImpl : public CudaExecutor {
public:
  CudaExecutorImpl(const DriverApi &api, const Grid &grid,
                   const CudaLaunchOptions &options)
      : api(api), grid(grid), options(options) {}
  ~CudaExecutorImpl() override;

  Error open(const CudaModule &module);
  Error launch(StringRef kernel, std::vector<Argument> &args) override;
  std::string describe() const override {
    return "cuda (" + deviceName + ", " + arch + ", via " + options.via + ")";
  }
  bool lostContext() const override { return !broken.empty(); }
  const std::vector<LaunchTiming> &getTimings() const override {
    return timings;
  }

private:
  Expected<CUfunction> getFunction(StringRef kernel);
  Error upload(ArrayRef<Argument> args, ArrayRef<DeviceBuffer> buffers,
               bool writableOnly);
  Error synchronize(StringRef kernel);
  /// The blocks of a launch and their threads.
  struct Shape {
    unsigned blocks, blockSize;
  };
  Shape getShape(StringRef kernel, int64_t threads) const;
  Error allocatePartials(StringRef kernel, Shape shape, DeviceBuffer &buffer,
                         std::vector<std::vector<uint8_t>> &values);
  Error launchOnce(StringRef kernel, CUfunction function, void **params,
                   Shape shape);
  Error timeLaunches(StringRef kernel, CUfunction function, void **params,
                     Shape shape, ArrayRef<Argument> args,
                     ArrayRef<DeviceBuffer> buffers);

  const DriverApi &api;
  Grid grid;
  CudaLaunchOptions options;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUevent start = nullptr, stop = nullptr;
  std::string deviceName, arch;
  StringMap<std::string> entries;
  StringMap<CudaKernelLaunch> launches;
  StringMap<CUfunction> functions;
  std::vector<LaunchTiming> timings;
  /// After a failed launch the context is unusable (CUDA errors of a
  /// kernel are sticky): what happened, for later launches.
  std::string broken;
};
} // namespace

CudaExecutorImpl::~CudaExecutorImpl() {
  if (!context)
    return;
  // After a failed launch the handles are dead with the context. (Resetting
  // it frees its memory; it does not make it usable again: a kernel's
  // errors are sticky until the process ends.)
  if (broken.empty()) {
    if (start)
      (void)api.cuEventDestroy(start);
    if (stop)
      (void)api.cuEventDestroy(stop);
    if (module)
      (void)api.cuModuleUnload(module);
  } else {
    (void)api.cuDevicePrimaryCtxReset(device);
  }
  (void)api.cuDevicePrimaryCtxRelease(device);
}

Error CudaExecutorImpl::open(const CudaModule &code) {
  if (CUresult result = api.cuDeviceGet(&device, 0))
    return make_error<NoDeviceError>("cannot open CUDA device 0: " +
                                     api.describe(result));
  char name[256] = "";
  if (!api.cuDeviceGetName(name, sizeof(name), device))
    deviceName = name;
  arch = code.arch;
  if (CUresult result = api.cuDevicePrimaryCtxRetain(&context, device))
    return api.fail(result, "cannot create a context on " + deviceName);
  if (CUresult result = api.cuCtxSetCurrent(context))
    return api.fail(result, "cannot use the context of " + deviceName);
  char log[8192] = "";
  int jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER,
                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *jitValues[] = {log, reinterpret_cast<void *>(sizeof(log))};
  if (CUresult result = api.cuModuleLoadDataEx(&module, code.image.data(), 2,
                                               jitOptions, jitValues)) {
    module = nullptr;
    return api.fail(result, "the CUDA driver cannot load the " + code.arch +
                                " code on " + deviceName +
                                (log[0] ? " (" + Twine(log) + ")" : ""));
  }
  for (const auto &entry : code.entries)
    entries[entry.getKey()] = entry.getValue();
  launches = code.launches;
  return Error::success();
}

Expected<CUfunction> CudaExecutorImpl::getFunction(StringRef kernel) {
  auto cached = functions.find(kernel);
  if (cached != functions.end())
    return cached->second;
  auto entry = entries.find(kernel);
  if (entry == entries.end())
    return createStringError(inconvertibleErrorCode(),
                             "the GPU code has no kernel '%s'",
                             kernel.str().c_str());
  CUfunction function;
  if (CUresult result =
          api.cuModuleGetFunction(&function, module, entry->second.c_str()))
    return api.fail(result, "kernel '" + kernel + "': no entry point '" +
                                entry->second + "' in the GPU code");
  functions[kernel] = function;
  return function;
}

/// The bytes of `arg`'s buffer (the whole buffer of a strided view).
static size_t bufferBytes(const Argument &arg) { return arg.bytes.size(); }

Error CudaExecutorImpl::upload(ArrayRef<Argument> args,
                               ArrayRef<DeviceBuffer> buffers,
                               bool writableOnly) {
  for (auto [arg, buffer] : llvm::zip(args, buffers)) {
    if (!buffer.pointer || (writableOnly && arg.param.isConst))
      continue;
    if (CUresult result = api.cuMemcpyHtoD(buffer.pointer, arg.bytes.data(),
                                           bufferBytes(arg)))
      return api.fail(result, "cannot copy argument '" + arg.param.name +
                                  "' to the GPU");
  }
  return Error::success();
}

Error CudaExecutorImpl::synchronize(StringRef kernel) {
  CUresult result;
  {
    DeviceOutputToStderr redirect(options.deviceOutput);
    result = api.cuCtxSynchronize();
  }
  if (!result)
    return Error::success();
  broken = "kernel '" + kernel.str() +
           "' failed on the GPU: " + api.describe(result);
  return createStringError(
      inconvertibleErrorCode(),
      broken + (options.boundsCheck
                    ? "; a failed check (an index out of bounds, a full "
                      "tape) prints its message before this and stops the "
                      "kernel"
                    : "; a full tape prints its message before this and "
                      "stops the kernel; run with --bounds-check (the "
                      "default) to check the indices"));
}

CudaExecutorImpl::Shape CudaExecutorImpl::getShape(StringRef kernel,
                                                   int64_t threads) const {
  int64_t blocks = (threads + options.blockSize - 1) / options.blockSize;
  auto found = launches.find(kernel);
  if (found != launches.end() && found->second.serial)
    return {1, 1};
  if (found != launches.end() && found->second.blockSums)
    blocks = std::min(blocks, getMaxSumBlocks(options.blockSize));
  else if (options.gridStride)
    blocks = std::min(blocks, kMaxGridStrideBlocks);
  return {unsigned(blocks), options.blockSize};
}

Error CudaExecutorImpl::allocatePartials(
    StringRef kernel, Shape shape, DeviceBuffer &buffer,
    std::vector<std::vector<uint8_t>> &values) {
  auto found = launches.find(kernel);
  if (found == launches.end() || found->second.partialWords.empty())
    return Error::success();
  // Zero-filled, as the launch function's cudaMemsetAsync leaves them.
  std::vector<int64_t> extents;
  for (int64_t words : found->second.partialWords)
    extents.push_back(1 + int64_t(shape.blocks) * words);
  std::vector<int64_t> zeros(
      std::accumulate(extents.begin(), extents.end(), int64_t(0)));
  size_t bytes = zeros.size() * sizeof(int64_t);
  buffer.api = &api;
  if (CUresult result = api.cuMemAlloc(&buffer.pointer, bytes))
    return api.fail(result, "cannot allocate " + Twine(bytes) +
                                " bytes on the GPU for the partial sums of "
                                "kernel '" +
                                kernel + "'");
  if (CUresult result = api.cuMemcpyHtoD(buffer.pointer, zeros.data(), bytes))
    return api.fail(result,
                    "cannot clear the partial sums of kernel '" + kernel + "'");
  // Each as a 1-D array view: data, extent, stride.
  CUdeviceptr data = buffer.pointer;
  for (int64_t extent : extents) {
    int64_t view[3] = {0, extent, 1};
    std::memcpy(&view[0], &data, sizeof(data));
    values.emplace_back(sizeof(view));
    std::memcpy(values.back().data(), view, sizeof(view));
    data += extent * sizeof(int64_t);
  }
  return Error::success();
}

Error CudaExecutorImpl::launchOnce(StringRef kernel, CUfunction function,
                                   void **params, Shape shape) {
  if (CUresult result =
          api.cuLaunchKernel(function, shape.blocks, 1, 1, shape.blockSize, 1,
                             1, 0, nullptr, params, nullptr))
    return api.fail(result, "kernel '" + kernel + "': cannot launch " +
                                Twine(shape.blocks) + " blocks of " +
                                Twine(shape.blockSize) + " threads");
  return Error::success();
}

Error CudaExecutorImpl::timeLaunches(StringRef kernel, CUfunction function,
                                     void **params, Shape shape,
                                     ArrayRef<Argument> args,
                                     ArrayRef<DeviceBuffer> buffers) {
  if ((!start && api.cuEventCreate(&start, 0)) ||
      (!stop && api.cuEventCreate(&stop, 0)))
    return createStringError(inconvertibleErrorCode(),
                             "cannot create CUDA events to time kernels");
  LaunchTiming timing;
  timing.kernel = kernel.str();
  timing.threads = grid[0] * grid[1] * grid[2];
  timing.blocks = shape.blocks;
  timing.blockSize = shape.blockSize;
  for (const Argument &arg : args)
    if (arg.param.isArray)
      timing.bytes += (arg.param.isConst ? 1 : 2) * arg.numElements() *
                      arg.param.type.size();
  for (unsigned k = 0; k < options.repeat; ++k) {
    // Every launch starts from the inputs.
    if (Error error = upload(args, buffers, /*writableOnly=*/true))
      return error;
    if (CUresult result = api.cuEventRecord(start, nullptr))
      return api.fail(result, "cannot time kernel '" + kernel + "'");
    if (Error error = launchOnce(kernel, function, params, shape))
      return error;
    if (CUresult result = api.cuEventRecord(stop, nullptr))
      return api.fail(result, "cannot time kernel '" + kernel + "'");
    if (Error error = synchronize(kernel))
      return error;
    float milliseconds = 0;
    if (CUresult result = api.cuEventElapsedTime(&milliseconds, start, stop))
      return api.fail(result, "cannot time kernel '" + kernel + "'");
    timing.milliseconds.push_back(milliseconds);
  }
  timings.push_back(std::move(timing));
  return Error::success();
}

Error CudaExecutorImpl::launch(StringRef kernel, std::vector<Argument> &args) {
  if (!broken.empty())
    return createStringError(inconvertibleErrorCode(),
                             "cannot launch kernel '%s': the GPU is unusable "
                             "after an earlier failure (%s)",
                             kernel.str().c_str(), broken.c_str());
  Expected<CUfunction> function = getFunction(kernel);
  if (!function)
    return function.takeError();

  // Device copies of the arrays, and the parameters: the grid, then every
  // argument, as host bytes the driver copies.
  std::vector<DeviceBuffer> buffers(args.size());
  std::vector<std::vector<uint8_t>> values;
  values.reserve(args.size() + 1);
  values.emplace_back(sizeof(int64_t) * 3);
  std::memcpy(values.back().data(), grid.data(), sizeof(int64_t) * 3);
  for (auto [arg, buffer] : llvm::zip(args, buffers)) {
    if (!arg.param.isArray) {
      values.push_back(arg.bytes);
      continue;
    }
    buffer.api = &api;
    if (size_t bytes = bufferBytes(arg))
      if (CUresult result = api.cuMemAlloc(&buffer.pointer, bytes))
        return api.fail(result, "cannot allocate " + Twine(bytes) +
                                    " bytes on the GPU for argument '" +
                                    arg.param.name + "'");
    size_t rank = arg.shape.size();
    std::vector<int64_t> view(1 + 2 * rank);
    uint64_t data = buffer.pointer
                        ? buffer.pointer + arg.offset * arg.param.type.size()
                        : 0;
    std::memcpy(&view[0], &data, sizeof(data));
    int64_t stride = 1;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      view[1 + d] = arg.shape[d];
      view[1 + rank + d] = arg.strides.empty() ? stride : arg.strides[d];
      stride *= arg.shape[d];
    }
    values.emplace_back(view.size() * sizeof(int64_t));
    std::memcpy(values.back().data(), view.data(), values.back().size());
  }
  // An empty grid launches nothing, as K_launch does.
  int64_t threads = grid[0] * grid[1] * grid[2];
  Shape shape = getShape(kernel, threads);
  DeviceBuffer partials;
  if (threads > 0)
    if (Error error = allocatePartials(kernel, shape, partials, values))
      return error;
  std::vector<void *> params;
  for (std::vector<uint8_t> &value : values)
    params.push_back(value.data());
  if (Error error = upload(args, buffers, /*writableOnly=*/false))
    return error;

  if (threads > 0) {
    if (Error error = launchOnce(kernel, *function, params.data(), shape))
      return error;
    if (Error error = synchronize(kernel))
      return error;
    if (options.repeat)
      if (Error error = timeLaunches(kernel, *function, params.data(), shape,
                                     args, buffers))
        return error;
  }

  for (auto [arg, buffer] : llvm::zip(args, buffers)) {
    if (!buffer.pointer || arg.param.isConst)
      continue;
    if (CUresult result = api.cuMemcpyDtoH(arg.bytes.data(), buffer.pointer,
                                           bufferBytes(arg)))
      return api.fail(result, "cannot copy argument '" + arg.param.name +
                                  "' back from the GPU");
  }
  return Error::success();
}

Expected<std::unique_ptr<CudaExecutor>>
CudaExecutor::create(const CudaModule &module, const Grid &grid,
                     const CudaLaunchOptions &options) {
  Expected<const DriverApi &> api = loadDriver();
  if (!api)
    return api.takeError();
  if (options.blockSize < 1 || options.blockSize > 1024)
    return createStringError(inconvertibleErrorCode(),
                             "a block has 1 to 1024 threads, not %u",
                             options.blockSize);
  auto executor = std::make_unique<CudaExecutorImpl>(*api, grid, options);
  if (Error error = executor->open(module))
    return std::move(error);
  return std::unique_ptr<CudaExecutor>(std::move(executor));
}

CudaJit::~CudaJit() = default;

namespace {
class CudaJitImpl : public CudaJit {
public:
  explicit CudaJitImpl(const DriverApi &api) : api(api) {}
  ~CudaJitImpl() override {
    if (context)
      (void)api.cuDevicePrimaryCtxRelease(device);
  }
  Error open() {
    if (CUresult result = api.cuDeviceGet(&device, 0))
      return make_error<NoDeviceError>("cannot open CUDA device 0: " +
                                       api.describe(result));
    if (CUresult result = api.cuDevicePrimaryCtxRetain(&context, device)) {
      context = nullptr;
      return api.fail(result, "cannot create a context on CUDA device 0");
    }
    return Error::success();
  }
  Expected<std::string> compile(StringRef ptx) override;

private:
  const DriverApi &api;
  CUdevice device = 0;
  CUcontext context = nullptr;
};
} // namespace

Expected<std::string> CudaJitImpl::compile(StringRef ptx) {
  // (The calling thread's current context.)
  if (CUresult result = api.cuCtxSetCurrent(context))
    return api.fail(result, "cannot use the context of CUDA device 0");
  char log[8192] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  CUlinkState state = nullptr;
  if (CUresult result = api.cuLinkCreate(2, options, values, &state))
    return api.fail(result, "the CUDA driver cannot compile PTX");
  scope_exit destroy([&] { (void)api.cuLinkDestroy(state); });
  std::string text = ptx.str();
  void *cubin = nullptr;
  size_t size = 0;
  CUresult result = api.cuLinkAddData(state, CU_JIT_INPUT_PTX, text.data(),
                                      text.size() + 1, "ksc.ptx", 0, nullptr,
                                      nullptr);
  if (!result)
    result = api.cuLinkComplete(state, &cubin, &size);
  if (result)
    return api.fail(result, "the CUDA driver cannot compile the PTX" +
                                (log[0] ? " (" + Twine(log) + ")" : ""));
  // (The CUBIN belongs to the link state.)
  return std::string(static_cast<const char *>(cubin), size);
}

Expected<std::unique_ptr<CudaJit>> CudaJit::create() {
  Expected<const DriverApi &> api = loadDriver();
  if (!api)
    return api.takeError();
  auto jit = std::make_unique<CudaJitImpl>(*api);
  if (Error error = jit->open())
    return std::move(error);
  return std::unique_ptr<CudaJit>(std::move(jit));
}

void runner::writeTimings(raw_ostream &os, ArrayRef<LaunchTiming> timings,
                          StringRef device) {
  os << "time on " << device
     << " (CUDA events; bandwidth: the bytes of every array once, writable "
        "ones twice, per median time)\n";
  size_t kernelWidth = StringRef("kernel").size();
  for (const LaunchTiming &timing : timings)
    kernelWidth = std::max(kernelWidth, timing.kernel.size());
  os << left_justify("kernel", kernelWidth)
     << "     threads  blocks x size  launches   median ms      min ms"
        "      max ms          bytes      GB/s\n";
  for (const LaunchTiming &timing : timings) {
    if (timing.milliseconds.empty())
      continue;
    double median = timing.median();
    auto [min, max] = std::minmax_element(timing.milliseconds.begin(),
                                          timing.milliseconds.end());
    std::string blocks = std::to_string(timing.blocks) + " x " +
                         std::to_string(timing.blockSize);
    os << left_justify(timing.kernel, kernelWidth) << "  "
       << right_justify(std::to_string(timing.threads), 10) << "  "
       << right_justify(blocks, 13) << "  "
       << right_justify(std::to_string(timing.milliseconds.size()), 8) << "  "
       << format("%10.4f  %10.4f  %10.4f", median, *min, *max) << "  "
       << right_justify(std::to_string(timing.bytes), 13) << "  "
       << format("%8.1f", median > 0 ? timing.bytes / (median * 1e6) : 0.0)
       << "\n";
  }
}
