"""Checking a case: every kernel run by ksc-run and natively, the arrays
compared (check_case), or with --grad its derivative kernels checked by
ksc-run --check-grad (check_grad_case); what a failure is reported as."""

import os
import re
import shutil
import tempfile

from .case import load_case, write_case
from .compare import compare, parse_json
from .native import native_cmd, native_source
from .tools import error_message, ksc_run_cmd, run, run_ksc_run
from .types import uses_transcendental

# The float arguments of every generated kernel: --grad differentiates with
# respect to all of them (the read-only inputs, the scalars and the in-out
# outputs).
GRAD_WRT = "fa,da,of,od,fs,ds"
# Tolerances of the finite-difference checks (ksc-run's double defaults are
# rtol 1e-6, atol 1e-7). The step is cbrt(eps) |x|, and the generated
# kernels nest sin/cos/tanh over sums of many terms: their truncation error
# reaches 1e-5 relative on correct derivatives. A wrong derivative is off by
# far more, and the dot-product test (K_adj against K_jvp, 1e-10 relative,
# not changed by these) stays as strict as it is.
GRAD_TOLERANCES = ["--rtol=1e-4", "--atol=1e-6"]
# What ksc says when it refuses to differentiate a construct (docs/
# autodiff.md, "What cannot be differentiated yet").
REFUSED = re.compile(r"([^\s:]+:\d+:\d+: )?error: (cannot (differentiate|"
                     r"propagate)[^\n]*)")


def run_native(work, source, kernels, inputs, nthreads, tools):
    """Compiles and runs the case natively. Returns (expected, invalid):
    the arrays of each kernel that finished, and None or why the native
    side failed (the generator's fault)."""
    native_cpp = os.path.join(work, "native.cpp")
    with open(native_cpp, "w") as f:
        f.write(native_source(source, kernels, inputs, nthreads))
    exe = os.path.join(work, "native")
    rc, so, se = run(native_cmd(tools, native_cpp, exe), 300)
    if rc != 0:
        return {}, "native compile failed:\n" + se[-4000:]
    rc, so, se = run([exe], tools.timeout)
    expected = {}
    for line in so.splitlines():
        try:
            obj = parse_json(line)
            expected[obj["kernel"]] = obj["arrays"]
        except ValueError:
            pass
    if rc != 0:
        # Kernels that finished before the failing one are still compared;
        # the failing one (and later ones) are the generator's fault.
        return expected, "native run failed (rc %s) after %d kernels:\n%s" % (
            rc, len(expected), se[-3000:] + so[-1000:])
    return expected, None


def check_case(work, source, kernels, inputs, nthreads, tools,
               bounds_check=True):
    """Runs every kernel of `source` both ways. Returns (invalid, failures):
    invalid is None or why the native side failed (the generator's fault),
    failures a list of (kind, kernel, message)."""
    failures = []
    kdsl, in_json = write_case(work, source, kernels, inputs, nthreads)
    expected, invalid = run_native(work, source, kernels, inputs, nthreads,
                                   tools)
    for kernel, trans in kernels:
        if kernel not in expected:
            continue
        cmd = ksc_run_cmd(tools, kdsl, kernel, nthreads, in_json,
                          bounds_check)
        rc, so, se = run_ksc_run(cmd, tools, max(120, 2 * tools.timeout))
        if rc != 0:
            msg = error_message(rc, se)
            if rc == "timeout":
                failures.append(("timeout", kernel, msg))
            elif "kernel '%s'" % kernel in se:
                failures.append(("ksc-run-error", kernel, msg))
            elif rc < 0 or rc > 1:
                failures.append(("ksc-run-crash", kernel, msg))
            else:
                # The whole file failed (rejected, or the emitted C++ does
                # not compile): one report is enough.
                failures.append(("ksc-compile-error", kernel, msg))
                break
            continue
        try:
            actual = parse_json(so)
        except ValueError:
            failures.append(("bad-output", kernel, so[-2000:]))
            continue
        diffs = compare(expected[kernel], actual, trans)
        if diffs:
            failures.append((
                "mismatch" + ("-transcendental" if trans else ""), kernel,
                "\n".join(diffs[:20]) +
                ("\n... %d more" % (len(diffs) - 20) if len(diffs) > 20
                 else "")))
    return invalid, failures


