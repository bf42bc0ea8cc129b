#!/usr/bin/env python3
"""Lists the C++ functions of ksc longer than a limit.

    utils/check-function-length.py [--max-lines=150] [DIR...]

Reads the .cpp and .h files under the directories (default: lib and tools
of the checkout) and prints `path:line: name is N lines (more than MAX)`
for every function body longer than --max-lines lines, counted from the
line of its opening brace to that of its closing one; lambdas and local
classes count in the function that holds them. Exits 1 when there is one,
so that test/Source/function-length.test keeps functions short (docs/
architecture.md, "Conventions").

It reads code the way ksc's sources are written (clang-format, LLVM style):
comments, string and character literals are skipped; a brace opens a
function body when it follows a closing parenthesis (and qualifiers such
as const, override or a trailing return type) outside any other function,
and is not the brace of a namespace, class, enum, initializer or control
statement.
"""

import argparse
import os
import re
import sys

# What may come between a function's `)` and its `{`.
TAIL = re.compile(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?"
                  r"(->\s*[\w:<>,\s*&]+)?\s*(:[^;{}]*)?$", re.S)
NOT_FUNCTIONS = re.compile(r"^\s*(if|for|while|switch|catch|return|else|do)\b"
                           r"|=\s*$|\[[^\]]*\]\s*(\([^)]*\))?[^)]*$")


def strip(text):
    """`text` with comments and literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = ")" + m.group(1) + '"'
            j = text.find(end, i) + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, number of lines) of each function in `text`."""
    code = strip(text)
    stack = []  # (kind, line, name) of the open braces
    statement = 0  # where the text before the next brace begins
    for i, c in enumerate(code):
        if c == ";":
            statement = i + 1
        elif c == "{":
            head = code[statement:i]
            inside = any(kind == "function" for kind, _, _ in stack)
            kind = "block"
            name = None
            if not inside and TAIL.search(head) and \
                    not NOT_FUNCTIONS.search(head.split("(")[0] + "(") and \
                    not re.search(r"\b(namespace|class|struct|enum|union)\b[^()]*$",
                                  head):
                m = re.search(r"([~\w:]+(?:operator\s*\S+?)?)\s*\(", head)
                kind = "function"
                name = m.group(1) if m else "?"
            stack.append((kind, code.count("\n", 0, i) + 1, name))
            statement = i + 1
        elif c == "}":
            if stack:
                kind, line, name = stack.pop()
                if kind == "function":
                    yield name, line, code.count("\n", 0, i) + 2 - line
            statement = i + 1


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*",
                        default=[os.path.join(root, "lib"),
                                 os.path.join(root, "tools")])
    parser.add_argument("--max-lines", type=int, default=150)
    args = parser.parse_args()
    long_ones = []
    for top in args.dirs:
        for directory, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for function, line, count in functions(text):
                    if count > args.max_lines:
                        long_ones.append((os.path.relpath(path, root), line,
                                          function, count))
    for path, line, function, count in long_ones:
        print("%s:%d: %s is %d lines (more than %d)" % (
            path, line, function, count, args.max_lines))
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main())
