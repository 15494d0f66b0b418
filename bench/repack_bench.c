/* repack_bench: layoutc's JIT repack kernels against memcpy and oneDNN's reorder (SPEC 5).
 * oneDNN is linked here only, as a yardstick. For each case one run measures, on the same
 * buffers, the best of several round-robin rounds (each contender four runs in a row) of memcpy
 * and a streaming copy (each moving as many bytes as the repack; the faster is the limit),
 * oneDNN's reorder and layoutc's kernel, prints GB/s as (source bytes + destination bytes) /
 * best time and the ratios, and
 * checks that layoutc and oneDNN wrote the same bytes. The rows marked (dst+16) write to a
 * destination 16 bytes past a line, as malloc returns large buffers, in both libraries (layoutc
 * runs its plain variant, compiled on the first such run: not in the row's compile time, which
 * is its aligned twin's kernel's, left out of the median). Then the median JIT compile time per
 * kernel and the cost of a cached kernel lookup.
 *
 * Usage: repack_bench [--threads N] [--min-time SECONDS] [--only SUBSTRING] [--extra]
 * Without --threads the whole table is printed for 1 and then 2 threads (each a run of this
 * program with --threads, so oneDNN's OpenMP runtime starts with that many); with --threads N,
 * for N threads in both libraries (OMP_NUM_THREADS is set before oneDNN starts). */
#include <dnnl.h>
#include <dnnl_debug.h>

#include <dirent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"
#include "stream_copy.h"

typedef struct {
  const char *name;
  const char *src, *dst;   /* layoutc types */
  int ndims;
  dnnl_dims_t dims;        /* oneDNN's view of the same movement */
  dnnl_data_type_t sdt, ddt;
  dnnl_format_tag_t stag, dtag; /* dnnl_format_tag_undef: use the strides below */
  dnnl_dims_t sstrides, dstrides;
  int dst_off; /* bytes the destination starts past a page (both libraries): 16 is malloc's */
} Case;

/* XLA's f16 (128)(2,1) tiling as a strided oneDNN view: j = 256a + 128b + w, dst (i, a, w, b).
 * bf16 (8,128)(2,1) on 4096x4096: i = 8I + 2p + b, j = 128J + w, dst (I, J, p, w, b). */
