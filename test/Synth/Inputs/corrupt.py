"""Writes a copy of a ksc-synth dataset with one defect per record 2..8."""
import json
import sys

records = [json.loads(line) for line in open(sys.argv[1])]
lines = [json.dumps(r) for r in records]
cpp = records[1]["cpp"].split("\n")
cpp[6] += " "
records[1]["cpp"] = "\n".join(cpp)
lines[1] = json.dumps(records[1])
records[2]["ksc_version"] = "0.0.1"
lines[2] = json.dumps(records[2])
lines[3] = json.dumps({"id": 3})
lines[4] = "{not json"
records[5]["wasm"] = ""
lines[5] = json.dumps(records[5])
records[6]["seed"] = records[6]["seed"] ^ 1
lines[6] = json.dumps(records[6])
records[7]["id"] = 0
lines[7] = json.dumps(records[7])
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
