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

#include "ksc/Support/SplitMix64.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
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

/// The type of one value ksc-run passes: a scalar, a vector or matrix of
/// scalars, or a struct of such values (nested structs allowed), laid out
/// as the emitted C++ lays it out (fields in order, each at a multiple of
/// its alignment, the size a multiple of the largest alignment).
struct ValueType {
  struct Field;

  /// The scalar of a scalar, vector or matrix; unused for a struct.
  Scalar scalar = Scalar::F32;
  /// The shape of a vector or matrix: empty for a scalar, {3} for a vec3,
  /// {3, 3} for a mat33 (given in JSON as nested lists of numbers).
  std::vector<int64_t> components;
  /// The name and fields of a struct (given in JSON as an object).
  std::string structName;
  std::vector<Field> fields;

  static ValueType get(Scalar scalar, std::vector<int64_t> components = {});
  /// A struct whose fields are laid out in order.
  static ValueType
  getStruct(std::string name,
            std::vector<std::pair<std::string, ValueType>> fields);

  bool isStruct() const { return !structName.empty(); }
  /// The size and alignment of one value in bytes.
  size_t size() const { return byteSize; }
  size_t alignment() const { return byteAlignment; }
  /// `float`, `vec3`, `mat33d`, `vec2i`, or the struct's name.
  std::string describe() const;
  /// Calls `fn(scalar, offset)` for every scalar of one value, in order.
  void forEachScalar(llvm::function_ref<void(Scalar, size_t)> fn,
                     size_t offset = 0) const;
  /// Whether values of the type have derivatives: they hold a float or a
  /// double (a struct in some field).
  bool hasDerivative() const;

private:
  size_t byteSize = 4;
  size_t byteAlignment = 4;
};

struct ValueType::Field {
  std::string name;
  ValueType type;
  /// The byte offset of the field in its struct.
  size_t offset = 0;
};

/// The type of `type` (a scalar, vector, matrix or !ks.struct type) as
/// ksc-run passes it; an i32 is a uint32_t where `isUnsigned` (a parameter
/// marked ks.unsigned). Fails on any other type.
llvm::Expected<ValueType> getValueType(mlir::Type type, bool isUnsigned);

/// One parameter of a kernel.
struct Param {
  std::string name;
  /// The type of the parameter, or of an array's elements.
  ValueType type;
  bool isArray = false;
  bool isConst = false;
  unsigned rank = 0;
  /// `float`, `array<const vec3, 2>`, `Particle` for messages.
  std::string describe() const;
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

/// The value of one argument on the host: a scalar or struct, or an array's
/// elements (contiguous, row-major) and shape, laid out as C++ lays them
/// out (padding zeroed).
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

/// What the arguments of one launch may take.
struct ArgumentLimits {
  /// The most bytes one array (or struct or scalar) argument may take; 0:
  /// no limit but the 1 TiB every argument has.
  uint64_t memoryBytes = 0;
  /// The physical memory of this machine (ksc-run's limit).
  static ArgumentLimits forThisMachine();
};

/// Parses the JSON object `inputs` (argument name -> value) against `sig`.
/// Every error names the argument it is about.
llvm::Expected<std::vector<Argument>>
parseArguments(const Signature &sig, const llvm::json::Value &inputs,
               const ArgumentLimits &limits = ArgumentLimits::forThisMachine());

/// Parses the value of one argument, `param` (errors name it). The value
/// of a derivative (`isDerivative`) may leave out the struct fields that
/// have no derivative (integers, bool): they are zero.
llvm::Expected<Argument>
parseArgument(const Param &param, const llvm::json::Value &value,
              const ArgumentLimits &limits = ArgumentLimits::forThisMachine(),
              bool isDerivative = false);

/// Writes `{"name": [...], ...}` with the contents of every array argument
/// (structs as objects), each number printed with the fewest digits that
/// read back exactly.
void writeArrays(llvm::raw_ostream &os, llvm::ArrayRef<Argument> args);

/// `value` with 6 significant digits, as messages print numbers.
std::string formatValue(double value);

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

/// Runs the host compiler `program` with `flags`, the runtime header's
/// directory on the include path and then `args`, on emitted C++ whose text
/// is `source`; its output goes to `logPath` and then into `log`. Returns
/// whether it succeeded.
///
/// GCC and Clang compile the runtime header once per compiler, flags and
/// the `#define` lines `source` has before it includes the header, into a
/// precompiled header in `compiler.cacheDir` (ksc-pch-KEY/), and every
/// compilation uses it: the header is most of what a small kernel's
/// compilation parses. A compilation that fails with it but succeeds
/// without succeeds, and the header is not used again (ksc-pch-KEY/failed
/// says why).
bool runHostCompiler(llvm::StringRef program,
                     llvm::ArrayRef<std::string> flags, llvm::StringRef source,
                     llvm::ArrayRef<llvm::StringRef> args,
                     const HostCompiler &compiler, llvm::StringRef logPath,
                     std::string &log);

/// Compiles `source` into a shared library (or finds it in the cache) and
/// returns its path. A cached library that is not as it was written (its
/// size and SHA-256 are recorded next to it: cut short by a full disk,
/// written over) or that does not load is compiled again, with a warning
/// on stderr.
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
