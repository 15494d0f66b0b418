#!/usr/bin/env python3
"""Blobs. (1) Every type the suite's inputs spell (the RUN lines of
test/desc and test/tools, the valid types of test/grammar, examples/) goes
through `layoutc blob` and `describe --blob` to the same canonical type and
hash. (2) Hand-made bad blobs (truncated, bad magic, bad version, an enum
out of range, an oversized count, trailing bytes) are errors at the right
byte offset with exit status 1."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

src = sys.argv[1]
tmp = tempfile.mkdtemp()
blob = os.path.join(tmp, "t.bin")


def run(*args):
    return subprocess.run(["layoutc", *args], capture_output=True, text=True)


types = set()
files = glob.glob(f"{src}/test/desc/*.test") + glob.glob(f"{src}/test/tools/*.test") + \
    glob.glob(f"{src}/test/grammar/*") + glob.glob(f"{src}/examples/**/*", recursive=True)
for f in files:
    if os.path.isfile(f):
        for m in re.finditer(r"tensor<[^'\n]*>", open(f, errors="replace").read()):
            types.add(m.group(0))
ok = fail = 0
for t in sorted(types):
    d = run("describe", "--json", t)
    if d.returncode:
        continue  # not a valid type (or not one whole type)
    want = json.loads(d.stdout)
    if run("blob", t, "-o", blob).returncode:
        print("blob failed:", t)
        fail += 1
        continue
    got = run("describe", "--blob", blob, "--json")
    if got.returncode or json.loads(got.stdout) != want:
        print("round trip differs:", t, got.stderr.strip())
        fail += 1
    else:
        ok += 1
print(f"round trips: {ok} types, {fail} failures")

run("blob", "tensor<4x6xf32, csr<nnz: 5, index: i32, pointer: i32>>", "-o", blob)
good = open(blob, "rb").read()
# Layout: "LYTB", version (1 byte), element name (8-byte length + bytes),
# rank (1 byte), dims (8 bytes each), memory space kind (1 byte), layout kind (1 byte), ...
rank_at = 5 + 8 + 3
kind_at = rank_at + 1 + 2 * 8 + 1
bad = {
    "truncated": good[:-3],
    "magic": b"XYTB" + good[4:],
    "version": good[:4] + b"\x09" + good[5:],
    "enum": good[:kind_at] + b"\x07" + good[kind_at + 1:],
    "count": good[:rank_at] + b"\x40" + good[rank_at + 1:],
    "trailing": good + b"\x00",
    "noncanonical": good[:-9] + b"\x06" + good[-8:],
}
for name, data in bad.items():
    open(blob, "wb").write(data)
    r = run("describe", "--blob", blob)
    m = re.search(r"byte (\d+): (.*)", r.stderr)
    print(f"{name}: exit {r.returncode}: byte {m.group(1) if m else '?'}: {m.group(2) if m else r.stderr.strip()}")
print(f"offsets: rank {rank_at}, kind {kind_at}, end {len(good)}")
