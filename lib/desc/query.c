/* desc/query: the public geometry queries on interned descriptors. */
#include "desc/desc.h"

#include <stdlib.h>
#include <string.h>

#define SL LY_ELEM_KIND_SIGNLESS
#define SI LY_ELEM_KIND_SIGNED
#define UI LY_ELEM_KIND_UNSIGNED
#define FL LY_ELEM_KIND_FLOAT
#define CX LY_ELEM_KIND_COMPLEX

static const struct {
  const char *name;
  int bits;
  LyElemKind kind;
  LyElem component; /* complex: the float of each half */
} elems[LY_ELEM_COUNT] = {
    [LY_ELEM_I1] = {"i1", 1, SL},
    [LY_ELEM_I2] = {"i2", 2, SL},
    [LY_ELEM_I4] = {"i4", 4, SL},
    [LY_ELEM_I8] = {"i8", 8, SL},
    [LY_ELEM_I16] = {"i16", 16, SL},
    [LY_ELEM_I32] = {"i32", 32, SL},
    [LY_ELEM_I64] = {"i64", 64, SL},
    [LY_ELEM_F16] = {"f16", 16, FL},
    [LY_ELEM_BF16] = {"bf16", 16, FL},
    [LY_ELEM_F32] = {"f32", 32, FL},
    [LY_ELEM_F64] = {"f64", 64, FL},
    [LY_ELEM_F8E4M3FN] = {"f8E4M3FN", 8, FL},
    [LY_ELEM_F8E5M2] = {"f8E5M2", 8, FL},
    [LY_ELEM_UI8] = {"ui8", 8, UI},
    [LY_ELEM_UI16] = {"ui16", 16, UI},
    [LY_ELEM_UI32] = {"ui32", 32, UI},
    [LY_ELEM_UI64] = {"ui64", 64, UI},
    [LY_ELEM_SI8] = {"si8", 8, SI},
    [LY_ELEM_SI16] = {"si16", 16, SI},
    [LY_ELEM_SI32] = {"si32", 32, SI},
    [LY_ELEM_SI64] = {"si64", 64, SI},
    [LY_ELEM_INDEX] = {"index", 64, SL}, /* MLIR's default data layout */
    [LY_ELEM_F8E4M3FNUZ] = {"f8E4M3FNUZ", 8, FL},
    [LY_ELEM_F8E5M2FNUZ] = {"f8E5M2FNUZ", 8, FL},
    [LY_ELEM_F8E4M3B11FNUZ] = {"f8E4M3B11FNUZ", 8, FL},
    [LY_ELEM_F8E8M0FNU] = {"f8E8M0FNU", 8, FL},
    [LY_ELEM_F6E2M3FN] = {"f6E2M3FN", 6, FL},
    [LY_ELEM_F6E3M2FN] = {"f6E3M2FN", 6, FL},
    [LY_ELEM_F4E2M1FN] = {"f4E2M1FN", 4, FL},
    [LY_ELEM_TF32] = {"tf32", 32, FL}, /* stored as an f32 whose low 13 bits are zero */
    [LY_ELEM_COMPLEX_F16] = {"complex<f16>", 32, CX, LY_ELEM_F16},
    [LY_ELEM_COMPLEX_F32] = {"complex<f32>", 64, CX, LY_ELEM_F32},
    [LY_ELEM_COMPLEX_F64] = {"complex<f64>", 128, CX, LY_ELEM_F64},
};

const char *lyElemGetName(LyElem e) { return (unsigned)e < LY_ELEM_COUNT ? elems[e].name : "?"; }
int lyElemGetBits(LyElem e) { return (unsigned)e < LY_ELEM_COUNT ? elems[e].bits : 0; }
LyElemKind lyElemGetKind(LyElem e) { return (unsigned)e < LY_ELEM_COUNT ? elems[e].kind : SL; }
LyElem lyElemGetComponent(LyElem e) { return lyElemGetKind(e) == CX ? elems[e].component : e; }

