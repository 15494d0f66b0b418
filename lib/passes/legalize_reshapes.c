/* passes/legalize_reshapes: every layout.reshape, layout.transpose,
 * layout.slice and layout.broadcast becomes a layout.view whose result type
 * is what the view algebra (lib/desc/view.c) computes. Where the operand's
 * layout admits no view, a layout.relayout to the layout that does (the
 * fewest bytes moved, blocks kept where possible) goes first; where the
 * declared result layout differs from the view, a layout.relayout after the
 * view honours it. The algebra's refusals are not errors here: they are the
 * reasons for relayouts, reported as notes with LY_PASS_EXPLAIN. */
#include "passes/passes.h"

#include <string.h>

typedef struct {
  LyirModule *m;
  LyContext ctx;
  LyirFunc *fn;
  unsigned flags;
} Legalize;

/* --- The view algebra's reasons ------------------------------------------------ */

/* While capturing, the context's diagnostics are recorded instead of
 * reported, and the error count is restored afterwards: a refused view is
 * an answer, not a failure of the pass. */
typedef struct {
  LyDiagEngine *engine;
  LyDiagnosticHandler handler;
  void *user;
  int errors;
  LyBuf text; /* one message per line */
} Reasons;

/* Records each distinct message once: a relayout target is often refused
 * for the same reason as the view. */
static void reasons_handler(const LyDiagnostic *d, void *user) {
  Reasons *r = user;
  size_t n = strlen(d->message);
  for (const char *s = ly_buf_cstr(&r->text), *e; (e = strchr(s, '\n')); s = e + 1)
    if ((size_t)(e - s) == n && !memcmp(s, d->message, n))
      return;
  ly_buf_printf(&r->text, "%s\n", d->message);
}

static void reasons_begin(Reasons *r, LyirModule *m) {
  r->engine = &m->ctx->diag;
  r->handler = r->engine->handler;
  r->user = r->engine->user;
  r->errors = r->engine->errors;
  ly_buf_init(&r->text);
  r->engine->handler = reasons_handler;
  r->engine->user = r;
}

static void reasons_end(Reasons *r) {
  r->engine->handler = r->handler;
  r->engine->user = r->user;
  r->engine->errors = r->errors;
}

/* With LY_PASS_EXPLAIN: a note at the op saying what the pass did (naming t
 * if given), then one note per captured reason. */
static void explain_with(Legalize *L, const LyirOp *op, Reasons *why, const char *what,
                         const LyTypeImpl *t) {
  if (!(L->flags & LY_PASS_EXPLAIN))
    return;
  LyBuf b;
  ly_buf_init(&b);
  if (t)
    lyir_type_str(t, &b);
  lyir_note(L->m, op->loc, "'%s' %s%s", lyir_op_name(op->kind), what, ly_buf_cstr(&b));
  ly_buf_free(&b);
  const char *s = why ? ly_buf_cstr(&why->text) : "";
  for (const char *e; (e = strchr(s, '\n')); s = e + 1)
    lyir_note(L->m, op->loc, "because: %.*s", (int)(e - s), s);
}

static void explain(Legalize *L, const LyirOp *op, const char *what, const LyTypeImpl *t) {
  explain_with(L, op, NULL, what, t);
}

/* --- Views and relayout targets ------------------------------------------------- */

/* The view of src that op asks for, or NULL (the reasons go to the current
 * capture). The op is verified, so its attributes are well formed. */
static const LyTypeImpl *view_of(Legalize *L, const LyirOp *op, const LyTypeImpl *src) {
  const LyTypeImpl *res = op->results[0]->type;
  LyType s = lyd_wrap(src);
  int64_t a[LY_MAX_RANK], b[LY_MAX_RANK];
  int perm[LY_MAX_RANK];
  const LyirAttr *attr;
  switch (op->kind) {
  case LYIR_OP_RESHAPE:
    if (L->flags & LY_PASS_STRIDED_VIEWS)
      return lyd_type(lyTypeReshapeStrided(L->ctx, s, res->rank, res->dims));
    return lyd_type(lyTypeReshape(L->ctx, s, res->rank, res->dims));
  case LYIR_OP_TRANSPOSE:
    /* The IR's permutation is MLIR's (result dim i is operand dim p[i]);
     * lyTypePermute takes oneDNN's, its inverse. */
    attr = lyir_op_attr(op, "permutation");
    for (int i = 0; i < src->rank; i++)
      perm[attr->value.elems[i].i] = i;
    return lyd_type(lyTypePermute(L->ctx, s, perm));
  case LYIR_OP_SLICE:
    for (int i = 0; i < src->rank; i++) {
      a[i] = lyir_op_attr(op, "offsets")->value.elems[i].i;
      b[i] = lyir_op_attr(op, "sizes")->value.elems[i].i;
    }
    return lyd_type(lyTypeSlice(L->ctx, s, a, b));
  case LYIR_OP_BROADCAST:
    return lyd_type(lyTypeBroadcast(L->ctx, s, res->rank, res->dims));
  default:
    LY_ASSERT(!"not a view-like op");
  }
  return NULL;
}

