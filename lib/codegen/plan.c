/* codegen/plan: the common refinement of two layouts as loop nests.
 *
 * Each dim's index range is split at every digit boundary of either layout
 * (the divisors and wrap points of its digits). When those boundaries form a
 * divisibility chain 1 = r_0 | r_1 | ... the index is a mixed-radix number
 * and every digit of either side is linear in each level, so the level is a
 * loop with one source stride and one destination stride. A dim whose extent
 * is not a multiple of its top radix (a dim of 20 blocked by 16) is cut into
 * a few boxes of whole levels, so no loop needs a bounds check. The boxes of
 * all dims multiply into nests; loops contiguous on both sides fuse; loops
 * are ordered so the destination streams; and the two innermost loops become
 * a register transpose when the unit strides of the two sides differ. */
#include "codegen/codegen.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 32
#define MAX_DIM_BOXES 16

/* The levels of one dim: index weight r, extent e (top: unbounded, see
 * top_n), and each side's stride. */
typedef struct {
  int n;
  int64_t r[MAX_LEVELS], e[MAX_LEVELS], ss[MAX_LEVELS], ds[MAX_LEVELS];
} Levels;

/* One box of one dim: constant offsets plus loops over whole levels. */
typedef struct {
  int64_t src_off, dst_off;
  int nloops;
  LycLoop loops[MAX_LEVELS];
} DimBox;

typedef struct {
  int n;
  DimBox b[MAX_DIM_BOXES];
} DimBoxes;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Adds the boundaries of t's digits on dim d below n to r; false if full. */
static bool add_boundaries(const LyTypeImpl *t, int d, int64_t n, int64_t *r, int *nr) {
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    int64_t top;
    if (g->dim != d)
      continue;
    if (*nr + 2 > MAX_LEVELS)
      return false;
    if (g->div > 1 && g->div < n)
      r[(*nr)++] = g->div;
    if (g->wrap && ly_mul(g->div, g->ext, &top) && top < n)
      r[(*nr)++] = top;
  }
  return true;
}

/* Stride of level radix rj on one side: each digit of d covering it adds
 * stride * rj / div (rj is a multiple of div on a chain). */
static int64_t level_stride(const LyTypeImpl *t, int d, int64_t rj) {
  int64_t s = 0;
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    int64_t top;
    if (g->dim != d || rj < g->div)
      continue;
    if (g->wrap && ly_mul(g->div, g->ext, &top) && rj >= top)
      continue;
    s += g->stride * (rj / g->div); /* bounded by the allocation */
  }
  return s;
}

static bool levels_below(const LyTypeImpl *src, const LyTypeImpl *dst, int d, int64_t n, Levels *lv);

/* The levels of dim d, or false when the boundaries are not a chain (or a
 * digit is general), in which case the pair is planned element by element. */
static bool dim_levels(const LyTypeImpl *src, const LyTypeImpl *dst, int d, Levels *lv) {
  return levels_below(src, dst, d, src->dims[d], lv);
}

/* The levels of dim d over [0, n); src may be NULL (zero nests: nothing is
 * read, so only the destination's boundaries count, up to its padding). */
static bool levels_below(const LyTypeImpl *src, const LyTypeImpl *dst, int d, int64_t n, Levels *lv) {
  int64_t r[MAX_LEVELS];
  int nr = 0;
  r[nr++] = 1;
  if ((src && !add_boundaries(src, d, n, r, &nr)) || !add_boundaries(dst, d, n, r, &nr))
    return false;
  qsort(r, nr, sizeof *r, cmp_i64);
  lv->n = 0;
  for (int k = 0; k < nr; k++) {
    if (lv->n && r[k] == lv->r[lv->n - 1])
      continue;
    if (lv->n && r[k] % lv->r[lv->n - 1])
      return false;
    lv->r[lv->n++] = r[k];
  }
  for (int j = 0; j < lv->n; j++) {
    lv->e[j] = j + 1 < lv->n ? lv->r[j + 1] / lv->r[j] : INT64_MAX;
    lv->ss[j] = src ? level_stride(src, d, lv->r[j]) : 0;
    lv->ds[j] = level_stride(dst, d, lv->r[j]);
  }
  return true;
}

static bool has_general(const LyTypeImpl *t) {
  for (int k = 0; k < t->ndigits; k++)
    if (t->digits[k].dim < 0)
      return true;
  return false;
}

/* Value of level j in index position a. */
static int64_t level_value(const Levels *lv, int j, int64_t a) {
  int64_t q = a / lv->r[j];
  return j + 1 < lv->n ? q % lv->e[j] : q;
}

/* Cuts [a, b) into boxes of whole levels, greedily taking the largest
 * aligned blocks. false if there are too many boxes. */
static bool range_boxes(const Levels *lv, int64_t a, int64_t b, DimBoxes *out) {
  out->n = 0;
  while (a < b) {
    int t = lv->n - 1;
    while (t > 0 && (a % lv->r[t] || b - a < lv->r[t]))
      t--;
    int64_t c = (b - a) / lv->r[t];
    if (t + 1 < lv->n && c > lv->e[t] - level_value(lv, t, a))
      c = lv->e[t] - level_value(lv, t, a);
    if (out->n == MAX_DIM_BOXES)
      return false;
    DimBox *x = &out->b[out->n++];
    x->src_off = x->dst_off = 0;
    for (int j = t; j < lv->n; j++) {
      x->src_off += level_value(lv, j, a) * lv->ss[j];
      x->dst_off += level_value(lv, j, a) * lv->ds[j];
    }
    x->nloops = 0;
    x->loops[x->nloops++] = (LycLoop){c, lv->ss[t], lv->ds[t]};
    for (int j = t - 1; j >= 0; j--)
      x->loops[x->nloops++] = (LycLoop){lv->e[j], lv->ss[j], lv->ds[j]};
    a += c * lv->r[t];
  }
  return true;
}

/* --- Loop nests ---------------------------------------------------------- */

/* Fuses loops that continue each other on both sides. */
static void fuse_loops(LycNest *x) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int i = 0; i < x->nloops && !changed; i++)
      for (int j = 0; j < x->nloops && !changed; j++) {
        LycLoop *a = &x->loops[i], *b = &x->loops[j];
        int64_t sspan, dspan;
        if (i == j || !ly_mul(b->ss, b->n, &sspan) || !ly_mul(b->ds, b->n, &dspan) || a->ss != sspan ||
            a->ds != dspan)
          continue;
        b->n *= a->n;
        x->loops[i] = x->loops[--x->nloops];
        changed = true;
      }
  }
}

static int loop_order(const void *pa, const void *pb) {
  const LycLoop *a = pa, *b = pb;
  if (a->ds != b->ds)
    return a->ds > b->ds ? -1 : 1;
  return a->ss > b->ss ? -1 : a->ss < b->ss;
}

/* The register-transpose form: X is the destination's unit-stride loop, the
 * Y group a run of loops contiguous in the source. A one-loop group may
 * have any length (its last partial block of V is a masked tile); a longer
 * group (a source run too short for a vector on its own) must make a
 * multiple of V. X may have any length: chunks of V rows and a tail of
 * fewer rows, padded with zero rows up to a power of two. */
static bool try_zip(LycNest *x, int V) {
  int nx = x->nloops - 1, y = -1;
  LycLoop X = x->loops[nx];
  if (X.ds != 1 || X.ss == 0 || X.n < 2)
    return false;
  for (int i = 0; i < nx; i++)
    if (x->loops[i].ss == 1)
      y = i;
  if (y < 0)
    return false;
  int group[4] = {y}, ng = 1;
  int64_t total = x->loops[y].n;
  while (total % V) { /* whole vectors: i x hw = 144 of OIhw16i16o, hw = 9 alone is not */
    int z = -1;
    for (int i = 0; i < nx && z < 0; i++)
      if (x->loops[i].ss == total && x->loops[i].n > 1)
        z = i;
    if (z < 0 || ng == 4)
      break;
    group[ng++] = z;
    total *= x->loops[z].n;
  }
  if (ng > 1 && total % V)
    ng = 1; /* no whole vectors: one loop and a masked tile */
  /* Reorder: outer loops (destination order kept), the Y group outermost
   * source loop first, then X. */
  LycLoop out[LYC_MAX_LOOPS];
  int n = 0;
  for (int i = 0; i < nx; i++) {
    bool in = false;
    for (int g = 0; g < ng; g++)
      in = in || group[g] == i;
    if (!in)
      out[n++] = x->loops[i];
  }
  for (int g = ng - 1; g >= 0; g--)
    out[n++] = x->loops[group[g]];
  out[n++] = X;
  memcpy(x->loops, out, n * sizeof *out);
  x->inner = LYC_INNER_ZIP;
  x->ny = ng;
  return true;
}

/* The line the stores of a transpose should fill: a non-temporal store of
 * part of a line is flushed to memory alone (a read-modify-write there), so
 * a 32-byte vector transposing f32 into nhwc with stores that bypass the
 * cache ran at 0.12x of the copy limit against 0.30x with plain stores. */
#define LINE_BYTES 64

/* V-row chunks of X one tile group transposes together (xg), so the pieces
 * it stores at one Y position are a whole line, one after another: with
 * 32-byte vectors two 8x8 f32 transposes per line, four for 16-byte bf16
 * pieces. With 64-byte vectors, two lines: non-temporal stores to many
 * destination rows in turn reach the write bandwidth only when each row
 * gets two consecutive lines (a microbenchmark on an AVX-512 Xeon, 51 MB:
 * 16 rows 17.5 GB/s a line each, 23.2 with two; 64 rows 12.4 and 23.1;
 * s8 nhwc -> f32 nchw 18 -> 23 GB/s, nChw16c -> nchw +17%). When a piece
 * is a whole line already, X need not be a multiple of the group: the
 * chunks left over after the groups go one at a time (transpose 6000x5000
 * f32: 6000 rows, 400 a super-block, 12 pairs and one chunk). Narrower
 * pieces need the group to fill their lines, so X must be a multiple of it.
 * A tile whose destination run continues across Y (packed stores) already
 * writes whole runs. Whole-byte tiles of sub-byte elements (packed) group
 * the same way, with X a multiple of the group: a 64-wide i4 tile's piece
 * is 32 bytes, 2 to a line. An i1 tile's 8-byte pieces group 4 to a run
 * of 32 (half a line: zip_aligned keeps such stores cached, but the rows
 * are written in fewer, longer runs): i1 8192x8192 transposed 4.1-4.6 GB/s
 * alone, 10-11.5 two to a group, 13.7-14.2 four, 12-13 eight. On an
 * AVX-512 Zen 5, side by side, 64-wide tiles: i4 8192x8192 transposed 3.7
 * -> 9.2-9.3 GB/s (2 to a group), i4 4096x4096 9.2-10.0 -> 11.8-12.0, i2
 * 8192x8192 4.3-4.5 -> 9.5-10.1 (4 to a group). */
