/* codegen/sparse_api: the public dense <-> sparse and sparse <-> sparse conversions
 * (include/layoutc/codegen.h): a type's sparse encoding read as the kernels'
 * format (LycSparse), run by the JIT where it compiles the format and by the
 * interpreter elsewhere. Sizes are bytes here, entries inside. */
#include "codegen/codegen.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  LyCtx *ctx;
  LycSparseJit *jit;
  /* The last nnz pass of a compiled format: its format, dense tensor and
   * counts, which bound the fill that follows it (lySparseFromDense). */
  bool counted;
  LycSparse counted_f;
  const void *counted_dense;
  int64_t counted_counts[LYC_SPARSE_MAX_BUFS];
} SparseConverter;

static LyStatus fail(LyCtx *c, LyStatus s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static LyStatus fail(LyCtx *c, LyStatus s, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s", msg);
  return s;
}

/* The encoding's levels as the kernels' format, checked. */
static LyStatus format_of(LyCtx *c, const LyTypeImpl *t, LycSparse *f, LycBufInfo *bufs, int *nbufs) {
  if (!lyd_is_encoded(t) || t->enc->kind != LYE_SPARSE)
    return fail(c, LY_ERROR_INVALID, "dense <-> sparse conversions need a sparse encoding (MLIR's "
                                     "#sparse_tensor.encoding, csr or coo)");
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == LY_DYNAMIC)
      return fail(c, LY_ERROR_DYNAMIC, "cannot convert a sparse tensor with dynamic ('?') dims");
  static const LycLevelKind kinds[] = {[LY_LEVEL_DENSE] = LYC_LVL_DENSE, [LY_LEVEL_COMPRESSED] = LYC_LVL_COMPRESSED,
                                       [LY_LEVEL_SINGLETON] = LYC_LVL_SINGLETON,
                                       [LY_LEVEL_LOOSE_COMPRESSED] = LYC_LVL_LOOSE_COMPRESSED,
                                       [LY_LEVEL_N_OUT_OF_M] = LYC_LVL_N_OUT_OF_M};
  const LyEncoding *e = t->enc;
  memset(f, 0, sizeof *f);
  f->rank = t->rank;
  memcpy(f->dims, t->dims, (size_t)t->rank * sizeof *t->dims);
  f->lvl_rank = e->nlevels;
  for (int l = 0; l < e->nlevels; l++) {
    const LyLevel *v = &e->lvl[l];
    f->lvl_dim[l] = v->dim;
    f->lvl_div[l] = v->expr == LYE_EXPR_FLOORDIV ? v->c : 1;
    f->lvl_mod[l] = v->expr == LYE_EXPR_MOD ? v->c : 0;
    f->kind[l] = kinds[v->format];
    f->nonunique[l] = v->props & LY_LEVEL_NONUNIQUE;
    f->nonordered[l] = v->props & LY_LEVEL_NONORDERED;
    f->soa[l] = v->props & LY_LEVEL_SOA;
    if (v->format == LY_LEVEL_N_OUT_OF_M)
      f->n = v->n, f->m = v->m;
  }
  f->pos_bits = e->pos_width;
  f->crd_bits = e->crd_width;
  f->value = t->elem;
  LyStatus s = lyc_sparse_check(&c->diag, f);
  if (s != LY_OK)
    return s;
  *nbufs = lyc_sparse_buffers(f, bufs);
  if (*nbufs != lyTypeGetNumBuffers(lyd_wrap(t))) /* both follow MLIR's storage order; never expected */
    return fail(c, LY_ERROR_INVALID, "the kernels store this encoding in %d buffers, its type lists %d", *nbufs,
                lyTypeGetNumBuffers(lyd_wrap(t)));
  return LY_OK;
}

LySparseConverter lySparseConverterCreate(LyContext ctx) {
  LyCtx *c = lyd_ctx(ctx);
  SparseConverter *s = ly_malloc(sizeof *s);
  if (!s) {
    fail(c, LY_ERROR_NOMEM, "out of memory");
    return (LySparseConverter){NULL};
  }
  *s = (SparseConverter){.ctx = c};
  s->jit = lyc_sparse_jit_create(&c->diag);
  if (!s->jit) {
    ly_free(s);
    return (LySparseConverter){NULL};
  }
  return (LySparseConverter){s};
}

void lySparseConverterDestroy(LySparseConverter c) {
  SparseConverter *s = c.ptr;
  if (!s)
    return;
  lyc_sparse_jit_destroy(s->jit);
  ly_free(s);
}

/* One call's format and buffer list, from the converter and the type. */
typedef struct {
  LycSparse f;
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int64_t counts[LYC_SPARSE_MAX_BUFS]; /* entries (single coordinates, AoS too) */
  int n;
  bool jit; /* compiled kernels for this format, else the interpreter */
} Job;

