/* grammar/ir.re: the lexer of the function IR (re2c 3.0). The cursor lives in
 * the LyiParser; the buffer is the module's NUL-terminated copy of the text,
 * and a NUL before the end is an unexpected byte. A `tensor<...>` is one
 * token: its extent is found by balancing angle brackets (skipping string
 * literals), and the type grammar parses it. */
#include "ir.tab.h"

#include <stdio.h>
#include <string.h>

static LyLoc tok_loc(LyiParser *p) { return (LyLoc){p->line, (int)(p->tok - p->line_start) + 1}; }

static void set_loc(LyiParser *p, LYI_LTYPE *l) {
  l->first_line = l->last_line = p->line;
  l->first_column = (int)(p->tok - p->line_start) + 1;
  l->last_column = (int)(p->cur - p->line_start);
  p->end_loc = (LyLoc){p->line, l->last_column + 1};
}

static int lex_error(LyiParser *p, LYI_LTYPE *l, const char *msg) {
  set_loc(p, l);
  lyir_error(p->m, tok_loc(p), "%s", msg);
  p->lex_error = true;
  return LYI_LYI_UNDEF;
}

static int unexpected(LyiParser *p, LYI_LTYPE *l) {
  unsigned char c = (unsigned char)p->tok[0];
  char msg[40];
  if (c >= 0x20 && c < 0x7f)
    snprintf(msg, sizeof msg, "unexpected character '%c'", c);
  else
    snprintf(msg, sizeof msg, "unexpected byte 0x%02x", c);
  return lex_error(p, l, msg);
}

/* After `tensor`: extends the token to the '>' that closes its '<'. A type
 * cannot contain '{', '}', '=' or '->', so the scan stops there when a '>'
 * is missing and the type grammar reports what is unbalanced. Strings are
 * skipped (a format tag could hold any character). False at a NUL byte
 * (in the type, one of its strings, or where its '<' should be), with
 * p->cur on it. */
