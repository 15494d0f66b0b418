/* codegen/host: what the planner knows of the host: its CPU's name and
 * features (asked of LLVM once per process), its caches (sysconf), the
 * environment's overrides of both, and one measurement: whether plain
 * stores past the L2 pay for a read of each line they fill. */
#include "codegen/codegen.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

/* The host CPU's name and features, asked once per process: each question
 * runs CPUID, which traps to the hypervisor on a virtual machine (a quarter
 * of a persistent-cache load's time when asked per kernel). */
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static char *host_cpu, *host_features;

static void init_host(void) {
  host_cpu = LLVMGetHostCPUName();
  host_features = LLVMGetHostCPUFeatures();
}

const char *lyc_host_cpu(void) {
  pthread_once(&host_once, init_host);
  return host_cpu ? host_cpu : "";
}

const char *lyc_host_features(void) {
  pthread_once(&host_once, init_host);
  return host_features ? host_features : "";
}

/* A byte count from the environment, or dflt when unset or not a number. */
static int64_t env_bytes(const char *name, int64_t dflt) {
  const char *v = getenv(name);
  char *end;
  long long n = v ? strtoll(v, &end, 10) : -1;
  return v && *v && !*end && n >= 0 ? n : dflt;
}

/* Whether the LLVM feature string f (comma-separated +name/-name) has +name. */
static bool has_feature(const char *f, const char *name) {
  size_t n = strlen(name);
  for (const char *p = f; (p = strstr(p, name)); p += n)
    if (p > f && p[-1] == '+' && (p == f + 1 || p[-2] == ',') && (p[n] == ',' || !p[n]))
      return true;
  return false;
}

/* A core's L2 in bytes as the system reports it (glibc's sysconf), 0 when
 * it does not. */
static long l2_bytes(void) {
#ifdef _SC_LEVEL2_CACHE_SIZE
  long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return n > 0 ? n : 0;
#else
  return 0;
#endif
}

bool lyc_host_has_feature(const char *name) { return has_feature(lyc_host_features(), name); }

