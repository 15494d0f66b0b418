/* desc/encoding: multi-buffer encodings (MLIR's sparse_tensor levels,
 * oneDNN's csr, coo, packed and grouped) and host scalars: validation with
 * located diagnostics, the buffers each one needs, printing, and the public
 * queries. The rules follow MLIR's SparseTensorEncodingAttr verifier. */
#include "desc/desc.h"

#include <stdio.h>
#include <string.h>

/* --- Validation ------------------------------------------------------------ */

typedef struct {
  LyCtx *ctx;
  const LyTypeAst *a;
} EncBuild;

static bool enc_error(EncBuild *b, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool enc_error(EncBuild *b, LyLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&b->ctx->diag, LY_SEVERITY_ERROR, b->a->src, loc, fmt, ap);
  va_end(ap);
  return false;
}

static const char *const format_names[] = {"dense", "compressed", "singleton", "loose_compressed", "structured"};

static bool has_crd(int f) { return f != LY_LEVEL_DENSE; }
static bool has_pos(int f) { return f == LY_LEVEL_COMPRESSED || f == LY_LEVEL_LOOSE_COMPRESSED; }

/* oneDNN's short forms as levels: csr is (d0 : dense, d1 : compressed); coo
 * is (d0 : compressed(nonunique), d1 : singleton(nonunique, soa), ...,
 * dn : singleton(soa)), with its positions as wide as its coordinates. */
static void short_levels(LyEncoding *e, bool csr, int rank) {
  e->nlevels = rank;
  for (int l = 0; l < rank; l++) {
    e->lvl[l] = (LyLevel){.dim = l};
    e->lvl[l].format = csr ? (l ? LY_LEVEL_COMPRESSED : LY_LEVEL_DENSE) : l ? LY_LEVEL_SINGLETON : LY_LEVEL_COMPRESSED;
    if (!csr)
      e->lvl[l].props = (l + 1 < rank ? LY_LEVEL_NONUNIQUE : 0) | (l ? LY_LEVEL_SOA : 0);
  }
  if (!csr)
    e->pos_width = e->crd_width;
}

/* The map is a permutation or a block map: each dim is one plain level, or a
 * `d floordiv c` level followed (later) by a `d mod c` level. */
static bool check_map(EncBuild *b, const LySpec *s, const LyEncoding *e) {
  int plain[LY_MAX_RANK] = {0}, fdiv[LY_MAX_RANK], nmod[LY_MAX_RANK] = {0};
  for (int d = 0; d < LY_MAX_RANK; d++)
    fdiv[d] = -1;
  for (int l = 0; l < e->nlevels; l++) {
    const LyLevel *v = &e->lvl[l];
    int d = v->dim;
    if ((v->expr == LYE_EXPR_DIM && (plain[d] || fdiv[d] >= 0)) || (v->expr != LYE_EXPR_DIM && plain[d]) ||
        (v->expr == LYE_EXPR_FLOORDIV && fdiv[d] >= 0) || (v->expr == LYE_EXPR_MOD && nmod[d]))
      return enc_error(b, s->lvl_expr_loc[l], "dim d%d appears twice: the map must be a permutation or a block map", d);
    if (v->expr == LYE_EXPR_MOD && (fdiv[d] < 0 || e->lvl[fdiv[d]].c != v->c))
      return enc_error(b, s->lvl_expr_loc[l], "'d%d mod %lld' needs an earlier 'd%d floordiv %lld' level (a block map)",
                       d, (long long)v->c, d, (long long)v->c);
    plain[d] |= v->expr == LYE_EXPR_DIM;
    if (v->expr == LYE_EXPR_FLOORDIV)
      fdiv[d] = l;
    nmod[d] |= v->expr == LYE_EXPR_MOD;
    int64_t n = b->a->dims[d];
    if (v->expr != LYE_EXPR_DIM && n != LY_DYNAMIC && n % v->c)
      return enc_error(b, s->lvl_expr_loc[l], "block size %lld does not divide dim %d of extent %lld", (long long)v->c,
                       d, (long long)n);
  }
  for (int d = 0; d < b->a->rank; d++)
    if (!plain[d] && (fdiv[d] < 0 || !nmod[d]))
      return enc_error(b, s->loc, fdiv[d] >= 0 ? "dim d%d has a floordiv level but no mod level: not a block map"
                                               : "dim d%d is in no level: the map must be a permutation or a block map", d);
  return true;
}

