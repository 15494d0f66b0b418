/* codegen/sparse_matrix: sparse to sparse between the element formats of a
 * matrix (CSR, CSC, COO with AoS or SoA coordinates, DCSR, DCSC) in
 * O(entries + dims), as SciPy's tocsr/tocsc/tocoo: the source's entries are
 * rows of its outer dim, checked as the interpreter checks them; a
 * destination with the same outer dim takes them in order (the values in one
 * copy), the other one through a counting transpose. Block formats (BSR,
 * BSC) go through a CSR of their outer dim, as SciPy's tobsr/tocsr: their
 * blocks expanded into it, or its rows gathered into blocks. The interpreter
 * (sparse.c) does every other pair, and reports where malformed buffers are
 * wrong: this file only says that they are. */
#include "codegen/codegen.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The hot loops are inline with their widths as arguments: called with
 * constants for the usual widths (32- and 64-bit coordinates), they compile
 * without a switch per entry. */
#define HOT static inline __attribute__((always_inline))

/* GCC's and Clang's vectors: SSE2 on any x86-64 (row_ok32). */
typedef uint32_t U32x4 __attribute__((vector_size(16)));

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

/* A block format: level 0 the outer dim in blocks (dense), level 1 the
 * inner one in blocks (compressed, ordered, unique), levels 2 and 3 the
 * places in a block (dense, either order). */
typedef struct {
  int outer;
  int64_t br, bc;  /* block rows (of the outer dim) and columns */
  bool row_major;  /* level 2 is the outer dim */
  int pbits, cbits, vbytes; /* from its buffers: positions, block columns, values */
} Blocks;

static bool blocks_of(const LycSparse *f, Blocks *b) {
  if (f->rank != 2 || f->lvl_rank != 4 || f->kind[0] != LYC_LVL_DENSE || f->kind[1] != LYC_LVL_COMPRESSED ||
      f->kind[2] != LYC_LVL_DENSE || f->kind[3] != LYC_LVL_DENSE || f->nonunique[1] || f->nonordered[1] ||
      f->lvl_dim[0] == f->lvl_dim[1] || f->lvl_dim[2] == f->lvl_dim[3] || f->lvl_mod[0] || f->lvl_mod[1] ||
      f->lvl_div[2] != 1 || f->lvl_div[3] != 1)
    return false;
  b->outer = f->lvl_dim[0];
  b->br = f->lvl_div[0], b->bc = f->lvl_div[1];
  b->row_major = f->lvl_dim[2] == b->outer;
  LycBufInfo info[LYC_SPARSE_MAX_BUFS]; /* lyc_sparse_check: the mods are the block sizes, which divide the dims */
  lyc_sparse_buffers(f, info);
  b->pbits = info[0].bits, b->cbits = info[1].bits, b->vbytes = info[2].bits / 8;
  return true;
}

bool lyc_sparse_matrix_supports(const LycSparse *src, const LycSparse *dst) {
  Mat a;
  Blocks b;
  return (mat_of(src, &a) || blocks_of(src, &b)) && (mat_of(dst, &a) || blocks_of(dst, &b)) &&
         src->value == dst->value && src->dims[0] == dst->dims[0] && src->dims[1] == dst->dims[1];
}

/* ===== The source as rows ======================================================= */

/* Entry i of a buffer as the interpreter reads positions: beyond INT64_MAX
 * is INT64_MAX (then beyond every buffer). */
static int64_t pos_at(const uint8_t *b, int bits, int64_t i) {
  uint64_t u = lyc_load_uint(b, bits, i);
  return u > INT64_MAX ? INT64_MAX : (int64_t)u;
}

/* A COO's rows: start[r] the first entry of [lo, hi) whose row is r or
 * more; false when the rows are not below n and in order. */
HOT bool coo_rows(const uint8_t *crd, int bits, int stride, int64_t n, int64_t lo, int64_t hi, int64_t *start) {
  int64_t r = 0;
  for (int64_t k = lo; k < hi; k++) {
    uint64_t row = lyc_load_uint(crd, bits, k * stride);
    if (row >= (uint64_t)n || (int64_t)row < r - 1)
      return false;
    for (; r <= (int64_t)row; r++)
      start[r] = k;
  }
  for (; r <= n; r++)
    start[r] = hi;
  return true;
}

/* An array-of-structs COO of 32-bit coordinates, entries [lo, hi) of crd
 * (row at 8k, column at 8k + 4), in one pass: start[r] as coo_rows gives it,
 * and check_rows' check of the columns, with cnt[c + 1] counting each column
 * when cnt is given. Rows in order and each row's columns increasing are one
 * condition on the pairs: each greater than the last, the rows compared
 * first. Without cnt, four pairs at a time (SSE2) against the four before
 * them, faults gathered without a branch; the rows move on only
 * at a chunk whose last row is not the current one, which then goes a pair
 * at a time (start is written only below n; a chunk whose rows go back is a
 * fault the vectors see). COO -> CSR, 4096x4096 f32 at 10% (1.68 M
 * entries), the nnz pass: 1.69-1.87 ms with coo_rows and check_rows, 0.81-1.02
 * with this. */
