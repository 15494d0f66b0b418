/* codegen/interp: the reference repack interpreter and element conversion.
 * Conversion is exact software arithmetic (no host floating point), so it is
 * the independent truth the JIT kernels are tested against. */
#include "codegen/codegen.h"

#include <string.h>

/* ===== Floating-point formats =============================================== */

typedef struct {
  int ebits, mbits, bias;
  bool fn; /* E4M3FN style: no infinity, NaN only with all bits set */
} FloatFmt;

static bool float_fmt(LyElem e, FloatFmt *f) {
  switch (e) {
  case LY_ELEM_F16: *f = (FloatFmt){5, 10, 15, false}; return true;
  case LY_ELEM_BF16: *f = (FloatFmt){8, 7, 127, false}; return true;
  case LY_ELEM_F32: *f = (FloatFmt){8, 23, 127, false}; return true;
  case LY_ELEM_F64: *f = (FloatFmt){11, 52, 1023, false}; return true;
  case LY_ELEM_F8E5M2: *f = (FloatFmt){5, 2, 15, false}; return true;
  case LY_ELEM_F8E4M3FN: *f = (FloatFmt){4, 3, 7, true}; return true;
  default: return false;
  }
}

/* An exact value: (-1)^neg * mant * 2^exp, or a special. NaN payloads are
 * kept as fraction bits aligned to the top of 64 bits. */
typedef enum { VAL_ZERO, VAL_FINITE, VAL_INF, VAL_NAN } ValClass;
typedef struct {
  ValClass cls;
  bool neg;
  uint64_t mant;
  int exp;
  uint64_t payload;
} Val;

static uint64_t low_mask(int bits) { return bits >= 64 ? ~0ULL : (1ULL << bits) - 1; }

static Val decode_float(const FloatFmt *f, uint64_t bits) {
  Val v = {.neg = (bits >> (f->ebits + f->mbits)) & 1};
  uint64_t emax = low_mask(f->ebits), e = (bits >> f->mbits) & emax, m = bits & low_mask(f->mbits);
  if (f->fn ? (e == emax && m == low_mask(f->mbits)) : e == emax) {
    v.cls = m || f->fn ? VAL_NAN : VAL_INF;
    v.payload = m << (64 - f->mbits);
  } else if (e == 0) {
    v.cls = m ? VAL_FINITE : VAL_ZERO;
    v.mant = m, v.exp = 1 - f->bias - f->mbits;
  } else {
    v.cls = VAL_FINITE;
    v.mant = m | (1ULL << f->mbits), v.exp = (int)e - f->bias - f->mbits;
  }
  return v;
}

/* mant >> shift rounded to nearest, ties to even (shift >= 1). */
static uint64_t shift_rne(uint64_t mant, int shift) {
  if (shift > 64)
    return 0;
  uint64_t q = shift == 64 ? 0 : mant >> shift;
  uint64_t rem = shift == 64 ? mant : mant & low_mask(shift);
  uint64_t half = 1ULL << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    q++;
  return q;
}

static int msb(uint64_t x) { return 63 - __builtin_clzll(x); }

static uint64_t encode_special(const FloatFmt *f, const Val *v) {
  uint64_t sign = (uint64_t)v->neg << (f->ebits + f->mbits), emax = low_mask(f->ebits);
  if (f->fn) /* no infinity: overflow and infinity become NaN */
    return sign | low_mask(f->ebits + f->mbits);
  if (v->cls == VAL_INF)
    return sign | emax << f->mbits;
  /* NaN: keep the payload's top bits and make it quiet. */
  return sign | emax << f->mbits | v->payload >> (64 - f->mbits) | 1ULL << (f->mbits - 1);
}

static uint64_t encode_float(const FloatFmt *f, const Val *v) {
  uint64_t sign = (uint64_t)v->neg << (f->ebits + f->mbits);
  if (v->cls == VAL_ZERO)
    return sign;
  if (v->cls != VAL_FINITE)
    return encode_special(f, v);
  int emin = 1 - f->bias;
  int lead = msb(v->mant) + v->exp; /* exponent of the leading bit */
  int qe = (lead > emin ? lead : emin) - f->mbits;
  int shift = qe - v->exp;
  uint64_t q = shift <= 0 ? v->mant << -shift : shift_rne(v->mant, shift);
  if (q >> (f->mbits + 1)) { /* rounding carried into a new binade */
    q >>= 1;
    qe++;
  }
  if (q == 0)
    return sign;
  if (!(q >> f->mbits)) /* subnormal */
    return sign | q;
  int64_t e = (int64_t)qe + f->mbits + f->bias;
  uint64_t frac = q & low_mask(f->mbits);
  bool overflow = f->fn ? (e > (int64_t)low_mask(f->ebits) || (e == (int64_t)low_mask(f->ebits) && frac == low_mask(f->mbits)))
                        : e >= (int64_t)low_mask(f->ebits);
  if (overflow) {
    Val inf = {.cls = VAL_INF, .neg = v->neg};
    return encode_special(f, &inf);
  }
  return sign | (uint64_t)e << f->mbits | frac;
}

