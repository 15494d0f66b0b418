/* layoutc repack and emit-llvm: run, time and print code-generated repack
 * kernels and address functions (SPEC section 4). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "layoutc/codegen.h"
#include "stream_copy.h"

typedef struct {
  const char *types[2];
  int ntypes;
  const char *in, *out;
  int bench, plan, interpret, threads, iters;
  double density; /* sparse and grouped --bench: nonzeros, or rows of the padded groups */
} RepackArgs;

static int parse_count(const Args *in, const char *opt, int lo, int hi, int *out) {
  const char *text = args_value(in, opt);
  if (!text)
    return 0;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < lo || v > hi)
    return usage_error(in->cmd, "%s expects an integer from %d to %d, found '%s'", opt, lo, hi, text);
  *out = (int)v;
  return 0;
}

/* Returns 0 on success, else the exit status of a usage error. */
static int parse_repack_args(const Args *in, RepackArgs *a) {
  memset(a, 0, sizeof *a);
  a->threads = 1;
  a->types[0] = in->operand[0];
  a->types[1] = in->operand[1];
  a->ntypes = 2;
  a->in = args_value(in, "-i");
  a->out = args_value(in, "-o");
  a->bench = args_has(in, "--bench");
  a->plan = args_has(in, "--plan");
  a->interpret = args_has(in, "--interpret");
  int rc = parse_count(in, "--threads", 1, 1024, &a->threads);
  if (rc || (rc = parse_count(in, "--iters", 1, 1000000, &a->iters)))
    return rc;
  a->density = 0.1;
  const char *d = args_value(in, "--density");
  if (d) {
    char *end;
    a->density = strtod(d, &end);
    if (!*d || *end || !(a->density >= 0 && a->density <= 1))
      return usage_error(in->cmd, "--density expects a number from 0 to 1, found '%s'", d);
    if (!a->bench)
      return usage_error(in->cmd, "--density goes with --bench");
  }
  if (!a->bench && !a->plan && (!a->in || !a->out))
    return usage_error(in->cmd, "repack needs -i IN -o OUT, --bench or --plan");
  if (a->bench && (a->in || a->out || a->interpret))
    return usage_error(in->cmd, "--bench cannot be combined with -i, -o or --interpret");
  if (!!a->in != !!a->out)
    return usage_error(in->cmd, "-i and -o go together");
  return 0;
}

static void size_mismatch(const char *path, int64_t got, int more, int64_t size, const char *type_text) {
  driver_error("'%s' has %s%" PRId64 " bytes but the source type '%s' needs exactly %" PRId64 " bytes", path,
               more ? "more than " : "", more ? size : got, type_text, size);
}

/* Reads f to its end into a buffer grown as data arrives, never past size + 1
 * bytes: the input's length decides the allocation, not the type's (a 1 TB
 * type with a 96-byte input is a size mismatch, not "out of memory"). */
static unsigned char *read_growing(FILE *f, const char *path, int64_t size, int64_t *got) {
  size_t cap = 0, n = 0, limit = (size_t)size + 1;
  unsigned char *buf = NULL;
  while (n < limit) {
    if (n == cap) {
      size_t want = cap ? cap * 2 : 1 << 16;
      unsigned char *grown = realloc(buf, want < limit ? want : limit);
      if (!grown) {
        driver_error("out of memory reading '%s'", path);
        free(buf);
        return NULL;
      }
      buf = grown, cap = want < limit ? want : limit;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0)
      break;
  }
  if (ferror(f)) {
    driver_error("cannot read '%s': %s", path, strerror(errno));
    free(buf);
    return NULL;
  }
  *got = (int64_t)n;
  return buf ? buf : malloc(1);
}

/* Reads exactly `size` bytes; anything else is reported. NULL on error. A
 * regular file's size is checked before anything is allocated. */
static unsigned char *read_exact(const char *path, int64_t size, const char *type_text) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    driver_error("cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (int64_t)st.st_size != size) {
    size_mismatch(path, (int64_t)st.st_size, (int64_t)st.st_size > size, size, type_text);
    fclose(f);
    return NULL;
  }
  int64_t got = 0;
  unsigned char *buf = read_growing(f, path, size, &got);
  fclose(f);
  if (buf && got != size) {
    size_mismatch(path, got, got > size, size, type_text);
    free(buf);
    return NULL;
  }
  return buf;
}

