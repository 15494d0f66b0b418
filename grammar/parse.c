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

/* Parses text[begin, end) of src as one type; diagnostics are located in
 * src (file lines and columns). The lexer needs a NUL sentinel at the end,
 * so it runs on a copy that starts at the beginning of begin's line. */
const LyTypeImpl *lyp_parse_type_in(LyCtx *ctx, const LySource *src, size_t begin, size_t end) {
  if (end - begin > LYP_MAX_INPUT) {
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, src, (LyLoc){0, 0}, "input of %zu bytes exceeds the limit of %u",
                 end - begin, LYP_MAX_INPUT);
    return NULL;
  }
  size_t ls = begin;
  while (ls > 0 && src->text[ls - 1] != '\n')
    ls--;
  int line = 1;
  for (size_t i = 0; i < ls; i++)
    line += src->text[i] == '\n';
  char *buf = ly_malloc(end - ls + 1);
  LyParser *p = ly_malloc(sizeof *p);
  if (!buf || !p) {
    ly_free(buf);
    ly_free(p);
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  memcpy(buf, src->text + ls, end - ls);
  buf[end - ls] = 0;
  memset(p, 0, sizeof *p);
  p->buf = p->line_start = buf;
  p->cur = p->tok = buf + (begin - ls);
  p->lim = buf + (end - ls);
  p->line = line;
  p->ctx = ctx;
  p->src = *src;
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
    lyp_error(p, (LyLoc){line, 1}, "syntax error");
  ly_arena_free(&p->arena);
  ly_free(p);
  ly_free(buf);
  return t;
}

LyType lyTypeParse(LyContext c, const char *text, size_t len, const char *name) {
  LySource src = {name ? name : "<input>", text, len};
  return lyd_wrap(lyp_parse_type_in(lyd_ctx(c), &src, 0, len));
}
