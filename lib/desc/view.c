/* desc/view: the view algebra (permute, reshape, slice, broadcast, squeeze,
 * unsqueeze) on digits. A view is a new digit list over the same buffer; it
 * exists exactly when the source's digits can be rewritten as digits of the
 * view's index. When they cannot, the diagnostic says which dims, which
 * block, tile or padding is in the way. */
#include "desc/desc.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  LyCtx *ctx;
  const LyTypeImpl *src;
  LyArena scratch;
  LyBuf why; /* the reason a view does not exist */
} View;

static void view_init(View *v, LyContext ctx, LyType t) {
  v->ctx = lyd_ctx(ctx);
  v->ctx->view_refused = false;
  v->src = lyd_type(t);
  ly_arena_init(&v->scratch);
  ly_buf_init(&v->why);
}

static void view_done(View *v) {
  ly_arena_free(&v->scratch);
  ly_buf_free(&v->why);
}

static void verror(View *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void verror(View *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&v->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
}

/* The layout has no such view (not a bad request): an error, marked so. */
static void vrefuse(View *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vrefuse(View *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  v->ctx->view_refused = true;
  ly_diag_vemit(&v->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
}

static void vnote(View *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vnote(View *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&v->ctx->diag, LY_SEVERITY_NOTE, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
}

/* Views need static geometry: every dim, stride and offset known. */
static bool need_static(View *v, const char *what) {
  if (lyd_is_foreign(v->src)) {
    verror(v, "cannot %s '%s': %s", what, v->src->symbolic, LYD_FOREIGN_WHY);
    return false;
  }
  if (v->src->kind == LYD_ANY) {
    verror(v, "cannot %s a tensor whose layout is 'any' (not chosen yet)", what);
    return false;
  }
  if (lyd_is_opaque(v->src) || lyd_is_encoded(v->src)) {
    verror(v, "cannot %s a tensor: %s", what, lyd_is_opaque(v->src) ? LYD_OPAQUE_WHY : LYD_ENCODED_WHY);
    return false;
  }
  if (!lyd_is_static(v->src)) {
    verror(v, "cannot %s a tensor with dynamic dims, strides or offset", what);
    return false;
  }
  return true;
}

/* Copies g with its dims renumbered by dmap (old dim -> new dim, -1 gone).
 * An extent-1 dim's index is always 0, so a term on a removed one vanishes.
 * Returns 1, 0 when the digit is identically 0, -1 when g needs a removed
 * dim (or memory runs out). */
static int remap_digit(View *v, const LyDigit *g, const int *dmap, int new_rank, LyDigit *out) {
  const LyTypeImpl *s = v->src;
  *out = *g;
  if (g->dim >= 0) {
    out->dim = dmap[g->dim];
    return out->dim >= 0 ? 1 : s->dims[g->dim] == 1 ? 0 : -1;
  }
  int64_t *coef = ly_arena_alloc(&v->scratch, new_rank * sizeof *coef);
  LyDigit *sub = g->nsub ? ly_arena_alloc(&v->scratch, g->nsub * sizeof *sub) : NULL;
  if (!coef || (g->nsub && !sub))
    return -1;
  for (int d = 0; d < s->rank; d++)
    if (g->coef[d] && s->dims[d] != 1) {
      if (dmap[d] < 0)
        return -1;
      coef[dmap[d]] = g->coef[d];
    }
  int ns = 0;
  for (int j = 0; j < g->nsub; j++) {
    int r = remap_digit(v, &g->sub[j], dmap, new_rank, &sub[ns]);
    if (r < 0)
      return -1;
    ns += r;
  }
  out->coef = coef;
  out->sub = ns ? sub : NULL;
  out->nsub = ns;
  return 1;
}

/* Interns the view: the source's element and memory space, new dims and
 * digits. alloc < 0 means "largest reachable offset + 1". */
static LyType make_view(View *v, int rank, const int64_t *dims, LyDigit *g, int n, int64_t base, int64_t alloc) {
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  t.elem = v->src->elem;
  t.rank = rank;
  memcpy(t.dims, dims, rank * sizeof *dims);
  t.ms_num = v->src->ms_num;
  t.ms_str = v->src->ms_str;
  t.kind = LYD_DIGITS;
  t.base = base;
  t.ndigits = n;
  if (alloc < 0) {
    int64_t lo, hi;
    bool exact;
    alloc = 0;
    if (lyd_offset_range(rank, dims, g, n, &lo, &hi, &exact) && ly_add(hi, base + 1, &alloc) && exact &&
        alloc > v->src->alloc)
      alloc = v->src->alloc; /* not reached: exact offsets lie in the source's buffer */
    if (alloc <= 0)
      alloc = v->src->alloc;
    /* A loose bound may exceed the source's buffer: kept, so the view's
     * spelling passes the size check when parsed again. */
    for (int d = 0; d < rank; d++)
      if (dims[d] == 0)
        alloc = 0;
  }
  t.alloc = alloc;
  return lyd_wrap(lyd_intern(v->ctx, &t, g));
}

/* ===== permute ============================================================== */

LyType lyTypePermute(LyContext ctx, LyType t, const int *perm) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  bool seen[LY_MAX_RANK] = {0};
  for (int i = 0; i < s->rank; i++) {
    if (perm[i] < 0 || perm[i] >= s->rank || seen[perm[i]]) {
      verror(&v, "permutation is not a permutation of 0..%d: %d %s", s->rank - 1, perm[i],
             perm[i] >= 0 && perm[i] < s->rank ? "appears twice" : "is out of range");
      goto done;
    }
    seen[perm[i]] = true;
  }
  if (!need_static(&v, "permute"))
    goto done;
  int64_t dims[LY_MAX_RANK];
  for (int i = 0; i < s->rank; i++)
    dims[perm[i]] = s->dims[i];
  LyDigit g[LY_MAX_DIGITS];
  int n = 0;
  for (int k = 0; k < s->ndigits; k++) {
    int got = remap_digit(&v, &s->digits[k], perm, s->rank, &g[n]);
    if (got < 0) {
      verror(&v, "out of memory");
      goto done;
    }
    n += got;
  }
  r = make_view(&v, s->rank, dims, g, n, s->base, s->alloc);
done:
  view_done(&v);
  return r;
}

/* ===== squeeze, unsqueeze, broadcast ======================================== */

static LyType regroup(View *v, int rank, const int64_t *dims, const int *dmap, int64_t alloc) {
  const LyTypeImpl *s = v->src;
  LyDigit g[LY_MAX_DIGITS];
  int n = 0;
  for (int k = 0; k < s->ndigits; k++) {
    int got = remap_digit(v, &s->digits[k], dmap, rank, &g[n]);
    if (got < 0) {
      verror(v, "out of memory");
      return (LyType){NULL};
    }
    n += got;
  }
  return make_view(v, rank, dims, g, n, s->base, alloc);
}

LyType lyTypeSqueeze(LyContext ctx, LyType t, int dim) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  if (dim < 0 || dim >= s->rank)
    verror(&v, "squeeze: dim %d is out of range for rank %d", dim, s->rank);
  else if (s->dims[dim] != 1)
    verror(&v, "squeeze: dim %d has extent %lld, not 1", dim, (long long)s->dims[dim]);
  else if (need_static(&v, "squeeze")) {
    int64_t dims[LY_MAX_RANK];
    int dmap[LY_MAX_RANK];
    for (int d = 0, o = 0; d < s->rank; d++) {
      dmap[d] = d == dim ? -1 : o;
      if (d != dim)
        dims[o++] = s->dims[d];
    }
    r = regroup(&v, s->rank - 1, dims, dmap, s->alloc);
  }
  view_done(&v);
  return r;
}

LyType lyTypeUnsqueeze(LyContext ctx, LyType t, int dim) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  if (dim < 0 || dim > s->rank || s->rank == LY_MAX_RANK)
    verror(&v, "unsqueeze: position %d is out of range for rank %d (at most %d)", dim, s->rank, LY_MAX_RANK);
  else if (need_static(&v, "unsqueeze")) {
    int64_t dims[LY_MAX_RANK];
    int dmap[LY_MAX_RANK];
    for (int d = 0; d < s->rank; d++) {
      dmap[d] = d < dim ? d : d + 1;
      dims[dmap[d]] = s->dims[d];
    }
    dims[dim] = 1;
    r = regroup(&v, s->rank + 1, dims, dmap, s->alloc);
  }
  view_done(&v);
  return r;
}

LyType lyTypeBroadcast(LyContext ctx, LyType t, int rank, const int64_t *dims) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  int lead = rank - s->rank;
  if (rank > LY_MAX_RANK || lead < 0) {
    verror(&v, "broadcast: cannot broadcast rank %d to rank %d", s->rank, rank);
    goto done;
  }
  if (!need_static(&v, "broadcast"))
    goto done;
  for (int d = 0; d < rank; d++)
    if (dims[d] < 0) {
      verror(&v, "broadcast: dim %d of the target is negative", d);
      goto done;
    }
  int dmap[LY_MAX_RANK];
  for (int d = 0; d < s->rank; d++) {
    int64_t n = s->dims[d], m = dims[lead + d];
    if (m < 0 || (n != m && n != 1)) {
      verror(&v, "broadcast: dim %d of extent %lld cannot broadcast to %lld", d, (long long)n, (long long)m);
      goto done;
    }
    dmap[d] = lead + d; /* extent-1 dims have no digits: they become stride 0 */
  }
  r = regroup(&v, rank, dims, dmap, s->alloc);
done:
  view_done(&v);
  return r;
}

