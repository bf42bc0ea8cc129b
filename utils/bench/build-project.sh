#!/usr/bin/env bash
# Incremental-build cost of a CMake project that uses ksc_add_kernels(): the
# wall time of a cold build and of the rebuilds after typical edits, with
# the number of ksc runs and C++ compiles Ninja did for each, as a Markdown
# table.
#
#   utils/bench/build-project.sh [-n N] [BUILD_DIR [WORK_DIR]]
#
# Installs ksc from BUILD_DIR (default: build/ of this repository) into
# WORK_DIR/prefix with `cmake --install`, generates a project of N (default
# 50, or $N) kernel files k_<i>.kdsl that all include common/shared.h (which
# defines shared_fn) and a main.cpp that calls every launcher once and prints
# a checksum, configures it (Ninja, Release) and times:
#   cold             `cmake --build` from nothing;
#   no-op            `ninja` with nothing changed;
#   one kernel       `ninja` after a real edit of k_0.kdsl (one ksc run, one
#                    compile and the link expected);
#   touch helper     `ninja` after `touch common/shared.h`: ksc reruns on all
#                    N files, writes nothing new, and Ninja's restat skips
#                    every C++ compile;
#   edit helper      `ninja` after a real edit of shared_fn: all N regenerate
#                    and recompile.
# For reference it also times one standalone ksc run and one `g++ -O2 -c` of
# one generated file. WORK_DIR defaults to a temporary directory, removed at
# the end unless KEEP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${N:-50}"
if [[ "${1:-}" == "-n" ]]; then
  n="$2"
  shift 2
fi
build="$(cd "${1:-$root/build}" && pwd)"
if [[ -n "${2:-}" ]]; then
  mkdir -p "$2"
  work="$(cd "$2" && pwd)"
else
  work="$(mktemp -d)"
fi
if [[ "${KEEP:-0}" != 1 ]]; then
  trap 'rm -rf "$work"' EXIT
fi

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
ksc="$work/prefix/bin/ksc"
src="$work/project"
bin="$work/project-build"
rm -rf "$src" "$bin"
mkdir -p "$src/common" "$src/kernels"

# The project.
cat > "$src/common/shared.h" <<'EOF'
// Included by every kernel file.
#pragma once
KSC_FUNC float shared_fn(float a, float x) {
  return a * x + 0.25f * x * x;
}
EOF
{
  echo '#include <cstdio>'
  echo '#include <vector>'
  for ((i = 0; i < n; i++)); do echo "#include \"k_$i.kdsl.h\""; done
  echo 'int main() {'
  echo '  const int m = 64;'
  echo '  std::vector<float> x(m), y(m, 1.0f);'
  echo '  for (int i = 0; i < m; ++i) x[i] = 0.01f * float(i);'
  echo '  ksc::array<const float> cx(x.data(), m);'
  echo '  ksc::array<float> vy(y.data(), m);'
  for ((i = 0; i < n; i++)); do
    echo "  bench::launch_k_$i(m, 0.5f, cx, vy);"
  done
  echo '  double sum = 0;'
  echo '  for (float v : y) sum += v;'
  # shellcheck disable=SC2028 # a C++ "\n", written as it is
  echo '  std::printf("checksum %.9g\n", sum);'
  echo '}'
} > "$src/main.cpp"
sources=""
for ((i = 0; i < n; i++)); do
  cat > "$src/kernels/k_$i.kdsl" <<EOF
#include "shared.h"
KSC_KERNEL void k_$i(float a, array<const float> x, array<float> y) {
  int i = tid();
  float t = shared_fn(a, x[i]) * 0.5f + $i.0f * 0.001f;
  y[i] = t * x[i] + 0.999f * y[i];
}
EOF
  sources+=" kernels/k_$i.kdsl"
done
cat > "$src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(ksc_build_bench LANGUAGES CXX)
find_package(ksc REQUIRED)
add_executable(app main.cpp)
ksc_add_kernels(app SOURCES$sources NAMESPACE bench
                INCLUDE_DIRECTORIES common)
EOF

# step NAME COMMAND...: runs COMMAND, and adds a row with its wall time and
# the ksc runs and C++ compiles in its output.
rows=""
step() {
  local name="$1" start end log="$work/step.log"
  shift
  start="$(date +%s.%N)"
  "$@" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
  end="$(date +%s.%N)"
  rows+="$(awk -v s="$start" -v e="$end" -v n="$name" \
    -v k="$(grep -c 'Compiling kernels' "$log" || true)" \
    -v c="$(grep -c 'Building CXX object' "$log" || true)" \
    'BEGIN { printf "| %s | %.2f | %d | %d |", n, e - s, k, c }')"$'\n'
}

cmake -S "$src" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
step "cold build (\`cmake --build\`)" cmake --build "$bin"
echo "after the cold build:  $("$bin/app")"
step "no-op rebuild" ninja -C "$bin"
sed -i 's/\* 0\.5f/* 0.75f/' "$src/kernels/k_0.kdsl"
step "one kernel file edited" ninja -C "$bin"
echo "after editing k_0:     $("$bin/app")"
touch "$src/common/shared.h"
step "shared helper touched, unchanged" ninja -C "$bin"
sed -i 's/0\.25f/0.125f/' "$src/common/shared.h"
step "shared helper edited" ninja -C "$bin"
echo "after editing shared:  $("$bin/app")"

# For reference: one ksc run and one compile of its output, by hand.
one="$work/one"
mkdir -p "$one"
start="$(date +%s.%N)"
"$ksc" "$src/kernels/k_1.kdsl" -I "$src/common" -o "$one/k_1.cpp" \
  --emit-header="$one/k_1.h" --namespace=bench
mid="$(date +%s.%N)"
g++ -O2 -std=c++17 -I "$("$ksc" --print-runtime-dir)" -c "$one/k_1.cpp" \
  -o "$one/k_1.o"
end="$(date +%s.%N)"
rows+="$(awk -v s="$start" -v e="$mid" \
  'BEGIN { printf "| standalone ksc (one file) | %.2f | 1 | 0 |", e - s }')"$'\n'
rows+="$(awk -v s="$mid" -v e="$end" \
  'BEGIN { printf "| standalone g++ -O2 -c (one generated file) | %.2f | 0 | 1 |", e - s }')"$'\n'

echo
echo "$n kernel files, CMake $(cmake --version | head -n 1 | awk '{print $3}')," \
  "Ninja $(ninja --version), $("$ksc" --version | head -n 1)"
echo "Machine: $(nproc) CPUs, $(grep -m 1 'model name' /proc/cpuinfo |
  sed 's/.*: //')"
echo
echo "| step | wall s | ksc runs | C++ compiles |"
echo "|---|---:|---:|---:|"
printf '%s' "$rows"
if [[ "${KEEP:-0}" == 1 ]]; then
  echo
  echo "Kept $work"
fi
