#!/bin/sh
# A host compiler that never finishes: appends its pid and that of a child
# it starts (as the driver starts cc1plus) to $PIDS, and waits for it.
case "$1" in --version) exec "$REAL_CXX" "$@";; esac
# (Under timeout(1): a shell's background job ignores SIGINT, a
# compiler's child does not.)
echo $$ >> "$PIDS"
timeout --foreground 60 sleep 60 &
echo $! >> "$PIDS"
wait
