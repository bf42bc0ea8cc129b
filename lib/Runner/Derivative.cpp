//===- Derivative.cpp - What adjoint and tangent kernels share --------===//
//
// Part of ksc. Finding a derivative kernel (`K_adj`, `K_jvp`) and checking
// its signature, zeroed derivative arguments and reading them from JSON,
// and the numbers of an argument made of floats or doubles.
//
//===----------------------------------------------------------------------===//

#include "Derivative.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"

#include "mlir/IR/BuiltinOps.h"
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

size_t derivatives::numScalars(const Argument &arg) {
  return arg.bytes.size() / getScalarSize(arg.param.type.scalar);
}

double derivatives::getScalar(const Argument &arg, size_t k) {
  const uint8_t *p =
      arg.bytes.data() + k * getScalarSize(arg.param.type.scalar);
  if (arg.param.type.scalar == Scalar::F32) {
    float value;
    std::memcpy(&value, p, sizeof(value));
    return value;
  }
  double value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

double derivatives::roundTo(const Argument &arg, double value) {
  if (arg.param.type.scalar == Scalar::F32)
    return static_cast<float>(value);
  return value;
}

void derivatives::setScalar(Argument &arg, size_t k, double value) {
  uint8_t *p = arg.bytes.data() + k * getScalarSize(arg.param.type.scalar);
  if (arg.param.type.scalar == Scalar::F32) {
    float rounded = static_cast<float>(value);
    std::memcpy(p, &rounded, sizeof(rounded));
    return;
  }
  std::memcpy(p, &value, sizeof(value));
}

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

std::string derivatives::describeNumber(const Argument &arg, size_t k) {
  const ValueType &type = arg.param.type;
  size_t perElement = type.size() / getScalarSize(type.scalar);
  std::string text = arg.param.name;
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

//===----------------------------------------------------------------------===//
// Derivative kernels and their signatures
//===----------------------------------------------------------------------===//

bool derivatives::isDerivativeOf(const DerivativeKind &kind,
                            ks::KernelOp derivative, ks::KernelOp kernel) {
  auto of = derivative->getAttrOfType<mlir::FlatSymbolRefAttr>(kind.ofAttr);
  return of && of.getValue() == kernel.getSymName();
}

Expected<ks::KernelOp>
derivatives::findDerivativeKernel(const DerivativeKind &kind, ks::KernelOp kernel,
                             function_ref<Error()> none) {
  SmallVector<ks::KernelOp> found;
  auto module = kernel->getParentOfType<mlir::ModuleOp>();
  for (ks::KernelOp k : module.getOps<ks::KernelOp>())
    if (isDerivativeOf(kind, k, kernel))
      found.push_back(k);
  if (found.empty())
    return none();
  if (found.size() > 1) {
    std::string names;
    ListSeparator sep;
    for (ks::KernelOp k : found)
      names += std::string(StringRef(sep)) + k.getSymName().str();
    return fail("kernel '" + kernel.getSymName() + "' has " +
                Twine(found.size()) + " " + kind.name + " kernels (" + names +
                ")");
  }
  return found.front();
}

bool derivatives::isDifferentiable(const Param &param) {
  const ValueType &type = param.type;
  return !type.isStruct() &&
         (type.scalar == Scalar::F32 || type.scalar == Scalar::F64);
}

std::string derivatives::print(mlir::Type type) {
  std::string text;
  raw_string_ostream os(text);
  os << type;
  return text;
}

/// Checks that derivative argument `j` of `sig`, of type `type`, belongs to
/// primal argument `index`.
static Error
checkDerivativeArgument(const DerivativeKind &kind,
                        const DerivativeSignature &sig, unsigned j,
                        int64_t index, mlir::Type type,
                        function_ref<Expected<mlir::Type>(unsigned)> typeOf) {
  std::string what = kind.name.str() + " argument " + std::to_string(j) +
                     " of '" + sig.signature.kernel + "'";
  if (index < 0 || index >= sig.numPrimal)
    return fail(what + ": " + kind.argsAttr + " names argument " +
                Twine(index) + " of '" + sig.primalKernel + "', which has " +
                Twine(sig.numPrimal));
  if (j > 0 && index <= sig.primalOf[j - 1])
    return fail(kind.argsAttr + " of '" + sig.signature.kernel +
                "' must be increasing (one " + kind.name +
                " per argument, in order)");
  const Param &primal = sig.signature.params[index];
  if (!isDifferentiable(primal))
    return fail(what + ": argument '" + primal.name + "' (" +
                primal.describe() + ") has no " + kind.name);
  Expected<mlir::Type> expected = typeOf(index);
  if (!expected)
    return fail(what + ": " + toString(expected.takeError()));
  if (type != *expected)
    return fail(what + " has type " + print(type) + "; the " + kind.name +
                " of '" + primal.name + "' has type " + print(*expected));
  return Error::success();
}

Error derivatives::readDerivativeSignature(
    const DerivativeKind &kind, ks::KernelOp kernel, ks::KernelOp derivative,
    const Signature &primal,
    function_ref<Expected<mlir::Type>(unsigned index)> typeOf,
    DerivativeSignature &out) {
  Expected<Signature> sig = getSignature(derivative);
  if (!sig)
    return sig.takeError();
  out.primalKernel = primal.kernel;
  out.signature = std::move(*sig);
  out.numPrimal = primal.params.size();
  out.primalOf.clear();
  const std::string &name = out.signature.kernel;
  auto args = derivative->getAttrOfType<mlir::DenseI64ArrayAttr>(kind.argsAttr);
  if (!args)
    return fail(kind.name + " kernel '" + name + "' has no " + kind.argsAttr +
                " = array<i64: ...>");
  ArrayRef<mlir::Type> types = derivative.getArgumentTypes();
  size_t numDerivatives = args.asArrayRef().size();
  if (types.size() != out.numPrimal + numDerivatives)
    return fail(kind.name + " kernel '" + name + "' has " +
                Twine(types.size()) + " arguments; it needs the " +
                Twine(out.numPrimal) + " of '" + primal.kernel + "' and the " +
                Twine(numDerivatives) + " " + kind.name + "s its " +
                kind.argsAttr + " lists");
  for (unsigned i = 0; i < out.numPrimal; ++i)
    if (types[i] != kernel.getArgumentTypes()[i] ||
        out.signature.params[i].name != primal.params[i].name)
      return fail("argument " + Twine(i) + " of " + kind.name + " kernel '" +
                  name + "' is '" + out.signature.params[i].describe() + " " +
                  out.signature.params[i].name + "'; '" + primal.kernel +
                  "' has '" + primal.params[i].describe() + " " +
                  primal.params[i].name + "' there");
  for (auto [j, index] : llvm::enumerate(args.asArrayRef())) {
    if (Error error = checkDerivativeArgument(
            kind, out, j, index, types[out.numPrimal + j], typeOf))
      return error;
    out.primalOf.push_back(index);
  }
  return Error::success();
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
  Expected<Argument> arg = parseArgument(sig.derivativeParam(j), value);
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
