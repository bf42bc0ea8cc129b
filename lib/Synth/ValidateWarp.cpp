//===- ValidateWarp.cpp - Records against NVIDIA Warp -----------------===//
//
// Part of ksc. `validate --warp`: a sample of records' `warp` form runs on
// Warp's CPU backend (warp_run.py, a batch per job) and their kernel runs
// through ksc-run on the same random inputs. Outputs must agree. Input
// adjoints for random output adjoints must agree too, unless Warp's are
// wrong: where they differ, a central difference of the kernel along a
// random direction (ksc-run in double precision) says which side is right.
//
//===----------------------------------------------------------------------===//

#include "ValidateWarp.h"

#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Paths.h"
#include "ksc/Support/Process.h"
#include "ksc/Synth/Forms.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/thread.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

/// A random value of `type` in ksc-run's JSON: reals in [-2, 2], integers
/// in [0, 3] (indices and counts stay small), vectors and matrices as
/// (nested) lists, structs as objects keyed by field.
json::Value synth::randomValue(const runner::ValueType &type,
                               SplitMix64 &random) {
  if (type.isStruct()) {
    json::Object fields;
    for (const runner::ValueType::Field &field : type.fields)
      fields[field.name] = randomValue(field.type, random);
    return json::Value(std::move(fields));
  }
  auto scalar = [&]() -> json::Value {
    switch (type.scalar) {
    case runner::Scalar::F32:
    case runner::Scalar::F64:
      return (random.next() % 4001) / 1000.0 - 2.0;
    case runner::Scalar::I1:
      return bool(random.next() & 1);
    case runner::Scalar::U32:
      return int64_t(random.next() % 100000);
    case runner::Scalar::I32:
    case runner::Scalar::I64:
      break;
    }
    return int64_t(random.next() % 4);
  };
  std::function<json::Value(size_t)> components = [&](size_t dim) {
    if (dim == type.components.size())
      return scalar();
    json::Array values;
    for (int64_t k = 0; k < type.components[dim]; ++k)
      values.push_back(components(dim + 1));
    return json::Value(std::move(values));
  };
  return components(0);
}

/// A random value for `param` for a launch of `n` threads: an array has n
/// elements along dimension 0 and 3 along the others.
json::Value synth::randomArgument(const runner::Param &param, unsigned n,
                                  SplitMix64 &random) {
  if (!param.isArray)
    return randomValue(param.type, random);
  std::function<json::Value(unsigned)> fill = [&](unsigned dim) {
    json::Array values;
    unsigned extent = dim == 0 ? n : 3;
    for (unsigned k = 0; k < extent; ++k)
      values.push_back(dim + 1 == param.rank ? randomValue(param.type, random)
                                             : fill(dim + 1));
    return json::Value(std::move(values));
  };
  return fill(0);
}

/// The signature of the kernel of a record, from its ks IR (`ksMlir`).
Expected<runner::Signature> synth::signatureOf(StringRef ksMlir) {
  std::unique_ptr<mlir::MLIRContext> context = createCompilerContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          ksMlir, mlir::ParserConfig(context.get()));
  if (!module)
    return createStringError("its ks IR does not parse");
  for (auto kernel : module->getOps<ks::KernelOp>())
    return runner::getSignature(kernel);
  return createStringError("its ks IR has no kernel");
}

