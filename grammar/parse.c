/* grammar/parse: runs the generated lexer and parser over a string and hands
 * the parsed type to desc. */
#include "parse.h"
#include "type.tab.h"

#include <stdio.h>
#include <string.h>

/* Inputs longer than this are refused before lexing. */
#define LYP_MAX_INPUT (16u << 20)

void lyp_error(LyParser *p, LyLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&p->ctx->diag, LY_SEVERITY_ERROR, &p->src, loc, fmt, ap);
  va_end(ap);
}

LyType lyTypeParse(LyContext c, const char *text, size_t len, const char *name) {
  LyCtx *ctx = lyd_ctx(c);
  LySource src = {name ? name : "<input>", text, len};
  if (len > LYP_MAX_INPUT) {
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, &src, (LyLoc){0, 0}, "input of %zu bytes exceeds the limit of %u",
                 len, LYP_MAX_INPUT);
    return (LyType){NULL};
  }
  /* A private NUL-terminated copy: the lexer's end-of-input sentinel. */
  char *buf = ly_malloc(len + 1);
  LyParser *p = ly_malloc(sizeof *p);
  if (!buf || !p) {
    ly_free(buf);
    ly_free(p);
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return (LyType){NULL};
  }
  memcpy(buf, text, len);
  buf[len] = 0;
  memset(p, 0, sizeof *p);
  p->buf = p->cur = p->tok = p->line_start = buf;
  p->lim = buf + len;
  p->line = 1;
  p->ctx = ctx;
  p->src = (LySource){src.name, buf, len};
  p->ast.src = &p->src;
  p->ast.spec.kind = LYS_NONE;
  p->ast.spec.size = -1;
  const LyTypeImpl *t = NULL;
  int errors = ctx->diag.errors;
  int rc = lyt_parse(p);
  if (rc == 0 && ctx->diag.errors == errors)
    t = lyd_build(ctx, &p->ast);
  else if (rc == 2)
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
  else if (ctx->diag.errors == errors)
    lyp_error(p, (LyLoc){1, 1}, "syntax error");
  ly_arena_free(&p->arena);
  ly_free(p);
  ly_free(buf);
  return lyd_wrap(t);
}