int lyElemFromName(const char *name, size_t len, LyElem *out) {
  for (int e = 0; e < LY_ELEM_COUNT; e++)
    if (strlen(elems[e].name) == len && !memcmp(elems[e].name, name, len)) {
      *out = (LyElem)e;
      return 1;
    }
  return 0;
}

int lyTypeGetRank(LyType t) { return lyd_type(t)->rank; }
int64_t lyTypeGetDim(LyType t, int d) {
  const LyTypeImpl *x = lyd_type(t);
  return d >= 0 && d < x->rank ? x->dims[d] : LY_DYNAMIC;
}
LyElem lyTypeGetElement(LyType t) { return lyd_type(t)->elem; }

int lyTypeGetMemorySpace(LyType t, int64_t *num, const char **str) {
  const LyTypeImpl *x = lyd_type(t);
  if (x->ms_str) {
    if (str)
      *str = x->ms_str;
    return 2;
  }
  if (x->ms_num) {
    if (num)
      *num = x->ms_num;
    return 1;
  }
  return 0;
}

int lyTypeIsAny(LyType t) { return lyd_type(t)->kind == LYD_ANY; }
uint64_t lyTypeGetHash(LyType t) { return lyd_type(t)->hash; }

int lyTypeIsDynamic(LyType t) {
  const LyTypeImpl *x = lyd_type(t);
  for (int d = 0; d < x->rank; d++)
    if (x->dims[d] == LY_DYNAMIC)
      return 1;
  if (lyd_is_encoded(x))
    return x->enc->nnz == LY_DYNAMIC && x->enc->kind != LYE_GROUPED && x->enc->kind != LYE_HOST_SCALAR;
  if (x->kind != LYD_DIGITS)
    return 0;
  return !lyd_is_static(x);
}

/* Status for queries that need a static digit layout. */
/* Status for queries about one buffer's layout: none for a value that is
 * not a tensor, an `any` or opaque layout, or a multi-buffer encoding. */
static LyStatus layout_status(const LyTypeImpl *x) {
  if (lyd_is_foreign(x))
    return LY_ERROR_NOT_A_TENSOR;
  if (x->kind == LYD_ANY)
    return LY_ERROR_ANY;
  if (lyd_is_opaque(x))
    return LY_ERROR_OPAQUE;
  return lyd_is_encoded(x) ? LY_ERROR_MULTI_BUFFER : LY_OK;
}

static LyStatus need_static(const LyTypeImpl *x) {
  if (lyd_is_encoded(x) && x->enc->kind == LYE_HOST_SCALAR) /* one element at offset 0 */
    return LY_OK;
  LyStatus s = layout_status(x);
  return s != LY_OK ? s : lyd_is_static(x) ? LY_OK : LY_ERROR_DYNAMIC;
}

LyStatus lyTypeGetNumel(LyType t, int64_t *out) {
  const LyTypeImpl *x = lyd_type(t);
  if (lyd_is_foreign(x))
    return LY_ERROR_NOT_A_TENSOR;
  int64_t n = 1;
  for (int d = 0; d < x->rank; d++) {
    if (x->dims[d] == LY_DYNAMIC)
      return LY_ERROR_DYNAMIC;
    if (!ly_mul(n, x->dims[d], &n))
      return LY_ERROR_OVERFLOW; /* rejected at parse time; defensive */
  }
  *out = n;
  return LY_OK;
}

LyStatus lyTypeGetAllocElements(LyType t, int64_t *out) {
  const LyTypeImpl *x = lyd_type(t);
  LyStatus s = need_static(x);
  if (s == LY_OK)
    *out = x->alloc;
  return s;
}

