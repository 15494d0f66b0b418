/* passes/pipeline: runs a comma-separated list of registered passes
 * ("legalize-reshapes,assign-layouts"), looked up by name in the registry
 * so every pass added there is available here. */
#include "passes/passes.h"

#include <stdarg.h>
#include <string.h>

#define MAX_PIPELINE 64

static void pipeline_error(LyirModule *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pipeline_error(LyirModule *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&m->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
}

/* Splits the pipeline into passes; false after a diagnostic. */
static bool parse_pipeline(LyirModule *m, const char *pipeline, const LypassInfo **out, int *n) {
  const char *s = pipeline;
  *n = 0;
  while (*s) {
    while (*s == ' ')
      s++;
    const char *b = s;
    while (*s && *s != ',')
      s++;
    const char *e = s;
    while (e > b && e[-1] == ' ')
      e--;
    char name[128];
    int len = (int)(e - b);
    if (len == 0 || len >= (int)sizeof name) {
      pipeline_error(m, "%s pass name in the pipeline '%s'", len ? "overlong" : "empty", pipeline);
      return false;
    }
    memcpy(name, b, (size_t)len);
    name[len] = 0;
    if (*n == MAX_PIPELINE) {
      pipeline_error(m, "pipeline longer than %d passes", MAX_PIPELINE);
      return false;
    }
    if (!(out[(*n)++] = lypass_lookup(name))) {
      pipeline_error(m, "unknown pass '%s' in the pipeline", name);
      return false;
    }
    if (*s == ',' && !*++s) {
      pipeline_error(m, "the pipeline '%s' ends with ','", pipeline);
      return false;
    }
  }
  return true;
}

LyStatus lyModuleRunPipeline(LyModule mod, const char *pipeline, unsigned flags) {
  LyirModule *m = mod.ptr;
  const LypassInfo *passes[MAX_PIPELINE];
  int n;
  if (!m) /* a failed parse: no context to report in */
    return LY_ERROR_INVALID;
  if (!parse_pipeline(m, pipeline ? pipeline : "", passes, &n))
    return LY_ERROR_INVALID;
  for (int i = 0; i < n; i++) {
    LyStatus s = lyModuleRunPass(mod, passes[i]->name, flags);
    if (s != LY_OK)
      return s;
  }
  return lyir_verify(m) ? LY_OK : LY_ERROR_INVALID;
}
