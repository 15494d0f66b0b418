/* desc: canonical digit lists, interning, and the context. Canonical form is
 * what makes "same element-offset map" mean "same object". */
#include "desc/desc.h"

#include <stdlib.h>
#include <string.h>

/* --- Context -------------------------------------------------------------- */

LyContext lyContextCreate(void) {
  LyCtx *c = ly_malloc(sizeof *c);
  if (!c)
    return (LyContext){NULL};
  memset(c, 0, sizeof *c);
  ly_arena_init(&c->arena);
  c->nbuckets = 256;
  c->buckets = ly_malloc(c->nbuckets * sizeof *c->buckets);
  if (!c->buckets) {
    ly_free(c);
    return (LyContext){NULL};
  }
  memset(c->buckets, 0, c->nbuckets * sizeof *c->buckets);
  return (LyContext){c};
}

void lyContextDestroy(LyContext ctx) {
  LyCtx *c = lyd_ctx(ctx);
  if (!c)
    return;
  for (size_t b = 0; b < c->nbuckets; b++)
    for (LyTypeImpl *t = c->buckets[b]; t; t = t->next)
      lyd_print_forget(t);
  ly_arena_free(&c->arena);
  ly_free(c->buckets);
  ly_free(c);
}

void lyContextSetDiagnosticHandler(LyContext ctx, LyDiagnosticHandler h, void *user) {
  lyd_ctx(ctx)->diag.handler = h;
  lyd_ctx(ctx)->diag.user = user;
}

/* --- Digit values and ranges ------------------------------------------------ */

int64_t lyd_digit_value(const LyDigit *g, int rank, const int64_t *idx) {
  int64_t e;
  if (g->dim >= 0) {
    e = idx[g->dim];
  } else {
    e = 0;
    for (int d = 0; d < rank; d++)
      e += g->coef[d] * idx[d];
    for (int j = 0; j < g->nsub; j++)
      e += g->sub[j].stride * lyd_digit_value(&g->sub[j], rank, idx);
  }
  e /= g->div;
  return g->wrap ? e % g->ext : e;
}

int64_t lyd_digit_max_e(const LyDigit *g, int rank, const int64_t *dims) {
  if (g->dim >= 0)
    return dims[g->dim] == LY_DYNAMIC ? LY_DYNAMIC : dims[g->dim] - 1;
  int64_t e = 0, term;
  for (int d = 0; d < rank; d++) {
    if (!g->coef[d])
      continue;
    if (dims[d] == LY_DYNAMIC)
      return LY_DYNAMIC;
    if (!ly_mul(g->coef[d], dims[d] - 1, &term) || !ly_add(e, term, &e))
      return LY_DYNAMIC; /* caller validated sizes; treat as unknown */
  }
  for (int j = 0; j < g->nsub; j++) {
    int64_t v = lyd_digit_max_value(&g->sub[j], rank, dims);
    if (v == LY_DYNAMIC || !ly_mul(g->sub[j].stride, v, &term) || !ly_add(e, term, &e))
      return LY_DYNAMIC;
  }
  return e;
}

int64_t lyd_digit_max_value(const LyDigit *g, int rank, const int64_t *dims) {
  int64_t e = lyd_digit_max_e(g, rank, dims);
  if (e == LY_DYNAMIC)
    return g->wrap ? g->ext - 1 : LY_DYNAMIC;
  e /= g->div;
  return g->wrap && e >= g->ext ? g->ext - 1 : e;
}

bool lyd_digit_uses_dim(const LyDigit *g, int rank, int d) {
  if (g->dim >= 0)
    return g->dim == d;
  if (g->coef[d])
    return true;
  for (int j = 0; j < g->nsub; j++)
    if (lyd_digit_uses_dim(&g->sub[j], rank, d))
      return true;
  return false;
}

/* Rewrites a general digit over one dim (or with a common factor) into a
 * simpler equivalent. Returns false if the digit is identically zero. */
static void simplify_general(LyDigit *g, int rank, const int64_t *dims, int64_t *coef) {
  if (g->nsub)
    return; /* nested digits are kept as built */
  int64_t gg = 0;
  int nz = 0, last = -1;
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 1)
      coef[d] = 0; /* i_d is always 0 */
    if (coef[d]) {
      gg = ly_gcd(gg, coef[d]);
      nz++;
      last = d;
    }
  }
  if (nz == 0) {
    g->stride = 0; /* constant zero: dropped by the caller */
    return;
  }
  /* floor(g*E'/div) = floor(E'/(div/g)) when g divides div. */
  int64_t common = ly_gcd(gg, g->div);
  if (common > 1) {
    for (int d = 0; d < rank; d++)
      coef[d] /= common;
    g->div /= common;
  }
  if (nz != 1)
    return;
  int64_t c = coef[last];
  if (c == 1) {
    g->dim = last, g->coef = NULL;
  } else if (g->div == 1 && (!g->wrap || g->ext % c == 0) && g->stride != LY_DYNAMIC) {
    /* (c*i) mod ext = c * (i mod ext/c) */
    int64_t s;
    if (ly_mul(g->stride, c, &s)) {
      g->stride = s;
      if (g->wrap)
        g->ext /= c;
      g->dim = last, g->coef = NULL;
    }
  }
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int digit_cmp_r(const LyDigit *a, const LyDigit *b, int rank) {
  bool ga = a->dim < 0, gb = b->dim < 0;
  if (ga != gb)
    return ga - gb;
  if (!ga && a->dim != b->dim)
    return a->dim - b->dim;
  int c;
  if (ga) {
    for (int d = 0; d < rank; d++)
      if (a->coef[d] != b->coef[d])
        return cmp_i64(b->coef[d], a->coef[d]);
    if ((c = a->nsub - b->nsub))
      return c;
    for (int j = 0; j < a->nsub; j++)
      if ((c = digit_cmp_r(&a->sub[j], &b->sub[j], rank)))
        return c;
  }
  if ((c = cmp_i64(b->div, a->div)))
    return c;
  if ((c = cmp_i64(a->ext, b->ext)))
    return c;
  if ((c = a->wrap - b->wrap))
    return c;
  return cmp_i64(a->stride, b->stride);
}

/* Canonical digit order. An insertion sort rather than qsort: the comparator
 * needs the rank and qsort has no context argument (a global would race
 * between threads with their own contexts); digit lists are short. */
static void sort_digits(LyDigit *g, int n, int rank) {
  for (int i = 1; i < n; i++) {
    LyDigit x = g[i];
    int j = i;
    for (; j > 0 && digit_cmp_r(&g[j - 1], &x, rank) > 0; j--)
      g[j] = g[j - 1];
    g[j] = x;
  }
}

/* Same E: same simple dim, or same coefficients and nested digits. */
static bool same_e(const LyDigit *a, const LyDigit *b, int rank) {
  if (a->dim >= 0 || b->dim >= 0)
    return a->dim == b->dim;
  if (memcmp(a->coef, b->coef, rank * sizeof(int64_t)) || a->nsub != b->nsub)
    return false;
  for (int j = 0; j < a->nsub; j++)
    if (digit_cmp_r(&a->sub[j], &b->sub[j], rank))
      return false;
  return true;
}

/* Sorts, then merges outer o with the next inner p of the same E when they
 * continue each other: o.div = p.div*p.ext and o.stride = p.stride*p.ext. */
/* Merges p, the next inner digit of o's E, into o when they continue each
 * other in index and memory: o.div = p.div * p.ext, o.stride = p.stride *
 * p.ext. True when merged. */
static bool absorb(LyDigit *o, const LyDigit *p, int rank, const int64_t *dims) {
  int64_t span, st, ext = 0;
  if (!same_e(o, p, rank) || !p->wrap || o->stride == LY_DYNAMIC || p->stride == LY_DYNAMIC ||
      !ly_mul(p->div, p->ext, &span) || span != o->div || !ly_mul(p->stride, p->ext, &st) || st != o->stride ||
      (o->wrap && !ly_mul(o->ext, p->ext, &ext)))
    return false;
  o->stride = p->stride;
  o->div = p->div;
  if (o->wrap) {
    o->ext = ext;
  } else {
    int64_t maxe = lyd_digit_max_e(o, rank, dims);
    o->ext = maxe == LY_DYNAMIC ? LY_DYNAMIC : maxe / o->div + 1;
  }
  return true;
}

static int merge_pass(int rank, const int64_t *dims, LyDigit *g, int n);

/* Sorts and merges until nothing merges: a merged digit may sort next to
 * another it continues. */
static int merge_digits(int rank, const int64_t *dims, LyDigit *g, int n) {
  for (;;) {
    sort_digits(g, n, rank);
    int m = merge_pass(rank, dims, g, n);
    if (m == n)
      return n;
    n = m;
  }
}

