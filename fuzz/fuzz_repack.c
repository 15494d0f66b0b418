/* fuzz_repack: JIT-compiled repack kernels against the reference
 * interpreter, every destination bit compared. The input bytes pick small
 * dims, an element pair (any two elements the type system has: same type,
 * integer and float conversions, f8, sub-byte) and two valid layouts of those
 * dims, then a garbage byte pattern. Each destination buffer starts full of
 * that garbage; the interpreter's output must put every element where
 * lyTypeGetOffset says and leave every other bit zero, and the kernel (1 to 3
 * threads, a 64-byte aligned and a misaligned destination, which select the
 * non-temporal and the plain variant) must write exactly the interpreter's
 * bytes. A last input byte may plan every repack past the non-temporal
 * threshold (and cut rows of any length): the kernel then also runs on
 * destinations 16 and 48 bytes past a line, the variants for those.
 * FUZZ_VERBOSE=1 prints the pair. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_gen.h"
#include "layoutc/codegen.h"

/* A layout of the given dims, spelled out and parsed. */
static LyType layout_for(LyContext ctx, Bytes *b, int rank, const int64_t *dims, const char *elem, Text *t) {
  t->n = 0;
  put(t, "tensor<");
  for (int d = 0; d < rank; d++)
    put(t, "%lldx", (long long)dims[d]);
  put(t, "%s", elem);
  size_t mark = t->n;
  put(t, ", ");
  switch (pick(b, 5)) {
  case 0: t->n = mark; break;
  case 1: gen_strided(b, rank, dims, t); break;
  case 2: gen_tag(b, rank, t); break;
  case 3: gen_tiled(b, rank, t); break;
  default: gen_general(b, rank, t); break;
  }
  put(t, ">");
  t->s[t->n] = 0;
  return lyTypeParse(ctx, t->s, t->n, "<generated>");
}

/* The first eight are the pairs of the original target (same type, i8/i32),
 * so its corpus keeps its meaning; then conversions and the rest. */
static const char *const pairs[][2] = {
    {"f32", "f32"},   {"f16", "f16"},     {"bf16", "bf16"},   {"i8", "i8"},         {"f64", "f64"},
    {"i32", "i32"},   {"i8", "i32"},      {"i32", "i8"},      {"f32", "bf16"},      {"bf16", "f32"},
    {"f32", "f16"},   {"f16", "f32"},     {"i8", "f32"},      {"f32", "i8"},        {"i16", "f32"},
    {"f32", "i16"},   {"i32", "f32"},     {"f32", "i32"},     {"i8", "bf16"},       {"bf16", "i8"},
    {"i8", "f16"},    {"f16", "i8"},      {"f8E4M3FN", "f32"}, {"f32", "f8E4M3FN"}, {"f8E5M2", "f16"},
    {"bf16", "f8E5M2"}, {"i4", "i4"},     {"i2", "i2"},       {"i1", "i1"},         {"i4", "i8"},
    {"i8", "i4"},     {"i4", "f32"},      {"f32", "i4"},      {"i1", "f32"},        {"i2", "bf16"},
    {"f64", "bf16"},  {"i16", "f64"},     {"f8E4M3FN", "f8E4M3FN"},
    /* 38 above; then MLIR's signedness and index, tf32, FNUZ/E8M0/f6/f4 (f6 straddles bytes), complex */
    {"ui8", "f32"},   {"f32", "ui8"},     {"si16", "ui32"},   {"index", "f64"},     {"tf32", "bf16"},
    {"f32", "tf32"},  {"f6E2M3FN", "f6E2M3FN"}, {"f6E3M2FN", "f32"}, {"f32", "f6E2M3FN"}, {"f4E2M1FN", "f16"},
    {"f8E8M0FNU", "f32"}, {"f32", "f8E4M3FNUZ"}, {"f8E5M2FNUZ", "f8E4M3B11FNUZ"}, {"complex<f32>", "complex<f32>"},
    {"complex<f64>", "complex<f16>"},
};

/* Marks the bits each element of t occupies (small types: every index). */
static void occupied_bits(LyType t, uint8_t *occ) {
  int rank = lyTypeGetRank(t), w = lyElemGetBits(lyTypeGetElement(t));
  int64_t idx[LY_MAX_RANK] = {0}, numel, off;
  lyTypeGetNumel(t, &numel);
  for (int64_t e = 0; e < numel; e++) {
    if (lyTypeGetOffset(t, idx, &off) != LY_OK)
      fz_fail("no offset for an index of a repacked type");
    for (int b = 0; b < w; b++)
      occ[(off * w + b) / 8] |= (uint8_t)(1u << ((off * w + b) % 8));
    for (int d = rank - 1; d >= 0 && ++idx[d] == lyTypeGetDim(t, d); d--)
      idx[d] = 0;
  }
}

static void check_holes(const uint8_t *out, const uint8_t *occ, int64_t n, const char *what, const Text *s,
                        const Text *t) {
  for (int64_t i = 0; i < n; i++)
    if (out[i] & ~occ[i])
      fz_fail("%s -> %s: %s leaves byte %lld of the destination at 0x%02x (hole bits must be zero)", s->s, t->s,
              what, (long long)i, out[i]);
}

