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
 * 32- and 64-bit integers). The small formats (docs/codegen.md, "Element
 * formats") differ in how they spend their top codes: Fmt.kind. */
#include "codegen/codegen.h"

#include <math.h>
#include <string.h>

static LLVMTypeRef vt(LLVMTypeRef t, int n) { return n ? LLVMVectorType(t, (unsigned)n) : t; }

static LLVMValueRef splat(LLVMValueRef k, int n) {
  if (!n)
    return k;
  LLVMValueRef ks[512]; /* the widest converted vector: a chunk of 512 i1 (repack.c's contig_packed) */
  LY_ASSERT(n <= 512);
  for (int i = 0; i < n; i++)
    ks[i] = k;
  return LLVMConstVector(ks, (unsigned)n);
}

static LLVMValueRef kint(LLVMTypeRef t, uint64_t v, int n) { return splat(LLVMConstInt(t, v, 0), n); }
static LLVMValueRef kfp(LLVMTypeRef t, double v, int n) { return splat(LLVMConstReal(t, v), n); }

static bool is_int(LyElem e) { return lyElemGetKind(e) <= LY_ELEM_KIND_UNSIGNED; }
static bool is_unsigned(LyElem e) { return lyElemGetKind(e) == LY_ELEM_KIND_UNSIGNED; }

static LLVMTypeRef int_of(LycIR *ir, int bits) {
  if (bits > 64) /* complex<f64>: both halves */
    return LLVMIntTypeInContext(ir->c, (unsigned)bits);
  return bits <= 8 ? ir->i8 : bits <= 16 ? ir->i16 : bits <= 32 ? ir->i32 : ir->i64;
}

/* ===== Integers ============================================================== */

/* Storage bits to an iW value (W = 64 when `wide`, else 32), extended by
 * the source's signedness: i1 (a boolean) and uiN zero-extend, the others
 * sign-extend (i2 and i4 from their low bits). */
static LLVMValueRef int_in(LycIR *ir, LyElem from, LLVMValueRef v, bool wide, int n) {
  LLVMTypeRef w = vt(wide ? ir->i64 : ir->i32, n);
  int bits = lyElemGetBits(from);
  if (from == LY_ELEM_I1)
    return LLVMBuildZExt(ir->b, LLVMBuildAnd(ir->b, v, kint(ir->i8, 1, n), ""), w, "");
  if (is_unsigned(from))
    return LLVMTypeOf(v) == w ? v : LLVMBuildZExt(ir->b, v, w, "");
  if (bits < 8) {
    LLVMValueRef sh = kint(ir->i8, (uint64_t)(8 - bits), n);
    v = LLVMBuildAShr(ir->b, LLVMBuildShl(ir->b, v, sh, ""), sh, "");
  }
  return LLVMTypeOf(v) == w ? v : LLVMBuildSExt(ir->b, v, w, "");
}

/* Whether an integer's value needs 64 bits (ui32 does, signed). */
static bool int_wide(LyElem e) { return lyElemGetBits(e) == 64 || (is_unsigned(e) && lyElemGetBits(e) == 32); }

/* A wider integer wrapped to the storage of `to` (sub-byte: low bits of i8). */
static LLVMValueRef int_out(LycIR *ir, LyElem to, LLVMValueRef x, int n) {
  int bits = lyElemGetBits(to);
  LLVMTypeRef st = vt(int_of(ir, bits), n);
  LLVMValueRef r = LLVMTypeOf(x) == st ? x : LLVMBuildTrunc(ir->b, x, st, "");
  return bits < 8 ? LLVMBuildAnd(ir->b, r, kint(ir->i8, (1u << bits) - 1, n), "") : r;
}

/* ===== Formats ================================================================== */

/* IEEE: infinities and NaNs with payloads; FN: no infinity, S.1..1.1..1 is
 * the NaN; FNUZ: no infinity, no -0, 1000.0000 is the one NaN; FINITE (f6,
 * f4): neither. The same table as the interpreter's. */
typedef enum { FMT_IEEE, FMT_FN, FMT_FNUZ, FMT_FINITE } FmtKind;

typedef struct {
  int ebits, mbits, bias;
  FmtKind kind;
} Fmt;

static Fmt fmt_of(LyElem e) {
  switch (e) {
  case LY_ELEM_F16: return (Fmt){5, 10, 15, FMT_IEEE};
  case LY_ELEM_BF16: return (Fmt){8, 7, 127, FMT_IEEE};
  case LY_ELEM_TF32: return (Fmt){8, 10, 127, FMT_IEEE};
  case LY_ELEM_F8E5M2: return (Fmt){5, 2, 15, FMT_IEEE};
  case LY_ELEM_F8E4M3FN: return (Fmt){4, 3, 7, FMT_FN};
  case LY_ELEM_F8E4M3FNUZ: return (Fmt){4, 3, 8, FMT_FNUZ};
  case LY_ELEM_F8E5M2FNUZ: return (Fmt){5, 2, 16, FMT_FNUZ};
  case LY_ELEM_F8E4M3B11FNUZ: return (Fmt){4, 3, 11, FMT_FNUZ};
  case LY_ELEM_F6E2M3FN: return (Fmt){2, 3, 1, FMT_FINITE};
  case LY_ELEM_F6E3M2FN: return (Fmt){3, 2, 3, FMT_FINITE};
  case LY_ELEM_F4E2M1FN: return (Fmt){2, 1, 1, FMT_FINITE};
  default: LY_ASSERT(!"not a narrow float");
  }
}

/* ===== Decoding floats ========================================================= */

/* Bits of a format of at most 8 bits (i8) to f32: normal numbers rebias,
 * subnormals are m * 2^(1 - bias - mbits); FN's NaN keeps its sign and
 * payload (quiet), FNUZ's one NaN is +NaN. */
static LLVMValueRef small_to_f32(LycIR *ir, Fmt f, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMTypeRef i32 = ir->i32;
  int tb = f.ebits + f.mbits;
  LLVMValueRef x = LLVMBuildZExt(b, v, vt(i32, n), "");
  LLVMValueRef s = LLVMBuildShl(b, LLVMBuildAnd(b, x, kint(i32, 1ULL << tb, n), ""), kint(i32, (uint64_t)(31 - tb), n), "");
  LLVMValueRef e = LLVMBuildLShr(b, x, kint(i32, (uint64_t)f.mbits, n), "");
  e = LLVMBuildAnd(b, e, kint(i32, (1ULL << f.ebits) - 1, n), "");
  LLVMValueRef m = LLVMBuildAnd(b, x, kint(i32, (1ULL << f.mbits) - 1, n), "");
  LLVMValueRef rebias = LLVMBuildAdd(b, e, kint(i32, (uint64_t)(127 - f.bias), n), "");
  LLVMValueRef normal = LLVMBuildOr(b, LLVMBuildShl(b, rebias, kint(i32, 23, n), ""),
                                    LLVMBuildShl(b, m, kint(i32, (uint64_t)(23 - f.mbits), n), ""), "");
  LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, m, vt(ir->f32, n), ""),
                                   kfp(ir->f32, ldexp(1, 1 - f.bias - f.mbits), n), "");
  sub = LLVMBuildBitCast(b, sub, vt(i32, n), "");
  LLVMValueRef mag = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, kint(i32, 0, n), ""), sub, normal, "");
  LLVMValueRef r = LLVMBuildOr(b, s, mag, "");
  uint64_t all = (1ULL << tb) - 1;
  if (f.kind == FMT_FN) {
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, x, kint(i32, all, n), ""), kint(i32, all, n), "");
    uint64_t q = 0x7fc00000 | ((1ULL << f.mbits) - 1) << (23 - f.mbits);
    r = LLVMBuildSelect(b, nan, LLVMBuildOr(b, s, kint(i32, q, n), ""), r, "");
  } else if (f.kind == FMT_FNUZ) {
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntEQ, x, kint(i32, 1ULL << tb, n), "");
    r = LLVMBuildSelect(b, nan, kint(i32, 0x7fc00000, n), r, "");
  }
  return LLVMBuildBitCast(b, r, vt(ir->f32, n), "");
}

