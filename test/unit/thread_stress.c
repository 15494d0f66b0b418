/* Threads sharing layoutc as the documented contract allows (docs/capi.md,
 * "Threads"): each thread parses, prints, hashes, takes views and runs a
 * pipeline in a context of its own, and compiles and runs kernels both in
 * one repacker shared by all (pinned kernels, and held ones in a cache small
 * enough to evict while others run) and in a repacker of its own. Every
 * answer is compared with the one computed on the main thread first.
 * Meant for ThreadSanitizer (CI builds it with clang-19 -fsanitize=thread);
 * it also runs in the ordinary suite. Prints `thread_stress: N checks, K
 * failures`. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_dst.h"
#include "layoutc/codegen.h"
#include "layoutc/ir.h"
#include "layoutc/layoutc.h"

#define NTHREADS 6

static atomic_int checks, failures, shared_errors;

#define CHECK(c)                                                                 \
  do {                                                                           \
    atomic_fetch_add(&checks, 1);                                                \
    if (!(c)) {                                                                  \
      atomic_fetch_add(&failures, 1);                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
    }                                                                            \
  } while (0)

/* General layouts (digits sorted by rank), tags, tiles and strides. */
static const char *const spellings[] = {
    "tensor<2x20x3x3xf32, \"nChw16c\">",
    "tensor<16x256xbf16, tiled_layout<<0,1>,(8,128),(2,1)>>",
    "tensor<4x6xf32, strided<[1,4], offset: 2>>",
    "tensor<2x4x8x4x5xf32, layout<[(d0) * 640, (d1) floordiv 2 * 320, (d3) * 80, (d4) * 16, (d1) mod 2 * 8, "
    "(d2) * 1], size: 1280>>",
    "tensor<2x16x4x5xf32, layout<[(d0) * 960, (d1) floordiv 8 * 312, (d2) * 80, (d3) * 16, (d1) mod 8 * 1], "
    "size: 1592, offset: 8>>",
    "tensor<16x2xbf16, layout<[(d0) floordiv 8 * 2048, (d0) floordiv 2 mod 4 * 256, (d1) * 2, (d0) mod 2 * 1], "
    "size: 2822, offset: 2>>",
    "tensor<8x32x7x7xf32, \"ABcd8b8a\">",
};
#define NSPELL (int)(sizeof spellings / sizeof spellings[0])

static const char module_text[] =
    "func.func @f(%a: tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x2x16x5x4xf32, any> {\n"
    "  %0 = \"layout.reshape\"(%a) : (tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x2x16x4x5xf32, any>\n"
    "  %1 = \"layout.transpose\"(%0) {permutation = [0, 1, 2, 4, 3]} : (tensor<2x2x16x4x5xf32, any>) -> "
    "tensor<2x2x16x5x4xf32, any>\n"
    "  \"func.return\"(%1) : (tensor<2x2x16x5x4xf32, any>) -> ()\n}\n";

/* Repack pairs: compiled (with and without conversion) and interpreted. */
static const char *const pairs[][2] = {
    {"tensor<2x32x5x5xf32>", "tensor<2x32x5x5xf32, \"nChw16c\">"},
    {"tensor<2x32x5x5xf32, \"nChw16c\">", "tensor<2x32x5x5xf32, \"nhwc\">"},
    {"tensor<2x32x5x5xf32, \"nChw8c\">", "tensor<2x32x5x5xbf16, \"nChw16c\">"},
    {"tensor<6x10xi4>", "tensor<6x10xi4, strided<[1,6]>>"},
    /* rows of three lines: variants for destinations 16, 32 and 48 bytes past a line (main
     * plans every repack with them) */
    {"tensor<48x20xf32>", "tensor<48x20xf32, tiled_layout<<1,0>>>"},
};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])

typedef struct {
  char *canon[NSPELL];
  uint64_t hash[NSPELL];
  char *module_after; /* the module after the pipeline */
  LyContext ctx;      /* shared by the repackers */
  LyType src[NPAIRS], dst[NPAIRS];
  uint8_t *in[NPAIRS], *want[NPAIRS];
  int64_t dst_bytes[NPAIRS];
  LyRepacker shared, small; /* small: capacity 2, held kernels */
} Expect;

static Expect E;

static void count_shared(const LyDiagnostic *d, void *user) {
  (void)user;
  if (d->severity == LY_SEVERITY_ERROR)
    atomic_fetch_add(&shared_errors, 1);
}

static LyType parse(LyContext c, const char *s) { return lyTypeParse(c, s, strlen(s), NULL); }

static char *run_pipeline(LyContext c) {
  LyModule m = lyModuleParse(c, module_text, strlen(module_text), "m");
  char *s = NULL;
  if (!lyModuleIsNull(m) && lyModuleRunPipeline(m, "legalize-reshapes", 0) == LY_OK)
    s = lyModuleToString(m);
  lyModuleDestroy(m);
  return s;
}

