/* assign-layouts through the public API, as an embedder runs it: the
 * chosen layouts come back in the printed module, the remark through the
 * diagnostic handler; and every allocation failing in turn gives a clean
 * failure (or success), never a crash or a leak (the sanitizer run
 * checks leaks). */
#include <stdlib.h>
#include <string.h>

#include "layoutc/ir.h"
#include "support/support.h"
#include "test_util.h"

static const char *module_text =
    "func.func @f(%x: tensor<1x32x4x4xf32>, %y: tensor<1x32x4x4xf32, any>, %w: tensor<4x6xf32>) -> "
    "(tensor<1x32x4x4xf32, any>, tensor<6x4xf32, any>) {\n"
    "  %0 = \"layout.op\"(%x) {name = \"p\", variants = [[\"nchw\", \"nchw\", 100], [\"nchw\", \"nChw16c\", 200]]} "
    ": (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, any>\n"
    "  %1 = \"layout.op\"(%0, %y) {name = \"add\", elementwise = true} : (tensor<1x32x4x4xf32, any>, "
    "tensor<1x32x4x4xf32, any>) -> tensor<1x32x4x4xf32, any>\n"
    "  %2 = \"layout.op\"(%1) {name = \"c\", variants = [[\"nChw16c\", \"any\", 0]]} : (tensor<1x32x4x4xf32, any>) "
    "-> tensor<1x32x4x4xf32, any>\n"
    "  %3 = \"layout.transpose\"(%w) {permutation = [1, 0]} : (tensor<4x6xf32>) -> tensor<6x4xf32, any>\n"
    "  %4 = \"layout.op\"(%3) {name = \"m\", variants = [[\"ab\", \"ab\", 0], [\"ba\", \"ab\", 50]]} : "
    "(tensor<6x4xf32, any>) -> tensor<6x4xf32, any>\n"
    "  \"func.return\"(%2, %4) : (tensor<1x32x4x4xf32, any>, tensor<6x4xf32, any>) -> ()\n"
    "}\n";

typedef struct {
  int notes;
  char remark[512];
} Seen;

static void handler(const LyDiagnostic *d, void *user) {
  Seen *s = user;
  if (d->severity == LY_SEVERITY_NOTE)
    s->notes++;
  if (strstr(d->message, "assign-layouts: total cost"))
    snprintf(s->remark, sizeof s->remark, "%s", d->message);
}

static void test_result(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, handler, &seen);
  LyModule m = lyModuleParse(c, module_text, strlen(module_text), "f.mlir");
  CHECK(!lyModuleIsNull(m));
  CHECK(lyModuleRunPass(m, "assign-layouts", LY_PASS_EXPLAIN) == LY_OK);
  CHECK(lyModuleVerify(m) == LY_OK);
  char *s = lyModuleToString(m);
  CHECK(s && !strstr(s, ", any>"));
  /* The producer's blocked variant (200) beats a copy (2 * 2048 bytes); %y
   * is chosen blocked; the transpose of %w is a free view read by "ba". */
  CHECK(s && strstr(s, "%y: tensor<1x32x4x4xf32, \"aBcd16b\">"));
  CHECK(s && strstr(s, "variants = [[\"nchw\", \"nChw16c\", 200]]"));
  CHECK(s && strstr(s, "variants = [[\"ba\", \"ab\", 50]]"));
  CHECK(s && !strstr(s, "layout.relayout"));
  CHECK(strstr(seen.remark, "total cost 250 (relayout bytes 0, variants 250); lower bound 250; proven optimal"));
  CHECK(seen.notes >= 3);
  lyStringFree(s);
  /* A second run changes nothing. */
  s = lyModuleToString(m);
  CHECK(lyModuleRunPass(m, "assign-layouts", LY_PASS_DEFAULT) == LY_OK);
  char *t = lyModuleToString(m);
  CHECK(s && t && !strcmp(s, t));
  lyStringFree(s);
  lyStringFree(t);
  lyModuleDestroy(m);
  lyContextDestroy(c);
}

/* One full run; how many steps succeeded. */
static int run_once(unsigned flags) {
  LyContext c = lyContextCreate();
  if (lyContextIsNull(c))
    return 0;
  int ok = 0;
  LyModule m = lyModuleParse(c, module_text, strlen(module_text), NULL);
  if (!lyModuleIsNull(m)) {
    ok++;
    LyStatus st = lyModuleRunPass(m, "assign-layouts", flags);
    /* The verifier, run first, may read a failed allocation as a layout
     * that does not apply: LY_ERROR_INVALID is clean too. */
    CHECK(st == LY_OK || st == LY_ERROR_NOMEM || st == LY_ERROR_INVALID);
    if (st == LY_OK) {
      ok++;
      char *s = lyModuleToString(m);
      ok += s != NULL;
      lyStringFree(s);
    }
    lyModuleDestroy(m);
  }
  lyContextDestroy(c);
  return ok;
}

static void test_alloc_failure(unsigned flags) {
  long before = ly_alloc_count();
  int full = run_once(flags);
  long sites = ly_alloc_count() - before;
  CHECK(full == 3);
  for (long n = 1; n <= sites; n++) {
    ly_alloc_fail_after(n);
    int got = run_once(flags);
    ly_alloc_fail_after(0);
    CHECK(got <= full);
  }
  CHECK(run_once(flags) == full);
  printf("assign_api: %ld allocation sites injected\n", sites);
}

int main(void) {
  test_result();
  test_alloc_failure(LY_PASS_EXPLAIN);
  test_alloc_failure(LY_PASS_ASSIGN_GREEDY);
  return TEST_DONE("assign_api");
}
