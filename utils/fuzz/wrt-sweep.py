#!/usr/bin/env python3
"""Checks that derivatives with respect to a subset are the full ones, restricted.

    wrt-sweep.py --ksc-run KSC_RUN [--ksc-synth KSC_SYNTH --synth=N]
                 [--subsets=2] [--seed=1] [--jobs=J] [--work-dir=DIR]
                 [FILE_OR_DIRECTORY...]

`ksc --wrt=S` differentiates with respect to the arguments in S only; its
derivatives must be exactly those of the full derivative kernel for S
(docs/autodiff.md, "--wrt"). For every kernel of the .kdsl test files given
(directories: every .kdsl file in them) that one of their RUN lines runs
with `ksc-run` (the first such line per kernel, with the input files the
RUN lines before it make), and for every kernel of N ksc-synth kernels
(`--synth`, random inputs as `ksc-synth validate` makes them), this takes
`--subsets` random non-empty proper subsets S of the kernel's
differentiable arguments (seeded by --seed and the kernel's name) and
checks, with the same random output adjoints and input tangents:

  reverse: the adjoints `ksc-run --grad --wrt=S` prints for the arguments
    in S equal those of `ksc-run --grad` (no --wrt);
  forward: the output tangents `ksc-run --grad=forward --wrt=S` prints,
    tangents of S given and the others zero, equal those of `ksc-run
    --grad=forward` with the same tangents.

Equal means the same number, or both NaN, or within 1e-6 of the larger
magnitude among the two arrays' values (the order of sums may differ:
--wrt leaves out terms that are zero). Where the full kernel's derivative
is NaN or infinite, a derivative not finite at the inputs (sqrt of a
negative number) times the zero tangent or adjoint of an argument outside
S (IEEE: 0 * inf is NaN), --wrt=S may be finite: such elements are
counted, not failures. Every launch runs on one OS thread.
A kernel ksc-run refuses to differentiate, or without two differentiable
arguments, is skipped and counted. Prints one line per mismatch (MISMATCH
kernel, mode, S, argument, element, both values) and per error (ERROR), then
a summary line; exits 1 if anything mismatched or failed, or nothing was
checked.
"""

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lit"))
import runlines  # noqa: E402

RTOL = 1e-6


class Case:
    """A kernel, its launch and its inputs."""

    def __init__(self, name, source, kernel, launch, inputs, extra=()):
        self.name = name          # what reports call it
        self.source = source      # the .kdsl file
        self.kernel = kernel      # --kernel, or None for the only one
        self.launch = launch      # --dim=... (and --grid-* options)
        self.inputs = inputs      # the --inputs file
        self.extra = list(extra)  # other options (-D, -I, --precision)


#===----------------------------------------------------------------------===#
# Cases from test files
#===----------------------------------------------------------------------===#

# The ksc-run options that choose what runs, which the checks replace.
MODE_OPTION = re.compile(
    r"^--(grad|check-grad|adjoints|tangents|wrt|seed|atol|rtol|tol|width|"
    r"threads|time|repeat|o|target|via|compare|record.*|timeout)(=|$)")


