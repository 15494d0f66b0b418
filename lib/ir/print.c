/* ir/print: prints a module in the generic syntax that lyir_parse reads, so
 * that print -> parse -> print is the identity. Numbered values (unnamed, or
 * written %N) are renumbered per function in print order (regions
 * included); named values keep their names, which never collide with
 * numbers, unless a name is already in scope where the value is defined
 * (a pass moved a definition out of a region, or the C API built one):
 * that value prints as name_K, the first K free, as the parser requires. */
#include "ir/ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A named value's printed name, without '%': name, or name_K with K before
 * a group member's '#i'. */
static void print_name(const LyirValue *v, unsigned k, LyBuf *out) {
  if (!k) {
    ly_buf_printf(out, "%.*s", v->name.len, v->name.s);
    return;
  }
  const char *h = memchr(v->name.s, '#', (size_t)v->name.len);
  int plen = h ? (int)(h - v->name.s) : v->name.len;
  ly_buf_printf(out, "%.*s_%u%.*s", plen, v->name.s, k, v->name.len - plen, v->name.s + plen);
}

static void print_value(const LyirValue *v, LyBuf *out) {
  if (v->numbered) {
    ly_buf_printf(out, "%%%u", v->print_id);
  } else {
    ly_buf_puts(out, "%");
    print_name(v, v->print_dup, out);
  }
}

/* How to print: layoutc's own form, or the one mlir-opt prints; and where
 * the printer is in a function. */
typedef struct {
  bool mlir;
  LyBuf *out;
  const LyirFunc *f;
  int indent;        /* of the ops being printed */
  unsigned next_id;  /* layoutc's form: the next number */
  unsigned cast_id;  /* MLIR's form: the number of the first return cast */
  LyirSymtab names;  /* layoutc's form: the printed names in scope */
  LyArena arena;     /* the name_K strings */
} Printer;

/* The printed name with K (k == 0: the name itself, which outlives the
 * printer; k > 0, only after a clash, a copy in the printer's arena); NULL
 * when out of memory. */
static LyirStr name_key(Printer *pr, const LyirValue *v, unsigned k) {
  if (!k)
    return v->name;
  LyBuf b;
  ly_buf_init(&b);
  print_name(v, k, &b);
  char *s = b.oom ? NULL : ly_arena_strndup(&pr->arena, b.data, b.len);
  LyirStr r = {s, s ? (int)b.len : 0};
  ly_buf_free(&b);
  return r;
}

static bool name_free(Printer *pr, const LyirValue *v, unsigned k) {
  LyirStr key = name_key(pr, v, k);
  return !key.s || !lyir_symtab_find(&pr->names, key);
}

/* Brings the named values among vals[0, n) into scope under one K (a
 * group's members share it): the first with which no name clashes. */
static void define_names(Printer *pr, LyirValue *const *vals, int n) {
  if (pr->mlir)
    return;
  unsigned k = 0;
  for (bool clash = true; clash; k += clash) {
    clash = false;
    for (int i = 0; i < n && !clash; i++)
      clash = !vals[i]->numbered && !name_free(pr, vals[i], k);
  }
  for (int i = 0; i < n; i++) {
    if (vals[i]->numbered)
      continue;
    vals[i]->print_dup = k;
    LyirStr key = name_key(pr, vals[i], k);
    if (!key.s || !lyir_symtab_add(&pr->names, key, vals[i]))
      pr->out->oom = true;
  }
}

/* A region's names go out of scope at its end (ir.y's end_region). */
static void hide_value(Printer *pr, const LyirValue *v) {
  LyirStr key = v->numbered ? (LyirStr){0} : name_key(pr, v, v->print_dup);
  if (key.s)
    lyir_symtab_hide(&pr->names, key);
}

static void hide_names(Printer *pr, const LyirBlock *b) {
  if (pr->mlir)
    return;
  for (int i = 0; i < b->nargs; i++)
    hide_value(pr, b->args[i]);
  for (const LyirOp *op = b->first; op; op = op->next)
    for (int i = 0; i < op->nresults; i++)
      hide_value(pr, op->results[i]);
}

static void print_type(const Printer *pr, const LyTypeImpl *t) {
  if (pr->mlir)
    lyd_print_mlir(t, pr->out);
  else
    lyd_print(t, pr->out);
}

