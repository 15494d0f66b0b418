/* fuzz_gen: valid layouts of given dims drawn from fuzzer bytes (strided,
 * format tags, tiled, general), shared by the fuzz targets. */
#ifndef LAYOUTC_FUZZ_GEN_H
#define LAYOUTC_FUZZ_GEN_H
#include "fuzz_common.h"

typedef struct {
  const uint8_t *p;
  size_t n;
} Bytes;

static unsigned take(Bytes *b) {
  if (!b->n)
    return 0;
  b->n--;
  return *b->p++;
}

/* A number in [0, k). */
static int pick(Bytes *b, int k) { return k <= 1 ? 0 : (int)(take(b) % (unsigned)k); }

/* Picks one of k entries of a table whose first k_old were its whole
 * length once, so that the corpus and regression inputs keep their meaning:
 * a byte below the largest multiple of k_old picks among those as before;
 * the few bytes above it pick a newer entry with the next byte. */
static int pick_grown(Bytes *b, int k_old, int k) {
  unsigned v = take(b), full = 256 - 256 % (unsigned)k_old;
  if (v < full || k == k_old)
    return (int)(v % (unsigned)k_old);
  return k_old + (int)(take(b) % (unsigned)(k - k_old));
}

typedef struct {
  char s[2048];
  size_t n;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    t->n += (size_t)k;
  if (t->n >= sizeof t->s)
    t->n = sizeof t->s - 1;
}

static void random_perm(Bytes *b, int n, int *perm) {
  for (int i = 0; i < n; i++)
    perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = pick(b, i + 1), x = perm[i];
    perm[i] = perm[j], perm[j] = x;
  }
}

/* ===== Source types ========================================================= */

static void gen_strided(Bytes *b, int rank, const int64_t *dims, Text *t) {
  int64_t st[LY_MAX_RANK], off = 0;
  if (pick(b, 2)) { /* a permuted row-major order with padding */
    int perm[LY_MAX_RANK];
    random_perm(b, rank, perm);
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
      st[perm[k]] = s;
      s *= dims[perm[k]] + pick(b, 3);
    }
  } else { /* anything: overlaps, broadcasts, negative strides */
    for (int d = 0; d < rank; d++) {
      st[d] = pick(b, 17) - 8;
      if (st[d] < 0 && dims[d] > 0)
        off += -st[d] * (dims[d] - 1);
    }
  }
  off += pick(b, 4);
  put(t, "strided<[");
  for (int d = 0; d < rank; d++)
    put(t, "%s%lld", d ? "," : "", (long long)st[d]);
  put(t, "]");
  if (off || pick(b, 4) == 0)
    put(t, ", offset: %lld", (long long)off);
  put(t, ">");
}

static void gen_tag(Bytes *b, int rank, Text *t) {
  int perm[LY_MAX_RANK], nb = pick(b, 4), bdim[4], bsize[4];
  bool blocked[LY_MAX_RANK] = {0};
  random_perm(b, rank, perm);
  for (int j = 0; j < nb; j++) {
    bdim[j] = pick(b, rank);
    bsize[j] = 2 + pick(b, 7);
    blocked[bdim[j]] = true;
  }
  put(t, "\"");
  for (int k = 0; k < rank; k++)
    put(t, "%c", (blocked[perm[k]] ? 'A' : 'a') + perm[k]);
  for (int j = 0; j < nb; j++)
    put(t, "%d%c", bsize[j], 'a' + bdim[j]);
  put(t, "\"");
}

static void gen_tiled(Bytes *b, int rank, Text *t) {
  int perm[LY_MAX_RANK];
  random_perm(b, rank, perm);
  put(t, "tiled_layout<<");
  for (int k = 0; k < rank; k++)
    put(t, "%s%d", k ? "," : "", perm[k]);
  put(t, ">");
  int ntiles = rank ? pick(b, 3) : 0, cur = rank;
  for (int j = 0; j < ntiles; j++) {
    int n = 1 + pick(b, cur < 3 ? cur : 3), stars = 0;
    put(t, ",(");
    for (int e = 0; e < n; e++) {
      if (e + 1 < n && pick(b, 5) == 0)
        put(t, "%s*", e ? "," : ""), stars++;
      else
        put(t, "%s%d", e ? "," : "", 1 + pick(b, 5));
    }
    put(t, ")");
    cur += n - 2 * stars;
  }
  put(t, ">");
}

/* `(lin) floordiv R mod M`, lin a sum of dims (with coefficients) and, one
 * level down, nested digits. */
static void gen_expr(Bytes *b, int rank, int depth, Text *t) {
  int terms = 1 + pick(b, 2);
  put(t, "(");
  for (int k = 0; k < terms; k++) {
    if (k)
      put(t, " + ");
    int c = pick(b, 3) ? 1 : 2 + pick(b, 4);
    if (depth < 2 && pick(b, 4) == 0) {
      if (c != 1)
        put(t, "%d*", c);
      put(t, "(");
      gen_expr(b, rank, depth + 1, t);
      put(t, ")");
    } else {
      if (c != 1)
        put(t, "%d*", c);
      put(t, "d%d", pick(b, rank));
    }
  }
  put(t, ")");
  if (pick(b, 2))
    put(t, " floordiv %d", 1 + pick(b, 5));
  if (pick(b, 2))
    put(t, " mod %d", 1 + pick(b, 6));
}

static void gen_general(Bytes *b, int rank, Text *t) {
  int n = rank ? 1 + pick(b, 5) : 0;
  put(t, "layout<[");
  for (int k = 0; k < n; k++) {
    if (k)
      put(t, ", ");
    gen_expr(b, rank, 0, t);
    put(t, " * %d", 1 + pick(b, 30));
  }
  put(t, "]");
  if (pick(b, 3) == 0)
    put(t, ", offset: %d", pick(b, 5));
  put(t, ">");
}

/* Every kind of element: packed (f6 across bytes), signed and unsigned,
 * the small floats, complex; the first nine are the original table. */
static const char *const elems[] = {"f32", "f16", "bf16", "i8", "i4", "i2", "i1", "f64", "i32",
                                    "i16", "i64", "ui8", "si32", "ui64", "index", "tf32", "f8E4M3FN",
                                    "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E8M0FNU",
                                    "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "complex<f16>", "complex<f64>"};

__attribute__((unused)) static LyType gen_type(LyContext ctx, Bytes *b, Text *t) {
  int rank = pick(b, 5);
  int64_t dims[LY_MAX_RANK];
  put(t, "tensor<");
  for (int d = 0; d < rank; d++) {
    dims[d] = pick(b, 24) == 0 ? 0 : 1 + pick(b, 6);
    put(t, "%lldx", (long long)dims[d]);
  }
  put(t, "%s", elems[pick_grown(b, 9, sizeof elems / sizeof *elems)]);
  size_t mark = t->n;
  put(t, ", ");
  switch (pick(b, 5)) {
  case 0:
    t->n = mark;
    break;
  case 1:
    gen_strided(b, rank, dims, t);
    break;
  case 2:
    if (rank)
      gen_tag(b, rank, t);
    else
      t->n = mark;
    break;
  case 3:
    gen_tiled(b, rank, t);
    break;
  case 4:
    gen_general(b, rank, t);
    break;
  }
  if (pick(b, 8) == 0)
    put(t, ", memspace<%d>", 1 + pick(b, 3));
  put(t, ">");
  t->s[t->n] = 0;
  return lyTypeParse(ctx, t->s, t->n, "<generated>");
}

#endif
