/* The type API as an embedding compiler uses it: parse, intern, query,
 * print, diagnostics. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "layoutc/layoutc.h"
#include "test_util.h"

typedef struct {
  int count, line, col;
  char msg[256];
} Seen;

static void capture(const LyDiagnostic *d, void *user) {
  Seen *s = user;
  s->count++;
  s->line = d->line;
  s->col = d->column;
  snprintf(s->msg, sizeof s->msg, "%s", d->message);
}

static LyType parse(LyContext c, const char *s) { return lyTypeParse(c, s, strlen(s), NULL); }

static void test_interning(LyContext c) {
  const char *same[] = {"tensor<2x3x4x5xf32>", "tensor<2x3x4x5xf32, \"nchw\">",
                        "tensor<2x3x4x5xf32, tiled_layout<<0,1,2,3>>>",
                        "tensor<2x3x4x5xf32, strided<[60,20,5,1]>>",
                        "tensor<2x3x4x5xf32, \"NCHW\">", "tensor<2x3x4x5xf32, memspace<0>>"};
  LyType first = parse(c, same[0]);
  CHECK(!lyTypeIsNull(first));
  for (size_t i = 1; i < sizeof same / sizeof *same; i++)
    CHECK(lyTypeEqual(first, parse(c, same[i])));
  CHECK(lyTypeIsContiguous(first));
  /* A different memory space or element type is a different type. */
  CHECK(!lyTypeEqual(first, parse(c, "tensor<2x3x4x5xf32, memspace<1>>")));
  CHECK(!lyTypeEqual(first, parse(c, "tensor<2x3x4x5xf16>")));
  /* The hash is stable across contexts. */
  LyContext other = lyContextCreate();
  CHECK(lyTypeGetHash(first) == lyTypeGetHash(parse(other, "tensor<2x3x4x5xf32, strided<[60,20,5,1]>>")));
  lyContextDestroy(other);
  /* Row-major construction agrees with parsing. */
  int64_t dims[] = {2, 3, 4, 5};
  CHECK(lyTypeEqual(first, lyTypeGetRowMajor(c, LY_ELEM_F32, 4, dims)));
}

static void test_queries(LyContext c) {
  LyType t = parse(c, "tensor<2x20x3x3xf32, \"nChw16c\">");
  int64_t v, idx[] = {1, 17, 2, 1};
  CHECK(lyTypeGetRank(t) == 4 && lyTypeGetDim(t, 1) == 20);
  CHECK(lyTypeGetElement(t) == LY_ELEM_F32 && lyElemGetBits(LY_ELEM_F32) == 32);
  CHECK(lyTypeGetNumel(t, &v) == LY_OK && v == 360);
  CHECK(lyTypeGetAllocElements(t, &v) == LY_OK && v == 576);
  CHECK(lyTypeGetSizeBytes(t, &v) == LY_OK && v == 2304);
  CHECK(lyTypeGetOffset(t, idx, &v) == LY_OK && v == 545);
  idx[1] = 20;
  CHECK(lyTypeGetOffset(t, idx, &v) == LY_ERROR_RANGE);
  int inj = -1;
  CHECK(lyTypeIsInjective(t, &inj) == LY_OK && inj == 1);
  int64_t strides[4], off;
  CHECK(lyTypeGetStrides(t, strides, &off) == LY_ERROR_INVALID); /* blocked: not one stride per dim */

  LyType s = parse(c, "tensor<4x6xf32, strided<[1,4], offset: 2>>");
  CHECK(lyTypeGetStrides(s, strides, &off) == LY_OK && strides[0] == 4 && strides[1] == 16 && off == 2);
  CHECK(!lyTypeIsContiguous(s));

  LyType d = parse(c, "tensor<?x4xf32>");
  CHECK(lyTypeIsDynamic(d) && lyTypeGetDim(d, 0) == LY_DYNAMIC);
  CHECK(lyTypeGetNumel(d, &v) == LY_ERROR_DYNAMIC);
  CHECK(lyTypeGetAllocElements(d, &v) == LY_ERROR_DYNAMIC);

  LyType a = parse(c, "tensor<4xf32, any>");
  CHECK(lyTypeIsAny(a) && lyTypeGetAllocElements(a, &v) == LY_ERROR_ANY);

  LyType i4 = parse(c, "tensor<5x3xi4>");
  CHECK(lyTypeGetSizeBytes(i4, &v) == LY_OK && v == 8);

  int64_t num = 0;
  const char *str = NULL;
  CHECK(lyTypeGetMemorySpace(parse(c, "tensor<4xf32, memspace<\"hbm\">>"), &num, &str) == 2 && !strcmp(str, "hbm"));
  CHECK(lyTypeGetMemorySpace(parse(c, "tensor<4xf32, tiled_layout<<0>, 7>>"), &num, &str) == 1 && num == 7);
}