LyStatus lyTypeGetSizeBytes(LyType t, int64_t *out) {
  int64_t a, bits;
  LyStatus s = lyTypeGetAllocElements(t, &a);
  if (s != LY_OK)
    return s;
  if (!ly_mul(a, lyElemGetBits(lyd_type(t)->elem), &bits))
    return LY_ERROR_OVERFLOW; /* rejected at parse time; defensive */
  *out = bits / 8 + (bits % 8 != 0);
  return LY_OK;
}

LyStatus lyTypeGetOffset(LyType t, const int64_t *idx, int64_t *out) {
  const LyTypeImpl *x = lyd_type(t);
  LyStatus s = need_static(x);
  if (s != LY_OK)
    return s;
  for (int d = 0; d < x->rank; d++)
    if (idx[d] < 0 || idx[d] >= x->dims[d])
      return LY_ERROR_RANGE;
  *out = lyd_offset(x, idx);
  return LY_OK;
}

int lyTypeIsContiguous(LyType t) {
  const LyTypeImpl *x = lyd_type(t);
  if (x->kind == LYD_SYMBOLIC)
    return x->symbolic[0] == 0; /* row-major over dynamic dims (never opaque) */
  if (lyd_is_encoded(x))
    return x->enc->kind == LYE_HOST_SCALAR;
  if (x->kind != LYD_DIGITS || x->base != 0)
    return 0;
  LyDigit rm[LY_MAX_RANK];
  int64_t alloc;
  LyArena scratch; /* row-major digits are simple: nothing is allocated */
  ly_arena_init(&scratch);
  int n = lyd_row_major_digits(x->rank, x->dims, rm, &alloc);
  if (n < 0 || alloc != x->alloc)
    return 0;
  n = lyd_canonicalize(x->rank, x->dims, rm, n, &scratch);
  ly_arena_free(&scratch);
  if (n != x->ndigits)
    return 0;
  for (int k = 0; k < n; k++)
    if (rm[k].stride != x->digits[k].stride || rm[k].dim != x->digits[k].dim || rm[k].div != x->digits[k].div ||
        rm[k].ext != x->digits[k].ext || rm[k].wrap != x->digits[k].wrap)
      return 0;
  return 1;
}

static int cmp_abs_stride(const void *a, const void *b) {
  int64_t x = llabs(((const LyDigit *)a)->stride), y = llabs(((const LyDigit *)b)->stride);
  return x < y ? -1 : x > y;
}

/* Exact injectivity by enumeration: at most this many elements, and this
 * many digit evaluations (lyd_digit_cost), about 0.1 s. */
#define INJECTIVE_ENUM_LIMIT (1 << 24)
#define INJECTIVE_WORK_LIMIT (1 << 26)

/* A witness of overlap between two plain digits, each the only digit of its
 * dim (one stride per dim, no split): when |s_j| = k |s_i| with 1 <= k < n_i, index k along i and 1
 * along j reach the same offset (strided<[1,1]>, strided<[2,4]> on 3x2). */
static bool plain_collision(const LyTypeImpl *x) {
  int per_dim[LY_MAX_RANK] = {0};
  for (int k = 0; k < x->ndigits; k++)
    if (x->digits[k].dim >= 0)
      per_dim[x->digits[k].dim]++;
    else
      return false; /* a general digit may move with either index */
  for (int i = 0; i < x->ndigits; i++) {
    const LyDigit *a = &x->digits[i];
    if (per_dim[a->dim] != 1 || a->div != 1 || a->wrap || a->stride == 0 || x->dims[a->dim] < 2)
      continue;
    for (int j = 0; j < x->ndigits; j++) {
      const LyDigit *b = &x->digits[j];
      if (j == i || b->dim == a->dim || per_dim[b->dim] != 1 || b->div != 1 || b->wrap || x->dims[b->dim] < 2)
        continue;
      int64_t sa = llabs(a->stride), sb = llabs(b->stride);
      if (sb % sa == 0 && sb / sa < x->dims[a->dim])
        return true;
    }
  }
  return false;
}