static inline bool pair_row(uint32_t row, int64_t n, int64_t k, int64_t *r, int64_t *start) {
  if (row >= (uint64_t)n)
    return false;
  for (; *r <= (int64_t)row; (*r)++) /* none when the row went back: a fault found by the caller */
    start[*r] = k;
  return true;
}

#ifdef __SSE2__
/* The pairs before those of b: a's high one and b's low one. */
static inline __m128i pairs_before(__m128i a, __m128i b) {
  return _mm_castpd_si128(_mm_shuffle_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b), 1));
}

/* Whether the pairs of x (two, their 32-bit halves' sign bits flipped) are
 * not each greater than those of px (the pair before each), or past top:
 * nonzero lanes where not. Signed compares of the flipped halves are the
 * unsigned ones. */
static inline __m128i pairs_bad32(__m128i x, __m128i px, __m128i top) {
  __m128i gt = _mm_cmpgt_epi32(x, px), eq = _mm_cmpeq_epi32(x, px);
  __m128i ok = _mm_or_si128(gt, _mm_and_si128(eq, _mm_srli_epi64(gt, 32))); /* low halves: row greater, or */
  return _mm_or_si128(_mm_andnot_si128(ok, _mm_set_epi32(0, -1, 0, -1)),   /* equal and column greater */
                      _mm_cmpgt_epi32(x, top));
}
#endif

HOT bool coo_pairs32(const uint8_t *crd, int64_t n, int64_t n_inner, int64_t lo, int64_t hi, int64_t *start,
                     int64_t *cnt) {
  int64_t r = 0, k = lo;
  uint32_t row, col, last = (uint32_t)(n_inner - 1); /* n_inner >= 1 and fits (source_rows, lyc_sparse_check) */
  uint64_t prev = 0, bad = 0;
  if (k < hi) {
    memcpy(&row, crd + 8 * k, 4), memcpy(&col, crd + 8 * k + 4, 4);
    if (!pair_row(row, n, k, &r, start) || col > last)
      return false;
    if (cnt)
      cnt[col + 1]++;
    prev = (uint64_t)row << 32 | col, k++;
  }
#ifdef __SSE2__
  if (!cnt && k < hi) {
    uint32_t top_row = n - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(n - 1), now = row;
    const __m128i sign = _mm_set1_epi32(INT32_MIN);
    __m128i top = _mm_xor_si128(_mm_set_epi32((int)last, (int)top_row, (int)last, (int)top_row), sign);
    __m128i vbad = _mm_setzero_si128(), x = _mm_slli_si128(_mm_loadl_epi64((const void *)(crd + 8 * (k - 1))), 8);
    x = _mm_xor_si128(x, sign); /* its high pair: the one before k */
    for (; k + 4 <= hi; k += 4) {
      __m128i a = _mm_xor_si128(_mm_loadu_si128((const void *)(crd + 8 * k)), sign);
      __m128i b = _mm_xor_si128(_mm_loadu_si128((const void *)(crd + 8 * k + 16)), sign);
      vbad = _mm_or_si128(vbad, _mm_or_si128(pairs_bad32(a, pairs_before(x, a), top),
                                             pairs_bad32(b, pairs_before(a, b), top)));
      x = b;
      uint32_t end;
      memcpy(&end, crd + 8 * (k + 3), 4);
      for (int64_t j = k; end != now && j < k + 4; j++) { /* a row boundary in the chunk */
        memcpy(&row, crd + 8 * j, 4);
        if (!pair_row(row, n, j, &r, start))
          return false;
      }
      now = end;
    }
    bad = _mm_movemask_epi8(vbad) != 0;
    memcpy(&row, crd + 8 * (k - 1), 4), memcpy(&col, crd + 8 * (k - 1) + 4, 4);
    prev = (uint64_t)row << 32 | col;
  }
#endif
  for (; k < hi; k++) {
    memcpy(&row, crd + 8 * k, 4), memcpy(&col, crd + 8 * k + 4, 4);
    uint64_t key = (uint64_t)row << 32 | col;
    if ((int64_t)row >= r && !pair_row(row, n, k, &r, start))
      return false;
    if (col > last || key <= prev)
      return false;
    if (cnt)
      cnt[col + 1]++;
    prev = key;
  }
  for (; r <= n; r++)
    start[r] = hi;
  return !bad;
}

/* start[r], r <= n_outer: the source's row r is its entries [start[r],
 * start[r + 1]) of the inner coordinates and values. false when the
 * positions or the outer coordinates are not what the interpreter accepts
 * (the values' count is the caller's to check). */
