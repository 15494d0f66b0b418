/* passes/assign_layouts: chooses every `any` layout and every layout.op
 * variant so that the total cost of SPEC 3.6 (relayout bytes, shared
 * copies, variant costs) is least, as a PBQP solved exactly (lib/pbqp),
 * then rewrites the function: relayouts where uses need another layout,
 * the legalizer for reshapes, transposes, slices and broadcasts, and user
 * relayouts that became no-ops removed. The model:
 *
 * - a node per value (its candidate layouts; a declared layout is its only
 *   candidate) and per layout.op with variants (its variants, at their
 *   cost); an edge ties a variant to its results' layouts, an elementwise
 *   op's results to result 0, a view-like op's result to the view of its
 *   operand's layout;
 * - a use that needs value V in layout T (a variant's operand, an
 *   elementwise operand, a declared return, a relayout, the legalizer's
 *   relayout before a view) costs bytes(V) + bytes(T) unless V is in T.
 *   Copies of V into T are shared: when several nodes may ask for the same
 *   T, a two-choice node "V has a copy in T" carries the cost once. */
#include "passes/passes.h"
#include "pbqp/pbqp.h"

#include <inttypes.h>
#include <string.h>

/* Candidates kept per value: row-major, the value's own requirements, then
 * what the function mentions and its images through views. */
#define MAX_CANDS 16
/* Rounds of carrying candidates through views and elementwise ties. */
#define TRANSPORT_ROUNDS 4
/* Dynamic dims count as this much in costs (SPEC 3.6). */
#define DYNAMIC_EXTENT 1024

typedef struct {
  const LyTypeImpl *t[MAX_CANDS];
  int n;
} Cands;

/* --- A pointer map (types to cached candidate lists, copies) -------------------- */

typedef struct {
  const void **keys;
  void **vals;
  size_t cap, count;
} PtrMap;

static size_t ptr_hash(const void *a, const void *b) {
  uint64_t h = ((uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL);
  return (size_t)(h ^ (h >> 29));
}

/* Keys of two pointers and a number: keys[3i..3i+2]; a is never NULL. */
static void **map_slot3(PtrMap *m, const void *a, const void *b, uint64_t c, bool *found) {
  size_t i = (ptr_hash(a, b) ^ (size_t)(c * 0x9e3779b97f4a7c15ULL)) & (m->cap - 1);
  while (m->keys[3 * i] && (m->keys[3 * i] != a || m->keys[3 * i + 1] != b || (uint64_t)(uintptr_t)m->keys[3 * i + 2] != c))
    i = (i + 1) & (m->cap - 1);
  *found = m->keys[3 * i] != NULL;
  return &m->vals[i];
}

static void *map_get3(PtrMap *m, const void *a, const void *b, uint64_t c) {
  if (!m->cap)
    return NULL;
  bool found;
  void **v = map_slot3(m, a, b, c, &found);
  return found ? *v : NULL;
}

static bool map_put3(PtrMap *m, const void *a, const void *b, uint64_t c, void *val) {
  if (2 * (m->count + 1) > m->cap) {
    PtrMap n = {.cap = m->cap ? 2 * m->cap : 64};
    n.keys = ly_malloc(3 * n.cap * sizeof *n.keys);
    n.vals = ly_malloc(n.cap * sizeof *n.vals);
    if (!n.keys || !n.vals) {
      ly_free(n.keys);
      ly_free(n.vals);
      return false;
    }
    memset(n.keys, 0, 3 * n.cap * sizeof *n.keys);
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[3 * i])
        map_put3(&n, m->keys[3 * i], m->keys[3 * i + 1], (uint64_t)(uintptr_t)m->keys[3 * i + 2], m->vals[i]);
    ly_free(m->keys);
    ly_free(m->vals);
    *m = n;
  }
  bool found;
  void **v = map_slot3(m, a, b, c, &found);
  size_t i = (size_t)(v - m->vals);
  m->keys[3 * i] = a;
  m->keys[3 * i + 1] = b;
  m->keys[3 * i + 2] = (const void *)(uintptr_t)c;
  *v = val;
  m->count += !found;
  return true;
}

static void *map_get(PtrMap *m, const void *a, const void *b) { return map_get3(m, a, b, 0); }
static bool map_put(PtrMap *m, const void *a, const void *b, void *val) { return map_put3(m, a, b, 0, val); }

static void map_free(PtrMap *m) {
  ly_free(m->keys);
  ly_free(m->vals);
  *m = (PtrMap){0};
}

/* A use of a value that needs it in some layout: per choice of `node`
 * (its own node for a self demand), the layout, or NULL for none. */
typedef struct {
  int value, node;
  bool self, constant;
  const LyTypeImpl **t; /* per choice of node; one entry when constant */
  int next;             /* next demand on the same value, -1 */
} Demand;

typedef struct {
  LyirValue *v;
  int node;
  Cands c;
  bool fixed;     /* declared layout: one candidate */
  bool view_res;  /* result of a view-like op: the legalizer sets it */
  bool free_any;  /* declared any and chosen freely (row-major baseline) */
  int demands;    /* first demand, -1 */
} Val;

typedef struct {
  LyirModule *m;
  LyContext ctx;
  LyirFunc *f;
  unsigned flags;
  LyArena arena;
  Val *vals;
  int nvals;
  LyirOp **ops; /* every op, in order */
  int nops;
  int *opnode;   /* per op: its variant node, or -1 */
  int *opfirst;  /* per op: the first node made for it (then up to the next op's) */
  Demand *dem;
  int ndem, cdem;
  /* the mentioned layouts: spellings with their rank */
  const char **ment;
  int *ment_rank;
  int nment, cment;
  PtrMap plans; /* (operand layout, declared result, op attributes) -> plan */
  PtrMap memo;  /* (op, NULL): signature; (type, &row_major): its row-major */
  LypqGraph *g;
  int nnodes;
  /* With a PBQP dump only: what each copy node stands for (node id, value,
   * layout), for its label. */
  struct CopyNode *copy_nodes;
  int ncopy_nodes, ccopy_nodes;
  bool oom;
} Assign;

typedef struct CopyNode {
  int node, value;
  const LyTypeImpl *t;
} CopyNode;

/* --- Small helpers ------------------------------------------------------------- */

static void *aalloc(Assign *A, size_t n) {
  void *p = ly_arena_alloc(&A->arena, n ? n : 1);
  if (!p)
    A->oom = true;
  return p;
}

static bool cands_has(const Cands *c, const LyTypeImpl *t) {
  for (int i = 0; i < c->n; i++)
    if (c->t[i] == t)
      return true;
  return false;
}

/* Adds t (an injective layout of the value's type); true if new. */
static bool cands_add(Cands *c, const LyTypeImpl *t) {
  if (!t || t->kind == LYD_ANY || c->n == MAX_CANDS || cands_has(c, t))
    return false;
  if (lyd_is_encoded(t) && c->n) /* no kernel converts to or from one: only as the declared layout */
    return false;
  if (t->kind == LYD_DIGITS && lyd_is_static(t)) {
    int inj = 0;
    if (lyTypeIsInjective(lyd_wrap(t), &inj) != LY_OK || !inj)
      return false;
  }
  c->t[c->n++] = t;
  return true;
}

/* Quietly: the context's diagnostics are dropped and its error count kept
 * (a layout that does not apply is simply not a candidate). */
typedef struct {
  LyDiagEngine *e;
  LyDiagnosticHandler h;
  void *user;
  int errors;
} Hush;

static void hush_handler(const LyDiagnostic *d, void *user) { (void)d, (void)user; }