static int merge_pass(int rank, const int64_t *dims, LyDigit *g, int n) {
  int m = 0;
  for (int k = 0; k < n; k++)
    if (!(m > 0 && absorb(&g[m - 1], &g[k], rank, dims)))
      g[m++] = g[k];
  return m;
}

/* A general digit that is E itself (no floordiv, no mod, no nesting) is a
 * sum of simple digits, one per dim. Returns the new count. */
static int expand_linear(int rank, const int64_t *dims, LyDigit *g, int n, bool *changed) {
  int m = n;
  for (int k = 0; k < n; k++) {
    LyDigit x = g[k];
    if (x.dim >= 0 || x.div != 1 || x.wrap || x.nsub || x.stride == LY_DYNAMIC || m + rank > LY_MAX_DIGITS)
      continue;
    int64_t st[LY_MAX_RANK];
    bool ok = true;
    for (int d = 0; d < rank && ok; d++)
      ok = ly_mul(x.stride, x.coef[d], &st[d]);
    if (!ok)
      continue;
    *changed = true;
    g[k] = g[--n]; /* drop x: move the last original digit here */
    g[n] = g[--m];
    k--;
    for (int d = 0; d < rank; d++)
      if (x.coef[d] && dims[d] != 1)
        g[m++] = (LyDigit){.stride = st[d], .div = 1, .ext = dims[d], .dim = d};
  }
  return m;
}

/* Inside one E: nested digits that continue each other (o.div = p.div *
 * p.ext, coefficient o = coefficient p * p.ext) merge, and nested digits
 * that are plain linear terms fold into the coefficients. s is sorted. */
static bool collapse_single_sub(LyDigit *x, int rank);
static int normalize_digit(LyDigit *x, int rank, const int64_t *dims, LyArena *a);

static int merge_subs(LyDigit *s, int n, int64_t *coef, int rank, const int64_t *dims, LyArena *a) {
  int m = 0;
  for (int k = 0; k < n; k++) /* the stride of a sub-digit is its coefficient */
    if (!(m > 0 && absorb(&s[m - 1], &s[k], rank, dims)))
      s[m++] = s[k];
  /* A merge can leave value(sub) alone in a sub's E: collapse it. */
  for (int k = 0; k < m; k++)
    if (s[k].dim < 0 && collapse_single_sub(&s[k], rank) && normalize_digit(&s[k], rank, dims, a) < 0)
      return -1;
  int w = 0;
  for (int k = 0; k < m; k++) {
    LyDigit *p = &s[k];
    bool linear = p->div == 1 && !p->wrap && (p->dim >= 0 || p->nsub == 0);
    int64_t add[LY_MAX_RANK] = {0};
    for (int d = 0; d < rank && linear; d++) {
      int64_t cd = p->dim >= 0 ? (p->dim == d) : p->coef[d];
      linear = ly_mul(cd, p->stride, &add[d]) && ly_add(coef[d], add[d], &add[d]);
    }
    if (!linear) {
      s[w++] = *p;
      continue;
    }
    memcpy(coef, add, rank * sizeof *coef); /* add[d] holds coef[d] + the term */
  }
  return w;
}

/* floor(value(sub) / div) mod ext with E = 1 * value(sub) alone is often a
 * single digit over sub's own E. Rewrites x in place when it is. */
static bool collapse_single_sub(LyDigit *x, int rank) {
  for (int d = 0; d < rank; d++)
    if (x->coef[d])
      return false;
  if (x->nsub != 1 || x->sub[0].stride != 1)
    return false;
  LyDigit y = x->sub[0];
  int64_t div;
  if (!ly_mul(y.div, x->div, &div))
    return false;
  if (y.wrap) {
    if (y.ext % x->div != 0) /* floor((v mod m) / R) needs R | m */
      return false;
    y.ext /= x->div;
  }
  y.div = div;
  if (x->wrap) {
    if (!y.wrap)
      y.wrap = true, y.ext = x->ext;
    else if (y.ext % x->ext == 0)
      y.ext = x->ext;
    else if (y.ext > x->ext)
      return false; /* (v mod m) mod M with M not dividing m */
  }
  y.stride = x->stride;
  *x = y;
  return true;
}

/* Normalises one digit (and its nested digits, recursively, copying them
 * into a): wrap only where it changes a value, extents tight, nested digits
 * in a fixed order. Returns 0 when the digit is always 0, -1 on OOM. */
static int normalize_digit(LyDigit *x, int rank, const int64_t *dims, LyArena *a) {
  if (x->dim < 0) {
    int64_t *c = ly_arena_dup(a, x->coef, rank * sizeof *c);
    if (!c)
      return -1;
    x->coef = c;
    for (int d = 0; d < rank; d++)
      if (dims[d] == 1)
        c[d] = 0; /* i_d is always 0, in nested digits too: (d2 + (d0) floordiv 2) on a unit d2 is one sub */
    if (x->nsub) {
      LyDigit *s = ly_arena_dup(a, x->sub, x->nsub * sizeof *s);
      if (!s)
        return -1;
      int m = 0;
      for (int j = 0; j < x->nsub; j++) {
        LyDigit y = s[j];
        int r = normalize_digit(&y, rank, dims, a);
        if (r < 0)
          return -1;
        if (r > 0 && y.stride != 0)
          s[m++] = y;
      }
      sort_digits(s, m, rank);
      x->nsub = merge_subs(s, m, c, rank, dims, a);
      if (x->nsub < 0)
        return -1;
      x->sub = x->nsub ? s : NULL;
      if (collapse_single_sub(x, rank))
        return normalize_digit(x, rank, dims, a);
    }
    simplify_general(x, rank, dims, c);
    if (x->stride == 0)
      return 0;
  }
  if (x->wrap && x->ext == 1)
    return 0;
  int64_t maxe = lyd_digit_max_e(x, rank, dims);
  if (maxe != LY_DYNAMIC) {
    int64_t top = maxe / x->div;
    if (maxe < 0 || top == 0)
      return 0; /* a zero-sized dim, or a digit that never leaves 0 */
    if (!x->wrap || top < x->ext)
      x->wrap = false, x->ext = top + 1;
  }
  return 1;
}

/* Canonical form: digits that are always zero or have stride 0 are dropped,
 * each digit normalised, digits of one dim that are contiguous in both index
 * and memory merged, and a fixed order. */
/* Digits with the same value function (same E, div, modulus) are one digit
 * with the sum of their strides: `(d0) * 3, (d0) * 3` is `(d0) * 6` (SPEC
 * 3.1: one type per map). A sum that is 0 drops the digit. */
static int merge_duplicates(int rank, LyDigit *g, int n) {
  for (int k = 0; k < n; k++)
    for (int j = k + 1; j < n; j++) {
      LyDigit *a = &g[k], *b = &g[j];
      int64_t st;
      if (a->stride == LY_DYNAMIC || b->stride == LY_DYNAMIC || a->div != b->div || a->wrap != b->wrap ||
          (a->wrap && a->ext != b->ext) || !same_e(a, b, rank) || !ly_add(a->stride, b->stride, &st))
        continue;
      a->stride = st;
      g[j--] = g[--n];
      if (st == 0) {
        g[k--] = g[--n];
        break;
      }
    }
  return n;
}

/* --- One dim's function, exactly ---------------------------------------------
 *
 * The simple digits of one dim d (extent n) add up to a function f(i) of its
 * index with f(0) = 0. Its steps f(i) - f(i-1), i in [1, n), are a unique sum
 * sum_b c_b [b divides i] (the indicators are triangular, so independent), and
 * a digit floor(i/b) mod e times s adds s at b and -s*e at b*e (nothing at
 * b*e when it does not wrap). So the jumps c_b are the map's invariant, and
 * rebuilding digits from them by a fixed rule gives one digit list per map,
 * however the spelling split, overlapped or duplicated its digits. The rule,
 * from the smallest b up: a digit at b with stride c_b, wrapping at the
 * smallest larger b' with c_b' != 0 that b divides (which then takes
 * c_b' += c_b * b'/b), unwrapped when there is none. Where the boundaries
 * form a divisibility chain this is the common refinement of the digits
 * with continuing pieces merged (docs/descriptor.md); where they do not, a
 * wrap that cancels a later jump is preferred. */

typedef struct {
  int64_t b, c;
} Jump;

static bool sub64(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }

static bool jump_add(Jump *j, int *nj, int64_t b, int64_t c) {
  for (int k = 0; k < *nj; k++)
    if (j[k].b == b)
      return ly_add(j[k].c, c, &j[k].c);
  if (*nj == 2 * LY_MAX_DIGITS)
    return false;
  j[(*nj)++] = (Jump){b, c};
  return true;
}

