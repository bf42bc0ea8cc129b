//===- Executor.cpp - What runs kernels for ksc-run --------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Runner/Executor.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

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

namespace {
/// The signals of hardware traps, and what they did before a launch.
constexpr int kTraps[] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL};
struct sigaction beforeLaunch[std::size(kTraps)];
/// "<tool>: error: kernel 'K' trapped: ", made before the launch (a
/// signal handler cannot format).
char trapPrefix[512];

/// What a trap was, from its signal and si_code.
const char *describeTrap(int sig, int code) {
  switch (sig) {
  case SIGFPE:
    // x86 raises the same exception for INT_MIN / -1 as for a division by
    // zero.
    if (code == FPE_INTDIV)
      return "integer division by zero (or of the smallest integer by -1) "
             "(SIGFPE)";
    if (code == FPE_INTOVF)
      return "integer overflow (SIGFPE)";
    return "arithmetic exception (SIGFPE)";
  case SIGSEGV:
    return "access outside the process's memory (SIGSEGV; run with "
           "--bounds-check to check the indices)";
  case SIGBUS:
    return "bus error (SIGBUS; run with --bounds-check to check the "
           "indices)";
  default:
    return "illegal instruction (SIGILL)";
  }
}

void reportTrap(int sig, siginfo_t *info, void *) {
  const char *what = describeTrap(sig, info ? info->si_code : 0);
  // Only async-signal-safe calls: write(2) and _exit.
  (void)!::write(STDERR_FILENO, trapPrefix, std::strlen(trapPrefix));
  (void)!::write(STDERR_FILENO, what, std::strlen(what));
  (void)!::write(STDERR_FILENO, "\n", 1);
  ::_exit(kTrapStatus);
}
} // namespace

Error TrapReportingExecutor::launch(StringRef kernel,
                                    std::vector<Argument> &args) {
  std::snprintf(trapPrefix, sizeof(trapPrefix),
                "%s: error: kernel '%.*s' trapped: ", tool.c_str(),
                static_cast<int>(std::min<size_t>(kernel.size(), 256)),
                kernel.data());
  struct sigaction action = {};
  action.sa_sigaction = reportTrap;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < std::size(kTraps); ++i)
    ::sigaction(kTraps[i], &action, &beforeLaunch[i]);
  Error error = inner->launch(kernel, args);
  for (size_t i = 0; i < std::size(kTraps); ++i)
    ::sigaction(kTraps[i], &beforeLaunch[i], nullptr);
  return error;
}