namespace {
/// Threads of the launches: enough for the kernels' index patterns, few
/// enough that every case is quick.
constexpr unsigned kThreads = 8;

/// One sampled record.
struct Case {
  size_t index = 0;
  /// "line N (id K, kernel)" for the report.
  std::string label;
  std::string kernel;
  runner::Signature signature;
  std::string kdslPath, modulePath, inputsPath, seedsPath;
  json::Object inputs, seeds;
  /// The float arrays, whose input adjoints are compared.
  std::vector<std::string> wrt;
  json::Value kscOutputs = nullptr, kscAdjoints = nullptr;
  /// ksc's input adjoints in double precision, which finite differences
  /// judge (made when Warp's and ksc's differ).
  json::Value kscDoubleAdjoints = nullptr;
  /// <output adjoints, F(inputs)> in double precision, once computed.
  std::optional<double> centre;
  json::Value warp = nullptr;
  std::string error;
};

std::string tempPath(StringRef dir, const Twine &name) {
  SmallString<256> path(dir);
  sys::path::append(path, name);
  return std::string(path);
}

/// Writes a scratch file; false when it cannot (a full disk).
bool writeFile(StringRef path, StringRef text) {
  if (Error error = writeFileIfChanged(path, text)) {
    consumeError(std::move(error));
    return false;
  }
  return true;
}

Expected<json::Value> readJson(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("cannot read " + path);
  return json::parse((*buffer)->getBuffer());
}

/// A number of ksc-run's JSON ("nan", "inf" and "-inf" are strings).
double number(const json::Value &value) {
  if (std::optional<double> n = value.getAsNumber())
    return *n;
  if (std::optional<StringRef> text = value.getAsString()) {
    if (*text == "nan")
      return NAN;
    if (*text == "inf")
      return INFINITY;
    if (*text == "-inf")
      return -INFINITY;
  }
  if (std::optional<bool> b = value.getAsBoolean())
    return *b;
  return NAN;
}

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b))
    return a == b;
  return std::fabs(a - b) <= atol + rtol * std::max(std::fabs(a), std::fabs(b));
}

/// The first place where `a` and `b` differ ("$.y[3]: 0.5 vs 0.6"), or
/// empty. Objects compare at the keys of `a`.
std::string difference(const json::Value &a, const json::Value &b,
                       const std::string &path, double rtol, double atol) {
  if (const json::Array *x = a.getAsArray()) {
    const json::Array *y = b.getAsArray();
    if (!y || y->size() != x->size())
      return path + ": the shapes differ";
    for (size_t i = 0; i < x->size(); ++i) {
      std::string d = difference(
          (*x)[i], (*y)[i], path + "[" + std::to_string(i) + "]", rtol, atol);
      if (!d.empty())
        return d;
    }
    return "";
  }
  if (const json::Object *x = a.getAsObject()) {
    const json::Object *y = b.getAsObject();
    if (!y)
      return path + ": not an object on both sides";
    std::vector<std::string> keys;
    for (const auto &[key, value] : *x)
      keys.push_back(key.str());
    llvm::sort(keys);
    for (const std::string &key : keys) {
      const json::Value *other = y->get(key);
      if (!other)
        return path + "." + key + ": missing";
      std::string d =
          difference(*x->get(key), *other, path + "." + key, rtol, atol);
      if (!d.empty())
        return d;
    }
    return "";
  }
  double x = number(a), y = number(b);
  if (close(x, y, rtol, atol))
    return "";
  return formatv("{0}: {1:e6} vs {2:e6}", path, x, y).str();
}

/// Calls `fn` on every real number of `value`, a value of `type` (or an
/// array of them, `rank` deep), in order.
void forEachReal(const runner::ValueType &type, unsigned rank,
                 json::Value &value, function_ref<void(json::Value &)> fn) {
  if (rank > 0) {
    if (json::Array *elements = value.getAsArray())
      for (json::Value &element : *elements)
        forEachReal(type, rank - 1, element, fn);
    return;
  }
  if (type.isStruct()) {
    if (json::Object *fields = value.getAsObject())
      for (const runner::ValueType::Field &field : type.fields)
        if (json::Value *v = fields->get(field.name))
          forEachReal(field.type, 0, *v, fn);
    return;
  }
  if (type.scalar != runner::Scalar::F32 && type.scalar != runner::Scalar::F64)
    return;
  std::function<void(json::Value &, size_t)> components = [&](json::Value &v,
                                                              size_t depth) {
    if (depth == type.components.size())
      return fn(v);
    if (json::Array *elements = v.getAsArray())
      for (json::Value &element : *elements)
        components(element, depth + 1);
  };
  components(value, 0);
}

/// The real numbers of `value` (of `param`), in order.
std::vector<double> reals(const runner::Param &param, json::Value value) {
  std::vector<double> result;
  forEachReal(param.type, param.isArray ? param.rank : 0, value,
              [&](json::Value &v) { result.push_back(number(v)); });
  return result;
}

