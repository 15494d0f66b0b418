/* lySparseFromDense as an embedder calls it: the nnz pass (no buffers), then the fill into buffers
 * of the sizes it gave (those sizes passed back: the fill's room). CSR, CSC (through CSR and a
 * counting transpose) and COO of f32 and i16 against an element-by-element reference written out
 * here; then the tensor changed between the two calls: fewer stored entries fill fewer (sizes set
 * again, the reference of the new tensor), more are refused with a diagnostic and not a byte
 * written past the buffers; another tensor, or a fill with no nnz pass of its own before it (one
 * fill per nnz pass), counts on its own, into the room its sizes give; a fill given less room than
 * it needs is refused before a byte is written. lySparseConvert between every two of these formats
 * of one value type (the matrix formats' direct path) against the destination's reference, into
 * guarded buffers, and refused, nothing written, with a byte too little room in any buffer; a
 * source with a column beyond the matrix gets the located error. Prints
 * `sparse_api: N checks, K failures`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"
#include "test_util.h"

#define ROWS 37
#define COLS 256
#define GUARD 64

/* A format under test: CSR keeps (positions, columns, values), COO (positions, rows, columns,
 * values). Values are f32 or i16, stored when != 0 (-0.0 is not). */
typedef struct {
  const char *type;
  bool coo;
  int vbytes;
  bool csc; /* columns compressed: positions per column, rows as coordinates */
} Format;

static bool stored(const Format *f, const unsigned char *v) {
  if (f->vbytes == 2)
    return v[0] | v[1];
  uint32_t x;
  memcpy(&x, v, 4);
  return (x & 0x7fffffffu) != 0;
}

/* The buffers the format holds for dense, written out element by element: 32-bit positions and
 * coordinates. Returns the stored count; sizes get the byte sizes. */
static int64_t reference(const Format *f, const unsigned char *dense, unsigned char *bufs[4], int64_t sizes[4]) {
  int64_t k = 0;
  int32_t *pos = (int32_t *)bufs[0], *rows = (int32_t *)bufs[1], *cols = (int32_t *)bufs[f->coo ? 2 : 1];
  unsigned char *vals = bufs[f->coo ? 3 : 2];
  pos[0] = 0;
  int outer = f->csc ? COLS : ROWS, inner = f->csc ? ROWS : COLS;
  for (int o = 0; o < outer; o++) {
    for (int i = 0; i < inner; i++) {
      int r = f->csc ? i : o, c = f->csc ? o : i;
      const unsigned char *v = dense + ((int64_t)r * COLS + c) * f->vbytes;
      if (!stored(f, v))
        continue;
      if (f->coo)
        rows[k] = r;
      cols[k] = f->csc ? r : c;
      memcpy(vals + k * f->vbytes, v, (size_t)f->vbytes);
      k++;
    }
    if (!f->coo)
      pos[o + 1] = (int32_t)k;
  }
  if (f->coo)
    pos[1] = (int32_t)k, sizes[0] = 8, sizes[1] = sizes[2] = 4 * k, sizes[3] = k * f->vbytes;
  else
    sizes[0] = 4 * (outer + 1), sizes[1] = 4 * k, sizes[2] = k * f->vbytes, sizes[3] = 0;
  return k;
}

static int nbufs(const Format *f) { return f->coo ? 4 : 3; }

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) { return rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; }

/* Each element stored with probability 1 / every (a nonzero value), else 0 or -0.0. */
static void random_dense(const Format *f, unsigned char *d, int every) {
  for (int64_t i = 0; i < ROWS * COLS; i++) {
    uint64_t x = next();
    unsigned char *v = d + i * f->vbytes;
    if (f->vbytes == 2) {
      int16_t s = x % every ? 0 : (int16_t)((x >> 8) % 30000 + 1);
      memcpy(v, &s, 2);
    } else {
      float s = x % every ? (x & 256 ? -0.0f : 0.0f) : (float)((x >> 8) % 1000) + 0.5f;
      memcpy(v, &s, 4);
    }
  }
}

static bool same_buffers(unsigned char *a[4], unsigned char *b[4], const int64_t sizes[4]) {
  for (int i = 0; i < 4; i++)
    if (memcmp(a[i], b[i], (size_t)sizes[i]))
      return false;
  return true;
}

static bool guards_intact(unsigned char *bufs[4], const int64_t sizes[4]) {
  for (int i = 0; i < 4; i++)
    for (int g = 0; g < GUARD; g++)
      if (bufs[i][sizes[i] + g] != 0xa5)
        return false;
  return true;
}