static int write_all(const char *path, const void *data, int64_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    driver_error("cannot create '%s': %s", path, strerror(errno));
    return 0;
  }
  int ok = fwrite(data, 1, (size_t)size, f) == (size_t)size;
  ok = (fclose(f) == 0) && ok;
  if (!ok)
    driver_error("cannot write '%s'", path);
  return ok;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Random bytes, with each float's exponent kept in a normal, finite range
 * so timings are not skewed by NaN, infinity or subnormal slow paths. */
static void fill_bench_input(unsigned char *buf, int64_t bytes, LyElem e) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int64_t i = 0; i < bytes; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = (unsigned char)x;
  }
  int top = e == LY_ELEM_F16 ? 14 : e == LY_ELEM_BF16 ? 14 : e == LY_ELEM_F32 || e == LY_ELEM_TF32 ? 30 : e == LY_ELEM_F64 ? 62 : -1;
  int width = lyElemGetBits(e) / 8;
  if (top < 0)
    return;
  for (int64_t i = 0; i + width <= bytes; i += width) {
    unsigned char *hi = buf + i + (top / 8), *next = buf + i + ((top - 1) / 8);
    *hi &= (unsigned char)~(1u << (top % 8));       /* exponent's top bit 0 */
    *next |= (unsigned char)(1u << ((top - 1) % 8)); /* and the next one 1 */
  }
}

/* A benchmark holds source and destination at once; past half the physical
 * memory it would swap (or be killed) instead of measuring anything. */
static int bench_fits(int64_t sbytes, int64_t dbytes) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t total, phys;
  if (pages <= 0 || page <= 0 || __builtin_mul_overflow((int64_t)pages, (int64_t)page, &phys))
    phys = INT64_MAX;
  if (__builtin_add_overflow(sbytes, dbytes, &total) || total > phys / 2) {
    driver_error("the benchmark needs %" PRId64 " + %" PRId64 " bytes (source and destination), "
                 "more than half of the physical memory (%" PRId64 " bytes)",
                 sbytes, dbytes, phys);
    return 0;
  }
  return 1;
}

static int run_bench(LyRepackKernel k, LyType s, LyType t, const RepackArgs *a) {
  int64_t sbytes, dbytes;
  lyTypeGetSizeBytes(s, &sbytes);
  lyTypeGetSizeBytes(t, &dbytes);
  if (!bench_fits(sbytes, dbytes))
    return EXIT_BAD_INPUT;
  unsigned char *src = aligned_alloc(64, (size_t)(sbytes + 64) & ~(size_t)63);
  unsigned char *dst = aligned_alloc(64, (size_t)(dbytes + 64) & ~(size_t)63);
  if (!src || !dst) {
    driver_error("out of memory for the benchmark buffers");
    free(src);
    free(dst);
    return EXIT_BAD_INPUT;
  }
  fill_bench_input(src, sbytes, lyTypeGetElement(s));
  memset(dst, 0, (size_t)dbytes);
  lyRepackRun(k, src, dst); /* warm up: page faults, caches */
  double best = 1e30, start = now_seconds();
  int iters = a->iters;
  for (int i = 0; iters ? i < iters : (i < 3 || (now_seconds() - start < 0.5 && i < 1000)); i++) {
    double t0 = now_seconds();
    lyRepackRun(k, src, dst);
    double dt = now_seconds() - t0;
    best = dt < best ? dt : best;
  }
  printf("kernel: %s\n", lyRepackKernelIsCompiled(k) ? "compiled" : "interpreted");
  printf("compile_ms: %.3f\n", lyRepackKernelGetCompileSeconds(k) * 1e3);
  printf("threads: %d\n", a->threads);
  printf("src_bytes: %" PRId64 "\ndst_bytes: %" PRId64 "\n", sbytes, dbytes);
  printf("best_seconds: %.6f\n", best);
  printf("throughput_gbps: %.3f\n", (double)(sbytes + dbytes) / best / 1e9);
  free(src);
  free(dst);
  return 0;
}

/* --- Sparse and grouped --bench -------------------------------------------- */

/* One conversion to time; returns false after its diagnostic. */
typedef bool (*BenchStep)(void *arg);

/* Times step against the streaming copy of the larger side (the limit of
 * any conversion), round robin, best of each; prints the report, the
 * throughput last as the dense bench does. */