class WarpChecker {
public:
  WarpChecker(const ValidateOptions &options, StringRef kscRun,
              StringRef tempDir)
      : options(options), kscRun(kscRun), tempDir(tempDir) {}

  WarpSummary run(ArrayRef<StringRef> lines, ArrayRef<size_t> sample,
                  std::vector<std::vector<std::string>> &errors);

private:
  void prepare(Case &c, StringRef text);
  std::string runKscRun(Case &c, ArrayRef<std::string> extra, StringRef output);
  void runWarp(std::vector<Case> &cases);
  void compare(Case &c, WarpSummary &summary);
  static std::string adjointDifference(const Case &c, const json::Object &ksc,
                                       const json::Object &warp);
  static std::string warpShape(const Case &c);
  /// The central difference along a random direction of the input
  /// adjoints, and ksc's and Warp's directional derivatives; false with
  /// `c.error` set when ksc-run fails.
  bool directional(Case &c, unsigned attempt, double &fd, double &forward,
                   double &backward, double &ksc, double &warp, double &scale);
  std::optional<double> objective(Case &c, const json::Object &inputs,
                                  unsigned attempt, StringRef side);
  template <typename Fn> void parallel(size_t count, Fn fn);

  const ValidateOptions &options;
  std::string kscRun, tempDir, python, script;
  std::atomic<unsigned> logs{0};
};
} // namespace

template <typename Fn> void WarpChecker::parallel(size_t count, Fn fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++)
      fn(i);
  };
  std::vector<llvm::thread> workers;
  for (unsigned i = 0; i < std::max(1u, options.jobs); ++i)
    workers.emplace_back(work);
  for (llvm::thread &worker : workers)
    worker.join();
}

