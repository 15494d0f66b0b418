/* desc/blob: a type as bytes (oneDNN's memory-descriptor blob): versioned,
 * little-endian, the fields of the interned descriptor. Reading one checks
 * every field's range, rebuilds the type through its textual spelling (so a
 * blob passes the same validation as text) and requires the blob to be the
 * rebuilt type's own bytes: a blob means exactly one type or is an error at
 * a byte offset. Layout in docs/capi.md (blobs). */
#include "desc/desc.h"

#include <string.h>

#define BLOB_MAGIC "LYTB"
#define BLOB_VERSION 1
#define BLOB_MAX (1u << 20) /* no valid type comes near */

/* --- Writing ------------------------------------------------------------------ */

static void put_u8(LyBuf *b, unsigned v) {
  char c = (char)v;
  ly_buf_put(b, &c, 1);
}

static void put_i64(LyBuf *b, int64_t v) {
  char c[8];
  for (int i = 0; i < 8; i++)
    c[i] = (char)((uint64_t)v >> (8 * i));
  ly_buf_put(b, c, 8);
}

static void put_str(LyBuf *b, const char *s) {
  size_t n = strlen(s);
  put_i64(b, (int64_t)n);
  ly_buf_put(b, s, n);
}

static void put_digit(LyBuf *b, const LyDigit *g, int rank) {
  put_i64(b, g->stride), put_i64(b, g->div), put_i64(b, g->ext);
  put_u8(b, g->wrap);
  put_u8(b, (unsigned)(g->dim + 1)); /* 0: general */
  if (g->dim >= 0)
    return;
  for (int d = 0; d < rank; d++)
    put_i64(b, g->coef[d]);
  put_u8(b, (unsigned)g->nsub);
  for (int j = 0; j < g->nsub; j++)
    put_digit(b, &g->sub[j], rank);
}

static void put_encoding(LyBuf *b, const LyEncoding *e) {
  put_u8(b, e->kind);
  put_u8(b, (unsigned)e->nlevels);
  for (int l = 0; l < e->nlevels; l++) {
    const LyLevel *v = &e->lvl[l];
    put_u8(b, (unsigned)v->format), put_u8(b, (unsigned)v->props), put_u8(b, (unsigned)v->expr);
    put_u8(b, (unsigned)v->dim);
    put_i64(b, v->c), put_i64(b, v->n), put_i64(b, v->m);
  }
  put_u8(b, (unsigned)e->pos_width), put_u8(b, (unsigned)e->crd_width);
  put_i64(b, e->nnz);
  put_u8(b, (unsigned)e->var_dim);
  put_i64(b, e->groups);
  put_u8(b, (unsigned)e->offsets_width);
}

void lyd_serialize(const LyTypeImpl *t, LyBuf *b) {
  ly_buf_put(b, BLOB_MAGIC, 4);
  put_u8(b, BLOB_VERSION);
  put_str(b, lyElemGetName(t->elem)); /* by name: stable when element types are added */
  put_u8(b, (unsigned)t->rank);
  for (int d = 0; d < t->rank; d++)
    put_i64(b, t->dims[d]);
  put_u8(b, t->ms_str ? 2 : t->ms_num ? 1 : 0);
  if (t->ms_str)
    put_str(b, t->ms_str);
  else if (t->ms_num)
    put_i64(b, t->ms_num);
  put_u8(b, t->kind);
  switch (t->kind) {
  case LYD_DIGITS:
    put_i64(b, t->base), put_i64(b, t->alloc);
    put_u8(b, (unsigned)t->ndigits);
    for (int k = 0; k < t->ndigits; k++)
      put_digit(b, &t->digits[k], t->rank);
    break;
  case LYD_SYMBOLIC:
  case LYD_FOREIGN: put_str(b, t->symbolic); break;
  case LYD_ENCODED: put_encoding(b, t->enc); break;
  case LYD_ANY: break;
  }
}

