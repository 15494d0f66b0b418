/* Random layout pairs on small shapes: each JIT repack kernel (on 1 to 4 threads) must produce
 * exactly the bytes of the reference interpreter, destination padding included, and the
 * interpreter itself must put every element where lyTypeGetOffset says and zero everywhere else.
 * Each case's destination starts 0, 16, 1 or 48 bytes past a line in turn (the non-temporal and
 * the plain variants), and the 64 bytes either side of it must keep their fill.
 * Layouts are random type strings through lyTypeParse: tiled_layout (with '*', which makes general
 * digits), format tags with blocks, strided with gaps, offsets, negative and zero strides; and
 * families of their own: whole-line runs, transposes into rows padded to lines, transposes whose
 * rows follow each other (acb, cba: rotated into destinations past a line), blocks of fewer
 * channels than the block.
 * Usage: codegen_random [CASES [SEED]] (a tenth of CASES when LAYOUTC_TEST_QUICK is set, as in the
 * sanitizer run), then a quarter as many sub-byte cases from a stream of their own: i1/i2/i4/f4
 * matrices (and i4/i8/i2 conversions) transposed or in (r,c),(8,1) tiles, which take whole-byte
 * register tiles of both widths and their line groups. Prints plan coverage (in a full run each
 * inner form must occur, else that is a failure), then
 * `codegen_random: N cases, K failures`; exit status 0 only if K == 0. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_dst.h"
#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return rng_state;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

typedef struct {
  const char *from, *to;
} Pair;

/* Element pairs: copies, and conversions of every kind. */
static const Pair pairs[] = {
    {"f32", "f32"},  {"f16", "f16"},   {"i8", "i8"},    {"f64", "f64"},   {"i16", "i16"},  {"f32", "bf16"},
    {"bf16", "f32"}, {"f32", "f16"},   {"f16", "f32"},  {"f16", "bf16"},  {"bf16", "f16"}, {"f32", "f64"},
    {"f64", "f32"},  {"i8", "i32"},    {"i32", "i8"},   {"i16", "i64"},   {"i64", "i16"},  {"bf16", "f64"},
    {"f8E4M3FN", "f8E4M3FN"}, {"i32", "i32"},
    /* integer <-> float, f8, f64 to 16 bits, sub-byte */
    {"i8", "f32"},   {"f32", "i8"},    {"i32", "f32"},  {"f32", "i32"},   {"i8", "bf16"},  {"bf16", "i8"},
    {"i32", "bf16"}, {"i64", "bf16"},  {"f16", "i8"},   {"i16", "f16"},   {"f64", "i32"},  {"f32", "i64"},
    {"f8E4M3FN", "f32"}, {"f32", "f8E4M3FN"}, {"f8E5M2", "bf16"}, {"f16", "f8E5M2"}, {"f64", "f8E4M3FN"},
    {"f64", "f16"},  {"f64", "bf16"},  {"i4", "i4"},    {"i4", "i8"},     {"i8", "i4"},    {"i1", "f32"},
    {"f32", "i2"},   {"i2", "i2"},     {"i1", "i1"},    {"f8E5M2", "f8E4M3FN"},
    /* MLIR's signedness, index, tf32, the FNUZ/E8M0/f6/f4 formats (f6 straddles bytes), complex */
    {"ui8", "f32"},  {"f32", "ui8"},   {"si16", "ui32"}, {"index", "f64"}, {"ui64", "bf16"}, {"tf32", "bf16"},
    {"f32", "tf32"}, {"f6E2M3FN", "f6E2M3FN"}, {"f6E3M2FN", "f32"}, {"f32", "f6E2M3FN"}, {"f4E2M1FN", "bf16"},
    {"f16", "f4E2M1FN"}, {"f6E2M3FN", "i4"}, {"f8E8M0FNU", "f32"}, {"f32", "f8E4M3FNUZ"},
    {"f8E5M2FNUZ", "f16"}, {"complex<f32>", "complex<f32>"}, {"complex<f64>", "complex<f16>"},
    {"complex<f16>", "complex<f64>"},
};