std::string WarpChecker::runKscRun(Case &c, ArrayRef<std::string> extra,
                                   StringRef output) {
  std::vector<std::string> args = {kscRun,
                                   c.kdslPath,
                                   "--kernel=" + c.kernel,
                                   "--dim=" + std::to_string(kThreads),
                                   "--threads=1",
                                   "--cache-dir=" +
                                       tempPath(tempDir, "ksc-cache"),
                                   "-o",
                                   output.str()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<StringRef> argv(args.begin(), args.end());
  ProgramResult result =
      runProgram(argv, tempPath(tempDir, "log" + std::to_string(logs++)));
  if (result.succeeded())
    return "";
  return "ksc-run " + join(ArrayRef(args).drop_front(2), " ") +
         " failed: " + StringRef(result.output).take_front(1000).rtrim().str() +
         result.error;
}

void WarpChecker::prepare(Case &c, StringRef text) {
  Expected<json::Value> value = json::parse(text);
  const json::Object *record = value ? value->getAsObject() : nullptr;
  if (!value)
    consumeError(value.takeError());
  std::optional<StringRef> warp =
      record ? record->getString(formName(Form::Warp)) : std::nullopt;
  std::optional<StringRef> ksMlir =
      record ? record->getString(formName(Form::KsMlir)) : std::nullopt;
  if (!warp || !ksMlir || !record->getString("kernel") ||
      !record->getString("source") || !record->getString("file")) {
    c.error = "--warp needs the record's source, kernel, file, ks_mlir and "
              "warp";
    return;
  }
  c.kernel = record->getString("kernel")->str();
  c.label = formatv("line {0} (id {1}, {2})", c.index + 1,
                    record->getInteger("id").value_or(-1), c.kernel);
  Expected<runner::Signature> signature = signatureOf(*ksMlir);
  if (!signature) {
    c.error = "ksc-run cannot pass the kernel's arguments: " +
              toString(signature.takeError());
    return;
  }
  c.signature = std::move(*signature);
  std::string stem = "warp" + std::to_string(c.index);
  c.kdslPath = tempPath(tempDir, stem + "-" + *record->getString("file"));
  c.modulePath = tempPath(tempDir, stem + ".py");
  c.inputsPath = tempPath(tempDir, stem + "-inputs.json");
  c.seedsPath = tempPath(tempDir, stem + "-adjoints.json");
  SplitMix64 random(0x3a17 + c.index);
  for (const runner::Param &param : c.signature.params) {
    c.inputs[param.name] = randomArgument(param, kThreads, random);
    if (!param.isArray || !param.type.hasDerivative())
      continue;
    c.wrt.push_back(param.name);
    if (!param.isConst)
      c.seeds[param.name] = randomArgument(param, kThreads, random);
  }
  if (!writeFile(c.kdslPath, *record->getString("source")) ||
      !writeFile(c.modulePath, *warp) ||
      !writeFile(c.inputsPath,
                 formatv("{0}", json::Value(json::Object(c.inputs))).str()) ||
      !writeFile(c.seedsPath,
                 formatv("{0}", json::Value(json::Object(c.seeds))).str())) {
    c.error = "cannot write to " + tempDir;
    return;
  }
  std::string outputs = tempPath(tempDir, stem + "-outputs.json");
  if ((c.error = runKscRun(c, {"--inputs=" + c.inputsPath}, outputs)).size())
    return;
  Expected<json::Value> read = readJson(outputs);
  if (!read) {
    c.error = toString(read.takeError());
    return;
  }
  c.kscOutputs = std::move(*read);
  if (c.wrt.empty())
    return;
  std::string adjoints = tempPath(tempDir, stem + "-input-adjoints.json");
  if ((c.error =
           runKscRun(c,
                     {"--inputs=" + c.inputsPath, "--grad=reverse",
                      "--adjoints=" + c.seedsPath, "--wrt=" + join(c.wrt, ",")},
                     adjoints))
          .size())
    return;
  read = readJson(adjoints);
  if (!read) {
    c.error = toString(read.takeError());
    return;
  }
  c.kscAdjoints = std::move(*read);
}

void WarpChecker::runWarp(std::vector<Case> &cases) {
  // One batch per job: each Python process imports Warp once.
  unsigned batches = std::max(1u, options.jobs);
  std::vector<std::string> jobs(batches);
  for (auto [k, c] : llvm::enumerate(cases)) {
    if (!c.error.empty())
      continue;
    json::Object job{{"id", int64_t(k)},
                     {"module", c.modulePath},
                     {"kernel", c.kernel},
                     {"dim", json::Array{int64_t(kThreads)}},
                     {"inputs", json::Object(c.inputs)}};
    // By position: the Warp module renames parameters Python reserves.
    json::Array names;
    for (const runner::Param &param : c.signature.params)
      names.push_back(param.name);
    job["arguments"] = std::move(names);
    if (!c.wrt.empty()) {
      job["adjoints"] = json::Object(c.seeds);
      json::Array wrt;
      for (const std::string &name : c.wrt)
        wrt.push_back(name);
      job["wrt"] = std::move(wrt);
    }
    jobs[k % batches] += formatv("{0}\n", json::Value(std::move(job))).str();
  }
  parallel(batches, [&](size_t b) {
    std::string jobsPath = tempPath(tempDir, "warp-jobs" + std::to_string(b));
    std::string resultsPath =
        tempPath(tempDir, "warp-results" + std::to_string(b));
    if (jobs[b].empty() || !writeFile(jobsPath, jobs[b]))
      return;
    ProgramResult result =
        runProgram({python, script, jobsPath, resultsPath},
                   tempPath(tempDir, "warp-log" + std::to_string(b)));
    // After a crash, the finished results are in the .tmp file.
    std::string path = result.succeeded() ? resultsPath : resultsPath + ".tmp";
    ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
    if (buffer) {
      SmallVector<StringRef> resultLines;
      (*buffer)->getBuffer().split(resultLines, '\n', -1, false);
      for (StringRef line : resultLines) {
        Expected<json::Value> value = json::parse(line);
        if (!value) {
          consumeError(value.takeError());
          continue;
        }
        const json::Object *object = value->getAsObject();
        std::optional<int64_t> id =
            object ? object->getInteger("id") : std::nullopt;
        if (id && *id >= 0 && size_t(*id) < cases.size())
          cases[*id].warp = std::move(*value);
      }
    }
    std::string crash =
        result.succeeded()
            ? "no result from warp_run.py"
            : "warp_run.py failed: " +
                  StringRef(result.output).take_back(500).trim().str() +
                  result.error;
    for (size_t k = b; k < cases.size(); k += batches)
      if (cases[k].error.empty() && cases[k].warp.kind() == json::Value::Null)
        cases[k].error = crash;
  });
}

/// <output adjoints, F(inputs)> of the kernel in double precision; nullopt
/// with `c.error` set when ksc-run fails.
std::optional<double> WarpChecker::objective(Case &c,
                                             const json::Object &inputs,
                                             unsigned attempt, StringRef side) {
  std::string stem = "warp" + std::to_string(c.index) + "-" +
                     std::to_string(attempt) + "-" + side.str();
  std::string in = tempPath(tempDir, stem + ".json");
  std::string out = tempPath(tempDir, stem + "-outputs.json");
  if (!writeFile(in, formatv("{0}", json::Value(json::Object(inputs))).str())) {
    c.error = "cannot write to " + tempDir;
    return std::nullopt;
  }
  if ((c.error = runKscRun(c, {"--inputs=" + in, "--precision=double"}, out))
          .size())
    return std::nullopt;
  Expected<json::Value> outputs = readJson(out);
  if (!outputs) {
    c.error = toString(outputs.takeError());
    return std::nullopt;
  }
  double sum = 0;
  for (const runner::Param &param : c.signature.params) {
    const json::Value *seed = c.seeds.get(param.name);
    const json::Value *value = outputs->getAsObject()
                                   ? outputs->getAsObject()->get(param.name)
                                   : nullptr;
    if (!seed || !value)
      continue;
    std::vector<double> s = reals(param, *seed), f = reals(param, *value);
    for (size_t i = 0; i < std::min(s.size(), f.size()); ++i)
      sum += s[i] * f[i];
  }
  return sum;
}

bool WarpChecker::directional(Case &c, unsigned attempt, double &fd,
                              double &forward, double &backward, double &ksc,
                              double &warp, double &scale) {
  // x +- h t for a random direction t of the float arrays; a smaller step
  // each attempt.
  const double h = attempt == 0 ? 1e-5 : attempt == 1 ? 1e-6 : 1e-7;
  SplitMix64 random(0x7e57 + 1000003 * attempt + c.index);
  json::Object plus = c.inputs, minus = c.inputs;
  ksc = warp = scale = 0;
  const json::Object *kscAdjoints = c.kscDoubleAdjoints.getAsObject();
  const json::Object *warpAdjoints =
      c.warp.getAsObject() ? c.warp.getAsObject()->getObject("adjoints")
                           : nullptr;
  for (const runner::Param &param : c.signature.params) {
    if (!llvm::is_contained(c.wrt, param.name))
      continue;
    std::vector<double> direction;
    forEachReal(param.type, param.rank, *plus.get(param.name),
                [&](json::Value &v) {
                  direction.push_back((random.next() % 2001) / 1000.0 - 1.0);
                  v = number(v) + h * direction.back();
                });
    size_t k = 0;
    forEachReal(param.type, param.rank, *minus.get(param.name),
                [&](json::Value &v) { v = number(v) - h * direction[k++]; });
    auto dot = [&](const json::Object *adjoints, double &sum, bool scaled) {
      const json::Value *adjoint =
          adjoints ? adjoints->get(param.name) : nullptr;
      if (!adjoint)
        return;
      std::vector<double> values = reals(param, *adjoint);
      for (size_t i = 0; i < std::min(values.size(), direction.size()); ++i) {
        sum += values[i] * direction[i];
        // A NaN or infinite adjoint (Warp's, through some loops) is wrong:
        // it must not make the tolerances NaN too.
        if (scaled && std::isfinite(values[i]))
          scale += std::fabs(values[i] * direction[i]);
      }
    };
    dot(kscAdjoints, ksc, true);
    dot(warpAdjoints, warp, true);
  }
  // <output adjoints, F(x + h t)>, <..., F(x)> and <..., F(x - h t)>, in
  // double precision.
  std::optional<double> above = objective(c, plus, attempt, "plus");
  std::optional<double> below = objective(c, minus, attempt, "minus");
  if (!c.centre)
    c.centre = objective(c, c.inputs, 0, "centre");
  if (!above || !below || !c.centre)
    return false;
  std::vector<double> sides = {*above, *below};
  forward = (*above - *c.centre) / h;
  backward = (*c.centre - *below) / h;
  fd = (sides[0] - sides[1]) / (2 * h);
  scale += std::fabs(fd);
  return true;
}

/// Which of the shapes whose gradients Warp gets wrong the kernel has: a
/// loop whose trip count is known only at run time (Warp's adjoint reruns
/// it without the values of each iteration), an array element updated
/// that the kernel also reads (Warp's adjoint of a store or atomic update
/// does not account for the element's new value), or a component of a
/// local vector or struct assigned in place. Read off the Warp module.
std::string WarpChecker::warpShape(const Case &c) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> module =
      MemoryBuffer::getFile(c.modulePath);
  if (!module)
    return "";
  SmallVector<StringRef> code;
  (*module)->getBuffer().split(code, '\n');
  for (StringRef &line : code)
    line = line.trim();
  auto isArray = [&](StringRef name) {
    return llvm::any_of(c.signature.params, [&](const runner::Param &param) {
      return param.isArray && param.name == name;
    });
  };
  // `target op= value` with op one of "", "+", "-", "*", "/".
  auto assignment = [](StringRef line) -> std::pair<StringRef, StringRef> {
    for (StringRef op : {" = ", " += ", " -= ", " *= ", " /= "}) {
      size_t at = line.find(op);
      if (at != StringRef::npos && !line.starts_with("if ") &&
          !line.starts_with("while ") && !line.starts_with("return "))
        return {line.take_front(at), line.drop_front(at + op.size())};
    }
    return {};
  };
  bool dynamicLoop = false, updatedAndRead = false, component = false;
  for (StringRef line : code) {
    if (line.starts_with("while "))
      dynamicLoop = true;
    if (line.starts_with("for ") && line.contains(" in range(")) {
      StringRef args = line.split(" in range(").second.rsplit(')').first;
      dynamicLoop |= args.find_first_not_of("0123456789, -") != StringRef::npos;
    }
    auto [target, value] = assignment(line);
    if (target.empty())
      continue;
    size_t cut = target.find_first_of("[.");
    if (cut == StringRef::npos)
      continue;
    StringRef base = target.take_front(cut);
    if (!isArray(base)) {
      component = true;
      continue;
    }
    // An element of array `base` updated: is the array read anywhere?
    std::string element = (base + "[").str();
    for (StringRef other : code) {
      auto [otherTarget, otherValue] = assignment(other);
      StringRef read = otherTarget.empty() ? other : otherValue;
      updatedAndRead |=
          read.contains(element) ||
          (otherTarget.starts_with(element) &&
           otherTarget.drop_front(element.size()).contains(element));
    }
  }
  std::vector<std::string> shapes;
  if (dynamicLoop)
    shapes.push_back("a loop with a run-time trip count");
  if (updatedAndRead)
    shapes.push_back("an array element updated and read");
  if (component)
    shapes.push_back("a component of a local value assigned in place");
  return shapes.empty() ? "none of Warp's known shapes" : join(shapes, ", ");
}