/* ===== slice ================================================================ */

/* Rewrites g for the index i' = i - off (C = E's shift): appends the new
 * digit (if any) and adds constants to *base. False (with a reason) when
 * the slice crosses a boundary of the digit. */
static bool slice_digit(View *v, const LyDigit *g, int64_t C, int64_t maxe, LyDigit *out, int *n, int64_t *base) {
  int64_t r = g->div, e = g->ext, span;
  if (C == 0 || (g->wrap && ly_mul(r, e, &span) && C % span == 0)) {
    out[(*n)++] = *g;
    return true;
  }
  if (C % r == 0) {
    int64_t c = C / r;
    if (!g->wrap) {
      *base += g->stride * c;
      out[(*n)++] = *g;
      return true;
    }
    int64_t cm = c % e;
    if (maxe / r + cm < e) {
      *base += g->stride * cm;
      LyDigit x = *g;
      x.wrap = false;
      out[(*n)++] = x;
      return true;
    }
    ly_buf_printf(&v->why, "it crosses a boundary of a block of %lld (offset %lld within the block)",
                  (long long)(r * e), (long long)(cm * r));
    return false;
  }
  int64_t lo = C / r, hi = (C + maxe) / r;
  if (lo == hi) { /* the digit is constant over the slice */
    *base += g->stride * (g->wrap ? lo % e : lo);
    return true;
  }
  ly_buf_printf(&v->why, "offset %lld is not a multiple of the block of %lld it starts in, and the slice leaves that block",
                (long long)C, (long long)r);
  return false;
}

