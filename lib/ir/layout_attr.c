/* ir/layout_attr: the layout strings of `layout.op` variants (SPEC 3.6),
 * applied to a value's dims, element type and memory space. Shared by the
 * verifier and assign-layouts, so both read a variant the same way. */
#include "ir/ir.h"

#include <string.h>

/* While applying, the context's diagnostics are kept as the reason instead
 * of reported, and the error count is restored: a layout that does not
 * apply is the caller's message to give, at the attribute. */
typedef struct {
  LyDiagEngine *engine;
  LyDiagnosticHandler handler;
  void *user;
  int errors;
  LyBuf *why;
} Quiet;

static void quiet_handler(const LyDiagnostic *d, void *user) {
  Quiet *q = user;
  if (q->why && d->severity == LY_SEVERITY_ERROR && !q->why->len)
    ly_buf_puts(q->why, d->message);
}

static bool is_keyword_form(LyirStr s) {
  static const char *const forms[] = {"tiled_layout<", "strided<", "layout<"};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    size_t n = strlen(forms[i]);
    if ((size_t)s.len >= n && !memcmp(s.s, forms[i], n))
      return true;
  }
  return false;
}

static bool same_ms_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

const LyTypeImpl *lyir_layout_apply(LyirModule *m, const LyTypeImpl *t, LyirStr s, LyBuf *why) {
  LyBuf spelled;
  ly_buf_init(&spelled);
  /* A format tag is written bare in a variant ("nChw16c"); in a type it is
   * a quoted string. */
  if (is_keyword_form(s) || (s.len == 3 && !memcmp(s.s, "any", 3)))
    ly_buf_printf(&spelled, "%.*s", s.len, s.s);
  else
    ly_buf_printf(&spelled, "\"%.*s\"", s.len, s.s);
  Quiet q = {&m->ctx->diag, m->ctx->diag.handler, m->ctx->diag.user, m->ctx->diag.errors, why};
  q.engine->handler = quiet_handler;
  q.engine->user = &q;
  const LyTypeImpl *r = NULL;
  if (!spelled.oom && !memchr(s.s, '\n', (size_t)s.len))
    r = lyd_type(lyTypeWithLayout((LyContext){m->ctx}, lyd_wrap(t), ly_buf_cstr(&spelled)));
  q.engine->handler = q.handler;
  q.engine->user = q.user;
  q.engine->errors = q.errors;
  ly_buf_free(&spelled);
  /* The string is spliced into a type: it must not smuggle in a memory
   * space or anything else that changes more than the layout. */
  if (r && (r->rank != t->rank || memcmp(r->dims, t->dims, (size_t)t->rank * sizeof t->dims[0]) ||
            r->elem != t->elem || r->ms_num != t->ms_num || !same_ms_str(r->ms_str, t->ms_str))) {
    if (why && !why->len)
      ly_buf_puts(why, "it changes more than the layout");
    r = NULL;
  }
  if (!r && why && !why->len)
    ly_buf_puts(why, "it is not a layout");
  return r;
}