/* f8E8M0FNU (i8) to f32: 2^(x - 127); x = 0 is the f32 subnormal 2^-127,
 * 0xff the NaN. */
static LLVMValueRef e8m0_to_f32(LycIR *ir, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef x = LLVMBuildZExt(b, v, vt(ir->i32, n), "");
  LLVMValueRef r = LLVMBuildShl(b, x, kint(ir->i32, 23, n), "");
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, x, kint(ir->i32, 0, n), ""), kint(ir->i32, 0x00400000, n), r, "");
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, x, kint(ir->i32, 0xff, n), ""), kint(ir->i32, 0x7fc00000, n), r, "");
  return LLVMBuildBitCast(b, r, vt(ir->f32, n), "");
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
  case LY_ELEM_TF32: /* an f32 whose 13 low bits are not part of the value */
    return LLVMBuildBitCast(b, LLVMBuildAnd(b, v, kint(ir->i32, ~0x1fffULL & 0xffffffffULL, n), ""), vt(ir->f32, n), "");
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
  case LY_ELEM_F8E8M0FNU: return e8m0_to_f32(ir, v, n);
  default: return small_to_f32(ir, fmt_of(from), v, n);
  }
}

/* ===== Encoding floats ========================================================= */

/* x (f32 or f64) rounded to nearest even into the narrower format t, with
 * its subnormals, overflow and NaN rules (Fmt.kind; IEEE NaN payloads keep
 * their top bits, made quiet). Normal results round the integer bits;
 * subnormal ones let the FPU round: |x| + 2^(emin - mbits + SM) has the
 * subnormal spacing as its ulp, and its low bits are the encoding. */
