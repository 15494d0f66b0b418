/* fuzz_views: the view algebra against its definition. The input bytes pick
 * a valid source type (row-major, strided, format tag, tiled or general, with
 * small dims) and a chain of views; every view produced must reach, for
 * every index, exactly the element its definition names in its source:
 *   permute    view[j] = src[i] with j[perm[d]] = i[d]
 *   reshape    same row-major linear index
 *   slice      src[j + offsets]
 *   broadcast  src[i] with broadcast dims at 0 (and leading dims dropped)
 *   (un)squeeze  the extent-1 dim removed / inserted
 * and it must round-trip through the printer. Where a view must exist
 * (permute, broadcast, squeeze, unsqueeze, slices of strided types, reshapes
 * of contiguous types) a refusal is a failure too. */
#include "fuzz_common.h"

#include "fuzz_gen.h"

/* ===== Views and their definitions ========================================== */

typedef enum { OP_PERMUTE, OP_RESHAPE, OP_RESHAPE_STRIDED, OP_SLICE, OP_BROADCAST, OP_SQUEEZE, OP_UNSQUEEZE,
               OP_RELAYOUT, OP_INVALID, OP_COUNT } OpKind;
static const char *const op_names[] = {"permute", "reshape", "reshape_strided", "slice", "broadcast",
                                       "squeeze", "unsqueeze", "relayout+reshape", "invalid"};

typedef struct {
  OpKind kind;
  int rank; /* the view's */
  int64_t dims[LY_MAX_RANK];
  int perm[LY_MAX_RANK];
  int64_t off[LY_MAX_RANK];
  int dim; /* squeeze, unsqueeze */
} Op;

typedef struct {
  int rank;
  int64_t dims[LY_MAX_RANK];
} Shape;

static Shape shape_of(LyType t) {
  Shape s = {lyTypeGetRank(t), {0}};
  for (int d = 0; d < s.rank; d++)
    s.dims[d] = lyTypeGetDim(t, d);
  return s;
}

/* The source index the view's index j names, by the definition of op. */
static void source_index(const Op *op, const Shape *src, const int64_t *j, int64_t *i) {
  switch (op->kind) {
  case OP_PERMUTE:
    for (int d = 0; d < src->rank; d++)
      i[d] = j[op->perm[d]];
    break;
  case OP_RESHAPE:
  case OP_RESHAPE_STRIDED:
  case OP_RELAYOUT: {
    int64_t lin = 0;
    for (int d = 0; d < op->rank; d++)
      lin = lin * op->dims[d] + j[d];
    for (int d = src->rank - 1; d >= 0; d--) {
      i[d] = lin % src->dims[d];
      lin /= src->dims[d];
    }
    break;
  }
  case OP_SLICE:
    for (int d = 0; d < src->rank; d++)
      i[d] = j[d] + op->off[d];
    break;
  case OP_BROADCAST: {
    int lead = op->rank - src->rank;
    for (int d = 0; d < src->rank; d++)
      i[d] = src->dims[d] == 1 ? 0 : j[lead + d];
    break;
  }
  case OP_SQUEEZE:
    for (int d = 0, o = 0; d < src->rank; d++)
      i[d] = d == op->dim ? 0 : j[o++];
    break;
  case OP_UNSQUEEZE:
    for (int d = 0, o = 0; d < op->rank; d++)
      if (d != op->dim)
        i[o++] = j[d];
    break;
  default:
    abort();
  }
}

/* Splits n into `rank` dims (n > 0: random factors; n == 0: some dim 0). */
static int random_dims(Bytes *b, int64_t n, int64_t *dims) {
  int rank = pick(b, 6);
  if (n != 1 && rank == 0)
    rank = 1;
  for (int d = 0; d < rank; d++)
    dims[d] = 1;
  if (n == 0) {
    for (int d = 0; d < rank; d++)
      dims[d] = pick(b, 5);
    dims[pick(b, rank)] = 0;
    return rank;
  }
  int64_t m = n;
  for (int64_t p = 2; m > 1; p++)
    while (m % p == 0) {
      dims[pick(b, rank)] *= p;
      m /= p;
    }
  return rank;
}