void WarpChecker::compare(Case &c, WarpSummary &summary) {
  const json::Object *warp = c.warp.getAsObject();
  // Warp's own code generation has bugs (docs/warp.md): listed, not a
  // failure of the record.
  if (std::optional<StringRef> error = warp->getString("error")) {
    summary.warpFailed.push_back(c.label + ": " + error->str());
    return;
  }
  const json::Value *outputs = warp->get("outputs");
  std::string d = outputs ? difference(c.kscOutputs, *outputs, "$", 1e-4, 1e-5)
                          : "no outputs";
  if (!d.empty()) {
    c.error =
        "ksc-run and Warp compute different outputs: " + d + " (ksc vs Warp)";
    return;
  }
  ++summary.kernels;
  if (c.wrt.empty())
    return;
  ++summary.gradients;
  const json::Object *kscAdjoints = c.kscAdjoints.getAsObject();
  const json::Object *warpAdjoints = warp->getObject("adjoints");
  if (!kscAdjoints || !warpAdjoints) {
    c.error = "no input adjoints from ksc-run or Warp";
    return;
  }
  std::string differs = adjointDifference(c, *kscAdjoints, *warpAdjoints);
  if (differs.empty())
    return;
  // ksc's adjoint kernel in double precision: what finite differences in
  // double precision can judge to rounding (a long float sum of terms that
  // cancel is off by more than Warp's errors can be).
  std::string adjoints =
      tempPath(tempDir, "warp" + std::to_string(c.index) + "-double.json");
  if ((c.error = runKscRun(c,
                           {"--inputs=" + c.inputsPath, "--grad=reverse",
                            "--adjoints=" + c.seedsPath,
                            "--wrt=" + join(c.wrt, ","), "--precision=double"},
                           adjoints))
          .size())
    return;
  Expected<json::Value> read = readJson(adjoints);
  if (!read) {
    c.error = toString(read.takeError());
    return;
  }
  c.kscDoubleAdjoints = std::move(*read);
  // Along a random direction: the first of three whose central difference
  // tells the two apart (a direction can cross a jump of a piecewise
  // function between the difference's two points, or miss the elements
  // that differ).
  std::string detail;
  std::vector<double> differences;
  for (unsigned attempt = 0; attempt < 3; ++attempt) {
    double fd, forward, backward, ksc, warpD, scale;
    if (!directional(c, attempt, fd, forward, backward, ksc, warpD, scale))
      return;
    // ksc's, in double precision, must match to double rounding; Warp's,
    // in float, to float rounding, unless ksc's is ten times closer and
    // Warp's is off by more than float rounding of the sum's terms. At a
    // kink along the direction (the one-sided differences disagree: an
    // abs, min or clamp at its corner) either one-sided derivative is
    // right, to the one-sided difference's accuracy.
    bool kink =
        std::fabs(forward - backward) >
        1e-3 * (std::fabs(forward) + std::fabs(backward)) + 1e-5 * scale;
    auto matches = [&](double value, double relative, double absolute) {
      if (!kink)
        return std::fabs(value - fd) <= relative * std::fabs(fd) + absolute;
      return llvm::any_of(
          std::array<double, 2>{forward, backward}, [&](double side) {
            return std::fabs(value - side) <= 1e-4 * std::fabs(side) + absolute;
          });
    };
    double kscError = std::fabs(ksc - fd), warpError = std::fabs(warpD - fd);
    bool kscRight = matches(ksc, 1e-5, 1e-7 * scale + 1e-7);
    bool warpRight = matches(warpD, 1e-3, 2e-5 * scale + 1e-6) &&
                     !(!kink && kscRight && warpError > 10 * kscError &&
                       warpError > 2e-5 * scale + 1e-6);
    differences.push_back(std::fabs(fd));
    detail = formatv("{0} (ksc vs Warp); along a random direction: ksc "
                     "{1:e6}, Warp {2:e6}, finite differences {3:e6}",
                     differs, ksc, warpD, fd)
                 .str();
    if (kscRight && !warpRight) {
      summary.warpGradientWrong.push_back(c.label + ": " + warpShape(c));
      return;
    }
    if (!kscRight && warpRight) {
      c.error = "ksc's input adjoints differ from Warp's, whose match finite "
                "differences: " +
                detail;
      return;
    }
  }
  // Steps of 1e-5, 1e-6, 1e-7: across a jump the differences grow as the
  // step shrinks, where they settle for a smooth function.
  if (differences[2] > 10 * differences[0])
    summary.atJump.push_back(c.label);
  else
    summary.unexplained.push_back(c.label + ": " + detail);
}

