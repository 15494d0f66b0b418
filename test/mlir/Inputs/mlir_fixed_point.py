#!/usr/bin/env python3
"""Round trips through mlir-opt: every chunk of every given .mlir file that
layoutc reads is printed with `layoutc opt --emit=mlir` (A); mlir-opt-19
--allow-unregistered-dialect must print A back unchanged (B == A), and
layoutc must read B and print A again (a fixed point). With --passes, the
same after each pass list (the passes' output goes through mlir-opt too).
Prints one line per file and a total; exit 1 on the first mismatch."""
import argparse
import difflib
import subprocess
import sys


def run(cmd, text):
    return subprocess.run(cmd, input=text, capture_output=True, text=True)


def chunks(path):
    cur = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("// -----"):
            yield "".join(cur)
            cur = []
        else:
            cur.append(line)
    yield "".join(cur)


def fail(what, a, b):
    sys.stdout.writelines(difflib.unified_diff(a.splitlines(True), b.splitlines(True), "expected", what))
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layoutc", default="layoutc")
    ap.add_argument("--mlir-opt", default="mlir-opt-19")
    ap.add_argument("--pass", dest="passes", action="append", default=[[]], type=lambda s: s.split())
    ap.add_argument("--generic", action="store_true", help="also read mlir-opt's generic form back")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    total = 0
    for path in args.files:
        n = 0
        for i, text in enumerate(chunks(path)):
            for passes in args.passes:
                a = run([args.layoutc, "opt", "--emit=mlir", *passes, "-"], text)
                if a.returncode != 0:
                    continue  # an invalid chunk (a diagnostics test) or a pass that refuses it
                b = run([args.mlir_opt, "--allow-unregistered-dialect"], a.stdout)
                if b.returncode != 0:
                    print(f"{path} chunk {i} {' '.join(passes)}: mlir-opt refused layoutc's output:\n{b.stderr}")
                    print(a.stdout)
                    sys.exit(1)
                if b.stdout != a.stdout:
                    print(f"{path} chunk {i} {' '.join(passes)}: mlir-opt printed it differently")
                    fail("mlir-opt", a.stdout, b.stdout)
                c = run([args.layoutc, "opt", "--emit=mlir", "-"], b.stdout)
                if c.returncode != 0 or c.stdout != a.stdout:
                    print(f"{path} chunk {i} {' '.join(passes)}: layoutc did not read mlir-opt's output back:\n{c.stderr}")
                    fail("layoutc", a.stdout, c.stdout)
                if not args.generic:
                    n += 1
                    continue
                g = run([args.mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic"], a.stdout)
                d = run([args.layoutc, "opt", "--emit=mlir", "-"], g.stdout)
                if d.returncode != 0 or d.stdout != a.stdout:
                    print(f"{path} chunk {i}: layoutc did not read mlir-opt's generic form back:\n{d.stderr}")
                    fail("layoutc (generic)", a.stdout, d.stdout)
                n += 1
        print(f"{path}: {n} round trips")
        total += n
    print(f"total: {total} round trips")


if __name__ == "__main__":
    main()
