"""End-to-end check of --legalize-reshapes: random reshapes, transposes,
slices and broadcasts of random layouts, one op per chunk, are legalized;
then for every layout.view the pass produced, every element of the view
must sit at the offset the op's semantics give in the view's operand
(exhaustively, with `layoutc offset --all`). Relayouts keep logical values,
so the view's operand is where the element must come from.

usage: check_views.py SEED COUNT   (layoutc on PATH)"""
import random
import re
import subprocess
import sys

LAYOUTS = {
    2: ['"ab"', '"ba"', '"Ab8a"', '"aB4b"', "tiled_layout<<0,1>,(2,2)>", "S"],
    3: ['"abc"', '"acb"', '"cba"', '"aBc4b"', "S"],
    4: ['"nchw"', '"nhwc"', '"nChw8c"', '"nChw16c"', '"NChw16n16c"', '"aBcd4b"', '"ABcd8a8b"', '"dcba"', "S"],
}


def strided(dims, rng):
    # Row-major with random padding on each dim, or column-major.
    st, s = [0] * len(dims), 1
    order = list(range(len(dims)))[::-1] if rng.random() < 0.7 else list(range(len(dims)))
    for d in order:
        st[d] = s
        s *= dims[d] + rng.choice([0, 0, 1, 3])
    return "strided<[%s]>" % ",".join(map(str, st))


def factorize(n, rng):
    out = []
    while n > 1 and len(out) < 4:
        d = rng.choice([d for d in range(2, n + 1) if n % d == 0])
        out.append(d)
        n //= d
    return (out + [n]) if n > 1 else (out or [1])


def random_op(rng):
    rank = rng.choice([2, 3, 4])
    dims = [rng.choice([1, 2, 3, 4, 5, 6, 8, 16, 20]) for _ in range(rank)]
    lay = rng.choice(LAYOUTS[rank])
    lay = strided(dims, rng) if lay == "S" else lay
    src = "tensor<%sxf32, %s>" % ("x".join(map(str, dims)), lay)
    kind = rng.choice(["reshape", "transpose", "slice", "broadcast"])
    info = {"kind": kind, "dims": dims}
    attrs = ""
    if kind == "reshape":
        out = factorize(eval("*".join(map(str, dims))), rng)
        if rng.random() < 0.3:  # a split or join along existing dims
            out = dims[:-2] + [dims[-2] * dims[-1]]
    elif kind == "transpose":
        perm = list(range(rank))
        rng.shuffle(perm)
        out = [dims[perm[i]] for i in range(rank)]  # MLIR: result dim i is operand dim perm[i]
        info["perm"] = perm
        attrs = " {permutation = [%s]}" % ", ".join(map(str, perm))
    elif kind == "slice":
        offs = [rng.randrange(d) for d in dims]
        sizes = [rng.randint(1, d - o) for d, o in zip(dims, offs)]
        out, info["offsets"] = sizes, offs
        attrs = " {offsets = [%s], sizes = [%s]}" % (", ".join(map(str, offs)), ", ".join(map(str, sizes)))
    else:
        out = [rng.choice([2, 3])] + [rng.choice([2, 3]) if d == 1 else d for d in dims]
    res = "tensor<%sxf32, any>" % "x".join(map(str, out))
    text = 'func.func @f(%%a: %s) -> %s {\n  %%0 = "layout.%s"(%%a)%s : (%s) -> %s\n  "func.return"(%%0) : (%s) -> ()\n}\n' % (
        src, res, kind, attrs, src, res, res)
    info["out"] = out
    return text, info


def unravel(lin, dims):
    idx = []
    for d in reversed(dims):
        idx.append(lin % d)
        lin //= d
    return idx[::-1]


def source_index(info, r):
    k, dims = info["kind"], info["dims"]
    if k == "reshape":
        lin = 0
        for x, d in zip(r, info["out"]):
            lin = lin * d + x
        return unravel(lin, dims)
    if k == "transpose":
        src = [0] * len(dims)
        for i, p in enumerate(info["perm"]):
            src[p] = r[i]
        return src
    if k == "slice":
        return [x + o for x, o in zip(r, info["offsets"])]
    lead = len(info["out"]) - len(dims)
    return [0 if dims[d] == 1 else r[d + lead] for d in range(len(dims))]


def offsets(t):
    out = subprocess.run(["layoutc", "offset", t, "--all"], capture_output=True, text=True, check=True).stdout
    return [int(x) for x in out.split()]


def main():
    rng = random.Random(int(sys.argv[1]))
    ops = [random_op(rng) for _ in range(int(sys.argv[2]))]
    text = "// -----\n".join(t for t, _ in ops)
    r = subprocess.run(["layoutc", "opt", "-", "--split-input-file", "--legalize-reshapes"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("layoutc opt failed:\n" + r.stderr)
    chunks = r.stdout.split("// -----\n")
    views = relayouts = stays = 0
    for (src_text, info), out in zip(ops, chunks):
        m = re.search(r'"layout\.view"\(%\w+\) : \((tensor<.*>)\) -> (tensor<.*>)$', out, re.M)
        if not m:
            stays += 1
            continue
        views += 1
        relayouts += out.count("layout.relayout")
        src, view = offsets(m.group(1)), offsets(m.group(2))
        sdims = info["dims"]
        for lin, off in enumerate(view):
            s = source_index(info, unravel(lin, info["out"]))
            slin = 0
            for x, d in zip(s, sdims):
                slin = slin * d + x
            if src[slin] != off:
                sys.exit("wrong view:\n%s\n->\n%s\nelement %s: view offset %d, source offset %d"
                         % (src_text, out, unravel(lin, info["out"]), off, src[slin]))
    print("checked %d views (%d after a relayout); %d ops stayed" % (views, relayouts, stays))


main()
