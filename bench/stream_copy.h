/* The copy limit every repack benchmark is measured against (SPEC 5): AVX2 loads and
 * non-temporal stores, 128 bytes a step. Shared by bench/repack_bench.c and `layoutc repack
 * --bench` so both compare with the same yardstick. nt_pass is the bound of a repack whose two
 * sides differ in size: one streaming pass that reads as many bytes as its source and writes as
 * many as its destination. */
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

/* Reads sn bytes of src and writes dn bytes of dst (32-byte aligned, non-temporal), both in
 * order. When one size is r times the other (r a whole number), 128 bytes of the smaller side a
 * step: a widening pass stores each source vector r times in a row, a narrowing one ORs r source
 * vectors into each destination vector (so it really reads them all). Other ratios go 32 bytes
 * of the larger side a step, the smaller side's unit scaled down. */
__attribute__((target("avx2"), unused)) static void nt_pass(void *dst, size_t dn, const void *src, size_t sn) {
  const char *p = src;
  char *q = dst;
  size_t big = dn > sn ? dn : sn, small = dn > sn ? sn : dn;
  if (small < 128)
    return;
  if (big % small == 0) {
    size_t r = big / small, i = 0;
    for (; i + 128 <= small; i += 128)
      for (int k = 0; k < 4; k++) {
        if (dn >= sn) {
          __m256i v = _mm256_loadu_si256((const __m256i *)(p + i + 32 * k));
          for (size_t t = 0; t < r; t++)
            _mm256_stream_si256((__m256i *)(q + (i + 32 * k) * r + 32 * t), v);
        }
        else {
          __m256i v = _mm256_loadu_si256((const __m256i *)(p + (i + 32 * k) * r));
          for (size_t t = 1; t < r; t++)
            v = _mm256_or_si256(v, _mm256_loadu_si256((const __m256i *)(p + (i + 32 * k) * r + 32 * t)));
          _mm256_stream_si256((__m256i *)(q + i + 32 * k), v);
        }
      }
    _mm_sfence();
    return;
  }
  size_t units = big / 32, n = small / 32;
  __m256i acc = _mm256_setzero_si256();
  for (size_t i = 0, j = 0, rem = 0; i < units; i++) { /* j = i * n / units */
    if (dn >= sn)
      _mm256_stream_si256((__m256i *)(q + 32 * i), _mm256_loadu_si256((const __m256i *)(p + 32 * j)));
    else
      acc = _mm256_or_si256(acc, _mm256_loadu_si256((const __m256i *)(p + 32 * i)));
    for (rem += n; rem >= units; rem -= units) {
      if (dn < sn)
        _mm256_stream_si256((__m256i *)(q + 32 * j), acc), acc = _mm256_setzero_si256();
      j++;
    }
  }
  _mm_sfence();
}
#else
__attribute__((unused)) static void nt_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
__attribute__((unused)) static void nt_pass(void *dst, size_t dn, const void *src, size_t sn) {
  memcpy(dst, src, dn < sn ? dn : sn);
}
#endif
#endif
