"""Differential test of --assign-layouts against exhaustive enumeration.

Random small functions (variant ops, elementwise ops, transposes, user
relayouts, opaque ops, declared and `any` layouts, over format tags with
padding) are solved here by enumerating every assignment of the free
layouts and variants, with this file's own model of SPEC 3.6: tag geometry
(offsets, padded allocation) computed here, shared copies, transposes as
views (a declared result that differs costs a copy after the view). The
candidates are the closure of row-major and every mentioned tag under the
function's transposes, for every value of matching dims: a superset of the
pass's, so the pass must reach exactly the enumerated optimum.

Each output is then executed on real buffers with NumPy: arguments packed
into their layouts, relayouts and views carried out with the offsets
`layoutc offset --all` gives, compute ops run on logical values, and every
returned tensor compared with the input function run logically.

With --large, functions of 50 to 100 ops (beyond enumeration) must run
correctly and cost what the pass's remark says (which also reports whether
the answer is proven optimal).

usage: assign_diff.py SEED COUNT [--large]   (layoutc on PATH)"""
import itertools
import os
import random
import re
import subprocess
import sys

import numpy as np

TAGS4 = ["abcd", "acdb", "aBcd8b", "aBcd16b", "Acdb4a", "cdba"]
TAGS2 = ["ab", "ba", "Ab4a", "aB8b"]
SHAPES = [(2, 20, 3, 2), (4, 12), (12, 4)]


# --- Tag geometry (oneDNN semantics), independent of layoutc ---------------------

def parse_tag(tag):
    m = re.fullmatch(r"([a-zA-Z]+)((?:\d+[a-z])*)", tag)
    outer = m.group(1)
    blocks = [(int(n), ord(c) - 97) for n, c in re.findall(r"(\d+)([a-z])", m.group(2))]
    return [ord(c.lower()) - 97 for c in outer], blocks