/* The layout of src's dims to relayout to so that op becomes a view: for a
 * reshape the algebra's cheapest choice, else (and as the fallback) row-major,
 * of which every reshape, slice, transpose and broadcast is a view. NULL when
 * there is none, or it is src itself (a relayout would change nothing). */
static const LyTypeImpl *relayout_target(Legalize *L, const LyirOp *op, const LyTypeImpl *src) {
  const LyTypeImpl *res = op->results[0]->type;
  const LyTypeImpl *t = NULL;
  if (op->kind == LYIR_OP_RESHAPE) {
    t = lyd_type(lyTypeGetReshapeRelayout(L->ctx, lyd_wrap(src), res->rank, res->dims));
    if (t && (L->flags & LY_PASS_STRIDED_VIEWS) && !view_of(L, op, t))
      t = NULL; /* a digit view, not a strided one */
  }
  if (!t || t == src)
    t = lyd_type(lyTypeWithLayout(L->ctx, lyd_wrap(src), ""));
  return t == src ? NULL : t;
}

/* When the operand needs a relayout and the declared result layout differs
 * from what the view would give, one copy can do both: relayout the operand
 * straight to the layout whose view is the declared result (the declared
 * type viewed back in the operand's dims). Reshapes and transposes have such
 * an inverse; NULL when there is none. Refusals here are not reasons. */
static const LyTypeImpl *source_of_declared(Legalize *L, const LyirOp *op, const LyTypeImpl *src) {
  const LyTypeImpl *want = op->results[0]->type;
  if (want->kind == LYD_ANY || (op->kind != LYIR_OP_RESHAPE && op->kind != LYIR_OP_TRANSPOSE))
    return NULL;
  Reasons quiet;
  reasons_begin(&quiet, L->m);
  const LyTypeImpl *x;
  if (op->kind == LYIR_OP_RESHAPE) {
    x = lyd_type(lyTypeReshape(L->ctx, lyd_wrap(want), src->rank, src->dims));
  } else {
    /* Back from the result to the operand: in oneDNN's convention that is
     * the IR's (MLIR) permutation itself. */
    const LyirAttr *perm = lyir_op_attr(op, "permutation");
    int back[LY_MAX_RANK];
    for (int i = 0; i < src->rank; i++)
      back[i] = (int)perm->value.elems[i].i;
    x = lyd_type(lyTypePermute(L->ctx, lyd_wrap(want), back));
  }
  if (x && (x == src || view_of(L, op, x) != want))
    x = NULL;
  reasons_end(&quiet);
  ly_buf_free(&quiet.text);
  return x;
}

/* --- Rewriting ----------------------------------------------------------------- */

/* Inserts `%new = layout.relayout(%v)` to type t before op and makes it op's
 * operand. */
static LyStatus relayout_operand(Legalize *L, LyirOp *op, const LyTypeImpl *t) {
  LyirOp *copy = lyir_op_create_unary(L->m, LYIR_OP_RELAYOUT, op->loc, op->operands[0], t);
  if (!copy)
    return LY_ERROR_NOMEM;
  lyir_op_insert_before(L->fn, op, copy);
  op->operands[0] = copy->results[0];
  return LY_OK;
}

/* op becomes a view with result type `view`. A result declared `any` takes
 * the view's type, and its uses see it. A declared layout that differs is
 * honoured by a relayout after the view; the relayout defines the old result
 * value, so its uses do not change, and the view gets a new value. */
static LyStatus become_view(Legalize *L, LyirOp *op, const LyTypeImpl *view) {
  LyirValue *res = op->results[0];
  bool keep = res->type != view && res->type->kind != LYD_ANY;
  if (keep)
    explain(L, op, "keeps its declared result layout: a relayout follows the view ", view);
  op->kind = LYIR_OP_VIEW;
  op->nattrs = 0; /* a view's type says it all */
  if (!keep) {
    res->type = view;
    return LY_OK;
  }
  LyirValue *v = lyir_value_create(L->m, view, (LyirStr){NULL, 0}, op->loc);
  LyirOp *copy = lyir_op_create(L->m, LYIR_OP_RELAYOUT, op->loc, 1, 1, 0);
  if (!v || !copy)
    return LY_ERROR_NOMEM;
  copy->operands[0] = v;
  copy->operand_locs[0] = op->loc;
  copy->results[0] = res;
  copy->result_type_locs[0] = op->result_type_locs[0];
  res->def = copy;
  v->def = op;
  op->results[0] = v;
  lyir_op_insert_after(L->fn, op, copy);
  return LY_OK;
}