unsigned char *lyTypeSerialize(LyType t, size_t *len) {
  LyBuf b;
  ly_buf_init(&b);
  lyd_serialize(lyd_type(t), &b);
  if (b.oom || !b.data) {
    ly_buf_free(&b);
    return NULL;
  }
  *len = b.len;
  return (unsigned char *)b.data;
}

/* --- Reading ------------------------------------------------------------------ */

typedef struct {
  const unsigned char *p;
  size_t len, off;
  const char *err; /* the first problem, at err_off */
  size_t err_off;
  LyArena *arena;
} Reader;

static bool fail(Reader *r, size_t off, const char *why) {
  if (!r->err)
    r->err = why, r->err_off = off;
  return false;
}

static bool get_u8(Reader *r, unsigned max, int *out) {
  if (r->off >= r->len)
    return fail(r, r->off, "truncated: the blob ends here");
  if (r->p[r->off] > max)
    return fail(r, r->off, "value out of range");
  *out = r->p[r->off++];
  return true;
}

static bool get_i64(Reader *r, int64_t *out) {
  if (r->len - r->off < 8)
    return fail(r, r->off, "truncated: the blob ends inside an integer");
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)r->p[r->off + i] << (8 * i);
  r->off += 8;
  *out = (int64_t)v;
  return true;
}

static bool get_range(Reader *r, int64_t lo, int64_t hi, int64_t *out) {
  size_t at = r->off;
  return get_i64(r, out) && (*out >= lo && *out <= hi ? true : fail(r, at, "value out of range"));
}

static bool get_str(Reader *r, const char **out) {
  int64_t n;
  size_t at = r->off;
  if (!get_i64(r, &n))
    return false;
  if (n < 0 || (uint64_t)n > r->len - r->off)
    return fail(r, at, "string length exceeds the blob");
  char *s = ly_arena_strndup(r->arena, (const char *)r->p + r->off, (size_t)n);
  if (!s)
    return fail(r, at, "out of memory");
  if (strlen(s) != (size_t)n)
    return fail(r, at, "string holds a NUL byte");
  r->off += (size_t)n;
  *out = s;
  return true;
}

static bool get_digit(Reader *r, LyDigit *g, int rank, int depth) {
  int wrap, dim;
  size_t at = r->off + 16;
  if (!get_i64(r, &g->stride) || !get_range(r, 1, INT64_MAX, &g->div) || !get_i64(r, &g->ext) ||
      !get_u8(r, 1, &wrap) || !get_u8(r, (unsigned)rank, &dim))
    return false;
  if ((g->ext < 1 && g->ext != LY_DYNAMIC) || (wrap && g->ext == LY_DYNAMIC)) /* '?' over a dynamic dim, unwrapped */
    return fail(r, at, "value out of range");
  g->wrap = wrap, g->dim = dim - 1;
  if (g->dim >= 0)
    return true;
  int64_t *coef = ly_arena_alloc(r->arena, LY_MAX_RANK * sizeof *coef);
  int nsub;
  if (!coef)
    return fail(r, r->off, "out of memory");
  for (int d = 0; d < rank; d++)
    if (!get_range(r, 0, INT64_MAX, &coef[d]))
      return false;
  at = r->off;
  if (!get_u8(r, LY_MAX_SUBS, &nsub))
    return false;
  if (nsub && depth == LY_MAX_DIGIT_NEST)
    return fail(r, at, "digits nested too deep");
  LyDigit *sub = nsub ? ly_arena_alloc(r->arena, (size_t)nsub * sizeof *sub) : NULL;
  if (nsub && !sub)
    return fail(r, at, "out of memory");
  for (int j = 0; j < nsub; j++)
    if (!get_digit(r, &sub[j], rank, depth + 1))
      return false;
  g->coef = coef, g->nsub = nsub, g->sub = sub;
  return true;
}