/* Level formats and properties, as MLIR checks them. */
static bool check_levels(EncBuild *b, const LySpec *s, const LyEncoding *e) {
  int region_soa = -1; /* soa of the singletons after the current compressed level */
  for (int l = 0; l < e->nlevels; l++) {
    const LyLevel *v = &e->lvl[l];
    LyLoc at = s->lvl_loc[l];
    if (v->format == LY_LEVEL_N_OUT_OF_M && !v->m)
      return enc_error(b, at, "a structured level is written structured[n, m]");
    if (v->props && (v->format == LY_LEVEL_DENSE || v->format == LY_LEVEL_N_OUT_OF_M))
      return enc_error(b, at, "a %s level takes no properties", format_names[v->format]);
    if ((v->props & LY_LEVEL_SOA) && v->format != LY_LEVEL_SINGLETON)
      return enc_error(b, at, "soa applies only to singleton levels");
    if (v->format == LY_LEVEL_SINGLETON) {
      int k = l - 1;
      while (k >= 0 && e->lvl[k].format == LY_LEVEL_SINGLETON)
        k--;
      if (k < 0 || !has_pos(e->lvl[k].format))
        return enc_error(b, at, "a singleton level needs a compressed or loose_compressed level before it");
      int soa = (v->props & LY_LEVEL_SOA) != 0;
      if (region_soa >= 0 && soa != region_soa)
        return enc_error(b, at, "the singleton levels after one compressed level are all soa or all not soa");
      region_soa = soa;
    } else {
      region_soa = -1;
    }
    if (v->format == LY_LEVEL_N_OUT_OF_M) {
      if (l != e->nlevels - 1)
        return enc_error(b, at, "a structured (n_out_of_m) level must be the last level");
      if (v->expr == LYE_EXPR_MOD && v->c != v->m)
        return enc_error(b, s->lvl_expr_loc[l], "the block of a structured[%d, %d] level must be %d, not %lld", v->n,
                         v->m, v->m, (long long)v->c);
      int64_t n = b->a->dims[v->dim];
      if (v->expr == LYE_EXPR_DIM && n != LY_DYNAMIC && n % v->m)
        return enc_error(b, at, "structured[%d, %d] needs dim %d's extent %lld to be a multiple of %d", v->n, v->m,
                         v->dim, (long long)n, v->m);
    }
  }
  return true;
}

static bool build_sparse(EncBuild *b, LyEncoding *e) {
  const LySpec *s = &b->a->spec;
  int rank = b->a->rank;
  unsigned k = s->enc_keys;
  if (k & (LYE_SHORT_CSR | LYE_SHORT_COO)) {
    bool csr = k & LYE_SHORT_CSR;
    if (csr ? rank != 2 : rank < 1)
      return enc_error(b, s->loc, "%s needs a tensor of rank %s, not %d", csr ? "csr" : "coo", csr ? "2" : "1 or more",
                       rank);
    short_levels(e, csr, rank);
    return true;
  }
  if (!(k & LYE_KEY_MAP))
    return enc_error(b, s->loc, "a sparse encoding needs a map, map = (d0, d1) -> (d0 : dense, d1 : compressed)");
  if (s->aff_ndims != rank)
    return enc_error(b, s->loc, "the map has %d dims but the tensor has rank %d", s->aff_ndims, rank);
  if (rank == 0 || !e->nlevels)
    return enc_error(b, s->loc, "a sparse encoding needs at least one level");
  return check_map(b, s, e) && check_levels(b, s, e);
}

static bool build_grouped(EncBuild *b, LyEncoding *e) {
  const LySpec *s = &b->a->spec;
  if (!(s->enc_keys & LYE_KEY_VAR) || !(s->enc_keys & LYE_KEY_GROUPS))
    return enc_error(b, s->loc, "grouped needs variable_dim and groups, grouped<variable_dim: 0, groups: 4>");
  if (e->var_dim >= b->a->rank)
    return enc_error(b, s->var_loc, "variable_dim %d is not a dim of this rank-%d tensor", e->var_dim, b->a->rank);
  if (e->groups < 1)
    return enc_error(b, s->group_loc, "groups must be at least 1");
  if (!(s->enc_keys & LYE_KEY_OFFSETS))
    e->offsets_width = 32; /* oneDNN's default, s32 */
  if (e->offsets_width == 0)
    return enc_error(b, s->off_loc, "offsets take a fixed-width integer type (i8, i16, i32 or i64)");
  return true;
}

