#!/usr/bin/env python3
"""A stand-in for the Python that `ksc-synth validate --warp` runs, for
test/Synth/warp-standin.test: what it does is KSC_FAKE_WARP's value.

  fake-warp-python.py -c "import warp"         exits 1 when "missing"
  fake-warp-python.py SCRIPT JOBS RESULTS      "error": every job fails;
                                               "outputs": every output number
                                               of the job's inputs, plus one
"""
import json
import os
import sys

mode = os.environ.get("KSC_FAKE_WARP", "")
if sys.argv[1] == "-c":
    sys.exit(1 if mode == "missing" else 0)


def shifted(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list):
        return [shifted(v) for v in value]
    if isinstance(value, dict):
        return {k: shifted(v) for k, v in value.items()}
    return value


with open(sys.argv[2]) as jobs, open(sys.argv[3], "w") as results:
    for line in jobs:
        job = json.loads(line)
        if mode == "error":
            result = {"id": job["id"], "error": "WarpCodegenError: stand-in"}
        else:
            result = {"id": job["id"], "outputs": shifted(job["inputs"])}
        results.write(json.dumps(result) + "\n")
