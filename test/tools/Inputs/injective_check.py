"""Differential check of `describe`'s injective against enumeration (`offset
--all`) on random small strided and tiled layouts; injective must never be
unknown on these and must agree with the offsets."""
import random
import subprocess
import sys

rng = random.Random(int(sys.argv[1]))
cases = int(sys.argv[2])
checked = 0
for _ in range(cases):
    rank = rng.randint(1, 3)
    dims = [rng.randint(1, 6) for _ in range(rank)]
    if rng.random() < 0.6:
        strides = [rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 12, 13]) * rng.choice([1, 1, 1, -1]) for _ in range(rank)]
        if min(strides) < 0:
            strides = [abs(s) for s in strides]
        layout = "strided<[%s]>" % ",".join(map(str, strides))
    else:
        dims = [rng.randint(1, 9) for _ in range(2)]
        tile = (rng.choice([1, 2, 4]), rng.choice([1, 2, 3, 4]))
        layout = "tiled_layout<<%s>,(%d,%d)>" % (rng.choice(["0,1", "1,0"]), tile[0], tile[1])
    t = "tensor<%sxf32, %s>" % ("x".join(map(str, dims)), layout)
    d = subprocess.run(["layoutc", "describe", t], capture_output=True, text=True)
    if d.returncode != 0:
        continue
    inj = [l.split(": ")[1] for l in d.stdout.splitlines() if l.startswith("injective:")][0]
    offs = subprocess.run(["layoutc", "offset", t, "--all"], capture_output=True, text=True, check=True).stdout.split()
    want = "true" if len(set(offs)) == len(offs) else "false"
    if inj != want:
        print("MISMATCH %s: describe says %s, offsets say %s" % (t, inj, want))
        sys.exit(1)
    checked += 1
print("%d layouts agree" % checked)
