/* codegen/sparse_matrix: sparse to sparse between the element formats of a
 * matrix (CSR, CSC, COO with AoS or SoA coordinates, DCSR, DCSC) in
 * O(entries + dims), as SciPy's tocsr/tocsc/tocoo: the source's entries are
 * rows of its outer dim, checked as the interpreter checks them; a
 * destination with the same outer dim takes them in order (the values in one
 * copy), the other one through a counting transpose. The interpreter
 * (sparse.c) does every other pair, and reports where malformed buffers are
 * wrong: this file only says that they are. */
#include "codegen/codegen.h"

typedef enum { MAT_ROWS, MAT_COO, MAT_DOUBLY } MatKind; /* CSR/CSC, COO, DCSR/DCSC */

typedef struct {
  MatKind kind;
  int outer;                /* the dim of level 0 */
  int64_t n_outer, n_inner; /* their sizes */
  int pbits, cbits, vbytes;
  int pos0, crd0, pos1, crd1, val; /* buffer numbers, -1 for none */
  int stride0, stride1, field1;    /* coordinate k of level l at crd_l[k * stride_l + field_l] */
} Mat;

/* The matrix view of a checked format; false when it is none of them. */
static bool mat_of(const LycSparse *f, Mat *m) {
  if (f->rank != 2 || f->lvl_rank != 2 || f->lvl_dim[0] == f->lvl_dim[1] || f->lvl_div[0] != 1 ||
      f->lvl_div[1] != 1 || f->lvl_mod[0] || f->lvl_mod[1] || f->nonordered[0] || f->nonordered[1] ||
      f->nonunique[1])
    return false;
  if (f->kind[0] == LYC_LVL_DENSE && f->kind[1] == LYC_LVL_COMPRESSED)
    m->kind = MAT_ROWS;
  else if (f->kind[0] == LYC_LVL_COMPRESSED && f->nonunique[0] && f->kind[1] == LYC_LVL_SINGLETON)
    m->kind = MAT_COO;
  else if (f->kind[0] == LYC_LVL_COMPRESSED && !f->nonunique[0] && f->kind[1] == LYC_LVL_COMPRESSED)
    m->kind = MAT_DOUBLY;
  else
    return false;
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  m->outer = f->lvl_dim[0];
  m->n_outer = f->dims[m->outer], m->n_inner = f->dims[1 - m->outer];
  m->pos0 = m->crd0 = m->pos1 = m->crd1 = -1;
  m->stride0 = m->stride1 = 1, m->field1 = 0;
  for (int b = 0; b < nb; b++) {
    const LycBufInfo *i = &info[b];
    if (i->kind == LYC_BUF_VAL)
      m->val = b, m->vbytes = i->bits / 8;
    else if (i->kind == LYC_BUF_POS)
      *(i->lvl ? &m->pos1 : &m->pos0) = b, m->pbits = i->bits;
    else if (i->lvl == 1)
      m->crd1 = b, m->cbits = i->bits;
    else if (i->nlvls == 2) /* array-of-structs COO: both levels in one buffer */
      m->crd0 = m->crd1 = b, m->stride0 = m->stride1 = 2, m->field1 = 1, m->cbits = i->bits;
    else
      m->crd0 = b, m->cbits = i->bits;
  }
  return true;
}

bool lyc_sparse_matrix_supports(const LycSparse *src, const LycSparse *dst) {
  Mat a, b;
  return mat_of(src, &a) && mat_of(dst, &b) && src->value == dst->value && src->dims[0] == dst->dims[0] &&
         src->dims[1] == dst->dims[1];
}

/* ===== The source as rows ======================================================= */

/* Entry i of a buffer as the interpreter reads positions: beyond INT64_MAX
 * is INT64_MAX (then beyond every buffer). */
static int64_t pos_at(const uint8_t *b, int bits, int64_t i) {
  uint64_t u = lyc_load_uint(b, bits, i);
  return u > INT64_MAX ? INT64_MAX : (int64_t)u;
}