static int x_line_group(const LycNest *x, int V, int dbits, bool off_lines) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  int unit = V * dbits / 8;
  if (X->n < V || (x->ny == 1 && Y->ds == V) || (x->packed && unit >= LINE_BYTES))
    return 1;
  int xg = unit < LINE_BYTES ? LINE_BYTES / unit : unit == LINE_BYTES ? 2 : 1;
  if (x->columns) /* nibble_lanes: two lines a position (nibble_rows) */
    xg = 4;
  if (xg > 4)
    xg = 4; /* 16-byte vectors narrowed to 8-byte pieces: registers run out first */
  if (unit == LINE_BYTES || off_lines) /* through the panel, a chunk left over is no partial line */
    return X->n >= (int64_t)xg * V ? xg : 1;
  while (xg > 1 && X->n % ((int64_t)xg * V))
    xg /= 2;
  return xg;
}

/* What every panel nest is (zip_panel, rows_off_lines): past the cache,
 * 64-byte vectors, whole-byte elements, one Y loop whose positions are
 * destination rows apart, forward; tiles whose runs continue across Y
 * (nchw -> nChw16c: each Y position's X rows are one vector or less) only
 * with runs (a joined panel, streamed as one range), of 2-byte elements or
 * wider. Through the panel, nchw -> nChw16c f32 32x64x56x56 into a
 * destination 16 bytes off ran at 23-32 GB/s against 8-22 with plain stores
 * (aligned: 25-28); i8 ran no faster (16-20.5 with plain stores, 13.7-18.5
 * through it in runs of 1 KB; 55x55 planes, aligned: 19.7 and 19.3). */
static bool panel_shape(const LycNest *x, const LycPlan *p, bool joined) {
  if (x->nloops < 2 || x->ny != 1 || p->resident || !p->zmm || p->dbits < 8)
    return false;
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  return X->ds == 1 && Y->ds > 0 && (Y->ds != (X->n < p->vlen ? X->n : p->vlen) || (joined && p->dbits >= 16));
}

/* Whether a transpose's destination rows are not a whole number of lines
 * apart and it may go through the panel (zip_panel, before its tile groups
 * and sweeps are chosen): its line groups then keep the chunks left over
 * (x_line_group), and its sweeps are long (not far_sweeps' 64 rows, whose
 * 64-byte runs of each i8 row are two partial lines): i8 4000x3000
 * transposed, rows 4000 bytes apart, 4.7-9 GB/s with sweeps of 64 rows
 * and no groups, against 17-18 for 4096x3000; 19-20 through the panel in
 * groups of four chunks and sweeps of 512 rows. */
static bool rows_off_lines(const LycNest *x, const LycPlan *p) {
  if (!panel_shape(x, p, false))
    return false;
  int64_t row = x->loops[x->nloops - 2].ds * (p->dbits / 8);
  return row >= 256 && row % LINE_BYTES;
}

/* Whether the vector stores of a register-transpose nest may bypass the
 * cache when the destination starts 64-byte aligned: each store aligned to
 * its own size, and each burst of stores one tile makes at one place (the
 * xg pieces of a Y position, or a packed tile's whole run) covering whole
 * lines. Decided on the gcd of all the destination offsets a burst can
 * start at, in bytes. */
static bool zip_aligned(const LycNest *x, int V, int dbits) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  int64_t width = X->n < V ? X->n + x->xpad : V; /* elements per Y position in a full tile */
  bool contiguous = x->ny == 1 && Y->ds == width;
  if (width & (width - 1) && !contiguous) /* packed stores (store_packed) are whole vectors */
    return false;
  bool group_contiguous = !contiguous && x->ny == 1 && Y->ds == x->xg * width; /* f32 -> bf16 nChw16c */
  /* bytes a vector store writes (sub-byte: packed); a full tile of bits
   * copied whole stores vectors of V bytes */
  int64_t unit = contiguous && x->bit_copy && !x->xpad ? V : (contiguous ? V : width) * dbits / 8;
  int64_t g = x->dst_base;
  int64_t burst = (contiguous || group_contiguous ? V : 1) * x->xg * width * dbits / 8;
  for (int i = 0; i < x->nloops - 1 - x->ny; i++)
    g = ly_gcd(g, x->loops[i].ds);
  for (int i = x->nloops - 1 - x->ny; i < x->nloops - 1; i++)
    g = ly_gcd(g, x->ny == 1 ? V * Y->ds : x->loops[i].ds);
  if (!contiguous && !group_contiguous)
    g = ly_gcd(g, Y->ds);
  if (X->n > x->xg * width) /* a group's start, or a left-over chunk's (x_line_group) */
    g = ly_gcd(g, X->n % (x->xg * width) ? width : x->xg * width);
  return unit >= 16 && unit <= LINE_BYTES && !(unit & (unit - 1)) && burst % LINE_BYTES == 0 &&
         (g == 0 || (g * dbits) % (LINE_BYTES * 8) == 0);
}

/* Each X row a Y sweep reads is a separate source stream, usually on its
 * own page: beyond a few hundred the TLB and the prefetchers lose track
 * (8192x8192 f32 transposes at 0.35x memcpy unblocked, 0.85x with blocks of
 * 256 or 512 rows), so long X loops are swept in super-blocks (a multiple
 * of the tile group when X is, else of V; one that divides X when there is
 * one of at least half the size, else the rows left over are swept last:
 * 3000 rows are 5 of 512 and 440). Rows a multiple of 4 KB apart,
 * read in runs of a kilobyte (rows_alias), take half: 8192x8192 f32 on a
 * Xeon with 2 MB of L2, 17.4-18.3 GB/s with 512 rows, 18.5-19.1 with 256
 * (6000x5000, rows 20000 bytes apart, no faster with 256). */
#define X_SUPER 512

static bool rows_alias(const LycNest *x, int V, int sbytes, int dbytes);

/* X rows one tile group transposes: xg chunks of V. */
static int64_t group_rows(const LycNest *x, int V) { return (int64_t)V * (x->xg > 1 ? x->xg : 1); }

/* Past the cache, source rows that follow each other (X's stride is Y's
 * extent: nhwc -> nchw, the rows are pixels and Y their channels) of at
 * least 4 lines each are swept one tile group at a time when the group's
 * rows make at most 16 KB: the group's rows are read once per Y block, from
 * L1, while the prefetch (row_prefetch) fetches the next group's. On an
 * AVX-512 Zen 5, nhwc -> nchw f32, interleaved runs against the kernel that
 * swept 448 rows at a time: 32x64x56x56 48 -> 61 GB/s, 32x128x56x56 30
 * -> 41, 16x128x56x56 35 -> 62. Not helped: rows of 2 lines (C = 32, and
 * s8 nhwc -> f32 nchw, rows of 64 bytes: unchanged), rows far apart
 * (8192x8192: 28 -> 21), a repack that stays in the cache (75 -> 70). */
#define GROUP_SWEEP_BYTES 16384

static bool group_sweeps(const LycNest *x, int V, int sbytes, const LycPlan *p) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  int64_t group = group_rows(x, V);
  return !p->resident && !x->packed && x->ny == 1 && X->ss == Y->n && X->ss * sbytes >= 4 * LINE_BYTES &&
         X->n > group && X->n % group == 0 && group * X->ss * sbytes <= GROUP_SWEEP_BYTES;
}

/* Past the cache, source rows far apart (256 bytes to 16 KB, and not
 * swept a group at a time: group_sweeps) transposed into destination rows
 * less than a page apart (nchw -> nhwc: the rows are channel planes, the
 * destination rows pixels) are swept 64 at a time once there are 128 or
 * more: fewer source streams at once, each destination row still written
 * a whole line or more a sweep. On an AVX-512 Zen 5, interleaved against
 * sweeps of all the rows (up to 512): nchw -> nhwc f32 32x128x56x56 29.9
 * -> 43.2 GB/s, 8x512x56x56 31.8 -> 44.9, i8 32x128x56x56 46.6 -> 52.8,
 * bf16 16x128x56x56 57.6 -> 63.6. Rows a page apart are mixed (f32
 * 8x1024x28x28 40.2 -> 49.7, but i8 4096x4096 and 4096x3000 transposed
 * 20.6 -> 20.0 and 24.3 -> 23.6), so they keep their sweeps. Sweeps of 32
 * rows were worse for bf16 and mixed for f32; with 64 rows in all (64
 * channels) 32-row sweeps measured 47 -> 58 in one run and 85 -> 76 in
 * another, so those keep one sweep; destination rows far apart (8192x8192:
 * 28 -> 23 with 64-row sweeps) keep the super-blocks below, and so do
 * longer source rows (1024x8192 transposed, 32 KB rows: 33 -> 31;
 * 1000x8192 18.3 -> 15.2) and rows a multiple of 4 KB apart (rows_alias:
 * 1024x4096, 48.4 -> 47.2; 1024x3000, 12000-byte rows, 56.1 -> 59.4). */
#define FAR_SWEEP_ROWS 64

static bool far_sweeps(const LycNest *x, int V, int sbytes, int dbytes, const LycPlan *p) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  int64_t row_bytes = X->ss * sbytes, group = group_rows(x, V);
  int64_t dst_row_bytes = (Y->ds < 0 ? -Y->ds : Y->ds) * dbytes;
  if (row_bytes < 0)
    row_bytes = -row_bytes;
  return !p->resident && !x->packed && x->ny == 1 && row_bytes > 256 && row_bytes <= 16384 &&
         !rows_alias(x, V, sbytes, dbytes) && dst_row_bytes < 4096 && X->n >= 2 * FAR_SWEEP_ROWS &&
         FAR_SWEEP_ROWS % group == 0;
}

static int64_t x_super_block(const LycNest *x, int V, int sbytes, int dbytes) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int64_t step = (int64_t)V * (X->n % ((int64_t)V * x->xg) ? 1 : x->xg);
  int64_t most = rows_alias(x, V, sbytes, dbytes) ? X_SUPER / 2 : X_SUPER;
  if (X->n <= most || most < step)
    return 0;
  for (int64_t s = most / step * step; s >= step && 2 * s >= most; s -= step)
    if (X->n % s == 0)
      return s; /* no rows left over */
  return most / step * step; /* the rows after the last one are swept after them */
}

/* How many V-wide Y blocks a tile row covers. Runs of 256 bytes per source
 * row (4 vectors of 16 f32, 8 of 8) let the prefetchers follow each row when
 * a sweep reads many separate rows: the 8192x8192 and 6000x5000 f32
 * transposes (512 and 400 rows 32 KB and 20 KB apart) lose 18-33% without
 * them. With 64-byte vectors and at most 64 rows a sweep, or rows that
 * follow each other (at most 256 bytes apart: one forward stream), one
 * block per X chunk is better: each Y block then writes all its destination
 * before the next, in fewer and longer streams (nchw <-> nhwc, abc -> cba,
 * s8 nhwc -> f32 nchw: +20% on an AVX-512 Xeon). On Zen (few_row_runs) a
 * sweep of few separate rows keeps its runs past the cache (an AVX-512 Zen
 * 5: nchw -> nhwc 0.87-0.95x -> 1.03-1.04x of the copy limit, abc -> cba
 * 0.49-0.51x -> 0.58-0.63x); in the cache it goes a block at a time there
 * too (nchw -> nhwc 32x20x56x56: 0.88-0.91x against 0.74-0.77x with runs
 * of 4). With narrower vectors the
 * runs stay (measured on AVX2: nchw -> nhwc 0.51x -> 0.8x of the copy limit
 * with them). A multi-loop Y group keeps 1. */
