/* ir: modules, functions, ops and values in the module arena; the op-name
 * table; the name hash table used for SSA scopes. */
#include "ir/ir.h"

#include <string.h>

static const char *const op_names[LYIR_OP_COUNT] = {
    [LYIR_OP_RESHAPE] = "layout.reshape",     [LYIR_OP_TRANSPOSE] = "layout.transpose",
    [LYIR_OP_SLICE] = "layout.slice",         [LYIR_OP_BROADCAST] = "layout.broadcast",
    [LYIR_OP_RELAYOUT] = "layout.relayout",   [LYIR_OP_VIEW] = "layout.view",
    [LYIR_OP_COMPUTE] = "layout.op",          [LYIR_OP_RETURN] = "func.return",
};

const char *lyir_op_name(LyirOpKind k) {
  LY_ASSERT((unsigned)k < LYIR_OP_COUNT);
  return op_names[k];
}

LyirOpKind lyir_op_lookup(const char *name, int len) {
  for (int k = 0; k < LYIR_OP_COUNT; k++)
    if ((int)strlen(op_names[k]) == len && !memcmp(op_names[k], name, (size_t)len))
      return (LyirOpKind)k;
  return LYIR_OP_COUNT;
}

/* --- Module ----------------------------------------------------------------- */

LyirModule *lyir_module_create(LyCtx *ctx, const char *name, const char *text, size_t len) {
  LyirModule *m = ly_malloc(sizeof *m);
  if (!m)
    return NULL;
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
  ly_arena_init(&m->arena);
  const char *n = name ? name : "<input>";
  m->src.name = ly_arena_strndup(&m->arena, n, strlen(n));
  m->src.text = ly_arena_strndup(&m->arena, text, len);
  m->src.len = len;
  if (!m->src.name || !m->src.text) {
    lyir_module_destroy(m);
    return NULL;
  }
  return m;
}

void lyir_module_destroy(LyirModule *m) {
  if (!m)
    return;
  lyir_layout_memo_free(m);
  ly_arena_free(&m->arena);
  ly_free(m);
}

void *lyir_alloc(LyirModule *m, size_t n) { return ly_arena_alloc(&m->arena, n); }

LyirFunc *lyir_func_create(LyirModule *m, LyirStr name, LyLoc loc) {
  LyirFunc *f = lyir_alloc(m, sizeof *f);
  if (f)
    f->name = name, f->loc = loc, f->module = m;
  return f;
}

void lyir_func_append(LyirModule *m, LyirFunc *f) {
  if (m->last)
    m->last->next = f;
  else
    m->first = f;
  m->last = f;
}

static bool all_digits(LyirStr s) {
  for (int i = 0; i < s.len; i++)
    if (s.s[i] < '0' || s.s[i] > '9')
      return false;
  return true;
}

LyirValue *lyir_value_create(LyirModule *m, const LyTypeImpl *type, LyirStr name, LyLoc loc) {
  LyirValue *v = lyir_alloc(m, sizeof *v);
  if (!v)
    return NULL;
  v->type = type;
  v->name = name;
  v->numbered = all_digits(name); /* includes the empty name */
  v->loc = loc;
  return v;
}

/* --- Ops -------------------------------------------------------------------- */

LyirOp *lyir_op_create(LyirModule *m, LyirOpKind kind, LyLoc loc, int noperands, int nresults, int nattrs) {
  LyirOp *op = lyir_alloc(m, sizeof *op);
  if (!op)
    return NULL;
  op->kind = kind;
  op->module = m;
  op->loc = op->name_loc = loc;
  op->noperands = noperands, op->nresults = nresults, op->nattrs = nattrs;
  /* Arena allocations of size 0 still return a distinct block: no NULLs. */
  op->operands = lyir_alloc(m, (size_t)noperands * sizeof *op->operands);
  op->operand_locs = lyir_alloc(m, (size_t)noperands * sizeof *op->operand_locs);
  op->results = lyir_alloc(m, (size_t)nresults * sizeof *op->results);
  op->result_type_locs = lyir_alloc(m, (size_t)nresults * sizeof *op->result_type_locs);
  op->attrs = lyir_alloc(m, (size_t)nattrs * sizeof *op->attrs);
  if (!op->operands || !op->operand_locs || !op->results || !op->result_type_locs || !op->attrs)
    return NULL;
  return op;
}

LyirOp *lyir_op_create_unary(LyirModule *m, LyirOpKind kind, LyLoc loc, LyirValue *operand, const LyTypeImpl *t) {
  LyirOp *op = lyir_op_create(m, kind, loc, 1, 1, 0);
  LyirValue *v = op ? lyir_value_create(m, t, (LyirStr){NULL, 0}, loc) : NULL;
  if (!v)
    return NULL;
  op->operands[0] = operand;
  op->operand_locs[0] = loc;
  op->results[0] = v;
  op->result_type_locs[0] = loc;
  v->def = op;
  return op;
}

/* The ends of the list that holds op: its region's block, else f's body. */
static LyirOp **first_of(LyirFunc *f, LyirBlock *b) { return b ? &b->first : &f->first; }
static LyirOp **last_of(LyirFunc *f, LyirBlock *b) { return b ? &b->last : &f->last; }

static void link_last(LyirOp **first, LyirOp **last, LyirOp *op) {
  op->prev = *last;
  op->next = NULL;
  if (*last)
    (*last)->next = op;
  else
    *first = op;
  *last = op;
}