/* The exact decision for simple digits (each dim a mixed-radix split, so the
 * digits' values are independent): two indices collide exactly when some
 * nonzero u with |u_k| < ext_k has sum s_k u_k = 0. Digits are taken by
 * decreasing |stride|; a partial sum is kept only while the digits still to
 * come can cancel it (|sum| <= their reach), which keeps the set small for
 * every layout whose strides are far apart (the common case at any size).
 * The sets are bounded (INJECTIVE_SUMS_LIMIT at once, INJECTIVE_SUMS_WORK in
 * all); past either, unknown.
 * A collision found in the digit box is a real one only when no dim is
 * padded (some digit tuples are then no index): *collides = -1 otherwise. */
#define INJECTIVE_SUMS_LIMIT (1 << 21) /* sums held at once (16 MiB) */
#define INJECTIVE_SUMS_WORK (1 << 23)  /* sums made in all */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_abs_stride_desc(const void *a, const void *b) { return -cmp_abs_stride(a, b); }

/* Adds the sums x + s*u (x in set, or x = 0 with u != 0) that stay within
 * [-reach, reach] to next. False when the bound is passed. */
static bool extend_sums(const int64_t *set, int n, int64_t s, int64_t ext, int64_t reach, int64_t *next,
                        int *m, int64_t *work) {
  for (int i = -1; i < n; i++) {
    int64_t x = i < 0 ? 0 : set[i];
    /* u in [lo, hi]: |x + s u| <= reach and |u| < ext; s > 0. */
    int64_t lo = (-reach - x) / s - 1, hi = (reach - x) / s + 1;
    lo = lo < -(ext - 1) ? -(ext - 1) : lo;
    hi = hi > ext - 1 ? ext - 1 : hi;
    for (int64_t u = lo; u <= hi; u++) {
      if (i < 0 && u == 0)
        continue;
      int64_t y = x + s * u; /* |x| <= previous reach, |s u| <= alloc: no overflow */
      if (y < -reach || y > reach)
        continue;
      if (++*work > INJECTIVE_SUMS_WORK)
        return false;
      next[(*m)++] = y;
    }
  }
  return true;
}

static LyStatus simple_collision(const LyTypeImpl *x, int *collides) {
  LyDigit g[LY_MAX_DIGITS];
  int n = x->ndigits;
  memcpy(g, x->digits, n * sizeof *g);
  qsort(g, n, sizeof *g, cmp_abs_stride_desc);
  int64_t reach[LY_MAX_DIGITS + 1] = {0}; /* reach[k]: of digits k.. */
  for (int k = n - 1; k >= 0; k--) {
    int64_t r;
    if (!ly_mul(llabs(g[k].stride), g[k].ext - 1, &r) || !ly_add(reach[k + 1], r, &reach[k]))
      return LY_ERROR_UNKNOWN;
  }
  int64_t *set = ly_malloc(sizeof *set), *next = NULL;
  int size = 0;
  int64_t work = 0;
  LyStatus st = LY_OK;
  for (int k = 0; k < n && st == LY_OK; k++) {
    int64_t s = llabs(g[k].stride);
    if (s == 0) { /* a digit that moves nothing */
      size = g[k].ext > 1 ? 1 : size;
      if (set)
        set[0] = 0;
      continue;
    }
    /* A sum x keeps the u with |x + s u| <= reach and |u| < ext: at most
     * min(floor(2 reach / s) + 1, 2 ext - 1) of them, where floor(2 reach / s)
     * = 2 floor(reach / s) + (reach mod s >= s - reach mod s). */
    int64_t r = reach[k + 1], q = r / s < g[k].ext ? r / s : g[k].ext, per, room, most;
    if (!set || !ly_mul(q, 2, &per) || !ly_add(per, 1 + (r % s >= s - r % s), &per) || !ly_mul(g[k].ext, 2, &most) ||
        !ly_mul((int64_t)size + 1, per < most - 1 ? per : most - 1, &room) || room > INJECTIVE_SUMS_LIMIT ||
        work + room > INJECTIVE_SUMS_WORK) {
      st = set ? LY_ERROR_UNKNOWN : LY_ERROR_NOMEM;
      break;
    }
    next = ly_malloc((size_t)(room ? room : 1) * sizeof *next);
    int m = 0;
    if (!next)
      st = LY_ERROR_NOMEM;
    else if (!extend_sums(set, size, s, g[k].ext, reach[k + 1], next, &m, &work))
      st = LY_ERROR_UNKNOWN;
    ly_free(set);
    set = next;
    next = NULL;
    if (st != LY_OK)
      break;
    qsort(set, m, sizeof *set, cmp_i64);
    size = 0;
    for (int i = 0; i < m; i++)
      if (!size || set[size - 1] != set[i])
        set[size++] = set[i];
  }
  bool zero = false;
  for (int i = 0; i < size && st == LY_OK; i++)
    zero = zero || set[i] == 0;
  ly_free(set);
  if (st != LY_OK)
    return st;
  bool padded = false;
  for (int d = 0; d < x->rank; d++) {
    int64_t prod = 1;
    for (int k = 0; k < n; k++)
      if (x->digits[k].dim == d && !ly_mul(prod, x->digits[k].ext, &prod))
        return LY_ERROR_UNKNOWN;
    padded = padded || prod != x->dims[d];
  }
  *collides = !zero ? 0 : padded ? -1 : 1;
  return LY_OK;
}