/// The first real number of the input adjoints of the float arrays where
/// ksc's and Warp's differ ("$.x[3]: 0.5 vs 0.6"), or empty. Integer fields
/// of structs have no derivative (Warp's gradient arrays hold whatever
/// there).
std::string WarpChecker::adjointDifference(const Case &c,
                                           const json::Object &ksc,
                                           const json::Object &warp) {
  for (const runner::Param &param : c.signature.params) {
    if (!llvm::is_contained(c.wrt, param.name))
      continue;
    const json::Value *a = ksc.get(param.name);
    const json::Value *b = warp.get(param.name);
    if (!a || !b)
      continue;
    std::vector<double> x = reals(param, *a), y = reals(param, *b);
    if (x.size() != y.size())
      return "$." + param.name + ": the shapes differ";
    for (size_t i = 0; i < x.size(); ++i)
      if (!close(x[i], y[i], 1e-3, 1e-4))
        return formatv("$.{0}, real number {1}: {2:e6} vs {3:e6}", param.name,
                       i, x[i], y[i])
            .str();
  }
  return "";
}

WarpSummary WarpChecker::run(ArrayRef<StringRef> lines, ArrayRef<size_t> sample,
                             std::vector<std::vector<std::string>> &errors) {
  WarpSummary summary;
  std::string name = options.python.empty() ? "python3" : options.python;
  if (StringRef(name).contains('/')) {
    python = sys::fs::can_execute(name) ? name : "";
  } else {
    ErrorOr<std::string> found = sys::findProgramByName(name);
    python = found ? *found : "";
  }
  script = tempPath(getDataDir(), "warp_run.py");
  if (python.empty()) {
    summary.skipped = "no " + name + " found";
    return summary;
  }
  if (!sys::fs::exists(script)) {
    summary.skipped = script + " is missing; reinstall ksc";
    return summary;
  }
  if (!runProgram({python, "-c", "import warp"},
                  tempPath(tempDir, "warp-probe"))
           .succeeded()) {
    summary.skipped = "the warp package is not importable by " + python +
                      " (pip install warp-lang)";
    return summary;
  }
  // Warp's compiled kernels go into the scratch directory.
  setenv("KSC_WARP_CACHE", tempPath(tempDir, "warp-cache").c_str(), 1);

  std::vector<Case> cases(sample.size());
  parallel(cases.size(), [&](size_t k) {
    cases[k].index = sample[k];
    prepare(cases[k], lines[sample[k]]);
  });
  runWarp(cases);
  // Comparing may run ksc-run for finite differences.
  std::vector<WarpSummary> parts(cases.size());
  parallel(cases.size(), [&](size_t k) {
    if (cases[k].error.empty())
      compare(cases[k], parts[k]);
  });
  for (auto [c, part] : llvm::zip(cases, parts)) {
    summary.kernels += part.kernels;
    summary.gradients += part.gradients;
    llvm::append_range(summary.warpGradientWrong, part.warpGradientWrong);
    llvm::append_range(summary.unexplained, part.unexplained);
    llvm::append_range(summary.warpFailed, part.warpFailed);
    llvm::append_range(summary.atJump, part.atJump);
    if (!c.error.empty())
      errors[c.index].push_back("--warp: " + c.error);
  }
  return summary;
}

