"""A case on disk, as check_case writes it and --keep keeps it:
case.kdsl, inputs.json (ksc-run's --inputs), meta.json ({"dim": threads,
"grad": true for a --grad case, "kernels": [[name, uses_trans]]})."""

import json
import math
import os


def json_inputs(inputs):
    """The inputs as ksc-run reads them (non-finite floats as strings)."""
    def conv(x):
        if isinstance(x, float):
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
        return x
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v)
            for k, v in inputs.items()}


def inputs_from_json(obj):
    """json_inputs undone."""
    def conv(x):
        if isinstance(x, str):
            return float(x)
        return x
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v)
            for k, v in obj.items()}


def write_case(work, source, kernels, inputs, nthreads, grad=False):
    """Writes the case files into directory `work`; returns the paths of
    case.kdsl and inputs.json."""
    kdsl = os.path.join(work, "case.kdsl")
    with open(kdsl, "w") as f:
        f.write(source)
    in_json = os.path.join(work, "inputs.json")
    with open(in_json, "w") as f:
        json.dump(json_inputs(inputs), f)
    meta = {"dim": nthreads}
    if grad:
        meta["grad"] = True
    meta["kernels"] = [[k, t] for k, t in kernels]
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump(meta, f)
    return kdsl, in_json


def load_case(case_dir):
    """The inputs and meta.json of the case in case_dir."""
    with open(os.path.join(case_dir, "inputs.json")) as f:
        inputs = inputs_from_json(json.load(f))
    with open(os.path.join(case_dir, "meta.json")) as f:
        meta = json.load(f)
    return inputs, meta