static LLVMValueRef encode_narrow(LycIR *ir, LLVMValueRef x, Fmt t, int n) {
  LLVMBuilderRef b = ir->b;
  bool d = LLVMTypeOf(x) == vt(ir->f64, n);
  int W = d ? 64 : 32, SM = d ? 52 : 23, SB = d ? 1023 : 127, sh = SM - t.mbits, emin = 1 - t.bias;
  int tbits = 1 + t.ebits + t.mbits;
  LLVMTypeRef it = vt(d ? ir->i64 : ir->i32, n), ft = vt(d ? ir->f64 : ir->f32, n);
  LLVMValueRef bits = LLVMBuildBitCast(b, x, it, "");
  LLVMValueRef a = LLVMBuildAnd(b, bits, kint(d ? ir->i64 : ir->i32, ~(1ULL << (W - 1)) & (d ? ~0ULL : 0xffffffffULL), n), "");
  LLVMTypeRef ie = d ? ir->i64 : ir->i32;
  uint64_t inf_src = (d ? 0x7ffULL : 0xffULL) << SM, inf_t = ((1ULL << t.ebits) - 1) << t.mbits;
  uint64_t maxmag = (1ULL << (t.ebits + t.mbits)) - 1;
  /* The code overflow saturates at: infinity, FN's NaN, FINITE's largest
   * value; FNUZ overflows to its NaN below. */
  uint64_t top = t.kind == FMT_IEEE ? inf_t : maxmag;
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
  LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGT, r, kint(ie, top, n), "");
  LLVMValueRef inf = LLVMBuildICmp(b, LLVMIntEQ, a, kint(ie, inf_src, n), "");
  LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, a, kint(ie, inf_src, n), "");
  r = LLVMBuildSelect(b, LLVMBuildOr(b, over, inf, ""), kint(ie, top, n), r, "");
  LLVMValueRef sign = LLVMBuildLShr(b, bits, kint(ie, (uint64_t)(W - 1), n), "");
  sign = LLVMBuildShl(b, sign, kint(ie, (uint64_t)(tbits - 1), n), "");
  if (t.kind == FMT_FNUZ) /* no -0: a zero result drops the sign */
    sign = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, r, kint(ie, 0, n), ""), kint(ie, 0, n), sign, "");
  r = LLVMBuildOr(b, r, sign, "");
  LLVMValueRef qnan;
  if (t.kind == FMT_IEEE) {
    LLVMValueRef payload = LLVMBuildLShr(b, a, kint(ie, (uint64_t)sh, n), "");
    payload = LLVMBuildAnd(b, payload, kint(ie, (1ULL << t.mbits) - 1, n), "");
    qnan = LLVMBuildOr(b, LLVMBuildOr(b, payload, kint(ie, inf_t | 1ULL << (t.mbits - 1), n), ""), sign, "");
  } else if (t.kind == FMT_FN) {
    qnan = LLVMBuildOr(b, kint(ie, maxmag, n), sign, "");
  } else if (t.kind == FMT_FNUZ) {
    qnan = kint(ie, maxmag + 1, n); /* the sign bit alone */
    r = LLVMBuildSelect(b, LLVMBuildOr(b, over, inf, ""), qnan, r, "");
  } else {
    qnan = kint(ie, 0, n); /* FINITE: no NaN to become; +0, as in integers */
  }
  r = LLVMBuildSelect(b, nan, qnan, r, "");
  return LLVMBuildTrunc(b, r, vt(int_of(ir, tbits), n), "");
}

/* Elements [from, from + len) of vector v. */
static LLVMValueRef lanes(LycIR *ir, LLVMValueRef v, int from, int len) {
  LLVMValueRef m[512];
  for (int l = 0; l < len; l++)
    m[l] = LLVMConstInt(ir->i32, (unsigned)(from + l), 0);
  return LLVMBuildShuffleVector(ir->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(m, (unsigned)len), "");
}

/* Lanes a piece of an x86 conversion takes: `bytes` of f32, halved down to n. */
static int piece_lanes(int bytes, int n) {
  int w = bytes / 4;
  while (w > n)
    w /= 2;
  return w;
}

/* x's n lanes converted in pieces of w lanes (n / w of them, a power of
 * two), each by one(ir, piece, w), joined in order. */