/* Stored entries per level, forward from the top: positions and coordinates
 * sizes follow. *bad_level is set when nnz contradicts the levels. */
static bool level_counts(const LyTypeImpl *t, int64_t *cnt, int *bad_level);

bool lyd_enc_build(LyCtx *ctx, const LyTypeAst *a, LyTypeImpl *t, LyArena *scratch) {
  EncBuild b = {ctx, a};
  const LySpec *s = &a->spec;
  LyEncoding e = s->enc;
  if (!(s->enc_keys & LYE_KEY_NNZ)) {
    if (e.kind == LYE_PACKED || (s->enc_keys & (LYE_SHORT_CSR | LYE_SHORT_COO)))
      return enc_error(&b, s->loc, "this encoding needs its number of stored entries, nnz: N (or nnz: ?)");
    e.nnz = LY_DYNAMIC;
  }
  bool ok = true;
  switch (e.kind) {
  case LYE_SPARSE: ok = build_sparse(&b, &e); break;
  case LYE_GROUPED: ok = build_grouped(&b, &e); break;
  case LYE_PACKED: break;
  case LYE_HOST_SCALAR:
    if (a->rank)
      return enc_error(&b, s->loc, "a host scalar has rank 0, tensor<f32, host_scalar>, not rank %d", a->rank);
    if (a->ms_num || a->ms_str)
      return enc_error(&b, s->loc, "a host scalar lives in host memory: it takes no memory space");
    break;
  }
  if (!ok)
    return false;
  t->kind = LYD_ENCODED;
  t->alloc = e.kind == LYE_HOST_SCALAR ? 1 : 0;
  if (!(t->enc = ly_arena_dup(scratch, &e, sizeof e)))
    return enc_error(&b, s->loc, "out of memory");
  int64_t cnt[LY_MAX_RANK + 1];
  int bad = -1;
  if (e.kind == LYE_SPARSE && !level_counts(t, cnt, &bad)) {
    if (bad >= 0)
      return enc_error(&b, s->nnz_loc, "nnz %lld does not fit these levels: level %d stores a fixed number of "
                       "entries per entry of the level above it", (long long)e.nnz, bad);
    return enc_error(&b, s->loc, "the buffers of this encoding overflow 64 bits");
  }
  if (e.kind == LYE_SPARSE && cnt[e.nlevels] != LY_DYNAMIC) /* the levels fix it: one type, one spelling */
    ((LyEncoding *)t->enc)->nnz = cnt[e.nlevels];
  LyBufferInfo buf[LYE_MAX_BUFFERS];
  if (lyd_enc_buffers(t, buf) == -2)
    return enc_error(&b, s->loc, "the buffers of this encoding overflow 64 bits");
  return true;
}

/* --- Buffers ---------------------------------------------------------------- */

static int64_t level_size(const LyTypeImpl *t, const LyLevel *v) {
  int64_t n = t->dims[v->dim];
  if (v->expr == LYE_EXPR_MOD)
    return v->c;
  return n == LY_DYNAMIC || v->expr == LYE_EXPR_DIM ? n : n / v->c;
}

static int64_t mul_known(int64_t a, int64_t b, bool *ovf) {
  int64_t r;
  if (a == LY_DYNAMIC || b == LY_DYNAMIC)
    return LY_DYNAMIC;
  if (!ly_mul(a, b, &r))
    *ovf = true;
  return r;
}

/* How many entries level l stores per entry of level l-1 (dense: its size;
 * structured[n, m]: size * n / m; singleton: 1); LY_DYNAMIC when it varies. */
static int64_t level_factor(const LyTypeImpl *t, const LyLevel *v, bool *ovf) {
  int64_t n = level_size(t, v);
  switch (v->format) {
  case LY_LEVEL_DENSE: return n;
  case LY_LEVEL_SINGLETON: return 1;
  case LY_LEVEL_N_OUT_OF_M: return n == LY_DYNAMIC ? n : mul_known(n / v->m, v->n, ovf);
  default: return LY_DYNAMIC;
  }
}