/* The view, and the relayout before it, for op on an operand of type src
 * (static, chosen). The reasons go to the current capture. */
static void plan_of(Legalize *L, const LyirOp *op, const LyTypeImpl *src, LypassViewPlan *p, bool *direct) {
  const LyTypeImpl *view = view_of(L, op, src);
  const LyTypeImpl *target = view ? NULL : source_of_declared(L, op, src);
  *direct = target != NULL;
  if (!view && !target)
    target = relayout_target(L, op, src);
  const LyTypeImpl *relaid = target ? view_of(L, op, target) : NULL;
  const LyTypeImpl *res = op->results[0]->type;
  *p = (LypassViewPlan){0};
  p->view = view ? view : relaid;
  p->pre = view || !relaid ? NULL : target;
  if (p->view && res->kind != LYD_ANY && res != p->view)
    p->post = res;
}

static bool stays_dynamic(const LyirOp *op, const LyTypeImpl *src) {
  return lyTypeIsDynamic(lyd_wrap(src)) || lyTypeIsDynamic(lyd_wrap(op->results[0]->type));
}

LyStatus lypass_legalize_plan(LyirModule *m, const LyirOp *op, const LyTypeImpl *src, unsigned flags,
                              LypassViewPlan *out) {
  *out = (LypassViewPlan){0};
  if (src->kind == LYD_ANY || stays_dynamic(op, src))
    return LY_OK;
  Legalize L = {.m = m, .ctx = {m->ctx}, .flags = flags};
  Reasons quiet;
  reasons_begin(&quiet, m);
  bool direct;
  plan_of(&L, op, src, out, &direct);
  reasons_end(&quiet);
  bool oom = quiet.text.oom;
  ly_buf_free(&quiet.text);
  return oom ? LY_ERROR_NOMEM : LY_OK;
}

static LyStatus legalize(Legalize *L, LyirOp *op) {
  const LyTypeImpl *src = op->operands[0]->type;
  if (src->kind == LYD_ANY) {
    explain(L, op, "stays: its operand's layout is not chosen yet ('any')", NULL);
    return LY_OK;
  }
  if (stays_dynamic(op, src)) {
    explain(L, op, "stays: views need static dims, strides and offsets", NULL);
    return LY_OK;
  }
  Reasons why;
  reasons_begin(&why, L->m);
  LypassViewPlan p;
  bool direct;
  plan_of(L, op, src, &p, &direct);
  reasons_end(&why);
  LyStatus st = LY_OK;
  if (p.view && !p.pre) {
    st = become_view(L, op, p.view);
  } else if (!p.view) {
    explain_with(L, op, &why, "stays: no relayout of its operand makes it a view", NULL);
  } else {
    explain_with(L, op, &why,
                 direct ? "needs a relayout of its operand; one copy, to the layout whose view is the declared "
                          "result: "
                        : "needs its operand relayouted to ",
                 p.pre);
    st = relayout_operand(L, op, p.pre);
    if (st == LY_OK)
      st = become_view(L, op, p.view);
  }
  if (why.text.oom && st == LY_OK)
    st = LY_ERROR_NOMEM;
  ly_buf_free(&why.text);
  return st;
}

static bool is_view_like(LyirOpKind k) {
  return k == LYIR_OP_RESHAPE || k == LYIR_OP_TRANSPOSE || k == LYIR_OP_SLICE || k == LYIR_OP_BROADCAST;
}

LyStatus lypass_legalize_func(LyirModule *m, LyirFunc *f, unsigned flags) {
  Legalize L = {.m = m, .ctx = {m->ctx}, .flags = flags, .fn = f};
  /* Ops inserted around op are relayouts and views: not revisited. Ops in
   * regions are legalized in their block like top-level ones. */
  for (LyirOp *op = f->first, *next; op; op = next) {
    next = lyir_op_walk_next(op);
    LyStatus st = is_view_like(op->kind) ? legalize(&L, op) : LY_OK;
    if (st != LY_OK)
      return st;
  }
  return LY_OK;
}

LyStatus lypass_legalize_reshapes(LyirModule *m, unsigned flags) {
  for (LyirFunc *f = m->first; f; f = f->next) {
    LyStatus st = lypass_legalize_func(m, f, flags);
    if (st != LY_OK)
      return st;
  }
  return LY_OK;
}
