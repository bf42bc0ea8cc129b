# What the benchmark scripts of utils/bench share; they source it after
# `set -euo pipefail`. Builds ksc (utils/setup.sh) and sets:
#   here     utils/bench          root     the repository
#   build    ksc's build tree     ksc      its ksc binary
#   runtime  the runtime header's directory (ksc --print-runtime-dir)
#   cxx      the host C++ compiler ($CXX, else c++)
#   work     a temporary directory, removed when the script exits
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(bash "$root/utils/setup.sh")"
ksc="$build/bin/ksc"
runtime="$("$ksc" --print-runtime-dir)"
cxx="${CXX:-c++}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