static bool level_counts(const LyTypeImpl *t, int64_t *cnt, int *bad_level) {
  const LyEncoding *e = t->enc;
  bool ovf = false;
  int64_t below[LY_MAX_RANK + 1]; /* entries per entry of level l, over levels l..end, when fixed */
  below[e->nlevels] = 1;
  for (int l = e->nlevels - 1; l >= 0; l--) {
    int64_t f = level_factor(t, &e->lvl[l], &ovf);
    below[l] = mul_known(f, below[l + 1], &ovf);
  }
  cnt[0] = 1;
  for (int l = 0; l < e->nlevels; l++) {
    int64_t f = level_factor(t, &e->lvl[l], &ovf);
    if (f != LY_DYNAMIC) {
      cnt[l + 1] = mul_known(cnt[l], f, &ovf);
    } else if (e->nnz == LY_DYNAMIC || below[l + 1] == LY_DYNAMIC) {
      cnt[l + 1] = LY_DYNAMIC;
    } else if (below[l + 1] == 0 ? e->nnz != 0 : e->nnz % below[l + 1]) {
      *bad_level = l + 1;
      return false;
    } else {
      cnt[l + 1] = below[l + 1] ? e->nnz / below[l + 1] : 0;
    }
  }
  int64_t last = cnt[e->nlevels];
  if (last != LY_DYNAMIC && e->nnz != LY_DYNAMIC && last != e->nnz) {
    *bad_level = e->nlevels - 1;
    return false;
  }
  return !ovf;
}

/* The entries the levels store whatever nnz is (no compressed level), or LY_DYNAMIC. */
static int64_t implied_nnz(const LyTypeImpl *t) {
  LyTypeImpl x = *t;
  LyEncoding e = *t->enc;
  e.nnz = LY_DYNAMIC;
  x.enc = &e;
  int64_t cnt[LY_MAX_RANK + 1];
  int bad = -1;
  return level_counts(&x, cnt, &bad) ? cnt[e.nlevels] : LY_DYNAMIC;
}

static LyElem width_elem(int bits) {
  switch (bits) {
  case 8: return LY_ELEM_I8;
  case 16: return LY_ELEM_I16;
  case 32: return LY_ELEM_I32;
  default: return LY_ELEM_I64; /* 0 is index: 64-bit */
  }
}

static bool push(LyBufferInfo *out, int *n, LyBufferRole role, int level, LyElem elem, int64_t entries) {
  int64_t bits = lyElemGetBits(elem), bytes = LY_DYNAMIC;
  if (entries != LY_DYNAMIC) {
    if (!ly_mul(entries, bits, &bytes))
      return false;
    bytes = bytes / 8 + (bytes % 8 != 0);
  }
  out[(*n)++] = (LyBufferInfo){role, level, elem, bytes};
  return true;
}

/* MLIR's storage order (StorageLayout::foreachField): per level, its
 * positions then its coordinates; an AoS COO region (a compressed level and
 * the singletons after it, not soa) keeps all its coordinates in the first
 * level's buffer; the values last. */
static int sparse_buffers(const LyTypeImpl *t, LyBufferInfo *out) {
  const LyEncoding *e = t->enc;
  int64_t cnt[LY_MAX_RANK + 1];
  int bad = -1, n = 0;
  if (!level_counts(t, cnt, &bad))
    return -2;
  LyElem pe = width_elem(e->pos_width), ce = width_elem(e->crd_width);
  bool ok = true;
  for (int l = 0; l < e->nlevels && ok; l++) {
    const LyLevel *v = &e->lvl[l];
    int64_t pos = v->format == LY_LEVEL_COMPRESSED ? (cnt[l] == LY_DYNAMIC ? cnt[l] : cnt[l] + 1)
                                                    : mul_known(cnt[l], 2, &(bool){false});
    if (has_pos(v->format))
      ok = push(out, &n, LY_BUFFER_POSITIONS, l, pe, pos);
    if (v->format == LY_LEVEL_SINGLETON && !(v->props & LY_LEVEL_SOA))
      continue; /* in the region's AoS buffer */
    int64_t width = 1;
    while (has_pos(v->format) && l + width < e->nlevels && e->lvl[l + width].format == LY_LEVEL_SINGLETON &&
           !(e->lvl[l + width].props & LY_LEVEL_SOA))
      width++;
    bool ovf = false;
    if (ok && has_crd(v->format))
      ok = push(out, &n, LY_BUFFER_COORDINATES, l, ce, mul_known(cnt[l + 1], width, &ovf)) && !ovf;
  }
  if (ok)
    ok = push(out, &n, LY_BUFFER_VALUES, -1, t->elem, e->nnz != LY_DYNAMIC ? e->nnz : cnt[e->nlevels]);
  return ok ? n : -2;
}

