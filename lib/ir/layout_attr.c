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

/* Successful applications, by (interned type, spelling): the verifier and
 * assign-layouts ask for every entry of every variant, and a large
 * function repeats a few types and spellings many times over (each miss
 * prints a type and parses it back). Failures are not kept: they are rare
 * and their reason is wanted. An allocation failure only means no entry. */
typedef struct {
  const LyTypeImpl *t, *r;
  const char *s;
  int len;
  uint64_t h;
} MemoEntry;

struct LyirLayoutMemo {
  MemoEntry *e;
  size_t cap, count;
};

static uint64_t memo_hash(const LyTypeImpl *t, LyirStr s) {
  return ly_hash_bytes(ly_hash_i64(LY_HASH_INIT, (int64_t)(uintptr_t)t), s.s, (size_t)s.len);
}

static MemoEntry *memo_slot(MemoEntry *e, size_t cap, const LyTypeImpl *t, LyirStr s, uint64_t h) {
  size_t i = (size_t)(h ^ (h >> 31)) & (cap - 1);
  while (e[i].t && (e[i].t != t || e[i].h != h || e[i].len != s.len || memcmp(e[i].s, s.s, (size_t)s.len)))
    i = (i + 1) & (cap - 1);
  return &e[i];
}

static const LyTypeImpl *memo_get(LyirModule *m, const LyTypeImpl *t, LyirStr s, uint64_t h) {
  struct LyirLayoutMemo *c = m->layouts;
  if (!c || !c->cap)
    return NULL;
  return memo_slot(c->e, c->cap, t, s, h)->r;
}

static void memo_put(LyirModule *m, const LyTypeImpl *t, LyirStr s, uint64_t h, const LyTypeImpl *r) {
  struct LyirLayoutMemo *c = m->layouts;
  if (!c) {
    if (!(c = ly_malloc(sizeof *c)))
      return;
    *c = (struct LyirLayoutMemo){0};
    m->layouts = c;
  }
  if (2 * (c->count + 1) > c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    MemoEntry *e = ly_malloc(cap * sizeof *e);
    if (!e)
      return;
    memset(e, 0, cap * sizeof *e);
    for (size_t i = 0; i < c->cap; i++)
      if (c->e[i].t)
        *memo_slot(e, cap, c->e[i].t, (LyirStr){c->e[i].s, c->e[i].len}, c->e[i].h) = c->e[i];
    ly_free(c->e);
    c->e = e, c->cap = cap;
  }
  char *copy = ly_arena_strndup(&m->arena, s.s, (size_t)s.len);
  if (!copy)
    return;
  *memo_slot(c->e, c->cap, t, s, h) = (MemoEntry){t, r, copy, s.len, h};
  c->count++;
}

void lyir_layout_memo_free(LyirModule *m) {
  if (m->layouts)
    ly_free(m->layouts->e);
  ly_free(m->layouts);
  m->layouts = NULL;
}

static const LyTypeImpl *apply_uncached(LyirModule *m, const LyTypeImpl *t, LyirStr s, LyBuf *why);

const LyTypeImpl *lyir_layout_apply(LyirModule *m, const LyTypeImpl *t, LyirStr s, LyBuf *why) {
  uint64_t h = memo_hash(t, s);
  const LyTypeImpl *r = memo_get(m, t, s, h);
  if (r)
    return r;
  r = apply_uncached(m, t, s, why);
  if (r)
    memo_put(m, t, s, h, r);
  return r;
}

static const LyTypeImpl *apply_uncached(LyirModule *m, const LyTypeImpl *t, LyirStr s, LyBuf *why) {
  if (lyd_is_foreign(t)) { /* only "any" (no requirement) applies to a value that is not a tensor */
    if (s.len == 3 && !memcmp(s.s, "any", 3))
      return t;
    if (why)
      ly_buf_printf(why, "%s (write \"any\" for it)", LYD_FOREIGN_WHY);
    return NULL;
  }
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