#define Y_RUN_BYTES 256
#define Y_RUN_MIN_ROWS 64

/* Whether the tiles are 64-byte vectors over source rows a multiple of 4 KB
 * apart: the rows then share their L1 and L2 sets, and with runs over many
 * rows (y_multiple) a line fetched ahead is evicted by the other rows'
 * before it is read. Such rows take no prefetch. Tiles of more than 16
 * rows read them in runs of a kilobyte, tiles of at most 16 (f32, f64) in
 * runs of the target's alias_run_bytes: a kilobyte elsewhere (8192x8192
 * f32 on an AVX-512 Xeon, in tile pairs: 256-byte runs with the prefetch
 * 11.7-12.2 GB/s, 512 bytes without 14.6-14.9, a kilobyte 15.9-17.4;
 * 6000x5000, rows 20000 bytes apart, keeps both runs and prefetch: 17 ->
 * 13 without), 256 bytes on Zen (an AVX-512 Zen
 * 5, interleaved runs, medians of 5, kilobyte -> 256-byte runs: 8192x8192
 * 22.0 -> 25.6 GB/s, 4096x4096 22.5 -> 26.7, 2048x2048 25.5 -> 39.6, f64
 * 1024x1024 30.3 -> 77.5, abc -> cba 64x512x512 19.9 -> 22.1; into a
 * destination 16 bytes off, through the panel: 8192x8192 17.5 -> 17.9,
 * 2048x2048 22.5 -> 28.1; 512-byte runs no better than a kilobyte). Wider
 * tiles keep the kilobyte there too: bf16 4096x4096 19.6 -> 18.0 with
 * 256-byte runs (2048x2048 24.0 -> 27.5), i1 8192x8192 12.3 -> 11.5. A
 * sweep of few rows keeps its prefetch of the next line (abc -> cba, 64
 * rows 1 MB apart: 8 GB/s without, 21 with). */
#define ALIAS_RUN_BYTES 1024
#define ALIAS_RUN_ROWS 16
static bool line_vectors(int V, int sbytes, int dbytes) { /* a vector of the wider side fills a line */
  return (int64_t)V * (sbytes > dbytes ? sbytes : dbytes) >= LINE_BYTES;
}

static bool rows_alias(const LycNest *x, int V, int sbytes, int dbytes) {
  int64_t row_bytes = x->loops[x->nloops - 1].ss * sbytes;
  return line_vectors(V, sbytes, dbytes) && row_bytes && row_bytes % 4096 == 0;
}

static int y_multiple(const LycNest *x, int V, int sbytes, int dbytes, const LycPlan *p) {
  bool resident = p->resident;
  const LycLoop *X = &x->loops[x->nloops - 1];
  /* Byte tiles (32 rows) over source and destination rows both a multiple
   * of 4 KB apart: runs make every tile's rows share their sets with the
   * next block's, one block at a time is faster (an AVX-512 Zen 5, i8
   * transposes: 4096x4096 12.7 -> 25.4 GB/s, 8192x8192 12.5 -> 18.0; 2048x4096,
   * destination rows 2 KB apart, 27.9 either way; f32 with 32-byte vectors,
   * 8-row tiles, is not helped: 23.4 -> 21.9 for 8192x8192). */
  if (sbytes == 1 && dbytes == 1 && !x->packed && x->ny == 1 && X->ss % 4096 == 0 &&
      x->loops[x->nloops - 2].ds % 4096 == 0)
    return 1;
  /* A transpose that stays in the cache into destination rows of f32 or
   * wider a multiple of 2 KB apart: a block's 16 (8) rows share their L1
   * set already, and a run of blocks keeps 16 times as many such rows in
   * flight. One block at a time (an AVX-512 Zen 5: 512x512 f32 53 -> 76
   * GB/s, 1024x1024 f32 23 -> 46, 1024x1024 f64 24 -> 70; past the cache
   * the runs stay, and 16-bit destinations, 32-row tiles, lose without
   * them: f32 -> bf16 1024x1024 42 -> 32). */
  int64_t dst_row_bytes = x->loops[x->nloops - 2].ds * dbytes;
  if (resident && dbytes >= 4 && (int64_t)V * dbytes == LINE_BYTES && dst_row_bytes % 2048 == 0)
    return 1;
  int64_t blocks = x->loops[x->nloops - 2].n / V, rows = x->xsuper ? x->xsuper : X->n;
  int64_t row_bytes = X->ss * sbytes;
  int64_t run = !rows_alias(x, V, sbytes, dbytes) ? Y_RUN_BYTES
                : V <= ALIAS_RUN_ROWS                 ? p->alias_run_bytes
                                                      : ALIAS_RUN_BYTES; /* see rows_alias */
  bool forward = row_bytes > -Y_RUN_BYTES && row_bytes <= Y_RUN_BYTES;
  bool few = rows <= Y_RUN_MIN_ROWS && (resident || !p->few_row_runs);
  if (line_vectors(V, sbytes, dbytes) && (few || forward))
    return 1;
  int want = run / (V * sbytes) > 1 ? (int)(run / (V * sbytes)) : 1;
  while (want > 1 && (x->ny != 1 || blocks < want))
    want /= 2;
  return want; /* the blocks after the last whole run go one at a time */
}

/* Y blocks per run when each tile is k = 8/bits rows of sub-byte elements
 * copied as they are into one destination byte per column, stored as one
 * contiguous run across Y (an (8,1) tile of i1, (2,1) of i4): the run is
 * one wide tile (wide_bit_tile in repack.c) whose rows load up to a vector
 * each instead of V/k bytes, as many blocks as fit (a power of two); 0
 * otherwise. On an AVX-512 Zen 5, i1 8192x8192 -> (32,128),(8,1), a tile
 * row's two blocks at once: 43.5 -> 50 GB/s (16-byte row loads; 68.9 with
 * GFNI's transposes). */
static int bit_row_run(const LycNest *x, int V, int sbits) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  if (!x->bit_copy || x->ny != 1 || x->xpad || x->xg > 1 || X->n != 8 / sbits || Y->ds != X->n)
    return 0;
  int run = 1;
  while (2 * run * sbits <= 8 && 2 * run * (int64_t)V <= Y->n) /* a row's bytes at most a vector */
    run *= 2;
  return run > 1 ? run : 0;
}

/* Bytes ahead along each source row to prefetch. A narrow tile (at most 4
 * rows) over source rows a kilobyte or more apart reads many short bursts
 * from rows the prefetchers do not follow: a kilobyte ahead, where later
 * tiles continue it (bf16 into (8,128)(2,1): 34 -> 47 GB/s). A wider tile
 * whose next sweep continues the same rows (one Y loop) prefetches what that
 * sweep reads, one run of Y blocks ahead: with 64 source rows in flight
 * (nchw -> nhwc) the prefetchers drop them (0.60x -> 1.07x of the copy
 * limit with 32-byte vectors). Rows at most 256 bytes apart are one forward
 * stream, interleaved with stores to many destination rows, which the
 * prefetchers follow too late: the rows of the next tile group are fetched
 * (nChw16c -> nchw 0.49x -> 1.1x, nhwc -> nchw 0.60x -> 0.8x). */
static int row_prefetch(const LycNest *x, int V, int sbits, int dbytes) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  int64_t row_bytes = X->ss * sbits / 8, rows = X->n < V ? X->n : V;
  if (rows <= 4)
    return row_bytes >= 1024 || row_bytes <= -1024 ? 1024 : 0;
  int64_t group = group_rows(x, V);
  if (row_bytes > 0 && row_bytes <= 256 && X->n > group) /* the rows are one forward stream */
    return (int)(group * row_bytes);
  int64_t run = (int64_t)x->ym * V;
  bool continued = Y->n > run; /* the next sweep, or an outer loop, reads on along the rows */
  for (int i = 0; i < x->nloops - 2; i++)
    continued = continued || x->loops[i].ss == Y->n;
  if (sbits >= 8 && x->ym > 1 && rows_alias(x, V, sbits / 8, dbytes)) /* runs over many aliasing rows */
    return 0;
  return x->ny == 1 && continued ? (int)(run * sbits / 8) : 0;
}

/* Whether a transpose over sub-byte elements moves whole bytes: every tile
 * starts, on each packed side, at a multiple of the elements per byte and
 * covers whole bytes (Y blocks of V and a last one of a multiple of the
 * source's elements per byte, X chunks of V and a last one of a multiple of
 * the destination's), so tiles unpack bytes into one element per lane and
 * pack the results back, and no two tiles (or threads) share a byte. Only
 * for widths that divide a byte (i1, i2, i4, f4): a 6-bit element may
 * straddle. The last, partial tiles go through the unpacking tile with
 * masked loads and stores (nibble_tile takes only full ones); before they
 * did, a 1000x1000 i4 transpose took scalar loops: 1.5 GB/s. */
static bool whole_bytes(const LycNest *x, int V, int sbits, int dbits) {
  if (8 % sbits && sbits < 8) /* f6: elements straddle bytes, none holds whole ones */
    return false;
  if (8 % dbits && dbits < 8)
    return false;
  int ks = sbits < 8 ? 8 / sbits : 1, kd = dbits < 8 ? 8 / dbits : 1;
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  if (x->ny != 1 || (Y->n % V) % ks || V % ks || V % kd)
    return false;
  if ((X->n % V) % kd)
    return false;
  if (x->src_base % ks || x->dst_base % kd)
    return false;
  for (int i = 0; i < x->nloops; i++)
    if ((i != x->nloops - 2 && x->loops[i].ss % ks) || (i != x->nloops - 1 && x->loops[i].ds % kd))
      return false;
  return true;
}

/* Whether a contiguous run may be copied with stores that bypass the cache:
 * its vectors are a quarter to a whole line, every run is whole lines, and
 * every run starts on a line when the destination does (the gcd of the
 * offsets). A run split between threads is split in lines. */
static bool contig_aligned(const LycNest *x, int V, int dbytes) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int64_t unit = (int64_t)V * dbytes, g = x->dst_base;
  for (int i = 0; i < x->nloops - 1; i++)
    g = ly_gcd(g, x->loops[i].ds);
  return unit >= 16 && unit <= LINE_BYTES && !(unit & (unit - 1)) && (X->n * dbytes) % LINE_BYTES == 0 &&
         (g == 0 || (g * dbytes) % LINE_BYTES == 0);
}

/* Bytes ahead along a contiguous run that converts to a narrower element
 * to prefetch, in the non-temporal variant. Such a run reads more than it
 * writes, and one core's reads stall on too few lines in flight; a
 * prefetch 12 KB ahead puts more in flight than the hardware's prefetchers
 * do (on an AVX-512 Zen 5, 32x64x56x56 f32 -> s8, interleaved runs: 51-56
 * GB/s without, 8 KB ahead 67, 12 KB 73-74, 16 KB 71-80, 20 KB 68, 32 KB
 * 64; f32 -> f16 75 -> 78 at 12 KB; a same-type copy 73.5 -> 75, s8 -> f32
 * unchanged, so a wider destination takes none). A transpose's rows are
 * no such stream: f32 nchw -> s8 nhwc lost 12-36% with its row prefetch
 * moved from 256 bytes ahead to 512-4096. Runs shorter than twice the
 * distance take none. */
