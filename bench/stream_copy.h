/* The copy limit every repack benchmark is measured against (SPEC 5): AVX2 loads and
 * non-temporal stores, 128 bytes a step. Shared by bench/repack_bench.c and `layoutc repack
 * --bench` so both compare with the same yardstick. */
#ifndef LAYOUTC_STREAM_COPY_H
#define LAYOUTC_STREAM_COPY_H
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* dst 32-byte aligned. */
__attribute__((target("avx2"), unused)) static void nt_copy(void *dst, const void *src, size_t n) {
  size_t i = 0;
  for (; i + 128 <= n; i += 128)
    for (int k = 0; k < 4; k++)
      _mm256_stream_si256((__m256i *)((char *)dst + i + 32 * k),
                          _mm256_loadu_si256((const __m256i *)((const char *)src + i + 32 * k)));
  _mm_sfence();
  memcpy((char *)dst + i, (const char *)src + i, n - i);
}
#else
__attribute__((unused)) static void nt_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif
#endif