static Hush hush_begin(Assign *A) {
  Hush s = {&A->m->ctx->diag, A->m->ctx->diag.handler, A->m->ctx->diag.user, A->m->ctx->diag.errors};
  s.e->handler = hush_handler;
  return s;
}

static void hush_end(Hush s) {
  s.e->handler = s.h;
  s.e->user = s.user;
  s.e->errors = s.errors;
}

static const LyTypeImpl *with_layout(Assign *A, const LyTypeImpl *t, const char *layout) {
  Hush h = hush_begin(A);
  const LyTypeImpl *r = lyd_type(lyTypeWithLayout(A->ctx, lyd_wrap(t), layout));
  hush_end(h);
  return r;
}

static const LyTypeImpl *row_major_uncached(Assign *A, const LyTypeImpl *t) { return with_layout(A, t, ""); }

/* The same layout on another value of the same dims (another element type
 * or memory space): through its spelling. */
static const LyTypeImpl *same_layout(Assign *A, const LyTypeImpl *layout, const LyTypeImpl *v) {
  if (layout->elem == v->elem && layout->ms_num == v->ms_num && layout->ms_str == v->ms_str)
    return layout;
  LyBuf b;
  ly_buf_init(&b);
  lyd_print_layout(layout, &b);
  const LyTypeImpl *r = b.oom ? NULL : with_layout(A, v, ly_buf_cstr(&b));
  A->oom |= b.oom;
  ly_buf_free(&b);
  return r;
}

/* Allocation bytes, padding included; a dynamic dim counts as 1024
 * (through the same layout on the dims with 1024 for each '?'). */
static int64_t bytes_of(Assign *A, const LyTypeImpl *t) {
  int64_t n;
  if (lyTypeGetSizeBytes(lyd_wrap(t), &n) == LY_OK)
    return n;
  int64_t dims[LY_MAX_RANK];
  for (int d = 0; d < t->rank; d++)
    dims[d] = t->dims[d] == LY_DYNAMIC ? DYNAMIC_EXTENT : t->dims[d];
  LyType rm = lyTypeGetRowMajor(A->ctx, t->elem, t->rank, dims);
  const LyTypeImpl *s = lyTypeIsNull(rm) ? NULL : same_layout(A, t, lyd_type(rm));
  if (s && lyTypeGetSizeBytes(lyd_wrap(s), &n) == LY_OK)
    return n;
  /* A layout that does not carry over (dynamic strides): its numel. */
  if (!lyTypeIsNull(rm) && lyTypeGetSizeBytes(rm, &n) == LY_OK)
    return n;
  return LYPQ_INF / 1024;
}

static int64_t copy_cost(Assign *A, const LyTypeImpl *from, const LyTypeImpl *to) {
  return from == to ? 0 : lypq_add(bytes_of(A, from), bytes_of(A, to));
}

static Val *val(Assign *A, const LyirValue *v) { return &A->vals[v->print_id]; }

static bool is_view_like(LyirOpKind k) {
  return k == LYIR_OP_RESHAPE || k == LYIR_OP_TRANSPOSE || k == LYIR_OP_SLICE || k == LYIR_OP_BROADCAST;
}

static bool is_elementwise(const LyirOp *op) {
  const LyirAttr *a = lyir_op_attr(op, "elementwise");
  return op->kind == LYIR_OP_COMPUTE && a && a->value.kind == LYIR_ATTR_BOOL && a->value.i;
}

static const LyirAttrValue *variants_of(const LyirOp *op) {
  const LyirAttr *a = op->kind == LYIR_OP_COMPUTE ? lyir_op_attr(op, "variants") : NULL;
  return a ? &a->value : NULL;
}

static bool same_dims(const LyTypeImpl *a, const LyTypeImpl *b) { return lyd_same_dims(a, b); }

static void *memo_get(Assign *A, const void *a, const void *b, uint64_t c);
static void memo_put(Assign *A, const void *a, const void *b, uint64_t c, const void *v);
static const char vl_key;

/* Variant k's layout for entry i (operands then results): NULL for "any".
 * Cached by value type and spelling: large functions repeat both. */
static const LyTypeImpl *variant_layout(Assign *A, const LyirOp *op, int k, int i) {
  const LyirAttrValue *e = &variants_of(op)->elems[k].elems[i];
  const LyirValue *v = i < op->noperands ? op->operands[i] : op->results[i - op->noperands];
  uint64_t h = ly_hash_bytes(LY_HASH_INIT, e->s.s, (size_t)e->s.len) | 1;
  const LyTypeImpl *t = memo_get(A, v->type, &vl_key, h);
  if (!t) {
    t = lyir_layout_apply(A->m, v->type, e->s, NULL);
    if (!t) /* verified: it applies; only out of memory fails */
      return NULL;
    memo_put(A, v->type, &vl_key, h, t);
  }
  return t->kind != LYD_ANY ? t : NULL;
}

static int64_t variant_cost(const LyirOp *op, int k) {
  const LyirAttrValue *v = &variants_of(op)->elems[k];
  return v->elems[v->n - 1].i;
}

/* --- Candidates ----------------------------------------------------------------- */

static void mention(Assign *A, const LyTypeImpl *t, PtrMap *seen) {
  if (!t || t->kind == LYD_ANY || map_get(seen, t, NULL))
    return;
  if (!map_put(seen, t, NULL, (void *)t)) {
    A->oom = true;
    return;
  }
  LyBuf b;
  ly_buf_init(&b);
  lyd_print_layout(t, &b);
  if (b.oom || !b.len) { /* row-major is always a candidate */
    A->oom |= b.oom;
    ly_buf_free(&b);
    return;
  }
  for (int i = 0; i < A->nment; i++)
    if (A->ment_rank[i] == t->rank && !strcmp(A->ment[i], ly_buf_cstr(&b))) {
      ly_buf_free(&b);
      return;
    }
  if (A->nment == A->cment) {
    int c = A->cment ? 2 * A->cment : 16;
    const char **s = aalloc(A, (size_t)c * sizeof *s);
    int *r = aalloc(A, (size_t)c * sizeof *r);
    if (!s || !r) {
      ly_buf_free(&b);
      return;
    }
    if (A->nment) {
      memcpy(s, A->ment, (size_t)A->nment * sizeof *s);
      memcpy(r, A->ment_rank, (size_t)A->nment * sizeof *r);
    }
    A->ment = s, A->ment_rank = r, A->cment = c;
  }
  A->ment[A->nment] = ly_arena_strndup(&A->arena, b.data, b.len);
  A->ment_rank[A->nment++] = t->rank;
  A->oom |= !A->ment[A->nment - 1];
  ly_buf_free(&b);
}

/* Every layout the function mentions: declared types, relayout targets
 * (declared types too) and variants. */
static void collect_mentions(Assign *A) {
  PtrMap seen = {0};
  for (int i = 0; i < A->nvals; i++)
    mention(A, A->vals[i].v->type, &seen);
  for (int i = 0; i < A->f->nresults; i++)
    mention(A, A->f->result_types[i], &seen);
  for (int o = 0; o < A->nops; o++) {
    const LyirOp *op = A->ops[o];
    const LyirAttrValue *vs = variants_of(op);
    for (int k = 0; vs && k < vs->n; k++)
      for (int i = 0; i < op->noperands + op->nresults; i++)
        mention(A, variant_layout(A, op, k, i), &seen);
  }
  map_free(&seen);
}

static void *memo_get(Assign *A, const void *a, const void *b, uint64_t c) { return map_get3(&A->memo, a, b, c); }
static void memo_put(Assign *A, const void *a, const void *b, uint64_t c, const void *v) {
  if (!map_put3(&A->memo, a, b, c, (void *)v))
    A->oom = true;
}

static const char rm_key;

