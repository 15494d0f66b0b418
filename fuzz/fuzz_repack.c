/* fuzz_repack: JIT-compiled repack kernels against the reference
 * interpreter. The input bytes pick small dims, an element type (or an
 * integer conversion) and two valid layouts of those dims; the kernel's
 * output must equal the interpreter's byte for byte, destination padding
 * included. */
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

static const char *const pairs[][2] = {{"f32", "f32"}, {"f16", "f16"}, {"bf16", "bf16"}, {"i8", "i8"},
                                       {"f64", "f64"}, {"i32", "i32"}, {"i8", "i32"}, {"i32", "i8"}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  LyContext ctx = fz_context();
  int rank = 1 + pick(&b, 4);
  int64_t dims[LY_MAX_RANK];
  for (int d = 0; d < rank; d++)
    dims[d] = 1 + pick(&b, 7);
  int pr = pick(&b, sizeof pairs / sizeof *pairs);
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
  uint8_t *in = malloc((size_t)in_bytes + 1), *ref = malloc((size_t)out_bytes + 1),
          *got = malloc((size_t)out_bytes + 1);
  for (int64_t i = 0; i < in_bytes; i++)
    in[i] = (uint8_t)(i * 131 + 7 + pick(&b, 256));
  memset(ref, 0xA5, (size_t)out_bytes + 1);
  memset(got, 0x5A, (size_t)out_bytes + 1);
  LyStatus si = lyRepackInterpret(ctx, src, dst, in, ref);
  LyRepacker r = lyRepackerCreate(ctx);
  LyRepackKernel k = lyRepackKernelGet(r, src, dst, 1 + pick(&b, 2));
  LyStatus sj = lyRepackKernelIsNull(k) ? LY_ERROR_INVALID : lyRepackRun(k, in, got);
  if (si != sj)
    fz_fail("%s -> %s: interpreter status %d, kernel status %d", ts.s, td.s, si, sj);
  if (si == LY_OK && memcmp(ref, got, (size_t)out_bytes))
    fz_fail("%s -> %s: the kernel's bytes differ from the interpreter's", ts.s, td.s);
  lyRepackerDestroy(r);
  free(in);
  free(ref);
  free(got);
  lyContextDestroy(ctx);
  return 0;
}
