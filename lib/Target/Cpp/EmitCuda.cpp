//===- EmitCuda.cpp - What only CUDA C++ has --------------------------===//
//
// Part of ksc. A module lowered by `convert-ks-to-cuda` prints like a CPU
// one (the same device functions and thread bodies, `__device__`), except
// for its launchers: each is the `__global__` function of its kernel,
//
//   __global__ void saxpy(ksc::grid dim, float a, ...) {
//     int64_t tid = int64_t(blockIdx.x) * int64_t(blockDim.x) + ...;
//     if (tid < dim.size()) {
//       ksc_kernels::saxpy(int(tid), a, x, y);
//     }
//   }
//
// followed by its host launch function, which NVRTC (device code only)
// skips:
//
//   #ifndef __CUDACC_RTC__
//   extern "C" int saxpy_launch(ksc::grid dim, cudaStream_t stream,
//                               float a, ...);
//   #endif
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Dialect/Ks/IR/SourceNames.h"
#include "ksc/Support/CudaLaunch.h"
#include "ksc/Support/Escape.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace ksc;
using namespace ksc::cpp;


bool Emitter::isGridStrideLauncher(func::FuncOp launcher) {
  auto launch = launcher->getAttrOfType<StringAttr>(ks::kCudaLaunchAttr);
  return launch && launch.getValue() == "grid-stride";
}

bool Emitter::isSerialLauncher(func::FuncOp launcher) {
  auto launch = launcher->getAttrOfType<StringAttr>(ks::kCudaLaunchAttr);
  return launch && launch.getValue() == "serial";
}

bool Emitter::hasBlockSums(func::FuncOp launcher) {
  return llvm::any_of(launcher.getOps<ks::FlushAccumulatorOp>(),
                      [](ks::FlushAccumulatorOp flush) {
                        return flush.getBlock();
                      });
}

FailureOr<Expr> Emitter::buildGpuExpr(Operation &op) {
  if (!isCuda())
    return op.emitError("cannot emit '")
           << op.getName() << "' as C++ for the CPU; emit CUDA C++";
  StringRef variable;
  gpu::Dimension dimension;
  if (auto id = dyn_cast<gpu::ThreadIdOp>(op)) {
    variable = "threadIdx";
    dimension = id.getDimension();
  } else if (auto id = dyn_cast<gpu::BlockIdOp>(op)) {
    variable = "blockIdx";
    dimension = id.getDimension();
  } else if (auto dim = dyn_cast<gpu::BlockDimOp>(op)) {
    variable = "blockDim";
    dimension = dim.getDimension();
  } else if (auto dim = dyn_cast<gpu::GridDimOp>(op)) {
    variable = "gridDim";
    dimension = dim.getDimension();
  } else {
    return op.emitError("cannot emit '")
           << op.getName() << "' as CUDA C++ (not supported by the emitter)";
  }
  return Expr((variable + "." + gpu::stringifyDimension(dimension)).str(),
              kPostfix);
}

std::string Emitter::cudaKernelQualifiers() {
  if (!options.blockSize)
    return "";
  return "__launch_bounds__(" + std::to_string(options.blockSize) + ") ";
}

void Emitter::emitLaunchPartials(
    ArrayRef<std::pair<std::string, int64_t>> partials) {
  if (partials.empty())
    return;
  // One allocation on the stream for every sum's ticket and partials.
  os << "// The blocks' sums, added in block order by the last block: per "
        "sum,\n// a ticket and its elements per block.\n";
  os << "int64_t words = ";
  llvm::interleave(
      partials,
      [&](const std::pair<std::string, int64_t> &sum) {
        os << "(1 + blocks * " << sum.second << ")";
      },
      [&] { os << " + "; });
  os << ";\n";
  os << "int64_t *partials = nullptr;\n";
  os << "if (cudaError_t error = cudaMallocAsync(reinterpret_cast<void **>("
        "&partials),\n"
     << "                                      words * sizeof(int64_t), "
        "stream))\n";
  os << "  return error;\n";
  os << "if (cudaError_t error =\n"
     << "        cudaMemsetAsync(partials, 0, words * sizeof(int64_t), "
        "stream)) {\n";
  os << "  cudaFreeAsync(partials, stream);\n";
  os << "  return error;\n";
  os << "}\n";
  std::string start = "partials";
  for (auto [name, words] : partials) {
    std::string extent = "1 + blocks * " + std::to_string(words);
    os << "ksc::array<int64_t> " << name << "(" << start << ", " << extent
       << ");\n";
    start = name + ".data() + " + name + ".size()";
  }
}

