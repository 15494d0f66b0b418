/* ir/verify: the type rules of each op (docs/ir.md, "Verifier rules"). Every
 * problem is reported at its place as `'<op>' op ...`, as MLIR does; the
 * verifier goes on after an error so one run shows them all. */
#include "ir/ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void op_error(LyirModule *m, const LyirOp *op, LyLoc at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void op_error(LyirModule *m, const LyirOp *op, LyLoc at, const char *fmt, ...) {
  LyBuf b;
  ly_buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  ly_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  lyir_error(m, at, "'%s' op %s", lyir_op_name(op->kind), b.oom ? "is invalid" : ly_buf_cstr(&b));
  ly_buf_free(&b);
  /* The location an MLIR pipeline gave the op (its original source). */
  if (op->srcloc.len)
    lyir_note(m, at, "the op's location is %.*s", op->srcloc.len > 200 ? 200 : op->srcloc.len, op->srcloc.s);
}

/* "4x?x6" */
static void dims_str(const LyTypeImpl *t, LyBuf *out) {
  for (int d = 0; d < t->rank; d++) {
    if (t->dims[d] == LY_DYNAMIC)
      ly_buf_printf(out, "%s?", d ? "x" : "");
    else
      ly_buf_printf(out, "%s%" PRId64, d ? "x" : "", t->dims[d]);
  }
  if (t->rank == 0)
    ly_buf_puts(out, "(rank 0)");
}

/* The number of elements; false when a dim is dynamic. Types are checked on
 * parsing, so the product fits. */
static bool static_numel(const LyTypeImpl *t, int64_t *n) {
  *n = 1;
  for (int d = 0; d < t->rank; d++) {
    if (t->dims[d] == LY_DYNAMIC)
      return false;
    LY_ASSERT(ly_mul(*n, t->dims[d], n));
  }
  return true;
}

static bool same_dims(const LyTypeImpl *a, const LyTypeImpl *b) { return lyd_same_dims(a, b); }

static bool same_memspace(const LyTypeImpl *a, const LyTypeImpl *b) {
  if (a->ms_str || b->ms_str)
    return a->ms_str && b->ms_str && !strcmp(a->ms_str, b->ms_str);
  return a->ms_num == b->ms_num;
}

/* --- Checks shared by several ops ------------------------------------------ */

static bool check_counts(LyirModule *m, const LyirOp *op, int noperands, int nresults) {
  bool ok = true;
  if (noperands >= 0 && op->noperands != noperands) {
    op_error(m, op, op->loc, "expects %d operand%s, found %d", noperands, noperands == 1 ? "" : "s",
             op->noperands);
    ok = false;
  }
  if (nresults >= 0 && op->nresults != nresults) {
    op_error(m, op, op->loc, "expects %d result%s, found %d", nresults, nresults == 1 ? "" : "s", op->nresults);
    ok = false;
  }
  return ok;
}

/* allowed: NULL-terminated attribute names the op takes. */
static bool check_attr_names(LyirModule *m, const LyirOp *op, const char *const *allowed) {
  bool ok = true;
  for (int i = 0; i < op->nattrs; i++) {
    const LyirAttr *a = &op->attrs[i];
    bool known = false;
    for (const char *const *n = allowed; *n && !known; n++)
      known = (int)strlen(*n) == a->name.len && !memcmp(*n, a->name.s, (size_t)a->name.len);
    if (!known) {
      op_error(m, op, a->loc, "does not take attribute '%.*s'", a->name.len, a->name.s);
      ok = false;
    }
  }
  return ok;
}

/* A required array of `count` integers; NULL after reporting. */
static const LyirAttr *int_array(LyirModule *m, const LyirOp *op, const char *name, int count, int64_t *out) {
  const LyirAttr *a = lyir_op_attr(op, name);
  if (!a) {
    op_error(m, op, op->name_loc, "requires attribute '%s'", name);
    return NULL;
  }
  bool ints = a->value.kind == LYIR_ATTR_ARRAY;
  for (int i = 0; ints && i < a->value.n; i++)
    ints = a->value.elems[i].kind == LYIR_ATTR_INT;
  if (!ints) {
    op_error(m, op, a->loc, "attribute '%s' must be an array of integers", name);
    return NULL;
  }
  if (a->value.n != count) {
    op_error(m, op, a->loc, "attribute '%s' has %d entr%s but the operand has rank %d", name, a->value.n,
             a->value.n == 1 ? "y" : "ies", count);
    return NULL;
  }
  for (int i = 0; i < count; i++)
    out[i] = a->value.elems[i].i;
  return a;
}