static int bench_conversion(BenchStep step, void *arg, int64_t sbytes, int64_t dbytes, const RepackArgs *a) {
  int64_t big = sbytes > dbytes ? sbytes : dbytes;
  unsigned char *from = aligned_alloc(64, (size_t)(big + 64) & ~(size_t)63);
  unsigned char *to = aligned_alloc(64, (size_t)(big + 64) & ~(size_t)63);
  if (!from || !to) {
    driver_error("out of memory for the benchmark buffers");
    free(from), free(to);
    return EXIT_BAD_INPUT;
  }
  memset(from, 1, (size_t)big);
  nt_copy(to, from, (size_t)big); /* warm up: page faults, caches */
  if (!step(arg)) {
    free(from), free(to);
    return EXIT_BAD_INPUT;
  }
  double best = 1e30, limit = 1e30, start = now_seconds();
  for (int i = 0; a->iters ? i < a->iters : (i < 3 || (now_seconds() - start < 0.5 && i < 1000)); i++) {
    double t0 = now_seconds();
    nt_copy(to, from, (size_t)big);
    double t1 = now_seconds();
    step(arg);
    double t2 = now_seconds();
    limit = t1 - t0 < limit ? t1 - t0 : limit;
    best = t2 - t1 < best ? t2 - t1 : best;
  }
  double gbps = (double)(sbytes + dbytes) / best / 1e9, lim = 2.0 * (double)big / limit / 1e9;
  printf("src_bytes: %" PRId64 "\ndst_bytes: %" PRId64 "\n", sbytes, dbytes);
  printf("best_seconds: %.6f\n", best);
  printf("limit_gbps: %.3f\n", lim);
  printf("ratio_to_limit: %.3f\n", gbps / lim);
  printf("throughput_gbps: %.3f\n", gbps);
  free(from), free(to);
  return 0;
}

/* Values with about `density` nonzeros, byte patterns that are never zero
 * (nor -0.0) in any element type, deterministic. */
static void fill_sparse_input(unsigned char *buf, int64_t n, int eb, double density) {
  uint64_t x = 0x9e3779b97f4a7c15ULL, cut = (uint64_t)(density * 18446744073709551615.0);
  memset(buf, 0, (size_t)(n * eb));
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if (x <= cut && density > 0)
      buf[i * eb + eb - 1] = 0x3c; /* 1.0 in f16 and bf16's high byte, 60 as an integer */
  }
}

static int run_files(LyContext ctx, LyRepackKernel k, LyType s, LyType t, const RepackArgs *a) {
  int64_t sbytes, dbytes;
  lyTypeGetSizeBytes(s, &sbytes);
  lyTypeGetSizeBytes(t, &dbytes);
  unsigned char *in = read_exact(a->in, sbytes, a->types[0]);
  if (!in)
    return EXIT_BAD_INPUT;
  /* 64-byte aligned, as --bench's: the kernel's non-temporal variant runs
   * when the plan has one (the tests compare its bytes) */
  unsigned char *out = aligned_alloc(64, (size_t)(dbytes + 64) & ~(size_t)63);
  int rc = EXIT_BAD_INPUT;
  if (!out)
    driver_error("out of memory");
  else if ((a->interpret ? lyRepackInterpret(ctx, s, t, in, out) : lyRepackRun(k, in, out)) == LY_OK &&
           write_all(a->out, out, dbytes))
    rc = 0;
  free(in);
  free(out);
  return rc;
}

/* --- Dense <-> sparse ------------------------------------------------------ */

/* Files one side of a sparse repack may name: a buffer per level's
 * positions and coordinates, the values, and the dense tensor. */
#define SPARSE_MAX_FILES (2 * LY_MAX_RANK + 2)

static bool is_sparse(LyType t) {
  LyEncodingKind k = lyTypeGetEncoding(t);
  return k == LY_ENCODING_CSR || k == LY_ENCODING_COO || k == LY_ENCODING_SPARSE;
}

/* The paths given for option `opt` (-i or -o), in order. */
static int option_paths(const Args *in, const char *opt, const char **out, int max) {
  int n = 0;
  for (int i = 0; i < in->nseen; i++)
    if (!strcmp(in->seen[i].name, opt) && n < max)
      out[n++] = in->seen[i].value;
  return n;
}

/* A whole file, of any size (a sparse buffer's size depends on the data). */
static unsigned char *read_all(const char *path, int64_t *size) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    driver_error("cannot open '%s': %s", path, errno ? strerror(errno) : "not a regular file");
    return NULL;
  }
  *size = (int64_t)st.st_size;
  return read_exact(path, *size, path);
}

