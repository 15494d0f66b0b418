/* The code-generation API as an embedding compiler uses it: the kernel cache, thread shares,
 * diagnostics for pairs that cannot be repacked, sub-byte elements (compiled, checked against
 * packing written out here independently), textual IR, and out-of-memory at
 * every allocation of a kernel build. Prints `codegen_api: N checks, K failures`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"


static int checks, failures;
static char last_diag[1024];
static int ndiags;

#define CHECK(c)                                                                  \
  do {                                                                            \
    checks++;                                                                     \
    if (!(c)) {                                                                   \
      failures++;                                                                 \
      fprintf(stderr, "FAIL %s:%d: %s (last diagnostic: %s)\n", __FILE__, __LINE__, #c, last_diag); \
    }                                                                             \
  } while (0)

static void record(const LyDiagnostic *d, void *user) {
  snprintf(last_diag, sizeof last_diag, "%s", d->message);
  ndiags++;
}

static LyType T(LyContext ctx, const char *text) {
  LyType t = lyTypeParse(ctx, text, strlen(text), NULL);
  if (lyTypeIsNull(t)) {
    fprintf(stderr, "cannot parse %s: %s\n", text, last_diag);
    exit(1);
  }
  return t;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_cache(LyContext ctx, LyRepacker r) {
  LyType a = T(ctx, "tensor<2x20x3x3xf32>"), b = T(ctx, "tensor<2x20x3x3xf32, \"nChw16c\">");
  LyRepackKernel k1 = lyRepackKernelGet(r, a, b, 1), k2 = lyRepackKernelGet(r, a, b, 1);
  LyRepackKernel k3 = lyRepackKernelGet(r, a, b, 2);
  CHECK(!lyRepackKernelIsNull(k1) && k1.ptr == k2.ptr);
  CHECK(!lyRepackKernelIsNull(k3) && k3.ptr != k1.ptr);
  CHECK(lyRepackKernelIsCompiled(k1));
  CHECK(lyRepackKernelGetCompileSeconds(k1) > 0);
  /* The same type spelled differently is the same interned type: the same kernel. */
  LyType b2 = T(ctx, "tensor<2x20x3x3xf32, \"aBcd16b\">");
  CHECK(lyRepackKernelGet(r, a, b2, 1).ptr == k1.ptr);
  enum { N = 200000 };
  double t0 = now();
  for (int i = 0; i < N; i++)
    k2 = lyRepackKernelGet(r, a, b, 1);
  double per = (now() - t0) / N;
  CHECK(k2.ptr == k1.ptr);
  printf("cache hit: %.1f ns\n", per * 1e9);
  char *plan = lyRepackKernelDescribe(k1);
  CHECK(plan && strstr(plan, "copy 0:") && strstr(plan, "copy 1:") && strstr(plan, "xpad=12"));
  lyStringFree(plan);
}

/* Every element lands where the offsets say, for more threads than outer iterations. */
static void test_threads(LyContext ctx, LyRepacker r) {
  LyType a = T(ctx, "tensor<3x5xf32>"), b = T(ctx, "tensor<3x5xf32, tiled_layout<<1,0>,(2,2)>>");
  float src[15], dst[24];
  for (int i = 0; i < 15; i++)
    src[i] = (float)i + 0.5f;
  for (int threads = 1; threads <= 9; threads++) {
    memset(dst, 0xff, sizeof dst);
    LyRepackKernel k = lyRepackKernelGet(r, a, b, threads);
    CHECK(lyRepackRun(k, src, dst) == LY_OK);
    int ok = 1, hit[24] = {0};
    for (int64_t i = 0; i < 3; i++)
      for (int64_t j = 0; j < 5; j++) {
        int64_t off, idx[2] = {i, j};
        lyTypeGetOffset(b, idx, &off);
        ok = ok && dst[off] == src[i * 5 + j];
        hit[off] = 1;
      }
    for (int p = 0; p < 24; p++)
      ok = ok && (hit[p] || dst[p] == 0.0f);
    CHECK(ok);
  }
}

/* A repack past the cache: super-blocks of X, runs of Y blocks and non-temporal stores, on an
 * aligned destination and (compiling the plain variant on first use) a misaligned one. */
