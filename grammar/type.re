/* grammar/type.re: the lexer for textual types (re2c 3.0). The cursor lives
 * in the LyParser; the buffer is NUL-terminated and a NUL before the end is
 * an unexpected character. */
#include "parse.h"
#include "type.tab.h"

#include <string.h>

static LyLoc tok_loc(LyParser *p) {
  if (p->in_alias)
    return p->alias_loc;
  return (LyLoc){p->line, (int)(p->tok - p->line_start) + 1};
}

static void set_loc(LyParser *p, LYT_LTYPE *l) {
  if (p->in_alias) {
    l->first_line = l->last_line = p->alias_loc.line;
    l->first_column = l->last_column = p->alias_loc.col;
    return;
  }
  l->first_line = l->last_line = p->line;
  l->first_column = (int)(p->tok - p->line_start) + 1;
  l->last_column = (int)(p->cur - p->line_start);
  p->end_loc = (LyLoc){p->line, l->last_column + 1};
}

static int open_bracket(LyParser *p, char c) {
  if (p->nopen == LYP_MAX_NEST) {
    lyp_error(p, tok_loc(p), "brackets nested more than %d deep", LYP_MAX_NEST);
    p->lex_error = true;
    return LYT_LYT_UNDEF;
  }
  p->open[p->nopen].ch = c;
  p->open[p->nopen++].loc = tok_loc(p);
  return c;
}

static int close_bracket(LyParser *p, char c) {
  static const char pairs[] = "<>()[]{}";
  char want = pairs[strchr(pairs, c) - pairs - 1];
  if (p->nopen == 0 || p->open[p->nopen - 1].ch != want) {
    if (p->nopen == 0)
      lyp_error(p, tok_loc(p), "unbalanced '%c': nothing is open here", c);
    else
      lyp_error(p, tok_loc(p), "'%c' does not close '%c' opened at column %d", c, p->open[p->nopen - 1].ch,
                p->open[p->nopen - 1].loc.col);
    p->lex_error = true;
    return LYT_LYT_UNDEF;
  }
  p->nopen--;
  return c;
}

/* `#name` of the module's aliases: the lexer reads the alias's text (one
 * level: an alias inside an alias is an error) and then resumes. */
static bool enter_alias(LyParser *p) {
  int len = (int)(p->cur - p->tok) - 1, n;
  const char *text = p->in_alias || !p->ctx->alias_lookup
                         ? NULL
                         : p->ctx->alias_lookup(p->ctx->alias_user, p->tok + 1, len, &n);
  if (!text)
    return false;
  char *copy = ly_arena_alloc(&p->arena, (size_t)n + 1); /* the lexer needs its NUL sentinel */
  if (!copy)
    return false;
  memcpy(copy, text, (size_t)n);
  copy[n] = 0;
  p->alias_loc = tok_loc(p);
  p->saved_cur = p->cur, p->saved_lim = p->lim, p->saved_line_start = p->line_start, p->saved_line = p->line;
  p->cur = p->line_start = copy;
  p->lim = copy + n;
  p->in_alias = true;
  return true;
}