/* The canonical digits of dim d (extent n) from its jumps, at most room of
 * them into out. -1 when they do not fit or a stride overflows. */
static int jumps_to_digits(int d, int64_t n, Jump *j, int nj, LyDigit *out, int room) {
  for (int i = 1; i < nj; i++) { /* by boundary, ascending */
    Jump x = j[i];
    int k = i;
    for (; k > 0 && j[k - 1].b > x.b; k--)
      j[k] = j[k - 1];
    j[k] = x;
  }
  bool chain = true;
  for (int k = 0, prev = -1; k < nj; k++)
    if (j[k].c) {
      chain = chain && (prev < 0 || j[k].b % j[prev].b == 0);
      prev = k;
    }
  int m = 0;
  for (int k = 0; k < nj; k++) {
    int64_t s = j[k].c, t;
    if (!s)
      continue;
    int w = k + 1;
    while (w < nj && !(j[w].c && j[w].b % j[k].b == 0))
      w++;
    /* No chain, so no common refinement: prefer the wrap that cancels a
     * jump, which gives back `(d0) mod 3` next to `(d0) floordiv 2`. */
    for (int q = w; !chain && q < nj; q++)
      if (j[q].c && j[q].b % j[k].b == 0 && ly_mul(s, j[q].b / j[k].b, &t) && t == -j[q].c) {
        w = q;
        break;
      }
    if (m == room)
      return -1;
    LyDigit x = {.stride = s, .div = j[k].b, .ext = (n - 1) / j[k].b + 1, .dim = d};
    if (w < nj) {
      x.wrap = true, x.ext = j[w].b / j[k].b;
      if (!ly_mul(s, x.ext, &t) || !ly_add(j[w].c, t, &j[w].c))
        return -1;
    }
    out[m++] = x;
  }
  return m;
}

/* Replaces the digits of dim d in g (n of them) by the cnt digits in out. */
static int replace_dim(LyDigit *g, int n, int d, const LyDigit *out, int cnt) {
  int w = 0;
  for (int k = 0; k < n; k++)
    if (g[k].dim != d)
      g[w++] = g[k];
  memcpy(g + w, out, cnt * sizeof *out);
  return w + cnt;
}

/* Rebuilds the simple digits of each static dim from their jumps. A dim
 * whose digits need more room than the list has keeps them as they are. */
static int refine_simple(int rank, const int64_t *dims, LyDigit *g, int n) {
  for (int d = 0; d < rank; d++) {
    int64_t nd = dims[d], span, t;
    if (nd == LY_DYNAMIC || nd < 2)
      continue;
    Jump j[2 * LY_MAX_DIGITS];
    int nj = 0, cnt = 0;
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
      const LyDigit *x = &g[k];
      if (x->dim != d)
        continue;
      cnt++;
      ok = x->stride != LY_DYNAMIC && (x->div >= nd || jump_add(j, &nj, x->div, x->stride));
      if (ok && x->wrap && ly_mul(x->div, x->ext, &span) && span < nd)
        ok = ly_mul(x->stride, -x->ext, &t) && jump_add(j, &nj, span, t);
    }
    LyDigit out[LY_MAX_DIGITS];
    int m = ok && cnt ? jumps_to_digits(d, nd, j, nj, out, LY_MAX_DIGITS - (n - cnt)) : -1;
    if (m >= 0)
      n = replace_dim(g, n, d, out, m);
  }
  return n;
}

/* A list with general digits is checked for being a sum of per-dim
 * functions on a box of at most SEPARABLE_MAX_BOX indices (one per residue
 * of the map's periods) and read along each axis, at most SEPARABLE_MAX_AXIS
 * values in all: a few milliseconds at worst. */
#define SEPARABLE_MAX_BOX (1 << 16)
#define SEPARABLE_MAX_AXIS (1 << 18)

/* sum of stride * value over g at idx; false on overflow. */
static bool digits_sum(const LyDigit *g, int n, int rank, const int64_t *idx, int64_t *out) {
  int64_t f = 0, t;
  for (int k = 0; k < n; k++)
    if (!ly_mul(g[k].stride, lyd_digit_value(&g[k], rank, idx), &t) || !ly_add(f, t, &f))
      return false;
  *out = f;
  return true;
}

/* lcm(a, b), or 0 (no period) when either is 0 or it passes cap. */
static int64_t period_lcm(int64_t a, int64_t b, int64_t cap) {
  int64_t r;
  if (!a || !b || !ly_mul(a / ly_gcd(a, b), b, &r) || r > cap)
    return 0;
  return r;
}

/* The period of g's value along dim d: value(i + p e_d) = value(i) + *inc
 * for every i with both indices in the type. 0 when there is none up to cap
 * or when a term of E is negative (E could then fall below 0 somewhere, where
 * C's division is not a floor). */
static int64_t digit_period(const LyDigit *g, int rank, int d, int64_t cap, int64_t *inc) {
  int64_t p = 1, de = 1, t;
  *inc = 0;
  if (g->dim >= 0 && g->dim != d)
    return 1;
  if (g->dim < 0) {
    int64_t sp[LY_MAX_DIGITS], si[LY_MAX_DIGITS];
    if (g->nsub > LY_MAX_DIGITS || g->coef[d] < 0)
      return 0;
    for (int j = 0; j < g->nsub && p; j++)
      p = g->sub[j].stride < 0 ? 0 : period_lcm(p, sp[j] = digit_period(&g->sub[j], rank, d, cap, &si[j]), cap);
    if (!p || !ly_mul(g->coef[d], p, &de))
      return 0;
    for (int j = 0; j < g->nsub; j++)
      if (!ly_mul(si[j], p / sp[j], &t) || !ly_mul(t, g->sub[j].stride, &t) || !ly_add(de, t, &de))
        return 0;
  }
  int64_t k = de ? g->div / ly_gcd(de, g->div) : 1; /* E grows by a multiple of div */
  if (!ly_mul(p, k, &p) || p > cap || !ly_mul(de, k, &de))
    return 0;
  *inc = de / g->div;
  if (g->wrap) { /* and the value by a multiple of ext */
    k = *inc ? g->ext / ly_gcd(*inc, g->ext) : 1;
    *inc = 0;
    if (!ly_mul(p, k, &p) || p > cap)
      return 0;
  }
  return p;
}

/* Where g (n digits) is a sum of per-dim functions on the static dims, its
 * simple digits, read off its values along each axis, into out (at most
 * room); -1 otherwise or past the bounds above.
 *
 * The check runs on a box, not on every index: with P_d the common period of
 * all digits along d (value(i + P_d e_d) = value(i) + c), the difference
 * h(i) = f(i) - sum_d f(i_d e_d) has period P_d in each dim, so it is 0
 * everywhere when it is 0 on i_d < min(n_d, P_d). */
static int axis_digits(int rank, const int64_t *dims, const LyDigit *g, int n, LyDigit *out, int room) {
  int64_t box[LY_MAX_RANK], idx[LY_MAX_RANK] = {0}, cells = 1, total = 0, inc, f;
  int64_t start[LY_MAX_RANK + 1] = {0};
  for (int d = 0; d < rank; d++) {
    int64_t p = 1;
    for (int k = 0; k < n && p; k++)
      p = period_lcm(p, digit_period(&g[k], rank, d, dims[d], &inc), dims[d]);
    box[d] = p ? p : dims[d];
    if (!ly_mul(cells, box[d], &cells) || cells > SEPARABLE_MAX_BOX || !ly_add(total, dims[d], &total) ||
        total > SEPARABLE_MAX_AXIS)
      return -1;
    start[d + 1] = total;
  }
  int64_t *axis = ly_malloc((size_t)(total ? total : 1) * sizeof *axis);
  int m = -1;
  if (!axis)
    return -1;
  for (int d = 0; d < rank; d++) { /* f_d(i) = offset at i e_d */
    for (int64_t i = 0; i < dims[d]; i++) {
      idx[d] = i;
      if (!digits_sum(g, n, rank, idx, &axis[start[d] + i]))
        goto done;
    }
    idx[d] = 0;
  }
  if (!digits_sum(g, n, rank, idx, &f) || f != 0)
    goto done;
  for (int64_t e = 0; e < cells; e++) { /* separable: offset = sum_d f_d(i_d) */
    int64_t sum = 0;
    for (int d = 0; d < rank; d++)
      if (!ly_add(sum, axis[start[d] + idx[d]], &sum))
        goto done;
    if (!digits_sum(g, n, rank, idx, &f) || f != sum)
      goto done;
    for (int d = rank - 1; d >= 0 && ++idx[d] == box[d]; d--)
      idx[d] = 0;
  }
  m = 0;
  for (int d = 0; d < rank && m >= 0; d++) {
    int r = lyd_function_digits(d, axis + start[d], dims[d], out + m, room - m);
    m = r < 0 ? -1 : m + r;
  }
done:
  ly_free(axis);
  return m;
}

