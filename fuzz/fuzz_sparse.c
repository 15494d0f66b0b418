/* fuzz_sparse: sparse to sparse, the matrix formats' direct path
 * (lyc_sparse_matrix_convert) against the interpreter (lyc_sparse_convert)
 * on buffers that are valid, damaged or any bytes. The input picks a
 * matrix of up to 12x12 (dims multiples of a block of up to 3x3), a value
 * type, two formats (CSR, CSC, COO AoS/SoA, DCSR, DCSC, BSR row- or
 * column-major blocks, BSC, and the interpreter's loose CSR and unordered
 * COO) with position and coordinate widths of 8 to 64 bits, a dense matrix
 * whose buffers the interpreter makes, then byte writes and cuts into them.
 * Both paths must give the same status and, when they convert, the same
 * counts and bytes (destinations start full of garbage); the direct path
 * may leave a pair to the interpreter but must not refuse buffers the
 * interpreter converts; nothing may crash, leak or read outside a buffer. */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "fuzz_gen.h"

static LyDiagEngine quiet; /* no handler: diagnostics are dropped */

enum { CSR, CSC, COO, COO_SOA, DCSR, DCSC, BSR, BSR_CM, BSC, LOOSE, COO_UNORDERED, NFORMATS };

static void level(LycSparse *f, int l, int dim, int64_t div, int64_t mod, LycLevelKind k) {
  f->lvl_dim[l] = dim, f->lvl_div[l] = div, f->lvl_mod[l] = mod, f->kind[l] = k;
}

static LycSparse format(int which, const int64_t *dims, int64_t r, int64_t s, LyElem value, int pb, int cb) {
  LycSparse f;
  memset(&f, 0, sizeof f);
  f.rank = 2, f.dims[0] = dims[0], f.dims[1] = dims[1], f.value = value, f.pos_bits = pb, f.crd_bits = cb;
  f.lvl_rank = 2;
  switch (which) {
  case CSR: case CSC: case LOOSE: {
    int o = which == CSC;
    level(&f, 0, o, 1, 0, LYC_LVL_DENSE), level(&f, 1, 1 - o, 1, 0, which == LOOSE ? LYC_LVL_LOOSE_COMPRESSED : LYC_LVL_COMPRESSED);
    break;
  }
  case COO: case COO_SOA: case COO_UNORDERED:
    level(&f, 0, 0, 1, 0, LYC_LVL_COMPRESSED), level(&f, 1, 1, 1, 0, LYC_LVL_SINGLETON);
    f.nonunique[0] = true, f.soa[1] = which == COO_SOA;
    f.nonordered[0] = f.nonordered[1] = which == COO_UNORDERED;
    break;
  case DCSR: case DCSC: {
    int o = which == DCSC;
    level(&f, 0, o, 1, 0, LYC_LVL_COMPRESSED), level(&f, 1, 1 - o, 1, 0, LYC_LVL_COMPRESSED);
    break;
  }
  default: { /* BSR, BSR with column-major blocks, BSC */
    int o = which == BSC;
    int64_t bo = o ? s : r, bi = o ? r : s;
    f.lvl_rank = 4;
    level(&f, 0, o, bo, 0, LYC_LVL_DENSE), level(&f, 1, 1 - o, bi, 0, LYC_LVL_COMPRESSED);
    if (which == BSR_CM)
      level(&f, 2, 1, 1, s, LYC_LVL_DENSE), level(&f, 3, 0, 1, r, LYC_LVL_DENSE);
    else
      level(&f, 2, o, 1, bo, LYC_LVL_DENSE), level(&f, 3, 1 - o, 1, bi, LYC_LVL_DENSE);
  }
  }
  return f;
}

typedef struct {
  int n;
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int64_t counts[LYC_SPARSE_MAX_BUFS];
  void *bufs[LYC_SPARSE_MAX_BUFS];
} Side;

static void side_free(Side *s) {
  for (int b = 0; b < s->n; b++)
    free(s->bufs[b]), s->bufs[b] = NULL;
}

/* Buffers of exactly their counts (ASan sees a read one past), filled with
 * the garbage byte. */
static void side_alloc(Side *s, uint8_t garbage) {
  for (int b = 0; b < s->n; b++) {
    size_t bytes = (size_t)(s->counts[b] * s->info[b].bits / 8);
    s->bufs[b] = malloc(bytes ? bytes : 1);
    memset(s->bufs[b], garbage, bytes ? bytes : 1);
  }
}