static void test_large(LyContext ctx, LyRepacker r) {
  LyType a = T(ctx, "tensor<2048x2048xf32>"), b = T(ctx, "tensor<2048x2048xf32, tiled_layout<<1,0>>>");
  enum { N = 2048 * 2048 };
  float *src = malloc(N * sizeof(float)), *ref = malloc(N * sizeof(float) + 4);
  unsigned char *raw = aligned_alloc(64, N * sizeof(float) + 64);
  for (int i = 0; i < N; i++)
    src[i] = (float)i;
  CHECK(lyRepackInterpret(ctx, a, b, src, ref) == LY_OK);
  for (int threads = 1; threads <= 2; threads++) {
    LyRepackKernel k = lyRepackKernelGet(r, a, b, threads);
    char *plan = lyRepackKernelDescribe(k);
    CHECK(plan && strstr(plan, "non-temporal") && strstr(plan, "xsuper=") && strstr(plan, "ym="));
    lyStringFree(plan);
    for (int shift = 0; shift <= 4; shift += 4) { /* 64-byte aligned, then not */
      memset(raw, 0xa5, N * sizeof(float) + 64);
      CHECK(lyRepackRun(k, src, raw + shift) == LY_OK);
      CHECK(memcmp(raw + shift, ref, N * sizeof(float)) == 0);
    }
  }
  /* An offset of one element shifts every store off its alignment: no non-temporal stores. */
  LyType c = T(ctx, "tensor<2048x2048xf32, strided<[1,2048], offset: 1>>");
  LyRepackKernel k = lyRepackKernelGet(r, a, c, 1);
  CHECK(lyRepackInterpret(ctx, a, c, src, ref) == LY_OK);
  memset(raw, 0xa5, N * sizeof(float) + 64);
  CHECK(lyRepackRun(k, src, raw) == LY_OK && memcmp(raw, ref, N * sizeof(float) + 4) == 0);
  free(src);
  free(ref);
  free(raw);
}

static void expect_refusal(LyContext ctx, LyRepacker r, const char *s, const char *t, const char *msg) {
  int before = ndiags;
  last_diag[0] = 0;
  LyRepackKernel k = lyRepackKernelGet(r, T(ctx, s), T(ctx, t), 1);
  CHECK(lyRepackKernelIsNull(k));
  CHECK(ndiags == before + 1 && strstr(last_diag, msg));
  char in[4096] = {0}, out[4096];
  CHECK(lyRepackInterpret(ctx, T(ctx, s), T(ctx, t), in, out) != LY_OK);
  CHECK(lyEmitLLVMRepack(ctx, T(ctx, s), T(ctx, t), 0) == NULL);
}

static void test_refusals(LyContext ctx, LyRepacker r) {
  expect_refusal(ctx, r, "tensor<4x6xf32>", "tensor<6x4xf32>", "the dims differ");
  expect_refusal(ctx, r, "tensor<4x6xf32>", "tensor<4x6x1xf32>", "the dims differ");
  expect_refusal(ctx, r, "tensor<4x6xf32>", "tensor<4x6xf32, strided<[0,1]>>", "several elements in one place");
  expect_refusal(ctx, r, "tensor<4x6xf32, any>", "tensor<4x6xf32>", "'any'");
  expect_refusal(ctx, r, "tensor<4x6xf32>", "tensor<4x?xf32>", "dynamic");
  expect_refusal(ctx, r, "tensor<4x6xf32, strided<[?,1]>>", "tensor<4x6xf32>", "dynamic");
  LyType a = T(ctx, "tensor<4xf32>");
  CHECK(lyRepackKernelIsNull(lyRepackKernelGet(r, a, a, 0)));
  CHECK(strstr(last_diag, "thread count"));
  CHECK(lyRepackRun((LyRepackKernel){NULL}, NULL, NULL) == LY_ERROR_INVALID);
  /* A broadcasting source is fine: it only reads one place twice. */
  LyRepackKernel k = lyRepackKernelGet(r, T(ctx, "tensor<2x3xf32, strided<[0,1]>>"), T(ctx, "tensor<2x3xf32>"), 1);
  float s[3] = {1, 2, 3}, d[6];
  CHECK(lyRepackRun(k, s, d) == LY_OK && d[0] == 1 && d[3] == 1 && d[5] == 3);
}

/* Packed sub-byte elements, low bits first (SPEC 2.4), decoded independently here. */
static unsigned nibble(const unsigned char *b, int k, int bits) {
  return (b[k * bits / 8] >> (k * bits % 8)) & ((1u << bits) - 1);
}

static void test_subbyte(LyContext ctx, LyRepacker r) {
  unsigned char src[64], out[64];
  for (int i = 0; i < 64; i++)
    src[i] = (unsigned char)(i * 37 + 11);
  /* i4 row-major 7x5 -> i8 column-major: sign-extended nibbles, transposed. */
  LyRepackKernel k = lyRepackKernelGet(r, T(ctx, "tensor<7x5xi4>"), T(ctx, "tensor<7x5xi8, tiled_layout<<1,0>>>"), 1);
  CHECK(!lyRepackKernelIsNull(k) && lyRepackKernelIsCompiled(k));
  CHECK(lyRepackRun(k, src, out) == LY_OK);
  int ok = 1;
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 5; j++) {
      int v = (int)nibble(src, i * 5 + j, 4);
      ok = ok && (signed char)out[j * 7 + i] == (v >= 8 ? v - 16 : v);
    }
  CHECK(ok);
  /* i8 -> i2 column-major: wrap to the low two bits; padding bits of the last byte zero. */
  k = lyRepackKernelGet(r, T(ctx, "tensor<3x5xi8>"), T(ctx, "tensor<3x5xi2, tiled_layout<<1,0>>>"), 2);
  memset(out, 0xff, sizeof out);
  CHECK(lyRepackRun(k, src, out) == LY_OK);
  ok = 1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++)
      ok = ok && nibble(out, j * 3 + i, 2) == (src[i * 5 + j] & 3u);
  CHECK(ok && (out[3] >> 6) == 0); /* 15 elements: the 16th slot of byte 3 is zero */
  /* i1 -> i8 zero-extends (booleans); i4 -> i1 keeps the low bit. */
  k = lyRepackKernelGet(r, T(ctx, "tensor<16xi1>"), T(ctx, "tensor<16xi8>"), 1);
  lyRepackRun(k, src, out);
  ok = 1;
  for (int i = 0; i < 16; i++)
    ok = ok && out[i] == nibble(src, i, 1);
  CHECK(ok);
  k = lyRepackKernelGet(r, T(ctx, "tensor<16xi4>"), T(ctx, "tensor<16xi1, tiled_layout<<0>,(4)>>"), 1);
  lyRepackRun(k, src, out);
  ok = 1;
  for (int i = 0; i < 16; i++)
    ok = ok && nibble(out, i, 1) == (nibble(src, i, 4) & 1);
  CHECK(ok);
}

