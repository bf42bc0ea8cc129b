//===- inputs.cpp - libFuzzer target: ksc-run's JSON input reader --------===//
//
// Part of ksc. Reads each input as ksc-run reads an `--inputs` file (strict
// JSON, then the arguments of a kernel whose parameters have every kind of
// type ksc-run passes: scalars, vectors, matrices, structs, arrays of one
// to three dimensions, unsigned ints) and writes the arrays back as ksc-run
// prints them. Errors in the input are expected; a crash, a sanitizer
// report, a hang or a leak is a bug. Arrays are limited to 64 MiB each
// (ksc-run allows this machine's memory), within libFuzzer's default
// memory limit.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Runner.h"
#include "ksc/Support/Json.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace ksc;
using namespace ksc::runner;

static Param param(std::string name, ValueType type, unsigned rank = 0,
                   bool isConst = false) {
  Param param;
  param.name = std::move(name);
  param.type = std::move(type);
  param.isArray = rank > 0;
  param.rank = rank;
  param.isConst = isConst;
  return param;
}

/// `kernel(float a, uint n, vec3 v, mat33d m, Particle p,
///         array<float> x, array<const vec3, 2> y, array<int, 3> z,
///         array<Particle> ps, array<bool> b, array<double> d)`.
static Signature makeSignature() {
  ValueType vec3 = ValueType::get(Scalar::F32, {3});
  ValueType particle = ValueType::getStruct(
      "Particle", {{"pos", vec3},
                   {"alive", ValueType::get(Scalar::I1)},
                   {"mass", ValueType::get(Scalar::F64)},
                   {"id", ValueType::get(Scalar::I64)}});
  Signature sig;
  sig.kernel = "kernel";
  sig.params = {
      param("a", ValueType::get(Scalar::F32)),
      param("n", ValueType::get(Scalar::U32)),
      param("v", vec3),
      param("m", ValueType::get(Scalar::F64, {3, 3})),
      param("p", particle),
      param("x", ValueType::get(Scalar::F32), 1),
      param("y", vec3, 2, /*isConst=*/true),
      param("z", ValueType::get(Scalar::I32), 3),
      param("ps", particle, 1),
      param("b", ValueType::get(Scalar::I1), 1),
      param("d", ValueType::get(Scalar::F64), 1),
  };
  return sig;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const Signature sig = makeSignature();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<llvm::json::Value> inputs = parseJsonStrictly(text);
  if (!inputs) {
    llvm::consumeError(inputs.takeError());
    return 0;
  }
  ArgumentLimits limits;
  limits.memoryBytes = uint64_t(64) << 20;
  // A whole object of arguments, as ksc-run reads it, and each member on
  // its own as the value of every parameter, so that inputs need not name
  // all eleven to reach the reader of each type.
  llvm::Expected<std::vector<Argument>> args =
      parseArguments(sig, *inputs, limits);
  if (args) {
    std::string out;
    llvm::raw_string_ostream os(out);
    writeArrays(os, *args);
  } else {
    llvm::consumeError(args.takeError());
  }
  if (const llvm::json::Object *object = inputs->getAsObject())
    for (const Param &p : sig.params)
      if (const llvm::json::Value *value = object->get(p.name)) {
        llvm::Expected<Argument> arg = parseArgument(p, *value, limits);
        if (!arg) {
          llvm::consumeError(arg.takeError());
          continue;
        }
        std::string out;
        llvm::raw_string_ostream os(out);
        writeArrays(os, llvm::ArrayRef<Argument>(*arg));
      }
  return 0;
}
