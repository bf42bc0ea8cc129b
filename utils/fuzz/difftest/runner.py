"""Running seeds: each seed's file generated and checked in a directory of
its own (failing ones kept with --keep), several seeds at once (-j), and
the summary."""

import concurrent.futures
import os
import shutil
import sys
import tempfile
import time

from .check import check_case, check_grad_case, describe, known_bug_tags
from .generator import Generator
from .tools import Outcome, emitted_cpp


def run_seed(seed, args, tools):
    start = time.time()
    out = Outcome(seed)
    gen = Generator(seed, kernels=args.kernels, size=args.size,
                    avoid=args.avoid, grad=args.grad)
    source, kernels, inputs = gen.generate()
    out.kernels = len(kernels)
    out.workdir = tempfile.mkdtemp(prefix="ksc-difftest-%d-" % seed,
                                   dir=args.work_dir)
    if args.grad:
        out.failures, out.checked, out.refused = check_grad_case(
            out.workdir, source, kernels, inputs, gen.nthreads, tools,
            not args.no_bounds_check)
        return finish(out, args, start)
    out.invalid, out.failures = check_case(
        out.workdir, source, kernels, inputs, gen.nthreads, tools,
        not args.no_bounds_check)
    if out.failures:
        out.tags = known_bug_tags(emitted_cpp(
            tools, os.path.join(out.workdir, "case.kdsl"),
            not args.no_bounds_check), source)
    return finish(out, args, start)


def finish(out, args, start):
    """Keeps a failing case (--keep), removes the seed's directory."""
    out.seconds = time.time() - start
    bad = out.failures or (out.invalid and args.strict)
    if bad and args.keep:
        dest = os.path.join(args.keep, "seed-%d" % out.seed)
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(out.workdir, dest,
                        ignore=shutil.ignore_patterns("native"))
        with open(os.path.join(dest, "report.txt"), "w") as f:
            f.write(describe(out))
    shutil.rmtree(out.workdir, ignore_errors=True)
    return out


def run_seeds(seeds, args, tools):
    """Runs `seeds`, prints what fails and the summary; returns the exit
    status."""
    total_kernels = 0
    failed = 0
    invalid = 0
    checked = 0
    refused = 0
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futures = [ex.submit(run_seed, s, args, tools) for s in seeds]
        for fut in futures:
            out = fut.result()
            total_kernels += out.kernels
            checked += out.checked
            refused += len(out.refused)
            if args.verbose:
                for kernel, why in out.refused:
                    print("seed %d kernel %s: grad-refused: %s" % (
                        out.seed, kernel, why))
            if out.invalid:
                invalid += 1
            if out.failures:
                failed += 1
            if out.failures or out.invalid:
                sys.stdout.write(describe(out))
            elif args.verbose:
                print("seed %d: %d kernels ok (%.1fs)" % (
                    out.seed, out.kernels, out.seconds))
            sys.stdout.flush()
    if args.grad:
        print("ksc-difftest --grad: %d seeds, %d kernels, checked %d "
              "gradients, %d refused, %d seeds with failures, %.1fs" % (
                  len(seeds), total_kernels, checked, refused, failed,
                  time.time() - start))
        if checked == 0:
            # A run that checked nothing must not pass.
            print("ksc-difftest: no gradient was checked")
            return 1
        return 1 if failed else 0
    print("ksc-difftest: %d seeds, %d kernels, %d seeds with failures, "
          "%d invalid (generator), %.1fs" % (
              len(seeds), total_kernels, failed, invalid,
              time.time() - start))
    if failed or (args.strict and invalid):
        return 1
    return 0