int lyd_function_digits(int d, const int64_t *f, int64_t n, LyDigit *out, int room) {
  if (n < 2)
    return 0;
  int64_t *acc = ly_malloc((size_t)n * sizeof *acc), c;
  if (!acc)
    return -1;
  memset(acc, 0, (size_t)n * sizeof *acc);
  Jump j[2 * LY_MAX_DIGITS];
  int nj = 0, m = -1;
  bool ok = f[0] == 0;
  for (int64_t b = 1; b < n && ok; b++) { /* as axis_jumps, on the heap */
    ok = sub64(f[b], f[b - 1], &c) && sub64(c, acc[b], &c);
    if (!ok || !c)
      continue;
    ok = nj < 2 * LY_MAX_DIGITS;
    if (ok)
      j[nj++] = (Jump){b, c};
    for (int64_t q = 2 * b; q < n && ok; q += b)
      ok = ly_add(acc[q], c, &acc[q]);
  }
  if (ok)
    m = jumps_to_digits(d, n, j, nj, out, room);
  ly_free(acc);
  return m;
}

/* General digits that are sums of per-dim functions on a static type become
 * simple digits (`(2*d1 + d2) floordiv 2` on ?x?x2 is d1), one digit at a
 * time and then the whole list: such a digit then spells the same list as
 * its simple form does. Other general digits are left alone. */
static int separate_general(int rank, const int64_t *dims, LyDigit *g, int n) {
  bool general = false;
  int64_t v;
  for (int k = 0; k < n; k++) {
    general = general || g[k].dim < 0;
    if (g[k].stride == LY_DYNAMIC || !lyd_digit_expr_fits(&g[k], rank, dims, &v))
      return n;
  }
  for (int d = 0; d < rank && general; d++)
    if (dims[d] == LY_DYNAMIC)
      return n;
  if (!general)
    return n;
  LyDigit out[LY_MAX_DIGITS];
  general = false;
  for (int k = 0; k < n; k++) {
    int r = g[k].dim < 0 ? axis_digits(rank, dims, &g[k], 1, out, LY_MAX_DIGITS - (n - 1)) : -1;
    if (r < 0) {
      general = general || g[k].dim < 0;
      continue;
    }
    g[k--] = g[--n]; /* drop it (the moved digit is looked at next) */
    memcpy(g + n, out, r * sizeof *out);
    n += r;
  }
  int r = general ? axis_digits(rank, dims, g, n, out, LY_MAX_DIGITS) : -1;
  if (r < 0)
    return n;
  memcpy(g, out, r * sizeof *out);
  return r;
}

int lyd_find_root(int *up, int d) {
  while (up[d] != d)
    d = up[d] = up[up[d]];
  return d;
}

/* A static map that general digits still mix after separate_general, on at
 * most SEPARABLE_MAX_BOX elements, is rebuilt from its values f. Its dims
 * fall into the parts no sum of functions splits: d and e are in one part
 * when a mixed difference f(i + e_d + e_e) - f(i + e_d) - f(i + e_e) + f(i)
 * is not 0 somewhere (f is a sum of functions of the parts exactly when no
 * such difference across parts is). A part of one dim gets that dim's
 * digits from its jumps (refine_simple's rule); a part of several gets the
 * digits of its function of their row-major index E (one-to-one on its
 * box), by the same rule, as general digits of E, its dims in the order
 * that takes the fewest digits (the first such; every order for parts of
 * up to PART_ORDERS_MAX_DIMS dims). All of it follows from
 * the map, so two spellings of one map (tilings that combine dims, each
 * tiled differently) make one list. Only when each part takes at most
 * ROW_MAJOR_MAX_DIGITS digits (a rule on the map alone too): a skew like
 * (d0 + d1) floordiv 2 on 8x8 is 31 digits of E and keeps its own. -1 on
 * OOM; n, the list kept, otherwise. */
#define ROW_MAJOR_MAX_DIGITS 8
#define PART_ORDERS_MAX_DIMS 4 /* parts of more dims take their dims in index order only */

/* The next permutation of a in lexicographic order; false after the last. */
static bool next_order(int *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1])
    i--;
  if (i < 0)
    return false;
  int j = n - 1;
  while (a[j] <= a[i])
    j--;
  int t = a[i];
  a[i] = a[j], a[j] = t;
  for (int l = i + 1, h = n - 1; l < h; l++, h--)
    t = a[l], a[l] = a[h], a[h] = t;
  return true;
}
static int row_major_general(int rank, const int64_t *dims, LyDigit *g, int n, LyArena *scratch) {
  bool general = false;
  for (int k = 0; k < n; k++) {
    general = general || g[k].dim < 0;
    if (g[k].stride == LY_DYNAMIC)
      return n;
  }
  int64_t numel = 1, rs[LY_MAX_RANK];
  for (int d = rank - 1; d >= 0 && general; d--) {
    if (dims[d] == LY_DYNAMIC || (rs[d] = numel, !ly_mul(numel, dims[d], &numel)) || numel > SEPARABLE_MAX_BOX)
      return n;
  }
  if (!general)
    return n;
  for (int k = 0; k < n; k++) { /* as separate_general: only expressions that fit in 64 bits are evaluated */
    int64_t v;
    if (!lyd_digit_expr_fits(&g[k], rank, dims, &v))
      return n;
  }
  int64_t *f = ly_malloc((size_t)numel * 2 * sizeof *f), idx[LY_MAX_RANK] = {0};
  if (!f)
    return -1;
  int64_t *part_f = f + numel; /* one part's values along its row-major index */
  bool ok = true;
  for (int64_t e = 0; e < numel && ok; e++) {
    ok = digits_sum(g, n, rank, idx, &f[e]);
    for (int d = rank - 1; d >= 0 && ++idx[d] == dims[d]; d--)
      idx[d] = 0;
  }
  int up[LY_MAX_RANK];
  for (int d = 0; d < rank; d++)
    up[d] = d;
  for (int d = 0; d < rank && ok; d++)
    for (int e = d + 1; e < rank && dims[d] > 1; e++) {
      if (dims[e] < 2 || lyd_find_root(up, d) == lyd_find_root(up, e))
        continue;
      bool mixed = false;
      memset(idx, 0, sizeof idx);
      for (int64_t t = 0; t < numel && !mixed; t++) {
        int64_t a, b;
        if (idx[d] + 1 < dims[d] && idx[e] + 1 < dims[e])
          mixed = !sub64(f[t + rs[d] + rs[e]], f[t + rs[d]], &a) || !sub64(f[t + rs[e]], f[t], &b) || a != b;
        for (int q = rank - 1; q >= 0 && ++idx[q] == dims[q]; q--)
          idx[q] = 0;
      }
      if (mixed)
        up[lyd_find_root(up, e)] = lyd_find_root(up, d);
    }
  LyDigit out[LY_MAX_DIGITS];
  int m = 0;
  for (int root = 0; root < rank && ok; root++) {
    if (lyd_find_root(up, root) != root || dims[root] < 2)
      continue;
    int nd = 0, pd[LY_MAX_RANK];
    for (int d = 0; d < rank; d++)
      if (dims[d] > 1 && lyd_find_root(up, d) == root)
        pd[nd++] = d;
    int room = LY_MAX_DIGITS - m, r = -1;
    if (nd == 1) {
      for (int64_t e = 0; e < dims[root]; e++)
        part_f[e] = f[e * rs[root]];
      r = lyd_function_digits(root, part_f, dims[root], out + m, room);
    } else { /* the order of the part's dims with the fewest digits, the first such in lexicographic order */
      LyDigit best[ROW_MAJOR_MAX_DIGITS], cand[ROW_MAJOR_MAX_DIGITS];
      int64_t pos[LY_MAX_RANK], best_pos[LY_MAX_RANK];
      int best_order[LY_MAX_RANK], order[LY_MAX_RANK];
      for (int j = 0; j < nd; j++)
        order[j] = pd[j];
      for (bool more = true; more; more = nd <= PART_ORDERS_MAX_DIMS && next_order(order, nd)) {
        int64_t pn = 1;
        for (int j = nd - 1; j >= 0; j--)
          pos[j] = pn, pn *= dims[order[j]];
        for (int64_t e = 0; e < pn; e++) { /* the part's dims in this order, the others 0 */
          int64_t t = 0;
          for (int j = 0; j < nd; j++)
            t += (e / pos[j] % dims[order[j]]) * rs[order[j]];
          part_f[e] = f[t];
        }
        int lim = room < ROW_MAJOR_MAX_DIGITS ? room : ROW_MAJOR_MAX_DIGITS;
        int c = lyd_function_digits(-1, part_f, pn, cand, r >= 0 && r - 1 < lim ? r - 1 : lim);
        if (c >= 0 && (r < 0 || c < r)) {
          r = c;
          memcpy(best, cand, c * sizeof *cand);
          memcpy(best_order, order, sizeof order);
          memcpy(best_pos, pos, sizeof pos);
        }
      }
      int64_t *coef = r > 0 ? ly_arena_alloc(scratch, (size_t)rank * sizeof *coef) : NULL;
      if (r > 0 && !coef) {
        ly_free(f);
        return -1;
      }
      for (int j = 0; j < nd && r > 0; j++)
        coef[best_order[j]] = best_pos[j];
      for (int k = 0; k < r; k++)
        best[k].dim = -1, best[k].coef = coef, best[k].nsub = 0, best[k].sub = NULL;
      if (r > 0)
        memcpy(out + m, best, r * sizeof *best);
    }
    ok = r >= 0;
    m += ok ? r : 0;
  }
  ly_free(f);
  if (!ok)
    return n;
  memcpy(g, out, m * sizeof *out);
  return m;
}

