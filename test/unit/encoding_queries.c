/* The multi-buffer encoding queries as an embedder uses them to allocate storage: buffer count,
 * role, level, element and size, nnz, levels, widths and the grouped queries on csr, coo (AoS
 * and SoA), BSR, DCSR, 2:4, grouped, packed, a host scalar and a dense type. Every expected
 * value is computed by hand from MLIR's storage order (StorageLayout::foreachField: per level
 * its positions then its coordinates, values last) and oneDNN's buffer sizes. Prints
 * `encoding_queries: N checks, K failures`. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "layoutc/layoutc.h"
#include "test_util.h"

/* One expected buffer: size -1 when it depends on an unknown count. */
typedef struct {
  LyBufferRole role;
  int level;
  LyElem elem;
  int64_t size;
} Buf;

static LyType parse(LyContext ctx, const char *text) {
  LyType t = lyTypeParse(ctx, text, strlen(text), "<test>");
  if (lyTypeIsNull(t))
    fprintf(stderr, "cannot parse %s\n", text);
  return t;
}

/* The buffer list of t against the expected one, then an index past it. */
static void check_buffers(LyType t, const Buf *want, int n) {
  CHECK(lyTypeGetNumBuffers(t) == n);
  int64_t size = -7;
  for (int i = 0; i < n; i++) {
    CHECK(lyTypeGetBufferRole(t, i) == want[i].role);
    CHECK(lyTypeGetBufferLevel(t, i) == want[i].level);
    CHECK(lyTypeGetBufferElement(t, i) == want[i].elem);
    LyStatus s = lyTypeGetBufferSizeBytes(t, i, &size);
    CHECK(want[i].size < 0 ? s == LY_ERROR_DYNAMIC : s == LY_OK && size == want[i].size);
  }
  CHECK(lyTypeGetBufferSizeBytes(t, n, &size) == LY_ERROR_RANGE);
  CHECK(lyTypeGetBufferSizeBytes(t, -1, &size) == LY_ERROR_RANGE);
}

static void check_nnz(LyType t, LyStatus want_status, int64_t want) {
  int64_t nnz = -7;
  LyStatus s = lyTypeGetNnz(t, &nnz);
  CHECK(s == want_status);
  CHECK(s != LY_OK || nnz == want);
}

/* CSR 4x6, nnz 5, i32: positions 4 + 1 entries, 5 coordinates, 5 values (oneDNN's csr: 3 handles). */
static void test_csr(LyContext ctx) {
  LyType t = parse(ctx, "tensor<4x6xf32, csr<nnz: 5, index: i32, pointer: i32>>");
  const Buf want[] = {{LY_BUFFER_POSITIONS, 1, LY_ELEM_I32, 20},
                      {LY_BUFFER_COORDINATES, 1, LY_ELEM_I32, 20},
                      {LY_BUFFER_VALUES, -1, LY_ELEM_F32, 20}};
  check_buffers(t, want, 3);
  CHECK(lyTypeGetEncoding(t) == LY_ENCODING_CSR);
  check_nnz(t, LY_OK, 5);
  CHECK(lyTypeGetNumLevels(t) == 2);
  CHECK(lyTypeGetLevelFormat(t, 0) == LY_LEVEL_DENSE && lyTypeGetLevelFormat(t, 1) == LY_LEVEL_COMPRESSED);
  CHECK(lyTypeGetPosWidth(t) == 32 && lyTypeGetCrdWidth(t) == 32);
  CHECK(lyTypeGetGroupedDim(t) == -1 && lyTypeGetGroupCount(t) == -1);
  int64_t total; /* no single allocation: the buffers are the sizes */
  CHECK(lyTypeGetSizeBytes(t, &total) == LY_ERROR_MULTI_BUFFER);
  /* nnz '?' (i64 pointers, i16 indices): the positions are known, the rest is not. */
  LyType q = parse(ctx, "tensor<4x6xf64, csr<nnz: ?, index: i16, pointer: i64>>");
  const Buf wq[] = {{LY_BUFFER_POSITIONS, 1, LY_ELEM_I64, 40},
                    {LY_BUFFER_COORDINATES, 1, LY_ELEM_I16, -1},
                    {LY_BUFFER_VALUES, -1, LY_ELEM_F64, -1}};
  check_buffers(q, wq, 3);
  check_nnz(q, LY_ERROR_DYNAMIC, 0);
}

