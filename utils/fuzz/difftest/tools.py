"""Running the tools: ksc, ksc-run and the host compiler, with timeouts,
and retries while someone else rebuilds ksc."""

import os
import signal
import subprocess
import time


class Tools:
    def __init__(self, build_dir, cxx, cache_dir, ubsan):
        self.ksc = os.path.join(build_dir, "bin", "ksc")
        self.ksc_run = os.path.join(build_dir, "bin", "ksc-run")
        self.cxx = cxx
        self.cache_dir = cache_dir
        self.ubsan = ubsan
        self.timeout = 60  # seconds a native run may take

    def env(self):
        """The environment ksc-run runs in: its cache and host compiler."""
        env = dict(os.environ)
        env["KSC_CACHE_DIR"] = self.cache_dir
        env["KSC_CXX"] = self.cxx
        return env


class Outcome:
    """What running one seed found."""

    def __init__(self, seed):
        self.seed = seed
        self.kernels = 0
        self.failures = []  # (kind, kernel, message)
        self.invalid = None  # the generator's fault: the native side failed
        self.tags = []  # known_bug_tags of a failing case
        self.workdir = None
        self.seconds = 0.0
        self.checked = 0  # --grad: kernels whose gradients passed
        self.refused = []  # --grad: (kernel, reason) ksc refused


def run(cmd, timeout, env=None):
    """Returns (exit status or "timeout", stdout, stderr)."""
    # In a session of its own, so that a timeout also ends what the command
    # started (ksc-run's host compiler would otherwise run on, orphaned).
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)
    try:
        so, se = p.communicate(timeout=timeout)
        return p.returncode, so.decode("utf-8", "replace"), \
            se.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return "timeout", "", "timed out after %ss" % timeout


def wait_for_tool(path, tries=30):
    for _ in range(tries):
        if os.access(path, os.X_OK):
            return True
        time.sleep(2)
    return False


def ksc_run_cmd(tools, kdsl, kernel, nthreads, in_json, bounds_check,
                extra=()):
    """ksc-run's command for one kernel of a case."""
    # The generated kernels read and write elements of other threads (racy
    # under the language's contract) and the native side runs threads
    # 0..N-1 in order: so does one OS thread's parallel launch.
    cmd = [tools.ksc_run, kdsl, "--kernel=" + kernel, "--dim=%d" % nthreads,
           "--inputs=" + in_json, "--threads=1"] + list(extra)
    if not bounds_check:
        cmd.append("--bounds-check=false")
    return cmd


def run_ksc_run(cmd, tools, timeout, rc1_is_answer=False):
    """Runs ksc-run, retrying while someone else rebuilds it: a missing
    tool or runtime header (or any other failure, once) is retried after a
    pause. rc1_is_answer: exit status 1 is one of the answers (--check-grad:
    a check failed), retried only for a missing file."""
    env = tools.env()
    for attempt in range(10):
        if not os.access(tools.ksc_run, os.X_OK):
            wait_for_tool(tools.ksc_run)
        rc, so, se = run(cmd, timeout, env)
        missing = "No such file or directory" in se
        if rc in (0, "timeout"):
            transient = False
        elif rc == 1 and rc1_is_answer:
            transient = missing
        else:
            transient = missing or not os.access(tools.ksc_run, os.X_OK) or \
                attempt == 0
        if not transient:
            break
        time.sleep(5 if attempt == 0 else 15)
    return rc, so, se


def error_message(rc, stderr):
    """A failed tool's exit status and errors (only the errors, not Clang's
    warnings about the source)."""
    errs = [l for l in stderr.splitlines() if "error" in l]
    return "rc %s\n%s" % (rc, "\n".join(errs[:20]) if errs
                          else stderr[-3000:])


def emitted_cpp(tools, kdsl, bounds_check):
    """What ksc emits for kdsl (its C++, or its errors)."""
    cmd = [tools.ksc, kdsl] + (["--bounds-check"] if bounds_check else [])
    rc, so, se = run(cmd, 120)
    return so + se
