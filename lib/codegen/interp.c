/* codegen/interp: the reference repack interpreter and element conversion.
 * Conversion is exact software arithmetic (no host floating point), so it is
 * the independent truth the JIT kernels are tested against. */
#include "codegen/codegen.h"

#include <stdio.h>
#include <string.h>

/* ===== Floating-point formats =============================================== */

/* How a format spends its top codes (docs/codegen.md, "Element formats"):
 * IEEE has infinities and NaNs with payloads; FN (E4M3FN) has no infinity
 * and S.1111.111 is its NaN; FNUZ has no infinity and no negative zero, and
 * 1000.0000 is its one NaN; FINITE (the f6 and f4 formats) has neither. */
typedef enum { FMT_IEEE, FMT_FN, FMT_FNUZ, FMT_FINITE } FmtKind;

typedef struct {
  int ebits, mbits, bias;
  FmtKind kind;
} FloatFmt;

static bool float_fmt(LyElem e, FloatFmt *f) {
  switch (e) {
  case LY_ELEM_F16: *f = (FloatFmt){5, 10, 15, FMT_IEEE}; return true;
  case LY_ELEM_BF16: *f = (FloatFmt){8, 7, 127, FMT_IEEE}; return true;
  case LY_ELEM_TF32: *f = (FloatFmt){8, 10, 127, FMT_IEEE}; return true; /* bits 31..13 of its word */
  case LY_ELEM_F32: *f = (FloatFmt){8, 23, 127, FMT_IEEE}; return true;
  case LY_ELEM_F64: *f = (FloatFmt){11, 52, 1023, FMT_IEEE}; return true;
  case LY_ELEM_F8E5M2: *f = (FloatFmt){5, 2, 15, FMT_IEEE}; return true;
  case LY_ELEM_F8E4M3FN: *f = (FloatFmt){4, 3, 7, FMT_FN}; return true;
  case LY_ELEM_F8E4M3FNUZ: *f = (FloatFmt){4, 3, 8, FMT_FNUZ}; return true;
  case LY_ELEM_F8E5M2FNUZ: *f = (FloatFmt){5, 2, 16, FMT_FNUZ}; return true;
  case LY_ELEM_F8E4M3B11FNUZ: *f = (FloatFmt){4, 3, 11, FMT_FNUZ}; return true;
  case LY_ELEM_F6E2M3FN: *f = (FloatFmt){2, 3, 1, FMT_FINITE}; return true;
  case LY_ELEM_F6E3M2FN: *f = (FloatFmt){3, 2, 3, FMT_FINITE}; return true;
  case LY_ELEM_F4E2M1FN: *f = (FloatFmt){2, 1, 1, FMT_FINITE}; return true;
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
  bool special = f->kind == FMT_IEEE     ? e == emax
                 : f->kind == FMT_FN     ? e == emax && m == low_mask(f->mbits)
                 : f->kind == FMT_FNUZ   ? v.neg && e == 0 && m == 0
                                         : false;
  if (special) {
    v.cls = m || f->kind != FMT_IEEE ? VAL_NAN : VAL_INF;
    v.payload = f->kind == FMT_FNUZ ? 0 : m << (64 - f->mbits);
    v.neg = f->kind == FMT_FNUZ ? false : v.neg; /* the NaN code's top bit is not a sign */
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

/* Infinity, overflow (v->cls == VAL_INF) and NaN in format f. */
static uint64_t encode_special(const FloatFmt *f, const Val *v) {
  uint64_t sign = (uint64_t)v->neg << (f->ebits + f->mbits), emax = low_mask(f->ebits);
  switch (f->kind) {
  case FMT_FN: return sign | low_mask(f->ebits + f->mbits); /* no infinity: NaN */
  case FMT_FNUZ: return 1ULL << (f->ebits + f->mbits);     /* the one NaN */
  case FMT_FINITE: /* neither: infinity saturates, NaN becomes +0 as it does in integers */
    return v->cls == VAL_NAN ? 0 : sign | low_mask(f->ebits + f->mbits);
  case FMT_IEEE: break;
  }
  if (v->cls == VAL_INF)
    return sign | emax << f->mbits;
  /* NaN: keep the payload's top bits and make it quiet. */
  return sign | emax << f->mbits | v->payload >> (64 - f->mbits) | 1ULL << (f->mbits - 1);
}

static uint64_t encode_float(const FloatFmt *f, const Val *v) {
  uint64_t sign = f->kind == FMT_FNUZ ? 0 : (uint64_t)v->neg << (f->ebits + f->mbits); /* FNUZ: no -0 */
  if (v->cls == VAL_ZERO)
    return sign;
  if (v->cls != VAL_FINITE)
    return encode_special(f, v);
  sign = (uint64_t)v->neg << (f->ebits + f->mbits);
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
    return f->kind == FMT_FNUZ ? 0 : sign;
  if (!(q >> f->mbits)) /* subnormal */
    return sign | q;
  int64_t e = (int64_t)qe + f->mbits + f->bias, top = (int64_t)low_mask(f->ebits);
  uint64_t frac = q & low_mask(f->mbits);
  bool overflow = f->kind == FMT_IEEE ? e >= top
                  : f->kind == FMT_FN ? e > top || (e == top && frac == low_mask(f->mbits))
                                      : e > top;
  if (overflow) {
    Val inf = {.cls = VAL_INF, .neg = v->neg};
    return encode_special(f, &inf);
  }
  return sign | (uint64_t)e << f->mbits | frac;
}

/* f8E8M0FNU is an unsigned power of two, 2^(code - 127), with 0xff its NaN
 * and no zero (MLIR's APFloat semantics; the OCP MX scale format). */
static Val decode_e8m0(uint64_t bits) {
  if (bits == 0xff)
    return (Val){.cls = VAL_NAN};
  return (Val){.cls = VAL_FINITE, .mant = 1, .exp = (int)bits - 127};
}

/* Nearest power of two: a tie (1.5 * 2^e) goes up, as APFloat's ties-to-even
 * does with a one-bit significand. Zero and values below 2^-127 give the
 * smallest code (there is no zero), negative values, infinity, NaN and
 * overflow the NaN. */
static uint64_t encode_e8m0(const Val *v) {
  if (v->cls == VAL_ZERO)
    return 0;
  if (v->cls != VAL_FINITE || v->neg)
    return 0xff;
  int lead = msb(v->mant);
  int64_t e = (int64_t)lead + v->exp + (lead >= 1 && (v->mant >> (lead - 1) & 1));
  return e < -127 ? 0 : e > 127 ? 0xff : (uint64_t)(e + 127);
}

/* ===== Integers =============================================================== */

/* The bits extended to 64: zero-extended for unsigned integers and i1 (a
 * boolean), sign-extended for the signed and signless ones. */
static uint64_t int_bits64(LyElem e, uint64_t bits) {
  int w = lyElemGetBits(e);
  bits &= low_mask(w);
  if (e == LY_ELEM_I1 || w == 64 || lyElemGetKind(e) == LY_ELEM_KIND_UNSIGNED)
    return bits;
  return (bits >> (w - 1)) & 1 ? bits | ~low_mask(w) : bits;
}

static Val int_to_val(LyElem e, uint64_t bits) {
  uint64_t x = int_bits64(e, bits);
  bool neg = lyElemGetKind(e) != LY_ELEM_KIND_UNSIGNED && (int64_t)x < 0;
  return (Val){.cls = x ? VAL_FINITE : VAL_ZERO, .neg = neg, .mant = neg ? 0 - x : x};
}

/* Rounds to nearest even and saturates to the integer type; NaN gives 0. */
static uint64_t val_to_int(const Val *v, LyElem e) {
  int w = lyElemGetBits(e);
  bool uns = lyElemGetKind(e) == LY_ELEM_KIND_UNSIGNED;
  uint64_t maxpos = e == LY_ELEM_I1 ? 1 : uns ? low_mask(w) : low_mask(w - 1);
  uint64_t maxneg = uns || e == LY_ELEM_I1 ? 0 : 1ULL << (w - 1); /* |most negative| */
  uint64_t mag;
  if (v->cls == VAL_NAN || v->cls == VAL_ZERO)
    return 0;
  if (v->cls == VAL_INF || (v->cls == VAL_FINITE && v->exp >= 0 && (v->exp >= 64 || msb(v->mant) + v->exp >= 64)))
    mag = ~0ULL; /* beyond any 64-bit magnitude */
  else
    mag = v->exp >= 0 ? v->mant << v->exp : shift_rne(v->mant, -v->exp);
  if (v->neg)
    return (0 - (mag > maxneg ? maxneg : mag)) & low_mask(w);
  return mag > maxpos ? maxpos : mag;
}

/* ===== Conversion ============================================================== */

static bool is_intlike(LyElem e) { return lyElemGetKind(e) <= LY_ELEM_KIND_UNSIGNED; }

/* The element's value; tf32's low 13 bits are not part of it. */
static Val elem_val(LyElem e, uint64_t bits) {
  FloatFmt f;
  if (is_intlike(e))
    return int_to_val(e, bits);
  if (e == LY_ELEM_F8E8M0FNU)
    return decode_e8m0(bits);
  float_fmt(e, &f);
  return decode_float(&f, e == LY_ELEM_TF32 ? bits >> 13 : bits);
}

static uint64_t val_elem(LyElem e, const Val *v) {
  FloatFmt f;
  if (is_intlike(e))
    return val_to_int(v, e);
  if (e == LY_ELEM_F8E8M0FNU)
    return encode_e8m0(v);
  float_fmt(e, &f);
  return e == LY_ELEM_TF32 ? encode_float(&f, v) << 13 : encode_float(&f, v);
}

uint64_t lyc_convert(LyElem from, LyElem to, uint64_t bits) {
  bits &= low_mask(lyElemGetBits(from));
  if (from == to)
    return bits;
  if (is_intlike(from) && is_intlike(to)) /* extension by the source's signedness, then wrap-around */
    return int_bits64(from, bits) & low_mask(lyElemGetBits(to));
  if (from == LY_ELEM_BF16 && to == LY_ELEM_F32) /* exact, NaNs untouched, as in oneDNN */
    return bits << 16;
  if (from == LY_ELEM_TF32 && to == LY_ELEM_F32) /* the same for tf32's 19 bits */
    return bits & ~0x1fffULL;
  Val v = elem_val(from, bits);
  /* f32 to bf16 as oneDNN (and AVX512-BF16) do it: subnormals flush to a
   * signed zero. SPEC 3.4 asks for oneDNN's bytes. */
  if (from == LY_ELEM_F32 && to == LY_ELEM_BF16 && v.cls == VAL_FINITE && !(bits & 0x7f800000u))
    v.cls = VAL_ZERO;
  return val_elem(to, &v);
}

const char *lyc_unsupported_pair(LyElem from, LyElem to) {
  bool fc = lyElemGetKind(from) == LY_ELEM_KIND_COMPLEX, tc = lyElemGetKind(to) == LY_ELEM_KIND_COMPLEX;
  if (fc != tc)
    return "a complex number converts only to another complex type (arith has no complex <-> real "
           "conversion: take the real part or build a complex value explicitly)";
  return NULL;
}

/* ===== Packed element access ================================================== */

/* Elements narrower than a byte sit in the low-order bits first (SPEC 2.4);
 * one whose width does not divide 8 (f6) may straddle two bytes. */
uint64_t lyc_load_elem(const uint8_t *buf, LyElem e, int64_t off) {
  int w = lyElemGetBits(e);
  if (w % 8 == 0)
    return lyc_load_uint(buf, w, off);
  int64_t bit = off * w;
  unsigned window = buf[bit / 8];
  if (bit % 8 + w > 8)
    window |= (unsigned)buf[bit / 8 + 1] << 8;
  return (window >> (bit % 8)) & low_mask(w);
}

void lyc_store_elem(uint8_t *buf, LyElem e, int64_t off, uint64_t bits) {
  int w = lyElemGetBits(e);
  if (w % 8 == 0)
    return lyc_store_uint(buf, w, off, bits);
  int64_t bit = off * w;
  for (int64_t b = bit / 8; b * 8 < bit + w; b++) { /* one byte, or two */
    int sh = (int)(bit - b * 8); /* the element's first bit relative to this byte */
    unsigned mask = sh >= 0 ? (unsigned)low_mask(w) << sh : (unsigned)low_mask(w) >> -sh;
    unsigned val = sh >= 0 ? (unsigned)bits << sh : (unsigned)bits >> -sh;
    buf[b] = (uint8_t)((buf[b] & ~mask) | (val & mask));
  }
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
  const char *why = lyc_unsupported_pair(src->elem, dst->elem);
  if (why) {
    char after[256];
    snprintf(after, sizeof after, ": %s", why);
    return pair_error(d, LY_ERROR_INVALID, "cannot repack ", src, " into ", dst, after);
  }
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
  /* A complex element is its two components, real first (the pair was
   * checked: both are complex or neither is). */
  LyElem sc = lyElemGetComponent(src->elem), dc = lyElemGetComponent(dst->elem);
  int parts = sc == src->elem ? 1 : 2;
  int64_t numel = 1, idx[LY_MAX_RANK] = {0};
  for (int d = 0; d < src->rank; d++)
    numel *= src->dims[d];
  for (int64_t e = 0; e < numel; e++) {
    int64_t so = lyd_offset(src, idx) * parts, dof = lyd_offset(dst, idx) * parts;
    for (int k = 0; k < parts; k++)
      lyc_store_elem(out, dc, dof + k, lyc_convert(sc, dc, lyc_load_elem(in, sc, so + k)));
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