static bool is_i64(LyirStr t) { return t.len == 3 && !memcmp(t.s, "i64", 3); }

static void print_dict_body(const Printer *pr, const struct LyirAttr *attrs, int n);

/* MLIR writes the type of an integer at the top of a dictionary (`2 : i64`)
 * and elides i64 inside arrays; layoutc's own form elides i64 everywhere. */
static void print_attr_value(const Printer *pr, const LyirAttrValue *a, bool top) {
  LyBuf *out = pr->out;
  switch (a->kind) {
  case LYIR_ATTR_INT:
    ly_buf_printf(out, "%" PRId64, a->i);
    if (a->type.len && !(is_i64(a->type) && !(pr->mlir && top)))
      ly_buf_printf(out, " : %.*s", a->type.len, a->type.s);
    else if (!a->type.len && pr->mlir && top)
      ly_buf_puts(out, " : i64");
    break;
  case LYIR_ATTR_BOOL:
    ly_buf_puts(out, a->i ? "true" : "false");
    break;
  case LYIR_ATTR_STRING:
    ly_buf_printf(out, "\"%.*s\"", a->s.len, a->s.s);
    break;
  case LYIR_ATTR_UNIT:
    break;
  case LYIR_ATTR_DICT:
    if (a->n == 0)
      ly_buf_puts(out, "{}");
    else
      print_dict_body(pr, a->fields, a->n);
    break;
  case LYIR_ATTR_OPAQUE:
    ly_buf_printf(out, "%.*s", a->s.len, a->s.s);
    if (a->type.len)
      ly_buf_printf(out, " : %.*s", a->type.len, a->type.s);
    break;
  case LYIR_ATTR_ARRAY:
    if (a->dense.len) {
      ly_buf_printf(out, "array<%.*s%s", a->dense.len, a->dense.s, a->n ? ": " : "");
      for (int i = 0; i < a->n; i++)
        ly_buf_printf(out, "%s%" PRId64, i ? ", " : "", a->elems[i].i);
      ly_buf_puts(out, ">");
      break;
    }
    ly_buf_puts(out, "[");
    for (int i = 0; i < a->n; i++) {
      if (i)
        ly_buf_puts(out, ", ");
      print_attr_value(pr, &a->elems[i], false);
    }
    ly_buf_puts(out, "]");
    break;
  }
}

static int attr_cmp(const void *x, const void *y) {
  const LyirAttr *a = *(const LyirAttr *const *)x, *b = *(const LyirAttr *const *)y;
  int n = a->name.len < b->name.len ? a->name.len : b->name.len;
  int c = memcmp(a->name.s, b->name.s, (size_t)n);
  return c ? c : a->name.len - b->name.len;
}

/* ` {a = 1, b}`; MLIR keeps a dictionary sorted by name. */
static void print_dict(const Printer *pr, const LyirAttr *attrs, int n) {
  if (n == 0)
    return;
  ly_buf_puts(pr->out, " ");
  print_dict_body(pr, attrs, n);
}

static void print_dict_body(const Printer *pr, const LyirAttr *attrs, int n) {
  const LyirAttr *small[16];
  const LyirAttr **order = n <= 16 ? small : ly_malloc((size_t)n * sizeof *order);
  if (!order) {
    pr->out->oom = true;
    return;
  }
  for (int i = 0; i < n; i++)
    order[i] = &attrs[i];
  if (pr->mlir)
    qsort(order, (size_t)n, sizeof *order, attr_cmp);
  ly_buf_puts(pr->out, "{");
  for (int i = 0; i < n; i++) {
    ly_buf_printf(pr->out, "%s%.*s", i ? ", " : "", order[i]->name.len, order[i]->name.s);
    if (order[i]->value.kind != LYIR_ATTR_UNIT) {
      ly_buf_puts(pr->out, " = ");
      print_attr_value(pr, &order[i]->value, true);
    }
  }
  ly_buf_puts(pr->out, "}");
  if (order != small)
    ly_free(order);
}

/* --- layoutc's form ----------------------------------------------------------- */

static void print_value_types(const Printer *pr, LyirValue *const *values, int n) {
  for (int i = 0; i < n; i++) {
    if (i)
      ly_buf_puts(pr->out, ", ");
    print_type(pr, values[i]->type);
  }
}

