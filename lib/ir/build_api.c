/* ir/build_api: the public API to build and walk modules from C
 * (include/layoutc/ir.h): functions, ops, values, attributes and types. */
#include "layoutc/ir.h"
#include "ir/ir.h"

#include <string.h>

_Static_assert((int)LY_OP_COUNT == (int)LYIR_OP_COUNT && (int)LY_OP_RETURN == (int)LYIR_OP_RETURN,
               "LyOpKind mirrors LyirOpKind");

static LyirModule *mod(LyModule m) { return m.ptr; }
static LyirFunc *fn(LyFunc f) { return f.ptr; }
static LyirOp *op_(LyOp o) { return o.ptr; }
static LyirValue *val(LyValue v) { return v.ptr; }
static LyStringRef sref(LyirStr s) { return (LyStringRef){s.s ? s.s : "", (size_t)s.len}; }

static void oom(LyirModule *m) { ly_diag_emit(&m->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory"); }

static void fail(LyirModule *m, const char *fmt, const char *arg) {
  ly_diag_emit(&m->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, arg);
}

LyModule lyModuleCreate(LyContext ctx) {
  LyirModule *m = lyir_module_create(lyd_ctx(ctx), "<built>", "", 0);
  if (!m)
    ly_diag_emit(&lyd_ctx(ctx)->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
  return (LyModule){m};
}

LyContext lyModuleGetContext(LyModule m) { return (LyContext){mod(m)->ctx}; }

static LyirStr arena_str(LyirModule *m, const char *s) {
  size_t n = strlen(s);
  char *p = ly_arena_strndup(&m->arena, s, n);
  return (LyirStr){p, p ? (int)n : 0};
}

static bool str_eq(LyirStr a, const char *b) { return (size_t)a.len == strlen(b) && !memcmp(a.s, b, (size_t)a.len); }

LyFunc lyModuleLookupFunc(LyModule m, const char *name) {
  for (LyirFunc *f = mod(m)->first; f; f = f->next)
    if (str_eq(f->name, name))
      return (LyFunc){f};
  return (LyFunc){NULL};
}

static bool types_ok(LyirModule *m, int n, const LyType *t) {
  for (int i = 0; i < n; i++)
    if (lyTypeIsNull(t[i])) {
      fail(m, "%s: a null type", "lyFuncCreate");
      return false;
    }
  return n >= 0;
}

LyFunc lyFuncCreate(LyModule mh, const char *name, int nargs, const LyType *args, int nresults, const LyType *results) {
  LyirModule *m = mod(mh);
  if (!name || !*name || !lyFuncIsNull(lyModuleLookupFunc(mh, name))) {
    fail(m, "function name '%s' is empty or already defined", name ? name : "");
    return (LyFunc){NULL};
  }
  if (!types_ok(m, nargs, args) || !types_ok(m, nresults, results))
    return (LyFunc){NULL};
  LyirFunc *f = lyir_func_create(m, arena_str(m, name), (LyLoc){0, 0});
  if (!f || !f->name.s || !(f->args = lyir_alloc(m, (size_t)nargs * sizeof *f->args)) ||
      !(f->result_types = lyir_alloc(m, (size_t)nresults * sizeof *f->result_types)) ||
      !(f->result_locs = lyir_alloc(m, (size_t)nresults * sizeof *f->result_locs))) {
    oom(m);
    return (LyFunc){NULL};
  }
  for (int i = 0; i < nargs; i++)
    if (!(f->args[i] = lyir_value_create(m, lyd_type(args[i]), (LyirStr){NULL, 0}, (LyLoc){0, 0}))) {
      oom(m);
      return (LyFunc){NULL};
    }
  for (int i = 0; i < nresults; i++)
    f->result_types[i] = lyd_type(results[i]);
  f->nargs = nargs, f->nresults = nresults;
  lyir_func_append(m, f);
  return (LyFunc){f};
}

LyFunc lyModuleGetFirstFunc(LyModule m) { return (LyFunc){mod(m)->first}; }
LyFunc lyFuncGetNext(LyFunc f) { return (LyFunc){fn(f)->next}; }
LyStringRef lyFuncGetName(LyFunc f) { return sref(fn(f)->name); }
int lyFuncGetNumArgs(LyFunc f) { return fn(f)->nargs; }
LyValue lyFuncGetArg(LyFunc f, int i) {
  return (LyValue){i >= 0 && i < fn(f)->nargs ? fn(f)->args[i] : NULL};
}
int lyFuncGetNumResults(LyFunc f) { return fn(f)->nresults; }
LyType lyFuncGetResultType(LyFunc f, int i) {
  return lyd_wrap(i >= 0 && i < fn(f)->nresults ? fn(f)->result_types[i] : NULL);
}
LyOp lyFuncGetFirstOp(LyFunc f) { return (LyOp){fn(f)->first}; }
LyOp lyOpGetNext(LyOp o) { return (LyOp){op_(o)->next}; }

int lyOpGetNumRegions(LyOp o) { return op_(o)->nregions; }
static LyirBlock *region(LyOp o, int r) { return r >= 0 && r < op_(o)->nregions ? op_(o)->regions[r] : NULL; }
int lyOpGetRegionNumArgs(LyOp o, int r) { return region(o, r) ? region(o, r)->nargs : 0; }
LyValue lyOpGetRegionArg(LyOp o, int r, int i) {
  LyirBlock *b = region(o, r);
  return (LyValue){b && i >= 0 && i < b->nargs ? b->args[i] : NULL};
}
LyOp lyOpGetRegionFirstOp(LyOp o, int r) { return (LyOp){region(o, r) ? region(o, r)->first : NULL}; }
LyOp lyOpGetParentOp(LyOp o) { return (LyOp){op_(o)->block ? op_(o)->block->parent : NULL}; }

LyOp lyOpCreate(LyFunc fh, LyOpKind kind, int noperands, const LyValue *operands, int nresults,
                const LyType *result_types) {
  LyirFunc *f = fn(fh);
  LyirModule *m = f->module;
  if ((unsigned)kind >= LY_OP_COUNT || noperands < 0 || nresults < 0) {
    fail(m, "%s: invalid op kind or counts", "lyOpCreate");
    return (LyOp){NULL};
  }
  for (int i = 0; i < noperands; i++)
    if (lyValueIsNull(operands[i])) {
      fail(m, "%s: a null operand", "lyOpCreate");
      return (LyOp){NULL};
    }
  for (int i = 0; i < nresults; i++)
    if (lyTypeIsNull(result_types[i])) {
      fail(m, "%s: a null result type", "lyOpCreate");
      return (LyOp){NULL};
    }
  LyirOp *op = lyir_op_create(m, (LyirOpKind)kind, (LyLoc){0, 0}, noperands, nresults, 0);
  for (int i = 0; op && i < nresults; i++) {
    op->results[i] = lyir_value_create(m, lyd_type(result_types[i]), (LyirStr){NULL, 0}, (LyLoc){0, 0});
    if (!op->results[i])
      op = NULL;
    else
      op->results[i]->def = op;
  }
  if (!op) {
    oom(m);
    return (LyOp){NULL};
  }
  for (int i = 0; i < noperands; i++)
    op->operands[i] = val(operands[i]);
  lyir_op_append(f, op);
  return (LyOp){op};
}

LyOpKind lyOpGetKind(LyOp o) { return (LyOpKind)op_(o)->kind; }
const char *lyOpKindGetName(LyOpKind k) { return (unsigned)k < LY_OP_COUNT ? lyir_op_name((LyirOpKind)k) : "?"; }
int lyOpGetNumOperands(LyOp o) { return op_(o)->noperands; }
LyValue lyOpGetOperand(LyOp o, int i) {
  return (LyValue){i >= 0 && i < op_(o)->noperands ? op_(o)->operands[i] : NULL};
}
int lyOpGetNumResults(LyOp o) { return op_(o)->nresults; }
LyValue lyOpGetResult(LyOp o, int i) {
  return (LyValue){i >= 0 && i < op_(o)->nresults ? op_(o)->results[i] : NULL};
}

LyType lyValueGetType(LyValue v) { return lyd_wrap(val(v)->type); }
void lyValueSetType(LyValue v, LyType t) {
  if (!lyTypeIsNull(t))
    val(v)->type = lyd_type(t);
}
LyOp lyValueGetDefiningOp(LyValue v) { return (LyOp){val(v)->def}; }

/* ===== Attributes ============================================================== */

static LyirAttr *find_attr(LyirOp *op, const char *name) {
  for (int i = 0; i < op->nattrs; i++)
    if (str_eq(op->attrs[i].name, name))
      return &op->attrs[i];
  return NULL;
}

/* The attribute `name` of op, added if absent (the array is reallocated
 * in the arena; the old one stays there until the module dies). */
static LyirAttr *attr_slot(LyirOp *op, const char *name) {
  LyirAttr *a = find_attr(op, name);
  if (a)
    return a;
  LyirModule *m = op->module;
  LyirStr n = arena_str(m, name);
  LyirAttr *attrs = lyir_alloc(m, (size_t)(op->nattrs + 1) * sizeof *attrs);
  if (!n.s || !attrs)
    return NULL;
  memcpy(attrs, op->attrs, (size_t)op->nattrs * sizeof *attrs);
  op->attrs = attrs;
  a = &attrs[op->nattrs++];
  a->name = n;
  return a;
}

static LyStatus set_attr(LyOp o, const char *name, LyirAttrValue v) {
  LyirOp *op = op_(o);
  if (!name || !*name) {
    fail(op->module, "%s: an empty attribute name", "lyOpSetAttribute");
    return LY_ERROR_INVALID;
  }
  LyirAttr *a = attr_slot(op, name);
  if (!a) {
    oom(op->module);
    return LY_ERROR_NOMEM;
  }
  a->value = v;
  return LY_OK;
}

LyStatus lyOpSetIntAttribute(LyOp op, const char *name, int64_t v) {
  return set_attr(op, name, (LyirAttrValue){.kind = LYIR_ATTR_INT, .i = v});
}

LyStatus lyOpSetBoolAttribute(LyOp op, const char *name, int v) {
  return set_attr(op, name, (LyirAttrValue){.kind = LYIR_ATTR_BOOL, .i = v != 0});
}

LyStatus lyOpSetStringAttribute(LyOp o, const char *name, const char *v) {
  LyirStr s = arena_str(op_(o)->module, v ? v : "");
  if (!s.s) {
    oom(op_(o)->module);
    return LY_ERROR_NOMEM;
  }
  return set_attr(o, name, (LyirAttrValue){.kind = LYIR_ATTR_STRING, .s = s});
}

LyStatus lyOpSetIntArrayAttribute(LyOp o, const char *name, int n, const int64_t *v) {
  LyirModule *m = op_(o)->module;
  LyirAttrValue *e = lyir_alloc(m, (size_t)(n > 0 ? n : 0) * sizeof *e);
  if (n < 0 || !e) {
    if (n < 0)
      fail(m, "%s: a negative length", "lyOpSetIntArrayAttribute");
    else
      oom(m);
    return n < 0 ? LY_ERROR_INVALID : LY_ERROR_NOMEM;
  }
  for (int i = 0; i < n; i++)
    e[i] = (LyirAttrValue){.kind = LYIR_ATTR_INT, .i = v[i]};
  return set_attr(o, name, (LyirAttrValue){.kind = LYIR_ATTR_ARRAY, .n = n, .elems = e});
}

int lyOpGetNumAttributes(LyOp op) { return op_(op)->nattrs; }

LyStringRef lyOpGetAttributeName(LyOp op, int i) {
  return i >= 0 && i < op_(op)->nattrs ? sref(op_(op)->attrs[i].name) : (LyStringRef){"", 0};
}

LyStatus lyOpGetIntAttribute(LyOp op, const char *name, int64_t *v) {
  LyirAttr *a = find_attr(op_(op), name);
  if (!a || (a->value.kind != LYIR_ATTR_INT && a->value.kind != LYIR_ATTR_BOOL))
    return LY_ERROR_INVALID;
  *v = a->value.i;
  return LY_OK;
}

LyStatus lyOpGetStringAttribute(LyOp op, const char *name, LyStringRef *v) {
  LyirAttr *a = find_attr(op_(op), name);
  if (!a || a->value.kind != LYIR_ATTR_STRING)
    return LY_ERROR_INVALID;
  *v = sref(a->value.s);
  return LY_OK;
}

LyStatus lyOpGetIntArrayAttribute(LyOp op, const char *name, int64_t *v, int cap, int *n) {
  LyirAttr *a = find_attr(op_(op), name);
  if (!a || a->value.kind != LYIR_ATTR_ARRAY)
    return LY_ERROR_INVALID;
  for (int i = 0; i < a->value.n; i++)
    if (a->value.elems[i].kind != LYIR_ATTR_INT)
      return LY_ERROR_INVALID;
  for (int i = 0; i < a->value.n && i < cap; i++)
    v[i] = a->value.elems[i].i;
  *n = a->value.n;
  return LY_OK;
}
