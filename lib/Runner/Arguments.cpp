//===- Arguments.cpp - Kernel arguments from and to JSON --------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Runner/Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <charconv>
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

StringRef runner::getScalarName(Scalar scalar) {
  switch (scalar) {
  case Scalar::F32:
    return "float";
  case Scalar::F64:
    return "double";
  case Scalar::I1:
    return "bool";
  case Scalar::I32:
    return "int";
  case Scalar::U32:
    return "uint32_t";
  case Scalar::I64:
    return "int64_t";
  }
  llvm_unreachable("unknown scalar");
}

size_t runner::getScalarSize(Scalar scalar) {
  switch (scalar) {
  case Scalar::F32:
  case Scalar::I32:
  case Scalar::U32:
    return 4;
  case Scalar::F64:
  case Scalar::I64:
    return 8;
  case Scalar::I1:
    return 1;
  }
  llvm_unreachable("unknown scalar");
}

/// The scalar of `type`; an i32 is a uint32_t if `isUnsigned` (a parameter
/// marked ks.unsigned).
static std::optional<Scalar> toScalar(mlir::Type type, bool isUnsigned) {
  if (type.isF32())
    return Scalar::F32;
  if (type.isF64())
    return Scalar::F64;
  if (type.isSignlessInteger(1))
    return Scalar::I1;
  if (type.isSignlessInteger(32))
    return isUnsigned ? Scalar::U32 : Scalar::I32;
  if (type.isUnsignedInteger(32))
    return Scalar::U32;
  if (type.isSignlessInteger(64))
    return Scalar::I64;
  return std::nullopt;
}

int64_t Param::numComponents() const {
  int64_t n = 1;
  for (int64_t extent : components)
    n *= extent;
  return n;
}

/// `float`, `vec3`, `mat33d`, `vec2i`.
static std::string describeValueType(const Param &param) {
  if (param.components.empty())
    return getScalarName(param.scalar).str();
  std::string suffix = param.scalar == Scalar::F64   ? "d"
                       : param.scalar == Scalar::I32 ? "i"
                                                     : "";
  std::string n = std::to_string(param.components[0]);
  return (param.components.size() == 1 ? "vec" + n : "mat" + n + n) + suffix;
}

static std::string describeParam(const Param &param) {
  if (!param.isArray)
    return describeValueType(param);
  std::string text = "array<";
  if (param.isConst)
    text += "const ";
  text += describeValueType(param);
  if (param.rank != 1)
    text += ", " + std::to_string(param.rank);
  return text + ">";
}

std::string Signature::paramList() const {
  std::string text;
  ListSeparator sep;
  for (const Param &param : params)
    text += std::string(StringRef(sep)) + param.name;
  return text;
}

std::string Signature::describe() const {
  std::string text = kernel + "(";
  ListSeparator sep;
  for (const Param &param : params)
    text +=
        std::string(StringRef(sep)) + describeParam(param) + " " + param.name;
  return text + ")";
}

Expected<Signature> runner::getSignature(ks::KernelOp kernel) {
  Signature sig;
  sig.kernel = kernel.getSymName().str();
  for (auto [index, type] :
       llvm::enumerate(kernel.getFunctionType().getInputs())) {
    Param param;
    param.name = kernel.getArgName(index).str();
    if (param.name.empty())
      param.name = "arg" + std::to_string(index);
    mlir::Type scalarType = type;
    if (auto array = dyn_cast<ks::ArrayType>(type)) {
      param.isArray = true;
      param.isConst = array.getIsConst();
      param.rank = array.getRank();
      scalarType = array.getElementType();
    }
    if (auto vector = dyn_cast<mlir::VectorType>(scalarType)) {
      llvm::append_range(param.components, vector.getShape());
      scalarType = vector.getElementType();
    }
    if (auto structType = dyn_cast<ks::StructType>(scalarType))
      return createStringError(
          inconvertibleErrorCode(),
          "kernel '%s': argument '%s' holds struct '%s', which ksc-run cannot "
          "pass yet; pass the fields as arguments (or arrays) of their own, "
          "or call the kernel's launcher from C++ (ksc FILE -o FILE.cpp)",
          sig.kernel.c_str(), param.name.c_str(),
          structType.getName().getValue().str().c_str());
    std::optional<Scalar> scalar =
        toScalar(scalarType, ks::isUnsignedArg(kernel, index));
    if (!scalar)
      return createStringError(inconvertibleErrorCode(),
                               "kernel '%s': cannot pass argument '%s'",
                               sig.kernel.c_str(), param.name.c_str());
    param.scalar = *scalar;
    sig.params.push_back(std::move(param));
  }
  return sig;
}

