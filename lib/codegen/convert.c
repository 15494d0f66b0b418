/* codegen/convert: element conversion in compiled kernels, on scalars or
 * vectors, for every pair of element types, with the interpreter's rules
 * (interp.c, docs/codegen.md): exactly one rounding, to nearest even.
 *
 * Values travel as storage bits: iN for N-bit elements, i8 holding the low
 * bits of a sub-byte element. Floats are decoded exactly to f32 (f16, bf16,
 * f8) or f64; integers to i32 or i64. The rounding step is then the
 * hardware's (sitofp, fptrunc f32->f16, f64->f32), LLVM's saturating
 * fptosi after roundeven, or integer arithmetic where a hardware path
 * would round twice (narrow formats from f64, f8 from anything, bf16 from
 * 32- and 64-bit integers). */
#include "codegen/codegen.h"

#include <string.h>

static LLVMTypeRef vt(LLVMTypeRef t, int n) { return n ? LLVMVectorType(t, (unsigned)n) : t; }

static LLVMValueRef splat(LLVMValueRef k, int n) {
  if (!n)
    return k;
  LLVMValueRef ks[64];
  for (int i = 0; i < n; i++)
    ks[i] = k;
  return LLVMConstVector(ks, (unsigned)n);
}

static LLVMValueRef kint(LLVMTypeRef t, uint64_t v, int n) { return splat(LLVMConstInt(t, v, 0), n); }
static LLVMValueRef kfp(LLVMTypeRef t, double v, int n) { return splat(LLVMConstReal(t, v), n); }

/* A call of an intrinsic overloaded on the given types. */
static LLVMValueRef intrinsic(LycIR *ir, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args,
                              int nargs) {
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(ir->m, LLVMLookupIntrinsicID(name, strlen(name)), tys, (size_t)ntys);
  return LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)nargs, "");
}

static bool is_int(LyElem e) { return e <= LY_ELEM_I64; }

static LLVMTypeRef int_of(LycIR *ir, int bits) {
  return bits <= 8 ? ir->i8 : bits == 16 ? ir->i16 : bits == 32 ? ir->i32 : ir->i64;
}

/* ===== Integers ============================================================== */

/* Storage bits to a signed iW value (W = 64 when `wide`, else 32); i1 is a
 * boolean and zero-extends, i2 and i4 sign-extend from their low bits. */
static LLVMValueRef int_in(LycIR *ir, LyElem from, LLVMValueRef v, bool wide, int n) {
  LLVMTypeRef w = vt(wide ? ir->i64 : ir->i32, n);
  int bits = lyElemGetBits(from);
  if (from == LY_ELEM_I1)
    return LLVMBuildZExt(ir->b, LLVMBuildAnd(ir->b, v, kint(ir->i8, 1, n), ""), w, "");
  if (bits < 8) {
    LLVMValueRef sh = kint(ir->i8, (uint64_t)(8 - bits), n);
    v = LLVMBuildAShr(ir->b, LLVMBuildShl(ir->b, v, sh, ""), sh, "");
  }
  return LLVMTypeOf(v) == w ? v : LLVMBuildSExt(ir->b, v, w, "");
}

/* A wider integer wrapped to the storage of `to` (sub-byte: low bits of i8). */
static LLVMValueRef int_out(LycIR *ir, LyElem to, LLVMValueRef x, int n) {
  int bits = lyElemGetBits(to);
  LLVMTypeRef st = vt(int_of(ir, bits), n);
  LLVMValueRef r = LLVMTypeOf(x) == st ? x : LLVMBuildTrunc(ir->b, x, st, "");
  return bits < 8 ? LLVMBuildAnd(ir->b, r, kint(ir->i8, (1u << bits) - 1, n), "") : r;
}

/* ===== Decoding floats ========================================================= */

/* f8E4M3FN bits (i8) to f32: normal numbers rebias, subnormals are m * 2^-9,
 * and S.1111.111 is the only NaN (payload 111, quiet). */
