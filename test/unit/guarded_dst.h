/* A repack destination between guards, for the C unit tests: the destination starts a chosen
 * number of bytes past a 64-byte line (0 selects a kernel's non-temporal variant; 16, 32 and 48
 * the variant for that offset where the kernel has one; any other its plain one) and GUARD_BYTES of the fill lie on each side of it. A kernel must leave the guards
 * as they are: a masked or carried store must not reach past the destination's own bytes. */
#ifndef LAYOUTC_TEST_GUARDED_DST_H
#define LAYOUTC_TEST_GUARDED_DST_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTES 64

/* Byte i of a repack test's source: a mix of the index, so no row of a tensor repeats another.
 * The pattern these tests used before, (i * 131 + 7) mod 256, repeats every 256 bytes: every row
 * of 1024 f32 was the same, and a transpose that read another group's rows still matched. */
static inline uint8_t test_source_byte(int64_t i) {
  uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15u;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9u;
  return (uint8_t)(x >> 56);
}

typedef struct {
  unsigned char *buf, *dst;
  size_t size;   /* of buf */
  int64_t bytes; /* of the destination */
  int off;       /* bytes dst is past a line */
} GuardedDst;

/* Room for a destination of `bytes` at any offset below 64; false if out of memory. */
static inline bool guarded_dst_alloc(GuardedDst *g, int64_t bytes) {
  g->bytes = bytes, g->off = 0;
  g->size = ((size_t)bytes + 2 * GUARD_BYTES + 64 + 63) & ~(size_t)63;
  g->buf = aligned_alloc(64, g->size);
  g->dst = g->buf ? g->buf + GUARD_BYTES : NULL;
  return g->buf != NULL;
}

/* Fills the whole buffer with `fill` and returns the destination `off` bytes past a line. */
static inline unsigned char *guarded_dst_fill(GuardedDst *g, int off, unsigned char fill) {
  memset(g->buf, fill, g->size);
  g->off = off;
  return g->dst = g->buf + GUARD_BYTES + off;
}

/* Whether the guards on both sides of the destination still hold `fill`. */
static inline bool guarded_dst_intact(const GuardedDst *g, unsigned char fill) {
  for (const unsigned char *p = g->buf; p < g->dst; p++)
    if (*p != fill)
      return false;
  for (int64_t i = 0; i < GUARD_BYTES; i++)
    if (g->dst[g->bytes + i] != fill)
      return false;
  return true;
}

static inline void guarded_dst_free(GuardedDst *g) { free(g->buf); }

#endif
