/* desc/print: the canonical spelling of a descriptor. It picks the most
 * familiar form that reproduces the descriptor exactly: no layout, a format
 * tag, strided, and the general form only when nothing else fits. Each
 * candidate is checked by lowering it again and comparing digits. */
#include "desc/desc.h"

#include <stdlib.h>
#include <string.h>

static bool same_digits(const LyTypeImpl *t, LyDigit *g, int n, int64_t alloc) {
  if (alloc != t->alloc)
    return false;
  LyArena scratch; /* candidates are simple digits: nothing is allocated */
  ly_arena_init(&scratch);
  n = lyd_canonicalize(t->rank, t->dims, g, n, &scratch);
  bool same = n == t->ndigits && lyd_digits_equal(t->rank, g, t->digits, n);
  ly_arena_free(&scratch);
  return same;
}

static bool all_simple(const LyTypeImpl *t) {
  for (int k = 0; k < t->ndigits; k++)
    if (t->digits[k].dim < 0)
      return false;
  return true;
}

static int stride_desc(const void *a, const void *b) {
  int64_t x = (*(const LyDigit *const *)a)->stride, y = (*(const LyDigit *const *)b)->stride;
  return x > y ? -1 : x < y;
}

void lyd_tag_print(const LyTagInfo *tag, int rank, LyBuf *out) {
  bool blocked[LY_MAX_RANK] = {0};
  for (int j = 0; j < tag->nblocks; j++)
    blocked[tag->block_dim[j]] = true;
  ly_buf_puts(out, "\"");
  for (int k = 0; k < rank; k++)
    ly_buf_printf(out, "%c", (blocked[tag->order[k]] ? 'A' : 'a') + tag->order[k]);
  for (int j = 0; j < tag->nblocks; j++)
    ly_buf_printf(out, "%lld%c", (long long)tag->block_size[j], 'a' + tag->block_dim[j]);
  ly_buf_puts(out, "\"");
}

/* Reads a format tag off the digits: each dim's unwrapped digit is its outer
 * dim, wrapped digits are inner blocks, both ordered by stride. A dim that
 * fits inside one padded block has a single unwrapped digit whose span (the
 * gap to the next stride) exceeds its extent: the digits in `as_block` are
 * read as blocks of that span instead. */
static bool tag_candidate(const LyTypeImpl *t, const bool *as_block, const int64_t *span, LyTagInfo *info) {
  const LyDigit *outer[LY_MAX_RANK] = {0};
  const LyDigit *blocks[LY_MAX_DIGITS];
  const LyDigit *outs[LY_MAX_RANK];
  int64_t bsize[LY_MAX_DIGITS];
  int nb = 0, no = 0;
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    if (g->wrap || as_block[k])
      blocks[nb++] = g;
    else if (outer[g->dim])
      return false;
    else
      outer[g->dim] = outs[no++] = g;
  }
  if (nb > LY_MAX_BLOCKS)
    return false;
  qsort(blocks, nb, sizeof *blocks, stride_desc);
  qsort(outs, no, sizeof *outs, stride_desc);
  *info = (LyTagInfo){.nblocks = nb};
  for (int j = 0; j < nb; j++) {
    int k = (int)(blocks[j] - t->digits);
    bsize[j] = as_block[k] ? span[k] : blocks[j]->ext;
    info->block_dim[j] = blocks[j]->dim, info->block_size[j] = bsize[j];
  }
  int n = 0;
  for (int k = 0; k < no; k++)
    info->order[n++] = outs[k]->dim;
  /* Dims without an outer digit have outer extent 1: their place does not
   * matter, so put each before the first placed dim that follows it. */
  for (int d = 0; d < t->rank; d++) {
    if (outer[d])
      continue;
    int p = 0;
    while (p < n && info->order[p] < d)
      p++;
    memmove(info->order + p + 1, info->order + p, (n - p) * sizeof(int));
    info->order[p] = d;
    n++;
  }
  return true;
}

static bool tag_matches(const LyTypeImpl *t, const bool *as_block, const int64_t *span, LyTagInfo *info) {
  LyDigit g[LY_MAX_DIGITS + LY_MAX_RANK];
  int64_t alloc;
  if (!tag_candidate(t, as_block, span, info))
    return false;
  int m = lyd_tag_digits(info, t->rank, t->dims, g, &alloc);
  return m >= 0 && same_digits(t, g, m, alloc);
}

bool lyd_tag_of(const LyTypeImpl *t, LyTagInfo *info) {
  if (t->kind != LYD_DIGITS || !lyd_is_static(t) || t->base != 0 || !all_simple(t) || t->rank == 0)
    return false;
  /* Span of each digit: the stride of the next larger digit over its own. */
  int64_t span[LY_MAX_DIGITS] = {0};
  int per_dim[LY_MAX_RANK] = {0};
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    if (g->stride <= 0)
      return false;
    per_dim[g->dim]++;
    int64_t above = t->alloc;
    for (int j = 0; j < t->ndigits; j++)
      if (t->digits[j].stride > g->stride && t->digits[j].stride < above)
        above = t->digits[j].stride;
    span[k] = above % g->stride ? 0 : above / g->stride;
  }
  bool none[LY_MAX_DIGITS] = {0}, all[LY_MAX_DIGITS] = {0}, any = false;
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    all[k] = !g->wrap && g->div == 1 && per_dim[g->dim] == 1 && span[k] > g->ext;
    any = any || all[k];
  }
  bool found = tag_matches(t, none, span, info) || (any && tag_matches(t, all, span, info));
  for (int k = 0; k < t->ndigits && any && !found; k++) {
    bool one[LY_MAX_DIGITS] = {0};
    one[k] = all[k];
    found = all[k] && tag_matches(t, one, span, info);
  }
  /* A dim equal to its block ("OIhw16i16o" on 16x64x3x3) has one plain
   * digit that fills its span exactly: try such digits (and those of dims
   * inside one padded block) as blocks, one and then two at a time (SPEC
   * 3.5: a tag never prints in the general form). */
  bool fits[LY_MAX_DIGITS] = {0};
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    fits[k] = all[k] || (!g->wrap && span[k] >= g->ext && span[k] > 1);
  }
  for (int k = 0; k < t->ndigits && !found; k++) {
    bool one[LY_MAX_DIGITS] = {0};
    one[k] = fits[k];
    found = fits[k] && tag_matches(t, one, span, info);
  }
  for (int k = 0; k < t->ndigits && !found; k++)
    for (int j = k + 1; j < t->ndigits && !found && fits[k]; j++) {
      bool two[LY_MAX_DIGITS] = {0};
      two[k] = two[j] = fits[j];
      found = fits[j] && tag_matches(t, two, span, info);
    }
  return found;
}

static bool try_tag(const LyTypeImpl *t, LyBuf *out) {
  LyTagInfo info;
  if (!lyd_tag_of(t, &info))
    return false;
  bool ident = info.nblocks == 0;
  for (int k = 0; k < t->rank && ident; k++)
    ident = info.order[k] == k;
  if (!ident) /* identity is row-major, printed as no layout */
    lyd_tag_print(&info, t->rank, out);
  return true;
}

/* --- tiled_layout ------------------------------------------------------------ */

/* Tile entries without their leading 1s (a tile of 1 changes nothing). */
static void trim_tile(LyTile *tl) {
  int k = 0;
  while (k < tl->n - 1 && tl->size[k] == 1)
    k++;
  memmove(tl->size, tl->size + k, (tl->n - k) * sizeof *tl->size);
  tl->n -= k;
}

/* The tiled spelling of one choice of first-tile sizes t1[d]: a second tile
 * splits count dims by c[d] and within dims by w[d]. */
static void tiled_spec(const LyTypeImpl *t, const int *perm, const int64_t *t1, const int64_t *c,
                       const int64_t *w, LySpec *s) {
  int r = t->rank;
  memset(s, 0, sizeof *s);
  s->kind = LYS_TILED;
  s->nperm = r;
  memcpy(s->perm, perm, r * sizeof *perm);
  LyTile *a = &s->tiles[0], *b = &s->tiles[1];
  a->n = r;
  for (int k = 0; k < r; k++)
    a->size[k] = t1[perm[k]];
  trim_tile(a);
  bool second = false;
  if (r + a->n > LY_MAX_RANK) { /* a second tile would exceed the tile rank */
    s->ntiles = a->n == 1 && a->size[0] == 1 ? 0 : 1;
    return;
  }
  for (int k = 0; k < r; k++)
    b->size[b->n++] = c[perm[k]], second = second || c[perm[k]] != 1;
  for (int k = r - a->n; k < r; k++)
    b->size[b->n++] = w[perm[k]], second = second || w[perm[k]] != 1;
  trim_tile(b);
  s->ntiles = a->n == 1 && a->size[0] == 1 && !second ? 0 : second ? 2 : 1;
}