static bool get_encoding(Reader *r, LyEncoding *e, int rank) {
  int kind, n, v[4], pw, cw, vd, ow;
  if (!get_u8(r, LYE_HOST_SCALAR, &kind) || !get_u8(r, LY_MAX_RANK, &n))
    return false;
  if (kind == 0)
    return fail(r, r->off - 2, "value out of range");
  e->kind = kind, e->nlevels = n;
  for (int l = 0; l < n; l++) {
    LyLevel *x = &e->lvl[l];
    int64_t nn, mm;
    if (!get_u8(r, LY_LEVEL_N_OUT_OF_M, &v[0]) || !get_u8(r, 7, &v[1]) || !get_u8(r, LYE_EXPR_MOD, &v[2]) ||
        !get_u8(r, rank ? (unsigned)rank - 1 : 0, &v[3]) || !get_range(r, 0, INT64_MAX, &x->c) ||
        !get_range(r, 0, 1024, &nn) || !get_range(r, 0, 1024, &mm))
      return false;
    x->format = v[0], x->props = v[1], x->expr = v[2], x->dim = v[3], x->n = (int)nn, x->m = (int)mm;
    if ((x->expr != LYE_EXPR_DIM && x->c < 1) || (x->format == LY_LEVEL_N_OUT_OF_M && (x->m < 1 || x->n < 1)))
      return fail(r, r->off - 24, "level block or structure out of range");
  }
  if (!get_u8(r, 64, &pw) || !get_u8(r, 64, &cw) || !get_range(r, LY_DYNAMIC, INT64_MAX, &e->nnz) ||
      !get_u8(r, LY_MAX_RANK, &vd) || !get_range(r, 0, INT64_MAX, &e->groups) || !get_u8(r, 64, &ow))
    return false;
  e->pos_width = pw, e->crd_width = cw, e->var_dim = vd, e->offsets_width = ow;
  return true;
}

/* The fields of a blob, range-checked (the type is not validated yet). */
static bool decode(Reader *r, LyTypeImpl *t, LyDigit *g) {
  const char *elem;
  int v, kind;
  if (r->len < 4 || memcmp(r->p, BLOB_MAGIC, 4))
    return fail(r, 0, "bad magic: not a layoutc type blob");
  r->off = 4;
  if (!get_u8(r, 255, &v))
    return false;
  if (v != BLOB_VERSION)
    return fail(r, 4, "unsupported blob version");
  size_t at = r->off;
  if (!get_str(r, &elem))
    return false;
  for (t->elem = 0; (int)t->elem < LY_ELEM_COUNT && strcmp(lyElemGetName(t->elem), elem); t->elem++)
    ;
  if ((int)t->elem == LY_ELEM_COUNT)
    return fail(r, at, "unknown element type");
  if (!get_u8(r, LY_MAX_RANK, &t->rank))
    return false;
  for (int d = 0; d < t->rank; d++)
    if (!get_i64(r, &t->dims[d]) || (t->dims[d] < 0 && t->dims[d] != LY_DYNAMIC))
      return fail(r, r->off - 8, "dim out of range");
  if (!get_u8(r, 2, &v) || (v == 1 && !get_i64(r, &t->ms_num)) || (v == 2 && !get_str(r, &t->ms_str)))
    return false;
  if (!get_u8(r, LYD_FOREIGN, &kind))
    return false;
  t->kind = kind;
  if (kind == LYD_SYMBOLIC)
    return get_str(r, &t->symbolic);
  if (kind == LYD_FOREIGN) { /* an IR value's type that is not a tensor: its text, one printable line */
    size_t at = r->off;
    if (!get_str(r, &t->symbolic))
      return false;
    bool ok = t->symbolic[0] && t->rank == 0 && strncmp(t->symbolic, "tensor", 6);
    for (const char *q = t->symbolic; ok && *q; q++)
      ok = *q >= 0x20 && *q < 0x7f;
    return ok || fail(r, at, "not the text of a type");
  }
  if (kind == LYD_ENCODED) {
    LyEncoding *e = ly_arena_alloc(r->arena, sizeof *e);
    t->enc = e;
    return e ? get_encoding(r, e, t->rank) : fail(r, r->off, "out of memory");
  }
  if (kind == LYD_ANY)
    return true;
  if (!get_i64(r, &t->base) || !get_i64(r, &t->alloc) || !get_u8(r, LY_MAX_DIGITS, &t->ndigits))
    return false;
  for (int k = 0; k < t->ndigits; k++)
    if (!get_digit(r, &g[k], t->rank, 1))
      return false;
  t->digits = g;
  return true;
}

