//===- Arguments.cpp - Kernel arguments from JSON ---------------------===//
//
// Part of ksc. Reads the JSON inputs of ksc-run into bytes laid out as the
// generated C++ lays out its values (Layout.cpp). Every error names the
// argument and the place in it: `element [1][2]` of an array,
// `element [1].pos` of a struct element, `field pos` of a struct argument,
// `data[3]` of a strided view.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Runner.h"
#include "ksc/Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#if __has_include(<unistd.h>)
#include <sys/resource.h>
#include <unistd.h>
#endif

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

namespace {
/// Reads the values of one argument, `param`.
class Reader {
public:
  Reader(const Param &param, uint64_t memoryLimit, bool isDerivative = false)
      : param(param), memoryLimit(memoryLimit), isDerivative(isDerivative) {}

  /// The most bytes one argument may take (ArgumentLimits::memoryBytes).
  uint64_t maxBytes() const { return memoryLimit; }

  /// An error about the argument at `path` (empty for the whole argument).
  Error fail(StringRef path, const Twine &message) const;

  /// Reads one value of type `type` from `value` into `dest` (type.size()
  /// bytes, zeroed by the caller).
  Error readValue(const ValueType &type, const json::Value &value,
                  uint8_t *dest, const std::string &path) const;

private:
  Error readScalar(Scalar scalar, const json::Value &value, uint8_t *dest,
                   StringRef path) const;
  Error readComponents(const ValueType &type, const json::Value &value,
                       uint8_t *dest, StringRef path) const;
  Error readStruct(const ValueType &type, const json::Value &value,
                   uint8_t *dest, const std::string &path) const;

  const Param &param;
  uint64_t memoryLimit;
  /// Whether struct fields without derivatives may be left out.
  bool isDerivative;
};
} // namespace

