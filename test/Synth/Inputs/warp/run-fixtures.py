#!/usr/bin/env python3
"""Runs the Warp twins of ksc kernels in this directory through warp_run.py
and their .kdsl through ksc-run, and compares (test/Synth/warp-run.test).

  run-fixtures.py WARP_RUN KSC_RUN WORKDIR CASE...

A CASE is NAME:KERNEL:DIM[:tape]: NAME.py and NAME.kdsl hold the kernel,
NAME.json its inputs and NAME.adj.json its output adjoints; DIM is the
launch ("3,3"); "tape" runs Warp's adjoint the usual way (wp.Tape after the
launch) instead of on the inputs as they were before it. Prints a line per
case: whether the outputs and the input adjoints agree, or the first path
where they differ. Numbers agree within 1e-6 + 1e-5 * magnitude; integers
exactly; ksc-run's adjoints of scalar arguments (Warp has none) are left out.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def difference(a, b, path):
    """The first path where a (ksc-run) and b (Warp) differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return "%s.%s: only on one side" % (path, key)
            d = difference(a[key], b[key], "%s.%s" % (path, key))
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d elements vs %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    number = (int, float)
    if isinstance(a, number) and isinstance(b, number) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        if isinstance(a, int) and isinstance(b, int):
            return None if a == b else path
        return None if abs(a - b) <= 1e-6 + 1e-5 * max(abs(a), abs(b)) else path
    return None if a == b else path


def main(warp_run, ksc_run, workdir, cases):
    jobs, ksc = [], []
    for k, case in enumerate(cases):
        name, kernel, dim = case.split(":")[:3]
        mode = "tape" if case.endswith(":tape") else "before"
        inputs = os.path.join(HERE, name + ".json")
        adjoints = os.path.join(HERE, name + ".adj.json")
        with open(inputs) as f, open(adjoints) as g:
            jobs.append({"id": k, "module": os.path.join(HERE, name + ".py"),
                         "kernel": kernel, "dim": [int(n) for n in dim.split(",")],
                         "inputs": json.load(f), "adjoints": json.load(g),
                         "adjoint_mode": mode})
        run = [ksc_run, os.path.join(HERE, name + ".kdsl"), "--kernel=" + kernel,
               "--dim=" + dim, "--inputs=" + inputs]
        outputs = json.loads(subprocess.run(run, check=True, capture_output=True,
                                            text=True).stdout)
        grads = json.loads(subprocess.run(
            run + ["--grad=reverse", "--adjoints=" + adjoints], check=True,
            capture_output=True, text=True).stdout)
        ksc.append((outputs, grads))
    jobs_path = os.path.join(workdir, "jobs.jsonl")
    results_path = os.path.join(workdir, "results.jsonl")
    with open(jobs_path, "w") as f:
        f.writelines(json.dumps(job) + "\n" for job in jobs)
    subprocess.run([sys.executable, warp_run, jobs_path, results_path], check=True)
    with open(results_path) as f:
        results = [json.loads(line) for line in f]
    for case, (outputs, grads), result in zip(cases, ksc, results):
        if "error" in result:
            print("%s: Warp failed: %s" % (case, result["error"]))
            continue
        warp_grads = result["adjoints"]
        grads = {k: v for k, v in grads.items() if k in warp_grads}
        out = difference(outputs, result["outputs"], "$")
        adj = difference(grads, warp_grads, "$")
        label = ":".join(case.split(":")[:2] + case.split(":")[3:])
        print("%s outputs %s, adjoints %s" % (
            label, "differ: " + out if out else "agree",
            "differ: " + adj if adj else "agree"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