/* Row-major of t's dims, cached per type: it is asked for every value. */
static const LyTypeImpl *row_major(Assign *A, const LyTypeImpl *t) {
  const LyTypeImpl *r = map_get(&A->memo, t, &rm_key);
  if (r)
    return r;
  r = row_major_uncached(A, t);
  if (r && !map_put(&A->memo, t, &rm_key, (void *)r))
    A->oom = true;
  return r;
}

/* Base candidates of an `any` type: row-major, then the mentions of its
 * rank that apply. Cached per (interned) type. */
static const Cands *base_cands(Assign *A, const LyTypeImpl *t, PtrMap *cache) {
  Cands *c = map_get(cache, t, NULL);
  if (c)
    return c;
  if (!(c = aalloc(A, sizeof *c)) || !map_put(cache, t, NULL, c)) {
    A->oom = true;
    return NULL;
  }
  cands_add(c, row_major(A, t));
  for (int i = 0; i < A->nment; i++)
    if (A->ment_rank[i] == t->rank)
      cands_add(c, with_layout(A, t, A->ment[i]));
  return c;
}

/* --- What the legalizer will do ------------------------------------------------ */

/* A hash of the op's kind and attributes: with the operand layout and the
 * declared result it determines the legalizer's plan. */
static uint64_t op_signature(const LyirOp *op) {
  uint64_t h = ly_hash_i64(LY_HASH_INIT, op->kind);
  for (int i = 0; i < op->nattrs; i++) {
    const LyirAttrValue *v = &op->attrs[i].value;
    h = ly_hash_bytes(h, op->attrs[i].name.s, (size_t)op->attrs[i].name.len);
    for (int j = 0; v->kind == LYIR_ATTR_ARRAY && j < v->n; j++)
      h = ly_hash_i64(h, v->elems[j].i);
  }
  return h | 1; /* never 0 */
}

/* The legalizer's plan for op on an operand in layout src (cached). */
static const LypassViewPlan *plan(Assign *A, const LyirOp *op, const LyTypeImpl *src) {
  uint64_t sig = (uint64_t)(uintptr_t)map_get(&A->memo, op, NULL);
  if (!sig && !map_put(&A->memo, op, NULL, (void *)(uintptr_t)(sig = op_signature(op))))
    A->oom = true;
  LypassViewPlan *p = map_get3(&A->plans, src, op->results[0]->type, sig);
  if (p)
    return p;
  p = aalloc(A, sizeof *p);
  if (!p)
    return NULL;
  LyStatus st = lypass_legalize_plan(A->m, op, src, A->flags & LY_PASS_STRIDED_VIEWS, p);
  if (st != LY_OK || !map_put3(&A->plans, src, op->results[0]->type, sig, p)) {
    A->oom = true;
    return NULL;
  }
  return p;
}

/* The operand layout whose view (transpose or reshape) is t, or NULL. */
static const LyTypeImpl *view_source(Assign *A, const LyirOp *op, const LyTypeImpl *t) {
  const LyTypeImpl *src = op->operands[0]->type;
  Hush h = hush_begin(A);
  const LyTypeImpl *x = NULL;
  if (op->kind == LYIR_OP_RESHAPE) {
    x = lyd_type(lyTypeReshape(A->ctx, lyd_wrap(t), src->rank, src->dims));
  } else if (op->kind == LYIR_OP_TRANSPOSE) {
    const LyirAttr *perm = lyir_op_attr(op, "permutation");
    int back[LY_MAX_RANK];
    for (int i = 0; i < src->rank; i++)
      back[i] = (int)perm->value.elems[i].i;
    x = lyd_type(lyTypePermute(A->ctx, lyd_wrap(t), back));
  }
  hush_end(h);
  if (!x)
    return NULL;
  const LypassViewPlan *p = plan(A, op, x);
  return p && p->view == t && !p->pre && !p->post ? x : NULL;
}

/* --- Candidates: initial, then carried through views and ties --------------------- */

static bool is_static_view_op(const LyirOp *op) {
  return (op->kind == LYIR_OP_TRANSPOSE || op->kind == LYIR_OP_RESHAPE) &&
         !lyTypeIsDynamic(lyd_wrap(op->operands[0]->type)) && !lyTypeIsDynamic(lyd_wrap(op->results[0]->type));
}

/* The layouts a value needs where it is defined and used come first, so
 * that the cap never drops them. */
static void initial_cands(Assign *A) {
  PtrMap cache = {0};
  for (int i = 0; i < A->nvals; i++) {
    Val *x = &A->vals[i];
    x->fixed = x->v->type->kind != LYD_ANY;
    if (x->fixed)
      x->c.t[x->c.n++] = x->v->type;
    else
      cands_add(&x->c, row_major(A, x->v->type));
  }
  for (int o = 0; o < A->nops; o++) {
    const LyirOp *op = A->ops[o];
    const LyirAttrValue *vs = variants_of(op);
    for (int k = 0; vs && k < vs->n; k++)
      for (int i = 0; i < op->noperands + op->nresults; i++) {
        const LyirValue *v = i < op->noperands ? op->operands[i] : op->results[i - op->noperands];
        if (!val(A, v)->fixed)
          cands_add(&val(A, v)->c, variant_layout(A, op, k, i));
      }
    if (op->kind == LYIR_OP_RELAYOUT && !val(A, op->operands[0])->fixed)
      cands_add(&val(A, op->operands[0])->c, op->results[0]->type);
    for (int i = 0; op->kind == LYIR_OP_RETURN && i < op->noperands; i++)
      if (!val(A, op->operands[i])->fixed)
        cands_add(&val(A, op->operands[i])->c, A->f->result_types[i]);
  }
  for (int i = 0; i < A->nvals && !A->oom; i++) {
    Val *x = &A->vals[i];
    const Cands *b = x->fixed ? NULL : base_cands(A, x->v->type, &cache);
    for (int j = 0; b && j < b->n; j++)
      cands_add(&x->c, b->t[j]);
  }
  map_free(&cache);
}

static bool carry_view(Assign *A, const LyirOp *op) {
  Val *v = val(A, op->operands[0]), *r = val(A, op->results[0]);
  bool changed = false;
  for (int i = 0; !r->fixed && i < v->c.n; i++) {
    const LypassViewPlan *p = plan(A, op, v->c.t[i]);
    if (p && p->view && !p->pre)
      changed |= cands_add(&r->c, p->view);
  }
  for (int i = 0; !v->fixed && i < r->c.n; i++)
    changed |= cands_add(&v->c, view_source(A, op, r->c.t[i]));
  return changed;
}

/* Values that must share one layout: an elementwise op's results and its
 * operands of result 0's dims; a relayout's operand and result (so that it
 * can vanish). */
static bool carry_tie(Assign *A, Val *a, Val *b) {
  bool changed = false;
  for (int i = 0; !b->fixed && i < a->c.n; i++)
    changed |= cands_add(&b->c, same_layout(A, a->c.t[i], b->v->type));
  for (int i = 0; !a->fixed && i < b->c.n; i++)
    changed |= cands_add(&a->c, same_layout(A, b->c.t[i], a->v->type));
  return changed;
}

static void transport(Assign *A) {
  bool changed = true;
  for (int round = 0; changed && round < TRANSPORT_ROUNDS && !A->oom; round++) {
    changed = false;
    for (int o = 0; o < A->nops; o++) {
      const LyirOp *op = A->ops[o];
      if (is_static_view_op(op))
        changed |= carry_view(A, op);
      else if (op->kind == LYIR_OP_RELAYOUT)
        changed |= carry_tie(A, val(A, op->operands[0]), val(A, op->results[0]));
      else if (is_elementwise(op)) {
        Val *r0 = val(A, op->results[0]);
        for (int j = 1; j < op->nresults; j++)
          changed |= carry_tie(A, r0, val(A, op->results[j]));
        for (int i = 0; i < op->noperands; i++)
          if (same_dims(op->operands[i]->type, r0->v->type))
            changed |= carry_tie(A, r0, val(A, op->operands[i]));
      }
    }
  }
}

