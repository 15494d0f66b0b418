/* sparse_driver: runs the sparse conversion kernels (interpreter or JIT) for
 * test/codegen/sparse_check.py, and measures their throughput.
 *
 *   sparse_driver serve   requests on stdin, answers on stdout (below)
 *   sparse_driver bench   dense->CSR and CSR->dense GB/s next to memcpy
 *   sparse_driver check SPEC   the format's buffers, or its diagnostic
 *   sparse_driver vector SPEC  its compiled kernels' vector lanes, and a check of the fill's bounds
 *
 * A request is one text line, then raw bytes:
 *   from-dense MODE SPEC            + the row-major dense bytes
 *   to-dense MODE SPEC N C1..CN     + N buffers of C1..CN entries
 *   convert SPEC DSPEC N C1..CN     + N buffers (interpreter only)
 *   matrix SPEC DSPEC N C1..CN      + N buffers: the matrix formats' direct
 *                                   conversion (sparse_matrix.c); where it
 *                                   declines, the interpreter's error, or
 *                                   "error declined" when the interpreter converts
 * MODE is interp or jit. The answer is "ok N C1..CN" + the buffers (from-dense,
 * convert), "ok" + the dense bytes (to-dense), or "error MESSAGE".
 *
 * SPEC is comma-separated: the value type (any element name: f32, bf16,
 * f8E4M3FNUZ, complex<f32>, ...), pBITS, cBITS, the dims as AxBxC (0 allowed), then one token per level
 * `iD[/DIV][%MOD]:KIND[+nu][+no][+soa]` with KIND dense, compressed, loose,
 * singleton or nm, and `nmN:M` for n_out_of_m. CSR of 4x6 f32 with 32-bit
 * widths: f32,p32,c32,4x6,i0:dense,i1:compressed. */
#include "codegen/codegen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char diag_text[1024];

static void on_diag(const LyDiagnostic *d, void *user) {
  (void)user;
  if (!diag_text[0])
    snprintf(diag_text, sizeof diag_text, "%s", d->message);
}

static LyDiagEngine engine = {.handler = on_diag};

static bool parse_elem(const char *s, LyElem *e) { return lyElemFromName(s, strlen(s), e) != 0; }

static bool parse_level(LycSparse *f, char *tok) {
  int l = f->lvl_rank++;
  char *colon = strchr(tok, ':');
  if (tok[0] != 'i' || !colon || l >= LY_MAX_RANK)
    return false;
  *colon = 0;
  char *p = tok + 1;
  f->lvl_dim[l] = (int)strtol(p, &p, 10);
  f->lvl_div[l] = *p == '/' ? strtoll(p + 1, &p, 10) : 1;
  f->lvl_mod[l] = *p == '%' ? strtoll(p + 1, &p, 10) : 0;
  char *kind = colon + 1, *flag = strchr(kind, '+');
  if (flag)
    *flag++ = 0;
  static const char *kinds[] = {"dense", "compressed", "loose", "singleton", "nm"};
  int k = 0;
  while (k < 5 && strcmp(kind, kinds[k]))
    k++;
  if (k == 5)
    return false;
  f->kind[l] = (LycLevelKind)k;
  for (char *q = flag; q; q = strchr(q, '+') ? strchr(q, '+') + 1 : NULL) {
    f->nonunique[l] |= !strncmp(q, "nu", 2);
    f->nonordered[l] |= !strncmp(q, "no", 2);
    f->soa[l] |= !strncmp(q, "soa", 3);
  }
  return true;
}

static bool parse_spec(const char *text, LycSparse *f) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  *f = (LycSparse){0};
  int field = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), field++) {
    if (field == 0 && !parse_elem(tok, &f->value))
      return false;
    else if (field == 1 || field == 2)
      *(field == 1 ? &f->pos_bits : &f->crd_bits) = atoi(tok + 1);
    else if (field == 3)
      for (char *p = tok; *p && f->rank < LY_MAX_RANK; p += *p == 'x')
        f->dims[f->rank++] = strtoll(p, &p, 10);
    else if (field > 3 && !strncmp(tok, "nm", 2) && tok[2] != 0 && tok[2] != ':')
      sscanf(tok + 2, "%d:%d", &f->n, &f->m);
    else if (field > 3 && !parse_level(f, tok))
      return false;
  }
  return field >= 5;
}

