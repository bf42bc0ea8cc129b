"""Runs a command while holding an advisory write lock (fcntl, as LLVM's
sys::fs::tryLockFile takes) on a file: `hold-lock.py FILE COMMAND...`.
Exits with the command's status."""
import fcntl
import subprocess
import sys

with open(sys.argv[1], "a") as held:
    fcntl.lockf(held, fcntl.LOCK_EX)
    sys.exit(subprocess.call(sys.argv[2:]))