static void print_tiled(const LySpec *s, LyBuf *out) {
  ly_buf_puts(out, "tiled_layout<<");
  for (int k = 0; k < s->nperm; k++)
    ly_buf_printf(out, "%s%d", k ? "," : "", s->perm[k]);
  ly_buf_puts(out, ">");
  for (int j = 0; j < s->ntiles; j++) {
    ly_buf_puts(out, ",(");
    for (int e = 0; e < s->tiles[j].n; e++) {
      if (s->tiles[j].size[e])
        ly_buf_printf(out, "%s%lld", e ? "," : "", (long long)s->tiles[j].size[e]);
      else
        ly_buf_printf(out, "%s*", e ? "," : "");
    }
    ly_buf_puts(out, ")");
  }
  ly_buf_puts(out, ">");
}

/* Whether the tiled spec s lowers to exactly t's digits and allocation. */
static bool tiled_matches(const LyTypeImpl *t, const LySpec *s) {
  if (lyd_tiled_alloc(s, t->rank, t->dims) != t->alloc)
    return false;
  LyDigit g[LY_MAX_DIGITS];
  int64_t alloc;
  LyArena scratch;
  ly_arena_init(&scratch);
  int n = lyd_tiled_digits(s, t->rank, t->dims, g, &alloc, &scratch);
  bool same = n >= 0 && alloc == t->alloc && n == t->ndigits && lyd_digits_equal(t->rank, g, t->digits, n);
  ly_arena_free(&scratch);
  return same;
}

/* The first tiling of `ntiles` tiles in perm's order whose first tile
 * takes, for each dim d, one of its candidate sizes divs[d] (the earlier
 * ones first; the first ndiv[d] are its digits' divisors, which alone give
 * the second tile's splits: the neighbouring ones that divide, or with
 * ntiles 3, two tiles whose splits need not divide what they split). */
static bool tiled_in_order(const LyTypeImpl *t, const int *perm, int64_t (*divs)[LY_MAX_DIGITS + 2],
                           const int *ndiv, const int *nd, int ntiles, LySpec *found) {
  int r = t->rank, choice[LY_MAX_RANK] = {0};
  bool loose = ntiles == 3;
  ntiles = loose ? 2 : ntiles;
  for (int tries = 0; tries < 4096; tries++) {
    int64_t t1[LY_MAX_RANK], c[LY_MAX_RANK], w[LY_MAX_RANK];
    for (int d = 0; d < r; d++) {
      t1[d] = divs[d][choice[d]];
      c[d] = w[d] = 1;
      for (int j = 0; j < ndiv[d]; j++) {
        int64_t x = divs[d][j];
        if (x > t1[d] && (loose || x % t1[d] == 0) && (c[d] == 1 || x / t1[d] < c[d]))
          c[d] = x / t1[d];
        if (x < t1[d] && x > w[d] && (loose || t1[d] % x == 0))
          w[d] = x;
      }
    }
    LySpec s;
    tiled_spec(t, perm, t1, c, w, &s);
    if (s.ntiles == ntiles && tiled_matches(t, &s)) {
      *found = s;
      return true;
    }
    int d = 0; /* next combination */
    while (d < r && ++choice[d] == nd[d])
      choice[d++] = 0;
    if (d == r)
      return false;
  }
  return false;
}

/* Reads an XLA tiling (one or two tiles) off the digits: each dim's first
 * tile is one of its digits' divisors or its whole extent, the next larger
 * divisor gives the second tile's split of the count dim, the next smaller
 * one its split of the within dim. The spelling a user would write comes
 * first: one tile before two, and the dims in their own order (`order`, or
 * 0..r-1 when NULL; a dim tiled by its extent, its count 1, stays where it
 * is rather than being moved out by a tile of 1: XLA's `T(2,*,128)` on
 * bf16[2,3,1004]) before the permutation of the outermost digits' strides.
 * Each candidate is lowered and compared. */
static bool find_tiled(const LyTypeImpl *t, const int *order, LySpec *found) {
  int r = t->rank;
  if (r == 0 || t->base != 0 || !all_simple(t))
    return false;
  int64_t divs[LY_MAX_RANK][LY_MAX_DIGITS + 2], outer_stride[LY_MAX_RANK];
  int nd[LY_MAX_RANK] = {0};
  for (int d = 0; d < r; d++)
    divs[d][nd[d]++] = 1, outer_stride[d] = -1;
  for (int k = 0; k < t->ndigits; k++) { /* a dim's digits come largest div first */
    const LyDigit *g = &t->digits[k];
    if (outer_stride[g->dim] < 0)
      outer_stride[g->dim] = g->stride;
    if (g->div > 1)
      divs[g->dim][nd[g->dim]++] = g->div;
  }
  int ndiv[LY_MAX_RANK]; /* the whole extent, last: a tile of 1 reads simpler when both fit */
  for (int d = 0; d < r; d++)
    if ((ndiv[d] = nd[d]), t->dims[d] > 1)
      divs[d][nd[d]++] = t->dims[d];
  int own[LY_MAX_RANK], perm[LY_MAX_RANK], np = 0;
  for (int d = 0; d < r; d++) { /* insertion sort by outer stride, digitless dims in place */
    int p = np;
    while (p > 0 && outer_stride[d] >= 0 && outer_stride[perm[p - 1]] >= 0 && outer_stride[perm[p - 1]] < outer_stride[d])
      p--;
    memmove(perm + p + 1, perm + p, (np - p) * sizeof *perm);
    perm[p] = d;
    own[d] = order ? order[d] : d;
    np++;
  }
  /* A tile of a tile that does not divide it leaves divisors that do not
   * divide each other (floor(i/3) and floor(i/2) mod 2 for (3),(2) on 6):
   * only then are such splits tried, as a third pass. */
  bool loose = false;
  for (int d = 0; d < r; d++)
    for (int j = 1; j < ndiv[d]; j++)
      for (int k = 1; k < j && !loose; k++)
        loose = divs[d][k] % divs[d][j] != 0;
  bool other = memcmp(perm, own, (size_t)r * sizeof *perm) != 0;
  for (int ntiles = 1; ntiles <= (loose ? 3 : 2); ntiles++)
    if (tiled_in_order(t, own, divs, ndiv, nd, ntiles, found) ||
        (other && tiled_in_order(t, perm, divs, ndiv, nd, ntiles, found)))
      return true;
  return false;
}

/* Builds an XLA tiling piece by piece from the digits in memory order
 * (descending stride), for layouts the one- and two-tile reading misses
 * (three tiles, blocks of blocks, dims smaller than their tile, a dim's low
 * digit above its high one). A piece is a digit with its slot (the stride
 * gap above it) or a gap (padding no digit explains: a tile of a place whose
 * count is 1).
 *
 * Tiling keeps each count in its place and appends the within-tile dims, so
 * the places of the final shape are, in memory order: the permuted logical
 * dims (each holding its dim's top digit, or gone when its count is 1), then
 * the within dims in the order the tiles made them. Each place holds a
 * contiguous range of its dim's digits, [lo, hi) in units of the dim's index.
 * The first `pre` pieces are the permuted dims' places; every later piece is
 * made by one tile that splits the place holding its digit at the digit's
 * top: the within keeps [lo, top), the digits under the piece that come
 * later in memory and are split off it in turn, and the count keeps
 * [top, hi). So each later piece is one tile, its size the product of the
 * slots of the piece and of the digits under it in that place. */
typedef struct {
  int dim; /* -1: a gap */
  int64_t slot;
  int64_t ext; /* a block padded to its slot by a later tile: its extent, else 0 */
  int64_t div; /* the digit's divisor */
  int64_t top; /* div * its extent when it wraps; INT64_MAX for a dim's top digit */
} Piece;

typedef struct {
  int dim, at;    /* logical dim, position in the current shape */
  int64_t lo, hi; /* the digits it holds, [lo, hi) */
} Place;

