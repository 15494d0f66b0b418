/* fuzz_assign: assign-layouts on arbitrary modules. Bad input must be a
 * diagnostic; a module that verifies either fails the pass with an error
 * (contradictory constraints) or comes out verified, with no `any` left, a
 * fixed point of the pass, and never costlier than the row-major baseline
 * (the cost each run reports in its --debug-reasons remark). */
#include <inttypes.h>
#include <string.h>

#include "fuzz_common.h"
#include "layoutc/ir.h"

/* The totals of the remarks, in order (one per function). */
typedef struct {
  int64_t total[64];
  int n;
} Totals;

/* The last error, for a failure report. */
static char last_error[512];

static void totals_handler(const LyDiagnostic *d, void *user) {
  Totals *t = user;
  fz_diag_handler(d, NULL);
  if (d->severity == LY_SEVERITY_ERROR)
    snprintf(last_error, sizeof last_error, "%d:%d: %s", d->line, d->column, d->message);
  const char *s = strstr(d->message, "total cost ");
  if (s && strstr(d->message, "assign-layouts") && t->n < 64)
    t->total[t->n++] = strtoll(s + 11, NULL, 10);
}

/* Whether any tensor value of the module (arguments, op results, function
 * results) still has layout `any`. Asked of the IR, not of the printed text:
 * a dialect type such as memref<4xf32, any> or a string may spell ", any>"
 * without being a tensor layout the pass had to choose. */
static bool has_any(LyModule m) {
  for (LyFunc f = lyModuleGetFirstFunc(m); !lyFuncIsNull(f); f = lyFuncGetNext(f)) {
    if (lyOpIsNull(lyFuncGetFirstOp(f)))
      continue; /* a declaration: the passes leave it alone (docs/ir.md) */
    for (int i = 0; i < lyFuncGetNumArgs(f); i++)
      if (lyTypeIsAny(lyValueGetType(lyFuncGetArg(f, i))))
        return true;
    for (int i = 0; i < lyFuncGetNumResults(f); i++)
      if (lyTypeIsAny(lyFuncGetResultType(f, i)))
        return true;
    for (LyOp op = lyFuncGetFirstOp(f); !lyOpIsNull(op); op = lyOpGetNext(op))
      for (int i = 0; i < lyOpGetNumResults(op); i++)
        if (lyTypeIsAny(lyValueGetType(lyOpGetResult(op, i))))
          return true;
  }
  return false;
}

/* Runs the pass on a fresh parse; the printed result, or NULL when the pass
 * (rightly) refused. */
static char *assign(LyContext ctx, const uint8_t *data, size_t size, unsigned flags, Totals *t) {
  lyContextSetDiagnosticHandler(ctx, totals_handler, t);
  LyModule m = lyModuleParse(ctx, (const char *)data, size, NULL);
  char *out = NULL;
  int before = fz_errors;
  if (lyModuleIsNull(m)) { /* only a printed result comes here unparsed */
    fz_fail("the printed result of assign-layouts does not parse (%s):\n%.*s", last_error, (int)size,
            (const char *)data);
  }
  if (lyModuleRunPass(m, "assign-layouts", flags | LY_PASS_EXPLAIN) == LY_OK) {
    if (lyModuleVerify(m) != LY_OK)
      fz_fail("assign-layouts produced a module that does not verify");
    out = lyModuleToString(m);
    if (has_any(m))
      fz_fail("'any' left after assign-layouts:\n%s", out);
  } else if (fz_errors == before) {
    fz_fail("assign-layouts failed without an error");
  }
  lyModuleDestroy(m);
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LyContext ctx = fz_context();
  fz_errors = 0;
  LyModule m = lyModuleParse(ctx, (const char *)data, size, NULL);
  bool valid = !lyModuleIsNull(m) && lyModuleVerify(m) == LY_OK;
  lyModuleDestroy(m);
  if (!valid) {
    lyContextDestroy(ctx);
    return 0;
  }
  Totals exact = {0}, rm = {0}, again = {0};
  char *out = assign(ctx, data, size, 0, &exact);
  char *base = assign(ctx, data, size, LY_PASS_ASSIGN_ROW_MAJOR, &rm);
  if (out) {
    char *twice = assign(ctx, (const uint8_t *)out, strlen(out), 0, &again);
    if (!twice || strcmp(out, twice))
      fz_fail("assign-layouts is not idempotent:\n%s\n---\n%s", out, twice ? twice : "(failed)");
    lyStringFree(twice);
  }
  if (out && base && exact.n == rm.n)
    for (int i = 0; i < exact.n; i++)
      if (exact.total[i] > rm.total[i])
        fz_fail("function #%d costs %" PRId64 ", more than row-major's %" PRId64, i, exact.total[i], rm.total[i]);
  lyStringFree(out);
  lyStringFree(base);
  lyContextDestroy(ctx);
  return 0;
}