static int elem_bytes(const char *e) {
  LyElem x;
  if (!lyElemFromName(e, strlen(e), &x)) {
    fprintf(stderr, "unknown element %s\n", e);
    exit(1);
  }
  int bits = lyElemGetBits(x);
  return bits % 8 ? 0 : bits / 8; /* packed: the offset check below is for whole bytes */
}

static void shuffle(int *p, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = pick(i + 1), t = p[i];
    p[i] = p[j], p[j] = t;
  }
}

static void shuffle_chars(char *p, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = pick(i + 1);
    char t = p[i];
    p[i] = p[j], p[j] = t;
  }
}

static int cat(char *buf, size_t cap, const char *fmt, long long v) {
  size_t n = strlen(buf);
  return snprintf(buf + n, cap - n, fmt, v);
}

static void tiled(char *b, size_t cap, int rank) {
  int perm[8];
  for (int i = 0; i < rank; i++)
    perm[i] = i;
  shuffle(perm, rank);
  strcat(b, "tiled_layout<<");
  for (int i = 0; i < rank; i++)
    cat(b, cap, i ? ",%lld" : "%lld", perm[i]);
  strcat(b, ">");
  static const int sizes[] = {1, 2, 3, 4, 8, 16};
  int cur = rank, ntiles = pick(3);
  for (int t = 0; t < ntiles; t++) {
    int k = 1 + pick(cur < 3 ? cur : 3), stars = 0;
    strcat(b, ",(");
    for (int e = 0; e < k; e++) {
      if (e + 1 < k && pick(4) == 0) {
        strcat(b, e ? ",*" : "*");
        stars++;
      } else {
        cat(b, cap, e ? ",%lld" : "%lld", sizes[pick(6)]);
      }
    }
    strcat(b, ")");
    cur += k - 2 * stars;
  }
  strcat(b, ">");
}

static void tag(char *b, size_t cap, int rank) {
  int order[8], blocked[8] = {0}, nb = pick(3), bdim[2], bsize[2];
  static const int sizes[] = {2, 3, 4, 8, 16};
  for (int i = 0; i < rank; i++)
    order[i] = i;
  shuffle(order, rank);
  for (int j = 0; j < nb; j++) {
    bdim[j] = pick(rank);
    bsize[j] = sizes[pick(5)];
    blocked[bdim[j]] = 1;
  }
  strcat(b, "\"");
  for (int i = 0; i < rank; i++) {
    char c[2] = {(char)((blocked[order[i]] ? 'A' : 'a') + order[i]), 0};
    strcat(b, c);
  }
  for (int j = 0; j < nb; j++) {
    cat(b, cap, "%lld", bsize[j]);
    char c[2] = {(char)('a' + bdim[j]), 0};
    strcat(b, c);
  }
  strcat(b, "\"");
}

/* Dense strides over a random dim order, with gaps; a negative stride comes with the offset
 * that keeps offsets non-negative; a source may broadcast (stride 0). */
static void strided(char *b, size_t cap, int rank, const int *dims, int is_src) {
  int order[8];
  long long stride[8], s = 1, offset = pick(3) ? 0 : pick(5);
  for (int i = 0; i < rank; i++)
    order[i] = i;
  shuffle(order, rank);
  for (int i = rank - 1; i >= 0; i--) {
    int d = order[i];
    stride[d] = s;
    s *= dims[d] + (pick(3) == 0 ? pick(3) : 0);
  }
  for (int d = 0; d < rank; d++) {
    if (is_src && pick(8) == 0)
      stride[d] = 0;
    else if (pick(6) == 0) {
      offset += stride[d] * (dims[d] - 1);
      stride[d] = -stride[d];
    }
  }
  strcat(b, "strided<[");
  for (int d = 0; d < rank; d++)
    cat(b, cap, d ? ",%lld" : "%lld", stride[d]);
  strcat(b, "]");
  if (offset)
    cat(b, cap, ", offset: %lld", offset);
  strcat(b, ">");
}