/* `-> T` for one result, `-> (T, U)` for several or with result
 * attributes (`-> (T {foo.bar})`), nothing for none. */
static void print_func_results(const Printer *pr, const LyirFunc *f) {
  if (f->nresults == 0)
    return;
  bool parens = f->nresults > 1 || f->res_attrs;
  ly_buf_puts(pr->out, parens ? " -> (" : " -> ");
  for (int i = 0; i < f->nresults; i++) {
    if (i)
      ly_buf_puts(pr->out, ", ");
    print_type(pr, f->result_types[i]);
    if (f->res_attrs)
      print_dict(pr, f->res_attrs[i].attrs, f->res_attrs[i].n);
  }
  if (parens)
    ly_buf_puts(pr->out, ")");
}

static const char *op_name(const LyirOp *op, int *len) {
  if (op->foreign.len) {
    *len = op->foreign.len;
    return op->foreign.s;
  }
  const char *n = lyir_op_name(op->kind);
  *len = (int)strlen(n);
  return n;
}

/* Results written as a group `%x:N` keep that form (their names are x#i). */
static int group_prefix(const LyirOp *op) {
  if (op->nresults < 2 || op->results[0]->numbered || !op->results[0]->name.len)
    return -1;
  const char *h = memchr(op->results[0]->name.s, '#', (size_t)op->results[0]->name.len);
  int plen = h ? (int)(h - op->results[0]->name.s) : -1;
  for (int i = 0; plen >= 0 && i < op->nresults; i++) {
    LyirStr n = op->results[i]->name;
    if (op->results[i]->numbered || n.len <= plen || memcmp(n.s, op->results[0]->name.s, (size_t)plen + 1))
      plen = -1;
  }
  return plen;
}

static void print_ops(Printer *pr, LyirOp *first);

/* `({ ... }, { ... })` as mlir-opt writes it: a block's label (when it has
 * arguments) at the op's indentation, its ops two columns in. */
static void print_regions(Printer *pr, const LyirOp *op, void (*value)(const LyirValue *, LyBuf *)) {
  LyBuf *out = pr->out;
  for (int r = 0; r < op->nregions; r++) {
    const LyirBlock *b = op->regions[r];
    ly_buf_puts(out, r ? ", {\n" : " ({\n");
    if (b->nargs) {
      ly_buf_printf(out, "%*s^bb0(", pr->indent, "");
      for (int i = 0; i < b->nargs; i++) {
        LyirValue *a = b->args[i];
        if (!pr->mlir && a->numbered)
          a->print_id = pr->next_id++;
        define_names(pr, &b->args[i], 1);
        ly_buf_puts(out, i ? ", " : "");
        value(a, out);
        ly_buf_puts(out, ": ");
        print_type(pr, a->type);
      }
      ly_buf_puts(out, "):\n");
    }
    pr->indent += 2;
    print_ops(pr, b->first);
    pr->indent -= 2;
    hide_names(pr, b);
    ly_buf_printf(out, "%*s}", pr->indent, "");
  }
  if (op->nregions)
    ly_buf_puts(out, ")");
}

static void print_op_tail(Printer *pr, const LyirOp *op, void (*value)(const LyirValue *, LyBuf *)) {
  LyBuf *out = pr->out;
  int nlen;
  const char *name = op_name(op, &nlen);
  ly_buf_printf(out, "\"%.*s\"(", nlen, name);
  for (int i = 0; i < op->noperands; i++) {
    if (i)
      ly_buf_puts(out, ", ");
    value(op->operands[i], out);
  }
  ly_buf_puts(out, ")");
  if (op->props.n) {
    ly_buf_puts(out, " <");
    print_dict_body(pr, op->props.attrs, op->props.n);
    ly_buf_puts(out, ">");
  }
  print_regions(pr, op, value);
  print_dict(pr, op->attrs, op->nattrs);
  /* The signature: the operands' types, then `-> T` or `-> (T, ...)`. */
  ly_buf_puts(out, " : (");
  print_value_types(pr, op->operands, op->noperands);
  ly_buf_puts(out, ") -> ");
  if (op->nresults != 1)
    ly_buf_puts(out, "(");
  print_value_types(pr, op->results, op->nresults);
  ly_buf_puts(out, op->nresults != 1 ? ")\n" : "\n");
}

