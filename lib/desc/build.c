/* desc/build: lowers every layout spelling (row-major, tiled_layout,
 * strided, format tag, general) to digits, with located diagnostics for
 * layouts that are malformed or meaningless. */
#include "desc/desc.h"

#include <ctype.h>
#include <string.h>

typedef struct {
  LyCtx *ctx;
  const LyTypeAst *ast;
  LyArena scratch;
} Builder;

static void error_at(Builder *b, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error_at(Builder *b, LyLoc loc, const char *fmt, ...) {
  if (!b->ctx)
    return; /* a silent lowering (the printer trying candidates) */
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&b->ctx->diag, LY_SEVERITY_ERROR, b->ast->src, loc, fmt, ap);
  va_end(ap);
}

static bool has_dynamic_dim(const LyTypeAst *a) {
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] == LY_DYNAMIC)
      return true;
  return false;
}

/* ===== Format tags (oneDNN) ================================================ */

static const char *const families[] = {"abcdefghijklmnop", "ncdhw", "goidhw", "tnc", "x"};
static const char *const family_names[] = {"abstract", "activation", "weights", "sequence", "plain 1-D"};

static bool in_family(int f, char c) { return c && strchr(families[f], c); }

/* Why no family holds the letters: a letter of no family at all, an abstract
 * tag with a gap, or letters of two families. Always false. */
static bool tag_family_error(const char *letters, const int *cols, int n, int *err_col, LyBuf *err) {
  for (int k = 0; k < n; k++) {
    bool any = false;
    for (int f = 0; f < 5; f++)
      any = any || in_family(f, letters[k]);
    if (!any) {
      *err_col = cols[k];
      ly_buf_printf(err, "'%c' is not a dim letter of any format tag family", letters[k]);
      return false;
    }
  }
  /* Letters of one named family (the first letter's) judge the others;
   * otherwise the tag is abstract and must use a.. without gaps. */
  static const int order[] = {1, 2, 3, 4, 0};
  for (int o = 0; o < 5; o++) {
    int f = order[o];
    if (!in_family(f, letters[0]))
      continue;
    for (int k = 1; k < n; k++)
      if (!in_family(f, letters[k])) {
        *err_col = cols[k];
        ly_buf_printf(err, "format tag mixes families: '%c' is not %s %s dim like '%c'", letters[k],
                      f == 1 || f == 0 ? "an" : "a", family_names[f], letters[0]);
        return false;
      }
    if (f != 0)
      continue; /* a named family holds the first letter but not all: try the next */
    for (int k = 0; k < n; k++) {
      bool found = false;
      for (int j = 0; j < n; j++)
        found = found || letters[j] == 'a' + k;
      if (!found) {
        ly_buf_printf(err, "format tag with %d dims must use letters 'a' to '%c': '%c' is missing", n,
                      'a' + n - 1, 'a' + k);
        return false;
      }
    }
  }
  LY_ASSERT(!"a family holds the first letter");
  return false;
}

bool lyd_tag_parse(const char *tag, size_t len, int rank, LyTagInfo *out, int *err_col, LyBuf *err) {
  memset(out, 0, sizeof *out);
  char letters[LY_MAX_RANK];
  int cols[LY_MAX_RANK];
  bool upper[LY_MAX_RANK];
  int n = 0;
  size_t i = 0;
  *err_col = 0;
  if (len == 0) {
    ly_buf_puts(err, "empty format tag");
    return false;
  }
  for (; i < len && isalpha((unsigned char)tag[i]); i++) {
    char c = (char)tolower((unsigned char)tag[i]);
    for (int k = 0; k < n; k++)
      if (letters[k] == c) {
        *err_col = (int)i;
        ly_buf_printf(err, "dim '%c' appears twice in format tag", c);
        return false;
      }
    if (n == LY_MAX_RANK) {
      *err_col = (int)i;
      ly_buf_printf(err, "format tag has more than %d dims", LY_MAX_RANK);
      return false;
    }
    cols[n] = (int)i;
    upper[n] = isupper((unsigned char)tag[i]);
    letters[n++] = c;
  }
  if (n == 0) {
    *err_col = (int)i;
    ly_buf_puts(err, "format tag must start with its dim letters");
    return false;
  }
  /* Pick the family: abstract when the letters are a.. exactly, else the
   * first named family holding every letter. */
  int fam = -1;
  bool abstract_ok = true;
  for (int k = 0; k < n; k++)
    if (letters[k] < 'a' || letters[k] >= 'a' + n)
      abstract_ok = false;
  if (abstract_ok)
    fam = 0;
  for (int f = 1; f < 5 && fam < 0; f++) {
    bool all = true;
    for (int k = 0; k < n; k++)
      all = all && strchr(families[f], letters[k]);
    if (all)
      fam = f;
  }
  if (fam < 0)
    return tag_family_error(letters, cols, n, err_col, err);
  /* Logical position of each letter: its rank within the family order. */
  int pos[LY_MAX_RANK];
  for (int k = 0; k < n; k++) {
    int p = 0;
    const char *fl = families[fam];
    for (int j = 0; j < n; j++)
      if (strchr(fl, letters[j]) < strchr(fl, letters[k]))
        p++;
    pos[k] = p;
    out->order[k] = p;
  }
  /* Inner blocks: <number><letter> groups. */
  while (i < len) {
    size_t start = i;
    int64_t v = 0;
    if (!isdigit((unsigned char)tag[i])) {
      *err_col = (int)i;
      ly_buf_puts(err, "expected a block size (digits) in format tag, found ");
      ly_buf_put_char(err, tag + i, len - i);
      return false;
    }
    for (; i < len && isdigit((unsigned char)tag[i]); i++)
      if (!ly_mul(v, 10, &v) || !ly_add(v, tag[i] - '0', &v)) {
        *err_col = (int)start;
        ly_buf_puts(err, "block size does not fit in 64 bits");
        return false;
      }
    if (v == 0) {
      *err_col = (int)start;
      ly_buf_puts(err, "block size must be positive");
      return false;
    }
    if (i == len || !isalpha((unsigned char)tag[i])) {
      *err_col = (int)i;
      ly_buf_printf(err, "block size %lld is not followed by a dim letter", (long long)v);
      return false;
    }
    char c = tag[i];
    int k = 0;
    while (k < n && letters[k] != tolower((unsigned char)c))
      k++;
    if (k == n) {
      *err_col = (int)i;
      ly_buf_printf(err, "block on '%c', which is not a dim of the format tag", c);
      return false;
    }
    if (isupper((unsigned char)c)) {
      *err_col = (int)i;
      ly_buf_printf(err, "inner block letters are lower-case: write '%c'", tolower((unsigned char)c));
      return false;
    }
    if (!upper[k]) {
      *err_col = cols[k];
      ly_buf_printf(err, "dim '%c' has an inner block, so it is written '%c' in the outer dims", c,
                    toupper((unsigned char)c));
      return false;
    }
    if (out->nblocks == LY_MAX_BLOCKS) {
      *err_col = (int)start;
      ly_buf_printf(err, "format tag has more than %d inner blocks", LY_MAX_BLOCKS);
      return false;
    }
    out->block_dim[out->nblocks] = pos[k];
    out->block_size[out->nblocks++] = v;
    i++;
  }
  if (n != rank) {
    ly_buf_printf(err, "format tag has %d dim%s but the type has rank %d", n, n == 1 ? "" : "s", rank);
    return false;
  }
  return true;
}