WarpSummary
synth::checkAgainstWarp(ArrayRef<StringRef> lines, ArrayRef<size_t> sample,
                        const ValidateOptions &options, StringRef kscRun,
                        StringRef tempDir,
                        std::vector<std::vector<std::string>> &errors) {
  return WarpChecker(options, kscRun, tempDir).run(lines, sample, errors);
}

void synth::printWarpSummary(const WarpSummary &summary, raw_ostream &os) {
  if (!summary.skipped.empty()) {
    os << "  against NVIDIA Warp: not checked: " << summary.skipped << "\n";
    return;
  }
  os << "  against NVIDIA Warp (CPU): " << summary.kernels
     << " kernels with the same outputs, " << summary.gradients
     << " with input adjoints compared\n";
  auto list = [&](StringRef title, ArrayRef<std::string> labels) {
    os << "    " << title << ": " << labels.size() << "\n";
    for (const std::string &label : labels)
      os << "      " << label << "\n";
  };
  list("Warp gradient disagrees (ksc matches finite differences)",
       summary.warpGradientWrong);
  list("no verdict, the kernel jumps at the inputs", summary.atJump);
  list("unexplained (finite differences tell neither apart)",
       summary.unexplained);
  list("Warp cannot build or run the warp form", summary.warpFailed);
}
