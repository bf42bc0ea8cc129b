//===- ksc-synth.cpp - Paired-code dataset generator ------------------===//
//
// Part of ksc.
//
//   ksc-synth --count=N --seed=S -o DATA.jsonl [--categories=...]
//             [--forms=...] [--jobs=J] [--shard=i/n] [--resume]
//   ksc-synth --replay=SEED
//   ksc-synth validate DATA.jsonl [--full]
//   ksc-synth merge -o ALL.jsonl SHARD.jsonl...
//
// Generates random kernels, compiles each to the forms asked for with the
// real pipeline, and writes one JSON record per kernel; checks and merges
// such datasets. See docs/dataset.md.
//
//===----------------------------------------------------------------------===//

#include "ksc/Config.h"
#include "ksc/Driver/Driver.h"
#include "ksc/Support/Output.h"
#include "ksc/Support/Signals.h"
#include "ksc/Synth/Card.h"
#include "ksc/Synth/Checkpoint.h"
#include "ksc/Synth/Generate.h"
#include "ksc/Synth/Split.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {
cl::OptionCategory synthCategory("ksc-synth options");
cl::SubCommand validateCommand("validate",
                               "Re-check a dataset against this ksc");
cl::SubCommand mergeCommand("merge", "Concatenate shards, dropping duplicates");
cl::SubCommand splitCommand("split",
                            "Write a dataset's records to one file per split");
cl::SubCommand cardCommand("card",
                           "Write the README.md of a dataset next to it");

// Generating (the top-level command).
cl::opt<uint64_t>
    countOption("count",
                cl::desc("The number of kernels: ids 0..N-1, before "
                         "sharding (default 1000)"),
                cl::value_desc("N"), cl::init(1000), cl::cat(synthCategory));
cl::opt<uint64_t> seed("seed",
                       cl::desc("The dataset's seed (default 1); the same "
                                "seed, count and shard give the same bytes"),
                       cl::value_desc("S"), cl::init(1),
                       cl::cat(synthCategory));
