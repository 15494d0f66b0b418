"""The doc test: runs every `$ layoutc ...` example (and every `$ cat examples/FILE`
showing a bundled input) in README.md and
docs/*.md from the source root and compares its output (stdout and stderr,
as a terminal shows them) with the text under it in the code block.

In the expected text a line `...` (indented or not) stands for any number of
lines. An example
with no text under it must succeed (exit 0); one whose text shows an
error line (`name:line:col: error:` or `layoutc: error:`) must fail. Inputs the
examples name live in examples/.

usage: run_examples.py [--update] SRC_ROOT [FILE...]   (layoutc is found on PATH)

--update writes the output of each failing example that exits as its text
says it should into the document, under the command (examples whose text
uses `...` are left for a person to edit); review the diff before keeping it."""
import glob
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import tempfile
import time


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


# Written to the terminal by this script once the command has exited: the
# output is complete when it comes back out of the master side. Waiting for
# EIO instead loses output, because Linux may report the slave closed before
# the last bytes the command wrote reach the master.
END = b"\x1b[doctest-end]"


def run(cmd, cwd, env):
    """Runs cmd on a terminal, so stdout and stderr interleave as a user sees
    them; returns (status, lines)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    out, status, deadline = b"", None, time.monotonic() + 300
    while not out.endswith(END):
        if status is None and time.monotonic() > deadline:
            p.kill()
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            out += os.read(master, 65536)
        elif status is None and p.poll() is not None:
            status = p.returncode
            os.write(slave, END)
    os.close(slave)
    os.close(master)
    lines = out[:-len(END)].decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return status, lines


def update(path, fixes):
    """Replaces the expected lines of examples in path: fixes holds
    (line number of the command, old line count, new lines)."""
    lines = open(path).read().split("\n")
    for lineno, old, new in sorted(fixes, reverse=True):
        end = lineno - 1 + cmd_lines(lines, lineno - 1)
        lines[end:end + old] = new
    open(path, "w").write("\n".join(lines))


def cmd_lines(lines, i):
    """How many lines the command starting at index i spans."""
    cmd, n = lines[i][2:], 1
    while True:
        try:
            shlex.split(cmd, comments=True)
            return n
        except ValueError:
            cmd += "\n" + lines[i + n]
            n += 1


def main():
    args = sys.argv[1:]
    do_update = bool(args) and args[0] == "--update"
    args = args[1:] if do_update else args
    root = args[0]
    files = args[1:] or [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    env = dict(os.environ, COLUMNS="200")
    # Examples run in a scratch directory where examples/ is the bundled one:
    # what they write (out.bin, out.mlir) stays out of the source tree.
    work = tempfile.mkdtemp(prefix="layoutc-doctest-")
    os.symlink(os.path.join(os.path.abspath(root), "examples"), os.path.join(work, "examples"))
    failures = total = 0
    for path in files:
        fixes = []
        for lineno, cmd, want in examples(path):
            total += 1
            status, got = run(cmd, work, env)
            error_example = any(re.match(r"^(\S.*?:\d+(:\d+)?: error:|layoutc: error:)", l) for l in want)
            status_ok = (status != 0) if error_example else (status == 0)
            ok = status_ok and (not want or matches(want, got))
            if not ok and do_update and status_ok and not any(l.strip() == "..." for l in want):
                blank = 1 if want and want[-1] == "" else 0
                fixes.append((lineno, len(want) - blank, got))
                continue
            if not ok:
                failures += 1
                rel = os.path.relpath(path, root)
                print("FAIL %s:%d: $ %s\n  exit status %d\n  expected:\n%s\n  got:\n%s" % (
                    rel, lineno, cmd, status, "\n".join("    " + l for l in want),
                    "\n".join("    " + l for l in got)))
        if fixes:
            update(path, fixes)
            print("updated %d example%s in %s" % (len(fixes), "" if len(fixes) == 1 else "s", os.path.relpath(path, root)))
    print("%d examples, %d failed" % (total, failures))
    sys.exit(1 if failures else 0)


main()