static LyStatus job_of(SparseConverter *s, LyType enc, Job *j) {
  LyStatus st = format_of(s->ctx, lyd_type(enc), &j->f, j->info, &j->n);
  if (st == LY_OK)
    j->jit = lyc_sparse_jit_supports(s->jit, &j->f);
  return st;
}

/* CSC: a 2-D format whose first level is the dense dim 1 and whose second
 * is dim 0 compressed, ordered and unique. */
static bool is_csc(const Job *j) {
  const LycSparse *f = &j->f;
  return j->n == 3 && j->info[0].kind == LYC_BUF_POS && j->info[1].kind == LYC_BUF_CRD && f->rank == 2 && f->lvl_rank == 2 && f->lvl_dim[0] == 1 && f->lvl_dim[1] == 0 && f->lvl_div[0] == 1 &&
         f->lvl_div[1] == 1 && !f->lvl_mod[0] && !f->lvl_mod[1] && f->kind[0] == LYC_LVL_DENSE &&
         f->kind[1] == LYC_LVL_COMPRESSED && !f->nonunique[1] && !f->nonordered[1];
}

/* CSC of the row-major dense tensor, as SciPy's tocsc: the compiled CSR
 * kernels read the tensor in rows (the CSC ones read it down its columns,
 * lines 16 KB apart for 4096 f32 columns: 0.25 GB/s), then the counting
 * transpose of sparse_matrix.c. counts as lyc_sparse_jit_from_dense: the
 * nnz pass sets them, the fill is bounded by them and sets them again. */
static LyStatus csc_from_dense(SparseConverter *s, Job *j, const void *dense, void *const *bufs) {
  LycSparse g = j->f; /* the CSR of the same tensor */
  g.lvl_dim[0] = 0, g.lvl_dim[1] = 1;
  int64_t rows = j->f.dims[0], gc[LYC_SPARSE_MAX_BUFS] = {0};
  int pb = j->info[0].bits, cb = j->info[1].bits, vb = j->info[2].bits / 8;
  if (!bufs) { /* the CSR's nnz pass checks the same position width */
    LyStatus st = lyc_sparse_jit_from_dense(s->jit, &g, dense, gc, NULL);
    if (st == LY_OK)
      j->counts[0] = j->f.dims[1] + 1, j->counts[1] = j->counts[2] = gc[2];
    return st;
  }
  int64_t room = j->counts[2] < j->counts[1] ? j->counts[2] : j->counts[1];
  gc[0] = rows + 1, gc[1] = gc[2] = room;
  void *tmp[3] = {ly_malloc((size_t)(rows + 1) * (size_t)(pb / 8)), ly_malloc((size_t)(room ? room : 1) * (size_t)(cb / 8)),
                  ly_malloc((size_t)(room ? room : 1) * (size_t)vb)};
  LyStatus st = tmp[0] && tmp[1] && tmp[2] ? LY_OK : fail(s->ctx, LY_ERROR_NOMEM, "out of memory");
  if (st == LY_OK)
    st = lyc_sparse_jit_from_dense(s->jit, &g, dense, gc, tmp);
  if (st == LY_OK) {
    int r = lyc_sparse_matrix_convert(&s->ctx->diag, &g, gc, (const void *const *)tmp, &j->f, j->counts, bufs);
    st = r > 0 ? LY_OK : r < 0 ? LY_ERROR_NOMEM : fail(s->ctx, LY_ERROR_INVALID, "the CSR kernels' buffers did not convert to CSC");
  }
  for (int b = 0; b < 3; b++)
    ly_free(tmp[b]);
  return st;
}

/* The nnz pass (bufs NULL) or the fill, compiled or interpreted. */
static LyStatus from_dense(SparseConverter *s, Job *j, const void *dense, void *const *bufs) {
  if (j->jit && is_csc(j))
    return csc_from_dense(s, j, dense, bufs);
  return j->jit ? lyc_sparse_jit_from_dense(s->jit, &j->f, dense, j->counts, bufs)
                : lyc_sparse_from_dense(&s->ctx->diag, &j->f, dense, j->counts, bufs);
}

/* Byte sizes of the caller's buffers as entry counts, each a whole number. */
static LyStatus counts_of(SparseConverter *s, Job *j, const int64_t *sizes) {
  for (int b = 0; b < j->n; b++) {
    int64_t unit = j->info[b].bits / 8;
    if (sizes[b] < 0 || sizes[b] % unit)
      return fail(s->ctx, LY_ERROR_INVALID, "sparse buffer %d has %" PRId64 " bytes, not a whole number of %" PRId64
                  "-byte entries", b, sizes[b], unit);
    j->counts[b] = sizes[b] / unit;
  }
  return LY_OK;
}