static LLVMValueRef e4m3_to_f32(LycIR *ir, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef x = LLVMBuildZExt(b, v, vt(ir->i32, n), "");
  LLVMValueRef s = LLVMBuildShl(b, LLVMBuildAnd(b, x, kint(ir->i32, 0x80, n), ""), kint(ir->i32, 24, n), "");
  LLVMValueRef e = LLVMBuildAnd(b, LLVMBuildLShr(b, x, kint(ir->i32, 3, n), ""), kint(ir->i32, 15, n), "");
  LLVMValueRef m = LLVMBuildAnd(b, x, kint(ir->i32, 7, n), "");
  LLVMValueRef normal = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, e, kint(ir->i32, 120, n), ""), kint(ir->i32, 23, n), ""),
                                    LLVMBuildShl(b, m, kint(ir->i32, 20, n), ""), "");
  LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, m, vt(ir->f32, n), ""), kfp(ir->f32, 0x1p-9, n), "");
  sub = LLVMBuildBitCast(b, sub, vt(ir->i32, n), "");
  LLVMValueRef mag = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, kint(ir->i32, 0, n), ""), sub, normal, "");
  LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, x, kint(ir->i32, 0x7f, n), ""), kint(ir->i32, 0x7f, n), "");
  mag = LLVMBuildSelect(b, nan, kint(ir->i32, 0x7ff00000, n), mag, "");
  return LLVMBuildBitCast(b, LLVMBuildOr(b, s, mag, ""), vt(ir->f32, n), "");
}

/* Float storage bits to an exact f32 value (f64 stays f64). */
static LLVMValueRef float_in(LycIR *ir, LyElem from, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  switch (from) {
  case LY_ELEM_F16: return LLVMBuildFPExt(b, LLVMBuildBitCast(b, v, vt(ir->f16, n), ""), vt(ir->f32, n), "");
  case LY_ELEM_BF16: { /* the top half of an f32: a shift, NaN payloads untouched */
    LLVMValueRef w = LLVMBuildZExt(b, v, vt(ir->i32, n), "");
    return LLVMBuildBitCast(b, LLVMBuildShl(b, w, kint(ir->i32, 16, n), ""), vt(ir->f32, n), "");
  }
  case LY_ELEM_F32: return LLVMBuildBitCast(b, v, vt(ir->f32, n), "");
  case LY_ELEM_F64: return LLVMBuildBitCast(b, v, vt(ir->f64, n), "");
  case LY_ELEM_F8E5M2: { /* the top byte of an f16; a NaN is made quiet first, as the interpreter does */
    LLVMValueRef w = LLVMBuildZExt(b, v, vt(ir->i16, n), "");
    LLVMValueRef isnan = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, w, kint(ir->i16, 0x7f, n), ""),
                                       kint(ir->i16, 0x7c, n), "");
    w = LLVMBuildSelect(b, isnan, LLVMBuildOr(b, w, kint(ir->i16, 0x02, n), ""), w, "");
    LLVMValueRef h = LLVMBuildShl(b, w, kint(ir->i16, 8, n), "");
    return LLVMBuildFPExt(b, LLVMBuildBitCast(b, h, vt(ir->f16, n), ""), vt(ir->f32, n), "");
  }
  case LY_ELEM_F8E4M3FN: return e4m3_to_f32(ir, v, n);
  default: LY_ASSERT(!"not a float");
  }
}

/* ===== Encoding floats ========================================================= */

typedef struct {
  int ebits, mbits, bias;
  bool fn; /* no infinity; the all-ones pattern is the only NaN */
} Fmt;

static Fmt fmt_of(LyElem e) {
  switch (e) {
  case LY_ELEM_F16: return (Fmt){5, 10, 15, false};
  case LY_ELEM_BF16: return (Fmt){8, 7, 127, false};
  case LY_ELEM_F8E5M2: return (Fmt){5, 2, 15, false};
  case LY_ELEM_F8E4M3FN: return (Fmt){4, 3, 7, true};
  default: LY_ASSERT(!"not a narrow float");
  }
}

