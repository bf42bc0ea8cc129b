//===- Signals.cpp - Signals a tool was started with ignored ----------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Signals.h"

#include <initializer_list>

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