/* start[r], r <= n_outer: the source's row r is its entries [start[r],
 * start[r + 1]) of the inner coordinates and values. false when the
 * positions or the outer coordinates are not what the interpreter accepts
 * (the values' count is the caller's to check). */
static bool rows_of(const Mat *m, const int64_t *counts, const uint8_t *const *b, int64_t *start) {
  int64_t n = m->n_outer, lo, hi;
  if (m->kind == MAT_ROWS) {
    if (counts[m->pos1] < n + 1)
      return false;
    for (int64_t r = 0; r <= n; r++)
      if ((start[r] = pos_at(b[m->pos1], m->pbits, r)) < (r ? start[r - 1] : 0))
        return false;
    return start[n] <= counts[m->crd1];
  }
  if (counts[m->pos0] < 2 || (lo = pos_at(b[m->pos0], m->pbits, 0)) > (hi = pos_at(b[m->pos0], m->pbits, 1)) ||
      hi > counts[m->crd0] / m->stride0)
    return false;
  int64_t r = 0, prev = -1;
  if (m->kind == MAT_COO) { /* rows in order, each row's entries together */
    if (lo < hi && hi > counts[m->crd1]) /* SoA inner coordinates: their own buffer */
      return false;
    for (int64_t k = lo; k < hi; k++) {
      uint64_t row = lyc_load_uint(b[m->crd0], m->cbits, k * m->stride0);
      if (row >= (uint64_t)n || (int64_t)row < prev)
        return false;
      for (prev = (int64_t)row; r <= prev; r++)
        start[r] = k;
    }
    for (; r <= n; r++)
      start[r] = hi;
    return true;
  }
  /* DCSR: the stored rows, increasing, each with its range of level 1 */
  if (lo < hi && counts[m->pos1] < hi + 1)
    return false;
  int64_t at = lo < hi ? pos_at(b[m->pos1], m->pbits, lo) : 0;
  for (int64_t k = lo; k < hi; k++) {
    uint64_t row = lyc_load_uint(b[m->crd0], m->cbits, k);
    int64_t next = pos_at(b[m->pos1], m->pbits, k + 1);
    if (row >= (uint64_t)n || (int64_t)row <= prev || next < at)
      return false;
    for (prev = (int64_t)row; r <= prev; r++)
      start[r] = at;
    at = next;
  }
  for (; r <= n; r++)
    start[r] = at;
  return at <= counts[m->crd1];
}

/* The hot loops below are inline with their widths as arguments: called
 * with constants for the usual widths (32- and 64-bit coordinates, one
 * buffer per level), they compile without a switch per entry. */
#define HOT static inline __attribute__((always_inline))

/* Checks the inner coordinates (below the dim, increasing in each row) and,
 * when cnt is given, counts the entries of each inner coordinate in
 * cnt[c + 1]. */
HOT bool check_rows(const Mat *m, const uint8_t *crd, int cbits, int stride, const int64_t *start, int64_t *cnt) {
  for (int64_t r = 0; r < m->n_outer; r++) {
    int64_t prev = -1;
    for (int64_t k = start[r]; k < start[r + 1]; k++) {
      uint64_t c = lyc_load_uint(crd, cbits, k * stride + m->field1);
      if (c >= (uint64_t)m->n_inner || (int64_t)c <= prev)
        return false;
      prev = (int64_t)c;
      if (cnt)
        cnt[c + 1]++;
    }
  }
  return true;
}

static bool check_inner(const Mat *m, const uint8_t *crd, const int64_t *start, int64_t *cnt) {
  if (m->stride1 == 1 && m->cbits == 32)
    return check_rows(m, crd, 32, 1, start, cnt);
  if (m->stride1 == 1 && m->cbits == 64)
    return check_rows(m, crd, 64, 1, start, cnt);
  return check_rows(m, crd, m->cbits, m->stride1, start, cnt);
}

/* ===== The destination ============================================================ */

/* Entries per buffer of dst for `entries` points of which `lines` outer
 * coordinates hold some; false when they do not fit its positions (the
 * interpreter says so). */