#define CONTIG_PREFETCH 12288

static int contig_prefetch(const LycNest *x, const LycPlan *p) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  bool narrows = p->sbytes > p->dbytes && X->n * p->sbytes >= 2 * CONTIG_PREFETCH;
  return !p->resident && x->aligned && narrows ? CONTIG_PREFETCH : 0;
}

/* Whether a run contiguous on both sides with sub-byte elements on either
 * moves whole bytes: every run starts on a byte on each packed side (bases
 * and outer strides multiples of the elements per byte) and fills whole
 * destination bytes, so it goes in chunks unpacked to a lane per element,
 * converted and packed back (repack.c's contig_packed), and no two runs
 * (or threads) share a destination byte. */
static bool contig_bytes(const LycNest *x, int sbits, int dbits) {
  if ((sbits < 8 && 8 % sbits) || (dbits < 8 && 8 % dbits)) /* f6 straddles bytes */
    return false;
  int ks = sbits < 8 ? 8 / sbits : 1, kd = dbits < 8 ? 8 / dbits : 1;
  const LycLoop *last = &x->loops[x->nloops - 1];
  if (x->src_base % ks || x->dst_base % kd || last->n % kd)
    return false;
  for (int i = 0; i < x->nloops - 1; i++)
    if (x->loops[i].ss % ks || x->loops[i].ds % kd)
      return false;
  return true;
}

int lyc_contig_chunk(const LycPlan *p) {
  int lo = p->sbits < p->dbits ? p->sbits : p->dbits, hi = p->sbits < p->dbits ? p->dbits : p->sbits;
  int e = 512 / lo;
  return e * hi > 8192 ? 8192 / hi : e;
}

/* Whether a packed contiguous nest's full chunks are whole destination
 * lines starting on a line when the destination does (the offsets' gcd),
 * so the non-temporal variant stores them past the cache. */
static bool contig_packed_aligned(const LycNest *x, const LycPlan *p) {
  int64_t g = x->dst_base;
  for (int i = 0; i < x->nloops - 1; i++)
    g = ly_gcd(g, x->loops[i].ds);
  return ((int64_t)lyc_contig_chunk(p) * p->dbits) % (LINE_BYTES * 8) == 0 && (g * p->dbits) % (LINE_BYTES * 8) == 0;
}

/* Transposes of i4 with 64-byte vectors and of i8 by byte columns
 * (plan: columns) (repack.c's nibble_lanes: groups of four chunks, 256 rows
 * of i4 or 128 of i8, so each destination row gets two consecutive lines)
 * read each full run of NIBBLE_RUN_BLOCKS Y blocks of a group's rows, two
 * lines a row, into a stack buffer first (stage_rows), and the
 * tiles read their 16-byte pieces from there: read in place, a row's line
 * was fetched four times, from wherever the other 255 rows had left it
 * (rows 2 KB apart share two L1 sets). No prefetch (the copy reads the
 * rows a run at a time), super-blocks of NIBBLE_SUPER rows. On this
 * project's Emerald Rapids VM, interleaved against the tiles that read the
 * source in place in pairs of chunks: 4096x4096 10.4-10.6 -> 20.3-20.6
 * GB/s, 8192x8192 9.0-10.5 -> 19.6-20.9, 1024x1024 20.1-20.9 -> 28.1-29.2.
 * Runs of 2 and 8 blocks: 14.2-14.9 and 12.3-13.1 at 4096; with the
 * prefetch 17.1-19.6. The microbenchmark of the pattern alone (loads and
 * streaming stores, no shuffles) put 256 rows of 128 bytes at 0.76x of
 * the copy, 128 rows of 64 bytes at 0.44x, 256 of 64 at 0.52x. A sweep's
 * rows stay within NIBBLE_SUPER_BYTES (i8 8192x8192, rows of 8 KB: 512
 * rows a super-block, 8.6-9.4 GB/s with 1024, 9.6-11 with 256-512). */
#define NIBBLE_RUN_BLOCKS 4
#define NIBBLE_SUPER 1024
#define NIBBLE_SUPER_BYTES (4 << 20)
static bool nibble_rows(LycNest *x, int V, int sbits) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  if (!x->columns || x->xg != 4 || Y->n < NIBBLE_RUN_BLOCKS * V)
    return false;
  x->ym = NIBBLE_RUN_BLOCKS;
  x->prefetch = 0;
  int64_t super = NIBBLE_SUPER, row_bytes = X->ss * sbits / 8;
  while (super > group_rows(x, V) && super * row_bytes > NIBBLE_SUPER_BYTES)
    super /= 2;
  if (X->n > super && X->n % super == 0)
    x->xsuper = super;
  return true;
}

static void shape_nest(LycNest *x, const LycPlan *p, bool same) {
  int V = p->vlen, sbits = p->sbits, dbits = p->dbits;
  int sbytes = sbits < 8 ? 1 : sbits / 8, dbytes = dbits < 8 ? 1 : dbits / 8;
  bool sub = sbits < 8 || dbits < 8;
  int m = 0;
  for (int i = 0; i < x->nloops; i++)
    if (x->loops[i].n > 1)
      x->loops[m++] = x->loops[i];
  x->nloops = m;
  fuse_loops(x);
  qsort(x->loops, x->nloops, sizeof *x->loops, loop_order);
  x->inner = LYC_INNER_SCALAR;
  x->ny = 0;
  if (x->nloops == 0)
    return;
  LycLoop *last = &x->loops[x->nloops - 1];
  if (last->ss == 1 && last->ds == 1 && !sub) {
    x->inner = LYC_INNER_CONTIG;
    x->aligned = V >= 2 && contig_aligned(x, V, dbytes);
    x->prefetch = contig_prefetch(x, p);
  }
  else if (last->ss == 1 && last->ds == 1 && contig_bytes(x, sbits, dbits)) {
    x->inner = LYC_INNER_CONTIG;
    x->packed = true;
    x->aligned = contig_packed_aligned(x, p);
  }
  else if (V >= 2 && try_zip(x, V)) {
    if (sub && !whole_bytes(x, V, sbits, dbits)) { /* sub-byte elements otherwise: scalar loops */
      x->inner = LYC_INNER_SCALAR;
      x->ny = 0;
      return;
    }
    x->packed = sub;
    x->bit_copy = sub && same; /* same element: same width */
    /* Byte columns (nibble_lanes) into Y positions apart (a tile's rows not
     * contiguous across Y): i4 whatever the group, i8 in groups of two or
     * four chunks (x_line_group gives them four). */
    bool apart = x->ny == 1 && x->loops[x->nloops - 2].ds != (last->n < V ? last->n : V);
    bool i4 = x->bit_copy && sbits == 4 && V == 64 && apart;
    bool i8 = !sub && same && sbits == 8 && V == 32 && p->zmm && apart;
    x->columns = i4 || i8;
    bool off_lines = rows_off_lines(x, p);
    x->xg = x_line_group(x, V, dbits, off_lines);
    x->columns = i4 || (i8 && x->xg >= 2);
    x->aligned = zip_aligned(x, V, dbits);
    bool sweeps = group_sweeps(x, V, sbytes, p);
    x->xsuper = sweeps                                  ? group_rows(x, V)
                : !off_lines && far_sweeps(x, V, sbytes, dbytes, p) ? FAR_SWEEP_ROWS
                                                      : x_super_block(x, V, sbytes, dbytes);
    x->ym = bit_row_run(x, V, sbits);
    x->wide_bits = x->ym > 0;
    if (!x->ym)
      x->ym = y_multiple(x, V, sbytes, dbytes, p);
    x->prefetch = row_prefetch(x, V, sbits < 8 ? sbits : sbytes * 8, dbytes);
    if (sweeps) /* the next group's rows */
      x->prefetch = (int)(x->xsuper * x->loops[x->nloops - 1].ss * sbytes);
    x->stage_rows = nibble_rows(x, V, sbits);
  }
}

/* Shapes x and appends it to a list of nests. false when out of memory. */
static bool push_nest(LycNest **list, int *count, LycNest *x, const LycPlan *p, bool same) {
  shape_nest(x, p, same);
  LycNest *grown = ly_realloc(*list, (size_t)(*count + 1) * sizeof *grown);
  if (!grown)
    return false;
  *list = grown;
  grown[(*count)++] = *x;
  return true;
}

/* Appends the product of per-dim box lists as nests to the plan's copies,
 * with origins offset by the layouts' base offsets (before shaping:
 * alignment depends on them), or to its padding nests (zero: base 0, see
 * padded_dense). */
static bool product_nests(const DimBoxes *db, int rank, LycPlan *p, bool zero) {
  LycNest **list = zero ? &p->zero : &p->nests;
  int *count = zero ? &p->nzero : &p->nnests;
  int64_t total = 1;
  for (int d = 0; d < rank; d++)
    if (!ly_mul(total, db[d].n, &total) || total > LYC_MAX_NESTS)
      return false;
  for (int64_t c = 0; c < total; c++) {
    LycNest x = {.src_base = zero ? 0 : p->src->base, .dst_base = (zero ? 0 : p->dst->base) + p->dst_shift};
    int64_t rest = c;
    for (int d = rank - 1; d >= 0; d--) {
      const DimBox *b = &db[d].b[rest % db[d].n];
      rest /= db[d].n;
      x.src_base += b->src_off;
      x.dst_base += b->dst_off;
      if (x.nloops + b->nloops > LYC_MAX_LOOPS)
        return false;
      memcpy(x.loops + x.nloops, b->loops, b->nloops * sizeof *b->loops);
      x.nloops += b->nloops;
    }
    if (!push_nest(list, count, &x, p, !zero && p->src->elem == p->dst->elem))
      return false;
  }
  return true;
}

/* --- Destination padding -------------------------------------------------- */

static int cmp_digit_stride(const void *a, const void *b) {
  return cmp_i64(&((const LyDigit *)a)->stride, &((const LyDigit *)b)->stride);
}

/* Whether the digits of dim d split its index as one mixed-radix number:
 * sorted by div, the first has div 1, each next one starts where the one
 * below wraps, and only the outermost may go unreduced. Then each padded
 * index of the dim is one combination of digit values. Two digits over the
 * same range of a dim (`(d0) * 5 + (d0) * 1`) are not a split: their offsets
 * leave holes that no padded index names. *top gets the outermost div. */
static bool dim_is_radix(const LyTypeImpl *t, int d, int64_t *top) {
  int64_t next = 1;
  bool open = false;
  int seen = 0;
  *top = 1;
  for (int k = 0; k < t->ndigits; k++)
    seen += t->digits[k].dim == d;
  for (int n = 0; n < seen; n++) { /* the digit whose div is next */
    const LyDigit *g = NULL;
    for (int k = 0; k < t->ndigits && !g; k++)
      if (t->digits[k].dim == d && t->digits[k].div == next)
        g = &t->digits[k];
    if (!g || open)
      return false;
    *top = g->div;
    open = !g->wrap;
    if (g->wrap && !ly_mul(g->div, g->ext, &next))
      return false;
  }
  return true;
}

