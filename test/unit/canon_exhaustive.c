/* One type per map (SPEC 3.1), checked exhaustively on small shapes: random layouts (general
 * `layout<[...]>` digit lists with overlapping, duplicated, split, zero, extent-1, general and
 * nested digits; strided; format tags; tiled_layout; no layout) over rank 1-3 and dims 1..8, and
 * general digit lists on a share of larger shapes (4097 to 16384 elements, where the library
 * checks separability on a box of the digits' periods rather than on every index). The
 * test computes every spelling's offset table and allocation itself (its own evaluation of the
 * digits, of MLIR strides, of oneDNN's blocking and of XLA's tiling), groups the spellings by
 * (dims, element, allocation, offset table) and requires exactly one interned type per group,
 * different types for different groups, library offsets equal to its own, and a printed form that
 * parses back to the same type.
 * Usage: canon_exhaustive [FAMILIES [SEED]] (a tenth when LAYOUTC_TEST_QUICK is set, as in the
 * sanitizer run). Prints `canon_exhaustive: S spellings (L on larger shapes), G groups (M of several spellings), F failures`. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/layoutc.h"

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return rng_state;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

#define MAXN 16384 /* the larger shapes of general_family */
#define MAXD 24

/* A digit as the test understands it: value = floor(E / div) (mod mod when mod > 0), with
 * E = idx[dim] (kind 0), sum coef[d] idx[d] (kind 1), or (idx[dim] mod inner) (kind 2,
 * a nested digit). */
typedef struct {
  int kind, dim, coef[3], div, mod, inner;
  long long stride;
} TDigit;

typedef struct {
  int rank, dims[3];
  long long numel;
} Shape;

static long long digit_value(const TDigit *g, const int *idx) {
  long long e;
  if (g->kind == 0)
    e = idx[g->dim];
  else if (g->kind == 1)
    e = (long long)g->coef[0] * idx[0] + (long long)g->coef[1] * idx[1] + (long long)g->coef[2] * idx[2];
  else
    e = idx[g->dim] % g->inner;
  e /= g->div;
  return g->mod ? e % g->mod : e;
}

static void unflatten(const Shape *s, long long e, int *idx) {
  idx[0] = idx[1] = idx[2] = 0;
  for (int d = s->rank - 1; d >= 0; d--)
    idx[d] = (int)(e % s->dims[d]), e /= s->dims[d];
}

/* Offsets with base 0; returns the smallest. */
static long long digits_table(const Shape *s, const TDigit *g, int n, long long *tab) {
  long long lo = 0;
  for (long long e = 0; e < s->numel; e++) {
    int idx[3];
    unflatten(s, e, idx);
    long long f = 0;
    for (int k = 0; k < n; k++)
      f += g[k].stride * digit_value(&g[k], idx);
    tab[e] = f;
    lo = f < lo ? f : lo;
  }
  return lo;
}

