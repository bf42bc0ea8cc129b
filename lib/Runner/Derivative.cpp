//===- Derivative.cpp - What adjoint and tangent kernels share --------===//
//
// Part of ksc. Zeroed derivative arguments and reading them from JSON, and
// the numbers of an argument made of floats or doubles. Finding derivative
// kernels in the IR is DerivativeKernels.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Derivative.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;
using namespace ksc::runner::derivatives;

Error derivatives::fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// The numbers of an argument made of floats or doubles
//===----------------------------------------------------------------------===//

namespace {
/// One number of every element of a type: a float or double at a byte
/// offset, and how to name it after the element (".pos component [0]").
struct Leaf {
  Scalar scalar;
  size_t offset;
  std::string name;
};
} // namespace

/// Row-major indices of `flat` in `shape`, as `[i][j]`.
static std::string formatIndex(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string text;
  for (int64_t i : index)
    text += "[" + std::to_string(i) + "]";
  return text;
}

static bool isFloat(Scalar scalar) {
  return scalar == Scalar::F32 || scalar == Scalar::F64;
}

/// The numbers of one value of `type` with derivatives: every float and
/// double, a struct's field by field (its other fields have none).
static void collectLeaves(const ValueType &type, size_t offset,
                          const std::string &name, std::vector<Leaf> &leaves) {
  if (type.isStruct()) {
    for (const ValueType::Field &field : type.fields)
      collectLeaves(field.type, offset + field.offset, name + "." + field.name,
                    leaves);
    return;
  }
  if (!isFloat(type.scalar))
    return;
  size_t size = getScalarSize(type.scalar);
  for (size_t k = 0, e = type.size() / size; k < e; ++k)
    leaves.push_back(
        {type.scalar, offset + k * size,
         type.components.empty()
             ? name
             : name + " component " + formatIndex(k, type.components)});
}

static std::vector<Leaf> getLeaves(const ValueType &type) {
  std::vector<Leaf> leaves;
  collectLeaves(type, 0, "", leaves);
  return leaves;
}

/// Where number `k` of `arg` is: its leaf and the byte offset of its element.
static std::pair<Leaf, size_t> locate(const Argument &arg, size_t k) {
  const ValueType &type = arg.param.type;
  if (!type.isStruct()) {
    size_t size = getScalarSize(type.scalar);
    return {{type.scalar, 0, ""}, k * size};
  }
  std::vector<Leaf> leaves = getLeaves(type);
  return {leaves[k % leaves.size()], (k / leaves.size()) * type.size()};
}

size_t derivatives::numScalars(const Argument &arg) {
  const ValueType &type = arg.param.type;
  if (!type.isStruct())
    return arg.bytes.size() / getScalarSize(type.scalar);
  return arg.bytes.size() / type.size() * getLeaves(type).size();
}