def tag_geometry(tag, dims):
    """(offsets in row-major logical order, allocation in elements)."""
    order, blocks = parse_tag(tag)
    r = len(dims)
    bprod = [1] * r
    for b, d in blocks:
        bprod[d] *= b
    padded = [-(-dims[d] // bprod[d]) * bprod[d] for d in range(r)]
    # Digits, innermost first: inner blocks (last listed innermost), then outer.
    digits = []  # (dim, divisor, extent)
    inner_div = [1] * r
    for b, d in reversed(blocks):
        digits.append((d, inner_div[d], b))
        inner_div[d] *= b
    for d in reversed(order):
        digits.append((d, inner_div[d], padded[d] // inner_div[d]))
    idx = np.indices(dims).reshape(r, -1)
    off = np.zeros(idx.shape[1], dtype=np.int64)
    stride = 1
    for d, div, ext in digits:
        off += ((idx[d] // div) % ext) * stride
        stride *= ext
    return off, stride


def transpose_tag(tag, perm):
    """The tag of the transposed view (result dim i is operand dim perm[i])."""
    inv = {p: i for i, p in enumerate(perm)}
    out = []
    for ch in tag:
        if ch.isalpha():
            d = inv[ord(ch.lower()) - 97]
            out.append(chr(97 + d).upper() if ch.isupper() else chr(97 + d))
        else:
            out.append(ch)
    return "".join(out)


class Layouts:
    """Interns (dims, tag) by geometry, as layoutc interns descriptors."""

    def __init__(self):
        self.key = {}
        self.geom = {}
        self.memo = {}

    def canon(self, dims, tag):
        m = self.memo.get((tuple(dims), tag))
        if m is None:
            m = self.memo[(tuple(dims), tag)] = self.canon_new(dims, tag)
        return m

    def canon_new(self, dims, tag):
        off, alloc = tag_geometry(tag, dims)
        k = (tuple(dims), off.tobytes(), alloc)
        if k not in self.key:
            self.key[k] = (tuple(dims), tag)
            self.geom[(tuple(dims), tag)] = (off, alloc)
        return self.key[k]

    def nbytes(self, lay):
        return 4 * self.geom[lay][1]


def rm_tag(rank):
    return "abcd"[:rank]


# --- Random functions --------------------------------------------------------------

class Fn:
    def __init__(self):
        self.args = []    # (name, dims, tag or None)
        self.ops = []     # dicts
        self.rets = []    # (value, declared tag or None)
        self.dims = {}    # value -> dims


def tags_for(rank):
    return TAGS4 if rank == 4 else TAGS2


def gen(rng, idx, nops=(2, 6)):
    f = Fn()
    vals = []
    for i in range(rng.randint(1, 3)):
        dims = rng.choice(SHAPES)
        tag = rng.choice(tags_for(len(dims)) + [None, None])
        name = "a%d" % i
        f.args.append((name, dims, tag))
        f.dims[name] = dims
        vals.append(name)
    for k in range(rng.randint(*nops)):
        res = "v%d" % k
        kind = rng.choice(["variant", "variant", "elementwise", "transpose", "relayout", "opaque"])
        x = rng.choice(vals)
        dims = f.dims[x]
        op = {"kind": kind, "res": res}
        if kind == "variant":
            operands = [x] + ([rng.choice(vals)] if rng.random() < 0.4 else [])
            rdims = rng.choice([dims, dims, rng.choice(SHAPES)])
            vs = []
            for _ in range(rng.randint(1, 3)):
                lays = [rng.choice(tags_for(len(f.dims[o])) + ["any"]) for o in operands]
                lays.append(rng.choice(tags_for(len(rdims))))
                vs.append(lays + [rng.choice([0, 100, 500, 2000, 5000])])
            op.update(operands=operands, variants=vs, rdims=rdims, decl=None)
        elif kind == "elementwise":
            same = [v for v in vals if f.dims[v] == dims]
            operands = [x] + ([rng.choice(same)] if rng.random() < 0.5 else [])
            op.update(operands=operands, rdims=dims, decl=rng.choice([None] * 4 + tags_for(len(dims))[:2]))
        elif kind == "transpose":
            perm = list(range(len(dims)))
            rng.shuffle(perm)
            op.update(operands=[x], perm=perm, rdims=tuple(dims[p] for p in perm),
                      decl=rng.choice([None] * 4 + [rm_tag(len(dims))]))
        elif kind == "relayout":
            op.update(operands=[x], rdims=dims, decl=rng.choice(tags_for(len(dims)) + [None]))
        else:
            op.update(operands=[x], rdims=rng.choice(SHAPES), decl=None)
        f.ops.append(op)
        f.dims[res] = op["rdims"]
        # A relayout's result is not used further: where a choice makes a
        # relayout vanish, its uses would share its operand's copies, which
        # the pass's model counts apart (docs/passes.md, "Limits").
        if kind != "relayout":
            vals.append(res)
    results = [o["res"] for o in f.ops if o["kind"] != "relayout"]
    for k, v in enumerate(rng.sample(results, min(len(results), rng.randint(1, 2)))):
        tag = rng.choice([None, None] + tags_for(len(f.dims[v]))[:3])
        if tag:  # a declared ABI result: the user relayouts into it
            r = "r%d" % k
            f.ops.append({"kind": "relayout", "res": r, "operands": [v], "rdims": f.dims[v], "decl": tag})
            f.dims[r] = f.dims[v]
            v = r
        f.rets.append((v, tag))
    return f


def ty(dims, tag):
    lay = "any" if tag is None else '"%s"' % tag
    return "tensor<%sxf32, %s>" % ("x".join(map(str, dims)), lay)


def emit(f, name):
    decl = {a: t for a, _, t in f.args}
    for o in f.ops:
        decl[o["res"]] = o["decl"]
    out = ["func.func @%s(%s) -> (%s) {" % (
        name, ", ".join("%%%s: %s" % (a, ty(d, t)) for a, d, t in f.args),
        ", ".join(ty(f.dims[v], t) for v, t in f.rets))]
    for o in f.ops:
        ins = ", ".join("%" + x for x in o["operands"])
        itys = ", ".join(ty(f.dims[x], decl[x]) for x in o["operands"])
        rty = ty(o["rdims"], o["decl"])
        if o["kind"] in ("variant", "elementwise", "opaque"):
            attrs = '{name = "%s"' % o["kind"]
            if o["kind"] == "variant":
                attrs += ", variants = [%s]" % ", ".join(
                    "[%s, %d]" % (", ".join('"%s"' % l for l in v[:-1]), v[-1]) for v in o["variants"])
            if o["kind"] == "elementwise":
                attrs += ", elementwise = true"
            attrs += "}"
            out.append('  %%%s = "layout.op"(%s) %s : (%s) -> %s' % (o["res"], ins, attrs, itys, rty))
        elif o["kind"] == "transpose":
            out.append('  %%%s = "layout.transpose"(%s) {permutation = [%s]} : (%s) -> %s' % (
                o["res"], ins, ", ".join(map(str, o["perm"])), itys, rty))
        elif o["kind"] == "reshape":  # only assign_milp.py's functions have them
            out.append('  %%%s = "layout.reshape"(%s) : (%s) -> %s' % (o["res"], ins, itys, rty))
        else:
            out.append('  %%%s = "layout.relayout"(%s) : (%s) -> %s' % (o["res"], ins, itys, rty))
    out.append('  "func.return"(%s) : (%s) -> ()' % (
        ", ".join("%" + v for v, _ in f.rets), ", ".join(ty(f.dims[v], decl[v]) for v, _ in f.rets)))
    out.append("}")
    return "\n".join(out) + "\n"


# --- The model and exhaustive enumeration ---------------------------------------------

def candidates(f, L):
    """Per dims: row-major and every mentioned tag, closed under the transposes."""
    by_dims = {}

    def add(dims, tag):
        s = by_dims.setdefault(tuple(dims), {})
        lay = L.canon(dims, tag)
        if lay not in s.values():
            s[tag] = lay
            return True
        return False

    mentioned = set()
    for _, d, t in f.args:
        mentioned.add((len(d), t))
    for o in f.ops:
        mentioned.add((len(o["rdims"]), o["decl"]))
        for v in o.get("variants", []):
            for x, l in zip(o["operands"] + [o["res"]], v[:-1]):
                mentioned.add((len(f.dims[x]), None if l == "any" else l))
    for _, t in f.rets:
        mentioned.add((0, t))
    all_dims = set(tuple(d) for d in f.dims.values())
    for dims in all_dims:
        add(dims, rm_tag(len(dims)))
        for _, t in sorted(mentioned, key=str):
            if t and len(t.rstrip("0123456789abcdefghijklmnopqrstuvwxyz").lower()) <= len(dims) and \
                    len(parse_tag(t)[0]) == len(dims):
                add(dims, t)
    changed = True
    while changed:
        changed = False
        for o in f.ops:
            if o["kind"] != "transpose":
                continue
            src, dst = tuple(f.dims[o["operands"][0]]), tuple(o["rdims"])
            inv = [0] * len(o["perm"])
            for i, p in enumerate(o["perm"]):
                inv[p] = i
            for tag in list(by_dims.get(src, {})):
                changed |= add(dst, transpose_tag(tag, o["perm"]))
            for tag in list(by_dims.get(dst, {})):
                changed |= add(src, transpose_tag(tag, inv))
    return {d: list(s.values()) for d, s in by_dims.items()}


def cost_of(f, L, choice):
    """choice: value -> layout for free values, op index -> variant index.
    None when the choice breaks a constraint."""
    lay = {}
    need = {}  # value -> set of layouts some use needs

    def demand(v, l):
        need.setdefault(v, set()).add(l)

    for a, d, t in f.args:
        lay[a] = L.canon(d, t) if t else choice[a]
    total = 0
    for k, o in enumerate(f.ops):
        r, rd = o["res"], o["rdims"]
        if o["kind"] == "variant":
            v = o["variants"][choice[k]]
            total += v[-1]
            for x, l in zip(o["operands"], v[:-1]):
                if l != "any":
                    demand(x, L.canon(f.dims[x], l))
            lay[r] = L.canon(rd, v[-2])
        elif o["kind"] == "elementwise":
            lay[r] = L.canon(rd, o["decl"]) if o["decl"] else choice[r]
            for x in o["operands"]:
                demand(x, lay[r])
        elif o["kind"] == "transpose":
            x = o["operands"][0]
            view = L.canon(rd, transpose_tag(lay[x][1], o["perm"]))
            if o["decl"] and L.canon(rd, o["decl"]) != view:
                lay[r] = L.canon(rd, o["decl"])
                total += L.nbytes(view) + L.nbytes(lay[r])
            else:
                lay[r] = view
        elif o["kind"] == "relayout":
            lay[r] = L.canon(rd, o["decl"]) if o["decl"] else choice[r]
            demand(o["operands"][0], lay[r])
        else:
            lay[r] = choice[r]
    for v, t in f.rets:
        if t:
            demand(v, L.canon(f.dims[v], t))
    # A relayout into the layout its operand has vanishes: its uses are the
    # operand's, and share its copies.
    alias = {}
    for o in f.ops:
        if o["kind"] == "relayout" and lay[o["res"]] == lay[o["operands"][0]]:
            alias[o["res"]] = alias.get(o["operands"][0], o["operands"][0])
    for v in list(need):
        if v in alias:
            need.setdefault(alias[v], set()).update(need.pop(v))
    for v, ls in need.items():
        for l in ls:
            if l != lay[v]:
                total += L.nbytes(lay[v]) + L.nbytes(l)
    return total


def optimum(f, L, limit):
    cands = candidates(f, L)
    free = []
    for a, d, t in f.args:
        if not t:
            free.append((a, cands[tuple(d)]))
    for k, o in enumerate(f.ops):
        if o["kind"] == "variant":
            free.append((k, list(range(len(o["variants"])))))
        elif o["kind"] in ("elementwise", "relayout", "opaque") and not o["decl"]:
            free.append((o["res"], cands[tuple(o["rdims"])]))
    size = 1
    for _, opts in free:
        size *= len(opts)
    if size > limit:
        return None
    best = None
    for combo in itertools.product(*[opts for _, opts in free]):
        c = cost_of(f, L, {k: v for (k, _), v in zip(free, combo)})
        if best is None or c < best:
            best = c
    return best


# --- Executing the output on real buffers ---------------------------------------------

OFFSETS = {}


def own_geometry(t):
    """Offsets and allocation of the spellings this test meets, computed here;
    None for others (then layoutc answers)."""
    m = re.fullmatch(r'tensor<((?:\d+x)*)f32(?:, (?:"(\w+)"|strided<\[([\d,]+)\](?:, offset: (\d+))?>))?>', t)
    if not m:
        return None
    dims = [int(x) for x in m.group(1).split("x")[:-1]]
    if m.group(3):
        st = [int(x) for x in m.group(3).split(",")]
        idx = np.indices(dims).reshape(len(dims), -1)
        off = int(m.group(4) or 0) + sum(idx[d] * st[d] for d in range(len(dims)))
        return off.astype(np.int64), int(off.max()) + 1
    return tag_geometry(m.group(2) or rm_tag(len(dims)), dims)


def offsets(t):
    g = own_geometry(t)
    if g is not None:
        return g[0]
    if t not in OFFSETS:
        out = subprocess.run(["layoutc", "offset", t, "--all"], capture_output=True, text=True, check=True).stdout
        OFFSETS[t] = np.array([int(x) for x in out.split()], dtype=np.int64)
    return OFFSETS[t]


SIZES = {}


def size_bytes(t):
    g = own_geometry(t)
    if g is not None and "strided" not in t:
        return 4 * g[1]
    if t not in SIZES:
        out = subprocess.run(["layoutc", "describe", t, "--json"], capture_output=True, text=True, check=True).stdout
        SIZES[t] = int(re.search(r'"size_bytes": *(\d+)', out).group(1))
    return SIZES[t]


def dims_of(t):
    m = re.match(r"tensor<((?:\d+x)*)f32", t)
    return tuple(int(x) for x in m.group(1).split("x")[:-1])


def weights(n):
    return (np.arange(n) % 7 + 1).astype(np.float64)


def compute(name, operands, rdims):
    """The opaque ops' meaning, on logical values: every operand's elements
    count, each at its position."""
    s = sum((i + 1) * float((x.ravel() * weights(x.size)).sum()) for i, x in enumerate(operands))
    base = np.arange(int(np.prod(rdims)), dtype=np.float64).reshape(rdims) + s
    if name == "elementwise":
        for x in operands:
            if x.shape == tuple(rdims):
                base = base + x
    return base


def run_logical(f, inputs):
    env = dict(inputs)
    for o in f.ops:
        xs = [env[x] for x in o["operands"]]
        if o["kind"] == "transpose":
            env[o["res"]] = np.transpose(xs[0], o["perm"])
        elif o["kind"] == "reshape":
            env[o["res"]] = np.reshape(xs[0], o["rdims"])
        elif o["kind"] == "relayout":
            env[o["res"]] = xs[0]
        else:
            env[o["res"]] = compute(o["kind"], xs, o["rdims"])
    return [env[v] for v, _ in f.rets]


def split_types(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def func_args(line):
    """(name, type) of each '%name: type' of a 'func.func @f(...) ...' line
    (types may nest '<...>' and '(...)', and hold commas)."""
    start = line.index("(")
    depth = 0
    for end in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[end], 0)
        if depth == 0:
            break
    out = []
    for piece in split_types(line[start + 1:end]):
        name, t = piece.split(": ", 1)
        out.append((name.strip()[1:], t.strip()))
    return out


def run_physical(text, f, inputs):
    """Runs the pass's output: buffers hold the physical bytes. Returns the
    returned logical values and the output's cost."""
    lines = text.strip().split("\n")
    assert re.match(r"func\.func @\w+\(.*\{$", lines[0]), lines[0]
    env = {}
    for name, t in func_args(lines[0]):
        off = offsets(t)
        buf = np.full(int(off.max()) + 1 if off.size else 1, np.nan)
        buf[off] = inputs[name].ravel()
        env[name] = (buf, t)
    cost = 0
    rets = None
    for line in lines[1:-1]:
        m = re.match(r'\s*(?:%(\w+) = )?"([\w.]+)"\(([^)]*)\)( \{.*\})? : \((.*)\) -> (.*)$', line)
        res, op, ins, attrs, itys, rty = m.groups()
        ins = [x.strip()[1:] for x in ins.split(",") if x.strip()]
        if op == "func.return":
            rets = [env[x] for x in ins]
            break
        buf, t = env[ins[0]]
        if op == "layout.relayout":
            logical = buf[offsets(t)]
            off = offsets(rty)
            nb = np.zeros(int(off.max()) + 1 if off.size else 1)
            nb[off] = logical
            env[res] = (nb, rty)
            cost += size_bytes(t) + size_bytes(rty)
        elif op == "layout.view":
            env[res] = (buf, rty)
        elif op == "layout.op":
            name = re.search(r'name = "(\w+)"', attrs).group(1)
            if "variants" in attrs:
                cost += int(re.search(r"(\d+)\]\]", attrs).group(1))
                assert attrs.count("], [") == 0, "more than one variant left: " + line
            xs = []
            for x, xt in zip(ins, split_types(itys)):
                b, bt = env[x]
                assert bt == xt, (bt, xt)
                xs.append(b[offsets(bt)].reshape(dims_of(bt)))
            rd = dims_of(rty)
            logical = compute(name, xs, rd)
            off = offsets(rty)
            nb = np.zeros(int(off.max()) + 1 if off.size else 1)
            nb[off] = logical.ravel()
            env[res] = (nb, rty)
        else:
            raise AssertionError("op left in the output: " + line)
    return [b[offsets(t)].reshape(dims_of(t)) for b, t in rets], cost


def main_large(seed, count):
    """Functions of 50 to 100 ops, beyond enumeration: the output must run
    correctly and cost what the pass's remark says; how many answers the
    remark proves optimal is reported (the rest hit the search budget)."""
    rng = random.Random(seed)
    fs = [gen(rng, i, (50, 100)) for i in range(count)]
    text = "// -----\n".join(emit(f, "f%d" % i) for i, f in enumerate(fs))
    r = subprocess.run(["layoutc", "opt", "-", "--split-input-file", "--assign-layouts", "--debug-reasons"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("layoutc opt failed:\n" + r.stderr[:4000])
    remarks = re.findall(r"assign-layouts: total cost (\d+) .*; lower bound (\d+); (proven optimal|not proven)", r.stderr)
    outs = r.stdout.split("// -----\n")
    assert len(outs) == len(fs) == len(remarks), (len(outs), len(fs), len(remarks))
    proven = 0
    for i, (f, out, (cost, lb, how)) in enumerate(zip(fs, outs, remarks)):
        inputs = {a: np.random.default_rng(i).standard_normal(d) for a, d, _ in f.args}
        got, measured = run_physical(out, f, inputs)
        for w, g in zip(run_logical(f, inputs), got):
            if w.shape != g.shape or not np.array_equal(w, g):
                sys.exit("wrong values:\n%s\n->\n%s" % (emit(f, "f%d" % i), out))
        if measured != int(cost):
            sys.exit("output costs %d, the remark says %s" % (measured, cost))
        if int(lb) > int(cost) or (how == "proven optimal" and lb != cost):
            sys.exit("remark's bound %s against cost %s (%s)" % (lb, cost, how))
        proven += how == "proven optimal"
    print("assign-layouts on %d functions of 50-100 ops: %d proven optimal, all run correctly" % (len(fs), proven))


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    if os.environ.get("LAYOUTC_TEST_QUICK"):
        count = max(1, count // 10)
    if "--large" in sys.argv:
        return main_large(seed, count)
    rng = random.Random(seed)
    L = Layouts()
    cases = []
    while len(cases) < count:
        f = gen(rng, len(cases))
        opt = optimum(f, L, 400)
        if opt is not None:
            cases.append((f, opt))
    text = "// -----\n".join(emit(f, "f%d" % i) for i, (f, _) in enumerate(cases))
    r = subprocess.run(["layoutc", "opt", "-", "--split-input-file", "--assign-layouts"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("layoutc opt failed:\n" + r.stderr[:4000])
    outs = r.stdout.split("// -----\n")
    assert len(outs) == len(cases)
    for i, ((f, opt), out) in enumerate(zip(cases, outs)):
        inputs = {a: np.random.default_rng(i).standard_normal(d) for a, d, _ in f.args}
        want = run_logical(f, inputs)
        got, cost = run_physical(out, f, inputs)
        src = emit(f, "f%d" % i)
        if cost != opt:
            sys.exit("cost %d, but the optimum is %d:\n%s\n->\n%s" % (cost, opt, src, out))
        for w, g in zip(want, got):
            if w.shape != g.shape or not np.array_equal(w, g):
                sys.exit("wrong values:\n%s\n->\n%s" % (src, out))
        if "any>" in out:
            sys.exit("'any' left:\n" + out)
    print("assign-layouts matched the exhaustive optimum on %d functions and ran them correctly" % len(cases))


if __name__ == "__main__":
    main()