int lyd_tag_digits(const LyTagInfo *tag, int rank, const int64_t *dims, LyDigit *out, int64_t *alloc) {
  int64_t bprod[LY_MAX_RANK];
  for (int d = 0; d < rank; d++)
    bprod[d] = 1;
  for (int j = 0; j < tag->nblocks; j++)
    if (!ly_mul(bprod[tag->block_dim[j]], tag->block_size[j], &bprod[tag->block_dim[j]]))
      return -1;
  int n = 0;
  int64_t stride = 1, inner[LY_MAX_RANK];
  for (int d = 0; d < rank; d++)
    inner[d] = 1;
  /* oneDNN fill_blocked: innermost block dense, then outer dims inside-out. */
  for (int j = tag->nblocks - 1; j >= 0; j--) {
    int d = tag->block_dim[j];
    out[n++] = (LyDigit){.stride = stride, .div = inner[d], .ext = tag->block_size[j], .wrap = true, .dim = d};
    if (!ly_mul(inner[d], tag->block_size[j], &inner[d]) || !ly_mul(stride, tag->block_size[j], &stride))
      return -1;
  }
  for (int k = rank - 1; k >= 0; k--) {
    int d = tag->order[k];
    int64_t outer = ly_ceil_div(dims[d], bprod[d]);
    out[n++] = (LyDigit){.stride = stride, .div = bprod[d], .ext = outer, .dim = d};
    if (!ly_mul(stride, outer, &stride))
      return -1;
  }
  *alloc = stride;
  return n;
}

static bool build_tag(Builder *b, LyTypeImpl *t, LyDigit *g) {
  const LySpec *s = &b->ast->spec;
  LyTagInfo info;
  LyBuf msg;
  int col;
  ly_buf_init(&msg);
  bool ok = lyd_tag_parse(s->tag, s->tag_len, t->rank, &info, &col, &msg);
  if (!ok) {
    /* A string that is no tag at all (the RFC's "intel-mkl") is most likely
     * a layout layoutc does not interpret: say how to write one. */
    bool word = true;
    for (size_t i = 0; i < s->tag_len; i++)
      word = word && isalnum((unsigned char)s->tag[i]);
    const char *m = ly_buf_cstr(&msg);
    if (!word || strstr(m, "mixes families") || strstr(m, "not a dim letter"))
      ly_buf_printf(&msg, "; \"%.*s\" is not a format tag (a layout layoutc does not interpret is written "
                    "opaque<\"%.*s\">)", (int)s->tag_len, s->tag, (int)s->tag_len, s->tag);
    error_at(b, (LyLoc){s->loc.line, s->loc.col + 1 + col}, "%s", ly_buf_cstr(&msg));
    ly_buf_free(&msg);
    return false;
  }
  ly_buf_free(&msg);
  if (has_dynamic_dim(b->ast)) {
    LyBuf sp;
    ly_buf_init(&sp);
    bool plain = info.nblocks == 0, ident = true;
    for (int k = 0; k < t->rank; k++)
      ident = ident && info.order[k] == k;
    if (!(plain && ident))
      lyd_tag_print(&info, t->rank, &sp);
    t->kind = LYD_SYMBOLIC;
    t->symbolic = ly_arena_strndup(&b->scratch, ly_buf_cstr(&sp), sp.len);
    ly_buf_free(&sp);
    return t->symbolic != NULL;
  }
  int n = lyd_tag_digits(&info, t->rank, t->dims, g, &t->alloc);
  if (n < 0) {
    error_at(b, s->loc, "allocation of this format tag overflows 64 bits");
    return false;
  }
  t->ndigits = n;
  return true;
}

/* ===== tiled_layout (XLA tiling) ============================================ */

/* A physical dim during tiling is a list of pieces, outermost first; each
 * piece is a digit (without stride) and a span: the extent it occupies in the
 * tiled shape (the outermost piece of a dim may be padded: span > range). */
typedef struct {
  LyDigit g;
  int64_t span;
} Piece;

typedef struct {
  int n;
  Piece p[LY_MAX_DIGITS];
} PhysDim;

#define MAX_PHYS 64

/* A wrapped piece whose value never reaches its modulus is not wrapped:
 * knowing that lets later tiles split it. */
static Piece tighten(Piece p, const int64_t *dims, int rank) {
  int64_t maxe = lyd_digit_max_e(&p.g, rank, dims);
  if (maxe != LY_DYNAMIC && maxe >= 0 && maxe / p.g.div < p.g.ext) {
    p.g.wrap = false;
    p.g.ext = maxe / p.g.div + 1;
  }
  return p;
}

/* A piece whose digit is `value(p)` nested as the only term of a new
 * general digit, for the tiles that no single digit can express. */