static void print_op(Printer *pr, LyirOp *op) {
  LyBuf *out = pr->out;
  ly_buf_printf(out, "%*s", pr->indent, "");
  int g = group_prefix(op);
  if (g >= 0) {
    define_names(pr, op->results, op->nresults);
    ly_buf_printf(out, "%%%.*s", g, op->results[0]->name.s);
    if (op->results[0]->print_dup)
      ly_buf_printf(out, "_%u", op->results[0]->print_dup);
    ly_buf_printf(out, ":%d", op->nresults);
  } else {
    for (int i = 0; i < op->nresults; i++) {
      LyirValue *r = op->results[i];
      if (r->numbered)
        r->print_id = pr->next_id++;
      define_names(pr, &op->results[i], 1);
      if (i)
        ly_buf_puts(out, ", ");
      print_value(r, out);
    }
  }
  if (op->nresults)
    ly_buf_puts(out, " = ");
  print_op_tail(pr, op, print_value);
}

static void print_func_head(const Printer *pr, const LyirFunc *f) {
  ly_buf_puts(pr->out, "func.func ");
  if (f->visibility.len)
    ly_buf_printf(pr->out, "%.*s ", f->visibility.len, f->visibility.s);
  ly_buf_printf(pr->out, "@%.*s(", f->name.len, f->name.s);
}

static void print_func_attrs(const Printer *pr, const LyirFunc *f) {
  if (f->attrs.n) {
    ly_buf_puts(pr->out, " attributes");
    print_dict(pr, f->attrs.attrs, f->attrs.n);
  }
}

static bool is_loc_alias(const LyirAlias *a) { return a->text.len >= 4 && !memcmp(a->text.s, "loc(", 4); }

static bool mentions(const LyirAttrValue *v, LyirStr name) {
  if (v->kind == LYIR_ATTR_ARRAY || v->kind == LYIR_ATTR_DICT) {
    for (int i = 0; i < v->n; i++)
      if (mentions(v->kind == LYIR_ATTR_DICT ? &v->fields[i].value : &v->elems[i], name))
        return true;
    return false;
  }
  if (v->kind != LYIR_ATTR_OPAQUE)
    return false;
  for (int i = 0; i + name.len < v->s.len; i++) {
    char after = i + 1 + name.len < v->s.len ? v->s.s[i + 1 + name.len] : 0;
    if (v->s.s[i] == '#' && !memcmp(v->s.s + i + 1, name.s, (size_t)name.len) &&
        !(after == '_' || after == '$' || after == '.' || (after >= '0' && after <= '9') ||
          ((after | 32) >= 'a' && (after | 32) <= 'z')))
      return true;
  }
  return false;
}

static bool dict_mentions(const LyirAttr *a, int n, LyirStr name) {
  for (int i = 0; i < n; i++)
    if (mentions(&a[i].value, name))
      return true;
  return false;
}

/* mlir-opt prints an alias only where an attribute uses it (types are
 * printed with their layouts, never through aliases). */
static bool alias_used(const LyirModule *m, LyirStr name) {
  if (dict_mentions(m->attrs.attrs, m->attrs.n, name))
    return true;
  for (const LyirFunc *f = m->first; f; f = f->next) {
    if (dict_mentions(f->attrs.attrs, f->attrs.n, name))
      return true;
    for (int i = 0; f->arg_attrs && i < f->nargs; i++)
      if (dict_mentions(f->arg_attrs[i].attrs, f->arg_attrs[i].n, name))
        return true;
    for (int i = 0; f->res_attrs && i < f->nresults; i++)
      if (dict_mentions(f->res_attrs[i].attrs, f->res_attrs[i].n, name))
        return true;
    for (const LyirOp *op = f->first; op; op = lyir_op_walk_next(op))
      if (dict_mentions(op->attrs, op->nattrs, name) || dict_mentions(op->props.attrs, op->props.n, name))
        return true;
  }
  return false;
}

