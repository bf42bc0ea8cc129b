"""Writes the records of a ksc-synth dataset with each source's float
constants changed (2.5f -> 2.625f, ...) and ids after the last one: new
sources of the same structures (test/Synth/near-duplicates.test). Records
without a float constant are left out.

  restate-constants.py IN.jsonl OUT.jsonl
"""
import json
import re
import sys

records = [json.loads(line) for line in open(sys.argv[1])]
next_id = max(r["id"] for r in records) + 1
with open(sys.argv[2], "w") as out:
    for r in records:
        # A constant no generated kernel has: x.yz5f.
        source, n = re.subn(r"\b(\d+\.\d+)f\b", lambda m: m.group(1) + "05f",
                            r["source"])
        if n == 0:
            continue
        r.update(id=next_id, source=source)
        next_id += 1
        out.write(json.dumps(r) + "\n")
