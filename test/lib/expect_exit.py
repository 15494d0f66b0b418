"""Runs a command and succeeds only if it exits with the given status.

usage: expect_exit.py STATUS CMD [ARGS...]   (stdout and stderr pass through)
"""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write("expected exit status %d, got %d: %s\n" % (want, got, " ".join(sys.argv[2:])))
    sys.exit(1)