static bool rows_of(const Mat *m, const int64_t *counts, const uint8_t *const *b, int64_t *start, int64_t *cnt,
                    bool *inner_checked) {
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
    if (m->cbits == 32 && m->crd0 == m->crd1) { /* AoS: rows and columns checked together */
      *inner_checked = true;
      return coo_pairs32(b[m->crd0], n, m->n_inner, lo, hi, start, cnt);
    }
    return m->cbits == 32   ? coo_rows(b[m->crd0], 32, m->stride0, n, lo, hi, start)
           : m->cbits == 64 ? coo_rows(b[m->crd0], 64, m->stride0, n, lo, hi, start)
                            : coo_rows(b[m->crd0], m->cbits, m->stride0, n, lo, hi, start);
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

/* The same check of one row of 32-bit coordinates [lo, hi), four at a
 * time (GCC's and Clang's vectors: SSE2 on any x86-64) without a branch per
 * entry; the library is built for the baseline, and GCC's -O2 leaves loops
 * with an early exit scalar. */
static bool row_ok32(const uint8_t *crd, int64_t lo, int64_t hi, int64_t n_inner) {
  /* c < n_inner as c <= last: 32-bit coordinates mean n_inner - 1 fits (lyc_sparse_check) */
  uint32_t last = (uint32_t)(n_inner - 1), c, prev;
  if (lo == hi)
    return true;
  memcpy(&prev, crd + lo * 4, 4);
  if (prev > last)
    return false;
  U32x4 bad = {0, 0, 0, 0}, top = {last, last, last, last};
  int64_t k = lo + 1;
  for (; k + 4 <= hi; k += 4) {
    U32x4 a, b;
    memcpy(&a, crd + k * 4, 16), memcpy(&b, crd + (k - 1) * 4, 16);
    bad |= (U32x4)((a <= b) | (a > top));
  }
  if (bad[0] | bad[1] | bad[2] | bad[3])
    return false;
  for (memcpy(&prev, crd + (k - 1) * 4, 4); k < hi; k++, prev = c) {
    memcpy(&c, crd + k * 4, 4);
    if (c > last || c <= prev)
      return false;
  }
  return true;
}

/* The counts of check_rows, of coordinates already checked: the rows'
 * entries are [start[0], start[n_outer]) (positions never go back). Apart
 * from the check, CSR -> CSC 4096x4096 f32 at 1%, the fill: 0.48 -> 0.42 ms. */
static void count_columns32(const uint8_t *crd, int64_t lo, int64_t hi, int64_t *cnt) {
  for (int64_t k = lo; k < hi; k++) {
    uint32_t c;
    memcpy(&c, crd + 4 * k, 4);
    cnt[c + 1]++;
  }
}

static bool check_inner(const Mat *m, const uint8_t *crd, const int64_t *start, int64_t *cnt) {
  if (m->stride1 == 1 && m->cbits == 32) {
    for (int64_t r = 0; r < m->n_outer; r++)
      if (!row_ok32(crd, start[r], start[r + 1], m->n_inner))
        return false;
    if (cnt)
      count_columns32(crd, start[0], start[m->n_outer], cnt);
    return true;
  }
  if (m->stride1 == 1 && m->cbits == 64)
    return check_rows(m, crd, 64, 1, start, cnt);
  return check_rows(m, crd, m->cbits, m->stride1, start, cnt);
}

/* ===== The destination ============================================================ */

/* Entries per buffer of dst for `entries` points of which `lines` outer
 * coordinates hold some; false when they do not fit its positions (the
 * interpreter says so). */
static bool dst_counts(const Mat *m, int64_t entries, int64_t lines, int64_t *counts) {
  if ((uint64_t)entries > lyc_uint_max(m->pbits))
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

/* A COO's row coordinate of each entry, from its rows. */
HOT void put_rows(uint8_t *crd, int bits, int stride, const int64_t *dstart, int64_t n) {
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = dstart[r]; k < dstart[r + 1]; k++)
      lyc_store_uint(crd, bits, k * stride, (uint64_t)r);
}

/* An AoS COO's pairs of 32-bit coordinates, row r's from dstart[r] (n rows),
 * its columns from cols (consecutive), four at a time: each pair written
 * once, where put_rows and copy_coords wrote every other coordinate twice
 * over. CSR -> COO, 4096x4096 f32, the fill: 1% 0.20-0.21 -> 0.13-0.14 ms,
 * 10% 2.1-2.2 -> 1.3-1.4 ms. */
static void pairs_from_rows32(uint8_t *pairs, const uint8_t *cols, const int64_t *dstart, int64_t n) {
  for (int64_t r = 0; r < n; r++) {
    int64_t k = dstart[r], end = dstart[r + 1];
    uint32_t row = (uint32_t)r;
#ifdef __SSE2__
    __m128i rows = _mm_set1_epi32((int)row);
    for (; k + 4 <= end; k += 4) {
      __m128i c = _mm_loadu_si128((const void *)(cols + 4 * k));
      _mm_storeu_si128((void *)(pairs + 8 * k), _mm_unpacklo_epi32(rows, c));
      _mm_storeu_si128((void *)(pairs + 8 * k + 16), _mm_unpackhi_epi32(rows, c));
    }
#endif
    for (; k < end; k++)
      memcpy(pairs + 8 * k, &row, 4), memcpy(pairs + 8 * k + 4, cols + 4 * k, 4);
  }
}

/* The outer structure of dst from its rows (dstart, n_outer + 1 entries
 * from 0): positions, the stored rows of a DCSR, the row coordinate of
 * every COO entry (unless `rows` is false: pairs_from_rows32 writes them). */
static void write_outer(const Mat *m, const int64_t *dstart, int64_t lines, uint8_t *const *b, bool rows) {
  int64_t n = m->n_outer;
  if (m->kind == MAT_ROWS) {
    for (int64_t r = 0; r <= n; r++)
      lyc_store_uint(b[m->pos1], m->pbits, r, (uint64_t)dstart[r]);
    return;
  }
  lyc_store_uint(b[m->pos0], m->pbits, 0, 0);
  lyc_store_uint(b[m->pos0], m->pbits, 1, (uint64_t)(m->kind == MAT_COO ? dstart[n] : lines));
  if (m->kind == MAT_COO) {
    if (!rows)
      return;
    if (m->cbits == 32)
      put_rows(b[m->crd0], 32, m->stride0, dstart, n);
    else if (m->cbits == 64)
      put_rows(b[m->crd0], 64, m->stride0, dstart, n);
    else
      put_rows(b[m->crd0], m->cbits, m->stride0, dstart, n);
    return;
  }
  int64_t j = 0; /* DCSR: the rows that hold entries, each with its start */
  for (int64_t r = 0; r < n; r++)
    if (dstart[r + 1] > dstart[r]) {
      lyc_store_uint(b[m->crd0], m->cbits, j, (uint64_t)r);
      lyc_store_uint(b[m->pos1], m->pbits, j++, (uint64_t)dstart[r]);
    }
  lyc_store_uint(b[m->pos1], m->pbits, j, (uint64_t)dstart[n]);
}

HOT void copy_coords(const uint8_t *from, int sbits, int sstride, int sfield, int64_t first, uint8_t *to, int dbits,
                     int dstride, int dfield, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    lyc_store_uint(to, dbits, k * dstride + dfield, lyc_load_uint(from, sbits, (first + k) * sstride + sfield));
}

/* The columns of n pairs of 32-bit coordinates (an AoS COO's rows and
 * columns, from the pair at `pairs`) into n consecutive ones, four at a
 * time: COO -> CSR, 4096x4096 f32 at 10%, the fill 4.2-4.4 -> 2.8-2.9 ms
 * (copy_coords went a coordinate at a time). */
static void pair_columns32(const uint8_t *pairs, uint8_t *to, int64_t n) {
  int64_t k = 0;
#ifdef __SSE2__
  for (; k + 4 <= n; k += 4) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(pairs + 8 * k));      /* r0 c0 r1 c1 */
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(pairs + 8 * k + 16)); /* r2 c2 r3 c3 */
    a = _mm_shuffle_epi32(a, _MM_SHUFFLE(3, 1, 3, 1)), b = _mm_shuffle_epi32(b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm_storeu_si128((__m128i *)(void *)(to + 4 * k), _mm_unpacklo_epi64(a, b));
  }