void lyir_op_append(LyirFunc *f, LyirOp *op) {
  op->block = NULL;
  link_last(&f->first, &f->last, op);
}

void lyir_block_append(LyirBlock *b, LyirOp *op) {
  op->block = b;
  link_last(&b->first, &b->last, op);
}

void lyir_op_insert_before(LyirFunc *f, LyirOp *pos, LyirOp *op) {
  op->block = pos->block;
  op->next = pos;
  op->prev = pos->prev;
  if (pos->prev)
    pos->prev->next = op;
  else
    *first_of(f, pos->block) = op;
  pos->prev = op;
}

void lyir_op_insert_after(LyirFunc *f, LyirOp *pos, LyirOp *op) {
  if (pos->next) {
    lyir_op_insert_before(f, pos->next, op);
  } else {
    op->block = pos->block;
    link_last(first_of(f, pos->block), last_of(f, pos->block), op);
  }
}

void lyir_op_remove(LyirFunc *f, LyirOp *op) {
  if (op->prev)
    op->prev->next = op->next;
  else
    *first_of(f, op->block) = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    *last_of(f, op->block) = op->prev;
  op->prev = op->next = NULL;
}

/* The first op of op's regions from region r on, or NULL. */
static LyirOp *first_nested(const LyirOp *op, int r) {
  for (; r < op->nregions; r++)
    if (op->regions[r]->first)
      return op->regions[r]->first;
  return NULL;
}

LyirOp *lyir_op_walk_next(const LyirOp *op) {
  LyirOp *n = first_nested(op, 0);
  if (n)
    return n;
  for (; op; op = op->block ? op->block->parent : NULL) {
    if (op->next)
      return op->next;
    if (!op->block)
      return NULL;
    const LyirOp *parent = op->block->parent;
    int r = 0;
    while (parent->regions[r] != op->block)
      r++;
    if ((n = first_nested(parent, r + 1)))
      return n;
  }
  return NULL;
}

LyirBlock *lyir_value_block(const LyirValue *v) { return v->def ? v->def->block : v->block; }

LyirOp *lyir_op_ancestor_in(LyirOp *op, const LyirBlock *b) {
  while (op && op->block != b)
    op = op->block ? op->block->parent : NULL;
  return op;
}

/* A foreign op's attributes are its own: layoutc reads none of them (an
 * unknown op is opaque compute without constraints). */
const LyirAttr *lyir_op_attr(const LyirOp *op, const char *name) {
  if (op->foreign.len)
    return NULL;
  int len = (int)strlen(name);
  for (int i = 0; i < op->nattrs; i++)
    if (op->attrs[i].name.len == len && !memcmp(op->attrs[i].name.s, name, (size_t)len))
      return &op->attrs[i];
  return NULL;
}

/* --- Symbol tables: open addressing, linear probing, load <= 1/2 ------------ */

void lyir_symtab_init(LyirSymtab *t) { memset(t, 0, sizeof *t); }

void lyir_symtab_free(LyirSymtab *t) {
  ly_free(t->slots);
  lyir_symtab_init(t);
}

static size_t str_hash(LyirStr k) { return (size_t)ly_hash_bytes(LY_HASH_INIT, k.s, (size_t)k.len); }

static bool str_eq(LyirStr a, LyirStr b) { return a.len == b.len && !memcmp(a.s, b.s, (size_t)a.len); }

static LyirSym *probe(LyirSym *slots, size_t cap, LyirStr key) {
  size_t i = str_hash(key) & (cap - 1);
  while (slots[i].key.s && !str_eq(slots[i].key, key))
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

void *lyir_symtab_find(const LyirSymtab *t, LyirStr key) {
  if (!t->cap)
    return NULL;
  return probe(t->slots, t->cap, key)->val;
}

static bool symtab_grow(LyirSymtab *t) {
  size_t cap = t->cap ? t->cap * 2 : 64;
  LyirSym *slots = ly_malloc(cap * sizeof *slots);
  if (!slots)
    return false;
  memset(slots, 0, cap * sizeof *slots);
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].key.s)
      *probe(slots, cap, t->slots[i].key) = t->slots[i];
  ly_free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

bool lyir_symtab_add(LyirSymtab *t, LyirStr key, void *val) {
  LY_ASSERT(key.s != NULL);
  if (2 * (t->count + 1) > t->cap && !symtab_grow(t))
    return false;
  LyirSym *s = probe(t->slots, t->cap, key);
  if (!s->key.s) {
    *s = (LyirSym){key, val};
    t->count++;
  } else if (!s->val) {
    s->val = val; /* a hidden name defined again */
  }
  return true;
}

void lyir_symtab_hide(LyirSymtab *t, LyirStr key) {
  if (t->cap) {
    LyirSym *s = probe(t->slots, t->cap, key);
    if (s->key.s)
      s->val = NULL;
  }
}

/* --- Diagnostics ------------------------------------------------------------ */

void lyir_error(LyirModule *m, LyLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&m->ctx->diag, LY_SEVERITY_ERROR, &m->src, loc, fmt, ap);
  va_end(ap);
}

void lyir_note(LyirModule *m, LyLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&m->ctx->diag, LY_SEVERITY_NOTE, &m->src, loc, fmt, ap);
  va_end(ap);
}

void lyir_type_str(const LyTypeImpl *t, LyBuf *out) { lyd_print(t, out); }