static void print_op(const Op *op, const char *src) {
  fprintf(stderr, "view: %s of '%s' into rank %d dims", op_names[op->kind], src, op->rank);
  for (int d = 0; d < op->rank; d++)
    fprintf(stderr, " %lld", (long long)op->dims[d]);
  if (op->kind == OP_PERMUTE || op->kind == OP_SLICE) {
    fprintf(stderr, (op->kind == OP_PERMUTE ? ", perm" : ", offsets"));
    for (int d = 0; d < op->rank; d++)
      fprintf(stderr, " %lld", (long long)(op->kind == OP_PERMUTE ? op->perm[d] : op->off[d]));
  }
  if (op->kind == OP_SQUEEZE || op->kind == OP_UNSQUEEZE)
    fprintf(stderr, ", dim %d", op->dim);
  fputc('\n', stderr);
}

/* Every view index reaches the element its definition names. Small views
 * are checked exhaustively, larger ones on an evenly spread sample. */
static void check_view(LyContext ctx, const Op *op, LyType src, const char *ssrc, LyType v) {
  Shape s = shape_of(src), w = shape_of(v);
  char *sv = fz_check_round_trip(ctx, v);
  if (w.rank != op->rank || memcmp(w.dims, op->dims, op->rank * sizeof *w.dims)) {
    print_op(op, ssrc);
    fz_fail("view '%s' has the wrong dims", sv);
  }
  int64_t msn1 = 0, msn2 = 0;
  const char *mss1 = NULL, *mss2 = NULL;
  if (lyTypeGetElement(v) != lyTypeGetElement(src) ||
      lyTypeGetMemorySpace(v, &msn1, &mss1) != lyTypeGetMemorySpace(src, &msn2, &mss2) || msn1 != msn2 ||
      (mss1 && strcmp(mss1, mss2))) {
    print_op(op, ssrc);
    fz_fail("view '%s' changed the element type or memory space", sv);
  }
  fz_check_queries(v, sv);
  int64_t numel = fz_numel(w.rank, w.dims), step = 1;
  if (numel > FZ_ENUM_NUMEL)
    step = numel / 997 + 1;
  int64_t j[LY_MAX_RANK] = {0}, i[LY_MAX_RANK], ov, os;
  for (int64_t lin = 0; lin < numel; lin += step) {
    int64_t r = lin;
    for (int d = w.rank - 1; d >= 0; d--)
      j[d] = r % w.dims[d], r /= w.dims[d];
    source_index(op, &s, j, i);
    LyStatus a = lyTypeGetOffset(v, j, &ov), c = lyTypeGetOffset(src, i, &os);
    if (a != LY_OK || c != LY_OK || ov != os) {
      print_op(op, ssrc);
      fz_fail("view '%s' at linear index %lld: offset %lld (status %d), source offset %lld (status %d)", sv,
              (long long)lin, (long long)ov, a, (long long)os, c);
    }
  }
  lyStringFree(sv);
}

/* Interning: types of the same dims, element, memory space and allocation
 * whose offsets agree everywhere are one object (layoutc.h). Every type an
 * input produces is compared with the ones before it. Types that print in
 * the general form are left out unless FZ_ALL is set: a map whose dims do
 * not separate and a part of which takes more than 8 digits of its
 * row-major index compares structurally (docs/descriptor.md, step 9). */
#define FZ_SEEN_MAX 64
static LyType seen[FZ_SEEN_MAX];
static int nseen;

static bool same_map(LyType a, LyType b) {
  Shape sa = shape_of(a), sb = shape_of(b);
  int64_t aa, ab, na = 0, nb = 0;
  const char *ma = NULL, *mb = NULL;
  if (sa.rank != sb.rank || memcmp(sa.dims, sb.dims, sa.rank * sizeof *sa.dims) ||
      lyTypeGetElement(a) != lyTypeGetElement(b) || lyTypeGetAllocElements(a, &aa) != LY_OK ||
      lyTypeGetAllocElements(b, &ab) != LY_OK || aa != ab ||
      lyTypeGetMemorySpace(a, &na, &ma) != lyTypeGetMemorySpace(b, &nb, &mb) || na != nb ||
      (ma && strcmp(ma, mb)))
    return false;
  int64_t numel = fz_numel(sa.rank, sa.dims), idx[LY_MAX_RANK] = {0}, oa, ob;
  if (numel > FZ_ENUM_NUMEL)
    return false;
  for (bool more = numel > 0; more; more = fz_next_index(sa.rank, sa.dims, idx))
    if (lyTypeGetOffset(a, idx, &oa) != LY_OK || lyTypeGetOffset(b, idx, &ob) != LY_OK || oa != ob)
      return false;
  return true;
}

/* FZ_ALL=1: the interning check covers types printed in the general form too. */
static bool check_general;