/* --- The PBQP --------------------------------------------------------------------- */

static int new_node(Assign *A, int n) {
  int64_t zero[MAX_CANDS > 64 ? MAX_CANDS : 64] = {0};
  int64_t *c = n <= 64 ? zero : aalloc(A, (size_t)n * sizeof *c);
  int id = c ? lypq_add_node(A->g, n, c) : -1;
  if (id < 0)
    A->oom = true;
  else
    A->nnodes++;
  return id;
}

static int value_node(Assign *A, Val *x) {
  x->node = new_node(A, x->c.n);
  return x->node;
}

/* A demand on value `value` from node `node` of n choices; its layouts
 * start NULL. Returns its index, -1 on OOM. */
static int add_demand(Assign *A, int value, int node, int n, bool self, bool constant) {
  if (A->ndem == A->cdem) {
    int c = A->cdem ? 2 * A->cdem : 256;
    Demand *d = ly_realloc(A->dem, (size_t)c * sizeof *d);
    if (!d) {
      A->oom = true;
      return -1;
    }
    A->dem = d, A->cdem = c;
  }
  const LyTypeImpl **t = aalloc(A, (size_t)n * sizeof *t);
  if (!t)
    return -1;
  Val *x = &A->vals[value];
  A->dem[A->ndem] = (Demand){value, node, self, constant, t, x->demands};
  x->demands = A->ndem;
  return A->ndem++;
}

static void add_edge(Assign *A, int u, int v, const int64_t *m) {
  if (!lypq_add_edge(A->g, u, v, m))
    A->oom = true;
}

/* Ties node u's choices to node v's: allowed[i][j] or INF. */
static void tie(Assign *A, int u, int nu, int v, int nv, const bool *allowed) {
  int64_t *m = ly_malloc((size_t)(nu * nv) * sizeof *m + 1);
  if (!m) {
    A->oom = true;
    return;
  }
  for (int i = 0; i < nu * nv; i++)
    m[i] = allowed[i] ? 0 : LYPQ_INF;
  add_edge(A, u, v, m);
  ly_free(m);
}

static void variant_op(Assign *A, int o) {
  const LyirOp *op = A->ops[o];
  int nv = variants_of(op)->n;
  int node = A->opnode[o] = new_node(A, nv);
  for (int k = 0; node >= 0 && k < nv; k++)
    lypq_add_cost(A->g, node, k, variant_cost(op, k));
  for (int j = 0; node >= 0 && j < op->nresults; j++) {
    Val *r = val(A, op->results[j]);
    if (value_node(A, r) < 0)
      return;
    bool *ok = aalloc(A, (size_t)(nv * r->c.n));
    for (int k = 0; ok && k < nv; k++) {
      const LyTypeImpl *t = variant_layout(A, op, k, op->noperands + j);
      for (int c = 0; c < r->c.n; c++)
        ok[k * r->c.n + c] = !t || t == r->c.t[c];
    }
    if (ok)
      tie(A, node, nv, r->node, r->c.n, ok);
  }
  for (int i = 0; node >= 0 && i < op->noperands; i++) {
    int d = add_demand(A, val(A, op->operands[i])->v->print_id, node, nv, false, false);
    for (int k = 0; d >= 0 && k < nv; k++)
      A->dem[d].t[k] = variant_layout(A, op, k, i);
  }
}

static void elementwise_op(Assign *A, const LyirOp *op) {
  Val *r0 = val(A, op->results[0]);
  for (int j = 0; j < op->nresults; j++)
    if (value_node(A, val(A, op->results[j])) < 0)
      return;
  for (int j = 1; j < op->nresults; j++) {
    Val *r = val(A, op->results[j]);
    bool *ok = aalloc(A, (size_t)(r0->c.n * r->c.n));
    for (int a = 0; ok && a < r0->c.n; a++)
      for (int b = 0; b < r->c.n; b++)
        ok[a * r->c.n + b] = same_layout(A, r0->c.t[a], r->v->type) == r->c.t[b];
    if (ok)
      tie(A, r0->node, r0->c.n, r->node, r->c.n, ok);
  }
  for (int i = 0; i < op->noperands; i++) {
    if (!same_dims(op->operands[i]->type, r0->v->type))
      continue;
    int d = add_demand(A, op->operands[i]->print_id, r0->node, r0->c.n, false, false);
    for (int a = 0; d >= 0 && a < r0->c.n; a++)
      A->dem[d].t[a] = same_layout(A, r0->c.t[a], op->operands[i]->type);
  }
}

/* A reshape, transpose, slice or broadcast: its result is the legalizer's
 * view of the operand's layout; the relayout before it is a demand on the
 * operand, the one after it (to a declared result) a cost of the operand's
 * layout. An op the legalizer leaves (dynamic dims) takes its operand
 * row-major and gives a row-major result. */
static void view_op(Assign *A, const LyirOp *op) {
  Val *v = val(A, op->operands[0]), *r = val(A, op->results[0]);
  r->view_res = true;
  const LypassViewPlan *p[MAX_CANDS];
  bool stays = !is_static_view_op(op) && (lyTypeIsDynamic(lyd_wrap(op->operands[0]->type)) ||
                                           lyTypeIsDynamic(lyd_wrap(op->results[0]->type)));
  for (int l = 0; !stays && l < v->c.n; l++)
    stays = !(p[l] = plan(A, op, v->c.t[l])) || !p[l]->view;
  if (stays) {
    if (!r->fixed) {
      r->c.n = 0;
      cands_add(&r->c, row_major(A, r->v->type));
      r->fixed = true; /* set by the pass, not the legalizer */
      r->view_res = false;
    }
    int d = value_node(A, r) < 0 ? -1 : add_demand(A, v->v->print_id, -1, 1, false, true);
    if (d >= 0)
      A->dem[d].t[0] = row_major(A, v->v->type);
    return;
  }
  if (!r->fixed) {
    r->c.n = 0;
    for (int l = 0; l < v->c.n; l++)
      if (!cands_has(&r->c, p[l]->view))
        r->c.t[r->c.n++] = p[l]->view; /* at most one per operand candidate */
  }
  if (value_node(A, r) < 0)
    return;
  bool *ok = aalloc(A, (size_t)(v->c.n * r->c.n));
  int d = add_demand(A, v->v->print_id, v->node, v->c.n, true, false);
  for (int l = 0; ok && d >= 0 && l < v->c.n; l++) {
    const LyTypeImpl *image = p[l]->post ? p[l]->post : p[l]->view;
    for (int c = 0; c < r->c.n; c++)
      ok[l * r->c.n + c] = r->c.t[c] == image;
    A->dem[d].t[l] = p[l]->pre;
    if (p[l]->post)
      lypq_add_cost(A->g, v->node, l, copy_cost(A, p[l]->view, p[l]->post));
  }
  if (ok && r->c.n > 1)
    tie(A, v->node, v->c.n, r->node, r->c.n, ok);
  else if (ok)
    for (int l = 0; l < v->c.n; l++)
      lypq_add_cost(A->g, v->node, l, ok[l] ? 0 : LYPQ_INF);
}