static bool check_element(LyirModule *m, const LyirOp *op) {
  const LyTypeImpl *in = op->operands[0]->type, *out = op->results[0]->type;
  if (in->elem == out->elem)
    return true;
  op_error(m, op, op->result_type_locs[0], "result element type %s differs from the operand's %s",
           lyElemGetName(out->elem), lyElemGetName(in->elem));
  return false;
}

/* A view reinterprets the same buffer: same element and memory space. */
static bool check_view_like(LyirModule *m, const LyirOp *op) {
  if (!check_element(m, op))
    return false;
  if (same_memspace(op->operands[0]->type, op->results[0]->type))
    return true;
  op_error(m, op, op->result_type_locs[0], "result memory space differs from the operand's");
  return false;
}

static bool check_same_numel(LyirModule *m, const LyirOp *op) {
  int64_t a, b;
  if (!static_numel(op->operands[0]->type, &a) || !static_numel(op->results[0]->type, &b) || a == b)
    return true;
  op_error(m, op, op->result_type_locs[0], "result has %" PRId64 " elements but the operand has %" PRId64, b, a);
  return false;
}

static bool check_rank(LyirModule *m, const LyirOp *op) {
  int in = op->operands[0]->type->rank, out = op->results[0]->type->rank;
  if (in == out)
    return true;
  op_error(m, op, op->result_type_locs[0], "result rank %d differs from the operand rank %d", out, in);
  return false;
}

/* --- One function per op ------------------------------------------------------ */

static const char *const no_attrs[] = {NULL};

static bool verify_reshape(LyirModule *m, const LyirOp *op) {
  return check_attr_names(m, op, no_attrs) && check_view_like(m, op) && check_same_numel(m, op);
}

/* A view reinterprets its operand's buffer: any dims (a slice has fewer
 * elements, a broadcast more), but it may reach only storage the operand
 * owns. That is checkable when both layouts are chosen and static. */
static bool verify_view(LyirModule *m, const LyirOp *op) {
  if (!check_attr_names(m, op, no_attrs) || !check_view_like(m, op))
    return false;
  LyType in = lyd_wrap(op->operands[0]->type), out = lyd_wrap(op->results[0]->type);
  int64_t a, b;
  if (lyTypeGetAllocElements(in, &a) != LY_OK || lyTypeGetAllocElements(out, &b) != LY_OK || b <= a)
    return true;
  op_error(m, op, op->result_type_locs[0],
           "result reaches %" PRId64 " elements of storage but the operand's allocation has only %" PRId64, b, a);
  return false;
}

static bool check_permutation(LyirModule *m, const LyirOp *op, const LyirAttr *a, const int64_t *perm, int rank) {
  bool seen[LY_MAX_RANK] = {0};
  for (int i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= rank) {
      op_error(m, op, a->value.elems[i].loc, "permutation entry %" PRId64 " is out of range 0..%d", perm[i],
               rank - 1);
      return false;
    }
    if (seen[perm[i]]) {
      op_error(m, op, a->value.elems[i].loc, "permutation entry %" PRId64 " appears twice", perm[i]);
      return false;
    }
    seen[perm[i]] = true;
  }
  return true;
}

/* MLIR's convention (linalg.transpose, stablehlo.transpose, NumPy
 * transpose(x, axes)): result dim i is operand dim perm[i]. The CLI's
 * `permute` keeps oneDNN's inverse convention (SPEC 3.3). */
