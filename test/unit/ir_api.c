/* The IR API (layoutc/ir.h) as an embedder uses it: parse, verify, run a
 * pass, print; then every allocation made along the way fails in turn, and
 * each run must fail cleanly and leak nothing (run under LSan). */
#include <string.h>

#include "layoutc/ir.h"
#include "support/support.h"
#include "test_util.h"

static const char module_text[] =
    "func.func @f(%a: tensor<2x32x4x5xf32, \"nChw16c\">, %b: tensor<2x20x3x3xf32, \"nChw16c\">)\n"
    "    -> (tensor<2x2x16x4x5xf32, any>, tensor<40x3x3xf32, \"acb\">) {\n"
    "  %0 = \"layout.reshape\"(%a) : (tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x2x16x4x5xf32, any>\n"
    "  %1 = \"layout.reshape\"(%b) : (tensor<2x20x3x3xf32, \"nChw16c\">) -> tensor<40x3x3xf32, \"acb\">\n"
    "  %2 = \"layout.slice\"(%a) {offsets = [0, 8, 0, 0], sizes = [2, 16, 4, 5]}\n"
    "      : (tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x16x4x5xf32, any>\n"
    "  \"layout.op\"(%2) {name = \"sink\", k = [1, [2]]} : (tensor<2x16x4x5xf32, any>) -> ()\n"
    "  \"func.return\"(%0, %1) : (tensor<2x2x16x4x5xf32, any>, tensor<40x3x3xf32, \"acb\">) -> ()\n"
    "}\n";

static const char bad_verify[] =
    "func.func @f(%a: tensor<4x6xf32>) {\n"
    "  %0 = \"layout.reshape\"(%a) : (tensor<4x6xf32>) -> tensor<25xf32>\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* What mlir-opt prints (docs/ir.md §5.1), with the forms the parser keeps. */
static const char mlir_text[] =
    "#map = affine_map<(d0, d1) -> (d1, d0)>\n"
    "module @m attributes {test.n = 3 : i64, test.flag} {\n"
    "  func.func @f(%arg0: tensor<4x6xf32, #layout.tag<\"ab\">> {test.arg = 1 : i32}) -> tensor<6x4xf32, #layout.any> {\n"
    "    %0:2 = \"test.split\"(%arg0) {m = #map, a = array<i64: 1, 0>, d = {x = 1}} : (tensor<4x6xf32>) -> "
    "(tensor<4x6xf32>, tensor<4x6xf32, #layout.any>) loc(\"a.py\":1:2)\n"
    "    %1 = \"layout.transpose\"(%0#1) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32, #layout.any>) -> "
    "tensor<6x4xf32, #layout.any>\n"
    "    return %1 : tensor<6x4xf32, #layout.any>\n"
    "  }\n"
    "  func.func private @g(tensor<4x6xf32, #layout.memspace<1>>)\n"
    "}\n";

static const char bad_parse[] = "func.func @f(%a: tensor<4x6xf32>) {\n  %0 = \"layout.view\"(%b)";

typedef struct {
  int errors, notes;
  int first_line, first_col;
} Seen;

static void count(const LyDiagnostic *d, void *user) {
  Seen *s = user;
  if (d->severity == LY_SEVERITY_ERROR && s->errors++ == 0)
    s->first_line = d->line, s->first_col = d->column;
  if (d->severity == LY_SEVERITY_NOTE)
    s->notes++;
}