static void test_text(LyContext ctx) {
  char *ir = lyEmitLLVMOffset(ctx, T(ctx, "tensor<16x256xbf16, tiled_layout<<0,1>,(8,128),(2,1)>>"), 0);
  CHECK(ir && strstr(ir, "define i64 @ly_offset(ptr") && strstr(ir, "@ly_offset_batch") && !strstr(ir, "@main"));
  lyStringFree(ir);
  ir = lyEmitLLVMOffset(ctx, T(ctx, "tensor<3x5xf32>"), LY_EMIT_WITH_MAIN | LY_EMIT_OPTIMIZE);
  CHECK(ir && strstr(ir, "@main") && strstr(ir, "target triple"));
  lyStringFree(ir);
  CHECK(lyEmitLLVMOffset(ctx, T(ctx, "tensor<?x5xf32>"), 0) == NULL && strstr(last_diag, "dynamic"));
  ir = lyEmitLLVMRepack(ctx, T(ctx, "tensor<64x64xf32>"), T(ctx, "tensor<64x64xf32, tiled_layout<<1,0>>>"), 0);
  CHECK(ir && strstr(ir, "define void @ly_repack(ptr noalias %src, ptr noalias %dst, i64 %thread, i64 %nthreads)"));
  CHECK(ir && strstr(ir, "shufflevector"));
  lyStringFree(ir);
  ir = lyEmitLLVMRepack(ctx, T(ctx, "tensor<8xi4>"), T(ctx, "tensor<8xi8>"), 0); /* packed: compiled too, */
  CHECK(ir && strstr(ir, "define void @ly_repack(") && strstr(ir, "lshr"));    /* the bytes unpacked */
  lyStringFree(ir);
}

/* Out of memory at each allocation of a kernel build (a fresh pair each time, so the cache does
 * not answer): a null kernel with a diagnostic, or a working kernel; never a crash or a leak. */
void ly_alloc_fail_after(long n);
long ly_alloc_count(void);

static void test_oom(LyContext ctx, LyRepacker r) {
  int outcomes[2] = {0, 0};
  long before_allocs = ly_alloc_count();
  lyRepackKernelGet(r, T(ctx, "tensor<2x20x3x3xf32>"), T(ctx, "tensor<2x20x3x3xbf16, \"nChw16c\">"), 1);
  long used = ly_alloc_count() - before_allocs; /* allocations one build makes */
  for (long n = 1; n <= used + 1; n++) {
    char s[64], t[64];
    snprintf(s, sizeof s, "tensor<2x%ldx3x3xf32>", 20 + n);
    snprintf(t, sizeof t, "tensor<2x%ldx3x3xbf16, \"nChw16c\">", 20 + n);
    LyType a = T(ctx, s), b = T(ctx, t);
    int before = ndiags;
    ly_alloc_fail_after(n);
    LyRepackKernel k = lyRepackKernelGet(r, a, b, 1);
    ly_alloc_fail_after(0);
    if (lyRepackKernelIsNull(k)) {
      CHECK(ndiags > before);
      k = lyRepackKernelGet(r, a, b, 1); /* nothing half-built was cached */
    }
    float in[2 * 60 * 9] = {0};
    unsigned short out[2 * 64 * 9];
    CHECK(!lyRepackKernelIsNull(k) && lyRepackRun(k, in, out) == LY_OK);
    outcomes[ndiags == before]++;
  }
  CHECK(outcomes[0] > 0 && outcomes[1] > 0); /* failures were injected and later builds succeed */
}

int main(void) {
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, record, NULL);
  LyRepacker r = lyRepackerCreate(ctx);
  CHECK(!lyRepackerIsNull(r));
  test_cache(ctx, r);
  test_threads(ctx, r);
  test_large(ctx, r);
  test_refusals(ctx, r);
  test_subbyte(ctx, r);
  test_text(ctx);
  test_oom(ctx, r);
  lyRepackerDestroy(r);
  lyContextDestroy(ctx);
  printf("codegen_api: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