static void relayout_op(Assign *A, const LyirOp *op) {
  Val *r = val(A, op->results[0]);
  if (r == val(A, op->operands[0]))
    return; /* vanishes (index_func) */
  if (value_node(A, r) < 0)
    return;
  bool constant = r->fixed;
  int d = add_demand(A, op->operands[0]->print_id, constant ? -1 : r->node, r->c.n, false, constant);
  for (int c = 0; d >= 0 && c < r->c.n; c++)
    A->dem[d].t[c] = r->c.t[c];
}

static void return_op(Assign *A, const LyirOp *op) {
  for (int i = 0; i < op->noperands; i++) {
    if (A->f->result_types[i]->kind == LYD_ANY)
      continue;
    int d = add_demand(A, op->operands[i]->print_id, -1, 1, false, true);
    if (d >= 0)
      A->dem[d].t[0] = A->f->result_types[i];
  }
}

static void build_ops(Assign *A) {
  for (int i = 0; i < A->f->nargs; i++)
    value_node(A, val(A, A->f->args[i]));
  for (int o = 0; o < A->nops && !A->oom; o++) {
    const LyirOp *op = A->ops[o];
    A->opnode[o] = -1;
    A->opfirst[o] = A->nnodes;
    if (variants_of(op))
      variant_op(A, o);
    else if (is_elementwise(op))
      elementwise_op(A, op);
    else if (is_view_like(op->kind))
      view_op(A, op);
    else if (op->kind == LYIR_OP_RELAYOUT)
      relayout_op(A, op);
    else if (op->kind == LYIR_OP_RETURN)
      return_op(A, op);
    else
      for (int j = 0; j < op->nresults; j++)
        value_node(A, val(A, op->results[j]));
    for (int r = 0; r < op->nregions; r++)
      for (int j = 0; j < op->regions[r]->nargs; j++)
        value_node(A, val(A, op->regions[r]->args[j]));
  }
  A->opfirst[A->nops] = A->nnodes;
}

/* The greedy baseline's order, XLA-style: program order, an `any`
 * argument right after its first user (it follows that op's constraint),
 * copy nodes last. NULL on OOM. */
static int *greedy_order(Assign *A) {
  int *order = aalloc(A, (size_t)A->nnodes * sizeof *order);
  bool *placed = aalloc(A, (size_t)A->nnodes);
  if (!order || !placed)
    return NULL;
  int n = 0;
  for (int o = 0; o < A->nops; o++) {
    const LyirOp *op = A->ops[o];
    for (int id = A->opfirst[o]; id < A->opfirst[o + 1]; id++)
      placed[id] = true, order[n++] = id;
    for (int i = 0; i < op->noperands; i++) {
      const Val *x = val(A, op->operands[i]);
      if (!x->v->def && x->node >= 0 && !placed[x->node])
        placed[x->node] = true, order[n++] = x->node;
    }
  }
  for (int id = 0; id < A->nnodes; id++)
    if (!placed[id])
      order[n++] = id;
  return order;
}

/* --- Copies: the demands on one value, grouped by layout ------------------------- */

/* Whether demand d asks for t at choice k of its node. */
static bool asks(const Demand *d, int k, const LyTypeImpl *t) { return d->t[d->constant ? 0 : k] == t; }

static bool asks_ever(Assign *A, const Demand *d, const LyTypeImpl *t) {
  int n = d->constant ? 1 : (d->self ? A->vals[d->value].c.n : -1);
  if (n < 0) /* another node: its size is its candidate or variant count */
    n = d->node >= 0 ? lypq_node_size(A->g, d->node) : 1;
  for (int k = 0; k < n; k++)
    if (d->t[k] == t)
      return true;
  return false;
}

/* Demands on x for layout t from node u (or the self/constant kinds):
 * does choice k of that source ask for it? */
static bool source_asks(Assign *A, const Val *x, int key, int k, const LyTypeImpl *t) {
  for (int d = x->demands; d >= 0; d = A->dem[d].next) {
    const Demand *e = &A->dem[d];
    int ekey = e->constant ? -1 : e->self ? -2 : e->node;
    if (ekey == key && asks(e, k, t))
      return true;
  }
  return false;
}

/* Remembers what copy node y stands for, when the PBQP is dumped. */
static bool note_copy_node(Assign *A, int y, const Val *x, const LyTypeImpl *t) {
  if (!A->m->pbqp_dump)
    return true;
  if (A->ncopy_nodes == A->ccopy_nodes) {
    int c = A->ccopy_nodes ? 2 * A->ccopy_nodes : 64;
    CopyNode *n = ly_realloc(A->copy_nodes, (size_t)c * sizeof *n);
    if (!n) {
      A->oom = true;
      return false;
    }
    A->copy_nodes = n, A->ccopy_nodes = c;
  }
  A->copy_nodes[A->ncopy_nodes++] = (CopyNode){y, (int)(x - A->vals), t};
  return true;
}

/* The copies of x into t: paid once however many uses ask (SPEC 3.6). One
 * source: a cost on x or an edge to it; several: a node "x has a copy in
 * t" (0: no, 1: yes) that each asking choice requires. */
static void copies_to(Assign *A, Val *x, const LyTypeImpl *t, int *keys) {
  int nkeys = 0;
  for (int d = x->demands; d >= 0; d = A->dem[d].next) {
    const Demand *e = &A->dem[d];
    int key = e->constant ? -1 : e->self ? -2 : e->node;
    bool seen = false;
    for (int i = 0; i < nkeys; i++)
      seen |= keys[i] == key;
    if (!seen && asks_ever(A, e, t))
      keys[nkeys++] = key;
  }
  int n = x->c.n;
  int64_t cost[MAX_CANDS];
  for (int l = 0; l < n; l++)
    cost[l] = copy_cost(A, x->c.t[l], t);
  if (nkeys == 1 && keys[0] < 0) {
    for (int l = 0; l < n; l++)
      if (keys[0] == -1 || source_asks(A, x, -2, l, t))
        lypq_add_cost(A->g, x->node, l, cost[l]);
    return;
  }
  if (nkeys == 1) {
    int u = keys[0], nu = lypq_node_size(A->g, u);
    int64_t *m = ly_malloc((size_t)(n * nu) * sizeof *m);
    if (!m) {
      A->oom = true;
      return;
    }
    for (int l = 0; l < n; l++)
      for (int k = 0; k < nu; k++)
        m[l * nu + k] = source_asks(A, x, u, k, t) ? cost[l] : 0;
    add_edge(A, x->node, u, m);
    ly_free(m);
    return;
  }
  bool constant = false, self = false;
  for (int i = 0; i < nkeys; i++)
    constant |= keys[i] == -1, self |= keys[i] == -2;
  int y = new_node(A, 2);
  if (y < 0 || !note_copy_node(A, y, x, t))
    return;
  if (constant)
    lypq_add_cost(A->g, y, 0, LYPQ_INF);
  int64_t mx[2 * MAX_CANDS];
  for (int l = 0; l < n; l++) {
    mx[2 * l] = self && source_asks(A, x, -2, l, t) ? LYPQ_INF : 0;
    mx[2 * l + 1] = cost[l];
  }
  add_edge(A, x->node, y, mx);
  for (int i = 0; i < nkeys; i++) {
    if (keys[i] < 0)
      continue;
    int nu = lypq_node_size(A->g, keys[i]);
    int64_t *m = ly_malloc((size_t)(2 * nu) * sizeof *m);
    if (!m) {
      A->oom = true;
      return;
    }
    for (int k = 0; k < nu; k++) {
      m[2 * k] = source_asks(A, x, keys[i], k, t) ? LYPQ_INF : 0;
      m[2 * k + 1] = 0;
    }
    add_edge(A, keys[i], y, m);
    ly_free(m);
  }
}