/* Parses the decoded type's spelling quietly; the first error's message in *why. */
static void capture(const LyDiagnostic *d, void *user) {
  LyBuf *b = user;
  if (d->severity == LY_SEVERITY_ERROR && !b->len)
    ly_buf_puts(b, d->message);
}

static const LyTypeImpl *rebuild(LyCtx *c, const LyTypeImpl *t, LyBuf *why) {
  if (lyd_is_foreign(t))
    return lyd_foreign(c, t->symbolic, strlen(t->symbolic));
  LyBuf text;
  ly_buf_init(&text);
  lyd_print(t, &text);
  LyDiagEngine saved = c->diag;
  c->diag.handler = capture, c->diag.user = why;
  const LyTypeImpl *r = text.oom ? NULL : lyd_type(lyTypeParse((LyContext){c}, ly_buf_cstr(&text), text.len, NULL));
  c->diag = saved;
  ly_buf_free(&text);
  return r;
}

/* The decoded digits made canonical, within the size rules: then printable. */
static bool printable(Reader *r, LyTypeImpl *t, LyDigit *g) {
  if (t->kind != LYD_DIGITS)
    return true;
  int n = lyd_canonicalize(t->rank, t->dims, g, t->ndigits, r->arena);
  if (n < 0)
    return fail(r, r->off, "out of memory");
  t->ndigits = n;
  if (lyd_check_sizes(t))
    return fail(r, 5, "the layout's sizes overflow 64 bits");
  /* The printer relies on what the builders guarantee: offsets in range. */
  int64_t lo, hi, end;
  bool exact;
  if (lyd_is_static(t) && (!lyd_offset_range(t->rank, t->dims, g, n, &lo, &hi, &exact) ||
                           !ly_add(t->base, lo, &lo) || !ly_add(t->base, hi, &end) || lo < 0 ||
                           (t->alloc && end >= t->alloc)))
    return fail(r, 5, "the layout's offsets leave its allocation");
  return true;
}

LyType lyTypeDeserialize(LyContext ctx, const void *blob, size_t len, const char *name) {
  LyCtx *c = lyd_ctx(ctx);
  LyArena arena;
  ly_arena_init(&arena);
  Reader r = {blob, len, 0, NULL, 0, &arena};
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  LyDigit *g = ly_arena_alloc(&arena, LY_MAX_DIGITS * sizeof *g);
  const LyTypeImpl *res = NULL;
  LyBuf why, back;
  ly_buf_init(&why);
  ly_buf_init(&back);
  if (!g)
    fail(&r, 0, "out of memory");
  else if (len > BLOB_MAX)
    fail(&r, BLOB_MAX, "blob larger than any type");
  else if (decode(&r, &t, g) && (r.off == len || fail(&r, r.off, "trailing bytes after the type")) &&
           printable(&r, &t, g)) {
    res = rebuild(c, &t, &why);
    if (res) { /* the blob must be the type's own bytes */
      lyd_serialize(res, &back);
      size_t i = 0;
      while (i < len && i < back.len && back.data[i] == ((const char *)blob)[i])
        i++;
      if (back.oom || i < len || back.len != len)
        res = NULL, fail(&r, i, back.oom ? "out of memory" : "not the canonical form of any type");
    } else {
      fail(&r, 5, why.len ? ly_buf_cstr(&why) : "out of memory");
    }
  }
  if (!res)
    ly_diag_emit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s: byte %zu: %s", name ? name : "<blob>",
                 r.err_off, r.err);
  ly_buf_free(&why);
  ly_buf_free(&back);
  ly_arena_free(&arena);
  return lyd_wrap(res);
}