/* A digit over combined dims under a slice: its E shifts by C. */
static bool slice_general(View *v, const LyDigit *x, const int64_t *offsets, const int64_t *sizes, LyDigit *g,
                          int *n, int64_t *base) {
  const LyTypeImpl *s = v->src;
  int64_t C = 0;
  for (int d = 0; d < s->rank; d++) {
    C += x->coef[d] * offsets[d]; /* bounded by the checked sizes */
    for (int j = 0; j < x->nsub; j++)
      if (offsets[d] && lyd_digit_uses_dim(&x->sub[j], s->rank, d)) {
        vrefuse(v, "slice is not a view: the layout has a nested tile over sliced dim %d", d);
        return false;
      }
  }
  int64_t maxe = lyd_digit_max_e(x, s->rank, sizes);
  if (maxe < 0)
    return true; /* an empty slice: no element uses the digit */
  if (!slice_digit(v, x, C, maxe, g, n, base)) {
    vrefuse(v, "slice is not a view at a digit over combined dims: %s", ly_buf_cstr(&v->why));
    return false;
  }
  return true;
}

/* The one dim a digit uses, or -1 when it combines several. */
static int only_dim(const LyDigit *g, int rank) {
  if (g->dim >= 0)
    return g->dim;
  int found = -1;
  for (int d = 0; d < rank; d++)
    if (lyd_digit_uses_dim(g, rank, d)) {
      if (found >= 0)
        return -1;
      found = d;
    }
  return found;
}

/* Offset contribution at index i of the digits that use dim d alone. */
static int64_t dim_part(const LyTypeImpl *s, int d, int64_t i) {
  int64_t idx[LY_MAX_RANK] = {0}, off = 0;
  idx[d] = i;
  for (int k = 0; k < s->ndigits; k++)
    if (only_dim(&s->digits[k], s->rank) == d)
      off += s->digits[k].stride * lyd_digit_value(&s->digits[k], s->rank, idx);
  return off;
}

#define SLICE_AFFINE_LIMIT (1 << 22)

/* Finds digits for the contribution f(i) = dim_part(off + i) - f0 of a
 * dim over [0, size): greedily the mixed radix whose places explain f, then
 * checked at every point. Covers short slices across a block edge. */