static bool nest(Builder *b, const Piece *p, int rank, Piece *out) {
  LyDigit *sub = ly_arena_alloc(&b->scratch, sizeof *sub);
  int64_t *coef = ly_arena_alloc(&b->scratch, rank * sizeof *coef);
  if (!sub || !coef)
    return false;
  *sub = p->g;
  sub->stride = 1;
  *out = *p;
  out->g = (LyDigit){.div = 1, .ext = p->g.ext, .dim = -1, .coef = coef, .nsub = 1, .sub = sub};
  return true;
}

/* floor(p / q) as a piece. */
static bool piece_div(Builder *b, const Piece *p, int64_t q, int rank, Piece *out) {
  *out = *p;
  if (p->g.wrap && p->g.ext <= q) { /* value < q: the quotient is 0 */
    out->g = (LyDigit){.div = 1, .ext = 1, .wrap = true, .dim = p->g.dim >= 0 ? p->g.dim : 0};
    out->span = ly_ceil_div(p->span, q);
    return true;
  }
  if (p->g.wrap && p->g.ext % q != 0) {
    if (!nest(b, p, rank, out))
      return false;
    p = out;
  }
  if (!ly_mul(p->g.div, q, &out->g.div))
    return false;
  out->g.ext = p->g.wrap ? p->g.ext / q : ly_ceil_div(p->g.ext, q);
  out->span = ly_ceil_div(p->span, q);
  return true;
}

/* p mod q as a piece of span q. */
static bool piece_mod(Builder *b, const Piece *p, int64_t q, int rank, Piece *out) {
  *out = *p;
  out->span = q;
  if (p->g.wrap && p->g.ext <= q)
    return true; /* already below q */
  if (p->g.wrap && p->g.ext % q != 0) {
    if (!nest(b, p, rank, out))
      return false;
    out->span = q;
  }
  out->g.wrap = true;
  out->g.ext = q;
  return true;
}

/* Splits dim pieces by tile t into tile-count pieces (left in *dim) and
 * within-tile pieces (*within). False when no exact digit split exists. */
static bool split_pieces(Builder *b, PhysDim *out, int64_t t, PhysDim *within, const int64_t *dims, int rank) {
  PhysDim copy = *out, *dim = &copy; /* *out is untouched on failure */
  int64_t need = t;
  int k = dim->n - 1;
  Piece tmp[LY_MAX_DIGITS];
  int nt = 0;
  while (need > 1) {
    LY_ASSERT(k >= 0);
    Piece *p = &dim->p[k];
    if (k > 0 && p->span <= need && need % p->span == 0) {
      tmp[nt++] = *p;
      need /= p->span;
      dim->n--;
      k--;
      continue;
    }
    if (k > 0 && p->span % need != 0)
      return false;
    /* Split this piece (the outermost piece may pad). */
    Piece hi, lo;
    if (!piece_div(b, p, need, rank, &hi) || !piece_mod(b, p, need, rank, &lo))
      return false;
    *p = tighten(hi, dims, rank);
    tmp[nt++] = tighten(lo, dims, rank);
    need = 1;
  }
  *out = copy;
  within->n = 0;
  for (int j = nt - 1; j >= 0; j--)
    within->p[within->n++] = tmp[j];
  if (within->n == 0) /* tile of 1: a digit that is always 0 (i mod 1) */
    within->p[within->n++] = (Piece){{.div = 1, .ext = 1, .wrap = true, .dim = 0}, 1};
  return true;
}

/* Replaces a dim's pieces by one general piece: E = sum of piece * weight,
 * whole logical dims as coefficients and other pieces as sub-digits. */
static bool make_general(Builder *b, PhysDim *dim, const int64_t *dims, int rank) {
  int64_t *coef = ly_arena_alloc(&b->scratch, rank * sizeof *coef);
  LyDigit *sub = ly_arena_alloc(&b->scratch, dim->n * sizeof *sub);
  if (!coef || !sub)
    return false;
  int64_t w = 1;
  int nsub = 0;
  for (int k = dim->n - 1; k >= 0; k--) {
    const Piece *p = &dim->p[k];
    if (p->g.dim >= 0 && p->g.div == 1 && !p->g.wrap && p->span == dims[p->g.dim] && !coef[p->g.dim]) {
      coef[p->g.dim] = w;
    } else {
      sub[nsub] = p->g;
      sub[nsub++].stride = w;
    }
    if (!ly_mul(w, p->span, &w))
      return false;
  }
  dim->n = 1;
  dim->p[0] = (Piece){{.div = 1, .ext = w, .dim = -1, .coef = coef, .nsub = nsub, .sub = nsub ? sub : NULL}, w};
  return true;
}

/* How many dims a tile adds to the shape it tiles: a count and a within
 * dim for each size, less the dims each '*' combines away. */
static int tile_growth(const LyTile *tl) {
  int stars = 0;
  for (int e = 0; e < tl->n; e++)
    stars += tl->size[e] == 0;
  return tl->n - 2 * stars;
}

static bool validate_tiled(Builder *b, int rank) {
  const LySpec *s = &b->ast->spec;
  if (s->nperm != rank) {
    error_at(b, s->loc, "tiled_layout permutation has %d entr%s but the type has rank %d", s->nperm,
             s->nperm == 1 ? "y" : "ies", rank);
    return false;
  }
  bool seen[LY_MAX_RANK] = {0};
  for (int k = 0; k < rank; k++) {
    if (s->perm[k] < 0 || s->perm[k] >= rank || seen[s->perm[k]]) {
      error_at(b, s->loc, "tiled_layout order is not a permutation of 0..%d: %d %s", rank - 1, s->perm[k],
               s->perm[k] >= 0 && s->perm[k] < rank ? "appears twice" : "is out of range");
      return false;
    }
    seen[s->perm[k]] = true;
  }
  int cur = rank;
  for (int j = 0; j < s->ntiles; j++) {
    const LyTile *tl = &s->tiles[j];
    if (tl->n > cur) {
      error_at(b, tl->loc, "tile has %d dims but the shape it tiles has only %d", tl->n, cur);
      return false;
    }
    if (tl->size[tl->n - 1] == 0) {
      error_at(b, tl->loc, "'*' must be followed by a more-minor dim in the tile");
      return false;
    }
    cur += tile_growth(tl);
    if (cur > MAX_PHYS) {
      error_at(b, tl->loc, "tiling produces more than %d dims", MAX_PHYS);
      return false;
    }
  }
  return true;
}

