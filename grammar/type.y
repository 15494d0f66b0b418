/* grammar/type.y: the grammar of textual tensor types (SPEC §2). Semantic
 * values are integers and slices of the input, so error recovery has nothing
 * to free; the parsed type lands in LyParser.ast. */
%code requires {
#include "parse.h"
}

%define api.prefix {lyt_}
%define api.pure full
%define api.token.prefix {LYT_}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {LyParser *p}
%lex-param {LyParser *p}

%union {
  int64_t num;
  struct { const char *s; int len; } str;
  const LyAffNode *node;
}

%code {
#include <stdio.h>
#include <string.h>
int lyt_lex(LYT_STYPE *val, LYT_LTYPE *loc, LyParser *p);
static void lyt_error(LYT_LTYPE *loc, LyParser *p, const char *msg);
static LyLoc L(LYT_LTYPE l) { return (LyLoc){l.first_line, l.first_column}; }
static bool add_dim(LyParser *p, int64_t v, LYT_LTYPE l);
static bool set_element(LyParser *p, const char *s, int len, LYT_LTYPE l);
static bool set_complex(LyParser *p, const char *head, int hlen, const char *comp, int clen, LYT_LTYPE lh,
                        LYT_LTYPE lc);
static bool begin_layout(LyParser *p, LySpecKind k, LYT_LTYPE l);
static bool set_memspace(LyParser *p, int64_t num, const char *s, int len, LYT_LTYPE l);
static bool add_perm(LyParser *p, int64_t v, LYT_LTYPE l);
static bool begin_tile(LyParser *p, LYT_LTYPE l);
static bool tiled_memspace(LyParser *p, int64_t v, LYT_LTYPE l);
static bool use_alias(LyParser *p, const char *s, int len, LYT_LTYPE l);
static bool add_aff_name(LyParser *p, bool sym, const char *s, int len, LYT_LTYPE l);
static bool add_aff_result(LyParser *p, const LyAffNode *n, LYT_LTYPE l);
static const LyAffNode *aff_ident(LyParser *p, const char *s, int len, LYT_LTYPE l);
static const LyAffNode *aff_node(LyParser *p, LyAffKind k, int64_t v, const LyAffNode *a, const LyAffNode *b,
                                 LYT_LTYPE l);
static bool add_tile_entry(LyParser *p, int64_t v, LYT_LTYPE l);
static bool add_stride(LyParser *p, int64_t v, LYT_LTYPE l);
static bool add_term(LyParser *p, int64_t coef, const char *s, int len, LYT_LTYPE l);
static bool end_digit(LyParser *p, int64_t div, int64_t mod, int64_t stride, LYT_LTYPE l);
static bool push_frame(LyParser *p, LYT_LTYPE l);
static bool end_nested(LyParser *p, int64_t div, int64_t mod, LYT_LTYPE l);
static bool scale_sub(LyParser *p, int64_t coef, LYT_LTYPE l);
static bool begin_short(LyParser *p, const char *s, int len, LYT_LTYPE l);
static bool enc_entry(LyParser *p, bool mlir, const char *k, int klen, int64_t v, const char *e, int elen,
                      LYT_LTYPE kl, LYT_LTYPE vl);
static bool add_level(LyParser *p, const LyAffNode *x, const char *s, int len, LYT_LTYPE xl, LYT_LTYPE l);
static bool level_nm(LyParser *p, int64_t n, int64_t m, LYT_LTYPE l);
static bool level_prop(LyParser *p, const char *s, int len, LYT_LTYPE l);
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
}

%token <num> INTEGER "integer"
%token <str> IDENT "identifier"
%token <str> STRING "string"
%token TENSOR "'tensor'" TILED "'tiled_layout'" STRIDED "'strided'" OFFSET "'offset'"
%token ANY "'any'" MEMSPACE "'memspace'" LAYOUT "'layout'" SIZE "'size'"
%token FLOORDIV "'floordiv'" MOD "'mod'" X "'x'" OPAQUE "'opaque'"
%token M_ANY "'#layout.any'" M_TAG "'#layout.tag'" M_TILED "'#layout.tiled'" M_STRIDED "'#layout.strided'"
%token M_GENERAL "'#layout.general'" M_MEMSPACE "'#layout.memspace'" M_OPAQUE "'#layout.opaque'"
%token M_SPARSE "'#sparse_tensor.encoding'" M_MORTON "'#layout.morton'"
%token <str> ALIAS "attribute alias"
%token AFFINE_MAP "'affine_map'" CEILDIV "'ceildiv'" ARROW "'->'"

%type <num> sint stride_value div_opt mod_opt
%type <node> aexpr aterm afactor

%%

type: TENSOR '<' shape element attrs '>'
    ;

shape: %empty
     | shape dim X
     ;

dim: INTEGER { CHECK(add_dim(p, $1, @1)); }
   | '?'     { CHECK(add_dim(p, LY_DYNAMIC, @1)); }
   ;

element: IDENT { CHECK(set_element(p, $1.s, $1.len, @1)); }
       | IDENT '<' IDENT '>' { CHECK(set_complex(p, $1.s, $1.len, $3.s, $3.len, @1, @3)); }
       ;

attrs: %empty
     | attrs ',' attr
     ;

attr: layout
    | memspace
    | mlir_attr
    | ALIAS { CHECK(use_alias(p, $1.s, $1.len, @1)); }
    ;

memspace: MEMSPACE '<' INTEGER '>' { CHECK(set_memspace(p, $3, NULL, 0, @1)); }
        | MEMSPACE '<' STRING '>'  { CHECK(set_memspace(p, 0, $3.s, $3.len, @1)); }
        ;

