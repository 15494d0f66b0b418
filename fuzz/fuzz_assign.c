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

static void totals_handler(const LyDiagnostic *d, void *user) {
  Totals *t = user;
  fz_diag_handler(d, NULL);
  const char *s = strstr(d->message, "total cost ");
  if (s && strstr(d->message, "assign-layouts") && t->n < 64)
    t->total[t->n++] = strtoll(s + 11, NULL, 10);
}

/* Runs the pass on a fresh parse; the printed result, or NULL when the pass
 * (rightly) refused. */
static char *assign(LyContext ctx, const uint8_t *data, size_t size, unsigned flags, Totals *t) {
  lyContextSetDiagnosticHandler(ctx, totals_handler, t);
  LyModule m = lyModuleParse(ctx, (const char *)data, size, NULL);
  char *out = NULL;
  int before = fz_errors;
  if (lyModuleRunPass(m, "assign-layouts", flags | LY_PASS_EXPLAIN) == LY_OK) {
    if (lyModuleVerify(m) != LY_OK)
      fz_fail("assign-layouts produced a module that does not verify");
    out = lyModuleToString(m);
  } else if (fz_errors == before) {
    fz_fail("assign-layouts failed without an error");
  }
  lyModuleDestroy(m);
  return out;
}

/* Whether a type in the printed module still has layout `any` (strings,
 * which may hold anything, are skipped). */
static bool has_any(const char *text) {
  bool in_string = false;
  for (const char *p = text; *p; p++) {
    if (*p == '"')
      in_string = !in_string;
    else if (!in_string && !strncmp(p, ", any>", 6))
      return true;
  }
  return false;
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
    if (has_any(out))
      fz_fail("'any' left after assign-layouts:\n%s", out);
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