static LLVMValueRef in_pieces(LycIR *ir, LLVMValueRef x, int n, int w, LLVMValueRef (*one)(LycIR *, LLVMValueRef, int)) {
  int np = n / w;
  LLVMValueRef parts[128];
  LY_ASSERT(np <= 128 && (np & (np - 1)) == 0);
  for (int q = 0; q < np; q++)
    parts[q] = one(ir, np == 1 ? x : lanes(ir, x, q * w, w), w);
  return lyc_concat(ir, parts, np);
}

/* v (i16 lanes that were bfloat) through an empty inline asm that leaves
 * it in its register: no instruction, but LLVM cannot see the bfloat
 * behind it. Otherwise InstCombine stores the bfloat vector itself (a store
 * of a bitcast becomes a store of its operand), and LLVM 19's x86 backend
 * has no non-temporal store of bfloat vectors: the streaming kernels'
 * stores stayed in the cache (nt_stores.py, f32 nhwc -> bf16 with three
 * channels). */
static LLVMValueRef opaque_i16(LycIR *ir, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v), fty = LLVMFunctionType(t, &t, 1, 0);
  static const char constraints[] = "=v,0";
  LLVMValueRef asm_ = LLVMGetInlineAsm(fty, "", 0, constraints, sizeof constraints - 1, 0, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(ir->b, fty, asm_, &v, 1, "");
}

/* One piece of f32_to_bf16: w lanes (8 or 16) by VCVTNEPS2BF16, as i16. */
static LLVMValueRef cvtne_piece(LycIR *ir, LLVMValueRef piece, int w) {
  LLVMValueRef r = lyc_intrinsic(ir, w == 16 ? "llvm.x86.avx512bf16.cvtneps2bf16.512" : "llvm.x86.avx512bf16.cvtneps2bf16.256",
                                 NULL, 0, &piece, 1);
  return opaque_i16(ir, LLVMBuildBitCast(ir->b, r, vt(ir->i16, w), "bf16"));
}

/* f32 bits to bf16 bits as oneDNN does it: round to nearest even, NaN kept
 * quiet, subnormal inputs flushed to a signed zero. That is VCVTNEPS2BF16's
 * own definition (Intel SDM: zero and denormal inputs give the signed
 * zero, NaN its top half with bit 6 set, the rest x + 0x7fff + the kept
 * LSB, shifted), which takes vectors of 8 and 16 lanes where the host has
 * it (ir->cvtbf16_bytes): one instruction instead of eleven operations a
 * vector (f32 nchw -> bf16 nChw16c on the Zen 5 measured in
 * docs/codegen.md). Other widths and hosts round in integers. */
static LLVMValueRef f32_to_bf16(LycIR *ir, LLVMValueRef f, int n) {
  LLVMBuilderRef b = ir->b;
  int w = piece_lanes(ir->cvtbf16_bytes, n);
  if (w >= 8 && n % w == 0 && n / w <= 128 && ((n / w) & (n / w - 1)) == 0)
    return in_pieces(ir, f, n, w, cvtne_piece);
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

/* An f32 or f64 value to f8E8M0FNU: through the (exact) f64 bits, the
 * exponent plus one when the first fraction bit is set (ties go up); no
 * zero (tiny values and zeros give code 0), negatives and non-finite
 * values the NaN, as in the interpreter. */
static LLVMValueRef encode_e8m0(LycIR *ir, LLVMValueRef x, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMTypeRef i64 = ir->i64;
  if (LLVMTypeOf(x) != vt(ir->f64, n))
    x = LLVMBuildFPExt(b, x, vt(ir->f64, n), "");
  LLVMValueRef bits = LLVMBuildBitCast(b, x, vt(i64, n), "");
  LLVMValueRef a = LLVMBuildAnd(b, bits, kint(i64, 0x7fffffffffffffffULL, n), "");
  LLVMValueRef e = LLVMBuildLShr(b, a, kint(i64, 52, n), "");
  LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildLShr(b, a, kint(i64, 51, n), ""), kint(i64, 1, n), "");
  LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildSub(b, e, kint(i64, 1023 - 127, n), ""), up, ""); /* may be negative */
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, kint(i64, 0, n), ""), kint(i64, 0, n), r, "");
  LLVMValueRef bad = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntSGT, r, kint(i64, 254, n), ""),
                                 LLVMBuildICmp(b, LLVMIntEQ, e, kint(i64, 0x7ff, n), ""), "");
  bad = LLVMBuildOr(b, bad, LLVMBuildICmp(b, LLVMIntUGT, bits, kint(i64, 0x8000000000000000ULL, n), ""), ""); /* < 0 */
  r = LLVMBuildSelect(b, bad, kint(i64, 0xff, n), r, "");
  r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, a, kint(i64, 0, n), ""), kint(i64, 0, n), r, "");
  return LLVMBuildTrunc(b, r, vt(ir->i8, n), "");
}