static int cat(char *b, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cat(char *b, size_t cap, const char *fmt, ...) {
  size_t n = strlen(b);
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(b + n, cap - n, fmt, ap);
  va_end(ap);
  return r;
}

static void shape_prefix(char *b, size_t cap, const Shape *s, const char *elem) {
  strcpy(b, "tensor<");
  for (int d = 0; d < s->rank; d++)
    cat(b, cap, "%dx", s->dims[d]);
  cat(b, cap, "%s", elem);
}

static void digit_text(char *b, size_t cap, const TDigit *g) {
  if (g->kind == 0) {
    cat(b, cap, "(d%d)", g->dim);
  } else if (g->kind == 2) {
    cat(b, cap, "((d%d) mod %d)", g->dim, g->inner);
  } else {
    cat(b, cap, "(");
    bool first = true;
    for (int d = 0; d < 3; d++)
      if (g->coef[d]) {
        cat(b, cap, first ? "" : " + ");
        if (g->coef[d] != 1)
          cat(b, cap, "%d*", g->coef[d]);
        cat(b, cap, "d%d", d);
        first = false;
      }
    cat(b, cap, ")");
  }
  if (g->div != 1)
    cat(b, cap, " floordiv %d", g->div);
  if (g->mod)
    cat(b, cap, " mod %d", g->mod);
  cat(b, cap, " * %lld", g->stride);
}

/* --- Groups and handles -------------------------------------------------------- */

typedef struct {
  Shape s;
  int elem;
  long long alloc, *tab;
  uint64_t h;
  const void *type; /* the one interned type of the group */
  int next;         /* 1 + the next group in the bucket, 0 at the end */
  long count;       /* spellings in the group */
} Group;

#define GBUCKETS (1 << 16)
static int gbucket[GBUCKETS]; /* 1 + the first group in each bucket */

static Group *groups;
static int ngroups, capgroups;
static long spellings, large_spellings;
static int failures;
static LyContext ctx;

static uint64_t table_hash(const Shape *s, int elem, long long alloc, const long long *tab) {
  uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
  MIX(s->rank), MIX(elem), MIX(alloc);
  for (int d = 0; d < s->rank; d++)
    MIX(s->dims[d]);
  for (long long e = 0; e < s->numel; e++)
    MIX(tab[e]);
  return h;
}

static const char *elems[] = {"f32", "i4"};

/* The group of a (shape, element, allocation, table), created when new. */
static Group *group_of(const Shape *s, int elem, long long alloc, const long long *tab) {
  uint64_t h = table_hash(s, elem, alloc, tab);
  for (int i = gbucket[h & (GBUCKETS - 1)] - 1; i >= 0; i = groups[i].next - 1) {
    Group *g = &groups[i];
    if (g->h == h && g->elem == elem && g->alloc == alloc && !memcmp(&g->s, s, sizeof *s) &&
        !memcmp(g->tab, tab, s->numel * sizeof *tab))
      return g;
  }
  if (ngroups == capgroups) {
    capgroups = capgroups ? 2 * capgroups : 1024;
    groups = realloc(groups, capgroups * sizeof *groups);
  }
  Group *g = &groups[ngroups++];
  *g = (Group){*s, elem, alloc, malloc(s->numel * sizeof *tab), h, NULL, gbucket[h & (GBUCKETS - 1)], 0};
  gbucket[h & (GBUCKETS - 1)] = ngroups;
  memcpy(g->tab, tab, s->numel * sizeof *tab);
  return g;
}

static void fail(const char *what, const char *text, const char *other) {
  if (failures++ < 20)
    fprintf(stderr, "FAIL %s: %s%s%s\n", what, text, other ? "  vs  " : "", other ? other : "");
}

/* Handles seen, with their group (linear probing on the pointer). */
#define HSIZE (1 << 20)
static const void **hkeys;
static int *hgroup;

static int *handle_slot(const void *p) {
  size_t i = ((uintptr_t)p >> 4) * 11400714819323198485ull >> 44;
  while (hkeys[i] && hkeys[i] != p)
    i = (i + 1) & (HSIZE - 1);
  if (!hkeys[i])
    hkeys[i] = p, hgroup[i] = -1;
  return &hgroup[i];
}

/* Parses one spelling whose table (offsets from base 0 plus base) and allocation the caller
 * computed, and checks it against its group. */
static void check(const char *text, const Shape *s, int elem, long long alloc, const long long *tab) {
  spellings++;
  LyType t = lyTypeParse(ctx, text, strlen(text), "<spelling>");
  if (lyTypeIsNull(t)) {
    fail("parse", text, NULL);
    return;
  }
  int64_t a, off, idx[3];
  if (lyTypeGetAllocElements(t, &a) != LY_OK || a != alloc)
    fail("allocation", text, NULL);
  for (long long e = 0; e < s->numel; e++) {
    int ix[3];
    unflatten(s, e, ix);
    for (int d = 0; d < 3; d++)
      idx[d] = ix[d];
    if (lyTypeGetOffset(t, idx, &off) != LY_OK || off != tab[e]) {
      fail("offset", text, NULL);
      break;
    }
  }
  Group *g = group_of(s, elem, alloc, tab);
  g->count++;
  char *p = lyTypeToString(t);
  if (!g->type) {
    g->type = t.ptr;
  } else if (g->type != t.ptr) {
    char *q = lyTypeToString((LyType){g->type});
    fail("same map, two types", p, q);
    lyStringFree(q);
  }
  int *slot = handle_slot(t.ptr);
  if (*slot >= 0 && *slot != (int)(g - groups))
    fail("one type for two maps", text, p);
  *slot = (int)(g - groups);
  LyType back = lyTypeParse(ctx, p, strlen(p), "<printed>");
  if (back.ptr != t.ptr)
    fail("print does not parse back", text, p);
  lyStringFree(p);
}

/* --- General spellings ------------------------------------------------------------ */

typedef struct {
  Shape s;
  int elem;
  long long extra_base; /* added to the smallest base that keeps offsets >= 0 */
  int pad;              /* -1: no size given; else size = largest + 1 + pad */
} Frame;

/* Spells a digit list with the frame's base and size, computes its table, checks it. */
static void check_digits(const Frame *f, const TDigit *g, int n) {
  static long long tab[MAXN];
  long long hi = 0;
  long long base = -digits_table(&f->s, g, n, tab) + f->extra_base;
  for (long long e = 0; e < f->s.numel; e++) {
    tab[e] += base;
    hi = tab[e] > hi ? tab[e] : hi;
  }
  long long alloc = hi + 1 + (f->pad > 0 ? f->pad : 0);
  char b[2048];
  shape_prefix(b, sizeof b, &f->s, elems[f->elem]);
  cat(b, sizeof b, ", layout<[");
  for (int k = 0; k < n; k++) {
    if (k)
      cat(b, sizeof b, ", ");
    digit_text(b, sizeof b, &g[k]);
  }
  cat(b, sizeof b, "]");
  if (f->pad >= 0)
    cat(b, sizeof b, ", size: %lld", alloc);
  if (base)
    cat(b, sizeof b, ", offset: %lld", base);
  cat(b, sizeof b, ">>");
  check(b, &f->s, f->elem, alloc, tab);
}

static const int radices[] = {1, 1, 2, 2, 2, 3, 4, 4, 8};
static const int strides[] = {0, 1, 1, 2, 3, 4, 6, 8, 12, 16, -1, -2};

static TDigit random_simple(const Shape *s) {
  TDigit g = {.kind = 0, .dim = pick(s->rank), .div = radices[pick(9)], .stride = strides[pick(12)]};
  g.mod = pick(3) ? radices[pick(9)] : 0;
  return g;
}

/* Rewrites digit list g (n digits) into another spelling of the same map. Returns the new count. */
static int transform(const Shape *s, TDigit *g, int n) {
  int k = pick(n), which = pick(9);
  TDigit x = g[k];
  if (n + 2 >= MAXD)
    return n;
  switch (which) {
  case 0: /* split the modulus: mod a*b = mod a + (floordiv a) mod b */
    if (x.kind == 0 && x.mod >= 4 && x.mod % 2 == 0) {
      g[k].mod = 2;
      g[n] = x, g[n].div = x.div * 2, g[n].mod = x.mod / 2, g[n].stride = x.stride * 2;
      return n + 1;
    }
    if (x.kind == 0 && !x.mod) { /* unwrapped: low piece and the rest */
      g[k].mod = 2;
      g[n] = x, g[n].div = x.div * 2, g[n].stride = x.stride * 2;
      return n + 1;
    }
    return n;
  case 1: /* two digits with strides adding up */
    g[n] = x, g[n].stride = strides[pick(12)];
    g[k].stride = x.stride - g[n].stride;
    return n + 1;
  case 2: /* a digit that contributes nothing */
    g[n] = random_simple(s);
    if (pick(2))
      g[n].stride = 0;
    else if (pick(2))
      g[n].mod = 1;
    else
      g[n].div = s->dims[g[n].dim] + pick(3);
    return n + 1;
  case 3: /* (d) floordiv R = (R*d + d') floordiv R when d' < R, and common factors cancel */
    if (x.kind == 0) {
      int other = pick(s->rank);
      g[k].kind = 1;
      g[k].coef[0] = g[k].coef[1] = g[k].coef[2] = 0;
      int c = 1 + pick(2);
      g[k].coef[x.dim] = c;
      g[k].div = c * x.div;
      if (other != x.dim && s->dims[other] <= c)
        g[k].coef[other] = 1;
    }
    return n;
  case 4: /* a nested spelling: (d) floordiv R mod M = ((d) mod R*M) floordiv R */
    if (x.kind == 0 && x.mod)
      g[k].kind = 2, g[k].inner = x.div * x.mod, g[k].mod = pick(2) ? x.mod : 0;
    return n;
  case 5: { /* reorder */
    int j = pick(n);
    g[k] = g[j], g[j] = x;
    return n;
  }
  case 6: /* a modulus that the dim never reaches */
    if (x.kind == 0 && !x.mod)
      g[k].mod = (s->dims[x.dim] - 1) / x.div + 1 + pick(3);
    return n;
  case 7: /* the same digit twice, halves of the stride */
    if (x.stride % 2 == 0) {
      g[k].stride = g[n].stride = x.stride / 2;
      g[n] = g[k];
      return n + 1;
    }
    return n;
  default: /* an overlapping digit and its correction on a finer split */
    if (x.kind == 0 && x.mod == 4) {
      g[n] = x, g[n].mod = 2, g[n].stride = 3;
      g[n + 1] = x, g[n + 1].mod = 2, g[n + 1].stride = -3;
      return n + 2;
    }
    return n;
  }
}

static Shape random_shape(void) {
  Shape s = {.rank = 1 + pick(3)};
  s.numel = 1;
  for (int d = 0; d < 3; d++) {
    s.dims[d] = d < s.rank ? 1 + pick(8) : 1;
    s.numel *= s.dims[d];
  }
  return s;
}

/* Rank 2-3, 4097 to 16384 elements, one dim of 1-4 (so that (R*d + d') floordiv R rewrites). */
static Shape random_large_shape(void) {
  for (;;) {
    Shape s = {.rank = 2 + pick(2), .dims = {1, 1, 1}, .numel = 1};
    int small = pick(s.rank);
    for (int d = 0; d < s.rank; d++) {
      s.dims[d] = d == small ? 1 + pick(4) : 16 + pick(113);
      s.numel *= s.dims[d];
    }
    if (s.numel > 4096 && s.numel <= MAXN)
      return s;
  }
}

/* A family: one random digit list and several rewritings of it, in one frame; one in 24 on a
 * larger shape, always with a general digit. */
static void general_family(void) {
  bool large = pick(24) == 0;
  Frame f = {.s = large ? random_large_shape() : random_shape(),
             .elem = pick(8) == 0,
             .extra_base = pick(4) == 0,
             .pad = pick(3) - 1};
  TDigit g[MAXD];
  int n = 1 + pick(4);
  for (int k = 0; k < n; k++)
    g[k] = random_simple(&f.s);
  if (large || pick(6) == 0) { /* a general digit over two dims, sometimes not separable */
    TDigit x = {.kind = 1, .div = radices[pick(9)], .mod = pick(2) ? radices[pick(9)] : 0, .stride = 1 + pick(4)};
    for (int d = 0; d < f.s.rank; d++)
      x.coef[d] = pick(4);
    x.coef[pick(f.s.rank)] = 1 + pick(3);
    g[n++] = x;
  }
  check_digits(&f, g, n);
  for (int v = 0; v < 6; v++) {
    TDigit h[MAXD];
    memcpy(h, g, n * sizeof *g);
    int m = n;
    for (int r = 1 + pick(3); r > 0; r--)
      m = transform(&f.s, h, m);
    check_digits(&f, h, m);
  }
  large_spellings += large ? 7 : 0;
}

/* --- Strided, tags, tiled, no layout --------------------------------------------- */

static void strided_spelling(void) {
  Shape s = random_shape();
  long long st[3], tab[MAXN], base = pick(3) == 0 ? pick(5) : 0, hi = 0;
  for (int d = 0; d < s.rank; d++)
    st[d] = pick(4) == 0 ? 0 : 1 + pick(9);
  char b[512];
  shape_prefix(b, sizeof b, &s, "f32");
  cat(b, sizeof b, ", strided<[");
  for (int d = 0; d < s.rank; d++)
    cat(b, sizeof b, d ? ",%lld" : "%lld", st[d]);
  cat(b, sizeof b, "]");
  if (base)
    cat(b, sizeof b, ", offset: %lld", base);
  cat(b, sizeof b, ">>");
  for (long long e = 0; e < s.numel; e++) {
    int idx[3];
    unflatten(&s, e, idx);
    tab[e] = base;
    for (int d = 0; d < s.rank; d++)
      tab[e] += st[d] * idx[d];
    hi = tab[e] > hi ? tab[e] : hi;
  }
  check(b, &s, 0, hi + 1, tab);
  /* The same map in the general form. */
  TDigit g[3];
  for (int d = 0; d < s.rank; d++)
    g[d] = (TDigit){.kind = 0, .dim = d, .div = 1, .stride = st[d]};
  Frame f = {.s = s, .extra_base = base - 0, .pad = -1};
  check_digits(&f, g, s.rank);
}

/* oneDNN's blocked layout (fill_blocked): outer dims in tag order, then the inner blocks. */
static void tag_spelling(void) {
  Shape s = random_shape();
  int order[3] = {0, 1, 2}, nb = pick(3), bdim[2], bsz[2];
  for (int i = s.rank - 1; i > 0; i--) {
    int j = pick(i + 1), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  long long prod[3] = {1, 1, 1}, pad[3], outer[3];
  for (int j = 0; j < nb; j++) {
    bdim[j] = pick(s.rank), bsz[j] = 2 << pick(3);
    prod[bdim[j]] *= bsz[j];
  }
  char b[512];
  shape_prefix(b, sizeof b, &s, "f32");
  cat(b, sizeof b, ", \"");
  for (int k = 0; k < s.rank; k++) {
    bool blocked = (nb > 0 && bdim[0] == order[k]) || (nb > 1 && bdim[1] == order[k]);
    cat(b, sizeof b, "%c", (blocked ? 'A' : 'a') + order[k]);
  }
  for (int j = 0; j < nb; j++)
    cat(b, sizeof b, "%d%c", bsz[j], 'a' + bdim[j]);
  cat(b, sizeof b, "\">");
  /* Strides: innermost block dense, then blocks outward, then outer dims innermost first. */
  long long bstride[2], ostride[3], st = 1;
  for (int j = nb - 1; j >= 0; j--)
    bstride[j] = st, st *= bsz[j];
  for (int d = 0; d < s.rank; d++)
    pad[d] = (s.dims[d] + prod[d] - 1) / prod[d] * prod[d], outer[d] = pad[d] / prod[d];
  for (int k = s.rank - 1; k >= 0; k--)
    ostride[order[k]] = st, st *= outer[order[k]];
  long long tab[MAXN];
  TDigit g[5];
  int n = 0;
  for (int d = 0; d < s.rank; d++)
    g[n++] = (TDigit){.kind = 0, .dim = d, .div = (int)prod[d], .stride = ostride[d]};
  for (int j = 0; j < nb; j++) {
    long long inner = 1;
    for (int q = j + 1; q < nb; q++)
      if (bdim[q] == bdim[j])
        inner *= bsz[q];
    g[n++] = (TDigit){.kind = 0, .dim = bdim[j], .div = (int)inner, .mod = bsz[j], .stride = bstride[j]};
  }
  digits_table(&s, g, n, tab); /* offsets of the blocked layout, by its own definition above */
  check(b, &s, 0, st, tab);
  Frame f = {.s = s}; /* the same map and allocation in the general form */
  long long hi = 0;
  for (long long e = 0; e < s.numel; e++)
    hi = tab[e] > hi ? tab[e] : hi;
  f.pad = (int)(st - 1 - hi);
  check_digits(&f, g, n);
}

/* XLA tiling (SPEC 2.1): permute, then each tile splits the most-minor dims of the shape so far
 * into a count dim in place and a within dim appended; row-major in the final shape. */
static void tiled_spelling(void) {
  Shape s = random_shape();
  int perm[3] = {0, 1, 2}, ntiles = pick(3), tiles[2][3], tn[2];
  for (int i = s.rank - 1; i > 0; i--) {
    int j = pick(i + 1), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  char b[512];
  shape_prefix(b, sizeof b, &s, "f32");
  cat(b, sizeof b, ", tiled_layout<<");
  for (int k = 0; k < s.rank; k++)
    cat(b, sizeof b, k ? ",%d" : "%d", perm[k]);
  cat(b, sizeof b, ">");
  int cur = s.rank;
  for (int t = 0; t < ntiles; t++) {
    tn[t] = 1 + pick(cur < 3 ? cur : 3);
    cat(b, sizeof b, ",(");
    for (int e = 0; e < tn[t]; e++) {
      tiles[t][e] = 1 << pick(4);
      cat(b, sizeof b, e ? ",%d" : "%d", tiles[t][e]);
    }
    cat(b, sizeof b, ")");
    cur += tn[t];
  }
  cat(b, sizeof b, ">>");
  long long tab[MAXN], alloc = 0;
  for (long long e = 0; e < s.numel; e++) {
    int idx[3];
    unflatten(&s, e, idx);
    long long shp[12], x[12];
    int r = s.rank;
    for (int k = 0; k < r; k++)
      shp[k] = s.dims[perm[k]], x[k] = idx[perm[k]];
    for (int t = 0; t < ntiles; t++) {
      int first = r - tn[t];
      for (int j = 0; j < tn[t]; j++) {
        long long ts = tiles[t][j], p = first + j;
        shp[r + j] = ts, x[r + j] = x[p] % ts;
        shp[p] = (shp[p] + ts - 1) / ts, x[p] /= ts;
      }
      r += tn[t];
    }
    long long off = 0, size = 1;
    for (int k = 0; k < r; k++)
      off = off * shp[k] + x[k], size *= shp[k];
    tab[e] = off, alloc = size;
  }
  check(b, &s, 0, alloc, tab);
}

static void row_major_spelling(void) {
  Shape s = random_shape();
  long long tab[MAXN];
  char b[512];
  shape_prefix(b, sizeof b, &s, "f32");
  cat(b, sizeof b, ">");
  for (long long e = 0; e < s.numel; e++)
    tab[e] = e;
  check(b, &s, 0, s.numel, tab);
}

static void handler(const LyDiagnostic *d, void *user) {
  (void)user;
  if (failures < 20)
    lyDiagnosticPrintToFile(d, stderr);
}

int main(int argc, char **argv) {
  int families = argc > 1 ? atoi(argv[1]) : 6000;
  if (getenv("LAYOUTC_TEST_QUICK"))
    families /= 10;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240611;
  ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, handler, NULL);
  hkeys = calloc(HSIZE, sizeof *hkeys);
  hgroup = calloc(HSIZE, sizeof *hgroup);
  for (int i = 0; i < families; i++) {
    general_family();
    strided_spelling();
    tag_spelling();
    tiled_spelling();
    if (i % 8 == 0)
      row_major_spelling();
  }
  int several = 0;
  for (int i = 0; i < ngroups; i++) {
    several += groups[i].count > 1;
    free(groups[i].tab);
  }
  printf("canon_exhaustive: %ld spellings (%ld on larger shapes), %d groups (%d of several spellings), %d failures\n",
         spellings, large_spellings, ngroups, several, failures);
  free(groups);
  free(hkeys);
  free(hgroup);
  lyContextDestroy(ctx);
  return failures != 0;
}