layout: TILED { CHECK(begin_layout(p, LYS_TILED, @1)); } '<' tiled_order tiled_items '>'
      | STRIDED { CHECK(begin_layout(p, LYS_STRIDED, @1)); } '<' '[' strides_opt ']' strided_offset '>'
      | STRING { CHECK(begin_layout(p, LYS_TAG, @1));
                 p->ast.spec.tag = $1.s; p->ast.spec.tag_len = (size_t)$1.len; }
      | ANY { CHECK(begin_layout(p, LYS_ANY, @1)); }
      | LAYOUT { CHECK(begin_layout(p, LYS_GENERAL, @1)); } '<' '[' digits_opt ']' general_opts '>'
      | OPAQUE { CHECK(begin_layout(p, LYS_OPAQUE, @1)); } '<' STRING '>'
        { p->ast.spec.tag = $4.s; p->ast.spec.tag_len = (size_t)$4.len; }
      | AFFINE_MAP { CHECK(begin_layout(p, LYS_AFFINE, @1)); }
        '<' '(' aff_dims_opt ')' aff_syms_opt ARROW '(' aff_results_opt ')' '>'
      | IDENT { CHECK(begin_short(p, $1.s, $1.len, @1)); } short_opt
      | M_SPARSE { CHECK(begin_layout(p, LYS_ENCODING, @1)); p->ast.spec.enc.kind = LYE_SPARSE; }
        '<' '{' enc_entries '}' '>'
      ;

/* Encodings (docs/language.md, sparse): oneDNN's short forms, csr<nnz: 12,
 * index: i32, pointer: i32>, and MLIR's #sparse_tensor.encoding<{...}>. */
short_opt: %empty
         | '<' short_entries '>'
         ;

short_entries: short_entry
             | short_entries ',' short_entry
             ;

short_entry: IDENT ':' INTEGER { CHECK(enc_entry(p, false, $1.s, $1.len, $3, NULL, 0, @1, @3)); }
           | IDENT ':' '?'     { CHECK(enc_entry(p, false, $1.s, $1.len, LY_DYNAMIC, NULL, 0, @1, @3)); }
           | IDENT ':' IDENT   { CHECK(enc_entry(p, false, $1.s, $1.len, 0, $3.s, $3.len, @1, @3)); }
           ;

enc_entries: enc_entry
           | enc_entries ',' enc_entry
           ;

enc_entry: IDENT '=' '(' { CHECK(enc_entry(p, true, $1.s, $1.len, 0, "(", 1, @1, @3)); }
           aff_dims_opt ')' ARROW '(' levels ')'
         | IDENT '=' INTEGER { CHECK(enc_entry(p, true, $1.s, $1.len, $3, NULL, 0, @1, @3)); }
         | IDENT '=' '?'     { CHECK(enc_entry(p, true, $1.s, $1.len, LY_DYNAMIC, NULL, 0, @1, @3)); }
         ;

levels: level
      | levels ',' level
      ;

level: aexpr ':' IDENT { CHECK(add_level(p, $1, $3.s, $3.len, @1, @3)); } level_tail
     ;

level_tail: %empty
          | '(' level_props ')'
          | '(' INTEGER ',' INTEGER ')' { CHECK(level_nm(p, $2, $4, @2)); }
          | level_nm_bracket
          | level_nm_bracket '(' level_props ')'
          ;

level_nm_bracket: '[' INTEGER ',' INTEGER ']' { CHECK(level_nm(p, $2, $4, @2)); }
                ;

level_props: IDENT                 { CHECK(level_prop(p, $1.s, $1.len, @1)); }
           | level_props ',' IDENT { CHECK(level_prop(p, $3.s, $3.len, @3)); }
           ;

/* MLIR's affine_map (memref layout semantics; docs/language.md §3.10) */
aff_dims_opt: %empty
            | aff_dims
            ;

aff_dims: IDENT              { CHECK(add_aff_name(p, false, $1.s, $1.len, @1)); }
        | aff_dims ',' IDENT { CHECK(add_aff_name(p, false, $3.s, $3.len, @3)); }
        ;

aff_syms_opt: %empty
            | '[' ']'
            | '[' aff_syms ']'
            ;

aff_syms: IDENT              { CHECK(add_aff_name(p, true, $1.s, $1.len, @1)); }
        | aff_syms ',' IDENT { CHECK(add_aff_name(p, true, $3.s, $3.len, @3)); }
        ;

aff_results_opt: %empty
               | aff_results
               ;

aff_results: aexpr                 { CHECK(add_aff_result(p, $1, @1)); }
           | aff_results ',' aexpr { CHECK(add_aff_result(p, $3, @3)); }
           ;

aexpr: aterm           { $$ = $1; }
     | aexpr '+' aterm { $$ = aff_node(p, LYA_ADD, 0, $1, $3, @2); CHECK($$); }
     | aexpr '-' aterm { const LyAffNode *m = aff_node(p, LYA_CONST, -1, NULL, NULL, @2); CHECK(m);
                         m = aff_node(p, LYA_MUL, 0, $3, m, @2); CHECK(m);
                         $$ = aff_node(p, LYA_ADD, 0, $1, m, @2); CHECK($$); }
     ;

aterm: afactor                  { $$ = $1; }
     | aterm '*' afactor        { $$ = aff_node(p, LYA_MUL, 0, $1, $3, @2); CHECK($$); }
     | aterm FLOORDIV afactor   { $$ = aff_node(p, LYA_FLOORDIV, 0, $1, $3, @2); CHECK($$); }
     | aterm CEILDIV afactor    { $$ = aff_node(p, LYA_CEILDIV, 0, $1, $3, @2); CHECK($$); }
     | aterm MOD afactor        { $$ = aff_node(p, LYA_MOD, 0, $1, $3, @2); CHECK($$); }
     ;