def cases_of_file(source, directory):
    """The cases of the RUN lines of `source`, their setup commands run in
    `directory`."""
    cases, seen = [], set()
    for _, line in runlines.run_lines(source):
        words = line.split()
        if not words or words[0] in runlines.EXPECT_FAILURE:
            continue
        line = runlines.substitute(line, source, directory)
        parts = runlines.split_pipeline(line)
        if words[0] in runlines.SETUP_COMMANDS and not any(
                p.startswith("ksc-run") for p in parts):
            subprocess.run(line, shell=True, executable="/bin/bash",
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            continue
        k = next((i for i, p in enumerate(parts) if p.startswith("ksc-run ")),
                 None)
        # Only a ksc-run that reads its inputs from a file (not a pipe).
        if k is None or k != 0:
            continue
        try:
            args = shlex.split(parts[k])[1:]
        except ValueError:
            continue
        kernel, launch, inputs, extra, file = None, [], None, [], None
        for arg in args:
            if arg.startswith("--kernel="):
                kernel = arg.split("=", 1)[1]
            elif arg.startswith("--dim=") or arg.startswith("--grid"):
                launch.append(arg)
            elif arg.startswith("--inputs="):
                inputs = arg.split("=", 1)[1]
            elif MODE_OPTION.match(arg):
                continue
            elif arg.startswith("-"):
                extra.append(arg)
            else:
                file = arg
        if file != source or not launch or not inputs or \
                not os.path.exists(inputs) or (kernel, source) in seen:
            continue
        seen.add((kernel, source))
        # A copy: later RUN lines may overwrite the file.
        copy = os.path.join(directory, "case%d.inputs.json" % len(cases))
        with open(inputs) as f, open(copy, "w") as out:
            out.write(f.read())
        name = "%s:%s" % (os.path.basename(source), kernel or "")
        cases.append(Case(name, source, kernel, launch, copy, extra))
    return cases


#===----------------------------------------------------------------------===#
# Cases from ksc-synth kernels
#===----------------------------------------------------------------------===#

SCALARS = {"f32": "float", "f64": "float", "i1": "bool", "i32": "int",
           "i64": "int", "ui32": "uint"}


def parse_type(text, pos):
    """The type at `text[pos:]` of a kernel signature in ks IR, as a
    description (kind, ...), and the position after it."""
    def expect(token):
        nonlocal pos
        assert text.startswith(token, pos), (token, text[pos:pos + 40])
        pos += len(token)

    def skip_spaces():
        nonlocal pos
        while pos < len(text) and text[pos] == " ":
            pos += 1

    if text.startswith("!ks.array<", pos):
        pos += len("!ks.array<")
        if text.startswith("const ", pos):
            pos += len("const ")
        element, pos = parse_type(text, pos)
        rank = 1
        if text[pos] == ",":
            match = re.compile(r",\s*(\d+)").match(text, pos)
            rank = int(match.group(1))
            pos = match.end()
        expect(">")
        return ("array", element, rank), pos
    if text.startswith("!ks.struct<", pos):
        pos += len("!ks.struct<")
        match = re.compile(r'"[^"]*"').match(text, pos)
        pos = match.end()
        fields = []
        while text[pos] == ",":
            pos += 1
            skip_spaces()
            match = re.compile(r"[\w]+").match(text, pos)
            name = match.group(0)
            pos = match.end()
            expect(":")
            skip_spaces()
            field, pos = parse_type(text, pos)
            fields.append((name, field))
        expect(">")
        return ("struct", fields), pos
    match = re.compile(r"vector<([\dx]+)x(\w+)>").match(text, pos)
    if match:
        shape = [int(d) for d in match.group(1).split("x")]
        return ("vector", shape, SCALARS[match.group(2)]), match.end()
    match = re.compile(r"\w+").match(text, pos)
    return ("scalar", SCALARS[match.group(0)]), match.end()


def kernel_signature(ks_mlir):
    """The kernel's arguments, [(name, type description, unsigned)], from
    its ks IR."""
    start = ks_mlir.index("ks.kernel @")
    pos = ks_mlir.index("(", start) + 1
    args = []
    while ks_mlir[pos] != ")":
        match = re.compile(r"\s*%(\w+):\s*").match(ks_mlir, pos)
        pos = match.end()
        kind, pos = parse_type(ks_mlir, pos)
        unsigned = False
        if ks_mlir.startswith(" {", pos):
            end = ks_mlir.index("}", pos)
            unsigned = "ks.unsigned" in ks_mlir[pos:end]
            pos = end + 1
        args.append((match.group(1), kind, unsigned))
        if ks_mlir[pos] == ",":
            pos += 1
    return args


def random_value(kind, rng, unsigned=False):
    """A random value of a type description, as `ksc-synth validate` makes
    them: reals in [-2, 2], integers in [0, 3] (unsigned ones below 100000),
    structs as objects keyed by field."""
    if kind[0] == "struct":
        return {name: random_value(field, rng) for name, field in kind[1]}
    if kind[0] == "vector":
        def fill(shape):
            if not shape:
                return random_value(("scalar", kind[2]), rng)
            return [fill(shape[1:]) for _ in range(shape[0])]
        return fill(kind[1])
    scalar = kind[1]
    if scalar == "float":
        return rng.randint(0, 4000) / 1000.0 - 2.0
    if scalar == "bool":
        return bool(rng.getrandbits(1))
    if scalar == "uint" or unsigned:
        return rng.randrange(100000)
    return rng.randrange(4)


def synth_cases(args, directory):
    """Cases for `--synth` ksc-synth kernels, one input file each (8
    threads; arrays of 8 elements along dimension 0, 3 along the others)."""
    data = os.path.join(directory, "synth.jsonl")
    subprocess.run([args.ksc_synth, "--count=%d" % args.synth,
                    "--seed=%d" % args.seed, "--forms=ks_mlir", "--quiet",
                    "-o", data], check=True)
    cases = []
    with open(data) as f:
        for line in f:
            record = json.loads(line)
            rng = random.Random("%d:%s" % (args.seed, record["seed"]))
            inputs = {}
            for name, kind, unsigned in kernel_signature(record["ks_mlir"]):
                if kind[0] == "array":
                    def fill(dim, element=kind[1], rank=kind[2]):
                        extent = 8 if dim == 0 else 3
                        if dim + 1 == rank:
                            return [random_value(element, rng)
                                    for _ in range(extent)]
                        return [fill(dim + 1) for _ in range(extent)]
                    inputs[name] = fill(0)
                else:
                    inputs[name] = random_value(kind, rng, unsigned)
            stem = os.path.join(directory, "synth%d" % record["id"])
            with open(stem + ".kdsl", "w") as out:
                out.write(record["source"])
            with open(stem + ".json", "w") as out:
                json.dump(inputs, out)
            cases.append(Case("synth:%d:%s" % (record["id"], record["kernel"]),
                              stem + ".kdsl", record["kernel"], ["--dim=8"],
                              stem + ".json", ["--precision=double"]))
    return cases


#===----------------------------------------------------------------------===#
# The checks
#===----------------------------------------------------------------------===#


def randomized(value, rng):
    """`value` with every number replaced by a random integer in [-3, 3]
    (integral, so that it also fits integer struct fields), other leaves
    kept."""
    if isinstance(value, dict):
        return {k: randomized(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        return [randomized(v, rng) for v in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return rng.randint(-3, 3)


def leaves(value, path=""):
    """The numbers of `value`, with their paths ("[2].pos[1]")."""
    if isinstance(value, dict):
        for k in value:
            yield from leaves(value[k], "%s.%s" % (path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, "%s[%d]" % (path, i))
    else:
        yield path, value


def as_float(value):
    if isinstance(value, str):
        return float(value)  # "nan", "inf", "-inf"
    return float(value)


def compare(full, part, what, counts):
    """The mismatches between two arrays (JSON values) of one argument;
    counts the elements compared in `counts`."""
    a, b = list(leaves(full)), list(leaves(part))
    if [p for p, _ in a] != [p for p, _ in b]:
        return ["%s: shapes differ" % what]
    values = [abs(as_float(v)) for _, v in a + b
              if not isinstance(v, bool) and math.isfinite(as_float(v))]
    scale = max(values, default=0.0)
    problems = []
    for (path, x), (_, y) in zip(a, b):
        counts["elements"] += 1
        if x == y:
            counts["exact"] += 1
            continue
        fx, fy = as_float(x), as_float(y)
        if math.isnan(fx) and math.isnan(fy):
            counts["exact"] += 1
            continue
        if not math.isfinite(fx):
            # A derivative that is not finite at the inputs (sqrt at a
            # negative number): the full kernel multiplies it by the zero
            # tangent or adjoint of an argument outside S and gets NaN
            # (IEEE 0 * inf), where --wrt=S leaves the term out.
            counts["nonfinite"] += 1
            continue
        if abs(fx - fy) <= RTOL * scale:
            continue
        problems.append("%s%s: full %r, --wrt %r" % (what, path, x, y))
    return problems


class Checker:
    def __init__(self, args, directory):
        self.args = args
        self.directory = directory
        # (Updated from several threads: += on ints under the GIL.)
        self.counts = {"elements": 0, "exact": 0, "nonfinite": 0}

    def ksc_run(self, case, options):
        command = [self.args.ksc_run, case.source, "--threads=1",
                   "--inputs=" + case.inputs] + case.launch + case.extra
        if case.kernel:
            command.append("--kernel=" + case.kernel)
        result = subprocess.run(command + options, capture_output=True,
                                text=True, timeout=600)
        if result.returncode != 0:
            return None, (result.stderr or result.stdout).strip()
        return json.loads(result.stdout), None

    def write(self, name, value):
        path = os.path.join(self.directory, name)
        with open(path, "w") as f:
            json.dump(value, f)
        return path

    def check(self, index, case):
        """The report lines of one case, and (checked, skipped) counts."""
        tag = "c%d" % index
        empty = self.write(tag + ".empty.json", {})
        full_zero, error = self.ksc_run(case, ["--grad",
                                               "--adjoints=" + empty])
        if full_zero is None:
            return ["SKIPPED %s: %s" % (case.name, error.splitlines()[-1]
                                        if error else "")], 0, 1
        names = list(full_zero)
        if len(names) < 2:
            return [], 0, 1
        with open(case.inputs) as f:
            inputs = json.load(f)
        rng = random.Random("%d:%s" % (self.args.seed, case.name))
        subsets = set()
        for _ in range(10 * self.args.subsets):
            if len(subsets) == self.args.subsets:
                break
            size = rng.randint(1, len(names) - 1)
            subsets.add(tuple(sorted(rng.sample(names, size),
                                     key=names.index)))
        lines, checked = [], 0
        for n, subset in enumerate(sorted(subsets)):
            wrt = "--wrt=" + ",".join(subset)
            label = "%s %s" % (case.name, wrt)
            part_zero, error = self.ksc_run(
                case, ["--grad", "--adjoints=" + empty, wrt])
            if part_zero is None:
                lines.append("ERROR %s: --grad: %s" % (label, error))
                continue
            adjoints = self.write("%s.%d.adj.json" % (tag, n),
                                  randomized(part_zero, rng))
            full, error = self.ksc_run(case, ["--grad",
                                              "--adjoints=" + adjoints])
            part, error2 = self.ksc_run(case, ["--grad",
                                               "--adjoints=" + adjoints, wrt])
            if full is None or part is None:
                lines.append("ERROR %s: --grad: %s" % (label, error or error2))
                continue
            for name in subset:
                lines += ["MISMATCH %s reverse: %s" % (label, p)
                          for p in compare(full[name], part[name], name,
                                           self.counts)]
            # Shaped as the input, or for an array the inputs make at
            # random (an object {"random": ...}), as its adjoint.
            tangents = self.write(
                "%s.%d.tan.json" % (tag, n),
                {name: randomized(full_zero[name]
                                  if isinstance(inputs[name], dict) and
                                  "random" in inputs[name] else inputs[name],
                                  rng)
                 for name in subset})
            forward = ["--grad=forward", "--tangents=" + tangents]
            full, error = self.ksc_run(case, forward)
            part, error2 = self.ksc_run(case, forward + [wrt])
            if full is None or part is None:
                lines.append("ERROR %s: --grad=forward: %s"
                             % (label, error or error2))
                continue
            for name in part:
                if name.startswith("tan_") and name in full:
                    lines += ["MISMATCH %s forward: %s" % (label, p)
                              for p in compare(full[name], part[name], name,
                                               self.counts)]
            checked += 1
        return lines, checked, 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ksc-run", required=True)
    parser.add_argument("--ksc-synth")
    parser.add_argument("--synth", type=int, default=0,
                        help="also check this many ksc-synth kernels")
    parser.add_argument("--subsets", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--work-dir")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    if args.synth and not args.ksc_synth:
        parser.error("--synth needs --ksc-synth")

    with tempfile.TemporaryDirectory() as tmp:
        directory = args.work_dir or tmp
        os.makedirs(directory, exist_ok=True)
        cases = []
        for index, source in enumerate(runlines.kdsl_files(args.paths)):
            sub = os.path.join(directory, "file%d" % index)
            os.makedirs(sub, exist_ok=True)
            cases += cases_of_file(os.path.abspath(source), sub)
        if args.synth:
            cases += synth_cases(args, directory)
        checker = Checker(args, directory)
        failures = checked = skipped = 0
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = pool.map(lambda c: checker.check(*c), enumerate(cases))
            for lines, ok, skip in results:
                for line in lines:
                    print(line)
                    failures += not line.startswith("SKIPPED")
                checked += ok
                skipped += skip
    counts = checker.counts
    print("wrt-sweep: %d kernels, %d subsets checked in both modes, "
          "%d kernels skipped; %d derivatives compared, %d the same bits, "
          "%d not finite in the full kernel; %d failures"
          % (len(cases), checked, skipped, counts["elements"],
             counts["exact"], counts["nonfinite"], failures))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
