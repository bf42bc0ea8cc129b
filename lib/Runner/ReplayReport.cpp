//===- ReplayReport.cpp - ksc-replay's report -------------------------===//
//
// Part of ksc. A replay's report: each run as JSON (the report's `runs`,
// and the lines ksc-replay's worker processes hand back, which
// parseCaseRun reads), the whole report as JSON, and the summary text.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Replay.h"

#include "ksc/Config.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

StringRef runner::getReplayStatusName(ReplayStatus status) {
  switch (status) {
  case ReplayStatus::Pass:
    return "pass";
  case ReplayStatus::Fail:
    return "fail";
  case ReplayStatus::Skip:
    return "skip";
  }
  llvm_unreachable("unknown status");
}

size_t ReplayReport::count(ReplayStatus status) const {
  return llvm::count_if(runs,
                        [&](const CaseRun &run) { return run.status == status; });
}

/// At most `limit` bytes of `text`, for the report.
static std::string clip(StringRef text, size_t limit = 4096) {
  if (text.size() <= limit)
    return text.str();
  return (text.take_front(limit) + "\n[" + Twine(text.size() - limit) +
          " more bytes]")
      .str();
}

/// A finite number for JSON (which has no infinities or NaNs), or null.
static json::Value number(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

json::Value runner::toJSON(const CaseRun &run) {
  json::Array comparisons, timings;
  for (const ArrayComparison &comparison : run.comparisons)
    comparisons.push_back(json::Object{
        {"kernel", comparison.kernel},
        {"array", comparison.name},
        {"numbers", comparison.numCompared},
        {"max_abs_diff", number(comparison.maxAbsDiff)},
        {"max_rel_diff", number(comparison.maxRelDiff)},
        {"worst", comparison.worst},
        {"diff_over_tolerance", number(comparison.worstRatio)},
        {"passed", comparison.passed()},
    });
  for (const LaunchTiming &timing : run.timings) {
    double median = timing.median();
    timings.push_back(json::Object{
        {"kernel", timing.kernel},
        {"threads", timing.threads},
        {"blocks", timing.blocks},
        {"block_size", timing.blockSize},
        {"launches", static_cast<int64_t>(timing.milliseconds.size())},
        {"median_ms", median},
        {"milliseconds", json::Array(timing.milliseconds)},
        {"min_ms", *llvm::min_element(timing.milliseconds)},
        {"max_ms", *llvm::max_element(timing.milliseconds)},
        {"bytes", timing.bytes},
        {"gb_per_s", median > 0 ? timing.bytes / (median * 1e6) : 0.0},
    });
  }
  return json::Object{
      {"case", run.name},
      {"via", run.via},
      {"status", getReplayStatusName(run.status)},
      {"message", run.message},
      {"seconds", run.seconds},
      {"comparisons", std::move(comparisons)},
      {"timings", std::move(timings)},
      {"output", clip(run.output)},
      {"device_output", clip(run.deviceOutput)},
  };
}

/// A number of the report (null: not finite).
static double readNumber(const json::Object &object, StringRef key) {
  if (std::optional<double> value = object.getNumber(key))
    return *value;
  return NAN;
}

static Error badRun(const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "a run of the report is malformed: " + why);
}

