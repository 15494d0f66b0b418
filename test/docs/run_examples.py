"""The doc test: runs every `$ layoutc ...` example (and every `$ cat examples/FILE`
showing a bundled input) in README.md and
docs/*.md from the source root and compares its output (stdout and stderr,
as a terminal shows them) with the text under it in the code block.

In the expected text a line `...` (indented or not) stands for any number of
lines. An example
with no text under it must succeed (exit 0); one whose text shows an
error line (`name:line:col: error:` or `layoutc: error:`) must fail. Inputs the
examples name live in examples/.

usage: run_examples.py SRC_ROOT [FILE...]   (layoutc is found on PATH)"""
import glob
import os
import pty
import re
import shlex
import subprocess
import sys
import tempfile


def examples(path):
    """Yields (line number, command, expected lines) for each example."""
    lines = open(path).read().split("\n")
    i, in_block = 0, False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_block = not in_block
            i += 1
            continue
        if not (in_block and (line.startswith("$ layoutc") or line.startswith("$ cat examples/"))):
            i += 1
            continue
        start, cmd = i + 1, line[2:]
        while True:  # a quote left open continues on the next line
            try:
                shlex.split(cmd, comments=True)
                break
            except ValueError:
                i += 1
                cmd += "\n" + lines[i]
        i += 1
        out = []
        while i < len(lines) and not lines[i].startswith("```") and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        yield start, cmd, out


def matches(want, got):
    """want's lines against got's, `...` matching any run of lines."""
    if not want:
        return not got
    if want[0].strip() == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0].rstrip() == got[0].rstrip() and matches(want[1:], got[1:])


def run(cmd, cwd, env):
    """Runs cmd on a terminal, so stdout and stderr interleave as a user sees
    them; returns (status, lines)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    status = p.wait(timeout=300)
    lines = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return status, lines


def main():
    root = sys.argv[1]
    files = sys.argv[2:] or [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    env = dict(os.environ, COLUMNS="200")
    # Examples run in a scratch directory where examples/ is the bundled one:
    # what they write (out.bin, out.mlir) stays out of the source tree.
    work = tempfile.mkdtemp(prefix="layoutc-doctest-")
    os.symlink(os.path.join(os.path.abspath(root), "examples"), os.path.join(work, "examples"))
    failures = total = 0
    for path in files:
        for lineno, cmd, want in examples(path):
            total += 1
            status, got = run(cmd, work, env)
            error_example = any(re.match(r"^(\S.*?:\d+(:\d+)?: error:|layoutc: error:)", l) for l in want)
            ok = (status != 0) if error_example else (status == 0)
            ok = ok and (not want or matches(want, got))
            if not ok:
                failures += 1
                rel = os.path.relpath(path, root)
                print("FAIL %s:%d: $ %s\n  exit status %d\n  expected:\n%s\n  got:\n%s" % (
                    rel, lineno, cmd, status, "\n".join("    " + l for l in want),
                    "\n".join("    " + l for l in got)))
    print("%d examples, %d failed" % (total, failures))
    sys.exit(1 if failures else 0)


main()
