"""assign-layouts against an independent exact solver, on functions of 50-100 ops.

Random functions of three families (ResNet-like: convolutions with blocked,
channels-last and plain variants, residual additions, pooling, a flatten and
a fully connected layer; transformer-like: projections with plain,
transposed and blocked weights, heads reshaped and transposed, attention
matmuls that read the views or contiguous copies, layer norms; and the
random DAGs of assign_diff.py) go through `layoutc opt --assign-layouts
--dump-pbqp=FILE`. For each function, from the dumped PBQP alone:

- the instance is solved exactly as a MILP with scipy.optimize.milp (HiGHS):
  a binary x[i,a] per node and finite choice, sum_a x[i,a] = 1, and a
  variable y[e,a,b] per finite entry of each edge matrix with
  sum_b y[e,a,b] = x[u,a] and sum_a y[e,a,b] = x[v,b] (for integral x the
  only solution is y = x_u x_v^T, so y need not be integral); infinite
  entries have no variable. The MILP must report optimality with no gap;
  its selection is re-priced here with integers;
- the pass's selection, priced here, must cost what the pass says; that cost
  must be at most 1% above the MILP optimum, and exactly the optimum when
  the pass says "proven-optimal"; its lower bound must not exceed it.

And to tie the dump to the real output: the output is executed on NumPy
buffers (assign_diff.py's machinery: arguments packed into their layouts,
relayouts and views carried out element by element) and must return the
same tensors as the input run logically; the bytes of its relayouts plus
its variants' costs must equal the dumped cost; each value node's chosen
layout must be the value's type in the output and each variant node's
choice the variant the output keeps.

usage: assign_milp.py SEED COUNT   (layoutc on PATH; LAYOUTC_MILP_CASES=N
runs N functions instead, LAYOUTC_TEST_QUICK a tenth)"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assign_diff as D  # noqa: E402

INF = None  # an infinite cost in the dump ("inf")


# --- Functions of 50-100 ops ---------------------------------------------------------

class Builder:
    """Appends ops to an assign_diff.Fn; values are named v0, v1, ..."""

    def __init__(self, rng):
        self.f = D.Fn()
        self.rng = rng
        self.n = 0
        self.weights = {}  # dims -> weight args of those dims (for sharing)

    def arg(self, dims, tag):
        name = "a%d" % len(self.f.args)
        self.f.args.append((name, tuple(dims), tag))
        self.f.dims[name] = tuple(dims)
        return name

    def weight(self, dims, tags):
        """A weight argument, sometimes one already used (a shared value)."""
        same = self.weights.setdefault(tuple(dims), [])
        if same and self.rng.random() < 0.3:
            return self.rng.choice(same)
        w = self.arg(dims, self.rng.choice(tags))
        same.append(w)
        return w

    def op(self, kind, operands, rdims, **kw):
        res = "v%d" % self.n
        self.n += 1
        o = {"kind": kind, "res": res, "operands": list(operands), "rdims": tuple(rdims), "decl": None}
        o.update(kw)
        self.f.ops.append(o)
        self.f.dims[res] = tuple(rdims)
        return res

    def variant(self, operands, rdims, variants):
        """variants: (operand layouts..., result layout, cost); a random
        non-empty subset is kept, in random order."""
        vs = [v for v in variants if self.rng.random() < 0.85] or [self.rng.choice(variants)]
        self.rng.shuffle(vs)
        return self.op("variant", operands, rdims, variants=[list(v[:-1]) + [int(v[-1])] for v in vs])

    def elementwise(self, operands, decl=None):
        return self.op("elementwise", operands, self.f.dims[operands[0]], decl=decl)

    def ret(self, v, tags):
        """Returns v; sometimes in a declared layout (the user relayouts into it)."""
        tag = self.rng.choice([None, None] + tags)
        if tag:
            r = self.op("relayout", [v], self.f.dims[v], decl=tag)
            v = r
        self.f.rets.append((v, tag))

    def jitter(self, x):
        return max(1, int(x * self.rng.uniform(0.7, 1.3)))


ACT4 = ["aBcd8b", "acdb", "abcd"]        # nChw8c, nhwc, nchw
WEI4 = ["ABcd8b8a", "cdba", "abcd"]      # OIhw8i8o, hwio, oihw


def conv(b, x, o, k, stride=1):
    _, c, h, w = b.f.dims[x]
    wt = b.weight((o, c, k, k), ["abcd", "abcd", None])
    ho, wo = -(-h // stride), -(-w // stride)
    macs = o * ho * wo * c * k * k
    rd = (1, o, ho, wo)
    v = [(ACT4[0], WEI4[0], ACT4[0], b.jitter(macs / 8)),
         (ACT4[1], WEI4[1], ACT4[1], b.jitter(macs / (7 if k == 1 else 5))),
         (ACT4[2], WEI4[2], ACT4[2], b.jitter(macs / 2))]
    if b.rng.random() < 0.2:  # plain source, blocked destination (oneDNN's first convolution)
        v.append(("abcd", "Acdb8a", "aBcd8b", b.jitter(macs / 7)))
    return b.variant([x, wt], rd, v)


def gen_resnet(rng, target):
    b = Builder(rng)
    c = rng.choice([3, 4, 8])
    h = rng.choice([4, 6, 8])
    x = b.arg((1, c, h, h), rng.choice(["abcd", "abcd", None, "acdb"]))
    x = conv(b, x, rng.choice([8, 12, 16]), 3)
    x = b.elementwise([x])
    while len(b.f.ops) + 9 + 5 <= target:  # a block (up to 9 ops) and the head (up to 5) fit
        _, c, h, _ = b.f.dims[x]
        r = rng.random()
        if r < 0.15 and h > 2:  # pooling
            x = b.variant([x], (1, c, h // 2, h // 2),
                          [(t, t, b.jitter(c * h * h / k)) for t, k in zip(ACT4, (8, 6, 3))])
        elif r < 0.25:  # a detour through a channels-last view
            t = b.op("transpose", [x], (1, h, h, c), perm=[0, 2, 3, 1])
            t = b.elementwise([t])
            x = b.op("transpose", [t], (1, c, h, h), perm=[0, 3, 1, 2])
        else:  # a bottleneck block with its shortcut
            o = rng.choice([c, c, 8, 16, 20])
            mid = rng.choice([4, 8, o])
            y = b.elementwise([conv(b, x, mid, 1)])
            y = b.elementwise([conv(b, y, mid, 3)])
            y = conv(b, y, o, 1)
            s = x if o == c and rng.random() < 0.8 else conv(b, x, o, 1)
            x = b.elementwise([b.elementwise([y, s])])
            if rng.random() < 0.3:  # a side output (a value with more uses)
                b.ret(x, ["abcd", "aBcd8b"])
    while len(b.f.ops) + 2 < target:  # the head has 2 to 4 ops
        x = b.elementwise([x])
    _, c, h, _ = b.f.dims[x]
    if rng.random() < 0.5:
        x = b.op("transpose", [x], (1, h, h, c), perm=[0, 2, 3, 1])
    flat = b.op("reshape", [x], (1, c * h * h))
    k = rng.choice([8, 10])
    wt = b.weight((k, c * h * h), ["ab", "ab", None])
    macs = k * c * h * h
    y = b.variant([flat, wt], (1, k), [("ab", "ab", "ab", b.jitter(macs / 2)),
                                       ("ab", "ba", "ab", b.jitter(macs / 4)),
                                       ("ab", "Ab8a", "ab", b.jitter(macs / 6))])
    b.ret(y, ["ab"])
    return b.f


def proj(b, x, n):
    s, d = b.f.dims[x]
    wt = b.weight((d, n), ["ab", "ab", None])
    macs = s * d * n
    return b.variant([x, wt], (s, n), [("ab", "ab", "ab", b.jitter(macs / 2)),
                                       ("ab", "ba", "ab", b.jitter(macs / 3)),
                                       ("ab", "aB8b", "ab", b.jitter(macs / 5)),
                                       ("ba", "ab", "ab", b.jitter(macs / 2.5)),
                                       ("ab", "ab", "ba", b.jitter(macs / 2.2))])


def layer_norm(b, x):
    s, d = b.f.dims[x]
    return b.variant([x], (s, d), [("ab", "ab", b.jitter(s * d)), ("ba", "ba", b.jitter(s * d * 1.2)),
                                   ("ab", "ba", b.jitter(s * d * 1.5))])


def gen_transformer(rng, target):
    b = Builder(rng)
    s, heads = rng.choice([8, 12]), rng.choice([2, 4])
    d = heads * rng.choice([4, 6, 8])
    dh = d // heads
    x = b.arg((s, d), rng.choice(["ab", "ab", None]))
    while len(b.f.ops) + 23 + 2 <= target:  # a layer (up to 23 ops) and the result fit
        q, k, v = proj(b, x, d), proj(b, x, d), proj(b, x, d)
        qt = b.op("transpose", [b.op("reshape", [q], (s, heads, dh))], (heads, s, dh), perm=[1, 0, 2])
        kt = b.op("transpose", [b.op("reshape", [k], (s, heads, dh))], (heads, dh, s), perm=[1, 2, 0])
        vt = b.op("transpose", [b.op("reshape", [v], (s, heads, dh))], (heads, s, dh), perm=[1, 0, 2])
        macs = heads * s * s * dh
        sc = b.variant([qt, kt], (heads, s, s), [("bac", "cab", "abc", b.jitter(macs / 2)),
                                                 ("abc", "abc", "abc", b.jitter(macs / 4)),
                                                 ("abc", "acb", "abc", b.jitter(macs / 3))])
        p = b.elementwise([sc])
        ctx = b.variant([p, vt], (heads, s, dh), [("abc", "bac", "abc", b.jitter(macs / 2)),
                                                  ("abc", "abc", "abc", b.jitter(macs / 4)),
                                                  ("abc", "abc", "bac", b.jitter(macs / 3))])
        m = b.op("reshape", [b.op("transpose", [ctx], (s, heads, dh), perm=[1, 0, 2])], (s, d))
        x = layer_norm(b, b.elementwise([proj(b, m, d), x]))
        hid = b.elementwise([proj(b, x, rng.choice([2, 4]) * d)])
        x = layer_norm(b, b.elementwise([proj(b, hid, d), x]))
        if rng.random() < 0.3:
            b.ret(x, ["ab", "ba"])
    while len(b.f.ops) < target:  # to the size asked: an elementwise tail
        x = b.elementwise([x])
    b.ret(x, ["ab", "ba"])
    return b.f


def gen(rng, i):
    target = rng.randint(50, 100)
    for _ in range(100):
        family = ("resnet", "transformer", "random")[i % 3]
        if family == "resnet":
            f = gen_resnet(rng, target)
        elif family == "transformer":
            f = gen_transformer(rng, target)
        else:
            f = D.gen(rng, i, (target, target))
        if 50 <= len(f.ops) <= 102:  # the random family adds up to two return relayouts
            return family, f
    raise AssertionError("no function of 50-100 ops")


# --- The dump ------------------------------------------------------------------------

def cost_of(tok):
    return INF if tok == "inf" else int(tok)


def parse_dump(text):
    """The instances of a --dump-pbqp file, checking its structure."""
    out, cur = [], None
    for n, line in enumerate(text.splitlines(), 1):
        w = line.split()
        where = "dump line %d: %s" % (n, line[:200])
        if w[0] == "pbqp":
            assert cur is None and w[2] == "nodes" and w[4] == "edges", where
            cur = {"name": w[1][1:], "nn": int(w[3]), "ne": int(w[5]), "nodes": [], "labels": [], "layouts": {},
                   "edges": []}
        elif w[0] == "node":
            x, k = int(w[1]), int(w[2])
            assert x == len(cur["nodes"]) and k >= 1 and (len(w) == 3 + k or w[3 + k] == ";"), where
            cur["nodes"].append([cost_of(t) for t in w[3:3 + k]])
            cur["labels"].append(line.split(" ; ", 1)[1] if " ; " in line else "")
        elif w[0] == "layout":
            x, k = int(w[1]), int(w[2])
            assert x == len(cur["nodes"]) - 1 and k < len(cur["nodes"][x]), where
            cur["layouts"][(x, k)] = line.split(" ", 3)[3]
        elif w[0] == "edge":
            u, v = int(w[1]), int(w[2])
            nu, nv = len(cur["nodes"][u]), len(cur["nodes"][v])
            assert u != v and len(w) == 3 + nu * nv, where
            cur["edges"].append((u, v, [cost_of(t) for t in w[3:]]))
        elif w[0] == "select":
            cur["select"] = [int(t) for t in w[1:]]
        elif w[0] in ("cost", "output-cost", "lower-bound"):
            cur[w[0]] = cost_of(w[1])
        elif w[0] == "status":
            cur["status"] = w[1]
        elif w[0] == "end":
            assert len(cur["nodes"]) == cur["nn"] and len(cur["edges"]) == cur["ne"], where
            assert len(cur.get("select", [])) == cur["nn"] or cur.get("status") == "infeasible", where
            out.append(cur)
            cur = None
        else:
            raise AssertionError("unexpected " + where)
    assert cur is None, "dump ends inside an instance"
    return out


def price(inst, sel):
    """The cost of a selection, with integers; None when it is infeasible."""
    total = 0
    for x, c in enumerate(inst["nodes"]):
        if c[sel[x]] is INF:
            return None
        total += c[sel[x]]
    for u, v, m in inst["edges"]:
        e = m[sel[u] * len(inst["nodes"][v]) + sel[v]]
        if e is INF:
            return None
        total += e
    return total


# --- The MILP -----------------------------------------------------------------------

def solve_milp(inst):
    """(optimum, its selection, MILP nodes): exact, or an AssertionError."""
    nodes = inst["nodes"]
    xid, cost, rows, cols, vals, lo, hi = {}, [], [], [], [], [], []
    for i, c in enumerate(nodes):
        for a, v in enumerate(c):
            if v is not INF:
                xid[i, a] = len(cost)
                cost.append(v)
    nrow = 0

    def row(entries, rhs):
        nonlocal nrow
        for col, val in entries:
            rows.append(nrow)
            cols.append(col)
            vals.append(val)
        lo.append(rhs)
        hi.append(rhs)
        nrow += 1

    for i, c in enumerate(nodes):
        row([(xid[i, a], 1) for a in range(len(c)) if (i, a) in xid], 1)
    nx = len(cost)
    for u, v, m in inst["edges"]:
        nu, nv = len(nodes[u]), len(nodes[v])
        yid = {}
        for a in range(nu):
            for b in range(nv):
                if m[a * nv + b] is not INF and (u, a) in xid and (v, b) in xid:
                    yid[a, b] = len(cost)
                    cost.append(m[a * nv + b])
        for a in range(nu):
            if (u, a) in xid:
                row([(yid[a, b], 1) for b in range(nv) if (a, b) in yid] + [(xid[u, a], -1)], 0)
        for b in range(nv):
            if (v, b) in xid:
                row([(yid[a, b], 1) for a in range(nu) if (a, b) in yid] + [(xid[v, b], -1)], 0)
    n = len(cost)
    a = coo_array((vals, (rows, cols)), shape=(nrow, n)).tocsr()
    integrality = np.zeros(n)
    integrality[:nx] = 1
    res = milp(np.array(cost, dtype=float), integrality=integrality, bounds=Bounds(0, 1),
               constraints=LinearConstraint(a, lo, hi), options={"mip_rel_gap": 0, "presolve": True})
    assert res.status == 0 and res.success, "MILP not solved to optimality: %s" % res.message
    sel = [None] * len(nodes)
    for (i, a_), col in xid.items():
        if res.x[col] > 0.5:
            assert sel[i] is None, "MILP selection not integral"
            sel[i] = a_
    assert None not in sel, "MILP selection incomplete"
    opt = price(inst, sel)
    assert opt is not None, "MILP selection infeasible"
    # Integral costs: the MILP's bound must leave no room below its solution.
    tol = 1e-6 * max(1.0, abs(opt))
    assert abs(res.fun - opt) <= tol and res.mip_dual_bound >= opt - max(tol, 0.5), \
        "MILP: objective %r, bound %r, repriced %d" % (res.fun, res.mip_dual_bound, opt)
    return opt, sel, res.mip_node_count


# --- The output ----------------------------------------------------------------------

def output_types(text):
    """value name -> type in the output text; the kept variant of each op."""
    types, kept = {}, {}
    for name, t in D.func_args(text.split("\n", 1)[0]):
        types[name] = t
    for line in text.split("\n")[1:]:
        m = re.match(r'\s*%(\w+) = "[\w.]+"\(.*\)( \{.*\})? : \(.*\) -> (.*)$', line)
        if m:
            types[m.group(1)] = m.group(3)
            if m.group(2) and "variants" in m.group(2):
                kept[m.group(1)] = m.group(2)
    return types, kept


def variants_text(v):
    return "[[%s, %d]]" % (", ".join('"%s"' % l for l in v[:-1]), v[-1])


def check_output(f, inst, out, i):
    """The dumped answer is the output: its layouts, variants and cost."""
    types, kept = output_types(out)
    variants = {o["res"]: o["variants"] for o in f.ops if o["kind"] == "variant"}
    for x, label in enumerate(inst["labels"]):
        kind, _, name = label.partition(" ")
        name = name.split(" ")[0][1:]
        k = inst["select"][x]
        if kind == "value" and name in types:
            want = inst["layouts"][(x, k)]
            assert types[name] == want, "%%%s is %s in the output, %s in the dump" % (name, types[name], want)
        elif kind == "variants":
            assert variants_text(variants[name][k]) in kept[name], \
                "%%%s keeps %s, the dump chose variant %d" % (name, kept[name], k)
    inputs = {a: np.random.default_rng(i).standard_normal(d) for a, d, _ in f.args}
    got, measured = D.run_physical(out, f, inputs)
    for w, g in zip(D.run_logical(f, inputs), got):
        assert w.shape == g.shape and np.array_equal(w, g), "wrong values"
    assert measured == inst["output-cost"] == inst["cost"], \
        "the output costs %d, the dump says %s (output-cost %s)" % (measured, inst["cost"], inst["output-cost"])


def run_pass(fs):
    """The outputs, dumped instances and seconds of one layoutc run on fs."""
    text = "// -----\n".join(D.emit(f, "f%d" % i) for i, f in enumerate(fs))
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "pbqp.txt")
        t0 = time.time()
        r = subprocess.run(["layoutc", "opt", "-", "--split-input-file", "--assign-layouts", "--dump-pbqp=" + dump],
                           input=text, capture_output=True, text=True)
        seconds = time.time() - t0
        if r.returncode != 0:
            sys.exit("layoutc opt failed:\n" + r.stderr[:4000])
        with open(dump) as fd:
            insts = parse_dump(fd.read())
    outs = r.stdout.split("// -----\n")
    assert len(outs) == len(fs) == len(insts), (len(outs), len(fs), len(insts))
    for i, inst in enumerate(insts):
        assert inst["name"] == "f%d" % i, inst["name"]
    return outs, insts, seconds


def check(f, inst, out, i):
    """The checks on one function; returns (the pass's cost, the optimum)."""
    assert price(inst, inst["select"]) == inst["cost"], \
        "the selection costs %s here, the pass says %s" % (price(inst, inst["select"]), inst["cost"])
    opt, _, _ = solve_milp(inst)
    cost = inst["cost"]
    assert cost >= opt, "the pass (%d) beats the MILP optimum (%d)" % (cost, opt)
    assert inst["lower-bound"] <= opt, "lower bound %d above the optimum %d" % (inst["lower-bound"], opt)
    assert inst["status"] in ("proven-optimal", "not-proven"), inst["status"]
    assert inst["status"] != "proven-optimal" or cost == opt, "proven optimal at %d, the optimum is %d" % (cost, opt)
    assert 100 * cost <= 101 * opt, "cost %d is more than 1%% above the optimum %d" % (cost, opt)
    check_output(f, inst, out, i)
    return cost, opt


def check_small(seed, count):
    """The MILP against assign_diff.py's enumeration of its own model, on
    functions small enough to enumerate: both exact, so they must agree
    (the dump is the model of SPEC 3.6, the MILP solves it)."""
    rng, L, fs, opts = random.Random(seed), D.Layouts(), [], []
    while len(fs) < count:
        f = D.gen(rng, len(fs))
        opt = D.optimum(f, L, 400)
        if opt is not None:
            fs.append(f)
            opts.append(opt)
    outs, insts, _ = run_pass(fs)
    for i, (f, want, inst, out) in enumerate(zip(fs, opts, insts, outs)):
        try:
            cost, opt = check(f, inst, out, i)
            assert opt == want, "MILP optimum %d, enumeration %d" % (opt, want)
        except AssertionError as e:
            sys.exit("small f%d: %s\n%s\n->\n%s" % (i, e, D.emit(f, "f%d" % i), out))


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    count = int(os.environ.get("LAYOUTC_MILP_CASES", count))
    if os.environ.get("LAYOUTC_TEST_QUICK"):
        count = max(3, count // 10)
    t_start = time.time()
    nsmall = max(3, count // 5)
    check_small(seed, nsmall)
    rng = random.Random(seed)
    fs = [gen(rng, i) for i in range(count)]
    outs, insts, t_pass = run_pass([f for _, f in fs])
    gaps, optimal, proven, by_family = [], 0, 0, {}
    t_milp = time.time()
    for i, ((family, f), inst, out) in enumerate(zip(fs, insts, outs)):
        try:
            cost, opt = check(f, inst, out, i)
        except AssertionError as e:
            sys.exit("f%d (%s, %d ops): %s\n%s\n->\n%s" % (i, family, len(f.ops), e, D.emit(f, "f%d" % i), out))
        gaps.append((cost - opt) / opt if opt else 0.0)
        optimal += cost == opt
        proven += inst["status"] == "proven-optimal"
        fam = by_family.setdefault(family, [0, 0])
        fam[0] += 1
        fam[1] += cost == opt
    print("assign-layouts against the MILP optimum on %d functions of 50-100 ops: %d optimal, %d proven optimal by "
          "the pass; gap max %.4f%%, mean %.5f%%; and on %d small ones against enumeration" % (
              len(fs), optimal, proven, 100 * max(gaps), 100 * sum(gaps) / len(gaps), nsmall))
    print("families: " + ", ".join("%s %d/%d optimal" % (k, v[1], v[0]) for k, v in sorted(by_family.items())),
          file=sys.stderr)
    print("seconds: pass %.1f, checks %.1f, all %.1f" % (t_pass, time.time() - t_milp, time.time() - t_start),
          file=sys.stderr)


if __name__ == "__main__":
    main()