/* x (f32 or f64) rounded to nearest even into the narrower format t, with
 * its subnormals, overflow (infinity; NaN for fn formats) and NaN payloads
 * (top bits kept, made quiet). Normal results round the integer bits;
 * subnormal ones let the FPU round: |x| + 2^(emin - mbits + SM) has the
 * subnormal spacing as its ulp, and its low bits are the encoding. */
static LLVMValueRef encode_narrow(LycIR *ir, LLVMValueRef x, Fmt t, int n) {
  LLVMBuilderRef b = ir->b;
  bool d = LLVMTypeOf(x) == vt(ir->f64, n);
  int W = d ? 64 : 32, SM = d ? 52 : 23, SB = d ? 1023 : 127, sh = SM - t.mbits, emin = 1 - t.bias;
  LLVMTypeRef it = vt(d ? ir->i64 : ir->i32, n), ft = vt(d ? ir->f64 : ir->f32, n);
  LLVMValueRef bits = LLVMBuildBitCast(b, x, it, "");
  LLVMValueRef a = LLVMBuildAnd(b, bits, kint(d ? ir->i64 : ir->i32, ~(1ULL << (W - 1)) & (d ? ~0ULL : 0xffffffffULL), n), "");
  LLVMTypeRef ie = d ? ir->i64 : ir->i32;
  uint64_t inf_src = (d ? 0x7ffULL : 0xffULL) << SM, inf_t = ((1ULL << t.ebits) - 1) << t.mbits;
  uint64_t top = t.fn ? (1ULL << (t.ebits + t.mbits)) - 1 : inf_t; /* first code that is not finite */
  /* Normal: round off sh bits (ties to even), then rebias the exponent. */
  LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, a, kint(ie, (uint64_t)sh, n), ""), kint(ie, 1, n), "");
  LLVMValueRef r = LLVMBuildAdd(b, a, LLVMBuildAdd(b, lsb, kint(ie, (1ULL << (sh - 1)) - 1, n), ""), "");
  r = LLVMBuildLShr(b, r, kint(ie, (uint64_t)sh, n), "");
  r = LLVMBuildSub(b, r, kint(ie, (uint64_t)(SB - t.bias) << t.mbits, n), "");
  /* Subnormal (|x| < 2^emin): the FPU rounds. */
  LLVMValueRef magic = LLVMBuildBitCast(b, kint(ie, (uint64_t)(emin - t.mbits + SM + SB) << SM, n), ft, ""); /* 2^(emin-mbits+SM) */
  LLVMValueRef sum = LLVMBuildFAdd(b, LLVMBuildBitCast(b, a, ft, ""), magic, "");
  LLVMValueRef sub = LLVMBuildSub(b, LLVMBuildBitCast(b, sum, it, ""), LLVMBuildBitCast(b, magic, it, ""), "");
  uint64_t min_normal = (uint64_t)(emin + SB) << SM;
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, a, kint(ie, min_normal, n), ""), sub, r, "");
  /* Overflow saturates at the first non-finite code (infinity, or fn's NaN). */
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, r, kint(ie, top, n), ""), kint(ie, top, n), r, "");
  LLVMValueRef inf = LLVMBuildICmp(b, LLVMIntEQ, a, kint(ie, inf_src, n), "");
  r = LLVMBuildSelect(b, inf, kint(ie, top, n), r, "");
  LLVMValueRef payload = LLVMBuildAnd(b, LLVMBuildLShr(b, a, kint(ie, (uint64_t)sh, n), ""),
                                      kint(ie, (1ULL << t.mbits) - 1, n), "");
  LLVMValueRef qnan = t.fn ? kint(ie, top, n)
                           : LLVMBuildOr(b, payload, kint(ie, inf_t | 1ULL << (t.mbits - 1), n), "");
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, a, kint(ie, inf_src, n), ""), qnan, r, "");
  int tbits = 1 + t.ebits + t.mbits;
  LLVMValueRef sign = LLVMBuildLShr(b, bits, kint(ie, (uint64_t)(W - 1), n), "");
  r = LLVMBuildOr(b, r, LLVMBuildShl(b, sign, kint(ie, (uint64_t)(tbits - 1), n), ""), "");
  return LLVMBuildTrunc(b, r, vt(int_of(ir, tbits), n), "");
}