/* True when dst's digits tile [0, alloc) exactly once each dim is padded:
 * each dim's digits split its index (dim_is_radix), and sorted by stride,
 * each digit's stride is the span of the ones below it, where a dim's
 * outermost digit may be widened to reach the next stride (the padding of a
 * blocked dim; canonical digits are tight, so a dim of 5 in blocks of 16 has
 * one digit of extent 5 followed by a stride of 16). Then the padding is the
 * padded index space minus the logical one, and pad[d] gets each dim's
 * padded extent: its outermost digit's div times (widened) extent. */
static bool padded_dense(const LyTypeImpl *t, int64_t *pad) {
  int64_t top[LY_MAX_RANK];
  if (t->base != 0 || has_general(t))
    return false;
  for (int d = 0; d < t->rank; d++) {
    pad[d] = t->dims[d];
    if (!dim_is_radix(t, d, &top[d]))
      return false;
  }
  LyDigit g[LY_MAX_DIGITS];
  if (t->ndigits) /* digits is NULL when there are none */
    memcpy(g, t->digits, t->ndigits * sizeof *g);
  qsort(g, t->ndigits, sizeof *g, cmp_digit_stride);
  int64_t expect = 1;
  for (int k = 0; k < t->ndigits; k++) {
    int64_t next = k + 1 < t->ndigits ? g[k + 1].stride : t->alloc, ext = g[k].ext;
    if (g[k].stride != expect)
      return false;
    if (!g[k].wrap && next % expect == 0 && next / expect > ext)
      ext = next / expect;
    if (g[k].div == top[g[k].dim] && !ly_mul(g[k].div, ext, &pad[g[k].dim]))
      return false;
    if (!ly_mul(expect, ext, &expect))
      return false;
  }
  for (int d = 0; d < t->rank; d++)
    if (pad[d] < t->dims[d])
      return false; /* a dim that wraps onto itself: not injective */
  return expect == t->alloc;
}

/* Nests that write zero over the padding: for each padded dim d, the boxes
 * with dims before d in range, d in its padding, later dims anywhere. */
static bool zero_nests(LycPlan *p, const int64_t *pad) {
  const LyTypeImpl *t = p->dst;
  DimBoxes *db = ly_malloc(t->rank * sizeof *db);
  Levels *lv = ly_malloc(t->rank * sizeof *lv);
  bool ok = db && lv;
  for (int d = 0; d < t->rank && ok; d++) /* the dst's own levels, up to the padding */
    ok = levels_below(NULL, t, d, pad[d], &lv[d]);
  for (int d = 0; d < t->rank && ok; d++) {
    if (pad[d] == t->dims[d])
      continue;
    for (int e = 0; e < t->rank && ok; e++) {
      int64_t a = e == d ? t->dims[e] : 0, b = e < d ? t->dims[e] : pad[e];
      ok = range_boxes(&lv[e], a, b, &db[e]);
    }
    ok = ok && product_nests(db, t->rank, p, true);
  }
  ly_free(db);
  ly_free(lv);
  return ok;
}

/* --- Padding written by the transposes ------------------------------------- */

/* The destination positions a nest's loops reach, as a canonical list:
 * loops fused on their destination strides, then sorted. */
static int dst_positions(const LycLoop *in, int n, LycLoop *out) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (in[i].n > 1)
      out[m++] = (LycLoop){in[i].n, 0, in[i].ds};
  LycNest tmp = {.nloops = m};
  memcpy(tmp.loops, out, m * sizeof *out);
  fuse_loops(&tmp);
  qsort(tmp.loops, tmp.nloops, sizeof *tmp.loops, loop_order);
  memcpy(out, tmp.loops, tmp.nloops * sizeof *out);
  return tmp.nloops;
}

/* A zero nest that fills, at every Y position of a transpose with fewer X
 * rows than the vector, exactly the destination elements right after them
 * (the tail of a padded block: C = 3 in nChw16c) is folded into the
 * transpose, which then writes whole blocks once instead of twice. The tile
 * converts zero source rows, so not from a source whose element of zero
 * bytes is no zero: f8E8M0FNU has no zero (its byte 0 is 2^-127, which
 * padding would hold). */
static void fold_padding(LycPlan *p) {
  if (p->src->elem == LY_ELEM_F8E8M0FNU)
    return;
  for (int z = 0; z < p->nzero; z++) {
    LycNest *Z = &p->zero[z];
    if (!Z->nloops || Z->loops[Z->nloops - 1].ds != 1)
      continue;
    const LycLoop *zin = &Z->loops[Z->nloops - 1];
    LycLoop zp[LYC_MAX_LOOPS], cp[LYC_MAX_LOOPS];
    int nz = dst_positions(Z->loops, Z->nloops - 1, zp);
    for (int c = 0; c < p->nnests; c++) {
      LycNest *C = &p->nests[c];
      if (C->inner != LYC_INNER_ZIP || C->xpad)
        continue;
      const LycLoop *X = &C->loops[C->nloops - 1];
      if (X->n >= p->vlen || X->n + zin->n > p->vlen || Z->dst_base != C->dst_base + X->n)
        continue;
      if (C->packed && p->dbits < 8 && (X->n + zin->n) % (8 / p->dbits)) /* the tile's run would end inside a byte */
        continue;
      int nc = dst_positions(C->loops, C->nloops - 1, cp);
      if (nc != nz || memcmp(cp, zp, nc * sizeof *cp))
        continue;
      C->xpad = (int)zin->n;
      C->columns = false; /* tiles with padding rows unpack a lane per element (repack.c's zip_tile) */
      C->aligned = zip_aligned(C, p->vlen, p->dbits);
      p->zero[z--] = p->zero[--p->nzero];
      break;
    }
  }
}

/* The order of a copy of whole-line runs. Sorted by destination stride
 * (shape_nest), it writes one stream and reads as many as the innermost
 * loop has steps, a line from each in turn. On an AVX-512 Zen 5 with stores
 * that bypass the cache that reads at 0.5-0.6x of the copy limit, and
 * reading one source stream while writing a few runs at 1.0-1.2x (a
 * microbenchmark of nhwc -> nChw16c and back, 51 MB). On an AVX-512 Xeon
 * with plain stores, nhwc -> nChw16c runs at 23-25 GB/s in destination
 * order and 30-35 in source order from 3 to 25 MB (at 1.6 MB, 92 and 95).
 * With 32-byte vectors (an AVX2 plan on that Xeon) 22.5 and 30.1 at 51 MB.
 * So the loops go by source stride, whatever the stores. With stores that
 * bypass the cache, when the innermost loop then writes a line far from the
 * last, it is cut into chunks whose stores stay within a window of
 * tgt->write_window bytes, with the loops that fill the gaps between its
 * lines inside the chunk (nChw16c -> nhwc with 16 KB: a chunk of 64 pixels,
 * the 4 channel blocks, then the 64 pixels; the source is read in 4 KB
 * runs). A Xeon reads four streams in turn at full speed and loses with such
 * chunks (nChw16c -> nhwc 28.9 GB/s in destination order; chunks of 2, 16
 * and 256 KB 28.5, 24.1 and 22.4), so it has no window. An innermost loop
 * that is not cut and has more than WRITE_STREAMS steps keeps the
 * destination order. */
#define WRITE_STREAMS 4
/* Except for runs of at least LONG_RUN_BYTES where there is a window (stores
 * that bypass the cache, on Zen): each write stream then takes several
 * lines at once, and the reads are what a far jump costs. A microbenchmark
 * of the pattern alone on the Zen 5 (swapping two outer dims of 64 MB,
 * streaming stores, GB/s in destination / source order, the streaming copy
 * 41-56): runs of 128 bytes 15.5-16.7 / 21.5-22.4, 256 bytes 28 / 40-41,
 * 512 bytes 33-39 / 49-52, 1 KB 35-38 / 51-55, 2 KB 39-40 / 57-60, 4 KB
 * 27-31 / 37-43; 64 bytes 12.9 / 11.2 (the window's chunks above are for
 * those). In the cache (8 MB, runs of 256 bytes) destination order ran at
 * the copy's speed and source order at 0.57 of it: no window there. */
#define LONG_RUN_BYTES 256

static int loop_order_src(const void *pa, const void *pb) {
  const LycLoop *a = pa, *b = pb;
  int64_t x = llabs(a->ss), y = llabs(b->ss);
  return x > y ? -1 : x < y;
}

static void order_line_runs(LycNest *x, int dbytes, int64_t window) {
  int m = x->nloops - 1; /* outer loops; the last is the run */
  int64_t run = x->loops[m].n * dbytes;
  if (m < 2 || m + 1 >= LYC_MAX_LOOPS)
    return;
  LycLoop s[LYC_MAX_LOOPS];
  memcpy(s, x->loops, m * sizeof *s);
  qsort(s, m, sizeof *s, loop_order_src);
  LycLoop I = s[m - 1];
  int64_t step = llabs(I.ds) * dbytes, k = 0;
  if (step == 0)
    return;
  if (step != run) {
    for (int64_t c = window / step; c >= 2 && !k; c--)
      if (I.n % c == 0 && I.n / c >= 2)
        k = c;
    if (!k && I.n > WRITE_STREAMS && !(window && run >= LONG_RUN_BYTES))
      return;
  }
  if (k) { /* chunks of I above the loops that write between its lines */
    LycLoop C = {I.n / k, I.ss * k, I.ds * k}, out[LYC_MAX_LOOPS];
    int n = 0, j = 0;
    I.n = k;
    for (; j < m - 1 && llabs(s[j].ds) * dbytes >= step * k; j++)
      out[n++] = s[j];
    out[n++] = C;
    for (; j < m - 1; j++)
      out[n++] = s[j];
    out[n++] = I;
    out[n++] = x->loops[m];
    memcpy(x->loops, out, n * sizeof *out);
    x->nloops = n;
    x->src_order = true;
    return;
  }
  x->src_order = memcmp(x->loops, s, m * sizeof *s) != 0;
  memcpy(x->loops, s, m * sizeof *s);
}

/* --- Entry ----------------------------------------------------------------- */

/* A variant for destinations dst_shift elements past a line (lyc_plan_shifted):
 * when the destination's unit-stride dim is one level, read with another
 * stride (a transpose's X), and every other destination stride is a whole
 * number of lines, all its rows start the same distance before a line. That
 * dim is then cut there: a head of the elements before the line (one
 * partial tile, masked stores), the whole lines after it, whose tiles
 * store whole lines again, and a tail of the elements after the last whole
 * line. Where the rows do not share their alignment (6004x5000 f32, rows
 * 24016 bytes apart) nothing is cut, nor where they are shorter than
 * LycTarget.cut_row_bytes (2 KB): the parts are nests of their own, each
 * over all the outer loops, so the line where a row begins is written in
 * two passes, by masked stores through the cache; one line in four of
 * nchw->nhwc's 256-byte pixels (32x64x56x56 f32 into a destination 16
 * bytes off: 36-58 GB/s through the panel of the plain variant, 20-34
 * cut). On the Zen 5, f32
 * matrices of 4M elements transposed into a destination 16 bytes off, plain
 * variant against cut: rows of 512 bytes 42-54 against 33-44 GB/s, 1 KB
 * 36-43 against 32-33, 2 KB 25-28 against 31-33, 4 KB 24-25 against 32-33,
 * 8 KB 25 against 35 (aligned: 35-38). false if the boxes overflow. */