/* coo (SoA: oneDNN's coo, one coordinates buffer per dim) keeps MLIR's positions [0, nnz]. */
static void test_coo_soa(LyContext ctx) {
  LyType t = parse(ctx, "tensor<4x6xf32, coo<nnz: 5, index: i32>>");
  const Buf want[] = {{LY_BUFFER_POSITIONS, 0, LY_ELEM_I32, 8},
                      {LY_BUFFER_COORDINATES, 0, LY_ELEM_I32, 20},
                      {LY_BUFFER_COORDINATES, 1, LY_ELEM_I32, 20},
                      {LY_BUFFER_VALUES, -1, LY_ELEM_F32, 20}};
  check_buffers(t, want, 4);
  CHECK(lyTypeGetEncoding(t) == LY_ENCODING_COO);
  check_nnz(t, LY_OK, 5);
  CHECK(lyTypeGetLevelProperties(t, 0) == LY_LEVEL_NONUNIQUE);
  CHECK(lyTypeGetLevelFormat(t, 1) == LY_LEVEL_SINGLETON && (lyTypeGetLevelProperties(t, 1) & LY_LEVEL_SOA));
}

/* COO without soa: one array-of-structs buffer at level 0, 2 coordinates per entry. 3-D, i8
 * coordinates: 3 x 7 entries of 1 byte; positions 2 x 2 bytes. */
static void test_coo_aos(LyContext ctx) {
  LyType t = parse(ctx, "tensor<2x3x4xi16, #sparse_tensor.encoding<{ map = (i, j, k) -> (i : compressed(nonunique), "
                        "j : singleton(nonunique), k : singleton), posWidth = 16, crdWidth = 8, nnz = 7 }>>");
  const Buf want[] = {{LY_BUFFER_POSITIONS, 0, LY_ELEM_I16, 4},
                      {LY_BUFFER_COORDINATES, 0, LY_ELEM_I8, 21},
                      {LY_BUFFER_VALUES, -1, LY_ELEM_I16, 14}};
  check_buffers(t, want, 3);
  CHECK(lyTypeGetEncoding(t) == LY_ENCODING_SPARSE);
  check_nnz(t, LY_OK, 7);
  CHECK(lyTypeGetNumLevels(t) == 3);
  CHECK(lyTypeGetPosWidth(t) == 16 && lyTypeGetCrdWidth(t) == 8);
}

/* BSR 8x8 in 2x2 blocks, 16 values = 4 blocks: positions 4 + 1, coordinates 4, index width. */
static void test_bsr(LyContext ctx) {
  LyType t = parse(ctx, "tensor<8x8xf32, #sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 "
                        ": compressed, i mod 2 : dense, j mod 2 : dense), nnz = 16 }>>");
  const Buf want[] = {{LY_BUFFER_POSITIONS, 1, LY_ELEM_I64, 40},
                      {LY_BUFFER_COORDINATES, 1, LY_ELEM_I64, 32},
                      {LY_BUFFER_VALUES, -1, LY_ELEM_F32, 64}};
  check_buffers(t, want, 3);
  check_nnz(t, LY_OK, 16);
  CHECK(lyTypeGetNumLevels(t) == 4 && lyTypeGetPosWidth(t) == 0 && lyTypeGetCrdWidth(t) == 0);
  int64_t fd = -1, md = -1;
  CHECK(lyTypeGetLevelDim(t, 1, &fd, &md) == 1 && fd == 2 && md == 0);
  CHECK(lyTypeGetLevelDim(t, 2, &fd, &md) == 0 && fd == 0 && md == 2);
  CHECK(lyTypeGetLevelDim(t, 4, &fd, &md) == -1);
}

/* DCSR: the outer compressed level's entries (non-empty rows) are unknown, so its
 * coordinates and the inner positions are; the inner coordinates and values are nnz. */
static void test_dcsr(LyContext ctx) {
  LyType t = parse(ctx, "tensor<4x6xi8, #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed), "
                        "posWidth = 32, crdWidth = 32, nnz = 5 }>>");
  const Buf want[] = {{LY_BUFFER_POSITIONS, 0, LY_ELEM_I32, 8},
                      {LY_BUFFER_COORDINATES, 0, LY_ELEM_I32, -1},
                      {LY_BUFFER_POSITIONS, 1, LY_ELEM_I32, -1},
                      {LY_BUFFER_COORDINATES, 1, LY_ELEM_I32, 20},
                      {LY_BUFFER_VALUES, -1, LY_ELEM_I8, 5}};
  check_buffers(t, want, 5);
}

