//===- Signals.cpp - Signals a tool was started with ignored ----------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Signals.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <new>
#include <sys/resource.h>
#include <unistd.h>

#if __has_include(<signal.h>) && !defined(_WIN32)
#include <signal.h>
#define KSC_HAVE_SIGACTION 1
#endif

using namespace ksc;

IgnoredSignals::IgnoredSignals() {
#ifdef KSC_HAVE_SIGACTION
  for (int signal : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR2}) {
    struct sigaction action;
    if (sigaction(signal, nullptr, &action) == 0 &&
        action.sa_handler == SIG_IGN && count < kMaxSignals)
      signals[count++] = signal;
  }
#endif
}

void IgnoredSignals::restore() const {
#ifdef KSC_HAVE_SIGACTION
  for (int i = 0; i < count; ++i) {
    struct sigaction action = {};
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    sigaction(signals[i], &action, nullptr);
  }
#endif
}

namespace {
/// The whole message, made in advance: there is no memory to make it in.
char outOfMemoryMessage[512];

[[noreturn]] void outOfMemory() {
  (void)!::write(STDERR_FILENO, outOfMemoryMessage,
                 std::strlen(outOfMemoryMessage));
  ::_exit(1);
}

void outOfMemoryInLLVM(void *, const char *, bool) { outOfMemory(); }
} // namespace

void ksc::reportOutOfMemoryAs(llvm::StringRef tool) {
  // With the process's limit, which is the usual cause.
  char limit[128] = "";
  struct rlimit value;
  if (getrlimit(RLIMIT_AS, &value) == 0 && value.rlim_cur != RLIM_INFINITY)
    std::snprintf(limit, sizeof(limit),
                  " (the process may use %llu bytes: ulimit -v)",
                  static_cast<unsigned long long>(value.rlim_cur));
  std::snprintf(outOfMemoryMessage, sizeof(outOfMemoryMessage),
                "%.*s: error: out of memory%s\n",
                static_cast<int>(std::min<size_t>(tool.size(), 64)),
                tool.data(), limit);
  std::set_new_handler(outOfMemory);
  llvm::remove_bad_alloc_error_handler();
  llvm::install_bad_alloc_error_handler(outOfMemoryInLLVM);
}
