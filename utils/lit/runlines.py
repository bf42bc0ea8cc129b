"""The .kdsl files of the tests and their RUN lines, for the scripts that
compile or replay them.

compile-all.py and gpu-run-all.py compile the kernels of many .kdsl files;
gpu-run-all.py replays the ksc-run commands of the run and gradient tests
on a GPU, and utils/gpu-bundle records them into a GPU bundle, reading the
RUN lines the way lit does: continuation lines joined, %s, %S, %t, %T and
%python substituted, pipelines split at `|` outside quotes.
"""

import os
import re
import shlex
import sys

# The commands of RUN lines that only make input files.
SETUP_COMMANDS = {"echo", "printf", "cat", "cp", "mkdir", "split-file", "rm",
                  "%python"}
# What a RUN line expected to fail starts with.
EXPECT_FAILURE = {"not", "%expect-exit-1"}


def kdsl_files(paths, exclude=()):
    """The .kdsl files of `paths` (a directory: those in it, sorted), but
    those whose base name is in `exclude`."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, name)
                            for name in os.listdir(path)
                            if name.endswith(".kdsl"))
        else:
            files.append(path)
    return [f for f in files if os.path.basename(f) not in exclude]


def run_lines(source):
    """The RUN lines of `source` as (number of their first line, text),
    continuation lines joined."""
    lines, current, first = [], None, 0
    with open(source) as f:
        for number, line in enumerate(f, start=1):
            match = re.search(r"\bRUN:(.*)$", line)
            if not match:
                continue
            text = match.group(1).rstrip()
            if current is None:
                current, first = text, number
            else:
                current += " " + text.strip()
            if current.endswith("\\"):
                current = current[:-1]
                continue
            lines.append((first, current.strip()))
            current = None
    return lines


def substitute(line, source, directory, python=sys.executable):
    """`line` with lit's substitutions for a test `source` whose temporary
    files go to `directory`."""
    for key, value in [("%s", shlex.quote(source)),
                       ("%S", shlex.quote(os.path.dirname(source))),
                       ("%t", os.path.join(directory, "t")),
                       ("%T", directory),
                       ("%python", shlex.quote(python))]:
        line = line.replace(key, value)
    return line


def split_pipeline(command):
    """`a | b | c` into its commands (a `|` inside quotes does not count)."""
    parts, current, quote = [], "", None
    for index, char in enumerate(command):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif (char == "|" and command[index + 1:index + 2] != "|"
              and command[index - 1:index] != "|"):
            parts.append(current.strip())
            current = ""
            continue
        current += char
    parts.append(current.strip())
    return parts


def find_ksc_run(parts):
    """The index of the command of `parts` that runs ksc-run (after `not`
    or %expect-exit-1), and that command without them; (None, None) when
    none does."""
    for index, part in enumerate(parts):
        words = part.split(None, 1)
        if words and words[0] in EXPECT_FAILURE and len(words) > 1:
            part = words[1]
        if part.startswith("ksc-run ") or part == "ksc-run":
            return index, part
    return None, None