/* Each buffer's size against the type's where the type fixes it (nnz). */
static bool sizes_match(LyType sp, const char *text, const int64_t *sizes, int n, const char *const *paths,
                        const char *from) {
  for (int b = 0; b < n; b++) {
    int64_t want;
    if (lyTypeGetBufferSizeBytes(sp, b, &want) == LY_OK && want != sizes[b]) {
      if (paths)
        driver_error("'%s' has %" PRId64 " bytes but buffer %d of '%s' has %" PRId64 " bytes", paths[b], sizes[b],
                     b, text, want);
      else
        driver_error("the %s gives buffer %d of '%s' %" PRId64 " bytes, the type says %" PRId64
                     " (write nnz: ? for a count the data decides)", from, b, text, sizes[b], want);
      return false;
    }
  }
  return true;
}

/* The files of one sparse side, read whole and checked against the type. */
static bool read_buffers(LyType sp, const char *text, const char *const *paths, int n, unsigned char **bufs,
                         int64_t *sizes) {
  for (int b = 0; b < n; b++)
    if (!(bufs[b] = read_all(paths[b], &sizes[b])))
      return false;
  return sizes_match(sp, text, sizes, n, paths, NULL);
}

/* An n_out_of_m level over the last dim takes runs of m elements of the
 * row-major data: keep the first n nonzeros of each so the data fits it. */
static void fit_structured(LyType sp, unsigned char *dense, int64_t n, int eb) {
  int last = lyTypeGetNumLevels(sp) - 1;
  if (last < 0 || lyTypeGetLevelFormat(sp, last) != LY_LEVEL_N_OUT_OF_M ||
      lyTypeGetLevelDim(sp, last, NULL, NULL) != lyTypeGetRank(sp) - 1)
    return;
  int keep = lyTypeGetLevelStructuredN(sp, last), m = lyTypeGetLevelStructuredM(sp, last);
  for (int64_t g = 0; g + m <= n; g += m)
    for (int k = 0, seen = 0; k < m; k++)
      if (dense[(g + k) * eb + eb - 1] && ++seen > keep)
        memset(dense + (g + k) * eb, 0, (size_t)eb);
}

/* A sparse conversion to time: dense to sparse (nnz pass and fill), sparse
 * to dense, or sparse to sparse (both passes), on synthetic data. */
typedef struct {
  LySparseConverter c;
  LyType src, dst;
  int mode; /* 0 from dense, 1 to dense, 2 sparse to sparse */
  unsigned char *dense;
  void *sb[SPARSE_MAX_FILES], *db[SPARSE_MAX_FILES];
  int64_t ssz[SPARSE_MAX_FILES], dsz[SPARSE_MAX_FILES];
} SparseBench;

static bool sparse_step(void *arg) {
  SparseBench *b = arg;
  if (b->mode == 1)
    return lySparseToDense(b->c, b->src, (const void *const *)b->sb, b->ssz, b->dense) == LY_OK;
  if (b->mode == 0)
    return lySparseFromDense(b->c, b->dst, b->dense, b->dsz, NULL) == LY_OK &&
           lySparseFromDense(b->c, b->dst, b->dense, b->dsz, b->db) == LY_OK;
  return lySparseConvert(b->c, b->src, (const void *const *)b->sb, b->ssz, b->dst, b->dsz, NULL) == LY_OK &&
         lySparseConvert(b->c, b->src, (const void *const *)b->sb, b->ssz, b->dst, b->dsz, b->db) == LY_OK;
}

/* Buffers for the sizes a nnz pass gave; false after reporting. */
static bool alloc_buffers(void **bufs, const int64_t *sizes, int n, int64_t *total) {
  *total = 0;
  for (int b = 0; b < n; b++) {
    *total += sizes[b];
    if (!(bufs[b] = malloc((size_t)sizes[b] + 1)))
      return driver_error("out of memory"), false;
  }
  return true;
}

/* `repack A B --bench [--density D]` where A or B is sparse: the dense
 * tensor of the sparse type's dims at the given density is the data. */