#endif
  for (; k < n; k++)
    memcpy(to + 4 * k, pairs + 8 * k + 4, 4);
}

/* Inner coordinates [from, from + n) of the source to [0, n) of dst, the
 * widths converted. */
static void copy_inner(const Mat *s, const uint8_t *from, int64_t first, const Mat *d, uint8_t *to, int64_t n) {
  if (s->cbits == d->cbits && s->stride1 == 1 && d->stride1 == 1) {
    memcpy(to, from + first * (s->cbits / 8), (size_t)(n * (s->cbits / 8)));
    return;
  }
  if (s->cbits == 32 && d->cbits == 32 && s->stride1 == 2 && d->stride1 == 1) /* from an AoS COO */
    pair_columns32(from + first * 8, to, n);
  else if (s->cbits == 32 && d->cbits == 32) /* into an AoS COO */
    copy_coords(from, 32, s->stride1, s->field1, first, to, 32, d->stride1, d->field1, n);
  else if (s->cbits == 64 && d->cbits == 64)
    copy_coords(from, 64, s->stride1, s->field1, first, to, 64, d->stride1, d->field1, n);
  else
    copy_coords(from, s->cbits, s->stride1, s->field1, first, to, d->cbits, d->stride1, d->field1, n);
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
  const int64_t n = s->n_outer, sfield = s->field1, dfield = d->field1; /* the byte stores may alias them */
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = start[r], end = start[r + 1]; k < end; k++) {
      int64_t at = cur[lyc_load_uint(scrd, sbits, k * sstride + sfield)]++;
      lyc_store_uint(dcrd, dbits, at * dstride + dfield, (uint64_t)r);
      copy_value(dval + at * vb, sval + k * vb, vb);
    }
}

/* transpose_rows of 32-bit coordinates (the source's CSR-like or an AoS
 * COO's: sstride 1 or 2), stored as they are, with 32-bit cursors: half the
 * cache the scatter's cursors take. */
HOT void transpose_rows32(const Mat *s, const uint8_t *scrd, int64_t sstride, const uint8_t *sval,
                          const int64_t *start, uint8_t *dcrd, uint8_t *dval, int vb, uint32_t *cur) {
  const int64_t n = s->n_outer, sfield = sstride - 1; /* an AoS COO's column follows its row */
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = start[r], end = start[r + 1]; k < end; k++) {
      uint32_t c, row = (uint32_t)r;
      memcpy(&c, scrd + 4 * (k * sstride + sfield), 4);
      uint32_t at = cur[c]++;
      memcpy(dcrd + 4 * (int64_t)at, &row, 4);
      copy_value(dval + (int64_t)at * vb, sval + k * vb, vb);
    }
}