static bool build_tiled(Builder *b, LyTypeImpl *t, LyDigit *g) {
  const LySpec *s = &b->ast->spec;
  int rank = t->rank;
  for (int d = 0; d < rank; d++)
    if (t->dims[d] == 0) { /* no elements: the tiled shape holds a 0 */
      t->ndigits = 0;
      t->alloc = 0;
      return true;
    }
  /* Only as many dims as the tiling reaches (a PhysDim is 4 KiB, zeroed):
   * the printer lowers thousands of candidate tilings. */
  int most = rank, cur = rank;
  for (int j = 0; j < s->ntiles; j++)
    if ((cur += tile_growth(&s->tiles[j])) > most)
      most = cur;
  LY_ASSERT(most <= MAX_PHYS); /* validate_tiled bounds the rank */
  PhysDim *phys = ly_arena_alloc(&b->scratch, (size_t)most * sizeof *phys);
  if (!phys)
    return false;
  int np = rank;
  for (int k = 0; k < rank; k++) {
    int d = s->perm[k];
    phys[k].n = 1;
    phys[k].p[0] = (Piece){{.div = 1, .ext = t->dims[d], .dim = d}, t->dims[d]};
  }
  for (int j = 0; j < s->ntiles; j++) {
    const LyTile *tl = &s->tiles[j];
    int first = np - tl->n;
    /* Combine '*' dims into the next more-minor dim. */
    int64_t sizes[LY_MAX_RANK];
    int nt = 0, w = first;
    for (int e = 0; e < tl->n; e++) {
      PhysDim *src = &phys[first + e];
      if (tl->size[e] == 0) {
        PhysDim *next = &phys[first + e + 1];
        if (src->n + next->n > LY_MAX_DIGITS) {
          error_at(b, tl->loc, "tiling needs more than %d digits", LY_MAX_DIGITS);
          return false;
        }
        memmove(next->p + src->n, next->p, next->n * sizeof(Piece));
        memcpy(next->p, src->p, src->n * sizeof(Piece));
        next->n += src->n;
        continue;
      }
      if (w != first + e)
        phys[w] = *src;
      sizes[nt++] = tl->size[e];
      w++;
    }
    np = w;
    first = np - nt;
    for (int e = 0; e < nt; e++) {
      PhysDim *dim = &phys[first + e];
      PhysDim *within = &phys[np];
      LY_ASSERT(np + 1 <= most);
      if (!split_pieces(b, dim, sizes[e], within, t->dims, rank) &&
          !(make_general(b, dim, t->dims, rank) && split_pieces(b, dim, sizes[e], within, t->dims, rank))) {
        error_at(b, tl->loc, "tile %lld overflows the size computation", (long long)sizes[e]);
        return false;
      }
      np++;
    }
  }
  /* Row-major over the flattened pieces. */
  int n = 0;
  for (int k = 0; k < np; k++)
    n += phys[k].n;
  if (n > LY_MAX_DIGITS) {
    error_at(b, s->loc, "tiling needs more than %d digits", LY_MAX_DIGITS);
    return false;
  }
  int64_t stride = 1;
  int m = n;
  for (int k = np - 1; k >= 0; k--)
    for (int q = phys[k].n - 1; q >= 0; q--) {
      Piece *p = &phys[k].p[q];
      g[--m] = p->g;
      g[m].stride = stride;
      if (!ly_mul(stride, p->span, &stride)) {
        error_at(b, s->loc, "allocation of this tiled layout overflows 64 bits");
        return false;
      }
    }
  t->ndigits = n;
  t->alloc = stride;
  return true;
}

static void tiled_canonical_spelling(const LySpec *s, int rank, LyBuf *out) {
  bool ident = true;
  for (int k = 0; k < rank; k++)
    ident = ident && s->perm[k] == k;
  if (ident && s->ntiles == 0)
    return;
  ly_buf_puts(out, "tiled_layout<<");
  for (int k = 0; k < rank; k++)
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

/* ===== strided and general ================================================== */

/* Checks the offset range of digit layouts: min >= 0, max < alloc. */
static bool check_range(Builder *b, LyTypeImpl *t, const LyDigit *g, int n, bool alloc_given) {
  const LySpec *s = &b->ast->spec;
  for (int k = 0; k < n; k++) { /* evaluating a digit must not overflow, even where its value wraps */
    int64_t v;
    if (!lyd_digit_expr_fits(&g[k], t->rank, t->dims, &v)) {
      error_at(b, s->loc, "digit %d's expression overflows 64 bits on these dims", k + 1);
      return false;
    }
  }
  if (t->base == LY_DYNAMIC)
    return true;
  int64_t lo = t->base, hi = t->base;
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == 0) {
      if (!alloc_given)
        t->alloc = 0; /* no elements */
      return true;
    }
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] == LY_DYNAMIC)
      return true; /* not decidable statically */
  for (int k = 0; k < n; k++)
    if (g[k].stride == LY_DYNAMIC)
      return true;
  int64_t rlo, rhi;
  bool exact;
  if (!lyd_offset_range(t->rank, t->dims, g, n, &rlo, &rhi, &exact) || !ly_add(lo, rlo, &lo) ||
      !ly_add(hi, rhi, &hi)) {
    error_at(b, s->loc, "offsets of this layout overflow 64 bits");
    return false;
  }
  /* For huge types with digits over several dims the range is a bound that
   * contains it: refuse what it cannot prove safe (offsets must never leave
   * the allocation: code generation trusts them). */
  if (lo < 0) {
    error_at(b, s->loc, "layout %s negative offset %lld", exact ? "reaches" : "may reach", (long long)lo);
    return false;
  }
  if (alloc_given) {
    if (hi >= t->alloc) {
      error_at(b, s->loc, "layout %s offset %lld, beyond its size %lld", exact ? "reaches" : "may reach",
               (long long)hi, (long long)t->alloc);
      return false;
    }
  } else if (!ly_add(hi, 1, &t->alloc)) {
    error_at(b, s->loc, "allocation of this layout overflows 64 bits");
    return false;
  }
  return true;
}