static int64_t numel_or_dynamic(const LyTypeImpl *t) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == LY_DYNAMIC || !ly_mul(n, t->dims[d], &n))
      return LY_DYNAMIC;
  return n;
}

/* -1: packed (the implementation's buffers); -2: a size overflows. */
int lyd_enc_buffers(const LyTypeImpl *t, LyBufferInfo *out) {
  int n = 0;
  if (!lyd_is_encoded(t)) {
    int64_t bytes;
    out[0] = (LyBufferInfo){LY_BUFFER_VALUES, -1, t->elem, LY_DYNAMIC};
    if (lyTypeGetSizeBytes(lyd_wrap(t), &bytes) == LY_OK)
      out[0].size_bytes = bytes;
    return 1;
  }
  switch (t->enc->kind) {
  case LYE_SPARSE: return sparse_buffers(t, out);
  case LYE_PACKED: return -1;
  case LYE_HOST_SCALAR: return push(out, &n, LY_BUFFER_VALUES, -1, t->elem, 1) ? n : -2;
  case LYE_GROUPED:
    if (!push(out, &n, LY_BUFFER_OFFSETS, -1, width_elem(t->enc->offsets_width), t->enc->groups) ||
        !push(out, &n, LY_BUFFER_VALUES, -1, t->elem, numel_or_dynamic(t)))
      return -2;
    return n;
  }
  return -2;
}

/* --- Interning ----------------------------------------------------------------- */

uint64_t lyd_enc_hash(uint64_t h, const LyEncoding *e) {
  h = ly_hash_i64(h, e->kind);
  h = ly_hash_i64(h, e->nlevels);
  for (int l = 0; l < e->nlevels; l++) {
    const LyLevel *v = &e->lvl[l];
    h = ly_hash_i64(ly_hash_i64(ly_hash_i64(h, v->format), v->props), v->expr);
    h = ly_hash_i64(ly_hash_i64(ly_hash_i64(ly_hash_i64(h, v->dim), v->c), v->n), v->m);
  }
  h = ly_hash_i64(ly_hash_i64(ly_hash_i64(h, e->pos_width), e->crd_width), e->nnz);
  return ly_hash_i64(ly_hash_i64(ly_hash_i64(h, e->var_dim), e->groups), e->offsets_width);
}

bool lyd_enc_equal(const LyEncoding *a, const LyEncoding *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->nlevels != b->nlevels || a->pos_width != b->pos_width ||
      a->crd_width != b->crd_width || a->nnz != b->nnz || a->var_dim != b->var_dim || a->groups != b->groups ||
      a->offsets_width != b->offsets_width)
    return false;
  for (int l = 0; l < a->nlevels; l++) {
    const LyLevel *x = &a->lvl[l], *y = &b->lvl[l];
    if (x->format != y->format || x->props != y->props || x->expr != y->expr || x->dim != y->dim || x->c != y->c ||
        x->n != y->n || x->m != y->m)
      return false;
  }
  return true;
}

/* --- Printing ------------------------------------------------------------------ */

static void print_nnz(LyBuf *out, int64_t nnz) {
  if (nnz == LY_DYNAMIC)
    ly_buf_puts(out, "nnz: ?");
  else
    ly_buf_printf(out, "nnz: %lld", (long long)nnz);
}

static const char *width_name(int bits) { return bits ? lyElemGetName(width_elem(bits)) : "index"; }

/* Whether the levels are exactly those of oneDNN's csr or coo short form. */
static bool is_short(const LyTypeImpl *t, bool csr) {
  const LyEncoding *e = t->enc;
  if (csr ? t->rank != 2 : t->rank < 1 || e->pos_width != e->crd_width)
    return false;
  LyEncoding s = *e;
  short_levels(&s, csr, t->rank);
  return lyd_enc_equal(&s, e);
}