/* Every layout some use of x may ask for. */
static void build_copies(Assign *A, Val *x) {
  size_t total = 1;
  for (int d = x->demands; d >= 0; d = A->dem[d].next)
    total += A->dem[d].constant ? 1 : A->dem[d].self ? (size_t)x->c.n : (size_t)lypq_node_size(A->g, A->dem[d].node);
  const LyTypeImpl **seen = ly_malloc(total * sizeof *seen);
  int *keys = ly_malloc(total * sizeof *keys);
  if (!seen || !keys) {
    ly_free(seen);
    ly_free(keys);
    A->oom = true;
    return;
  }
  int nseen = 0;
  for (int d = x->demands; d >= 0; d = A->dem[d].next) {
    const Demand *e = &A->dem[d];
    int n = e->constant ? 1 : e->self ? x->c.n : lypq_node_size(A->g, e->node);
    for (int k = 0; k < n; k++) {
      const LyTypeImpl *t = e->t[k];
      bool dup = !t || (x->fixed && t == x->c.t[0]);
      for (int i = 0; i < nseen && !dup; i++)
        dup = seen[i] == t;
      if (dup)
        continue;
      seen[nseen++] = t;
      copies_to(A, x, t, keys);
    }
  }
  ly_free(seen);
  ly_free(keys);
}

/* --- Rewriting ---------------------------------------------------------------------- */

typedef struct {
  PtrMap repl;   /* value -> the value that replaces it (a removed relayout) */
  PtrMap copies; /* (value, layout) -> its copy */
} Rewrite;

static void explain_types(Assign *A, const LyirOp *op, const char *fmt, const LyTypeImpl *a, const LyTypeImpl *b,
                          int64_t n) {
  if (!(A->flags & LY_PASS_EXPLAIN))
    return;
  LyBuf x, y;
  ly_buf_init(&x);
  ly_buf_init(&y);
  lyir_type_str(a, &x);
  if (b)
    lyir_type_str(b, &y);
  lyir_note(A->m, op->loc, fmt, lyir_op_name(op->kind), ly_buf_cstr(&x), ly_buf_cstr(&y), n);
  ly_buf_free(&x);
  ly_buf_free(&y);
}

/* Where a copy of v goes so that every later use sees it: before op, or
 * before the op holding op's region in v's block (out of the region). */
static LyirOp *copy_site(LyirOp *op, const LyirValue *v) {
  LyirOp *at = lyir_op_ancestor_in(op, lyir_value_block(v));
  LY_ASSERT(at); /* the verifier checked that v is in scope at op */
  return at;
}

/* Operand i of op in layout t: through the copy of the value into t, made
 * before op (or the region op around it, copy_site) if there is none yet:
 * it then precedes every later use. */
static void need(Assign *A, Rewrite *w, LyirOp *op, int i, const LyTypeImpl *t) {
  LyirValue *v = op->operands[i];
  if (!t || t == v->type)
    return;
  LyirValue *c = map_get(&w->copies, v, t);
  if (!c) {
    LyirOp *copy = lyir_op_create_unary(A->m, LYIR_OP_RELAYOUT, op->loc, v, t);
    if (!copy || !map_put(&w->copies, v, t, copy->results[0])) {
      A->oom = true;
      return;
    }
    lyir_op_insert_before(A->f, copy_site(op, v), copy);
    c = copy->results[0];
    explain_types(A, op, "'%s' needs an operand in %s: a relayout from %s (%" PRId64 " bytes, shared by every use that needs it)",
                  t, v->type, copy_cost(A, v->type, t));
  }
  op->operands[i] = c;
}

/* A relayout to the layout its operand has vanishes; one that repeats an
 * earlier copy of the same value into the same layout reuses it. The first
 * one, in a region, moves out to the operand's block (copy_site), so that
 * the later uses it serves see it. */
static void relayout(Assign *A, Rewrite *w, LyirOp *op) {
  LyirValue *v = op->operands[0], *r = op->results[0];
  LyirValue *same = r->type == v->type ? v : map_get(&w->copies, v, r->type);
  if (!same) {
    LyirOp *at = copy_site(op, v);
    if (at != op) {
      lyir_op_remove(A->f, op);
      lyir_op_insert_before(A->f, at, op);
    }
    if (!map_put(&w->copies, v, r->type, r))
      A->oom = true;
    return;
  }
  if (!map_put(&w->repl, r, NULL, same))
    A->oom = true;
  if (same == v)
    explain_types(A, op, "'%s' is removed: its operand already is %s%s", v->type, NULL, 0);
  lyir_op_remove(A->f, op);
}

static void rewrite_uses(Assign *A) {
  Rewrite w = {0};
  for (LyirOp *op = A->f->first, *next; op && !A->oom; op = next) {
    next = lyir_op_walk_next(op);
    for (int i = 0; i < op->noperands; i++)
      for (LyirValue *r; (r = map_get(&w.repl, op->operands[i], NULL));)
        op->operands[i] = r;
    if (op->kind == LYIR_OP_RELAYOUT) {
      relayout(A, &w, op);
    } else if (variants_of(op)) {
      for (int i = 0; i < op->noperands; i++)
        need(A, &w, op, i, variant_layout(A, op, 0, i));
    } else if (is_elementwise(op)) {
      for (int i = 0; i < op->noperands; i++)
        if (same_dims(op->operands[i]->type, op->results[0]->type))
          need(A, &w, op, i, same_layout(A, op->results[0]->type, op->operands[i]->type));
    } else if (op->kind == LYIR_OP_RETURN) {
      for (int i = 0; i < op->noperands; i++) {
        if (A->f->result_types[i]->kind != LYD_ANY)
          need(A, &w, op, i, A->f->result_types[i]);
        else
          A->f->result_types[i] = op->operands[i]->type;
      }
    }
  }
  map_free(&w.repl);
  map_free(&w.copies);
}

/* The chosen variant k becomes the only one: the output says which
 * implementation runs, and a second run has nothing to choose. */
static void keep_variant(Assign *A, LyirOp *op, int k) {
  for (int i = 0; i < op->nattrs; i++)
    if (op->attrs[i].name.len == 8 && !memcmp(op->attrs[i].name.s, "variants", 8)) {
      LyirAttrValue *v = &op->attrs[i].value;
      if (A->flags & LY_PASS_EXPLAIN && v->n > 1)
        lyir_note(A->m, op->loc,
                  "'layout.op' takes variant #%d of %d (cost %" PRId64 "): with the relayouts it needs, it is part of "
                  "the least total cost",
                  k, v->n, variant_cost(op, k));
      v->elems = &v->elems[k];
      v->n = 1;
    }
}

/* The cost of SPEC 3.6, read off the output. */
static int64_t output_cost(Assign *A, int64_t *relayouts, int64_t *variants) {
  *relayouts = *variants = 0;
  for (const LyirOp *op = A->f->first; op; op = lyir_op_walk_next(op)) {
    if (op->kind == LYIR_OP_RELAYOUT)
      *relayouts = lypq_add(*relayouts, copy_cost(A, op->operands[0]->type, op->results[0]->type));
    else if (variants_of(op))
      *variants = lypq_add(*variants, variant_cost(op, 0));
  }
  return lypq_add(*relayouts, *variants);
}

static LyStatus apply(Assign *A, const int *sel) {
  for (int i = 0; i < A->nvals; i++) {
    Val *x = &A->vals[i];
    if (x->v->type->kind == LYD_ANY && !x->view_res)
      x->v->type = x->c.t[sel[x->node]];
  }
  for (int o = 0; o < A->nops; o++)
    if (A->opnode[o] >= 0)
      keep_variant(A, A->ops[o], sel[A->opnode[o]]);
  LyStatus st = lypass_legalize_func(A->m, A->f, A->flags & (LY_PASS_EXPLAIN | LY_PASS_STRIDED_VIEWS));
  if (st != LY_OK)
    return st;
  for (int i = 0; i < A->nvals; i++) {
    const Val *x = &A->vals[i];
    /* The legalizer must have done what the model predicted. */
    LY_ASSERT(!x->view_res || x->v->type == x->c.t[sel[x->node]]);
  }
  rewrite_uses(A);
  return A->oom ? LY_ERROR_NOMEM : LY_OK;
}