/* ===== Integers =============================================================== */

/* i1 is a boolean (zero-extends); wider integers are two's complement. */
static int64_t int_value(LyElem e, uint64_t bits) {
  int w = lyElemGetBits(e);
  bits &= low_mask(w);
  if (e == LY_ELEM_I1 || w == 64)
    return (int64_t)bits;
  return (bits >> (w - 1)) & 1 ? (int64_t)(bits | ~low_mask(w)) : (int64_t)bits;
}

static Val int_to_val(int64_t x) {
  Val v = {.cls = x ? VAL_FINITE : VAL_ZERO, .neg = x < 0};
  v.mant = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
  return v;
}

/* Rounds to nearest even and saturates to the integer type; NaN gives 0. */
static uint64_t val_to_int(const Val *v, LyElem e) {
  int w = lyElemGetBits(e);
  uint64_t maxmag = e == LY_ELEM_I1 ? 1 : 1ULL << (w - 1); /* |min| for signed */
  uint64_t mag;
  if (v->cls == VAL_NAN || v->cls == VAL_ZERO)
    return 0;
  if (v->cls == VAL_INF || (v->cls == VAL_FINITE && v->exp >= 0 && (v->exp >= 64 || msb(v->mant) + v->exp >= 64)))
    mag = ~0ULL; /* beyond any 64-bit magnitude */
  else
    mag = v->exp >= 0 ? v->mant << v->exp : shift_rne(v->mant, -v->exp);
  if (e == LY_ELEM_I1)
    return v->neg ? 0 : (mag >= 1);
  if (v->neg)
    return (mag > maxmag ? 0 - maxmag : 0 - mag) & low_mask(w);
  return (mag > maxmag - 1 ? maxmag - 1 : mag) & low_mask(w);
}

/* ===== Conversion ============================================================== */

uint64_t lyc_convert(LyElem from, LyElem to, uint64_t bits) {
  bits &= low_mask(lyElemGetBits(from));
  if (from == to)
    return bits;
  FloatFmt ff, tf;
  bool fflt = float_fmt(from, &ff), tflt = float_fmt(to, &tf);
  if (!fflt && !tflt) /* integer wrap-around */
    return (uint64_t)int_value(from, bits) & low_mask(lyElemGetBits(to));
  if (from == LY_ELEM_BF16 && to == LY_ELEM_F32) /* exact, NaNs untouched, as in oneDNN */
    return bits << 16;
  Val v = fflt ? decode_float(&ff, bits) : int_to_val(int_value(from, bits));
  /* f32 to bf16 as oneDNN (and AVX512-BF16) do it: subnormals flush to a
   * signed zero. SPEC 3.4 asks for oneDNN's bytes. */
  if (from == LY_ELEM_F32 && to == LY_ELEM_BF16 && v.cls == VAL_FINITE && !(bits & 0x7f800000u))
    v.cls = VAL_ZERO;
  return tflt ? encode_float(&tf, &v) : val_to_int(&v, to);
}

/* ===== Packed element access ================================================== */

uint64_t lyc_load_elem(const uint8_t *buf, LyElem e, int64_t off) {
  int w = lyElemGetBits(e);
  if (w % 8 == 0) {
    uint64_t v = 0;
    for (int i = 0; i < w / 8; i++) /* little-endian, whatever the host */
      v |= (uint64_t)buf[off * (w / 8) + i] << (8 * i);
    return v;
  }
  int64_t bit = off * w;
  return (buf[bit / 8] >> (bit % 8)) & low_mask(w);
}