cl::opt<std::string> outputFile("o",
                                cl::desc("The dataset, one JSON record a line "
                                         "('-' for stdout, the default)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(synthCategory),
                                cl::sub(cl::SubCommand::getTopLevel()),
                                cl::sub(mergeCommand));
cl::opt<std::string> statsFile(
    "stats-file",
    cl::desc("Where the statistics go (default: the output's name with "
             ".stats.json for .jsonl; none for stdout)"),
    cl::value_desc("file"), cl::cat(synthCategory),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(mergeCommand));
/// The help of --categories, naming every category (the generator's
/// table is constant-initialized, so it is ready before this).
const std::string categoriesHelp = [] {
  std::string text = "Comma-separated categories (default: the --profile's):";
  for (Category category : allCategories())
    text += (category == allCategories().front() ? " " : ", ") +
            categoryName(category).str();
  return text;
}();
cl::opt<std::string> categoriesOption("categories", cl::desc(categoriesHelp),
                                      cl::value_desc("list"),
                                      cl::cat(synthCategory));
cl::opt<std::string> profileOption(
    "profile",
    cl::desc("basic (default): every category but realistic, small kernels; "
             "realistic: kernels composed of the patterns of real kernels "
             "(stencils, reductions, particles, integrators, matrix algebra, "
             "geometry), with --max-depth=2 --max-statements=4 "
             "--min-statements=16 unless given"),
    cl::value_desc("name"), cl::init("basic"), cl::cat(synthCategory));
cl::opt<std::string> formsOption(
    "forms",
    cl::desc("Comma-separated forms (default all): ks_mlir, cpp, cpp_adj, "
             "cpp_jvp, cuda, cuda_adj, ptx, ptx_adj"),
    cl::value_desc("list"), cl::cat(synthCategory));
cl::opt<unsigned> jobs("jobs",
                       cl::desc("Worker threads (default: one per core); "
                                "the output does not depend on it"),
                       cl::value_desc("J"), cl::init(0), cl::cat(synthCategory),
                       cl::sub(cl::SubCommand::getTopLevel()),
                       cl::sub(validateCommand));
cl::opt<std::string> shard("shard",
                           cl::desc("Make shard i of n (0 <= i < n) of the "
                                    "ids: a contiguous range"),
                           cl::value_desc("i/n"), cl::cat(synthCategory));
cl::opt<unsigned> maxDepth("max-depth",
                           cl::desc("The deepest expression and control-flow "
                                    "nesting (default 3)"),
                           cl::value_desc("D"), cl::init(3),
                           cl::cat(synthCategory));
cl::opt<unsigned>
    maxStatements("max-statements",
                  cl::desc("The most statements in a block (default 6)"),
                  cl::value_desc("N"), cl::init(6), cl::cat(synthCategory));
cl::opt<unsigned> minStatements(
    "min-statements",
    cl::desc("Kernels of at least N statements: smaller ones are drawn "
             "again from the seed (default 0)"),
    cl::value_desc("N"), cl::init(0), cl::cat(synthCategory));
cl::opt<bool> nearDuplicates(
    "near-duplicates",
    cl::desc("Drop records whose structure (ks IR with constants and names "
             "abstracted) repeats an earlier record's; records carry it as "
             "\"structure\""),
    cl::cat(synthCategory));
cl::opt<uint64_t>
    replay("replay",
           cl::desc("Make the one record of this record seed (a failure's "
                    "seed in the statistics) and print it, or its error"),
           cl::value_desc("SEED"), cl::cat(synthCategory));
cl::opt<bool> resume(
    "resume",
    cl::desc("Continue the interrupted run of the same options into the -o "
             "file from its last checkpoint (start if there is none)"),
    cl::cat(synthCategory));
cl::opt<double> checkpointSeconds(
    "checkpoint-seconds",
    cl::desc("Seconds between checkpoints of a run into a file (default 5; "
             "0: after every id)"),
    cl::init(5), cl::Hidden, cl::cat(synthCategory));
cl::opt<uint64_t> interruptAfter(
    "interrupt-after",
    cl::desc("For testing --resume: stop as SIGTERM does at the first "
             "checkpoint at or after id N"),
    cl::value_desc("N"), cl::Hidden, cl::cat(synthCategory));
cl::opt<bool> quiet("quiet",
                    cl::desc("No progress bar or summary on stderr (the bar "
                             "shows only on a terminal anyway)"),
                    cl::cat(synthCategory),
                    cl::sub(cl::SubCommand::getTopLevel()),
                    cl::sub(mergeCommand), cl::sub(splitCommand),
                    cl::sub(cardCommand));
cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("The CUDA toolkit: libdevice for PTX forms, nvcc and ptxas for "
             "validate (default: $CUDA_HOME, then /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(synthCategory),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(validateCommand));

cl::opt<std::string> splitsOption(
    "splits",
    cl::desc("Also write the records to one file per split, by a hash of "
             "their normalized source: data.train.jsonl, ... for "
             "train:0.98,val:0.01,test:0.01"),
    cl::value_desc("name:fraction,..."), cl::cat(synthCategory),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(mergeCommand),
    cl::sub(splitCommand));

// card
cl::opt<std::string> cardInput(cl::Positional, cl::Required,
                               cl::desc("<dataset.jsonl>"),
                               cl::sub(cardCommand));
cl::opt<std::string> license(
    "license",
    cl::desc("The SPDX identifier of the dataset's license (default: none "
             "stated, 'other')"),
    cl::value_desc("id"), cl::init("other"), cl::cat(synthCategory),
    cl::sub(cardCommand));

// split
cl::opt<std::string> splitInput(cl::Positional, cl::Required,
                                cl::desc("<dataset.jsonl>"),
                                cl::sub(splitCommand));

// validate
cl::opt<std::string> validateInput(cl::Positional, cl::Required,
                                   cl::desc("<dataset.jsonl>"),
                                   cl::sub(validateCommand));
cl::opt<bool> full("full",
                   cl::desc("Compile every record's C++ and assemble every "
                            "PTX, not a sample"),
                   cl::sub(validateCommand));
cl::opt<unsigned> sample("sample",
                         cl::desc("Records whose C++ and PTX are compiled "
                                  "without --full (default 50)"),
                         cl::init(50), cl::sub(validateCommand));
cl::opt<unsigned> nvccSample("nvcc-sample",
                             cl::desc("Records whose CUDA C++ nvcc compiles, "
                                      "when nvcc is found (default 8)"),
                             cl::init(8), cl::sub(validateCommand));
cl::opt<unsigned> gradSample("grad-sample",
                             cl::desc("Records whose gradients ksc-run "
                                      "--check-grad checks (default 8)"),
                             cl::init(8), cl::sub(validateCommand));
cl::opt<bool> warp("warp",
                   cl::desc("Also run a sample of records' warp form on NVIDIA "
                            "Warp's CPU backend and compare outputs and "
                            "gradients with ksc-run's (needs Python with the "
                            "warp-lang package; skipped without it)"),
                   cl::sub(validateCommand));
cl::opt<unsigned> warpSample("warp-sample",
                             cl::desc("Records --warp runs (default 20)"),
                             cl::init(20), cl::sub(validateCommand));
cl::opt<std::string> python("python",
                            cl::desc("The Python --warp runs Warp with "
                                     "(default: python3 on the PATH)"),
                            cl::value_desc("path"), cl::sub(validateCommand));

// merge
cl::list<std::string> mergeInputs(cl::Positional, cl::OneOrMore,
                                  cl::desc("<shard.jsonl>..."),
                                  cl::sub(mergeCommand));
} // namespace

static int fail(const Twine &message) {
  errs() << "ksc-synth: error: " << message << "\n";
  return 1;
}

static void printVersion(raw_ostream &os) {
  os << "ksc-synth (ksc " << KSC_VERSION << ", LLVM " << KSC_LLVM_VERSION
     << ")\n";
}

/// Writes `text` to `path` as ksc writes its outputs (writeFileIfChanged).
static bool writeFile(StringRef path, StringRef text) {
  if (Error error = writeFileIfChanged(path, text)) {
    fail("cannot write '" + path + "': " + toString(std::move(error)));
    return false;
  }
  return true;
}

/// A temporary directory for the session's precompiled prelude, removed
/// when it goes out of scope.
class SessionFiles {
public:
  SessionFiles() {
    if (!sys::fs::createUniqueDirectory("ksc-synth", dir))
      pch = (dir + "/prelude.pch").str();
  }
  ~SessionFiles() {
    if (!dir.empty())
      sys::fs::remove_directories(dir);
  }
  std::unique_ptr<FrontendSession> create() {
    if (pch.empty()) {
      fail("cannot create a temporary directory");
      return nullptr;
    }
    return FrontendSession::create(FrontendOptions(), pch);
  }

private:
  SmallString<128> dir;
  std::string pch;
};

/// The most worker threads --jobs may ask for: 8 per hardware thread (64
/// at least). More gain nothing, and many more ran out of threads after
/// half a minute (`pthread_create failed`).
static unsigned maxJobs() {
  return std::max(64u, 8 * llvm::hardware_concurrency().compute_thread_count());
}

static unsigned jobCount() {
  if (jobs)
    return jobs;
  int cores = llvm::get_physical_cores();
  return cores > 0 ? unsigned(cores) : 1u;
}

/// Writes `stats`, after `settings`, to --stats-file or next to the
/// output file (nowhere for standard output).
static bool writeStats(const Stats &stats, json::Object settings) {
  std::string path = statsFile;
  if (path.empty() && outputFile != "-")
    path = defaultStatsPath(outputFile);
  return path.empty() ||
         writeFile(path, formatv("{0:2}\n",
                                 json::Value(stats.toJSON(std::move(settings))))
                             .str());
}

/// The splits of --splits (none without it) of the dataset `output`, or an
/// error message.
static Expected<std::vector<Split>> requestedSplits(StringRef output) {
  if (!splitsOption.getNumOccurrences())
    return std::vector<Split>();
  if (output == "-")
    return createStringError(
        "--splits needs -o FILE: the split files are named after it");
  Expected<std::vector<Split>> splits = parseSplits(splitsOption);
  if (!splits)
    return createStringError("--splits: " + toString(splits.takeError()));
  return splits;
}

/// Writes the records of `path` to its split files; adds their counts to
/// `settings` (the statistics). False after an error, reported.
static bool writeSplits(StringRef path, std::vector<Split> &splits,
                        json::Object *settings) {
  if (splits.empty())
    return true;
  if (Error error = splitDataset(path, splits)) {
    fail(toString(std::move(error)));
    return false;
  }
  json::Object counts;
  std::string summary;
  for (const Split &split : splits) {
    counts[split.name] = int64_t(split.records);
    summary += formatv("{0}{1} {2} ({3})", summary.empty() ? "" : ", ",
                       split.name, split.records, splitPath(path, split.name));
  }
  if (settings) {
    (*settings)["splits"] = std::move(counts);
    (*settings)["splits_option"] = splitsOption.getValue();
  }
  if (!quiet)
    errs() << "ksc-synth: splits: " << summary << "\n";
  return true;
}

/// The options --replay needs besides the seed to make the kernels of a
/// run with `options`: the sizes that differ from the defaults.
static std::string replayFlags(const GeneratorOptions &options) {
  GeneratorOptions defaults;
  std::string flags;
  if (options.maxDepth != defaults.maxDepth)
    flags += " --max-depth=" + std::to_string(options.maxDepth);
  if (options.maxStatements != defaults.maxStatements)
    flags += " --max-statements=" + std::to_string(options.maxStatements);
  if (options.minStatements != defaults.minStatements)
    flags += " --min-statements=" + std::to_string(options.minStatements);
  return flags;
}

/// The summary on stderr and the exit status of a complete run of
/// `options`.
static int report(const Stats &stats, const GeneratorOptions &options) {
  if (!quiet && stats.tooSmall)
    errs() << "ksc-synth: " << stats.tooSmall
           << " kernels had fewer than --min-statements after "
           << GeneratorOptions::kMaxDraws
           << " draws and were dropped (raise --max-statements)\n";
  if (!quiet && stats.nearDuplicates)
    errs() << "ksc-synth: " << stats.nearDuplicates
           << " near-duplicates (a structure seen before) dropped\n";
  if (!quiet)
    errs() << formatv(
        "ksc-synth: {0} records ({1} duplicates dropped, {2} "
        "failures) in {3:f1} s, {4:f0} records/s\n",
        stats.records, stats.duplicates, stats.failures, stats.wallSeconds,
        stats.wallSeconds > 0 ? stats.records / stats.wallSeconds : 0.0);
  if (stats.failures) {
    errs() << "ksc-synth: error: " << stats.failures
           << " generated kernels did not compile (a bug in the generator "
              "or in ksc); reproduce one with:\n";
    for (const Failure &failure : ArrayRef(stats.failed).take_front(5))
      errs() << "  ksc-synth --replay=" << failure.seed << replayFlags(options)
             << "   # " << failure.reason << ", id " << failure.id << "\n";
    return 1;
  }
  return 0;
}

/// Makes the dataset of `options` into the -o file: streamed (a dataset may
/// be larger than memory), put in place whole when complete, and, into a
/// file, checkpointed so that an interrupted run can be resumed
/// (Checkpoint.h).
static int makeDataset(const FrontendSession &session,
                       GenerateOptions &options) {
  Expected<std::vector<Split>> requested = requestedSplits(outputFile);
  if (!requested)
    return fail(toString(requested.takeError()));
  std::vector<Split> splits = std::move(*requested);
  Expected<std::unique_ptr<StreamedOutput>> output =
      StreamedOutput::createResumable(outputFile);
  if (!output)
    return fail("cannot write '" + outputFile +
                "': " + toString(output.takeError()));
  bool resumable = !(*output)->partialPath().empty();
  if (resume && !resumable)
    return fail("--resume needs -o FILE, a file: standard output, FIFOs and "
                "devices are written through, and cannot be resumed");
  json::Object settings = runSettings(options);
  auto [begin, end] =
      shardRange(options.count, options.shardIndex, options.shardCount);
  RunState state;
  state.nextId = begin;
  std::optional<Checkpointer> checkpointer;
  if (resumable) {
    checkpointer.emplace(**output, settings);
    if (Error error = checkpointer->start(resume, begin, end, state,
                                          quiet ? nulls() : errs()))
      return fail(toString(std::move(error)));
    options.checkpointSeconds = checkpointSeconds;
    options.checkpoint = [&](const RunState &now) -> Error {
      if (Error error = checkpointer->write(now))
        return error;
      if (interruptAfter.getNumOccurrences() && now.nextId >= interruptAfter)
        ::raise(SIGTERM);
      return Error::success();
    };
  }
  options.progress = !quiet && sys::Process::StandardErrIsDisplayed();
  if (Error error = generateDataset(session, options, (*output)->os(), state))
    return fail("cannot write '" + outputFile +
                "': " + toString(std::move(error)));
  if (checkpointer)
    if (Error error = checkpointer->finish())
      return fail(toString(std::move(error)));
  if (Error error = (*output)->commit())
    return fail("cannot write '" + outputFile +
                "': " + toString(std::move(error)));
  settings["jobs"] = int64_t(options.jobs);
  if (!writeSplits((*output)->path(), splits, &settings))
    return 1;
  if (!writeStats(state.stats, std::move(settings)))
    return 1;
  return report(state.stats, options.generator);
}

/// The generator's options: the profile's sizes, but for those given.
static GeneratorOptions generatorOptions(Profile profile) {
  GeneratorOptions options;
  if (profile == Profile::Realistic)
    options = realisticOptions();
  if (maxDepth.getNumOccurrences())
    options.maxDepth = maxDepth;
  if (maxStatements.getNumOccurrences())
    options.maxStatements = maxStatements;
  if (minStatements.getNumOccurrences())
    options.minStatements = minStatements;
  return options;
}

static int generate() {
  GenerateOptions options;
  options.count = countOption;
  options.seed = seed;
  options.jobs = jobCount();
  std::optional<Profile> profile = parseProfile(profileOption);
  if (!profile)
    return fail("--profile: unknown profile '" + profileOption +
                "' (basic or realistic)");
  options.generator = generatorOptions(*profile);
  options.nearDuplicates = nearDuplicates;
  options.compile.cudaPath = cudaPath;
  std::string error;
  options.forms = FormSet::all();
  if (formsOption.getNumOccurrences()) {
    std::optional<FormSet> forms = FormSet::parse(formsOption, error);
    if (!forms)
      return fail("--forms: " + error);
    options.forms = *forms;
  }
  if (categoriesOption.getNumOccurrences()) {
    SmallVector<StringRef> names;
    StringRef(categoriesOption).split(names, ',', -1, /*KeepEmpty=*/false);
    for (StringRef name : names) {
      std::optional<Category> category = parseCategory(name.trim());
      if (!category)
        return fail("--categories: unknown category '" + name.trim() +
                    "' (see ksc-synth --help)");
      if (!llvm::is_contained(options.categories, *category))
        options.categories.push_back(*category);
    }
    if (options.categories.empty())
      return fail("--categories: no categories given");
  } else {
    options.categories.assign(profileCategories(*profile).begin(),
                              profileCategories(*profile).end());
  }
  if (options.generator.maxDepth < 1 || options.generator.maxStatements < 1)
    return fail("--max-depth and --max-statements must be at least 1");
  options.shardCount = 1;
  if (shard.getNumOccurrences()) {
    auto [index, total] = StringRef(shard).split('/');
    if (index.getAsInteger(10, options.shardIndex) ||
        total.getAsInteger(10, options.shardCount) || options.shardCount == 0 ||
        options.shardIndex >= options.shardCount)
      return fail("--shard must be i/n with 0 <= i < n, such as 0/4");
  }

  SessionFiles files;
  std::unique_ptr<FrontendSession> session = files.create();
  if (!session)
    return 1;

  if (replay.getNumOccurrences()) {
    if (resume)
      return fail("--resume continues a dataset, not a --replay");
    Record record;
    if (!replayRecord(*session, replay, options, record, error)) {
      errs() << "ksc-synth: replay of seed " << replay.getValue()
             << " failed: " << error << "\n";
      return 1;
    }
    std::string line;
    raw_string_ostream os(line);
    writeRecord(os, record);
    return writeFile(outputFile, line) ? 0 : 1;
  }

  return makeDataset(*session, options);
}

static int merge() {
  Expected<std::vector<Split>> requested = requestedSplits(outputFile);
  if (!requested)
    return fail(toString(requested.takeError()));
  std::vector<Split> splits = std::move(*requested);
  for (const std::string &input : mergeInputs)
    if (outputFile != "-" && sameFile(outputFile, input))
      return fail("the -o file '" + outputFile + "' is the input file '" +
                  input + "'");
  Expected<std::unique_ptr<StreamedOutput>> output =
      StreamedOutput::create(outputFile);
  if (!output)
    return fail("cannot write '" + outputFile +
                "': " + toString(output.takeError()));
  Stats stats;
  std::string error;
  std::optional<json::Object> wholeRun;
  if (!mergeDatasets(mergeInputs, (*output)->os(), stats, error, wholeRun))
    return fail(error);
  if (Error error = (*output)->commit())
    return fail("cannot write '" + outputFile +
                "': " + toString(std::move(error)));
  json::Array inputs;
  for (const std::string &input : mergeInputs)
    inputs.push_back(input);
  // Every shard of one run: the statistics (and so the card) are the
  // unsharded run's, which makes the same bytes.
  json::Object settings = wholeRun ? std::move(*wholeRun)
                                   : json::Object{{"ksc_version", KSC_VERSION}};
  settings["merged"] = std::move(inputs);
  if (!writeSplits((*output)->path(), splits, &settings))
    return 1;
  if (!writeStats(stats, std::move(settings)))
    return 1;
  if (!quiet)
    errs() << formatv("ksc-synth: merged {0} records ({1} duplicates "
                      "dropped, {2} failures in the shards)\n",
                      stats.records, stats.duplicates, stats.failures);
  return 0;
}

static int validate() {
  ValidateOptions options;
  options.full = full;
  options.sample = sample;
  options.nvccSample = nvccSample;
  options.gradSample = gradSample;
  options.warpSample = warp ? unsigned(warpSample) : 0;
  options.python = python;
  options.jobs = jobCount();
  options.compile.cudaPath = cudaPath;
  SmallString<256> kscRun(sys::path::parent_path(
      sys::fs::getMainExecutable("ksc-synth", (void *)&printVersion)));
  sys::path::append(kscRun, "ksc-run");
  options.kscRun = std::string(kscRun);
  SessionFiles files;
  std::unique_ptr<FrontendSession> session = files.create();
  if (!session)
    return 1;
  return validateDataset(*session, validateInput, options, outs()) ? 0 : 1;
}

static int split() {
  Expected<std::vector<Split>> splits = requestedSplits(splitInput);
  if (!splits)
    return fail(toString(splits.takeError()));
  if (splits->empty())
    return fail("split needs --splits=name:fraction,...");
  return writeSplits(splitInput, *splits, nullptr) ? 0 : 1;
}

static int card() {
  CardOptions options;
  options.license = license;
  Expected<std::string> text = makeCard(cardInput, options);
  if (!text)
    return fail(toString(text.takeError()));
  SmallString<256> path(sys::path::parent_path(cardInput));
  sys::path::append(path, "README.md");
  if (!writeFile(path, *text))
    return 1;
  if (!quiet)
    errs() << "ksc-synth: wrote " << path << "\n";
  return 0;
}

static int run(int argc, char **argv) {
  cl::HideUnrelatedOptions(synthCategory);
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(
      argc, argv,
      "ksc-synth: paired-code datasets of kernels and what ksc makes of "
      "them\n\n"
      "  ksc-synth --count=10000 --seed=1 -o data.jsonl\n"
      "  ksc-synth validate data.jsonl\n"
      "  ksc-synth merge -o all.jsonl data-*.jsonl\n"
      "  ksc-synth split data.jsonl --splits=train:0.98,val:0.01,test:0.01\n"
      "  ksc-synth card data.jsonl --license=apache-2.0\n");
  if (jobs > maxJobs())
    return fail("--jobs=" + Twine(jobs.getValue()) + ": at most " +
                Twine(maxJobs()) +
                " worker threads on this machine (8 per hardware thread)");
  if (validateCommand)
    return validate();
  if (splitCommand)
    return split();
  if (cardCommand)
    return card();
  if (mergeCommand)
    return merge();
  return generate();
}

int main(int argc, char **argv) {
  ToolInit init(argc, argv);
  return runWithLargeStack([&] { return run(argc, argv); });
}