/* ===== serve =================================================================== */

static int64_t dense_bytes(const LycSparse *f) {
  int64_t n = lyElemGetBits(f->value) / 8;
  for (int i = 0; i < f->rank; i++)
    n *= f->dims[i];
  return n;
}

static void *read_bytes(int64_t n) {
  void *p = malloc((size_t)n + 1);
  if (!p || fread(p, 1, (size_t)n, stdin) != (size_t)n) {
    fprintf(stderr, "sparse_driver: short input\n");
    exit(1);
  }
  return p;
}

static LycSparseJit *jit;
static int compiled_runs; /* jit requests that ran compiled kernels */

static void answer_buffers(LyStatus s, const LycSparse *f, const int64_t *counts, void **bufs) {
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  printf("ok %d", nb);
  for (int b = 0; b < nb; b++)
    printf(" %" PRId64, counts[b]);
  printf("\n");
  for (int b = 0; s == LY_OK && b < nb; b++)
    fwrite(bufs[b], 1, (size_t)(counts[b] * info[b].bits / 8), stdout);
}

/* lyc_sparse_matrix_convert as a LyStatus: where it declines, the
 * interpreter's error, or an error of its own when the interpreter converts
 * what it declined (matrix pairs only: sparse_check.py asks for no other). */
static LyStatus matrix(const LycSparse *src, const int64_t *scounts, void *const *sbufs, const LycSparse *f,
                       int64_t *counts, void **bufs) {
  int r = lyc_sparse_matrix_convert(&engine, src, scounts, (const void *const *)sbufs, f, counts, bufs);
  if (r)
    return r > 0 ? LY_OK : LY_ERROR_NOMEM;
  int64_t c[LYC_SPARSE_MAX_BUFS];
  if (lyc_sparse_convert(&engine, src, scounts, (const void *const *)sbufs, f, c, NULL) != LY_OK)
    return LY_ERROR_INVALID;
  snprintf(diag_text, sizeof diag_text, "declined");
  return LY_ERROR_INVALID;
}

/* The two passes: sizes, then the buffers allocated from them and filled. */
static LyStatus two_pass(const LycSparse *f, bool use_jit, const void *dense, const LycSparse *src,
                         const int64_t *scounts, void *const *sbufs, int64_t *counts, void **bufs) {
  if (src && use_jit) {
    LyStatus s = matrix(src, scounts, sbufs, f, counts, NULL);
    LycBufInfo info[LYC_SPARSE_MAX_BUFS];
    int nb = lyc_sparse_buffers(f, info);
    for (int b = 0; !s && b < nb; b++) /* garbage where nothing is written */
      memset(bufs[b] = malloc((size_t)(counts[b] * info[b].bits / 8) + 1), 0xA5, (size_t)(counts[b] * info[b].bits / 8) + 1);
    return s ? s : matrix(src, scounts, sbufs, f, counts, bufs);
  }
  LyStatus s = src ? lyc_sparse_convert(&engine, src, scounts, (const void *const *)sbufs, f, counts, NULL)
               : use_jit ? lyc_sparse_jit_from_dense(jit, f, dense, counts, NULL)
                         : lyc_sparse_sizes(&engine, f, dense, counts);
  if (s)
    return s;
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  for (int b = 0; b < nb; b++)
    bufs[b] = calloc(1, (size_t)(counts[b] * info[b].bits / 8) + 1);
  return src ? lyc_sparse_convert(&engine, src, scounts, (const void *const *)sbufs, f, counts, bufs)
         : use_jit ? lyc_sparse_jit_from_dense(jit, f, dense, counts, bufs)
                   : lyc_sparse_from_dense(&engine, f, dense, counts, bufs);
}

static int read_buffers(const LycSparse *f, char **save, int64_t *counts, void **bufs) {
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = atoi(strtok_r(NULL, " \n", save));
  if (nb != lyc_sparse_buffers(f, info)) {
    fprintf(stderr, "sparse_driver: %d buffers given, the format has %d\n", nb, lyc_sparse_buffers(f, info));
    exit(1);
  }
  for (int b = 0; b < nb; b++)
    counts[b] = strtoll(strtok_r(NULL, " \n", save), NULL, 10);
  for (int b = 0; b < nb; b++)
    bufs[b] = read_bytes(counts[b] * info[b].bits / 8);
  return nb;
}