static int run_sparse_bench(LyContext ctx, LyType s, LyType t, const RepackArgs *a) {
  SparseBench b = {.src = s, .dst = t, .mode = !is_sparse(s) ? 0 : !is_sparse(t) ? 1 : 2};
  LyType sp = is_sparse(s) ? s : t;
  int64_t n, sbytes = 0, dbytes = 0, dense_bytes;
  int eb = lyElemGetBits(lyTypeGetElement(sp)) / 8, rc = EXIT_BAD_INPUT;
  if (lyTypeGetNumel(sp, &n) != LY_OK || eb < 1 || __builtin_mul_overflow(n, (int64_t)eb, &dense_bytes) ||
      !bench_fits(dense_bytes, dense_bytes)) {
    driver_error("the benchmark needs static dims of a byte-sized element");
    return EXIT_BAD_INPUT;
  }
  b.c = lySparseConverterCreate(ctx);
  if (lySparseConverterIsNull(b.c) || !(b.dense = malloc((size_t)dense_bytes + 1)))
    goto done;
  fill_sparse_input(b.dense, n, eb, a->density);
  fit_structured(sp, b.dense, n, eb);
  if (b.mode) { /* the source buffers from the synthetic tensor */
    if (lySparseFromDense(b.c, s, b.dense, b.ssz, NULL) != LY_OK ||
        !alloc_buffers(b.sb, b.ssz, lyTypeGetNumBuffers(s), &sbytes) ||
        lySparseFromDense(b.c, s, b.dense, b.ssz, b.sb) != LY_OK)
      goto done;
  }
  LyStatus st = b.mode == 0 ? lySparseFromDense(b.c, t, b.dense, b.dsz, NULL) /* the nnz pass sizes dst */
                : b.mode == 2 ? lySparseConvert(b.c, s, (const void *const *)b.sb, b.ssz, t, b.dsz, NULL) : LY_OK;
  if (st != LY_OK || (b.mode != 1 && !alloc_buffers(b.db, b.dsz, lyTypeGetNumBuffers(t), &dbytes)))
    goto done;
  printf("density: %g\n", a->density);
  rc = bench_conversion(sparse_step, &b, b.mode ? sbytes : dense_bytes, b.mode == 1 ? dense_bytes : dbytes, a);
done:
  for (int i = 0; i < SPARSE_MAX_FILES; i++)
    free(b.sb[i]), free(b.db[i]);
  free(b.dense);
  lySparseConverterDestroy(b.c);
  return rc;
}

/* `repack SPARSE1 SPARSE2 -i BUF... -o BUF...`: one file per buffer of each. */
static int run_sparse_sparse(LyContext ctx, Args *in, LyType s, LyType t) {
  const char *ins[SPARSE_MAX_FILES], *outs[SPARSE_MAX_FILES];
  int nin = option_paths(in, "-i", ins, SPARSE_MAX_FILES), nout = option_paths(in, "-o", outs, SPARSE_MAX_FILES);
  int ns = lyTypeGetNumBuffers(s), nt = lyTypeGetNumBuffers(t);
  if (nin != ns || nout != nt)
    return usage_error(in->cmd, "the source has %d buffers and the destination %d: give one -i per source buffer "
                       "and one -o per destination buffer", ns, nt);
  LySparseConverter c = lySparseConverterCreate(ctx);
  if (lySparseConverterIsNull(c))
    return EXIT_BAD_INPUT;
  unsigned char *sb[SPARSE_MAX_FILES] = {0};
  void *db[SPARSE_MAX_FILES] = {0};
  int64_t ssz[SPARSE_MAX_FILES], dsz[SPARSE_MAX_FILES];
  int rc = EXIT_BAD_INPUT;
  diag_focus(in, 0); /* faults in the source buffers */
  if (!read_buffers(s, operand_text(in, 0), ins, ns, sb, ssz) ||
      lySparseConvert(c, s, (const void *const *)sb, ssz, t, dsz, NULL) != LY_OK ||
      !sizes_match(t, operand_text(in, 1), dsz, nt, NULL, "source"))
    goto done;
  for (int b = 0; b < nt; b++)
    if (!(db[b] = malloc((size_t)dsz[b] + 1))) {
      driver_error("out of memory");
      goto done;
    }
  if (lySparseConvert(c, s, (const void *const *)sb, ssz, t, dsz, db) != LY_OK)
    goto done;
  rc = 0;
  for (int b = 0; b < nt && !rc; b++)
    rc = write_all(outs[b], db[b], dsz[b]) ? 0 : EXIT_BAD_INPUT;
done:
  for (int b = 0; b < SPARSE_MAX_FILES; b++)
    free(sb[b]), free(db[b]);
  lySparseConverterDestroy(c);
  return rc;
}

/* `repack DENSE SPARSE -i IN -o BUF0 -o BUF1 ...` and back: one file per
 * buffer in the sparse type's order; the dense side is row-major. */