static void transpose(const Mat *s, const uint8_t *const *sb, const int64_t *start, const Mat *d, uint8_t *const *db,
                      int64_t *cur) {
  const uint8_t *scrd = sb[s->crd1], *sval = sb[s->val];
  uint8_t *dcrd = db[d->crd1], *dval = db[d->val];
  int vb = s->vbytes;
  uint32_t *cur32;
  if ((s->stride1 == 1 || (s->stride1 == 2 && s->field1 == 1)) && d->stride1 == 1 && s->cbits == 32 &&
      d->cbits == 32 && cur[d->n_outer] <= UINT32_MAX && (vb == 2 || vb == 4 || vb == 8) &&
      (cur32 = ly_malloc((size_t)d->n_outer * sizeof *cur32))) {
    for (int64_t c = 0; c < d->n_outer; c++)
      cur32[c] = (uint32_t)cur[c];
#define TRANSPOSE32(sstride, vbytes) transpose_rows32(s, scrd, sstride, sval, start, dcrd, dval, vbytes, cur32)
    if (s->stride1 == 1)
      vb == 4 ? TRANSPOSE32(1, 4) : vb == 8 ? TRANSPOSE32(1, 8) : TRANSPOSE32(1, 2);
    else
      vb == 4 ? TRANSPOSE32(2, 4) : vb == 8 ? TRANSPOSE32(2, 8) : TRANSPOSE32(2, 2);
#undef TRANSPOSE32
    ly_free(cur32);
    return;
  }
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

/* Whether rows of n would be a dim far larger than the entries of m's
 * source (a hypersparse COO or DCSR): the interpreter's sort, not arrays of
 * the dims. */
static bool too_sparse(const Mat *m, int64_t n, const int64_t *scounts) {
  return m->kind != MAT_ROWS && n > 2 * scounts[m->crd1] + 65536;
}

/* The source's rows (start, n_outer + 1 entries), checked; when cnt is
 * given, the entries of each inner coordinate counted in cnt[c + 1]. false
 * when the buffers are not what the interpreter accepts. */
static bool source_rows(const Mat *s, const int64_t *scounts, const uint8_t *const *sb, int64_t *start, int64_t *cnt) {
  if (!s->n_outer || !s->n_inner) { /* no element: the interpreter reads no buffer either */
    memset(start, 0, (size_t)(s->n_outer + 1) * sizeof *start);
    return true;
  }
  bool inner_checked = false;
  if (!rows_of(s, scounts, sb, start, cnt, &inner_checked) ||
      (!inner_checked && !check_inner(s, sb[s->crd1], start, cnt)))
    return false;
  return start[s->n_outer] == start[0] || start[s->n_outer] <= scounts[s->val];
}

/* Between two element formats: lyc_sparse_matrix_convert's results. */
static int convert_elements(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts, const void *const *sbufs,
                            const LycSparse *dst, int64_t *dcounts, void *const *dbufs) {
  Mat s, t;
  if (!mat_of(src, &s) || !mat_of(dst, &t) || too_sparse(&s, s.n_outer, scounts) ||
      too_sparse(&t, t.n_outer, scounts))
    return 0;
  const uint8_t *const *sb = (const uint8_t *const *)sbufs;
  bool same = s.outer == t.outer;
  int64_t *start = ly_malloc((size_t)(s.n_outer + 1) * sizeof *start);
  int64_t *dstart = ly_malloc((size_t)(t.n_outer + 1) * sizeof *dstart);
  if (!start || !dstart)
    return ly_free(start), ly_free(dstart), fail(d, "out of memory");
  memset(dstart, 0, (size_t)(t.n_outer + 1) * sizeof *dstart);
  int result = 0;
  /* The entries of each destination row: for the fill of a transpose, and
   * for a doubly compressed destination's rows (counted in the nnz pass
   * too); an nnz pass otherwise needs only the total, and checks faster
   * without the counts (row_ok32). */
  bool counts = !same && (dbufs || t.kind == MAT_DOUBLY);
  if (!source_rows(&s, scounts, sb, start, counts ? dstart : NULL))
    goto done;
  int64_t entries = start[s.n_outer] - start[0], lines = 0;
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
  /* into an AoS COO of 32-bit coordinates, from columns that follow each other: pairs written whole */
  bool pairs = same && t.kind == MAT_COO && t.cbits == 32 && t.crd0 == t.crd1 && s.cbits == 32 && s.stride1 == 1;
  write_outer(&t, dstart, lines, db, !pairs);
  if (pairs)
    pairs_from_rows32(db[t.crd0], sb[s.crd1] + start[0] * 4, dstart, t.n_outer);
  else if (same)
    copy_inner(&s, sb[s.crd1], start[0], &t, db[t.crd1], entries);
  if (same)
    memcpy(db[t.val], sb[s.val] + start[0] * s.vbytes, (size_t)(entries * s.vbytes));
  else
    transpose(&s, sb, start, &t, db, dstart); /* dstart may move on to each row's end */
done:
  ly_free(start);
  ly_free(dstart);
  return result;
}

/* ===== Block formats ================================================================ */

/* A CSR of outer dim `outer` (64-bit positions and coordinates) and its
 * buffers, the go-between of a block format and the others. */
typedef struct {
  LycSparse f;
  int64_t counts[3];
  void *bufs[3];
} Csr;

static void csr_init(Csr *c, const LycSparse *like, int outer) {
  memset(c, 0, sizeof *c);
  c->f.rank = 2, c->f.lvl_rank = 2;
  memcpy(c->f.dims, like->dims, sizeof c->f.dims);
  c->f.lvl_dim[0] = outer, c->f.lvl_dim[1] = 1 - outer;
  c->f.lvl_div[0] = c->f.lvl_div[1] = 1;
  c->f.kind[0] = LYC_LVL_DENSE, c->f.kind[1] = LYC_LVL_COMPRESSED;
  c->f.pos_bits = c->f.crd_bits = 64;
  c->f.value = like->value;
}

static void csr_free(Csr *c) {
  for (int b = 0; b < 3; b++)
    ly_free(c->bufs[b]);
}

/* Buffers for c->counts; -1 after a diagnostic. */
static int csr_alloc(LyDiagEngine *d, Csr *c) {
  int64_t unit[3] = {8, 8, lyElemGetBits(c->f.value) / 8};
  for (int b = 0; b < 3; b++)
    if (!(c->bufs[b] = ly_malloc((size_t)(c->counts[b] ? c->counts[b] : 1) * (size_t)unit[b])))
      return fail(d, "out of memory");
  return 1;
}

/* The element rows of a block format's outer dim: row r holds entries
 * [dstart[r], dstart[r + 1]) from 0 (every place of its stored blocks, zeros
 * too, as SciPy's tocsr); *lines the rows with some. false when the buffers
 * are not what the interpreter accepts. */
static bool block_rows(const LycSparse *f, const Blocks *k, const int64_t *counts, const uint8_t *const *b,
                       int64_t *dstart, int64_t *lines) {
  int64_t n = f->dims[k->outer], nbo = n / k->br, nbi = f->dims[1 - k->outer] / k->bc, per = k->br * k->bc;
  memset(dstart, 0, (size_t)(n + 1) * sizeof *dstart);
  *lines = 0;
  if (!n || !f->dims[1 - k->outer]) /* no element: the interpreter reads no buffer either */
    return true;
  if (counts[0] < nbo + 1)
    return false;
  int64_t lo = pos_at(b[0], k->pbits, 0), hi = lo, values;
  for (int64_t br = 0; br < nbo; br++) { /* positions monotone and within the coordinates */
    int64_t p = pos_at(b[0], k->pbits, br + 1);
    if (p < hi || p > counts[1])
      return false;
    hi = p;
  }
  if (hi > lo && (__builtin_mul_overflow(hi, per, &values) || values > counts[2]))
    return false;
  for (int64_t br = 0; br < nbo; br++) { /* within the values: no overflow */
    int64_t blocks = pos_at(b[0], k->pbits, br + 1) - pos_at(b[0], k->pbits, br);
    for (int64_t r = br * k->br; r < (br + 1) * k->br; r++)
      dstart[r + 1] = dstart[r] + blocks * k->bc, *lines += blocks > 0;
  }
  /* block columns in range (so that col * bc cannot overflow), increasing */
  if (k->cbits == 32 && nbi >= 1 && nbi - 1 <= UINT32_MAX) { /* four at a time */
    for (int64_t br = 0; br < nbo; br++)
      if (!row_ok32(b[1], pos_at(b[0], k->pbits, br), pos_at(b[0], k->pbits, br + 1), nbi))
        return false;
    return true;
  }
  for (int64_t br = 0; br < nbo; br++)
    for (int64_t q = pos_at(b[0], k->pbits, br), prev = -1; q < pos_at(b[0], k->pbits, br + 1); q++) {
      uint64_t col = lyc_load_uint(b[1], k->cbits, q);
      if (col >= (uint64_t)nbi || (int64_t)col <= prev)
        return false;
      prev = (int64_t)col;
    }
  return true;
}

/* The entries of block_rows into the element format t of the same outer
 * dim (its outer structure is write_outer's): columns and values. */
HOT void expand_rows(const LycSparse *f, const Blocks *k, const uint8_t *const *b, int sbits, uint8_t *crd, int dbits,
                     int dstride, int dfield, uint8_t *val, int vb, const int64_t *dstart, int64_t bc_const) {
  /* locals: the stores go through bytes, which may alias anything read through a pointer; bc_const: the
   * blocks' columns as a constant (the loop over a block's row unrolled), 0 when it is not one */
  const int64_t n = f->dims[k->outer], bro = k->br, bc = bc_const ? bc_const : k->bc, per = bro * bc,
                step = k->row_major ? 1 : bro;
  const bool row_major = k->row_major;
  const uint8_t *pos = b[0], *cols = b[1], *vals = b[2];
  const int pbits = k->pbits;
  for (int64_t r = 0; r < n && f->dims[1 - k->outer]; r++) {
    int64_t br = r / bro, i = r % bro, at = dstart[r], end = pos_at(pos, pbits, br + 1);
    for (int64_t q = pos_at(pos, pbits, br); q < end; q++) {
      uint64_t col = lyc_load_uint(cols, sbits, q) * (uint64_t)bc;
      const uint8_t *from = vals + (q * per + (row_major ? i * bc : i)) * vb;
      for (int64_t j = 0; j < bc; j++) { /* a block's row: a few values, no call */
        lyc_store_uint(crd, dbits, (at + j) * dstride + dfield, col + (uint64_t)j);
        copy_value(val + (at + j) * vb, from + j * step * vb, vb);
      }
      at += bc;
    }
  }
}

static void expand(const LycSparse *f, const Blocks *k, const uint8_t *const *b, const Mat *t, uint8_t *const *tb,
                   const int64_t *dstart) {
  uint8_t *crd = tb[t->crd1], *val = tb[t->val];
  /* the block's columns a constant: BSR 2x2 -> CSR, 4096x4096 f32 at 1%, the fill 0.88-1.43 -> 0.50-0.59 ms */
  if (k->cbits == 32 && t->cbits == 32 && t->stride1 == 1 && k->vbytes == 4)
    k->bc == 2   ? expand_rows(f, k, b, 32, crd, 32, 1, 0, val, 4, dstart, 2)
    : k->bc == 4 ? expand_rows(f, k, b, 32, crd, 32, 1, 0, val, 4, dstart, 4)
                 : expand_rows(f, k, b, 32, crd, 32, 1, 0, val, 4, dstart, 0);
  else if (t->cbits == 64 && t->stride1 == 1) /* the CSR go-between */
    expand_rows(f, k, b, k->cbits, crd, 64, 1, 0, val, k->vbytes, dstart, 0);
  else
    expand_rows(f, k, b, k->cbits, crd, t->cbits, t->stride1, t->field1, val, k->vbytes, dstart, 0);
}

/* A block format to the element format dst of its outer dim (direct), or
 * to the CSR c of it (dst NULL, c's buffers allocated and filled). */
static int from_blocks(LyDiagEngine *d, const LycSparse *f, const Blocks *k, const int64_t *counts,
                       const uint8_t *const *b, const LycSparse *dst, int64_t *dcounts, uint8_t *const *db, Csr *c) {
  int64_t n = f->dims[k->outer], lines;
  int64_t *dstart = ly_malloc((size_t)(n + 1) * sizeof *dstart);
  if (!dstart)
    return fail(d, "out of memory");
  Mat t;
  int r = block_rows(f, k, counts, b, dstart, &lines);
  if (r && !dst) {
    csr_init(c, f, k->outer);
    c->counts[0] = n + 1, c->counts[1] = c->counts[2] = dstart[n];
    mat_of(&c->f, &t);
    r = csr_alloc(d, c);
    dcounts = NULL, db = (uint8_t *const *)c->bufs;
  } else if (r) {
    mat_of(dst, &t);
    r = dst_counts(&t, dstart[n], lines, dcounts);
  }
  if (r > 0 && db) {
    write_outer(&t, dstart, lines, db, true);
    expand(f, k, b, &t, db, dstart);
  }
  ly_free(dstart);
  return r;
}

/* gather's loops, with the blocks' shape, the coordinates' width and
 * stride and the values' bytes as arguments (constants in the usual cases,
 * so a block column is a shift and a block's zeroing a few stores): the
 * blocks made, their columns and values stored when b is given. */
HOT int64_t gather_rows(const Blocks *k, int64_t nbo, const int64_t *start, const uint8_t *crd, int cbits,
                        int64_t stride, int64_t field, const uint8_t *val, int vb, int64_t bro, int64_t bc,
                        uint8_t *const *b, int64_t *cur) {
  /* locals: the stores go through bytes and int64s, which may alias what is read through pointers */
  const int64_t per = bro * bc;
  const bool row_major = k->row_major;
  const int pbits = k->pbits, kbits = k->cbits;
  int64_t blocks = 0, *nb = cur + bro, *end = nb + bro;
#define COL(e) ((int64_t)lyc_load_uint(crd, cbits, (e) * stride + field))
#define NEXT(i) (nb[i] = cur[i] < end[i] ? (int64_t)((uint64_t)COL(cur[i]) / (uint64_t)bc) : INT64_MAX)
  if (b)
    lyc_store_uint(b[0], pbits, 0, 0);
  for (int64_t br = 0; br < nbo; br++) {
    for (int64_t i = 0; i < bro; i++) /* row i's entries: [cur[i], end[i]) */
      cur[i] = start[br * bro + i], end[i] = start[br * bro + i + 1], NEXT(i);
    for (;;) {
      int64_t bj = INT64_MAX;
      for (int64_t i = 0; i < bro; i++)
        bj = nb[i] < bj ? nb[i] : bj;
      if (bj == INT64_MAX)
        break;
      uint8_t *block = b ? b[2] + blocks * per * vb : NULL;
      if (b) {
        lyc_store_uint(b[1], kbits, blocks, (uint64_t)bj);
        memset(block, 0, (size_t)(per * vb));
      }
      for (int64_t i = 0; i < bro; i++)
        for (; nb[i] == bj; cur[i]++, NEXT(i))
          if (b) {
            int64_t j = COL(cur[i]) - bj * bc;
            copy_value(block + (row_major ? i * bc + j : j * bro + i) * vb, val + cur[i] * vb, vb);
          }
      blocks++;
    }
    if (b)
      lyc_store_uint(b[0], pbits, br + 1, (uint64_t)blocks);
  }
#undef NEXT
#undef COL
  return blocks;
}

/* The rows of m (the block format's outer dim, checked: rows start[r],
 * absolute) gathered into blocks: counts, and the buffers when b is given.
 * Each block row merges the sorted block columns of its rows, so its blocks
 * come out sorted: O(blocks x block rows + entries), within the values the
 * blocks store. 0 when the blocks do not fit the positions (the interpreter
 * says so), -1 after a diagnostic. CSR -> BSR 2x2, 4096x4096 f32 at 1%,
 * the nnz pass and the fill: 2.0 and 6.4 -> 1.5 and 4.4 ms with gather_rows'
 * constants (a division by the block's columns for each entry before). */
static int gather(LyDiagEngine *d, const LycSparse *f, const Blocks *k, const Mat *m, const uint8_t *const *mb,
                  const int64_t *start, int64_t *counts, uint8_t *const *b) {
  const int64_t bro = k->br, bc = k->bc, nbo = f->dims[k->outer] / bro, per = bro * bc;
  const uint8_t *crd = mb[m->crd1], *val = mb[m->val];
  int64_t blocks, *cur = ly_malloc((size_t)bro * 3 * sizeof *cur);
  if (!cur)
    return fail(d, "out of memory");
#define GATHER(cbits, stride, vb, br, bc) gather_rows(k, nbo, start, crd, cbits, stride, 0, val, vb, br, bc, b, cur)
  if (m->cbits == 32 && m->stride1 == 1 && k->vbytes == 4 && bro == 2 && bc == 2)
    blocks = GATHER(32, 1, 4, 2, 2);
  else if (m->cbits == 32 && m->stride1 == 1 && k->vbytes == 4 && bro == 4 && bc == 4)
    blocks = GATHER(32, 1, 4, 4, 4);
  else
    blocks = gather_rows(k, nbo, start, crd, m->cbits, m->stride1, m->field1, val, k->vbytes, bro, bc, b, cur);
#undef GATHER
  ly_free(cur);
  if ((uint64_t)blocks > lyc_uint_max(k->pbits))
    return 0;
  counts[0] = nbo + 1, counts[1] = blocks, counts[2] = blocks * per;
  return 1;
}

/* Into a block format from the element format m of its outer dim: counts,
 * then the buffers when db is given. */
static int to_blocks(LyDiagEngine *d, const LycSparse *dst, const Blocks *k, const Mat *m, const int64_t *scounts,
                     const uint8_t *const *sb, int64_t *dcounts, uint8_t *const *db) {
  int64_t *start = ly_malloc((size_t)(m->n_outer + 1) * sizeof *start);
  if (!start)
    return fail(d, "out of memory");
  int r = source_rows(m, scounts, sb, start, NULL);
  r = r > 0 ? gather(d, dst, k, m, sb, start, dcounts, NULL) : r; /* the counts check the positions' width */
  if (r > 0 && db)
    r = gather(d, dst, k, m, sb, start, dcounts, db);
  ly_free(start);
  return r;
}

int lyc_sparse_matrix_convert(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts,
                              const void *const *sbufs, const LycSparse *dst, int64_t *dcounts, void *const *dbufs) {
  if (!lyc_sparse_matrix_supports(src, dst))
    return 0;
  Blocks sk, dk;
  bool sblk = blocks_of(src, &sk), dblk = blocks_of(dst, &dk);
  if (!sblk && !dblk)
    return convert_elements(d, src, scounts, sbufs, dst, dcounts, dbufs);
  Csr a = {0}, g = {0}; /* the source as a CSR, and that of dst's outer dim */
  const uint8_t *const *sb = (const uint8_t *const *)sbufs;
  if (sblk && !dblk && sk.outer == dst->lvl_dim[0]) /* BSR to CSR, COO, DCSR: no go-between */
    return from_blocks(d, src, &sk, scounts, sb, dst, dcounts, (uint8_t *const *)dbufs, NULL);
  int r = 1;
  const LycSparse *from = src;
  const int64_t *fcounts = scounts;
  const void *const *fbufs = sbufs;
  if (sblk) {
    r = from_blocks(d, src, &sk, scounts, sb, NULL, NULL, NULL, &a);
    from = &a.f, fcounts = a.counts, fbufs = (const void *const *)a.bufs;
  }
  if (r > 0 && !dblk) {
    r = convert_elements(d, from, fcounts, fbufs, dst, dcounts, dbufs);
  } else if (r > 0) {
    Mat m;
    if (mat_of(from, &m) && m.outer == dk.outer && !too_sparse(&m, m.n_outer, fcounts)) { /* CSR to BSR */
      r = to_blocks(d, dst, &dk, &m, fcounts, (const uint8_t *const *)fbufs, dcounts, (uint8_t *const *)dbufs);
    } else { /* through the CSR of dst's outer dim */
      csr_init(&g, dst, dk.outer);
      r = convert_elements(d, from, fcounts, fbufs, &g.f, g.counts, NULL);
      r = r > 0 ? csr_alloc(d, &g) : r;
      r = r > 0 ? convert_elements(d, from, fcounts, fbufs, &g.f, g.counts, g.bufs) : r;
      if (r > 0 && mat_of(&g.f, &m))
        r = to_blocks(d, dst, &dk, &m, g.counts, (const uint8_t *const *)g.bufs, dcounts, (uint8_t *const *)dbufs);
    }
  }
  csr_free(&a), csr_free(&g);
  return r;
}
