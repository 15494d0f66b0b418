/* passes: the registry (one table row per pass) and the public entry point
 * that runs a pass by name. */
#include "passes/passes.h"

#include <string.h>

static const LypassInfo passes[] = {
    {"legalize-reshapes",
     "turn reshape, transpose, slice and broadcast into zero-copy views, relayouting first where needed",
     lypass_legalize_reshapes},
    {"assign-layouts",
     "choose every 'any' layout and layout.op variant for the least relayout bytes and variant cost (exact PBQP), "
     "then legalize",
     lypass_assign_layouts},
};

int lypass_count(void) { return (int)(sizeof passes / sizeof passes[0]); }

const LypassInfo *lypass_get(int i) {
  LY_ASSERT(i >= 0 && i < lypass_count());
  return &passes[i];
}

const LypassInfo *lypass_lookup(const char *name) {
  for (int i = 0; i < lypass_count(); i++)
    if (!strcmp(passes[i].name, name))
      return &passes[i];
  return NULL;
}

int lyPassGetCount(void) { return lypass_count(); }
const char *lyPassGetName(int i) { return lypass_get(i)->name; }
const char *lyPassGetSummary(int i) { return lypass_get(i)->summary; }

LyStatus lyModuleRunPass(LyModule mod, const char *name, unsigned flags) {
  LyirModule *m = mod.ptr;
  if (!m) /* a failed parse: no context to report in */
    return LY_ERROR_INVALID;
  const LypassInfo *p = lypass_lookup(name);
  if (!p) {
    ly_diag_emit(&m->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "unknown pass '%s'", name);
    return LY_ERROR_INVALID;
  }
  /* Passes assume valid IR; an embedder may not have verified. */
  if (!lyir_verify(m))
    return LY_ERROR_INVALID;
  return p->run(m, flags);
}
