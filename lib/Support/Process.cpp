//===- Process.cpp - Running a program for its output -------------------===//
//
// Part of ksc.
//
//===----------------------------------------------------------------------===//

#include "ksc/Support/Process.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace {
/// The process groups of the programs running now (their leaders' ids;
/// 0 for a free slot), for the signal handler. More programs at once than
/// slots is harmless: those beyond are not ended by a signal.
constexpr int kSlots = 512;
std::atomic<pid_t> running[kSlots];
/// Set by forwardSignal: the tool is ending, and starts no more programs
/// (another thread may go on for a moment).
std::atomic<bool> stopping{false};
/// Set by the first forwardSignal to run the signal's previous action.
std::atomic<bool> ending{false};

/// The signals that end a tool (LLVM's interrupt signals), and the actions
/// they had before forwardSignal.
constexpr int kForwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR2};
struct sigaction previous[std::size(kForwarded)];

/// Sends `sig` to every running program's process group (the compiler's
/// own children too), and then does what the signal did before (LLVM's
/// handler: remove the files being written, then die of the signal). It
/// does not wait for the programs: while it waited, the tool's other
/// threads would go on (and start the next program). Only
/// async-signal-safe calls.
///
/// A second signal often follows the first at once (timeout(1) sends its
/// signal to the tool and to the tool's process group: twice). It must not
/// end the process before the files are removed: LLVM's handler restores
/// the signals' default actions before it removes them, and another
/// thread's handler would find the list of files taken by the first and
/// die at once. So the first handler ignores the signals, removes the
/// files itself, then does what the signal did before; a handler on
/// another thread meanwhile waits for it to end the process (10 s at most,
/// in case the previous action returns).
void forwardSignal(int sig, siginfo_t *info, void *context) {
  stopping.store(true);
  for (std::atomic<pid_t> &slot : running)
    if (pid_t pid = slot.load())
      ::kill(-pid, sig);
  if (ending.exchange(true)) {
    for (int hundredths = 0; hundredths < 1000; ++hundredths) {
      timespec hundredth = {0, 10000000};
      ::nanosleep(&hundredth, nullptr);
    }
  } else {
    for (int forwarded : kForwarded)
      ::signal(forwarded, SIG_IGN);
    sys::RunInterruptHandlers();
  }
  for (size_t i = 0; i < std::size(kForwarded); ++i) {
    if (kForwarded[i] != sig)
      continue;
    const struct sigaction &before = previous[i];
    if (before.sa_flags & SA_SIGINFO) {
      before.sa_sigaction(sig, info, context);
    } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
      before.sa_handler(sig);
    } else {
      ::signal(sig, SIG_DFL);
      ::raise(sig);
    }
  }
}

/// Installs forwardSignal, once, for the signals that are not ignored (a
/// tool started under nohup keeps SIGHUP ignored, and so do its programs).
void forwardSignals() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < std::size(kForwarded); ++i) {
      struct sigaction action = {};
      if (::sigaction(kForwarded[i], nullptr, &previous[i]) != 0 ||
          (!(previous[i].sa_flags & SA_SIGINFO) &&
           previous[i].sa_handler == SIG_IGN))
        continue;
      action.sa_sigaction = forwardSignal;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      ::sigaction(kForwarded[i], &action, nullptr);
    }
  });
}

/// Records `pid` as running; the slot, or -1 when all are taken.
int enroll(pid_t pid) {
  for (int i = 0; i < kSlots; ++i) {
    pid_t free = 0;
    if (running[i].compare_exchange_strong(free, pid))
      return i;
  }
  return -1;
}

/// Starts `args` in a process group of its own, standard input empty,
/// standard output and error into `logPath`; its id, or -1 with `error`.
pid_t spawn(ArrayRef<StringRef> args, StringRef logPath, std::string &error) {
  SmallVector<std::string> strings(args.begin(), args.end());
  SmallVector<char *> argv;
  for (std::string &arg : strings)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::string log = logPath.str();
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0666);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  int failed = ::posix_spawn(&pid, argv[0], &files, &attributes, argv.data(),
                             environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  if (failed) {
    error = "cannot run '" + strings[0] + "': " + std::strerror(failed);
    return -1;
  }
  return pid;
}
} // namespace

ksc::ProgramResult ksc::runProgram(ArrayRef<StringRef> args,
                                   StringRef logPath) {
  forwardSignals();
  ProgramResult result;
  pid_t pid = stopping ? -1 : spawn(args, logPath, result.error);
  if (pid > 0) {
    int slot = enroll(pid);
    // (A signal between the start and the enrolment.)
    if (stopping)
      ::kill(-pid, SIGTERM);
    int status = 0;
    pid_t waited;
    do
      waited = ::waitpid(pid, &status, 0);
    while (waited < 0 && errno == EINTR);
    if (slot >= 0)
      running[slot].store(0);
    // A signal is ending the tool (forwardSignal, on another thread, ended
    // the program): wait for it, rather than go on with a program that
    // failed and keep its files (a kept .cpp in the kernel cache).
    for (int tenths = 0; stopping && tenths < 100; ++tenths) {
      timespec tenth = {0, 100000000};
      ::nanosleep(&tenth, nullptr);
    }
    if (waited < 0) {
      result.error = args[0].str() + ": " + std::strerror(errno);
    } else if (WIFEXITED(status)) {
      result.status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.status = -2;
      result.error = args[0].str() + ": " + ::strsignal(WTERMSIG(status));
    }
  }
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
          MemoryBuffer::getFile(logPath))
    result.output = (*buffer)->getBuffer().str();
  sys::fs::remove(logPath);
  return result;
}