static void expect_setup(void) {
  LyContext c = lyContextCreate();
  for (int i = 0; i < NSPELL; i++) {
    LyType t = parse(c, spellings[i]);
    CHECK(!lyTypeIsNull(t));
    E.canon[i] = lyTypeToString(t);
    E.hash[i] = lyTypeGetHash(t);
  }
  E.module_after = run_pipeline(c);
  CHECK(E.module_after != NULL);
  lyContextDestroy(c);
  E.ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(E.ctx, count_shared, NULL);
  for (int p = 0; p < NPAIRS; p++) {
    int64_t sb;
    E.src[p] = parse(E.ctx, pairs[p][0]);
    E.dst[p] = parse(E.ctx, pairs[p][1]);
    lyTypeGetSizeBytes(E.src[p], &sb);
    lyTypeGetSizeBytes(E.dst[p], &E.dst_bytes[p]);
    E.in[p] = malloc(sb);
    for (int64_t k = 0; k < sb; k++)
      E.in[p][k] = test_source_byte(k);
    E.want[p] = calloc(1, E.dst_bytes[p]);
    CHECK(lyRepackInterpret(E.ctx, E.src[p], E.dst[p], E.in[p], E.want[p]) == LY_OK);
  }
  E.shared = lyRepackerCreate(E.ctx);
  E.small = lyRepackerCreate(E.ctx);
  lyRepackerSetCacheCapacity(E.small, 2);
}

/* Types, printing, hashing and views in the thread's own context. */
static void types_round(LyContext c, int i) {
  for (int k = 0; k < NSPELL; k++) {
    int j = (k + i) % NSPELL;
    LyType t = parse(c, spellings[j]);
    char *s = lyTypeToString(t);
    CHECK(s && !strcmp(s, E.canon[j]) && lyTypeGetHash(t) == E.hash[j]);
    lyStringFree(s);
  }
  LyType t = parse(c, "tensor<2x48x4x5xf32, \"nChw16c\">"), v;
  int64_t view[] = {2, 3, 16, 4, 5}, copy[] = {2, 4, 12, 4, 5};
  CHECK(lyTypeTryReshape(c, t, 5, view, &v) == LY_OK && lyTypeEqual(v, lyTypeReshape(c, t, 5, view)));
  CHECK(lyTypeTryReshape(c, t, 5, copy, &v) == LY_ERROR_NOT_A_VIEW);
}

/* Into a guarded destination off bytes past a line (0, 16, 32, 48: each of a kernel's variants,
 * built on first use, so threads race to build them). */
static int run_matches(LyRepackKernel k, int p, int off) {
  GuardedDst g;
  if (!guarded_dst_alloc(&g, E.dst_bytes[p]))
    return 0;
  uint8_t *out = guarded_dst_fill(&g, off, 0xCD);
  int ok = !lyRepackKernelIsNull(k) && lyRepackRun(k, E.in[p], out) == LY_OK &&
           !memcmp(out, E.want[p], E.dst_bytes[p]) && guarded_dst_intact(&g, 0xCD);
  guarded_dst_free(&g);
  return ok;
}

static void kernels_round(int i) {
  for (int k = 0; k < NPAIRS; k++) {
    int p = (k + i) % NPAIRS, threads = 1 + (i + k) % 3;
    CHECK(run_matches(lyRepackKernelGet(E.shared, E.src[p], E.dst[p], threads), p, 16 * ((i + k) % 4)));
    LyRepackKernel h = lyRepackKernelAcquire(E.small, E.src[p], E.dst[p], 1);
    CHECK(run_matches(h, p, 16 * ((i + 2 * k + 1) % 4)));
    lyRepackKernelRelease(h);
  }
  /* A bad request reports on the shared context, serialised. */
  CHECK(lyRepackKernelIsNull(lyRepackKernelGet(E.shared, E.src[0], E.dst[0], 0)));
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, rounds = getenv("LAYOUTC_TEST_QUICK") ? 3 : 6;
  LyContext c = lyContextCreate();
  for (int i = 0; i < rounds; i++) {
    types_round(c, id + i);
    char *m = run_pipeline(c);
    CHECK(m && !strcmp(m, E.module_after));
    lyStringFree(m);
    kernels_round(id + i);
  }
  /* A repacker of the thread's own, over its own context. */
  LyRepacker own = lyRepackerCreate(c);
  int p = id % NPAIRS;
  LyType s = parse(c, pairs[p][0]), d = parse(c, pairs[p][1]);
  LyRepackKernel k = lyRepackKernelGet(own, s, d, 2);
  CHECK(run_matches(k, p, 16 * (id % 4)));
  lyRepackerDestroy(own);
  lyContextDestroy(c);
  return NULL;
}

int main(void) {
  /* Every repack streams its stores and cuts its rows for destinations past a line, so each
   * kernel has all its variants, built lazily on whichever thread first needs one. */
  setenv("LAYOUTC_NT_THRESHOLD", "0", 1);
  setenv("LAYOUTC_CUT_ROW_BYTES", "0", 1);
  expect_setup();
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  int rounds = getenv("LAYOUTC_TEST_QUICK") ? 3 : 6;
  CHECK(atomic_load(&shared_errors) == NTHREADS * rounds); /* one per bad request */
  CHECK(lyRepackerGetCacheSize(E.small) <= 2);
  lyRepackerDestroy(E.shared);
  lyRepackerDestroy(E.small);
  lyContextDestroy(E.ctx);
  for (int i = 0; i < NSPELL; i++)
    lyStringFree(E.canon[i]);
  for (int p = 0; p < NPAIRS; p++)
    free(E.in[p]), free(E.want[p]);
  lyStringFree(E.module_after);
  printf("thread_stress: %d checks, %d failures\n", atomic_load(&checks), atomic_load(&failures));
  return atomic_load(&failures) != 0;
}