static bool dst_counts(const Mat *m, int64_t entries, int64_t lines, int64_t *counts) {
  if ((uint64_t)entries > (m->pbits == 64 ? UINT64_MAX : (1ULL << m->pbits) - 1))
    return false;
  counts[m->val] = counts[m->crd1] = entries; /* an AoS COO's is set again below */
  if (m->kind == MAT_ROWS)
    counts[m->pos1] = m->n_outer + 1;
  else
    counts[m->pos0] = 2, counts[m->crd0] = m->kind == MAT_COO ? entries * m->stride0 : lines;
  if (m->kind == MAT_DOUBLY)
    counts[m->pos1] = lines + 1;
  return true;
}

/* The outer structure of dst from its rows (dstart, n_outer + 1 entries
 * from 0): positions, the stored rows of a DCSR, the row coordinate of
 * every COO entry. */
static void write_outer(const Mat *m, const int64_t *dstart, int64_t lines, uint8_t *const *b) {
  int64_t n = m->n_outer;
  if (m->kind == MAT_ROWS) {
    for (int64_t r = 0; r <= n; r++)
      lyc_store_uint(b[m->pos1], m->pbits, r, (uint64_t)dstart[r]);
    return;
  }
  lyc_store_uint(b[m->pos0], m->pbits, 0, 0);
  lyc_store_uint(b[m->pos0], m->pbits, 1, (uint64_t)(m->kind == MAT_COO ? dstart[n] : lines));
  int64_t j = 0;
  for (int64_t r = 0; r < n; r++) {
    if (m->kind == MAT_COO) {
      for (int64_t k = dstart[r]; k < dstart[r + 1]; k++)
        lyc_store_uint(b[m->crd0], m->cbits, k * m->stride0, (uint64_t)r);
    } else if (dstart[r + 1] > dstart[r]) {
      lyc_store_uint(b[m->crd0], m->cbits, j, (uint64_t)r);
      lyc_store_uint(b[m->pos1], m->pbits, j++, (uint64_t)dstart[r]);
    }
  }
  if (m->kind == MAT_DOUBLY)
    lyc_store_uint(b[m->pos1], m->pbits, j, (uint64_t)dstart[n]);
}

/* Inner coordinates [from, from + n) of the source to [0, n) of dst, the
 * widths converted. */
static void copy_inner(const Mat *s, const uint8_t *from, int64_t first, const Mat *d, uint8_t *to, int64_t n) {
  if (s->cbits == d->cbits && s->stride1 == 1 && d->stride1 == 1) {
    memcpy(to, from + first * (s->cbits / 8), (size_t)(n * (s->cbits / 8)));
    return;
  }
  for (int64_t k = 0; k < n; k++)
    lyc_store_uint(to, d->cbits, k * d->stride1 + d->field1,
                   lyc_load_uint(from, s->cbits, (first + k) * s->stride1 + s->field1));
}

/* One value of vb bytes. */
static inline void copy_value(uint8_t *to, const uint8_t *from, int vb) {
  switch (vb) {
  case 1: *to = *from; return;
  case 2: memcpy(to, from, 2); return;
  case 4: memcpy(to, from, 4); return;
  case 8: memcpy(to, from, 8); return;
  default: memcpy(to, from, (size_t)vb);
  }
}

/* The counting transpose: entry k of source row r goes to cur[c]++ of
 * dst, whose inner coordinate is r, rows in order so that each dst row
 * comes out sorted (write_outer has its outer structure). */
HOT void transpose_rows(const Mat *s, const uint8_t *scrd, int sbits, int sstride, const uint8_t *sval,
                        const int64_t *start, const Mat *d, uint8_t *dcrd, int dbits, int dstride, uint8_t *dval,
                        int vb, int64_t *cur) {
  for (int64_t r = 0; r < s->n_outer; r++)
    for (int64_t k = start[r]; k < start[r + 1]; k++) {
      int64_t at = cur[lyc_load_uint(scrd, sbits, k * sstride + s->field1)]++;
      lyc_store_uint(dcrd, dbits, at * dstride + d->field1, (uint64_t)r);
      copy_value(dval + at * vb, sval + k * vb, vb);
    }
}

