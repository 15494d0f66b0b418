"""Shared helpers for the view-algebra harnesses (standard library only).

An independent reference model of the layouts (SPEC §2.1-§2.3), exhaustive checks of a view's
offsets, and "does a view exist" oracles on an offset table. Not a test itself (lit only collects
.test files here).
"""
import itertools
import re
import subprocess

TIMEOUT = 60


def run(argv):
    """Runs a tool; returns (exit status, stdout, stderr). A timeout or an OSError is status -1."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s" % TIMEOUT
    except OSError as e:
        return -1, "", str(e)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def shq(s):
    """Quotes one word for a shell reproducer line."""
    if re.fullmatch(r"[A-Za-z0-9_,./=+-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def cmdline(argv):
    return " ".join(shq(a) for a in argv)


def csv(xs):
    return ",".join(str(x) for x in xs)


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def indices(dims):
    """All indices of dims in row-major order."""
    return itertools.product(*[range(d) for d in dims])


def unravel(linear, dims):
    idx = []
    for d in reversed(dims):
        idx.append(linear % d)
        linear //= d
    return tuple(reversed(idx))


def ravel(idx, dims):
    lin = 0
    for i, d in zip(idx, dims):
        lin = lin * d + i
    return lin


def type_str(dims, elem, layout="", ms=""):
    s = "tensor<" + "".join("%dx" % d for d in dims) + elem
    if layout:
        s += ", " + layout
    if ms:
        s += ", " + ms
    return s + ">"


TYPE_RE = re.compile(r"^tensor<((?:\d+x)*)([A-Za-z][A-Za-z0-9]*)(.*)>$", re.S)
MS_RE = re.compile(r', (memspace<(?:\d+|"[^"]*")>)$')


def parse_type(text):
    """Splits a printed type into (dims, element, layout, memspace); None if it does not look like one."""
    m = TYPE_RE.match(text.strip())
    if not m:
        return None
    dims = [int(x) for x in m.group(1).split("x") if x]
    rest = m.group(3)
    ms = ""
    mm = MS_RE.search(rest)
    if mm:
        ms = mm.group(1)
        rest = rest[: mm.start()]
    if rest and not rest.startswith(", "):
        return None
    return dims, m.group(2), rest[2:], ms


# ---------------------------------------------------------------------------------------------
# Reference model: offsets of every element (row-major order) and the allocation, in elements.

def strided_model(dims, strides, offset):
    offs = [offset + sum(i * s for i, s in zip(idx, strides)) for idx in indices(dims)]
    alloc = (max(offs) + 1) if offs else 0
    return offs, alloc


def tag_model(dims, order, blocks):
    """oneDNN fill_blocked. order: logical dims outermost first; blocks: [(dim, size)] outermost to
    innermost."""
    r = len(dims)
    bprod = [1] * r
    for d, b in blocks:
        bprod[d] *= b
    padded = [-(-dims[d] // bprod[d]) * bprod[d] for d in range(r)]
    stride = 1
    bstride = [0] * len(blocks)
    for k in range(len(blocks) - 1, -1, -1):
        bstride[k] = stride
        stride *= blocks[k][1]
    ostride = [0] * r
    for d in reversed(order):
        ostride[d] = stride
        stride *= padded[d] // bprod[d]
    alloc = stride
    offs = []
    for idx in indices(dims):
        pos = list(idx)
        off = 0
        for k in range(len(blocks) - 1, -1, -1):
            d, b = blocks[k]
            off += (pos[d] % b) * bstride[k]
            pos[d] //= b
        off += sum(pos[d] * ostride[d] for d in range(r))
        offs.append(off)
    return offs, alloc


def _tile_once(shape, idx, tile):
    k = len(tile)
    pre_s, pre_i = shape[: len(shape) - k], idx[: len(idx) - k]
    reg_s, reg_i = shape[len(shape) - k:], idx[len(idx) - k:]
    tiled = []  # (extent, index, tile size)
    cur = None
    for j, t in enumerate(tile):
        cur = (reg_s[j], reg_i[j]) if cur is None else (cur[0] * reg_s[j], cur[1] * reg_s[j] + reg_i[j])
        if t == "*":
            continue
        tiled.append((cur[0], cur[1], t))
        cur = None
    new_s = pre_s + [-(-e // t) for e, _, t in tiled] + [t for _, _, t in tiled]
    new_i = pre_i + [i // t for _, i, t in tiled] + [i % t for _, i, t in tiled]
    return new_s, new_i


def tiled_model(dims, perm, tiles):
    """SPEC §2.1: perm lists logical dims major to minor; tiles apply in order; '*' combines a dim
    with the next more-minor one."""
    offs = []
    final_shape = None
    for idx in indices(dims):
        shape = [dims[p] for p in perm]
        pidx = [idx[p] for p in perm]
        for t in tiles:
            shape, pidx = _tile_once(shape, pidx, t)
        final_shape = shape
        offs.append(ravel(pidx, shape))
    if final_shape is None:  # no elements: still compute the shape
        shape = [dims[p] for p in perm]
        pidx = [0] * len(shape)
        for t in tiles:
            shape, pidx = _tile_once(shape, pidx, t)
        final_shape = shape
    return offs, prod(final_shape)


# ---------------------------------------------------------------------------------------------
# Existence oracles on an offset table F (row-major over dims).

def affine_strides(F, dims):
    """Strides (elements) s with F[j] = F[0] + sum j_k s_k for every index j, or None. Dims of
    extent <= 1 get stride None."""
    if not F:
        return None
    strides = []
    for k, m in enumerate(dims):
        if m <= 1:
            strides.append(None)
            continue
        e = [0] * len(dims)
        e[k] = 1
        strides.append(F[ravel(e, dims)] - F[0])
    for lin, idx in enumerate(indices(dims)):
        if F[lin] != F[0] + sum(i * s for i, s in zip(idx, strides) if s is not None):
            return None
    return strides


def _chain_ok(g, n):
    """Is g (g[0] == 0, length n) a sum of simple digits floor(j/r_m) mod e_m * s_m along a chain
    of divisors 1 = r_0 | r_1 | ... | r_t (the outermost digit unwrapped)?"""
    if n <= 1:
        return True

    def value(digits, j):
        v = 0
        for m, (r, s) in enumerate(digits):
            q = j // r
            if m + 1 < len(digits):
                q %= digits[m + 1][0] // r
            v += q * s
        return v

    def dfs(digits):
        bad = next((j for j in range(n) if value(digits, j) != g[j]), None)
        if bad is None:
            return True
        # Below the next divisor the digits so far decide every value, so it is at most `bad`.
        r = digits[-1][0]
        for r2 in range(2 * r, min(bad, n - 1) + 1, r):
            if dfs(digits + [(r2, g[r2])]):
                return True
        return False

    return dfs([(1, g[1])])


def digit_view_exists(F, dims):
    """True when F is separable over dims (F[j] = F[0] + sum_k g_k(j_k)) and every g_k is a chain of
    simple digits: then a descriptor of simple digits over the view dims has this offset table."""
    if not F:
        return True
    r = len(dims)
    gs = []
    for k in range(r):
        g = []
        for j in range(dims[k]):
            e = [0] * r
            e[k] = j
            g.append(F[ravel(e, dims)] - F[0])
        gs.append(g)
    for lin, idx in enumerate(indices(dims)):
        if F[lin] != F[0] + sum(gs[k][idx[k]] for k in range(r)):
            return False
    return all(_chain_ok(gs[k], dims[k]) for k in range(r))


def factor(rng, n):
    """A random ordered factorization of n into factors > 1 (n itself for primes)."""
    out = []
    while n > 1:
        divs = [d for d in range(2, n + 1) if n % d == 0]
        d = rng.choice(divs) if rng.random() < 0.7 else n
        out.append(d)
        n //= d
    return out


def regroup(rng, dims, p_split, p_join):
    """New dims for a reshape: each dim of extent > 1 split into random factors
    (with probability p_split), extent-1 dims kept or dropped, and consecutive
    factors joined (with probability p_join)."""
    fs = []
    for d in dims:
        if d == 1:
            if rng.random() < 0.5:
                fs.append(1)
        else:
            fs.extend(factor(rng, d) if rng.random() < p_split else [d])
    new = []
    for f in fs:
        if new and rng.random() < p_join:
            new[-1] *= f
        else:
            new.append(f)
    return new