afactor: IDENT          { $$ = aff_ident(p, $1.s, $1.len, @1); CHECK($$); }
       | INTEGER        { $$ = aff_node(p, LYA_CONST, $1, NULL, NULL, @1); CHECK($$); }
       | '(' aexpr ')'  { $$ = $2; }
       | '-' afactor    { const LyAffNode *m = aff_node(p, LYA_CONST, -1, NULL, NULL, @1); CHECK(m);
                          $$ = aff_node(p, LYA_MUL, 0, $2, m, @1); CHECK($$); }
       ;

/* The RFC writes the order in braces, tiled_layout<{0, 1}, (128)>; today's
 * spelling in angle brackets. */
tiled_order: '<' perm_opt '>'
           | '{' perm_opt '}'
           ;

/* docs/ir.md §5: the MLIR form, #layout.K<body[, memspace<..>]>. */
mlir_attr: M_ANY { CHECK(begin_layout(p, LYS_ANY, @1)); } any_tail
         | M_MORTON { CHECK(begin_layout(p, LYS_MORTON, @1)); } any_tail
         | M_TAG { CHECK(begin_layout(p, LYS_TAG, @1)); } '<' STRING
           { p->ast.spec.tag = $4.s; p->ast.spec.tag_len = (size_t)$4.len; } mlir_tail '>'
         | M_OPAQUE { CHECK(begin_layout(p, LYS_OPAQUE, @1)); } '<' STRING
           { p->ast.spec.tag = $4.s; p->ast.spec.tag_len = (size_t)$4.len; } mlir_tail '>'
         | M_TILED { CHECK(begin_layout(p, LYS_TILED, @1)); } '<' tiled_order tiled_items mlir_tail '>'
         | M_STRIDED { CHECK(begin_layout(p, LYS_STRIDED, @1)); } '<' '[' strides_opt ']' mstrided_tail '>'
         | M_GENERAL { CHECK(begin_layout(p, LYS_GENERAL, @1)); } '<' '[' digits_opt ']' general_opts mlir_tail '>'
         | M_MEMSPACE '<' INTEGER '>' { CHECK(set_memspace(p, $3, NULL, 0, @1)); }
         | M_MEMSPACE '<' STRING '>'  { CHECK(set_memspace(p, 0, $3.s, $3.len, @1)); }
         ;

any_tail: %empty
        | '<' memspace '>'
        ;

mlir_tail: %empty
         | ',' memspace
         ;

mstrided_tail: %empty
             | ',' memspace
             | moffset
             | moffset ',' memspace
             ;

moffset: ',' OFFSET ':' stride_value { p->ast.spec.offset = $4; }
       ;

perm_opt: %empty
        | perm
        ;

perm: INTEGER          { CHECK(add_perm(p, $1, @1)); }
    | perm ',' INTEGER { CHECK(add_perm(p, $3, @3)); }
    ;

tiled_items: %empty
           | tiled_items ',' tile
           | tiled_items ',' INTEGER { CHECK(tiled_memspace(p, $3, @3)); }
           ;

tile: '(' { CHECK(begin_tile(p, @1)); } tile_entries ')'
    ;

tile_entries: tile_entry
            | tile_entries ',' tile_entry
            ;

tile_entry: INTEGER { if ($1 == 0) { lyp_error(p, L(@1), "tile size must be positive"); YYABORT; }
                      CHECK(add_tile_entry(p, $1, @1)); }
          | '*'     { CHECK(add_tile_entry(p, 0, @1)); }
          ;

strides_opt: %empty
           | strides
           ;

strides: stride_value             { CHECK(add_stride(p, $1, @1)); }
       | strides ',' stride_value { CHECK(add_stride(p, $3, @3)); }
       ;

stride_value: sint { $$ = $1; }
            | '?'  { $$ = LY_DYNAMIC; }
            ;

sint: INTEGER     { $$ = $1; }
    | '-' INTEGER { $$ = -$2; }
    ;

strided_offset: %empty
              | ',' OFFSET ':' stride_value { p->ast.spec.offset = $4; }
              ;

digits_opt: %empty
          | digits
          ;

digits: digit
      | digits ',' digit
      ;

digit: '(' { CHECK(push_frame(p, @1)); } lin ')' div_opt mod_opt '*' sint
       { CHECK(end_digit(p, $5, $6, $8, @1)); }
     ;

lin: term
   | lin '+' term
   ;

term: IDENT              { CHECK(add_term(p, 1, $1.s, $1.len, @1)); }
    | INTEGER '*' IDENT  { CHECK(add_term(p, $1, $3.s, $3.len, @3)); }
    | nested             { CHECK(scale_sub(p, 1, @1)); }
    | INTEGER '*' nested { CHECK(scale_sub(p, $1, @1)); }
    ;

nested: '(' { CHECK(push_frame(p, @1)); } lin ')' div_opt mod_opt { CHECK(end_nested(p, $5, $6, @1)); }
      ;

div_opt: %empty           { $$ = 1; }
       | FLOORDIV INTEGER { $$ = $2; if ($2 == 0) { lyp_error(p, L(@2), "floordiv by zero"); YYABORT; } }
       ;

mod_opt: %empty      { $$ = 0; }
       | MOD INTEGER { $$ = $2; if ($2 == 0) { lyp_error(p, L(@2), "mod by zero"); YYABORT; } }
       ;