int lyd_canonicalize(int rank, const int64_t *dims, LyDigit *g, int n, LyArena *scratch) {
  for (int d = 0; d < rank; d++)
    if (dims[d] == 0)
      return 0; /* no elements: no digit means anything */
  int m = 0;
  for (int k = 0; k < n; k++) {
    LyDigit x = g[k];
    if (x.stride == 0)
      continue;
    int r = normalize_digit(&x, rank, dims, scratch);
    if (r < 0)
      return -1;
    if (r > 0 && x.stride != 0)
      g[m++] = x;
  }
  for (;;) {
    int before = m;
    m = merge_duplicates(rank, g, m);
    n = merge_digits(rank, dims, g, m);
    /* Fewer digits (a merge of pieces can rebuild a digit another one
     * duplicates): merge again. The count only falls, so this ends. */
    bool changed = n < before;
    /* A merge can leave E = value(sub) alone: collapse it. */
    for (int k = 0; k < n; k++)
      if (g[k].dim < 0 && collapse_single_sub(&g[k], rank)) {
        changed = true;
        int r = normalize_digit(&g[k], rank, dims, scratch);
        if (r < 0)
          return -1;
        if (r == 0)
          g[k--] = g[--n]; /* always 0: drop it */
      }
    m = expand_linear(rank, dims, g, n, &changed);
    if (!changed)
      break;
  }
  n = row_major_general(rank, dims, g, refine_simple(rank, dims, g, separate_general(rank, dims, g, n)), scratch);
  if (n < 0)
    return -1;
  sort_digits(g, n, rank);
  return n;
}

/* --- Interning ------------------------------------------------------------ */

static uint64_t digit_hash(uint64_t h, const LyDigit *g, int rank) {
  h = ly_hash_i64(h, g->stride);
  h = ly_hash_i64(h, g->div);
  h = ly_hash_i64(h, g->ext);
  h = ly_hash_i64(h, g->wrap);
  h = ly_hash_i64(h, g->dim);
  if (g->dim < 0) {
    for (int d = 0; d < rank; d++)
      h = ly_hash_i64(h, g->coef[d]);
    h = ly_hash_i64(h, g->nsub);
    for (int j = 0; j < g->nsub; j++)
      h = digit_hash(h, &g->sub[j], rank);
  }
  return h;
}

static uint64_t type_hash(const LyTypeImpl *t) {
  uint64_t h = LY_HASH_INIT;
  h = ly_hash_i64(h, t->elem);
  h = ly_hash_i64(h, t->rank);
  for (int d = 0; d < t->rank; d++)
    h = ly_hash_i64(h, t->dims[d]);
  h = ly_hash_i64(h, t->ms_num);
  if (t->ms_str)
    h = ly_hash_bytes(ly_hash_i64(h, 1), t->ms_str, strlen(t->ms_str));
  h = ly_hash_i64(h, t->kind);
  h = ly_hash_i64(h, t->base);
  h = ly_hash_i64(h, t->alloc);
  h = ly_hash_i64(h, t->ndigits);
  for (int k = 0; k < t->ndigits; k++)
    h = digit_hash(h, &t->digits[k], t->rank);
  if (t->symbolic)
    h = ly_hash_bytes(ly_hash_i64(h, 2), t->symbolic, strlen(t->symbolic));
  if (t->enc)
    h = lyd_enc_hash(ly_hash_i64(h, 3), t->enc);
  return h;
}

bool lyd_digits_equal(int rank, const LyDigit *a, const LyDigit *b, int n) {
  for (int k = 0; k < n; k++)
    if (digit_cmp_r(&a[k], &b[k], rank))
      return false;
  return true;
}