/* The tiles being built. A split of the place at position `at` joins the
 * last tile when that tile covers the place and its earlier splits are at
 * lower positions (their withins then come first, as memory order wants);
 * otherwise it starts a tile of rank cur - at, 1 on every later place. Joining
 * keeps the tiles few and their ranks low. */
typedef struct {
  LySpec *s;
  int cur;  /* rank of the shape so far */
  bool open;
  int at0;  /* the last tile's first place, */
  int base; /* the rank before it, */
  int last; /* and its last split place */
} Tiler;

/* Splits the place at `at` by `size`; the within's position, -1 past the limits. */
static int split(Tiler *T, int at, int64_t size) {
  LySpec *s = T->s;
  if (T->open && at > T->last && at < T->base) {
    s->tiles[s->ntiles - 1].size[at - T->at0] = size;
    T->last = at;
    return T->base + (at - T->at0);
  }
  int kt = T->cur - at;
  if (s->ntiles == LY_MAX_TILES || kt > LY_MAX_RANK) /* the shape's rank: lyd_tiled_digits checks it */
    return -1;
  LyTile *tl = &s->tiles[s->ntiles++];
  tl->n = kt;
  tl->size[0] = size;
  for (int j = 1; j < kt; j++)
    tl->size[j] = 1;
  T->open = true, T->at0 = at, T->base = T->cur, T->last = at;
  T->cur += kt;
  return T->base;
}

/* The place holding piece k's digit, and the product of the digits under it
 * there (each a later piece: it is split off the within in turn; a padded
 * block counts its extent, at which it is split); -1 when there is none or
 * a digit under it came earlier. */
static int holder(const Piece *P, int n, int k, const Place *pl, int nplaces, int64_t *lower) {
  int d = P[k].dim, q = 0;
  while (q < nplaces && !(pl[q].dim == d && pl[q].lo <= P[k].div && P[k].div < pl[q].hi))
    q++;
  if (q == nplaces)
    return -1;
  *lower = 1;
  for (int j = 0; j < n; j++) {
    if (P[j].dim != d || j == k || P[j].div < pl[q].lo || P[j].div >= P[k].div)
      continue;
    if (j < k || !ly_mul(*lower, P[j].ext ? P[j].ext : P[j].slot, lower))
      return -1;
  }
  return q;
}

static bool pieces_spec(const LyTypeImpl *t, const Piece *P, int n, int pre, bool ones_first, LySpec *s) {
  int r = t->rank, np = 0, nplaces = 0;
  Tiler T = {.s = s, .cur = r};
  Place pl[LY_MAX_RANK + 2 * LY_MAX_DIGITS + 2];
  bool in_pre[LY_MAX_RANK] = {0}, top_left[LY_MAX_RANK] = {0};
  for (int k = 0; k < n; k++)
    if (P[k].dim >= 0 && P[k].top == INT64_MAX)
      top_left[P[k].dim] = true;
  for (int k = 0; k < pre; k++) {
    if (P[k].dim < 0 || in_pre[P[k].dim] || P[k].top != INT64_MAX)
      return false; /* a permuted dim's place holds its top digit */
    in_pre[P[k].dim] = true;
  }
  memset(s, 0, sizeof *s);
  s->kind = LYS_TILED;
  s->nperm = r;
  /* The dims whose count is 1 (their places vanish) go before or after the
   * others: after keeps the tiles' ranks low, before is what some tilings need. */
  int initial[LY_MAX_RANK]; /* each dim's permuted place */
  for (int pass = 0; pass < 3; pass++) {
    if (pass == (ones_first ? 2 : 0))
      continue;
    if (pass == 1) {
      for (int k = 0; k < pre; k++)
        initial[P[k].dim] = nplaces, pl[nplaces++] = (Place){P[k].dim, np, 1, INT64_MAX},
        s->perm[np++] = P[k].dim, top_left[P[k].dim] = false;
      continue;
    }
    for (int d = 0; d < r; d++)
      if (!in_pre[d])
        initial[d] = nplaces, pl[nplaces++] = (Place){d, np, 1, INT64_MAX}, s->perm[np++] = d;
  }
  for (int k = pre; k < n; k++) {
    int d = P[k].dim, at = -1;
    if (d < 0) { /* a gap: a tile of a permuted dim's place once its count is 1 */
      for (int e = 0; e < r && at < 0; e++)
        if (!in_pre[e] && !top_left[e])
          at = pl[initial[e]].at;
      if (at < 0 || split(&T, at, P[k].slot) < 0)
        return false;
      continue;
    }
    /* A run of padded blocks of distinct dims: each is split at its extent,
     * then tiled by its slot; the extents share one tile, the slots the next. */
    int k2 = k + 1;
    if (P[k].ext) {
      bool used[LY_MAX_RANK] = {0};
      used[d] = true;
      while (k2 < n && P[k2].dim >= 0 && P[k2].ext && !used[P[k2].dim])
        used[P[k2++].dim] = true;
    }
    int q[LY_MAX_RANK], pos[LY_MAX_RANK];
    int64_t lower[LY_MAX_RANK], size;
    for (int j = k; j < k2; j++) {
      int i = j - k;
      if ((q[i] = holder(P, n, j, pl, nplaces, &lower[i])) < 0)
        return false;
      pos[i] = pl[q[i]].at;
      if (P[j].ext && (!ly_mul(P[j].ext, lower[i], &size) || (pos[i] = split(&T, pos[i], size)) < 0))
        return false;
    }
    for (int j = k; j < k2; j++) {
      int i = j - k;
      if (!ly_mul(P[j].slot, lower[i], &size) || (at = split(&T, pos[i], size)) < 0)
        return false;
      pl[nplaces++] = (Place){P[j].dim, at, pl[q[i]].lo, P[j].top};
      pl[q[i]].lo = P[j].top; /* the count keeps what is above */
      if (P[j].top == INT64_MAX)
        top_left[P[j].dim] = false;
    }
    k = k2 - 1;
  }
  return true;
}

/* The pieces of t in memory order; -1 when the strides do not nest. Padding
 * above a block is either a gap or the block's own (padded by a later tile):
 * bit j of `pad` chooses the block's own for the j-th such block; *npadded
 * counts them. */
static int tiled_pieces(const LyTypeImpl *t, unsigned pad, Piece *P, int *npadded) {
  int n = t->ndigits, m = 0, j = 0;
  const LyDigit *D[LY_MAX_DIGITS];
  for (int k = 0; k < n; k++)
    if ((D[k] = &t->digits[k])->stride <= 0)
      return -1;
  qsort(D, n, sizeof *D, stride_desc);
  int64_t above = t->alloc;
  for (int k = 0; k < n; k++) {
    if (above % D[k]->stride)
      return -1;
    int64_t slot = above / D[k]->stride;
    int64_t ext = 0, top = INT64_MAX;
    if (D[k]->wrap && !ly_mul(D[k]->div, D[k]->ext, &top))
      return -1;
    if (D[k]->wrap && slot > D[k]->ext) { /* a block padded by a later tile, or a gap above it */
      bool own = slot % D[k]->ext || (j < 31 && pad >> j & 1);
      j++;
      if (own)
        ext = D[k]->ext;
      else
        P[m++] = (Piece){-1, slot / D[k]->ext, 0, 0, 0}, slot = D[k]->ext;
    }
    P[m++] = (Piece){D[k]->dim, slot, ext, D[k]->div, top};
    above = D[k]->stride;
  }
  if (above > 1)
    P[m++] = (Piece){-1, above, 0, 0, 0};
  *npadded = j;
  return m;
}

static bool find_tiled_pieces(const LyTypeImpl *t, LySpec *found) {
  Piece P[2 * LY_MAX_DIGITS + 1];
  if (t->rank == 0 || t->base != 0 || !all_simple(t) || t->alloc <= 0)
    return false;
  int npadded = 0;
  for (unsigned pad = 0; pad < 1u << (npadded < 6 ? npadded : 6); pad++) {
    int n = tiled_pieces(t, pad, P, &npadded);
    for (int pre = t->rank < n ? t->rank : n; pre >= 0; pre--) {
      for (int ones_first = 0; ones_first < 2; ones_first++) {
        LySpec s;
        if (pieces_spec(t, P, n, pre, ones_first, &s) && tiled_matches(t, &s)) {
          *found = s;
          return true;
        }
      }
    }
  }
  return false;
}

/* --- tiled_layout read back by un-tiling ------------------------------------ */

