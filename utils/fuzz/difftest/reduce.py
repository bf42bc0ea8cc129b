"""Reducing a failing case kept with --keep (--reduce): the other kernels,
functions and constants removed, then groups of statements (delta
debugging), then single statements, blocks unwrapped and else branches
dropped, as long as the case fails the same way."""

import os
import re
import shutil
import tempfile

from .case import load_case
from .check import check_kernel

# --- the structure of a generated file --------------------------------------


def top_level_chunks(lines):
    """[(start, end)] line ranges of the top-level items (functions, kernels,
    constants) of a generated file."""
    chunks = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("KSC_"):
            end = k
            while lines[end] != "}":
                end += 1
            chunks.append((k, end))
            k = end + 1
        elif line.startswith("const"):
            chunks.append((k, k))
            k += 1
        else:
            k += 1
    return chunks


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def block_end(lines, a):
    """For a line ending with `{`, the index of the line closing it."""
    d = indent_of(lines[a])
    for b in range(a + 1, len(lines)):
        if indent_of(lines[b]) == d and lines[b].lstrip().startswith("}"):
            return b
        if indent_of(lines[b]) < d:
            break
    return None


def statement_end(lines, a):
    """The last line of the statement starting at line a (an if chain with
    its else branches, a loop, a braced or unbraced if/else)."""
    s = lines[a].strip()
    if s.endswith("{"):
        b = block_end(lines, a)
        if b is None:
            return None
        while lines[b].strip().endswith("{"):  # } else {, } else if (...) {
            b = block_end(lines, b)
            if b is None:
                return None
        return after_else(lines, a, b)
    if s.startswith("if (") and s.endswith(")") or s == "else":
        # Unbraced: the next line (or its braced block) is the body.
        body_end = statement_end(lines, a + 1)
        if body_end is None:
            return None
        return after_else(lines, a, body_end)
    return a


def after_else(lines, a, b):
    d = indent_of(lines[a])
    if b + 1 < len(lines) and lines[b + 1].strip() == "else" and \
            indent_of(lines[b + 1]) == d:
        return statement_end(lines, b + 1)
    return b


def statement_spans(lines, lo, hi):
    """The statements of the block lines[lo..hi], as line ranges."""
    spans = []
    a = lo
    while a <= hi:
        b = statement_end(lines, a)
        if b is None or b > hi:
            return spans
        spans.append((a, b))
        a = b + 1
    return spans

# --- smaller versions -------------------------------------------------------


def reduction_candidates(lines, lo, hi):
    """Smaller versions of lines[lo..hi] (a function body): statements
    removed, blocks unwrapped, else branches removed."""
    cands = []
    for a in range(lo, hi + 1):
        s = lines[a].strip()
        if s.startswith("}") or s == "else" or s.startswith("KSC_"):
            continue
        b = statement_end(lines, a)
        if b is None or b > hi:
            continue
        cands.append(lines[:a] + lines[b + 1:])
        if s.endswith("{") and b > a + 1:
            c = block_end(lines, a)
            if c is not None and c <= b:
                # Keep the body (run once, unconditionally) ...
                cands.append(lines[:a] + lines[a + 1:c] + lines[b + 1:])
                if lines[c].strip().startswith("} else"):
                    # ... or drop the else branches.
                    cands.append(lines[:c] + [" " * indent_of(lines[c]) + "}"]
                                 + lines[b + 1:])
    return cands


