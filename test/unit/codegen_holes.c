/* Destination holes: every bit of a destination allocation that no element occupies must be zero
 * after a repack, on every path and whatever the buffer held before. For each pair SRC DST on the
 * command line, the destination buffer is filled with 0xA5 and the pair runs through the
 * interpreter, the JIT kernel on one thread with a 64-byte aligned destination (the non-temporal
 * variant when the plan has one), with a misaligned destination 1 byte off a line on one thread
 * (the plain variant), 16 bytes off (malloc's) on three, 32 on one and 48 on two (the variants
 * for destinations past a line where a transpose gains aligned lines, else the plain one), and
 * with an aligned one on three threads. The bytes just before and after the destination must keep their fill (guarded_dst.h).
 * The truth is independent of the kernels: the occupied bits come from lyTypeGetOffset over every
 * index; occupied bits must equal the interpreter's output into a
 * zeroed buffer, all the others must be zero.
 * Usage: codegen_holes SRC DST [SRC DST ...]; prints one line per pair and
 * `codegen_holes: N pairs, K failures`; exit status 0 only if K == 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_dst.h"
#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"

static int failures;

static void fail(const char *s, const char *t, const char *what) {
  printf("FAIL %s -> %s: %s\n", s, t, what);
  failures++;
}

static LyType parse(LyContext ctx, const char *text) { return lyTypeParse(ctx, text, strlen(text), NULL); }

/* Marks the bits each element of t occupies; false if an index has no offset. */
static int occupied_bits(LyType t, uint8_t *occ) {
  int rank = lyTypeGetRank(t), w = lyElemGetBits(lyTypeGetElement(t));
  int64_t idx[16] = {0}, numel, off;
  lyTypeGetNumel(t, &numel);
  for (int64_t e = 0; e < numel; e++) {
    if (lyTypeGetOffset(t, idx, &off) != LY_OK)
      return 0;
    for (int b = 0; b < w; b++)
      occ[(off * w + b) / 8] |= (uint8_t)(1u << ((off * w + b) % 8));
    for (int d = rank - 1; d >= 0 && ++idx[d] == lyTypeGetDim(t, d); d--)
      idx[d] = 0;
  }
  return 1;
}

/* out must equal ref on occupied bits and be zero elsewhere. */
static int matches(const uint8_t *out, const uint8_t *ref, const uint8_t *occ, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if ((out[i] & occ[i]) != (ref[i] & occ[i]) || (out[i] & ~occ[i]))
      return 0;
  return 1;
}

typedef struct {
  const char *name;
  int threads, misalign, interpret;
} Path;

static const Path paths[] = {{"interpreter", 1, 0, 1},
                             {"jit, aligned dst", 1, 0, 0},
                             {"jit, misaligned dst", 1, 1, 0},
                             {"jit, 3 threads", 3, 0, 0},
                             {"jit, dst 16 bytes off, 3 threads", 3, 16, 0},
                             {"jit, dst 32 bytes off", 1, 32, 0},
                             {"jit, dst 48 bytes off, 2 threads", 2, 48, 0}};

#define FILL 0xA5

static void check_pair(const char *stext, const char *ttext) {
  LyContext ctx = lyContextCreate();
  LyType s = parse(ctx, stext), t = parse(ctx, ttext);
  int64_t sbytes, dbytes;
  if (lyTypeIsNull(s) || lyTypeIsNull(t) || lyTypeGetSizeBytes(s, &sbytes) || lyTypeGetSizeBytes(t, &dbytes)) {
    fail(stext, ttext, "does not parse");
    lyContextDestroy(ctx);
    return;
  }
  uint8_t *in = malloc((size_t)sbytes + 1), *ref = calloc((size_t)dbytes + 1, 1), *occ = calloc((size_t)dbytes + 1, 1);
  GuardedDst buf;
  if (!guarded_dst_alloc(&buf, dbytes)) {
    fprintf(stderr, "codegen_holes: out of memory\n");
    exit(1);
  }
  for (int64_t i = 0; i < sbytes; i++)
    in[i] = test_source_byte(i);
  LyRepacker r = lyRepackerCreate(ctx);
  char *plan = NULL;
  if (!occupied_bits(t, occ) || lyRepackInterpret(ctx, s, t, in, ref) != LY_OK)
    fail(stext, ttext, "the interpreter refuses the pair");
  else
    for (size_t p = 0; p < sizeof paths / sizeof *paths; p++) {
      uint8_t *out = guarded_dst_fill(&buf, paths[p].misalign, FILL);
      LyRepackKernel k = paths[p].interpret ? (LyRepackKernel){NULL} : lyRepackKernelGet(r, s, t, paths[p].threads);
      LyStatus st = paths[p].interpret ? lyRepackInterpret(ctx, s, t, in, out)
                    : lyRepackKernelIsNull(k) ? LY_ERROR_INVALID : lyRepackRun(k, in, out);
      if (!plan && !lyRepackKernelIsNull(k))
        plan = lyRepackKernelDescribe(k);
      if (st != LY_OK || !matches(out, ref, occ, dbytes))
        fail(stext, ttext, paths[p].name);
      else if (!guarded_dst_intact(&buf, FILL))
        fail(stext, ttext, "a write outside the destination");
    }
  printf("%s -> %s: %s%s\n", stext, ttext, plan && strstr(plan, "memset dst") ? "memset dst" : "no memset",
         plan && strstr(plan, "non-temporal") ? ", non-temporal variant" : "");
  lyStringFree(plan);
  lyRepackerDestroy(r);
  free(in), free(ref), free(occ), guarded_dst_free(&buf);
  lyContextDestroy(ctx);
}

int main(int argc, char **argv) {
  if (argc < 3 || argc % 2 == 0) {
    fprintf(stderr, "usage: codegen_holes SRC DST [SRC DST ...]\n");
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2)
    check_pair(argv[i], argv[i + 1]);
  printf("codegen_holes: %d pairs, %d failures\n", (argc - 1) / 2, failures);
  return failures != 0;
}