static void test_round_trip(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, count, &seen);
  LyModule m = lyModuleParse(c, module_text, strlen(module_text), "m.mlir");
  CHECK(!lyModuleIsNull(m));
  CHECK(lyModuleVerify(m) == LY_OK);
  char *s1 = lyModuleToString(m);
  LyModule m2 = lyModuleParse(c, s1, strlen(s1), "printed");
  char *s2 = lyModuleToString(m2);
  CHECK(s1 && s2 && !strcmp(s1, s2));
  CHECK(strstr(s1, "\"layout.reshape\"") != NULL);

  CHECK(lyModuleRunPass(m, "legalize-reshapes", LY_PASS_EXPLAIN) == LY_OK);
  CHECK(lyModuleVerify(m) == LY_OK);
  char *s3 = lyModuleToString(m);
  CHECK(s3 && !strstr(s3, "layout.reshape") && strstr(s3, "layout.relayout") && strstr(s3, "layout.view"));
  CHECK(seen.errors == 0 && seen.notes > 0);
  /* The MLIR form parses back to the same MLIR form. */
  LyModule m3 = lyModuleParse(c, mlir_text, strlen(mlir_text), "mlir.mlir");
  CHECK(!lyModuleIsNull(m3) && lyModuleVerify(m3) == LY_OK);
  char *t1 = lyModuleToStringWithFlags(m3, LY_PRINT_MLIR);
  LyModule m4 = lyModuleParse(c, t1, strlen(t1), "printed.mlir");
  char *t2 = lyModuleToStringWithFlags(m4, LY_PRINT_MLIR);
  CHECK(t1 && t2 && !strcmp(t1, t2) && !strncmp(t1, "#map = affine_map", 17));
  CHECK(strstr(t1, "%0:2 = \"test.split\"") && strstr(t1, "return %1 : tensor<6x4xf32, #layout.any>"));
  lyStringFree(t1);
  lyStringFree(t2);
  lyModuleDestroy(m3);
  lyModuleDestroy(m4);
  lyStringFree(s1);
  lyStringFree(s2);
  lyStringFree(s3);
  lyModuleDestroy(m);
  lyModuleDestroy(m2);
  lyContextDestroy(c);
}

static void test_errors(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, count, &seen);
  CHECK(lyModuleIsNull(lyModuleParse(c, bad_parse, strlen(bad_parse), NULL)));
  CHECK(seen.errors == 1 && seen.first_line == 2 && seen.first_col == 22);
  /* What a failed parse returns is refused, not dereferenced. */
  LyModule none = lyModuleParse(c, bad_parse, strlen(bad_parse), NULL);
  CHECK(lyModuleVerify(none) == LY_ERROR_INVALID);
  CHECK(lyModuleRunPass(none, "assign-layouts", LY_PASS_DEFAULT) == LY_ERROR_INVALID);
  CHECK(lyModuleRunPipeline(none, "legalize-reshapes", LY_PASS_DEFAULT) == LY_ERROR_INVALID);
  lyModuleDestroy(none);

  seen = (Seen){0};
  LyModule m = lyModuleParse(c, bad_verify, strlen(bad_verify), NULL);
  CHECK(!lyModuleIsNull(m));
  CHECK(lyModuleVerify(m) == LY_ERROR_INVALID);
  CHECK(seen.errors == 1 && seen.first_line == 2);
  /* A pass refuses IR that does not verify. */
  CHECK(lyModuleRunPass(m, "legalize-reshapes", LY_PASS_DEFAULT) == LY_ERROR_INVALID);
  CHECK(lyModuleRunPass(m, "no-such-pass", LY_PASS_DEFAULT) == LY_ERROR_INVALID);
  lyModuleDestroy(m);

  /* An empty module is valid and prints as "". */
  m = lyModuleParse(c, "", 0, NULL);
  char *s = lyModuleToString(m);
  CHECK(!lyModuleIsNull(m) && s && !*s);
  lyStringFree(s);
  lyModuleDestroy(m);
  lyContextDestroy(c);
}

static void test_registry(void) {
  CHECK(lyPassGetCount() >= 1);
  bool found = false;
  for (int i = 0; i < lyPassGetCount(); i++)
    found |= !strcmp(lyPassGetName(i), "legalize-reshapes") && *lyPassGetSummary(i);
  CHECK(found);
}

/* One full use of the API; returns how many steps succeeded. */
static int run_once(void) {
  LyContext c = lyContextCreate();
  if (lyContextIsNull(c))
    return 0;
  int ok = 0;
  const char *inputs[] = {module_text, bad_verify, bad_parse, mlir_text};
  for (int i = 0; i < 4; i++) {
    LyModule m = lyModuleParse(c, inputs[i], strlen(inputs[i]), NULL);
    if (lyModuleIsNull(m))
      continue;
    ok++;
    if (lyModuleRunPass(m, "legalize-reshapes", LY_PASS_EXPLAIN) == LY_OK) {
      ok++;
      char *s = lyModuleToString(m);
      ok += s != NULL;
      lyStringFree(s);
      s = lyModuleToStringWithFlags(m, LY_PRINT_MLIR);
      ok += s != NULL;
      lyStringFree(s);
    }
    lyModuleDestroy(m);
  }
  lyContextDestroy(c);
  return ok;
}

