"""Prints the runs of a ksc-replay report, one line each, for FileCheck:
the case, the code path, the status and the message, and the numbers
compared.

    runs.py REPORT.json
"""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
for run in report["runs"]:
    numbers = sum(c["numbers"] for c in run["comparisons"])
    print("%s %s %s %d numbers%s" % (
        run["case"], run["via"], run["status"], numbers,
        ": " + run["message"] if run["message"] else ""))
