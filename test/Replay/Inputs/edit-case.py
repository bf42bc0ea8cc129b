"""Sets fields of a bundle case's JSON: edit-case.py CASE.json PATH=VALUE...
where PATH is dot-separated keys (`code.ptx`, `name`, `data.in.json` for
the key "in.json" of "data": the rest after the first key of an object
whose keys have dots)."""
import json
import sys

path = sys.argv[1]
case = json.load(open(path))
for edit in sys.argv[2:]:
    keys, value = edit.split("=", 1)
    head, _, rest = keys.partition(".")
    if not rest:
        case[head] = value
    else:
        case[head][rest] = value
json.dump(case, open(path, "w"), indent=2)