static void print_aliases(const Printer *pr, const LyirModule *m) {
  for (int i = 0; i < m->naliases; i++)
    if (!pr->mlir || (!is_loc_alias(&m->aliases[i]) && alias_used(m, m->aliases[i].name)))
      ly_buf_printf(pr->out, "#%.*s = %.*s\n", m->aliases[i].name.len, m->aliases[i].name.s, m->aliases[i].text.len,
                    m->aliases[i].text.s);
}

static void print_module_head(const Printer *pr, const LyirModule *m) {
  ly_buf_puts(pr->out, "module");
  if (m->sym.len)
    ly_buf_printf(pr->out, " @%.*s", m->sym.len, m->sym.s);
  if (m->attrs.n) {
    ly_buf_puts(pr->out, " attributes");
    print_dict(pr, m->attrs.attrs, m->attrs.n);
  }
  ly_buf_puts(pr->out, " {\n");
}

static void print_func(Printer *pr, LyirFunc *f);

void lyir_print(LyirModule *m, LyBuf *out) {
  Printer pr = {.mlir = false, .out = out};
  ly_arena_init(&pr.arena);
  print_aliases(&pr, m);
  if (m->naliases && m->first)
    ly_buf_puts(out, "\n");
  /* The wrapper is kept when it carries something. */
  bool wrap = m->wrapped && (m->sym.len || m->attrs.n);
  if (wrap)
    print_module_head(&pr, m);
  for (LyirFunc *f = m->first; f; f = f->next) {
    if (f != m->first)
      ly_buf_puts(out, "\n");
    lyir_symtab_init(&pr.names); /* a function's names: from its arguments to its end */
    print_func(&pr, f);
    lyir_symtab_free(&pr.names);
  }
  if (wrap)
    ly_buf_puts(out, "}\n");
  ly_arena_free(&pr.arena);
}

/* --- The form mlir-opt prints --------------------------------------------------- *
 * Arguments are %argN; each op with results takes the next number, its
 * results are %N, or %N:K defined and %N#i used; layoutc's names are not kept
 * (mlir-opt renames every value the same way). */

static void print_mlir_value(const LyirValue *v, LyBuf *out) {
  if (!v->def) {
    ly_buf_printf(out, "%%arg%u", v->print_id);
    return;
  }
  ly_buf_printf(out, "%%%u", v->print_id);
  if (v->def->nresults > 1) {
    int i = 0;
    while (v->def->results[i] != v)
      i++;
    ly_buf_printf(out, "#%d", i);
  }
}

/* MLIR's func.return takes the declared types: where layoutc returns a
 * laid-out value for an `any` result, a cast to the declared type comes
 * first (the parser folds it away again). */
static void print_mlir_return(Printer *pr, const LyirFunc *f, LyirOp *op) {
  LyBuf *out = pr->out;
  int n = op->noperands;
  unsigned first = pr->cast_id, next = first;
  for (int i = 0; i < n; i++) {
    if (i >= f->nresults || f->result_types[i] == op->operands[i]->type)
      continue;
    ly_buf_printf(out, "%%%u = builtin.unrealized_conversion_cast ", next++);
    print_mlir_value(op->operands[i], out);
    ly_buf_puts(out, " : ");
    print_type(pr, op->operands[i]->type);
    ly_buf_puts(out, " to ");
    print_type(pr, f->result_types[i]);
    ly_buf_printf(out, "\n%*s", pr->indent, "");
  }
  ly_buf_puts(out, "return");
  for (int i = 0; i < n; i++) {
    ly_buf_puts(out, i ? ", " : " ");
    if (i < f->nresults && f->result_types[i] != op->operands[i]->type)
      ly_buf_printf(out, "%%%u", first++);
    else
      print_mlir_value(op->operands[i], out);
  }
  if (n) {
    ly_buf_puts(out, " : ");
    for (int i = 0; i < n; i++) {
      if (i)
        ly_buf_puts(out, ", ");
      print_type(pr, i < f->nresults ? f->result_types[i] : op->operands[i]->type);
    }
  }
  ly_buf_puts(out, "\n");
}

static void print_mlir_op(Printer *pr, LyirOp *op) {
  LyBuf *out = pr->out;
  ly_buf_printf(out, "%*s", pr->indent, "");
  if (op->nresults) {
    ly_buf_printf(out, "%%%u", op->results[0]->print_id);
    if (op->nresults > 1)
      ly_buf_printf(out, ":%d", op->nresults);
    ly_buf_puts(out, " = ");
  }
  if (op->kind == LYIR_OP_RETURN && !op->foreign.len) {
    print_mlir_return(pr, pr->f, op);
    return;
  }
  print_op_tail(pr, op, print_mlir_value);
}

