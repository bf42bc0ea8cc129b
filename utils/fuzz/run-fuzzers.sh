#!/usr/bin/env bash
# Runs ksc's libFuzzer targets (tools/fuzz) for SECONDS each (default 60),
# in the sanitizer build of utils/sanitize.sh, which it builds first.
#   utils/fuzz/run-fuzzers.sh [SECONDS] [TARGET...]
# TARGET: compile (ksc-fuzz-compile: kernel files through the frontend and
# every form ksc prints), inputs (ksc-fuzz-inputs: ksc-run's JSON input
# reader) or bundle (ksc-fuzz-bundle: the case manifests of ksc-replay's
# bundles); all when none is named. Each starts from the test suite's kernel
# files, JSON files or bundle cases (test/Fuzz/Inputs/bundle; the seeds) and
# from the corpus its earlier runs kept in
# BUILD/fuzz/TARGET/corpus. A crash, a sanitizer report, a leak, running out of
# memory (4 GiB) or a hang (an input taking over 60 s) stops the target: the
# script then exits 1 and names the input it saved (BUILD/fuzz/TARGET/crash-*,
# leak-*, oom-*, timeout-*); docs/testing.md says how to make it a regression
# test. KSC_SANITIZE_BUILD_DIR is the build directory, as for sanitize.sh;
# KSC_FUZZ_FORMS limits the forms ksc-fuzz-compile makes (a ksc-synth --forms
# list).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${KSC_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
seconds="${1:-60}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(compile inputs bundle)
fi

KSC_SANITIZE_BUILD_DIR="$build" "$root/utils/sanitize.sh" --build

# As test/lit.cfg.py: LLVM's allocators poison memory from inlined header code
# that Debian's uninstrumented libraries never unpoison.
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
version="$(head -n 1 "$root/llvm-project.version")"
export ASAN_SYMBOLIZER_PATH="/usr/lib/llvm-${version%%.*}/bin/llvm-symbolizer"

# Copies the seed files (test and example files ending in $1, at most 16 KiB)
# into the directory $2, named by their paths.
seed() {
  rm -rf "$2"
  mkdir -p "$2"
  (cd "$root" && find test examples -name "*$1" -size -16k -type f) |
    while read -r file; do
      cp "$root/$file" "$2/${file//\//_}"
    done
}

failed=0
for target in "${targets[@]}"; do
  case "$target" in
    compile) suffix=.kdsl ;;
    inputs) suffix=.json ;;
    bundle) suffix=bundle ;;
    *) echo "run-fuzzers.sh: unknown target '$target' (compile, inputs, bundle)" >&2
       exit 2 ;;
  esac
  dir="$build/fuzz/$target"
  mkdir -p "$dir/corpus"
  if [ "$suffix" = bundle ]; then
    rm -rf "$dir/seeds" && cp -r "$root/test/Fuzz/Inputs/bundle" "$dir/seeds"
  else
    seed "$suffix" "$dir/seeds"
  fi
  echo "== ksc-fuzz-$target, $seconds s" >&2
  # New inputs go to the first corpus directory; the seeds stay as they are.
  if "$build/bin/ksc-fuzz-$target" "$dir/corpus" "$dir/seeds" \
       -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
       -print_final_stats=1 -artifact_prefix="$dir/" 2>"$dir/log.txt"; then
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|DONE" \
      "$dir/log.txt" >&2 || true
  else
    failed=1
    tail -n 60 "$dir/log.txt" >&2
    echo "run-fuzzers.sh: ksc-fuzz-$target found a bug; its input:" >&2
    ls "$dir"/crash-* "$dir"/leak-* "$dir"/oom-* "$dir"/timeout-* 2>/dev/null >&2 ||
      true
  fi
done
exit "$failed"
