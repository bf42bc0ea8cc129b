#!/bin/sh
# Starts `ksc-run` ($1) on the kernel $2 with the never-finishing compiler
# slow-cxx.sh, sends it signal $3 once the compiler runs, and prints its
# exit status, the programs of the compiler still running (not zombies)
# and the files left in its cache.
dir=$(dirname "$0")
export PIDS=$PWD/pids REAL_CXX=${REAL_CXX:-c++} KSC_CXX=$dir/slow-cxx.sh
export KSC_CACHE_DIR=$PWD/cache
echo '{"a": 2, "x": [1, 2], "y": [10, 20]}' > in.json
# Under timeout(1), which starts ksc-run with SIGINT not ignored (a
# background job of a script starts with it ignored) and passes the
# signal on to it.
timeout --preserve-status 300 "$1" "$2" --dim=2 --inputs=in.json &
p=$!
tries=0
while [ "$(cat pids 2>/dev/null | wc -l)" -lt 2 ] && [ $tries -lt 600 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
kill -s "$3" $p
wait $p
echo "status $?"
sleep 0.5
for q in $(cat pids); do
  state=$(ps -o stat= -p "$q" 2>/dev/null)
  case "$state" in ""|Z*) ;; *) echo "still running: $q"; kill -9 "$q";; esac
done
find cache -type f | sort