static void test_alloc_failure(void) {
  long before = ly_alloc_count();
  int full = run_once();
  long sites = ly_alloc_count() - before;
  CHECK(full == 9); /* module_text, mlir_text: parse, pass, 2 prints; bad_verify: parse */
  for (long n = 1; n <= sites; n++) {
    ly_alloc_fail_after(n);
    int got = run_once();
    ly_alloc_fail_after(0);
    CHECK(got <= full);
  }
  CHECK(run_once() == full);
  printf("ir_api: %ld allocation sites injected\n", sites);
}

/* Types that are not tensors, built by name (lyTypeParseValue) as an embedder
 * building a function with an index argument needs them. */
typedef struct {
  char msg[256];
  int line, col, errors;
} LastDiag;

static void last_diag(const LyDiagnostic *d, void *user) {
  LastDiag *l = user;
  l->errors++;
  l->line = d->line, l->col = d->column;
  snprintf(l->msg, sizeof l->msg, "%s", d->message);
}

static bool bad_value_type(LyContext ctx, LastDiag *l, const char *text, int col, const char *msg) {
  l->errors = 0;
  LyType t = lyTypeParseValue(ctx, text, strlen(text), "t");
  bool ok = lyTypeIsNull(t) && l->errors == 1 && l->col == col && strstr(l->msg, msg);
  if (!ok)
    fprintf(stderr, "'%s': %d errors, col %d: %s\n", text, l->errors, l->col, l->msg);
  return ok;
}

static void test_value_types(void) {
  LyContext ctx = lyContextCreate();
  LastDiag l = {0};
  lyContextSetDiagnosticHandler(ctx, last_diag, &l);
  static const char *const good[] = {"index", "i1", "i32", "ui8", "si64", "f16", "bf16", "f8E4M3FN", "none",
                                     "memref<4x?xf32, strided<[?, 1]>>", "vector<[4]xf32>", "complex<f32>",
                                     "tuple<i32, f32>", "!llvm.ptr", "!llvm.func<void (i32) -> i32>",
                                     "!foo.bar<\"a>b\">"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    LyType t = lyTypeParseValue(ctx, good[i], strlen(good[i]), "t");
    CHECK(!lyTypeIsNull(t) && !lyTypeIsTensor(t) && lyTypeGetRank(t) == 0);
    char *s = lyTypeIsNull(t) ? NULL : lyTypeToString(t);
    CHECK(s && !strcmp(s, good[i])); /* kept verbatim */
    lyStringFree(s);
    int64_t n;
    CHECK(!lyTypeIsNull(t) && lyTypeGetNumel(t, &n) == LY_ERROR_NOT_A_TENSOR);
    LyType again = lyTypeParseValue(ctx, good[i], strlen(good[i]), "t"); /* interned */
    CHECK(again.ptr == t.ptr);
  }
  /* A tensor goes through lyTypeParse: the same interned handle. */
  const char *tt = " tensor<4x6xf32, \"ba\"> ";
  LyType a = lyTypeParseValue(ctx, tt, strlen(tt), "t"), b = lyTypeParse(ctx, tt, strlen(tt), "t");
  CHECK(!lyTypeIsNull(a) && a.ptr == b.ptr && lyTypeIsTensor(a));
  CHECK(l.errors == 0);
  CHECK(bad_value_type(ctx, &l, "tensor<4x6>", 11, "expected 'x', found '>'"));
  CHECK(bad_value_type(ctx, &l, "memref<4xf32", 7, "'<' opened here is never closed"));
  CHECK(bad_value_type(ctx, &l, "i32 x", 4, "unexpected text after the type"));
  CHECK(bad_value_type(ctx, &l, "vector<4xf32>>", 14, "unexpected text after the type"));
  CHECK(bad_value_type(ctx, &l, "  intt", 3, "unknown type 'intt'"));
  CHECK(bad_value_type(ctx, &l, "", 1, "unknown type ''"));
  CHECK(bad_value_type(ctx, &l, "!x.y<\"\x01\">", 7, "unexpected byte 0x01"));
  /* A function over an index and a tensor, built and printed. */
  LyModule m = lyModuleCreate(ctx);
  LyType args[2] = {lyTypeParseValue(ctx, "index", 5, "t"), lyTypeParse(ctx, "tensor<4xf32>", 13, "t")};
  LyFunc f = lyFuncCreate(m, "g", 2, args, 1, &args[1]);
  CHECK(!lyFuncIsNull(f));
  LyValue ret = lyFuncGetArg(f, 1);
  CHECK(!lyOpIsNull(lyOpCreate(f, LY_OP_RETURN, 1, &ret, 0, NULL)));
  char *text = lyModuleToString(m);
  CHECK(text && strstr(text, "@g(%0: index, %1: tensor<4xf32>) -> tensor<4xf32>"));
  if (text && !strstr(text, "@g(%0: index"))
    fprintf(stderr, "%s", text);
  CHECK(lyModuleVerify(m) == LY_OK);
  lyStringFree(text);
  lyModuleDestroy(m);
  lyContextDestroy(ctx);
}

