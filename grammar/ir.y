/* grammar/ir.y: the grammar of the function IR (MLIR generic syntax; see
 * docs/ir.md). Actions build the module directly through lib/ir's builder.
 * Lists (operands, types, attributes) are collected as linked items in a
 * scratch arena that is reset after each op, so semantic values own nothing
 * and error recovery has nothing to free: the parser's cleanup frees the
 * scratch arena, the open scope and, on error, the whole module. Each
 * `tensor<...>` arrives as one token and is parsed by the type grammar
 * (lyp_parse_type_in), with its diagnostics located in this file. */
%code requires {
#include "ir/ir.h"

typedef struct {
  struct LyiItem *head, *tail;
  int n;
} LyiList;

/* One parsed list element; which fields are set depends on the list. */
typedef struct LyiItem {
  struct LyiItem *next;
  LyLoc loc;
  LyirStr name;
  int count; /* a result group `%0:2`: its size (else 1) */
  bool numbered; /* a group named by digits: its members are renumbered */
  const LyTypeImpl *type;
  LyirValue *value;
  LyirAttrValue attr;
  LyiList dict; /* an argument's attributes; a dictionary attribute's */
  LyiList ins, outs; /* a function type attribute (generic func.func) */
  LyirBlock *block; /* a region */
} LyiItem;

/* A `tensor<...>` token: its byte range and where its line starts. */
typedef struct {
  size_t begin, end, line_start;
} LyiTypeTok;

#define LYI_MAX_NEST 64
/* Regions nest at most this deep (the printer and verifier recurse). */
#define LYI_MAX_REGION_DEPTH 256

typedef struct {
  /* Lexer state: the cursor lives here, never in globals. */
  const char *buf, *cur, *lim, *tok, *line_start;
  int line;
  bool lex_error; /* the lexer already reported this token */
  LyLoc end_loc;  /* just after the last token */
  int nest;       /* '[' depth of attribute arrays */
  /* Parser state */
  LyirModule *m;
  LyArena scratch;     /* list items of the op being parsed */
  LyirSymtab values;   /* the current function's SSA names */
  LyirSymtab funcs;    /* function names of the module */
  LyirFunc *fn;        /* the function being parsed */
  LyirOp *last_op;     /* the op just built (its loc(...) follows it) */
  int depth;           /* regions open; blocks[depth - 1] is the innermost */
  LyirBlock *blocks[LYI_MAX_REGION_DEPTH];
  bool saw_module;     /* a `module { }` was read */
  LyiList gins, gouts; /* generic func.func: its function_type */
  LyirDict garg_attrs; /* and its arg_attrs, as one dictionary per argument in fields */
  LyirAttrValue gargs;
  LyirAttrValue gres; /* and its res_attrs */
  bool glabelled;
} LyiParser;
}

%define api.prefix {lyi_}
%define api.pure full
%define api.token.prefix {LYI_}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {LyiParser *p}
%lex-param {LyiParser *p}

%union {
  int64_t num;
  LyirStr str;
  LyiTypeTok tt;
  const LyTypeImpl *type;
  LyiList list;
  LyiItem *item;
}

%code {
#include <stdio.h>
#include <string.h>
#include "parse.h"
int lyi_lex(LYI_STYPE *val, LYI_LTYPE *loc, LyiParser *p);
static void lyi_error(LYI_LTYPE *loc, LyiParser *p, const char *msg);
static LyLoc L(LYI_LTYPE l) { return (LyLoc){l.first_line, l.first_column}; }
static bool oom(LyiParser *p, LyLoc at);
static LyiItem *item(LyiParser *p, LYI_LTYPE l);
static LyiList list1(LyiItem *it);
static LyiList append(LyiList l, LyiItem *it);
static const LyTypeImpl *parse_type(LyiParser *p, LyiTypeTok t, LYI_LTYPE l);
static bool begin_func(LyiParser *p, LyirStr name, LYI_LTYPE l);
static LyiItem *add_arg(LyiParser *p, LyirStr name, LYI_LTYPE nl, const LyTypeImpl *t);
static bool set_signature(LyiParser *p, LyiList args, LyiList results);
static bool end_func(LyiParser *p);
static LyiItem *use_value(LyiParser *p, LyirStr name, LYI_LTYPE l);
static bool make_op(LyiParser *p, LyiList results, LyirStr name, LYI_LTYPE nl, LyiList operands,
                    LyiList attrs, LyiList in_types, LyiList out_types, LYI_LTYPE sigl, LyiList regions);
static bool begin_region(LyiParser *p, LYI_LTYPE l);
static bool region_args(LyiParser *p, LyiList args);
static LyiItem *end_region(LyiParser *p, LYI_LTYPE l);
static bool set_regions(LyiParser *p, LyirOp *op, LyiList regions);
static LyiItem *attr_item(LyiParser *p, LyirAttrKind k, int64_t i, LyirStr s, LyiList elems, LYI_LTYPE l);
static LyiItem *opaque_attr(LyiParser *p, LyirStr text, LYI_LTYPE l);
static bool dict_of(LyiParser *p, LyiList attrs, LyirDict *out);
static bool begin_module(LyiParser *p, LyirStr sym, LyiList attrs, LYI_LTYPE l);
static bool add_alias(LyiParser *p, LyirStr name, LyirStr text, LYI_LTYPE l);
static bool set_func_extras(LyiParser *p, LyirStr vis, LYI_LTYPE vl, LyiList attrs, LyiList args);
static bool begin_gfunc(LyiParser *p, LyiList props, LYI_LTYPE l);
static bool gfunc_block(LyiParser *p, LyiList args, bool labelled, LYI_LTYPE l);
static bool end_gfunc(LyiParser *p, LyiList attrs, LyirStr loc);
static bool end_gmodule(LyiParser *p, LyiList attrs);
static LyirStr prop_sym(LyiParser *p, LyiList props, bool *ok);
static bool set_props(LyiParser *p, LyirDict props, LYI_LTYPE l);
static bool set_res_attrs(LyiParser *p, LyiList results);
static void type_error(LyiParser *p, LyLoc at, const char *what, LyirStr name, const LyTypeImpl *value_type,
                       const LyTypeImpl *sig_type);
static LyiItem *result_name(LyiParser *p, LyirStr s, bool group, LYI_LTYPE l);
static LyirStr type_text(LyiParser *p, LyiTypeTok t);
static const LyTypeImpl *foreign_type(LyiParser *p, LyirStr s, LYI_LTYPE l);
#define S(lit) ((LyirStr){lit, (int)sizeof lit - 1})
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
}

%token <num> INTEGER "integer"
%token <str> IDENT "identifier"
%token <str> STRING "string"
%token <str> VALUE "value name"
%token <str> SYMBOL "function name"
%token <tt> TYPE "type"
%token <str> OPAQUE "attribute"
%token <str> LOC "location"
%token <str> HASH "attribute alias"
%token <str> VALUE_GROUP "result group"
%token <str> DTYPE "dialect type"
%token FUNC "'func.func'" ARROW "'->'" MODULE "'module'" ATTRIBUTES "'attributes'" RETURN "'return'" GMODULE "'\"builtin.module\"'" GFUNC "'\"func.func\"'" LPROP "'<{'" RPROP "'}>'"
%token BLOCK "block label" CAST "'builtin.unrealized_conversion_cast'"