static const Case cases[] = {
    {"nchw->nChw16c f32 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf32, \"nChw16c\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    {"nChw16c->nchw f32 32x64x56x56", "tensor<32x64x56x56xf32, \"nChw16c\">", "tensor<32x64x56x56xf32>", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_aBcd16b, dnnl_abcd, {0}, {0}, 0},
    {"nchw->nhwc f32 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf32, \"nhwc\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acdb, {0}, {0}, 0},
    {"transpose f32 8192x8192", "tensor<8192x8192xf32>", "tensor<8192x8192xf32, tiled_layout<<1,0>>>", 2,
     {8192, 8192}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 0},
    {"f16 1024x10240 -> (128)(2,1)", "tensor<1024x10240xf16>",
     "tensor<1024x10240xf16, tiled_layout<<0,1>,(128),(2,1)>>", 4, {1024, 40, 2, 128}, dnnl_f16, dnnl_f16,
     dnnl_format_tag_undef, dnnl_format_tag_undef, {10240, 256, 128, 1}, {10240, 256, 1, 2}, 0},
    {"bf16 4096x4096 -> (8,128)(2,1)", "tensor<4096x4096xbf16>",
     "tensor<4096x4096xbf16, tiled_layout<<0,1>,(8,128),(2,1)>>", 5, {512, 4, 2, 32, 128}, dnnl_bf16, dnnl_bf16,
     dnnl_format_tag_undef, dnnl_format_tag_undef, {32768, 8192, 4096, 128, 1}, {32768, 256, 1, 1024, 2}, 0},
    {"OIhw->OIhw16i16o f32 512x512x3x3", "tensor<512x512x3x3xf32>", "tensor<512x512x3x3xf32, \"OIhw16i16o\">", 4,
     {512, 512, 3, 3}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_ABcd16b16a, {0}, {0}, 0},
    {"nchw f32 -> nChw16c bf16 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xbf16, \"nChw16c\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_bf16, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    /* The rest of the performance bars' rows: transposes, conversions, weights. */
    {"nhwc->nchw f32 32x64x56x56", "tensor<32x64x56x56xf32, \"nhwc\">", "tensor<32x64x56x56xf32>", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_acdb, dnnl_abcd, {0}, {0}, 0},
    {"nhwc->nChw16c f32 32x64x56x56", "tensor<32x64x56x56xf32, \"nhwc\">", "tensor<32x64x56x56xf32, \"nChw16c\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_acdb, dnnl_aBcd16b, {0}, {0}, 0},
    {"abc->cba f32 64x512x512", "tensor<64x512x512xf32>", "tensor<64x512x512xf32, \"cba\">", 3, {64, 512, 512},
     dnnl_f32, dnnl_f32, dnnl_abc, dnnl_cba, {0}, {0}, 0},
    /* N-D permutations that keep the innermost dim: runs of 2 KB (the outer dims swapped) and of
     * 256 bytes (attention's heads and tokens, bshd -> bhsd). */
    {"abc->bac f32 64x512x512", "tensor<64x512x512xf32>", "tensor<64x512x512xf32, tiled_layout<<1,0,2>>>", 3,
     {64, 512, 512}, dnnl_f32, dnnl_f32, dnnl_abc, dnnl_bac, {0}, {0}, 0},
    {"abcd->acbd f32 8x512x16x64", "tensor<8x512x16x64xf32>", "tensor<8x512x16x64xf32, tiled_layout<<0,2,1,3>>>", 4,
     {8, 512, 16, 64}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acbd, {0}, {0}, 0},
    {"s8 nhwc -> f32 nchw 32x64x56x56", "tensor<32x64x56x56xi8, \"nhwc\">", "tensor<32x64x56x56xf32>", 4,
     {32, 64, 56, 56}, dnnl_s8, dnnl_f32, dnnl_acdb, dnnl_abcd, {0}, {0}, 0},
    {"f32 nchw -> s8 nhwc 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xi8, \"nhwc\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_s8, dnnl_abcd, dnnl_acdb, {0}, {0}, 0},
    {"f32 -> s8 nchw 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xi8>", 4, {32, 64, 56, 56}, dnnl_f32,
     dnnl_s8, dnnl_abcd, dnnl_abcd, {0}, {0}, 0},
    {"OIhw->OIhw16i16o f32 256x256x3x3", "tensor<256x256x3x3xf32>", "tensor<256x256x3x3xf32, \"OIhw16i16o\">", 4,
     {256, 256, 3, 3}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_ABcd16b16a, {0}, {0}, 0},
    {"f32 -> f16 nchw 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf16>", 4, {32, 64, 56, 56},
     dnnl_f32, dnnl_f16, dnnl_abcd, dnnl_abcd, {0}, {0}, 0},
    {"f32 nchw -> f16 nChw16c 32x64x56x56", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf16, \"nChw16c\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f16, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    {"nChw16c->nhwc f32 32x64x56x56", "tensor<32x64x56x56xf32, \"nChw16c\">", "tensor<32x64x56x56xf32, \"nhwc\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_aBcd16b, dnnl_acdb, {0}, {0}, 0},
    /* int8 weights transposed: byte tiles. */
    {"transpose s8 4096x4096", "tensor<4096x4096xi8>", "tensor<4096x4096xi8, tiled_layout<<1,0>>>", 2, {4096, 4096},
     dnnl_s8, dnnl_s8, dnnl_ab, dnnl_ba, {0}, {0}, 0},
    {"transpose f32 6000x5000 (odd sizes)", "tensor<6000x5000xf32>", "tensor<6000x5000xf32, tiled_layout<<1,0>>>", 2,
     {6000, 5000}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 0},
    /* Destination rows 24016 bytes apart, not a whole number of lines: through the panel. */
    {"transpose f32 6004x5000 (off lines)", "tensor<6004x5000xf32>", "tensor<6004x5000xf32, tiled_layout<<1,0>>>",
     2, {6004, 5000}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 0},
    /* In the cache, rows a power of two apart: each tile's rows share their cache sets. */
    {"transpose f32 1024x1024 (in cache)", "tensor<1024x1024xf32>", "tensor<1024x1024xf32, tiled_layout<<1,0>>>", 2,
     {1024, 1024}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 0},
    /* Small tensors (12 KB of f32): the cost of a call, threads not worth waking. */
    {"small nchw->nChw16c f32 1x16x12x16", "tensor<1x16x12x16xf32>", "tensor<1x16x12x16xf32, \"nChw16c\">", 4,
     {1, 16, 12, 16}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    {"small nchw->nhwc f32 1x32x8x12", "tensor<1x32x8x12xf32>", "tensor<1x32x8x12xf32, \"nhwc\">", 4,
     {1, 32, 8, 12}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acdb, {0}, {0}, 0},
    {"small OIhw->OIhw16i16o f32 32x32x3x1", "tensor<32x32x3x1xf32>", "tensor<32x32x3x1xf32, \"OIhw16i16o\">", 4,
     {32, 32, 3, 1}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_ABcd16b16a, {0}, {0}, 0},
    /* No oneDNN counterpart (ndims 0): checked against the interpreter instead. */
    {"i4 9216x6144 -> (64,128)(8,1)", "tensor<9216x6144xi4>", "tensor<9216x6144xi4, tiled_layout<<0,1>,(64,128),(8,1)>>",
     0, {0}, dnnl_data_type_undef, dnnl_data_type_undef, dnnl_format_tag_undef, dnnl_format_tag_undef, {0}, {0}, 0},
    {"i4 transpose 4096x4096", "tensor<4096x4096xi4>", "tensor<4096x4096xi4, tiled_layout<<1,0>>>", 0, {0},
     dnnl_data_type_undef, dnnl_data_type_undef, dnnl_format_tag_undef, dnnl_format_tag_undef, {0}, {0}, 0},
    /* Int4 weights dequantized: packed pairs of nibbles unpacked, converted and stored. */
    {"i4 -> bf16 4096x4096 (dequantize)", "tensor<4096x4096xi4>", "tensor<4096x4096xbf16>", 0, {0},
     dnnl_data_type_undef, dnnl_data_type_undef, dnnl_format_tag_undef, dnnl_format_tag_undef, {0}, {0}, 0},
    /* Extents 32 does not divide: the last tiles of each side are partial (whole bytes still). */
    {"i4 transpose 4000x3000 (partial tiles)", "tensor<4000x3000xi4>", "tensor<4000x3000xi4, tiled_layout<<1,0>>>", 0,
     {0}, dnnl_data_type_undef, dnnl_data_type_undef, dnnl_format_tag_undef, dnnl_format_tag_undef, {0}, {0}, 0},
    {"i1 8192x8192 -> (32,128)(8,1)", "tensor<8192x8192xi1>", "tensor<8192x8192xi1, tiled_layout<<0,1>,(32,128),(8,1)>>",
     0, {0}, dnnl_data_type_undef, dnnl_data_type_undef, dnnl_format_tag_undef, dnnl_format_tag_undef, {0}, {0}, 0},
    /* Destinations 16 bytes off a line, as malloc returns large buffers: layoutc runs its plain
     * variant (lyc_plan_misaligned), oneDNN writes to the same place. */
    {"nchw->nChw16c f32 32x64x56x56 (dst+16)", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf32, \"nChw16c\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 16},
    {"nchw->nhwc f32 32x64x56x56 (dst+16)", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xf32, \"nhwc\">", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acdb, {0}, {0}, 16},
    {"nhwc->nChw16c f32 32x64x56x56 (dst+16)", "tensor<32x64x56x56xf32, \"nhwc\">", "tensor<32x64x56x56xf32, \"nChw16c\">",
     4, {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_acdb, dnnl_aBcd16b, {0}, {0}, 16},
    {"nChw16c->nhwc f32 32x64x56x56 (dst+16)", "tensor<32x64x56x56xf32, \"nChw16c\">", "tensor<32x64x56x56xf32, \"nhwc\">",
     4, {32, 64, 56, 56}, dnnl_f32, dnnl_f32, dnnl_aBcd16b, dnnl_acdb, {0}, {0}, 16},
    {"OIhw->OIhw16i16o 512x512x3x3 (dst+16)", "tensor<512x512x3x3xf32>", "tensor<512x512x3x3xf32, \"OIhw16i16o\">",
     4, {512, 512, 3, 3}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_ABcd16b16a, {0}, {0}, 16},
    {"f32 -> s8 nchw 32x64x56x56 (dst+16)", "tensor<32x64x56x56xf32>", "tensor<32x64x56x56xi8>", 4,
     {32, 64, 56, 56}, dnnl_f32, dnnl_s8, dnnl_abcd, dnnl_abcd, {0}, {0}, 16},
    {"transpose f32 6000x5000 (dst+16)", "tensor<6000x5000xf32>", "tensor<6000x5000xf32, tiled_layout<<1,0>>>", 2,
     {6000, 5000}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 16},
    {"transpose f32 8192x8192 (dst+16)", "tensor<8192x8192xf32>", "tensor<8192x8192xf32, tiled_layout<<1,0>>>", 2,
     {8192, 8192}, dnnl_f32, dnnl_f32, dnnl_ab, dnnl_ba, {0}, {0}, 16},
    {"abc->cba f32 64x512x512 (dst+16)", "tensor<64x512x512xf32>", "tensor<64x512x512xf32, \"cba\">", 3,
     {64, 512, 512}, dnnl_f32, dnnl_f32, dnnl_abc, dnnl_cba, {0}, {0}, 16},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* Shapes off the beaten path (--extra): small images, three channels, channels that are not a
 * multiple of the vector length. */
static const Case extra_cases[] = {
    {"nchw->nChw16c f32 32x256x7x7", "tensor<32x256x7x7xf32>", "tensor<32x256x7x7xf32, \"nChw16c\">", 4,
     {32, 256, 7, 7}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    {"nChw16c->nchw f32 32x256x7x7", "tensor<32x256x7x7xf32, \"nChw16c\">", "tensor<32x256x7x7xf32>", 4,
     {32, 256, 7, 7}, dnnl_f32, dnnl_f32, dnnl_aBcd16b, dnnl_abcd, {0}, {0}, 0},
    {"nchw->nhwc f32 64x3x224x224", "tensor<64x3x224x224xf32>", "tensor<64x3x224x224xf32, \"nhwc\">", 4,
     {64, 3, 224, 224}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acdb, {0}, {0}, 0},
    {"nhwc->nchw f32 64x3x224x224", "tensor<64x3x224x224xf32, \"nhwc\">", "tensor<64x3x224x224xf32>", 4,
     {64, 3, 224, 224}, dnnl_f32, dnnl_f32, dnnl_acdb, dnnl_abcd, {0}, {0}, 0},
    {"nchw->nChw16c f32 64x3x224x224", "tensor<64x3x224x224xf32>", "tensor<64x3x224x224xf32, \"nChw16c\">", 4,
     {64, 3, 224, 224}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_aBcd16b, {0}, {0}, 0},
    {"nchw->nhwc f32 32x20x56x56", "tensor<32x20x56x56xf32>", "tensor<32x20x56x56xf32, \"nhwc\">", 4,
     {32, 20, 56, 56}, dnnl_f32, dnnl_f32, dnnl_abcd, dnnl_acdb, {0}, {0}, 0},
    {"nhwc->nchw f32 32x20x56x56", "tensor<32x20x56x56xf32, \"nhwc\">", "tensor<32x20x56x56xf32>", 4,
     {32, 20, 56, 56}, dnnl_f32, dnnl_f32, dnnl_acdb, dnnl_abcd, {0}, {0}, 0},
};
enum { NEXTRA = sizeof extra_cases / sizeof extra_cases[0] };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: what a compile costs even when other processes share the cores. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  double wall, cpu;
} Compile;

static void die(const char *what) {
  fprintf(stderr, "repack_bench: %s\n", what);
  exit(1);
}

static void check_dnnl(dnnl_status_t st, const char *what) {
  if (st != dnnl_success) {
    fprintf(stderr, "repack_bench: %s failed: %s\n", what, dnnl_status2str(st));
    exit(1);
  }
}

/* Random bytes with each float kept finite and normal (no slow paths in anyone's code);
 * elem_bytes 0: integers, left as they are. */
static void fill(unsigned char *p, size_t n, int elem_bytes) {
  uint64_t x = 0x2545f4914f6cdd1dULL;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (unsigned char)x;
  }
  for (size_t i = elem_bytes - 1; elem_bytes && i < n; i += elem_bytes) /* top byte: sign, exponent 0x40..0x7f */
    p[i] = (unsigned char)((p[i] & 0x80) | 0x3c | (p[i] & 0x03));
}

typedef struct {
  double min_time;
  int threads;
} Options;

/* Runs stmt once and keeps the best time in *best. */
#define TIME(best, stmt) TIMEN(best, 1, stmt)

/* The time of one of n runs in a row (n > 1 for tensors so small that a
 * clock read would be a good part of one run). */
#define TIMEN(best, n, stmt)                       \
  do {                                             \
    double t0_ = now();                            \
    for (int n_ = 0; n_ < (n); n_++)               \
      stmt;                                        \
    double dt_ = (now() - t0_) / (n);              \
    *(best) = dt_ < *(best) ? dt_ : *(best);       \
  } while (0)

typedef struct {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_t prim;
  dnnl_memory_t src, dst;
} Dnnl;

static void dnnl_md(const Case *c, int is_dst, dnnl_memory_desc_t *md) {
  dnnl_format_tag_t tag = is_dst ? c->dtag : c->stag;
  dnnl_data_type_t dt = is_dst ? c->ddt : c->sdt;
  if (tag != dnnl_format_tag_undef)
    check_dnnl(dnnl_memory_desc_init_by_tag(md, c->ndims, c->dims, dt, tag), "memory desc");
  else
    check_dnnl(dnnl_memory_desc_init_by_strides(md, c->ndims, c->dims, dt, is_dst ? c->dstrides : c->sstrides),
               "memory desc");
}

static void dnnl_setup(Dnnl *d, const Case *c, void *src, void *dst, size_t sbytes, size_t dbytes) {
  dnnl_memory_desc_t smd, dmd;
  dnnl_md(c, 0, &smd);
  dnnl_md(c, 1, &dmd);
  if (dnnl_memory_desc_get_size(&smd) != sbytes || dnnl_memory_desc_get_size(&dmd) != dbytes)
    die("oneDNN and layoutc disagree on a buffer size");
  check_dnnl(dnnl_engine_create(&d->engine, dnnl_cpu, 0), "engine");
  check_dnnl(dnnl_stream_create(&d->stream, d->engine, dnnl_stream_default_flags), "stream");
  check_dnnl(dnnl_memory_create(&d->src, &smd, d->engine, src), "src memory");
  check_dnnl(dnnl_memory_create(&d->dst, &dmd, d->engine, dst), "dst memory");
  dnnl_primitive_desc_t pd;
  check_dnnl(dnnl_reorder_primitive_desc_create(&pd, &smd, d->engine, &dmd, d->engine, NULL), "reorder desc");
  check_dnnl(dnnl_primitive_create(&d->prim, pd), "reorder");
  dnnl_primitive_desc_destroy(pd);
}

static void dnnl_run(Dnnl *d) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, d->src}, {DNNL_ARG_TO, d->dst}};
  check_dnnl(dnnl_primitive_execute(d->prim, d->stream, 2, args), "execute");
  check_dnnl(dnnl_stream_wait(d->stream), "wait");
}

static void dnnl_free(Dnnl *d) {
  dnnl_primitive_destroy(d->prim);
  dnnl_memory_destroy(d->src);
  dnnl_memory_destroy(d->dst);
  dnnl_stream_destroy(d->stream);
  dnnl_engine_destroy(d->engine);
}

static LyType parse(LyContext ctx, const char *s) {
  LyType t = lyTypeParse(ctx, s, strlen(s), NULL);
  if (lyTypeIsNull(t))
    die("cannot parse a type");
  return t;
}

static void *buffer(size_t n) {
  void *p = aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
  if (!p)
    die("out of memory");
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The element size for fill(): the float's bytes, 0 for integers. */
static int float_bytes(LyType t) {
  LyElem e = lyTypeGetElement(t);
  return e == LY_ELEM_F32 ? 4 : e == LY_ELEM_F16 || e == LY_ELEM_BF16 ? 2 : e == LY_ELEM_F64 ? 8 : 0;
}

/* The reference bytes: oneDNN's reorder (then it is also timed), or the interpreter when oneDNN
 * has no such pair (ndims 0). */
static int reference(const Case *c, LyContext ctx, LyType s, LyType t, Dnnl *d, unsigned char *src,
                     unsigned char *ref, int64_t sbytes, int64_t dbytes) {
  if (c->ndims) {
    dnnl_setup(d, c, src, ref, (size_t)sbytes, (size_t)dbytes);
    return 1;
  }
  if (lyRepackInterpret(ctx, s, t, src, ref) != LY_OK)
    die("the interpreter refuses a case");
  return 0;
}

static Compile run_case(const Case *c, LyContext ctx, LyRepacker r, const Options *o) {
  LyType s = parse(ctx, c->src), t = parse(ctx, c->dst);
  int64_t sbytes, dbytes;
  lyTypeGetSizeBytes(s, &sbytes);
  lyTypeGetSizeBytes(t, &dbytes);
  /* The copies move as many bytes as the repack: half its source and destination bytes each way
   * (the source size when the two are equal). A copy of the source alone would move a quarter of
   * what s8 -> f32 writes, and stay in the cache where the repack streams to memory. */
  int64_t cbytes = (sbytes + dbytes) / 2;
  unsigned char *src = buffer(sbytes), *dbuf = buffer(dbytes + 64), *rbuf = buffer(dbytes + 64), *copy = buffer(cbytes);
  unsigned char *dst = dbuf + c->dst_off, *ref = rbuf + c->dst_off;
  unsigned char *pass = sbytes != dbytes ? buffer(dbytes) : NULL; /* nt_pass's destination */
  unsigned char *csrc = cbytes > sbytes ? buffer(cbytes) : src; /* what the copies read */
  fill(src, (size_t)sbytes, float_bytes(s));
  if (csrc != src)
    fill(csrc, (size_t)cbytes, 0);
  memset(dst, 0, (size_t)dbytes);
  memset(ref, 0, (size_t)dbytes);
  memset(copy, 0, (size_t)cbytes);
  if (pass)
    memset(pass, 0, (size_t)dbytes);
  double c0 = cpu_now();
  LyRepackKernel k = lyRepackKernelGet(r, s, t, o->threads); /* compiles: nothing cached yet */
  Compile cost = {0, cpu_now() - c0};
  if (lyRepackKernelIsNull(k))
    die("no kernel");
  cost.wall = lyRepackKernelGetCompileSeconds(k);
  Dnnl d = {0};
  int has_dnnl = reference(c, ctx, s, t, &d, src, ref, sbytes, dbytes);
  /* Round robin, best of each: a burst of load elsewhere hits all of them alike. */
  double tm = 1e30, tn = 1e30, td = 1e30, tl = 1e30, tp = 1e30, start = now();
  memcpy(copy, csrc, (size_t)cbytes), nt_copy(copy, csrc, (size_t)cbytes), lyRepackRun(k, src, dst); /* warm up */
  if (pass)
    nt_pass(pass, (size_t)dbytes, src, (size_t)sbytes);
  if (has_dnnl)
    dnnl_run(&d);
  /* Each contender runs RUNS times in a row, all timed, and the order rotates each round: the
   * first runs after another contender pay for what it left (dirty lines to write back, and
   * after oneDNN's half-second reference f16 reorder a source no longer in the cache: layoutc's
   * f32 -> f16 ran at 1.4 ms in a loop and 2.8-3 ms for the two runs after such a pause), so each
   * one's best comes from a run that followed itself, as in a loop of the same repack. */
  enum { RUNS = 4 };
  /* Below 256 KB moved, a timing covers enough runs in a row to move 1 MB: a clock read (tens
   * of ns on a VM) is otherwise a good part of a 12 KB repack, and its granularity shows. */
  int reps = sbytes + dbytes < (256 << 10) ? (int)((1 << 20) / (sbytes + dbytes)) : 1;
  for (int round = 0; round < 3 || now() - start < 3 * o->min_time; round++)
    for (int j = 0; j < 5; j++)
      for (int run = 0; run < RUNS; run++)
        switch ((round + j) % 5) {
        case 0: TIMEN(&tm, reps, memcpy(copy, csrc, (size_t)cbytes)); break;
        case 1: TIMEN(&tn, reps, nt_copy(copy, csrc, (size_t)cbytes)); break;
        case 2: if (has_dnnl) TIMEN(&td, reps, dnnl_run(&d)); break;
        case 3: if (pass) TIMEN(&tp, reps, nt_pass(pass, (size_t)dbytes, src, (size_t)sbytes)); break;
        default: TIMEN(&tl, reps, lyRepackRun(k, src, dst)); break;
        }
  double gm = 2.0 * cbytes / tm / 1e9, gl = (double)(sbytes + dbytes) / tl / 1e9;
  /* The limit is the faster copy: streaming stores on large tensors (about 1.3x memcpy), memcpy
   * on cache-resident ones (streaming stores send them to memory). */
  double gn = 2.0 * cbytes / (tn < tm ? tn : tm) / 1e9;
  double gd = has_dnnl ? (double)(sbytes + dbytes) / td / 1e9 : 0;
  int same = memcmp(dst, ref, (size_t)dbytes) == 0;
  char dn[16] = "-", vd[16] = "-", ld[16] = "-", pd[16] = "-";
  if (pass) /* the same reads and writes as the repack, streamed: its bound when the sides differ */
    snprintf(pd, sizeof pd, "%.2fx", gl / ((double)(sbytes + dbytes) / tp / 1e9));
  if (has_dnnl)
    snprintf(dn, sizeof dn, "%.2f", gd), snprintf(vd, sizeof vd, "%.2fx", gd / gn), snprintf(ld, sizeof ld, "%.2fx", gl / gd);
  printf("%-38s %7.2f %7.2f %7s %7.2f %8.2fx %8s %9s %8s %6.1f %6.1f  %-8s %s\n", c->name, gm, gn, dn, gl, gl / gn, vd, ld, pd,
         cost.wall * 1e3, cost.cpu * 1e3, lyRepackKernelIsCompiled(k) ? "compiled" : "INTERPRETED",
         same ? (has_dnnl ? "same as oneDNN" : "same as interpreter") : "DIFFERENT");
  fflush(stdout);
  if (has_dnnl)
    dnnl_free(&d);
  if (csrc != src)
    free(csrc);
  free(src), free(dbuf), free(rbuf), free(copy), free(pass);
  return cost;
}

/* --- Multi-buffer conversions (single-threaded): sparse and grouped -------- */

typedef struct {
  const char *name;
  int kind; /* 0 dense->CSR, 1 CSR->dense, 2 grouped->padded, 3 padded->grouped, 4 CSR->CSC, 5 CSR->COO */
  double density;
} MultiCase;

static const MultiCase multi_cases[] = {
    {"dense->CSR f32 4096x4096 1%", 0, 0.01},   {"dense->CSR f32 4096x4096 10%", 0, 0.10},
    {"CSR->dense f32 4096x4096 1%", 1, 0.01},   {"CSR->dense f32 4096x4096 10%", 1, 0.10},
    {"grouped->padded f32 8x(<=1280)x1024", 2, 0}, {"padded->grouped f32 8x(<=1280)x1024", 3, 0},
    {"CSR->CSC f32 4096x4096 1%", 4, 0.01},     {"CSR->CSC f32 4096x4096 10%", 4, 0.10},
    {"CSR->COO f32 4096x4096 1%", 5, 0.01},     {"CSR->COO f32 4096x4096 10%", 5, 0.10},
};

/* Dense 4096x4096 f32 with about `density` nonzeros. */
static void sparse_input(float *d, int64_t n, double density) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    d[i] = (double)(x >> 11) / 9007199254740992.0 < density ? 1.0f + (float)(i % 7) : 0.0f;
  }
}

/* The conversion timed round robin with the streaming copy of the larger side; GB/s as the
 * repack rows count them: (source bytes + destination bytes) / best time. */
static void run_multi(const MultiCase *c, LyContext ctx, const Options *o) {
  const char *csr = "tensor<4096x4096xf32, csr<nnz: ?, index: i32, pointer: i32>>";
  LyType dense = parse(ctx, "tensor<4096x4096xf32>"), sp = parse(ctx, csr);
  LyType g = parse(ctx, "tensor<8192x1024xf32, grouped<variable_dim: 0, groups: 8>>");
  LyType pad = parse(ctx, "tensor<8x1280x1024xf32>");
  LyType other = parse(ctx, c->kind == 4 ? "tensor<4096x4096xf32, #sparse_tensor.encoding<{ map = (i, j) -> "
                                           "(j : dense, i : compressed), posWidth = 32, crdWidth = 32 }>>"
                                         : "tensor<4096x4096xf32, coo<nnz: ?, index: i32>>"); /* SoA */
  LySparseConverter conv = lySparseConverterCreate(ctx);
  int64_t n = 4096 * 4096, sz[3], sbytes, dbytes;
  float *d = buffer((size_t)n * 4), *back = buffer((size_t)n * 4);
  void *bufs[3] = {NULL, NULL, NULL}, *obufs[4] = {NULL, NULL, NULL, NULL};
  int32_t offs[8] = {1000, 2280, 3000, 4280, 5000, 6000, 7000, 8192}; /* group sizes 720..1280 */
  unsigned char *pd = buffer((size_t)8 * 1280 * 1024 * 4), *gv = buffer((size_t)8192 * 1024 * 4);
  sparse_input(d, n, c->density);
  fill(gv, (size_t)8192 * 1024 * 4, 4), fill(pd, (size_t)8 * 1280 * 1024 * 4, 4);
  if (lySparseFromDense(conv, sp, d, sz, NULL) != LY_OK)
    die("sparse nnz pass");
  for (int b = 0; b < 3; b++)
    bufs[b] = buffer((size_t)sz[b] + 1);
  lySparseFromDense(conv, sp, d, sz, bufs);
  int64_t spbytes = sz[0] + sz[1] + sz[2], osz[4] = {0, 0, 0, 0}, obytes = 0;
  if (c->kind >= 4) { /* the sparse destination's buffers, sized by its nnz pass */
    if (lySparseConvert(conv, sp, (const void *const *)bufs, sz, other, osz, NULL) != LY_OK)
      die("sparse to sparse nnz pass");
    for (int b = 0; b < lyTypeGetNumBuffers(other); b++)
      obufs[b] = buffer((size_t)osz[b] + 1), obytes += osz[b];
  }
  sbytes = c->kind == 0 ? n * 4 : c->kind == 1 || c->kind >= 4 ? spbytes : c->kind == 2 ? 32 + 8192 * 1024 * 4 : 32 + 8 * 1280 * 1024 * 4;
  dbytes = c->kind == 0 ? spbytes : c->kind == 1 ? n * 4 : c->kind == 2 ? 8 * 1280 * 1024 * 4 : c->kind == 3 ? 8192 * 1024 * 4 : obytes;
  int64_t big = sbytes > dbytes ? sbytes : dbytes;
  unsigned char *from = buffer((size_t)big), *to = buffer((size_t)big);
  memset(from, 1, (size_t)big);
  double tn = 1e30, tl = 1e30, start = now();
  for (int round = 0; round < 5 || now() - start < 3 * o->min_time; round++) {
    TIME(&tn, nt_copy(to, from, (size_t)big));
    switch (c->kind) {
    case 0: TIME(&tl, (lySparseFromDense(conv, sp, d, sz, NULL), lySparseFromDense(conv, sp, d, sz, bufs))); break;
    case 1: TIME(&tl, lySparseToDense(conv, sp, (const void *const *)bufs, sz, back)); break;
    case 2: TIME(&tl, lyGroupedToPadded(ctx, g, pad, offs, gv, pd)); break;
    case 4:
    case 5:
      TIME(&tl, (lySparseConvert(conv, sp, (const void *const *)bufs, sz, other, osz, NULL),
                 lySparseConvert(conv, sp, (const void *const *)bufs, sz, other, osz, obufs)));
      break;
    default: TIME(&tl, lyGroupedFromPadded(ctx, g, pad, offs, pd, gv)); break;
    }
  }
  if (c->kind >= 4) /* and back to dense */
    lySparseToDense(conv, other, (const void *const *)obufs, osz, back);
  int ok = (c->kind != 1 && c->kind < 4) || !memcmp(back, d, (size_t)n * 4);
  double gn = 2.0 * big / tn / 1e9, gl = (double)(sbytes + dbytes) / tl / 1e9;
  printf("%-38s %7.2f %7.2f %8.2fx  %s\n", c->name, gn, gl, gl / gn, ok ? "" : "DIFFERENT");
  lySparseConverterDestroy(conv);
  (void)dense;
  for (int b = 0; b < 4; b++)
    free(b < 3 ? bufs[b] : NULL), free(obufs[b]);
  free(d), free(back), free(pd), free(gv), free(from), free(to);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The persistent cache as a fresh process sees it: a new repacker (an empty JIT and in-memory
 * cache) gets each kernel compiled above from the disk. */
static void disk_cache_lookups(LyContext ctx, const Options *o, const char *only, int extra) {
  LyRepacker r = lyRepackerCreate(ctx);
  double wall[NCASES + NEXTRA], cpu[NCASES + NEXTRA];
  int n = 0;
  for (int i = 0; i < NCASES + (extra ? NEXTRA : 0) && !lyRepackerIsNull(r); i++) {
    const Case *c = i < NCASES ? &cases[i] : &extra_cases[i - NCASES];
    if (only && !strstr(c->name, only))
      continue;
    LyType s = parse(ctx, c->src), t = parse(ctx, c->dst);
    double t0 = now(), c0 = cpu_now();
    if (lyRepackKernelIsNull(lyRepackKernelGet(r, s, t, o->threads)))
      die("no kernel from the disk cache");
    cpu[n] = cpu_now() - c0, wall[n++] = now() - t0;
  }
  if (n)
    printf("persistent-cache kernel load (new JIT): median %.3f ms wall, %.3f ms CPU (%d kernels)\n",
           median(wall, n) * 1e3, median(cpu, n) * 1e3, n);
  lyRepackerDestroy(r);
}

/* Removes the private cache directory and the kernel files in it. */
static void remove_cache(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[512];
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
      unlink(path);
  if (d)
    closedir(d);
  if (rmdir(dir))
    fprintf(stderr, "repack_bench: could not remove %s\n", dir);
}

/* No --threads: this program again with --threads 1, then --threads 2, so one run prints the
 * table for both. */
static int run_both(int argc, char **argv) {
  char *args[64], tn[2][4] = {"1", "2"};
  int status = 0;
  if (argc + 3 > 64)
    die("too many arguments");
  for (int t = 0; t < 2; t++) {
    int n = 0;
    args[n++] = argv[0], args[n++] = "--threads", args[n++] = tn[t];
    for (int i = 1; i < argc; i++)
      args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid;
    fflush(stdout);
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) || waitpid(pid, &status, 0) < 0)
      die("cannot run the benchmark for a thread count");
    if (!WIFEXITED(status) || WEXITSTATUS(status))
      return 1;
    printf("\n");
  }
  return 0;
}

int main(int argc, char **argv) {
  Options o = {0.3, 1};
  int threads_given = 0;
  const char *only = NULL;
  int extra = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      o.threads = atoi(argv[++i]), threads_given = 1;
    else if (!strcmp(argv[i], "--min-time") && i + 1 < argc)
      o.min_time = atof(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--extra"))
      extra = 1;
    else
      die("usage: repack_bench [--threads N] [--min-time SECONDS] [--only SUBSTRING] [--extra]");
  }
  if (o.threads < 1)
    die("--threads must be at least 1");
  if (!threads_given)
    return run_both(argc, argv);
  /* oneDNN's OpenMP runtime reads OMP_NUM_THREADS when it is loaded, before main: set it and
   * start again so both libraries get the same number of threads. */
  char nt[16];
  snprintf(nt, sizeof nt, "%d", o.threads);
  const char *cur = getenv("OMP_NUM_THREADS");
  if (!cur || strcmp(cur, nt)) {
    setenv("OMP_NUM_THREADS", nt, 1);
    execv("/proc/self/exe", argv);
    die("cannot restart with OMP_NUM_THREADS set");
  }
  /* A private persistent kernel cache: compile times are cold, the user's cache is untouched,
   * and the disk-cache lookup below has something to find. */
  char cache[] = "/tmp/repack_bench.XXXXXX";
  if (!mkdtemp(cache))
    die("cannot create a temporary kernel cache directory");
  setenv("LAYOUTC_CACHE_DIR", cache, 1);
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  LyRepacker r = lyRepackerCreate(ctx);
  if (lyRepackerIsNull(r))
    die("no JIT");
  printf("threads: %d (GB/s = (src bytes + dst bytes) / best time; memcpy and limit copy (src + dst) / 2 bytes)\n",
         o.threads);
  printf("limit = the faster of memcpy and an AVX2 non-temporal copy of as many bytes as the repack moves (the\n"
         "streaming copy on large tensors, memcpy on cache-resident ones); below 256 KB moved, each timing covers\n"
         "runs in a row moving 1 MB; ratios: layoutc / limit, oneDNN / limit, layoutc / oneDNN,\nly/pass = layoutc / a streaming pass reading the source's bytes and writing the "
         "destination's (when the sizes differ)\n");
  printf("%-38s %7s %7s %7s %7s %9s %8s %9s %8s %6s %6s  %-8s %s\n", "case", "memcpy", "limit", "oneDNN", "layoutc",
         "ly/limit", "dnnl/lim", "ly/dnnl", "ly/pass", "jit ms", "cpu ms", "kernel", "bytes");
  double wall[NCASES + NEXTRA], cpu[NCASES + NEXTRA];
  int n = 0;
  for (int i = 0; i < NCASES + (extra ? NEXTRA : 0); i++) {
    const Case *c = i < NCASES ? &cases[i] : &extra_cases[i - NCASES];
    if (!only || strstr(c->name, only)) {
      Compile cc = run_case(c, ctx, r, &o);
      if (!c->dst_off) /* (dst+16) rows run their aligned twin's kernel: counted once */
        wall[n] = cc.wall, cpu[n++] = cc.cpu;
    }
  }
  int nmulti = 0;
  for (int i = 0; o.threads == 1 && i < (int)(sizeof multi_cases / sizeof *multi_cases); i++)
    if (!only || strstr(multi_cases[i].name, only)) {
      if (!nmulti++)
        printf("%-38s %7s %7s %9s  (single-threaded; limit = streaming copy of the larger side)\n",
               "multi-buffer conversion", "limit", "layoutc", "ly/limit");
      run_multi(&multi_cases[i], ctx, &o);
    }
  if (n)
    printf("median JIT compile time per kernel: %.1f ms wall, %.1f ms CPU (%d kernels)\n", median(wall, n) * 1e3,
           median(cpu, n) * 1e3, n);
  LyType s = parse(ctx, cases[0].src), t = parse(ctx, cases[0].dst);
  LyRepackKernel k = lyRepackKernelGet(r, s, t, o.threads), k2 = k;
  enum { LOOKUPS = 1000000 };
  double t0 = now();
  for (int i = 0; i < LOOKUPS; i++)
    k2 = lyRepackKernelGet(r, s, t, o.threads);
  double per = (now() - t0) / LOOKUPS;
  printf("cached kernel lookup: %.1f ns%s\n", per * 1e9, k2.ptr == k.ptr ? "" : " (WRONG KERNEL)");
  lyRepackerDestroy(r);
  if (n)
    disk_cache_lookups(ctx, &o, only, extra);
  lyContextDestroy(ctx);
  remove_cache(cache);
  return 0;
}
