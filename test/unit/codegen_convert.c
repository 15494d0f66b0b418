/* Element conversion in repacks, through the public API (interpreter and JIT kernels), against
 * independent references: the C compiler's own conversions (_Float16, float, double, integer
 * casts), oneDNN's published f32-to-bf16 formula, and a brute-force "nearest representable value,
 * ties to even" search over every finite value of each narrow float format. Then every pair of
 * real element types (870) against one generic reference: every code of each source of at most 16 bits
 * (signalling NaNs, infinities, subnormals included) and biased random patterns of the wider ones.
 * Prints `codegen_convert: N checks, K failures`; exit status 0 only if K == 0. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/codegen.h"
#include "layoutc/layoutc.h"

static LyContext ctx;
static LyRepacker rep;
static long checks, failures;

static void fail(const char *what, unsigned long long in, unsigned long long got, unsigned long long want) {
  if (failures++ < 20)
    fprintf(stderr, "FAIL %s: input 0x%llx gave 0x%llx, want 0x%llx\n", what, in, got, want);
}

static LyType vec_type(int n, const char *elem) {
  char text[64];
  snprintf(text, sizeof text, "tensor<%dx%s>", n, elem);
  LyType t = lyTypeParse(ctx, text, strlen(text), NULL);
  if (lyTypeIsNull(t)) {
    fprintf(stderr, "cannot parse %s\n", text);
    exit(1);
  }
  return t;
}

/* Element i of a packed buffer of `bits`-bit elements (SPEC 2.4: sub-byte elements fill bytes
 * from their low-order bits, a 6-bit one straddling two bytes where it must; wider ones are
 * little-endian bytes). */
static unsigned long long get(const unsigned char *p, int bits, long i) {
  if (bits < 8) {
    long bit = i * bits;
    unsigned w = p[bit / 8] | (bit % 8 + bits > 8 ? (unsigned)p[bit / 8 + 1] << 8 : 0);
    return (w >> (bit % 8)) & ((1u << bits) - 1);
  }
  unsigned long long v = 0;
  for (int b = 0; b < bits / 8; b++)
    v |= (unsigned long long)p[i * (bits / 8) + b] << (8 * b);
  return v;
}

static void put(unsigned char *p, int bits, long i, unsigned long long v) {
  if (bits < 8) {
    long bit = i * bits;
    for (int k = 0; k < bits; k++, bit++) /* bit by bit: no assumption on byte boundaries */
      p[bit / 8] = (unsigned char)((p[bit / 8] & ~(1u << (bit % 8))) | ((v >> k & 1) << (bit % 8)));
    return;
  }
  for (int b = 0; b < bits / 8; b++)
    p[i * (bits / 8) + b] = (unsigned char)(v >> (8 * b));
}

typedef unsigned long long (*RefFn)(unsigned long long in);

/* n inputs packed as `bits`-bit elements into a new zeroed buffer. */
static unsigned char *packed(const unsigned long long *in, int n, int bits) {
  unsigned char *p = calloc(((size_t)n * bits + 7) / 8, 1);
  for (int i = 0; i < n; i++)
    put(p, bits, i, in[i]);
  return p;
}

/* Runs the compiled kernel of s -> t from r on `threads` threads into b (tbytes, filled with 0xa5
 * first); false, after a failure named `what`, when the pair has no compiled kernel. */
static bool run_jit(LyRepacker r, LyType s, LyType t, int threads, const unsigned char *src, unsigned char *b,
                    size_t tbytes, const char *what) {
  LyRepackKernel k = lyRepackKernelGet(r, s, t, threads);
  if (lyRepackKernelIsNull(k) || !lyRepackKernelIsCompiled(k)) {
    fail(what, 0, 0, 1);
    return false;
  }
  memset(b, 0xa5, tbytes);
  lyRepackRun(k, src, b);
  return true;
}

/* Converts n inputs from `from` to `to` with the interpreter and a compiled kernel on two threads
 * (every pair is compiled), and compares each result with ref(). */
static void check_pair(const char *from, const char *to, const unsigned long long *in, int n, RefFn ref) {
  LyType s = vec_type(n, from), t = vec_type(n, to);
  int fb = lyElemGetBits(lyTypeGetElement(s)), tb = lyElemGetBits(lyTypeGetElement(t));
  size_t tbytes = ((size_t)n * tb + 7) / 8;
  unsigned char *src = packed(in, n, fb), *a = malloc(tbytes), *b = malloc(tbytes);
  char what[64];
  snprintf(what, sizeof what, "%s->%s interpreter", from, to);
  if (lyRepackInterpret(ctx, s, t, src, a) != LY_OK) {
    fail(what, 0, 0, 0);
    goto out;
  }
  for (int i = 0; i < n; i++, checks++)
    if (get(a, tb, i) != ref(in[i]))
      fail(what, in[i], get(a, tb, i), ref(in[i]));
  snprintf(what, sizeof what, "%s->%s jit", from, to);
  if (!run_jit(rep, s, t, 2, src, b, tbytes, what))
    goto out;
  for (int i = 0; i < n; i++, checks++)
    if (get(b, tb, i) != ref(in[i]))
      fail(what, in[i], get(b, tb, i), ref(in[i]));
out:
  free(src);
  free(a);
  free(b);
}