static void serve_one(char *line) {
  char *save, *op = strtok_r(line, " \n", &save), *mode = strtok_r(NULL, " \n", &save);
  char *spec = strtok_r(NULL, " \n", &save);
  LycSparse f, g;
  int64_t counts[LYC_SPARSE_MAX_BUFS] = {0}, dcounts[LYC_SPARSE_MAX_BUFS] = {0};
  void *bufs[LYC_SPARSE_MAX_BUFS] = {0}, *dbufs[LYC_SPARSE_MAX_BUFS] = {0}, *dense = NULL;
  unsigned char *dense_block = NULL; /* to-dense: dense lies in it */
  bool conv = !strcmp(op, "convert") || !strcmp(op, "matrix");
  bool use_jit = !strcmp(mode, "jit"), ok = parse_spec(conv ? mode : spec, &f);
  ok = ok && (!conv || parse_spec(spec, &g));
  if (!ok || lyc_sparse_check(&engine, &f) || (conv && lyc_sparse_check(&engine, &g))) {
    fprintf(stderr, "sparse_driver: bad spec '%s': %s\n", spec, diag_text);
    exit(1);
  }
  diag_text[0] = 0;
  compiled_runs += use_jit && lyc_sparse_jit_supports(jit, &f);
  LyStatus s;
  int nb = 0;
  if (!strcmp(op, "from-dense")) {
    dense = read_bytes(dense_bytes(&f));
    s = two_pass(&f, use_jit, dense, NULL, NULL, NULL, counts, bufs);
    nb = lyc_sparse_buffers(&f, (LycBufInfo[LYC_SPARSE_MAX_BUFS]){0});
  } else if (!strcmp(op, "to-dense")) {
    /* Every other request writes a dense tensor 64-byte aligned, the rest
     * one element past such an address (the kernels stream only to the first). */
    static int requests;
    int64_t shift = requests++ % 2 ? lyElemGetBits(f.value) / 8 : 0;
    nb = read_buffers(&f, &save, counts, bufs);
    dense_block = aligned_alloc(64, (size_t)(dense_bytes(&f) + shift + 64) / 64 * 64);
    dense = dense_block + shift;
    s = use_jit ? lyc_sparse_jit_to_dense(jit, &f, counts, (const void *const *)bufs, dense)
                : lyc_sparse_to_dense(&engine, &f, counts, (const void *const *)bufs, dense);
  } else {
    nb = read_buffers(&f, &save, counts, bufs);
    s = two_pass(&g, !strcmp(op, "matrix"), NULL, &f, counts, bufs, dcounts, dbufs);
  }
  if (s)
    printf("error %s\n", diag_text);
  else if (!strcmp(op, "to-dense"))
    printf("ok\n"), fwrite(dense, 1, (size_t)dense_bytes(&f), stdout);
  else
    answer_buffers(s, conv ? &g : &f, conv ? dcounts : counts, conv ? dbufs : bufs);
  fflush(stdout);
  for (int b = 0; b < LYC_SPARSE_MAX_BUFS; b++)
    free(bufs[b]), free(dbufs[b]);
  free(dense_block ? (void *)dense_block : dense);
  (void)nb;
}

/* ===== vector ================================================================== */

/* Prints the compiled kernels' vector lanes, then checks that the fill
 * bounds its writes by the counts it is given: on a dense tensor with half
 * its elements zero, a fill told the value and coordinate buffers hold half
 * the stored entries writes exactly the first half of the full fill's
 * entries (and the same positions) and not a byte past them. n_out_of_m
 * formats, whose size does not depend on the data, are not filled. */