/* Invalid random tilings are expected: their diagnostics are not shown. */
static int quiet;
static void handler(const LyDiagnostic *d, void *user) {
  if (!quiet)
    lyDiagnosticPrintToFile(d, user);
}

static LyType random_type(LyContext ctx, int rank, const int *dims, const char *elem, int is_src) {
  for (;;) {
    char b[512] = "tensor<";
    for (int d = 0; d < rank; d++)
      cat(b, sizeof b, "%lldx", dims[d]);
    strcat(b, elem);
    int kind = pick(4);
    if (kind) {
      strcat(b, ", ");
      if (kind == 1)
        tiled(b, sizeof b, rank);
      else if (kind == 2)
        tag(b, sizeof b, rank);
      else
        strided(b, sizeof b, rank, dims, is_src);
    }
    strcat(b, ">");
    quiet = 1;
    LyType t = lyTypeParse(ctx, b, strlen(b), NULL); /* some random tilings are invalid: retry */
    quiet = 0;
    int64_t bytes;
    if (!lyTypeIsNull(t) && lyTypeGetSizeBytes(t, &bytes) == LY_OK && bytes < (1 << 20))
      return t;
  }
}

/* An NCHW f32 type (C a multiple of 16) whose innermost 16 elements are channels: "nChw16c"
 * or channels last, with the outer dims in a random order. */
static LyType line_run_type(LyContext ctx, const int *dims) {
  char b[128], order[4] = {'a', 'c', 'd', 'b'};
  int blocked = pick(2), n = blocked ? 4 : 3;
  if (blocked)
    order[3] = 'B';
  shuffle_chars(order, n);
  snprintf(b, sizeof b, "tensor<%dx%dx%dx%dxf32, \"%.4s%s\">", dims[0], dims[1], dims[2], dims[3], order,
           blocked ? "16b" : "");
  return lyTypeParse(ctx, b, strlen(b), NULL);
}

enum { NKINDS = 13 };
static long coverage[NKINDS];
static const char *kinds[NKINDS] = {"zip", "contig", "scalar",    "elementwise", "zero ",  "memset", "xpad",
                                    "ym",  "xg",     "bytes",     "src-order",   "past a line", "rotate"};

static void count_plan(LyRepackKernel k) {
  char *d = lyRepackKernelDescribe(k);
  for (int i = 0; d && i < NKINDS; i++)
    if (strstr(d, kinds[i]))
      coverage[i]++;
  lyStringFree(d);
}

/* Checks the interpreter against the offsets themselves (same element type). */
static int check_semantics(LyType s, LyType t, const unsigned char *src, const unsigned char *out, int eb) {
  int rank = lyTypeGetRank(s);
  int64_t numel, alloc, idx[8] = {0}, so, dof;
  lyTypeGetNumel(s, &numel);
  lyTypeGetAllocElements(t, &alloc);
  unsigned char *hit = calloc((size_t)alloc + 1, 1);
  int bad = 0;
  for (int64_t e = 0; e < numel && !bad; e++) {
    lyTypeGetOffset(s, idx, &so);
    lyTypeGetOffset(t, idx, &dof);
    bad = memcmp(out + dof * eb, src + so * eb, (size_t)eb) != 0;
    hit[dof] = 1;
    for (int d = rank - 1; d >= 0; d--) {
      if (++idx[d] < lyTypeGetDim(s, d))
        break;
      idx[d] = 0;
    }
  }
  for (int64_t p = 0; p < alloc && !bad; p++)
    for (int i = 0; i < eb && !hit[p]; i++)
      bad = out[p * eb + i] != 0;
  free(hit);
  return bad;
}

