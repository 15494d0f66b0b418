/* lyGroupedToPadded / lyGroupedFromPadded as an embedder calls them: hand-computed vectors
 * (empty groups, one group, every row in one group, a variable inner dim, i8/i64 offsets),
 * malformed offsets and pairs with their exact diagnostics, and random shapes against an
 * element-by-element reference written out here, small and megabytes large. Prints
 * `grouped_api: N checks, K failures`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"
#include "test_util.h"

/* 9x2 f32 in groups [1, 3, 5] (oneDNN's example), padded to 3x5x2: values 1..18. */
static void test_onednn_example(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<9x2xf32, grouped<variable_dim: 0, groups: 3>>");
  LyType p = test_parse(ctx, "tensor<3x5x2xf32>");
  int32_t off[3] = {1, 4, 9};
  float val[18], pad[30], back[18];
  for (int i = 0; i < 18; i++)
    val[i] = (float)(i + 1);
  const float want[30] = {1,  2,  0,  0,  0,  0,  0,  0,  0,  0,   /* group 0: one row */
                          3,  4,  5,  6,  7,  8,  0,  0,  0,  0,   /* group 1: three */
                          9,  10, 11, 12, 13, 14, 15, 16, 17, 18}; /* group 2: five */
  memset(pad, 0xff, sizeof pad);
  CHECK(lyGroupedToPadded(ctx, g, p, off, val, pad) == LY_OK);
  CHECK(!memcmp(pad, want, sizeof want));
  memset(back, 0xff, sizeof back);
  CHECK(lyGroupedFromPadded(ctx, g, p, off, pad, back) == LY_OK);
  CHECK(!memcmp(back, val, sizeof val));
}

/* Empty groups (first, middle, last), a padded extent larger than every group, i8 offsets. */
static void test_empty_groups(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<3x1xi16, grouped<variable_dim: 0, groups: 5, offsets: i8>>");
  LyType p = test_parse(ctx, "tensor<5x3x1xi16>");
  int8_t off[5] = {0, 2, 2, 3, 3}; /* sizes 0 2 0 1 0 */
  int16_t val[3] = {7, -8, 9}, pad[15], back[3] = {0};
  const int16_t want[15] = {0, 0, 0, 7, -8, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0};
  memset(pad, 0x55, sizeof pad);
  CHECK(lyGroupedToPadded(ctx, g, p, off, val, pad) == LY_OK);
  CHECK(!memcmp(pad, want, sizeof want));
  CHECK(lyGroupedFromPadded(ctx, g, p, off, pad, back) == LY_OK);
  CHECK(!memcmp(back, val, sizeof val));
}

/* Zero rows in all: every group empty, P = 0 (no padded bytes at all), no values. */
static void test_zero_rows(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<0x4xf32, grouped<variable_dim: 0, groups: 2>>");
  LyType p = test_parse(ctx, "tensor<2x0x4xf32>");
  int32_t off[2] = {0, 0};
  char pad[1];
  CHECK(lyGroupedToPadded(ctx, g, p, off, NULL, pad) == LY_OK);
  CHECK(lyGroupedFromPadded(ctx, g, p, off, pad, NULL) == LY_OK);
}

/* One group holding every row (the padded tensor is the values with a unit dim in front), and
 * all rows in the last of three groups, with i64 offsets. */