static bool build_strided(Builder *b, LyTypeImpl *t, LyDigit *g) {
  const LySpec *s = &b->ast->spec;
  if (s->nstrides != t->rank) {
    error_at(b, s->loc, "strided layout has %d stride%s but the type has rank %d", s->nstrides,
             s->nstrides == 1 ? "" : "s", t->rank);
    return false;
  }
  /* The stride of an extent-1 dim multiplies only 0: even '?' is no unknown. */
  for (int d = 0; d < t->rank; d++)
    g[d] = (LyDigit){.stride = t->dims[d] == 1 ? 0 : s->strides[d], .div = 1, .ext = t->dims[d], .dim = d};
  t->ndigits = t->rank;
  t->base = s->offset;
  t->alloc = LY_DYNAMIC;
  return check_range(b, t, g, t->rank, false);
}

static bool build_general(Builder *b, LyTypeImpl *t, LyDigit *g) {
  const LySpec *s = &b->ast->spec;
  for (int k = 0; k < s->ndigits; k++) {
    g[k] = s->digits[k];
    if (g[k].dim >= t->rank) {
      error_at(b, s->loc, "digit %d refers to d%d but the type has rank %d", k, g[k].dim, t->rank);
      return false;
    }
    if (g[k].dim < 0) {
      int64_t *c = ly_arena_alloc(&b->scratch, t->rank * sizeof *c);
      if (!c)
        return false;
      for (int d = 0; d < LY_MAX_RANK; d++)
        if (s->digits[k].coef[d] && d >= t->rank) {
          error_at(b, s->loc, "digit %d refers to d%d but the type has rank %d", k, d, t->rank);
          return false;
        }
      memcpy(c, s->digits[k].coef, t->rank * sizeof *c);
      g[k].coef = c;
    }
    if (!g[k].wrap) {
      int64_t maxe = lyd_digit_max_e(&g[k], t->rank, t->dims);
      g[k].ext = maxe == LY_DYNAMIC ? LY_DYNAMIC : maxe / g[k].div + 1;
    }
  }
  t->ndigits = s->ndigits;
  t->base = s->offset;
  t->alloc = s->size >= 0 ? s->size : LY_DYNAMIC;
  if (has_dynamic_dim(b->ast)) {
    error_at(b, s->loc, "the general layout needs static dims");
    return false;
  }
  return check_range(b, t, g, t->ndigits, s->size >= 0);
}


/* ===== affine_map (MLIR's memref layout semantics) ========================= *
 * A map of one linear result is a strided layout (symbols are its '?'
 * strides and offset). Otherwise each result r_k is lowered to digits (a
 * floordiv or mod becomes a digit's div and modulus, nested where needed),
 * its extent is its largest value + 1 over the index space, and the results
 * are laid out row-major, as MLIR's normalize-memrefs lays them out. */

static bool aff_mul(Builder *b, const LyAffNode *at, int64_t x, int64_t y, int64_t *r) {
  if (x == LY_DYNAMIC || y == LY_DYNAMIC) {
    *r = x == 0 || y == 0 ? 0 : LY_DYNAMIC;
    return true;
  }
  if (ly_mul(x, y, r))
    return true;
  error_at(b, at->loc, "a coefficient of this affine map overflows 64 bits");
  return false;
}

static bool aff_add(Builder *b, const LyAffNode *at, int64_t x, int64_t y, int64_t *r) {
  if (x == LY_DYNAMIC || y == LY_DYNAMIC) {
    *r = LY_DYNAMIC;
    return true;
  }
  if (ly_add(x, y, r))
    return true;
  error_at(b, at->loc, "a constant of this affine map overflows 64 bits");
  return false;
}

/* The linear form of n (coefficients per dim and a constant, '?' where a
 * symbol enters); *linear false when n has a floordiv, mod or ceildiv. */
static bool aff_linear(Builder *b, const LyAffNode *n, int64_t scale, int64_t *coef, int64_t *cst, bool *linear) {
  switch (n->kind) {
  case LYA_DIM: return aff_add(b, n, coef[n->v], scale, &coef[n->v]);
  case LYA_SYM: *cst = scale == 0 ? *cst : LY_DYNAMIC; return true;
  case LYA_CONST: {
    int64_t c;
    return aff_mul(b, n, n->v, scale, &c) && aff_add(b, n, *cst, c, cst);
  }
  case LYA_ADD: return aff_linear(b, n->a, scale, coef, cst, linear) && aff_linear(b, n->b, scale, coef, cst, linear);
  case LYA_MUL: {
    int64_t c = n->b->kind == LYA_CONST ? n->b->v : LY_DYNAMIC, s2;
    if (n->b->kind != LYA_CONST && n->b->kind != LYA_SYM) {
      int64_t sc = 0; /* a symbolic constant expression: its value is '?' unless 0 */
      bool lin = true;
      int64_t dummy[LY_MAX_RANK] = {0};
      if (!aff_linear(b, n->b, 1, dummy, &sc, &lin))
        return false;
      c = sc;
    }
    return aff_mul(b, n, scale, c, &s2) && aff_linear(b, n->a, s2, coef, cst, linear);
  }
  default: *linear = false; return true;
  }
}

static const LyAffNode *aff_find(const LyAffNode *n, LyAffKind k) {
  if (!n)
    return NULL;
  if (n->kind == k)
    return n;
  const LyAffNode *x = aff_find(n->a, k);
  return x ? x : aff_find(n->b, k);
}

static bool aff_digit(Builder *b, const LyAffNode *n, LyDigit *out, int depth);

/* A digit whose E is one nested digit: for a floordiv or mod applied to a
 * value that is already reduced by another modulus. */
static bool aff_nest(Builder *b, const LyAffNode *at, LyDigit *d, int depth) {
  if (depth + 1 >= LY_MAX_DIGIT_NEST) {
    error_at(b, at->loc, "this affine expression nests more than %d floordiv/mod levels", LY_MAX_DIGIT_NEST);
    return false;
  }
  int64_t *coef = ly_arena_alloc(&b->scratch, LY_MAX_RANK * sizeof *coef);
  LyDigit *sub = ly_arena_alloc(&b->scratch, sizeof *sub);
  if (!coef || !sub)
    return false;
  memset(coef, 0, LY_MAX_RANK * sizeof *coef);
  *sub = *d;
  sub->stride = 1;
  *d = (LyDigit){.div = 1, .dim = -1, .coef = coef, .nsub = 1, .sub = sub};
  return true;
}

