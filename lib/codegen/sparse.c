/* codegen/sparse: the reference interpreter for conversions between dense
 * row-major buffers and MLIR-style sparse storage (positions, coordinates,
 * values per level). Everything goes through a list of stored points sorted
 * in level order; one recursive walk over the level tree both counts (the
 * nnz pass) and fills, so the two passes cannot disagree. */
#define _GNU_SOURCE /* qsort_r */
#include "codegen/codegen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===== Format checks ========================================================= */

static void err(LyDiagEngine *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err(LyDiagEngine *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
}

static int bits_of(int b) { return b == 0 ? 64 : b; }

static int64_t lvl_size(const LycSparse *f, int l) {
  return f->lvl_mod[l] ? f->lvl_mod[l] : f->dims[f->lvl_dim[l]] / f->lvl_div[l];
}

static bool has_pos(LycLevelKind k) { return k == LYC_LVL_COMPRESSED || k == LYC_LVL_LOOSE_COMPRESSED; }
static bool has_crd(LycLevelKind k) { return k != LYC_LVL_DENSE; }

/* The levels of each dim must split it exactly: sorted by divisor, the
 * outermost has no mod and its divisor divides the dim, each next one's
 * mod is the previous divisor over its own, the innermost divides by 1. */
static bool check_dim_split(LyDiagEngine *d, const LycSparse *f, int dim) {
  int lv[LY_MAX_RANK], n = 0;
  for (int l = 0; l < f->lvl_rank; l++)
    if (f->lvl_dim[l] == dim)
      lv[n++] = l;
  for (int a = 1; a < n; a++) /* insertion sort by divisor, largest first */
    for (int b = a; b > 0 && f->lvl_div[lv[b]] > f->lvl_div[lv[b - 1]]; b--)
      lv[b] ^= lv[b - 1], lv[b - 1] ^= lv[b], lv[b] ^= lv[b - 1];
  bool ok = n > 0 && f->lvl_mod[lv[0]] == 0 && f->dims[dim] % f->lvl_div[lv[0]] == 0 &&
            f->lvl_div[lv[n - 1]] == 1;
  for (int a = 1; ok && a < n; a++)
    ok = f->lvl_mod[lv[a]] > 0 && f->lvl_div[lv[a]] * f->lvl_mod[lv[a]] == f->lvl_div[lv[a - 1]];
  if (!ok)
    err(d, "sparse format: the levels of dim %d do not split its size %" PRId64 " exactly", dim, f->dims[dim]);
  return ok;
}

/* Level kinds follow MLIR: a singleton follows a non-unique level, a
 * non-unique level is followed by a singleton (a COO region runs to the
 * last level), n_out_of_m is the last level under dense levels only. */
static bool check_level_kind(LyDiagEngine *d, const LycSparse *f, int l) {
  LycLevelKind k = f->kind[l];
  bool prev_nonunique = l > 0 && f->nonunique[l - 1];
  if (k == LYC_LVL_SINGLETON && !prev_nonunique)
    return err(d, "sparse format: singleton level %d must follow a non-unique level", l), false;
  if (f->nonunique[l] && (k == LYC_LVL_DENSE || k == LYC_LVL_N_OUT_OF_M))
    return err(d, "sparse format: level %d cannot be non-unique", l), false;
  if (prev_nonunique && k != LYC_LVL_SINGLETON)
    return err(d, "sparse format: level %d after a non-unique level must be a singleton", l), false;
  if (f->nonunique[l] && l == f->lvl_rank - 1)
    return err(d, "sparse format: the last level %d cannot be non-unique", l), false;
  if (k == LYC_LVL_SINGLETON && f->soa[l] != f->soa[f->lvl_rank - 1])
    return err(d, "sparse format: the singleton levels of a COO region must all be soa or none"), false;
  if (k == LYC_LVL_N_OUT_OF_M) {
    for (int p = 0; p < l; p++)
      if (f->kind[p] != LYC_LVL_DENSE)
        return err(d, "sparse format: n_out_of_m level %d must be under dense levels only", l), false;
    if (l != f->lvl_rank - 1 || f->n < 1 || f->n > f->m || f->lvl_mod[l] != f->m)
      return err(d, "sparse format: n_out_of_m level %d must be the last level, 'mod %d' of its dim, with 1 <= n <= m",
                 l, f->m), false;
  }
  if (has_crd(k) && (uint64_t)(lvl_size(f, l) > 0 ? lvl_size(f, l) - 1 : 0) > lyc_uint_max(bits_of(f->crd_bits)))
    return err(d, "sparse format: level %d's size %" PRId64 " does not fit %d-bit coordinates", l, lvl_size(f, l),
               bits_of(f->crd_bits)), false;
  return true;
}

static bool width_ok(int b) { return b == 0 || b == 8 || b == 16 || b == 32 || b == 64; }

LyStatus lyc_sparse_check(LyDiagEngine *d, const LycSparse *f) {
  if (f->rank < 1 || f->rank > LY_MAX_RANK || f->lvl_rank < 1 || f->lvl_rank > LY_MAX_RANK)
    return err(d, "sparse format: rank %d and level rank %d must be in 1..%d", f->rank, f->lvl_rank, LY_MAX_RANK),
           LY_ERROR_INVALID;
  if (!width_ok(f->pos_bits) || !width_ok(f->crd_bits))
    return err(d, "sparse format: posWidth %d / crdWidth %d must be 0, 8, 16, 32 or 64", f->pos_bits, f->crd_bits),
           LY_ERROR_INVALID;
  int vb = lyElemGetBits(f->value);
  if (vb < 8 || vb % 8)
    return err(d, "sparse format: values of %s are not byte-sized", lyElemGetName(f->value)), LY_ERROR_INVALID;
  if (vb > 64)
    return err(d, "sparse format: values of %s are %d bits; sparse values of at most 64 bits are supported",
               lyElemGetName(f->value), vb), LY_ERROR_INVALID;
  if (f->value == LY_ELEM_F8E8M0FNU)
    return err(d, "sparse format: %s has no zero, so every value would be stored", lyElemGetName(f->value)),
           LY_ERROR_INVALID;
  int64_t total = 1;
  for (int i = 0; i < f->rank; i++)
    if (f->dims[i] < 0 || __builtin_mul_overflow(total, f->dims[i], &total) ||
        __builtin_mul_overflow(total, (int64_t)vb / 8, &(int64_t){0}))
      return err(d, "sparse format: dims overflow or are negative at dim %d", i), LY_ERROR_OVERFLOW;
  for (int l = 0; l < f->lvl_rank; l++)
    if (f->lvl_dim[l] < 0 || f->lvl_dim[l] >= f->rank || f->lvl_div[l] < 1 || f->lvl_mod[l] < 0)
      return err(d, "sparse format: level %d maps no dim", l), LY_ERROR_INVALID;
  for (int i = 0; i < f->rank; i++)
    if (!check_dim_split(d, f, i))
      return LY_ERROR_INVALID;
  for (int l = 0; l < f->lvl_rank; l++)
    if (!check_level_kind(d, f, l))
      return LY_ERROR_INVALID;
  return LY_OK;
}

/* The first level of the array-of-structs COO region, lvl_rank if none. */
static int aos_start(const LycSparse *f) {
  int L = f->lvl_rank;
  if (L < 2 || f->kind[L - 1] != LYC_LVL_SINGLETON || f->soa[L - 1])
    return L;
  int s = L - 1;
  while (f->kind[s] == LYC_LVL_SINGLETON)
    s--;
  return s;
}

int lyc_sparse_buffers(const LycSparse *f, LycBufInfo *out) {
  int n = 0, L = f->lvl_rank, s = aos_start(f);
  for (int l = 0; l < L && l <= s; l++) {
    if (has_pos(f->kind[l]))
      out[n++] = (LycBufInfo){LYC_BUF_POS, l, 1, bits_of(f->pos_bits)};
    if (has_crd(f->kind[l]))
      out[n++] = (LycBufInfo){LYC_BUF_CRD, l, l == s ? L - s : 1, bits_of(f->crd_bits)};
  }
  out[n++] = (LycBufInfo){LYC_BUF_VAL, L, 1, lyElemGetBits(f->value)};
  return n;
}

/* ===== Points ================================================================ */

/* Stored points: level coordinates (L per point) and value bits. */
typedef struct {
  int L;
  int64_t n, cap;
  int64_t *crd;
  uint64_t *val;
} Points;

static void points_free(Points *p) { ly_free(p->crd), ly_free(p->val); }

/* Room for at least n points. */
static bool points_reserve(LyDiagEngine *d, Points *p, int64_t n) {
  if (n <= p->cap)
    return true;
  int64_t *nc = ly_realloc(p->crd, (size_t)n * (size_t)(p->L ? p->L : 1) * sizeof *nc);
  if (nc)
    p->crd = nc;
  uint64_t *nv = nc ? ly_realloc(p->val, (size_t)n * sizeof *nv) : NULL;
  if (!nv)
    return err(d, "out of memory"), false;
  p->val = nv, p->cap = n;
  return true;
}

static bool points_push(LyDiagEngine *d, Points *p, const int64_t *c, uint64_t v) {
  if (p->n == p->cap && !points_reserve(d, p, p->cap ? 2 * p->cap : 256))
    return false;
  memcpy(p->crd + p->n * p->L, c, (size_t)p->L * sizeof *c);
  p->val[p->n++] = v;
  return true;
}

/* Values != 0: a float's sign bit does not count (so -0.0 is not stored and
 * NaN is), as MLIR's sparsification and scipy's `dense != 0` decide. */
uint64_t lyc_sparse_value_mask(LyElem e) {
  LyElemKind k = lyElemGetKind(e);
  bool fnuz = e == LY_ELEM_F8E4M3FNUZ || e == LY_ELEM_F8E5M2FNUZ || e == LY_ELEM_F8E4M3B11FNUZ;
  int b = lyElemGetBits(e);
  uint64_t all = lyc_uint_max(b);
  if (k == LY_ELEM_KIND_FLOAT && !fnuz)
    return all & ~(1ULL << (b - 1));
  if (k == LY_ELEM_KIND_COMPLEX) /* each component's sign */
    return all & ~(1ULL << (b / 2 - 1)) & ~(1ULL << (b - 1));
  return all;
}

static bool is_zero(LyElem e, uint64_t bits) { return (bits & lyc_sparse_value_mask(e)) == 0; }

/* Dense element stride of each level in the row-major dense buffer. */
static void level_strides(const LycSparse *f, int64_t *ls) {
  int64_t ds[LY_MAX_RANK], s = 1;
  for (int i = f->rank - 1; i >= 0; i--)
    ds[i] = s, s *= f->dims[i];
  for (int l = 0; l < f->lvl_rank; l++)
    ls[l] = f->lvl_div[l] * ds[f->lvl_dim[l]];
}

static int64_t dense_count(const LycSparse *f) {
  int64_t n = 1;
  for (int i = 0; i < f->rank; i++)
    n *= f->dims[i];
  return n;
}

/* The nonzeros of a dense buffer in level order: the level grid is a
 * bijection of the dense one, so walking it row-major yields them sorted. */
static bool points_from_dense(LyDiagEngine *d, const LycSparse *f, const void *dense, Points *p) {
  int L = f->lvl_rank;
  int64_t ls[LY_MAX_RANK], sz[LY_MAX_RANK], c[LY_MAX_RANK] = {0}, off = 0;
  level_strides(f, ls);
  *p = (Points){.L = L};
  if (dense_count(f) == 0)
    return true;
  for (int l = 0; l < L; l++)
    sz[l] = lvl_size(f, l);
  for (;;) {
    uint64_t v = lyc_load_elem(dense, f->value, off);
    if (!is_zero(f->value, v) && !points_push(d, p, c, v))
      return false;
    int l = L - 1;
    for (; l >= 0 && ++c[l] == sz[l]; l--)
      off -= (sz[l] - 1) * ls[l], c[l] = 0;
    if (l < 0)
      return true;
    off += ls[l];
  }
}

/* A point's dim coordinates as text, "i, j, ...", for diagnostics. */
static void point_text(const LycSparse *f, const int64_t *c, int nlvls, char *at, size_t size) {
  int64_t dim[LY_MAX_RANK] = {0};
  size_t k = 0;
  for (int l = 0; l < nlvls; l++)
    dim[f->lvl_dim[l]] += c[l] * f->lvl_div[l];
  at[0] = 0;
  for (int i = 0; i < f->rank && k + 24 < size; i++)
    k += (size_t)snprintf(at + k, size - k, "%s%" PRId64, i ? ", " : "", dim[i]);
}

/* ===== Encoding: the level-tree walk ========================================= */

typedef struct {
  LyDiagEngine *d;
  const LycSparse *f;
  const Points *p;
  int L, aos;
  int64_t size[LY_MAX_RANK];
  int pos_buf[LY_MAX_RANK], crd_buf[LY_MAX_RANK], val_buf;
  int crd_stride[LY_MAX_RANK], crd_field[LY_MAX_RANK];
  int64_t nent[LY_MAX_RANK + 1]; /* entries stored per level so far; [L]: values */
  uint8_t *const *bufs;          /* NULL: count only */
  int bits[LYC_SPARSE_MAX_BUFS];
  bool failed;
} Enc;

static void put(Enc *e, int b, int64_t i, uint64_t v) {
  if (e->bufs)
    lyc_store_uint(e->bufs[b], e->bits[b], i, v);
}

static void put_crd(Enc *e, int l, int64_t c) {
  put(e, e->crd_buf[l], e->nent[l] * e->crd_stride[l] + e->crd_field[l], (uint64_t)c);
}

static int64_t parent_index(const Enc *e, int l) { return l == 0 ? 0 : e->nent[l - 1] - 1; }

/* End of the run of points in [a, b) whose level-l coordinate is c. */
static int64_t run_end(const Enc *e, int l, int64_t a, int64_t b, int64_t c) {
  while (a < b && e->p->crd[a * e->L + l] == c)
    a++;
  return a;
}

static void walk(Enc *e, int l, int64_t a, int64_t b);

/* n_out_of_m: exactly n entries per group, the nonzeros plus explicit zeros
 * at the lowest free coordinates, in coordinate order. */
static void walk_nm(Enc *e, int l, int64_t a, int64_t b) {
  const LycSparse *f = e->f;
  if (b - a > f->n) {
    char at[256];
    point_text(f, e->p->crd + a * e->L, l, at, sizeof at);
    err(e->d, "n_out_of_m: %" PRId64 " nonzeros in the group of %d at (%s), at most %d allowed", b - a, f->m, at, f->n);
    e->failed = true;
    return;
  }
  int64_t next = a;
  int free_needed = f->n - (int)(b - a);
  for (int64_t c = 0; c < f->m; c++) {
    bool nz = next < b && e->p->crd[next * e->L + l] == c;
    if (!nz && free_needed == 0)
      continue;
    if (!nz)
      free_needed--;
    put_crd(e, l, c), e->nent[l]++;
    put(e, e->val_buf, e->nent[e->L]++, nz ? e->p->val[next] : 0);
    next += nz;
  }
}

/* Positions of level l for the current parent, after its children. */
static void close_parent(Enc *e, int l, int64_t start) {
  int64_t par = parent_index(e, l);
  if (e->f->kind[l] == LYC_LVL_COMPRESSED) {
    put(e, e->pos_buf[l], par + 1, (uint64_t)e->nent[l]);
  } else {
    put(e, e->pos_buf[l], 2 * par, (uint64_t)start);
    put(e, e->pos_buf[l], 2 * par + 1, (uint64_t)e->nent[l]);
  }
}

/* Stores the children of one stored parent at level l; [a, b) are the
 * points under that parent. */
static void walk(Enc *e, int l, int64_t a, int64_t b) {
  if (e->failed)
    return;
  if (l == e->L) {
    put(e, e->val_buf, e->nent[l]++, a < b ? e->p->val[a] : 0);
    return;
  }
  const LycSparse *f = e->f;
  int64_t start = e->nent[l];
  switch (f->kind[l]) {
  case LYC_LVL_DENSE:
    for (int64_t c = 0, i = a; c < e->size[l]; c++) {
      int64_t j = run_end(e, l, i, b, c);
      e->nent[l]++;
      walk(e, l + 1, i, j);
      i = j;
    }
    return;
  case LYC_LVL_N_OUT_OF_M:
    walk_nm(e, l, a, b);
    return;
  case LYC_LVL_SINGLETON: /* one point per parent entry */
    put_crd(e, l, e->p->crd[a * e->L + l]), e->nent[l]++;
    walk(e, l + 1, a, b);
    return;
  default: /* (loose) compressed: one entry per distinct coordinate, or per point if non-unique */
    for (int64_t i = a; i < b;) {
      int64_t c = e->p->crd[i * e->L + l];
      int64_t j = f->nonunique[l] ? i + 1 : run_end(e, l, i, b, c);
      put_crd(e, l, c), e->nent[l]++;
      walk(e, l + 1, i, j);
      i = j;
    }
    close_parent(e, l, start);
  }
}

static void enc_init(Enc *e, LyDiagEngine *d, const LycSparse *f, const Points *p, void *const *bufs) {
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  *e = (Enc){.d = d, .f = f, .p = p, .L = f->lvl_rank, .aos = aos_start(f), .bufs = (uint8_t *const *)bufs};
  for (int b = 0; b < nb; b++) {
    e->bits[b] = info[b].bits;
    if (info[b].kind == LYC_BUF_VAL)
      e->val_buf = b;
    else if (info[b].kind == LYC_BUF_POS)
      e->pos_buf[info[b].lvl] = b;
    for (int k = 0; info[b].kind == LYC_BUF_CRD && k < info[b].nlvls; k++) {
      e->crd_buf[info[b].lvl + k] = b;
      e->crd_stride[info[b].lvl + k] = info[b].nlvls;
      e->crd_field[info[b].lvl + k] = k;
    }
  }
  for (int l = 0; l < e->L; l++)
    e->size[l] = lvl_size(f, l);
}

/* The buffer sizes from the entry counts of a finished counting walk. */
static LyStatus enc_counts(Enc *e, int64_t *counts) {
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(e->f, info);
  for (int b = 0; b < nb; b++) {
    int l = info[b].lvl;
    int64_t parents = l == 0 ? 1 : e->nent[l - 1];
    if (info[b].kind == LYC_BUF_POS) {
      if ((uint64_t)e->nent[l] > lyc_uint_max(info[b].bits))
        return err(e->d, "%" PRId64 " entries of level %d do not fit %d-bit positions", e->nent[l], l, info[b].bits),
               LY_ERROR_OVERFLOW;
      counts[b] = e->f->kind[l] == LYC_LVL_COMPRESSED ? parents + 1 : 2 * parents;
    } else {
      counts[b] = e->nent[l] * info[b].nlvls; /* nent <= dense elements: no overflow */
    }
  }
  return LY_OK;
}

/* Counts (bufs NULL) or fills the storage of sorted points. */
static LyStatus encode(LyDiagEngine *d, const LycSparse *f, const Points *p, int64_t *counts, void *const *bufs) {
  Enc e;
  enc_init(&e, d, f, p, bufs);
  for (int l = 0; l < f->lvl_rank; l++) /* written even when no parent is stored */
    if (f->kind[l] == LYC_LVL_COMPRESSED)
      put(&e, e.pos_buf[l], 0, 0);
  walk(&e, 0, 0, p->n);
  if (e.failed)
    return LY_ERROR_INVALID;
  return counts ? enc_counts(&e, counts) : LY_OK;
}

LyStatus lyc_sparse_from_dense(LyDiagEngine *d, const LycSparse *f, const void *dense, int64_t *counts,
                               void *const *bufs) {
  LyStatus s = lyc_sparse_check(d, f);
  if (s)
    return s;
  Points p;
  if (!points_from_dense(d, f, dense, &p))
    return points_free(&p), LY_ERROR_NOMEM;
  s = encode(d, f, &p, bufs ? NULL : counts, bufs);
  points_free(&p);
  return s;
}

LyStatus lyc_sparse_sizes(LyDiagEngine *d, const LycSparse *f, const void *dense, int64_t *counts) {
  return lyc_sparse_from_dense(d, f, dense, counts, NULL);
}

/* ===== Decoding: validation and the coordinate list ========================= */

typedef struct {
  LyDiagEngine *d;
  const LycSparse *f;
  int L;
  int64_t size[LY_MAX_RANK];
  const uint8_t *const *bufs;
  const int64_t *counts;
  int pos_buf[LY_MAX_RANK], crd_buf[LY_MAX_RANK], val_buf, bits[LYC_SPARSE_MAX_BUFS];
  int crd_stride[LY_MAX_RANK], crd_field[LY_MAX_RANK];
  int64_t c[LY_MAX_RANK]; /* the current point's level coordinates */
  int64_t prev_coo;       /* COO region: previous entry under the current parent, -1 if none */
  int64_t prev_c[LY_MAX_RANK];
  Points *out;
  bool failed;
} Dec;

static const char *buf_name(int kind) { return kind == LYC_BUF_POS ? "positions" : "coordinates"; }

/* Entry i of buffer b, or false after a diagnostic when i is beyond it. */
static bool get(Dec *x, int b, int64_t i, uint64_t *v) {
  if (i < 0 || i >= x->counts[b]) {
    err(x->d, "sparse buffer %d: index %" PRId64 " is beyond its %" PRId64 " entries", b, i, x->counts[b]);
    return x->failed = true, false;
  }
  *v = lyc_load_uint(x->bufs[b], x->bits[b], i);
  return true;
}

/* Coordinate of level l at entry k, checked against the level size. */
static bool get_crd(Dec *x, int l, int64_t k, int64_t *c) {
  int b = x->crd_buf[l];
  int64_t i = k * x->crd_stride[l] + x->crd_field[l];
  uint64_t v;
  /* k is below the buffer's entries over its stride (the positions were
   * checked against them, singletons follow such an entry): no overflow. */
  if (!get(x, b, i, &v))
    return false;
  if (v >= (uint64_t)x->size[l]) {
    err(x->d, "sparse buffer %d (%s of level %d): entry %" PRId64 " is %" PRIu64 ", beyond the level size %" PRId64, b,
        buf_name(LYC_BUF_CRD), l, i, v, x->size[l]);
    return x->failed = true, false;
  }
  *c = (int64_t)v;
  return true;
}

static void bad_order(Dec *x, int l, int64_t k, const char *what) {
  err(x->d, "sparse buffer %d (%s of level %d): entry %" PRId64 " is %s", x->crd_buf[l], buf_name(LYC_BUF_CRD), l,
      k * x->crd_stride[l] + x->crd_field[l], what);
  x->failed = true;
}

/* A COO region's entries under one parent are ordered lexicographically on
 * the levels that say so; the last level is unique. */
static void check_coo_order(Dec *x, int s, int64_t k) {
  if (x->prev_coo >= 0) {
    for (int l = s; l < x->L; l++) {
      bool ord = !x->f->nonordered[l];
      if (ord && x->c[l] < x->prev_c[l])
        return bad_order(x, l, k, "out of order");
      if (x->c[l] != x->prev_c[l])
        break;
      if (l == x->L - 1)
        return bad_order(x, l, k, "a duplicate");
    }
  }
  x->prev_coo = k;
  memcpy(x->prev_c, x->c, sizeof x->c);
}

static void dwalk(Dec *x, int l, int64_t parent);

/* The children [lo, hi) of a (loose) compressed parent, checked. */
static void dwalk_range(Dec *x, int l, int64_t lo, int64_t hi) {
  const LycSparse *f = x->f;
  bool coo = f->nonunique[l];
  if (coo)
    x->prev_coo = -1;
  for (int64_t k = lo; k < hi && !x->failed; k++) {
    if (!get_crd(x, l, k, &x->c[l]))
      return;
    if (!coo && k > lo && !f->nonordered[l]) {
      int64_t prev;
      get_crd(x, l, k - 1, &prev);
      if (x->c[l] <= prev)
        return bad_order(x, l, k, x->c[l] == prev ? "a duplicate" : "out of order");
    }
    dwalk(x, l + 1, k);
    if (coo && !x->failed)
      check_coo_order(x, l, k);
  }
}

static bool get_pos(Dec *x, int l, int64_t i, int64_t *v) {
  uint64_t u;
  if (!get(x, x->pos_buf[l], i, &u))
    return false;
  *v = (int64_t)(u > INT64_MAX ? INT64_MAX : u);
  return true;
}

static void dwalk_compressed(Dec *x, int l, int64_t parent) {
  int b = x->pos_buf[l];
  bool loose = x->f->kind[l] == LYC_LVL_LOOSE_COMPRESSED;
  int64_t i = loose ? 2 * parent : parent, lo, hi;
  if (!get_pos(x, l, i, &lo) || !get_pos(x, l, i + 1, &hi))
    return;
  if (hi < lo) {
    err(x->d, "sparse buffer %d (positions of level %d): entry %" PRId64 " is %" PRId64 ", below entry %" PRId64
              " (%" PRId64 ")", b, l, i + 1, hi, i, lo);
    x->failed = true;
    return;
  }
  int cb = x->crd_buf[l];
  if (hi > x->counts[cb] / x->crd_stride[l]) {
    err(x->d, "sparse buffer %d (positions of level %d): entry %" PRId64 " is %" PRId64
              ", beyond the %" PRId64 " entries of buffer %d", b, l, i + 1, hi, x->counts[cb] / x->crd_stride[l], cb);
    x->failed = true;
    return;
  }
  dwalk_range(x, l, lo, hi);
}

/* Visits the subtree of entry `parent` of level l - 1. */
static void dwalk(Dec *x, int l, int64_t parent) {
  if (x->failed)
    return;
  if (l == x->L) {
    uint64_t v;
    if (get(x, x->val_buf, parent, &v) && !points_push(x->d, x->out, x->c, v))
      x->failed = true;
    return;
  }
  const LycSparse *f = x->f;
  switch (f->kind[l]) {
  case LYC_LVL_DENSE:
    for (int64_t c = 0; c < x->size[l] && !x->failed; c++)
      x->c[l] = c, dwalk(x, l + 1, parent * x->size[l] + c);
    return;
  case LYC_LVL_SINGLETON:
    if (get_crd(x, l, parent, &x->c[l]))
      dwalk(x, l + 1, parent);
    return;
  case LYC_LVL_N_OUT_OF_M:
    for (int64_t k = parent * f->n; k < (parent + 1) * f->n && !x->failed; k++) {
      if (!get_crd(x, l, k, &x->c[l]))
        return;
      int64_t prev;
      if (k > parent * f->n && get_crd(x, l, k - 1, &prev) && x->c[l] <= prev)
        return bad_order(x, l, k, x->c[l] == prev ? "a duplicate" : "out of order");
      dwalk(x, l + 1, k);
    }
    return;
  default:
    dwalk_compressed(x, l, parent);
  }
}

/* All stored points of the buffers, in storage order, validated. */
static LyStatus decode(LyDiagEngine *d, const LycSparse *f, const int64_t *counts, const void *const *bufs,
                       Points *out) {
  LyStatus s = lyc_sparse_check(d, f);
  *out = (Points){.L = f->lvl_rank};
  if (s)
    return s;
  Enc e; /* the same buffer map as encoding */
  enc_init(&e, d, f, out, NULL);
  Dec x = {.d = d, .f = f, .L = f->lvl_rank, .bufs = (const uint8_t *const *)bufs, .counts = counts,
           .val_buf = e.val_buf, .out = out};
  memcpy(x.size, e.size, sizeof x.size);
  memcpy(x.pos_buf, e.pos_buf, sizeof x.pos_buf), memcpy(x.crd_buf, e.crd_buf, sizeof x.crd_buf);
  memcpy(x.bits, e.bits, sizeof x.bits);
  memcpy(x.crd_stride, e.crd_stride, sizeof x.crd_stride), memcpy(x.crd_field, e.crd_field, sizeof x.crd_field);
  int64_t most = dense_count(f); /* each point has its own value entry */
  if (most > 0 && !points_reserve(d, out, counts[e.val_buf] < most ? counts[e.val_buf] : most))
    return LY_ERROR_NOMEM;
  if (most > 0)
    dwalk(&x, 0, 0);
  return x.failed ? LY_ERROR_INVALID : LY_OK;
}

/* Dense element offset of a point's level coordinates. */
static int64_t point_offset(const int64_t *ls, const int64_t *c, int L) {
  int64_t off = 0;
  for (int l = 0; l < L; l++)
    off += c[l] * ls[l];
  return off;
}

static void dup_error(LyDiagEngine *d, const LycSparse *f, const int64_t *c) {
  char at[256];
  point_text(f, c, f->lvl_rank, at, sizeof at);
  err(d, "sparse buffers store the point (%s) twice", at);
}

LyStatus lyc_sparse_to_dense(LyDiagEngine *d, const LycSparse *f, const int64_t *counts, const void *const *bufs,
                             void *dense) {
  Points p;
  LyStatus s = decode(d, f, counts, bufs, &p);
  int64_t n = s ? 0 : dense_count(f), ls[LY_MAX_RANK];
  int vb = lyElemGetBits(f->value) / 8;
  uint8_t *seen = s ? NULL : ly_malloc((size_t)(n / 8 + 1)); /* duplicates would make the value ambiguous */
  if (!s && !seen)
    err(d, "out of memory"), s = LY_ERROR_NOMEM;
  if (!s) {
    memset(dense, 0, (size_t)(n * vb));
    memset(seen, 0, (size_t)(n / 8 + 1));
    level_strides(f, ls);
  }
  for (int64_t i = 0; !s && i < p.n; i++) {
    int64_t off = point_offset(ls, p.crd + i * p.L, p.L);
    if (seen[off / 8] & (1 << (off % 8)))
      dup_error(d, f, p.crd + i * p.L), s = LY_ERROR_INVALID;
    seen[off / 8] |= (uint8_t)(1 << (off % 8));
    lyc_store_elem(dense, f->value, off, p.val[i]);
  }
  ly_free(seen);
  points_free(&p);
  return s;
}

/* ===== Sparse to sparse ====================================================== */

/* Points a and b of p in level order: -1, 0 (the same point) or 1. */
static int point_cmp(const Points *p, int64_t a, int64_t b) {
  const int64_t *x = p->crd + a * p->L, *y = p->crd + b * p->L;
  for (int l = 0; l < p->L; l++)
    if (x[l] != y[l])
      return x[l] < y[l] ? -1 : 1;
  return 0;
}

static int cmp_points(const void *a, const void *b, void *arg) {
  return point_cmp(arg, *(const int64_t *)a, *(const int64_t *)b);
}

/* Orders the points of p by their level coordinates with a least-significant
 * first radix sort, a counting sort per level (stable, so equal points stay
 * adjacent): O(points + coordinate range) per level, as SciPy's tocsc.
 * false, order untouched, when a level's coordinates span more than twice
 * the points and 64K (the counts would dwarf them) or memory runs out. */
static bool radix_order(const Points *p, int64_t *order) {
  int64_t n = p->n, L = p->L, *other = ly_malloc((size_t)n * sizeof *other), *cnt = NULL;
  bool ok = other != NULL;
  for (int64_t l = L - 1; ok && l >= 0; l--) {
    int64_t range = 0;
    for (int64_t i = 0; i < n; i++)
      range = p->crd[i * L + l] >= range ? p->crd[i * L + l] + 1 : range;
    if (range > 2 * n + 65536 || !(cnt = ly_malloc((size_t)(range + 1) * sizeof *cnt))) {
      ok = false;
      break;
    }
    memset(cnt, 0, (size_t)(range + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++)
      cnt[p->crd[order[i] * L + l] + 1]++;
    for (int64_t c = 1; c <= range; c++)
      cnt[c] += cnt[c - 1];
    for (int64_t i = 0; i < n; i++)
      other[cnt[p->crd[order[i] * L + l]]++] = order[i];
    memcpy(order, other, (size_t)n * sizeof *order);
    ly_free(cnt);
  }
  ly_free(other);
  return ok;
}

static bool same_levels(const LycSparse *a, const LycSparse *b) {
  if (a->lvl_rank != b->lvl_rank)
    return false;
  for (int l = 0; l < a->lvl_rank; l++)
    if (a->lvl_dim[l] != b->lvl_dim[l] || a->lvl_div[l] != b->lvl_div[l] || a->lvl_mod[l] != b->lvl_mod[l])
      return false;
  return true;
}

/* The points of src (taken from *sp) re-expressed in dst's level
 * coordinates and sorted: kept as they are when the levels map the dims
 * alike, left in place when already in order (CSR to COO or BSR with blocks
 * of one row), by radix_order where the coordinates allow, else by qsort. */
static LyStatus relevel(LyDiagEngine *d, const LycSparse *src, Points *sp, const LycSparse *dst, Points *dp) {
  Points tmp = {.L = dst->lvl_rank};
  *dp = (Points){.L = dst->lvl_rank};
  if (same_levels(src, dst)) {
    tmp = *sp, *sp = (Points){.L = src->lvl_rank};
  } else {
    if (!points_reserve(d, &tmp, sp->n))
      return points_free(&tmp), LY_ERROR_NOMEM;
    for (int64_t i = 0; i < sp->n; i++) {
      int64_t dim[LY_MAX_RANK], *c = tmp.crd + i * tmp.L;
      for (int r = 0; r < src->rank; r++)
        dim[r] = 0;
      for (int l = 0; l < src->lvl_rank; l++)
        dim[src->lvl_dim[l]] += sp->crd[i * sp->L + l] * src->lvl_div[l];
      for (int l = 0; l < dst->lvl_rank; l++) { /* most levels neither divide nor wrap */
        c[l] = dst->lvl_div[l] == 1 ? dim[dst->lvl_dim[l]] : dim[dst->lvl_dim[l]] / dst->lvl_div[l];
        if (dst->lvl_mod[l])
          c[l] %= dst->lvl_mod[l];
      }
      tmp.val[i] = sp->val[i];
    }
    tmp.n = sp->n;
  }
  int64_t i = 1;
  while (i < tmp.n && point_cmp(&tmp, i - 1, i) < 0)
    i++;
  if (i >= tmp.n) { /* in order, each point once */
    *dp = tmp;
    return LY_OK;
  }
  int64_t *order = ly_malloc((size_t)tmp.n * sizeof *order);
  bool ok = order && points_reserve(d, dp, tmp.n);
  for (int64_t k = 0; ok && k < tmp.n; k++)
    order[k] = k;
  if (ok && !radix_order(&tmp, order)) {
    for (int64_t k = 0; k < tmp.n; k++) /* radix_order may have stopped half way */
      order[k] = k;
    qsort_r(order, (size_t)tmp.n, sizeof *order, cmp_points, &tmp);
  }
  for (int64_t k = 0; ok && k < tmp.n; k++) {
    if (k > 0 && point_cmp(&tmp, order[k - 1], order[k]) == 0) /* sorted: equal, or in order */
      return dup_error(d, dst, tmp.crd + order[k] * tmp.L), points_free(&tmp), ly_free(order), LY_ERROR_INVALID;
    memcpy(dp->crd + k * tmp.L, tmp.crd + order[k] * tmp.L, (size_t)tmp.L * sizeof *tmp.crd);
    dp->val[k] = tmp.val[order[k]];
  }
  dp->n = ok ? tmp.n : 0;
  if (!order)
    err(d, "out of memory");
  points_free(&tmp);
  ly_free(order);
  return ok ? LY_OK : LY_ERROR_NOMEM;
}

LyStatus lyc_sparse_convert(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts,
                            const void *const *sbufs, const LycSparse *dst, int64_t *dcounts, void *const *dbufs) {
  if (src->rank != dst->rank || memcmp(src->dims, dst->dims, (size_t)src->rank * sizeof *src->dims) ||
      src->value != dst->value)
    return err(d, "sparse conversion: source and destination differ in dims or value type"), LY_ERROR_INVALID;
  LyStatus s = lyc_sparse_check(d, dst);
  Points sp, dp = {0};
  if (!s)
    s = decode(d, src, scounts, sbufs, &sp);
  else
    sp = (Points){0};
  if (!s)
    s = relevel(d, src, &sp, dst, &dp);
  if (!s && dcounts) /* the counts first: they check the positions' width */
    s = encode(d, dst, &dp, dcounts, NULL);
  if (!s && dbufs)
    s = encode(d, dst, &dp, NULL, dbufs);
  points_free(&sp);
  points_free(&dp);
  return s;
}