/* The same through a transposing repack: n inputs (a multiple of 16) as a 16 x n/16 row-major
 * source into its column-major image, so the kernel converts whole vectors inside its register
 * tiles (the path that uses the host's conversion instructions, where a contiguous copy is a
 * scalar loop that LLVM vectorises). Each result is found through lyTypeGetOffset. Once with a
 * repacker for each setting: the host's plans, another vector width, a conversion instruction
 * turned off (set while the repacker is created, which reads them). */
static void check_transposed(const char *from, const char *to, const unsigned long long *in, int n, RefFn ref) {
  static const struct {
    const char *name, *value;
  } settings[] = {{NULL, NULL}, {"LAYOUTC_VECTOR_BYTES", "32"}, {"LAYOUTC_CVTBF16", "0"}};
  int m = n / 16;
  char st[96], tt[128];
  snprintf(st, sizeof st, "tensor<16x%dx%s>", m, from);
  snprintf(tt, sizeof tt, "tensor<16x%dx%s, strided<[1,16]>>", m, to);
  LyType s = lyTypeParse(ctx, st, strlen(st), NULL), t = lyTypeParse(ctx, tt, strlen(tt), NULL);
  if (lyTypeIsNull(s) || lyTypeIsNull(t)) {
    fail("transposed types", 0, 0, 1);
    return;
  }
  int fb = lyElemGetBits(lyTypeGetElement(s)), tb = lyElemGetBits(lyTypeGetElement(t));
  size_t tbytes = ((size_t)n * tb + 7) / 8;
  unsigned char *src = packed(in, n, fb), *b = malloc(tbytes);
  for (size_t e = 0; e < sizeof settings / sizeof settings[0]; e++) {
    if (settings[e].name)
      setenv(settings[e].name, settings[e].value, 1);
    LyRepacker r = lyRepackerCreate(ctx);
    if (settings[e].name)
      unsetenv(settings[e].name);
    char what[128];
    snprintf(what, sizeof what, "%s->%s transposed jit %s=%s", from, to, settings[e].name ? settings[e].name : "host",
             settings[e].value ? settings[e].value : "");
    if (lyRepackerIsNull(r)) {
      fail(what, 0, 0, 1);
      continue;
    }
    if (run_jit(r, s, t, 1, src, b, tbytes, what))
      for (int64_t row = 0; row < 16; row++)
        for (int64_t c = 0; c < m; c++, checks++) {
          int64_t idx[2] = {row, c}, off;
          unsigned long long x = in[row * m + c];
          if (lyTypeGetOffset(t, idx, &off) != LY_OK || get(b, tb, (long)off) != ref(x))
            fail(what, x, get(b, tb, (long)off), ref(x));
        }
    lyRepackerDestroy(r);
  }
  free(src);
  free(b);
}

/* --- References ------------------------------------------------------------------------ */