static void print_ops(Printer *pr, LyirOp *first) {
  for (LyirOp *op = first; op; op = op->next)
    if (pr->mlir)
      print_mlir_op(pr, op);
    else
      print_op(pr, op);
}

/* MLIR numbers a block's arguments (%argN) and its ops' results (%N) first,
 * then each region of its ops from where the block left off, so sibling
 * regions reuse numbers (mlir-opt's SSANameState). */
static void number_mlir_block(LyirValue *const *args, int nargs, LyirOp *first, unsigned vid, unsigned aid,
                              unsigned extra) {
  for (int i = 0; i < nargs; i++)
    args[i]->print_id = aid++;
  for (LyirOp *op = first; op; op = op->next) {
    for (int i = 0; i < op->nresults; i++)
      op->results[i]->print_id = vid;
    vid += op->nresults > 0;
  }
  vid += extra;
  for (LyirOp *op = first; op; op = op->next)
    for (int r = 0; r < op->nregions; r++)
      number_mlir_block(op->regions[r]->args, op->regions[r]->nargs, op->regions[r]->first, vid, aid, 0);
}

/* The casts MLIR's return needs (print_mlir_return), numbered after the
 * top-level ops. */
static unsigned return_casts(const LyirFunc *f) {
  const LyirOp *ret = f->last;
  unsigned n = 0;
  if (ret && ret->kind == LYIR_OP_RETURN && !ret->foreign.len)
    for (int i = 0; i < ret->noperands && i < f->nresults; i++)
      n += f->result_types[i] != ret->operands[i]->type;
  return n;
}

static void number_mlir(Printer *pr, LyirFunc *f) {
  unsigned vid = 0;
  for (LyirOp *op = f->first; op; op = op->next)
    vid += op->nresults > 0;
  pr->cast_id = vid;
  number_mlir_block(f->args, f->nargs, f->first, 0, 0, return_casts(f));
}

/* Arguments: layoutc numbers the unnamed ones with the ops' values, MLIR
 * calls them %argN. A declaration's arguments have no names (MLIR's form). */
static void print_args(Printer *pr, const LyirFunc *f) {
  for (int i = 0; i < f->nargs; i++) {
    LyirValue *a = f->args[i];
    if (i)
      ly_buf_puts(pr->out, ", ");
    if (!f->decl) {
      if (!pr->mlir && a->numbered)
        a->print_id = pr->next_id++;
      define_names(pr, &f->args[i], 1);
      (pr->mlir ? print_mlir_value : print_value)(a, pr->out);
      ly_buf_puts(pr->out, ": ");
    }
    print_type(pr, a->type);
    if (f->arg_attrs)
      print_dict(pr, f->arg_attrs[i].attrs, f->arg_attrs[i].n);
  }
}

/* One function in either form; MLIR's sits indented inside its module. */
static void print_func(Printer *pr, LyirFunc *f) {
  LyBuf *out = pr->out;
  const char *indent = pr->mlir ? "  " : "";
  pr->f = f;
  pr->next_id = 0;
  pr->indent = pr->mlir ? 4 : 2;
  if (pr->mlir && !f->decl)
    number_mlir(pr, f);
  ly_buf_puts(out, indent);
  print_func_head(pr, f);
  print_args(pr, f);
  ly_buf_puts(out, ")");
  print_func_results(pr, f);
  print_func_attrs(pr, f);
  if (f->decl) {
    ly_buf_puts(out, "\n");
    return;
  }
  ly_buf_puts(out, " {\n");
  print_ops(pr, f->first);
  ly_buf_printf(out, "%s}\n", indent);
}

void lyir_print_mlir(LyirModule *m, LyBuf *out) {
  Printer pr = {.mlir = true, .out = out};
  print_aliases(&pr, m);
  print_module_head(&pr, m);
  for (LyirFunc *f = m->first; f; f = f->next)
    print_func(&pr, f);
  ly_buf_puts(out, "}\n\n"); /* mlir-opt ends with an empty line */
}