int lyt_lex(LYT_STYPE *val, LYT_LTYPE *loc, LyParser *p) {
  const char *YYMARKER = NULL;
  bool after_dim;
again:
  after_dim = p->after_dim;
  p->after_dim = false;
  p->tok = p->cur;
  if (after_dim && p->cur < p->lim && *p->cur == 'x') {
    p->cur++;
    set_loc(p, loc);
    return LYT_X;
  }
  /*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "p->cur";
    re2c:define:YYLIMIT = "p->lim";
    re2c:yyfill:enable = 0;
    re2c:eof = 0;

    digit = [0-9];
    ident = [a-zA-Z_][a-zA-Z0-9_]*;

    $ {
      if (p->in_alias) { /* back to the type after `#name` */
        p->cur = p->saved_cur, p->lim = p->saved_lim, p->line_start = p->saved_line_start, p->line = p->saved_line;
        p->in_alias = false;
        goto again;
      }
      /* End of input is reported just after the last token. */
      LyLoc e = p->end_loc.line ? p->end_loc : (LyLoc){1, 1};
      loc->first_line = loc->last_line = e.line;
      loc->first_column = loc->last_column = e.col;
      return LYT_YYEOF;
    }
    [ \t\r]+ { p->after_dim = after_dim; goto again; }
    "\n" { p->line++; p->line_start = p->cur; p->after_dim = after_dim; goto again; }
    "//" [^\n\x00]* { p->after_dim = after_dim; goto again; }

    "tensor" { set_loc(p, loc); return LYT_TENSOR; }
    "tiled_layout" { set_loc(p, loc); return LYT_TILED; }
    "strided" { set_loc(p, loc); return LYT_STRIDED; }
    "offset" { set_loc(p, loc); return LYT_OFFSET; }
    "any" { set_loc(p, loc); return LYT_ANY; }
    "memspace" { set_loc(p, loc); return LYT_MEMSPACE; }
    "layout" { set_loc(p, loc); return LYT_LAYOUT; }
    "size" { set_loc(p, loc); return LYT_SIZE; }
    "floordiv" { set_loc(p, loc); return LYT_FLOORDIV; }
    "opaque" { set_loc(p, loc); return LYT_OPAQUE; }
    "affine_map" { set_loc(p, loc); return LYT_AFFINE_MAP; }
    "ceildiv" { set_loc(p, loc); return LYT_CEILDIV; }
    "->" { set_loc(p, loc); return LYT_ARROW; }

    /* The MLIR form of docs/ir.md: one dialect attribute per type. */
    "#layout.any" { set_loc(p, loc); return LYT_M_ANY; }
    "#layout.tag" { set_loc(p, loc); return LYT_M_TAG; }
    "#layout.tiled" { set_loc(p, loc); return LYT_M_TILED; }
    "#layout.strided" { set_loc(p, loc); return LYT_M_STRIDED; }
    "#layout.general" { set_loc(p, loc); return LYT_M_GENERAL; }
    "#layout.memspace" { set_loc(p, loc); return LYT_M_MEMSPACE; }
    "#layout.opaque" { set_loc(p, loc); return LYT_M_OPAQUE; }
    "#layout.morton" { set_loc(p, loc); return LYT_M_MORTON; }
    "#sparse_tensor.encoding" { set_loc(p, loc); return LYT_M_SPARSE; }
    "#layout." ident {
      set_loc(p, loc);
      lyp_error(p, tok_loc(p), "unknown layout attribute '%.*s' (expected #layout.any, #layout.tag, "
                "#layout.tiled, #layout.strided, #layout.general, #layout.opaque, #layout.morton or #layout.memspace)",
                (int)(p->cur - p->tok) > 40 ? 40 : (int)(p->cur - p->tok), p->tok);
      p->lex_error = true;
      return LYT_LYT_UNDEF;
    }
    "#" ident {
      if (enter_alias(p))
        goto again;
      set_loc(p, loc);
      val->str.s = p->tok + 1;
      val->str.len = (int)(p->cur - p->tok) - 1;
      return LYT_ALIAS;
    }
    "\xe2\x80" [\x9c\x9d\x98\x99] {
      set_loc(p, loc);
      lyp_error(p, tok_loc(p), "curly quote: a format tag is written between straight quotes, \"NCHW\"");
      p->lex_error = true;
      return LYT_LYT_UNDEF;
    }
    "mod" { set_loc(p, loc); return LYT_MOD; }

    digit+ {
      set_loc(p, loc);
      int64_t v = 0;
      for (const char *s = p->tok; s < p->cur; s++)
        if (!ly_mul(v, 10, &v) || !ly_add(v, *s - '0', &v)) {
          lyp_error(p, tok_loc(p), "integer %.*s does not fit in 64 bits", (int)(p->cur - p->tok) > 40 ? 40 : (int)(p->cur - p->tok), p->tok);
          p->lex_error = true;
          return LYT_LYT_UNDEF;
        }
      val->num = v;
      p->after_dim = true;
      return LYT_INTEGER;
    }
    ident {
      set_loc(p, loc);
      val->str.s = p->tok;
      val->str.len = (int)(p->cur - p->tok);
      return LYT_IDENT;
    }
    ["] [^"\n\x00]* ["] {
      set_loc(p, loc);
      val->str.s = p->tok + 1;
      val->str.len = (int)(p->cur - p->tok) - 2;
      /* Strings are text: printed types and JSON stay valid UTF-8. */
      size_t bad = ly_utf8_check(val->str.s, (size_t)val->str.len);
      if (bad < (size_t)val->str.len) {
        LyLoc l = {p->line, (int)(val->str.s + bad - p->line_start) + 1};
        lyp_error(p, l, "byte 0x%02x in this string is not valid UTF-8", (unsigned char)val->str.s[bad]);
        p->lex_error = true;
        return LYT_LYT_UNDEF;
      }
      return LYT_STRING;
    }
    ["] {
      lyp_error(p, tok_loc(p), "string opened here is never closed");
      p->lex_error = true;
      set_loc(p, loc);
      return LYT_LYT_UNDEF;
    }
    "?" { set_loc(p, loc); p->after_dim = true; return '?'; }
    [<([{] { set_loc(p, loc); return open_bracket(p, (char)p->tok[0]); }
    [>)\]}] { set_loc(p, loc); return close_bracket(p, (char)p->tok[0]); }
    [,:*+\-=] { set_loc(p, loc); return p->tok[0]; }
    * {
      set_loc(p, loc);
      unsigned char c = (unsigned char)p->tok[0];
      if (c >= 0x20 && c < 0x7f)
        lyp_error(p, tok_loc(p), "unexpected character '%c'", c);
      else
        lyp_error(p, tok_loc(p), "unexpected byte 0x%02x", c);
      p->lex_error = true;
      return LYT_LYT_UNDEF;
    }
  */
}
