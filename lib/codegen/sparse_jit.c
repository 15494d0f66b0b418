/* codegen/sparse_jit: compiled dense <-> sparse kernels (see codegen.h). */
#include "codegen/codegen.h"

struct LycSparseJit {
  LyDiagEngine *d;
};

LycSparseJit *lyc_sparse_jit_create(LyDiagEngine *d) {
  LycSparseJit *j = ly_malloc(sizeof *j);
  if (j)
    j->d = d;
  return j;
}
void lyc_sparse_jit_destroy(LycSparseJit *j) { ly_free(j); }
bool lyc_sparse_jit_supports(LycSparseJit *j, const LycSparse *f) { (void)j, (void)f; return false; }
LyStatus lyc_sparse_jit_from_dense(LycSparseJit *j, const LycSparse *f, const void *dense, int64_t *counts,
                                   void *const *bufs) {
  return lyc_sparse_from_dense(j->d, f, dense, counts, bufs);
}
LyStatus lyc_sparse_jit_to_dense(LycSparseJit *j, const LycSparse *f, const int64_t *counts,
                                 const void *const *bufs, void *dense) {
  return lyc_sparse_to_dense(j->d, f, counts, bufs, dense);
}