static int run_sparse(LyContext ctx, Args *in, LyType s, LyType t, const RepackArgs *a) {
  if (a->plan || a->interpret || a->threads != 1)
    return usage_error(in->cmd, "a sparse repack takes -i and -o, or --bench [--density D]");
  if (is_sparse(s) && is_sparse(t))
    return a->bench ? run_sparse_bench(ctx, s, t, a) : run_sparse_sparse(ctx, in, s, t);
  bool to_sparse = is_sparse(t);
  LyType sp = to_sparse ? t : s, de = to_sparse ? s : t;
  const char *sp_text = operand_text(in, to_sparse ? 1 : 0);
  bool same = lyTypeGetRank(de) == lyTypeGetRank(sp) && lyTypeGetElement(de) == lyTypeGetElement(sp);
  for (int d = 0; same && d < lyTypeGetRank(de); d++)
    same = lyTypeGetDim(de, d) == lyTypeGetDim(sp, d);
  if (!same || !lyTypeIsContiguous(de) || lyTypeGetEncoding(de) != LY_ENCODING_NONE) {
    int i = to_sparse ? 0 : 1;
    arg_error(operand_name(in, i), operand_text(in, i), 1, "the dense side of a sparse repack is the row-major "
              "tensor of the sparse type's dims and element");
    return EXIT_BAD_INPUT;
  }
  if (a->bench)
    return run_sparse_bench(ctx, s, t, a);
  const char *ins[SPARSE_MAX_FILES], *outs[SPARSE_MAX_FILES];
  int nin = option_paths(in, "-i", ins, SPARSE_MAX_FILES), nout = option_paths(in, "-o", outs, SPARSE_MAX_FILES);
  int nbuf = lyTypeGetNumBuffers(sp);
  if ((to_sparse ? nin : nout) != 1 || (to_sparse ? nout : nin) != nbuf)
    return usage_error(in->cmd, "'%s' has %d buffers: give one %s per buffer and one %s for the dense tensor",
                       sp_text, nbuf, to_sparse ? "-o" : "-i", to_sparse ? "-i" : "-o");
  int64_t dbytes, sizes[SPARSE_MAX_FILES];
  lyTypeGetSizeBytes(de, &dbytes);
  LySparseConverter c = lySparseConverterCreate(ctx);
  if (lySparseConverterIsNull(c))
    return EXIT_BAD_INPUT;
  void *bufs[SPARSE_MAX_FILES] = {0};
  unsigned char *dense = NULL;
  int rc = EXIT_BAD_INPUT;
  if (to_sparse) {
    if (!(dense = read_exact(ins[0], dbytes, operand_text(in, 0))) ||
        lySparseFromDense(c, sp, dense, sizes, NULL) != LY_OK ||
        !sizes_match(sp, sp_text, sizes, nbuf, NULL, "dense input"))
      goto done;
    for (int b = 0; b < nbuf; b++)
      if (!(bufs[b] = malloc((size_t)sizes[b] + 1))) {
        driver_error("out of memory");
        goto done;
      }
    if (lySparseFromDense(c, sp, dense, sizes, bufs) != LY_OK)
      goto done;
    rc = 0;
    for (int b = 0; b < nbuf && !rc; b++)
      rc = write_all(outs[b], bufs[b], sizes[b]) ? 0 : EXIT_BAD_INPUT;
  } else {
    for (int b = 0; b < nbuf; b++)
      if (!(bufs[b] = read_all(ins[b], &sizes[b])))
        goto done;
    if (!sizes_match(sp, sp_text, sizes, nbuf, ins, NULL))
      goto done;
    if (!(dense = malloc((size_t)dbytes + 1))) {
      driver_error("out of memory");
      goto done;
    }
    if (lySparseToDense(c, sp, (const void *const *)bufs, sizes, dense) == LY_OK && write_all(outs[0], dense, dbytes))
      rc = 0;
  }
done:
  for (int b = 0; b < nbuf; b++)
    free(bufs[b]);
  free(dense);
  lySparseConverterDestroy(c);
  return rc;
}

/* --- Grouped <-> padded dense ------------------------------------------------ */

/* A grouped conversion to time, on random group sizes. */
typedef struct {
  LyContext ctx;
  LyType g, p;
  bool to_padded;
  unsigned char *offsets, *values, *padded;
} GroupedBench;

static bool grouped_step(void *arg) {
  GroupedBench *b = arg;
  return (b->to_padded ? lyGroupedToPadded(b->ctx, b->g, b->p, b->offsets, b->values, b->padded)
                       : lyGroupedFromPadded(b->ctx, b->g, b->p, b->offsets, b->padded, b->values)) == LY_OK;
}

/* Random group sizes of at most `pad` rows adding up to `total` (the
 * caller checked total <= groups * pad), as cumulative offsets. */