def check_grad_case(work, source, kernels, inputs, nthreads, tools,
                    bounds_check=True):
    """--grad: checks every kernel's derivative kernels with `ksc-run
    --check-grad --precision=double` (K_adj and K_jvp against central
    differences and the dot-product test). Returns (failures, checked,
    refused): failures a list of (kind, kernel, message), checked the
    number of kernels whose gradients passed, refused [(kernel, reason)]
    for the kernels ksc refuses to differentiate (not a failure)."""
    failures = []
    checked = 0
    refused = []
    kdsl, in_json = write_case(work, source, kernels, inputs, nthreads,
                               grad=True)
    for kernel, _ in kernels:
        cmd = ksc_run_cmd(tools, kdsl, kernel, nthreads, in_json,
                          bounds_check, ["--check-grad", "--precision=double",
                                         "--wrt=" + GRAD_WRT]
                          + GRAD_TOLERANCES)
        # Compiling K, K_adj and K_jvp of a large kernel takes the host
        # compiler over a minute of CPU, more on a loaded machine.
        rc, so, se = run_ksc_run(cmd, tools, max(300, 2 * tools.timeout),
                                 rc1_is_answer=True)
        if rc == 0:
            checked += 1
            continue
        m = REFUSED.search(se)
        if rc == 1 and m:
            # Where (line:column of case.kdsl) and why.
            where = m.group(1) or ""
            where = where.split(":", 1)[1] if where else ""
            refused.append((kernel, where + m.group(2).strip()))
            continue
        if rc == 1 and "check failed" in se:
            # The command as run in a case directory kept with --keep.
            again = ["ksc-run", "case.kdsl"] + [
                "--inputs=inputs.json" if c.startswith("--inputs=") else c
                for c in cmd[2:]]
            # Only the errors, not Clang's warnings about the source.
            errs = [l for l in se.splitlines() if "error" in l]
            failures.append(("grad-mismatch", kernel, "%s\n%s\n%s" % (
                " ".join(again), so.rstrip(), "\n".join(errs))))
            continue
        msg = error_message(rc, se)
        if rc == "timeout":
            failures.append(("timeout", kernel, msg))
        elif rc != 1:
            failures.append(("ksc-run-crash", kernel, msg))
        else:
            failures.append(("ksc-run-error", kernel, msg))
    return failures, checked, refused


def check_kernel(work, source, kernel, inputs, meta, tools):
    """Checks one kernel of an edited or reduced case, the way meta.json
    says (a --grad case or not). Returns (invalid, failures, refused)."""
    kernels = [(kernel, uses_transcendental(source))]
    if meta.get("grad"):
        failures, _, refused = check_grad_case(work, source, kernels, inputs,
                                               meta["dim"], tools)
        return None, failures, refused
    invalid, failures = check_case(work, source, kernels, inputs,
                                   meta["dim"], tools)
    return invalid, failures, []


def check_file(path, kernel, tools):
    """--check: checks kernel `kernel` of file `path` on the inputs next to
    it, prints what it finds; returns the exit status."""
    d = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        source = f.read()
    inputs, meta = load_case(d)
    work = tempfile.mkdtemp(prefix="ksc-check-", dir=d)
    invalid, failures, refused = check_kernel(work, source, kernel, inputs,
                                              meta, tools)
    for k, why in refused:
        print("GRAD-REFUSED %s: %s" % (k, why))
    shutil.rmtree(work, ignore_errors=True)
    if invalid:
        print("INVALID: " + invalid)
    for kind, k, msg in failures:
        print("%s %s:\n%s" % (kind.upper(), k, indent_text(msg)))
    if not invalid and not failures:
        print("ok")
    return 1 if invalid or failures else 0


def known_bug_tags(emitted, source):
    """Tags for failures that look like bugs found before (to triage a run:
    see the report of ksc-difftest's first runs). Heuristics only."""
    tags = []
    lines = emitted.splitlines()
    # An scf.if result given the variable of a for loop's induction
    # variable, which the loop still needs: `for (int k ...) { ... k = ...`.
    for a, line in enumerate(lines):
        m = re.match(r"^(\s*)for \(int (\w+) = .*\{$", line)
        if not m:
            continue
        ind, var = m.group(1), m.group(2)
        for b in range(a + 1, len(lines)):
            if lines[b].startswith(ind + "}"):
                break
            if re.match(r"^\s*%s = " % re.escape(var), lines[b]):
                tags.append("known:for-counter-overwritten(%s)" % var)
                break
    # A parameter commented out as unused but assigned.
    for func in re.split(r"\n(?=static )", emitted):
        header = func.split("{", 1)[0]
        for m in re.finditer(r"/\*(\w+)\*/", header):
            if re.search(r"^\s*%s [-+*/%%&|^]?= " % re.escape(m.group(1)),
                         func, re.M):
                tags.append("known:unused-parameter-assigned(%s)" %
                            m.group(1))
    if re.search(r"'K\d+' cannot be used here: kernel code reads only",
                 emitted):
        tags.append("known:constant-as-lvalue")
    # A local array reassigned under a condition.
    if re.search(r"if \(.*\) \w+ = (ia|fa|oi|of);$", source, re.M):
        tags.append("maybe:array-reassigned-under-if")
    return sorted(set(tags))


def describe(out):
    """The report of an Outcome's failures."""
    lines = []
    if out.invalid:
        lines.append("seed %d: INVALID (generator): %s" % (out.seed,
                                                          out.invalid))
    for kind, kernel, msg in out.failures:
        lines.append("seed %d kernel %s: %s\n%s" % (
            out.seed, kernel, kind.upper(), indent_text(msg)))
    if out.tags:
        lines.append("seed %d tags: %s" % (out.seed, " ".join(out.tags)))
    return "\n".join(lines) + "\n"


def indent_text(text):
    return "\n".join("    " + l for l in text.splitlines())