def ddmin_block(lines, lo, hi, interesting):
    """Removes groups of statements of lines[lo..hi] (delta debugging)."""
    spans = statement_spans(lines, lo, hi)
    n = 2
    while len(spans) >= 2:
        size = max(1, (len(spans) + n - 1) // n)
        removed = False
        for k in range(0, len(spans), size):
            group = spans[k:k + size]
            a, b = group[0][0], group[-1][1]
            cand = lines[:a] + lines[b + 1:]
            if interesting(cand):
                lines = cand
                hi -= b - a + 1
                spans = statement_spans(lines, lo, hi)
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if size == 1:
                break
            n = min(n * 2, len(spans))
    return lines

# --- the reducer ------------------------------------------------------------


def failure_signature(failures):
    """What a reduced case must keep failing with: the kind of the first
    failure and, for an error, its first message without names."""
    kind, _, msg = failures[0]
    kind = kind.replace("-transcendental", "")
    if kind == "mismatch":
        return kind
    if kind == "grad-mismatch":
        # Which check failed, and for which argument.
        m = re.search(r"check failed: (the \w+ of '\w+'|[^:(]*)", msg)
        return kind + ":" + (m.group(1) if m else "")
    errs = [l for l in msg.splitlines() if "error:" in l]
    first = errs[0].split("error:", 1)[1] if errs else msg
    return kind + ":" + " ".join(
        w for w in first.split() if not ("'" in w or "\u2018" in w))


def remove_items(lines, kernel, interesting, verbose):
    """The other kernels at once, then one by one the functions and
    constants."""
    header = "KSC_KERNEL void %s(" % kernel
    others = [c for c in top_level_chunks(lines)
              if lines[c[0]].startswith("KSC_KERNEL") and
              not lines[c[0]].startswith(header)]
    cand = [l for k, l in enumerate(lines)
            if not any(a <= k <= b for a, b in others)]
    if interesting(cand):
        lines = cand
        if verbose:
            print("  removed the other kernels: %d lines" % len(lines))
    changed = True
    while changed:
        changed = False
        for start, end in reversed(top_level_chunks(lines)):
            if lines[start].startswith(header):
                continue
            cand = lines[:start] + lines[end + 1:]
            if interesting(cand):
                lines = cand
                changed = True
                if verbose:
                    print("  removed an item: %d lines" % len(lines))
    return lines


def remove_statement_groups(lines, interesting, verbose):
    """Groups of statements of each function body."""
    k = 0
    while k < len(top_level_chunks(lines)):
        start, end = top_level_chunks(lines)[k]
        if lines[start].startswith("KSC_"):
            lines = ddmin_block(lines, start + 1, end - 1, interesting)
            if verbose:
                print("  %d lines" % len(lines))
        k += 1
    return lines


def reduce_statements(lines, interesting, verbose):
    """Statements removed, blocks unwrapped, else branches dropped, to a
    fixpoint."""
    changed = True
    while changed:
        changed = False
        # Functions by their first line: the line numbers move as
        # statements go.
        headers = [lines[start] for start, _ in top_level_chunks(lines)
                   if lines[start].startswith("KSC_")]
        for header in headers:
            k = 0
            while True:
                chunks = [c for c in top_level_chunks(lines)
                          if lines[c[0]] == header]
                if not chunks:
                    break
                lo, hi = chunks[0][0] + 1, chunks[0][1] - 1
                cands = reduction_candidates(lines, lo, hi)
                if k >= len(cands):
                    break
                if interesting(cands[k]):
                    lines = cands[k]
                    changed = True
                    if verbose:
                        print("  %d lines" % len(lines))
                else:
                    k += 1
    return lines


def reduce_case(case_dir, kernel, tools, out_path, verbose):
    """--reduce: writes the smallest version of the case in case_dir that
    still fails the same way into out_path; returns the exit status."""
    with open(os.path.join(case_dir, "case.kdsl")) as f:
        lines = f.read().splitlines()
    inputs, meta = load_case(case_dir)
    work = tempfile.mkdtemp(prefix="ksc-reduce-", dir=os.path.dirname(
        os.path.abspath(out_path)))

    def signature(src_lines):
        invalid, failures, _ = check_kernel(
            work, "\n".join(src_lines) + "\n", kernel, inputs, meta, tools)
        if invalid or not failures:
            return None
        return failure_signature(failures)

    want = signature(lines)
    if want is None:
        print("ksc-difftest: the case does not fail (anymore)")
        return 1
    print("reducing: %s" % want)
    tries = 0

    def interesting(cand):
        nonlocal tries
        tries += 1
        return signature(cand) == want

    lines = remove_items(lines, kernel, interesting, verbose)
    lines = remove_statement_groups(lines, interesting, verbose)
    lines = reduce_statements(lines, interesting, verbose)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print("ksc-difftest: reduced to %d lines in %d tries: %s" % (
        len(lines), tries, out_path))
    return 0