Error Reader::fail(StringRef path, const Twine &message) const {
  std::string where;
  if (path.starts_with("["))
    where = ("element " + path + ": ").str();
  else if (path.starts_with("."))
    where = ("field " + path.drop_front() + ": ").str();
  else if (!path.empty())
    where = (path + ": ").str();
  return createStringError(inconvertibleErrorCode(),
                           "argument '" + param.name + "' (" +
                               param.describe() + "): " + where + message);
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

template <typename T> static void store(uint8_t *dest, T value) {
  std::memcpy(dest, &value, sizeof(T));
}

Error Reader::readScalar(Scalar scalar, const json::Value &value,
                         uint8_t *dest, StringRef path) const {
  auto expected = [&](StringRef what) {
    return fail(path, "expected " + what + ", got " + describeJson(value));
  };
  switch (scalar) {
  case Scalar::F32:
  case Scalar::F64: {
    double number;
    if (std::optional<double> n = value.getAsNumber()) {
      // A number too large for a double (1e400) parses as infinity.
      if (!std::isfinite(*n))
        return expected("a number in the range of double");
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
        return expected("a number");
    } else {
      return expected("a number");
    }
    if (scalar == Scalar::F32) {
      if (std::isfinite(number) &&
          std::abs(number) > std::numeric_limits<float>::max())
        return expected("a number in the range of float");
      store(dest, static_cast<float>(number));
    } else {
      store(dest, number);
    }
    return Error::success();
  }
  case Scalar::I32:
  case Scalar::U32:
  case Scalar::I64: {
    std::optional<int64_t> n = getAsInt64(value);
    if (!n) {
      // 3.0 is an integer too.
      std::optional<double> d = value.getAsNumber();
      if (!d || std::trunc(*d) != *d || std::abs(*d) > 9.0e15)
        return expected("an integer");
      n = static_cast<int64_t>(*d);
    }
    if (scalar == Scalar::I32) {
      if (*n < INT32_MIN || *n > INT32_MAX)
        return expected("a 32-bit integer");
      store(dest, static_cast<int32_t>(*n));
    } else if (scalar == Scalar::U32) {
      if (*n < 0 || *n > UINT32_MAX)
        return expected("an unsigned 32-bit integer (0 to 4294967295)");
      store(dest, static_cast<uint32_t>(*n));
    } else {
      store(dest, *n);
    }
    return Error::success();
  }
  case Scalar::I1: {
    if (std::optional<bool> b = value.getAsBoolean()) {
      store(dest, static_cast<uint8_t>(*b));
      return Error::success();
    }
    std::optional<int64_t> n = getAsInt64(value);
    if (!n || (*n != 0 && *n != 1))
      return expected("true, false, 0 or 1");
    store(dest, static_cast<uint8_t>(*n));
    return Error::success();
  }
  }
  llvm_unreachable("unknown scalar");
}

/// A vector is a list of numbers, a matrix a list of rows.
Error Reader::readComponents(const ValueType &type, const json::Value &value,
                             uint8_t *dest, StringRef path) const {
  size_t scalarSize = getScalarSize(type.scalar);
  std::function<Error(const json::Value &, unsigned)> walk =
      [&](const json::Value &v, unsigned depth) -> Error {
    if (depth == type.components.size()) {
      Error error = readScalar(type.scalar, v, dest, path);
      dest += scalarSize;
      return error;
    }
    const json::Array *list = v.getAsArray();
    int64_t extent = type.components[depth];
    if (!list || static_cast<int64_t>(list->size()) != extent)
      return fail(path, "expected a " + type.describe() + ": " +
                            (type.components.size() == 1
                                 ? "a list of " + Twine(extent) + " numbers"
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

/// A struct is an object with one entry per field.
Error Reader::readStruct(const ValueType &type, const json::Value &value,
                         uint8_t *dest, const std::string &path) const {
  std::string names;
  ListSeparator sep;
  for (const ValueType::Field &field : type.fields)
    names += std::string(StringRef(sep)) + field.name;
  const json::Object *object = value.getAsObject();
  if (!object)
    return fail(path, "expected a " + type.describe() +
                          ": an object with the fields " + names + ", got " +
                          describeJson(value));
  for (const auto &entry : *object)
    if (llvm::none_of(type.fields, [&](const ValueType::Field &field) {
          return field.name == entry.first.str();
        }))
      return fail(path, "unknown field '" + entry.first.str() + "' of " +
                            type.describe() + " (fields: " + names + ")");
  for (const ValueType::Field &field : type.fields) {
    const json::Value *fieldValue = object->get(field.name);
    if (!fieldValue && isDerivative && !field.type.hasDerivative())
      continue;
    if (!fieldValue)
      return fail(path, "missing field '" + field.name + "' of " +
                            type.describe() + " (fields: " + names + ")");
    if (Error e = readValue(field.type, *fieldValue, dest + field.offset,
                            path + "." + field.name))
      return e;
  }
  return Error::success();
}

Error Reader::readValue(const ValueType &type, const json::Value &value,
                        uint8_t *dest, const std::string &path) const {
  if (type.isStruct())
    return readStruct(type, value, dest, path);
  if (!type.components.empty())
    return readComponents(type, value, dest, path);
  return readScalar(type.scalar, value, dest, path);
}

/// The most bytes an array argument, or the elements of a strided view,
/// may take: more than any machine ksc-run runs on could hold.
constexpr uint64_t kMaxArrayBytes = uint64_t(1) << 40;

/// The bytes of memory this machine has, or 0 when it cannot tell.
static uint64_t physicalMemory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    return uint64_t(pages) * uint64_t(page);
#endif
  return 0;
}

/// The process's limit on its memory (`ulimit -v`, `ulimit -d`), or 0
/// when it has none.
static uint64_t processMemoryLimit() {
  uint64_t limit = 0;
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit value;
    if (getrlimit(resource, &value) == 0 && value.rlim_cur != RLIM_INFINITY &&
        (!limit || value.rlim_cur < limit))
      limit = value.rlim_cur;
  }
  return limit;
}

/// Makes room for `count` zeroed elements of `param`, refusing sizes no
/// machine ksc-run runs on could hold.
static Error allocate(const Reader &reader, const Param &param, int64_t count,
                      Argument &arg) {
  uint64_t size = param.type.size();
  if (count < 0 || static_cast<uint64_t>(count) > kMaxArrayBytes / size)
    return reader.fail("", "the array would take more than 1 TiB");
  uint64_t bytes = static_cast<uint64_t>(count) * size;
  // Refused here with a message rather than by the allocator (which stops
  // the program with "LLVM ERROR: out of memory").
  uint64_t limit = reader.maxBytes();
  if (limit && bytes > limit) {
    std::string what =
        limit == physicalMemory()
            ? formatv("this machine's {0} bytes of memory", limit)
        : limit == processMemoryLimit()
            ? formatv("the process's memory limit of {0} bytes (ulimit)",
                      limit)
            : formatv("the limit of {0} bytes", limit);
    return reader.fail("", formatv("the array would take {0} bytes ({1} "
                                   "elements), more than {2}",
                                   bytes, count, what));
  }
  // What is left of the address space (ulimit -v) can still be less for a
  // large array: the allocator's failure would end the program ("LLVM
  // ERROR: out of memory"), malloc's is an error.
  if (bytes > (uint64_t(1) << 24)) {
    void *probe = std::malloc(static_cast<size_t>(bytes));
    if (!probe)
      return reader.fail("", formatv("cannot allocate the array's {0} bytes "
                                     "({1} elements): out of memory",
                                     bytes, count));
    std::free(probe);
  }
  arg.bytes.assign(static_cast<size_t>(bytes), 0);
  return Error::success();
}

/// Reads a (nested) list for an array of `param.rank` dimensions.
static Error readArray(const Reader &reader, const Param &param,
                       const json::Value &value, Argument &arg) {
  // The shape is the lengths of the first list at each depth; every other
  // list must match it.
  const json::Value *probe = &value;
  for (unsigned d = 0; d < param.rank; ++d) {
    const json::Array *list = probe->getAsArray();
    if (!list)
      return reader.fail("", "expected " + Twine(param.rank) +
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
  if (Error e = allocate(reader, param, arg.numElements(), arg))
    return e;

  size_t size = param.type.size();
  int64_t index = 0;
  std::function<Error(const json::Value &, unsigned, std::string)> walk =
      [&](const json::Value &v, unsigned depth, std::string path) -> Error {
    if (depth == param.rank) {
      bool scalar = !param.type.isStruct() && param.type.components.empty();
      if (scalar && v.getAsArray())
        return reader.fail(path, "expected a number, got a nested list (the "
                                 "array has " +
                                     Twine(param.rank) + " dimension" +
                                     (param.rank == 1 ? "" : "s") + ")");
      return reader.readValue(param.type, v,
                              arg.bytes.data() + size * index++, path);
    }
    const json::Array *list = v.getAsArray();
    if (!list)
      return reader.fail(path, "expected a list, got " + describeJson(v));
    if (static_cast<int64_t>(list->size()) != arg.shape[depth])
      return reader.fail(path, "has " + Twine(list->size()) +
                                   " elements where the shape needs " +
                                   Twine(arg.shape[depth]) +
                                   " (lists must not be ragged)");
    for (auto [i, element] : llvm::enumerate(*list))
      if (Error e = walk(element, depth + 1, formatv("{0}[{1}]", path, i)))
        return e;
    return Error::success();
  };
  return walk(value, 0, "");
}

/// `{"data": [...], "shape": [...], "strides": [...], "offset": k}`: a view
/// with the given strides (in elements, possibly negative) into the flat
/// list `data`, starting at element `offset`.
static Error readStrided(const Reader &reader, const Param &param,
                         const json::Object &spec, Argument &arg) {
  static const char *const known[] = {"data", "shape", "strides", "offset"};
  for (const auto &entry : spec)
    if (!llvm::is_contained(known, entry.first.str()))
      return reader.fail("", "unknown field '" + entry.first.str() +
                                 "' in a strided input (fields: data, "
                                 "shape, strides, offset)");
  const json::Array *data = spec.getArray("data");
  const json::Array *shape = spec.getArray("shape");
  const json::Array *strides = spec.getArray("strides");
  if (!data || !shape || !strides)
    return reader.fail("", "a strided input needs \"data\" (a flat list of "
                           "elements), \"shape\" and \"strides\"");
  if (shape->size() != param.rank || strides->size() != param.rank)
    return reader.fail("", "\"shape\" and \"strides\" need " +
                               Twine(param.rank) + " entr" +
                               (param.rank == 1 ? "y" : "ies") +
                               ", one per dimension");
  int64_t offset = 0;
  if (const json::Value *v = spec.get("offset")) {
    std::optional<int64_t> n = getAsInt64(*v);
    if (!n || *n < 0)
      return reader.fail("", "\"offset\" must be a non-negative integer");
    offset = *n;
  }
  // The lowest and highest element the view reaches must be in `data`;
  // computed without overflow, so that a view whose index arithmetic
  // would wrap around is refused rather than read at the wrapped index.
  int64_t low = offset, high = offset;
  bool empty = false;
  for (unsigned d = 0; d < param.rank; ++d) {
    std::optional<int64_t> extent = getAsInt64((*shape)[d]);
    std::optional<int64_t> stride = getAsInt64((*strides)[d]);
    if (!extent || *extent < 0 || !stride)
      return reader.fail("", "shape extents must be non-negative integers "
                             "and strides integers");
    arg.shape.push_back(*extent);
    arg.strides.push_back(*stride);
    empty |= *extent == 0;
    if (*extent == 0)
      continue;
    int64_t &bound = *stride < 0 ? low : high;
    std::optional<int64_t> span = checkedMul<int64_t>(*extent - 1, *stride);
    std::optional<int64_t> moved =
        span ? checkedAdd<int64_t>(bound, *span) : std::nullopt;
    if (!moved)
      return reader.fail("", formatv("the view's indices overflow 64 bits "
                                     "(shape [{0}] = {1}, strides [{0}] = "
                                     "{2})",
                                     d, *extent, *stride));
    bound = *moved;
  }
  // Every element of the view is printed and compared: the same limit as
  // for the arrays ksc-run allocates.
  int64_t elements = 1;
  for (int64_t extent : arg.shape)
    if (std::optional<int64_t> product = checkedMul(elements, extent))
      elements = *product;
    else
      elements = INT64_MAX;
  if (uint64_t(elements) > kMaxArrayBytes / param.type.size())
    return reader.fail("", "the view has more than 1 TiB of elements");
  if (!empty && (low < 0 || high >= static_cast<int64_t>(data->size())))
    return reader.fail("", "the view reaches element " +
                               Twine(low < 0 ? low : high) +
                               " of \"data\", which has " +
                               Twine(data->size()) + " elements");
  arg.offset = offset;
  if (Error e = allocate(reader, param, data->size(), arg))
    return e;
  size_t size = param.type.size();
  for (auto [index, element] : llvm::enumerate(*data))
    if (Error e = reader.readValue(param.type, element,
                                   arg.bytes.data() + size * index,
                                   formatv("data[{0}]", index).str()))
      return e;
  return Error::success();
}

/// `{"random": "uniform"|"normal", "shape": [...], "seed": s, ...}`.
static Error readRandom(const Reader &reader, const Param &param,
                        const json::Object &spec, Argument &arg) {
  static const char *const known[] = {"random", "shape", "seed", "low",
                                      "high",   "mean",  "std"};
  for (const auto &entry : spec)
    if (!llvm::is_contained(known, entry.first.str()))
      return reader.fail("", "unknown field '" + entry.first.str() +
                                 "' in a random input (fields: random, "
                                 "shape, seed, low, high, mean, std)");
  std::optional<StringRef> kind = spec.getString("random");
  if (!kind || (*kind != "uniform" && *kind != "normal"))
    return reader.fail("", "\"random\" must be \"uniform\" or \"normal\"");
  const json::Array *shape = spec.getArray("shape");
  if (!shape || shape->size() != param.rank)
    return reader.fail("", "a random input needs \"shape\": a list of " +
                               Twine(param.rank) + " extent" +
                               (param.rank == 1 ? "" : "s"));
  int64_t count = 1;
  for (const json::Value &extent : *shape) {
    std::optional<int64_t> n = getAsInt64(extent);
    if (!n || *n < 0)
      return reader.fail("", "shape extents must be non-negative integers");
    arg.shape.push_back(*n);
    // Saturate: allocate() refuses anything this large.
    count = *n && count > INT64_MAX / *n ? INT64_MAX : count * *n;
  }
  auto number = [&](StringRef field, double fallback) -> Expected<double> {
    const json::Value *v = spec.get(field);
    if (!v)
      return fallback;
    if (std::optional<double> n = v->getAsNumber())
      return *n;
    return reader.fail("", "\"" + field + "\" must be a number");
  };
  Expected<double> seed = number("seed", 0), low = number("low", 0),
                   high = number("high", 1), mean = number("mean", 0),
                   stddev = number("std", 1);
  for (Expected<double> *e : {&seed, &low, &high, &mean, &stddev})
    if (!*e)
      return e->takeError();
  bool allFloat = true, anyUnsigned = false;
  param.type.forEachScalar([&](Scalar scalar, size_t) {
    allFloat &= scalar == Scalar::F32 || scalar == Scalar::F64;
    anyUnsigned |= scalar == Scalar::U32;
  });
  if (*kind == "normal" && !allFloat)
    return reader.fail("", param.type.isStruct()
                               ? "normal random inputs need structs whose "
                                 "fields are all float or double"
                               : "normal random inputs need a float or "
                                 "double array");
  // Integers are floor(low + (high - low) * u), in [low, high).
  if (anyUnsigned && (*low < 0 || *high > 4294967296.0))
    return reader.fail("", "uniform random uint32_t inputs need 0 <= low "
                           "and high <= 4294967296");
  if (Error e = allocate(reader, param, count, arg))
    return e;

  SplitMix64 rng(static_cast<uint64_t>(*seed));
  size_t size = param.type.size();
  // Every scalar of every element, in order (a struct's field by field).
  for (int64_t i = 0; i < count; ++i) {
    uint8_t *element = arg.bytes.data() + size * i;
    param.type.forEachScalar([&](Scalar scalar, size_t offset) {
      uint8_t *dest = element + offset;
      // One draw per scalar (two for a normal one): bools are
      // uniform() < 0.5, numbers low + (high - low) * uniform() or
      // mean + std * normal().
      if (scalar == Scalar::I1) {
        store(dest, static_cast<uint8_t>(rng.uniform() < 0.5));
        return;
      }
      double u = *kind == "normal" ? *mean + *stddev * rng.normal()
                                   : *low + (*high - *low) * rng.uniform();
      switch (scalar) {
      case Scalar::F32:
        store(dest, static_cast<float>(u));
        break;
      case Scalar::F64:
        store(dest, u);
        break;
      case Scalar::I32:
        store(dest, static_cast<int32_t>(std::floor(u)));
        break;
      case Scalar::U32:
        store(dest, static_cast<uint32_t>(std::floor(u)));
        break;
      case Scalar::I64:
        store(dest, static_cast<int64_t>(std::floor(u)));
        break;
      case Scalar::I1:
        break;
      }
    });
  }
  return Error::success();
}

ArgumentLimits ArgumentLimits::forThisMachine() {
  ArgumentLimits limits;
  limits.memoryBytes = physicalMemory();
  uint64_t process = processMemoryLimit();
  if (process && (!limits.memoryBytes || process < limits.memoryBytes))
    limits.memoryBytes = process;
  return limits;
}

Expected<Argument> runner::parseArgument(const Param &param,
                                         const json::Value &value,
                                         const ArgumentLimits &limits,
                                         bool isDerivative) {
  Argument arg;
  arg.param = param;
  Reader reader(arg.param, limits.memoryBytes, isDerivative);
  const json::Object *spec = value.getAsObject();
  Error error = Error::success();
  if (!param.isArray) {
    arg.bytes.assign(param.type.size(), 0);
    error = reader.readValue(param.type, value, arg.bytes.data(), "");
  } else if (spec && spec->get("random")) {
    error = readRandom(reader, param, *spec, arg);
  } else if (spec && spec->get("data")) {
    error = readStrided(reader, param, *spec, arg);
  } else {
    error = readArray(reader, param, value, arg);
  }
  if (error)
    return std::move(error);
  return arg;
}

Expected<std::vector<Argument>>
runner::parseArguments(const Signature &sig, const json::Value &inputs,
                       const ArgumentLimits &limits) {
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
    Expected<Argument> arg = parseArgument(param, *value, limits);
    if (!arg)
      return arg.takeError();
    args.push_back(std::move(*arg));
  }
  return args;
}

