//===- Validate.cpp - Re-check a dataset against this ksc -------------===//
//
// Part of ksc. Every record: its JSON schema, and that each of its forms is
// what this ksc makes of its source. A sample (every record with --full):
// its C++ compiles with the host compiler and its PTX assembles with
// ptxas. A smaller sample: its CUDA C++ compiles with nvcc (when there is
// one) and ksc-run --check-grad passes on kernels with arguments to
// differentiate (their types, struct fields included, read from the ks IR).
//
//===----------------------------------------------------------------------===//

#include "ValidateWarp.h"

#include "ksc/Config.h"
#include "ksc/Dialect/Ks/IR/KsOps.h"
#include "ksc/Runner/Runner.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Process.h"
#include "ksc/Support/SplitMix64.h"
#include "ksc/Synth/Generate.h"
#include "ksc/Target/PTX/PtxEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/thread.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <atomic>
#include <mutex>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {
/// The tools the sampled checks run; empty where not found.
struct Tools {
  std::string cxx, ptxas, nvcc, kscRun;
  /// The runtime header's directory, and the cache of its precompiled
  /// header.
  runner::HostCompiler host;
};

/// What the checks did, for the summary.
struct Counts {
  std::atomic<unsigned> records{0}, cppFiles{0}, ptxFiles{0}, cudaFiles{0},
      gradKernels{0};
};

class Validator {
public:
  Validator(const FrontendSession &session, const ValidateOptions &options,
            StringRef tempDir, const Tools &tools)
      : session(session), options(options), tempDir(tempDir), tools(tools) {}

  /// Checks record `line` (1-based) with `compiler`; returns the errors.
  std::vector<std::string> check(RecordCompiler &compiler, StringRef text,
                                 unsigned line, bool compileSample,
                                 bool cudaSample, bool gradSample, int64_t &id);

  Counts counts;

private:
  bool checkSchema(const json::Object &record,
                   std::vector<std::string> &errors);
  void runTool(StringRef program, ArrayRef<std::string> args, StringRef what,
               std::vector<std::string> &errors);
  void checkCpp(StringRef path, StringRef source, StringRef what,
                std::vector<std::string> &errors);
  std::string logPath() const;
  std::string writeTemp(unsigned line, StringRef suffix, StringRef text,
                        std::vector<std::string> &errors);
  void checkGradient(const json::Object &record, StringRef ksMlir,
                     unsigned line, uint64_t seed,
                     std::vector<std::string> &errors);

  const FrontendSession &session;
  const ValidateOptions &options;
  std::string tempDir;
  const Tools &tools;
};
} // namespace

bool Validator::checkSchema(const json::Object &record,
                            std::vector<std::string> &errors) {
  auto need = [&](StringRef key, json::Value::Kind kind, StringRef what) {
    const json::Value *value = record.get(key);
    bool ok = value && (value->kind() == kind ||
                        (kind == json::Value::Number && value->getAsInteger()));
    if (!ok)
      errors.push_back(("\"" + key + "\" must be " + what).str());
    return ok;
  };
  need("id", json::Value::Number, "an integer");
  if (need("category", json::Value::String, "a category name") &&
      !parseCategory(*record.getString("category")))
    errors.push_back("unknown category '" +
                     record.getString("category")->str() + "'");
  if (need("seed", json::Value::Number, "an integer")) {
    std::optional<int64_t> seed = record.getInteger("seed");
    std::optional<Category> category =
        seed && *seed >= 0 ? categoryOfSeed(*seed) : std::nullopt;
    if (!category)
      errors.push_back("\"seed\" is not a record seed");
    else if (record.getString("category") &&
             categoryName(*category) != *record.getString("category"))
      errors.push_back("\"seed\" is of category '" +
                       categoryName(*category).str() + "', not '" +
                       record.getString("category")->str() + "'");
  }
  need("kernel", json::Value::String, "a string");
  // A file name, which names the record's scratch files: never a path out
  // of the validator's directory.
  if (need("file", json::Value::String, "a string")) {
    StringRef file = *record.getString("file");
    if (file.empty() || file == "." || file == ".." ||
        file.find_first_of(StringRef("/\\\0", 3)) != StringRef::npos)
      errors.push_back("\"file\" must be a file name, without a directory");
  }
  need("ksc_version", json::Value::String, "a string");
  need("source", json::Value::String, "a string");
  if (need("arguments", json::Value::Array, "an array")) {
    for (const json::Value &argument : *record.getArray("arguments")) {
      const json::Object *object = argument.getAsObject();
      if (!object || !object->getString("name") || !object->getString("type") ||
          object->size() != 2) {
        errors.push_back("each of \"arguments\" must be {\"name\": string, "
                         "\"type\": string}");
        break;
      }
    }
  }
  unsigned forms = 0;
  for (const auto &[key, value] : record) {
    if (llvm::is_contained(recordKeys(), key.str()))
      continue;
    if (key == "structure") {
      std::optional<StringRef> hex = value.getAsString();
      if (!hex || !parseFingerprintHex(*hex))
        errors.push_back("\"structure\" must be 32 hex digits");
      continue;
    }
    if (key == "patterns") {
      const json::Array *list = value.getAsArray();
      if (!list || list->empty() ||
          llvm::any_of(*list, [](const json::Value &pattern) {
            return !pattern.getAsString();
          }))
        errors.push_back("\"patterns\" must be an array of strings");
      continue;
    }
    if (!parseForm(key)) {
      errors.push_back("unknown key \"" + key.str() + "\"");
      continue;
    }
    ++forms;
    if (value.kind() != json::Value::String)
      errors.push_back("form \"" + key.str() + "\" must be a string");
  }
  if (!forms)
    errors.push_back("the record has no forms");
  return errors.empty();
}

