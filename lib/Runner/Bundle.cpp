//===- Bundle.cpp - Runs recorded here, replayed on a GPU -------------===//
//
// Part of ksc. The files of a GPU bundle (Bundle.h), and the executors that
// record the launches of a run and play them back.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Bundle.h"

#include "ksc/Config.h"
#include "ksc/Support/Json.h"
#include "ksc/Support/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <cstring>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static constexpr StringLiteral kBundleFormat = "ksc-gpu-bundle";

/// The name of a file of the bundle with `contents`: `dir/HASH.ext`.
static std::string getContentName(StringRef dir, StringRef contents,
                                  StringRef ext) {
  std::array<uint8_t, 32> hash = SHA256::hash(ArrayRef(
      reinterpret_cast<const uint8_t *>(contents.data()), contents.size()));
  return (dir + "/" + toHex(ArrayRef(hash).take_front(12), true) + "." + ext)
      .str();
}
static constexpr StringLiteral kCaseFormat = "ksc-gpu-bundle-case";

/// Whether `part`, a part of a path inside a bundle (between '/'), names
/// something: not empty, '.' or '..'.
static bool isNamedPart(StringRef part) {
  return !part.empty() && part != "." && part != "..";
}

Error runner::checkCaseName(StringRef name) {
  auto invalid = [&](const Twine &why) {
    return makeError("invalid case name '" + name + "': " + why);
  };
  if (name.empty())
    return invalid("it is empty");
  SmallVector<StringRef> parts;
  name.split(parts, '/');
  for (StringRef part : parts) {
    if (!isNamedPart(part))
      return invalid("its parts, separated by '/', must not be empty, '.' or "
                     "'..'");
    for (char c : part)
      if (!isAlnum(c) && !StringRef("_.:+-").contains(c))
        return invalid("use letters, digits and _ . : + - in parts "
                       "separated by '/'");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace ksc::runner {

static json::Value toJSON(const ValueType &type) {
  if (type.isStruct()) {
    json::Array fields;
    for (const ValueType::Field &field : type.fields)
      fields.push_back(
          json::Object{{"name", field.name}, {"type", toJSON(field.type)}});
    return json::Object{{"struct", type.structName},
                        {"fields", std::move(fields)}};
  }
  json::Object object{{"scalar", getScalarName(type.scalar)}};
  if (!type.components.empty())
    object["components"] = type.components;
  return object;
}

static bool fromJSON(const json::Value &value, ValueType &type,
                     json::Path path) {
  json::ObjectMapper mapper(value, path);
  if (!mapper)
    return false;
  const json::Object *object = value.getAsObject();
  if (object->get("struct")) {
    std::string name;
    const json::Array *fields = object->getArray("fields");
    if (!mapper.map("struct", name) || !fields) {
      path.report("expected a struct's name and fields");
      return false;
    }
    std::vector<std::pair<std::string, ValueType>> parsed;
    for (auto [index, field] : llvm::enumerate(*fields)) {
      json::ObjectMapper fieldMapper(field, path.field("fields").index(index));
      std::pair<std::string, ValueType> entry;
      if (!fieldMapper || !fieldMapper.map("name", entry.first) ||
          !fieldMapper.map("type", entry.second))
        return false;
      parsed.push_back(std::move(entry));
    }
    type = ValueType::getStruct(std::move(name), std::move(parsed));
    return true;
  }
  std::string scalarName;
  std::vector<int64_t> components;
  if (!mapper.map("scalar", scalarName) ||
      !mapper.mapOptional("components", components))
    return false;
  for (Scalar scalar : {Scalar::F32, Scalar::F64, Scalar::I1, Scalar::I32,
                        Scalar::U32, Scalar::I64})
    if (getScalarName(scalar) == scalarName) {
      type = ValueType::get(scalar, std::move(components));
      return true;
    }
  path.field("scalar").report("unknown scalar type");
  return false;
}

static json::Value toJSON(const Param &param) {
  json::Object object{{"name", param.name}, {"type", toJSON(param.type)}};
  if (param.isArray)
    object["array"] =
        json::Object{{"rank", param.rank}, {"const", param.isConst}};
  return object;
}

static bool fromJSON(const json::Value &value, Param &param, json::Path path) {
  json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("name", param.name) ||
      !mapper.map("type", param.type))
    return false;
  const json::Value *array = value.getAsObject()->get("array");
  param.isArray = array != nullptr;
  if (!array)
    return true;
  json::ObjectMapper arrayMapper(*array, path.field("array"));
  return arrayMapper && arrayMapper.map("rank", param.rank) &&
         arrayMapper.map("const", param.isConst);
}

static json::Value toJSON(const Signature &sig) {
  json::Array params;
  for (const Param &param : sig.params)
    params.push_back(toJSON(param));
  return json::Object{{"kernel", sig.kernel}, {"params", std::move(params)}};
}

static bool fromJSON(const json::Value &value, Signature &sig,
                     json::Path path) {
  json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("kernel", sig.kernel) &&
         mapper.map("params", sig.params);
}

static json::Object toJSON(const DerivativeSignature &sig) {
  json::Object object{{"primal", sig.primalKernel},
                      {"signature", toJSON(sig.signature)},
                      {"num_primal", sig.numPrimal},
                      {"primal_of", sig.primalOf}};
  if (!sig.finalValueArgs.empty())
    object["final_value_args"] = sig.finalValueArgs;
  return object;
}

static bool fromJSON(const json::Value &value, DerivativeSignature &sig,
                     json::Path path) {
  json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("primal", sig.primalKernel) ||
      !mapper.map("signature", sig.signature) ||
      !mapper.map("num_primal", sig.numPrimal) ||
      !mapper.map("primal_of", sig.primalOf) ||
      !mapper.mapOptional("final_value_args", sig.finalValueArgs))
    return false;
  // The checks of a derivative signature index with these.
  if (sig.numPrimal > sig.signature.params.size() ||
      sig.signature.params.size() - sig.numPrimal != sig.primalOf.size()) {
    path.report("the numbers of primal and derivative parameters do not add "
                "up to the parameters");
    return false;
  }
  for (auto [j, index] : llvm::enumerate(sig.primalOf))
    if (index >= sig.numPrimal) {
      path.field("primal_of").index(j).report("not a primal parameter");
      return false;
    }
  for (auto [j, index] : llvm::enumerate(sig.finalValueArgs))
    if (index >= sig.numPrimal) {
      path.field("final_value_args").index(j).report("not a primal parameter");
      return false;
    }
  return true;
}

static bool fromJSON(const json::Value &value, TangentSignature &sig,
                     json::Path path) {
  json::ObjectMapper mapper(value, path);
  return fromJSON(value, static_cast<DerivativeSignature &>(sig), path) &&
         mapper.map("width", sig.width);
}

static bool fromJSON(const json::Value &value, AdjointSignature &sig,
                     json::Path path) {
  return fromJSON(value, static_cast<DerivativeSignature &>(sig), path);
}

static json::Value toJSON(const Job &job) {
  json::Object object{
      {"mode", getJobModeName(job.mode)},
      {"grid", json::Array{job.grid[0], job.grid[1], job.grid[2]}},
      {"kernel", toJSON(job.signature)},
      {"wrt", job.wrt},
      {"inputs", job.inputsFile},
  };
  if (job.usesAdjoint())
    object["adjoint"] = toJSON(job.adjoint);
  if (job.usesTangent()) {
    json::Object tangent = toJSON(job.tangent);
    tangent["width"] = job.tangent.width;
    object["tangent"] = std::move(tangent);
  }
  if (job.mode == JobMode::CheckGrad) {
    json::Object check{{"seed", job.check.seed}};
    if (job.check.atol)
      check["atol"] = *job.check.atol;
    if (job.check.rtol)
      check["rtol"] = *job.check.rtol;
    object["check"] = std::move(check);
  }
  if (!job.adjointsFile.empty())
    object["adjoints"] = job.adjointsFile;
  if (!job.tangentsFile.empty())
    object["tangents"] = job.tangentsFile;
  return object;
}

static bool fromJSON(const json::Value &value, Job &job, json::Path path) {
  json::ObjectMapper mapper(value, path);
  std::string mode;
  std::vector<int64_t> grid;
  if (!mapper || !mapper.map("mode", mode) || !mapper.map("grid", grid) ||
      !mapper.map("kernel", job.signature) || !mapper.map("wrt", job.wrt) ||
      !mapper.map("inputs", job.inputsFile) ||
      !mapper.mapOptional("adjoints", job.adjointsFile) ||
      !mapper.mapOptional("tangents", job.tangentsFile))
    return false;
  std::optional<JobMode> parsed = parseJobMode(mode);
  if (!parsed) {
    path.field("mode").report("unknown mode");
    return false;
  }
  job.mode = *parsed;
  if (grid.size() != 3 || llvm::any_of(grid, [](int64_t n) { return n < 0; })) {
    path.field("grid").report("expected three extents, none negative");
    return false;
  }
  std::copy(grid.begin(), grid.end(), job.grid.begin());
  if ((job.usesAdjoint() && !mapper.map("adjoint", job.adjoint)) ||
      (job.usesTangent() && !mapper.map("tangent", job.tangent)))
    return false;
  if (job.mode != JobMode::CheckGrad)
    return true;
  const json::Value *check = value.getAsObject()->get("check");
  if (!check) {
    path.field("check").report("missing");
    return false;
  }
  json::ObjectMapper checkMapper(*check, path.field("check"));
  std::optional<double> atol, rtol;
  if (!checkMapper || !checkMapper.map("seed", job.check.seed) ||
      !checkMapper.mapOptional("atol", atol) ||
      !checkMapper.mapOptional("rtol", rtol))
    return false;
  job.check.atol = atol;
  job.check.rtol = rtol;
  return true;
}

static json::Value toJSON(const Tolerance &tolerance) {
  return json::Object{{"atol", tolerance.atol}, {"rtol", tolerance.rtol}};
}

static bool fromJSON(const json::Value &value, Tolerance &tolerance,
                     json::Path path) {
  json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("atol", tolerance.atol) &&
         mapper.map("rtol", tolerance.rtol);
}

json::Value toJSON(const BundleCase &c) {
  json::Array kernels, launches;
  for (const CudaSourceKernel &kernel : c.code.kernels) {
    json::Object entry{{"kernel", kernel.kernel},
                       {"expression", kernel.expression}};
    if (kernel.launch.blockSums)
      entry["block_sums"] = true;
    if (kernel.launch.serial)
      entry["serial"] = true;
    if (!kernel.launch.partialWords.empty())
      entry["partial_words"] = kernel.launch.partialWords;
    kernels.push_back(std::move(entry));
  }
  for (const RecordedLaunch &launch : c.launches)
    launches.push_back(json::Array{launch.kernel, launch.bytes});
  json::Object code{{"arch", c.code.arch}, {"kernels", std::move(kernels)}};
  if (!c.code.ptxFile.empty())
    code["ptx"] = c.code.ptxFile;
  if (!c.code.cudaFile.empty())
    code["cuda"] = c.code.cudaFile;
  json::Object data;
  for (const auto &[file, contents] : c.data)
    data[file] = getContentName("data", contents, "json");
  json::Object object{
      {"format", kCaseFormat},
      {"version", kBundleVersion},
      {"ksc", KSC_VERSION},
      {"name", c.name},
      {"command", c.command},
      {"code", std::move(code)},
      {"launch", json::Object{{"block_size", c.launch.blockSize},
                              {"grid_stride", c.launch.gridStride},
                              {"bounds_check", c.launch.boundsCheck},
                              {"repeat", c.launch.repeat}}},
      {"job", toJSON(c.job)},
      {"data", std::move(data)},
      {"compare", json::Object{{"float", toJSON(c.compare.f32)},
                               {"double", toJSON(c.compare.f64)}}},
      {"launches", std::move(launches)},
      {"results_bytes", static_cast<uint64_t>(c.results.size())},
  };
  if (!c.launchError.empty())
    object["launch_error"] = c.launchError;
  if (!c.gpuFailure.empty())
    object["gpu_failure"] = c.gpuFailure;
  return object;
}

bool fromJSON(const json::Value &value, BundleCase &c, json::Path path) {
  json::ObjectMapper mapper(value, path);
  std::string format;
  int64_t version = 0;
  if (!mapper || !mapper.map("format", format) ||
      !mapper.map("version", version))
    return false;
  if (format != kCaseFormat || version != kBundleVersion) {
    path.report("not a case of a bundle of this version (made by another "
                "ksc?)");
    return false;
  }
  const json::Object *object = value.getAsObject();
  const json::Value *code = object->get("code");
  const json::Value *launch = object->get("launch");
  const json::Value *compare = object->get("compare");
  const json::Object *data = object->getObject("data");
  const json::Array *launches = object->getArray("launches");
  if (!code || !launch || !compare || !data || !launches) {
    path.report("expected code, launch, compare, data and launches");
    return false;
  }
  json::ObjectMapper codeMapper(*code, path.field("code"));
  json::ObjectMapper launchMapper(*launch, path.field("launch"));
  json::ObjectMapper compareMapper(*compare, path.field("compare"));
  if (!mapper.map("name", c.name) || !mapper.map("command", c.command) ||
      !mapper.map("job", c.job) ||
      !mapper.mapOptional("launch_error", c.launchError) ||
      !mapper.mapOptional("gpu_failure", c.gpuFailure) || !codeMapper ||
      !codeMapper.map("arch", c.code.arch) ||
      !codeMapper.mapOptional("ptx", c.code.ptxFile) ||
      !codeMapper.mapOptional("cuda", c.code.cudaFile) || !launchMapper ||
      !launchMapper.map("block_size", c.launch.blockSize) ||
      !launchMapper.map("grid_stride", c.launch.gridStride) ||
      !launchMapper.map("bounds_check", c.launch.boundsCheck) ||
      !launchMapper.map("repeat", c.launch.repeat) || !compareMapper ||
      !compareMapper.map("float", c.compare.f32) ||
      !compareMapper.map("double", c.compare.f64))
    return false;
  const json::Array *kernels = code->getAsObject()->getArray("kernels");
  if (!kernels) {
    path.field("code").field("kernels").report("expected an array");
    return false;
  }
  for (auto [index, kernel] : llvm::enumerate(*kernels)) {
    json::ObjectMapper kernelMapper(
        kernel, path.field("code").field("kernels").index(index));
    CudaSourceKernel entry;
    if (!kernelMapper || !kernelMapper.map("kernel", entry.kernel) ||
        !kernelMapper.map("expression", entry.expression) ||
        !kernelMapper.mapOptional("block_sums", entry.launch.blockSums) ||
        !kernelMapper.mapOptional("serial", entry.launch.serial) ||
        !kernelMapper.mapOptional("partial_words", entry.launch.partialWords))
      return false;
    c.code.kernels.push_back(std::move(entry));
  }
  for (const auto &[file, name] : *data) {
    // (Read with the code, once the JSON is parsed.)
    std::optional<StringRef> text = name.getAsString();
    if (!text) {
      path.field("data").field(file).report("expected the name of a file");
      return false;
    }
    c.data.insert_or_assign(file.str(), text->str());
  }
  for (auto [index, entry] : llvm::enumerate(*launches)) {
    const json::Array *pair = entry.getAsArray();
    std::optional<StringRef> kernel =
        pair && pair->size() == 2 ? (*pair)[0].getAsString() : std::nullopt;
    std::optional<int64_t> bytes =
        pair && pair->size() == 2 ? getAsInt64((*pair)[1]) : std::nullopt;
    if (!kernel || !bytes || *bytes < 0) {
      path.field("launches").index(index).report(
          "expected [kernel, bytes]");
      return false;
    }
    c.launches.push_back({kernel->str(), static_cast<uint64_t>(*bytes)});
  }
  return true;
}

} // namespace ksc::runner

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Writes `contents` to `path` atomically, creating its directory.
static Error writeFile(const Twine &path, StringRef contents) {
  std::string file = path.str();
  if (std::error_code ec =
          sys::fs::create_directories(sys::path::parent_path(file)))
    return makeError("cannot create the directory of '" + file +
                     "': " + ec.message());
  if (Error error = writeFileIfChanged(file, contents))
    return makeError("cannot write '" + file +
                     "': " + toString(std::move(error)));
  return Error::success();
}