void lyc_host_target(LycTarget *t) {
  const char *f = lyc_host_features(), *v = getenv("LAYOUTC_VECTOR_BYTES");
  t->vector_bytes = strstr(f, "+avx512f") ? 64 : strstr(f, "+avx2") ? 32 : 16;
  /* Plans for another vector width (LLVM splits or widens the vectors): the
   * tests use it to cover every width's tiles on any host. */
  if (v && (!strcmp(v, "16") || !strcmp(v, "32") || !strcmp(v, "64")))
    t->vector_bytes = atoi(v);
  /* Repacks that move a core's share of the last-level cache or more
   * stream through memory, and their stores bypass it: 16 MB of a 32 MB L3
   * (Zen 3: nchw -> nChw16c, 51 MB, 0.66x memcpy with plain stores), an
   * eighth of a bigger one. A Xeon VM reporting 480 MB: OIhw -> OIhw16i16o
   * 512x512x3x3, 19 MB, 0.85x of the copy limit with non-temporal stores
   * and 1.01x with plain ones; nChw16c -> nchw with plain stores against
   * non-temporal ones, 29.9 against 29.8 GB/s at 25 MB, 29.7/27.7 at 51,
   * 29.1/28.1 at 102, 20.8/28.3 at 205 and 16.0/25.7 at 411 MB; the 51 MB
   * repacks of the benchmark 0-8% faster with plain stores, also beside a
   * second process streaming 205 MB (a sixteenth, 30 MB, had been chosen
   * on a busier machine, where an eighth measured 5-25% slower). On AMD's
   * Zen a core's L3 is its CCX's (32 MB on Zen 3 to 5), whatever the
   * system reports for all of them (a Zen 5 VM reports 508 MB): 16 MB there
   * (s8 nhwc -> f32 nchw, 32 MB, 32 -> 54 GB/s with non-temporal stores;
   * OIhw -> OIhw16i16o 512, 19 MB, 62 -> 74). The share itself streams:
   * power-of-two transposes moving exactly 16 MB, interleaved runs with
   * plain stores against non-temporal ones, i4 4096x4096 18.9 -> 23.6
   * GB/s, i8 4096x2048 20.2 -> 26.2, i8 2048x4096 20.4 -> 25.3, f32
   * 2048x1024 36.4 -> 45.6, while the blocked, channels-last and tiled
   * repacks of that size stayed within 2% (nchw <-> nChw16c, nhwc, OIhw16i16o,
   * bf16 (8,128)(2,1)). LAYOUTC_NT_THRESHOLD=BYTES
   * sets it: the tests do, so the plans they check do not depend on the
   * host. */
  bool zen = !strncmp(lyc_host_cpu(), "znver", 5);
  long l3 = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE /* glibc's; elsewhere 16 MB */
  if (!zen)
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  t->nt_threshold = env_bytes("LAYOUTC_NT_THRESHOLD", l3 / 8 > (16 << 20) ? l3 / 8 : 16 << 20);
  /* Transposes into destination rows a multiple of 4 KB apart store past
   * the cache once they move more than a core's L2 (plan.c's stores_alias
   * has the measurements): 1 MB where the system does not say.
   * LAYOUTC_ALIAS_NT_THRESHOLD=BYTES sets it (the tests do). */
  long l2 = l2_bytes();
  t->alias_nt_threshold = env_bytes("LAYOUTC_ALIAS_NT_THRESHOLD", l2 > 0 ? l2 : 1 << 20);
  /* Where the L3 serves a core no faster than memory, everything past the
   * L2 streams: from a quarter past the L2 when the host's stores pay for
   * ownership (lyc_host_rfo_costly, asked by the planner only for repacks
   * of a size in between). An Emerald Rapids VM (2 MB L2, 300 MB L3
   * reported; interleaved runs, plain against non-temporal stores):
   * nchw -> nChw16c 1.6 MB 55 / 32 GB/s, 2.4 MB 35 / 33, 2.8 MB 28 / 34,
   * 13 to 51 MB 22-23 / 29-30; f32 -> bf16 2.1 MB 21 / 36; f32 -> s8 32 MB
   * 23 / 30. Not on Zen (its own share above) nor when
   * LAYOUTC_NT_THRESHOLD is set; LAYOUTC_RFO_NT_THRESHOLD=BYTES sets it on
   * any host, 0 turns it off. */
  int64_t rfo = zen || getenv("LAYOUTC_NT_THRESHOLD") || l2 <= 0 ? 0 : l2 + l2 / 4;
  t->rfo_nt_threshold = env_bytes("LAYOUTC_RFO_NT_THRESHOLD", rfo);
  if (t->rfo_nt_threshold >= t->nt_threshold)
    t->rfo_nt_threshold = 0;
  /* Source-order line copies write in 16 KB windows on Zen, in none
   * elsewhere (plan.c, order_line_runs). LAYOUTC_WRITE_WINDOW=BYTES. */
  t->write_window = env_bytes("LAYOUTC_WRITE_WINDOW", zen ? 16 << 10 : 0);
  /* Past the cache, a sweep of at most 64 separate source rows reads them
   * in runs of Y blocks on Zen, one block at a time elsewhere (plan.c's
   * y_multiple has the measurements). LAYOUTC_FEW_ROW_RUNS=0 or 1. */
  t->few_row_runs = env_bytes("LAYOUTC_FEW_ROW_RUNS", zen) != 0;
  /* Tile transposes of at most 16 rows (f32, f64) whose source rows are a
   * multiple of 4 KB apart read each row in runs of 256 bytes of Y blocks
   * on Zen, of a kilobyte elsewhere (plan.c's rows_alias has the
   * measurements).
   * LAYOUTC_ALIAS_RUN_BYTES=BYTES (a power of two from 64 to 4096 taken
   * from it, downwards) sets it: the tests do. */
  int64_t arb = env_bytes("LAYOUTC_ALIAS_RUN_BYTES", zen ? 256 : 1024);
  t->alias_run_bytes = 64;
  while (t->alias_run_bytes < 4096 && 2 * (int64_t)t->alias_run_bytes <= arb)
    t->alias_run_bytes *= 2;
  /* Into a destination 16, 32 or 48 bytes past a line, transposes cut
   * their rows where the lines begin from rows of 2 KB on (plan.c's
   * cut_at_line has the measurements). LAYOUTC_CUT_ROW_BYTES=BYTES sets
   * it: the random tests take 0, so their small matrices are cut too. */
  t->cut_row_bytes = env_bytes("LAYOUTC_CUT_ROW_BYTES", 2048);
  /* GFNI's affine byte transform transposes an 8x8 bit matrix per 64-bit
   * lane: the i1 bit tiles use it at any vector width the host has it for
   * (VEX needs AVX, the 64-byte form AVX512BW). LAYOUTC_GFNI=0 turns it
   * off (the tests do, so their plans do not depend on the host). */
  const char *gv = getenv("LAYOUTC_GFNI");
  bool gfni = has_feature(f, "gfni") && !(gv && !strcmp(gv, "0"));
  t->gfni_bytes = !gfni ? 0 : has_feature(f, "avx512bw") ? 64 : has_feature(f, "avx") ? 32 : 16;
  /* Conversions from 4-bit (or narrower) codes look them up with PSHUFB
   * (convert.c's lyc_emit_convert_lookup) at any width the host has it. */
  t->pshufb_bytes = !has_feature(f, "ssse3") ? 0 : has_feature(f, "avx512bw") ? 64 : has_feature(f, "avx2") ? 32 : 16;
  /* Dense -> sparse fills left-pack a vector's nonzeros with AVX-512's
   * compress (sparse_jit.c): 32- and 64-bit lanes with AVX512F and VL, 8-
   * and 16-bit ones with VBMI2 too. LAYOUTC_COMPRESS=0 turns it off (the
   * tests run both ways). */
  const char *cv = getenv("LAYOUTC_COMPRESS");
  bool compress = has_feature(f, "avx512f") && has_feature(f, "avx512vl") && !(cv && !strcmp(cv, "0"));
  t->compress_bits = !compress ? 0 : has_feature(f, "avx512vbmi2") ? 8 : 32;
  t->ternlog = has_feature(f, "avx512f");
  /* f32 -> f16 by VCVTPS2PH's intrinsics (LycIR.cvtph_bytes says why). */
  t->cvtph_bytes = !has_feature(f, "f16c") ? 0 : has_feature(f, "avx512f") ? 64 : 32;
  /* f32 -> bf16 by VCVTNEPS2BF16 (LycIR.cvtbf16_bytes). LAYOUTC_CVTBF16=0
   * turns it off (the tests run both ways). */
  bool cvtbf16 = has_feature(f, "avx512bf16") && has_feature(f, "avx512vl") && env_bytes("LAYOUTC_CVTBF16", 1);
  t->cvtbf16_bytes = cvtbf16 ? 64 : 0;
}

