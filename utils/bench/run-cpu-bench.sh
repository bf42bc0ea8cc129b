#!/usr/bin/env bash
# The CPU throughput benchmark: times every kernel K of grad-kernels.kdsl
# and of stream.kdsl (a memory-bound one) on this machine, as
#  - a hand-written serial C++ loop of K (cpu_bench_hand.cpp),
#  - K and K_adj through ksc's serial launchers (`--cpu-launch=serial`),
#  - K and K_adj through ksc's parallel launchers on 1 and on 2 OS threads
#    (ksc::set_num_threads in the benchmark process; CPU_BENCH_THREADS=
#    1,2,4,8,16 picks other numbers),
#  - and, when `python3 -c 'import warp'` works (or WARP_PYTHON names a
#    Python that has NVIDIA Warp), K and K_adj in Warp on its "cpu" device
#    (warp_cpu_bench.py; the median of WARP_RUNS runs, default 25),
# and prints the times and their ratios as Markdown tables
# (cpu_bench_tables.py), each time the median of 15 repetitions of at least
# 0.1 s (Google Benchmark), the repetitions of all benchmarks interleaved in
# a random order, so that a noisy moment on a shared machine spreads over
# all of them instead of skewing one.
#
# Each ksc mode is built with the host C++ compiler at -O2 (as
# run-grad-bench.sh builds its units; CPU_BENCH_CXXFLAGS replaces -O2) from
# what `ksc` generates for both files in a namespace of its own
# (--namespace), so that the modes link together. Before timing anything the benchmark checks that
# every launcher computes what the hand-written loop (for K) or the serial
# launcher (for K_adj) computes, and stops if one does not (set
# CPU_BENCH_KEEP_GOING=1 to time them anyway, marked "wrong").
#
#   utils/bench/run-cpu-bench.sh [extra Google Benchmark flags]
#
# e.g. --benchmark_filter=nbody (also selects the Warp kernels), or
# --benchmark_min_time=0.01 for a quick try (0.01s from Google Benchmark
# 1.8 on). KSC_NUM_THREADS would override the numbers of threads: the
# script unsets it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
read -r -a optflags <<< "${CPU_BENCH_CXXFLAGS:--O2}"
cxxflags=("${optflags[@]}" -std=c++17 -I "$here" -I "$runtime")

# unit NAME ADJOINT [ksc options...]: generates the kernels of both files
# into namespace cpu_bench::NAME, compiles each file's code on its own (as
# a program would: the launchers see the sizes and strides at run time)
# and cpu_bench_ksc.cpp with their headers, into $work/NAME*.o.
unit() {
  local name="$1" adjoint="$2"
  shift 2
  local kdsl
  for kdsl in grad-kernels stream; do
    "$ksc" "$here/$kdsl.kdsl" --namespace="cpu_bench::$name" "$@" \
      --emit-header="$work/$name-$kdsl.h" -o "$work/$name-$kdsl.cpp"
    "$cxx" "${cxxflags[@]}" -c "$work/$name-$kdsl.cpp" \
      -o "$work/$name-$kdsl.o"
  done
  "$cxx" "${cxxflags[@]}" -DKSC_ADJOINT="$adjoint" -DCPU_BENCH_UNIT="$name" \
    -DKSC_HEADER_K="\"$work/$name-grad-kernels.h\"" \
    -DKSC_HEADER_STREAM="\"$work/$name-stream.h\"" \
    -c "$here/cpu_bench_ksc.cpp" -o "$work/$name.o"
}
echo "run-cpu-bench: building" >&2
unit serial_k 0 --cpu-launch=serial
unit serial_adj 1 --cpu-launch=serial --grad=reverse
unit parallel_k 0 --cpu-launch=parallel
unit parallel_adj 1 --cpu-launch=parallel --grad=reverse
for part in hand main; do
  "$cxx" "${cxxflags[@]}" -c "$here/cpu_bench_$part.cpp" -o "$work/$part.o"
done
"$cxx" "$work"/*.o -o "$work/cpu_bench" -lbenchmark -lpthread

echo "run-cpu-bench: running" >&2
env -u KSC_NUM_THREADS "$work/cpu_bench" --benchmark_format=json \
  --benchmark_repetitions=15 --benchmark_min_time=0.1 \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true "$@" \
  > "$work/results.json"

# Warp, when it is there: the same kernels, on the kernels the filter picks.
warp_python="${WARP_PYTHON:-python3}"
filter=""
for arg in "$@"; do
  case "$arg" in
    --benchmark_filter=*) filter="${arg#*=}" ;;
  esac
done
if "$warp_python" -c 'import warp' > /dev/null 2>&1; then
  echo "run-cpu-bench: running Warp ($warp_python)" >&2
  if ! "$warp_python" "$here/warp_cpu_bench.py" --filter="$filter" \
      --runs="${WARP_RUNS:-25}" > "$work/warp.json"; then
    echo "run-cpu-bench: warning: warp_cpu_bench.py failed; no Warp" \
      "columns" >&2
    rm -f "$work/warp.json"
  fi
else
  echo "run-cpu-bench: no Warp ($warp_python cannot import warp)" >&2
fi

cpu="$(lscpu 2> /dev/null || true)"
model="$(sed -n 's/^Model name: *//p' <<< "$cpu" | head -n 1)"
sockets="$(sed -n 's/^Socket(s): *//p' <<< "$cpu" | head -n 1)"
cores="$(sed -n 's/^Core(s) per socket: *//p' <<< "$cpu" | head -n 1)"
echo "Machine: ${model:-unknown CPU}, $((${sockets:-1} * ${cores:-0})) cores," \
  "$(nproc --all) hardware threads; $("$cxx" --version | head -n 1)" \
  "${optflags[*]};" \
  "$("$ksc" --version 2>&1 | sed -n 's/^ *//; /./{p;q;}')"
echo

python3 "$here/cpu_bench_tables.py" "$work/results.json" "$work/warp.json"