LyStatus lyTypeIsInjective(LyType t, int *out) {
  const LyTypeImpl *x = lyd_type(t);
  LyStatus s = need_static(x);
  if (s != LY_OK)
    return s;
  int64_t numel;
  if (lyTypeGetNumel(t, &numel) != LY_OK)
    return LY_ERROR_OVERFLOW;
  if (numel == 0) {
    *out = 1; /* vacuously */
    return LY_OK;
  }
  /* A dim of extent > 1 with no digit is a broadcast. */
  for (int d = 0; d < x->rank; d++) {
    bool used = x->dims[d] <= 1;
    for (int k = 0; k < x->ndigits && !used; k++)
      used = lyd_digit_uses_dim(&x->digits[k], x->rank, d);
    if (!used) {
      *out = 0;
      return LY_OK;
    }
  }
  /* Sufficient: digits sorted by |stride|, each stride beyond the reach of
   * all smaller ones, every digit a simple one and each dim's digits a
   * mixed-radix split (values independent). */
  bool simple = true;
  for (int k = 0; k < x->ndigits; k++) {
    const LyDigit *g = &x->digits[k], *inner = k + 1 < x->ndigits ? &x->digits[k + 1] : NULL;
    simple = simple && g->dim >= 0;
    if (!simple)
      break;
    /* Canonical order lists a dim's digits outermost first. */
    if (k == 0 || x->digits[k - 1].dim != g->dim)
      simple = simple && !g->wrap;
    if (inner && inner->dim == g->dim)
      simple = simple && inner->wrap && inner->div * inner->ext == g->div;
    else
      simple = simple && g->div == 1;
  }
  if (simple) {
    LyDigit g[LY_MAX_DIGITS];
    if (x->ndigits)
      memcpy(g, x->digits, x->ndigits * sizeof *g);
    qsort(g, x->ndigits, sizeof *g, cmp_abs_stride);
    int64_t reach = 0;
    bool ok = true;
    for (int k = 0; k < x->ndigits && ok; k++) {
      int64_t st = llabs(g[k].stride), r;
      ok = st > reach && ly_mul(st, g[k].ext - 1, &r) && ly_add(reach, r, &reach);
    }
    if (ok) {
      *out = 1;
      return LY_OK;
    }
  }
  if (plain_collision(x)) {
    *out = 0;
    return LY_OK;
  }
  if (simple) {
    int collides;
    LyStatus st = simple_collision(x, &collides);
    if (st == LY_ERROR_NOMEM)
      return st;
    if (st == LY_OK && collides >= 0) {
      *out = !collides;
      return LY_OK;
    }
  }
  int64_t cost = 1, work;
  for (int k = 0; k < x->ndigits; k++)
    cost += lyd_digit_cost(&x->digits[k], x->rank);
  if (numel > INJECTIVE_ENUM_LIMIT || x->alloc > 8 * (int64_t)INJECTIVE_ENUM_LIMIT || !ly_mul(numel, cost, &work) ||
      work > INJECTIVE_WORK_LIMIT)
    return LY_ERROR_UNKNOWN;
  /* Exact: mark every offset in a bitmap. */
  uint8_t *seen = ly_malloc((size_t)x->alloc / 8 + 1);
  if (!seen)
    return LY_ERROR_NOMEM;
  memset(seen, 0, (size_t)x->alloc / 8 + 1);
  int64_t idx[LY_MAX_RANK] = {0};
  int result = 1;
  for (int64_t e = 0; e < numel && result; e++) {
    int64_t off = lyd_offset(x, idx);
    if (seen[off >> 3] & (1 << (off & 7)))
      result = 0;
    seen[off >> 3] |= (uint8_t)(1 << (off & 7));
    for (int d = x->rank - 1; d >= 0; d--) {
      if (++idx[d] < x->dims[d])
        break;
      idx[d] = 0;
    }
  }
  ly_free(seen);
  *out = result;
  return LY_OK;
}