static float f32_of(unsigned long long v) {
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static unsigned long long bits_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static double f64_of(unsigned long long v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}
static unsigned long long bits_f64(double d) {
  unsigned long long u;
  memcpy(&u, &d, 8);
  return u;
}
static unsigned long long bits_f16(_Float16 h) {
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
static _Float16 f16_of(unsigned long long v) {
  uint16_t u = (uint16_t)v;
  _Float16 h;
  memcpy(&h, &u, 2);
  return h;
}

static unsigned long long ref_f16_to_f32(unsigned long long v) { return bits_f32((float)f16_of(v)); }
static unsigned long long ref_f32_to_f64(unsigned long long v) { return bits_f64((double)f32_of(v)); }
static unsigned long long ref_f64_to_f32(unsigned long long v) { return bits_f32((float)f64_of(v)); }
static unsigned long long ref_bf16_to_f32(unsigned long long v) { return v << 16; }

/* oneDNN's bfloat16_t(float), as published in its sources. */
static unsigned long long ref_f32_to_bf16(unsigned long long v) {
  uint32_t u = (uint32_t)v;
  float f = f32_of(u);
  switch (fpclassify(f)) {
  case FP_SUBNORMAL:
  case FP_ZERO: return (u >> 16) & 0x8000;
  case FP_INFINITE: return u >> 16;
  case FP_NAN: return (u >> 16) | (1 << 6);
  default: return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
  }
}

/* Narrow float formats for the brute-force reference, from their definitions: IEEE 754 (f16,
 * bf16), the OCP 8-bit FP spec (E5M2 IEEE-like, E4M3FN: no infinity, S.1111.111 is NaN), MLIR's
 * APFloat for the FNUZ formats (no infinity, no -0; 0x80 is the one NaN; E4M3 bias 8, E5M2 bias
 * 16, E4M3B11 bias 11) and the OCP MX spec for FP6/FP4 (no infinity, no NaN). kind: 0 IEEE, 1 FN,
 * 2 FNUZ, 3 finite only. */
typedef struct {
  int ebits, mbits, bias, fn;
} Fmt;
static const Fmt F16 = {5, 10, 15, 0}, BF16 = {8, 7, 127, 0}, E5M2 = {5, 2, 15, 0}, E4M3 = {4, 3, 7, 1},
                 E4M3UZ = {4, 3, 8, 2}, E5M2UZ = {5, 2, 16, 2}, E4M3B11 = {4, 3, 11, 2}, E2M3 = {2, 3, 1, 3},
                 E3M2 = {3, 2, 3, 3}, E2M1 = {2, 1, 1, 3};

static int code_is_nan(const Fmt *f, unsigned c) { /* c: the magnitude bits */
  unsigned e = (c >> f->mbits) & ((1u << f->ebits) - 1), m = c & ((1u << f->mbits) - 1);
  if (f->fn >= 2)
    return 0; /* FNUZ's NaN is the negative zero code; finite formats have none */
  if (f->fn)
    return e == (1u << f->ebits) - 1 && m == (1u << f->mbits) - 1;
  return e == (1u << f->ebits) - 1 && m;
}

static double code_value(const Fmt *f, unsigned c) { /* non-negative codes, finite */
  unsigned e = (c >> f->mbits) & ((1u << f->ebits) - 1), m = c & ((1u << f->mbits) - 1);
  if (f->fn == 0 && e == (1u << f->ebits) - 1)
    return INFINITY;
  if (e == 0)
    return ldexp(m, 1 - f->bias - f->mbits);
  return ldexp(m + (1u << f->mbits), (int)e - f->bias - f->mbits);
}

/* Nearest representable magnitude, ties to the even code; past the largest finite value the
 * candidate is the overflow result (infinity, or NaN for FN formats) one ulp further. */
static unsigned brute_round(const Fmt *f, double x) {
  int sign = signbit(x) != 0;
  unsigned top = 1u << (f->ebits + f->mbits), best = 0, nan = f->fn ? top - 1 : ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1);
  if (isnan(x))
    return f->fn == 2 ? top : f->fn == 3 ? 0 : nan | (sign ? top : 0);
  double a = fabs(x), bestd = INFINITY;
  unsigned maxc = 0;
  for (unsigned c = 0; c < top; c++) {
    if (code_is_nan(f, c) || isinf(code_value(f, c)))
      continue;
    maxc = c;
    double d = fabs(code_value(f, c) - a);
    if (d < bestd || (d == bestd && !(c & 1)))
      best = c, bestd = d;
  }
  if (f->fn == 3) /* finite only: saturates at the largest value */
    return (a >= code_value(f, maxc) ? maxc : best) | (sign ? top : 0);
  if (f->fn == 2 && best == 0)
    sign = 0; /* no negative zero */
  double ulp = code_value(f, maxc) - code_value(f, maxc - 1), over = code_value(f, maxc) + ulp;
  unsigned overflow = f->fn == 2 ? top : f->fn ? top - 1 : ((1u << f->ebits) - 1) << f->mbits;
  double dover = fabs(over - a); /* beyond `over` both distances round alike: decide directly */
  if (a >= over || dover < bestd || (dover == bestd && !((maxc + 1) & 1)))
    return f->fn == 2 ? top : overflow | (sign ? top : 0); /* FNUZ: the one NaN */
  return best | (sign ? top : 0);
}

/* NaN inputs: sign kept, the top payload bits kept, quiet bit set (what x86's vcvtps2ph and
 * cvtsd2ss do, and oneDNN's reorder with them); NaN-only formats have one NaN per sign. */
static unsigned nan_narrow(const Fmt *f, int sign, unsigned long long payload_top64) {
  unsigned top = 1u << (f->ebits + f->mbits);
  if (f->fn == 2)
    return top; /* FNUZ: the one NaN */
  if (f->fn == 3)
    return 0; /* no NaN: +0, as a NaN converted to an integer */
  unsigned nan = f->fn ? top - 1
                       : ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1) | (unsigned)(payload_top64 >> (64 - f->mbits));
  return nan | (sign ? top : 0);
}
static unsigned long long from_f32(const Fmt *f, unsigned long long v) {
  if (isnan(f32_of(v)))
    return nan_narrow(f, v >> 31 & 1, (v & 0x7fffff) << 41);
  return brute_round(f, f32_of(v));
}
static unsigned long long from_f64(const Fmt *f, unsigned long long v) {
  if (isnan(f64_of(v)))
    return nan_narrow(f, v >> 63 & 1, (v & 0xfffffffffffffULL) << 12);
  return brute_round(f, f64_of(v));
}
static unsigned long long ref_f32_to_f16(unsigned long long v) {
  return isnan(f32_of(v)) ? from_f32(&F16, v) : bits_f16((_Float16)f32_of(v));
}
static unsigned long long ref_f32_to_e5m2(unsigned long long v) { return from_f32(&E5M2, v); }
static unsigned long long ref_f32_to_e4m3(unsigned long long v) { return from_f32(&E4M3, v); }
static unsigned long long ref_f32_to_f16_brute(unsigned long long v) { return from_f32(&F16, v); }
static unsigned long long ref_f64_to_bf16(unsigned long long v) { return from_f64(&BF16, v); }
static unsigned long long ref_f64_to_f16(unsigned long long v) { return from_f64(&F16, v); }
static unsigned long long ref_i32_to_bf16(unsigned long long v) { return brute_round(&BF16, (double)(int32_t)v); }