/* f32 bits to bf16 bits as oneDNN does it: round to nearest even, NaN kept
 * quiet, subnormal inputs flushed to a signed zero (only f32 sources have
 * any: every other value reaches here exactly and normal, or as zero). */
static LLVMValueRef f32_to_bf16(LycIR *ir, LLVMValueRef f, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef bits = LLVMBuildBitCast(b, f, vt(ir->i32, n), "bits");
  LLVMValueRef hi = LLVMBuildLShr(b, bits, kint(ir->i32, 16, n), "hi");
  LLVMValueRef lsb = LLVMBuildAnd(b, hi, kint(ir->i32, 1, n), "lsb");
  LLVMValueRef bias = LLVMBuildAdd(b, lsb, kint(ir->i32, 0x7fff, n), "bias");
  LLVMValueRef rne = LLVMBuildLShr(b, LLVMBuildAdd(b, bits, bias, ""), kint(ir->i32, 16, n), "rne");
  LLVMValueRef mag = LLVMBuildAnd(b, bits, kint(ir->i32, 0x7fffffff, n), "mag");
  LLVMValueRef isnan = LLVMBuildICmp(b, LLVMIntUGT, mag, kint(ir->i32, 0x7f800000, n), "isnan");
  LLVMValueRef expo = LLVMBuildAnd(b, bits, kint(ir->i32, 0x7f800000, n), "exp");
  LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntEQ, expo, kint(ir->i32, 0, n), "tiny");
  LLVMValueRef qnan = LLVMBuildOr(b, hi, kint(ir->i32, 0x40, n), "qnan");
  LLVMValueRef zero = LLVMBuildAnd(b, hi, kint(ir->i32, 0x8000, n), "szero");
  LLVMValueRef r = LLVMBuildSelect(b, tiny, zero, rne, "");
  r = LLVMBuildSelect(b, isnan, qnan, r, "");
  return LLVMBuildTrunc(b, r, vt(ir->i16, n), "bf16");
}

/* An f32 or f64 value to the storage bits of float type `to`. */
static LLVMValueRef float_out(LycIR *ir, LyElem to, LLVMValueRef x, int n) {
  LLVMBuilderRef b = ir->b;
  bool d = LLVMTypeOf(x) == vt(ir->f64, n);
  switch (to) {
  case LY_ELEM_F64:
    return LLVMBuildBitCast(b, d ? x : LLVMBuildFPExt(b, x, vt(ir->f64, n), ""), vt(ir->i64, n), "");
  case LY_ELEM_F32:
    return LLVMBuildBitCast(b, d ? LLVMBuildFPTrunc(b, x, vt(ir->f32, n), "") : x, vt(ir->i32, n), "");
  case LY_ELEM_F16:
    if (!d) /* one rounding in hardware */
      return LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, x, vt(ir->f16, n), ""), vt(ir->i16, n), "");
    return encode_narrow(ir, x, fmt_of(to), n);
  case LY_ELEM_BF16: return d ? encode_narrow(ir, x, fmt_of(to), n) : f32_to_bf16(ir, x, n);
  default: return encode_narrow(ir, x, fmt_of(to), n);
  }
}

/* ===== Between integers and floats ============================================= */

/* A 32- or 64-bit integer rounded to 8 significant bits (to nearest, ties to
 * even) as an exact f32: bf16's single rounding. */