LyStatus lyTypeGetStrides(LyType t, int64_t *strides, int64_t *offset) {
  const LyTypeImpl *x = lyd_type(t);
  LyStatus s = layout_status(x);
  if (s != LY_OK)
    return s;
  if (x->kind != LYD_DIGITS)
    return LY_ERROR_DYNAMIC;
  if (!lyd_plain_strides(x, strides))
    return LY_ERROR_INVALID; /* not expressible as one stride per dim */
  int bits = lyElemGetBits(x->elem);
  if (bits % 8 == 0)
    for (int d = 0; d < x->rank; d++)
      if (strides[d] != LY_DYNAMIC && !ly_mul(strides[d], bits / 8, &strides[d]))
        return LY_ERROR_OVERFLOW; /* possible only over dynamic dims */
  *offset = x->base;
  return LY_OK;
}

/* --- oneDNN blocking ----------------------------------------------------------- */

/* Outer strides as oneDNN's fill_blocked assigns them for a format tag: the
 * dense inner blocks innermost, then the outer dims from the tag's innermost
 * letter out, each over its padded extent divided by its blocks. */
static void blocking_of_tag(const LyTypeImpl *x, const LyTagInfo *tag, LyBlocking *b) {
  int64_t bsize[LY_MAX_RANK], inner = 1;
  for (int d = 0; d < x->rank; d++)
    bsize[d] = 1;
  for (int k = 0; k < tag->nblocks; k++) {
    bsize[tag->block_dim[k]] *= tag->block_size[k];
    inner *= tag->block_size[k];
    b->inner_blks[k] = tag->block_size[k];
    b->inner_idxs[k] = tag->block_dim[k];
  }
  b->inner_nblks = tag->nblocks;
  for (int d = 0; d < x->rank; d++)
    b->padded_dims[d] = (x->dims[d] + bsize[d] - 1) / bsize[d] * bsize[d];
  int64_t run = inner; /* the allocation bounds every product: no overflow */
  for (int k = x->rank - 1; k >= 0; k--) {
    int d = tag->order[k];
    b->strides[d] = run;
    run *= b->padded_dims[d] / bsize[d];
  }
}