static double e4m3_value(unsigned c) {
  double m = code_value(&E4M3, c & 0x7f);
  return c & 0x80 ? -m : m;
}
static unsigned long long ref_e4m3_to_f32(unsigned long long v) {
  if (code_is_nan(&E4M3, v & 0x7f))
    return (v & 0x80 ? 0x80000000u : 0) | 0x7fc00000u | (uint32_t)(v & 7) << 20;
  return bits_f32((float)e4m3_value((unsigned)v));
}

/* Integers: two's complement wrap; i1 is 0/1. Float to integer: nearest even, saturating. */
static unsigned long long ref_i32_to_i8(unsigned long long v) { return (uint8_t)(int8_t)(int32_t)v; }
static unsigned long long ref_i8_to_i64(unsigned long long v) { return (unsigned long long)(int64_t)(int8_t)v; }
static unsigned long long ref_i64_to_i16(unsigned long long v) { return (uint16_t)(int16_t)(int64_t)v; }
static unsigned long long ref_f32_to_i8(unsigned long long v) {
  float f = f32_of(v);
  if (isnan(f))
    return 0;
  double r = nearbyint(f);
  return (uint8_t)(int8_t)(r > 127 ? 127 : r < -128 ? -128 : r);
}
static unsigned long long ref_f64_to_i32(unsigned long long v) {
  double f = f64_of(v);
  if (isnan(f))
    return 0;
  double r = nearbyint(f);
  return (uint32_t)(int32_t)(r > 2147483647.0 ? 2147483647.0 : r < -2147483648.0 ? -2147483648.0 : r);
}
static unsigned long long ref_i64_to_f32(unsigned long long v) { return bits_f32((float)(int64_t)v); }
static unsigned long long ref_i16_to_f16(unsigned long long v) { return bits_f16((_Float16)(int16_t)v); }

/* --- Inputs ------------------------------------------------------------------------------ */

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

/* n random f32 bit patterns, biased to the interesting ones: specials, subnormals, ties. */
static void f32_inputs(unsigned long long *in, int n, int scale_exp) {
  static const uint32_t special[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                                     0xffbfffffu, 1, 0x807fffffu, 0x3f808000u, 0x3f818000u, 0x477ff000u,
                                     0x477fefffu, 0x33000000u, 0x33000001u, 0x387fc000u, 0x43e80000u,
                                     0x43e7ffffu, 0x47700000u, 0x476fffffu};
  for (int i = 0; i < n; i++) {
    uint64_t r = next();
    if (i < (int)(sizeof special / sizeof special[0]))
      in[i] = special[i];
    else if (r % 4 == 0) /* a value near the format's range with a tie-prone mantissa */
      in[i] = bits_f32(ldexpf((float)(r >> 40 & 0xffff) / 64.0f, (int)((r >> 8) % (2 * (uint64_t)scale_exp)) - scale_exp)) ^
              ((r >> 33 & 1) << 31);
    else
      in[i] = (uint32_t)(r >> 16);
  }
}

