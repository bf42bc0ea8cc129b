#!/bin/sh
# A host compiler for ksc-run's tests: appends its arguments to $CXX_LOG,
# fails a kernel's compilation that uses a precompiled header when
# $FAIL_WITH_PCH is set, fails every compilation when $FAIL_ALL is (as
# on a full disk), and runs $REAL_CXX.
echo "$*" >> "$CXX_LOG"
if [ -n "$FAIL_ALL" ] && [ "$1" != --version ]; then
  echo "made to fail: No space left on device" >&2
  exit 1
fi
case "$*" in
*ksc-pch-*.so.tmp*)
  if [ -n "$FAIL_WITH_PCH" ]; then
    echo "made to fail with the precompiled header" >&2
    exit 1
  fi ;;
esac
exec "$REAL_CXX" "$@"