static void print_level(const LyLevel *v, LyBuf *out) {
  ly_buf_printf(out, "d%d", v->dim);
  if (v->expr != LYE_EXPR_DIM)
    ly_buf_printf(out, " %s %lld", v->expr == LYE_EXPR_MOD ? "mod" : "floordiv", (long long)v->c);
  ly_buf_printf(out, " : %s", format_names[v->format]);
  if (v->format == LY_LEVEL_N_OUT_OF_M)
    ly_buf_printf(out, "[%d, %d]", v->n, v->m);
  static const char *const props[] = {"nonunique", "nonordered", "soa"};
  for (int i = 0, first = 1; i < 3; i++)
    if (v->props >> i & 1) {
      ly_buf_puts(out, first ? "(" : ", ");
      ly_buf_puts(out, props[i]);
      first = 0;
    }
  if (v->props)
    ly_buf_puts(out, ")");
}

/* MLIR's spelling (mlir-opt prints the same), with layoutc's nnz when known. */
static void print_long(const LyTypeImpl *t, LyBuf *out) {
  const LyEncoding *e = t->enc;
  ly_buf_puts(out, "#sparse_tensor.encoding<{ map = (");
  for (int d = 0; d < t->rank; d++)
    ly_buf_printf(out, "%sd%d", d ? ", " : "", d);
  ly_buf_puts(out, ") -> (");
  for (int l = 0; l < e->nlevels; l++) {
    ly_buf_puts(out, l ? ", " : "");
    print_level(&e->lvl[l], out);
  }
  ly_buf_puts(out, ")");
  if (e->pos_width)
    ly_buf_printf(out, ", posWidth = %d", e->pos_width);
  if (e->crd_width)
    ly_buf_printf(out, ", crdWidth = %d", e->crd_width);
  if (e->nnz != LY_DYNAMIC && implied_nnz(t) == LY_DYNAMIC)
    ly_buf_printf(out, ", nnz = %lld", (long long)e->nnz); /* not implied by the levels */
  ly_buf_puts(out, " }>");
}

static void print_other(const LyTypeImpl *t, LyBuf *out) {
  const LyEncoding *e = t->enc;
  switch (e->kind) {
  case LYE_HOST_SCALAR:
    ly_buf_puts(out, "host_scalar");
    break;
  case LYE_PACKED:
    ly_buf_puts(out, "packed<");
    print_nnz(out, e->nnz);
    ly_buf_puts(out, ">");
    break;
  case LYE_GROUPED:
    ly_buf_printf(out, "grouped<variable_dim: %d, groups: %lld", e->var_dim, (long long)e->groups);
    if (e->offsets_width != 32)
      ly_buf_printf(out, ", offsets: %s", width_name(e->offsets_width));
    ly_buf_puts(out, ">");
    break;
  default:
    break;
  }
}

void lyd_enc_print(const LyTypeImpl *t, LyBuf *out) {
  const LyEncoding *e = t->enc;
  if (e->kind != LYE_SPARSE) {
    print_other(t, out);
    return;
  }
  bool csr = is_short(t, true);
  if (!csr && !is_short(t, false)) {
    print_long(t, out);
    return;
  }
  ly_buf_puts(out, csr ? "csr<" : "coo<");
  print_nnz(out, e->nnz);
  if (e->crd_width)
    ly_buf_printf(out, ", index: %s", width_name(e->crd_width));
  if (csr && e->pos_width)
    ly_buf_printf(out, ", pointer: %s", width_name(e->pos_width));
  ly_buf_puts(out, ">");
}

void lyd_enc_print_mlir(const LyTypeImpl *t, LyBuf *out) {
  if (t->enc->kind == LYE_SPARSE)
    print_long(t, out);
  else
    print_other(t, out);
}

/* --- Public queries ----------------------------------------------------------- */

static const LyEncoding *enc_of(LyType t) { return lyd_is_encoded(lyd_type(t)) ? lyd_type(t)->enc : NULL; }

LyEncodingKind lyTypeGetEncoding(LyType t) {
  const LyEncoding *e = enc_of(t);
  if (!e)
    return LY_ENCODING_NONE;
  switch (e->kind) {
  case LYE_SPARSE:
    return is_short(lyd_type(t), true) ? LY_ENCODING_CSR : is_short(lyd_type(t), false) ? LY_ENCODING_COO
                                                                                         : LY_ENCODING_SPARSE;
  case LYE_PACKED: return LY_ENCODING_PACKED;
  case LYE_GROUPED: return LY_ENCODING_GROUPED;
  case LYE_HOST_SCALAR: return LY_ENCODING_HOST_SCALAR;
  }
  return LY_ENCODING_NONE;
}