/* --- Every pair, one generic reference ---------------------------------------------------------
 * A source element is decoded to what it means (an exact integer, an exact or NaN float with its
 * sign and payload) and the reference encodes that meaning in the destination type by the rules
 * above: the specific references where they exist, brute-force rounding for the narrow formats. */

typedef struct {
  int is_int, uns, nan, sign;
  long long i;                 /* integer sources (unsigned ones: the bits) */
  double v;                    /* float sources: the exact value (not NaN) */
  unsigned long long payload;  /* NaN: the mantissa field, aligned to bit 63 */
} Meaning;

static LyElem sw_from, sw_to;

static const Fmt *narrow_fmt(LyElem e) {
  switch (e) {
  case LY_ELEM_F16: return &F16;
  case LY_ELEM_BF16: return &BF16;
  case LY_ELEM_F8E5M2: return &E5M2;
  case LY_ELEM_F8E4M3FN: return &E4M3;
  case LY_ELEM_F8E4M3FNUZ: return &E4M3UZ;
  case LY_ELEM_F8E5M2FNUZ: return &E5M2UZ;
  case LY_ELEM_F8E4M3B11FNUZ: return &E4M3B11;
  case LY_ELEM_F6E2M3FN: return &E2M3;
  case LY_ELEM_F6E3M2FN: return &E3M2;
  default: return &E2M1;
  }
}

static int is_integer(LyElem e) { return lyElemGetKind(e) <= LY_ELEM_KIND_UNSIGNED; }

static Meaning decode(LyElem e, unsigned long long c) {
  Meaning m = {0};
  int bits = lyElemGetBits(e);
  if (is_integer(e)) {
    m.is_int = 1;
    m.uns = lyElemGetKind(e) == LY_ELEM_KIND_UNSIGNED || e == LY_ELEM_I1;
    m.i = m.uns ? (long long)c : bits == 64 ? (long long)c : (long long)(c << (64 - bits)) >> (64 - bits);
    return m;
  }
  if (e == LY_ELEM_F8E8M0FNU) { /* OCP MX scale: 2^(c - 127), 0xff NaN, no sign, no zero */
    m.nan = c == 0xff;
    m.v = ldexp(1, (int)c - 127);
    return m;
  }
  if (e == LY_ELEM_TF32) /* an f32 word; its 13 low bits are not part of the value */
    c &= ~0x1fffULL, e = LY_ELEM_F32;
  if (e == LY_ELEM_F32 || e == LY_ELEM_F64) {
    m.sign = (int)(c >> (bits - 1) & 1);
    m.nan = e == LY_ELEM_F32 ? isnan(f32_of(c)) : isnan(f64_of(c));
    m.v = e == LY_ELEM_F32 ? f32_of(c) : f64_of(c);
    m.payload = e == LY_ELEM_F32 ? (c & 0x7fffff) << 41 : (c & 0xfffffffffffffULL) << 12;
    return m;
  }
  const Fmt *f = narrow_fmt(e);
  unsigned mag = (unsigned)c & ((1u << (f->ebits + f->mbits)) - 1);
  m.sign = (int)(c >> (f->ebits + f->mbits) & 1);
  if (f->fn == 2 && m.sign && mag == 0) /* FNUZ's NaN: no sign, no payload */
    return (Meaning){.nan = 1};
  m.nan = code_is_nan(f, mag);
  m.v = m.sign ? -code_value(f, mag) : code_value(f, mag);
  m.payload = (unsigned long long)(mag & ((1u << f->mbits) - 1)) << (64 - f->mbits);
  return m;
}

/* a rounded to `sig` significant bits, ties to even, in integer arithmetic; the result as a
 * double (exact: at most 11 significant bits). */
static double round_sig(unsigned long long a, int sig) {
  int len = 64 - __builtin_clzll(a | 1);
  if (len <= sig)
    return (double)a;
  int s = len - sig;
  unsigned long long q = a >> s, rem = a & ((1ULL << s) - 1), half = 1ULL << (s - 1);
  if (rem > half || (rem == half && (q & 1)))
    q++;
  return ldexp((double)q, s);
}
static double round8(unsigned long long a) { return round_sig(a, 8); }

/* tf32 (f32's range, 10 fraction bits) from a double: round to nearest even at the spacing of
 * v's binade (2^-136 below 2^-126), overflow to infinity; the f32 word of the result. */
static unsigned long long tf32_of(double v) {
  if (v == 0)
    return bits_f32((float)v);
  int e = ilogb(v) < -126 ? -126 : ilogb(v);
  double r = ldexp(nearbyint(ldexp(v, 10 - e)), e - 10);
  return bits_f32(fabs(r) >= 0x1p128 ? copysign(INFINITY, v) : (float)r);
}