%type <type> type
%type <list> types types_opt func_results result_types args_opt args fresults_opt fresults
%type <list> result_names results_opt operands operands_opt regions regions_opt
%type <list> attr_dict_opt attr_dict attrs attr_values func_attrs_opt module_attrs_opt props_opt
%type <item> attr attr_value operand arg result_name fresult region
%type <str> loc_opt vis_opt type_suffix attr_name module_sym_opt alias_value
%type <num> func_body

/* A bare `return` is the last op: a value name after it is its operand. */
%precedence BARE_RETURN
%precedence VALUE

%%

module: %empty
      | module top
      ;

top: func
   | alias_def
   | MODULE module_sym_opt module_attrs_opt '{' { CHECK(begin_module(p, $2, $3, @1)); } funcs '}' loc_opt
   | GMODULE '(' ')' props_opt '(' '{'
     { bool ok = true; LyirStr sym = prop_sym(p, $4, &ok); CHECK(ok && begin_module(p, sym, (LyiList){0}, @1)); }
     mlabel_opt funcs '}' ')' attr_dict_opt ':' '(' ')' ARROW '(' ')' loc_opt { CHECK(end_gmodule(p, $12)); }
   ;

/* mlir-opt labels the block of an empty module */
mlabel_opt: %empty
          | BLOCK ':'
          ;

props_opt: %empty            { $$ = (LyiList){0}; }
         | LPROP RPROP       { $$ = (LyiList){0}; }
         | LPROP attrs RPROP { $$ = $2; }
         ;

module_sym_opt: %empty { $$ = (LyirStr){0}; }
              | SYMBOL { $$ = $1; }
              ;

module_attrs_opt: %empty               { $$ = (LyiList){0}; }
                | ATTRIBUTES attr_dict { $$ = $2; }
                ;

funcs: %empty
     | funcs func
     | funcs gfunc
     ;

/* The generic form mlir-opt prints with --mlir-print-op-generic. */
gfunc: GFUNC '(' ')' props_opt { CHECK(begin_gfunc(p, $4, @1)); }
       '(' '{' gbody '}' ')' attr_dict_opt ':' '(' ')' ARROW '(' ')' loc_opt { CHECK(end_gfunc(p, $11, $18)); }
     ;

gbody: { CHECK(gfunc_block(p, (LyiList){0}, false, @$)); } ops
     | BLOCK '(' args_opt ')' ':' { CHECK(gfunc_block(p, $3, true, @1)); } ops
     | BLOCK ':' { CHECK(gfunc_block(p, (LyiList){0}, true, @1)); } ops
     ;

/* `#map = affine_map<...>`, `#loc1 = loc(...)`: kept and printed back. */
alias_def: HASH '=' alias_value { CHECK(add_alias(p, $1, $3, @1)); }
         ;

alias_value: OPAQUE { $$ = $1; }
           | LOC    { $$ = $1; }
           ;

func: FUNC vis_opt SYMBOL { CHECK(begin_func(p, $3, @3)); }
      '(' args_opt ')' func_results func_attrs_opt
      { CHECK(set_func_extras(p, $2, @2, $9, $6) && set_res_attrs(p, $8) && set_signature(p, $6, $8)); }
      func_body loc_opt { p->fn->decl = !$11; p->fn->srcloc = $12; CHECK(end_func(p)); }
    ;

vis_opt: %empty { $$ = (LyirStr){0}; }
       | IDENT  { $$ = $1; }
       ;

func_attrs_opt: %empty               { $$ = (LyiList){0}; }
              | ATTRIBUTES attr_dict { $$ = $2; }
              ;

func_body: %empty      { $$ = 0; }
         | '{' ops '}' { $$ = 1; }
         ;

loc_opt: %empty { $$ = (LyirStr){0}; }
       | LOC    { $$ = $1; }
       ;

args_opt: %empty { $$ = (LyiList){0}; }
        | args   { $$ = $1; }
        ;

args: arg          { $$ = list1($1); }
    | args ',' arg { $$ = append($1, $3); }
    ;

arg: VALUE ':' type attr_dict_opt loc_opt { $$ = add_arg(p, $1, @1, $3); CHECK($$); $$->dict = $4; }
   | type attr_dict_opt loc_opt           { $$ = add_arg(p, (LyirStr){0}, @1, $1); CHECK($$); $$->dict = $2; }
   ;

func_results: %empty                 { $$ = (LyiList){0}; }
            | ARROW type             { LyiItem *it = item(p, @2); CHECK(it); it->type = $2; $$ = list1(it); }
            | ARROW '(' fresults_opt ')' { $$ = $3; }
            ;

/* Results in the signature may carry attributes: `-> (T {foo.bar}, U)`. */
fresults_opt: %empty   { $$ = (LyiList){0}; }
            | fresults { $$ = $1; }
            ;

fresults: fresult              { $$ = list1($1); }
        | fresults ',' fresult { $$ = append($1, $3); }
        ;

fresult: type attr_dict_opt { $$ = item(p, @1); CHECK($$); $$->type = $1; $$->dict = $2; }
       ;

ops: %empty
   | ops op
   ;

op: op_body loc_opt { if ($2.len) p->last_op->srcloc = $2; }
  ;

op_body: results_opt STRING '(' operands_opt ')' props_opt regions_opt attr_dict_opt ':' '(' types_opt ')' ARROW result_types
         { LyirDict props = {0}; /* copied out of the scratch arena make_op frees */
           CHECK(dict_of(p, $6, &props) && make_op(p, $1, $2, @2, $4, $8, $11, $14, @10, $7) &&
                 set_props(p, props, @6)); }
       | RETURN %prec BARE_RETURN
         { CHECK(make_op(p, (LyiList){0}, S("func.return"), @1, (LyiList){0}, (LyiList){0}, (LyiList){0},
                         (LyiList){0}, @1, (LyiList){0})); }
       | RETURN operands ':' types
         { CHECK(make_op(p, (LyiList){0}, S("func.return"), @1, $2, (LyiList){0}, $4, (LyiList){0}, @4, (LyiList){0})); }
       /* MLIR's custom form of the cast that --emit=mlir writes before a
        * return whose value has a layout where the signature says `any`. */
       | results_opt CAST operands ':' types IDENT types
         { if (!($6.len == 2 && !memcmp($6.s, "to", 2))) {
             lyir_error(p->m, L(@6), "expected 'to', found '%.*s'", $6.len > 32 ? 32 : $6.len, $6.s);
             YYABORT;
           }
           CHECK(make_op(p, $1, S("builtin.unrealized_conversion_cast"), @2, $3, (LyiList){0}, $5, $7, @5, (LyiList){0})); }
       ;

/* MLIR's generic form writes an op's regions after its properties: `({
 * ^bb0(%i: index): ... }, {...})`. A region is one block here; its label
 * may be left out when it has no arguments. */
regions_opt: %empty             { $$ = (LyiList){0}; }
           | '(' regions ')'    { $$ = $2; }
           ;

regions: region             { $$ = list1($1); }
       | regions ',' region { $$ = append($1, $3); }
       ;

region: '{' { CHECK(begin_region(p, @1)); } region_body '}' { $$ = end_region(p, @1); CHECK($$); }
      ;

region_body: ops
           | BLOCK '(' args_opt ')' ':' { CHECK(region_args(p, $3)); } ops
           | BLOCK ':' ops
           ;