LogicalResult Emitter::emitCudaLaunch(func::FuncOp launcher) {
  StringRef kernel =
      launcher->getAttrOfType<StringAttr>(kLaunchOfAttr).getValue();
  if (!launcher->hasAttr(ks::kCudaLaunchAttr))
    return launcher.emitError("cannot emit the launcher of kernel '")
           << kernel << "' as CUDA C++; lower it with convert-ks-to-cuda";
  FunctionType type = launcher.getFunctionType();
  if (type.getNumInputs() == 0 || !isa<ks::GridType>(type.getInput(0)))
    return launcher.emitError("a launcher takes the launch grid (!ks.grid) "
                              "as its first argument");
  bool gridStride = isGridStrideLauncher(launcher);
  bool serial = isSerialLauncher(launcher);
  unsigned blockSize =
      options.blockSize ? options.blockSize : kDefaultCudaBlockSize;
  // A launch whose threads sum across the block has few blocks (one
  // atomic update per block and element).
  int64_t maxBlocks = serial                   ? 1
                      : hasBlockSums(launcher) ? getMaxSumBlocks(blockSize)
                      : gridStride             ? kMaxGridStrideBlocks
                                               : 0;
  std::string name = functionNames.lookup(kernel);

  // The parameters: the kernel's, with their source names (args when
  // unnamed), after the grid and the stream; `fromArgs` reads them from a
  // C entry point's `args`.
  std::string kernelParams, forwardArgs = "dim, stream", fromArgs;
  std::string args = "&dim";
  std::string types = "ksc::grid";
  // Names are unique among the parameters (a derivative kernel's `tan_x`
  // may meet a `tan_x` of the source): later ones get a suffix.
  // (Nor may they take the names of the launch function's locals.)
  // The partials of ordered sums (ks.partial_words) are the launch's own.
  llvm::StringSet<> taken = {"dim",       "stream", "blocks",   "kernel",
                             "arguments", "words",  "partials", "error"};
  SmallVector<std::pair<std::string, int64_t>> partials;
  for (unsigned i = 1, e = type.getNumInputs(); i < e; ++i) {
    FailureOr<std::string> typeText =
        typeName(cppType(type.getInput(i), ks::isUnsignedArg(launcher, i)),
                 launcher.getLoc());
    if (failed(typeText))
      return failure();
    auto argName = launcher.getArgAttrOfType<StringAttr>(i, kNameAttr);
    std::string base = argName && isCppIdentifier(argName.getValue())
                           ? argName.getValue().str()
                           : "arg";
    std::string arg = base;
    for (unsigned n = 1; !taken.insert(arg).second; ++n)
      arg = base + "_" + std::to_string(n);
    args += ", &" + arg;
    types += ", " + *typeText;
    if (auto words =
            launcher.getArgAttrOfType<IntegerAttr>(i, ks::kPartialWordsAttr)) {
      partials.push_back({arg, words.getInt()});
      continue;
    }
    fromArgs += ",\n    ksc::arg<" + *typeText + ">(args[" +
                std::to_string(i - 1 - partials.size()) + "])";
    kernelParams += ", " + *typeText + " " + arg;
    forwardArgs += ", " + arg;
  }

  // NVRTC, which compiles device code only, skips the host code.
  os << "#ifndef __CUDACC_RTC__\n";
  std::string comment =
      ("// Launches kernel " + kernel + " on `stream` " +
       (serial ? std::string("on one GPU thread, which runs\n// every thread "
                             "of `dim` in order (ksc --deterministic)")
               : "in blocks of " + std::to_string(blockSize) +
                     " GPU threads:\n// " +
                     (maxBlocks
                          ? "at most " + std::to_string(maxBlocks) + " blocks"
                          : std::string("one GPU thread per thread of "
                                        "`dim`"))) +
       ". Returns the cudaError_t\n" +
       "// cudaErrorInvalidValue when `dim` has a negative extent or more "
       "than\n// 2^31 - 1 threads, else that of the launch (cudaSuccess, "
       "0, when it\n// started), as an int: callers need no CUDA headers.\n")
          .str();
  std::string symbol = cSymbol(name + "_launch");
  // The header spells cudaStream_t as what it is, `CUstream_st *`.
  std::string headerParams = "ksc::grid dim, CUstream_st *stream" + kernelParams;
  headerDeclarations +=
      comment + "extern \"C\" int " + symbol + "(" + headerParams + ");\n\n";
  // In a namespace, C++ callers get the function under the name it has
  // without one, in the header only (the C symbol is the definition).
  if (symbol != name + "_launch")
    headerDeclarations += "// " + symbol + " for C++ callers.\ninline int " +
                          name + "_launch(" + headerParams + ") {\n  return " +
                          symbol + "(" + forwardArgs + ");\n}\n\n";
  os << comment;
  os << "extern \"C\" int " << symbol
     << "(ksc::grid dim, cudaStream_t stream" << kernelParams << ") {\n";
  os.indent();
  os << "if (!ksc::valid_grid(dim))\n";
  os << "  return cudaErrorInvalidValue;\n";
  os << "if (dim.size() == 0)\n";
  os << "  return cudaSuccess;\n";
  if (serial)
    os << "int64_t blocks = 1;\n";
  else
    os << "int64_t blocks = (dim.size() + " << blockSize - 1 << ") / "
       << blockSize << ";\n";
  if (maxBlocks && !serial)
    os << "if (blocks > " << maxBlocks << ")\n  blocks = " << maxBlocks
       << ";\n";
  // cudaLaunchKernel rather than <<<...>>>, which Clang cannot compile
  // against CUDA 13's headers. The pointer's type picks the kernel among
  // functions of its name (libc's `select`); qualified: a parameter may
  // have the kernel's name.
  std::string qualified = "::" + name;
  if (!options.cppNamespace.empty())
    qualified = "::" + options.cppNamespace + qualified;
  emitLaunchPartials(partials);
  os << "void (*kernel)(" << types << ") = " << qualified << ";\n";
  os << "void *arguments[] = {" << args << "};\n";
  os << (partials.empty() ? "return" : "cudaError_t error =")
     << " cudaLaunchKernel(reinterpret_cast<const void *>(kernel), "
     << "dim3(unsigned(blocks)), dim3(" << (serial ? 1 : blockSize)
     << "), arguments, 0, stream);\n";
  if (!partials.empty()) {
    os << "cudaError_t freed = cudaFreeAsync(partials, stream);\n";
    os << "return error ? error : freed;\n";
  }
  os.unindent();
  os << "}\n";
  if (options.cudaEntryPoints)
    emitCudaEntryPoint(kernel, symbol, fromArgs);
  os << "#endif // __CUDACC_RTC__\n\n";
  return success();
}

void Emitter::emitCudaEntryPoint(StringRef kernel, StringRef launch,
                                 StringRef fromArgs) {
  std::string symbol = cSymbol(("ksc_cuda_launch_" + kernel).str());
  os << "\n// C entry point (for Python modules): dim[0..2] are the extents "
        "of the launch\n// grid, args[i] points to argument i (a scalar, or "
        "a ksc_array_desc for an\n// array). Returns 0, or 1 with a message "
        "in error.\n";
  os << "extern \"C\" int " << symbol
     << "(const int64_t *dim, void *stream, void *const *"
     << (fromArgs.empty() ? "/*args*/" : "args")
     << ", char *error, size_t error_size) {\n";
  os.indent();
  os << "cudaError_t status = cudaError_t(" << launch
     << "(ksc::grid(dim[0], dim[1], dim[2]), "
        "static_cast<cudaStream_t>(stream)"
     << fromArgs << "));\n";
  os << "if (status == cudaSuccess)\n  return 0;\n";
  os << "if (error && error_size)\n";
  os << "  std::snprintf(error, error_size, \"kernel '%s': %s\", "
     << cppStringLiteral(kernel) << ", cudaGetErrorString(status));\n";
  os << "return 1;\n";
  os.unindent();
  os << "}\n";
}
