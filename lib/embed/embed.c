/* embed: what an embedding compiler needs beyond the core API: status names,
 * the library version, and view queries that answer "not a view" as a status
 * instead of an error diagnostic. No LLVM here (part of layoutc-core). */
#include "desc/desc.h"

#include <stdio.h>
#include <string.h>

LAYOUTC_API const char *lyStatusGetString(LyStatus s) {
  static const char *const names[] = {
      "LY_OK",           "LY_ERROR_INVALID",  "LY_ERROR_DYNAMIC",  "LY_ERROR_ANY",        "LY_ERROR_RANGE",
      "LY_ERROR_OVERFLOW", "LY_ERROR_UNKNOWN", "LY_ERROR_NOMEM", "LY_ERROR_NOT_A_VIEW",
      "LY_ERROR_OPAQUE",   "LY_ERROR_NOT_A_TENSOR", "LY_ERROR_MULTI_BUFFER"};
  if ((unsigned)s >= sizeof names / sizeof names[0])
    return "?";
  return names[s];
}

#define STR2(x) #x
#define STR(x) STR2(x)

LAYOUTC_API int lyGetVersion(void) { return LAYOUTC_VERSION; }

LAYOUTC_API const char *lyGetVersionString(void) {
  return STR(LAYOUTC_VERSION_MAJOR) "." STR(LAYOUTC_VERSION_MINOR) "." STR(LAYOUTC_VERSION_PATCH);
}

/* ===== View queries ============================================================ */

/* The view algebra reports "no view" as an error diagnostic followed by
 * notes. A query holds the diagnostics back until it knows whether the
 * failure was that (then they are dropped) or a bad request (then they are
 * passed on, in order, to the handler the caller installed). */
#define HELD_MAX 16

typedef struct {
  LyDiagEngine saved;
  int n;
  LySeverity sev[HELD_MAX];
  char msg[HELD_MAX][512];
} Held;

static void hold(const LyDiagnostic *d, void *user) {
  Held *h = user;
  if (h->n == HELD_MAX)
    return;
  h->sev[h->n] = d->severity;
  snprintf(h->msg[h->n], sizeof h->msg[0], "%s", d->message);
  h->n++;
}

static void hold_begin(LyCtx *c, Held *h) {
  h->saved = c->diag;
  h->n = 0;
  c->diag.handler = hold;
  c->diag.user = h;
}

static LyStatus hold_end(LyCtx *c, Held *h, LyType r, LyType *out) {
  c->diag = h->saved; /* a held-back "not a view" counts as no error */
  *out = r;
  if (!lyTypeIsNull(r))
    return LY_OK;
  if (c->view_refused)
    return LY_ERROR_NOT_A_VIEW;
  for (int i = 0; i < h->n; i++)
    ly_diag_emit(&c->diag, h->sev[i], NULL, (LyLoc){0, 0}, "%s", h->msg[i]);
  return strstr(h->n ? h->msg[0] : "", "out of memory") ? LY_ERROR_NOMEM : LY_ERROR_INVALID;
}

LAYOUTC_API LyStatus lyTypeTryReshape(LyContext ctx, LyType t, int rank, const int64_t *dims, LyType *view) {
  Held h;
  hold_begin(lyd_ctx(ctx), &h);
  return hold_end(lyd_ctx(ctx), &h, lyTypeReshape(ctx, t, rank, dims), view);
}

LAYOUTC_API LyStatus lyTypeTryReshapeStrided(LyContext ctx, LyType t, int rank, const int64_t *dims,
                                             LyType *view) {
  Held h;
  hold_begin(lyd_ctx(ctx), &h);
  return hold_end(lyd_ctx(ctx), &h, lyTypeReshapeStrided(ctx, t, rank, dims), view);
}

LAYOUTC_API LyStatus lyTypeTrySlice(LyContext ctx, LyType t, const int64_t *offsets, const int64_t *sizes,
                                    LyType *view) {
  Held h;
  hold_begin(lyd_ctx(ctx), &h);
  return hold_end(lyd_ctx(ctx), &h, lyTypeSlice(ctx, t, offsets, sizes), view);
}