/* ===== Reads for ownership ========================================================== */

/* Whether a plain store into a line past the L2 costs this host a read of
 * the line that a streaming store saves: measured once per host (kept in
 * the persistent cache; once per process without it), a copy
 * of twice the L2 (at most 16 MB) each way with plain and with
 * non-temporal 16-byte stores, best of five interleaved, costly when the
 * plain copy takes a fifth longer. About 10 ms on a 2 MB L2; taken only by
 * the first plan of a repack whose size the answer decides. An Emerald
 * Rapids VM: 12 against 19-21 GB/s, so costly; its L3 is no faster than
 * memory for one core. LAYOUTC_RFO_COSTLY=0 or 1 answers instead (the
 * tests' plans do not depend on the host). */
static pthread_once_t rfo_once = PTHREAD_ONCE_INIT;
static bool rfo_costly;

#if defined(__x86_64__) || defined(__i386__)
/* d = s ^ x, 16 bytes at a time: not a plain copy, which the compiler
 * turns into a call of memcpy (whose large copies skip the reads). */
static void copy_lines(__m128i *d, const __m128i *s, size_t n, __m128i x, bool nt) {
  if (nt) {
    for (size_t i = 0; i < n; i += 4)
      for (int k = 0; k < 4; k++)
        _mm_stream_si128(d + i + k, _mm_xor_si128(_mm_load_si128(s + i + k), x));
    _mm_sfence();
    return;
  }
  for (size_t i = 0; i < n; i += 4)
    for (int k = 0; k < 4; k++)
      _mm_store_si128(d + i + k, _mm_xor_si128(_mm_load_si128(s + i + k), x));
}
#endif

