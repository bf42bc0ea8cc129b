//===- Generate.cpp - Generate a dataset with worker threads ----------===//
//
// Part of ksc. Workers generate and compile records by id; the calling
// thread writes them in id order, dropping duplicates, so the output is the
// same for any number of workers. Workers run at most a window of ids ahead
// of the writer, which keeps memory flat however many records are made.
//
//===----------------------------------------------------------------------===//

#include "ksc/Synth/Generate.h"
#include "ksc/Config.h"

#include "llvm/Support/thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

using namespace llvm;
using namespace ksc;
using namespace ksc::synth;

namespace {
/// A worker's result for one id.
struct Outcome {
  std::optional<Record> record;
  std::optional<Failure> failure;
  /// Fewer statements than --min-statements after every draw.
  bool tooSmall = false;
  XXH128_hash_t fingerprint{0, 0};
};

/// Progress on standard error: done/total, rate, time left.
class ProgressBar {
public:
  ProgressBar(bool enabled, uint64_t total) : enabled(enabled), total(total) {}

  void update(uint64_t done, bool last = false) {
    if (!enabled)
      return;
    auto now = std::chrono::steady_clock::now();
    if (!last && now - shown < std::chrono::milliseconds(100))
      return;
    shown = now;
    double seconds = std::chrono::duration<double>(now - start).count();
    double rate = seconds > 0 ? done / seconds : 0;
    unsigned width = 30;
    unsigned filled = total ? unsigned(width * done / total) : width;
    errs() << "\r[" << std::string(filled, '#')
           << std::string(width - filled, '.') << "] " << done << "/"
           << total << "  " << format("%.0f", rate) << " records/s";
    if (rate > 0 && done < total)
      errs() << "  ETA " << format("%.0f", (total - done) / rate) << " s";
    errs() << "   ";
    if (last)
      errs() << "\n";
  }

private:
  bool enabled;
  uint64_t total;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point shown{};
};
} // namespace

static Category categoryOf(uint64_t id, const GenerateOptions &options) {
  ArrayRef<Category> categories = options.categories;
  if (categories.empty())
    categories = profileCategories(Profile::Basic);
  return categories[id % categories.size()];
}

/// Generates and compiles the kernel of `seed` into `record`, adding the
/// generator's time to `seconds`. With `tooSmall`, a kernel of fewer
/// statements than --min-statements is not compiled: false, and
/// `*tooSmall` set.
static bool makeRecord(RecordCompiler &compiler, uint64_t id, uint64_t seed,
                       const GenerateOptions &options, Record &record,
                       Failure &failure, StageSeconds &seconds,
                       bool *tooSmall = nullptr) {
  record.id = id;
  record.seed = seed;
  record.category = *categoryOfSeed(seed);
  auto start = std::chrono::steady_clock::now();
  record.kernel = generateKernel(record.category, seed, options.generator);
  addStageTime(seconds, "generate", start);
  if (tooSmall && options.generator.minStatements &&
      countStatements(record.kernel.source) < options.generator.minStatements) {
    *tooSmall = true;
    return false;
  }
  record.fileName = recordFileName(record.kernel);
  record.formSet = options.forms;
  std::string error;
  // The structure is the ks IR's, compiled for it if not asked for.
  FormSet forms = options.forms;
  if (options.nearDuplicates)
    forms.insert(Form::KsMlir);
  if (compiler.compile(record.fileName, record.kernel.source, forms,
                       record.forms, error, &failure.reason)) {
    if (options.nearDuplicates) {
      record.structure =
          fingerprintHex(structureFingerprint(record.forms[Form::KsMlir]));
      if (!options.forms.contains(Form::KsMlir))
        record.forms[Form::KsMlir].clear();
    }
    return true;
  }
  failure.id = id;
  failure.seed = seed;
  failure.category = record.category;
  failure.message = error + "\nsource:\n" + record.kernel.source;
  return false;
}

bool synth::replayRecord(const FrontendSession &session, uint64_t seed,
                         const GenerateOptions &options, Record &record,
                         std::string &error) {
  if (!categoryOfSeed(seed)) {
    error = "'" + std::to_string(seed) +
            "' is not a record seed (the low four bits name a category, at "
            "most 52 bits)";
    return false;
  }
  RecordCompiler compiler(session, options.compile);
  Failure failure;
  StageSeconds seconds;
  if (makeRecord(compiler, 0, seed, options, record, failure, seconds))
    return true;
  error = failure.message;
  return false;
}

json::Object synth::runSettings(const GenerateOptions &options) {
  auto [begin, end] =
      shardRange(options.count, options.shardIndex, options.shardCount);
  json::Array categoryNames, formNames;
  for (Category category : options.categories.empty()
                               ? profileCategories(Profile::Basic)
                               : ArrayRef<Category>(options.categories))
    categoryNames.push_back(categoryName(category));
  for (Form form : allForms())
    if (options.forms.contains(form))
      formNames.push_back(formName(form));
  return json::Object{
      {"ksc_version", KSC_VERSION},
      {"seed", int64_t(options.seed)},
      {"count", int64_t(options.count)},
      {"shard", std::to_string(options.shardIndex) + "/" +
                    std::to_string(options.shardCount)},
      {"ids", json::Array{int64_t(begin), int64_t(end)}},
      {"categories", std::move(categoryNames)},
      {"forms", std::move(formNames)},
      {"max_depth", int64_t(options.generator.maxDepth)},
      {"max_statements", int64_t(options.generator.maxStatements)},
      {"min_statements", int64_t(options.generator.minStatements)},
      {"near_duplicates", options.nearDuplicates},
  };
}