static bool verify_transpose(LyirModule *m, const LyirOp *op) {
  static const char *const attrs[] = {"permutation", NULL};
  const LyTypeImpl *in = op->operands[0]->type, *out = op->results[0]->type;
  int64_t perm[LY_MAX_RANK];
  const LyirAttr *a;
  if (!check_attr_names(m, op, attrs) || !check_view_like(m, op) || !check_rank(m, op) ||
      !(a = int_array(m, op, "permutation", in->rank, perm)) || !check_permutation(m, op, a, perm, in->rank))
    return false;
  for (int i = 0; i < in->rank; i++) {
    int64_t want = in->dims[perm[i]], got = out->dims[i];
    if (want != got) {
      op_error(m, op, op->result_type_locs[0],
               "result dim %d must be %" PRId64 " (operand dim %" PRId64 "), found %" PRId64, i, want, perm[i], got);
      return false;
    }
  }
  return true;
}

static bool check_box(LyirModule *m, const LyirOp *op, const int64_t *offsets, const int64_t *sizes,
                      const LyirAttr *oa, const LyirAttr *sa) {
  const LyTypeImpl *in = op->operands[0]->type;
  for (int d = 0; d < in->rank; d++) {
    if (offsets[d] < 0 || sizes[d] < 0) {
      const LyirAttr *a = offsets[d] < 0 ? oa : sa;
      op_error(m, op, a->value.elems[d].loc, "%.*s entry %d is negative", a->name.len, a->name.s, d);
      return false;
    }
    int64_t end;
    if (in->dims[d] != LY_DYNAMIC && (!ly_add(offsets[d], sizes[d], &end) || end > in->dims[d])) {
      op_error(m, op, oa->value.elems[d].loc,
               "the box [%" PRId64 ", %" PRId64 " + %" PRId64 ") exceeds dim %d of extent %" PRId64, offsets[d],
               offsets[d], sizes[d], d, in->dims[d]);
      return false;
    }
  }
  return true;
}

/* oneDNN submemory: the box offsets[d] .. offsets[d] + sizes[d]. */
static bool verify_slice(LyirModule *m, const LyirOp *op) {
  static const char *const attrs[] = {"offsets", "sizes", NULL};
  const LyTypeImpl *in = op->operands[0]->type, *out = op->results[0]->type;
  int64_t offsets[LY_MAX_RANK], sizes[LY_MAX_RANK];
  const LyirAttr *oa, *sa;
  if (!check_attr_names(m, op, attrs) || !check_view_like(m, op) || !check_rank(m, op) ||
      !(oa = int_array(m, op, "offsets", in->rank, offsets)) || !(sa = int_array(m, op, "sizes", in->rank, sizes)) ||
      !check_box(m, op, offsets, sizes, oa, sa))
    return false;
  for (int d = 0; d < in->rank; d++)
    if (out->dims[d] != sizes[d]) {
      LyBuf b;
      ly_buf_init(&b);
      dims_str(out, &b);
      op_error(m, op, op->result_type_locs[0], "result dim %d must be the size %" PRId64 ", found %s", d, sizes[d],
               ly_buf_cstr(&b));
      ly_buf_free(&b);
      return false;
    }
  return true;
}

/* NumPy: align dims from the right; each operand dim is 1 or the result's. */
static bool verify_broadcast(LyirModule *m, const LyirOp *op) {
  const LyTypeImpl *in = op->operands[0]->type, *out = op->results[0]->type;
  if (!check_attr_names(m, op, no_attrs) || !check_view_like(m, op))
    return false;
  if (out->rank < in->rank) {
    op_error(m, op, op->result_type_locs[0], "result rank %d is less than the operand rank %d", out->rank, in->rank);
    return false;
  }
  for (int i = 1; i <= in->rank; i++) {
    int64_t a = in->dims[in->rank - i], b = out->dims[out->rank - i];
    if (a == b || a == 1 || a == LY_DYNAMIC || b == LY_DYNAMIC)
      continue;
    op_error(m, op, op->result_type_locs[0],
             "operand dim %d of extent %" PRId64 " cannot broadcast to result dim %d of extent %" PRId64
             " (it must be 1 or equal)", in->rank - i, a, out->rank - i, b);
    return false;
  }
  return true;
}