results_opt: %empty           { $$ = (LyiList){0}; }
           | result_names '=' { $$ = $1; }
           ;

result_names: result_name                  { $$ = list1($1); }
            | result_names ',' result_name { $$ = append($1, $3); }
            ;

result_name: VALUE       { $$ = result_name(p, $1, false, @1); CHECK($$); }
           | VALUE_GROUP { $$ = result_name(p, $1, true, @1); CHECK($$); }
           ;

operands_opt: %empty   { $$ = (LyiList){0}; }
            | operands { $$ = $1; }
            ;

operands: operand              { $$ = list1($1); }
        | operands ',' operand { $$ = append($1, $3); }
        ;

operand: VALUE { $$ = use_value(p, $1, @1); CHECK($$); }
       ;

attr_dict_opt: %empty    { $$ = (LyiList){0}; }
             | attr_dict { $$ = $1; }
             ;

attr_dict: '{' '}'       { $$ = (LyiList){0}; }
         | '{' attrs '}' { $$ = $2; }
         ;

attrs: attr           { $$ = list1($1); }
     | attrs ',' attr { $$ = append($1, $3); }
     ;

attr: attr_name '=' attr_value { $$ = $3; $$->name = $1; $$->loc = L(@1); }
    | attr_name                { $$ = attr_item(p, LYIR_ATTR_UNIT, 0, (LyirStr){0}, (LyiList){0}, @1); CHECK($$);
                                 $$->name = $1; }
    ;

/* MLIR quotes a name that is not an identifier. */
attr_name: IDENT  { $$ = $1; }
         | STRING { $$ = (LyirStr){$1.s - 1, $1.len + 2}; }
         ;

type_suffix: ':' IDENT { $$ = $2; }
           | ':' TYPE  { $$ = type_text(p, $2); }
           ;

attr_value: attr_dict           { $$ = attr_item(p, LYIR_ATTR_DICT, 0, (LyirStr){0}, $1, @1); CHECK($$); }
          | '(' types_opt ')' ARROW result_types
                                { $$ = attr_item(p, LYIR_ATTR_OPAQUE, 0, S("function type"), (LyiList){0}, @1);
                                  CHECK($$); $$->ins = $2; $$->outs = $5; }
          | INTEGER             { $$ = attr_item(p, LYIR_ATTR_INT, $1, (LyirStr){0}, (LyiList){0}, @1); CHECK($$); }
          | '-' INTEGER         { $$ = attr_item(p, LYIR_ATTR_INT, -$2, (LyirStr){0}, (LyiList){0}, @1); CHECK($$); }
          | INTEGER type_suffix { $$ = attr_item(p, LYIR_ATTR_INT, $1, (LyirStr){0}, (LyiList){0}, @1); CHECK($$);
                                  $$->attr.type = $2; }
          | '-' INTEGER type_suffix
                                { $$ = attr_item(p, LYIR_ATTR_INT, -$2, (LyirStr){0}, (LyiList){0}, @1); CHECK($$);
                                  $$->attr.type = $3; }
          | OPAQUE              { $$ = opaque_attr(p, $1, @1); CHECK($$); }
          | OPAQUE type_suffix  { $$ = opaque_attr(p, $1, @1); CHECK($$); $$->attr.type = $2; }
          | HASH                { $$ = opaque_attr(p, $1, @1); CHECK($$); }
          | STRING              { $$ = attr_item(p, LYIR_ATTR_STRING, 0, $1, (LyiList){0}, @1); CHECK($$); }
          | IDENT               { bool t = $1.len == 4 && !memcmp($1.s, "true", 4);
                                  if (!t && !($1.len == 5 && !memcmp($1.s, "false", 5))) {
                                    lyir_error(p->m, L(@1), "expected an attribute value (integer, string, true, "
                                               "false or [...]), found '%.*s'", $1.len > 32 ? 32 : $1.len, $1.s);
                                    YYABORT;
                                  }
                                  $$ = attr_item(p, LYIR_ATTR_BOOL, t, (LyirStr){0}, (LyiList){0}, @1); CHECK($$); }
          | '[' ']'             { $$ = attr_item(p, LYIR_ATTR_ARRAY, 0, (LyirStr){0}, (LyiList){0}, @1); CHECK($$); }
          | '[' attr_values ']' { $$ = attr_item(p, LYIR_ATTR_ARRAY, 0, (LyirStr){0}, $2, @1); CHECK($$); }
          ;

attr_values: attr_value                 { $$ = list1($1); }
           | attr_values ',' attr_value { $$ = append($1, $3); }
           ;

result_types: type              { LyiItem *it = item(p, @1); CHECK(it); it->type = $1; $$ = list1(it); }
            | '(' types_opt ')' { $$ = $2; }
            ;

types_opt: %empty { $$ = (LyiList){0}; }
         | types  { $$ = $1; }
         ;

types: type           { LyiItem *it = item(p, @1); CHECK(it); it->type = $1; $$ = list1(it); }
     | types ',' type { LyiItem *it = item(p, @3); CHECK(it); it->type = $3; $$ = append($1, it); }
     ;

type: TYPE   { $$ = parse_type(p, $1, @1); CHECK($$); }
    | IDENT  { $$ = foreign_type(p, $1, @1); CHECK($$); }
    | OPAQUE { $$ = foreign_type(p, $1, @1); CHECK($$); }
    | DTYPE  { $$ = foreign_type(p, $1, @1); CHECK($$); }
    ;

%%

/* --- Errors ------------------------------------------------------------------- */

static void lyi_error(LYI_LTYPE *loc, LyiParser *p, const char *msg) {
  if (!p->lex_error)
    lyir_error(p->m, L(*loc), "%s", msg);
}

/* Reports exhausted memory; false so that `return oom(...)` fails. */
static bool oom(LyiParser *p, LyLoc at) {
  lyir_error(p->m, at, "out of memory");
  return false;
}

static const char *describe_token(LyiParser *p, yysymbol_kind_t k, char *buf, size_t n) {
  if (k == YYSYMBOL_YYEOF)
    return "end of input";
  int len = (int)(p->cur - p->tok);
  snprintf(buf, n, "'%.*s'", len > 32 ? 32 : len, p->tok);
  return buf;
}

/* What to write instead, for the forms mlir-opt prints that layoutc does
 * not read: a registered op's custom syntax (`arith.constant 0 : index`,
 * read in the generic form), a second block and a branch. */
static void syntax_hint(LyiParser *p, yysymbol_kind_t la, const yysymbol_kind_t *exp, int n, LyBuf *b) {
  bool want_string = false;
  for (int i = 0; i < n; i++)
    want_string |= exp[i] == YYSYMBOL_STRING;
  int len = (int)(p->cur - p->tok);
  if (la == YYSYMBOL_IDENT && want_string && memchr(p->tok, '.', (size_t)len))
    ly_buf_printf(b, "; an op layoutc does not model is read in MLIR's generic form, \"%.*s\"(...) : (...) -> (...) "
                  "(mlir-opt --mlir-print-op-generic prints it)", len > 32 ? 32 : len, p->tok);
  else if (la == YYSYMBOL_BLOCK)
    ly_buf_puts(b, "; a function body and a region are one block each: multi-block regions and branches are not "
                "supported");
  else if (*p->tok == '[' && p->tok + 1 < p->lim && p->tok[1] == '^')
    ly_buf_puts(b, "; successor lists (branches to other blocks) are not supported: a region is one block");
}

