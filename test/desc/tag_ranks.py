"""Abstract format tags of every rank 1..16 (letters a..p) against an
independent model of oneDNN's fill_blocked: plain permutations and one
blocked dim, every element's offset compared (`layoutc offset --all`), the
printed type parsed back, and a repack from the tag to row-major checked
byte by byte against the model."""
import itertools
import os
import random
import struct
import subprocess
import sys
import tempfile

LETTERS = "abcdefghijklmnop"


def model_offsets(dims, order, block):
    """order: logical dims outermost first; block: (dim, size) or None."""
    rank = len(dims)
    bdim, bsize = block if block else (-1, 1)
    outer = [(-(-dims[d] // bsize) if d == bdim else dims[d]) for d in range(rank)]
    stride, strides = bsize, [0] * rank
    for d in reversed(order):
        strides[d] = stride
        stride *= outer[d]
    offs = []
    for idx in itertools.product(*[range(n) for n in dims]):
        o = 0
        for d in range(rank):
            if d == bdim:
                o += (idx[d] // bsize) * strides[d] + idx[d] % bsize
            else:
                o += idx[d] * strides[d]
        offs.append(o)
    return offs, stride


def tag_of(order, block):
    s = "".join((LETTERS[d].upper() if block and d == block[0] else LETTERS[d]) for d in order)
    return s + (f"{block[1]}{LETTERS[block[0]]}" if block else "")


def run(args, **kw):
    return subprocess.run(["layoutc"] + args, capture_output=True, **kw)


def main():
    rng = random.Random(16)
    cases = failures = 0
    for rank in range(1, 17):
        for variant in range(4):
            dims = [rng.choice([1, 2, 2, 3]) if rank > 10 else rng.randint(1, 4) for _ in range(rank)]
            order = list(range(rank))
            if variant == 1:
                order.reverse()
            elif variant >= 2:
                rng.shuffle(order)
            block = (rng.randrange(rank), rng.choice([2, 4])) if variant == 3 else None
            tag = tag_of(order, block)
            t = f'tensor<{"x".join(map(str, dims))}xi32, "{tag}">'
            want, alloc = model_offsets(dims, order, block)
            cases += 1
            r = run(["offset", t, "--all"], text=True)
            got = [int(x) for x in r.stdout.split()] if r.returncode == 0 else None
            if got != want:
                failures += 1
                print(f"FAIL offsets {t}: exit {r.returncode} {r.stderr.strip()[:200]}")
                continue
            d = run(["describe", t], text=True)
            canon = d.stdout.splitlines()[0] if d.returncode == 0 else ""
            d2 = run(["describe", canon], text=True)
            if d.returncode or d2.returncode or d2.stdout.splitlines()[0] != canon or "injective: true" not in d.stdout:
                failures += 1
                print(f"FAIL describe {t}: {canon} / {d.stderr.strip()[:200]}")
                continue
            # Repack to row-major: element i of the source sits at want[i].
            src = bytearray(4 * alloc)
            for i, o in enumerate(want):
                src[4 * o:4 * o + 4] = struct.pack("<i", i + 1)
            with tempfile.TemporaryDirectory() as tmp:
                fi, fo = os.path.join(tmp, "in"), os.path.join(tmp, "out")
                open(fi, "wb").write(bytes(src))
                rr = run(["repack", t, f'tensor<{"x".join(map(str, dims))}xi32>', "-i", fi, "-o", fo])
                out = open(fo, "rb").read() if rr.returncode == 0 else b""
            if out != b"".join(struct.pack("<i", i + 1) for i in range(len(want))):
                failures += 1
                print(f"FAIL repack {t}: exit {rr.returncode} {rr.stderr[:200]!r}")
    print(f"tag ranks: {cases} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
