/* fuzz_alloc: allocation failure at an input-chosen allocation site. The
 * first two bytes pick the site n (ly_alloc_fail_after), the rest is a type,
 * parsed, printed and reshaped. An injected failure must be reported (a null
 * handle, a NULL string, a diagnostic), never crash, never leak (LSan), and
 * leave the context usable: afterwards the same text parses to the same
 * spelling as in a context that never saw a failure. */
#include "fuzz_common.h"
#include "support/support.h"

/* Everything one input does; with fault injection armed some steps fail. */
static char *run(LyContext ctx, const char *text, size_t len) {
  LyType t = lyTypeParse(ctx, text, len, NULL);
  if (lyTypeIsNull(t))
    return NULL;
  char *s = lyTypeToString(t);
  if (s) {
    LyType back = lyTypeParse(ctx, s, strlen(s), "<printed>");
    (void)back; /* may fail under injection */
  }
  int rank = lyTypeGetRank(t);
  int64_t numel, dims[LY_MAX_RANK];
  int perm[LY_MAX_RANK];
  if (lyTypeGetNumel(t, &numel) == LY_OK && !lyTypeIsDynamic(t) && !lyTypeIsAny(t)) {
    int injective;
    if (numel <= FZ_INJECTIVE_NUMEL) /* the exact check is slow on big types */
      (void)lyTypeIsInjective(t, &injective);
    for (int d = 0; d < rank; d++)
      perm[d] = rank - 1 - d;
    (void)lyTypePermute(ctx, t, perm);
    dims[0] = numel; /* flatten: a view, or a refusal whose note needs a relayout */
    (void)lyTypeReshape(ctx, t, 1, dims);
    (void)lyTypeGetReshapeRelayout(ctx, t, 1, dims);
  }
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  long n = 1 + (data[0] | data[1] << 8);
  const char *text = (const char *)data + 2;
  size -= 2;

  /* Reference run: how many allocations, and the expected spelling. */
  LyContext ref = fz_context();
  long before = ly_alloc_count();
  char *want = run(ref, text, size);
  long sites = ly_alloc_count() - before;
  lyContextDestroy(ref);
  if (sites == 0) {
    lyStringFree(want);
    return 0;
  }
  n = 1 + (n - 1) % (sites + 1); /* the context itself is one more */

  ly_alloc_fail_after(n);
  LyContext ctx = lyContextCreate();
  if (!lyContextIsNull(ctx)) {
    lyContextSetDiagnosticHandler(ctx, fz_diag_handler, NULL);
    lyStringFree(run(ctx, text, size));
  }
  ly_alloc_fail_after(0);
  if (!lyContextIsNull(ctx)) {
    /* The failure left nothing half-built behind. */
    char *again = run(ctx, text, size);
    if ((want == NULL) != (again == NULL) || (want && strcmp(want, again)))
      fz_fail("after an allocation failure at site %ld, the text gives '%s' instead of '%s'", n,
              again ? again : "(null)", want ? want : "(null)");
    lyStringFree(again);
    lyContextDestroy(ctx);
  }
  lyStringFree(want);
  return 0;
}