static bool scan_type(LyiParser *p) {
  const char *q = p->cur;
  int depth = 0, line = p->line, amap = 0, brace = 0;
  const char *line_start = p->line_start, *last = NULL; /* the last non-blank byte */
  for (; q < p->lim; q++) {
    char c = *q;
    if (!c)
      break; /* a NUL byte: checked below */
    if (depth == 0 && c != '<' && c != ' ' && c != '\t' && c != '\r' && c != '\n')
      return true; /* no '<' follows: the type grammar will say so */
    if (c == '\n') {
      line++;
      line_start = q + 1;
    } else if (c == '"') {
      const char *e = q + 1;
      while (e < p->lim && *e != '"' && *e != '\n' && *e)
        e++;
      if (e < p->lim && !*e)
        q = e;
      if (e == p->lim || *e != '"')
        break;
      q = e;
    } else if (c == '<') {
      depth++;
      /* an affine_map's '->' is part of the type */
      if (!amap && q - p->cur >= 10 && !memcmp(q - 10, "affine_map", 10))
        amap = depth;
      /* so are MLIR's sparse encoding's braces, '=' and '->' */
      if (!amap && q - p->cur >= 22 && !memcmp(q - 22, "sparse_tensor.encoding", 22))
        amap = depth;
    } else if (c == '>' && --depth == 0) {
      q++;
      break;
    } else if (c == '>' && depth < amap) {
      amap = 0;
    } else if (c == '-' && q + 1 < p->lim && q[1] == '>' && amap) {
      q++;
    } else if (c == '{' && !brace && last && *last == '<') {
      brace = 1; /* the RFC's tiled_layout<{0, 1}, ...> */
    } else if (c == '}' && brace) {
      brace = 0;
    } else if (!amap && (c == '{' || c == '}' || c == '=' || (c == '-' && q + 1 < p->lim && q[1] == '>'))) {
      break;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
      last = q;
  }
  p->cur = q;
  p->line = line;
  p->line_start = line_start;
  return !(q < p->lim && !*q);
}

/* scan_balanced at a NUL byte at q. */
static int at_nul(LyiParser *p, const char *q) {
  p->tok = q, p->cur = q + 1;
  return -1;
}

/* Extends the token from p->cur (just after an opening `open`) to its
 * balanced close, skipping strings and counting lines: 1, or 0 when the
 * input ends first, or -1 at a NUL byte (the text is kept and printed, and
 * printed text is a C string), with p->tok and p->cur on it. Used for
 * attributes kept as text (affine_map<...>, dense<...>, #dialect.x<...>) and
 * for loc(...). */
static int scan_balanced(LyiParser *p, char open, char close) {
  int depth = 1;
  for (const char *q = p->cur; q < p->lim; q++) {
    char c = *q;
    if (c == '\0')
      return at_nul(p, q);
    if (c == '\n') {
      p->line++;
      p->line_start = q + 1;
    } else if (c == '"') {
      const char *e = q + 1;
      while (e < p->lim && *e != '"' && *e != '\n' && *e)
        e += *e == '\\' && e + 1 < p->lim && e[1] && e[1] != '\n' ? 2 : 1; /* a string ends at its line */
      if (e < p->lim && !*e)
        return at_nul(p, e);
      if (e >= p->lim || *e != '"')
        return 0;
      q = e;
    } else if (c == open) {
      depth++;
    } else if (c == close && !(close == '>' && q > p->cur && q[-1] == '-') && --depth == 0) {
      p->cur = q + 1;
      return true;
    }
  }
  return false;
}

static int opaque_token(LyiParser *p, LYI_LTYPE *loc, LYI_STYPE *val, char open, char close, int tok) {
  const char *begin = p->tok, *line_start = p->line_start;
  int line = p->line, r = scan_balanced(p, open, close);
  if (r < 0)
    return unexpected(p, loc);
  if (!r) { /* the error is at the opening bracket: its line, not the scan's */
    p->cur = p->tok + 1;
    p->line = line;
    p->line_start = line_start;
    return lex_error(p, loc, open == '(' ? "'(' opened here is never closed" : "'<' opened here is never closed");
  }
  loc->first_line = line;
  loc->first_column = (int)(begin - line_start) + 1;
  loc->last_line = p->line;
  loc->last_column = (int)(p->cur - p->line_start);
  p->end_loc = (LyLoc){p->line, loc->last_column + 1};
  val->str = (LyirStr){begin, (int)(p->cur - begin)};
  return tok;
}

static int type_token(LyiParser *p, LYI_LTYPE *loc, LYI_STYPE *val) {
  const char *begin = p->tok, *line_start = p->line_start;
  int line = p->line;
  if (!scan_type(p)) { /* the error at the byte, not at the '<' left open */
    p->tok = p->cur++;
    return unexpected(p, loc);
  }
  loc->first_line = line;
  loc->first_column = (int)(begin - line_start) + 1;
  loc->last_line = p->line;
  loc->last_column = (int)(p->cur - p->line_start);
  p->end_loc = (LyLoc){p->line, loc->last_column + 1};
  val->tt = (LyiTypeTok){(size_t)(begin - p->buf), (size_t)(p->cur - p->buf), (size_t)(line_start - p->buf)};
  return LYI_TYPE;
}

int lyi_lex(LYI_STYPE *val, LYI_LTYPE *loc, LyiParser *p) {
  const char *YYMARKER = NULL;
again:
  p->tok = p->cur;
  /*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "p->cur";
    re2c:define:YYLIMIT = "p->lim";
    re2c:define:YYMARKER = "YYMARKER";
    re2c:yyfill:enable = 0;
    re2c:eof = 0;

    digit = [0-9];
    bare_id = [a-zA-Z_][a-zA-Z0-9_$.]*;
    suffix_id = digit+ | [a-zA-Z$._\-][a-zA-Z0-9$._\-]*;

    $ {
      /* End of input is reported just after the last token. */
      LyLoc e = p->end_loc.line ? p->end_loc : (LyLoc){1, 1};
      loc->first_line = loc->last_line = e.line;
      loc->first_column = loc->last_column = e.col;
      return LYI_YYEOF;
    }
    [ \t\r]+ { goto again; }
    "\n" { p->line++; p->line_start = p->cur; goto again; }
    "//" [^\n\x00]* { goto again; }

    "func.func" { set_loc(p, loc); return LYI_FUNC; }
    "module" { set_loc(p, loc); return LYI_MODULE; }
    ["] "builtin.module" ["] { set_loc(p, loc); return LYI_GMODULE; }
    ["] "func.func" ["] { set_loc(p, loc); return LYI_GFUNC; }
    "<{" { set_loc(p, loc); return LYI_LPROP; }
    "}>" { set_loc(p, loc); return LYI_RPROP; }
    "^" suffix_id { set_loc(p, loc); return LYI_BLOCK; }
    "builtin.unrealized_conversion_cast" { set_loc(p, loc); return LYI_CAST; }
    "attributes" { set_loc(p, loc); return LYI_ATTRIBUTES; }
    "return" | "func.return" { set_loc(p, loc); return LYI_RETURN; }
    "->" { set_loc(p, loc); return LYI_ARROW; }
    "tensor" { return type_token(p, loc, val); }
    "tensor<" { p->cur--; return type_token(p, loc, val); }
    /* MLIR attributes layoutc keeps as text: affine_map<...>, array<...>,
     * dense<...>, #dialect.x<...>, and locations. */
    bare_id "<" { return opaque_token(p, loc, val, '<', '>', LYI_OPAQUE); }
    "#" bare_id "<" { return opaque_token(p, loc, val, '<', '>', LYI_OPAQUE); }
    /* Dialect types (`!llvm.ptr`, `!foo.bar<...>`): kept as text. */
    "!" bare_id "<" { return opaque_token(p, loc, val, '<', '>', LYI_DTYPE); }
    "!" bare_id { set_loc(p, loc); val->str = (LyirStr){p->tok, (int)(p->cur - p->tok)}; return LYI_DTYPE; }
    "loc(" { return opaque_token(p, loc, val, '(', ')', LYI_LOC); }
    "#" bare_id { set_loc(p, loc); val->str = (LyirStr){p->tok, (int)(p->cur - p->tok)}; return LYI_HASH; }
    "-"? digit+ "." digit* ([eE] [+-]? digit+)? {
      set_loc(p, loc);
      val->str = (LyirStr){p->tok, (int)(p->cur - p->tok)};
      return LYI_OPAQUE;
    }
    "%" suffix_id ("#" digit+)? ":" digit+ {
      /* `%0:2`, a group of results; the parser splits it */
      set_loc(p, loc);
      val->str = (LyirStr){p->tok + 1, (int)(p->cur - p->tok) - 1};
      return LYI_VALUE_GROUP;
    }

    digit+ {
      set_loc(p, loc);
      int64_t v = 0;
      for (const char *s = p->tok; s < p->cur; s++)
        if (!ly_mul(v, 10, &v) || !ly_add(v, *s - '0', &v)) {
          int n = (int)(p->cur - p->tok);
          lyir_error(p->m, tok_loc(p), "integer %.*s does not fit in 64 bits", n > 40 ? 40 : n, p->tok);
          p->lex_error = true;
          return LYI_LYI_UNDEF;
        }
      val->num = v;
      return LYI_INTEGER;
    }
    "%" suffix_id ("#" digit+)? { set_loc(p, loc); val->str = (LyirStr){p->tok + 1, (int)(p->cur - p->tok) - 1}; return LYI_VALUE; }
    "@" bare_id { set_loc(p, loc); val->str = (LyirStr){p->tok + 1, (int)(p->cur - p->tok) - 1}; return LYI_SYMBOL; }
    "%" { return lex_error(p, loc, "expected a value name after '%'"); }
    "@" { return lex_error(p, loc, "expected a function name after '@'"); }
    bare_id { set_loc(p, loc); val->str = (LyirStr){p->tok, (int)(p->cur - p->tok)}; return LYI_IDENT; }
    ["] [^"\n\x00]* ["] {
      set_loc(p, loc);
      val->str = (LyirStr){p->tok + 1, (int)(p->cur - p->tok) - 2};
      return LYI_STRING;
    }
    ["] { return lex_error(p, loc, "string opened here is never closed"); }
    "[" {
      set_loc(p, loc);
      if (++p->nest > LYI_MAX_NEST) {
        lyir_error(p->m, tok_loc(p), "attribute arrays nested more than %d deep", LYI_MAX_NEST);
        p->lex_error = true;
        return LYI_LYI_UNDEF;
      }
      return '[';
    }
    "]" { set_loc(p, loc); p->nest -= p->nest > 0; return ']'; }
    [(){},:=\-] { set_loc(p, loc); return p->tok[0]; }
    * { return unexpected(p, loc); }
  */
}
