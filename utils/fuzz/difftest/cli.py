"""The command line of ksc-difftest.py (its docstring explains it)."""

import argparse
import json
import os
import shutil
import sys
import tempfile

from .case import json_inputs
from .check import check_file
from .generator import Generator
from .native import native_source
from .reduce import reduce_case
from .runner import run_seeds
from .tools import Tools, wait_for_tool

# The repository: utils/fuzz/difftest/../../..
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))

# Constructs --avoid can leave out.
AVOIDABLE = {
    "param-write": "assignments to parameters",
    "const-lvalue": "global constants used as lvalues (in ?:, as const T& "
                    "arguments): they are read as (+K) instead",
    "array-reassign": "assignments to local array variables",
    "for-ternary": "int-typed ?: inside for loops (their scf.if results "
                   "could take over the loop counter's variable)",
}

QUICK_SEEDS = [1, 2, 3]
QUICK_KERNELS = 6
# --grad --quick: fixed seeds (3 kernels each) whose gradients all check,
# picked among seeds 10..49 (one FD-noise failure there, seed 10, before
# GRAD_TOLERANCES) for being quick to compile: about 55 s of CPU.
QUICK_GRAD_SEEDS = [20, 26, 27, 28]
QUICK_GRAD_KERNELS = 3


def parser():
    p = argparse.ArgumentParser(
        description="Differential random tester of ksc (ksc-run vs. the "
        ".kdsl file compiled natively).")
    p.add_argument("--seed", type=int, default=1, help="first seed")
    p.add_argument("--count", type=int, default=10,
                   help="number of seeds (kernel files) to run")
    p.add_argument("--seeds", help="comma-separated list of seeds to run")
    p.add_argument("--quick", action="store_true",
                   help="run the fixed list of seeds used by the lit test "
                   "(with --grad: the one of test/Fuzz/difftest-grad.test)")
    p.add_argument("--kernels", type=int, default=10,
                   help="kernels per file (all share one ksc-run compile)")
    p.add_argument("--size", type=float, default=1.0,
                   help="scale of the generated kernels (statements)")
    p.add_argument("--keep", help="directory to keep failing cases in")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                   help="the ksc build directory (bin/ksc, bin/ksc-run)")
    p.add_argument("--work-dir", help="where temporary files go")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--no-ubsan", action="store_true",
                   help="build the native side without UBSan (faster)")
    p.add_argument("--no-bounds-check", action="store_true",
                   help="run ksc-run with --bounds-check=false")
    p.add_argument("--strict", action="store_true",
                   help="also fail (and keep) when the generator made an "
                   "invalid program")
    p.add_argument("--print", type=int, metavar="SEED",
                   help="print the kernel file of SEED and exit")
    p.add_argument("--print-native", type=int, metavar="SEED",
                   help="print the native C++ of SEED and exit")
    p.add_argument("--avoid", default="",
                   help="comma-separated constructs not to generate, to look "
                   "past known bugs: " + ", ".join(sorted(AVOIDABLE)))
    p.add_argument("--reduce", metavar="DIR",
                   help="reduce the failing case kept in DIR (see --keep) "
                   "line by line; needs --kernel-name")
    p.add_argument("--kernel-name", help="the failing kernel, for --reduce")
    p.add_argument("--check", metavar="FILE",
                   help="run kernel --kernel-name of FILE (a generated file, "
                   "maybe edited by hand) both ways (a --grad case: its "
                   "gradient check), on the inputs.json and meta.json next "
                   "to it, and print the differences")
    p.add_argument("--grad", action="store_true",
                   help="derivative mode: generate differentiable, "
                   "well-conditioned kernels (own output slots only, "
                   "moderate literals and inputs, guarded sqrt/log/division) "
                   "and check each one's K_adj and K_jvp with ksc-run "
                   "--check-grad --precision=double instead of running it "
                   "natively; failures are GRAD-MISMATCH, kernels ksc "
                   "refuses to differentiate are counted (listed with -v)")
    p.add_argument("-v", "--verbose", action="store_true")
    return p


def print_seed(args):
    """--print, --print-native."""
    seed = args.print if args.print is not None else args.print_native
    gen = Generator(seed, kernels=args.kernels, size=args.size,
                    avoid=args.avoid, grad=args.grad)
    source, kernels, inputs = gen.generate()
    if args.print is not None:
        sys.stdout.write(source)
        sys.stdout.write("// inputs (--dim=%d): %s\n" % (
            gen.nthreads, json.dumps(json_inputs(inputs))))
    else:
        sys.stdout.write(native_source(source, kernels, inputs,
                                       gen.nthreads))
    return 0


def seeds_to_run(args):
    """The seeds to run; --quick also sets its kernels per file (and, in the
    default mode, no UBSan)."""
    if args.quick and args.grad:
        # Fixed seeds, few kernels per file (each kernel is compiled and
        # checked on its own).
        args.kernels = QUICK_GRAD_KERNELS
        return QUICK_GRAD_SEEDS
    if args.quick:
        # Fixed seeds, fewer kernels per file, no UBSan (these seeds are
        # known to generate valid programs): about 12 s of CPU.
        args.no_ubsan = True
        args.kernels = QUICK_KERNELS
        return QUICK_SEEDS
    if args.seeds:
        return [int(s) for s in args.seeds.split(",") if s.strip()]
    return list(range(args.seed, args.seed + args.count))


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    args.avoid = [a for a in args.avoid.split(",") if a]
    for a in args.avoid:
        if a not in AVOIDABLE:
            p.error("unknown --avoid value %r" % a)

    if args.print is not None or args.print_native is not None:
        return print_seed(args)
    seeds = seeds_to_run(args)

    cxx = os.environ.get("KSC_CXX") or "c++"
    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="ksc-difftest-cache-", dir=args.work_dir)
    tools = Tools(os.path.abspath(args.build_dir), cxx, cache,
                  not args.no_ubsan)
    for tool in (tools.ksc, tools.ksc_run):
        if not wait_for_tool(tool, 5):
            print("ksc-difftest: cannot find %s (use --build-dir)" % tool,
                  file=sys.stderr)
            return 2
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    try:
        if args.check:
            tools.timeout = 10
            return check_file(args.check, args.kernel_name, tools)
        if args.reduce:
            tools.timeout = 5
            return reduce_case(args.reduce, args.kernel_name, tools,
                               os.path.join(args.reduce, "reduced.kdsl"),
                               args.verbose)
        return run_seeds(seeds, args, tools)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