int lyTypeGetNumBuffers(LyType t) {
  LyBufferInfo b[LYE_MAX_BUFFERS];
  int n = lyd_enc_buffers(lyd_type(t), b);
  return n < 0 ? -1 : n;
}

/* Buffer i, or NULL when there is none. */
static const LyBufferInfo *buffer(LyType t, int i, LyBufferInfo *b) {
  int n = lyd_enc_buffers(lyd_type(t), b);
  return i >= 0 && i < n ? &b[i] : NULL;
}

LyBufferRole lyTypeGetBufferRole(LyType t, int i) {
  LyBufferInfo b[LYE_MAX_BUFFERS];
  const LyBufferInfo *x = buffer(t, i, b);
  return x ? x->role : LY_BUFFER_VALUES;
}

int lyTypeGetBufferLevel(LyType t, int i) {
  LyBufferInfo b[LYE_MAX_BUFFERS];
  const LyBufferInfo *x = buffer(t, i, b);
  return x ? x->level : -1;
}

LyElem lyTypeGetBufferElement(LyType t, int i) {
  LyBufferInfo b[LYE_MAX_BUFFERS];
  const LyBufferInfo *x = buffer(t, i, b);
  return x ? x->elem : lyd_type(t)->elem;
}

LyStatus lyTypeGetBufferSizeBytes(LyType t, int i, int64_t *out) {
  LyBufferInfo b[LYE_MAX_BUFFERS];
  const LyBufferInfo *x = buffer(t, i, b);
  if (!x)
    return LY_ERROR_RANGE;
  if (x->size_bytes == LY_DYNAMIC)
    return LY_ERROR_DYNAMIC;
  *out = x->size_bytes;
  return LY_OK;
}

LyStatus lyTypeGetNnz(LyType t, int64_t *out) {
  const LyEncoding *e = enc_of(t);
  if (!e || (e->kind != LYE_SPARSE && e->kind != LYE_PACKED))
    return LY_ERROR_INVALID;
  if (e->nnz == LY_DYNAMIC)
    return LY_ERROR_DYNAMIC;
  *out = e->nnz;
  return LY_OK;
}

/* Level l of a sparse encoding, or NULL. */
static const LyLevel *level_of(LyType t, int l) {
  const LyEncoding *e = enc_of(t);
  return e && e->kind == LYE_SPARSE && l >= 0 && l < e->nlevels ? &e->lvl[l] : NULL;
}

int lyTypeGetNumLevels(LyType t) {
  const LyEncoding *e = enc_of(t);
  return e && e->kind == LYE_SPARSE ? e->nlevels : 0;
}

LyLevelFormat lyTypeGetLevelFormat(LyType t, int l) {
  const LyLevel *v = level_of(t, l);
  return v ? (LyLevelFormat)v->format : LY_LEVEL_DENSE;
}

unsigned lyTypeGetLevelProperties(LyType t, int l) {
  const LyLevel *v = level_of(t, l);
  return v ? (unsigned)v->props : 0;
}

int lyTypeGetLevelStructuredN(LyType t, int l) {
  const LyLevel *v = level_of(t, l);
  return v ? v->n : 0;
}

int lyTypeGetLevelStructuredM(LyType t, int l) {
  const LyLevel *v = level_of(t, l);
  return v ? v->m : 0;
}

int lyTypeGetLevelDim(LyType t, int l, int64_t *floordiv, int64_t *mod) {
  const LyLevel *v = level_of(t, l);
  if (!v)
    return -1;
  if (floordiv)
    *floordiv = v->expr == LYE_EXPR_FLOORDIV ? v->c : 0;
  if (mod)
    *mod = v->expr == LYE_EXPR_MOD ? v->c : 0;
  return v->dim;
}

int lyTypeGetPosWidth(LyType t) {
  const LyEncoding *e = enc_of(t);
  return e ? e->pos_width : 0;
}

int lyTypeGetCrdWidth(LyType t) {
  const LyEncoding *e = enc_of(t);
  return e ? e->crd_width : 0;
}

int lyTypeGetGroupedDim(LyType t) {
  const LyEncoding *e = enc_of(t);
  return e && e->kind == LYE_GROUPED ? e->var_dim : -1;
}

int64_t lyTypeGetGroupCount(LyType t) {
  const LyEncoding *e = enc_of(t);
  return e && e->kind == LYE_GROUPED ? e->groups : -1;
}