static bool cut_at_line(LycPlan *p, const Levels *lv, DimBoxes *db) {
  const LyTypeImpl *t = p->dst;
  int x = -1, line = LINE_BYTES / p->dbytes;
  for (int d = 0; d < t->rank; d++)
    for (int j = 0; j < lv[d].n; j++) {
      if (lv[d].ds[j] == 1 && j == 0 && lv[d].n == 1 && lv[d].ss[0] != 1 && t->dims[d] > 1)
        x = d;
      else if (lv[d].ds[j] % line && (j + 1 < lv[d].n ? lv[d].e[j] : t->dims[d]) > 1)
        return true; /* rows not a whole number of lines apart */
    }
  if (x < 0 || t->dims[x] * p->dbytes < p->cut_row_bytes)
    return true;
  int64_t head = (line - (t->base + p->dst_shift) % line) % line;
  if (!head || head >= t->dims[x])
    return true;
  /* The head, the whole lines, the tail: tiles whose pieces are narrower
   * than a line store lines in groups, and need X a multiple of the group
   * (up to four chunks: x_line_group; i8 4096x4096 into a destination 16
   * bytes off with the rows' whole lines cut to a multiple of 64 went in
   * pairs of chunks and without staging, 12.4 GB/s, against 16-17 through
   * the panel) */
  int64_t unit = p->vlen * p->dbytes < LINE_BYTES ? 4 * p->vlen : line;
  unit = unit / ly_gcd(unit, line) * line; /* and a whole number of lines */
  int64_t cuts[4] = {0, head, head + (t->dims[x] - head) / unit * unit, t->dims[x]};
  db[x].n = 0;
  for (int i = 0; i < 3; i++) {
    DimBoxes part;
    if (cuts[i] == cuts[i + 1])
      continue;
    if (!range_boxes(&lv[x], cuts[i], cuts[i + 1], &part) || db[x].n + part.n > MAX_DIM_BOXES)
      return false;
    memcpy(db[x].b + db[x].n, part.b, part.n * sizeof *part.b);
    db[x].n += part.n;
  }
  return true;
}

/* A nest of x's origin and loops alone, to be shaped afresh. */
static LycNest bare_nest(const LycNest *x) {
  LycNest b = {.src_base = x->src_base, .dst_base = x->dst_base, .nloops = x->nloops};
  memcpy(b.loops, x->loops, (size_t)x->nloops * sizeof *x->loops);
  return b;
}

/* Appends x, shaped afresh, to p's copies. */
static bool add_nest(LycPlan *p, LycNest *x, bool same) {
  *x = bare_nest(x);
  return push_nest(&p->nests, &p->nnests, x, p, same);
}

/* Short rows into a destination past a line, where cut_at_line does not
 * cut: a transpose whose X rows are whole lines and follow each other in
 * the destination, one row after the last along a loop R (the Y loop, as
 * nchw -> nhwc's pixels; an outer loop, as abc -> cba's b; a loop of a Y
 * group, as OIhw16i16o's i), each starting s elements past a line. Its X
 * rows are rotated by w = line - s: each row's chunks begin w elements in,
 * so every tile group stores whole lines, and the last w rows of the tile that ends the
 * row (its group, or its last chunk when chunks are left over after the
 * groups; in the last sweep of super-blocks) are the first w of the next
 * row along R (LycNest.rot, rot_ss; repack.c's wrap_off). The nest then
 * covers all but the last step of R; the first row's first w elements (a
 * partial line), the last row's whole lines and its last s elements (a
 * partial line) are nests of their own, once per outer position. false
 * when out of memory (the plan is then reset). */
static bool rotate_rows(LycPlan *p) {
  int V = p->vlen, line = LINE_BYTES / p->dbytes, n0 = p->nnests;
  bool same = p->src->elem == p->dst->elem;
  if (p->sbits < 8 || p->dbits < 8)
    return true;
  for (int i = 0; i < n0; i++) {
    LycNest x = p->nests[i];
    if (x.inner != LYC_INNER_ZIP || x.aligned || x.packed || x.columns || x.xpad || x.nloops < 2)
      continue;
    int nl = x.nloops, r = -1;
    const LycLoop X = x.loops[nl - 1];
    for (int l = nl - 2; l >= 0 && r < 0; l--) /* R: the rows follow each other along it */
      if (x.loops[l].ds == X.n)
        r = l;
    if (X.ds != 1 || X.n % line || r < 0 || x.loops[r].n < 3)
      continue;
    int64_t s = (x.dst_base % line + line) % line, w = line - s;
    bool lines = s != 0;
    for (int l = 0; l < nl - 1 && lines; l++)
      lines = x.loops[l].ds % line == 0;
    if (!lines)
      continue;
    const LycLoop R = x.loops[r];
    LycNest rot = bare_nest(&x);
    rot.loops[r].n--;
    rot.src_base += w * X.ss, rot.dst_base += w;
    shape_nest(&rot, p, same);
    const LycLoop *rx = &rot.loops[rot.nloops - 1];
    int xg = rot.xg > 1 ? rot.xg : 1;
    /* the rows of the last sweep (repack.c's inner_zip), and of the tile that ends it (x_rows) */
    int64_t sweep = !rot.xsuper ? X.n : X.n % rot.xsuper ? X.n % rot.xsuper : rot.xsuper;
    int64_t last = (sweep / V) % xg ? V : (int64_t)V * xg;
    if (rot.inner != LYC_INNER_ZIP || !rot.aligned || rot.columns || rot.packed || rot.xpad ||
        rot.stage_rows || rot.wide_bits || memcmp(rx, &X, sizeof X) || sweep % V || w > last ||
        p->nnests + 3 > LYC_MAX_NESTS)
      continue;
    rot.rot = (int)w, rot.rot_ss = R.ss - X.n * X.ss;
    p->nests[i] = rot;
    LycNest head = x, whole = x, end = x;
    head.loops[r].n = 1, head.loops[nl - 1].n = w;
    int64_t ls = (R.n - 1) * R.ss, ld = (R.n - 1) * R.ds; /* the last row along R */
    whole.loops[r].n = 1, whole.loops[nl - 1].n = X.n - line;
    whole.src_base += ls + w * X.ss, whole.dst_base += ld + w;
    end.loops[r].n = 1, end.loops[nl - 1].n = s;
    end.src_base += ls + (X.n - s) * X.ss, end.dst_base += ld + X.n - s;
    if (!add_nest(p, &head, same) || (X.n > line && !add_nest(p, &whole, same)) || !add_nest(p, &end, same))
      return false;
  }
  return true;
}

static bool plan_nests(LycPlan *p) {
  const LyTypeImpl *s = p->src, *t = p->dst;
  Levels *lv = ly_malloc(t->rank * sizeof *lv);
  DimBoxes *db = ly_malloc(t->rank * sizeof *db);
  bool ok = lv && db;
  for (int d = 0; d < t->rank && ok; d++)
    ok = dim_levels(s, t, d, &lv[d]) && range_boxes(&lv[d], 0, t->dims[d], &db[d]);
  if (ok && p->dst_shift)
    ok = cut_at_line(p, lv, db);
  if (ok && !product_nests(db, t->rank, p, false))
    ok = false;
  int64_t pad[LY_MAX_RANK];
  if (ok && p->dbits < 8) {
    /* Scalar loops or packed elements into zeroed bytes; whole-byte tiles
     * alone over a destination without holes or padding need no zeroing. */
    bool whole = padded_dense(t, pad);
    for (int d = 0; d < t->rank && whole; d++)
      whole = pad[d] == t->dims[d];
    for (int i = 0; i < p->nnests && whole; i++)
      whole = p->nests[i].packed;
    p->memset_dst = !whole;
  } else if (ok && padded_dense(t, pad)) {
    ok = zero_nests(p, pad);
    if (ok)
      fold_padding(p);
  } else if (ok) {
    int64_t numel = 1;
    for (int d = 0; d < t->rank; d++)
      numel *= t->dims[d];
    p->memset_dst = numel < t->alloc;
  }
  ly_free(lv);
  ly_free(db);
  return ok;
}

static void plan_reset(LycPlan *p) {
  ly_free(p->nests);
  ly_free(p->zero);
  p->nests = p->zero = NULL;
  p->nnests = p->nzero = 0;
  p->memset_dst = false;
}

/* Whether a packed nest's tiles are all full (the bit-moving nibble_tile
 * takes them; partial ones unpack a lane per element). i4 transposes into
 * rows apart count as full from NIBBLE_PARTIAL_MIN rows and columns on: their
 * partial tiles go by byte columns too (repack.c's nibble_lanes), and
 * there the 64-wide full tiles outweigh them (side by side on this
 * project's Emerald Rapids VM: 1000x1000 15.5-16.3 -> 18.1-18.9 GB/s,
 * 4000x3000 8.9-9.4 -> 11.9-13.2, 4096x3000 12.6-14.7 -> 16.4-18.4);
 * below it they do not (96x96 30-33 -> 23-25, 200x130 23-25 -> 20-20.5),
 * and the kernel compiles in twice the time. */
#define NIBBLE_PARTIAL_MIN 512
static bool full_packed(const LycNest *x, int V, int sbits) {
  if (x->inner != LYC_INNER_ZIP) /* contiguous runs take their own chunks */
    return x->packed;
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  if (x->columns && x->packed && X->n >= NIBBLE_PARTIAL_MIN && Y->n >= NIBBLE_PARTIAL_MIN)
    return true; /* i4 into rows apart: partial tiles go by byte columns too (repack.c's nibble_lanes) */
  return x->packed && Y->n % V == 0 && (X->n % V == 0 || (X->n < V && !(X->n & (X->n - 1))));
}

/* Whether a pair of sub-byte types takes 64-wide tiles: a tile of packed
 * elements loads V/k bytes a row (k to a byte), so at 32 wide an i4 tile
 * works in 16-byte vectors and an i1 tile in 4-byte ones, and those
 * transposes are bound by instructions (on an AVX-512 Zen 5, in turns,
 * side by side: an i4 4096x4096 transpose 5.1-5.4 -> 8.3-14.3 GB/s, i1
 * 8192x8192 into (32,128)(8,1) 5.1-5.4 -> 12.2-13.8). They are taken
 * when every packed nest has only full tiles at 64 and no fewer nests are
 * packed than at 32: a partial 64-wide tile unpacks 64 rows into 64 vectors
 * of a lane per element, more than the registers hold (i4 transposes, side
 * by side, 32 against 64 wide: 100x100 41 against 5.7 GB/s, 1000x1000 42-48
 * against 23, 4000x4000 43-46 against 32-37; with full tiles 64 wins:
 * 1024x1024 39-41 against 59-60, 2048x2048 31-32 against 40-42). */
static bool wide_packed(LycPlan *p) {
  int packed[2] = {0, 0}, full[2] = {0, 0};
  for (int w = 0; w < 2; w++) {
    p->vlen = w ? 64 : 32;
    if (!plan_nests(p)) {
      plan_reset(p);
      return false;
    }
    for (int i = 0; i < p->nnests; i++) {
      packed[w] += p->nests[i].packed;
      full[w] += full_packed(&p->nests[i], p->vlen, p->sbits);
    }
    plan_reset(p);
  }
  return packed[1] >= packed[0] && full[1] == packed[1];
}