static bool slice_dim_digits(const LyTypeImpl *s, int d, int64_t off, int64_t size, LyDigit *g, int *n,
                             int64_t *base) {
  int64_t f0 = dim_part(s, d, off);
  int n0 = *n;
  for (int64_t r = 1; r < size;) {
    int64_t step = dim_part(s, d, off + r) - f0, e = 1;
    while (e * r < size && dim_part(s, d, off + e * r) == f0 + e * step)
      e++;
    bool last = e * r >= size;
    if (*n == LY_MAX_DIGITS)
      return false;
    g[(*n)++] = (LyDigit){.stride = step, .div = r, .ext = last ? ly_ceil_div(size, r) : e, .wrap = !last, .dim = d};
    if (last)
      break;
    r *= e;
  }
  int64_t idx[LY_MAX_RANK] = {0};
  for (int64_t i = 0; i < size; i++) {
    idx[d] = i;
    int64_t f = f0;
    for (int k = n0; k < *n; k++)
      f += g[k].stride * lyd_digit_value(&g[k], s->rank, idx);
    if (f != dim_part(s, d, off + i)) {
      *n = n0;
      return false;
    }
  }
  *base += f0;
  return true;
}

#define SLICE_SEARCH_LIMIT (1 << 20)

/* Dim d's simple digits under the slice [off, off + size): each digit
 * rewritten (slice_digit), or else digits found for the dim's whole
 * contribution over the slice. */
static bool slice_dim(View *v, int d, int64_t off, const int64_t *sizes, bool in_general, LyDigit *g, int *n,
                      int64_t *base) {
  const LyTypeImpl *s = v->src;
  if (sizes[d] == 0)
    return true;
  int n0 = *n;
  int64_t b = 0;
  bool ok = true;
  for (int k = 0; k < s->ndigits && ok; k++) {
    const LyDigit *x = &s->digits[k];
    if (x->dim == d)
      ok = slice_digit(v, x, off, sizes[d] - 1, g, n, &b);
    else if (x->dim < 0 && only_dim(x, s->rank) == d) /* nested: search below */
      ok = off == 0 ? (g[(*n)++] = *x, true) : (ly_buf_puts(&v->why, "a nested tile of the dim moves"), false);
  }
  if (ok) {
    *base += b;
    return true;
  }
  *n = n0;
  return !in_general && sizes[d] <= SLICE_SEARCH_LIMIT && slice_dim_digits(s, d, off, sizes[d], g, n, base);
}

LyType lyTypeSlice(LyContext ctx, LyType t, const int64_t *offsets, const int64_t *sizes) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  for (int d = 0; d < s->rank; d++) {
    int64_t end;
    if (offsets[d] < 0 || sizes[d] < 0 || !ly_add(offsets[d], sizes[d], &end) || end > s->dims[d]) {
      verror(&v, "slice of dim %d (offset %lld, size %lld) is outside its extent %lld", d, (long long)offsets[d],
             (long long)sizes[d], (long long)s->dims[d]);
      goto done;
    }
  }
  if (!need_static(&v, "slice"))
    goto done;
  LyDigit g[LY_MAX_DIGITS];
  int n = 0;
  int64_t base = s->base;
  bool in_general[LY_MAX_RANK] = {0};
  for (int k = 0; k < s->ndigits; k++) {
    const LyDigit *x = &s->digits[k];
    if (only_dim(x, s->rank) >= 0)
      continue; /* a digit of one dim: slice_dim handles it */
    for (int d = 0; d < s->rank; d++)
      in_general[d] = in_general[d] || lyd_digit_uses_dim(x, s->rank, d);
    if (!slice_general(&v, x, offsets, sizes, g, &n, &base))
      goto done;
  }
  for (int d = 0; d < s->rank; d++)
    if (!slice_dim(&v, d, offsets[d], sizes, in_general[d], g, &n, &base)) {
      vrefuse(&v, "slice is not a view at dim %d: %s", d, ly_buf_cstr(&v.why));
      goto done;
    }
  r = make_view(&v, s->rank, sizes, g, n, base, -1);
done:
  view_done(&v);
  return r;
}

/* ===== reshape ============================================================== */

/* A group of source dims [s0, s1) and view dims [t0, t1) with equal
 * products (extent-1 dims excluded). */
typedef struct {
  int s[LY_MAX_RANK], ns;
  int t[LY_MAX_RANK], nt;
} Group;

