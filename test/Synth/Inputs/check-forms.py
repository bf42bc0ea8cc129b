"""Checks that each form of each record of a ksc-synth dataset is what the
ksc tool prints for the record's source with the form's command line.

  check-forms.py KSC DATA.jsonl WORKDIR
"""
import json
import os
import subprocess
import sys

COMMANDS = {
    "ks_mlir": ["--emit=mlir"],
    "cpp": [],
    "cpp_adj": ["--grad"],
    "cpp_jvp": ["--grad=forward"],
    "cuda": ["--target=cuda"],
    "cuda_adj": ["--target=cuda", "--grad"],
    "ptx": ["--target=cuda", "--emit=ptx"],
    "ptx_adj": ["--target=cuda", "--emit=ptx", "--grad"],
    "warp": ["--emit=warp"],
}

ksc, data, workdir = sys.argv[1:4]
os.makedirs(workdir, exist_ok=True)
checked = 0
with open(data) as lines:
    for number, line in enumerate(lines, 1):
        record = json.loads(line)
        # ksc names the file in its banners: compile it under that name.
        with open(os.path.join(workdir, record["file"]), "w") as f:
            f.write(record["source"])
        for form, options in COMMANDS.items():
            if form not in record:
                continue
            printed = subprocess.run([ksc, record["file"]] + options,
                                     cwd=workdir, capture_output=True,
                                     text=True)
            if printed.returncode != 0 or printed.stdout != record[form]:
                print("line %d: %s differs from `ksc %s %s`:\n%s" %
                      (number, form, record["file"], " ".join(options),
                       printed.stderr))
                sys.exit(1)
            checked += 1
print("forms checked:", checked)