/* One piece of f32_to_f16_cvtph: w lanes (4, 8 or 16) by VCVTPS2PH. */
static LLVMValueRef cvtph_piece(LycIR *ir, LLVMValueRef piece, int w) {
  LLVMValueRef rc = LLVMConstInt(ir->i32, 0, 0);
  if (w == 16) {
    LLVMValueRef args[] = {piece, rc, LLVMConstNull(vt(ir->i16, 16)), LLVMConstInt(ir->i16, 0xffff, 0)};
    return lyc_intrinsic(ir, "llvm.x86.avx512.mask.vcvtps2ph.512", NULL, 0, args, 4);
  }
  LLVMValueRef args[] = {piece, rc};
  LLVMValueRef r = lyc_intrinsic(ir, w == 8 ? "llvm.x86.vcvtps2ph.256" : "llvm.x86.vcvtps2ph.128", NULL, 0, args, 2);
  return w == 4 ? lanes(ir, r, 0, 4) : r; /* w 4: the low four of eight lanes */
}

/* n f32 lanes (n a multiple of 4) to f16 bits with VCVTPS2PH, pieces of
 * ir->cvtph_bytes, rounding to nearest even whatever MXCSR says (imm 0):
 * the same rounding as fptrunc, with i16 lanes throughout (LycIR says
 * why). */
static LLVMValueRef f32_to_f16_cvtph(LycIR *ir, LLVMValueRef x, int n) {
  return in_pieces(ir, x, n, piece_lanes(ir->cvtph_bytes, n), cvtph_piece);
}

/* An f32 or f64 value, decoded from `from`, to the storage bits of float
 * type `to`. */
static LLVMValueRef float_out(LycIR *ir, LyElem from, LyElem to, LLVMValueRef x, int n) {
  LLVMBuilderRef b = ir->b;
  bool d = LLVMTypeOf(x) == vt(ir->f64, n);
  switch (to) {
  case LY_ELEM_F64:
    return LLVMBuildBitCast(b, d ? x : LLVMBuildFPExt(b, x, vt(ir->f64, n), ""), vt(ir->i64, n), "");
  case LY_ELEM_F32:
    return LLVMBuildBitCast(b, d ? LLVMBuildFPTrunc(b, x, vt(ir->f32, n), "") : x, vt(ir->i32, n), "");
  case LY_ELEM_F16:
    if (!d && ir->cvtph_bytes && n >= 4 && n % 4 == 0)
      return f32_to_f16_cvtph(ir, x, n);
    if (!d) /* one rounding in hardware */
      return LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, x, vt(ir->f16, n), ""), vt(ir->i16, n), "");
    return encode_narrow(ir, x, fmt_of(to), n);
  case LY_ELEM_BF16:
    /* oneDNN's flush applies to f32 sources; tf32 and f8E8M0FNU values can
     * be f32 subnormals that bf16 holds, so they round without it. */
    if (d || from == LY_ELEM_TF32 || from == LY_ELEM_F8E8M0FNU)
      return encode_narrow(ir, x, fmt_of(to), n);
    return f32_to_bf16(ir, x, n);
  case LY_ELEM_TF32: return LLVMBuildShl(b, encode_narrow(ir, x, fmt_of(to), n), kint(ir->i32, 13, n), "");
  case LY_ELEM_F8E8M0FNU: return encode_e8m0(ir, x, n);
  default: return encode_narrow(ir, x, fmt_of(to), n);
  }
}

/* ===== Between integers and floats ============================================= */

/* A 32- or 64-bit integer (signed, or unsigned when `uns`) rounded to
 * `sig` significant bits (to nearest, ties to even) as an exact f32: the
 * one rounding of formats whose range reaches past f32's 24 bits. */