/* Every byte of the four buffers still the fill pattern. */
static bool untouched(unsigned char *const *bufs, int64_t n) {
  for (int i = 0; i < 4; i++)
    for (int64_t k = 0; k < n; k++)
      if (bufs[i][k] != 0xa5)
        return false;
  return true;
}

/* A fill's room: each of f's buffers' whole allocation. */
static void set_room(const Format *f, int64_t *sizes, int64_t max) {
  for (int i = 0; i < nbufs(f); i++)
    sizes[i] = max;
}

static void test_format(LyContext ctx, const Format *f) {
  LyType t = test_parse(ctx, f->type);
  LySparseConverter conv = lySparseConverterCreate(ctx);
  int64_t n = (int64_t)ROWS * COLS * f->vbytes, sizes[4] = {0}, want_sizes[4], max = 4 * (ROWS * COLS + ROWS + 1);
  unsigned char *dense = malloc((size_t)n), *other = malloc((size_t)n), *got[4], *want[4];
  for (int i = 0; i < 4; i++)
    got[i] = malloc((size_t)max + GUARD), want[i] = malloc((size_t)max);
  random_dense(f, dense, 7);

  /* The usual pair of calls. */
  CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
  reference(f, dense, want, want_sizes);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes));
  for (int i = 0; i < 4; i++)
    memset(got[i], 0xa5, (size_t)max + GUARD);
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_OK);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes) && same_buffers(got, want, sizes) && guards_intact(got, sizes));

  /* Fewer stored entries after the nnz pass: the fill stores those and says so. */
  CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
  for (int64_t i = 0; i < n; i += 3 * f->vbytes)
    memset(dense + i, 0, (size_t)f->vbytes);
  int64_t fewer = reference(f, dense, want, want_sizes);
  CHECK(fewer * f->vbytes < sizes[nbufs(f) - 1]);
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_OK);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes) && same_buffers(got, want, sizes));

  /* More: refused, nothing past the buffers the nnz pass sized. */
  CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
  int64_t old[4];
  memcpy(old, sizes, sizeof old);
  for (int i = 0; i < 4; i++)
    memset(got[i], 0xa5, (size_t)max + GUARD);
  for (int64_t i = 0; i < n; i += 5 * f->vbytes)
    memset(dense + i, 0x11, (size_t)f->vbytes);
  test_last_diag[0] = 0;
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_ERROR_INVALID);
  CHECK(strstr(test_last_diag, "more than the") && strstr(test_last_diag, "it changed after the nnz pass"));
  CHECK(guards_intact(got, old));

  /* Another tensor, and a fill with no nnz pass of its tensor before it, count their own (the
   * buffers' whole room given). */
  random_dense(f, other, 3);
  CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
  reference(f, other, want, want_sizes);
  set_room(f, sizes, max);
  CHECK(lySparseFromDense(conv, t, other, sizes, (void *const *)got) == LY_OK);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes) && same_buffers(got, want, sizes));
  reference(f, dense, want, want_sizes);
  set_room(f, sizes, max);
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_OK);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes) && same_buffers(got, want, sizes));

  /* One fill per nnz pass: the same tensor refilled with more entries and no nnz pass of its own
   * counts again, so with the buffers' whole room given it succeeds; with the sizes the last
   * fill set (too little room now) it is refused before a byte is written. */
  CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_OK);
  for (int64_t i = 0; i < n; i += 2 * f->vbytes)
    memset(dense + i, 0x22, (size_t)f->vbytes);
  reference(f, dense, want, want_sizes);
  for (int i = 0; i < 4; i++)
    memset(got[i], 0xa5, (size_t)max + GUARD);
  test_last_diag[0] = 0;
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_ERROR_INVALID);
  CHECK(strstr(test_last_diag, "has room for") && strstr(test_last_diag, "size the buffers by the nnz pass"));
  CHECK(untouched(got, max + GUARD));
  set_room(f, sizes, max);
  CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_OK);
  CHECK(!memcmp(sizes, want_sizes, sizeof sizes) && same_buffers(got, want, sizes));

  /* A byte too little room in any one buffer after the nnz pass: refused, nothing written. */
  for (int b = 0; b < nbufs(f); b++) {
    CHECK(lySparseFromDense(conv, t, dense, sizes, NULL) == LY_OK);
    sizes[b] -= 1;
    for (int i = 0; i < 4; i++)
      memset(got[i], 0xa5, (size_t)max + GUARD);
    CHECK(lySparseFromDense(conv, t, dense, sizes, (void *const *)got) == LY_ERROR_INVALID);
    CHECK(untouched(got, max + GUARD));
  }

  lySparseConverterDestroy(conv);
  for (int i = 0; i < 4; i++)
    free(got[i]), free(want[i]);
  free(dense), free(other);
}

