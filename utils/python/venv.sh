#!/usr/bin/env bash
# Makes the build's Python environment for ksc's Python modules and their
# tests (docs/python.md): a venv in <build>/python-venv with what
# utils/python/requirements.txt lists (nanobind, NumPy, scikit-build-core,
# JAX, Ray, DataTrove), from PyPI; with KSC_PYTHON_TORCH=1 also PyTorch (a
# download of several GB). Quick when it is there already. Prints the venv's python on
# stdout; exits 1 (after a message) when it cannot be made, e.g. without
# network, and the tests that need it are then reported unsupported.
#
#   utils/python/venv.sh [BUILD_DIR]     (default: $KSC_BUILD_DIR or build/)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-${KSC_BUILD_DIR:-$root/build}}"
venv="$build/python-venv"
requirements="$root/utils/python/requirements.txt"
stamp="$venv/ksc-requirements.txt"

wanted="$(cat "$requirements")"
if [ "${KSC_PYTHON_TORCH:-0}" = 1 ]; then
  wanted="$wanted"$'\ntorch'
fi
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] &&
   [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "$venv/bin/python"
  exit 0
fi

python="${KSC_PYTHON:-python3}"
echo "ksc: making the Python environment $venv" >&2
# The stamp is written last: a venv without it is incomplete and remade.
rm -rf "$venv"
if ! "$python" -m venv "$venv" >&2 ||
   ! printf '%s\n' "$wanted" > "$venv/requirements.txt" ||
   ! timeout 900 "$venv/bin/python" -m pip install --quiet \
       --disable-pip-version-check -r "$venv/requirements.txt" >&2; then
  rm -rf "$venv"
  echo "ksc: warning: could not make $venv (no network?); the Python" \
       "module tests will be unsupported" >&2
  exit 1
fi
printf '%s' "$wanted" > "$stamp"
echo "$venv/bin/python"