static void collect(const char *piece, size_t len, void *user) { strncat(user, piece, len); }

/* Every element type, as an embedder walks them: the name parses back to the same enum value and
 * the same type lyTypeGetRowMajor builds; the kind and component agree with the spelling; the
 * byte size is SPEC 2.4's ceil(elements * bits / 8). */
static void test_elements(LyContext c) {
  for (int i = 0; i < LY_ELEM_COUNT; i++) {
    LyElem e = (LyElem)i, back = LY_ELEM_COUNT;
    const char *name = lyElemGetName(e);
    CHECK(lyElemFromName(name, strlen(name), &back) && back == e);
    char text[64];
    snprintf(text, sizeof text, "tensor<5x%s>", name);
    LyType t = parse(c, text);
    int64_t dims[] = {5}, bytes = -1;
    CHECK(!lyTypeIsNull(t) && lyTypeGetElement(t) == e && lyTypeEqual(t, lyTypeGetRowMajor(c, e, 1, dims)));
    CHECK(lyTypeGetSizeBytes(t, &bytes) == LY_OK && bytes == (5 * lyElemGetBits(e) + 7) / 8);
    LyElemKind k = lyElemGetKind(e);
    CHECK((k == LY_ELEM_KIND_UNSIGNED) == !strncmp(name, "ui", 2));
    CHECK((k == LY_ELEM_KIND_SIGNED) == !strncmp(name, "si", 2));
    CHECK((k == LY_ELEM_KIND_COMPLEX) == !strncmp(name, "complex<", 8));
    LyElem comp = lyElemGetComponent(e);
    if (k == LY_ELEM_KIND_COMPLEX) /* complex<X>: two X */
      CHECK(lyElemGetKind(comp) == LY_ELEM_KIND_FLOAT && 2 * lyElemGetBits(comp) == lyElemGetBits(e) &&
            !strncmp(name + 8, lyElemGetName(comp), strlen(lyElemGetName(comp))));
    else
      CHECK(comp == e);
  }
  LyElem out = LY_ELEM_F32;
  CHECK(!lyElemFromName("ui7", 3, &out) && !lyElemFromName("f8E4M3", 6, &out) && !lyElemFromName("u8", 2, &out) &&
        out == LY_ELEM_F32);
  CHECK(lyElemFromName("index", 5, &out) && out == LY_ELEM_INDEX && lyElemGetBits(out) == 64);
  CHECK(lyElemGetBits(LY_ELEM_TF32) == 32 && lyElemGetBits(LY_ELEM_F6E2M3FN) == 6);
  CHECK(lyElemGetBits(LY_ELEM_COUNT) == 0 && !strcmp(lyElemGetName(LY_ELEM_COUNT), "?"));
}

static void test_printing(LyContext c) {
  const char *cases[][2] = {
      {"tensor<2x20x3x3xf32, \"nChw16c\">", "tensor<2x20x3x3xf32, \"aBcd16b\">"},
      {"tensor<4x6xf32, strided<[1,4]>>", "tensor<4x6xf32, \"ba\">"},
      {"tensor<4x6xf32, strided<[0,1]>>", "tensor<4x6xf32, strided<[0,1]>>"},
      {"tensor<f32>", "tensor<f32>"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    LyType t = parse(c, cases[i][0]);
    char *s = lyTypeToString(t);
    CHECK(s && !strcmp(s, cases[i][1]));
    char buf[512] = "";
    lyTypePrint(t, collect, buf);
    CHECK(!strcmp(buf, cases[i][1]));
    CHECK(lyTypeEqual(t, parse(c, s)));
    lyStringFree(s);
  }
}

static void test_diagnostics(LyContext c) {
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, capture, &seen);
  CHECK(lyTypeIsNull(parse(c, "tensor<4x6xf32, tiled_layout<<0,1>,(2,2,2)>>")));
  CHECK(seen.count == 1 && seen.line == 1 && seen.col == 36);
  CHECK(strstr(seen.msg, "tile has 3 dims") != NULL);
  /* Text with an embedded NUL is an error at that byte, not a truncation. */
  seen.count = 0;
  CHECK(lyTypeIsNull(lyTypeParse(c, "tensor<4xf32>\0x", 15, "<input>")));
  CHECK(seen.count == 1 && seen.col == 14);
  lyContextSetDiagnosticHandler(c, NULL, NULL);
}

int main(void) {
  LyContext c = lyContextCreate();
  test_interning(c);
  test_queries(c);
  test_elements(c);
  test_printing(c);
  test_diagnostics(c);
  lyContextDestroy(c);
  return TEST_DONE("api_types");
}