static int by_div_desc(const void *a, const void *b) {
  const LyDigit *x = *(const LyDigit *const *)a, *y = *(const LyDigit *const *)b;
  return x->div < y->div ? 1 : x->div > y->div ? -1 : 0;
}
static int by_stride_desc(const void *a, const void *b) {
  const LyDigit *x = *(const LyDigit *const *)a, *y = *(const LyDigit *const *)b;
  return x->stride < y->stride ? 1 : x->stride > y->stride ? -1 : 0;
}

/* Dim d's digits as a mixed-radix chain: the outermost (largest div) is the
 * unwrapped outer index, the rest are inner blocks. False when they are not
 * (a wrapped outermost digit, a gap between radices, a dropped low part). */
static bool dim_chain(const LyTypeImpl *x, int d, const LyDigit **chain, int *n) {
  *n = 0;
  for (int k = 0; k < x->ndigits; k++)
    if (x->digits[k].dim == d)
      chain[(*n)++] = &x->digits[k];
  qsort(chain, (size_t)*n, sizeof *chain, by_div_desc);
  if (*n == 0)
    return true;
  if (chain[0]->wrap || chain[*n - 1]->div != 1)
    return false;
  for (int k = 0; k + 1 < *n; k++)
    if (chain[k]->div != chain[k + 1]->div * chain[k + 1]->ext || !chain[k + 1]->wrap)
      return false;
  return true;
}

/* The blocking read off the digits, for layouts that no format tag spells
 * (slices of blocked layouts, permuted or padded strides). */
static bool blocking_of_digits(const LyTypeImpl *x, LyBlocking *b) {
  const LyDigit *inner[LY_MAX_DIGITS], *chain[LY_MAX_DIGITS];
  bool has[LY_MAX_RANK] = {0};
  int ninner = 0, n;
  for (int k = 0; k < x->ndigits; k++)
    if (x->digits[k].dim < 0 || x->digits[k].stride < 0)
      return false;
  for (int d = 0; d < x->rank; d++) {
    if (!dim_chain(x, d, chain, &n))
      return false;
    b->padded_dims[d] = x->dims[d];
    if (n == 0)
      continue;
    has[d] = true;
    b->strides[d] = chain[0]->stride;
    b->padded_dims[d] = chain[0]->div * chain[0]->ext;
    for (int k = 1; k < n; k++)
      inner[ninner++] = chain[k];
  }
  qsort(inner, (size_t)ninner, sizeof *inner, by_stride_desc);
  int64_t dense = 1;
  for (int k = ninner - 1; k >= 0; k--) {
    if (inner[k]->stride != dense)
      return false;
    dense *= inner[k]->ext;
  }
  b->inner_nblks = ninner;
  for (int k = 0; k < ninner; k++) {
    b->inner_blks[k] = inner[k]->ext;
    b->inner_idxs[k] = inner[k]->dim;
  }
  /* Dims without a digit: extent 1 (any stride; the contiguous one, as for
   * strided layouts) or a broadcast (stride 0). */
  int64_t natural = dense;
  for (int d = x->rank - 1; d >= 0; d--) {
    if (!has[d])
      b->strides[d] = x->dims[d] == 1 ? natural : 0;
    int64_t next;
    if (b->strides[d] > 0 && ly_mul(b->strides[d], b->padded_dims[d], &next) && next > natural)
      natural = next;
  }
  return true;
}

LyStatus lyTypeGetBlocking(LyType t, LyBlocking *out) {
  const LyTypeImpl *x = lyd_type(t);
  LyStatus s = layout_status(x);
  if (s != LY_OK)
    return s;
  if (!lyd_is_static(x))
    return LY_ERROR_DYNAMIC;
  LyBlocking b;
  memset(&b, 0, sizeof b);
  LyTagInfo tag;
  if (x->rank > 0 && lyd_tag_of(x, &tag))
    blocking_of_tag(x, &tag, &b);
  else if (!blocking_of_digits(x, &b))
    return LY_ERROR_INVALID;
  b.offset0 = x->base;
  *out = b;
  return LY_OK;
}