static void check_interned(LyType t) {
  char *st = lyTypeToString(t);
  bool general = strstr(st, "layout<[") != NULL;
  lyStringFree(st);
  if (general && !check_general)
    return;
  for (int k = 0; k < nseen; k++)
    if (!lyTypeEqual(seen[k], t) && same_map(seen[k], t)) {
      char *a = lyTypeToString(seen[k]), *b = lyTypeToString(t);
      fz_fail("'%s' and '%s' have the same map but are two types", a, b);
    }
  if (nseen < FZ_SEEN_MAX)
    seen[nseen++] = t;
}

/* FUZZ_VERBOSE=1: print each source type and operation (to turn a finding
 * into a reproducer). */
static bool verbose;

/* Builds a random operation on t (valid arguments except for OP_INVALID),
 * applies it, and checks the result. Returns the view, or t when there is
 * none. */
static LyType apply_op(LyContext ctx, Bytes *b, LyType t) {
  Shape s = shape_of(t);
  Op op = {.kind = (OpKind)pick(b, OP_COUNT)};
  LyType v = {NULL}, from = t;
  bool must = false;
  char *st = lyTypeToString(t);
  int64_t strides[LY_MAX_RANK], base, numel = fz_numel(s.rank, s.dims);
  bool strided = lyTypeGetStrides(t, strides, &base) == LY_OK;
  fz_errors = 0;
  if (verbose)
    fprintf(stderr, "source: %s\nop: %s\n", st, op_names[op.kind]);
  switch (op.kind) {
  case OP_PERMUTE:
    op.rank = s.rank;
    random_perm(b, s.rank, op.perm);
    for (int d = 0; d < s.rank; d++)
      op.dims[op.perm[d]] = s.dims[d];
    v = lyTypePermute(ctx, t, op.perm);
    must = true;
    break;
  case OP_RESHAPE:
  case OP_RESHAPE_STRIDED:
    op.rank = random_dims(b, numel, op.dims);
    v = op.kind == OP_RESHAPE ? lyTypeReshape(ctx, t, op.rank, op.dims)
                              : lyTypeReshapeStrided(ctx, t, op.rank, op.dims);
    must = lyTypeIsContiguous(t);
    if (!lyTypeIsNull(v) && op.kind == OP_RESHAPE_STRIDED && lyTypeGetStrides(v, strides, &base) != LY_OK) {
      print_op(&op, st);
      fz_fail("strided reshape has no strides");
    }
    break;
  case OP_SLICE:
    op.rank = s.rank;
    for (int d = 0; d < s.rank; d++) {
      op.dims[d] = pick(b, (int)s.dims[d] + 1);
      op.off[d] = pick(b, (int)(s.dims[d] - op.dims[d]) + 1);
    }
    v = lyTypeSlice(ctx, t, op.off, op.dims);
    must = strided;
    break;
  case OP_BROADCAST: {
    int lead = pick(b, 3);
    if (s.rank + lead > LY_MAX_RANK)
      lead = LY_MAX_RANK - s.rank;
    op.rank = s.rank + lead;
    for (int d = 0; d < lead; d++)
      op.dims[d] = pick(b, 5);
    for (int d = 0; d < s.rank; d++)
      op.dims[lead + d] = s.dims[d] == 1 ? pick(b, 5) : s.dims[d];
    v = lyTypeBroadcast(ctx, t, op.rank, op.dims);
    must = true;
    break;
  }
  case OP_SQUEEZE: {
    int ones[LY_MAX_RANK], n = 0;
    for (int d = 0; d < s.rank; d++)
      if (s.dims[d] == 1)
        ones[n++] = d;
    if (!n)
      goto done;
    op.dim = ones[pick(b, n)];
    op.rank = s.rank - 1;
    for (int d = 0, o = 0; d < s.rank; d++)
      if (d != op.dim)
        op.dims[o++] = s.dims[d];
    v = lyTypeSqueeze(ctx, t, op.dim);
    must = true;
    break;
  }
  case OP_UNSQUEEZE:
    if (s.rank == LY_MAX_RANK)
      goto done;
    op.dim = pick(b, s.rank + 1);
    op.rank = s.rank + 1;
    for (int d = 0, o = 0; d < op.rank; d++)
      op.dims[d] = d == op.dim ? 1 : s.dims[o++];
    v = lyTypeUnsqueeze(ctx, t, op.dim);
    must = true;
    break;
  case OP_RELAYOUT: {
    op.rank = random_dims(b, numel, op.dims);
    LyType u = lyTypeGetReshapeRelayout(ctx, t, op.rank, op.dims);
    if (lyTypeIsNull(u)) {
      print_op(&op, st);
      fz_fail("no relayout target for a reshape with valid dims");
    }
    Shape su = shape_of(u);
    if (su.rank != s.rank || memcmp(su.dims, s.dims, s.rank * sizeof *s.dims) ||
        lyTypeGetElement(u) != lyTypeGetElement(t)) {
      print_op(&op, st);
      fz_fail("relayout target has other dims or element");
    }
    char *su_s = fz_check_round_trip(ctx, u);
    fz_check_queries(u, su_s);
    check_interned(u);
    lyStringFree(su_s);
    from = u;
    lyStringFree(st);
    st = lyTypeToString(u);
    v = lyTypeReshape(ctx, u, op.rank, op.dims);
    must = true;
    break;
  }
  case OP_INVALID: {
    /* Bad arguments: a diagnostic and a null handle, nothing else. */
    int64_t a[LY_MAX_RANK + 1], c[LY_MAX_RANK + 1];
    int perm[LY_MAX_RANK];
    for (int d = 0; d <= LY_MAX_RANK; d++)
      a[d] = pick(b, 9) - 2, c[d] = pick(b, 9) - 2;
    for (int d = 0; d < LY_MAX_RANK; d++)
      perm[d] = pick(b, 20) - 2;
    LyType x = {NULL};
    int which = pick(b, 6), r = pick(b, LY_MAX_RANK + 4) - 2;
    if (verbose) {
      fprintf(stderr, "invalid: kind %d, rank/dim %d, a", which, r);
      for (int d = 0; d < LY_MAX_RANK; d++)
        fprintf(stderr, " %lld", (long long)a[d]);
      fprintf(stderr, ", perm");
      for (int d = 0; d < LY_MAX_RANK; d++)
        fprintf(stderr, " %d", perm[d]);
      fputc('\n', stderr);
    }
    if (which == 0)
      x = lyTypePermute(ctx, t, perm);
    else if (which == 1)
      x = lyTypeSlice(ctx, t, a, c);
    else if (which == 2)
      x = lyTypeReshape(ctx, t, r, a);
    else if (which == 3)
      x = lyTypeBroadcast(ctx, t, r, a);
    else if (which == 4)
      x = lyTypeSqueeze(ctx, t, r);
    else
      x = lyTypeUnsqueeze(ctx, t, r);
    if (lyTypeIsNull(x) && fz_errors == 0)
      fz_fail("'%s': a view op with arguments (kind %d) failed without an error diagnostic", st, which);
    if (!lyTypeIsNull(x)) { /* the arguments happened to be valid */
      char *sx = fz_check_round_trip(ctx, x);
      fz_check_queries(x, sx);
      lyStringFree(sx);
    }
    goto done;
  }
  case OP_COUNT:
    abort();
  }
  if (verbose)
    print_op(&op, st);
  if (lyTypeIsNull(v)) {
    if (fz_errors == 0) {
      print_op(&op, st);
      fz_fail("no view and no error diagnostic");
    }
    if (must) {
      print_op(&op, st);
      fz_fail("no view where one must exist");
    }
    v = t;
  } else {
    if (fz_errors) {
      print_op(&op, st);
      fz_fail("a view and an error diagnostic");
    }
    check_view(ctx, &op, from, st, v);
    check_interned(v);
  }
done:
  lyStringFree(st);
  return lyTypeIsNull(v) ? t : v;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *e = getenv("FUZZ_VERBOSE");
  verbose = e && *e == '1';
  e = getenv("FZ_ALL");
  check_general = e && *e == '1';
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes b = {data, size};
  LyContext ctx = fz_context();
  Text text = {.n = 0};
  LyType t = gen_type(ctx, &b, &text);
  if (lyTypeIsNull(t)) {
    /* The generators may combine a tile or a digit badly; fall back to
     * row-major on the same dims. */
    size_t n = strcspn(text.s, ",>");
    if (n < text.n) {
      text.s[n] = '>';
      t = lyTypeParse(ctx, text.s, n + 1, "<generated>");
    }
    if (lyTypeIsNull(t))
      fz_fail("generated type '%.*s' does not parse", (int)(n + 1), text.s);
  }
  char *s = fz_check_round_trip(ctx, t);
  fz_check_queries(t, s);
  nseen = 0;
  check_interned(t);
  lyStringFree(s);
  int nops = 1 + pick(&b, 4);
  for (int k = 0; k < nops; k++)
    t = apply_op(ctx, &b, t);
  lyContextDestroy(ctx);
  return 0;
}