static void transpose(const Mat *s, const uint8_t *const *sb, const int64_t *start, const Mat *d, uint8_t *const *db,
                      int64_t *cur) {
  const uint8_t *scrd = sb[s->crd1], *sval = sb[s->val];
  uint8_t *dcrd = db[d->crd1], *dval = db[d->val];
  int vb = s->vbytes;
  if (s->stride1 == 1 && d->stride1 == 1 && s->cbits == d->cbits && (s->cbits == 32 || s->cbits == 64) &&
      (vb == 2 || vb == 4 || vb == 8)) {
#define TRANSPOSE(bits, vbytes) transpose_rows(s, scrd, bits, 1, sval, start, d, dcrd, bits, 1, dval, vbytes, cur)
    if (s->cbits == 32)
      vb == 4 ? TRANSPOSE(32, 4) : vb == 8 ? TRANSPOSE(32, 8) : TRANSPOSE(32, 2);
    else
      vb == 4 ? TRANSPOSE(64, 4) : vb == 8 ? TRANSPOSE(64, 8) : TRANSPOSE(64, 2);
#undef TRANSPOSE
    return;
  }
  transpose_rows(s, scrd, s->cbits, s->stride1, sval, start, d, dcrd, d->cbits, d->stride1, dval, vb, cur);
}

static int fail(LyDiagEngine *d, const char *what) {
  ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s", what);
  return -1;
}

int lyc_sparse_matrix_convert(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts,
                              const void *const *sbufs, const LycSparse *dst, int64_t *dcounts, void *const *dbufs) {
  Mat s, t;
  if (!lyc_sparse_matrix_supports(src, dst))
    return 0;
  mat_of(src, &s), mat_of(dst, &t);
  /* Rows of a dim far larger than the entries (hypersparse COO or DCSR):
   * the interpreter's sort, not arrays of the dims. */
  int64_t most = 2 * scounts[s.crd1] + 65536;
  if ((s.kind != MAT_ROWS && s.n_outer > most) || (t.kind != MAT_ROWS && t.n_outer > most))
    return 0;
  const uint8_t *const *sb = (const uint8_t *const *)sbufs;
  bool same = s.outer == t.outer;
  int64_t *start = ly_malloc((size_t)(s.n_outer + 1) * sizeof *start);
  int64_t *dstart = ly_malloc((size_t)(t.n_outer + 1) * sizeof *dstart);
  if (!start || !dstart)
    return ly_free(start), ly_free(dstart), fail(d, "out of memory");
  memset(dstart, 0, (size_t)(t.n_outer + 1) * sizeof *dstart);
  int result = 0;
  if (!s.n_outer || !s.n_inner) /* no element: the interpreter reads no buffer either */
    memset(start, 0, (size_t)(s.n_outer + 1) * sizeof *start);
  else if (!rows_of(&s, scounts, sb, start) || !check_inner(&s, sb[s.crd1], start, same ? NULL : dstart))
    goto done;
  int64_t entries = start[s.n_outer] - start[0], lines = 0;
  if (entries && start[s.n_outer] > scounts[s.val])
    goto done;
  if (same)
    for (int64_t r = 0; r <= s.n_outer; r++)
      dstart[r] = start[r] - start[0];
  else
    for (int64_t c = 0; c < t.n_outer; c++)
      dstart[c + 1] += dstart[c];
  for (int64_t r = 0; r < t.n_outer && t.kind == MAT_DOUBLY; r++)
    lines += dstart[r + 1] > dstart[r];
  if (!dst_counts(&t, entries, lines, dcounts))
    goto done;
  result = 1;
  if (!dbufs)
    goto done;
  uint8_t *const *db = (uint8_t *const *)dbufs;
  write_outer(&t, dstart, lines, db);
  if (same) {
    copy_inner(&s, sb[s.crd1], start[0], &t, db[t.crd1], entries);
    memcpy(db[t.val], sb[s.val] + start[0] * s.vbytes, (size_t)(entries * s.vbytes));
  } else {
    transpose(&s, sb, start, &t, db, dstart); /* dstart moves on to each row's end */
  }
done:
  ly_free(start);
  ly_free(dstart);
  return result;
}
