/* fuzz_common: checks shared by the fuzz targets. Every check that fails
 * prints what it saw and aborts, which libFuzzer records as a crash. */
#ifndef LAYOUTC_FUZZ_COMMON_H
#define LAYOUTC_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/layoutc.h"

/* Full enumeration (offsets, injectivity) only below these sizes. */
#define FZ_ENUM_NUMEL (1 << 14)
#define FZ_ENUM_ALLOC (1 << 22)
#define FZ_INJECTIVE_NUMEL (1 << 18)

static inline void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void fz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz check failed: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* Diagnostics go nowhere, but every field is read (ASan sees bad pointers)
 * and formatted the way the driver formats it. */
static FILE *fz_devnull;
static int fz_errors;
static inline void fz_diag_handler(const LyDiagnostic *d, void *user) {
  (void)user;
  if (!d->message)
    fz_fail("diagnostic without a message");
  size_t n = strlen(d->message);
  if (d->severity == LY_SEVERITY_ERROR)
    fz_errors++;
  if (d->source_line) {
    if (d->source_line_len < 0)
      fz_fail("diagnostic source line of length %d", d->source_line_len);
    /* The caret points into the line or just after it (end of input). */
    if (d->line < 1 || d->column < 0 || d->column > d->source_line_len + 1)
      fz_fail("diagnostic '%s' at line %d column %d of a line of %d bytes", d->message, d->line, d->column,
              d->source_line_len);
    volatile char sink = 0;
    for (int i = 0; i < d->source_line_len; i++)
      sink ^= d->source_line[i];
    (void)sink;
  }
  if (!fz_devnull)
    fz_devnull = fopen("/dev/null", "w");
  if (fz_devnull)
    lyDiagnosticPrintToFile(d, fz_devnull);
  (void)n;
}

static inline LyContext fz_context(void) {
  LyContext c = lyContextCreate();
  if (lyContextIsNull(c))
    fz_fail("lyContextCreate returned null without fault injection");
  lyContextSetDiagnosticHandler(c, fz_diag_handler, NULL);
  return c;
}

typedef struct {
  char *data;
  size_t len;
} FzStr;

static inline void fz_collect(const char *piece, size_t len, void *user) {
  FzStr *s = user;
  char *d = realloc(s->data, s->len + len + 1);
  if (!d)
    abort();
  memcpy(d + s->len, piece, len);
  s->data = d;
  s->len += len;
  d[s->len] = 0;
}