/// Stops the workers of generateDataset: every id they would take next is
/// past the end, and none waits for the writer.
static void stopWorkers(std::atomic<uint64_t> &next, uint64_t end,
                        std::mutex &mutex, uint64_t &written,
                        std::condition_variable &consumed) {
  next.store(end);
  {
    std::lock_guard<std::mutex> lock(mutex);
    written = end;
  }
  consumed.notify_all();
}

Error synth::generateDataset(const FrontendSession &session,
                             const GenerateOptions &options, raw_ostream &out,
                             RunState &state) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  // The time of the earlier runs this one continues.
  double earlierSeconds = state.stats.wallSeconds;
  auto elapsed = [&] {
    return earlierSeconds +
           std::chrono::duration<double>(Clock::now() - start).count();
  };
  auto [shardBegin, end] =
      shardRange(options.count, options.shardIndex, options.shardCount);
  uint64_t begin = std::max(state.nextId, shardBegin);
  unsigned jobs = std::max(1u, options.jobs);
  // How far workers may run ahead of the writer.
  const uint64_t window = 64 * jobs;

  std::mutex mutex;
  std::condition_variable produced, consumed;
  std::map<uint64_t, Outcome> ready;
  uint64_t written = begin; // the next id to write
  std::atomic<uint64_t> next{begin};

  StageSeconds workerSeconds; // guarded by `mutex`

  auto work = [&] {
    RecordCompiler compiler(session, options.compile);
    SourceNormalizer normalizer;
    StageSeconds seconds;
    while (true) {
      uint64_t id = next.fetch_add(1);
      if (id >= end) {
        mergeStageSeconds(seconds, compiler.stageSeconds());
        std::lock_guard<std::mutex> lock(mutex);
        mergeStageSeconds(workerSeconds, seconds);
        return;
      }
      {
        std::unique_lock<std::mutex> lock(mutex);
        consumed.wait(lock, [&] { return id < written + window; });
      }
      Outcome outcome;
      uint64_t seed = recordSeed(options.seed, id, categoryOf(id, options));
      Record record;
      Failure failure;
      if (makeRecord(compiler, id, seed, options, record, failure, seconds,
                     &outcome.tooSmall)) {
        auto start = Clock::now();
        outcome.fingerprint = normalizer.fingerprint(record.kernel.source);
        addStageTime(seconds, "normalize", start);
        outcome.record = std::move(record);
      } else if (!outcome.tooSmall) {
        outcome.failure = std::move(failure);
      }
      std::lock_guard<std::mutex> lock(mutex);
      ready.emplace(id, std::move(outcome));
      produced.notify_all();
    }
  };
  // Clang and ksc recurse on the nesting of the source.
  constexpr unsigned kStackSize = 64u << 20;
  std::vector<llvm::thread> workers;
  for (unsigned i = 0; i < jobs; ++i)
    workers.emplace_back(std::optional<unsigned>(kStackSize), work);

  Stats &stats = state.stats;
  ProgressBar progress(options.progress, end - begin);
  auto checkpointed = Clock::now();
  Error error = Error::success();
  for (uint64_t id = begin; id < end; ++id) {
    Outcome outcome;
    {
      std::unique_lock<std::mutex> lock(mutex);
      produced.wait(lock, [&] { return ready.count(id); });
      outcome = std::move(ready[id]);
      ready.erase(id);
      written = id + 1;
    }
    consumed.notify_all();
    if (outcome.failure) {
      stats.addFailure(*outcome.failure);
    } else if (outcome.tooSmall) {
      ++stats.tooSmall;
    } else if (!state.seen.insert(outcome.fingerprint).second) {
      ++stats.duplicates;
    } else if (options.nearDuplicates &&
               !state.structures
                    .insert(*parseFingerprintHex(outcome.record->structure))
                    .second) {
      ++stats.nearDuplicates;
    } else {
      writeRecord(out, *outcome.record);
      stats.coverage.add(*outcome.record);
      ++stats.records;
      ++stats.recordsPerCategory[categoryName(outcome.record->category).str()];
    }
    state.nextId = id + 1;
    progress.update(id + 1 - begin);
    if (options.checkpoint &&
        std::chrono::duration<double>(Clock::now() - checkpointed).count() >=
            options.checkpointSeconds) {
      stats.wallSeconds = elapsed();
      if ((error = options.checkpoint(state))) {
        stopWorkers(next, end, mutex, written, consumed);
        break;
      }
      checkpointed = Clock::now();
    }
  }
  if (!error)
    progress.update(end - begin, /*last=*/true);
  for (llvm::thread &worker : workers)
    worker.join();
  mergeStageSeconds(stats.stageSeconds, workerSeconds);
  stats.wallSeconds = elapsed();
  return error;
}