static void bench_offsets(unsigned char *out, int width, int64_t groups, int64_t total, int64_t pad) {
  uint64_t x = 0x2545f4914f6cdd1dULL;
  int64_t end = 0;
  for (int64_t g = 0; g < groups; g++) {
    int64_t rest = total - end, lo = rest - (groups - g - 1) * pad, hi = rest < pad ? rest : pad;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    lo = lo > 0 ? lo : 0;
    end += lo + (int64_t)(x % (uint64_t)(hi - lo + 1));
    for (int k = 0; k < width; k++)
      out[g * width + k] = (unsigned char)((uint64_t)end >> (8 * k));
  }
}

static int run_grouped_bench(LyContext ctx, LyType g, LyType p, bool to_padded, const RepackArgs *a) {
  GroupedBench b = {.ctx = ctx, .g = g, .p = p, .to_padded = to_padded};
  int d = lyTypeGetGroupedDim(g), width = lyElemGetBits(lyTypeGetBufferElement(g, 0)) / 8, rc = EXIT_BAD_INPUT;
  int64_t groups = lyTypeGetGroupCount(g), total = lyTypeGetDim(g, d), pad = lyTypeGetDim(p, d + 1), obytes, vbytes,
          pbytes;
  lyTypeGetBufferSizeBytes(g, 0, &obytes);
  lyTypeGetBufferSizeBytes(g, 1, &vbytes);
  lyTypeGetSizeBytes(p, &pbytes);
  if (total > groups * pad || (width < 8 && total >= (int64_t)1 << (8 * width - 1))) {
    driver_error("no group sizes fit: %" PRId64 " rows of dim %d in %" PRId64 " groups of at most %" PRId64
                 " rows with %d-bit offsets", total, d, groups, pad, 8 * width);
    return EXIT_BAD_INPUT;
  }
  if (!bench_fits(vbytes + obytes, pbytes))
    return EXIT_BAD_INPUT;
  b.offsets = malloc((size_t)obytes + 1), b.values = malloc((size_t)vbytes + 1), b.padded = malloc((size_t)pbytes + 1);
  if (!b.offsets || !b.values || !b.padded) {
    driver_error("out of memory for the benchmark buffers");
    goto done;
  }
  bench_offsets(b.offsets, width, groups, total, pad);
  fill_bench_input(b.values, vbytes, lyTypeGetElement(g));
  fill_bench_input(b.padded, pbytes, lyTypeGetElement(g));
  printf("fill: %.3f (rows of the padded groups that hold data)\n", groups * pad > 0 ? (double)total / (double)(groups * pad) : 0.0);
  rc = to_padded ? bench_conversion(grouped_step, &b, obytes + vbytes, pbytes, a)
                 : bench_conversion(grouped_step, &b, obytes + pbytes, vbytes, a);
done:
  free(b.offsets), free(b.values), free(b.padded);
  return rc;
}

/* `repack GROUPED PADDED -i OFFSETS -i VALUES -o PADDED` and back with
 * `-i OFFSETS -i PADDED -o VALUES`: the offsets are always the first input,
 * since the group sizes live only there. */
static int run_grouped(LyContext ctx, Args *in, LyType s, LyType t, const RepackArgs *a) {
  if (a->plan || a->interpret || a->threads != 1)
    return usage_error(in->cmd, "a grouped <-> padded repack takes -i, -o or --bench only");
  bool to_padded = lyTypeGetEncoding(s) == LY_ENCODING_GROUPED;
  LyType g = to_padded ? s : t, p = to_padded ? t : s;
  if (a->bench) {
    diag_focus(in, to_padded ? 1 : 0);
    return lyGroupedToPadded(ctx, g, p, NULL, NULL, NULL) == LY_OK ? run_grouped_bench(ctx, g, p, to_padded, a)
                                                                  : EXIT_BAD_INPUT;
  }
  const char *g_text = operand_text(in, to_padded ? 0 : 1);
  const char *ins[SPARSE_MAX_FILES], *outs[SPARSE_MAX_FILES];
  int nin = option_paths(in, "-i", ins, SPARSE_MAX_FILES), nout = option_paths(in, "-o", outs, SPARSE_MAX_FILES);
  if (nin != 2 || nout != 1)
    return usage_error(in->cmd, "a grouped repack takes -i OFFSETS -i %s -o %s", to_padded ? "VALUES" : "PADDED",
                       to_padded ? "PADDED" : "VALUES");
  int64_t sizes[2], pbytes = 0;
  unsigned char *bufs[2] = {NULL, NULL}, *out = NULL;
  int rc = EXIT_BAD_INPUT;
  diag_focus(in, to_padded ? 1 : 0); /* a bad pair is the padded type's fault */
  if (lyGroupedToPadded(ctx, g, p, NULL, NULL, NULL) != LY_OK)
    return EXIT_BAD_INPUT;
  diag_focus(in, to_padded ? 0 : 1); /* bad offsets are the grouped type's */
  lyTypeGetSizeBytes(p, &pbytes);
  lyTypeGetBufferSizeBytes(g, 1, &sizes[1]);
  if (!(bufs[0] = read_all(ins[0], &sizes[0])) || !sizes_match(g, g_text, sizes, 1, ins, NULL))
    goto done;
  bufs[1] = to_padded ? read_all(ins[1], &sizes[1]) : read_exact(ins[1], pbytes, operand_text(in, 0));
  if (!bufs[1] || (to_padded && !sizes_match(g, g_text, sizes, 2, ins, NULL)))
    goto done;
  int64_t obytes = to_padded ? pbytes : sizes[1];
  if (!(out = malloc((size_t)obytes + 1))) {
    driver_error("out of memory");
    goto done;
  }
  if ((to_padded ? lyGroupedToPadded(ctx, g, p, bufs[0], bufs[1], out)
                 : lyGroupedFromPadded(ctx, g, p, bufs[0], bufs[1], out)) == LY_OK &&
      write_all(outs[0], out, obytes))
    rc = 0;
done:
  free(bufs[0]);
  free(bufs[1]);
  free(out);
  return rc;
}