/* Whether a transpose whose stores are not aligned (zip_aligned: its
 * destination rows are not a whole number of lines apart, or its tiles
 * are not whole lines) writes through a panel (repack.c's panel_flush_fn):
 * each X piece of a Y run is transposed into a stack buffer, then every
 * destination line the piece completes is streamed past the cache from
 * it, the part of a line left over carried to the next piece, and the
 * partial lines at a sweep's two ends written by masked plain stores.
 * Past the cache such rows cost the read of every line they fill
 * otherwise: on an Emerald Rapids VM an
 * f32 transpose 6004x5000 (rows 24016 bytes apart) ran at 3.2-3.5 GB/s
 * where 6000x5000 ran at 14-15 (and 5.0 with plain stores); through the
 * panel, 11-16. Only 64-byte vectors (the partial lines are masked byte
 * stores), whole-byte elements, one Y loop, no padding rows, a panel of at
 * most PANEL_MAX_BYTES on the stack (Y runs halved until it fits), and
 * either joined rows (lyc_panel_joined: a Y run's rows one range, streamed
 * whole after its pieces) or tile groups of a line or more into rows at
 * least 256 bytes apart. Tried and
 * left out: i4 transposes (4000x3000, rows 2000 bytes apart), 13.3 GB/s
 * without against 12.0-12.3 through a panel in groups of four chunks (Y
 * runs of 2 for a 40 KB panel) and 9.3-10.5 with runs of 4 (80 KB, past
 * the L1 beside the staged rows). */
#define PANEL_MAX_BYTES 65536

/* A joined panel's Y runs (lyc_panel_joined) of tiles whose runs continue
 * across Y (X at most a vector) are halved down to this many bytes: each
 * run is transposed into the panel, then streamed whole, so a long run
 * loads while nothing is stored and stores while nothing is loaded. i8
 * nchw -> nChw16c 32x64x56x56 into a destination 16 bytes off,
 * interleaved: runs of 8 KB 16.2-16.4 GB/s, of 1-2 KB 18.2-19.5 (plain
 * stores: 15.5-18.5, so i8 keeps them: panel_shape). A thread's runs of a
 * sweep are one range: each carries its last partial line to the next
 * (repack.c's RunSeq), so only the range's two ends are masked stores. */
#define PANEL_RUN_BYTES 1024

bool lyc_panel_joined(const LycNest *x) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Y = &x->loops[x->nloops - 2];
  if (x->inner == LYC_INNER_CONTIG) /* X the run, Y the rows, then P */
    return x->nloops >= 3 && Y->ds == X->n && x->loops[x->nloops - 3].ds == Y->n * X->n;
  return x->ny == 1 && !x->xsuper && !x->xpad && Y->ds == X->n;
}

static int64_t zip_block_elems(const LycNest *x);

int64_t lyc_panel_stride(const LycNest *x, const LycPlan *p) {
  if (x->block)
    return zip_block_elems(x) * (p->dbits / 8);
  if (lyc_panel_joined(x)) /* the destination's rows as they are */
    return x->loops[x->nloops - 1].n * (p->dbits / 8);
  /* a piece (xg chunks, or ym runs of a contig nest), a line before it (the
   * carry) and one after, in lines */
  int64_t piece = x->inner == LYC_INNER_CONTIG ? x->ym * x->loops[x->nloops - 1].n * (p->dbits / 8)
                                               : (int64_t)p->vlen * (p->dbits / 8) * (x->xg > 1 ? x->xg : 1);
  int64_t lines = (piece + LINE_BYTES - 1) / LINE_BYTES + 2;
  return (lines | 1) * LINE_BYTES; /* odd: rows 4 KB apart would stall the loads after the stores */
}

/* The elements of a zip nest's block (LycNest.block): those its X rows and
 * Y group write, when they fill [0, block) of the destination from the
 * nest's offset, else 0. */
static int64_t zip_block_elems(const LycNest *x) {
  LycLoop inner[LYC_MAX_LOOPS];
  int n = x->ny + 1;
  memcpy(inner, &x->loops[x->nloops - n], (size_t)n * sizeof *inner);
  qsort(inner, (size_t)n, sizeof *inner, loop_order); /* largest destination stride first */
  int64_t expect = 1;
  for (int k = n - 1; k >= 0; k--) { /* smallest stride first: each the extent of those below */
    if (inner[k].ds != expect)
      return 0;
    expect *= inner[k].n;
  }
  return expect;
}

int64_t lyc_panel_bytes(const LycNest *x, const LycPlan *p) {
  int64_t rows = x->block                     ? 1 /* one row, the block */
                 : x->inner != LYC_INNER_CONTIG ? (int64_t)(x->ym > 1 ? x->ym : 1) * p->vlen
                 : lyc_panel_joined(x)        ? (int64_t)x->ym * x->loops[x->nloops - 2].n
                                              : x->loops[x->nloops - 2].n;
  return x->block || lyc_panel_joined(x) ? (rows * lyc_panel_stride(x, p) + 3 * LINE_BYTES) / LINE_BYTES * LINE_BYTES
                                         : rows * lyc_panel_stride(x, p);
}

/* Whether a panel nest's panel fits on the stack, its runs (ym) halved until it does. */
static bool panel_fits(LycNest *x, const LycPlan *p) {
  while (x->ym > 1 && lyc_panel_bytes(x, p) > PANEL_MAX_BYTES)
    x->ym /= 2;
  return lyc_panel_bytes(x, p) <= PANEL_MAX_BYTES;
}

/* Whether the nest goes through the panel; its Y runs shortened (ym) until
 * the panel fits, if need be. */
static bool zip_panel(LycNest *x, const LycPlan *p) {
  if (x->inner != LYC_INNER_ZIP)
    return false;
  bool joined = lyc_panel_joined(x);
  if (x->aligned || x->xpad || x->wide_bits || !panel_shape(x, p, joined))
    return false;
  int dbytes = p->dbits / 8;
  if (!joined && ((int64_t)(x->xg > 1 ? x->xg : 1) * p->vlen * dbytes < LINE_BYTES ||
                  x->loops[x->nloops - 2].ds * dbytes < 256))
    return false;
  if (joined && x->loops[x->nloops - 1].n <= p->vlen && !x->stage_rows) /* short runs (see above) */
    while (x->ym > 1 && (int64_t)x->ym * p->vlen * x->loops[x->nloops - 1].n * dbytes > PANEL_RUN_BYTES)
      x->ym /= 2;
  return panel_fits(x, p);
}

/* Whether every nest that stores aligned vectors is a transpose whose
 * destination rows (the positions of its inner Y loop) are a multiple of 4
 * KB apart. A tile group writes a line to each of V such rows at once, all
 * in one set of L1: plain stores then fetch every line for ownership and
 * evict each other, and stores that bypass the cache are faster even when
 * the repack would stay in L3 or L2 (on an AVX-512 Zen 5, interleaved runs,
 * plain against non-temporal stores: f32 transposes 1024x1024 42.9 -> 50.9
 * GB/s, 1024x512 45.9 -> 64.0, 1024x256 48.9 -> 64.0, 2048x512 48.3 -> 63.9,
 * 4096x128 49.5 -> 55.1; bf16 2048x1024 28.2 -> 49.5; i8 4096x1024 24.0 ->
 * 27.0; nchw -> nhwc with 1024 channels 46.7 -> 58.8 and 58.4 -> 62.5).
 * Rows 2 KB apart are not such rows (f32 512x2048 54.5 -> 51.3, i8
 * 2048x2048 35.4 -> 25.6), and a repack that fits in L2 keeps its plain
 * stores (the target's alias_nt_threshold: f32 1024x128, 1 MB in all, gained
 * only 10%, and its reader would find it in L2). */
static bool stores_alias(const LycPlan *p) {
  bool any = false;
  for (int i = 0; i < p->nnests; i++) {
    const LycNest *x = &p->nests[i];
    if (x->inner == LYC_INNER_SCALAR || !x->aligned)
      continue;
    if (x->inner != LYC_INNER_ZIP)
      return false;
    int64_t row = x->loops[x->nloops - 2].ds * p->dbits / 8;
    if (!row || row % 4096)
      return false;
    any = true;
  }
  return any;
}

static void misaligned_nest(LycNest *x, const LycPlan *p);

static bool plan_pair(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, bool plain,
                      int64_t shift);

bool lyc_plan(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, bool plain) {
  return plan_pair(p, src, dst, tgt, plain, 0);
}

bool lyc_plan_shifted(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, int line_off,
                      bool *useful) {
  int bits = lyElemGetBits(dst->elem);
  memset(p, 0, sizeof *p);
  *useful = false;
  if (bits < 8 || line_off <= 0 || line_off >= LINE_BYTES || line_off % (bits / 8))
    return true;
  if (!plan_pair(p, src, dst, tgt, false, line_off / (bits / 8)))
    return false;
  for (int i = 0; p->kind == LYC_PLAN_NESTS && i < p->nnests; i++)
    *useful = *useful || (p->nests[i].inner == LYC_INNER_ZIP && p->nests[i].aligned);
  *useful = *useful && p->nt;
  if (!*useful)
    plan_reset(p);
  return true;
}

