"""Counts the statements of each record of a ksc-synth dataset."""
import json
import sys


def statements(source):
    count, in_struct = 0, False
    for raw in source.split("\n"):
        line = raw.strip()
        if line.startswith("struct "):
            in_struct = True
        if in_struct:
            in_struct = line != "};"
            continue
        if line.endswith(";") and not line.startswith("}"):
            count += 1
    return count


counts = [statements(json.loads(l)["source"]) for l in open(sys.argv[1])]
print("%d records, the smallest of at least 14 statements: %s"
      % (len(counts), min(counts) >= 14))