/* Walking an op's regions, as an embedder reading an MLIR pipeline's
 * scf.for does. */
static void test_regions(void) {
  LyContext ctx = lyContextCreate();
  const char *text = "func.func @f(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {\n"
                     "  %r = \"scf.for\"(%n, %a) ({\n"
                     "  ^bb0(%i: index, %acc: tensor<4xf32>):\n"
                     "    %v = \"layout.reshape\"(%acc) : (tensor<4xf32>) -> tensor<2x2xf32, any>\n"
                     "    \"scf.yield\"(%acc) : (tensor<4xf32>) -> ()\n"
                     "  }, {}) : (index, tensor<4xf32>) -> tensor<4xf32>\n"
                     "  return %r : tensor<4xf32>\n"
                     "}\n";
  LyModule m = lyModuleParse(ctx, text, strlen(text), "regions");
  CHECK(!lyModuleIsNull(m));
  if (lyModuleIsNull(m)) {
    lyContextDestroy(ctx);
    return;
  }
  LyOp loop = lyFuncGetFirstOp(lyModuleGetFirstFunc(m));
  CHECK(lyOpGetNumRegions(loop) == 2 && lyOpGetRegionNumArgs(loop, 0) == 2 && lyOpGetRegionNumArgs(loop, 1) == 0);
  CHECK(lyOpIsNull(lyOpGetRegionFirstOp(loop, 1)) && lyOpIsNull(lyOpGetRegionFirstOp(loop, 2)));
  CHECK(lyValueIsNull(lyOpGetRegionArg(loop, 0, 2)) && lyOpGetRegionNumArgs(loop, -1) == 0);
  LyValue acc = lyOpGetRegionArg(loop, 0, 1);
  CHECK(!lyValueIsNull(acc) && lyOpIsNull(lyValueGetDefiningOp(acc)));
  LyOp reshape = lyOpGetRegionFirstOp(loop, 0);
  CHECK(lyOpGetKind(reshape) == LY_OP_RESHAPE && lyValueEqual(lyOpGetOperand(reshape, 0), acc));
  CHECK(lyOpGetParentOp(reshape).ptr == loop.ptr && lyOpIsNull(lyOpGetParentOp(loop)));
  LyOp yield = lyOpGetNext(reshape);
  CHECK(!lyOpIsNull(yield) && lyOpIsNull(lyOpGetNext(yield)) && lyOpGetNumRegions(yield) == 0);
  /* The pass legalizes the reshape in its region. */
  CHECK(lyModuleRunPass(m, "legalize-reshapes", LY_PASS_DEFAULT) == LY_OK);
  CHECK(lyOpGetKind(lyOpGetRegionFirstOp(loop, 0)) == LY_OP_VIEW);
  lyModuleDestroy(m);
  lyContextDestroy(ctx);
}

int main(void) {
  test_regions();
  test_round_trip();
  test_errors();
  test_registry();
  test_value_types();
  test_alloc_failure();
  return TEST_DONE("ir_api");
}