/* Tiles of tiles that do not divide what they tile lower to nested digits,
 * which on small types separate into simple digits that no longer show the
 * tiles (`tiled_layout<<0>,(3),(8,2)>` on 5 has a digit of stride -15).
 * Those are read off the offsets instead. A tiling's offset is row-major
 * over its final shape, whose last places are the last tile's withins
 * (x mod s, extent s) and, just above them, its counts (floor(x/s)): so the
 * last tile is peeled off the offsets as mixed-radix digits from the bottom,
 * each a function of one dim (a count of the same dim as its within), and
 * the places it split are put back together, x = count*s + within, with the
 * extent x had: the range of its values, its dim's extent when x is that
 * dim's index, or count*s. That gives the offsets of the tiling without its
 * last tile, read the same way until what is left is row-major over the
 * dims. Every candidate is lowered and compared; the search reads at most
 * UNTILE_MAX_ELEMS elements and stops after UNTILE_BUDGET element steps. */
#define UNTILE_MAX_ELEMS 4096 /* each search reads every element */
#define UNTILE_MAX_TILES 3
#define UNTILE_MAX_K 4
#define UNTILE_MAX_RADIX 256
#define UNTILE_MAX_ALLOC INT32_MAX
#define UNTILE_ARRAYS (4 * UNTILE_MAX_K + 1) /* per tile: withins, counts, quotients, the next offsets */
typedef uint32_t UVal; /* an offset or a digit */
#define UNTILE_BUDGET (1 << 17)

typedef struct {
  const LyTypeImpl *t;
  int r;
  int64_t n;
  UVal *zero[LY_MAX_RANK];  /* flat index with i_d set to 0 */
  UVal *coord[LY_MAX_RANK]; /* i_d of each flat index */
  int64_t work;
  UVal *pool; /* scratch arrays, n each */
  int maxdepth;  /* the number of tiles tried, */
  int maxsum;    /* and of their entries */
  int sum;       /* entries on the stack */
  unsigned char seen[UNTILE_MAX_RADIX * UNTILE_MAX_RADIX + 1];
  LyTile stack[UNTILE_MAX_TILES]; /* the tiles found, last first */
  LySpec *found;
} Untiler;

typedef struct {
  const UVal *F;
  UVal *quo[2 * UNTILE_MAX_K + 1]; /* F over the radices peeled before each stage */
  int64_t A, P;
  int k, depth;
  int64_t s[UNTILE_MAX_K], c[UNTILE_MAX_K], X[UNTILE_MAX_K];
  int dw[UNTILE_MAX_K], dc[UNTILE_MAX_K]; /* the dims the within and the count depend on */
  UVal *w[UNTILE_MAX_K], *cn[UNTILE_MAX_K], *next;
} UntileStep;

static bool untile(Untiler *U, const UVal *F, int64_t A, int depth);

/* The one dim w depends on; -1 when it is constant, -2 for several. */
static int untile_dep(Untiler *U, const UVal *w) {
  int dim = -1;
  U->work += U->n;
  for (int d = 0; d < U->r; d++) {
    if (U->t->dims[d] == 1)
      continue;
    const UVal *z = U->zero[d];
    for (int64_t i = 0; i < U->n; i++)
      if (w[i] != w[z[i]]) {
        if (dim >= 0)
          return -2;
        dim = d;
        break;
      }
  }
  return dim;
}

/* Whether the values of w are 0..max without a gap, as every place's are (a
 * dim's index, its count by a tile, its remainder modulo a tile). */
static bool untile_range(Untiler *U, const UVal *w, int64_t *max) {
  int64_t m = 0;
  for (int64_t i = 0; i < U->n; i++)
    m = w[i] > m ? w[i] : m;
  *max = m;
  if (m + 1 > U->n)
    return false;
  if (m >= (int64_t)sizeof U->seen)
    return true; /* not checked */
  memset(U->seen, 0, (size_t)m + 1);
  int64_t got = 0;
  for (int64_t i = 0; i < U->n; i++)
    if (!U->seen[w[i]])
      U->seen[w[i]] = 1, got++;
  U->work += U->n;
  return got == m + 1;
}

/* F row-major over the dims (those of extent 1 anywhere): then the tiles on
 * the stack, over each placement of the extent-1 dims, checked by lowering. */
static bool untile_base(Untiler *U, const UVal *F, int64_t A, int depth) {
  const LyTypeImpl *t = U->t;
  int r = U->r, vis[LY_MAX_RANK], nv = 0, ones[LY_MAX_RANK], no = 0;
  int64_t stride[LY_MAX_RANK], unit = 1;
  for (int d = r - 1; d >= 0; d--) {
    stride[d] = t->dims[d] > 1 ? F[unit] : 0;
    unit *= t->dims[d];
  }
  for (int d = 0; d < r; d++) {
    if (t->dims[d] == 1) {
      ones[no++] = d;
      continue;
    }
    int p = nv++;
    for (; p > 0 && stride[vis[p - 1]] < stride[d]; p--)
      vis[p] = vis[p - 1];
    vis[p] = d;
  }
  int64_t expect = 1;
  for (int j = nv - 1; j >= 0; j--) {
    if (stride[vis[j]] != expect)
      return false;
    expect *= t->dims[vis[j]];
  }
  if (expect != A)
    return false;
  U->work += U->n;
  for (int64_t i = 0; i < U->n; i++) {
    int64_t x = 0;
    for (int d = 0; d < r; d++)
      x += U->coord[d][i] * stride[d];
    if (x != F[i])
      return false;
  }
  LySpec s;
  memset(&s, 0, sizeof s);
  s.kind = LYS_TILED;
  s.nperm = r;
  s.ntiles = depth;
  for (int j = 0; j < depth; j++)
    s.tiles[j] = U->stack[depth - 1 - j];
  /* Each placement of the extent-1 dims among the others, theirs kept in
   * order: a bitmask of r bits with `no` set. */
  for (unsigned m = 0; m < 1u << r && m < 1u << 12; m++) {
    if (__builtin_popcount(m) != no)
      continue;
    int a = 0, b = 0;
    for (int p = 0; p < r; p++)
      s.perm[p] = m >> p & 1 ? ones[a++] : vis[b++];
    if (tiled_matches(t, &s)) {
      *U->found = s;
      return true;
    }
  }
  return false;
}

static bool untile_exts(Untiler *U, UntileStep *S, int e) {
  int k = S->k;
  if (e == k) {
    int64_t A, X = 1;
    for (int j = 0; j < k; j++)
      if (!ly_mul(X, S->X[j], &X))
        return false;
    if (!ly_mul(S->A / S->P, X, &A) || A > UNTILE_MAX_ALLOC)
      return false;
    U->work += U->n;
    for (int64_t i = 0; i < U->n; i++) {
      int64_t v = S->quo[2 * k][i];
      for (int j = 0; j < k; j++)
        v = v * S->X[j] + S->cn[j][i] * S->s[j] + S->w[j][i];
      S->next[i] = (UVal)v;
    }
    U->stack[S->depth] = (LyTile){.n = k};
    for (int j = 0; j < k; j++)
      U->stack[S->depth].size[j] = S->s[j];
    return untile(U, S->next, A, S->depth + 1);
  }
  if (S->s[e] == 1) {
    S->X[e] = S->c[e];
    return untile_exts(U, S, e + 1);
  }
  /* The extent of x = count*s + within: its dim's extent when x is that
   * dim's index, the range of its values, or count*s. */
  int64_t qmax = 0, cand[3];
  int pd = S->dw[e] >= 0 ? S->dw[e] : S->dc[e];
  bool ident = pd >= 0;
  for (int64_t i = 0; i < U->n; i++) {
    int64_t q = S->cn[e][i] * S->s[e] + S->w[e][i];
    S->next[i] = (UVal)q;
    ident = ident && q == U->coord[pd][i];
  }
  if (!untile_range(U, S->next, &qmax))
    return false;
  int nc = 0;
  if (S->depth == U->maxdepth - 1 && !ident && qmax > 0)
    return false; /* the first tile's places are the dims */
  if (ident)
    cand[nc++] = U->t->dims[pd];
  cand[nc++] = qmax + 1;
  cand[nc++] = S->c[e] * S->s[e];
  for (int j = 0; j < nc; j++) {
    bool seen = false;
    for (int i = 0; i < j; i++)
      seen = seen || cand[i] == cand[j];
    if (seen || cand[j] <= qmax || cand[j] <= (S->c[e] - 1) * S->s[e] || cand[j] > S->c[e] * S->s[e])
      continue;
    S->X[e] = cand[j];
    if (untile_exts(U, S, e + 1))
      return true;
    if (U->work > UNTILE_BUDGET)
      return false;
  }
  return false;
}