static bool str_eq(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

static bool type_equal(const LyTypeImpl *a, const LyTypeImpl *b) {
  return a->hash == b->hash && a->elem == b->elem && a->rank == b->rank &&
         !memcmp(a->dims, b->dims, a->rank * sizeof(int64_t)) && a->ms_num == b->ms_num &&
         str_eq(a->ms_str, b->ms_str) && a->kind == b->kind && a->base == b->base &&
         a->alloc == b->alloc && a->ndigits == b->ndigits &&
         lyd_digits_equal(a->rank, a->digits, b->digits, a->ndigits) && str_eq(a->symbolic, b->symbolic) &&
         lyd_enc_equal(a->enc, b->enc);
}

static bool grow(LyCtx *c) {
  size_t nb = c->nbuckets * 2;
  LyTypeImpl **b = ly_malloc(nb * sizeof *b);
  if (!b)
    return false;
  memset(b, 0, nb * sizeof *b);
  for (size_t i = 0; i < c->nbuckets; i++)
    for (LyTypeImpl *t = c->buckets[i], *n; t; t = n) {
      n = t->next;
      t->next = b[t->hash & (nb - 1)];
      b[t->hash & (nb - 1)] = t;
    }
  ly_free(c->buckets);
  c->buckets = b;
  c->nbuckets = nb;
  return true;
}

static const LyTypeImpl *intern_canonical(LyCtx *c, LyTypeImpl *t, LyDigit *digits, LyArena *scratch,
                                          const char **why);

/* Moves a digit's coefficient and sub-digit storage into the arena. */
static bool digit_deep_copy(LyArena *a, LyDigit *g, int rank) {
  if (g->dim >= 0)
    return true;
  if (!(g->coef = ly_arena_dup(a, g->coef, rank * sizeof(int64_t))))
    return false;
  if (!g->nsub)
    return true;
  LyDigit *s = ly_arena_dup(a, g->sub, g->nsub * sizeof *s);
  if (!s)
    return false;
  for (int j = 0; j < g->nsub; j++)
    if (!digit_deep_copy(a, &s[j], rank))
      return false;
  g->sub = s;
  return true;
}

int lyd_check_numel(int rank, const int64_t *dims) {
  int64_t numel = 1;
  for (int d = 0; d < rank; d++)
    if (dims[d] != LY_DYNAMIC && !ly_mul(numel, dims[d], &numel))
      return d;
  return -1;
}

bool lyd_check_alloc_bits(int64_t alloc, LyElem elem) {
  int64_t bits;
  return alloc == LY_DYNAMIC || ly_mul(alloc, lyElemGetBits(elem), &bits);
}

/* Whether g's nesting (g counted as level 1) stays within the printable limits. */
static bool nest_ok(const LyDigit *g, int level) {
  if (level > LY_MAX_DIGIT_NEST || g->nsub > LY_MAX_SUBS)
    return false;
  for (int j = 0; j < g->nsub; j++)
    if (!nest_ok(&g->sub[j], level + 1))
      return false;
  return true;
}

/* Whether every partial sum of g's expression E (and of its nested digits')
 * fits 64 bits on the type's static dims: the sum of |term| maxima does.
 * A wrapped digit's value is small whatever E is, so the range checks never
 * look at E; evaluating it must not overflow either. Dynamic dims pass. */
bool lyd_digit_expr_fits(const LyDigit *g, int rank, const int64_t *dims, int64_t *max_value) {
  int64_t e = 0, term;
  if (g->dim >= 0) {
    e = dims[g->dim] == LY_DYNAMIC ? 0 : dims[g->dim] - 1;
  } else {
    for (int d = 0; d < rank; d++)
      if (g->coef[d] && dims[d] != LY_DYNAMIC &&
          (!ly_mul(g->coef[d], dims[d] - 1, &term) || !ly_add(e, term, &e)))
        return false;
    for (int j = 0; j < g->nsub; j++) {
      int64_t v;
      if (!lyd_digit_expr_fits(&g->sub[j], rank, dims, &v))
        return false;
      if (g->sub[j].stride != LY_DYNAMIC &&
          (!ly_mul(g->sub[j].stride < 0 ? -g->sub[j].stride : g->sub[j].stride, v, &term) || !ly_add(e, term, &e)))
        return false;
    }
  }
  e /= g->div;
  *max_value = g->wrap && e >= g->ext ? g->ext - 1 : e;
  return true;
}

const char *lyd_check_sizes(const LyTypeImpl *t) {
  if (lyd_check_numel(t->rank, t->dims) >= 0)
    return "number of elements overflows 64 bits";
  if (t->kind == LYD_DIGITS && !lyd_check_alloc_bits(t->alloc, t->elem))
    return "size in bits overflows 64 bits";
  int64_t end;
  if (t->kind == LYD_DIGITS && t->alloc != LY_DYNAMIC && t->base != LY_DYNAMIC && !ly_add(t->base, t->alloc, &end))
    return "offsets overflow 64 bits";
  for (int k = 0; t->kind == LYD_DIGITS && k < t->ndigits; k++)
    if (!nest_ok(&t->digits[k], 1))
      return "digits nested deeper or wider than the general form allows";
  int64_t v;
  for (int k = 0; t->kind == LYD_DIGITS && k < t->ndigits; k++)
    if (!lyd_digit_expr_fits(&t->digits[k], t->rank, t->dims, &v))
      return "a digit's expression overflows 64 bits";
  return NULL;
}

const LyTypeImpl *lyd_intern(LyCtx *c, LyTypeImpl *t, LyDigit *digits) {
  LY_ASSERT(t->ndigits <= LY_MAX_DIGITS);
  const char *why = NULL;
  LyArena scratch;
  ly_arena_init(&scratch);
  const LyTypeImpl *r = intern_canonical(c, t, digits, &scratch, &why);
  ly_arena_free(&scratch);
  if (!r)
    ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s", why ? why : "out of memory");
  return r;
}

bool lyd_note_spelling(LyCtx *c, const LyTypeImpl *t, const char *text, size_t len) {
  if (__atomic_load_n(&t->spelled, __ATOMIC_ACQUIRE))
    return true;
  char *s = ly_arena_strndup(&c->arena, text, len);
  if (s) /* creators take turns (docs/capi.md); printers only read it */
    __atomic_store_n(&((LyTypeImpl *)t)->spelled, s, __ATOMIC_RELEASE);
  return s != NULL;
}

/* NULL with *why set when t breaks the size rules, NULL alone on OOM. */
static const LyTypeImpl *intern_canonical(LyCtx *c, LyTypeImpl *t, LyDigit *digits, LyArena *scratch,
                                          const char **why) {
  int64_t numel = 1;
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == 0)
      numel = 0;
  if (t->kind == LYD_DIGITS) {
    t->ndigits = numel ? lyd_canonicalize(t->rank, t->dims, digits, t->ndigits, scratch) : 0;
    if (t->ndigits < 0)
      return NULL;
    if (!numel)
      t->base = 0, t->alloc = 0; /* no elements: nothing to place */
  } else {
    t->ndigits = 0;
  }
  t->digits = digits;
  if ((*why = lyd_check_sizes(t)))
    return NULL;
  if (t->ms_str && !*t->ms_str)
    t->ms_str = NULL;
  t->hash = type_hash(t);
  size_t b = t->hash & (c->nbuckets - 1);
  for (LyTypeImpl *e = c->buckets[b]; e; e = e->next)
    if (type_equal(e, t))
      return e;
  /* Copy into the context. */
  LyTypeImpl *n = ly_arena_dup(&c->arena, t, sizeof *t);
  if (!n)
    return NULL;
  n->spelled = n->searched = NULL;
  n->interned = true;
  if (t->ndigits) {
    LyDigit *g = ly_arena_dup(&c->arena, digits, t->ndigits * sizeof *g);
    if (!g)
      return NULL;
    for (int k = 0; k < t->ndigits; k++)
      if (!digit_deep_copy(&c->arena, &g[k], t->rank))
        return NULL;
    n->digits = g;
  } else {
    n->digits = NULL;
  }
  if (t->ms_str && !(n->ms_str = ly_arena_strndup(&c->arena, t->ms_str, strlen(t->ms_str))))
    return NULL;
  if (t->symbolic && !(n->symbolic = ly_arena_strndup(&c->arena, t->symbolic, strlen(t->symbolic))))
    return NULL;
  if (t->enc && !(n->enc = ly_arena_dup(&c->arena, t->enc, sizeof *t->enc)))
    return NULL;
  if (c->count + 1 > c->nbuckets && !grow(c))
    return NULL;
  b = n->hash & (c->nbuckets - 1);
  n->next = c->buckets[b];
  c->buckets[b] = n;
  c->count++;
  return n;
}

/* --- Shared lowering helpers ---------------------------------------------- */

int lyd_row_major_digits(int rank, const int64_t *dims, LyDigit *out, int64_t *alloc) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    out[d] = (LyDigit){.stride = s, .div = 1, .ext = dims[d], .dim = d};
    if (s == LY_DYNAMIC || dims[d] == LY_DYNAMIC)
      s = LY_DYNAMIC;
    else if (!ly_mul(s, dims[d], &s))
      return -1;
  }
  *alloc = s;
  return rank;
}

int lyd_morton_digits(int rank, const int64_t *dims, LyDigit *out, int64_t *alloc) {
  int bits[LY_MAX_RANK], most = 0, n = 0, pos = 0;
  for (int d = 0; d < rank; d++) { /* each dim padded to a power of two */
    for (bits[d] = 0; ((int64_t)1 << bits[d]) < dims[d]; bits[d]++)
      if (bits[d] == 62)
        return -1; /* past 2^62: no power of two holds it */
    most = bits[d] > most ? bits[d] : most;
  }
  for (int k = 0; k < most; k++) /* bit k of every dim, the last dim lowest */
    for (int d = rank - 1; d >= 0; d--) {
      if (k >= bits[d])
        continue;
      if (pos >= 62 || n == LY_MAX_DIGITS)
        return -1;
      bool top = k == bits[d] - 1;
      out[n++] = (LyDigit){.stride = (int64_t)1 << pos++, .div = (int64_t)1 << k, .ext = 2, .wrap = !top, .dim = d};
    }
  bool empty = false;
  for (int d = 0; d < rank; d++)
    empty = empty || dims[d] == 0;
  *alloc = empty ? 0 : (int64_t)1 << pos;
  return empty ? 0 : n;
}

bool lyd_is_static(const LyTypeImpl *t) {
  if (t->kind != LYD_DIGITS || t->base == LY_DYNAMIC || t->alloc == LY_DYNAMIC)
    return false;
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == LY_DYNAMIC)
      return false;
  for (int k = 0; k < t->ndigits; k++)
    if (t->digits[k].stride == LY_DYNAMIC)
      return false;
  return true;
}

int64_t lyd_offset(const LyTypeImpl *t, const int64_t *idx) {
  int64_t off = t->base;
  for (int k = 0; k < t->ndigits; k++)
    off += t->digits[k].stride * lyd_digit_value(&t->digits[k], t->rank, idx);
  return off;
}

static bool text_is(const char *s, size_t n, const char *lit) { return n == strlen(lit) && !memcmp(s, lit, n); }

bool lyd_foreign_name(const char *s, size_t n) {
  static const char *const names[] = {"index", "none", "f16", "bf16", "f32", "f64", "f80", "f128", "tf32"};
  static const char *const composites[] = {"memref<", "vector<", "complex<", "tuple<"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (text_is(s, n, names[i]))
      return true;
  for (size_t i = 0; i < sizeof composites / sizeof *composites; i++)
    if (n >= strlen(composites[i]) && !memcmp(s, composites[i], strlen(composites[i])))
      return true;
  if (n > 1 && s[0] == '!')
    return true;
  size_t k = n > 1 && s[0] == 'i' ? 1 : n > 2 && (s[0] == 's' || s[0] == 'u') && s[1] == 'i' ? 2 : 0;
  bool digits = k > 0 && k < n && n - k <= 5;
  for (size_t i = k; i < n && digits; i++)
    digits = s[i] >= '0' && s[i] <= '9';
  if (digits)
    return true;
  /* f8E4M3FN, f6E2M3FN, f4E2M1FN, ...: small floats by name */
  return n > 3 && s[0] == 'f' && s[1] >= '4' && s[1] <= '8' && s[2] == 'E';
}

const LyTypeImpl *lyd_foreign(LyCtx *c, const char *text, size_t len) {
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  t.kind = LYD_FOREIGN;
  char *s = ly_arena_strndup(&c->arena, text, len); /* NUL-terminated for interning */
  if (!s) {
    ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  t.symbolic = s;
  return lyd_intern(c, &t, NULL);
}

int lyTypeIsTensor(LyType t) { return !lyd_is_foreign(lyd_type(t)); }

LyType lyTypeGetRowMajor(LyContext ctx, LyElem elem, int rank, const int64_t *dims) {
  LyCtx *c = lyd_ctx(ctx);
  if ((unsigned)elem >= LY_ELEM_COUNT || rank < 0 || rank > LY_MAX_RANK) {
    ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "invalid element type or rank %d", rank);
    return (LyType){NULL};
  }
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  t.elem = elem;
  t.rank = rank;
  bool dynamic = false;
  for (int d = 0; d < rank; d++) {
    if (dims[d] < 0 && dims[d] != LY_DYNAMIC) {
      ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "dim %d is negative", d);
      return (LyType){NULL};
    }
    dynamic = dynamic || dims[d] == LY_DYNAMIC;
    t.dims[d] = dims[d];
  }
  LyDigit g[LY_MAX_RANK];
  if (dynamic) {
    t.kind = LYD_SYMBOLIC;
    t.symbolic = "";
  } else if ((t.ndigits = lyd_row_major_digits(rank, dims, g, &t.alloc)) < 0) {
    ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "number of elements overflows 64 bits");
    return (LyType){NULL};
  }
  return lyd_wrap(lyd_intern(c, &t, g));
}