static int vector_check(const LycSparse *f) {
  int count, fill;
  bool staged;
  lyc_sparse_jit_lanes(jit, f, &count, &fill, &staged);
  if (!lyc_sparse_jit_supports(jit, f))
    return printf("interpreted\n"), 0;
  printf("compiled: nnz pass %d lanes, fill %d lanes, scatter %s\n", count, fill, staged ? "staged" : "in place");
  if (f->m) /* n_out_of_m: n entries per group whatever the data, the type's size */
    return 0;
  int64_t n = dense_bytes(f), eb = lyElemGetBits(f->value) / 8, counts[LYC_SPARSE_MAX_BUFS] = {0},
          half[LYC_SPARSE_MAX_BUFS];
  unsigned char *dense = malloc((size_t)n + 1);
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int64_t i = 0; i < n; i += eb) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    bool zero = x & 1;
    for (int64_t b = 0; b < eb; b++)
      dense[i + b] = zero ? 0 : (unsigned char)(x >> (8 + 8 * (b % 7)) | 1);
  }
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info), bad = 0;
  void *full[LYC_SPARSE_MAX_BUFS] = {0}, *part[LYC_SPARSE_MAX_BUFS] = {0};
  if (lyc_sparse_jit_from_dense(jit, f, dense, counts, NULL))
    return printf("error: %s\n", diag_text), free(dense), 1;
  int64_t units = 0; /* stored units (elements or blocks): the first coordinates' entries per unit */
  for (int b = nb - 1; b >= 0; b--)
    if (info[b].kind == LYC_BUF_CRD)
      units = counts[b] / info[b].nlvls;
  for (int b = 0; b < nb; b++) {
    size_t bytes = (size_t)(counts[b] * info[b].bits / 8);
    full[b] = malloc(bytes + 1), part[b] = malloc(bytes + 64);
    memset(part[b], 0xa5, bytes + 64);
    half[b] = info[b].kind == LYC_BUF_POS || !units ? counts[b] : units / 2 * (counts[b] / units);
  }
  lyc_sparse_jit_from_dense(jit, f, dense, counts, full);
  lyc_sparse_jit_from_dense(jit, f, dense, half, part);
  for (int b = 0; b < nb; b++) {
    size_t kept = (size_t)(half[b] * info[b].bits / 8), bytes = (size_t)(counts[b] * info[b].bits / 8);
    bad |= memcmp(part[b], full[b], kept) != 0;
    for (size_t i = kept; i < bytes + 64; i++)
      bad |= ((unsigned char *)part[b])[i] != 0xa5;
  }
  printf("%" PRId64 " stored; a fill with room for half: %s\n", counts[nb - 1], bad ? "WRONG" : "bounded");
  for (int b = 0; b < nb; b++)
    free(full[b]), free(part[b]);
  free(dense);
  return bad;
}

/* ===== bench =================================================================== */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define BEST_OF(reps, best, stmt)                                                                                 \
  do {                                                                                                            \
    best = 1e30;                                                                                                  \
    for (int r_ = 0; r_ < (reps); r_++) {                                                                         \
      double t0_ = now();                                                                                         \
      stmt;                                                                                                       \
      double t_ = now() - t0_;                                                                                    \
      best = t_ < best ? t_ : best;                                                                               \
    }                                                                                                             \
  } while (0)

/* Both passes of dense -> sparse (nnz, then fill) into existing buffers. */
static void two_pass_again(const LycSparse *f, bool use_jit, const void *dense, int64_t *counts, void **bufs) {
  if (use_jit)
    lyc_sparse_jit_from_dense(jit, f, dense, counts, NULL), lyc_sparse_jit_from_dense(jit, f, dense, counts, bufs);
  else
    lyc_sparse_sizes(&engine, f, dense, counts), lyc_sparse_from_dense(&engine, f, dense, counts, bufs);
}

/* GB/s = (dense bytes + sparse bytes) / best time; the limit is memcpy of
 * the same total bytes (read + write) split as copying the dense buffer. */