/* f's buffers of a random tensor converted to g's, the nnz pass then the fill. */
static void test_convert(LyContext ctx, const Format *f, const Format *g) {
  LyType tf = test_parse(ctx, f->type), tg = test_parse(ctx, g->type);
  LySparseConverter conv = lySparseConverterCreate(ctx);
  int64_t n = (int64_t)ROWS * COLS * f->vbytes, max = 4 * (ROWS * COLS + COLS + 1), fs[4], gs[4], want_sizes[4];
  unsigned char *dense = malloc((size_t)n), *src[4], *got[4], *want[4];
  for (int i = 0; i < 4; i++)
    src[i] = malloc((size_t)max), got[i] = malloc((size_t)max + GUARD), want[i] = malloc((size_t)max);
  random_dense(f, dense, 5);
  reference(f, dense, src, fs);
  reference(g, dense, want, want_sizes);
  CHECK(lySparseConvert(conv, tf, (const void *const *)src, fs, tg, gs, NULL) == LY_OK);
  CHECK(!memcmp(gs, want_sizes, (size_t)nbufs(g) * sizeof *gs));
  for (int i = 0; i < 4; i++)
    memset(got[i], 0xa5, (size_t)max + GUARD);
  CHECK(lySparseConvert(conv, tf, (const void *const *)src, fs, tg, gs, (void *const *)got) == LY_OK);
  gs[3] = g->coo ? gs[3] : 0;
  CHECK(!memcmp(gs, want_sizes, (size_t)nbufs(g) * sizeof *gs) && same_buffers(got, want, gs) &&
        guards_intact(got, gs));
  for (int b = 0; b < nbufs(g); b++) { /* a byte too little room in one buffer: refused, nothing written */
    memcpy(gs, want_sizes, sizeof gs);
    gs[b] -= 1;
    for (int i = 0; i < 4; i++)
      memset(got[i], 0xa5, (size_t)max + GUARD);
    test_last_diag[0] = 0;
    CHECK(lySparseConvert(conv, tf, (const void *const *)src, fs, tg, gs, (void *const *)got) == LY_ERROR_INVALID);
    CHECK(strstr(test_last_diag, "has room for") && untouched(got, max + GUARD));
  }
  if (!f->coo && fs[1] >= 4) { /* inner coordinate of the first entry beyond the matrix */
    int32_t beyond = f->csc ? ROWS : COLS;
    memcpy(src[1], &beyond, 4);
    test_last_diag[0] = 0;
    CHECK(lySparseConvert(conv, tf, (const void *const *)src, fs, tg, gs, NULL) == LY_ERROR_INVALID);
    CHECK(strstr(test_last_diag, "entry 0 is") && strstr(test_last_diag, "beyond the level size"));
  }
  lySparseConverterDestroy(conv);
  for (int i = 0; i < 4; i++)
    free(src[i]), free(got[i]), free(want[i]);
  free(dense);
}

int main(void) {
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, test_record, NULL);
  static const Format formats[] = {
      {"tensor<37x256xf32, csr<nnz: ?, index: i32, pointer: i32>>", false, 4, false},
      {"tensor<37x256xi16, csr<nnz: ?, index: i32, pointer: i32>>", false, 2, false},
      {"tensor<37x256xf32, coo<nnz: ?, index: i32>>", true, 4, false},
      {"tensor<37x256xf32, #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed), posWidth = 32, "
       "crdWidth = 32 }>>", false, 4, true},
      {"tensor<37x256xi16, #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed), posWidth = 32, "
       "crdWidth = 32 }>>", false, 2, true},
  };
  size_t nf = sizeof formats / sizeof *formats;
  for (size_t i = 0; i < nf; i++)
    test_format(ctx, &formats[i]);
  for (size_t i = 0; i < nf; i++)
    for (size_t j = 0; j < nf; j++)
      if (formats[i].vbytes == formats[j].vbytes)
        test_convert(ctx, &formats[i], &formats[j]);
  lyContextDestroy(ctx);
  return TEST_DONE("sparse_api");
}