general_opts: %empty
            | general_opts ',' OFFSET ':' sint
              { if (p->general_offset) { lyp_error(p, L(@2), "'offset' is given twice"); YYABORT; }
                p->general_offset = true; p->ast.spec.offset = $5; }
            | general_opts ',' SIZE ':' INTEGER
              { if (p->ast.spec.size >= 0) { lyp_error(p, L(@2), "'size' is given twice"); YYABORT; }
                p->ast.spec.size = $5; }
            ;

%%

static void lyt_error(LYT_LTYPE *loc, LyParser *p, const char *msg) {
  if (!p->lex_error)
    lyp_error(p, L(*loc), "%s", msg);
}

static const char *describe_token(LyParser *p, yysymbol_kind_t k, char *buf, size_t n) {
  if (k == YYSYMBOL_YYEOF)
    return "end of input";
  int len = (int)(p->cur - p->tok);
  snprintf(buf, n, "'%.*s'", len > 32 ? 32 : len, p->tok);
  return buf;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, LyParser *p) {
  if (p->lex_error)
    return 0;
  yysymbol_kind_t la = yypcontext_token(ctx);
  LYT_LTYPE *loc = yypcontext_location(ctx);
  if (la == YYSYMBOL_YYEOF && p->nopen > 0) {
    lyp_error(p, p->open[p->nopen - 1].loc, "'%c' opened at column %d is never closed",
              p->open[p->nopen - 1].ch, p->open[p->nopen - 1].loc.col);
    return 0;
  }
  yysymbol_kind_t exp[8];
  int n = yypcontext_expected_tokens(ctx, exp, 8);
  LyBuf b;
  ly_buf_init(&b);
  if (n > 0 && n <= 6) {
    ly_buf_puts(&b, "expected ");
    for (int i = 0; i < n; i++) {
      const char *name = yysymbol_name(exp[i]);
      if (exp[i] == YYSYMBOL_YYEOF)
        name = "end of input";
      ly_buf_printf(&b, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", name);
    }
  } else {
    ly_buf_puts(&b, "unexpected token");
  }
  char tb[48];
  ly_buf_printf(&b, ", found %s", describe_token(p, la, tb, sizeof tb));
  if (la == YYSYMBOL_YYEOF || p->tok >= p->lim)
    ; /* nothing trails */
  else if (yypcontext_expected_tokens(ctx, exp, 8) == 1 && exp[0] == YYSYMBOL_YYEOF)
    ly_buf_puts(&b, " (trailing text after the type)");
  lyp_error(p, L(*loc), "%s", b.oom ? "syntax error" : ly_buf_cstr(&b));
  ly_buf_free(&b);
  return 0;
}

static bool add_dim(LyParser *p, int64_t v, LYT_LTYPE l) {
  if (p->ast.rank == LY_MAX_RANK) {
    lyp_error(p, L(l), "rank exceeds the maximum of %d", LY_MAX_RANK);
    return false;
  }
  p->ast.dim_loc[p->ast.rank] = L(l);
  p->ast.dims[p->ast.rank++] = v;
  return true;
}

#define ELEM_LIST                                                                                    \
  "i1, i2, i4, i8, i16, i32, i64, si8..si64, ui8..ui64, index, f16, bf16, f32, f64, tf32, f8E4M3FN, "  \
  "f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN or "          \
  "complex<f16|f32|f64>"

/* oneDNN's data-type names, which are not element types here. */
static const char *onednn_spelling(const char *s, int len) {
  static const char *const names[][2] = {{"u8", "ui8"}, {"s8", "i8 (or si8)"}, {"s32", "i32 (or si32)"},
                                         {"s64", "i64 (or si64)"}, {"f8_e4m3", "f8E4M3FN"},
                                         {"f8_e5m2", "f8E5M2"}, {"boolean", "i1"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if ((int)strlen(names[i][0]) == len && !memcmp(names[i][0], s, (size_t)len))
      return names[i][1];
  return NULL;
}

static bool set_element(LyParser *p, const char *s, int len, LYT_LTYPE l) {
  LyElem e;
  if (lyElemFromName(s, (size_t)len, &e) && lyElemGetKind(e) != LY_ELEM_KIND_COMPLEX) {
    p->ast.elem = e;
    return true;
  }
  int shown = len > 32 ? 32 : len;
  const char *dnnl = onednn_spelling(s, len);
  if (dnnl) {
    lyp_error(p, L(l), "unknown element type '%.*s': oneDNN's %.*s is spelled %s here", shown, s, shown, s, dnnl);
    return false;
  }
  for (int k = 0; k < LY_ELEM_COUNT; k++) { /* a prefix of a longer name: f8E4M3 of f8E4M3FN */
    const char *n = lyElemGetName((LyElem)k);
    if (len >= 2 && (int)strlen(n) > len && !memcmp(n, s, (size_t)len) && n[len] != '<') {
      lyp_error(p, L(l), "unknown element type '%.*s'; did you mean '%s'?", shown, s, n);
      return false;
    }
  }
  lyp_error(p, L(l), "unknown element type '%.*s' (expected " ELEM_LIST ")", shown, s);
  return false;
}

/* `complex<F>`: MLIR allows integer components too; layoutc stores and
 * converts complex numbers of f16, f32 and f64 only. */
static bool set_complex(LyParser *p, const char *head, int hlen, const char *comp, int clen, LYT_LTYPE lh,
                        LYT_LTYPE lc) {
  if (hlen != 7 || memcmp(head, "complex", 7)) {
    lyp_error(p, L(lh), "unknown element type '%.*s<...>' (only complex takes a parameter)", hlen > 32 ? 32 : hlen,
              head);
    return false;
  }
  for (int e = 0; e < LY_ELEM_COUNT; e++) {
    const char *c = lyElemGetName(lyElemGetComponent((LyElem)e));
    if (lyElemGetKind((LyElem)e) == LY_ELEM_KIND_COMPLEX && (int)strlen(c) == clen && !memcmp(c, comp, (size_t)clen)) {
      p->ast.elem = (LyElem)e;
      return true;
    }
  }
  lyp_error(p, L(lc), "complex<%.*s> is not supported: the components of a complex element are f16, f32 or f64",
            clen > 32 ? 32 : clen, comp);
  return false;
}

static bool begin_layout(LyParser *p, LySpecKind k, LYT_LTYPE l) {
  if (p->have_layout) {
    lyp_error(p, L(l), "a type has at most one layout; another begins at column %d", p->layout_loc.col);
    return false;
  }
  p->have_layout = true;
  p->layout_loc = L(l);
  p->ast.spec.kind = k;
  p->ast.spec.loc = L(l);
  return true;
}

static bool set_memspace(LyParser *p, int64_t num, const char *s, int len, LYT_LTYPE l) {
  if (p->have_ms) {
    lyp_error(p, L(l), "a type has at most one memory space; another is given at column %d", p->ms_loc.col);
    return false;
  }
  p->have_ms = true;
  p->ms_loc = L(l);
  p->ast.ms_num = num;
  p->ast.ms_str = s;
  p->ast.ms_str_len = (size_t)len;
  return true;
}

static bool add_perm(LyParser *p, int64_t v, LYT_LTYPE l) {
  LySpec *s = &p->ast.spec;
  if (v >= p->ast.rank) {
    lyp_error(p, L(l), "tiled_layout order names dim %lld, but the type has rank %d", (long long)v, p->ast.rank);
    return false;
  }
  if (s->nperm == LY_MAX_RANK) {
    lyp_error(p, L(l), "tiled_layout order has more than %d dims", LY_MAX_RANK);
    return false;
  }
  s->perm[s->nperm++] = (int)v;
  return true;
}

/* The RFC's trailing integer is the memory space; an integer followed by
 * more entries is most likely a tile written without its parentheses. */
static bool missing_parens(LyParser *p) {
  lyp_error(p, p->tiled_ms_loc, "a tile is written in parentheses, (%lld); a bare integer in tiled_layout is "
            "the memory space and comes last", (long long)p->tiled_ms_val);
  return false;
}

static bool tiled_memspace(LyParser *p, int64_t v, LYT_LTYPE l) {
  if (p->tiled_ms)
    return missing_parens(p);
  if (!set_memspace(p, v, NULL, 0, l))
    return false;
  p->tiled_ms = true;
  p->tiled_ms_loc = L(l);
  p->tiled_ms_val = v;
  return true;
}

static bool begin_tile(LyParser *p, LYT_LTYPE l) {
  LySpec *s = &p->ast.spec;
  if (p->tiled_ms)
    return missing_parens(p);
  if (s->ntiles == LY_MAX_TILES) {
    lyp_error(p, L(l), "tiled_layout has more than %d tiles", LY_MAX_TILES);
    return false;
  }
  s->tiles[s->ntiles].loc = L(l);
  s->tiles[s->ntiles++].n = 0;
  return true;
}

static bool add_tile_entry(LyParser *p, int64_t v, LYT_LTYPE l) {
  LyTile *t = &p->ast.spec.tiles[p->ast.spec.ntiles - 1];
  if (t->n == LY_MAX_RANK) {
    lyp_error(p, L(l), "tile has more than %d dims", LY_MAX_RANK);
    return false;
  }
  t->size[t->n++] = v;
  return true;
}

static bool add_stride(LyParser *p, int64_t v, LYT_LTYPE l) {
  LySpec *s = &p->ast.spec;
  if (s->nstrides == LY_MAX_RANK) {
    lyp_error(p, L(l), "strided layout has more than %d strides", LY_MAX_RANK);
    return false;
  }
  s->strides[s->nstrides++] = v;
  return true;
}

static bool push_frame(LyParser *p, LYT_LTYPE l) {
  if (p->depth == LYP_MAX_DIGIT_NEST) {
    lyp_error(p, L(l), "digits nested more than %d deep", LYP_MAX_DIGIT_NEST);
    return false;
  }
  memset(&p->frame[p->depth], 0, sizeof p->frame[p->depth]);
  p->depth++;
  return true;
}

static bool add_term(LyParser *p, int64_t coef, const char *s, int len, LYT_LTYPE l) {
  int d = 0;
  bool ok = len >= 2 && len <= 3 && s[0] == 'd';
  for (int i = 1; ok && i < len; i++)
    ok = s[i] >= '0' && s[i] <= '9', d = d * 10 + (s[i] - '0');
  if (!ok || d >= LY_MAX_RANK) {
    lyp_error(p, L(l), "expected a dim reference d0..d%d, found '%.*s'", LY_MAX_RANK - 1, len > 32 ? 32 : len, s);
    return false;
  }
  if (coef == 0) {
    lyp_error(p, L(l), "a coefficient must be positive");
    return false;
  }
  int64_t *c = &p->frame[p->depth - 1].coef[d];
  if (!ly_add(*c, coef, c)) {
    lyp_error(p, L(l), "coefficient does not fit in 64 bits");
    return false;
  }
  p->frame[p->depth - 1].dim = d;
  p->frame[p->depth - 1].nterms++;
  return true;
}

/* Turns the innermost frame into a digit; its coefficient and sub-digit
 * arrays move to the parser's arena. */
static bool frame_digit(LyParser *p, int64_t div, int64_t mod, LyDigit *g, LYT_LTYPE l) {
  LyDigitFrame *f = &p->frame[--p->depth];
  *g = (LyDigit){.div = div, .wrap = mod != 0, .ext = mod};
  if (f->nterms == 1 && f->nsub == 0 && f->coef[f->dim] == 1) {
    g->dim = f->dim;
    return true;
  }
  g->dim = -1;
  g->coef = ly_arena_dup(&p->arena, f->coef, sizeof f->coef);
  g->nsub = f->nsub;
  g->sub = f->nsub ? ly_arena_dup(&p->arena, f->sub, f->nsub * sizeof *f->sub) : NULL;
  if (!g->coef || (f->nsub && !g->sub)) {
    lyp_error(p, L(l), "out of memory");
    return false;
  }
  return true;
}

static bool end_nested(LyParser *p, int64_t div, int64_t mod, LYT_LTYPE l) {
  LyDigit g;
  if (!frame_digit(p, div, mod, &g, l))
    return false;
  LyDigitFrame *parent = &p->frame[p->depth - 1];
  if (parent->nsub == LYP_MAX_SUBS) {
    lyp_error(p, L(l), "a digit has more than %d nested digits", LYP_MAX_SUBS);
    return false;
  }
  g.stride = 1; /* its coefficient in E, scaled by scale_sub */
  parent->sub[parent->nsub++] = g;
  return true;
}

static bool scale_sub(LyParser *p, int64_t coef, LYT_LTYPE l) {
  LyDigitFrame *f = &p->frame[p->depth - 1];
  if (coef == 0) {
    lyp_error(p, L(l), "a coefficient must be positive");
    return false;
  }
  f->sub[f->nsub - 1].stride = coef;
  f->nterms++;
  return true;
}

static bool end_digit(LyParser *p, int64_t div, int64_t mod, int64_t stride, LYT_LTYPE l) {
  LySpec *s = &p->ast.spec;
  if (s->ndigits == LY_MAX_DIGITS) {
    lyp_error(p, L(l), "layout has more than %d digits", LY_MAX_DIGITS);
    return false;
  }
  LyDigit *g = &s->digits[s->ndigits];
  if (!frame_digit(p, div, mod, g, l))
    return false;
  g->stride = stride;
  s->ndigits++;
  return true;
}

/* `#name` in a type: an alias of the module (`#map = affine_map<...>`). */
static bool use_alias(LyParser *p, const char *s, int len, LYT_LTYPE l) {
  lyp_error(p, L(l), "attribute alias '#%.*s' is not defined", len > 32 ? 32 : len, s);
  return false;
}

/* --- affine_map ------------------------------------------------------------ */

static bool add_aff_name(LyParser *p, bool sym, const char *s, int len, LYT_LTYPE l) {
  LySpec *sp = &p->ast.spec;
  int *n = sym ? &sp->aff_nsyms : &sp->aff_ndims;
  if (*n == LY_MAX_RANK) {
    lyp_error(p, L(l), "affine map has more than %d %s", LY_MAX_RANK, sym ? "symbols" : "dims");
    return false;
  }
  if (sym) {
    p->aff_sym[*n].s = s, p->aff_sym[*n].len = len;
  } else {
    p->aff_dim[*n].s = s, p->aff_dim[*n].len = len;
  }
  (*n)++;
  return true;
}

static bool add_aff_result(LyParser *p, const LyAffNode *n, LYT_LTYPE l) {
  LySpec *sp = &p->ast.spec;
  if (sp->aff_nresults == LY_MAX_AFFINE_RESULTS) {
    lyp_error(p, L(l), "affine map has more than %d results", LY_MAX_AFFINE_RESULTS);
    return false;
  }
  sp->aff_results[sp->aff_nresults++] = n;
  return true;
}

static const LyAffNode *aff_ident(LyParser *p, const char *s, int len, LYT_LTYPE l) {
  const LySpec *sp = &p->ast.spec;
  for (int i = 0; i < sp->aff_ndims; i++)
    if (p->aff_dim[i].len == len && !memcmp(p->aff_dim[i].s, s, (size_t)len))
      return aff_node(p, LYA_DIM, i, NULL, NULL, l);
  for (int i = 0; i < sp->aff_nsyms; i++)
    if (p->aff_sym[i].len == len && !memcmp(p->aff_sym[i].s, s, (size_t)len))
      return aff_node(p, LYA_SYM, i, NULL, NULL, l);
  lyp_error(p, L(l), "'%.*s' is not a dim or symbol of this affine map", len > 32 ? 32 : len, s);
  return NULL;
}

static bool is_const(const LyAffNode *n) { return n->kind == LYA_CONST; }
static bool is_sym_const(const LyAffNode *n) {
  if (n->kind == LYA_CONST || n->kind == LYA_SYM)
    return true;
  return (n->kind == LYA_ADD || n->kind == LYA_MUL) && is_sym_const(n->a) && is_sym_const(n->b);
}

/* Builds a node, folding constants and checking that the map is affine: a
 * product needs a constant (or symbolic) side, a division or modulus a
 * positive constant. The constant of a product goes right. */
static const LyAffNode *aff_node(LyParser *p, LyAffKind k, int64_t v, const LyAffNode *a, const LyAffNode *b,
                                 LYT_LTYPE l) {
  if (k == LYA_MUL && !is_sym_const(b) && is_sym_const(a)) {
    const LyAffNode *t = a;
    a = b, b = t;
  }
  if (k == LYA_MUL && !is_sym_const(b)) {
    lyp_error(p, L(l), "not an affine map: a product of two expressions of dims");
    return NULL;
  }
  if ((k == LYA_FLOORDIV || k == LYA_CEILDIV || k == LYA_MOD) && (!is_const(b) || b->v <= 0)) {
    lyp_error(p, L(l), "%s takes a positive integer on its right", k == LYA_MOD ? "mod" : k == LYA_FLOORDIV ? "floordiv"
                                                                                                             : "ceildiv");
    return NULL;
  }
  int64_t r;
  if (a && b && is_const(a) && is_const(b)) { /* fold */
    bool ok = true;
    switch (k) {
    case LYA_ADD: ok = ly_add(a->v, b->v, &r); break;
    case LYA_MUL: ok = ly_mul(a->v, b->v, &r); break;
    case LYA_FLOORDIV: r = a->v / b->v - (a->v % b->v < 0); break;
    case LYA_CEILDIV: r = a->v / b->v + (a->v % b->v > 0); break;
    case LYA_MOD: r = a->v % b->v + (a->v % b->v < 0 ? b->v : 0); break;
    default: ok = false; break;
    }
    if (!ok) {
      lyp_error(p, L(l), "constant does not fit in 64 bits");
      return NULL;
    }
    k = LYA_CONST, v = r, a = b = NULL;
  }
  LyAffNode *n = ly_arena_alloc(&p->arena, sizeof *n);
  if (!n) {
    lyp_error(p, L(l), "out of memory");
    return NULL;
  }
  *n = (LyAffNode){k, v, a, b, L(l)};
  return n;
}

/* --- Encodings ------------------------------------------------------------- */

static bool word_is(const char *s, int len, const char *w) { return (int)strlen(w) == len && !memcmp(s, w, len); }

/* A bare word as a layout: one of the encodings' short forms. */
static bool begin_short(LyParser *p, const char *s, int len, LYT_LTYPE l) {
  static const struct { const char *name; int kind, rank; } forms[] = {
      {"csr", LYE_SPARSE, 1}, {"coo", LYE_SPARSE, 2}, {"packed", LYE_PACKED, 0},
      {"grouped", LYE_GROUPED, 0}, {"host_scalar", LYE_HOST_SCALAR, 0}};
  if (word_is(s, len, "morton")) /* Z-order: no parameters */
    return begin_layout(p, LYS_MORTON, l);
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    if (word_is(s, len, forms[i].name)) {
      if (!begin_layout(p, LYS_ENCODING, l))
        return false;
      p->ast.spec.enc.kind = forms[i].kind;
      p->ast.spec.enc_keys |= forms[i].rank == 1 ? LYE_SHORT_CSR : forms[i].rank == 2 ? LYE_SHORT_COO : 0;
      return true;
    }
  lyp_error(p, L(l), "unknown layout '%.*s' (expected a format tag in quotes, tiled_layout, strided, layout, "
            "affine_map, any, opaque, morton, csr, coo, packed, grouped or host_scalar)", len > 32 ? 32 : len, s);
  return false;
}

/* Bits of an index element named in a short form ("i32"); -1 if not one. */
static int index_bits(const char *s, int len) {
  static const char *const names[] = {"i8", "i16", "i32", "i64"};
  static const int bits[] = {8, 16, 32, 64};
  for (int i = 0; i < 4; i++)
    if (word_is(s, len, names[i]))
      return bits[i];
  return word_is(s, len, "index") ? 0 : -1;
}

/* Which keys each spelling takes: the short forms `key: value`, MLIR's
 * `key = value`. */
static unsigned entry_key(LyParser *p, bool mlir, const char *k, int len) {
  static const struct { const char *name; unsigned key; int kinds; bool mlir; } keys[] = {
      {"map", LYE_KEY_MAP, 1 << LYE_SPARSE, true},
      {"posWidth", LYE_KEY_POS, 1 << LYE_SPARSE, true},
      {"crdWidth", LYE_KEY_CRD, 1 << LYE_SPARSE, true},
      {"nnz", LYE_KEY_NNZ, 1 << LYE_SPARSE, true},
      {"nnz", LYE_KEY_NNZ, 1 << LYE_SPARSE | 1 << LYE_PACKED, false},
      {"index", LYE_KEY_CRD, 1 << LYE_SPARSE, false},
      {"pointer", LYE_KEY_POS, 1 << LYE_SPARSE, false},
      {"variable_dim", LYE_KEY_VAR, 1 << LYE_GROUPED, false},
      {"groups", LYE_KEY_GROUPS, 1 << LYE_GROUPED, false},
      {"offsets", LYE_KEY_OFFSETS, 1 << LYE_GROUPED, false}};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (keys[i].mlir == mlir && (keys[i].kinds >> p->ast.spec.enc.kind & 1) && word_is(k, len, keys[i].name) &&
        !((p->ast.spec.enc_keys & LYE_SHORT_COO) && keys[i].key == LYE_KEY_POS))
      return keys[i].key;
  return 0;
}

static bool enc_entry(LyParser *p, bool mlir, const char *k, int klen, int64_t v, const char *e, int elen,
                      LYT_LTYPE kl, LYT_LTYPE vl) {
  LySpec *sp = &p->ast.spec;
  if (sp->kind == LYS_MORTON) {
    lyp_error(p, L(kl), "morton takes no parameters (the Morton order of the dims, each padded to a power of two)");
    return false;
  }
  unsigned key = entry_key(p, mlir, k, klen);
  if (!key) {
    lyp_error(p, L(kl), "unknown key '%.*s' here", klen > 32 ? 32 : klen, k);
    return false;
  }
  if (sp->enc_keys & key) {
    lyp_error(p, L(kl), "'%.*s' is given twice", klen > 32 ? 32 : klen, k);
    return false;
  }
  sp->enc_keys |= key;
  bool is_map = e && *e == '(', is_elem = e && !is_map;
  bool want_elem = !mlir && (key == LYE_KEY_POS || key == LYE_KEY_CRD || key == LYE_KEY_OFFSETS);
  if ((key == LYE_KEY_MAP) != is_map || want_elem != is_elem || (v == LY_DYNAMIC && key != LYE_KEY_NNZ)) {
    lyp_error(p, L(vl), "'%.*s' takes %s", klen > 32 ? 32 : klen, k,
              key == LYE_KEY_MAP ? "a map, (d0, d1) -> (d0 : dense, d1 : compressed)"
              : want_elem        ? "an index type: i8, i16, i32, i64 or index"
              : key == LYE_KEY_NNZ ? "an integer or '?'" : "an integer");
    return false;
  }
  int bits = is_elem ? index_bits(e, elen) : (int)(v > 64 ? -1 : v);
  if (is_elem && bits < 0) {
    lyp_error(p, L(vl), "'%.*s' is not an index type (i8, i16, i32, i64 or index)", elen > 32 ? 32 : elen, e);
    return false;
  }
  LyLoc vloc = L(vl);
  switch (key) {
  case LYE_KEY_MAP: break;
  case LYE_KEY_POS: sp->enc.pos_width = bits, sp->pos_loc = vloc; break;
  case LYE_KEY_CRD: sp->enc.crd_width = bits, sp->crd_loc = vloc; break;
  case LYE_KEY_OFFSETS: sp->enc.offsets_width = bits, sp->off_loc = vloc; break;
  case LYE_KEY_NNZ: sp->enc.nnz = v, sp->nnz_loc = vloc; break;
  case LYE_KEY_VAR: sp->enc.var_dim = v > LY_MAX_RANK ? LY_MAX_RANK : (int)v, sp->var_loc = vloc; break;
  case LYE_KEY_GROUPS: sp->enc.groups = v, sp->group_loc = vloc; break;
  }
  if (mlir && (key == LYE_KEY_POS || key == LYE_KEY_CRD) && bits != 0 && bits != 8 && bits != 16 && bits != 32 &&
      bits != 64) {
    lyp_error(p, vloc, "%s must be 0 (index), 8, 16, 32 or 64", key == LYE_KEY_POS ? "posWidth" : "crdWidth");
    return false;
  }
  return true;
}

/* A level `expr : format`: the expression must be a dim, `dim floordiv c`
 * or `dim mod c` (the map's shape is checked when the type is built). */
static bool add_level(LyParser *p, const LyAffNode *x, const char *s, int len, LYT_LTYPE xl, LYT_LTYPE l) {
  static const char *const formats[] = {"dense", "compressed", "singleton", "loose_compressed", "structured",
                                        "n_out_of_m"};
  LySpec *sp = &p->ast.spec;
  if (sp->enc.nlevels == LY_MAX_RANK) {
    lyp_error(p, L(l), "an encoding has at most %d levels", LY_MAX_RANK);
    return false;
  }
  LyLevel *v = &sp->enc.lvl[sp->enc.nlevels];
  int f = 0;
  while (f < 6 && !word_is(s, len, formats[f]))
    f++;
  if (f == 6) {
    lyp_error(p, L(l), "unknown level format '%.*s' (expected dense, compressed, singleton, loose_compressed or "
              "structured[n, m])", len > 32 ? 32 : len, s);
    return false;
  }
  v->format = f > 4 ? LY_LEVEL_N_OUT_OF_M : f;
  if (x->kind == LYA_DIM) {
    v->expr = LYE_EXPR_DIM, v->dim = (int)x->v;
  } else if ((x->kind == LYA_FLOORDIV || x->kind == LYA_MOD) && x->a->kind == LYA_DIM && x->b->kind == LYA_CONST) {
    v->expr = x->kind == LYA_MOD ? LYE_EXPR_MOD : LYE_EXPR_FLOORDIV, v->dim = (int)x->a->v, v->c = x->b->v;
  } else {
    lyp_error(p, L(xl), "a level is a dim, 'dim floordiv c' or 'dim mod c'");
    return false;
  }
  sp->lvl_loc[sp->enc.nlevels] = L(l);
  sp->lvl_expr_loc[sp->enc.nlevels++] = L(xl);
  return true;
}

static bool level_nm(LyParser *p, int64_t n, int64_t m, LYT_LTYPE l) {
  LySpec *sp = &p->ast.spec;
  LyLevel *v = &sp->enc.lvl[sp->enc.nlevels - 1];
  if (v->format != LY_LEVEL_N_OUT_OF_M) {
    lyp_error(p, L(l), "only a structured (n_out_of_m) level takes [n, m]");
    return false;
  }
  if (n < 1 || m < 1 || n > m || m > 1024) {
    lyp_error(p, L(l), "structured[n, m] needs 1 <= n <= m <= 1024");
    return false;
  }
  v->n = (int)n, v->m = (int)m;
  return true;
}

static bool level_prop(LyParser *p, const char *s, int len, LYT_LTYPE l) {
  LyLevel *v = &p->ast.spec.enc.lvl[p->ast.spec.enc.nlevels - 1];
  int bit = word_is(s, len, "nonunique") ? LY_LEVEL_NONUNIQUE : word_is(s, len, "nonordered") ? LY_LEVEL_NONORDERED
            : word_is(s, len, "soa") ? LY_LEVEL_SOA : 0;
  if (!bit) {
    lyp_error(p, L(l), "unknown level property '%.*s' (expected nonunique, nonordered or soa)", len > 32 ? 32 : len, s);
    return false;
  }
  if (v->props & bit) {
    lyp_error(p, L(l), "level property '%.*s' is given twice", len, s);
    return false;
  }
  v->props |= bit;
  return true;
}