/* f8E8M0FNU from a value: the nearest power of two where a tie (1.5 * 2^e) goes up (APFloat's
 * ties-to-even with a one-bit significand); no zero (zeros and values below 2^-127 give the
 * smallest code); negative, infinite and too large values give the NaN. */
static unsigned long long e8m0_of(double v) {
  if (isnan(v) || isinf(v) || (v < 0))
    return 0xff;
  if (v == 0)
    return 0;
  int e = ilogb(v);
  if (ldexp(v, -e) >= 1.5)
    e++;
  return e < -127 ? 0 : e > 127 ? 0xff : (unsigned long long)(e + 127);
}

static unsigned long long encode(LyElem to, Meaning m) {
  int bits = lyElemGetBits(to);
  if (is_integer(to)) {
    if (m.is_int) /* extend by the source's signedness, wrap; i1 keeps the low bit */
      return bits == 64 ? (unsigned long long)m.i : (unsigned long long)m.i & ((1ULL << bits) - 1);
    if (m.nan)
      return 0;
    double r = nearbyint(m.v);
    if (to == LY_ELEM_I1)
      return r >= 1;
    if (lyElemGetKind(to) == LY_ELEM_KIND_UNSIGNED) /* saturate to [0, 2^bits - 1] */
      return r <= 0 ? 0 : r >= ldexp(1, bits) ? (bits == 64 ? ~0ULL : (1ULL << bits) - 1) : (unsigned long long)r;
    double lo = -ldexp(1, bits - 1), hi = ldexp(1, bits - 1) - 1;
    long long x = r <= lo ? (long long)lo : r >= hi ? (bits == 64 ? INT64_MAX : (long long)hi) : (long long)r;
    return bits == 64 ? (unsigned long long)x : (unsigned long long)x & ((1ULL << bits) - 1);
  }
  if (m.is_int) {
    int neg = !m.uns && m.i < 0;
    unsigned long long a = neg ? 0 - (unsigned long long)m.i : (unsigned long long)m.i;
    if (to == LY_ELEM_F64)
      return bits_f64(m.uns ? (double)(unsigned long long)m.i : (double)m.i);
    if (to == LY_ELEM_F32)
      return bits_f32(m.uns ? (float)(unsigned long long)m.i : (float)m.i); /* one correct rounding */
    if (to == LY_ELEM_BF16) { /* exactly to 8 bits, then the (exact) bf16 encoding */
      double r = round8(a);
      return ref_f32_to_bf16(bits_f32((float)(neg ? -r : r)));
    }
    if (to == LY_ELEM_TF32)
      return tf32_of(neg ? -round_sig(a, 11) : round_sig(a, 11));
    if (to == LY_ELEM_F8E8M0FNU)
      return e8m0_of(neg ? -round_sig(a, 1) : round_sig(a, 1));
    /* f16, f8, f6, f4: every integer past 2^24 overflows these formats, so the double is as good */
    m.v = neg ? -(double)a : (double)a;
  } else if (m.nan) {
    if (sw_from == LY_ELEM_BF16 && to == LY_ELEM_F32) /* a shift: the payload untouched, as oneDNN */
      return (unsigned long long)m.sign << 31 | 0x7f800000u | (m.payload >> 41);
    if (sw_from == LY_ELEM_TF32 && to == LY_ELEM_F32) /* tf32's bits, likewise */
      return (unsigned long long)m.sign << 31 | 0x7f800000u | (m.payload >> 41);
    if (to == LY_ELEM_F32)
      return (unsigned long long)m.sign << 31 | 0x7fc00000u | (m.payload >> 41);
    if (to == LY_ELEM_F64)
      return (unsigned long long)m.sign << 63 | 0x7ff8000000000000ULL | (m.payload >> 12);
    if (to == LY_ELEM_TF32)
      return (unsigned long long)m.sign << 31 | 0x7fc00000u | (m.payload >> 54 << 13);
    if (to == LY_ELEM_F8E8M0FNU)
      return 0xff;
    return nan_narrow(narrow_fmt(to), m.sign, m.payload);
  }
  switch (to) {
  case LY_ELEM_F64: return bits_f64(m.v);
  case LY_ELEM_F32: return bits_f32((float)m.v); /* one correct rounding from double */
  case LY_ELEM_TF32: return tf32_of(m.v);
  case LY_ELEM_F8E8M0FNU: return e8m0_of(m.v);
  case LY_ELEM_BF16:
    /* oneDNN's flush is f32's; sources with values that are f32 subnormals round once */
    if (sw_from == LY_ELEM_F64 || sw_from == LY_ELEM_TF32 || sw_from == LY_ELEM_F8E8M0FNU)
      return brute_round(&BF16, m.v);
    return ref_f32_to_bf16(bits_f32((float)m.v));
  case LY_ELEM_F16:
    if (sw_from == LY_ELEM_F64)
      return brute_round(&F16, m.v);
    return bits_f16((_Float16)(float)m.v); /* exact in f32, one rounding */
  default: return brute_round(narrow_fmt(to), m.v);
  }
}