static LLVMValueRef int_round_value(LycIR *ir, LLVMValueRef x, int sig, bool uns, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMTypeRef it = LLVMTypeOf(x), ie = n ? LLVMGetElementType(it) : it;
  unsigned W = LLVMGetIntTypeWidth(ie);
  LLVMValueRef neg = uns ? kint(ir->i1, 0, n) : LLVMBuildICmp(b, LLVMIntSLT, x, kint(ie, 0, n), "");
  LLVMValueRef a = LLVMBuildSelect(b, neg, LLVMBuildSub(b, kint(ie, 0, n), x, ""), x, ""); /* |x| as unsigned */
  LLVMValueRef args[] = {a, LLVMConstInt(ir->i1, 0, 0)};
  LLVMValueRef lz = lyc_intrinsic(ir, "llvm.ctlz", &it, 1, args, 2);
  LLVMValueRef sh = LLVMBuildSub(b, kint(ie, W - (unsigned)sig, n), lz, ""); /* significant bits - sig */
  LLVMValueRef big = LLVMBuildICmp(b, LLVMIntSGT, sh, kint(ie, 0, n), "");
  LLVMValueRef s = LLVMBuildSelect(b, big, sh, kint(ie, 1, n), "");
  LLVMValueRef q = LLVMBuildLShr(b, a, s, "");
  LLVMValueRef rem = LLVMBuildSub(b, a, LLVMBuildShl(b, q, s, ""), "");
  LLVMValueRef half = LLVMBuildShl(b, kint(ie, 1, n), LLVMBuildSub(b, s, kint(ie, 1, n), ""), "");
  LLVMValueRef up = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntUGT, rem, half, ""),
                                LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, rem, half, ""),
                                             LLVMBuildTrunc(b, q, vt(ir->i1, n), ""), ""), "");
  q = LLVMBuildAdd(b, q, LLVMBuildZExt(b, up, it, ""), "");
  /* q may have carried to 2^sig, and q << s can reach 2^W (ui64): scale in
   * f32 by 2^s instead, exactly. */
  LLVMValueRef f = LLVMBuildUIToFP(b, q, vt(ir->f32, n), "");
  LLVMValueRef e = LLVMBuildAdd(b, LLVMBuildTrunc(b, s, vt(ir->i32, n), ""), kint(ir->i32, 127, n), "");
  LLVMValueRef scale = LLVMBuildBitCast(b, LLVMBuildShl(b, e, kint(ir->i32, 23, n), ""), vt(ir->f32, n), "");
  f = LLVMBuildSelect(b, big, LLVMBuildFMul(b, f, scale, ""), LLVMBuildUIToFP(b, a, vt(ir->f32, n), ""), "");
  return LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, f, ""), f, "");
}

static LLVMValueRef int_to_float(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  bool wide = int_wide(from), uns = is_unsigned(from);
  LLVMValueRef x = int_in(ir, from, v, wide, n);
  LLVMTypeRef f32 = vt(ir->f32, n);
  if (to == LY_ELEM_F64) {
    LLVMTypeRef f64 = vt(ir->f64, n);
    return float_out(ir, from, to, uns ? LLVMBuildUIToFP(ir->b, x, f64, "") : LLVMBuildSIToFP(ir->b, x, f64, ""), n);
  }
  /* bf16, tf32 and f8E8M0FNU reach past 2^24: values of more than 24 bits
   * round once, in integer arithmetic, to the format's precision. */
  bool far = to == LY_ELEM_BF16 || to == LY_ELEM_TF32 || to == LY_ELEM_F8E8M0FNU;
  if (far && (lyElemGetBits(from) > 16 || uns)) {
    int sig = to == LY_ELEM_F8E8M0FNU ? 1 : fmt_of(to).mbits + 1;
    LLVMValueRef f = int_round_value(ir, x, sig, uns, n);
    return to == LY_ELEM_BF16 ? f32_to_bf16(ir, f, n) : float_out(ir, from, to, f, n);
  }
  /* Exact in f32 up to 24 bits; wider values that round here are past every
   * other 16-, 8-, 6- and 4-bit float's range, so the second rounding
   * cannot differ. */
  LLVMValueRef f = uns ? LLVMBuildUIToFP(ir->b, x, f32, "") : LLVMBuildSIToFP(ir->b, x, f32, "");
  if (to == LY_ELEM_BF16 && lyElemGetBits(from) <= 8) /* at most 8 significant bits: exact, the top half */
    return LLVMBuildTrunc(ir->b, LLVMBuildLShr(ir->b, LLVMBuildBitCast(ir->b, f, vt(ir->i32, n), ""), kint(ir->i32, 16, n), ""),
                          vt(ir->i16, n), "bf16");
  return float_out(ir, from, to, f, n);
}

/* The value of f16 bits as an f32, in integer operations (NaNs stay NaNs,
 * payloads aside): the exponent rebiased, then infinities and NaNs get the
 * top exponent and subnormals are renormalised by one subtraction. An fpext
 * from half here would let LLVM narrow the rounding and the compares that
 * follow to half, which x86 without AVX512-FP16 does a lane at a time (f16
 * -> s8 0.8 GB/s). */