static int yyreport_syntax_error(const yypcontext_t *ctx, LyiParser *p) {
  if (p->lex_error)
    return 0;
  yysymbol_kind_t la = yypcontext_token(ctx);
  yysymbol_kind_t exp[8];
  int n = yypcontext_expected_tokens(ctx, exp, 8);
  LyBuf b;
  ly_buf_init(&b);
  if (n > 0 && n <= 7) {
    ly_buf_puts(&b, "expected ");
    for (int i = 0; i < n; i++) {
      const char *name = exp[i] == YYSYMBOL_YYEOF ? "end of input" : yysymbol_name(exp[i]);
      ly_buf_printf(&b, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", name);
    }
  } else {
    ly_buf_puts(&b, "unexpected token");
  }
  char tb[48];
  ly_buf_printf(&b, ", found %s", describe_token(p, la, tb, sizeof tb));
  syntax_hint(p, la, exp, n, &b);
  lyir_error(p->m, L(*yypcontext_location(ctx)), "%s", b.oom ? "syntax error" : ly_buf_cstr(&b));
  ly_buf_free(&b);
  return 0;
}

/* --- Lists ------------------------------------------------------------------- */

static LyiItem *item(LyiParser *p, LYI_LTYPE l) {
  LyiItem *it = ly_arena_alloc(&p->scratch, sizeof *it);
  if (!it) {
    oom(p, L(l));
    return NULL;
  }
  it->loc = L(l);
  return it;
}

static LyiList list1(LyiItem *it) { return (LyiList){it, it, 1}; }

static LyiList append(LyiList l, LyiItem *it) {
  l.tail->next = it;
  l.tail = it;
  l.n++;
  return l;
}

static LyiItem *attr_item(LyiParser *p, LyirAttrKind k, int64_t i, LyirStr s, LyiList elems, LYI_LTYPE l) {
  LyiItem *it = item(p, l);
  if (!it)
    return NULL;
  it->attr = (LyirAttrValue){.kind = k, .i = i, .s = s, .loc = L(l)};
  if (k == LYIR_ATTR_DICT) {
    LyirDict d;
    if (!dict_of(p, elems, &d))
      return NULL;
    it->attr.n = d.n;
    it->attr.fields = d.attrs;
  }
  if (k == LYIR_ATTR_ARRAY) {
    /* Elements move to the module now: the scratch arena is reset per op. */
    it->attr.n = elems.n;
    it->attr.elems = lyir_alloc(p->m, (size_t)elems.n * sizeof *it->attr.elems);
    if (!it->attr.elems) {
      oom(p, L(l));
      return NULL;
    }
    int j = 0;
    for (LyiItem *e = elems.head; e; e = e->next)
      it->attr.elems[j++] = e->attr;
  }
  return it;
}

/* An attribute layoutc keeps as text; `array<i64: 1, 0>` (a dense array)
 * becomes an int array that remembers its spelling. */
static LyiItem *opaque_attr(LyiParser *p, LyirStr text, LYI_LTYPE l) {
  LyiItem *it = attr_item(p, LYIR_ATTR_OPAQUE, 0, text, (LyiList){0}, l);
  if (!it || text.len < 8 || memcmp(text.s, "array<", 6))
    return it;
  const char *s = text.s + 6, *e = text.s + text.len - 1; /* e: the closing '>' */
  const char *t = s;
  while (t < e && ((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9')))
    t++;
  if (t == s || !(s[0] == 'i' || s[0] == 's' || s[0] == 'u'))
    return it; /* array<f32: ...> and others stay text */
  int64_t vals[LY_MAX_RANK * 4];
  int n = 0;
  const char *c = t;
  if (c < e && *c == ':') {
    c++;
    for (;;) {
      while (c < e && (*c == ' ' || *c == '\n' || *c == '\t'))
        c++;
      bool neg = c < e && *c == '-';
      c += neg;
      if (c == e || *c < '0' || *c > '9' || n == (int)(sizeof vals / sizeof *vals))
        return it;
      int64_t v = 0;
      while (c < e && *c >= '0' && *c <= '9')
        if (!ly_mul(v, 10, &v) || !ly_add(v, *c++ - '0', &v))
          return it;
      vals[n++] = neg ? -v : v;
      while (c < e && (*c == ' ' || *c == '\n' || *c == '\t'))
        c++;
      if (c == e)
        break;
      if (*c++ != ',')
        return it;
    }
  } else if (c != e) {
    return it;
  }
  LyirAttrValue *elems = lyir_alloc(p->m, (size_t)(n ? n : 1) * sizeof *elems);
  if (!elems) {
    oom(p, L(l));
    return NULL;
  }
  for (int i = 0; i < n; i++)
    elems[i] = (LyirAttrValue){.kind = LYIR_ATTR_INT, .i = vals[i], .loc = L(l)};
  it->attr = (LyirAttrValue){.kind = LYIR_ATTR_ARRAY, .n = n, .elems = elems, .dense = {s, (int)(t - s)},
                             .loc = L(l)};
  return it;
}

/* An attribute list moved to the module (the scratch arena is reset). */
static bool dict_of(LyiParser *p, LyiList attrs, LyirDict *out) {
  out->n = attrs.n;
  out->attrs = attrs.n ? lyir_alloc(p->m, (size_t)attrs.n * sizeof *out->attrs) : NULL;
  if (attrs.n && !out->attrs)
    return oom(p, (LyLoc){0, 0});
  int i = 0;
  for (LyiItem *a = attrs.head; a; a = a->next, i++)
    out->attrs[i] = (LyirAttr){a->name, a->attr, a->loc};
  return true;
}

/* Properties `<{...}>` are how MLIR's generic form writes the inherent
 * attributes of registered ops (arith.constant's value): kept on ops
 * layoutc does not know and printed back; layoutc's own ops take attributes. */
static bool set_props(LyiParser *p, LyirDict props, LYI_LTYPE l) {
  if (!props.n)
    return true;
  if (!p->last_op->foreign.len) {
    lyir_error(p->m, L(l), "'%s' takes attributes {...}, not properties <{...}>", lyir_op_name(p->last_op->kind));
    return false;
  }
  p->last_op->props = props;
  return true;
}

static bool begin_module(LyiParser *p, LyirStr sym, LyiList attrs, LYI_LTYPE l) {
  if (p->saw_module || p->m->first) {
    lyir_error(p->m, L(l), "a file holds one module; split it with '// -----' and --split-input-file");
    return false;
  }
  p->saw_module = p->m->wrapped = true;
  p->m->sym = sym;
  bool ok = dict_of(p, attrs, &p->m->attrs);
  ly_arena_free(&p->scratch);
  return ok;
}

static bool add_alias(LyiParser *p, LyirStr name, LyirStr text, LYI_LTYPE l) {
  LyirModule *m = p->m;
  for (int i = 0; i < m->naliases; i++)
    if (m->aliases[i].name.len == name.len - 1 && !memcmp(m->aliases[i].name.s, name.s + 1, (size_t)name.len - 1)) {
      lyir_error(m, L(l), "redefinition of alias '%.*s'", name.len, name.s);
      return false;
    }
  if ((m->naliases & (m->naliases - 1)) == 0) { /* grow at powers of two */
    LyirAlias *a = lyir_alloc(m, (size_t)(m->naliases ? 2 * m->naliases : 1) * sizeof *a);
    if (!a)
      return oom(p, L(l));
    if (m->naliases)
      memcpy(a, m->aliases, (size_t)m->naliases * sizeof *a);
    m->aliases = a;
  }
  m->aliases[m->naliases++] = (LyirAlias){{name.s + 1, name.len - 1}, text};
  return true;
}

static bool set_func_extras(LyiParser *p, LyirStr vis, LYI_LTYPE vl, LyiList attrs, LyiList args) {
  LyirFunc *f = p->fn;
  if (vis.len && !((vis.len == 7 && !memcmp(vis.s, "private", 7)) || (vis.len == 6 && !memcmp(vis.s, "public", 6)) ||
                   (vis.len == 6 && !memcmp(vis.s, "nested", 6)))) {
    lyir_error(p->m, L(vl), "expected 'private', 'public' or 'nested' before the function name, found '%.*s'",
               vis.len > 32 ? 32 : vis.len, vis.s);
    return false;
  }
  f->visibility = vis;
  if (!dict_of(p, attrs, &f->attrs))
    return false;
  bool any = false;
  for (LyiItem *a = args.head; a; a = a->next)
    any = any || a->dict.n;
  if (any) {
    f->arg_attrs = lyir_alloc(p->m, (size_t)args.n * sizeof *f->arg_attrs);
    if (!f->arg_attrs)
      return oom(p, f->loc);
    int i = 0;
    for (LyiItem *a = args.head; a; a = a->next, i++)
      if (!dict_of(p, a->dict, &f->arg_attrs[i]))
        return false;
  }
  return true;
}

static bool set_res_attrs(LyiParser *p, LyiList results) {
  LyirFunc *f = p->fn;
  bool any = false;
  for (LyiItem *r = results.head; r; r = r->next)
    any = any || r->dict.n;
  if (!any)
    return true;
  f->res_attrs = lyir_alloc(p->m, (size_t)results.n * sizeof *f->res_attrs);
  if (!f->res_attrs)
    return oom(p, f->loc);
  int i = 0;
  for (LyiItem *r = results.head; r; r = r->next, i++)
    if (!dict_of(p, r->dict, &f->res_attrs[i]))
      return false;
  return true;
}

/* arg_attrs and res_attrs of the generic form: one dictionary per entry. */
static bool check_gdicts(LyiParser *p, const LyirAttrValue *v, const char *what, int n, const char *whose) {
  if (v->n != n) {
    lyir_error(p->m, v->loc, "%s lists %d dictionaries for %d %s", what, v->n, n, whose);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (v->elems[i].kind != LYIR_ATTR_DICT) {
      lyir_error(p->m, v->elems[i].loc, "%s entries are dictionaries", what);
      return false;
    }
  return true;
}

static LyirDict *gdicts(LyiParser *p, const LyirAttrValue *v) {
  LyirDict *d = lyir_alloc(p->m, (size_t)v->n * sizeof *d);
  if (!d) {
    oom(p, v->loc);
    return NULL;
  }
  for (int i = 0; i < v->n; i++)
    d[i] = (LyirDict){v->elems[i].n, v->elems[i].fields};
  return d;
}

/* --- The generic form of func.func and builtin.module ---------------------- */

static bool name_is(LyirStr n, const char *s) { return n.len == (int)strlen(s) && !memcmp(n.s, s, (size_t)n.len); }

static LyirStr prop_sym(LyiParser *p, LyiList props, bool *ok) {
  LyirStr sym = {0};
  for (LyiItem *a = props.head; a; a = a->next) {
    if (name_is(a->name, "sym_name") && a->attr.kind == LYIR_ATTR_STRING) {
      sym = a->attr.s;
    } else {
      lyir_error(p->m, a->loc, "unexpected property '%.*s' of builtin.module", a->name.len > 32 ? 32 : a->name.len,
                 a->name.s);
      *ok = false;
    }
  }
  return sym;
}

/* sym_name, function_type, sym_visibility, arg_attrs: the signature is
 * known before the body, whose entry block names the arguments. */
static bool begin_gfunc(LyiParser *p, LyiList props, LYI_LTYPE l) {
  LyirStr name = {0}, vis = {0};
  LyiItem *ftype = NULL;
  p->gargs = p->gres = (LyirAttrValue){0};
  for (LyiItem *a = props.head; a; a = a->next) {
    if (name_is(a->name, "sym_name") && a->attr.kind == LYIR_ATTR_STRING)
      name = a->attr.s;
    else if (name_is(a->name, "sym_visibility") && a->attr.kind == LYIR_ATTR_STRING)
      vis = a->attr.s;
    else if (name_is(a->name, "function_type") && a->attr.kind == LYIR_ATTR_OPAQUE && name_is(a->attr.s, "function type"))
      ftype = a;
    else if (name_is(a->name, "arg_attrs") && a->attr.kind == LYIR_ATTR_ARRAY)
      p->gargs = a->attr;
    else if (name_is(a->name, "res_attrs") && a->attr.kind == LYIR_ATTR_ARRAY)
      p->gres = a->attr;
    else {
      lyir_error(p->m, a->loc, "unexpected property '%.*s' of func.func (expected sym_name, function_type, "
                 "sym_visibility, arg_attrs or res_attrs)", a->name.len > 32 ? 32 : a->name.len, a->name.s);
      return false;
    }
  }
  if (!name.len || !ftype) {
    lyir_error(p->m, L(l), "func.func needs the properties sym_name and function_type");
    return false;
  }
  if (!begin_func(p, name, l))
    return false;
  p->fn->visibility = vis;
  p->gins = ftype->ins;
  p->gouts = ftype->outs;
  return true;
}

static bool gfunc_block(LyiParser *p, LyiList args, bool labelled, LYI_LTYPE l) {
  LyiList ins = p->gins;
  if (labelled && args.n != ins.n) {
    lyir_error(p->m, L(l), "the entry block has %d argument%s but the function type lists %d", args.n,
               args.n == 1 ? "" : "s", ins.n);
    return false;
  }
  if (labelled) {
    LyiItem *t = ins.head;
    for (LyiItem *a = args.head; a; a = a->next, t = t->next)
      if (a->value->type != t->type) {
        type_error(p, a->loc, "block argument", a->value->name, a->value->type, t->type);
        return false;
      }
  } else { /* no entry block: a declaration (or a function without arguments) */
    args = (LyiList){0};
    for (LyiItem *t = ins.head; t; t = t->next) {
      LyiItem *a = add_arg(p, (LyirStr){0}, l, t->type);
      if (!a)
        return false;
      args = args.n ? append(args, a) : list1(a);
    }
  }
  if ((p->gargs.n && !check_gdicts(p, &p->gargs, "arg_attrs", args.n, "arguments")) ||
      (p->gres.n && !check_gdicts(p, &p->gres, "res_attrs", p->gouts.n, "results")))
    return false;
  if (!set_signature(p, args, p->gouts))
    return false;
  LyirFunc *f = p->fn;
  if ((p->gargs.n && !(f->arg_attrs = gdicts(p, &p->gargs))) || (p->gres.n && !(f->res_attrs = gdicts(p, &p->gres))))
    return false;
  f->decl = !labelled && f->nargs > 0; /* decided again at the end: no ops, no label */
  p->glabelled = labelled;
  return true;
}

static bool end_gfunc(LyiParser *p, LyiList attrs, LyirStr loc) {
  LyirFunc *f = p->fn;
  f->decl = !p->glabelled && !f->first;
  f->srcloc = loc;
  if (!dict_of(p, attrs, &f->attrs))
    return false;
  return end_func(p);
}

static bool end_gmodule(LyiParser *p, LyiList attrs) { return dict_of(p, attrs, &p->m->attrs); }

static LyirStr type_text(LyiParser *p, LyiTypeTok t) {
  return (LyirStr){p->buf + t.begin, (int)(t.end - t.begin)};
}

/* --- Types --------------------------------------------------------------------- */

/* The type grammar runs on a source that starts at the beginning of the
 * type's line, so that it never scans the file before it (parsing stays
 * linear in the file's size). Its columns are then the file's; this handler
 * moves its lines back to the file's. On a very long line it starts at the
 * type itself (columns are moved too, but those inside its messages, such
 * as "opened at column N", count from the type). */
#define LYI_MAX_LINE_SCAN 4096

typedef struct {
  LyDiagnosticHandler handler;
  void *user;
  int line, col_delta;    /* the type's first line; columns to add on it */
  const char *line_text;  /* the file line the type starts on */
  size_t line_room;       /* bytes from line_text to the end of the file */
} Shift;

static void shift_handler(const LyDiagnostic *d, void *user) {
  Shift *s = user;
  LyDiagnostic c = *d;
  if (c.line == 1 && s->col_delta) {
    c.column += s->col_delta;
    const char *e = memchr(s->line_text, '\n', s->line_room);
    c.source_line = s->line_text;
    c.source_line_len = (int)(e ? (size_t)(e - s->line_text) : s->line_room);
  }
  if (c.line > 0)
    c.line += s->line - 1;
  if (s->handler)
    s->handler(&c, s->user);
}

/* `#name` inside a type: the text of the module's alias (defined before). */
static const char *alias_lookup(void *user, const char *name, int len, int *text_len) {
  const LyirModule *m = user;
  for (int i = 0; i < m->naliases; i++)
    if (m->aliases[i].name.len == len && !memcmp(m->aliases[i].name.s, name, (size_t)len)) {
      *text_len = m->aliases[i].text.len;
      return m->aliases[i].text.s;
    }
  return NULL;
}

static const LyTypeImpl *parse_type(LyiParser *p, LyiTypeTok t, LYI_LTYPE l) {
  LyDiagEngine *d = &p->m->ctx->diag;
  const LySource *src = &p->m->src;
  size_t from = t.begin - t.line_start <= LYI_MAX_LINE_SCAN ? t.line_start : t.begin;
  Shift s = {d->handler, d->user, l.first_line, (int)(from - t.line_start), src->text + t.line_start,
             src->len - t.line_start};
  LySource sub = {src->name, src->text + from, src->len - from};
  d->handler = shift_handler;
  d->user = &s;
  p->m->ctx->alias_lookup = alias_lookup;
  p->m->ctx->alias_user = p->m;
  const LyTypeImpl *ty = lyp_parse_type_in(p->m->ctx, &sub, t.begin - from, t.end - from);
  p->m->ctx->alias_lookup = NULL;
  p->m->ctx->alias_user = NULL;
  d->handler = s.handler;
  d->user = s.user;
  return ty;
}

/* A value type that is not a tensor: MLIR's builtin scalars (`index`,
 * `i32`, `f16`, ...), its composite builtins (`memref<...>`, `vector<...>`,
 * `complex<...>`, `tuple<...>`) and dialect types (`!llvm.ptr`,
 * `!foo.bar<...>`). layoutc keeps them as their text; anything else is a
 * misspelling, reported here rather than carried through. */
static const LyTypeImpl *foreign_type(LyiParser *p, LyirStr s, LYI_LTYPE l) {
  bool ok = lyd_foreign_name(s.s, (size_t)s.len);
  for (int i = 0; ok && i < s.len; i++) /* kept as one line of text: no NUL, newline or control byte */
    if ((unsigned char)s.s[i] < 0x20 || s.s[i] == 0x7f) {
      lyir_error(p->m, L(l), "unexpected byte 0x%02x in type '%.*s'", (unsigned char)s.s[i], i > 40 ? 40 : i, s.s);
      return NULL;
    }
  if (!ok) {
    int n = s.len > 40 ? 40 : s.len;
    lyir_error(p->m, L(l), "unknown type '%.*s%s' (expected a tensor type, an MLIR builtin type such as index, i32 "
               "or memref<...>, or a dialect type !dialect.name)", n, s.s, n < s.len ? "..." : "");
    return NULL;
  }
  const LyTypeImpl *t = lyd_foreign(p->m->ctx, s.s, (size_t)s.len);
  if (!t)
    oom(p, L(l));
  return t;
}

/* --- Functions and values -------------------------------------------------------- */

static bool begin_func(LyiParser *p, LyirStr name, LYI_LTYPE l) {
  LyirFunc *prev = lyir_symtab_find(&p->funcs, name);
  if (prev) {
    lyir_error(p->m, L(l), "redefinition of function '@%.*s'", name.len, name.s);
    lyir_note(p->m, prev->loc, "previous definition is here");
    return false;
  }
  p->fn = lyir_func_create(p->m, name, L(l));
  if (!p->fn || !lyir_symtab_add(&p->funcs, name, p->fn))
    return oom(p, L(l));
  lyir_symtab_free(&p->values);
  return true;
}

/* Defines name in the function's scope; false after reporting a
 * redefinition or running out of memory. */
static bool define(LyiParser *p, LyirValue *v, LyLoc at) {
  LyirValue *prev = lyir_symtab_find(&p->values, v->name);
  if (prev) {
    lyir_error(p->m, at, "redefinition of value '%%%.*s'", v->name.len, v->name.s);
    lyir_note(p->m, prev->loc, "previous definition is here");
    return false;
  }
  if (!lyir_symtab_add(&p->values, v->name, v))
    return oom(p, at);
  return true;
}

/* Defines an argument as soon as it is parsed; set_signature collects them. */
static LyiItem *add_arg(LyiParser *p, LyirStr name, LYI_LTYPE nl, const LyTypeImpl *t) {
  LyirValue *v = lyir_value_create(p->m, t, name, L(nl));
  if (!v) {
    oom(p, L(nl));
    return NULL;
  }
  LyiItem *it = item(p, nl); /* reports running out of memory itself */
  /* A declaration lists types only: nothing to define. */
  if (!it || (name.len && !define(p, v, L(nl))))
    return NULL;
  it->value = v;
  return it;
}

static bool set_signature(LyiParser *p, LyiList args, LyiList results) {
  LyirFunc *f = p->fn;
  f->nargs = args.n;
  f->nresults = results.n;
  f->args = lyir_alloc(p->m, (size_t)args.n * sizeof *f->args);
  f->result_types = lyir_alloc(p->m, (size_t)results.n * sizeof *f->result_types);
  f->result_locs = lyir_alloc(p->m, (size_t)results.n * sizeof *f->result_locs);
  if (!f->args || !f->result_types || !f->result_locs)
    return oom(p, f->loc);
  int i = 0;
  for (LyiItem *it = args.head; it; it = it->next)
    f->args[i++] = it->value;
  i = 0;
  for (LyiItem *it = results.head; it; it = it->next, i++)
    f->result_types[i] = it->type, f->result_locs[i] = it->loc;
  ly_arena_free(&p->scratch);
  return true;
}

/* The cast --emit=mlir writes (MLIR's func.return wants the declared type,
 * where layoutc's `any` result accepts any layout): a cast of a value to its
 * own type with layout `any`, used only by the return, is folded away so
 * that reading the MLIR form gives the function it was printed from. */
static bool is_return_cast(const LyirOp *op) {
  static const char name[] = "builtin.unrealized_conversion_cast";
  if (op->foreign.len != (int)sizeof name - 1 || memcmp(op->foreign.s, name, sizeof name - 1) ||
      op->noperands != 1 || op->nresults != 1 || op->nattrs)
    return false;
  const LyTypeImpl *a = op->operands[0]->type, *r = op->results[0]->type;
  return r->kind == LYD_ANY && a->kind != LYD_ANY && a->elem == r->elem && a->rank == r->rank &&
         !memcmp(a->dims, r->dims, (size_t)a->rank * sizeof *a->dims) && a->ms_num == r->ms_num &&
         (a->ms_str == r->ms_str || (a->ms_str && r->ms_str && !strcmp(a->ms_str, r->ms_str)));
}

static void fold_return_casts(LyirFunc *f) {
  LyirOp *ret = f->last;
  if (!ret || ret->kind != LYIR_OP_RETURN || ret->foreign.len)
    return;
  for (int i = 0; i < ret->noperands; i++) {
    LyirOp *c = ret->operands[i]->def;
    if (!c || !is_return_cast(c))
      continue;
    int uses = 0;
    for (LyirOp *op = f->first; op; op = lyir_op_walk_next(op))
      for (int j = 0; j < op->noperands; j++)
        uses += op->operands[j] == c->results[0];
    if (uses != 1)
      continue;
    ret->operands[i] = c->operands[0];
    lyir_op_remove(f, c);
  }
}

static bool end_func(LyiParser *p) {
  LyirFunc *f = p->fn;
  fold_return_casts(f);
  for (int i = 0; i < f->nargs; i++)
    if (f->args[i]->name.len && f->decl) {
      lyir_error(p->m, p->end_loc, "expected '{' after the signature of '@%.*s': a function whose arguments are "
                 "named has a body", f->name.len, f->name.s);
      return false;
    } else if (!f->args[i]->name.len && !f->decl) {
      lyir_error(p->m, f->args[i]->loc, "argument #%d of '@%.*s' needs a name: the function has a body", i,
                 f->name.len, f->name.s);
      return false;
    }
  lyir_func_append(p->m, p->fn);
  p->fn = NULL;
  lyir_symtab_free(&p->values);
  return true;
}

static LyiItem *use_value(LyiParser *p, LyirStr name, LYI_LTYPE l) {
  LyirValue *v = lyir_symtab_find(&p->values, name);
  if (!v) {
    lyir_error(p->m, L(l), "use of undefined value '%%%.*s'", name.len, name.s);
    return NULL;
  }
  LyiItem *it = item(p, l);
  if (it)
    it->value = v;
  return it;
}

/* --- Ops --------------------------------------------------------------------------- */

static void type_error(LyiParser *p, LyLoc at, const char *what, LyirStr name, const LyTypeImpl *value_type,
                       const LyTypeImpl *sig_type) {
  LyBuf a, b;
  ly_buf_init(&a);
  ly_buf_init(&b);
  lyir_type_str(value_type, &a);
  lyir_type_str(sig_type, &b);
  lyir_error(p->m, at, "%s '%%%.*s' has type %s but the op's signature says %s", what, name.len, name.s,
             ly_buf_cstr(&a), ly_buf_cstr(&b));
  ly_buf_free(&a);
  ly_buf_free(&b);
}

/* The signature lists the operands' types: they must be the values' types. */
static bool check_operand_types(LyiParser *p, LyiList operands, LyiList in_types, LyLoc sig) {
  if (operands.n != in_types.n) {
    lyir_error(p->m, sig, "the op has %d operand%s but its signature lists %d operand type%s", operands.n,
               operands.n == 1 ? "" : "s", in_types.n, in_types.n == 1 ? "" : "s");
    return false;
  }
  LyiItem *t = in_types.head;
  for (LyiItem *o = operands.head; o; o = o->next, t = t->next)
    if (o->value->type != t->type) {
      type_error(p, t->loc, "operand", o->value->name, o->value->type, t->type);
      lyir_note(p->m, o->value->loc, "the value is defined here");
      return false;
    }
  return true;
}

/* Attribute names are unique per op; a hash table keeps that linear for
 * ops with very many attributes. */
static bool fill_attrs(LyiParser *p, LyirOp *op, LyiList attrs) {
  LyirSymtab seen;
  lyir_symtab_init(&seen);
  bool ok = true;
  int i = 0;
  for (LyiItem *a = attrs.head; a && ok; a = a->next, i++) {
    op->attrs[i] = (LyirAttr){a->name, a->attr, a->loc};
    LyirAttr *first = lyir_symtab_find(&seen, a->name);
    if (first) {
      lyir_error(p->m, a->loc, "attribute '%.*s' is given twice", a->name.len, a->name.s);
      lyir_note(p->m, first->loc, "first given here");
      ok = false;
    } else if (!lyir_symtab_add(&seen, a->name, &op->attrs[i])) {
      ok = oom(p, a->loc);
    }
  }
  lyir_symtab_free(&seen);
  return ok;
}

/* A group `%x:N` defines %x#0 .. %x#N-1, as MLIR does. */
static bool fill_results(LyiParser *p, LyirOp *op, LyiList results, LyiList out_types, LyLoc sig) {
  if (op->nresults != out_types.n) {
    lyir_error(p->m, sig, "the op defines %d result%s but its signature lists %d result type%s", op->nresults,
               op->nresults == 1 ? "" : "s", out_types.n, out_types.n == 1 ? "" : "s");
    return false;
  }
  int i = 0;
  LyiItem *t = out_types.head;
  for (LyiItem *r = results.head; r; r = r->next) {
    for (int j = 0; j < r->count; j++, t = t->next, i++) {
      LyirStr name = r->name;
      if (r->count > 1 || r->name.len != r->attr.s.len) { /* a group: name#j */
        char *s = lyir_alloc(p->m, (size_t)r->name.len + 24);
        if (!s)
          return oom(p, r->loc);
        name = (LyirStr){s, snprintf(s, (size_t)r->name.len + 24, "%.*s#%d", r->name.len, r->name.s, j)};
      }
      LyirValue *v = lyir_value_create(p->m, t->type, name, r->loc);
      if (!v)
        return oom(p, r->loc);
      if (name.s != r->name.s)
        v->numbered = r->numbered;
      v->def = op;
      op->results[i] = v;
      op->result_type_locs[i] = t->loc;
      if (!define(p, v, r->loc))
        return false;
    }
  }
  return true;
}

/* `%x` or a group `%x:N` (N >= 1). */
static LyiItem *result_name(LyiParser *p, LyirStr s, bool group, LYI_LTYPE l) {
  LyiItem *it = item(p, l);
  if (!it)
    return NULL;
  it->name = s;
  it->count = 1;
  it->attr.s = s; /* the name as written: a group's members are renamed */
  if (group) {
    const char *colon = memchr(s.s, ':', (size_t)s.len);
    int64_t n = 0;
    for (const char *c = colon + 1; c < s.s + s.len; c++)
      if (!ly_mul(n, 10, &n) || !ly_add(n, *c - '0', &n) || n > 65536) {
        lyir_error(p->m, L(l), "a result group has at most 65536 results");
        return NULL;
      }
    if (n == 0) {
      lyir_error(p->m, L(l), "a result group has at least one result");
      return NULL;
    }
    it->name.len = (int)(colon - s.s);
    it->attr.s = (LyirStr){0};
    it->count = (int)n;
    bool digits = true;
    for (int i = 0; i < it->name.len; i++)
      digits = digits && it->name.s[i] >= '0' && it->name.s[i] <= '9';
    it->numbered = digits;
  }
  return it;
}

static bool make_op(LyiParser *p, LyiList results, LyirStr name, LYI_LTYPE nl, LyiList operands,
                    LyiList attrs, LyiList in_types, LyiList out_types, LYI_LTYPE sigl, LyiList regions) {
  LyirOpKind k = lyir_op_lookup(name.s, name.len);
  bool foreign = k == LYIR_OP_COUNT;
  if (foreign) {
    /* An op layoutc does not know: opaque compute without constraints,
     * which every pass leaves as it is. A name in layoutc's own dialect
     * is a typo, though. */
    if (name.len == 0 || (name.len >= 7 && !memcmp(name.s, "layout.", 7))) {
      lyir_error(p->m, L(nl), "unknown operation \"%.*s\" (expected layout.reshape, layout.transpose, "
                 "layout.slice, layout.broadcast, layout.relayout, layout.view, layout.op or func.return)",
                 name.len > 64 ? 64 : name.len, name.s);
      return false;
    }
    k = LYIR_OP_COMPUTE;
  }
  if (k == LYIR_OP_RETURN && p->depth) {
    lyir_error(p->m, L(nl), "'func.return' is only valid at the top level of a function; a region ends with its "
               "own terminator op (\"scf.yield\")");
    return false;
  }
  if (!check_operand_types(p, operands, in_types, L(sigl)))
    return false;
  int nres = 0;
  for (LyiItem *r = results.head; r; r = r->next)
    nres += r->count;
  LyLoc start = results.n ? results.head->loc : L(nl);
  LyirOp *op = lyir_op_create(p->m, k, start, operands.n, nres, attrs.n);
  if (!op)
    return oom(p, L(nl));
  op->name_loc = L(nl);
  if (foreign)
    op->foreign = name;
  p->last_op = op;
  int i = 0;
  for (LyiItem *o = operands.head; o; o = o->next, i++)
    op->operands[i] = o->value, op->operand_locs[i] = o->loc;
  if (!fill_attrs(p, op, attrs) || !fill_results(p, op, results, out_types, L(sigl)) || !set_regions(p, op, regions))
    return false;
  if (p->depth)
    lyir_block_append(p->blocks[p->depth - 1], op);
  else
    lyir_op_append(p->fn, op);
  /* Nothing of this op's lists is referenced any more; inside a region, the
   * enclosing ops' lists are still being read. */
  if (!p->depth)
    ly_arena_free(&p->scratch);
  return true;
}

/* --- Regions ------------------------------------------------------------------------ */

static bool begin_region(LyiParser *p, LYI_LTYPE l) {
  if (p->depth == LYI_MAX_REGION_DEPTH) {
    lyir_error(p->m, L(l), "regions nested more than %d deep", LYI_MAX_REGION_DEPTH);
    return false;
  }
  LyirBlock *b = lyir_alloc(p->m, sizeof *b);
  if (!b)
    return oom(p, L(l));
  b->loc = L(l);
  p->blocks[p->depth++] = b;
  return true;
}

/* `^bb0(%i: index, ...)`: the arguments are defined (add_arg) as they are
 * read; here they become the block's. */
static bool region_args(LyiParser *p, LyiList args) {
  LyirBlock *b = p->blocks[p->depth - 1];
  b->nargs = args.n;
  b->args = lyir_alloc(p->m, (size_t)args.n * sizeof *b->args);
  if (!b->args)
    return oom(p, b->loc);
  int i = 0;
  for (LyiItem *a = args.head; a; a = a->next, i++) {
    if (!a->value->name.len) {
      lyir_error(p->m, a->loc, "block argument #%d needs a name", i);
      return false;
    }
    if (a->dict.n) {
      lyir_error(p->m, a->dict.head->loc, "a block argument takes no attributes");
      return false;
    }
    b->args[i] = a->value;
    a->value->block = b;
  }
  return true;
}

/* The region's names go out of scope (MLIR's: a sibling region may use them
 * again; an enclosing one never saw them). */
static LyiItem *end_region(LyiParser *p, LYI_LTYPE l) {
  LyirBlock *b = p->blocks[--p->depth];
  for (int i = 0; i < b->nargs; i++)
    lyir_symtab_hide(&p->values, b->args[i]->name);
  for (LyirOp *op = b->first; op; op = op->next)
    for (int i = 0; i < op->nresults; i++)
      lyir_symtab_hide(&p->values, op->results[i]->name);
  LyiItem *it = item(p, l);
  if (it)
    it->block = b;
  return it;
}

static bool set_regions(LyiParser *p, LyirOp *op, LyiList regions) {
  if (!regions.n)
    return true;
  op->nregions = regions.n;
  op->regions = lyir_alloc(p->m, (size_t)regions.n * sizeof *op->regions);
  if (!op->regions)
    return oom(p, op->loc);
  int i = 0;
  for (LyiItem *r = regions.head; r; r = r->next, i++) {
    op->regions[i] = r->block;
    r->block->parent = op;
  }
  return true;
}

/* --- Entry point ------------------------------------------------------------------- */

/* Inputs larger than this are refused before lexing (columns are ints). */
#define LYI_MAX_INPUT (1u << 30)

LyirModule *lyir_parse(LyCtx *ctx, const char *name, const char *text, size_t len) {
  if (len > LYI_MAX_INPUT) {
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0},
                 "%s: input of %zu bytes exceeds the limit of %u", name ? name : "<input>", len, LYI_MAX_INPUT);
    return NULL;
  }
  LyiParser *p = ly_malloc(sizeof *p);
  LyirModule *m = lyir_module_create(ctx, name, text, len);
  if (!p || !m) {
    ly_free(p);
    lyir_module_destroy(m);
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  memset(p, 0, sizeof *p);
  p->buf = p->cur = p->tok = p->line_start = m->src.text;
  p->lim = m->src.text + len;
  p->line = 1;
  p->m = m;
  ly_arena_init(&p->scratch);
  lyir_symtab_init(&p->values);
  lyir_symtab_init(&p->funcs);
  int errors = ctx->diag.errors;
  int rc = lyi_parse(p);
  if (rc == 2 && ctx->diag.errors == errors)
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
  else if (rc != 0 && ctx->diag.errors == errors)
    lyir_error(m, p->end_loc, "syntax error");
  ly_arena_free(&p->scratch);
  lyir_symtab_free(&p->values);
  lyir_symtab_free(&p->funcs);
  ly_free(p);
  if (rc != 0 || ctx->diag.errors != errors) {
    lyir_module_destroy(m);
    return NULL;
  }
  return m;
}