/* Peels the k withins (bottom first), then the k counts, as radices of the
 * offsets above the last tile. */
static bool untile_peel(Untiler *U, UntileStep *S, int j) {
  int k = S->k;
  if (j == 2 * k)
    return untile_exts(U, S, 0);
  bool within = j < k;
  int e = within ? k - 1 - j : 2 * k - 1 - j;
  int64_t rest = S->A / S->P;
  UVal *arr = within ? S->w[e] : S->cn[e];
  const UVal *quo = S->quo[j];
  bool last = S->depth == U->maxdepth - 1;
  /* A count takes every value below its extent (it is never padded); a
   * within does, or is a tile wider than what it tiles (padding): those
   * come second. */
  for (int pass = 0; pass < (within ? 2 : 1); pass++)
  for (int64_t x = rest < UNTILE_MAX_RADIX ? rest : UNTILE_MAX_RADIX; x >= 1; x--) {
    if (rest % x || (within && e == 0 && x == 1)) /* a leading 1 is a smaller tile */
      continue;
    U->work += U->n;
    int64_t max = 0;
    for (int64_t i = 0; i < U->n; i++) {
      arr[i] = quo[i] % (UVal)x;
      max = arr[i] > max ? arr[i] : max;
    }
    if (pass == 0 ? max + 1 != x : max + 1 >= x)
      continue;
    if (x > 1 && !untile_range(U, arr, &max))
      continue;
    int dep = x == 1 ? -1 : untile_dep(U, arr);
    if (dep == -2 || (!within && dep >= 0 && S->dw[e] >= 0 && dep != S->dw[e]))
      continue;
    if (last && dep >= 0) { /* the first tile splits the dims' own indices */
      const UVal *ix = U->coord[dep];
      int64_t div = within ? 1 : S->s[e];
      bool same = true;
      for (int64_t i = 0; i < U->n && same; i++)
        same = arr[i] == ix[i] / div % x;
      if (!same)
        continue;
    }
    if (within)
      S->dw[e] = dep, S->s[e] = x;
    else
      S->dc[e] = dep, S->c[e] = x;
    S->P *= x;
    U->work += U->n;
    for (int64_t i = 0; i < U->n; i++)
      S->quo[j + 1][i] = quo[i] / (UVal)x;
    bool ok = untile_peel(U, S, j + 1);
    S->P /= x;
    if (ok)
      return true;
    if (U->work > UNTILE_BUDGET)
      return false;
  }
  return false;
}

static bool untile(Untiler *U, const UVal *F, int64_t A, int depth) {
  if (depth > 0 && untile_base(U, F, A, depth))
    return true;
  if (depth == U->maxdepth || U->work > UNTILE_BUDGET)
    return false;
  UntileStep S = {.F = F, .A = A, .P = 1, .depth = depth};
  UVal *mem = U->pool + (int64_t)depth * UNTILE_ARRAYS * U->n;
  for (int j = 0; j < UNTILE_MAX_K; j++)
    S.w[j] = mem + (int64_t)(2 * j) * U->n, S.cn[j] = mem + (int64_t)(2 * j + 1) * U->n;
  S.quo[0] = (UVal *)F;
  for (int j = 1; j <= 2 * UNTILE_MAX_K; j++)
    S.quo[j] = mem + (int64_t)(2 * UNTILE_MAX_K + j - 1) * U->n;
  S.next = mem + (int64_t)(4 * UNTILE_MAX_K) * U->n;
  for (int k = 1; k <= UNTILE_MAX_K && U->sum + k + (U->maxdepth - depth - 1) <= U->maxsum; k++) {
    S.k = k;
    U->sum += k;
    bool ok = untile_peel(U, &S, 0);
    U->sum -= k;
    if (ok)
      return true;
    if (U->work > UNTILE_BUDGET)
      return false;
  }
  return false;
}

static bool find_untiled(const LyTypeImpl *t, LySpec *found) {
  if (t->rank == 0 || t->base != 0 || t->alloc <= 0 || t->alloc > UNTILE_MAX_ALLOC || !lyd_is_static(t))
    return false;
  Untiler U = {.t = t, .r = t->rank, .n = 1, .found = found};
  for (int d = 0; d < t->rank; d++)
    if (!ly_mul(U.n, t->dims[d], &U.n) || U.n > UNTILE_MAX_ELEMS)
      return false;
  for (int k = 0; k < t->ndigits; k++) { /* digits that join dims come from '*' */
    int uses = 0;
    for (int d = 0; d < t->rank; d++)
      uses += t->dims[d] > 1 && lyd_digit_uses_dim(&t->digits[k], t->rank, d);
    if (uses > 1)
      return false;
  }
  if (U.n < 2)
    return false;
  int64_t per = (int64_t)UNTILE_MAX_TILES * UNTILE_ARRAYS + 1 + 2 * t->rank;
  UVal *mem = ly_malloc((size_t)(per * U.n) * sizeof *mem);
  if (!mem)
    return false;
  UVal *F = mem;
  U.pool = mem + U.n;
  for (int d = 0; d < t->rank; d++)
    U.zero[d] = U.pool + (int64_t)UNTILE_MAX_TILES * UNTILE_ARRAYS * U.n + (int64_t)(2 * d) * U.n,
    U.coord[d] = U.zero[d] + U.n;
  int64_t idx[LY_MAX_RANK] = {0};
  bool ok = true;
  for (int64_t i = 0; i < U.n && ok; i++) {
    int64_t mul = 1, off = lyd_offset(t, idx);
    for (int d = t->rank - 1; d >= 0; d--) {
      U.coord[d][i] = (UVal)idx[d];
      U.zero[d][i] = (UVal)(i - idx[d] * mul);
      mul *= t->dims[d];
    }
    ok = off >= 0 && off < t->alloc;
    F[i] = (UVal)off;
    for (int d = t->rank - 1; d >= 0 && ++idx[d] == t->dims[d]; d--)
      idx[d] = 0;
  }
  /* A tiling puts each element in its own place. */
  size_t bytes = (size_t)t->alloc / 8 + 1;
  unsigned char *used = ok && t->alloc <= UNTILE_MAX_ALLOC / 2 ? ly_malloc(bytes) : NULL;
  ok = used != NULL;
  if (ok)
    memset(used, 0, bytes);
  for (int64_t i = 0; i < U.n && ok; i++) {
    ok = !(used[F[i] >> 3] >> (F[i] & 7) & 1);
    used[F[i] >> 3] |= (unsigned char)(1u << (F[i] & 7));
  }
  ly_free(used);
  bool got = false;
  for (U.maxsum = 1; U.maxsum <= UNTILE_MAX_TILES * UNTILE_MAX_K && ok && !got && U.work <= UNTILE_BUDGET; U.maxsum++)
    for (U.maxdepth = 1; U.maxdepth <= UNTILE_MAX_TILES && U.maxdepth <= U.maxsum && !got && U.work <= UNTILE_BUDGET;
         U.maxdepth++)
      got = untile(&U, F, t->alloc, 0);
  ly_free(mem);
  return got;
}

/* After the '*' reading: a '*' tiling's digits join dims, which un-tiling
 * does not read. */
static bool try_untiled(const LyTypeImpl *t, LyBuf *out) {
  LySpec s;
  if (!find_untiled(t, &s))
    return false;
  print_tiled(&s, out);
  return true;
}

static bool try_tiled(const LyTypeImpl *t, LyBuf *out) {
  LySpec s;
  if (!find_tiled(t, NULL, &s) && !find_tiled_pieces(t, &s))
    return false;
  print_tiled(&s, out);
  return true;
}

/* --- tiled_layout with '*' ------------------------------------------------- */

/* XLA's '*' combines dims before a tile, row-major, so a digit of the
 * combined dim is a digit of `n_b*i_a + i_b`: a general digit over both
 * dims when the tile does not divide the combination, and when it does,
 * simple digits that continue each other, with padding only the combined
 * dim explains. The printer groups the dims that such digits join, reads
 * each group as one virtual dim (its map along the group's row-major index,
 * rebuilt from its jumps), finds a tiling of the virtual type as above, and
 * writes each group back as its dims with a '*' before all but the last in
 * the first tile. Each group reads at most this many elements. */