/* E of a digit: dims with positive coefficients, nested digits, no constant. */
static bool aff_e(Builder *b, const LyAffNode *n, int64_t scale, int64_t *coef, LyDigit *subs, int *nsub, int depth) {
  switch (n->kind) {
  case LYA_DIM:
    if (scale < 0) {
      error_at(b, n->loc, "a negative coefficient inside floordiv or mod cannot be lowered to the descriptor");
      return false;
    }
    return aff_add(b, n, coef[n->v], scale, &coef[n->v]);
  case LYA_CONST:
    if (n->v == 0 || scale == 0)
      return true;
    error_at(b, n->loc, "the constant %lld inside floordiv or mod cannot be lowered to the descriptor (its digits "
             "take no offset)", (long long)n->v);
    return false;
  case LYA_SYM:
    error_at(b, n->loc, "a symbol inside floordiv or mod cannot be lowered to the descriptor");
    return false;
  case LYA_ADD:
    return aff_e(b, n->a, scale, coef, subs, nsub, depth) && aff_e(b, n->b, scale, coef, subs, nsub, depth);
  case LYA_MUL: {
    int64_t s2;
    if (n->b->kind != LYA_CONST) {
      error_at(b, n->loc, "a symbolic coefficient inside floordiv or mod cannot be lowered to the descriptor");
      return false;
    }
    return aff_mul(b, n, scale, n->b->v, &s2) && aff_e(b, n->a, s2, coef, subs, nsub, depth);
  }
  default:
    if (scale < 0) {
      error_at(b, n->loc, "a negative coefficient inside floordiv or mod cannot be lowered to the descriptor");
      return false;
    }
    if (scale == 0)
      return true;
    if (*nsub == LY_MAX_SUBS) {
      error_at(b, n->loc, "more than %d floordiv/mod terms inside one floordiv or mod", LY_MAX_SUBS);
      return false;
    }
    if (!aff_digit(b, n, &subs[*nsub], depth + 1))
      return false;
    subs[(*nsub)++].stride = scale;
    return true;
  }
}

/* The digit whose value is n's (n >= 0 over the index space is checked by
 * the range of the whole layout). */
static bool aff_digit(Builder *b, const LyAffNode *n, LyDigit *out, int depth) {
  if (depth >= LY_MAX_DIGIT_NEST) {
    error_at(b, n->loc, "this affine expression nests more than %d floordiv/mod levels", LY_MAX_DIGIT_NEST);
    return false;
  }
  switch (n->kind) {
  case LYA_CEILDIV:
    error_at(b, n->loc, "ceildiv cannot be lowered to the descriptor (write the tile with floordiv)");
    return false;
  case LYA_FLOORDIV:
    if (!aff_digit(b, n->a, out, depth))
      return false;
    if (out->wrap && !aff_nest(b, n, out, depth))
      return false;
    if (!ly_mul(out->div, n->b->v, &out->div)) {
      error_at(b, n->loc, "floordiv overflows 64 bits");
      return false;
    }
    return true;
  case LYA_MOD:
    if (!aff_digit(b, n->a, out, depth))
      return false;
    if (out->wrap && out->ext % n->b->v != 0 && !aff_nest(b, n, out, depth))
      return false;
    out->wrap = true;
    out->ext = n->b->v;
    return true;
  default: {
    int64_t coef[LY_MAX_RANK] = {0};
    LyDigit subs[LY_MAX_SUBS];
    int nsub = 0;
    if (!aff_e(b, n, 1, coef, subs, &nsub, depth))
      return false;
    int ndim = 0, dim = -1;
    for (int d = 0; d < LY_MAX_RANK; d++)
      if (coef[d])
        ndim++, dim = d;
    if (nsub == 0 && ndim == 1 && coef[dim] == 1) {
      *out = (LyDigit){.div = 1, .dim = dim};
      return true;
    }
    if (nsub == 0 && ndim == 0) {
      error_at(b, n->loc, "floordiv or mod of a constant expression");
      return false;
    }
    int64_t *c = ly_arena_dup(&b->scratch, coef, sizeof coef);
    LyDigit *sc = nsub ? ly_arena_dup(&b->scratch, subs, (size_t)nsub * sizeof *subs) : NULL;
    if (!c || (nsub && !sc))
      return false;
    *out = (LyDigit){.div = 1, .dim = -1, .coef = c, .nsub = nsub, .sub = sc};
    return true;
  }
  }
}

/* The terms of one result: digits with their coefficients as strides. */
static bool aff_terms(Builder *b, const LyAffNode *n, int64_t scale, LyDigit *g, int *ng, int64_t *cst) {
  switch (n->kind) {
  case LYA_CONST: {
    int64_t c;
    return aff_mul(b, n, n->v, scale, &c) && aff_add(b, n, *cst, c, cst);
  }
  case LYA_ADD: return aff_terms(b, n->a, scale, g, ng, cst) && aff_terms(b, n->b, scale, g, ng, cst);
  case LYA_MUL: {
    int64_t s2;
    return aff_mul(b, n, scale, n->b->v, &s2) && aff_terms(b, n->a, s2, g, ng, cst);
  }
  case LYA_SYM:
    error_at(b, n->loc, "a symbol can be lowered only in a map of one linear result (a strided layout)");
    return false;
  default:
    if (scale == 0)
      return true;
    if (*ng == LY_MAX_DIGITS) {
      error_at(b, n->loc, "affine map needs more than %d digits", LY_MAX_DIGITS);
      return false;
    }
    if (!aff_digit(b, n, &g[*ng], 0))
      return false;
    g[(*ng)++].stride = scale;
    return true;
  }
}