static bool plan_pair(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, bool plain,
                      int64_t shift) {
  memset(p, 0, sizeof *p);
  p->dst_shift = shift;
  p->cut_row_bytes = tgt->cut_row_bytes;
  p->src = src, p->dst = dst;
  p->sbits = lyElemGetBits(src->elem);
  p->dbits = lyElemGetBits(dst->elem);
  p->sbytes = p->sbits < 8 ? 1 : p->sbits / 8;
  p->dbytes = p->dbits < 8 ? 1 : p->dbits / 8;
  int widest = p->sbytes > p->dbytes ? p->sbytes : p->dbytes;
  p->vlen = tgt->vector_bytes / widest;
  int most = p->sbits < 8 && p->dbits < 8 ? 64 : 32; /* 32-wide byte tiles fill a register; packed: wide_packed */
  if (p->vlen > most)
    p->vlen = most;
  p->few_row_runs = tgt->few_row_runs;
  p->alias_run_bytes = tgt->alias_run_bytes;
  p->gfni = p->sbits == 1 && p->dbits == 1 && p->vlen <= tgt->gfni_bytes; /* vlen bytes per bit tile */
  p->zmm = tgt->vector_bytes >= 64;
  p->ternlog = tgt->ternlog;
  bool real = lyElemGetKind(src->elem) != LY_ELEM_KIND_COMPLEX && lyElemGetKind(dst->elem) != LY_ELEM_KIND_COMPLEX;
  if (real && src->elem != dst->elem && p->sbits <= 4 && p->dbits <= 16) /* 16 codes at most: tables */
    p->lookup_bytes = tgt->pshufb_bytes < tgt->vector_bytes ? tgt->pshufb_bytes : tgt->vector_bytes;
  if (dst->elem == LY_ELEM_F16 && src->elem != LY_ELEM_F16)
    p->cvtph_bytes = tgt->cvtph_bytes < tgt->vector_bytes ? tgt->cvtph_bytes : tgt->vector_bytes;
  if (dst->elem == LY_ELEM_BF16 && src->elem != LY_ELEM_BF16)
    p->cvtbf16_bytes = tgt->cvtbf16_bytes < tgt->vector_bytes ? tgt->cvtbf16_bytes : tgt->vector_bytes;
  int64_t numel = 1;
  for (int d = 0; d < dst->rank; d++)
    numel *= dst->dims[d];
  if (numel == 0) { /* nothing to copy: all of dst is padding */
    p->kind = LYC_PLAN_NESTS;
    p->memset_dst = dst->alloc > 0;
    return true;
  }
  if (!has_general(src) && !has_general(dst)) {
    p->kind = LYC_PLAN_NESTS;
    int64_t sb = 0, db = 0; /* sub-byte: packed */
    lyTypeGetSizeBytes(lyd_wrap(src), &sb);
    lyTypeGetSizeBytes(lyd_wrap(dst), &db);
    p->resident = lyc_target_resident(tgt, sb + db);
    if (p->vlen == 64 && !wide_packed(p))
      p->vlen = 32;
    if (plan_nests(p) && (!shift || rotate_rows(p))) {
      /* Past the cache, stores that skip it save the read of each line they
       * fill; only the aligned transposes use them (memcpy decides alone). */
      for (int i = 0; i < p->nnests; i++) {
        p->nests[i].panel = zip_panel(&p->nests[i], p);
        p->nt = p->nt || (p->nests[i].inner != LYC_INNER_SCALAR && (p->nests[i].aligned || p->nests[i].panel));
      }
      p->nt = p->nt && (!p->resident || (sb + db > tgt->alias_nt_threshold && stores_alias(p)));
      for (int i = 0; i < p->nnests; i++)
        if (p->nests[i].inner == LYC_INNER_CONTIG && p->nests[i].aligned && !p->nests[i].packed)
          order_line_runs(&p->nests[i], p->dbytes, p->nt && !plain ? tgt->write_window : 0);
      for (int i = 0; p->nt && plain && i < p->nnests; i++)
        misaligned_nest(&p->nests[i], p);
      return true;
    }
    plan_reset(p); /* too many boxes or levels: fall back */
  }
  p->kind = LYC_PLAN_ELEMENTWISE;
  p->memset_dst = numel < dst->alloc || p->dbits < 8;
  return true;
}

void lyc_plan_free(LycPlan *p) { plan_reset(p); }

/* Whether a contig nest of whole-line runs (aligned) goes through the panel
 * in the plain variant (lyc_plan's plain): its runs short (at most
 * PANEL_RUN_BYTES), each continuing the last one of its row along the loop
 * before the rows (P: its destination stride is the run), as in nhwc ->
 * nChw16c, whose runs are a pixel's 16 channels and whose rows the channel
 * blocks; or joined (lyc_panel_joined: each row's run follows the last
 * row's, and P continues them all, as in nChw16c -> nhwc). Pieces of ym
 * runs of every row are copied into the panel, and the lines they complete
 * streamed (repack.c's contig_pieces). Into a destination 16 bytes off,
 * each 64-byte run was two partial lines through the cache: nhwc ->
 * nChw16c f32 32x64x56x56 ran at 12-19 GB/s, through the panel 20-28
 * (aligned: 30-34); nChw16c -> nhwc 9-16 (aligned 26-29). */
static bool contig_panel(LycNest *x, const LycPlan *p) {
  if (x->inner != LYC_INNER_CONTIG || !x->aligned || x->packed || x->nloops < 3 || p->resident || !p->zmm ||
      p->dbits < 8)
    return false;
  const LycLoop *P = &x->loops[x->nloops - 3], *R = &x->loops[x->nloops - 2], *run = &x->loops[x->nloops - 1];
  bool joined = lyc_panel_joined(x);
  int64_t bytes = run->n * (p->dbits / 8) * (joined ? R->n : 1); /* a piece's bytes per P position */
  if ((!joined && P->ds != run->n) || P->n * bytes < PANEL_RUN_BYTES || R->ds <= 0 || bytes > PANEL_RUN_BYTES)
    return false; /* (a row's sweep shorter than a piece would be mostly its two partial lines) */
  x->ym = (int)(PANEL_RUN_BYTES / bytes < P->n ? PANEL_RUN_BYTES / bytes : P->n);
  return panel_fits(x, p);
}

/* Whether a zip nest that stores aligned lines in the non-temporal variant
 * but cannot take the panel a Y run at a time (zip_panel: several Y loops)
 * goes through it a block at a time in the plain variant: its X rows and Y
 * group fill one destination range of at most PANEL_MAX_BYTES (less three
 * lines), under an outer loop that threads share. The block is transposed
 * into the panel, then streamed whole, its two end lines masked stores.
 * OIhw -> OIhw16i16o f32 (blocks of 9 KB) into a destination 16 bytes off,
 * interleaved, old against new kernel: 512x512x3x3 12.4-15.3 -> 17.7-28.3
 * GB/s (aligned: 22-24), 256x256x3x3 12.4-17.3 -> 26.2-29.3. */
static bool zip_block(const LycNest *x, const LycPlan *p) {
  if (x->inner != LYC_INNER_ZIP || x->xpad || x->wide_bits || x->packed || p->dbits < 8 || p->resident || !p->zmm ||
      x->nloops < x->ny + 2)
    return false;
  int64_t elems = zip_block_elems(x);
  return elems && elems * (p->dbits / 8) + 3 * LINE_BYTES <= PANEL_MAX_BYTES;
}

/* A nest of a plan with non-temporal stores, as its plain variant runs it
 * (in the order of plain stores: order_line_runs without a window). Into a
 * destination 16 bytes off, nChw16c -> nhwc f32 32x64x56x56 on the Zen 5
 * (interleaved, medians of 7): in the 16 KB windows of the streaming
 * variant with plain stores 25.8 GB/s, without them (destination order)
 * through the panel 50.6 (aligned, streaming: 46-66). */
static void misaligned_nest(LycNest *x, const LycPlan *p) {
  if (x->inner == LYC_INNER_ZIP && x->aligned) {
    x->aligned = false;
    x->panel = zip_panel(x, p);
    if (!x->panel && zip_block(x, p))
      x->panel = x->block = true;
  } else if (x->inner == LYC_INNER_CONTIG && contig_panel(x, p))
    x->aligned = false, x->panel = true;
}

static void print_nest(const LycNest *x, bool gfni, const char *what, int i, LyBuf *out) {
  ly_buf_printf(out, "%s %d: src+%lld dst+%lld", what, i, (long long)x->src_base, (long long)x->dst_base);
  for (int l = 0; l < x->nloops; l++)
    ly_buf_printf(out, " (%lld: %lld, %lld)", (long long)x->loops[l].n, (long long)x->loops[l].ss,
                  (long long)x->loops[l].ds);
  static const char *inner[] = {"scalar", "contig", "zip"};
  ly_buf_printf(out, " %s", inner[x->inner]);
  if (x->inner == LYC_INNER_CONTIG && x->aligned)
    ly_buf_puts(out, " aligned");
  if (x->inner == LYC_INNER_CONTIG && x->packed)
    ly_buf_puts(out, " bytes");
  if (x->src_order)
    ly_buf_puts(out, " src-order");
  if (x->inner == LYC_INNER_ZIP)
    ly_buf_printf(out, " y=%d%s%s%s", x->ny, x->aligned ? " aligned" : "", x->packed ? " bytes" : "",
                  x->bit_copy && gfni ? " gfni" : "");
  if (x->panel)
    ly_buf_puts(out, x->block ? " panel=block" : " panel");
  if (x->xsuper)
    ly_buf_printf(out, " xsuper=%lld", (long long)x->xsuper);
  if (x->ym > 1)
    ly_buf_printf(out, " ym=%d", x->ym);
  if (x->xg > 1)
    ly_buf_printf(out, " xg=%d", x->xg);
  if (x->xpad)
    ly_buf_printf(out, " xpad=%d", x->xpad);
  if (x->prefetch)
    ly_buf_printf(out, " prefetch=%d", x->prefetch);
  if (x->columns)
    ly_buf_puts(out, " columns");
  if (x->stage_rows)
    ly_buf_puts(out, " staged");
  if (x->rot)
    ly_buf_printf(out, " rotate=%d", x->rot);
  ly_buf_puts(out, "\n");
}

void lyc_plan_print(const LycPlan *p, const LycPlan *plain, LyBuf *out) {
  if (p->kind == LYC_PLAN_ELEMENTWISE)
    ly_buf_puts(out, "elementwise\n");
  if (p->memset_dst)
    ly_buf_puts(out, "memset dst\n");
  int npacked = 0;
  for (int i = 0; i < p->nnests; i++)
    npacked += p->nests[i].packed;
  bool sub = p->sbits < 8 || p->dbits < 8, all_packed = p->kind == LYC_PLAN_NESTS && p->nnests && npacked == p->nnests;
  if (p->kind == LYC_PLAN_NESTS && p->nnests && (!sub || npacked))
    ly_buf_printf(out, "vector %d%s%s\n", p->vlen, p->nt ? ", non-temporal stores when dst is 64-byte aligned" : "",
                  p->lookup_bytes ? ", codes looked up in tables" : "");
  if (sub && !all_packed)
    ly_buf_puts(out, "packed elements: scalar loops, one thread writes\n");
  for (int i = 0; i < p->nnests; i++)
    print_nest(&p->nests[i], p->gfni, "copy", i, out);
  for (int i = 0; i < p->nzero; i++)
    print_nest(&p->zero[i], false, "zero", i, out);
  if (p->kind == LYC_PLAN_NESTS && !p->memset_dst && !p->nnests && !p->nzero)
    ly_buf_puts(out, "nothing to copy\n"); /* no elements, no allocation */
  /* The plain variant's nests where they differ (the same nests, planned
   * alike but for their order and how they store). */
  for (int i = 0, head = 0; plain && p->nt && i < p->nnests && i < plain->nnests; i++) {
    LyBuf a, b;
    ly_buf_init(&a), ly_buf_init(&b);
    print_nest(&p->nests[i], p->gfni, "copy", i, &a);
    print_nest(&plain->nests[i], plain->gfni, "copy", i, &b);
    if (strcmp(ly_buf_cstr(&a), ly_buf_cstr(&b))) {
      if (!head++)
        ly_buf_puts(out, "when dst is not 64-byte aligned:\n");
      ly_buf_puts(out, ly_buf_cstr(&b));
    }
    if (a.oom || b.oom)
      out->oom = true;
    ly_buf_free(&a), ly_buf_free(&b);
  }
}

void lyc_plan_print_shifted(const LycPlan *p, int line_off, LyBuf *out) {
  ly_buf_printf(out, "when dst is %d bytes past a line (every offset +%lld elements):\n", line_off,
                (long long)p->dst_shift);
  for (int i = 0; i < p->nnests; i++)
    print_nest(&p->nests[i], p->gfni, "copy", i, out);
  for (int i = 0; i < p->nzero; i++)
    print_nest(&p->zero[i], false, "zero", i, out);
}
