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

#include "cmd_codegen.h"
#include "driver.h"
#include "layoutc/codegen.h"

typedef struct {
  const char *types[2];
  int ntypes;
  const char *in, *out;
  int bench, plan, interpret, threads, iters;
} RepackArgs;

static int parse_count(const char *opt, const char *text, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < lo || v > hi) {
    fprintf(stderr, "layoutc: %s expects an integer from %d to %d, got '%s'\n", opt, lo, hi, text);
    return 0;
  }
  *out = (int)v;
  return 1;
}

/* Returns 0 on success, else the exit status of a usage error. */
static int parse_repack_args(int argc, char **argv, RepackArgs *a) {
  memset(a, 0, sizeof *a);
  a->threads = 1;
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(s, "-i") || !strcmp(s, "-o") || !strcmp(s, "--threads") || !strcmp(s, "--iters")) {
      if (!has_value)
        return usage("option needs a value");
      const char *v = argv[++i];
      if (!strcmp(s, "-i"))
        a->in = v;
      else if (!strcmp(s, "-o"))
        a->out = v;
      else if (!parse_count(s, v, 1, !strcmp(s, "--threads") ? 1024 : 1000000,
                            !strcmp(s, "--threads") ? &a->threads : &a->iters))
        return EXIT_USAGE;
    } else if (!strcmp(s, "--bench")) {
      a->bench = 1;
    } else if (!strcmp(s, "--plan")) {
      a->plan = 1;
    } else if (!strcmp(s, "--interpret")) {
      a->interpret = 1;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "layoutc: unknown repack option '%s'\n", s);
      return usage(NULL);
    } else if (a->ntypes < 2) {
      a->types[a->ntypes++] = s;
    } else {
      return usage("repack takes two types");
    }
  }
  if (a->ntypes != 2)
    return usage("repack needs a source and a destination type");
  if (!a->bench && !a->plan && (!a->in || !a->out))
    return usage("repack needs -i IN -o OUT, --bench or --plan");
  if (a->bench && (a->in || a->out || a->interpret))
    return usage("--bench cannot be combined with -i, -o or --interpret");
  if (!!a->in != !!a->out)
    return usage("-i and -o go together");
  return 0;
}

static void size_mismatch(const char *path, int64_t got, int more, int64_t size, const char *type_text) {
  fprintf(stderr, "layoutc: error: '%s' has %s%" PRId64 " bytes but the source type '%s' needs exactly %" PRId64 " bytes\n",
          path, more ? "more than " : "", more ? size : got, type_text, size);
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
        fprintf(stderr, "layoutc: error: out of memory reading '%s'\n", path);
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
    fprintf(stderr, "layoutc: error: cannot read '%s': %s\n", path, strerror(errno));
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
    fprintf(stderr, "layoutc: error: cannot open '%s': %s\n", path, strerror(errno));
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
    fprintf(stderr, "layoutc: error: cannot create '%s': %s\n", path, strerror(errno));
    return 0;
  }
  int ok = fwrite(data, 1, (size_t)size, f) == (size_t)size;
  ok = (fclose(f) == 0) && ok;
  if (!ok)
    fprintf(stderr, "layoutc: error: cannot write '%s'\n", path);
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
  int top = e == LY_ELEM_F16 ? 14 : e == LY_ELEM_BF16 ? 14 : e == LY_ELEM_F32 ? 30 : e == LY_ELEM_F64 ? 62 : -1;
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
    fprintf(stderr,
            "layoutc: error: the benchmark needs %" PRId64 " + %" PRId64 " bytes (source and destination), "
            "more than half of the physical memory (%" PRId64 " bytes)\n",
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
    fprintf(stderr, "layoutc: error: out of memory for the benchmark buffers\n");
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

static int run_files(LyContext ctx, LyRepackKernel k, LyType s, LyType t, const RepackArgs *a) {
  int64_t sbytes, dbytes;
  lyTypeGetSizeBytes(s, &sbytes);
  lyTypeGetSizeBytes(t, &dbytes);
  unsigned char *in = read_exact(a->in, sbytes, a->types[0]);
  if (!in)
    return EXIT_BAD_INPUT;
  unsigned char *out = malloc((size_t)dbytes + 1);
  int rc = EXIT_BAD_INPUT;
  if (!out)
    fprintf(stderr, "layoutc: error: out of memory\n");
  else if ((a->interpret ? lyRepackInterpret(ctx, s, t, in, out) : lyRepackRun(k, in, out)) == LY_OK &&
           write_all(a->out, out, dbytes))
    rc = 0;
  free(in);
  free(out);
  return rc;
}

int cmd_repack(int argc, char **argv) {
  RepackArgs a;
  int rc = parse_repack_args(argc, argv, &a);
  if (rc)
    return rc;
  LyContext ctx = new_context();
  LyRepacker r = {NULL};
  LyRepackKernel k = {NULL};
  LyType s = parse_type(ctx, a.types[0]), t = lyTypeIsNull(s) ? s : parse_type(ctx, a.types[1]);
  rc = EXIT_BAD_INPUT;
  if (lyTypeIsNull(t))
    goto done;
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

int cmd_emit_llvm(int argc, char **argv) {
  const char *types[2];
  int ntypes = 0, repack = 0;
  unsigned flags = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--repack"))
      repack = 1;
    else if (!strcmp(argv[i], "--with-main"))
      flags |= LY_EMIT_WITH_MAIN;
    else if (!strcmp(argv[i], "-O"))
      flags |= LY_EMIT_OPTIMIZE;
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "layoutc: unknown emit-llvm option '%s'\n", argv[i]);
      return usage(NULL);
    } else if (ntypes < 2)
      types[ntypes++] = argv[i];
    else
      return usage("emit-llvm takes one type (or two with --repack)");
  }
  if (ntypes != 1 + repack)
    return usage(repack ? "emit-llvm --repack needs a source and a destination type" : "emit-llvm needs a type");
  LyContext ctx = new_context();
  LyType s = parse_type(ctx, types[0]), t = s;
  if (repack && !lyTypeIsNull(s))
    t = parse_type(ctx, types[1]);
  char *text = NULL;
  if (!lyTypeIsNull(t))
    text = repack ? lyEmitLLVMRepack(ctx, s, t, flags) : lyEmitLLVMOffset(ctx, s, flags);
  if (text)
    fputs(text, stdout);
  lyStringFree(text);
  lyContextDestroy(ctx);
  return text ? 0 : EXIT_BAD_INPUT;
}
