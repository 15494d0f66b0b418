#!/usr/bin/env python3
"""Regenerates the seed corpora of the fuzz targets:
  corpus/type/   one file per distinct `tensor<...>` found in the lit tests
                 (*.test, *.lyt, *.types) and docs/*.md, plus the split chunks
                 of the .lyt files;
  corpus/alloc/  the same types behind a two-byte allocation-site number;
  corpus/views/  fixed pseudo-random byte strings (the target turns any bytes
                 into a valid type and a chain of views).
Files are named by content hash, so reruns are stable and only add what is
new (pass --clean to drop stale seeds first).

usage: fuzz/make_corpus.py [--clean] [--max N]"""
import hashlib
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
PATTERNS = (".test", ".lyt", ".types")


def sources():
    for d, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in sorted(files):
            if f.endswith(PATTERNS):
                yield os.path.join(d, f)
    docs = os.path.join(ROOT, "docs")
    for f in sorted(os.listdir(docs)):
        if f.endswith(".md"):
            yield os.path.join(docs, f)


def extract(text):
    """Each `tensor<` up to its matching `>` on the same line, skipping
    brackets inside strings. Shell-escaped quotes (\\") are unescaped."""
    text = text.replace('\\"', '"')
    for m in re.finditer(r"tensor<", text):
        depth, i, in_str = 0, m.start() + len("tensor"), False
        while i < len(text) and text[i] != "\n":
            c = text[i]
            if c == '"':
                in_str = not in_str
            elif not in_str and c == "<":
                depth += 1
            elif not in_str and c == ">":
                depth -= 1
                if depth == 0:
                    yield text[m.start():i + 1]
                    break
            i += 1


def chunks(text):
    """The `// -----` chunks of a split-input file, comments stripped."""
    for chunk in re.split(r"^// -----\s*$", text, flags=re.M):
        body = "\n".join(l for l in chunk.splitlines() if not l.lstrip().startswith("//")).strip()
        if body and len(body) < 4096:
            yield body


def main():
    clean = "--clean" in sys.argv
    limit = int(sys.argv[sys.argv.index("--max") + 1]) if "--max" in sys.argv else 400
    seeds = {}
    for path in sources():
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        found = list(extract(text))
        if path.endswith(".lyt"):
            found += list(chunks(text))
        for s in found:
            if len(s) < 4096:
                seeds.setdefault(s, path)
    # Shortest first: when over the limit, the short (more general) seeds stay.
    kept = sorted(seeds, key=lambda s: (len(s), s))[:limit]
    write("type", [s.encode() for s in kept], clean)
    # Allocation sites 1, 2, 3, ... spread over the types (the target wraps n).
    write("alloc", [bytes([i * 7 % 256, 0]) + s.encode() for i, s in enumerate(kept[::3])], clean)
    rng = random.Random(20240601)
    write("views", [bytes(rng.randrange(256) for _ in range(rng.choice([16, 32, 48, 64, 96])))
                    for _ in range(48)], clean)
    print(f"{len(seeds)} distinct types found, {len(kept)} written")


def write(name, seeds, clean):
    out = os.path.join(CORPUS, name)
    os.makedirs(out, exist_ok=True)
    if clean:
        for f in os.listdir(out):
            os.remove(os.path.join(out, f))
    for s in seeds:
        with open(os.path.join(out, hashlib.sha1(s).hexdigest()[:16]), "wb") as f:
            f.write(s)


if __name__ == "__main__":
    main()