/* The sub-byte cases draw from their own stream, so adding them left the other cases as they were. */
static uint64_t sub_state;

static int run_case(LyContext ctx, LyRepacker rep, int c, bool sub_case) {
  uint64_t main_state = rng_state;
  if (sub_case)
    rng_state = sub_state;
  int rank = 1 + pick(4), dims[8];
  static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 20, 24, 32, 33};
  static const int pow2[] = {2, 4, 8, 16, 32, 64}; /* shapes the register transposes take */
  int tile_friendly = pick(3) == 0;
  long long numel;
  do {
    numel = 1;
    for (int d = 0; d < rank; d++)
      numel *= dims[d] = tile_friendly ? pow2[pick(6)] : sizes[pick(16)];
  } while (numel > 4096);
  if (pick(12) == 0) { /* a matrix with more than 64 rows over 256 bytes apart: runs of Y blocks (ym) */
    rank = 2, dims[0] = 80 + 16 * pick(4), dims[1] = 80 + 16 * pick(4) + (pick(2) ? 0 : 1 + pick(15));
    numel = (long long)dims[0] * dims[1];
  }
  const Pair *p = &pairs[pick(sizeof pairs / sizeof pairs[0])];
  LyType s, t;
  if (sub_case) { /* sub-byte matrices transposed or in (8,1)-style tiles: whole-byte register tiles,
                   * 64 wide when the vector allows (Y extents of 64 and 128) or not (96), in groups */
    static const char *sub[] = {"i1", "i2", "i4", "f4E2M1FN", "i4"};
    static const int rows[] = {8, 16, 64, 128, 192}, cols[] = {32, 64, 96, 128, 192};
    static const Pair mixed[] = {{"i4", "i8"}, {"i8", "i4"}, {"i2", "i4"}, {"i4", "i2"}, {"i8", "i2"}, {"i1", "i4"}};
    static Pair same;
    same.from = same.to = sub[pick(5)];
    p = pick(3) ? &same : &mixed[pick(6)];
    rank = 2, dims[0] = rows[pick(5)], dims[1] = cols[pick(5)];
    char a[160], b[160];
    snprintf(a, sizeof a, "tensor<%dx%dx%s>", dims[0], dims[1], p->from);
    int tr = 8 << pick(4), tc = 32 << pick(3);
    if (pick(2) || dims[0] % tr || dims[1] % tc)
      snprintf(b, sizeof b, "tensor<%dx%dx%s, tiled_layout<<1,0>>>", dims[0], dims[1], p->to);
    else
      snprintf(b, sizeof b, "tensor<%dx%dx%s, tiled_layout<<0,1>,(%d,%d),(8,1)>>", dims[0], dims[1], p->to, tr, tc);
    s = lyTypeParse(ctx, a, strlen(a), NULL), t = lyTypeParse(ctx, b, strlen(b), NULL);
    if (pick(2)) {
      LyType x = s;
      s = t, t = x;
    }
  } else if (pick(8) == 0) { /* whole-line runs: channels-last and blocked orders of an f32 NCHW tensor */
    static const Pair f32 = {"f32", "f32"};
    rank = 4, dims[0] = 1 + pick(3), dims[1] = 16 * (1 + pick(3)), dims[2] = 2 + pick(8), dims[3] = 2 + pick(8);
    p = &f32;
    s = line_run_type(ctx, dims), t = line_run_type(ctx, dims);
  } else if (pick(8) == 0) { /* transposes into rows a whole number of lines apart, with gaps or not:
                              * the variants for destinations past a line cut their rows there */
    while (!elem_bytes(p->from) || !elem_bytes(p->to))
      p = &pairs[pick(sizeof pairs / sizeof pairs[0])];
    int line = 64 / elem_bytes(p->to);
    rank = 3, dims[0] = 1 + pick(3), dims[1] = 2 + pick(70), dims[2] = 2 + pick(40);
    int pitch = (dims[1] + line - 1) / line * line + line * pick(2);
    char a[160], b[200];
    snprintf(a, sizeof a, "tensor<%dx%dx%dx%s>", dims[0], dims[1], dims[2], p->from);
    snprintf(b, sizeof b, "tensor<%dx%dx%dx%s, strided<[%d, 1, %d]>>", dims[0], dims[1], dims[2], p->to,
             pitch * dims[2], pitch);
    s = lyTypeParse(ctx, a, strlen(a), NULL), t = lyTypeParse(ctx, b, strlen(b), NULL);
  } else if (pick(10) == 0) { /* transposes whose destination rows (X, whole lines) follow each other
                               * along Y (acb) or the loop outside it (cba): into a destination past a
                               * line their rows rotate (plan.c's rotate_rows); or blocks of fewer
                               * channels than the block (xpad: the tile writes the padding) */
    while (!elem_bytes(p->from) || !elem_bytes(p->to))
      p = &pairs[pick(sizeof pairs / sizeof pairs[0])];
    int line = 64 / elem_bytes(p->to), kind = pick(3);
    char a[160], b[160];
    if (kind == 2) {
      rank = 4, dims[0] = 1 + pick(3), dims[1] = 1 + pick(pick(2) ? 3 : 15);
      dims[2] = 2 + pick(9), dims[3] = 2 + pick(9);
      snprintf(a, sizeof a, "tensor<%dx%dx%dx%dx%s>", dims[0], dims[1], dims[2], dims[3], p->from);
      snprintf(b, sizeof b, "tensor<%dx%dx%dx%dx%s, \"nChw%dc\">", dims[0], dims[1], dims[2], dims[3], p->to,
               4 << pick(3));
    } else {
      rank = 3, dims[0] = 1 + pick(kind ? 8 : 3), dims[1] = 3 + pick(30), dims[2] = 5 + pick(40);
      dims[kind ? 0 : 1] = line * (1 + pick(3));
      snprintf(a, sizeof a, "tensor<%dx%dx%dx%s>", dims[0], dims[1], dims[2], p->from);
      snprintf(b, sizeof b, "tensor<%dx%dx%dx%s, \"%s\">", dims[0], dims[1], dims[2], p->to, kind ? "cba" : "acb");
    }
    s = lyTypeParse(ctx, a, strlen(a), NULL), t = lyTypeParse(ctx, b, strlen(b), NULL);
  } else {
    s = random_type(ctx, rank, dims, p->from, 1), t = random_type(ctx, rank, dims, p->to, 0);
  }
  int threads = 1 + pick(4), sb = elem_bytes(p->from), db = elem_bytes(p->to);
  int64_t sbytes, dbytes;
  lyTypeGetSizeBytes(s, &sbytes);
  lyTypeGetSizeBytes(t, &dbytes);
  /* The destination at an offset the case picks from a line: aligned (the non-temporal variant
   * where there is one), malloc's 16 bytes, 32 and 48 bytes (the variants for those, planned by
   * lyc_plan_shifted, where a transpose gains aligned lines, else the plain variant, planned by
   * lyc_plan with plain), 1 byte (the plain variant); the guards either side must keep their fill
   * (guarded_dst.h). */
  static const int offsets[] = {0, 16, 1, 48, 32};
  int off = offsets[c % 5];
  unsigned char *src = malloc((size_t)sbytes + 1), *ref = malloc((size_t)dbytes + 1);
  GuardedDst obuf;
  if (!guarded_dst_alloc(&obuf, dbytes)) {
    fprintf(stderr, "codegen_random: out of memory\n");
    exit(1);
  }
  for (int64_t i = 0; i < sbytes; i++)
    src[i] = (unsigned char)rnd();
  unsigned char *out = guarded_dst_fill(&obuf, off, 0xa5); /* garbage: padding must be written */
  LyRepackKernel k = lyRepackKernelGet(rep, s, t, threads);
  const char *why = NULL;
  if (lyRepackKernelIsNull(k))
    why = "no kernel";
  else if (!lyRepackKernelIsCompiled(k))
    why = "not compiled";
  else if (lyRepackInterpret(ctx, s, t, src, ref) != LY_OK)
    why = "interpreter refused";
  else if (lyRepackRun(k, src, out), memcmp(out, ref, (size_t)dbytes))
    why = "JIT differs from the interpreter";
  else if (!guarded_dst_intact(&obuf, 0xa5))
    why = "JIT wrote outside the destination";
  else if (sb == db && sb && !strcmp(p->from, p->to) && check_semantics(s, t, src, ref, sb))
    why = "interpreter differs from the offsets";
  if (!lyRepackKernelIsNull(k))
    count_plan(k);
  if (why) {
    char *a = lyTypeToString(s), *b = lyTypeToString(t), *plan = lyRepackKernelDescribe(k);
    fprintf(stderr, "FAIL case %d (threads %d, destination %d bytes off a line): %s\n  %s\n  %s\n%s", c, threads,
            off, why, a, b, plan ? plan : "");
    lyStringFree(a);
    lyStringFree(b);
    lyStringFree(plan);
  }
  free(src);
  free(ref);
  guarded_dst_free(&obuf);
  if (sub_case)
    sub_state = rng_state, rng_state = main_state;
  return why != NULL;
}

