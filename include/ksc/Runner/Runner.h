//===- Runner.h - Run kernels on JSON data ------------------*- C++ -*-===//
//
// Part of ksc. The library behind ksc-run: turns a JSON object of argument
// values into kernel arguments, compiles emitted C++ into a shared library
// with the host compiler (cached by content hash), launches a kernel from
// it, and writes the arrays back as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef KSC_RUNNER_RUNNER_H
#define KSC_RUNNER_RUNNER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <array>
#include <string>
#include <vector>

namespace mlir {
class Type;
} // namespace mlir

namespace ksc::ks {
class KernelOp;
} // namespace ksc::ks

namespace ksc::runner {

/// The scalar types of the kernel language, as ksc-run stores them.
enum class Scalar { F32, F64, I1, I32, U32, I64 };

llvm::StringRef getScalarName(Scalar scalar); // "float", "int", ...
size_t getScalarSize(Scalar scalar);

/// One parameter of a kernel.
struct Param {
  std::string name;
  Scalar scalar;
  bool isArray = false;
  bool isConst = false;
  unsigned rank = 0;
  /// The shape of one value: empty for a scalar, {3} for a vec3, {3, 3} for
  /// a mat33 (given in JSON as nested lists of numbers).
  std::vector<int64_t> components;
  /// The number of scalars in one value.
  int64_t numComponents() const;
};

struct Signature {
  std::string kernel;
  std::vector<Param> params;
  /// "a, x, y" for messages.
  std::string paramList() const;
  /// `float a, array<const float> x, ...` for messages.
  std::string describe() const;
};

/// The signature of a kernel, or an error for a type ksc-run cannot pass.
llvm::Expected<Signature> getSignature(ks::KernelOp kernel);

/// The value of one argument on the host: a scalar, or an array's elements
/// (contiguous, row-major) and shape.
struct Argument {
  Param param;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  /// A strided view (`{"data": [...], "shape": [...], "strides": [...]}`):
  /// the strides in elements and the element of `bytes` the view starts
  /// at; `bytes` then holds the whole buffer. Empty for contiguous arrays.
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t numElements() const;
  /// The number of elements `bytes` holds.
  int64_t numStoredElements() const;
};

/// Parses the JSON object `inputs` (argument name -> value) against `sig`.
/// Every error names the argument it is about.
llvm::Expected<std::vector<Argument>>
parseArguments(const Signature &sig, const llvm::json::Value &inputs);

/// Writes `{"name": [...], ...}` with the contents of every array argument,
/// each number printed with the fewest digits that read back exactly.
void writeArrays(llvm::raw_ostream &os, llvm::ArrayRef<Argument> args);

/// The generator of `{"random": ...}` inputs: SplitMix64 (Steele, Lea and
/// Flood 2014), so that the same seed gives the same data everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box-Muller).
  double normal();

private:
  uint64_t state;
};

struct HostCompiler {
  /// The C++ compiler to run; found on PATH when not a path.
  std::string command;
  /// Where compiled kernels are cached.
  std::string cacheDir;
  /// ksc's runtime header directory.
  std::string runtimeDir;
  /// Extra flags for the compiler.
  std::vector<std::string> flags;
};

/// The compiler and cache directory ksc-run uses unless told otherwise:
/// $KSC_CXX, then the compiler ksc was built with; $KSC_CACHE_DIR, then
/// $XDG_CACHE_HOME/ksc, then ~/.cache/ksc.
HostCompiler getDefaultHostCompiler();

/// Compiles `source` into a shared library (or finds it in the cache) and
/// returns its path.
llvm::Expected<std::string> compileSharedLibrary(llvm::StringRef source,
                                                 const HostCompiler &compiler);

/// The extents of a launch grid (1 for the dimensions a launch does not
/// use).
using Grid = std::array<int64_t, 3>;

/// Parses `--dim` text: `N`, `N,M` or `N,M,K`, each a non-negative integer,
/// with at most 2147483647 threads in all.
llvm::Expected<Grid> parseGrid(llvm::StringRef text);

/// Loads `library` and runs every thread of the launch grid `grid` of
/// `kernel` on `args`, whose arrays are updated in place.
llvm::Error launch(llvm::StringRef library, llvm::StringRef kernel,
                   const Grid &grid, std::vector<Argument> &args);

} // namespace ksc::runner

#endif // KSC_RUNNER_RUNNER_H