static bool verify_relayout(LyirModule *m, const LyirOp *op) {
  const LyTypeImpl *in = op->operands[0]->type, *out = op->results[0]->type;
  if (!check_attr_names(m, op, no_attrs) || !check_element(m, op))
    return false;
  /* A copy needs both geometries; an opaque layout has none (a relayout to
   * `any` or to the same opaque layout is no copy). */
  if (in != out && out->kind != LYD_ANY && (lyd_is_opaque(in) || lyd_is_opaque(out))) {
    op_error(m, op, op->result_type_locs[0], "cannot copy %s an opaque layout: " LYD_OPAQUE_WHY,
             lyd_is_opaque(in) ? "from" : "to");
    return false;
  }
  if (in != out && out->kind != LYD_ANY && (lyd_is_encoded(in) || lyd_is_encoded(out))) {
    op_error(m, op, op->result_type_locs[0], "cannot copy %s this type: " LYD_ENCODED_WHY,
             lyd_is_encoded(in) ? "from" : "to");
    return false;
  }
  if (same_dims(in, out))
    return true;
  LyBuf a, b;
  ly_buf_init(&a);
  ly_buf_init(&b);
  dims_str(out, &a);
  dims_str(in, &b);
  op_error(m, op, op->result_type_locs[0], "result dims %s differ from the operand dims %s", ly_buf_cstr(&a),
           ly_buf_cstr(&b));
  ly_buf_free(&a);
  ly_buf_free(&b);
  return false;
}

/* One variant [L1..Ln, R1..Rm, C]: a layout string that applies per operand
 * and per result, then a cost >= 0 (SPEC 3.6). */
static bool check_variant(LyirModule *m, const LyirOp *op, int k, const LyirAttrValue *v) {
  int want = op->noperands + op->nresults + 1;
  if (v->kind != LYIR_ATTR_ARRAY || v->n != want) {
    op_error(m, op, v->loc, "variant #%d must list %d layout%s (%d operand%s, %d result%s) then a cost", k,
             want - 1, want == 2 ? "" : "s", op->noperands, op->noperands == 1 ? "" : "s", op->nresults,
             op->nresults == 1 ? "" : "s");
    return false;
  }
  bool ok = true;
  for (int i = 0; i < want - 1; i++) {
    const LyirAttrValue *e = &v->elems[i];
    bool is_operand = i < op->noperands;
    int idx = is_operand ? i : i - op->noperands;
    const LyirValue *val = is_operand ? op->operands[idx] : op->results[idx];
    if (e->kind != LYIR_ATTR_STRING) {
      op_error(m, op, e->loc, "variant #%d: entry #%d must be a layout string", k, i);
      ok = false;
      continue;
    }
    LyBuf why;
    ly_buf_init(&why);
    if (!lyir_layout_apply(m, val->type, e->s, &why)) {
      LyBuf t;
      ly_buf_init(&t);
      lyir_type_str(val->type, &t);
      op_error(m, op, e->loc, "variant #%d: layout \"%.*s\" does not apply to %s #%d (%s): %s", k, e->s.len, e->s.s,
               is_operand ? "operand" : "result", idx, ly_buf_cstr(&t), ly_buf_cstr(&why));
      ly_buf_free(&t);
      ok = false;
    }
    ly_buf_free(&why);
  }
  const LyirAttrValue *c = &v->elems[want - 1];
  if (c->kind != LYIR_ATTR_INT || c->i < 0) {
    if (c->kind == LYIR_ATTR_INT)
      op_error(m, op, c->loc, "variant #%d: cost must be an integer >= 0, found %" PRId64, k, c->i);
    else
      op_error(m, op, c->loc, "variant #%d: the last entry must be the cost, an integer >= 0", k);
    ok = false;
  }
  return ok;
}

static bool check_variants(LyirModule *m, const LyirOp *op, const LyirAttr *a) {
  if (a->value.kind != LYIR_ATTR_ARRAY || a->value.n == 0) {
    op_error(m, op, a->loc, "attribute 'variants' must be a non-empty array of variants [layouts..., cost]");
    return false;
  }
  bool ok = true;
  for (int k = 0; k < a->value.n; k++)
    ok &= check_variant(m, op, k, &a->value.elems[k]);
  return ok;
}

/* elementwise: one layout for every result and every operand of result
 * 0's dims, so the results must share those dims. */