static int make_groups(const LyTypeImpl *s, int rank, const int64_t *dims, Group *gr, int *owner) {
  int ng = 0, i = 0, j = 0;
  for (int d = 0; d < s->rank; d++)
    owner[d] = -1;
  /* Callers check the element counts are equal; with no elements there is
   * nothing to group (and products of 0 would never meet). */
  for (int d = 0; d < s->rank; d++)
    if (s->dims[d] == 0)
      return 0;
  for (int d = 0; d < rank; d++)
    if (dims[d] == 0)
      return 0;
  for (;;) {
    while (i < s->rank && s->dims[i] == 1)
      i++;
    while (j < rank && dims[j] == 1)
      j++;
    if (i == s->rank || j == rank)
      return ng;
    Group *g = &gr[ng];
    g->ns = g->nt = 0;
    int64_t ps = s->dims[i], pt = dims[j];
    owner[i] = ng;
    g->s[g->ns++] = i++;
    g->t[g->nt++] = j++;
    while (ps != pt) { /* equal total products meet before either side ends */
      if (ps < pt) {
        while (i < s->rank && s->dims[i] == 1)
          i++;
        LY_ASSERT(i < s->rank);
        owner[i] = ng;
        ps *= s->dims[i];
        g->s[g->ns++] = i++;
      } else {
        while (j < rank && dims[j] == 1)
          j++;
        LY_ASSERT(j < rank);
        pt *= dims[j];
        g->t[g->nt++] = j++;
      }
    }
    ng++;
  }
}

/* Maps the group-linear digit floor(L / R) mod E (E = 0: unbounded) onto
 * the group's view dims, splitting it at their boundaries. */
static bool place_l_digit(View *v, const Group *gr, const int64_t *dims, int64_t R, int64_t E, int64_t stride,
                          LyDigit *out, int *n) {
  int64_t top = 0; /* R * E, or 0 when unbounded */
  if (E && !ly_mul(R, E, &top))
    return false;
  int64_t w = 1; /* weight of view dim t within the group */
  for (int q = gr->nt - 1; q >= 0; q--) {
    int t = gr->t[q];
    bool outermost = q == 0;
    int64_t end = 0; /* v_t * m_t, or 0 (unbounded) for the outermost */
    if (!outermost && !ly_mul(w, dims[t], &end))
      return false;
    int64_t lo = R > w ? R : w;
    int64_t hi = top == 0 ? end : end == 0 ? top : (top < end ? top : end);
    if (hi == 0 || lo < hi) { /* the digit has places inside dim t */
      /* ... and when it ends inside dim t, the dim's outer places must
       * vanish mod the digit: its end divides the dim's end. */
      bool ends_inside = top && end && top < end && end % top != 0;
      if (lo % R || lo % w || (hi && hi % lo) || ends_inside) {
        ly_buf_printf(&v->why, "it does not line up with view dim %d of extent %lld", t, (long long)dims[t]);
        return false;
      }
      if (*n == LY_MAX_DIGITS)
        return false;
      out[(*n)++] = (LyDigit){.stride = stride * (lo / R), .div = lo / w, .ext = hi ? hi / lo : 0,
                              .wrap = hi != 0, .dim = t};
    }
    w = end;
    if (outermost || (top && end >= top))
      break;
  }
  return true;
}

/* One simple source digit of dim d inside a group, as floor(L/R) mod E. */
static bool l_digit_of(View *v, const LyTypeImpl *s, const Group *gr, const LyDigit *g, int64_t *R, int64_t *E) {
  int64_t w = 1;
  int pos = -1;
  for (int q = gr->ns - 1; q >= 0; q--) {
    if (gr->s[q] == g->dim) {
      pos = q;
      break;
    }
    w *= s->dims[gr->s[q]];
  }
  LY_ASSERT(pos >= 0);
  int64_t n = s->dims[g->dim];
  if (!ly_mul(w, g->div, R))
    return false;
  if (pos == 0) { /* the group's outermost dim: its index is floor(L / w) */
    *E = g->wrap ? g->ext : 0;
    return true;
  }
  int64_t span = g->wrap ? g->div * g->ext : g->div;
  if (n % span != 0) {
    if (g->wrap)
      ly_buf_printf(&v->why, "dim %d of extent %lld is blocked by %lld with padding", g->dim, (long long)n,
                    (long long)span);
    else
      ly_buf_printf(&v->why, "dim %d of extent %lld is padded to a multiple of %lld", g->dim, (long long)n,
                    (long long)span);
    return false;
  }
  *E = g->wrap ? g->ext : n / g->div;
  return true;
}

/* The digits of the view, or false with the reason in v->why and the source
 * dims of failing groups marked in bad[]. */
/* A digit of a group's linear index L: floor(L / R) mod E (E = 0: none). */
typedef struct {
  int group;
  int64_t R, E, stride;
} LDigit;

static int ldigit_cmp(const void *pa, const void *pb) {
  const LDigit *a = pa, *b = pb;
  if (a->group != b->group)
    return a->group - b->group;
  return a->R > b->R ? -1 : a->R < b->R;
}

