#!/bin/sh
# Runs the tools on a full disk: a 1 MiB tmpfs mounted on $1 in a mount
# namespace of this script's own (unshare -r -m), filled before each step.
# Every failed write must leave the previous file as it was and no
# temporary file, with the tool's own message. $2 is the directory of the
# test's inputs, $3 the dataset the ksc-synth step must end with, $4 the
# directory of the tools.
set -u
dir=$1
inputs=$2
reference=$3
PATH=$4:$PATH
mount -t tmpfs -o size=1m tmpfs "$dir" || exit 1
cd "$dir"
# Fills the disk but for $1 KiB.
fill() {
  rm -f fill
  dd if=/dev/zero of=fill bs=1k count=2000 2>/dev/null
  [ "$1" = 0 ] || truncate -s "-$1K" fill
}
# The files here (the filler aside), with their contents' checksum.
files() {
  find . -type f ! -name fill | sort | while read -r f; do
    echo "$f $(cksum < "$f" | cut -d' ' -f1)"
  done
}
run() {
  "$@" > /dev/null
  echo "exit $?"
}

echo "== ksc"
cp "$inputs/saxpy.kdsl" k.kdsl
for f in k.cpp k.h k.d; do echo previous > $f; done
before=$(files)
fill 0
run ksc k.kdsl --target=cpu --grad -o k.cpp
run ksc k.kdsl --target=cpu -o /dev/null --emit-header=k.h
run ksc k.kdsl --target=cpu -o /dev/null -MD -MF k.d
[ "$(files)" = "$before" ] && echo "ksc: unchanged"

echo "== ksc-run"
rm -f fill
echo '{"a": 2, "x": [1, 2], "y": [10, 20]}' > in.json
mkdir cache bundle
run ksc-run k.kdsl --dim=2 --inputs=in.json --record=bundle
echo previous > r.json
before=$(files)
fill 0
run ksc-run k.kdsl --dim=2 --inputs=in.json -o r.json
KSC_CACHE_DIR=cache run ksc-run k.kdsl --dim=2 --inputs=in.json \
  --kernel=saxpy -o /dev/null
run ksc-run k.kdsl --dim=2 --inputs=in.json --record=bundle --record-name=again
[ "$(files)" = "$before" ] && echo "ksc-run: unchanged"

echo "== ksc-synth"
rm -f fill
run ksc-synth --count=10 --seed=3 --forms=ks_mlir --jobs=2 --quiet -o d.jsonl
before=$(files)
fill 120
run ksc-synth --count=30 --seed=3 --forms=ks_mlir --jobs=2 --quiet -o d.jsonl
run ksc-synth --count=30 --seed=3 --forms=ks_mlir --jobs=2 --quiet --resume -o d.jsonl
fill 0
run ksc-synth split d.jsonl --splits=train:0.5,test:0.5
run ksc-synth card d.jsonl --license=apache-2.0
# The partial file of the interrupted run is there to be resumed.
[ "$(files | grep -v '^./d.jsonl.partial ')" = "$before" ] && echo "ksc-synth: unchanged"
rm -f fill
run ksc-synth --count=30 --seed=3 --forms=ks_mlir --jobs=2 --quiet --resume -o d.jsonl
cmp d.jsonl "$reference" && echo "ksc-synth: resumed"
ls