bool lyd_plain_strides(const LyTypeImpl *t, int64_t *strides) {
  bool has[LY_MAX_RANK] = {0};
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    if (g->dim < 0 || g->div != 1 || g->wrap || has[g->dim])
      return false;
    has[g->dim] = true;
    strides[g->dim] = g->stride;
  }
  /* Dims without a digit: broadcast (stride 0), or extent 1, where any
   * stride gives the same map; use the contiguous one there. */
  int64_t natural = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    if (!has[d])
      strides[d] = t->dims[d] == 1 ? natural : 0;
    int64_t next;
    if (strides[d] > 0 && t->dims[d] > 0 && ly_mul(strides[d], t->dims[d], &next))
      natural = next;
  }
  return true;
}

/* --- Offset range ---------------------------------------------------------- */

/* Work allowed to enumerate offsets exactly, in digit evaluations (one per
 * digit node and coefficient, per visited index): a few milliseconds. Past
 * it the range is the analytic bound. Documented in docs/fuzzing.md. */
#define RANGE_WORK_BUDGET (1 << 22)

int64_t lyd_digit_cost(const LyDigit *g, int rank) {
  if (g->dim >= 0)
    return 1;
  int64_t c = 1;
  for (int d = 0; d < rank; d++)
    c += g->coef[d] != 0;
  for (int j = 0; j < g->nsub; j++)
    c += lyd_digit_cost(&g->sub[j], rank);
  return c;
}

static unsigned digit_dims(const LyDigit *g, int rank) {
  unsigned m = 0;
  for (int d = 0; d < rank; d++)
    if (lyd_digit_uses_dim(g, rank, d))
      m |= 1u << d;
  return m;
}

/* The conservative bound: every digit at its extreme independently (the
 * digits in sel, or all when sel is NULL). */
static bool loose_range_sel(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, int64_t *lo,
                            int64_t *hi) {
  *lo = *hi = 0;
  for (int k = 0; k < n; k++) {
    if (sel && !sel[k])
      continue;
    int64_t top = lyd_digit_max_value(&g[k], rank, dims), reach;
    if (top == LY_DYNAMIC || g[k].stride == LY_DYNAMIC || !ly_mul(g[k].stride, top, &reach) ||
        !ly_add(reach < 0 ? *lo : *hi, reach, reach < 0 ? lo : hi))
      return false;
  }
  return true;
}

static bool loose_range(int rank, const int64_t *dims, const LyDigit *g, int n, int64_t *lo, int64_t *hi) {
  return loose_range_sel(rank, dims, g, n, NULL, lo, hi);
}

/* Exact extremes of the simple digits in `sel` when they all read one dim d
 * and form a mixed-radix split of it (XLA tiles, oneDNN blocks): digit k is
 * (d floordiv div_k) mod ext_k, the divs nested (div_k+1 a multiple of
 * div_k * ext_k), only the last one unwrapped. Filling the gaps with
 * stride-0 digits makes d's full mixed-radix expansion, and the extremes
 * over d <= N follow digit by digit: equal to N's digits down to some
 * position, below N's digit there, free underneath. O(digits^2), no visit;
 * false when the digits are not such a split. */
/* g as one simple digit (stride aside), when it is one in disguise: a
 * general digit of a single nested digit, ((d floordiv a) [mod m]) floordiv b
 * [mod e], as the parser builds it before canonicalizing; false otherwise. */
static bool as_simple(const LyDigit *g, int rank, LyDigit *out) {
  if (g->dim >= 0) {
    *out = *g;
    return true;
  }
  for (int d = 0; d < rank; d++)
    if (g->coef[d])
      return false;
  LyDigit in;
  if (g->nsub != 1 || g->sub[0].stride != 1 || !as_simple(&g->sub[0], rank, &in) ||
      !ly_mul(in.div, g->div, &out->div))
    return false;
  out->dim = in.dim, out->stride = g->stride, out->coef = NULL, out->nsub = 0, out->sub = NULL;
  out->wrap = g->wrap, out->ext = g->ext;
  if (!in.wrap) /* (d floordiv a) floordiv b = d floordiv ab */
    return true;
  if (in.ext % g->div) /* the inner mod cuts a piece of the outer digit */
    return false;
  int64_t m = in.ext / g->div; /* ((d/a) mod m)/b = (d/ab) mod m/b */
  if (!g->wrap || g->ext >= m)
    out->wrap = true, out->ext = m;
  else if (m % g->ext) /* x mod m mod e = x mod e when e divides m */
    return false;
  return true;
}

/* The digits in `sel` as simple digits (as_simple) into s, when they all
 * read one dim *dim of static, positive size with known strides: their
 * count, else 0. */
static int one_dim_digits(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, LyDigit *s,
                          int *dim) {
  int ns = 0;
  *dim = -1;
  for (int k = 0; k < n; k++) {
    if (!sel[k])
      continue;
    LyDigit *q = &s[ns++];
    if (!as_simple(&g[k], rank, q) || (*dim >= 0 && q->dim != *dim) || q->stride == LY_DYNAMIC)
      return 0;
    *dim = q->dim;
  }
  return ns && dims[*dim] != LY_DYNAMIC && dims[*dim] > 0 ? ns : 0;
}

static bool split_range(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, int64_t *lo,
                        int64_t *hi) {
  LyDigit all[LY_MAX_DIGITS];
  const LyDigit *s[LY_MAX_DIGITS];
  int dim, ns = one_dim_digits(rank, dims, g, n, sel, all, &dim);
  if (!ns)
    return false;
  for (int k = 0; k < ns; k++) { /* insertion sort by div */
    int j = k;
    for (; j > 0 && s[j - 1]->div > all[k].div; j--)
      s[j] = s[j - 1];
    s[j] = &all[k];
  }
  /* The full expansion: radix r (0 = unbounded, the top only), stride st. */
  int64_t r[2 * LY_MAX_DIGITS + 1], st[2 * LY_MAX_DIGITS + 1], pos = 1;
  int nr = 0;
  for (int k = 0; k < ns; k++) {
    if (pos == 0 || s[k]->div % pos)
      return false; /* overlaps the digit below, or an earlier digit was unwrapped */
    if (s[k]->div > pos)
      r[nr] = s[k]->div / pos, st[nr++] = 0;
    r[nr] = s[k]->wrap ? s[k]->ext : 0, st[nr++] = s[k]->stride;
    if (!s[k]->wrap)
      pos = 0;
    else if (!ly_mul(s[k]->div, s[k]->ext, &pos))
      return false;
  }
  if (pos)
    r[nr] = 0, st[nr++] = 0;
  /* N's digits (N = dims[dim] - 1), then the extremes. */
  int64_t N = dims[dim] - 1, nd[2 * LY_MAX_DIGITS + 1], rest = N;
  for (int j = 0; j < nr; j++) {
    nd[j] = r[j] ? rest % r[j] : rest;
    rest = r[j] ? rest / r[j] : 0;
  }
  int64_t eq = 0, free_lo[2 * LY_MAX_DIGITS + 2], free_hi[2 * LY_MAX_DIGITS + 2], t;
  free_lo[0] = free_hi[0] = 0;
  for (int j = 0; j < nr; j++) { /* lower digits free: each at its own extreme */
    int64_t top = r[j] ? r[j] - 1 : nd[j];
    if (!ly_mul(st[j], top, &t) || !ly_add(free_lo[j], t < 0 ? t : 0, &free_lo[j + 1]) ||
        !ly_add(free_hi[j], t > 0 ? t : 0, &free_hi[j + 1]))
      return false;
  }
  for (int j = 0; j < nr; j++)
    if (!ly_mul(st[j], nd[j], &t) || !ly_add(eq, t, &eq))
      return false;
  int64_t l = eq, h = eq, above = 0; /* d = N itself; `above`: N's digits over j */
  for (int j = nr - 1; j >= 0; j--) {
    if (nd[j] > 0) { /* digit j in [0, nd[j] - 1], lower digits free */
      int64_t a, b;
      if (!ly_mul(st[j], nd[j] - 1, &t) || !ly_add(above, t < 0 ? t : 0, &a) || !ly_add(a, free_lo[j], &a) ||
          !ly_add(above, t > 0 ? t : 0, &b) || !ly_add(b, free_hi[j], &b))
        return false;
      l = a < l ? a : l, h = b > h ? b : h;
    }
    if (!ly_mul(st[j], nd[j], &t) || !ly_add(above, t, &above))
      return false;
  }
  *lo = l, *hi = h;
  return true;
}