static LLVMValueRef f16_value(LycIR *ir, LLVMValueRef h, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef w = LLVMBuildZExt(b, h, vt(ir->i32, n), "");
  LLVMValueRef o = LLVMBuildShl(b, LLVMBuildAnd(b, w, kint(ir->i32, 0x7fff, n), ""), kint(ir->i32, 13, n), "");
  LLVMValueRef e = LLVMBuildAnd(b, o, kint(ir->i32, 0x7c00u << 13, n), "");
  o = LLVMBuildAdd(b, o, kint(ir->i32, 112u << 23, n), "");
  LLVMValueRef top = LLVMBuildICmp(b, LLVMIntEQ, e, kint(ir->i32, 0x7c00u << 13, n), "");
  o = LLVMBuildSelect(b, top, LLVMBuildAdd(b, o, kint(ir->i32, 112u << 23, n), ""), o, "");
  LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, e, kint(ir->i32, 0, n), "");
  LLVMValueRef renorm = LLVMBuildFSub(b, LLVMBuildBitCast(b, LLVMBuildAdd(b, o, kint(ir->i32, 1u << 23, n), ""), vt(ir->f32, n), ""),
                                      kfp(ir->f32, ldexp(1.0, -14), n), "");
  LLVMValueRef f = LLVMBuildSelect(b, sub, renorm, LLVMBuildBitCast(b, o, vt(ir->f32, n), ""), "");
  LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, w, kint(ir->i32, 0x8000, n), ""), kint(ir->i32, 16, n), "");
  return LLVMBuildBitCast(b, LLVMBuildOr(b, LLVMBuildBitCast(b, f, vt(ir->i32, n), ""), sign, ""), vt(ir->f32, n), "f16");
}

/* Round to nearest even, saturate, NaN to 0 (i1: negative to 0, else
 * whether the rounded value is at least 1; unsigned: negative to 0, as
 * arith's fptoui and oneDNN's u8 saturation). The rounded value is clamped
 * in floating point to [lo, hi'] (lo = the target's least value, exact: 0
 * or a power of two; hi' = the greatest float at most the target's greatest
 * value hi), converted with a plain fptosi/fptoui (in range, so defined),
 * and values above hi' (above hi: hi' is the float just below the next
 * one) become hi, NaN 0. Not llvm.fpto*i.sat: LLVM 19 scalarises it on
 * x86 for vectors (f32 -> s8 contiguous 6 GB/s; this form vectorises). */
static LLVMValueRef float_to_int(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  LLVMBuilderRef b = ir->b;
  LLVMValueRef x = from == LY_ELEM_F16    ? f16_value(ir, v, n)
                   : from == LY_ELEM_F8E5M2 ? f16_value(ir, LLVMBuildShl(b, LLVMBuildZExt(b, v, vt(ir->i16, n), ""),
                                                                        kint(ir->i16, 8, n), ""), n) /* an f16's top byte */
                                            : float_in(ir, from, v, n);
  int bits = lyElemGetBits(to);
  bool uns = is_unsigned(to) || to == LY_ELEM_I1;
  LLVMTypeRef xt = LLVMTypeOf(x), wt = vt(bits == 64 ? ir->i64 : ir->i32, n);
  LLVMTypeRef ft = LLVMGetTypeKind(xt) == LLVMVectorTypeKind ? LLVMGetElementType(xt) : xt;
  bool f64 = LLVMGetTypeKind(ft) == LLVMDoubleTypeKind;
  x = lyc_intrinsic(ir, "llvm.roundeven", &xt, 1, &x, 1);
  uint64_t hi = to == LY_ELEM_I1 ? 1 : uns ? (bits == 64 ? ~0ULL : (1ULL << bits) - 1) : (1ULL << (bits - 1)) - 1;
  double lo = uns ? 0.0 : -ldexp(1.0, bits - 1), hid;
  if (f64) {
    hid = (double)hi; /* rounds to nearest: step down when that passed hi */
    if ((long double)hid > (long double)hi)
      hid = nextafter(hid, 0.0);
  } else {
    float h = (float)hi;
    if ((long double)h > (long double)hi)
      h = nextafterf(h, 0.0f);
    hid = h;
  }
  LLVMValueRef flo = kfp(ft, lo, n), fhi = kfp(ft, hid, n);
  LLVMValueRef below = LLVMBuildFCmp(b, LLVMRealOLT, x, flo, ""), above = LLVMBuildFCmp(b, LLVMRealOGT, x, fhi, "");
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  LLVMValueRef c = LLVMBuildSelect(b, below, flo, LLVMBuildSelect(b, above, fhi, x, ""), "");
  c = LLVMBuildSelect(b, nan, kfp(ft, 0.0, n), c, "clamp");
  LLVMValueRef r = uns ? LLVMBuildFPToUI(b, c, wt, "") : LLVMBuildFPToSI(b, c, wt, "");
  if ((long double)hid < (long double)hi) /* hi itself is no float: above hi' is above hi */
    r = LLVMBuildSelect(b, above, kint(bits == 64 ? ir->i64 : ir->i32, hi, n), r, "");
  return int_out(ir, to, r, n);
}