int main(int argc, char **argv) {
  int cases = argc > 1 ? atoi(argv[1]) : 300;
  if (getenv("LAYOUTC_TEST_QUICK")) /* the sanitizer run: a tenth of the cases, same checks */
    cases = cases / 10 > 40 ? cases / 10 : 40;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 20240611;
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, handler, stderr);
  LyRepacker rep = lyRepackerCreate(ctx);
  if (lyRepackerIsNull(rep))
    return 1;
  sub_state = rng_state ^ 0x9e3779b97f4a7c15ULL;
  int failures = 0, subs = cases / 4;
  for (int c = 0; c < cases; c++)
    failures += run_case(ctx, rep, c, false);
  for (int c = 0; c < subs; c++) /* then a quarter as many sub-byte cases */
    failures += run_case(ctx, rep, cases + c, true);
  printf("coverage:");
  for (int i = 0; i < NKINDS; i++)
    printf(" %s %ld", kinds[i], coverage[i]);
  /* A full run must exercise every inner form; a quick run is too short to promise it. Copies
   * in source order are planned only for repacks past the non-temporal threshold: a run with
   * LAYOUTC_NT_THRESHOLD=0 must have some; the variants for destinations past a line also need
   * rows cut from any length on (LAYOUTC_CUT_ROW_BYTES=0), and rotated rows the rows that are not
   * cut (the default length) and 64-byte vectors planned (a vector a line: LAYOUTC_VECTOR_BYTES=64). */
  const char *nt = getenv("LAYOUTC_NT_THRESHOLD"), *cut = getenv("LAYOUTC_CUT_ROW_BYTES");
  const char *vb = getenv("LAYOUTC_VECTOR_BYTES");
  bool all_nt = nt && !strcmp(nt, "0"), all_cut = all_nt && cut && !strcmp(cut, "0");
  bool rotates = all_nt && !cut && vb && !strcmp(vb, "64");
  for (int i = 0; i < NKINDS && !getenv("LAYOUTC_TEST_QUICK"); i++)
    if (!coverage[i] && (strcmp(kinds[i], "src-order") || all_nt) && (strcmp(kinds[i], "past a line") || all_cut) &&
        (strcmp(kinds[i], "rotate") || rotates)) {
      fprintf(stderr, "FAIL: no kernel used '%s'\n", kinds[i]);
      failures++;
    }
  printf("\ncodegen_random: %d cases, %d failures\n", cases + subs, failures);
  lyRepackerDestroy(rep);
  lyContextDestroy(ctx);
  return failures != 0;
}