/* A fill's room: the caller's sizes (bytes) against the entries the fill
 * will store (j->counts), before a byte is written. */
static LyStatus check_room(SparseConverter *s, const Job *j, const int64_t *room) {
  for (int b = 0; b < j->n; b++) {
    int64_t unit = j->info[b].bits / 8, need = j->counts[b] * unit; /* counts come from sizes that fit in bytes */
    if (room[b] < 0 || room[b] < need)
      return fail(s->ctx, LY_ERROR_INVALID, "sparse buffer %d has room for %" PRId64 " bytes (its size given), the "
                  "fill needs %" PRId64 ": size the buffers by the nnz pass", b, room[b], need);
  }
  return LY_OK;
}

LyStatus lySparseFromDense(LySparseConverter c, LyType enc, const void *dense, int64_t *sizes, void *const *buffers) {
  SparseConverter *s = c.ptr;
  Job j;
  LyStatus st = job_of(s, enc, &j);
  /* The compiled fill bounds its writes by the counts it is given: those of
   * the last nnz pass on this converter when it was of the same format and
   * tensor and no fill has used them yet (the usual pair of calls, one pass
   * fewer: a tensor that gained entries since is an error, one that lost
   * some fills fewer), else a new one. n_out_of_m fills have the type's
   * size. */
  bool counted = st == LY_OK && buffers && j.jit && s->counted && s->counted_dense == dense && !j.f.m &&
                 !memcmp(&s->counted_f, &j.f, sizeof j.f);
  if (counted) /* one fill per nnz pass: a later one counts again */
    memcpy(j.counts, s->counted_counts, sizeof j.counts), s->counted = false;
  else if (st == LY_OK)
    st = from_dense(s, &j, dense, NULL);
  if (st == LY_OK && !buffers && j.jit) {
    s->counted = true, s->counted_f = j.f, s->counted_dense = dense;
    memcpy(s->counted_counts, j.counts, sizeof j.counts);
  }
  if (st == LY_OK && buffers)
    st = check_room(s, &j, sizes);
  if (st == LY_OK && buffers)
    st = from_dense(s, &j, dense, buffers);
  for (int b = 0; st == LY_OK && b < j.n; b++)
    sizes[b] = j.counts[b] * (j.info[b].bits / 8);
  return st;
}

LyStatus lySparseToDense(LySparseConverter c, LyType enc, const void *const *buffers, const int64_t *sizes,
                         void *dense) {
  SparseConverter *s = c.ptr;
  Job j;
  LyStatus st = job_of(s, enc, &j);
  if (st == LY_OK)
    st = counts_of(s, &j, sizes);
  if (st != LY_OK)
    return st;
  return j.jit ? lyc_sparse_jit_to_dense(s->jit, &j.f, j.counts, buffers, dense)
               : lyc_sparse_to_dense(&s->ctx->diag, &j.f, j.counts, buffers, dense);
}

/* The matrix formats directly (sparse_matrix.c), every other pair through
 * the interpreter's list of stored points, sorted. */
LyStatus lySparseConvert(LySparseConverter c, LyType src, const void *const *src_buffers, const int64_t *src_sizes,
                         LyType dst, int64_t *dst_sizes, void *const *dst_buffers) {
  SparseConverter *s = c.ptr;
  Job a, b;
  LyStatus st = format_of(s->ctx, lyd_type(src), &a.f, a.info, &a.n);
  if (st == LY_OK)
    st = format_of(s->ctx, lyd_type(dst), &b.f, b.info, &b.n);
  if (st == LY_OK)
    st = counts_of(s, &a, src_sizes);
  /* A fill counts first (the same pass as without buffers) and writes only
   * into room enough. */
  for (int pass = dst_buffers ? 0 : 1; st == LY_OK && pass < 2; pass++) {
    void *const *bufs = pass ? dst_buffers : NULL;
    int direct = lyc_sparse_matrix_convert(&s->ctx->diag, &a.f, a.counts, src_buffers, &b.f, b.counts, bufs);
    if (direct)
      st = direct > 0 ? LY_OK : LY_ERROR_NOMEM;
    else /* the counts, then the fill from the same points */
      st = lyc_sparse_convert(&s->ctx->diag, &a.f, a.counts, src_buffers, &b.f, b.counts, bufs);
    if (st == LY_OK && !pass)
      st = check_room(s, &b, dst_sizes);
  }
  for (int k = 0; st == LY_OK && k < b.n; k++)
    dst_sizes[k] = b.counts[k] * (b.info[k].bits / 8);
  return st;
}