static bool reshape_digits(View *v, int rank, const int64_t *dims, LyDigit *out, int *nout, bool *bad) {
  const LyTypeImpl *s = v->src;
  LDigit ld[LY_MAX_DIGITS];
  int nld = 0;
  Group gr[LY_MAX_RANK];
  int owner[LY_MAX_RANK];
  make_groups(s, rank, dims, gr, owner);
  bool ok = true;
  *nout = 0;
  for (int k = 0; k < s->ndigits; k++) {
    const LyDigit *g = &s->digits[k];
    if (g->dim < 0) {
      /* Digits over combined dims survive only when each dim they use maps
       * one-to-one onto a view dim. */
      int dmap[LY_MAX_RANK];
      bool one_to_one = true;
      for (int d = 0; d < s->rank; d++) {
        dmap[d] = -1;
        if (owner[d] >= 0 && gr[owner[d]].ns == 1 && gr[owner[d]].nt == 1)
          dmap[d] = gr[owner[d]].t[0];
        else if (s->dims[d] != 1 && lyd_digit_uses_dim(g, s->rank, d))
          one_to_one = false, bad[d] = true;
      }
      if (!one_to_one) {
        if (ok)
          ly_buf_puts(&v->why, "a tile over combined dims (from '*' or a nested tile) spans the reshaped dims");
        ok = false;
        continue;
      }
      int got = remap_digit(v, g, dmap, rank, &out[*nout]);
      if (got < 0)
        return false;
      *nout += got;
      continue;
    }
    int gi = owner[g->dim];
    const Group *G = &gr[gi];
    if (G->ns == 1 && G->nt == 1) {
      out[*nout] = *g;
      out[(*nout)++].dim = G->t[0];
      continue;
    }
    LDigit *x = &ld[nld];
    x->group = gi;
    x->stride = g->stride;
    size_t mark = v->why.len;
    if (l_digit_of(v, s, G, g, &x->R, &x->E)) {
      nld++;
      continue;
    }
    if (!ok && v->why.data) { /* keep only the first reason */
      v->why.len = mark;
      v->why.data[mark] = 0;
    }
    for (int q = 0; q < G->ns; q++)
      bad[G->s[q]] = true;
    ok = false;
  }
  /* In the group's linear index, digits that continue each other merge
   * (row-major 2x3 is the single digit L), then each is placed. */
  qsort(ld, nld, sizeof *ld, ldigit_cmp);
  int m = 0;
  for (int k = 0; k < nld; k++) {
    LDigit *o = m ? &ld[m - 1] : NULL, *p = &ld[k];
    int64_t span, st;
    if (o && o->group == p->group && p->E && ly_mul(p->R, p->E, &span) && span == o->R &&
        ly_mul(p->stride, p->E, &st) && st == o->stride && (!o->E || ly_mul(o->E, p->E, &o->E))) {
      o->R = p->R;
      o->stride = p->stride;
      continue;
    }
    ld[m++] = *p;
  }
  for (int k = 0; k < m; k++) {
    const Group *G = &gr[ld[k].group];
    size_t mark = v->why.len;
    if (!place_l_digit(v, G, dims, ld[k].R, ld[k].E, ld[k].stride, out, nout)) {
      if (!ok && v->why.data) {
        v->why.len = mark;
        v->why.data[mark] = 0;
      }
      for (int q = 0; q < G->ns; q++)
        bad[G->s[q]] = true;
      ok = false;
    }
  }
  return ok;
}

static bool reshape_args(View *v, int rank, const int64_t *dims) {
  const LyTypeImpl *s = v->src;
  if (rank < 0 || rank > LY_MAX_RANK) {
    verror(v, "reshape: rank %d is out of range (at most %d)", rank, LY_MAX_RANK);
    return false;
  }
  int64_t a = 1, b = 1;
  for (int d = 0; d < s->rank; d++) {
    if (s->dims[d] == LY_DYNAMIC) {
      verror(v, "cannot reshape a tensor with dynamic dims");
      return false;
    }
    a *= s->dims[d]; /* checked when the type was built */
  }
  for (int d = 0; d < rank; d++)
    if (dims[d] < 0 || !ly_mul(b, dims[d], &b)) {
      verror(v, "reshape: dims overflow or are negative");
      return false;
    }
  if (a != b) {
    verror(v, "cannot reshape %lld elements into %lld", (long long)a, (long long)b);
    return false;
  }
  return true;
}

static void print_dims(LyBuf *b, int rank, const int64_t *dims) {
  for (int d = 0; d < rank; d++)
    ly_buf_printf(b, "%s%lld", d ? "x" : "", (long long)dims[d]);
}