/* Advances idx in row-major order; false after the last index. */
static inline bool fz_next_index(int rank, const int64_t *dims, int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    if (++idx[d] < dims[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

static inline int64_t fz_numel(int rank, const int64_t *dims) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++)
    if (__builtin_mul_overflow(n, dims[d], &n))
      return -1;
  return n;
}

/* The printer's spelling must parse back to the same object, in this
 * context and (same hash, same spelling) in a fresh one. Returns the
 * spelling (caller frees with lyStringFree). */
static inline char *fz_check_round_trip(LyContext ctx, LyType t) {
  char *s = lyTypeToString(t);
  if (!s)
    fz_fail("lyTypeToString returned NULL without fault injection");
  FzStr cb = {0};
  lyTypePrint(t, fz_collect, &cb);
  if (!cb.data || strcmp(cb.data, s))
    fz_fail("lyTypePrint '%s' differs from lyTypeToString '%s'", cb.data ? cb.data : "", s);
  free(cb.data);
  int before = fz_errors;
  LyType back = lyTypeParse(ctx, s, strlen(s), "<printed>");
  if (!lyTypeEqual(t, back))
    fz_fail("'%s' does not parse back to the same type (%s)", s,
            lyTypeIsNull(back) ? "parse error" : "another type");
  if (fz_errors != before)
    fz_fail("'%s' parses back with an error diagnostic", s);
  LyContext fresh = fz_context();
  LyType other = lyTypeParse(fresh, s, strlen(s), "<printed>");
  if (lyTypeIsNull(other) || lyTypeGetHash(other) != lyTypeGetHash(t))
    fz_fail("'%s' has another hash in a fresh context", s);
  char *s2 = lyTypeToString(other);
  if (!s2 || strcmp(s, s2))
    fz_fail("'%s' prints as '%s' in a fresh context", s, s2 ? s2 : "");
  lyStringFree(s2);
  lyContextDestroy(fresh);
  return s;
}

/* Geometry queries agree with each other: offsets in [0, alloc), strides
 * reproduce offsets, contiguous means row-major, injective is exact. */
static inline void fz_check_queries(LyType t, const char *s) {
  int rank = lyTypeGetRank(t);
  if (rank < 0 || rank > LY_MAX_RANK)
    fz_fail("'%s': rank %d", s, rank);
  int64_t dims[LY_MAX_RANK];
  bool dynamic_dim = false;
  for (int d = 0; d < rank; d++) {
    dims[d] = lyTypeGetDim(t, d);
    if (dims[d] == LY_DYNAMIC)
      dynamic_dim = true;
    else if (dims[d] < 0)
      fz_fail("'%s': dim %d is %lld", s, d, (long long)dims[d]);
  }
  if (lyTypeGetDim(t, rank) != LY_DYNAMIC || lyTypeGetDim(t, -1) != LY_DYNAMIC)
    fz_fail("'%s': lyTypeGetDim out of range is not LY_DYNAMIC", s);
  if ((unsigned)lyTypeGetElement(t) >= LY_ELEM_COUNT)
    fz_fail("'%s': element %d", s, (int)lyTypeGetElement(t));
  int64_t msn = 0;
  const char *mss = NULL;
  int ms = lyTypeGetMemorySpace(t, &msn, &mss);
  if (ms < 0 || ms > 2 || (ms == 2 && !mss))
    fz_fail("'%s': memory space kind %d", s, ms);
  int any = lyTypeIsAny(t), dyn = lyTypeIsDynamic(t), contig = lyTypeIsContiguous(t);
  if (dynamic_dim && !dyn)
    fz_fail("'%s': a dim is '?' but lyTypeIsDynamic is 0", s);

  int64_t numel = -1, alloc = -1, bytes = -1;
  LyStatus st = lyTypeGetNumel(t, &numel);
  if (st == LY_OK && (dynamic_dim || numel != fz_numel(rank, dims)))
    fz_fail("'%s': numel %lld", s, (long long)numel);
  if (st != LY_OK && !dynamic_dim)
    fz_fail("'%s': numel status %d with static dims", s, st);
  LyStatus sa = lyTypeGetAllocElements(t, &alloc);
  LyStatus sb = lyTypeGetSizeBytes(t, &bytes);
  if (sa != sb)
    fz_fail("'%s': alloc status %d, size status %d", s, sa, sb);
  if (any && sa != LY_ERROR_ANY)
    fz_fail("'%s': 'any' layout but alloc status %d", s, sa);
  if (sa == LY_OK) {
    if (dyn)
      fz_fail("'%s': dynamic but alloc is known", s);
    if (alloc < 0 || bytes < 0)
      fz_fail("'%s': alloc %lld bytes %lld", s, (long long)alloc, (long long)bytes);
    __int128 bits = (__int128)alloc * lyElemGetBits(lyTypeGetElement(t));
    if ((__int128)bytes != (bits + 7) / 8)
      fz_fail("'%s': %lld bytes for %lld elements", s, (long long)bytes, (long long)alloc);
    if (numel > 0 && alloc == 0)
      fz_fail("'%s': %lld elements in an allocation of 0", s, (long long)numel);
  }
  if (contig && (sa == LY_OK && (alloc != numel)))
    fz_fail("'%s': contiguous but alloc %lld != numel %lld", s, (long long)alloc, (long long)numel);

  int64_t strides[LY_MAX_RANK], base = 0;
  LyStatus ss = lyTypeGetStrides(t, strides, &base);
  int bits = lyElemGetBits(lyTypeGetElement(t));
  int64_t unit = bits % 8 == 0 ? bits / 8 : 1; /* strides are in bytes unless sub-byte */

  /* The exact injectivity check enumerates up to 2^24 elements: seconds
   * under ASan, so large types skip it. */
  int injective = -1;
  LyStatus si = numel >= 0 && numel <= FZ_INJECTIVE_NUMEL ? lyTypeIsInjective(t, &injective) : LY_ERROR_UNKNOWN;
  if (si == LY_OK && injective != 0 && injective != 1)
    fz_fail("'%s': injective = %d", s, injective);
  if (sa != LY_OK)
    return;

  /* Offsets of the first and the last index, and everything for small types. */
  int64_t idx[LY_MAX_RANK] = {0}, off;
  if (numel > 0) {
    int64_t bad[LY_MAX_RANK];
    for (int d = 0; d < rank; d++)
      bad[d] = 0;
    if (rank > 0) {
      bad[rank - 1] = dims[rank - 1];
      if (lyTypeGetOffset(t, bad, &off) != LY_ERROR_RANGE)
        fz_fail("'%s': an index out of range is not LY_ERROR_RANGE", s);
      bad[rank - 1] = -1;
      if (lyTypeGetOffset(t, bad, &off) != LY_ERROR_RANGE)
        fz_fail("'%s': a negative index is not LY_ERROR_RANGE", s);
    }
  }
  bool enumerate = numel > 0 && numel <= FZ_ENUM_NUMEL && alloc <= FZ_ENUM_ALLOC;
  uint8_t *seen = enumerate ? calloc((size_t)alloc / 8 + 1, 1) : NULL;
  bool dup = false;
  int64_t linear = 0;
  for (bool more = numel > 0; more; linear++) {
    int64_t at = enumerate || linear == 0 ? linear : numel - 1; /* row-major position of idx */
    LyStatus so = lyTypeGetOffset(t, idx, &off);
    if (so != LY_OK)
      fz_fail("'%s': offset status %d at linear index %lld", s, so, (long long)at);
    if (off < 0 || off >= alloc)
      fz_fail("'%s': offset %lld at linear index %lld is outside the allocation %lld", s, (long long)off,
              (long long)at, (long long)alloc);
    if (contig && off != at)
      fz_fail("'%s': contiguous but offset %lld at linear index %lld", s, (long long)off, (long long)at);
    if (ss == LY_OK) {
      __int128 e = base;
      for (int d = 0; d < rank; d++)
        e += (__int128)(strides[d] / unit) * idx[d];
      if (e != off)
        fz_fail("'%s': strides give offset %lld, offset query %lld at linear index %lld", s, (long long)e,
                (long long)off, (long long)at);
    }
    if (seen) {
      dup = dup || (seen[off >> 3] >> (off & 7) & 1);
      seen[off >> 3] |= (uint8_t)(1 << (off & 7));
    }
    if (!enumerate) { /* first, then last index */
      if (linear > 0)
        break;
      for (int d = 0; d < rank; d++)
        idx[d] = dims[d] - 1;
      more = true;
      continue;
    }
    more = fz_next_index(rank, dims, idx);
  }
  if (seen) {
    if (si == LY_OK && injective != !dup)
      fz_fail("'%s': lyTypeIsInjective says %d, enumeration says %d", s, injective, !dup);
    free(seen);
  }
  if (si != LY_OK && si != LY_ERROR_UNKNOWN)
    fz_fail("'%s': injective status %d on a static type", s, si);
  if (si == LY_ERROR_UNKNOWN && numel <= FZ_INJECTIVE_NUMEL && alloc <= 8 * (1 << 24))
    fz_fail("'%s': injective is unknown on a small type", s);
}

#endif
