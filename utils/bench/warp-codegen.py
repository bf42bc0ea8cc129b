#!/usr/bin/env python3
"""NVIDIA Warp's code generation of the `warp` forms of a ksc-synth
dataset, timed (issue 28): Warp makes the CPU C++ of each kernel and its
adjoint from Python, as ksc makes the `cpp` and `cpp_adj` forms from the
`.kdsl` source of the same kernel.

  utils/bench/warp-codegen.py DATA.jsonl [--limit N]

For each record, in one process (Warp imported and initialized once,
before the clock starts): write its `warp` form to a file, import it (Warp
parses each @wp.kernel's Python), hash the module, and generate its CPU
C++ (warp's ModuleBuilder: the forward and adjoint of every kernel and
function, then the source text); nothing is compiled. Prints one JSON
object: the records, the seconds of each stage summed over records, and
kernels per second for everything and for the code generation alone.
"""
import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    import warp as wp
    from warp._src.context import ModuleBuilder

    wp.config.quiet = True
    if hasattr(wp, "LOG_ERROR"):
        wp.config.log_level = wp.LOG_ERROR
    wp.init()
    forms = []
    with open(args.data) as lines:
        for line in lines:
            record = json.loads(line)
            if "warp" in record:
                forms.append(record["warp"])
            if args.limit and len(forms) == args.limit:
                break
    seconds = {"import": 0.0, "hash": 0.0, "codegen": 0.0}
    source_bytes = 0
    with tempfile.TemporaryDirectory() as workdir:
        for k, text in enumerate(forms):
            path = os.path.join(workdir, "ksc_warp_bench_%d.py" % k)
            with open(path, "w") as f:
                f.write(text)
            name = "ksc_warp_bench_%d" % k
            start = time.perf_counter()
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            warp_module = wp.get_module(name)
            lap = time.perf_counter()
            seconds["import"] += lap - start
            warp_module.hash_module()
            block_dim = warp_module.options["block_dim"]
            hasher = warp_module.hashers[block_dim]
            options = warp_module.resolved_options[block_dim]
            now = time.perf_counter()
            seconds["hash"] += now - lap
            lap = now
            builder = ModuleBuilder(warp_module, options, hasher, target="cpu")
            source_bytes += len(builder.codegen("cpu"))
            seconds["codegen"] += time.perf_counter() - lap
            del sys.modules[name]
    total = sum(seconds.values())
    print(json.dumps({
        "warp_version": wp.config.version,
        "records": len(forms),
        "seconds": seconds,
        "kernels_per_second": len(forms) / total if total else 0,
        "codegen_kernels_per_second":
            len(forms) / seconds["codegen"] if seconds["codegen"] else 0,
        "cpp_bytes": source_bytes,
    }))


if __name__ == "__main__":
    main()