/* MLIR/NumPy semantics: each view dim one plain stride. */
static bool strided_only(View *v, int rank, const LyDigit *g, int n) {
  int count[LY_MAX_RANK] = {0};
  for (int k = 0; k < n; k++) {
    if (g[k].dim < 0 || g[k].div != 1 || g[k].wrap || ++count[g[k].dim] > 1) {
      int d = g[k].dim >= 0 ? g[k].dim : 0;
      ly_buf_printf(&v->why, "view dim %d would need more than one stride", d);
      return false;
    }
  }
  (void)rank;
  return true;
}

static LyType reshape(LyContext ctx, LyType t, int rank, const int64_t *dims, bool strided);

/* The view's digits in canonical form (merging what continues), checked
 * for one plain stride per dim. */
static bool canonical_strided(View *v, int rank, const int64_t *dims, const LyDigit *g, int n) {
  LyDigit c[LY_MAX_DIGITS];
  memcpy(c, g, n * sizeof *c);
  int m = lyd_canonicalize(rank, dims, c, n, &v->scratch);
  return m >= 0 && strided_only(v, rank, c, m);
}

LyType lyTypeReshape(LyContext ctx, LyType t, int rank, const int64_t *dims) {
  return reshape(ctx, t, rank, dims, false);
}

LyType lyTypeReshapeStrided(LyContext ctx, LyType t, int rank, const int64_t *dims) {
  return reshape(ctx, t, rank, dims, true);
}

/* The view's digits, or false with the reason and the source dims in the
 * way marked in bad[]. strided: each view dim must be one plain stride. */
static bool reshape_view(View *v, int rank, const int64_t *dims, bool strided, LyDigit *g, int *n, bool *bad) {
  if (!reshape_digits(v, rank, dims, g, n, bad))
    return false;
  if (!strided || canonical_strided(v, rank, dims, g, *n))
    return true;
  /* Every source dim of a group that splits or joins is in the way. */
  Group gr[LY_MAX_RANK];
  int owner[LY_MAX_RANK];
  make_groups(v->src, rank, dims, gr, owner);
  for (int d = 0; d < v->src->rank; d++)
    bad[d] = owner[d] >= 0 && (gr[owner[d]].ns > 1 || gr[owner[d]].nt > 1);
  return false;
}

static LyType reshape_relayout(LyContext ctx, LyType t, int rank, const int64_t *dims, bool strided);

static LyType reshape(LyContext ctx, LyType t, int rank, const int64_t *dims, bool strided) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  if (!need_static(&v, "reshape") || !reshape_args(&v, rank, dims))
    goto done;
  LyDigit g[LY_MAX_DIGITS];
  int n;
  bool bad[LY_MAX_RANK] = {0};
  int64_t numel = 1;
  for (int d = 0; d < rank; d++)
    numel *= dims[d];
  if (numel == 0) {
    r = make_view(&v, rank, dims, g, 0, 0, s->alloc);
  } else if (reshape_view(&v, rank, dims, strided, g, &n, bad)) {
    r = make_view(&v, rank, dims, g, n, s->base, s->alloc);
  } else {
    LyBuf d;
    ly_buf_init(&d);
    for (int k = 0; k < s->rank; k++)
      if (bad[k])
        ly_buf_printf(&d, "%s%d", d.len ? "," : "", k);
    LyBuf to;
    ly_buf_init(&to);
    print_dims(&to, rank, dims);
    vrefuse(&v, "reshape into %s requires a copy: %s (source dims %s)", ly_buf_cstr(&to), ly_buf_cstr(&v.why),
           ly_buf_cstr(&d));
    LyType fix = reshape_relayout(ctx, t, rank, dims, strided);
    if (!lyTypeIsNull(fix)) {
      LyBuf p;
      ly_buf_init(&p);
      lyd_print_layout(lyd_type(fix), &p);
      vnote(&v, "relayout to %s first makes it a view", p.len ? ly_buf_cstr(&p) : "the row-major layout");
      ly_buf_free(&p);
    }
    v.ctx->view_refused = true; /* the relayout search runs views of its own */
    ly_buf_free(&d);
    ly_buf_free(&to);
  }
done:
  view_done(&v);
  return r;
}

/* ===== relayout targets ======================================================= */

LyType lyTypeWithLayout(LyContext ctx, LyType t, const char *layout) {
  const LyTypeImpl *s = lyd_type(t);
  LyBuf b;
  ly_buf_init(&b);
  ly_buf_puts(&b, "tensor<");
  for (int d = 0; d < s->rank; d++) {
    if (s->dims[d] == LY_DYNAMIC)
      ly_buf_puts(&b, "?x");
    else
      ly_buf_printf(&b, "%lldx", (long long)s->dims[d]);
  }
  ly_buf_printf(&b, "%s%s%s", lyElemGetName(s->elem), *layout ? ", " : "", layout);
  if (s->ms_str)
    ly_buf_printf(&b, ", memspace<\"%s\">", s->ms_str);
  else if (s->ms_num)
    ly_buf_printf(&b, ", memspace<%lld>", (long long)s->ms_num);
  ly_buf_puts(&b, ">");
  LyType r = b.oom ? (LyType){NULL} : lyTypeParse(ctx, b.data, b.len, "<layout>");
  ly_buf_free(&b);
  return r;
}

