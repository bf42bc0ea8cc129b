//===- Executor.cpp - What runs kernels for ksc-run --------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Executor.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

using namespace llvm;
using namespace ksc;
using namespace ksc::runner;

Executor::~Executor() = default;

/// A thread that waits for the deadline of the launch running now, if any,
/// and ends the process when it passes.
struct TimeLimitedExecutor::Watchdog {
  using Clock = std::chrono::steady_clock;

  Watchdog(double seconds, std::string tool)
      : limit(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(seconds))),
        seconds(seconds), tool(std::move(tool)), thread([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    changed.notify_one();
    thread.join();
  }

  void arm(StringRef name) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      kernel = name.str();
      deadline = Clock::now() + limit;
    }
    changed.notify_one();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mutex);
    deadline.reset();
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop) {
      if (!deadline) {
        changed.wait(lock);
        continue;
      }
      if (Clock::now() < *deadline) {
        changed.wait_until(lock, *deadline);
        continue;
      }
      // Straight to stderr and out: the launch holds the process's other
      // threads (and perhaps its streams), which must not be waited for.
      std::fprintf(stderr,
                   "%s: error: kernel '%s' did not finish within %g s "
                   "(--timeout); stopped\n",
                   tool.c_str(), kernel.c_str(), seconds);
      std::fflush(stderr);
      std::_Exit(kTimeoutStatus);
    }
  }

  const Clock::duration limit;
  const double seconds;
  const std::string tool;
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<Clock::time_point> deadline;
  std::string kernel;
  bool stop = false;
  std::thread thread;
};

TimeLimitedExecutor::TimeLimitedExecutor(Executor &inner, double seconds,
                                         std::string tool)
    : inner(inner),
      watchdog(std::make_unique<Watchdog>(seconds, std::move(tool))) {}

TimeLimitedExecutor::~TimeLimitedExecutor() = default;

Error TimeLimitedExecutor::launch(StringRef kernel,
                                  std::vector<Argument> &args) {
  watchdog->arm(kernel);
  Error error = inner.launch(kernel, args);
  watchdog->disarm();
  return error;
}