static bool check_elementwise(LyirModule *m, const LyirOp *op, const LyirAttr *a) {
  if (a->value.kind != LYIR_ATTR_BOOL) {
    op_error(m, op, a->value.loc, "attribute 'elementwise' must be true or false");
    return false;
  }
  if (!a->value.i)
    return true;
  if (op->nresults == 0 || lyd_is_foreign(op->results[0]->type)) {
    op_error(m, op, a->loc, op->nresults ? "is elementwise but result #0 is not a tensor" : "is elementwise but has no result");
    return false;
  }
  for (int j = 1; j < op->nresults; j++)
    if (!same_dims(op->results[j]->type, op->results[0]->type)) {
      op_error(m, op, op->result_type_locs[j], "is elementwise but result #%d has other dims than result #0", j);
      return false;
    }
  return true;
}

static bool verify_compute(LyirModule *m, const LyirOp *op) {
  const LyirAttr *a = lyir_op_attr(op, "name");
  if (!a || a->value.kind != LYIR_ATTR_STRING) {
    op_error(m, op, a ? a->loc : op->name_loc, "requires a string attribute 'name' (the compute it stands for)");
    return false;
  }
  const LyirAttr *v = lyir_op_attr(op, "variants"), *e = lyir_op_attr(op, "elementwise");
  if (v && e && e->value.kind == LYIR_ATTR_BOOL && e->value.i) {
    op_error(m, op, e->loc, "takes 'variants' or 'elementwise = true', not both");
    return false;
  }
  bool ok = true;
  if (v)
    ok &= check_variants(m, op, v);
  if (e)
    ok &= check_elementwise(m, op, e);
  return ok;
}

/* A declared result of layout `any` accepts any layout of its dims, element
 * and memory space. */
static bool result_accepts(const LyTypeImpl *declared, const LyTypeImpl *t) {
  if (declared == t)
    return true;
  return declared->kind == LYD_ANY && declared->elem == t->elem && same_dims(declared, t) &&
         same_memspace(declared, t);
}

static bool verify_return(LyirModule *m, const LyirFunc *f, const LyirOp *op) {
  if (!check_counts(m, op, -1, 0) || !check_attr_names(m, op, no_attrs))
    return false;
  if (op->noperands != f->nresults) {
    op_error(m, op, op->loc, "returns %d value%s but '@%.*s' declares %d result%s", op->noperands,
             op->noperands == 1 ? "" : "s", f->name.len, f->name.s, f->nresults, f->nresults == 1 ? "" : "s");
    return false;
  }
  for (int i = 0; i < op->noperands; i++) {
    if (result_accepts(f->result_types[i], op->operands[i]->type))
      continue;
    LyBuf a, b;
    ly_buf_init(&a);
    ly_buf_init(&b);
    lyir_type_str(op->operands[i]->type, &a);
    lyir_type_str(f->result_types[i], &b);
    op_error(m, op, op->operand_locs[i], "operand #%d has type %s but result #%d of '@%.*s' is %s", i,
             ly_buf_cstr(&a), i, f->name.len, f->name.s, ly_buf_cstr(&b));
    ly_buf_free(&a);
    ly_buf_free(&b);
    return false;
  }
  return true;
}

static bool verify_op(LyirModule *m, const LyirFunc *f, const LyirOp *op) {
  if (op->foreign.len) /* opaque compute: any operands, results, attributes, regions */
    return true;
  if (op->nregions) {
    op_error(m, op, op->loc, "takes no regions (only ops layoutc does not know have them)");
    return false;
  }
  switch (op->kind) {
  case LYIR_OP_COMPUTE:
    return verify_compute(m, op);
  case LYIR_OP_RETURN:
    return verify_return(m, f, op);
  default:
    break;
  }
  /* Every other op maps one operand to one result, tensors both. */
  if (!check_counts(m, op, 1, 1))
    return false;
  for (int i = 0; i < 2; i++) {
    const LyTypeImpl *t = i ? op->results[0]->type : op->operands[0]->type;
    if (lyd_is_foreign(t)) {
      op_error(m, op, i ? op->result_type_locs[0] : op->operand_locs[0], "%s must be a tensor, not '%s'",
               i ? "the result" : "the operand", t->symbolic);
      return false;
    }
  }
  switch (op->kind) {
  case LYIR_OP_RESHAPE: return verify_reshape(m, op);
  case LYIR_OP_TRANSPOSE: return verify_transpose(m, op);
  case LYIR_OP_SLICE: return verify_slice(m, op);
  case LYIR_OP_BROADCAST: return verify_broadcast(m, op);
  case LYIR_OP_RELAYOUT: return verify_relayout(m, op);
  case LYIR_OP_VIEW: return verify_view(m, op);
  default: LY_ASSERT(!"op kind without a verifier");
  }
  return false;
}