static unsigned long long ref_any(unsigned long long v) { return encode(sw_to, decode(sw_from, v)); }

/* Every element type to every other: each code of every source of at most 16 bits (NaN payloads,
 * signalling ones included, infinities, subnormals), and n patterns of the wider sources. */
static void check_all_pairs(unsigned long long *in, int n, int slow_n) {
  for (int f = 0; f < LY_ELEM_COUNT; f++)
    for (int t = 0; t < LY_ELEM_COUNT; t++) {
      if (f == t || lyElemGetKind((LyElem)f) == LY_ELEM_KIND_COMPLEX || lyElemGetKind((LyElem)t) == LY_ELEM_KIND_COMPLEX)
        continue;
      sw_from = (LyElem)f, sw_to = (LyElem)t;
      int bits = lyElemGetBits(sw_from), count;
      if (bits <= 16) {
        count = 1 << bits;
        for (int i = 0; i < count; i++)
          in[i] = (unsigned)i;
      } else {
        count = (f == LY_ELEM_F64 || f == LY_ELEM_TF32) && (t == LY_ELEM_F16 || t == LY_ELEM_BF16) ? slow_n : n; /* brute force */
        for (int i = 0; i < count; i++) {
          uint64_t r = next();
          in[i] = bits == 32 ? (i % 3 ? r >> 32 : (uint32_t)(int32_t)(int16_t)r) : r;
          if (f == LY_ELEM_F64 && i % 2) /* doubles inside the narrow ranges, not only huge and tiny */
            in[i] = bits_f64(ldexp((double)(r >> 11) / 9007199254740992.0 + 1.0, (int)(r % 80) - 40) * (r >> 63 ? -1 : 1));
          if ((f == LY_ELEM_F32 || f == LY_ELEM_TF32) && i % 3 == 1)
            in[i] = bits_f32(ldexpf((float)(r >> 40 & 0xffff) / 64.0f, (int)((r >> 8) % 48) - 24));
        }
      }
      check_pair(lyElemGetName(sw_from), lyElemGetName(sw_to), in, count, ref_any);
    }
}

/* complex<A> -> complex<B>: each half converts as A -> B (real part first); the interpreter and a
 * kernel against the generic reference. A complex element never converts to or from a real one:
 * both paths refuse the pair. */
static void check_complex(int n) {
  static const LyElem cx[] = {LY_ELEM_COMPLEX_F16, LY_ELEM_COMPLEX_F32, LY_ELEM_COMPLEX_F64};
  for (int f = 0; f < 3; f++)
    for (int t = 0; t < 3; t++) {
      LyType s = vec_type(n, lyElemGetName(cx[f])), d = vec_type(n, lyElemGetName(cx[t]));
      sw_from = lyElemGetComponent(cx[f]), sw_to = lyElemGetComponent(cx[t]);
      int fb = lyElemGetBits(sw_from), tb = lyElemGetBits(sw_to);
      unsigned char *src = calloc((size_t)n * 2, 8), *a = calloc((size_t)n * 2, 8), *b = calloc((size_t)n * 2, 8);
      unsigned long long want[2 * 4096];
      for (int i = 0; i < 2 * n; i++) {
        uint64_t r = next();
        unsigned long long c = fb == 64 ? (i % 2 ? r : bits_f64(ldexp((double)(r >> 11) / 9007199254740992.0 + 1.0, (int)(r % 60) - 30)))
                               : fb == 32 ? (i % 2 ? r >> 32 : bits_f32(ldexpf((float)(r >> 40 & 0xffff) / 64.0f, (int)(r % 48) - 24)))
                                          : r & 0xffff;
        put(src, fb, i, c);
        want[i] = f == t ? c : encode(sw_to, decode(sw_from, c)); /* a copy keeps every bit */
      }
      char what[64];
      snprintf(what, sizeof what, "%s->%s interpreter", lyElemGetName(cx[f]), lyElemGetName(cx[t]));
      if (lyRepackInterpret(ctx, s, d, src, a) != LY_OK)
        fail(what, 0, 0, 0);
      LyRepackKernel k = lyRepackKernelGet(rep, s, d, 2);
      if (lyRepackKernelIsNull(k) || !lyRepackKernelIsCompiled(k))
        fail(what, 0, 0, 1);
      else
        lyRepackRun(k, src, b);
      for (int i = 0; i < 2 * n; i++, checks += 2) {
        if (get(a, tb, i) != want[i])
          fail(what, (unsigned long long)i, get(a, tb, i), want[i]);
        if (get(b, tb, i) != want[i])
          fail("complex jit", (unsigned long long)i, get(b, tb, i), want[i]);
      }
      free(src), free(a), free(b);
      LyType real = vec_type(n, lyElemGetName(sw_to)); /* refused both ways, by both paths */
      unsigned char dummy[8 * 2 * 4096];
      checks += 4;
      if (lyRepackInterpret(ctx, s, real, dummy, dummy) != LY_ERROR_INVALID ||
          lyRepackInterpret(ctx, real, s, dummy, dummy) != LY_ERROR_INVALID)
        fail("complex<->real interpreter not refused", (unsigned long long)f, 0, 1);
      if (!lyRepackKernelIsNull(lyRepackKernelGet(rep, s, real, 1)) || !lyRepackKernelIsNull(lyRepackKernelGet(rep, real, s, 1)))
        fail("complex<->real kernel not refused", (unsigned long long)f, 0, 1);
    }
}