/* Does reshaping u (same dims as the source) give a view? Marks the dims in
 * the way. Reports nothing. */
static bool reshapes_to_view(LyContext ctx, LyType u, int rank, const int64_t *dims, bool strided, bool *bad) {
  View v;
  view_init(&v, ctx, u);
  LyDigit g[LY_MAX_DIGITS];
  int n;
  bool ok = lyd_is_static(v.src) && reshape_view(&v, rank, dims, strided, g, &n, bad);
  view_done(&v);
  return ok;
}

LyType lyTypeGetReshapeRelayout(LyContext ctx, LyType t, int rank, const int64_t *dims) {
  return reshape_relayout(ctx, t, rank, dims, false);
}

/* The tag with each block on a dim in the way cut to what divides the
 * dim's remaining extent, so the dim has no padding. */
static void shrink_blocks(const LyTagInfo *tag, const int64_t *dims, const bool *bad, LyTagInfo *out) {
  *out = *tag;
  out->nblocks = 0;
  int64_t rem[LY_MAX_RANK];
  memcpy(rem, dims, sizeof rem);
  for (int j = tag->nblocks - 1; j >= 0; j--) { /* inner blocks first: they stay dense */
    int d = tag->block_dim[j];
    int64_t b = bad[d] ? ly_gcd(tag->block_size[j], rem[d]) : tag->block_size[j];
    if (bad[d])
      rem[d] /= b;
    out->block_size[j] = b;
  }
  for (int j = 0; j < tag->nblocks; j++)
    if (out->block_size[j] > 1) {
      out->block_dim[out->nblocks] = tag->block_dim[j];
      out->block_size[out->nblocks++] = out->block_size[j];
    }
}

/* The tag without blocks on the dims in the way, those dims in logical
 * order where the first of them stood. */
static void drop_blocks(const LyTagInfo *tag, int rank, const bool *bad, LyTagInfo *out) {
  *out = (LyTagInfo){.nblocks = 0};
  for (int j = 0; j < tag->nblocks; j++)
    if (!bad[tag->block_dim[j]]) {
      out->block_dim[out->nblocks] = tag->block_dim[j];
      out->block_size[out->nblocks++] = tag->block_size[j];
    }
  int o = 0;
  bool placed = false;
  for (int k = 0; k < rank; k++) {
    int d = tag->order[k];
    if (!bad[d]) {
      out->order[o++] = d;
    } else if (!placed) {
      for (int e = 0; e < rank; e++)
        if (bad[e])
          out->order[o++] = e;
      placed = true;
    }
  }
}

static LyType reshape_relayout(LyContext ctx, LyType t, int rank, const int64_t *dims, bool strided) {
  View v;
  view_init(&v, ctx, t);
  LyType r = {NULL};
  const LyTypeImpl *s = v.src;
  if (!reshape_args(&v, rank, dims))
    goto done;
  bool bad[LY_MAX_RANK] = {0}, unused[LY_MAX_RANK];
  if (s->kind != LYD_DIGITS || reshapes_to_view(ctx, t, rank, dims, strided, bad)) {
    r = t;
    goto done;
  }
  /* Keep the source's format tag where it does not block the reshape.
   * First the same order with the blocks of the dims in the way shrunk to
   * what divides their extents (no padding); then without those blocks and
   * with those dims in logical order where the first of them stood;
   * otherwise row-major. */
  LyTagInfo tag;
  if (lyd_tag_of(s, &tag)) {
    LyTagInfo cand[2];
    shrink_blocks(&tag, s->dims, bad, &cand[0]);
    drop_blocks(&tag, s->rank, bad, &cand[1]);
    for (int c = 0; c < 2; c++) {
      LyBuf sp;
      ly_buf_init(&sp);
      lyd_tag_print(&cand[c], s->rank, &sp);
      LyType u = sp.oom ? (LyType){NULL} : lyTypeWithLayout(ctx, t, ly_buf_cstr(&sp));
      ly_buf_free(&sp);
      if (!lyTypeIsNull(u) && reshapes_to_view(ctx, u, rank, dims, strided, unused)) {
        r = u;
        goto done;
      }
    }
  }
  r = lyTypeWithLayout(ctx, t, "");
done:
  view_done(&v);
  return r;
}