int cmd_repack(Args *in) {
  RepackArgs a;
  int rc = parse_repack_args(in, &a);
  if (rc)
    return rc;
  LyContext ctx = new_context();
  LyRepacker r = {NULL};
  LyRepackKernel k = {NULL};
  LyType s = operand_type(ctx, in, 0), t = lyTypeIsNull(s) ? s : operand_type(ctx, in, 1);
  rc = EXIT_BAD_INPUT;
  if (lyTypeIsNull(t))
    goto done;
  a.types[0] = operand_text(in, 0);
  if (is_sparse(s) || is_sparse(t)) {
    diag_focus(in, is_sparse(t) ? 1 : 0);
    rc = run_sparse(ctx, in, s, t, &a);
    goto done;
  }
  if (lyTypeGetEncoding(s) == LY_ENCODING_GROUPED || lyTypeGetEncoding(t) == LY_ENCODING_GROUPED) {
    rc = run_grouped(ctx, in, s, t, &a);
    goto done;
  }
  /* The kernel's refusals are about the pair; most name the destination,
   * unless the source is the one without a geometry (any, '?', opaque). */
  int64_t alloc;
  diag_focus(in, lyTypeGetAllocElements(s, &alloc) == LY_OK ? 1 : 0);
  if (!a.interpret) {
    r = lyRepackerCreate(ctx);
    if (lyRepackerIsNull(r) || lyRepackKernelIsNull(k = lyRepackKernelGet(r, s, t, a.threads)))
      goto done;
  }
  if (a.plan) {
    char *text = a.interpret ? NULL : lyRepackKernelDescribe(k);
    fputs(text ? text : "interpreter\n", stdout);
    lyStringFree(text);
  }
  rc = 0;
  if (a.bench)
    rc = run_bench(k, s, t, &a);
  else if (a.in)
    rc = run_files(ctx, k, s, t, &a);
done:
  lyRepackerDestroy(r);
  lyContextDestroy(ctx);
  return rc;
}

int cmd_emit_llvm(Args *in) {
  int repack = args_has(in, "--repack");
  unsigned flags = (args_has(in, "--with-main") ? LY_EMIT_WITH_MAIN : 0) | (args_has(in, "-O") ? LY_EMIT_OPTIMIZE : 0);
  if (in->noperands != 1 + repack)
    return usage_error(in->cmd, repack ? "emit-llvm --repack needs a source and a destination type"
                                       : "emit-llvm takes one type (or two with --repack)");
  LyContext ctx = new_context();
  LyType s = operand_type(ctx, in, 0), t = s;
  if (repack && !lyTypeIsNull(s))
    t = operand_type(ctx, in, 1);
  char *text = NULL;
  if (!lyTypeIsNull(t)) {
    diag_focus(in, repack ? 1 : 0);
    text = repack ? lyEmitLLVMRepack(ctx, s, t, flags) : lyEmitLLVMOffset(ctx, s, flags);
  }
  if (text)
    fputs(text, stdout);
  lyStringFree(text);
  lyContextDestroy(ctx);
  return text ? 0 : EXIT_BAD_INPUT;
}