int64_t Argument::numStoredElements() const {
  size_t size = getScalarSize(param.scalar) * param.numComponents();
  return static_cast<int64_t>(bytes.size() / size);
}

int64_t Argument::numElements() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}

//===----------------------------------------------------------------------===//
// Reading arguments
//===----------------------------------------------------------------------===//

static Error argError(const Param &param, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           "argument '" + param.name + "' (" +
                               describeParam(param) + "): " + message);
}

static std::string describeJson(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return *value.getAsBoolean() ? "true" : "false";
  case json::Value::Number: {
    std::string text;
    raw_string_ostream os(text);
    os << value;
    return text;
  }
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "a list";
  case json::Value::Object:
    return "an object";
  }
  return "a value";
}

template <typename T> static void append(std::vector<uint8_t> &bytes, T value) {
  size_t offset = bytes.size();
  bytes.resize(offset + sizeof(T));
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

/// Appends one element of type `scalar` read from `value` to `bytes`.
static Error appendScalar(const Param &param, const json::Value &value,
                          std::vector<uint8_t> &bytes, const Twine &where) {
  auto fail = [&](StringRef expected) {
    return argError(param, where + "expected " + expected + ", got " +
                               describeJson(value));
  };
  switch (param.scalar) {
  case Scalar::F32:
  case Scalar::F64: {
    double number;
    if (std::optional<double> n = value.getAsNumber()) {
      number = *n;
    } else if (std::optional<StringRef> s = value.getAsString()) {
      // JSON has no NaN or infinity.
      if (*s == "nan")
        number = std::numeric_limits<double>::quiet_NaN();
      else if (*s == "inf")
        number = std::numeric_limits<double>::infinity();
      else if (*s == "-inf")
        number = -std::numeric_limits<double>::infinity();
      else
        return fail("a number");
    } else {
      return fail("a number");
    }
    if (param.scalar == Scalar::F32) {
      if (std::isfinite(number) &&
          std::abs(number) > std::numeric_limits<float>::max())
        return fail("a number in the range of float");
      append(bytes, static_cast<float>(number));
    } else
      append(bytes, number);
    return Error::success();
  }
  case Scalar::I32:
  case Scalar::U32:
  case Scalar::I64: {
    std::optional<int64_t> n = value.getAsInteger();
    if (!n) {
      // 3.0 is an integer too.
      std::optional<double> d = value.getAsNumber();
      if (!d || std::trunc(*d) != *d || std::abs(*d) > 9.0e15)
        return fail("an integer");
      n = static_cast<int64_t>(*d);
    }
    if (param.scalar == Scalar::I32) {
      if (*n < INT32_MIN || *n > INT32_MAX)
        return fail("a 32-bit integer");
      append(bytes, static_cast<int32_t>(*n));
    } else if (param.scalar == Scalar::U32) {
      if (*n < 0 || *n > UINT32_MAX)
        return fail("an unsigned 32-bit integer (0 to 4294967295)");
      append(bytes, static_cast<uint32_t>(*n));
    } else {
      append(bytes, *n);
    }
    return Error::success();
  }
  case Scalar::I1: {
    if (std::optional<bool> b = value.getAsBoolean()) {
      append(bytes, static_cast<uint8_t>(*b));
      return Error::success();
    }
    std::optional<int64_t> n = value.getAsInteger();
    if (!n || (*n != 0 && *n != 1))
      return fail("true, false, 0 or 1");
    append(bytes, static_cast<uint8_t>(*n));
    return Error::success();
  }
  }
  llvm_unreachable("unknown scalar");
}

/// Appends one value of `param` (a scalar, or nested lists of the
/// components of a vector or matrix) read from `value` to `bytes`.
static Error appendValue(const Param &param, const json::Value &value,
                         std::vector<uint8_t> &bytes, const Twine &where) {
  if (param.components.empty())
    return appendScalar(param, value, bytes, where);
  std::function<Error(const json::Value &, unsigned)> walk =
      [&](const json::Value &v, unsigned depth) -> Error {
    if (depth == param.components.size())
      return appendScalar(param, v, bytes, where);
    const json::Array *list = v.getAsArray();
    int64_t extent = param.components[depth];
    if (!list || static_cast<int64_t>(list->size()) != extent)
      return argError(param, where + "expected a " +
                                 describeValueType(param) + ": " +
                                 (param.components.size() == 1
                                      ? "a list of " + Twine(extent) +
                                            " numbers"
                                      : Twine(extent) + " lists (rows) of " +
                                            Twine(extent) + " numbers") +
                                 ", got " +
                                 (list ? "a list of " + Twine(list->size())
                                       : Twine(describeJson(v))));
    for (const json::Value &element : *list)
      if (Error e = walk(element, depth + 1))
        return e;
    return Error::success();
  };
  return walk(value, 0);
}

/// Reads a (nested) list for an array of `param.rank` dimensions.
static Error readArray(const Param &param, const json::Value &value,
                       Argument &arg) {
  // The shape is the lengths of the first list at each depth; every other
  // list must match it.
  const json::Value *probe = &value;
  for (unsigned d = 0; d < param.rank; ++d) {
    const json::Array *list = probe->getAsArray();
    if (!list)
      return argError(param, "expected " + Twine(param.rank) +
                                 "-dimensional nested lists, got " +
                                 describeJson(*probe) +
                                 (d ? " at depth " + Twine(d) : Twine("")));
    arg.shape.push_back(list->size());
    if (list->empty())
      break;
    probe = &list->front();
  }
  while (arg.shape.size() < param.rank)
    arg.shape.push_back(0);

  std::function<Error(const json::Value &, unsigned, std::string)> walk =
      [&](const json::Value &v, unsigned depth, std::string where) -> Error {
    if (depth == param.rank) {
      if (!param.components.empty())
        return appendValue(param, v, arg.bytes, where);
      if (v.getAsArray())
        return argError(param, where +
                                   "expected a number, got a nested "
                                   "list (the array has " +
                                   Twine(param.rank) + " dimension" +
                                   (param.rank == 1 ? "" : "s") + ")");
      return appendScalar(param, v, arg.bytes, where);
    }
    const json::Array *list = v.getAsArray();
    if (!list)
      return argError(param, where + "expected a list, got " + describeJson(v));
    if (static_cast<int64_t>(list->size()) != arg.shape[depth])
      return argError(param, where + "has " + Twine(list->size()) +
                                 " elements where the shape needs " +
                                 Twine(arg.shape[depth]) +
                                 " (lists must not be ragged)");
    for (auto [index, element] : llvm::enumerate(*list))
      if (Error e = walk(
              element, depth + 1,
              where.empty()
                  ? formatv("element {0}: ", index).str()
                  : formatv("{0}[{1}]: ", StringRef(where).drop_back(2), index)
                        .str()))
        return e;
    return Error::success();
  };
  return walk(value, 0, "");
}

/// `{"data": [...], "shape": [...], "strides": [...], "offset": k}`: a view
/// with the given strides (in elements, possibly negative) into the flat
/// list `data`, starting at element `offset`.
static Error readStrided(const Param &param, const json::Object &spec,
                         Argument &arg) {
  static const char *const known[] = {"data", "shape", "strides", "offset"};
  for (const auto &entry : spec)
    if (!llvm::is_contained(known, entry.first.str()))
      return argError(param, "unknown field '" + entry.first.str() +
                                 "' in a strided input (fields: data, "
                                 "shape, strides, offset)");
  const json::Array *data = spec.getArray("data");
  const json::Array *shape = spec.getArray("shape");
  const json::Array *strides = spec.getArray("strides");
  if (!data || !shape || !strides)
    return argError(param, "a strided input needs \"data\" (a flat list of "
                           "elements), \"shape\" and \"strides\"");
  if (shape->size() != param.rank || strides->size() != param.rank)
    return argError(param, "\"shape\" and \"strides\" need " +
                               Twine(param.rank) + " entr" +
                               (param.rank == 1 ? "y" : "ies") +
                               ", one per dimension");
  int64_t offset = 0;
  if (const json::Value *v = spec.get("offset")) {
    std::optional<int64_t> n = v->getAsInteger();
    if (!n || *n < 0)
      return argError(param, "\"offset\" must be a non-negative integer");
    offset = *n;
  }
  // The lowest and highest element the view reaches must be in `data`.
  int64_t low = offset, high = offset;
  bool empty = false;
  for (unsigned d = 0; d < param.rank; ++d) {
    std::optional<int64_t> extent = (*shape)[d].getAsInteger();
    std::optional<int64_t> stride = (*strides)[d].getAsInteger();
    if (!extent || *extent < 0 || !stride)
      return argError(param, "shape extents must be non-negative integers "
                             "and strides integers");
    arg.shape.push_back(*extent);
    arg.strides.push_back(*stride);
    empty |= *extent == 0;
    if (*extent > 0)
      (*stride < 0 ? low : high) += (*extent - 1) * *stride;
  }
  if (!empty && (low < 0 || high >= static_cast<int64_t>(data->size())))
    return argError(param, "the view reaches element " +
                               Twine(low < 0 ? low : high) +
                               " of \"data\", which has " +
                               Twine(data->size()) + " elements");
  arg.offset = offset;
  for (auto [index, element] : llvm::enumerate(*data))
    if (Error e = appendValue(param, element, arg.bytes,
                              formatv("data[{0}]: ", index).str()))
      return e;
  return Error::success();
}

/// `{"random": "uniform"|"normal", "shape": [...], "seed": s, ...}`.
static Error readRandom(const Param &param, const json::Object &spec,
                        Argument &arg) {
  static const char *const known[] = {"random", "shape", "seed", "low",
                                      "high",   "mean",  "std"};
  for (const auto &entry : spec)
    if (!llvm::is_contained(known, entry.first.str()))
      return argError(param, "unknown field '" + entry.first.str() +
                                 "' in a random input (fields: random, "
                                 "shape, seed, low, high, mean, std)");
  std::optional<StringRef> kind = spec.getString("random");
  if (!kind || (*kind != "uniform" && *kind != "normal"))
    return argError(param, "\"random\" must be \"uniform\" or \"normal\"");
  const json::Array *shape = spec.getArray("shape");
  if (!shape || shape->size() != param.rank)
    return argError(param, "a random input needs \"shape\": a list of " +
                               Twine(param.rank) + " extent" +
                               (param.rank == 1 ? "" : "s"));
  for (const json::Value &extent : *shape) {
    std::optional<int64_t> n = extent.getAsInteger();
    if (!n || *n < 0)
      return argError(param, "shape extents must be non-negative integers");
    arg.shape.push_back(*n);
  }
  auto number = [&](StringRef field, double fallback) -> Expected<double> {
    const json::Value *v = spec.get(field);
    if (!v)
      return fallback;
    if (std::optional<double> n = v->getAsNumber())
      return *n;
    return argError(param, "\"" + field + "\" must be a number");
  };
  Expected<double> seed = number("seed", 0), low = number("low", 0),
                   high = number("high", 1), mean = number("mean", 0),
                   stddev = number("std", 1);
  for (Expected<double> *e : {&seed, &low, &high, &mean, &stddev})
    if (!*e)
      return e->takeError();
  if (*kind == "normal" && param.scalar != Scalar::F32 &&
      param.scalar != Scalar::F64)
    return argError(param, "normal random inputs need a float or double "
                           "array");
  // Integers are floor(low + (high - low) * u), in [low, high).
  if (param.scalar == Scalar::U32 && (*low < 0 || *high > 4294967296.0))
    return argError(param, "uniform random uint32_t inputs need 0 <= low "
                           "and high <= 4294967296");

  SplitMix64 rng(static_cast<uint64_t>(*seed));
  // Every component of every element.
  int64_t count = arg.numElements() * param.numComponents();
  for (int64_t i = 0; i < count; ++i) {
    // One draw per element (two for a normal one): bools are uniform() < 0.5,
    // numbers low + (high - low) * uniform() or mean + std * normal().
    if (param.scalar == Scalar::I1) {
      append(arg.bytes, static_cast<uint8_t>(rng.uniform() < 0.5));
      continue;
    }
    double u = *kind == "normal" ? *mean + *stddev * rng.normal()
                                 : *low + (*high - *low) * rng.uniform();
    switch (param.scalar) {
    case Scalar::F32:
      append(arg.bytes, static_cast<float>(u));
      break;
    case Scalar::F64:
      append(arg.bytes, u);
      break;
    case Scalar::I32:
      append(arg.bytes, static_cast<int32_t>(std::floor(u)));
      break;
    case Scalar::U32:
      append(arg.bytes, static_cast<uint32_t>(std::floor(u)));
      break;
    case Scalar::I64:
      append(arg.bytes, static_cast<int64_t>(std::floor(u)));
      break;
    case Scalar::I1:
      break;
    }
  }
  return Error::success();
}

Expected<std::vector<Argument>>
runner::parseArguments(const Signature &sig, const json::Value &inputs) {
  const json::Object *object = inputs.getAsObject();
  if (!object)
    return createStringError(inconvertibleErrorCode(),
                             "the inputs must be a JSON object mapping the "
                             "arguments of %s to values",
                             sig.describe().c_str());
  for (const auto &entry : *object)
    if (llvm::none_of(sig.params, [&](const Param &param) {
          return param.name == entry.first.str();
        }))
      return createStringError(
          inconvertibleErrorCode(), "unknown argument '%s'; kernel %s",
          entry.first.str().c_str(), sig.describe().c_str());
  std::vector<Argument> args;
  for (const Param &param : sig.params) {
    const json::Value *value = object->get(param.name);
    if (!value)
      return createStringError(inconvertibleErrorCode(),
                               "missing argument '%s'; kernel %s",
                               param.name.c_str(), sig.describe().c_str());
    Argument arg;
    arg.param = param;
    Error error = Error::success();
    if (!param.isArray) {
      error = appendValue(param, *value, arg.bytes, "");
    } else if (const json::Object *spec = value->getAsObject();
               spec && spec->get("random")) {
      error = readRandom(param, *spec, arg);
    } else if (spec && spec->get("data")) {
      error = readStrided(param, *spec, arg);
    } else {
      error = readArray(param, *value, arg);
    }
    if (error)
      return std::move(error);
    args.push_back(std::move(arg));
  }
  return args;
}

//===----------------------------------------------------------------------===//
// Writing arrays
//===----------------------------------------------------------------------===//

template <typename T> static void writeFloat(raw_ostream &os, T value) {
  if (std::isnan(value)) {
    os << "\"nan\"";
    return;
  }
  if (std::isinf(value)) {
    os << (value < 0 ? "\"-inf\"" : "\"inf\"");
    return;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  (void)ec;
  os << StringRef(buffer, end - buffer);
}

static void writeElement(raw_ostream &os, Scalar scalar, const uint8_t *p) {
  switch (scalar) {
  case Scalar::F32: {
    float v;
    std::memcpy(&v, p, sizeof(v));
    writeFloat(os, v);
    return;
  }
  case Scalar::F64: {
    double v;
    std::memcpy(&v, p, sizeof(v));
    writeFloat(os, v);
    return;
  }
  case Scalar::I32: {
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    os << v;
    return;
  }
  case Scalar::U32: {
    uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    os << v;
    return;
  }
  case Scalar::I64: {
    int64_t v;
    std::memcpy(&v, p, sizeof(v));
    os << v;
    return;
  }
  case Scalar::I1:
    os << (*p ? "true" : "false");
    return;
  }
}

void runner::writeArrays(raw_ostream &os, ArrayRef<Argument> args) {
  os << "{";
  ListSeparator sep(",");
  for (const Argument &arg : args) {
    if (!arg.param.isArray)
      continue;
    os << sep << "\n  " << json::Value(arg.param.name) << ": ";
    size_t size = getScalarSize(arg.param.scalar);
    int64_t index = 0;
    // A strided view prints its whole buffer, in the form it was given.
    if (!arg.strides.empty()) {
      os << "{\"data\": [";
      int64_t count = arg.numStoredElements();
      int64_t components = arg.param.numComponents();
      bool nested = !arg.param.components.empty();
      for (int64_t i = 0; i < count * components; ++i) {
        if (i % components == 0 && nested)
          os << (i ? "], [" : "[");
        else if (i)
          os << ", ";
        writeElement(os, arg.param.scalar, arg.bytes.data() + size * i);
      }
      if (count && nested)
        os << "]";
      auto list = [&](ArrayRef<int64_t> values) {
        os << "[";
        llvm::interleave(values, os, ", ");
        os << "]";
      };
      os << "], \"shape\": ";
      list(arg.shape);
      os << ", \"strides\": ";
      list(arg.strides);
      if (arg.offset)
        os << ", \"offset\": " << arg.offset;
      os << "}";
      continue;
    }
    // The array's dimensions, then those of a vector or matrix element.
    std::vector<int64_t> shape = arg.shape;
    llvm::append_range(shape, arg.param.components);
    std::function<void(unsigned)> write = [&](unsigned depth) {
      os << "[";
      for (int64_t i = 0; i < shape[depth]; ++i) {
        if (i)
          os << ", ";
        if (depth + 1 == shape.size())
          writeElement(os, arg.param.scalar, arg.bytes.data() + size * index++);
        else
          write(depth + 1);
      }
      os << "]";
    };
    write(0);
  }
  os << "\n}\n";
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

uint64_t SplitMix64::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double SplitMix64::normal() {
  double u1 = 1.0 - uniform(); // (0, 1]: log(u1) is finite.
  double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}