static void test_one_group(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<4x3xi8, grouped<variable_dim: 0, groups: 1>>");
  LyType p = test_parse(ctx, "tensor<1x4x3xi8>");
  int32_t off[1] = {4};
  int8_t val[12], pad[12];
  for (int i = 0; i < 12; i++)
    val[i] = (int8_t)(i * 3 - 5);
  CHECK(lyGroupedToPadded(ctx, g, p, off, val, pad) == LY_OK);
  CHECK(!memcmp(pad, val, sizeof val));
  LyType g3 = test_parse(ctx, "tensor<2x2xi8, grouped<variable_dim: 0, groups: 3, offsets: i64>>");
  LyType p3 = test_parse(ctx, "tensor<3x2x2xi8>");
  int64_t off3[3] = {0, 0, 2};
  int8_t want[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, v3[4] = {1, 2, 3, 4}, pad3[12];
  CHECK(lyGroupedToPadded(ctx, g3, p3, off3, v3, pad3) == LY_OK);
  CHECK(!memcmp(pad3, want, sizeof want));
}

/* The variable dim inside: 2x5 grouped along dim 1 in groups [2, 3] is the rows
 * [a b | c d e] of a row-major 2x5; padded to 2x2x3 (groups, rows, P = 3). */
static void test_inner_dim(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<2x5xf64, grouped<variable_dim: 1, groups: 2>>");
  LyType p = test_parse(ctx, "tensor<2x2x3xf64>");
  int32_t off[2] = {2, 5};
  double val[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, pad[12], back[10];
  const double want[12] = {1, 2, 0, 6, 7, 0, 3, 4, 5, 8, 9, 10};
  CHECK(lyGroupedToPadded(ctx, g, p, off, val, pad) == LY_OK);
  CHECK(!memcmp(pad, want, sizeof want));
  CHECK(lyGroupedFromPadded(ctx, g, p, off, pad, back) == LY_OK);
  CHECK(!memcmp(back, val, sizeof val));
}

static void expect_error(LyContext ctx, LyStatus s, const char *msg) {
  CHECK(s != LY_OK);
  CHECK(!strcmp(test_last_diag, msg));
  if (strcmp(test_last_diag, msg))
    fprintf(stderr, "  got:  %s\n  want: %s\n", test_last_diag, msg);
  test_last_diag[0] = 0;
}

/* Malformed offsets and pairs: each names the entry or the group; nothing is written. */
static void test_errors(LyContext ctx) {
  LyType g = test_parse(ctx, "tensor<9x2xf32, grouped<variable_dim: 0, groups: 3>>");
  LyType p = test_parse(ctx, "tensor<3x5x2xf32>");
  float val[18] = {0}, pad[30];
  int32_t dec[3] = {4, 1, 9}, neg[3] = {-1, 4, 9}, big[3] = {1, 4, 10}, short_[3] = {1, 4, 8}, wide[3] = {0, 1, 9};
  memset(pad, 0x7f, sizeof pad);
  expect_error(ctx, lyGroupedToPadded(ctx, g, p, dec, val, pad),
               "grouped buffer 0 (offsets): entry 1 is 1, below entry 0 (4): offsets are cumulative");
  CHECK(((unsigned char *)pad)[0] == 0x7f);
  expect_error(ctx, lyGroupedToPadded(ctx, g, p, neg, val, pad), "grouped buffer 0 (offsets): entry 0 is -1, negative");
  expect_error(ctx, lyGroupedFromPadded(ctx, g, p, big, pad, val),
               "grouped buffer 0 (offsets): entry 2 is 10, beyond the 9 rows of dim 0");
  expect_error(ctx, lyGroupedToPadded(ctx, g, p, short_, val, pad),
               "grouped buffer 0 (offsets): the last entry is 8, not the 9 rows of dim 0");
  expect_error(ctx, lyGroupedToPadded(ctx, g, p, wide, val, pad),
               "group 2 has 8 rows of dim 0 (offsets 1 to 9), more than the padded extent 5");
  expect_error(ctx, lyGroupedToPadded(ctx, g, test_parse(ctx, "tensor<3x5x3xf32>"), NULL, NULL, NULL),
               "the padded tensor of a grouped type is the row-major tensor<3xPx2xf32> (the groups, then its dims "
               "with dim 0 padded to P >= the largest group): its dim 2 is 3, not 2");
  expect_error(ctx, lyGroupedToPadded(ctx, g, test_parse(ctx, "tensor<4x5x2xf32>"), NULL, NULL, NULL),
               "the padded tensor of a grouped type is the row-major tensor<3xPx2xf32> (the groups, then its dims "
               "with dim 0 padded to P >= the largest group): its dim 0 is 4, not 3");
  expect_error(ctx, lyGroupedToPadded(ctx, g, test_parse(ctx, "tensor<3x5x2xf16>"), NULL, NULL, NULL),
               "the padded tensor of a grouped type is the row-major tensor<3xPx2xf32> (the groups, then its dims "
               "with dim 0 padded to P >= the largest group): the other type has rank 3 and element f16");
  expect_error(ctx, lyGroupedToPadded(ctx, g, test_parse(ctx, "tensor<3x5x2xf32, strided<[10,1,5]>>"), NULL, NULL, NULL),
               "the padded tensor of a grouped type is the row-major tensor<3xPx2xf32> (the groups, then its dims "
               "with dim 0 padded to P >= the largest group): the other type is not a row-major dense tensor");
  expect_error(ctx, lyGroupedToPadded(ctx, p, p, NULL, NULL, NULL),
               "a grouped <-> padded conversion needs a grouped<variable_dim: D, groups: G> type");
  expect_error(ctx, lyGroupedToPadded(ctx, test_parse(ctx, "tensor<8x2xi4, grouped<variable_dim: 0, groups: 2>>"),
                                      test_parse(ctx, "tensor<2x8x2xi4>"), NULL, NULL, NULL),
               "grouped values of i4 are not byte-sized");
}

/* The reference: every padded element by its index, from the group's offsets. */
static void reference(const int64_t *dims, int rank, int d, int64_t G, int64_t P, const int64_t *ends,
                      const uint16_t *val, uint16_t *pad) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < rank; i++)
    outer *= i < d ? dims[i] : 1, inner *= i > d ? dims[i] : 1;
  for (int64_t g = 0; g < G; g++)
    for (int64_t o = 0; o < outer; o++)
      for (int64_t r = 0; r < P; r++)
        for (int64_t k = 0; k < inner; k++) {
          int64_t start = g ? ends[g - 1] : 0, row = start + r;
          int64_t at = ((g * outer + o) * P + r) * inner + k;
          pad[at] = row < ends[g] ? val[(o * dims[d] + row) * inner + k] : 0;
        }
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static int64_t rnd(int64_t n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return n ? (int64_t)(rng % (uint64_t)n) : 0;
}

/* Random ranks 1-4, variable dims, group counts and sizes (empty ones often), i16 values. */
/* large: groups of up to 40 rows of at least 4096 odd-length elements after the variable dim
 * (megabytes, so past the cache under a low LAYOUTC_NT_THRESHOLD the runs stream: stream.c). */
static void test_random(LyContext ctx, int cases, bool large) {
  for (int c = 0; c < cases; c++) {
    int rank = 1 + (int)rnd(4), d = large ? 0 : (int)rnd(rank);
    rank = large && rank == 1 ? 2 : rank;
    int64_t G = 1 + rnd(6), dims[4], sizes[8], ends[8], P = 0, total = 0;
    for (int64_t g = 0; g < G; g++) {
      sizes[g] = rnd(3) == 0 ? 0 : rnd(large ? 40 : 5);
      total += sizes[g], ends[g] = total, P = sizes[g] > P ? sizes[g] : P;
    }
    P += rnd(2);
    char gt[256], pt[256];
    int kg = snprintf(gt, sizeof gt, "tensor<"), kp = snprintf(pt, sizeof pt, "tensor<%lld", (long long)G);
    int64_t n = 1, pn = G;
    for (int i = 0; i < rank; i++) {
      dims[i] = i == d ? total : large && i == rank - 1 ? 4096 + rnd(64) : 1 + rnd(3);
      n *= dims[i], pn *= i == d ? P : dims[i];
      kg += snprintf(gt + kg, sizeof gt - kg, "%lldx", (long long)dims[i]);
      kp += snprintf(pt + kp, sizeof pt - kp, "x%lld", (long long)(i == d ? P : dims[i]));
    }
    snprintf(gt + kg, sizeof gt - kg, "i16, grouped<variable_dim: %d, groups: %lld, offsets: i16>>", d, (long long)G);
    snprintf(pt + kp, sizeof pt - kp, "xi16>");
    LyType g = test_parse(ctx, gt), p = test_parse(ctx, pt);
    int16_t off[8];
    uint16_t *val = malloc((size_t)(n + 1) * 2), *back = malloc((size_t)(n + 1) * 2);
    uint16_t *pad = malloc((size_t)(pn + 1) * 2), *want = malloc((size_t)(pn + 1) * 2);
    for (int64_t g2 = 0; g2 < G; g2++)
      off[g2] = (int16_t)ends[g2];
    for (int64_t i = 0; i < n; i++)
      val[i] = (uint16_t)(1 + rnd(65535));
    reference(dims, rank, d, G, P, ends, val, want);
    memset(pad, 0xab, (size_t)(pn + 1) * 2);
    CHECK(lyGroupedToPadded(ctx, g, p, off, val, pad) == LY_OK);
    CHECK(!memcmp(pad, want, (size_t)pn * 2));
    memset(back, 0xcd, (size_t)(n + 1) * 2);
    CHECK(lyGroupedFromPadded(ctx, g, p, off, pad, back) == LY_OK);
    CHECK(!memcmp(back, val, (size_t)n * 2));
    free(val), free(back), free(pad), free(want);
  }
}

int main(void) {
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, test_record, NULL);
  test_onednn_example(ctx);
  test_empty_groups(ctx);
  test_zero_rows(ctx);
  test_one_group(ctx);
  test_inner_dim(ctx);
  test_errors(ctx);
  test_random(ctx, 500, false);
  test_random(ctx, 20, true);
  lyContextDestroy(ctx);
  return TEST_DONE("grouped_api");
}