static bool visit_range(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, unsigned dims_m,
                        int64_t count, int64_t *lo, int64_t *hi);

/* Exact extremes of simple digits in `sel` that all read one dim d but do
 * not split it (they overlap: what canonicalizing a sum of digits of one dim
 * leaves, e.g. (d floordiv 4) * 12 + (d mod 4) * 4 + (d floordiv 6) * -6),
 * by their period. With P the lcm of every digit's div (times its ext where
 * it wraps), d = P q + r makes a wrapped digit a function of r alone and an
 * unwrapped one q P/div + r floordiv div, so the sum is q S + f(r): one visit
 * of r over a period gives the extremes over the whole periods and over the
 * last, partial one. False when the period is no shorter than d (visiting d
 * costs no more) or costs more than *budget (left alone then). The values
 * stay within the loose bound, which did not overflow. */
static bool periodic_range(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, int64_t *budget,
                           int64_t *lo, int64_t *hi) {
  LyDigit s[LY_MAX_DIGITS];
  int dim, ns = one_dim_digits(rank, dims, g, n, sel, s, &dim);
  int64_t P = 1, work, period;
  if (!ns)
    return false;
  for (int k = 0; k < ns; k++)
    if (!(s[k].wrap ? ly_mul(s[k].div, s[k].ext, &period) : (period = s[k].div, true)) ||
        !ly_mul(P / ly_gcd(P, period), period, &P))
      return false;
  if (dims[dim] <= P || !ly_mul(P, ns, &work) || work > *budget)
    return false;
  *budget -= work;
  int64_t last = dims[dim] - 1, Q = last / P, R = last % P, S = 0, t;
  for (int k = 0; k < ns; k++)
    if (!s[k].wrap && (!ly_mul(s[k].stride, P / s[k].div, &t) || !ly_add(S, t, &S)))
      return false;
  int64_t all_lo = INT64_MAX, all_hi = INT64_MIN, part_lo = INT64_MAX, part_hi = INT64_MIN;
  for (int64_t r = 0; r < P; r++) {
    int64_t f = 0;
    for (int k = 0; k < ns; k++) {
      int64_t v = r / s[k].div;
      f += s[k].stride * (s[k].wrap ? v % s[k].ext : v);
    }
    all_lo = f < all_lo ? f : all_lo, all_hi = f > all_hi ? f : all_hi;
    if (r == R)
      part_lo = all_lo, part_hi = all_hi;
  }
  /* q in [0, Q): any r; q = Q: r <= R. */
  int64_t qs, top, l, h;
  if (!ly_mul(Q - 1, S, &qs) || !ly_mul(Q, S, &top) || !ly_add(top, part_lo, &l) || !ly_add(top, part_hi, &h) ||
      !ly_add(qs < 0 ? qs : 0, all_lo, &all_lo) || !ly_add(qs > 0 ? qs : 0, all_hi, &all_hi))
    return false;
  *lo = all_lo < l ? all_lo : l, *hi = all_hi > h ? all_hi : h;
  return true;
}

/* Exact extremes of the digits in `sel` (which use only the dims in `dims_m`)
 * in closed form where they split one dim (split_range), by one period
 * where they overlap on one dim (periodic_range), else by visiting every
 * index of those dims; false when that costs more than *budget (which it
 * then leaves alone). One plain digit needs no visit. */
static bool component_range(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel,
                            unsigned dims_m, int64_t *budget, int64_t *lo, int64_t *hi) {
  int64_t count = 1, cost = 0, work;
  int nsel = 0, last = -1;
  for (int d = 0; d < rank; d++)
    if (dims_m >> d & 1 && !ly_mul(count, dims[d], &count))
      return false;
  for (int k = 0; k < n; k++)
    if (sel[k])
      cost += lyd_digit_cost(&g[k], rank), nsel++, last = k;
  *lo = *hi = 0;
  if (nsel == 1 && g[last].dim >= 0 && g[last].div == 1 && !g[last].wrap) {
    int64_t end;
    if (!ly_mul(g[last].stride, dims[g[last].dim] - 1, &end))
      return false;
    *lo = end < 0 ? end : 0, *hi = end > 0 ? end : 0;
    return true;
  }
  if (split_range(rank, dims, g, n, sel, lo, hi) || periodic_range(rank, dims, g, n, sel, budget, lo, hi)) {
#ifndef NDEBUG /* debug builds (tests, fuzzing) check the closed forms against a small visit */
    int64_t vl, vh;
    if (ly_mul(count, cost, &work) && work <= (1 << 16)) {
      visit_range(rank, dims, g, n, sel, dims_m, count, &vl, &vh);
      LY_ASSERT(vl == *lo && vh == *hi);
    }
#endif
    return true;
  }
  if (!ly_mul(count, cost, &work) || work > *budget)
    return false;
  *budget -= work;
  return visit_range(rank, dims, g, n, sel, dims_m, count, lo, hi);
}

/* The extremes of the digits in `sel` over every index of the dims in dims_m
 * (count of them). */
static bool visit_range(int rank, const int64_t *dims, const LyDigit *g, int n, const bool *sel, unsigned dims_m,
                        int64_t count, int64_t *lo, int64_t *hi) {
  int64_t idx[LY_MAX_RANK] = {0}, l = INT64_MAX, h = INT64_MIN;
  for (int64_t e = 0; e < count; e++) {
    int64_t f = 0;
    for (int k = 0; k < n; k++)
      if (sel[k])
        f += g[k].stride * lyd_digit_value(&g[k], rank, idx); /* within the loose bound */
    l = f < l ? f : l, h = f > h ? f : h;
    for (int d = rank - 1; d >= 0; d--) {
      if (!(dims_m >> d & 1))
        continue;
      if (++idx[d] < dims[d])
        break;
      idx[d] = 0;
    }
  }
  *lo = l, *hi = h;
  return true;
}

bool lyd_offset_range(int rank, const int64_t *dims, const LyDigit *g, int n, int64_t *lo, int64_t *hi,
                      bool *exact) {
  int64_t numel = 1;
  *exact = true;
  for (int d = 0; d < rank; d++)
    if (!ly_mul(numel, dims[d], &numel))
      return false;
  if (numel == 0) {
    *lo = *hi = 0;
    return true;
  }
  if (!loose_range(rank, dims, g, n, lo, hi))
    return false;
  /* Digits that share no dim vary independently: their extremes add up.
   * Group the digits into components (linked by shared dims), then take
   * each component's exact range where visiting it fits the budget and its
   * loose range otherwise. */
  unsigned mask[LY_MAX_DIGITS];
  bool done[LY_MAX_DIGITS] = {0}, sel[LY_MAX_DIGITS];
  for (int k = 0; k < n; k++)
    mask[k] = digit_dims(&g[k], rank);
  int64_t budget = RANGE_WORK_BUDGET, l = 0, h = 0;
  for (int k = 0; k < n; k++) {
    if (done[k])
      continue;
    unsigned m = mask[k];
    for (bool grew = true; grew;) {
      grew = false;
      for (int j = 0; j < n; j++)
        if (!done[j] && (mask[j] & m) && (mask[j] | m) != m)
          m |= mask[j], grew = true;
    }
    for (int j = 0; j < n; j++)
      sel[j] = !done[j] && ((mask[j] & m) || (j == k));
    int64_t cl, ch;
    if (!component_range(rank, dims, g, n, sel, m, &budget, &cl, &ch)) {
      *exact = false;
      if (!loose_range_sel(rank, dims, g, n, sel, &cl, &ch))
        return false;
    }
    for (int j = 0; j < n; j++)
      done[j] = done[j] || sel[j];
    l += cl, h += ch; /* each within the loose bound, which did not overflow */
  }
  *lo = l, *hi = h;
  return true;
}
