/* ir/print: prints a module in the generic syntax that lyir_parse reads, so
 * that print -> parse -> print is the identity. Numbered values (unnamed, or
 * written %N) are renumbered per function in order of definition; named
 * values keep their names, which never collide with numbers. */
#include "ir/ir.h"

#include <inttypes.h>

static void print_value(const LyirValue *v, LyBuf *out) {
  if (v->numbered)
    ly_buf_printf(out, "%%%u", v->print_id);
  else
    ly_buf_printf(out, "%%%.*s", v->name.len, v->name.s);
}

static void print_types(const LyTypeImpl *const *types, int n, LyBuf *out) {
  for (int i = 0; i < n; i++) {
    if (i)
      ly_buf_puts(out, ", ");
    lyd_print(types[i], out);
  }
}

static void print_value_types(LyirValue *const *values, int n, LyBuf *out) {
  for (int i = 0; i < n; i++) {
    if (i)
      ly_buf_puts(out, ", ");
    lyd_print(values[i]->type, out);
  }
}

/* `-> T` for one result, `-> (T, U)` for several, nothing for none. */
static void print_func_results(const LyirFunc *f, LyBuf *out) {
  if (f->nresults == 0)
    return;
  ly_buf_puts(out, " -> ");
  if (f->nresults > 1)
    ly_buf_puts(out, "(");
  print_types(f->result_types, f->nresults, out);
  if (f->nresults > 1)
    ly_buf_puts(out, ")");
}

static void print_attr_value(const LyirAttrValue *a, LyBuf *out) {
  switch (a->kind) {
  case LYIR_ATTR_INT:
    ly_buf_printf(out, "%" PRId64, a->i);
    break;
  case LYIR_ATTR_BOOL:
    ly_buf_puts(out, a->i ? "true" : "false");
    break;
  case LYIR_ATTR_STRING:
    ly_buf_printf(out, "\"%.*s\"", a->s.len, a->s.s);
    break;
  case LYIR_ATTR_ARRAY:
    ly_buf_puts(out, "[");
    for (int i = 0; i < a->n; i++) {
      if (i)
        ly_buf_puts(out, ", ");
      print_attr_value(&a->elems[i], out);
    }
    ly_buf_puts(out, "]");
    break;
  }
}

static void print_attrs(const LyirOp *op, LyBuf *out) {
  if (op->nattrs == 0)
    return;
  ly_buf_puts(out, " {");
  for (int i = 0; i < op->nattrs; i++) {
    ly_buf_printf(out, "%s%.*s = ", i ? ", " : "", op->attrs[i].name.len, op->attrs[i].name.s);
    print_attr_value(&op->attrs[i].value, out);
  }
  ly_buf_puts(out, "}");
}

static void print_op(LyirOp *op, unsigned *next_id, LyBuf *out) {
  ly_buf_puts(out, "  ");
  for (int i = 0; i < op->nresults; i++) {
    LyirValue *r = op->results[i];
    if (r->numbered)
      r->print_id = (*next_id)++;
    if (i)
      ly_buf_puts(out, ", ");
    print_value(r, out);
  }
  if (op->nresults)
    ly_buf_puts(out, " = ");
  ly_buf_printf(out, "\"%s\"(", lyir_op_name(op->kind));
  for (int i = 0; i < op->noperands; i++) {
    if (i)
      ly_buf_puts(out, ", ");
    print_value(op->operands[i], out);
  }
  ly_buf_puts(out, ")");
  print_attrs(op, out);
  /* The signature: the operands' types, then `-> T` or `-> (T, ...)`. */
  ly_buf_puts(out, " : (");
  print_value_types(op->operands, op->noperands, out);
  ly_buf_puts(out, ") -> ");
  if (op->nresults != 1)
    ly_buf_puts(out, "(");
  print_value_types(op->results, op->nresults, out);
  ly_buf_puts(out, op->nresults != 1 ? ")\n" : "\n");
}

static void print_func(LyirFunc *f, LyBuf *out) {
  unsigned next_id = 0;
  ly_buf_printf(out, "func.func @%.*s(", f->name.len, f->name.s);
  for (int i = 0; i < f->nargs; i++) {
    LyirValue *a = f->args[i];
    if (a->numbered)
      a->print_id = next_id++;
    if (i)
      ly_buf_puts(out, ", ");
    print_value(a, out);
    ly_buf_puts(out, ": ");
    lyd_print(a->type, out);
  }
  ly_buf_puts(out, ")");
  print_func_results(f, out);
  ly_buf_puts(out, " {\n");
  for (LyirOp *op = f->first; op; op = op->next)
    print_op(op, &next_id, out);
  ly_buf_puts(out, "}\n");
}

void lyir_print(LyirModule *m, LyBuf *out) {
  for (LyirFunc *f = m->first; f; f = f->next) {
    if (f != m->first)
      ly_buf_puts(out, "\n");
    print_func(f, out);
  }
}