void lyc_store_elem(uint8_t *buf, LyElem e, int64_t off, uint64_t bits) {
  int w = lyElemGetBits(e);
  if (w % 8 == 0) {
    for (int i = 0; i < w / 8; i++)
      buf[off * (w / 8) + i] = (uint8_t)(bits >> (8 * i));
    return;
  }
  int64_t bit = off * w;
  uint8_t mask = (uint8_t)(low_mask(w) << (bit % 8));
  buf[bit / 8] = (uint8_t)((buf[bit / 8] & ~mask) | ((bits << (bit % 8)) & mask));
}

/* ===== Checking a pair ========================================================= */

/* Reports "<before>'A'<middle>['B']<after>" with the types' spellings. */
static LyStatus pair_error(LyDiagEngine *d, LyStatus s, const char *before, const LyTypeImpl *a,
                           const char *middle, const LyTypeImpl *b, const char *after) {
  LyBuf m;
  ly_buf_init(&m);
  ly_buf_printf(&m, "%s'", before);
  lyd_print(a, &m);
  ly_buf_printf(&m, "'%s", middle);
  if (b) {
    ly_buf_puts(&m, "'");
    lyd_print(b, &m);
    ly_buf_puts(&m, "'");
  }
  ly_buf_puts(&m, after);
  ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s", m.oom ? "out of memory" : ly_buf_cstr(&m));
  ly_buf_free(&m);
  return s;
}

static LyStatus check_static(LyDiagEngine *d, const LyTypeImpl *t, const char *role) {
  if (lyd_is_foreign(t))
    return pair_error(d, LY_ERROR_NOT_A_TENSOR, role, t, ": " LYD_FOREIGN_WHY, NULL, "");
  if (t->kind == LYD_ANY)
    return pair_error(d, LY_ERROR_ANY, role, t, ": its layout is 'any' (not chosen yet)", NULL, "");
  if (lyd_is_opaque(t))
    return pair_error(d, LY_ERROR_OPAQUE, role, t, ": " LYD_OPAQUE_WHY, NULL, "");
  if (lyd_is_encoded(t))
    return pair_error(d, LY_ERROR_MULTI_BUFFER, role, t, ": " LYD_ENCODED_WHY, NULL, "");
  if (!lyd_is_static(t))
    return pair_error(d, LY_ERROR_DYNAMIC, role, t, ": it has dynamic ('?') dims, strides or offset", NULL, "");
  return LY_OK;
}

LyStatus lyc_check_pair(LyDiagEngine *d, const LyTypeImpl *src, const LyTypeImpl *dst) {
  LyStatus s;
  if ((s = check_static(d, src, "cannot repack from ")) != LY_OK ||
      (s = check_static(d, dst, "cannot repack into ")) != LY_OK)
    return s;
  bool same = src->rank == dst->rank && !memcmp(src->dims, dst->dims, src->rank * sizeof(int64_t));
  if (!same)
    return pair_error(d, LY_ERROR_INVALID, "cannot repack ", src, " into ", dst, ": the dims differ");
  int inj = 1;
  if (lyTypeIsInjective(lyd_wrap(dst), &inj) == LY_OK && !inj)
    return pair_error(d, LY_ERROR_INVALID, "cannot repack into ", dst,
                      ": the layout stores several elements in one place", NULL, "");
  return LY_OK;
}

/* ===== The interpreter ========================================================= */

void lyc_interpret(const LyTypeImpl *src, const LyTypeImpl *dst, const void *in, void *out) {
  int64_t bits = dst->alloc * lyElemGetBits(dst->elem); /* checked when the type was built */
  memset(out, 0, (size_t)(bits / 8 + (bits % 8 != 0)));
  int64_t numel = 1, idx[LY_MAX_RANK] = {0};
  for (int d = 0; d < src->rank; d++)
    numel *= src->dims[d];
  for (int64_t e = 0; e < numel; e++) {
    uint64_t v = lyc_load_elem(in, src->elem, lyd_offset(src, idx));
    lyc_store_elem(out, dst->elem, lyd_offset(dst, idx), lyc_convert(src->elem, dst->elem, v));
    for (int d = src->rank - 1; d >= 0; d--) {
      if (++idx[d] < src->dims[d])
        break;
      idx[d] = 0;
    }
  }
}

LyStatus lyRepackInterpret(LyContext ctx, LyType src, LyType dst, const void *in, void *out) {
  LyStatus s = lyc_check_pair(&lyd_ctx(ctx)->diag, lyd_type(src), lyd_type(dst));
  if (s == LY_OK)
    lyc_interpret(lyd_type(src), lyd_type(dst), in, out);
  return s;
}