static void bench_density(int64_t n, double density, const char *mode) {
  LycSparse f;
  char spec[128];
  snprintf(spec, sizeof spec, "f32,p32,c32,%" PRId64 "x%" PRId64 ",i0:dense,i1:compressed", n, n);
  parse_spec(spec, &f);
  int64_t total = n * n;
  float *dense = malloc((size_t)total * 4), *back = malloc((size_t)total * 4), *copy = malloc((size_t)total * 4);
  uint64_t x = 88172645463325252ULL;
  for (int64_t i = 0; i < total; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    dense[i] = (double)(x >> 11) / 9007199254740992.0 < density ? (float)(x % 1000 + 1) : 0.0f;
  }
  int64_t counts[3];
  void *bufs[3];
  bool use_jit = !strcmp(mode, "jit");
  two_pass(&f, use_jit, dense, NULL, NULL, NULL, counts, bufs);
  int64_t sparse_bytes = 4 * (counts[0] + counts[1] + counts[2]), bytes = 4 * total + sparse_bytes;
  double t_pack, t_unpack, t_copy;
  int reps = 5;
  BEST_OF(reps, t_pack, two_pass_again(&f, use_jit, dense, counts, bufs));
  BEST_OF(reps, t_unpack,
          use_jit ? lyc_sparse_jit_to_dense(jit, &f, counts, (const void *const *)bufs, back)
                  : lyc_sparse_to_dense(&engine, &f, counts, (const void *const *)bufs, back));
  BEST_OF(reps, t_copy, memcpy(copy, dense, (size_t)total * 4));
  if (memcmp(back, dense, (size_t)total * 4))
    printf("round trip MISMATCH\n");
  double gb = 1e-9, lim = 2.0 * (double)total * 4 * gb / t_copy;
  printf("%-6s %5.1f%%  nnz %9" PRId64 "  dense->CSR %6.2f GB/s  CSR->dense %6.2f GB/s  memcpy %6.2f GB/s"
         "  (%.0f%% / %.0f%% of memcpy)\n",
         mode, 100 * density, counts[2], (double)bytes * gb / t_pack, (double)bytes * gb / t_unpack, lim,
         100 * (double)bytes * gb / t_pack / lim, 100 * (double)bytes * gb / t_unpack / lim);
  for (int b = 0; b < 3; b++)
    free(bufs[b]);
  free(dense), free(back), free(copy);
}

int main(int argc, char **argv) {
  jit = lyc_sparse_jit_create(&engine);
  if (!jit) {
    fprintf(stderr, "sparse_driver: %s\n", diag_text);
    return 1;
  }
  if (argc >= 2 && !strcmp(argv[1], "serve")) {
    char line[4096];
    while (fgets(line, sizeof line, stdin))
      serve_one(line);
    fprintf(stderr, "jit: %d compiled runs\n", compiled_runs);
  } else if (argc >= 3 && !strcmp(argv[1], "check")) { /* a format's diagnostic, or its buffers */
    LycSparse f;
    if (!parse_spec(argv[2], &f))
      return fprintf(stderr, "sparse_driver: cannot parse '%s'\n", argv[2]), 1;
    if (lyc_sparse_check(&engine, &f))
      return printf("error: %s\n", diag_text), 1;
    LycBufInfo info[LYC_SPARSE_MAX_BUFS];
    int nb = lyc_sparse_buffers(&f, info);
    for (int b = 0; b < nb; b++)
      printf("%s level %d x%d %d-bit\n",
             info[b].kind == LYC_BUF_POS ? "positions" : info[b].kind == LYC_BUF_CRD ? "coordinates" : "values",
             info[b].lvl, info[b].nlvls, info[b].bits);
  } else if (argc >= 3 && !strcmp(argv[1], "vector")) {
    LycSparse f;
    if (!parse_spec(argv[2], &f) || lyc_sparse_check(&engine, &f))
      return fprintf(stderr, "sparse_driver: bad format '%s'\n", argv[2]), 1;
    if (vector_check(&f))
      return 1;
  } else if (argc >= 2 && !strcmp(argv[1], "bench")) {
    int64_t n = argc >= 3 ? atoll(argv[2]) : 4096;
    printf("%" PRId64 "x%" PRId64 " f32, 32-bit positions and coordinates; GB/s = (dense + sparse bytes) / best of 5;"
           " dense->CSR = nnz pass + fill; memcpy = 2 x dense bytes / best of 5\n", n, n);
    for (int m = 0; m < 2; m++)
      for (int k = 0; k < 2; k++)
        bench_density(n, k ? 0.10 : 0.01, m ? "jit" : "interp");
  } else {
    fprintf(stderr, "usage: sparse_driver serve | bench [N] | check SPEC | vector SPEC\n");
    return 1;
  }
  lyc_sparse_jit_destroy(jit);
  return 0;
}