#define GROUP_MAX_ELEMS (1 << 16)

typedef struct {
  int n;                      /* groups */
  int dims[LY_MAX_RANK];      /* each group's dims together, major to minor */
  int start[LY_MAX_RANK + 1]; /* group g holds dims[start[g] .. start[g+1]) */
} Grouping;

/* The group of each digit: the one all its dims are in; -1 when a digit
 * spans groups (the grouping does not separate the map). */
static bool digit_groups(const LyTypeImpl *t, const int *of, int *gd) {
  for (int k = 0; k < t->ndigits; k++) {
    gd[k] = -1;
    for (int d = 0; d < t->rank; d++)
      if (lyd_digit_uses_dim(&t->digits[k], t->rank, d)) {
        if (gd[k] >= 0 && gd[k] != of[d])
          return false;
        gd[k] = of[d];
      }
  }
  return true;
}

/* Dims joined by general digits, and neighbours in memory that continue
 * each other (the smallest stride of the major group is the reach, stride
 * times extent, of the minor one's largest digit): bit j of *cont says the
 * j-th group in memory continues the one before it, and those in `chain`
 * are joined. Within a group, dims go by their weight in general digits,
 * then by their largest stride. False when every group is one dim. */
static bool make_grouping(const LyTypeImpl *t, unsigned chain, unsigned *cont, Grouping *G) {
  memset(G, 0, sizeof *G);
  int r = t->rank, up[LY_MAX_RANK];
  int64_t weight[LY_MAX_RANK] = {0}, top[LY_MAX_RANK] = {0};
  for (int d = 0; d < r; d++)
    up[d] = d;
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    int first = -1;
    for (int d = 0; d < r; d++) {
      if (!lyd_digit_uses_dim(g, r, d))
        continue;
      if (g->dim < 0 && g->coef[d] > weight[d])
        weight[d] = g->coef[d];
      if (g->stride > top[d])
        top[d] = g->stride;
      if (first < 0)
        first = d;
      else
        up[lyd_find_root(up, d)] = lyd_find_root(up, first);
    }
  }
  /* Groups by largest stride, descending; digitless dims last. */
  int roots[LY_MAX_RANK], nr = 0;
  int64_t hi[LY_MAX_RANK], lo[LY_MAX_RANK], reach[LY_MAX_RANK];
  for (int d = 0; d < r; d++) {
    if (lyd_find_root(up, d) != d)
      continue;
    hi[d] = 0, lo[d] = INT64_MAX, reach[d] = 0;
    for (int k = 0; k < t->ndigits; k++) {
      const LyDigit *g = &t->digits[k];
      int64_t x;
      bool mine = false;
      for (int e = 0; e < r && !mine; e++)
        mine = lyd_find_root(up, e) == d && lyd_digit_uses_dim(g, r, e);
      if (!mine)
        continue;
      hi[d] = g->stride > hi[d] ? g->stride : hi[d];
      lo[d] = g->stride < lo[d] ? g->stride : lo[d];
      if (ly_mul(g->stride, g->ext, &x) && x > reach[d])
        reach[d] = x;
    }
    int p = nr++;
    for (; p > 0 && hi[roots[p - 1]] < hi[d]; p--)
      roots[p] = roots[p - 1];
    roots[p] = d;
  }
  bool merged[LY_MAX_RANK] = {0}; /* group j joins group j-1 */
  *cont = 0;
  for (int j = 1; j < nr && j < 32; j++) {
    if (hi[roots[j]] > 0 && lo[roots[j - 1]] == reach[roots[j]])
      *cont |= 1u << j;
    merged[j] = chain >> j & 1;
  }
  G->n = 0;
  int m = 0, any = 0;
  for (int j = 0; j < nr; j++) {
    if (!merged[j])
      G->start[G->n++] = m;
    int from = m;
    for (int d = 0; d < r; d++) {
      if (lyd_find_root(up, d) != roots[j])
        continue;
      int p = m++;
      for (; p > from && (weight[G->dims[p - 1]] < weight[d] ||
                          (weight[G->dims[p - 1]] == weight[d] && top[G->dims[p - 1]] < top[d]));
           p--)
        G->dims[p] = G->dims[p - 1];
      G->dims[p] = d;
    }
  }
  G->start[G->n] = m;
  for (int g = 0; g < G->n; g++)
    any |= G->start[g + 1] - G->start[g] > 1;
  return any;
}

/* The virtual type of t over the groups: one dim per group, whose digits
 * are those of the group's map along its row-major index. */
static bool virtual_type(const LyTypeImpl *t, const Grouping *G, LyTypeImpl *v, LyDigit *vg) {
  int of[LY_MAX_RANK], gd[LY_MAX_DIGITS], m = 0;
  for (int g = 0; g < G->n; g++)
    for (int j = G->start[g]; j < G->start[g + 1]; j++)
      of[G->dims[j]] = g;
  if (!digit_groups(t, of, gd))
    return false;
  *v = (LyTypeImpl){.elem = t->elem, .rank = G->n, .kind = LYD_DIGITS, .alloc = t->alloc};
  for (int g = 0; g < G->n; g++) {
    int64_t n = 1, idx[LY_MAX_RANK] = {0};
    for (int j = G->start[g]; j < G->start[g + 1]; j++)
      if (!ly_mul(n, t->dims[G->dims[j]], &n) || n > GROUP_MAX_ELEMS)
        return false;
    v->dims[g] = n;
    int64_t *f = ly_malloc((size_t)n * sizeof *f);
    bool ok = f != NULL;
    for (int64_t i = 0; i < n && ok; i++) {
      int64_t x = i, sum = 0, term;
      for (int j = G->start[g + 1] - 1; j >= G->start[g]; j--)
        idx[G->dims[j]] = x % t->dims[G->dims[j]], x /= t->dims[G->dims[j]];
      for (int k = 0; k < t->ndigits && ok; k++)
        ok = gd[k] != g || (ly_mul(t->digits[k].stride, lyd_digit_value(&t->digits[k], t->rank, idx), &term) &&
                            ly_add(sum, term, &sum));
      f[i] = sum;
    }
    int c = ok ? lyd_function_digits(g, f, n, vg + m, LY_MAX_DIGITS - m) : -1;
    ly_free(f);
    if (c < 0)
      return false;
    m += c;
  }
  LyArena scratch; /* simple digits: nothing is allocated */
  ly_arena_init(&scratch);
  v->ndigits = lyd_canonicalize(v->rank, v->dims, vg, m, &scratch);
  ly_arena_free(&scratch);
  v->digits = vg;
  return v->ndigits >= 0;
}

/* The tiling of t from vs, a tiling of its virtual type: each group's dims
 * in the permutation, and a '*' before all but the last in the first tile
 * that reaches the group's place (tiles keep the count dims in place, so
 * the places before that tile are the group's dims, uncombined); a group no
 * tile reaches gets a last tile of 1s (a tile of 1 moves nothing). */
static bool expand_stars(const LySpec *vs, const Grouping *G, int rank, LySpec *s) {
  int rv = vs->nperm, np = 0, place[LY_MAX_RANK];
  memset(s, 0, sizeof *s);
  s->kind = LYS_TILED;
  s->nperm = rank;
  for (int k = 0; k < rv; k++) {
    int g = vs->perm[k];
    place[g] = k;
    for (int j = G->start[g]; j < G->start[g + 1]; j++)
      s->perm[np++] = G->dims[j];
  }
  bool done[LY_MAX_RANK] = {0};
  int cur = rv, left = 0;
  for (int g = 0; g < G->n; g++)
    left += G->start[g + 1] - G->start[g] > 1;
  for (int j = 0; j <= vs->ntiles && left; j++) {
    LyTile tl = {0};
    if (j < vs->ntiles) {
      tl = vs->tiles[j];
    } else { /* a last tile of 1s from the first group left */
      int from = cur;
      for (int g = 0; g < G->n; g++)
        if (!done[g] && G->start[g + 1] - G->start[g] > 1 && place[g] < from)
          from = place[g];
      if (j == LY_MAX_TILES || cur - from > LY_MAX_RANK)
        return false;
      tl.n = cur - from;
      for (int e = 0; e < tl.n; e++)
        tl.size[e] = 1;
    }
    LyTile *out = &s->tiles[j];
    int at = cur - tl.n;
    out->n = 0;
    for (int e = 0; e < tl.n; e++) {
      int g = -1;
      for (int h = 0; h < G->n && at + e < rv; h++)
        if (place[h] == at + e && !done[h])
          g = h;
      if (g >= 0 && G->start[g + 1] - G->start[g] > 1) {
        for (int q = G->start[g]; q < G->start[g + 1] - 1; q++) {
          if (out->n == LY_MAX_RANK)
            return false;
          out->size[out->n++] = 0;
        }
        left--;
      }
      if (g >= 0)
        done[g] = true;
      if (out->n == LY_MAX_RANK)
        return false;
      out->size[out->n++] = tl.size[e];
    }
    s->ntiles = j + 1;
    cur += tl.n;
  }
  for (int j = s->ntiles; j < vs->ntiles; j++)
    s->tiles[s->ntiles++] = vs->tiles[j];
  return left == 0;
}