/* Lowers through another spelling (strided or general) of the same type. */
static bool aff_build_as(Builder *b, LyTypeImpl *t, LyDigit *g, const LySpec *spec) {
  LyTypeAst *ast = ly_arena_alloc(&b->scratch, sizeof *ast);
  if (!ast)
    return false;
  *ast = *b->ast;
  ast->spec = *spec;
  Builder sub = {b->ctx, ast, b->scratch};
  bool ok = spec->kind == LYS_STRIDED ? build_strided(&sub, t, g) : build_general(&sub, t, g);
  b->scratch = sub.scratch;
  return ok;
}

static bool build_affine(Builder *b, LyTypeImpl *t, LyDigit *g) {
  const LySpec *s = &b->ast->spec;
  if (s->aff_ndims != t->rank) {
    error_at(b, s->loc, "affine map has %d dim%s but the type has rank %d", s->aff_ndims, s->aff_ndims == 1 ? "" : "s",
             t->rank);
    return false;
  }
  if (s->aff_nresults == 0) {
    error_at(b, s->loc, "affine map has no results");
    return false;
  }
  LySpec *sp = ly_arena_alloc(&b->scratch, sizeof *sp);
  if (!sp)
    return false;
  memset(sp, 0, sizeof *sp);
  sp->loc = s->loc;
  sp->size = -1;
  if (s->aff_nresults == 1) { /* one linear result: a strided layout */
    bool linear = true;
    int64_t coef[LY_MAX_RANK] = {0}, cst = 0;
    if (!aff_linear(b, s->aff_results[0], 1, coef, &cst, &linear))
      return false;
    if (linear) {
      sp->kind = LYS_STRIDED;
      sp->nstrides = t->rank;
      memcpy(sp->strides, coef, sizeof coef);
      sp->offset = cst;
      return aff_build_as(b, t, g, sp);
    }
  }
  for (int k = 0; k < s->aff_nresults; k++) {
    const LyAffNode *sym = aff_find(s->aff_results[k], LYA_SYM);
    if (sym) {
      error_at(b, sym->loc, "a symbol can be lowered only in a map of one linear result (a strided layout)");
      return false;
    }
  }
  if (has_dynamic_dim(b->ast)) {
    error_at(b, s->loc, "an affine map with floordiv, mod or several results needs static dims");
    return false;
  }
  int64_t ext[LY_MAX_AFFINE_RESULTS], csts[LY_MAX_AFFINE_RESULTS];
  int first[LY_MAX_AFFINE_RESULTS + 1], n = 0;
  bool empty = false;
  for (int d = 0; d < t->rank; d++)
    empty = empty || t->dims[d] == 0;
  for (int k = 0; k < s->aff_nresults; k++) {
    first[k] = n;
    csts[k] = 0;
    if (!aff_terms(b, s->aff_results[k], 1, sp->digits, &n, &csts[k]))
      return false;
    for (int j = first[k]; j < n; j++)
      if (!sp->digits[j].wrap) { /* its extent, for the range below */
        int64_t maxe = lyd_digit_max_e(&sp->digits[j], t->rank, t->dims);
        sp->digits[j].ext = maxe == LY_DYNAMIC ? LY_DYNAMIC : maxe / sp->digits[j].div + 1;
      }
    int64_t lo = 0, hi = 0;
    bool exact;
    if (!empty && (!lyd_offset_range(t->rank, t->dims, sp->digits + first[k], n - first[k], &lo, &hi, &exact) ||
                   !ly_add(lo, csts[k], &lo) || !ly_add(hi, csts[k], &hi))) {
      error_at(b, s->aff_results[k]->loc, "result #%d of the affine map overflows 64 bits", k);
      return false;
    }
    if (lo < 0) {
      error_at(b, s->aff_results[k]->loc, "result #%d of the affine map %s negative (%lld) on this shape", k,
               exact ? "is" : "may be", (long long)lo);
      return false;
    }
    ext[k] = empty ? 0 : hi + 1;
  }
  first[s->aff_nresults] = n;
  /* Row-major over the results' extents. */
  int64_t stride = 1, base = 0;
  for (int k = s->aff_nresults - 1; k >= 0; k--) {
    int64_t c;
    for (int j = first[k]; j < first[k + 1]; j++)
      if (!ly_mul(sp->digits[j].stride, stride, &sp->digits[j].stride)) {
        error_at(b, s->loc, "the allocation of this affine map overflows 64 bits");
        return false;
      }
    if (!ly_mul(csts[k], stride, &c) || !ly_add(base, c, &base) || (k > 0 && !ly_mul(stride, ext[k], &stride)) ||
        (k == 0 && !ly_mul(stride, ext[0], &stride))) {
      error_at(b, s->loc, "the allocation of this affine map overflows 64 bits");
      return false;
    }
  }
  for (int j = 0; j < n; j++)
    if (!sp->digits[j].wrap)
      sp->digits[j].ext = 0; /* build_general computes it again */
  sp->kind = LYS_GENERAL;
  sp->ndigits = n;
  sp->offset = base;
  sp->size = stride;
  return aff_build_as(b, t, g, sp);
}

/* ===== Entry ================================================================ */

static bool check_sizes(Builder *b, const LyTypeAst *a) {
  int d = lyd_check_numel(a->rank, a->dims);
  if (d >= 0)
    error_at(b, a->dim_loc[d], "number of elements overflows 64 bits at this dim");
  return d < 0;
}