/* dst's counts and buffers from one path: the nnz pass, then the fill. */
static LyStatus run(bool direct, const LycSparse *src, const Side *a, const LycSparse *dst, Side *out, uint8_t garbage,
                    bool *declined) {
  out->n = lyc_sparse_buffers(dst, out->info);
  if (direct) {
    int r = lyc_sparse_matrix_convert(&quiet, src, a->counts, (const void *const *)a->bufs, dst, out->counts, NULL);
    if (r <= 0)
      return *declined = r == 0, LY_ERROR_INVALID;
    side_alloc(out, garbage);
    r = lyc_sparse_matrix_convert(&quiet, src, a->counts, (const void *const *)a->bufs, dst, out->counts, out->bufs);
    if (r <= 0)
      fz_fail("the direct path counted, then did not fill (%d)", r);
    return LY_OK;
  }
  LyStatus st = lyc_sparse_convert(&quiet, src, a->counts, (const void *const *)a->bufs, dst, out->counts, NULL);
  if (st != LY_OK)
    return st;
  side_alloc(out, garbage);
  return lyc_sparse_convert(&quiet, src, a->counts, (const void *const *)a->bufs, dst, out->counts, out->bufs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  static const int widths[] = {8, 16, 32, 64};
  static const LyElem values[] = {LY_ELEM_F32, LY_ELEM_I8, LY_ELEM_F16, LY_ELEM_I64};
  int64_t r = 1 + pick(&b, 3), s = 1 + pick(&b, 3), dims[2];
  dims[0] = r * pick(&b, 1 + 12 / r), dims[1] = s * pick(&b, 1 + 12 / s);
  LyElem value = values[pick(&b, 4)];
  int sf = pick(&b, NFORMATS), df = pick(&b, NFORMATS);
  LycSparse src = format(sf, dims, r, s, value, widths[pick(&b, 4)], widths[pick(&b, 4)]);
  LycSparse dst = format(df, dims, r, s, value, widths[pick(&b, 4)], widths[pick(&b, 4)]);
  if (lyc_sparse_check(&quiet, &src) || lyc_sparse_check(&quiet, &dst))
    return 0; /* coordinates too narrow for the dims */
  /* A dense matrix at the input's density, and the source's buffers of it. */
  int vb = lyElemGetBits(value) / 8, density = pick(&b, 256);
  uint8_t *dense = calloc((size_t)(dims[0] * dims[1] * vb) + 1, 1);
  for (int64_t i = 0; i < dims[0] * dims[1]; i++)
    if (pick(&b, 256) < density)
      dense[i * vb] = (uint8_t)(1 + pick(&b, 255));
  Side a = {0}, x = {0}, y = {0};
  a.n = lyc_sparse_buffers(&src, a.info);
  if (lyc_sparse_from_dense(&quiet, &src, dense, a.counts, NULL) == LY_OK) {
    side_alloc(&a, 0);
    if (lyc_sparse_from_dense(&quiet, &src, dense, a.counts, a.bufs) != LY_OK)
      fz_fail("the interpreter counted, then did not fill");
    /* Then the rest of the input damages them: a byte written, or a buffer cut. */
    for (int k = 0, n = pick(&b, 4); k < n && a.n; k++) {
      int buf = pick(&b, a.n), unit = a.info[buf].bits / 8;
      int64_t bytes = a.counts[buf] * unit;
      if (pick(&b, 4) == 0 && a.counts[buf] > 0)
        a.counts[buf] -= 1 + pick(&b, (int)(a.counts[buf] < 4 ? a.counts[buf] : 4));
      else if (bytes > 0)
        ((uint8_t *)a.bufs[buf])[pick(&b, 256) % bytes] = (uint8_t)take(&b);
    }
    uint8_t garbage = (uint8_t)take(&b);
    bool declined = false;
    LyStatus sd = run(true, &src, &a, &dst, &x, garbage, &declined), si = LY_OK;
    if (declined || sd == LY_OK)
      si = run(false, &src, &a, &dst, &y, garbage, &(bool){false});
    if (declined && si == LY_OK && lyc_sparse_matrix_supports(&src, &dst))
      fz_fail("the direct path declined buffers the interpreter converts (formats %d -> %d)", sf, df);
    if (sd == LY_OK && si != LY_OK)
      fz_fail("the direct path converted buffers the interpreter rejects (formats %d -> %d)", sf, df);
    for (int k = 0; sd == LY_OK && k < x.n; k++) {
      if (x.counts[k] != y.counts[k])
        fz_fail("buffer %d: %lld entries on the direct path, %lld on the interpreter (formats %d -> %d)", k,
                (long long)x.counts[k], (long long)y.counts[k], sf, df);
      if (memcmp(x.bufs[k], y.bufs[k], (size_t)(x.counts[k] * x.info[k].bits / 8)))
        fz_fail("buffer %d differs between the direct path and the interpreter (formats %d -> %d)", k, sf, df);
    }
  }
  side_free(&a), side_free(&x), side_free(&y);
  free(dense);
  return 0;
}