/* Measures whether plain stores past the L2 cost a fifth more than
 * streaming ones; false when it cannot (no memory; not x86). */
static bool copies_pay_for_ownership(bool *costly) {
#if defined(__x86_64__) || defined(__i386__)
  long l2 = l2_bytes();
  size_t n = l2 > 0 && l2 <= (8 << 20) ? 2 * (size_t)l2 : 16 << 20;
  n &= ~(size_t)63;
  void *s = aligned_alloc(64, n), *d = aligned_alloc(64, n);
  bool ok = s && d;
  if (ok) {
    memset(s, 1, n);
    memset(d, 0, n);
    double best[2] = {1e30, 1e30};
    for (int r = 0; r < 5; r++)
      for (int nt = 0; nt < 2; nt++) {
        double t = lyc_now_seconds();
        copy_lines(d, s, n / sizeof(__m128i), _mm_set1_epi32(r), nt);
        __asm__ volatile("" : : "r"(d) : "memory"); /* the copies are not dead */
        t = lyc_now_seconds() - t;
        best[nt] = t < best[nt] ? t : best[nt];
      }
    *costly = best[0] > 1.2 * best[1];
  }
  free(s);
  free(d);
  return ok;
#else
  (void)costly;
  return false;
#endif
}

/* The answer as the persistent cache keeps it (keyed like a kernel: the
 * host CPU, its features, the library's sources), so that a fresh process
 * loading its kernels from the cache does not measure again. */
static const char RFO_RECIPE[] = "host fact: plain stores past the L2 pay for ownership\n";

static bool cached_rfo(LycCacheKey *k, bool *costly) {
  LLVMMemoryBufferRef b = lyc_cache_load(k);
  bool ok = b && LLVMGetBufferSize(b) == 1 && (*LLVMGetBufferStart(b) == '0' || *LLVMGetBufferStart(b) == '1');
  if (ok)
    *costly = *LLVMGetBufferStart(b) == '1';
  if (b)
    LLVMDisposeMemoryBuffer(b);
  return ok;
}

static void measure_rfo(void) {
  const char *v = getenv("LAYOUTC_RFO_COSTLY");
  if (v && (!strcmp(v, "0") || !strcmp(v, "1"))) {
    rfo_costly = *v == '1';
    return;
  }
  LycCacheKey k;
  bool keyed = lyc_cache_enabled() && lyc_cache_key(&k, RFO_RECIPE, sizeof RFO_RECIPE - 1, "ly_host_fact", "");
  if (keyed && cached_rfo(&k, &rfo_costly)) {
    lyc_cache_key_free(&k);
    return;
  }
  if (copies_pay_for_ownership(&rfo_costly) && keyed) {
    LLVMMemoryBufferRef b = LLVMCreateMemoryBufferWithMemoryRangeCopy(rfo_costly ? "1" : "0", 1, "rfo");
    if (b) {
      lyc_cache_store(&k, b);
      LLVMDisposeMemoryBuffer(b);
    }
  }
  if (keyed)
    lyc_cache_key_free(&k);
}

bool lyc_host_rfo_costly(void) {
  pthread_once(&rfo_once, measure_rfo);
  return rfo_costly;
}

bool lyc_target_resident(const LycTarget *t, int64_t bytes) {
  if (bytes >= t->nt_threshold)
    return false;
  return !(t->rfo_nt_threshold && bytes >= t->rfo_nt_threshold && lyc_host_rfo_costly());
}
