#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are missing
# (with sudo when not root); quick when every one is there. The LLVM
# packages come from Debian 12's security archive: a fresh machine has no
# package lists yet, so they are updated first.
#   utils/install-packages.sh clang-22 libclang-rt-22-dev
set -euo pipefail
missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "ksc: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
  --no-install-recommends "${missing[@]}" >&2