double derivatives::getScalar(const Argument &arg, size_t k) {
  auto [leaf, element] = locate(arg, k);
  const uint8_t *p = arg.bytes.data() + element + leaf.offset;
  if (leaf.scalar == Scalar::F32) {
    float value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  double value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

double derivatives::roundTo(const Argument &arg, size_t k, double value) {
  if (locate(arg, k).first.scalar == Scalar::F32)
    return static_cast<float>(value);
  return value;
}

void derivatives::setScalar(Argument &arg, size_t k, double value) {
  auto [leaf, element] = locate(arg, k);
  uint8_t *p = arg.bytes.data() + element + leaf.offset;
  if (leaf.scalar == Scalar::F32) {
    float rounded = static_cast<float>(value);
    std::memcpy(p, &rounded, sizeof(rounded));
    return;
  }
  std::memcpy(p, &value, sizeof(value));
}

bool derivatives::hasFloats(const ValueType &type) {
  return llvm::any_of(getLeaves(type), [](const Leaf &leaf) {
    return leaf.scalar == Scalar::F32;
  });
}

std::string derivatives::describeNumber(const Argument &arg, size_t k) {
  const ValueType &type = arg.param.type;
  std::string text = arg.param.name;
  if (type.isStruct()) {
    std::vector<Leaf> leaves = getLeaves(type);
    if (arg.param.isArray)
      text += formatIndex(k / leaves.size(), arg.shape);
    return text + leaves[k % leaves.size()].name;
  }
  size_t perElement = type.size() / getScalarSize(type.scalar);
  if (arg.param.isArray)
    text += formatIndex(k / perElement, arg.shape);
  if (!type.components.empty())
    text += " component " + formatIndex(k % perElement, type.components);
  return text;
}

std::string derivatives::formatShape(ArrayRef<int64_t> shape) {
  return "[" +
         join(map_range(shape, [](int64_t n) { return std::to_string(n); }),
              ", ") +
         "]";
}

bool derivatives::isDifferentiable(const Param &param) {
  return param.type.hasDerivative();
}

//===----------------------------------------------------------------------===//
// Derivative arguments
//===----------------------------------------------------------------------===//

Error runner::checkContiguous(const DerivativeSignature &sig,
                              ArrayRef<Argument> primal) {
  for (unsigned j = 0; j < sig.numDerivatives(); ++j)
    if (!primal[sig.primalOf[j]].strides.empty())
      return fail("argument '" + sig.primalParam(j).name +
                  "': computing gradients needs a contiguous array (nested "
                  "lists or a random generator), not a strided view");
  return Error::success();
}

std::string derivatives::listDerivatives(const DerivativeSignature &sig) {
  std::string names;
  ListSeparator sep;
  for (unsigned j = 0; j < sig.numDerivatives(); ++j)
    names += std::string(StringRef(sep)) + sig.primalParam(j).name;
  return names;
}

std::vector<Argument> derivatives::makeDerivatives(
    const DerivativeSignature &sig, ArrayRef<Argument> primal,
    function_ref<std::vector<int64_t>(unsigned j)> shapeOf) {
  std::vector<Argument> values;
  for (unsigned j = 0; j < sig.numDerivatives(); ++j) {
    Argument arg;
    arg.param = sig.derivativeParam(j);
    arg.param.name = primal[sig.primalOf[j]].param.name;
    arg.shape = shapeOf(j);
    arg.bytes.assign(arg.numElements() * arg.param.type.size(), 0);
    values.push_back(std::move(arg));
  }
  return values;
}

/// Reads the value `value` of derivative j over `zeros`, which has the
/// shape it needs.
static Error readDerivative(const DerivativeSignature &sig, unsigned j,
                            StringRef kind, const json::Value &value,
                            function_ref<std::string(unsigned)> hint,
                            Argument &zeros) {
  Expected<Argument> arg = parseArgument(
      sig.derivativeParam(j), value, ArgumentLimits::forThisMachine(),
      /*isDerivative=*/true);
  if (!arg)
    return arg.takeError();
  const Param &primal = sig.primalParam(j);
  if (!arg->strides.empty())
    return fail("the " + kind + " of '" + primal.name +
                "' must be nested lists, not a strided view");
  if (arg->shape != zeros.shape)
    return fail("the " + kind + " of '" + primal.name + "' has shape " +
                formatShape(arg->shape) + "; it needs " +
                formatShape(zeros.shape) + hint(j));
  zeros.bytes = std::move(arg->bytes);
  return Error::success();
}

Error derivatives::readDerivatives(const json::Value &value, StringRef kind,
                              StringRef plural, const DerivativeSignature &sig,
                              ArrayRef<Argument> primal, unsigned numKeyed,
                              function_ref<std::string(unsigned j)> hint,
                              std::vector<Argument> &values) {
  auto isKeyed = [&](unsigned j) { return sig.primalOf[j] < numKeyed; };
  std::string names;
  ListSeparator sep;
  for (unsigned j = 0; j < sig.numDerivatives(); ++j)
    if (isKeyed(j))
      names += std::string(StringRef(sep)) + sig.primalParam(j).name;
  const json::Object *object = value.getAsObject();
  if (!object)
    return fail("the " + kind + "s must be a JSON object mapping arguments of '" +
                sig.primalKernel + "' to their " + plural + " (" + names + ")");
  for (const auto &entry : *object) {
    std::string key = entry.first.str();
    bool has = false;
    for (unsigned j = 0; j < sig.numDerivatives(); ++j)
      has |= isKeyed(j) && values[j].param.name == key;
    if (has)
      continue;
    bool isArgument = llvm::any_of(primal.take_front(numKeyed),
                                   [&](const Argument &a) {
                                     return a.param.name == key;
                                   });
    return fail((isArgument ? "argument '" + key + "' has no " + kind
                            : "unknown argument '" + key + "'") +
                "; the arguments of '" + sig.primalKernel + "' with " + kind +
                "s are " + names);
  }
  for (unsigned j = 0; j < sig.numDerivatives(); ++j)
    if (isKeyed(j))
      if (const json::Value *v = object->get(values[j].param.name))
        if (Error error = readDerivative(sig, j, kind, *v, hint, values[j]))
          return error;
  return Error::success();
}

double derivatives::startCheck(StringRef kernel, bool single,
                                const GradCheckOptions &options,
                                GradCheckReport &report) {
  auto [atol, rtol] = getDefaultTolerance(single);
  report.kernel = kernel.str();
  report.atol = options.atol.value_or(atol);
  report.rtol = options.rtol.value_or(rtol);
  report.seed = options.seed;
  return std::cbrt(single ? std::numeric_limits<float>::epsilon()
                          : std::numeric_limits<double>::epsilon());
}

Error derivatives::launchDerivative(const DerivativeSignature &sig,
                               std::vector<Argument> &primal,
                               std::vector<Argument> &derivatives,
                               Launcher launch) {
  // The arrays the derivative kernel reads as K left them: launch K on a
  // copy of the arguments first.
  if (!sig.finalValueArgs.empty()) {
    std::vector<Argument> after = primal;
    if (Error error = launch(sig.primalKernel, after))
      return error;
    for (unsigned index : sig.finalValueArgs)
      primal[index] = std::move(after[index]);
  }
  std::vector<Argument> args = std::move(primal);
  args.insert(args.end(), std::make_move_iterator(derivatives.begin()),
              std::make_move_iterator(derivatives.end()));
  Error error = launch(sig.signature.kernel, args);
  for (unsigned j = 0; j < derivatives.size(); ++j)
    derivatives[j] = std::move(args[sig.numPrimal + j]);
  args.resize(sig.numPrimal);
  primal = std::move(args);
  return error;
}
