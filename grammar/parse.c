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

/* --- Types of IR values that are not tensors ---------------------------------- */

static bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$';
}

static void value_type_error(LyCtx *c, const LySource *src, const char *text, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void value_type_error(LyCtx *c, const LySource *src, const char *text, size_t at, const char *fmt, ...) {
  int line = 1;
  size_t ls = 0;
  for (size_t i = 0; i < at; i++)
    if (text[i] == '\n')
      line++, ls = i + 1;
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&c->diag, LY_SEVERITY_ERROR, src, (LyLoc){line, (int)(at - ls) + 1}, fmt, ap);
  va_end(ap);
}

/* The end of the bracketed part `<...>` that starts at text[i] (as the IR
 * lexer reads it: strings skipped, the '>' of '->' not a close), or 0 when
 * it is never closed. */
static size_t bracket_end(const char *text, size_t i, size_t len) {
  int depth = 0;
  for (; i < len; i++) {
    char c = text[i];
    if (c == '"') {
      while (++i < len && text[i] != '"')
        i += text[i] == '\\';
      if (i >= len)
        return 0;
    } else if (c == '<') {
      depth++;
    } else if (c == '>' && !(i > 0 && text[i - 1] == '-') && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

LyType lyTypeParseValue(LyContext ctx, const char *text, size_t len, const char *name) {
  LyCtx *c = lyd_ctx(ctx);
  LySource src = {name ? name : "<input>", text, len};
  size_t b = 0, e = len;
  while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\n' || text[b] == '\r'))
    b++;
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\n' || text[e - 1] == '\r'))
    e--;
  size_t h = b + (b < e && text[b] == '!');
  while (h < e && is_id_char(text[h]))
    h++;
  if ((h - b == 6 && !memcmp(text + b, "tensor", 6)) || (e - b >= 2 && !memcmp(text + b, "//", 2)))
    return lyTypeParse(ctx, text, len, name);
  size_t end = h;
  if (h < e && text[h] == '<' && !(end = bracket_end(text, h, e))) {
    value_type_error(c, &src, text, h, "'<' opened here is never closed");
    return (LyType){NULL};
  }
  for (size_t i = b; i < end; i++)
    if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) {
      value_type_error(c, &src, text, i, "unexpected byte 0x%02x in type", (unsigned char)text[i]);
      return (LyType){NULL};
    }
  if (end != e) {
    value_type_error(c, &src, text, end, "unexpected text after the type");
    return (LyType){NULL};
  }
  if (b == e || !lyd_foreign_name(text + b, e - b)) {
    int n = e - b > 40 ? 40 : (int)(e - b);
    value_type_error(c, &src, text, b, "unknown type '%.*s%s' (expected a tensor type, an MLIR builtin type such as "
                     "index, i32 or memref<...>, or a dialect type !dialect.name)", n, text + b, n < (int)(e - b) ? "..." : "");
    return (LyType){NULL};
  }
  return lyd_wrap(lyd_foreign(c, text + b, e - b));
}