/* 2:4 on 4x8: 4 x 2 groups of 4 keep 2 each: 16 coordinates (index: 8 bytes) and 16 values;
 * the levels fix nnz. */
static void test_2_4(LyContext ctx) {
  LyType t = parse(ctx, "tensor<4x8xf16, #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, "
                        "j mod 4 : structured[2, 4]) }>>");
  const Buf want[] = {{LY_BUFFER_COORDINATES, 2, LY_ELEM_I64, 128}, {LY_BUFFER_VALUES, -1, LY_ELEM_F16, 32}};
  check_buffers(t, want, 2);
  check_nnz(t, LY_OK, 16);
  CHECK(lyTypeGetLevelFormat(t, 2) == LY_LEVEL_N_OUT_OF_M);
  CHECK(lyTypeGetLevelStructuredN(t, 2) == 2 && lyTypeGetLevelStructuredM(t, 2) == 4);
  CHECK(lyTypeGetLevelStructuredN(t, 1) == 0);
  int64_t fd, md;
  CHECK(lyTypeGetLevelDim(t, 2, &fd, &md) == 1 && fd == 0 && md == 4);
}

/* oneDNN's grouped (MoE): 3 offsets of i32 (12 bytes; i64 gives 24) before the 9 x 256 values
 * (oneDNN lists values first). */
static void test_grouped(LyContext ctx) {
  LyType t = parse(ctx, "tensor<9x256xf32, grouped<variable_dim: 0, groups: 3>>");
  const Buf want[] = {{LY_BUFFER_OFFSETS, -1, LY_ELEM_I32, 12}, {LY_BUFFER_VALUES, -1, LY_ELEM_F32, 9216}};
  check_buffers(t, want, 2);
  CHECK(lyTypeGetEncoding(t) == LY_ENCODING_GROUPED);
  CHECK(lyTypeGetGroupedDim(t) == 0 && lyTypeGetGroupCount(t) == 3);
  check_nnz(t, LY_ERROR_INVALID, 0);
  CHECK(lyTypeGetNumLevels(t) == 0);
  LyType w = parse(ctx, "tensor<4x10x2xbf16, grouped<variable_dim: 1, groups: 6, offsets: i64>>");
  const Buf ww[] = {{LY_BUFFER_OFFSETS, -1, LY_ELEM_I64, 48}, {LY_BUFFER_VALUES, -1, LY_ELEM_BF16, 160}};
  check_buffers(w, ww, 2);
  CHECK(lyTypeGetGroupedDim(w) == 1 && lyTypeGetGroupCount(w) == 6);
}

/* packed leaves its buffers to the implementation; a host scalar and a dense type have one. */
static void test_others(LyContext ctx) {
  LyType p = parse(ctx, "tensor<4x6xf32, packed<nnz: 5>>");
  CHECK(lyTypeGetEncoding(p) == LY_ENCODING_PACKED);
  CHECK(lyTypeGetNumBuffers(p) == -1);
  check_nnz(p, LY_OK, 5);
  int64_t size;
  CHECK(lyTypeGetBufferSizeBytes(p, 0, &size) == LY_ERROR_RANGE);
  LyType h = parse(ctx, "tensor<f64, host_scalar>");
  const Buf wh[] = {{LY_BUFFER_VALUES, -1, LY_ELEM_F64, 8}};
  check_buffers(h, wh, 1);
  CHECK(lyTypeGetEncoding(h) == LY_ENCODING_HOST_SCALAR);
  check_nnz(h, LY_ERROR_INVALID, 0);
  LyType d = parse(ctx, "tensor<2x20x3x3xf32, \"nChw16c\">");
  const Buf wd[] = {{LY_BUFFER_VALUES, -1, LY_ELEM_F32, 2304}}; /* padded to 32 channels */
  check_buffers(d, wd, 1);
  CHECK(lyTypeGetEncoding(d) == LY_ENCODING_NONE);
  CHECK(lyTypeGetNumLevels(d) == 0 && lyTypeGetGroupedDim(d) == -1);
}

int main(void) {
  LyContext ctx = lyContextCreate();
  test_csr(ctx);
  test_coo_soa(ctx);
  test_coo_aos(ctx);
  test_bsr(ctx);
  test_dcsr(ctx);
  test_2_4(ctx);
  test_grouped(ctx);
  test_others(ctx);
  lyContextDestroy(ctx);
  return TEST_DONE("encoding_queries");
}