const LyTypeImpl *lyd_build(LyCtx *ctx, const LyTypeAst *a) {
  Builder b = {ctx, a, {0}};
  int errors_before = ctx->diag.errors;
  ly_arena_init(&b.scratch);
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  t.elem = a->elem;
  t.rank = a->rank;
  memcpy(t.dims, a->dims, a->rank * sizeof(int64_t));
  t.ms_num = a->ms_num;
  t.ms_str = a->ms_str ? ly_arena_strndup(&b.scratch, a->ms_str, a->ms_str_len) : NULL;
  t.kind = LYD_DIGITS;
  LyDigit *g = ly_arena_alloc(&b.scratch, LY_MAX_DIGITS * sizeof *g);
  bool ok = g && (!a->ms_str || t.ms_str) && check_sizes(&b, a);
  const LySpec *s = &a->spec;
  if (ok) {
    switch (s->kind) {
    case LYS_ANY:
      t.kind = LYD_ANY;
      break;
    case LYS_NONE:
    case LYS_TILED:
      ok = s->kind == LYS_NONE || validate_tiled(&b, a->rank);
      if (ok && has_dynamic_dim(a)) {
        LyBuf sp;
        ly_buf_init(&sp);
        if (s->kind == LYS_TILED)
          tiled_canonical_spelling(s, a->rank, &sp);
        t.kind = LYD_SYMBOLIC;
        t.symbolic = ly_arena_strndup(&b.scratch, ly_buf_cstr(&sp), sp.len);
        ok = t.symbolic && !sp.oom;
        ly_buf_free(&sp);
      } else if (ok && s->kind == LYS_NONE) {
        t.ndigits = lyd_row_major_digits(a->rank, a->dims, g, &t.alloc);
        ok = t.ndigits >= 0;
        if (!ok)
          error_at(&b, a->dim_loc[0], "allocation overflows 64 bits");
      } else if (ok) {
        ok = build_tiled(&b, &t, g);
      }
      break;
    case LYS_TAG:
      ok = build_tag(&b, &t, g);
      break;
    case LYS_STRIDED:
      ok = build_strided(&b, &t, g);
      break;
    case LYS_GENERAL:
      ok = build_general(&b, &t, g);
      break;
    case LYS_AFFINE:
      ok = build_affine(&b, &t, g);
      break;
    case LYS_ENCODING:
      ok = lyd_enc_build(ctx, a, &t, &b.scratch);
      break;
    case LYS_MORTON:
      /* Z-order (docs/language.md): on dynamic dims kept as spelled, like a
       * tiling, until the dims are known. */
      if (has_dynamic_dim(a)) {
        t.kind = LYD_SYMBOLIC;
        t.symbolic = "morton";
      } else if ((t.ndigits = lyd_morton_digits(a->rank, a->dims, g, &t.alloc)) < 0) {
        error_at(&b, s->loc, "the Morton order of these dims needs more than 62 bits of offset");
        ok = false;
      }
      break;
    case LYS_OPAQUE: {
      /* A layout layoutc does not interpret (the RFC's "intel-mkl"): kept by
       * name, equal by name; geometry queries and relayouts refuse it. */
      LyBuf sp;
      ly_buf_init(&sp);
      ly_buf_printf(&sp, "opaque<\"%.*s\">", (int)s->tag_len, s->tag);
      t.kind = LYD_SYMBOLIC;
      t.symbolic = ly_arena_strndup(&b.scratch, ly_buf_cstr(&sp), sp.len);
      ok = t.symbolic && !sp.oom;
      ly_buf_free(&sp);
      break;
    }
    }
  }
  if (ok && t.kind == LYD_DIGITS && !lyd_check_alloc_bits(t.alloc, t.elem)) {
    error_at(&b, s->kind == LYS_NONE ? a->dim_loc[0] : s->loc, "size in bits overflows 64 bits");
    ok = false;
  }
  const LyTypeImpl *r = NULL;
  if (ok) {
    r = lyd_intern(ctx, &t, g);
    if (r && s->kind == LYS_TILED && r->kind == LYD_DIGITS && !r->spelled) {
      /* What the printer falls back on when it cannot rebuild a tiling. */
      LyBuf sp;
      ly_buf_init(&sp);
      tiled_canonical_spelling(s, a->rank, &sp);
      if (sp.oom || (sp.len && !lyd_note_spelling(ctx, r, ly_buf_cstr(&sp), sp.len))) {
        ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, a->src, (LyLoc){1, 1}, "out of memory");
        r = NULL;
      }
      ly_buf_free(&sp);
    }
  } else if (ctx->diag.errors == errors_before) {
    ly_diag_emit(&ctx->diag, LY_SEVERITY_ERROR, a->src, (LyLoc){1, 1}, "out of memory");
  }
  ly_arena_free(&b.scratch);
  return r;
}

int64_t lyd_tiled_alloc(const LySpec *s, int rank, const int64_t *dims) {
  int64_t shape[2 * LY_MAX_DIGITS], alloc = 1;
  int n = rank;
  for (int k = 0; k < n; k++)
    shape[k] = dims[s->perm[k]];
  for (int j = 0; j < s->ntiles; j++) {
    const LyTile *tl = &s->tiles[j];
    if (tl->n > n || tl->size[tl->n - 1] == 0)
      return -1;
    int first = n - tl->n, w = first;
    int64_t sizes[LY_MAX_RANK];
    for (int e = 0; e < tl->n; e++) {
      int64_t x = shape[first + e];
      if (tl->size[e] == 0) { /* '*': combines with the next dim */
        if (!ly_mul(x, shape[first + e + 1], &shape[first + e + 1]))
          return -1;
        continue;
      }
      sizes[w - first] = tl->size[e];
      shape[w++] = x;
    }
    int nt = w - first;
    if (w + nt > 2 * LY_MAX_DIGITS)
      return -1;
    for (int e = 0; e < nt; e++) {
      int64_t x = shape[first + e];
      shape[first + e] = ly_ceil_div(x, sizes[e]);
      shape[w + e] = sizes[e];
    }
    n = w + nt;
  }
  for (int k = 0; k < n; k++)
    if (!ly_mul(alloc, shape[k], &alloc))
      return -1;
  return alloc;
}

int lyd_tiled_digits(const LySpec *spec, int rank, const int64_t *dims, LyDigit *g, int64_t *alloc,
                     LyArena *scratch) {
  LyTypeAst ast;
  memset(&ast, 0, sizeof ast);
  ast.rank = rank;
  memcpy(ast.dims, dims, rank * sizeof *dims);
  ast.spec = *spec;
  Builder b = {NULL, &ast, {0}};
  ly_arena_init(&b.scratch);
  LyTypeImpl t;
  memset(&t, 0, sizeof t);
  t.rank = rank;
  memcpy(t.dims, dims, rank * sizeof *dims);
  int n = -1;
  if (validate_tiled(&b, rank) && build_tiled(&b, &t, g)) {
    n = lyd_canonicalize(rank, dims, g, t.ndigits, scratch);
    *alloc = t.alloc;
  }
  ly_arena_free(&b.scratch);
  return n;
}