static Expected<std::string> readFile(const Twine &path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// The path of the file `name` of the bundle `dir` that the case `who`
/// names (`code/HASH.ptx`), or an error when it would be outside the
/// bundle: an absolute name, a `..` or `.` part, a backslash, or a
/// symbolic link that leads out of the bundle. A bundle comes from another
/// machine: it must never make ksc-replay read elsewhere.
static Expected<std::string> getBundleFile(StringRef dir, StringRef name,
                                           const Twine &who) {
  auto refuse = [&](const Twine &why) {
    return makeError(who + ": the file '" + name + "' " + why);
  };
  if (name.empty() || sys::path::is_absolute(name) || name.contains('\\'))
    return refuse("is not a relative path inside the bundle");
  SmallVector<StringRef> parts;
  name.split(parts, '/');
  if (!llvm::all_of(parts, isNamedPart))
    return refuse("is not a path inside the bundle (no empty, '.' or "
                  "'..' parts)");
  SmallString<256> path(dir);
  sys::path::append(path, name);
  SmallString<256> real, realDir;
  if (sys::fs::real_path(dir, realDir))
    return refuse("cannot be found: the bundle's directory cannot be "
                  "resolved");
  // A file that is not there is reported by its reader.
  if (!sys::fs::real_path(path, real) &&
      !StringRef(real).starts_with((Twine(realDir) + "/").str()))
    return refuse("leads out of the bundle (a symbolic link to '" + real +
                  "')");
  return std::string(path);
}

/// The contents of the file `name` of the bundle `dir`, which must be
/// inside it (getBundleFile).
static Expected<std::string> readBundleFile(StringRef dir, StringRef name,
                                            const Twine &who) {
  Expected<std::string> path = getBundleFile(dir, name, who);
  if (!path)
    return path.takeError();
  return readFile(*path);
}

/// Writes `contents` as KIND/HASH.EXT of the bundle `dir` unless it is
/// there; returns its name in the bundle.
static Expected<std::string> writeContent(StringRef dir, StringRef kind,
                                          StringRef contents, StringRef ext) {
  std::string name = getContentName(kind, contents, ext);
  SmallString<256> path(dir);
  sys::path::append(path, name);
  if (!sys::fs::exists(path))
    if (Error error = writeFile(path, contents))
      return std::move(error);
  return name;
}

Error runner::writeCase(StringRef dir, BundleCase &c, StringRef runtimeHeader) {
  if (Error error = checkCaseName(c.name))
    return error;
  SmallString<256> path(dir);
  sys::path::append(path, "ksc_runtime.h");
  // Every case of a bundle compiles against the same runtime header.
  if (sys::fs::exists(path)) {
    Expected<std::string> existing = readFile(path);
    if (!existing)
      return existing.takeError();
    if (*existing != runtimeHeader)
      return makeError("the bundle '" + dir +
                       "' was made by another ksc (its ksc_runtime.h "
                       "differs); record into a new directory");
  } else if (Error error = writeFile(path, runtimeHeader)) {
    return error;
  }
  path = dir;
  sys::path::append(path, "bundle.json");
  if (!sys::fs::exists(path)) {
    std::string marker;
    raw_string_ostream(marker)
        << json::Value(json::Object{{"format", kBundleFormat},
                                    {"version", kBundleVersion}})
        << "\n";
    if (Error error = writeFile(path, marker))
      return error;
  }
  if (!c.code.ptx.empty()) {
    Expected<std::string> file = writeContent(dir, "code", c.code.ptx, "ptx");
    if (!file)
      return file.takeError();
    c.code.ptxFile = *file;
  }
  if (!c.code.cuda.empty()) {
    Expected<std::string> file = writeContent(dir, "code", c.code.cuda, "cu");
    if (!file)
      return file.takeError();
    c.code.cudaFile = *file;
  }
  for (const auto &[file, contents] : c.data)
    if (Expected<std::string> written =
            writeContent(dir, "data", contents, "json");
        !written)
      return written.takeError();
  // The results first: a case's JSON is never there without them.
  std::string base = (dir + "/cases/" + c.name).str();
  if (Error error = writeFile(
          base + ".bin",
          StringRef(reinterpret_cast<const char *>(c.results.data()),
                    c.results.size())))
    return error;
  std::string text;
  raw_string_ostream os(text);
  os << formatv("{0:2}", toJSON(c)) << "\n";
  return writeFile(base + ".json", text);
}

static std::string getModuleIndex(StringRef dir, StringRef key) {
  return (dir + "/code/modules/" + key + ".json").str();
}

Error runner::rememberCode(StringRef dir, StringRef key,
                           const BundleCode &code) {
  json::Array kernels;
  for (const CudaSourceKernel &kernel : code.kernels)
    kernels.push_back(json::Object{{"kernel", kernel.kernel},
                                   {"expression", kernel.expression}});
  std::string text;
  raw_string_ostream(text) << json::Value(json::Object{
      {"arch", code.arch},
      {"ptx", code.ptxFile},
      {"cuda", code.cudaFile},
      {"kernels", std::move(kernels)}});
  return writeFile(getModuleIndex(dir, key), text);
}

std::optional<BundleCode> runner::findRecordedCode(StringRef dir,
                                                   StringRef key) {
  // Anything amiss (another version's index, a file gone) is no code.
  Expected<std::string> text = readFile(getModuleIndex(dir, key));
  if (!text) {
    consumeError(text.takeError());
    return std::nullopt;
  }
  Expected<json::Value> value = json::parse(*text);
  if (!value) {
    consumeError(value.takeError());
    return std::nullopt;
  }
  BundleCode code;
  json::Path::Root root;
  json::ObjectMapper mapper(*value, root);
  if (!mapper || !mapper.map("arch", code.arch) ||
      !mapper.map("ptx", code.ptxFile) || !mapper.map("cuda", code.cudaFile))
    return std::nullopt;
  const json::Array *kernels = value->getAsObject()->getArray("kernels");
  for (const json::Value &kernel : kernels ? *kernels : json::Array()) {
    CudaSourceKernel entry;
    json::ObjectMapper kernelMapper(kernel, root);
    if (!kernelMapper || !kernelMapper.map("kernel", entry.kernel) ||
        !kernelMapper.map("expression", entry.expression))
      return std::nullopt;
    code.kernels.push_back(std::move(entry));
  }
  Expected<std::string> ptx = readBundleFile(dir, code.ptxFile, key);
  Expected<std::string> cuda = readBundleFile(dir, code.cudaFile, key);
  if (!ptx || !cuda) {
    consumeError(ptx.takeError());
    consumeError(cuda.takeError());
    return std::nullopt;
  }
  code.ptx = std::move(*ptx);
  code.cuda = std::move(*cuda);
  return code;
}

/// Reads the case in `file` (cases/NAME.json of the bundle `dir`).
static Expected<BundleCase> readCase(StringRef dir, StringRef file) {
  Expected<std::string> text = readFile(file);
  if (!text)
    return text.takeError();
  Expected<json::Value> value = json::parse(*text);
  if (!value)
    return makeError(file + " is not valid JSON: " +
                     toString(value.takeError()));
  BundleCase c;
  json::Path::Root root(file);
  if (!fromJSON(*value, c, root))
    return makeError(file + ": " + toString(root.getError()));
  // Its name is its file's (cases/NAME.json), which ksc-replay's reports
  // and --list print: checked as ksc-run --record checks it.
  SmallString<256> casesDir(dir);
  sys::path::append(casesDir, "cases");
  StringRef relative = StringRef(file);
  if (!relative.consume_front((Twine(casesDir) + "/").str()) ||
      !relative.consume_back(".json") || relative != c.name)
    return makeError(file + ": the case's name '" + c.name +
                     "' is not its file's");
  if (Error error = checkCaseName(c.name))
    return makeError(file + ": " + toString(std::move(error)));
  if (Expected<std::string> inside =
          getBundleFile(dir, "cases/" + c.name + ".json",
                        "case '" + c.name + "'");
      !inside)
    return inside.takeError();
  auto read = [&](StringRef name, std::string &contents) -> Error {
    if (name.empty())
      return Error::success();
    Expected<std::string> code =
        readBundleFile(dir, name, "case '" + c.name + "'");
    if (!code)
      return code.takeError();
    contents = std::move(*code);
    return Error::success();
  };
  if (Error error = read(c.code.ptxFile, c.code.ptx))
    return std::move(error);
  if (Error error = read(c.code.cudaFile, c.code.cuda))
    return std::move(error);
  for (auto &[file, contents] : c.data) {
    std::string name = std::move(contents);
    if (Error error = read(name, contents))
      return std::move(error);
  }
  StringRef base = StringRef(file).drop_back(strlen(".json"));
  Expected<std::string> results = readFile(base + ".bin");
  if (!results)
    return results.takeError();
  c.results.assign(results->begin(), results->end());
  uint64_t total = 0;
  for (const RecordedLaunch &launch : c.launches)
    total += launch.bytes;
  if (total != c.results.size())
    return makeError(base + ".bin has " + Twine(c.results.size()) +
                     " bytes; the launches of " + file + " need " +
                     Twine(total));
  return c;
}

Expected<std::string> runner::readBundleRuntimeHeader(StringRef dir) {
  return readFile(dir + "/ksc_runtime.h");
}

Expected<std::vector<BundleCase>> runner::readBundle(StringRef dir) {
  std::string marker = (dir + "/bundle.json").str();
  Expected<std::string> text = readFile(marker);
  if (!text)
    return makeError("'" + dir + "' is not a GPU bundle: " +
                     toString(text.takeError()));
  Expected<json::Value> value = json::parse(*text);
  const json::Object *object = value ? value->getAsObject() : nullptr;
  if (!value)
    consumeError(value.takeError());
  if (!object || object->getString("format") != kBundleFormat)
    return makeError(marker + " does not describe a GPU bundle");
  if (object->getInteger("version") != kBundleVersion)
    return makeError(marker + ": a bundle of another version than " +
                     Twine(kBundleVersion) + "; make it again with this ksc");

  std::vector<std::string> files;
  std::error_code ec;
  std::string cases = (dir + "/cases").str();
  // Symbolic links to directories are not followed (a link to an
  // enclosing directory listed the cases again and again).
  for (sys::fs::recursive_directory_iterator it(cases, ec,
                                                /*follow_symlinks=*/false),
       end;
       !ec && it != end; it.increment(ec))
    if (StringRef(it->path()).ends_with(".json"))
      files.push_back(it->path());
  if (ec && ec != std::errc::no_such_file_or_directory)
    return makeError("cannot list '" + cases + "': " + ec.message());
  llvm::sort(files);
  std::vector<BundleCase> result;
  for (const std::string &file : files) {
    Expected<BundleCase> c = readCase(dir, file);
    if (!c)
      return c.takeError();
    result.push_back(std::move(*c));
  }
  llvm::sort(result, [](const BundleCase &a, const BundleCase &b) {
    return a.name < b.name;
  });
  return result;
}

//===----------------------------------------------------------------------===//
// Recording and playing back
//===----------------------------------------------------------------------===//

Error RecordingExecutor::launch(StringRef kernel, std::vector<Argument> &args) {
  if (Error error = inner.launch(kernel, args)) {
    launchError = toString(std::move(error));
    return makeError(launchError);
  }
  RecordedLaunch launch{kernel.str(), 0};
  for (const Argument &arg : args)
    if (arg.param.isArray && !arg.param.isConst) {
      results.insert(results.end(), arg.bytes.begin(), arg.bytes.end());
      launch.bytes += arg.bytes.size();
    }
  launches.push_back(std::move(launch));
  return Error::success();
}

void RecordingExecutor::takeInto(BundleCase &c) {
  c.launches = std::move(launches);
  c.results = std::move(results);
  c.launchError = std::move(launchError);
}

Error RecordedExecutor::launch(StringRef kernel, std::vector<Argument> &args) {
  const std::vector<RecordedLaunch> &launches = bundleCase.launches;
  if (next == launches.size()) {
    // The launch that failed on the CPU: the GPU must fail too, and there
    // is nothing to compare.
    if (!bundleCase.launchError.empty())
      return Error::success();
    return makeError("launch " + Twine(next + 1) + " (of kernel '" + kernel +
                     "') was not made on the CPU, which made " +
                     Twine(launches.size()));
  }
  const RecordedLaunch &recorded = launches[next];
  if (recorded.kernel != kernel)
    return makeError("launch " + Twine(next + 1) + " is of kernel '" + kernel +
                     "'; the CPU's was of '" + recorded.kernel + "'");
  uint64_t bytes = 0;
  for (const Argument &arg : args)
    if (arg.param.isArray && !arg.param.isConst)
      bytes += arg.bytes.size();
  if (bytes != recorded.bytes)
    return makeError("launch " + Twine(next + 1) + " of kernel '" + kernel +
                     "' writes " + Twine(bytes) +
                     " bytes of arrays; the CPU's wrote " +
                     Twine(recorded.bytes));
  for (Argument &arg : args)
    if (arg.param.isArray && !arg.param.isConst) {
      std::memcpy(arg.bytes.data(), bundleCase.results.data() + offset,
                  arg.bytes.size());
      offset += arg.bytes.size();
    }
  ++next;
  return Error::success();
}

Error RecordedExecutor::finish() const {
  if (next == bundleCase.launches.size())
    return Error::success();
  return makeError("the run made " + Twine(next) + " launches; the CPU made " +
                   Twine(bundleCase.launches.size()));
}