Expected<CaseRun> runner::parseCaseRun(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return badRun("not an object");
  CaseRun run;
  auto text = [&](StringRef key, std::string &out) {
    if (std::optional<StringRef> field = object->getString(key))
      out = field->str();
  };
  text("case", run.name);
  text("via", run.via);
  text("message", run.message);
  text("output", run.output);
  text("device_output", run.deviceOutput);
  std::optional<StringRef> status = object->getString("status");
  if (run.name.empty() || run.via.empty() || !status)
    return badRun("no case, via or status");
  // (The names are getReplayStatusName's.)
  std::optional<ReplayStatus> parsed;
  for (ReplayStatus candidate :
       {ReplayStatus::Pass, ReplayStatus::Fail, ReplayStatus::Skip})
    if (getReplayStatusName(candidate) == *status)
      parsed = candidate;
  if (!parsed)
    return badRun("unknown status '" + *status + "'");
  run.status = *parsed;
  run.seconds = object->getNumber("seconds").value_or(0);
  if (const json::Array *comparisons = object->getArray("comparisons"))
    for (const json::Value &item : *comparisons) {
      const json::Object *c = item.getAsObject();
      if (!c)
        return badRun("a comparison is not an object");
      ArrayComparison comparison;
      comparison.kernel = c->getString("kernel").value_or("").str();
      comparison.name = c->getString("array").value_or("").str();
      comparison.numCompared = c->getInteger("numbers").value_or(0);
      comparison.maxAbsDiff = readNumber(*c, "max_abs_diff");
      comparison.maxRelDiff = readNumber(*c, "max_rel_diff");
      comparison.worst = c->getString("worst").value_or("").str();
      // (null: an infinite ratio, a NaN or an integer that differs.)
      comparison.worstRatio = c->getNumber("diff_over_tolerance")
                                  .value_or(std::numeric_limits<double>::infinity());
      run.comparisons.push_back(std::move(comparison));
    }
  if (const json::Array *timings = object->getArray("timings"))
    for (const json::Value &item : *timings) {
      const json::Object *t = item.getAsObject();
      if (!t)
        return badRun("a timing is not an object");
      LaunchTiming timing;
      timing.kernel = t->getString("kernel").value_or("").str();
      timing.threads = t->getInteger("threads").value_or(0);
      timing.blocks = t->getInteger("blocks").value_or(0);
      timing.blockSize = t->getInteger("block_size").value_or(0);
      timing.bytes = t->getInteger("bytes").value_or(0);
      if (const json::Array *times = t->getArray("milliseconds"))
        for (const json::Value &time : *times)
          timing.milliseconds.push_back(time.getAsNumber().value_or(NAN));
      if (timing.milliseconds.empty())
        return badRun("a timing has no milliseconds");
      run.timings.push_back(std::move(timing));
    }
  return run;
}

void runner::writeReplayJson(raw_ostream &os, const ReplayReport &report) {
  json::Array runs;
  for (const CaseRun &run : report.runs)
    runs.push_back(toJSON(run));
  json::Object object{
      {"format", "ksc-gpu-replay-report"},
      {"version", 1},
      {"ksc", KSC_VERSION},
      {"bundle", report.bundle},
      {"device",
       json::Object{{"name", report.device.name},
                    {"arch", report.device.arch()},
                    {"memory_bytes", static_cast<uint64_t>(report.device.memory)},
                    {"driver_version", report.driverVersion}}},
      {"seconds", report.seconds},
      {"summary",
       json::Object{{"runs", static_cast<int64_t>(report.runs.size())},
                    {"passed", static_cast<int64_t>(
                                   report.count(ReplayStatus::Pass))},
                    {"failed", static_cast<int64_t>(
                                   report.count(ReplayStatus::Fail))},
                    {"skipped", static_cast<int64_t>(
                                    report.count(ReplayStatus::Skip))}}},
      {"runs", std::move(runs)},
  };
  os << formatv("{0:2}", json::Value(std::move(object))) << "\n";
}

void runner::writeReplaySummary(raw_ostream &os, const ReplayReport &report) {
  for (const CaseRun &run : report.runs) {
    if (run.status != ReplayStatus::Fail)
      continue;
    os << "FAIL " << run.name << " (" << run.via << "): " << run.message
       << "\n";
    if (!run.deviceOutput.empty())
      os << "  the device printed:\n"
         << clip(run.deviceOutput, 2048) << (run.deviceOutput.back() == '\n'
                                                 ? ""
                                                 : "\n");
  }
  bool header = false;
  for (const CaseRun &run : report.runs) {
    if (run.timings.empty())
      continue;
    if (!header)
      os << "benchmarks (CUDA events; bandwidth: the bytes of every array "
            "once, writable ones twice, per median time)\n"
         << formatv("{0,-32} {1,-12} {2,-20} {3,10} {4,11} {5,9}\n", "case",
                    "via", "kernel", "threads", "median ms", "GB/s");
    header = true;
    for (const LaunchTiming &timing : run.timings) {
      double median = timing.median();
      os << formatv("{0,-32} {1,-12} {2,-20} {3,10} {4,11:f4} {5,9:f1}\n",
                    run.name, run.via, timing.kernel, timing.threads, median,
                    median > 0 ? timing.bytes / (median * 1e6) : 0.0);
    }
  }
  os << report.runs.size() << " runs on " << report.device.name << " ("
     << report.device.arch() << "): " << report.count(ReplayStatus::Pass)
     << " passed, " << report.count(ReplayStatus::Fail) << " failed, "
     << report.count(ReplayStatus::Skip) << " skipped, in "
     << format("%.1f", report.seconds) << " s\n";
}