static LLVMValueRef int_to_bf16_value(LycIR *ir, LLVMValueRef x, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMTypeRef it = LLVMTypeOf(x), ie = n ? LLVMGetElementType(it) : it;
  unsigned W = LLVMGetIntTypeWidth(ie);
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, kint(ie, 0, n), "");
  LLVMValueRef a = LLVMBuildSelect(b, neg, LLVMBuildSub(b, kint(ie, 0, n), x, ""), x, ""); /* |x| as unsigned */
  LLVMValueRef args[] = {a, LLVMConstInt(ir->i1, 0, 0)};
  LLVMValueRef lz = intrinsic(ir, "llvm.ctlz", &it, 1, args, 2);
  LLVMValueRef sh = LLVMBuildSub(b, kint(ie, W - 8, n), lz, ""); /* significant bits - 8 */
  LLVMValueRef big = LLVMBuildICmp(b, LLVMIntSGT, sh, kint(ie, 0, n), "");
  LLVMValueRef s = LLVMBuildSelect(b, big, sh, kint(ie, 1, n), "");
  LLVMValueRef q = LLVMBuildLShr(b, a, s, "");
  LLVMValueRef rem = LLVMBuildSub(b, a, LLVMBuildShl(b, q, s, ""), "");
  LLVMValueRef half = LLVMBuildShl(b, kint(ie, 1, n), LLVMBuildSub(b, s, kint(ie, 1, n), ""), "");
  LLVMValueRef up = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntUGT, rem, half, ""),
                                LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, rem, half, ""),
                                             LLVMBuildTrunc(b, q, vt(ir->i1, n), ""), ""), "");
  q = LLVMBuildAdd(b, q, LLVMBuildZExt(b, up, it, ""), "");
  a = LLVMBuildSelect(b, big, LLVMBuildShl(b, q, s, ""), a, "");
  LLVMValueRef f = LLVMBuildUIToFP(b, a, vt(ir->f32, n), "");
  return LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, f, ""), f, "");
}

static LLVMValueRef int_to_float(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  bool wide = from == LY_ELEM_I64;
  LLVMValueRef x = int_in(ir, from, v, wide, n);
  if (to == LY_ELEM_F64)
    return float_out(ir, to, LLVMBuildSIToFP(ir->b, x, vt(ir->f64, n), ""), n);
  if (to == LY_ELEM_BF16 && lyElemGetBits(from) > 16)
    return f32_to_bf16(ir, int_to_bf16_value(ir, x, n), n); /* exact: no second rounding */
  /* Exact in f32 up to 24 bits; wider values that round here are past every
   * 16- and 8-bit float's range, so the second rounding cannot differ. */
  return float_out(ir, to, LLVMBuildSIToFP(ir->b, x, vt(ir->f32, n), ""), n);
}

/* Round to nearest even, saturate, NaN to 0 (i1: negative to 0, else
 * whether the rounded value is at least 1). */
static LLVMValueRef float_to_int(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef x = float_in(ir, from, v, n);
  LLVMTypeRef xt = LLVMTypeOf(x), wt = vt(to == LY_ELEM_I64 ? ir->i64 : ir->i32, n);
  x = intrinsic(ir, "llvm.roundeven", &xt, 1, &x, 1);
  LLVMTypeRef tys[] = {wt, xt};
  LLVMValueRef r = intrinsic(ir, to == LY_ELEM_I1 ? "llvm.fptoui.sat" : "llvm.fptosi.sat", tys, 2, &x, 1);
  int bits = lyElemGetBits(to);
  if (to == LY_ELEM_I1)
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, r, kint(ir->i32, 1, n), ""), kint(ir->i32, 1, n), r, "");
  else if (bits < 32) {
    LLVMValueRef lo = kint(ir->i32, (uint64_t)-(1LL << (bits - 1)), n), hi = kint(ir->i32, (1ULL << (bits - 1)) - 1, n);
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, lo, ""), lo, r, "");
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, r, hi, ""), hi, r, "");
  }
  return int_out(ir, to, r, n);
}

LLVMValueRef lyc_emit_convert(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  if (from == to)
    return v;
  if (is_int(from) && is_int(to)) {
    bool wide = from == LY_ELEM_I64 || to == LY_ELEM_I64;
    return int_out(ir, to, int_in(ir, from, v, wide, n), n);
  }
  if (is_int(from))
    return int_to_float(ir, from, to, v, n);
  if (is_int(to))
    return float_to_int(ir, from, to, v, n);
  return float_out(ir, to, float_in(ir, from, v, n), n);
}
