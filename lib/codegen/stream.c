/* codegen/stream: the runtime's own bulk copies and zeroing (the grouped
 * conversions' whole runs), with stores that bypass the cache when the
 * caller's data is past it (lyc_target_resident): glibc's memcpy and memset
 * decide from the L3's size alone, which on hosts whose L3 serves a core no
 * faster than memory keeps plain stores, each paying a read of its line. */
#include "codegen/codegen.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__x86_64__)
/* Non-temporal stores from dst's first W-byte boundary, 4 W bytes at a
 * time, the head and the tail plainly; src (zeros when NULL) read
 * unaligned. One body per width: SSE2's 16 bytes, AVX2's 32. */
#define STREAM_BODY(W, VEC, LOADU, STREAM, ZERO)                                                                  \
  size_t head = (size_t)(-(uintptr_t)dst & (W - 1)), i = 0;                                                      \
  if (n < head + 4 * W)                                                                                          \
    return src ? (void)memcpy(dst, src, n) : (void)memset(dst, 0, n);                                            \
  if (src)                                                                                                       \
    memcpy(dst, src, head), src += head;                                                                         \
  else                                                                                                           \
    memset(dst, 0, head);                                                                                        \
  dst += head, n -= head;                                                                                        \
  VEC z = ZERO();                                                                                                \
  for (; i + 4 * W <= n; i += 4 * W)                                                                             \
    for (int k = 0; k < 4 * W; k += W)                                                                           \
      STREAM((VEC *)(dst + i + k), src ? LOADU((const VEC *)(src + i + k)) : z);                                 \
  _mm_sfence();                                                                                                  \
  if (src)                                                                                                       \
    memcpy(dst + i, src + i, n - i);                                                                             \
  else                                                                                                           \
    memset(dst + i, 0, n - i);

static void stream16(uint8_t *dst, const uint8_t *src, size_t n) {
  STREAM_BODY(16, __m128i, _mm_loadu_si128, _mm_stream_si128, _mm_setzero_si128)
}

__attribute__((target("avx2"))) static void stream32(uint8_t *dst, const uint8_t *src, size_t n) {
  STREAM_BODY(32, __m256i, _mm256_loadu_si256, _mm256_stream_si256, _mm256_setzero_si256)
}
#endif

/* grouped->padded f32 8x(<=1280)x1024 on an Emerald Rapids VM, ratio to
 * the copy limit, three interleaved runs: memcpy and memset 0.69-0.74,
 * 16-byte streaming stores 0.69-0.84, 32-byte 0.98-1.01 (padded->grouped
 * 0.82-0.98, 0.87-1.07, 1.09-1.13). LAYOUTC_STREAM_BYTES=16 takes SSE2's
 * stores on any host, 0 plain ones. */
int lyc_stream_bytes(void) {
#if defined(__x86_64__)
  const char *v = getenv("LAYOUTC_STREAM_BYTES"); /* 16 or 0: the tests take the narrower path too */
  int w = lyc_host_has_feature("avx2") ? 32 : 16;
  return v && (!strcmp(v, "16") || !strcmp(v, "0")) ? atoi(v) : w;
#else
  return 0;
#endif
}

static void copy_or_zero(void *dst, const void *src, size_t n, int nt) {
#if defined(__x86_64__)
  if (nt == 32)
    return stream32(dst, src, n);
  if (nt == 16)
    return stream16(dst, src, n);
#endif
  (void)nt;
  src ? (void)memcpy(dst, src, n) : (void)memset(dst, 0, n);
}

void lyc_copy(void *dst, const void *src, size_t n, int nt) { copy_or_zero(dst, src, n, nt); }

void lyc_zero(void *dst, size_t n, int nt) { copy_or_zero(dst, NULL, n, nt); }