/* A shorter spelling of the same tiling, where there is one: a first tile
 * (1) whose within dim the next tile's last entry, 1, leaves alone (the
 * first tile then moves nothing), and last tiles of 1s. False when there is
 * nothing to drop. (find_tiled can spell `(8,4)` as `(1),(8,4,1)`.) */
static bool drop_ones(LySpec *s) {
  bool dropped = false;
  while (s->ntiles >= 2 && s->tiles[0].n == 1 && s->tiles[0].size[0] == 1 && s->tiles[1].n >= 2 &&
         s->tiles[1].size[s->tiles[1].n - 1] == 1) {
    memmove(s->tiles, s->tiles + 1, (size_t)(s->ntiles - 1) * sizeof *s->tiles);
    s->ntiles--;
    s->tiles[0].n--;
    trim_tile(&s->tiles[0]);
    dropped = true;
  }
  for (bool ones = true; s->ntiles > 0 && ones; ) {
    const LyTile *tl = &s->tiles[s->ntiles - 1];
    for (int e = 0; e < tl->n; e++)
      ones = ones && tl->size[e] == 1;
    if (ones)
      s->ntiles--, dropped = true;
  }
  return dropped;
}

/* The groups in the order of their smallest dims: the permutation a user
 * who wrote the '*' would have written. */
static void group_order(const Grouping *G, int *order) {
  int first[LY_MAX_RANK];
  for (int g = 0; g < G->n; g++) {
    first[g] = LY_MAX_RANK;
    for (int j = G->start[g]; j < G->start[g + 1]; j++)
      first[g] = G->dims[j] < first[g] ? G->dims[j] : first[g];
    int p = g;
    for (; p > 0 && first[order[p - 1]] > first[g]; p--)
      order[p] = order[p - 1];
    order[p] = g;
  }
}

/* Tries the groups general digits make, then with each pair of groups
 * that continue each other joined, then with all of them: at most r + 1
 * groupings, each read and tiled once. */
static bool try_tiled_stars(const LyTypeImpl *t, LyBuf *out) {
  if (t->rank < 2 || t->base != 0 || t->alloc <= 0)
    return false;
  Grouping G;
  unsigned cont = 0, chain = 0;
  for (int attempt = -1; attempt <= 32; attempt++) {
    if (attempt >= 0) { /* the next continuing pair alone, then all */
      chain = attempt < 32 ? 1u << attempt : cont;
      if (attempt < 32 ? !(cont & chain) : __builtin_popcount(cont) < 2)
        continue;
    }
    if (!make_grouping(t, chain, &cont, &G))
      continue;
    LyTypeImpl v;
    LyDigit vg[LY_MAX_DIGITS];
    LySpec vs, s;
    int order[LY_MAX_RANK]; /* the groups in the order of their first dims */
    group_order(&G, order);
    if (!virtual_type(t, &G, &v, vg) || !(find_tiled(&v, order, &vs) || find_tiled_pieces(&v, &vs)))
      continue;
    LySpec shorter = vs;
    if (drop_ones(&shorter) && expand_stars(&shorter, &G, t->rank, &s) && tiled_matches(t, &s)) {
      print_tiled(&s, out);
      return true;
    }
    if (expand_stars(&vs, &G, t->rank, &s) && tiled_matches(t, &s)) {
      print_tiled(&s, out);
      return true;
    }
  }
  return false;
}

/* The Morton order of the dims (the `morton` spelling), when it is not
 * row-major: a Z-order names itself better than the tiling or tag that
 * also spells it. */
static bool try_morton(const LyTypeImpl *t, LyBuf *out) {
  LyDigit g[LY_MAX_DIGITS];
  int64_t alloc;
  int n = lyd_morton_digits(t->rank, t->dims, g, &alloc);
  if (t->base != 0 || n < 0 || !same_digits(t, g, n, alloc))
    return false;
  ly_buf_puts(out, "morton");
  return true;
}

static bool try_row_major(const LyTypeImpl *t) {
  LyDigit g[LY_MAX_RANK];
  int64_t alloc;
  int n = lyd_row_major_digits(t->rank, t->dims, g, &alloc);
  return t->base == 0 && n >= 0 && same_digits(t, g, n, alloc);
}

static void print_i64(LyBuf *out, int64_t v) {
  if (v == LY_DYNAMIC)
    ly_buf_puts(out, "?");
  else
    ly_buf_printf(out, "%lld", (long long)v);
}

static bool try_strided(const LyTypeImpl *t, LyBuf *out) {
  int64_t strides[LY_MAX_RANK];
  if (!lyd_plain_strides(t, strides))
    return false;
  bool static_dims = true;
  for (int d = 0; d < t->rank; d++)
    static_dims = static_dims && t->dims[d] != LY_DYNAMIC;
  if (t->alloc != LY_DYNAMIC && t->base != LY_DYNAMIC && static_dims) {
    int64_t hi = t->base, numel = 1;
    for (int d = 0; d < t->rank; d++) {
      numel *= t->dims[d];
      if (strides[d] > 0 && t->dims[d] > 0)
        hi += strides[d] * (t->dims[d] - 1);
    }
    if ((numel ? hi + 1 : 0) != t->alloc)
      return false;
  }
  ly_buf_puts(out, "strided<[");
  for (int d = 0; d < t->rank; d++) {
    if (d)
      ly_buf_puts(out, ",");
    print_i64(out, strides[d]);
  }
  ly_buf_puts(out, "]");
  if (t->base != 0) {
    ly_buf_puts(out, ", offset: ");
    print_i64(out, t->base);
  }
  ly_buf_puts(out, ">");
  return true;
}

/* One digit as `(E) floordiv R mod M`; sub-digits nest in E. */
static void print_digit_expr(const LyDigit *g, int rank, LyBuf *out) {
  ly_buf_puts(out, "(");
  if (g->dim >= 0) {
    ly_buf_printf(out, "d%d", g->dim);
  } else {
    bool first = true;
    for (int d = 0; d < rank; d++) {
      if (!g->coef[d])
        continue;
      ly_buf_puts(out, first ? "" : " + ");
      if (g->coef[d] != 1)
        ly_buf_printf(out, "%lld*", (long long)g->coef[d]);
      ly_buf_printf(out, "d%d", d);
      first = false;
    }
    for (int j = 0; j < g->nsub; j++) {
      const LyDigit *sub = &g->sub[j];
      /* A coefficient scales the whole nested digit (the grammar binds
       * `c*(E) floordiv R mod M` that way): no grouping parentheses, which
       * would cost a nesting level each. */
      ly_buf_puts(out, first ? "" : " + ");
      if (sub->stride != 1)
        ly_buf_printf(out, "%lld*", (long long)sub->stride);
      print_digit_expr(sub, rank, out);
      first = false;
    }
  }
  ly_buf_puts(out, ")");
  if (g->div != 1)
    ly_buf_printf(out, " floordiv %lld", (long long)g->div);
  if (g->wrap)
    ly_buf_printf(out, " mod %lld", (long long)g->ext);
}

static void print_general(const LyTypeImpl *t, LyBuf *out) {
  const LyDigit *g[LY_MAX_DIGITS];
  for (int k = 0; k < t->ndigits; k++)
    g[k] = &t->digits[k];
  qsort(g, t->ndigits, sizeof *g, stride_desc);
  ly_buf_puts(out, "layout<[");
  for (int k = 0; k < t->ndigits; k++) {
    ly_buf_puts(out, k ? ", " : "");
    print_digit_expr(g[k], t->rank, out);
    ly_buf_printf(out, " * %lld", (long long)g[k]->stride);
  }
  ly_buf_printf(out, "], size: %lld", (long long)t->alloc);
  if (t->base)
    ly_buf_printf(out, ", offset: %lld", (long long)t->base);
  ly_buf_puts(out, ">");
}

