#!/bin/sh
# Runs a command ($2...) with its address space limited to $1 KiB.
ulimit -v "$1" || exit 1
shift
exec "$@"