/* Real-valued elements (complex ones go through lyc_emit_convert by halves). */
static LLVMValueRef convert_real(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  if (from == to)
    return v;
  if (is_int(from) && is_int(to)) {
    bool wide = int_wide(from) || lyElemGetBits(to) == 64;
    return int_out(ir, to, int_in(ir, from, v, wide, n), n);
  }
  if (is_int(from))
    return int_to_float(ir, from, to, v, n);
  if (is_int(to))
    return float_to_int(ir, from, to, v, n);
  if (from == LY_ELEM_TF32 && to == LY_ELEM_F32) /* exact: the bits, NaNs untouched, as bf16's */
    return LLVMBuildAnd(ir->b, v, kint(ir->i32, ~0x1fffULL & 0xffffffffULL, n), "");
  return float_out(ir, from, to, float_in(ir, from, v, n), n);
}

LLVMValueRef lyc_emit_convert(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n) {
  if (from == to)
    return v;
  if (lyElemGetKind(from) != LY_ELEM_KIND_COMPLEX)
    return convert_real(ir, from, to, v, n);
  /* complex: each half converts alone, real part in the low bits */
  LyElem fc = lyElemGetComponent(from), tc = lyElemGetComponent(to);
  int fb = lyElemGetBits(fc), tb = lyElemGetBits(tc);
  LLVMTypeRef fh = vt(int_of(ir, fb), n), th = vt(int_of(ir, 2 * tb), n);
  LLVMValueRef re = LLVMBuildTrunc(ir->b, v, fh, "");
  LLVMValueRef im = LLVMBuildTrunc(ir->b, LLVMBuildLShr(ir->b, v, kint(int_of(ir, 2 * fb), (uint64_t)fb, n), ""), fh, "");
  re = LLVMBuildZExt(ir->b, convert_real(ir, fc, tc, re, n), th, "");
  im = LLVMBuildZExt(ir->b, convert_real(ir, fc, tc, im, n), th, "");
  return LLVMBuildOr(ir->b, re, LLVMBuildShl(ir->b, im, kint(int_of(ir, 2 * tb), (uint64_t)tb, n), ""), "");
}

/* A conversion from a source of at most 4 bits (16 codes) into one of at
 * most 16 as a table lookup with PSHUFB (SSSE3, AVX2, AVX512BW forms of
 * `width` bytes): the table is the interpreter's conversion of each code
 * (lyc_convert), so the two agree by construction; a 16-bit result looks
 * its low and high bytes up in two tables and interleaves them. v holds
 * the codes in the low bits of n i8 lanes, the rest zero. i4 -> bf16 in
 * the cache on the Zen 5: 38 GB/s by arithmetic (decode, convert, encode;
 * bound by instructions), 100 by tables. */
LLVMValueRef lyc_emit_convert_lookup(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n, int width) {
  LLVMBuilderRef b = ir->b;
  int codes = 1 << lyElemGetBits(from), db = lyElemGetBits(to) > 8 ? 2 : 1;
  while (width > n)
    width /= 2;
  LY_ASSERT(n % width == 0 && width >= 16 && n <= 512);
  LLVMValueRef tab[2][64], m[512];
  for (int l = 0; l < width; l++) {
    uint64_t r = l % 16 < codes ? lyc_convert(from, to, (uint64_t)(l % 16)) : 0;
    for (int k = 0; k < 2; k++)
      tab[k][l] = LLVMConstInt(ir->i8, (r >> (8 * k)) & 0xff, 0);
  }
  const char *name = width == 16 ? "llvm.x86.ssse3.pshuf.b.128" : width == 32 ? "llvm.x86.avx2.pshuf.b" : "llvm.x86.avx512.pshuf.b.512";
  LLVMValueRef parts[32];
  int np = n / width;
  for (int q = 0; q < np; q++) {
    LLVMValueRef piece = np == 1 ? v : lanes(ir, v, q * width, width);
    LLVMValueRef lo, hi;
    LLVMValueRef a0[] = {LLVMConstVector(tab[0], (unsigned)width), piece};
    lo = lyc_intrinsic(ir, name, NULL, 0, a0, 2);
    if (db == 1) {
      parts[q] = lo;
      continue;
    }
    LLVMValueRef a1[] = {LLVMConstVector(tab[1], (unsigned)width), piece};
    hi = lyc_intrinsic(ir, name, NULL, 0, a1, 2);
    for (int l = 0; l < 2 * width; l++)
      m[l] = LLVMConstInt(ir->i32, (unsigned)(l / 2 + (l % 2 ? width : 0)), 0);
    parts[q] = LLVMBuildBitCast(b, LLVMBuildShuffleVector(b, lo, hi, LLVMConstVector(m, (unsigned)(2 * width)), ""),
                                vt(ir->i16, width), "");
  }
  return lyc_concat(ir, parts, np);
}