/* What t->searched holds when the search found no familiar form. */
static const char searched_none[] = "(none)";

void lyd_print_forget(LyTypeImpl *t) {
  if (t->searched != searched_none)
    ly_free((char *)t->searched);
  t->searched = NULL;
}

/* The familiar forms of a static type, tried in order; the answer is kept
 * on the type, since a search can take a quarter of a millisecond (types
 * printed once per value of a module), unless an allocation failed while it
 * ran (in any thread: it may have cut the search short) or t is not a
 * context's (a type being built, printed in a diagnostic). */
static bool print_searched(const LyTypeImpl *t, LyBuf *out) {
  const char *kept = __atomic_load_n(&t->searched, __ATOMIC_ACQUIRE);
  if (kept) {
    if (kept == searched_none)
      return false;
    ly_buf_puts(out, kept);
    return true;
  }
  long failures = ly_alloc_failures();
  LyBuf b;
  ly_buf_init(&b);
  bool found = try_row_major(t) || try_morton(t, &b) || try_tag(t, &b) || try_tiled(t, &b) ||
               try_tiled_stars(t, &b) || try_untiled(t, &b), oom = b.oom;
  if (oom)
    out->oom = true;
  else if (found)
    ly_buf_puts(out, ly_buf_cstr(&b));
  char *keep = NULL;
  if (t->interned && !oom && ly_alloc_failures() == failures) {
    keep = found ? ly_malloc(b.len + 1) : (char *)searched_none;
    if (keep && found)
      memcpy(keep, ly_buf_cstr(&b), b.len + 1);
  }
  const char *expected = NULL;
  if (keep && !__atomic_compare_exchange_n(&((LyTypeImpl *)t)->searched, &expected, keep, false, __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE) &&
      keep != searched_none)
    ly_free(keep); /* another thread kept the same answer first */
  ly_buf_free(&b);
  return found || oom;
}

void lyd_print_layout(const LyTypeImpl *t, LyBuf *out) {
  switch (t->kind) {
  case LYD_ANY:
    ly_buf_puts(out, "any");
    return;
  case LYD_SYMBOLIC:
    ly_buf_puts(out, t->symbolic);
    return;
  case LYD_FOREIGN: /* no layout */
    return;
  case LYD_ENCODED:
    lyd_enc_print(t, out);
    return;
  case LYD_DIGITS:
    break;
  }
  if (lyd_is_static(t)) {
    if (print_searched(t, out))
      return;
    /* A tiling the search does not rebuild, as it was first spelled. */
    const char *spelled = __atomic_load_n(&t->spelled, __ATOMIC_ACQUIRE);
    if (spelled) {
      ly_buf_puts(out, spelled);
      return;
    }
  }
  if (try_strided(t, out))
    return;
  print_general(t, out);
}

void lyd_print(const LyTypeImpl *t, LyBuf *out) {
  if (lyd_is_foreign(t)) {
    ly_buf_puts(out, t->symbolic);
    return;
  }
  ly_buf_puts(out, "tensor<");
  for (int d = 0; d < t->rank; d++) {
    print_i64(out, t->dims[d]);
    ly_buf_puts(out, "x");
  }
  ly_buf_puts(out, lyElemGetName(t->elem));
  size_t before = out->len;
  ly_buf_puts(out, ", ");
  size_t mark = out->len;
  lyd_print_layout(t, out);
  if (out->len == mark && !out->oom) { /* no layout: drop the ", " */
    out->len = before;
    out->data[before] = 0;
  }
  if (t->ms_str)
    ly_buf_printf(out, ", memspace<\"%s\">", t->ms_str);
  else if (t->ms_num)
    ly_buf_printf(out, ", memspace<%lld>", (long long)t->ms_num);
  ly_buf_puts(out, ">");
}

/* The MLIR form (docs/ir.md §5): the layout and memory space as one dialect
 * attribute, `#layout.K<body>`, whose body is the layoutc spelling's own
 * (mlir-opt keeps the bodies of unregistered dialect attributes verbatim):
 * `#layout.any`, `#layout.tag<"aBcd16b">`, `#layout.tiled<<0,1>,(128)>`,
 * `#layout.strided<[1,4]>`, `#layout.general<[...], size: N>`; a memory
 * space is a last entry `, memspace<1>` (`#layout.any<memspace<1>>`,
 * `#layout.memspace<1>` without a layout). MLIR accepts one encoding per
 * tensor type and no builtin `strided<...>` on tensors, hence one attribute. */
void lyd_print_mlir(const LyTypeImpl *t, LyBuf *out) {
  if (lyd_is_foreign(t)) {
    ly_buf_puts(out, t->symbolic);
    return;
  }
  ly_buf_puts(out, "tensor<");
  for (int d = 0; d < t->rank; d++) {
    print_i64(out, t->dims[d]);
    ly_buf_puts(out, "x");
  }
  ly_buf_puts(out, lyElemGetName(t->elem));
  if (lyd_is_encoded(t)) { /* MLIR's own attribute, then the memory space as ours */
    ly_buf_puts(out, ", ");
    lyd_enc_print_mlir(t, out);
    if (t->ms_str)
      ly_buf_printf(out, ", #layout.memspace<\"%s\">", t->ms_str);
    else if (t->ms_num)
      ly_buf_printf(out, ", #layout.memspace<%lld>", (long long)t->ms_num);
    ly_buf_puts(out, ">");
    return;
  }
  LyBuf l, ms;
  ly_buf_init(&l);
  ly_buf_init(&ms);
  lyd_print_layout(t, &l);
  if (t->ms_str)
    ly_buf_printf(&ms, "memspace<\"%s\">", t->ms_str);
  else if (t->ms_num)
    ly_buf_printf(&ms, "memspace<%lld>", (long long)t->ms_num);
  const char *ls = ly_buf_cstr(&l), *mss = ly_buf_cstr(&ms);
  if (l.oom || ms.oom) {
    out->oom = true;
  } else if (l.len == 0 && ms.len) {
    ly_buf_printf(out, ", #layout.%s", mss);
  } else if (l.len) {
    /* kind name, then the body without its closing '>' */
    const char *body = ls;
    size_t blen = l.len;
    bool angled = true;
    if (ls[0] == '"') {
      ly_buf_printf(out, ", #layout.tag<%s", ls);
      blen = 0;
    } else if (!strncmp(ls, "tiled_layout<", 13)) {
      ly_buf_puts(out, ", #layout.tiled<");
      body = ls + 13;
      blen = l.len - 14;
    } else if (!strncmp(ls, "layout<", 7)) {
      ly_buf_puts(out, ", #layout.general<");
      body = ls + 7;
      blen = l.len - 8;
    } else if (!strncmp(ls, "strided<", 8) || !strncmp(ls, "opaque<", 7)) {
      ly_buf_printf(out, ", #layout.%.*s", (int)(strchr(ls, '<') - ls + 1), ls);
      body = strchr(ls, '<') + 1;
      blen = l.len - (size_t)(body - ls) - 1;
    } else { /* any, and other bare words */
      ly_buf_printf(out, ", #layout.%s", ls);
      blen = 0;
      angled = false;
    }
    ly_buf_printf(out, "%.*s", (int)blen, body);
    if (ms.len)
      ly_buf_printf(out, angled ? ", %s" : "<%s", mss);
    if (angled || ms.len)
      ly_buf_puts(out, ">");
  }
  ly_buf_free(&l);
  ly_buf_free(&ms);
  ly_buf_puts(out, ">");
}

void lyTypePrint(LyType t, LyStringCallback cb, void *user) {
  LyBuf b;
  ly_buf_init(&b);
  lyd_print(lyd_type(t), &b);
  if (!b.oom)
    cb(b.data, b.len, user);
  ly_buf_free(&b);
}

char *lyTypeToString(LyType t) {
  LyBuf b;
  ly_buf_init(&b);
  lyd_print(lyd_type(t), &b);
  if (b.oom) {
    ly_buf_free(&b);
    return NULL;
  }
  return b.data;
}

void lyStringFree(char *s) { ly_free(s); }