/* --- Scopes: every operand is defined before its use, in its op's block or
 * an enclosing one (the parser guarantees it; passes and the C API must
 * keep it). --------------------------------------------------------------- */

static void set_scope(LyirValue *const *vals, int n, bool in) {
  for (int i = 0; i < n; i++)
    vals[i]->in_scope = in;
}

static bool check_scopes(LyirModule *m, LyirOp *first) {
  bool ok = true;
  for (LyirOp *op = first; op; op = op->next) {
    for (int i = 0; i < op->noperands; i++)
      if (!op->operands[i]->in_scope) {
        int len = op->foreign.len ? op->foreign.len : (int)strlen(lyir_op_name(op->kind));
        lyir_error(m, op->operand_locs[i], "'%.*s' op operand #%d is not in scope: it is defined after the op, or "
                   "inside a region the op is not in", len, op->foreign.len ? op->foreign.s : lyir_op_name(op->kind), i);
        ok = false;
      }
    for (int r = 0; r < op->nregions; r++) {
      LyirBlock *b = op->regions[r];
      set_scope(b->args, b->nargs, true);
      ok &= check_scopes(m, b->first);
      set_scope(b->args, b->nargs, false);
      for (LyirOp *in = b->first; in; in = in->next)
        set_scope(in->results, in->nresults, false);
    }
    set_scope(op->results, op->nresults, true);
  }
  return ok;
}

static bool verify_scopes(LyirModule *m, LyirFunc *f) {
  set_scope(f->args, f->nargs, true);
  bool ok = check_scopes(m, f->first);
  set_scope(f->args, f->nargs, false);
  for (LyirOp *op = f->first; op; op = op->next)
    set_scope(op->results, op->nresults, false);
  return ok;
}

/* The ops of a region's block (the same rules as at the top level; a
 * return belongs to the top level only), and of its ops' regions. */
static bool verify_region_ops(LyirModule *m, const LyirFunc *f, const LyirOp *first) {
  bool ok = true;
  for (const LyirOp *op = first; op; op = op->next) {
    if (op->kind == LYIR_OP_RETURN && !op->foreign.len) {
      op_error(m, op, op->loc, "is only valid at the top level of '@%.*s', not in a region", f->name.len, f->name.s);
      ok = false;
    } else {
      ok &= verify_op(m, f, op);
    }
    for (int r = 0; r < op->nregions; r++)
      ok &= verify_region_ops(m, f, op->regions[r]->first);
  }
  return ok;
}

/* The body is one block ending in its only 'func.return'. */
static bool verify_func(LyirModule *m, LyirFunc *f) {
  if (f->decl)
    return true;
  bool ok = verify_scopes(m, f);
  for (const LyirOp *op = f->first; op; op = op->next) {
    if (op->kind == LYIR_OP_RETURN && op->next) {
      op_error(m, op, op->loc, "must be the last op of '@%.*s'", f->name.len, f->name.s);
      ok = false;
    }
    ok &= verify_op(m, f, op);
    for (int r = 0; r < op->nregions; r++)
      ok &= verify_region_ops(m, f, op->regions[r]->first);
  }
  if (!f->last || f->last->kind != LYIR_OP_RETURN) {
    lyir_error(m, f->loc, "function '@%.*s' does not end with 'func.return'", f->name.len, f->name.s);
    ok = false;
  }
  return ok;
}

bool lyir_verify(LyirModule *m) {
  bool ok = true;
  for (LyirFunc *f = m->first; f; f = f->next)
    ok &= verify_func(m, f);
  return ok;
}