/* --- Dumping the PBQP (lyModuleSetPbqpDump; the format is in docs/passes.md) ------- */

/* Hands the line in b to the dump and empties b. */
static void dump_flush(Assign *A, LyBuf *b) {
  if (b->oom)
    A->oom = true;
  else if (b->len)
    A->m->pbqp_dump(b->data, b->len, A->m->pbqp_dump_user);
  b->len = 0;
}

static void dump_cost(LyBuf *b, int64_t c) {
  if (c >= LYPQ_INF)
    ly_buf_puts(b, " inf");
  else
    ly_buf_printf(b, " %" PRId64, c);
}

static void dump_name(LyBuf *b, const LyirValue *v) { ly_buf_printf(b, "%%%.*s", v->name.len, v->name.s); }

/* The label after a node's costs: what the node chooses. */
static void dump_label(Assign *A, LyBuf *b, int x, const int *value_of, const int *op_of, const int *copy_of) {
  if (value_of[x] >= 0) {
    ly_buf_puts(b, " ; value ");
    dump_name(b, A->vals[value_of[x]].v);
  } else if (op_of[x] >= 0) {
    const LyirOp *op = A->ops[op_of[x]];
    ly_buf_puts(b, " ; variants ");
    if (op->nresults)
      dump_name(b, op->results[0]);
    else
      ly_buf_printf(b, "@%d:%d", op->loc.line, op->loc.col);
  } else if (copy_of[x] >= 0) {
    const CopyNode *c = &A->copy_nodes[copy_of[x]];
    ly_buf_puts(b, " ; copy ");
    dump_name(b, A->vals[c->value].v);
    ly_buf_puts(b, " ");
    lyir_type_str(c->t, b);
  }
}

/* The instance, before solving consumes it: nodes with their costs and
 * label, the candidate layouts of value nodes, then the edges. */
static void dump_instance(Assign *A) {
  int n = lypq_node_count(A->g), ne = lypq_edge_count(A->g);
  int *value_of = aalloc(A, 3 * (size_t)n * sizeof *value_of), *op_of = value_of + n, *copy_of = op_of + n;
  if (!value_of)
    return;
  for (int x = 0; x < 3 * n; x++)
    value_of[x] = -1;
  for (int i = 0; i < A->nvals; i++)
    if (A->vals[i].node >= 0)
      value_of[A->vals[i].node] = i;
  for (int o = 0; o < A->nops; o++)
    if (A->opnode[o] >= 0)
      op_of[A->opnode[o]] = o;
  for (int k = 0; k < A->ncopy_nodes; k++)
    copy_of[A->copy_nodes[k].node] = k;
  LyBuf b;
  ly_buf_init(&b);
  ly_buf_printf(&b, "pbqp @%.*s nodes %d edges %d\n", A->f->name.len, A->f->name.s, n, ne);
  for (int x = 0; x < n; x++) {
    int nc = lypq_node_size(A->g, x);
    const int64_t *c = lypq_node_costs(A->g, x);
    ly_buf_printf(&b, "node %d %d", x, nc);
    for (int i = 0; i < nc; i++)
      dump_cost(&b, c[i]);
    dump_label(A, &b, x, value_of, op_of, copy_of);
    ly_buf_puts(&b, "\n");
    for (int i = 0; value_of[x] >= 0 && i < nc; i++) {
      ly_buf_printf(&b, "layout %d %d ", x, i);
      lyir_type_str(A->vals[value_of[x]].c.t[i], &b);
      ly_buf_puts(&b, "\n");
    }
    dump_flush(A, &b);
  }
  for (int e = 0; e < ne; e++) {
    int u, v;
    const int64_t *m = lypq_edge_matrix(A->g, e, &u, &v);
    ly_buf_printf(&b, "edge %d %d", u, v);
    for (int i = 0; i < lypq_node_size(A->g, u) * lypq_node_size(A->g, v); i++)
      dump_cost(&b, m[i]);
    ly_buf_puts(&b, "\n");
    dump_flush(A, &b);
  }
  ly_buf_free(&b);
}

/* The answer: the selection (NULL when nothing is feasible), the cost the
 * solver gives it, the cost of the output, the bound and how it was found. */
static void dump_answer(Assign *A, const int *sel, const LypqResult *r, int64_t output) {
  LyBuf b;
  ly_buf_init(&b);
  if (sel) {
    ly_buf_puts(&b, "select");
    for (int x = 0; x < A->nnodes; x++)
      ly_buf_printf(&b, " %d", sel[x]);
    ly_buf_puts(&b, "\ncost");
    dump_cost(&b, r->cost);
    ly_buf_puts(&b, "\noutput-cost");
    dump_cost(&b, output);
    ly_buf_puts(&b, "\n");
  }
  const char *how = A->flags & LY_PASS_ASSIGN_GREEDY      ? "greedy"
                    : A->flags & LY_PASS_ASSIGN_ROW_MAJOR ? "row-major"
                    : !sel                                 ? "infeasible"
                    : r->optimal                           ? "proven-optimal"
                                                           : "not-proven";
  ly_buf_puts(&b, "lower-bound");
  dump_cost(&b, r->lower_bound); /* the greedy baseline's is 0 */
  ly_buf_printf(&b, "\nstatus %s\nend\n", how);
  dump_flush(A, &b);
  ly_buf_free(&b);
}

/* --- The pass --------------------------------------------------------------------- */

/* Ops in regions take part like top-level ones, in print order; the block
 * arguments of an op's regions are indexed with its results. */
static bool index_func(Assign *A) {
  int nv = A->f->nargs, no = 0;
  for (const LyirOp *op = A->f->first; op; op = lyir_op_walk_next(op)) {
    nv += op->nresults, no++;
    for (int r = 0; r < op->nregions; r++)
      nv += op->regions[r]->nargs;
  }
  A->vals = aalloc(A, (size_t)nv * sizeof *A->vals);
  A->ops = aalloc(A, (size_t)no * sizeof *A->ops);
  A->opnode = aalloc(A, (size_t)no * sizeof *A->opnode);
  A->opfirst = aalloc(A, (size_t)(no + 1) * sizeof *A->opfirst);
  if (A->oom)
    return false;
  for (int i = 0; i < A->f->nargs; i++)
    A->vals[A->nvals++] = (Val){.v = A->f->args[i], .node = -1, .demands = -1};
  for (LyirOp *op = A->f->first; op; op = lyir_op_walk_next(op)) {
    A->ops[A->nops++] = op;
    for (int j = 0; j < op->nresults; j++)
      A->vals[A->nvals++] = (Val){.v = op->results[j], .node = -1, .demands = -1};
    for (int r = 0; r < op->nregions; r++)
      for (int j = 0; j < op->regions[r]->nargs; j++)
        A->vals[A->nvals++] = (Val){.v = op->regions[r]->args[j], .node = -1, .demands = -1};
  }
  for (int i = 0; i < A->nvals; i++)
    A->vals[i].v->print_id = (unsigned)i; /* the printer's scratch, ours until it prints */
  /* A relayout between two equal declared types will vanish: its result is
   * its operand, whose copies its uses then share. */
  for (int o = 0; o < A->nops; o++) {
    const LyirOp *op = A->ops[o];
    if (op->kind == LYIR_OP_RELAYOUT && op->results[0]->type == op->operands[0]->type &&
        op->results[0]->type->kind != LYD_ANY)
      op->results[0]->print_id = op->operands[0]->print_id;
  }
  return true;
}