typedef struct {
  const uint8_t *in;
  uint8_t *buf; /* 64-byte aligned, out_bytes + 64 */
  int64_t out_bytes;
  uint8_t garbage[64];
} Buffers;

/* Refills buf with garbage and returns the destination at `misalign`. */
static uint8_t *garbage_dst(Buffers *x, int misalign) {
  for (int64_t i = 0; i < x->out_bytes + 64; i++)
    x->buf[i] = x->garbage[i % 64];
  return x->buf + misalign;
}

/* Runs the kernel on `threads` threads into a garbage-filled destination
 * at each alignment; every byte must equal ref. */
static void check_kernel(LyContext ctx, LyType src, LyType dst, int threads, Buffers *x, const uint8_t *ref,
                         const Text *ts, const Text *td, int mode) {
  if (mode) /* read by the repacker's target when it is created */
    setenv("LAYOUTC_NT_THRESHOLD", "0", 1);
  if (mode == 2)
    setenv("LAYOUTC_CUT_ROW_BYTES", "0", 1);
  LyRepacker r = lyRepackerCreate(ctx);
  unsetenv("LAYOUTC_NT_THRESHOLD"), unsetenv("LAYOUTC_CUT_ROW_BYTES");
  static const int offsets[] = {0, 1, 16, 48};
  LyRepackKernel k = lyRepackerIsNull(r) ? (LyRepackKernel){NULL} : lyRepackKernelGet(r, src, dst, threads);
  if (lyRepackKernelIsNull(k))
    fz_fail("%s -> %s: the interpreter accepts the pair, the JIT does not", ts->s, td->s);
  for (int m = 0; m < (mode ? 4 : 2); m++) {
    int misalign = offsets[m];
    uint8_t *got = garbage_dst(x, misalign);
    if (lyRepackRun(k, x->in, got) != LY_OK)
      fz_fail("%s -> %s: the kernel fails", ts->s, td->s);
    for (int64_t i = 0; i < x->out_bytes; i++)
      if (got[i] != ref[i])
        fz_fail("%s -> %s (%s, %d threads, dst %d bytes off%s): byte %lld is 0x%02x, the interpreter's 0x%02x", ts->s,
                td->s, lyRepackKernelIsCompiled(k) ? "compiled" : "interpreted", threads, misalign,
                mode ? ", all non-temporal" : "", (long long)i, got[i], ref[i]);
    for (int64_t i = 0; i < x->out_bytes + 64; i++) /* and nothing outside it */
      if ((i < misalign || i >= misalign + x->out_bytes) && x->buf[i] != x->garbage[i % 64])
        fz_fail("%s -> %s (%d threads, dst %d bytes off): byte %lld outside the destination written", ts->s, td->s,
                threads, misalign, (long long)(i - misalign));
  }
  lyRepackerDestroy(r);
}

/* Every input compiles its kernels: a persistent-cache hit would skip the
 * optimiser and code generator, and fuzzing would fill the user's cache. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("LAYOUTC_CACHE_DIR", "off", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  LyContext ctx = fz_context();
  int rank = 1 + pick(&b, 4);
  int64_t dims[LY_MAX_RANK];
  for (int d = 0; d < rank; d++)
    dims[d] = 1 + pick(&b, 7);
  int pr = pick_grown(&b, 38, sizeof pairs / sizeof *pairs); /* 38 before the MLIR and MX types */
  Text ts = {.n = 0}, td = {.n = 0};
  fz_errors = 0;
  LyType src = layout_for(ctx, &b, rank, dims, pairs[pr][0], &ts);
  LyType dst = layout_for(ctx, &b, rank, dims, pairs[pr][1], &td);
  int64_t in_bytes, out_bytes;
  if (lyTypeIsNull(src) || lyTypeIsNull(dst) || lyTypeGetSizeBytes(src, &in_bytes) != LY_OK ||
      lyTypeGetSizeBytes(dst, &out_bytes) != LY_OK) {
    lyContextDestroy(ctx);
    return 0;
  }
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "%s -> %s\n", ts.s, td.s);
  int threads = 1 + pick(&b, 3);
  Buffers x = {.out_bytes = out_bytes};
  for (int i = 0; i < 64; i++)
    x.garbage[i] = (uint8_t)(0xA5 ^ pick(&b, 256));
  uint8_t *in = malloc((size_t)in_bytes + 1), *ref = malloc((size_t)out_bytes + 1),
          *occ = calloc((size_t)out_bytes + 1, 1);
  x.in = in;
  x.buf = aligned_alloc(64, ((size_t)out_bytes + 128) & ~(size_t)63);
  for (int64_t i = 0; i < in_bytes; i++)
    in[i] = (uint8_t)(i * 131 + 7 + pick(&b, 256));
  int mode = pick(&b, 3); /* 0 (and inputs that end before): the default thresholds */
  memcpy(ref, garbage_dst(&x, 0), (size_t)out_bytes);
  if (lyRepackInterpret(ctx, src, dst, in, ref) == LY_OK) {
    occupied_bits(dst, occ);
    check_holes(ref, occ, out_bytes, "the interpreter", &ts, &td);
    check_kernel(ctx, src, dst, threads, &x, ref, &ts, &td, mode);
  }
  free(in);
  free(ref);
  free(occ);
  free(x.buf);
  lyContextDestroy(ctx);
  return 0;
}