/// Writes `text` to the scratch file of record `line` named by `suffix`;
/// its path. A failed write (a full disk) is one of the record's errors.
std::string Validator::writeTemp(unsigned line, StringRef suffix,
                                 StringRef text,
                                 std::vector<std::string> &errors) {
  SmallString<256> path(tempDir);
  sys::path::append(path, "record" + std::to_string(line) + suffix);
  if (Error error = writeFileIfChanged(path, text))
    errors.push_back(("cannot write the scratch file '" + path +
                      "': " + toString(std::move(error)))
                         .str());
  return std::string(path);
}

/// A file for the output of the tools this thread runs.
std::string Validator::logPath() const {
  SmallString<256> log(tempDir);
  sys::path::append(log, "log" + std::to_string(sys::Process::getProcessId()) +
                             "-" +
                             std::to_string(std::hash<std::thread::id>()(
                                 std::this_thread::get_id())));
  return std::string(log);
}

/// Checks the emitted C++ `source` in `path` with the host compiler, with
/// its precompiled runtime header (runner::runHostCompiler).
void Validator::checkCpp(StringRef path, StringRef source, StringRef what,
                         std::vector<std::string> &errors) {
  std::string log;
  if (runner::runHostCompiler(tools.cxx, {"-std=c++17", "-fsyntax-only"},
                              source, {path}, tools.host, logPath(), log))
    return;
  errors.push_back(
      (what + " failed\n" + StringRef(log).take_front(2000).rtrim()).str());
}