/* The baseline of every value the pass may choose row-major. */
static void force_row_major(Assign *A) {
  for (int i = 0; i < A->nvals; i++) {
    Val *x = &A->vals[i];
    if (x->fixed || x->view_res || (x->v->def && variants_of(x->v->def)))
      continue;
    const LyTypeImpl *rm = row_major(A, x->v->type);
    for (int l = 0; l < x->c.n; l++)
      if (x->c.t[l] != rm)
        lypq_add_cost(A->g, x->node, l, LYPQ_INF);
  }
}

static void remark(Assign *A, const LypqResult *r, int64_t model) {
  int64_t rel, var, total = output_cost(A, &rel, &var);
  const char *mode = A->flags & LY_PASS_ASSIGN_GREEDY ? " (greedy)" : A->flags & LY_PASS_ASSIGN_ROW_MAJOR ? " (row-major)" : "";
  bool exact = !(A->flags & (LY_PASS_ASSIGN_GREEDY | LY_PASS_ASSIGN_ROW_MAJOR));
  /* The output costs what the model says, or less: a relayout that a
   * choice made vanish lets its uses share its operand's copies, which the
   * model counts apart (docs/passes.md). */
  LY_ASSERT(total <= model || !exact);
  if (exact && !r->optimal && !r->branches)
    lyir_note(A->m, A->f->loc,
              "assign-layouts: '@%.*s' is not proven optimal: its irreducible part (%d nodes) is too large to "
              "branch on within the search budget, so the RN heuristic chose it (cost %" PRId64 ", lower bound %" PRId64
              ")",
              A->f->name.len, A->f->name.s, r->core, total, r->lower_bound);
  else if (exact && !r->optimal)
    lyir_note(A->m, A->f->loc,
              "assign-layouts: '@%.*s' is not proven optimal: branch and bound stopped at its budget after %ld "
              "branches, and the best selection it found, after local search, is kept (cost %" PRId64
              ", lower bound %" PRId64 ")",
              A->f->name.len, A->f->name.s, r->branches, total, r->lower_bound);
  if (!(A->flags & LY_PASS_EXPLAIN))
    return;
  if (exact)
    lyir_note(A->m, A->f->loc,
              "assign-layouts: total cost %" PRId64 " (relayout bytes %" PRId64 ", variants %" PRId64
              "); lower bound %" PRId64 "; %s (%d nodes, %d after reductions, %ld branches)",
              total, rel, var, r->lower_bound, r->optimal ? "proven optimal" : "not proven optimal", A->nnodes,
              r->core, r->branches);
  else
    lyir_note(A->m, A->f->loc,
              "assign-layouts%s: total cost %" PRId64 " (relayout bytes %" PRId64 ", variants %" PRId64 ")", mode,
              total, rel, var);
}

static LyStatus solve_and_apply(Assign *A) {
  int *sel = ly_malloc((size_t)A->nnodes * sizeof *sel + 1);
  if (!sel)
    return LY_ERROR_NOMEM;
  LypqResult r;
  LyStatus st = LY_OK;
  if (A->m->pbqp_dump)
    dump_instance(A);
  if (A->oom) {
    ly_free(sel);
    return LY_ERROR_NOMEM;
  }
  if (A->flags & LY_PASS_ASSIGN_GREEDY) {
    const int *order = greedy_order(A);
    if (!order) {
      ly_free(sel);
      return LY_ERROR_NOMEM;
    }
    lypq_solve_greedy(A->g, order, sel, &r);
  }
  else
    st = lypq_solve(A->g, LYPQ_DEFAULT_BUDGET, sel, &r);
  if (st == LY_OK && r.cost >= LYPQ_INF) {
    lyir_error(A->m, A->f->loc,
               "no layout assignment of '@%.*s' meets its constraints (declared layouts, variants and elementwise "
               "ties contradict each other)",
               A->f->name.len, A->f->name.s);
    st = LY_ERROR_INVALID;
  }
  if (st == LY_OK)
    st = apply(A, sel);
  if (st == LY_OK)
    remark(A, &r, r.cost);
  if (A->m->pbqp_dump && (st == LY_OK || (st == LY_ERROR_INVALID && r.cost >= LYPQ_INF))) {
    int64_t rel, var;
    dump_answer(A, st == LY_OK ? sel : NULL, &r, output_cost(A, &rel, &var));
  }
  ly_free(sel);
  return st;
}

static void any_error(LyirModule *m, LyLoc at, const char *what, int i, const LyirOp *op) {
  lyir_error(m, at, "%s #%d of '%.*s' has layout 'any': layoutc does not know how an op with regions ties its "
             "regions' arguments to its operands and results, so it cannot choose this layout; write the layout",
             what, i, op->foreign.len, op->foreign.s);
}

/* The values of ops with regions (their operands, results and block
 * arguments) must have their layouts written. */
static bool check_regions(LyirModule *m, LyirFunc *f) {
  bool ok = true;
  for (const LyirOp *op = f->first; op; op = lyir_op_walk_next(op)) {
    for (int i = 0; op->nregions && i < op->noperands; i++)
      if (op->operands[i]->type->kind == LYD_ANY)
        any_error(m, op->operand_locs[i], "operand", i, op), ok = false;
    for (int i = 0; op->nregions && i < op->nresults; i++)
      if (op->results[i]->type->kind == LYD_ANY)
        any_error(m, op->result_type_locs[i], "result", i, op), ok = false;
    for (int r = 0; r < op->nregions; r++)
      for (int i = 0; i < op->regions[r]->nargs; i++)
        if (op->regions[r]->args[i]->type->kind == LYD_ANY) {
          lyir_error(m, op->regions[r]->args[i]->loc, "block argument #%d of region #%d of '%.*s' has layout 'any': "
                     "layoutc does not know how the op ties it to its operands and results, so it cannot choose "
                     "this layout; write the layout", i, r, op->foreign.len, op->foreign.s);
          ok = false;
        }
  }
  return ok;
}

static LyStatus assign_func(LyirModule *m, LyirFunc *f, unsigned flags) {
  if (!check_regions(m, f))
    return LY_ERROR_INVALID;
  Assign A = {.m = m, .ctx = {m->ctx}, .f = f, .flags = flags};
  ly_arena_init(&A.arena);
  LyStatus st = LY_ERROR_NOMEM;
  if (index_func(&A)) {
    collect_mentions(&A);
    initial_cands(&A);
    transport(&A);
    A.g = A.oom ? NULL : lypq_create();
    if (A.g) {
      build_ops(&A);
      for (int i = 0; i < A.nvals && !A.oom; i++)
        build_copies(&A, &A.vals[i]);
      if (flags & LY_PASS_ASSIGN_ROW_MAJOR)
        force_row_major(&A);
      st = A.oom ? LY_ERROR_NOMEM : solve_and_apply(&A);
    }
  }
  lypq_destroy(A.g);
  map_free(&A.plans);
  map_free(&A.memo);
  ly_free(A.dem);
  ly_free(A.copy_nodes);
  ly_arena_free(&A.arena);
  return st;
}

LyStatus lypass_assign_layouts(LyirModule *m, unsigned flags) {
  for (LyirFunc *f = m->first; f; f = f->next) {
    if (f->decl)
      continue; /* a declaration's signature belongs to its definition, elsewhere */
    LyStatus st = assign_func(m, f, flags);
    if (st != LY_OK)
      return st;
  }
  return LY_OK;
}