int main(void) {
  ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  rep = lyRepackerCreate(ctx);
  if (lyRepackerIsNull(rep))
    return 1;
  enum { N = 1 << 16 };
  static unsigned long long in[1 << 20];
  /* The sanitizer run (LAYOUTC_TEST_QUICK) checks fewer random inputs; the exhaustive sweeps stay. */
  int R = getenv("LAYOUTC_TEST_QUICK") ? 1 << 16 : 1 << 20, B = getenv("LAYOUTC_TEST_QUICK") ? 512 : 4096;

  for (int i = 0; i < N; i++) /* every f16 and bf16 code */
    in[i] = (unsigned)i;
  check_pair("f16", "f32", in, N, ref_f16_to_f32);
  check_pair("bf16", "f32", in, N, ref_bf16_to_f32);

  f32_inputs(in, R, 40);
  check_pair("f32", "f16", in, R, ref_f32_to_f16);
  check_pair("f32", "f16", in, B, ref_f32_to_f16_brute);
  check_pair("f32", "bf16", in, R, ref_f32_to_bf16);
  check_transposed("f32", "bf16", in, R, ref_f32_to_bf16);
  check_pair("f32", "f64", in, R, ref_f32_to_f64);
  check_pair("f32", "f8E5M2", in, B, ref_f32_to_e5m2);
  f32_inputs(in, B, 12);
  check_pair("f32", "f8E4M3FN", in, B, ref_f32_to_e4m3);
  check_pair("f32", "f8E5M2", in, B, ref_f32_to_e5m2);
  check_pair("f32", "i8", in, B, ref_f32_to_i8);
  for (int i = 0; i < 256; i++)
    in[i] = (unsigned)i;
  check_pair("f8E4M3FN", "f32", in, 256, ref_e4m3_to_f32);

  for (int i = 0; i < N; i++) { /* doubles around f32 / f16 / bf16 boundaries, and random bits */
    uint64_t r = next();
    in[i] = i % 2 ? r : bits_f64(ldexp((double)(r >> 11) / 9007199254740992.0 + 1.0, (int)(r % 300) - 150) *
                                 (r >> 63 ? -1 : 1));
  }
  check_pair("f64", "f32", in, N, ref_f64_to_f32);
  check_pair("f64", "bf16", in, B, ref_f64_to_bf16);
  check_pair("f64", "f16", in, B, ref_f64_to_f16);
  check_pair("f64", "i32", in, N, ref_f64_to_i32);

  for (int i = 0; i < N; i++)
    in[i] = next();
  check_pair("i32", "i8", in, N, ref_i32_to_i8);
  check_pair("i8", "i64", in, N, ref_i8_to_i64);
  check_pair("i64", "i16", in, N, ref_i64_to_i16);
  check_pair("i64", "f32", in, N, ref_i64_to_f32);
  check_pair("i16", "f16", in, N, ref_i16_to_f16);
  check_pair("i32", "bf16", in, B, ref_i32_to_bf16);

  check_all_pairs(in, B, B / 8);
  lyContextSetDiagnosticHandler(ctx, NULL, NULL); /* the refusals below are expected */
  check_complex(1000);

  printf("codegen_convert: %ld checks, %ld failures\n", checks, failures);
  lyRepackerDestroy(rep);
  lyContextDestroy(ctx);
  return failures != 0;
}