void Validator::runTool(StringRef program, ArrayRef<std::string> args,
                        StringRef what, std::vector<std::string> &errors) {
  SmallVector<StringRef> argv{program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  ProgramResult result = runProgram(argv, logPath());
  if (result.succeeded())
    return;
  errors.push_back((what + " failed" +
                    (result.error.empty() ? "" : ": " + result.error) + "\n" +
                    StringRef(result.output).take_front(2000).rtrim())
                       .str());
}

void Validator::checkGradient(const json::Object &record, StringRef ksMlir,
                              unsigned line, uint64_t seed,
                              std::vector<std::string> &errors) {
  constexpr unsigned n = 8;
  // The argument types as ksc-run reads them (struct fields included).
  Expected<runner::Signature> signature = signatureOf(ksMlir);
  if (!signature) {
    errors.push_back("ksc-run cannot pass the kernel's arguments: " +
                     toString(signature.takeError()));
    return;
  }
  if (llvm::none_of(signature->params, [](const runner::Param &param) {
        return param.type.hasDerivative();
      }))
    return; // nothing to differentiate
  std::string source = writeTemp(line, "-" + record.getString("file")->str(),
                                 *record.getString("source"), errors);
  // In double precision: float central differences of the large values
  // random expressions reach are noise. Differences across a jump of a
  // piecewise function (int(x), a comparison) are wrong by chance: a
  // kernel fails only if it fails with two different random inputs.
  std::vector<std::string> attemptErrors;
  for (unsigned attempt = 0; attempt < 2; ++attempt) {
    attemptErrors.clear();
    SplitMix64 random(seed + attempt);
    json::Object inputs;
    for (const runner::Param &param : signature->params)
      inputs[param.name] = randomArgument(param, n, random);
    std::string json =
        writeTemp(line, "-inputs.json",
                  formatv("{0}", json::Value(std::move(inputs))).str(),
                  attemptErrors);
    if (attempt == 0)
      ++counts.gradKernels;
    runTool(tools.kscRun,
            {source, "--dim=" + std::to_string(n), "--inputs=" + json,
             "--check-grad", "--precision=double"},
            "ksc-run --check-grad --precision=double (with two different "
            "random inputs)",
            attemptErrors);
    if (attemptErrors.empty())
      return;
  }
  errors.insert(errors.end(), attemptErrors.begin(), attemptErrors.end());
}

std::vector<std::string> Validator::check(RecordCompiler &compiler,
                                          StringRef text, unsigned line,
                                          bool compileSample, bool cudaSample,
                                          bool gradSample, int64_t &id) {
  std::vector<std::string> errors;
  Expected<json::Value> value = json::parse(text);
  if (!value) {
    errors.push_back("not JSON: " + toString(value.takeError()));
    return errors;
  }
  const json::Object *record = value->getAsObject();
  if (!record) {
    errors.push_back("not a JSON object");
    return errors;
  }
  if (std::optional<int64_t> recordId = record->getInteger("id"))
    id = *recordId;
  if (!checkSchema(*record, errors))
    return errors;
  ++counts.records;
  StringRef version = *record->getString("ksc_version");
  if (version != KSC_VERSION) {
    errors.push_back(("made by ksc " + version + ", this is ksc " +
                      KSC_VERSION +
                      ": its forms cannot be checked (regenerate it)")
                         .str());
    return errors;
  }

  FormSet forms;
  for (Form form : allForms())
    if (record->get(formName(form)))
      forms.insert(form);
  CompiledForms compiled;
  std::string error;
  StringRef fileName = *record->getString("file");
  // The gradient check reads the argument types from the ks IR.
  FormSet compiledForms = forms;
  std::optional<StringRef> structure = record->getString("structure");
  if (gradSample || structure)
    compiledForms.insert(Form::KsMlir);
  if (!compiler.compile(fileName, *record->getString("source"), compiledForms,
                        compiled, error)) {
    errors.push_back("the source does not compile: " + error);
    return errors;
  }
  for (Form form : allForms()) {
    if (!forms.contains(form))
      continue;
    StringRef stored = *record->getString(formName(form));
    if (stored == compiled[form])
      continue;
    // The first line that differs.
    SmallVector<StringRef> a, b;
    stored.split(a, '\n');
    StringRef(compiled[form]).split(b, '\n');
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
      ++at;
    errors.push_back(("form \"" + formName(form) +
                      "\" is not what this ksc makes of the source (`" +
                      formCommandLine(fileName, form) +
                      "`): first difference at its line " + Twine(at + 1))
                         .str());
  }
  if (structure && *structure != fingerprintHex(structureFingerprint(
                                     compiled[Form::KsMlir])))
    errors.push_back("\"structure\" is not that of the source's ks IR");
  if (!errors.empty())
    return errors;

  if (compileSample && !tools.cxx.empty()) {
    for (Form form : {Form::Cpp, Form::CppAdj, Form::CppJvp}) {
      if (!forms.contains(form))
        continue;
      std::string path =
          writeTemp(line, "-" + formName(form).str() + ".cpp", compiled[form],
                    errors);
      ++counts.cppFiles;
      checkCpp(path, compiled[form],
               ("the " + formName(form) + " C++ (" + tools.cxx + ")").str(),
               errors);
    }
  }
  if (compileSample && !tools.ptxas.empty()) {
    for (Form form : {Form::Ptx, Form::PtxAdj}) {
      if (!forms.contains(form))
        continue;
      std::string path =
          writeTemp(line, "-" + formName(form).str() + ".ptx", compiled[form],
                    errors);
      ++counts.ptxFiles;
      runTool(tools.ptxas,
              {"-arch=" + kDefaultCudaArch.str(), path, "-o", path + ".cubin"},
              ("the " + formName(form) + " PTX (ptxas)").str(), errors);
    }
  }
  if (cudaSample && !tools.nvcc.empty()) {
    for (Form form : {Form::Cuda, Form::CudaAdj}) {
      if (!forms.contains(form))
        continue;
      std::string path =
          writeTemp(line, "-" + formName(form).str() + ".cu", compiled[form],
                    errors);
      ++counts.cudaFiles;
      runTool(tools.nvcc,
              {"-std=c++17", "-arch=" + kDefaultCudaArch.str(), "-c",
               "-I" + tools.host.runtimeDir, path, "-o", path + ".o"},
              ("the " + formName(form) + " CUDA C++ (nvcc)").str(), errors);
    }
  }
  if (gradSample)
    checkGradient(*record, compiled[Form::KsMlir], line,
                  *record->getInteger("seed"), errors);
  return errors;
}

/// `name` in the CUDA toolkit's bin/, or on PATH; empty if neither.
static std::string findCudaTool(StringRef name, StringRef cudaPath) {
  SmallString<256> path(cudaToolkitRoot(cudaPath));
  sys::path::append(path, "bin", name);
  if (sys::fs::can_execute(path))
    return std::string(path);
  ErrorOr<std::string> found = sys::findProgramByName(name);
  return found ? *found : "";
}

bool synth::validateDataset(const FrontendSession &session, StringRef path,
                            const ValidateOptions &options, raw_ostream &os) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    os << "ksc-synth: error: cannot read '" << path
       << "': " << buffer.getError().message() << "\n";
    return false;
  }
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  while (!lines.empty() && lines.back().trim().empty())
    lines.pop_back();

  Tools tools;
  runner::HostCompiler host = runner::getDefaultHostCompiler();
  if (ErrorOr<std::string> cxx = sys::findProgramByName(host.command))
    tools.cxx = *cxx;
  tools.host = host;
  tools.ptxas = findCudaTool("ptxas", options.compile.cudaPath);
  tools.nvcc = findCudaTool("nvcc", options.compile.cudaPath);
  tools.kscRun = options.kscRun;

  SmallString<128> tempDir;
  if (sys::fs::createUniqueDirectory("ksc-synth-validate", tempDir)) {
    os << "ksc-synth: error: cannot create a temporary directory\n";
    return false;
  }
  Validator validator(session, options, tempDir, tools);

  // Which records the sampled checks take: spread over the file.
  size_t total = lines.size();
  auto every = [&](unsigned count) -> size_t {
    return count ? std::max<size_t>(1, (total + count - 1) / count) : 0;
  };
  size_t compileStep = options.full ? 1 : every(options.sample);
  size_t cudaStep = every(options.nvccSample);
  size_t gradStep = every(options.gradSample);

  std::vector<std::vector<std::string>> errors(total);
  std::vector<int64_t> ids(total, -1);
  std::atomic<size_t> next{0};
  auto work = [&] {
    RecordCompiler compiler(session, options.compile);
    while (true) {
      size_t index = next.fetch_add(1);
      if (index >= total)
        return;
      auto sampled = [&](size_t step) { return step && index % step == 0; };
      errors[index] = validator.check(compiler, lines[index], index + 1,
                                      sampled(compileStep), sampled(cudaStep),
                                      sampled(gradStep), ids[index]);
    }
  };
  std::vector<llvm::thread> workers;
  for (unsigned i = 0; i < std::max(1u, options.jobs); ++i)
    workers.emplace_back(std::optional<unsigned>(64u << 20), work);
  for (llvm::thread &worker : workers)
    worker.join();
  std::optional<WarpSummary> warp;
  if (options.warpSample) {
    std::vector<size_t> sample;
    for (size_t index = 0; index < total; index += every(options.warpSample))
      if (errors[index].empty())
        sample.push_back(index);
    warp =
        checkAgainstWarp(lines, sample, options, tools.kscRun, tempDir, errors);
  }
  sys::fs::remove_directories(tempDir);

  DenseMap<int64_t, size_t> firstLine;
  for (size_t index = 0; index < total; ++index)
    if (ids[index] >= 0) {
      auto [it, inserted] = firstLine.try_emplace(ids[index], index);
      if (!inserted)
        errors[index].push_back("id " + std::to_string(ids[index]) +
                                " repeats the record of line " +
                                std::to_string(it->second + 1));
    }

  unsigned bad = 0;
  for (size_t index = 0; index < total; ++index) {
    if (errors[index].empty())
      continue;
    ++bad;
    for (const std::string &error : errors[index]) {
      os << path << ":" << index + 1 << ": ";
      if (ids[index] >= 0)
        os << "id " << ids[index] << ": ";
      os << error << "\n";
    }
  }
  const Counts &counts = validator.counts;
  os << "ksc-synth validate: " << total << " records, " << total - bad
     << " good, " << bad << " bad\n";
  os << "  schema and forms against ksc " << KSC_VERSION << ": "
     << counts.records << " records\n";
  auto tool = [](StringRef name, StringRef found) {
    return found.empty() ? ("not checked: no " + name + " found").str()
                         : ("with " + found).str();
  };
  os << "  C++ compiled: " << counts.cppFiles << " files ("
     << (options.full ? "every record" : "a sample") << ", "
     << tool("host C++ compiler", tools.cxx) << ")\n";
  os << "  PTX assembled: " << counts.ptxFiles << " files ("
     << tool("ptxas", tools.ptxas) << ")\n";
  os << "  CUDA C++ compiled: " << counts.cudaFiles << " files ("
     << tool("nvcc", tools.nvcc) << ")\n";
  os << "  gradients checked (ksc-run --check-grad): " << counts.gradKernels
     << " kernels\n";
  if (warp)
    printWarpSummary(*warp, os);
  return bad == 0;
}
