/* codegen/emit: IR building helpers, the address computation of a
 * descriptor (offset of an element from its logical index), and the
 * textual address-function module behind `layoutc emit-llvm TYPE`. */
#include "codegen/codegen.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h> /* LLVMTemporaryMDNode: a loop ID refers to itself */
#include <stdio.h>
#include <string.h>

/* ===== Helpers ================================================================ */

static void ir_types(LycIR *ir) {
  LLVMContextRef c = ir->c;
  ir->i1 = LLVMInt1TypeInContext(c);
  ir->i8 = LLVMInt8TypeInContext(c);
  ir->i16 = LLVMInt16TypeInContext(c);
  ir->i32 = LLVMInt32TypeInContext(c);
  ir->i64 = LLVMInt64TypeInContext(c);
  ir->ptr = LLVMPointerTypeInContext(c, 0);
  ir->f16 = LLVMHalfTypeInContext(c);
  ir->bf16 = LLVMBFloatTypeInContext(c);
  ir->f32 = LLVMFloatTypeInContext(c);
  ir->f64 = LLVMDoubleTypeInContext(c);
  ir->vd = LLVMVoidTypeInContext(c);
}

void lyc_ir_init(LycIR *ir, LLVMModuleRef m) {
  memset(ir, 0, sizeof *ir);
  ir->m = m;
  ir->c = LLVMGetModuleContext(m);
  ir->b = LLVMCreateBuilderInContext(ir->c);
  ir_types(ir);
}

void lyc_ir_dispose(LycIR *ir) {
  if (ir->b)
    LLVMDisposeBuilder(ir->b);
  ir->b = NULL;
}

LLVMValueRef lyc_ir_function(LycIR *ir, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n) {
  LLVMTypeRef ft = LLVMFunctionType(ret, params, (unsigned)n, 0);
  ir->fn = LLVMAddFunction(ir->m, name, ft);
  LLVMSetFunctionCallConv(ir->fn, LLVMCCallConv);
  LLVMPositionBuilderAtEnd(ir->b, LLVMAppendBasicBlockInContext(ir->c, ir->fn, "entry"));
  return ir->fn;
}

LLVMValueRef lyc_i64(LycIR *ir, int64_t v) { return LLVMConstInt(ir->i64, (unsigned long long)v, 1); }

LLVMValueRef lyc_intrinsic(LycIR *ir, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args, int nargs) {
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(ir->m, LLVMLookupIntrinsicID(name, strlen(name)), tys, (size_t)ntys);
  return LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)nargs, "");
}

LLVMValueRef lyc_concat(LycIR *ir, const LLVMValueRef *parts, int np) {
  LLVMValueRef cat[128], m[512];
  LY_ASSERT(np >= 1 && np <= 128 && (np & (np - 1)) == 0);
  memcpy(cat, parts, (size_t)np * sizeof *parts);
  for (; np > 1; np /= 2) { /* pairwise */
    int len = (int)LLVMGetVectorSize(LLVMTypeOf(cat[0]));
    LY_ASSERT(2 * len <= 512);
    for (int l = 0; l < 2 * len; l++)
      m[l] = LLVMConstInt(ir->i32, (unsigned)l, 0);
    for (int i = 0; i < np / 2; i++)
      cat[i] = LLVMBuildShuffleVector(ir->b, cat[2 * i], cat[2 * i + 1], LLVMConstVector(m, (unsigned)(2 * len)), "cat");
  }
  return cat[0];
}

LLVMValueRef lyc_store_nt(LycIR *ir, LLVMValueRef v, LLVMValueRef ptr, unsigned align) {
  LLVMValueRef s = LLVMBuildStore(ir->b, v, ptr);
  LLVMSetAlignment(s, align);
  LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(ir->i32, 1, 0));
  LLVMSetMetadata(s, LLVMGetMDKindIDInContext(ir->c, "nontemporal", 11),
                  LLVMMetadataAsValue(ir->c, LLVMMDNodeInContext2(ir->c, &one, 1)));
  return s;
}

void lyc_prefetch(LycIR *ir, LLVMValueRef ptr, int64_t ahead) {
  LLVMTypeRef tys[] = {ir->ptr};
  LLVMValueRef off = lyc_i64(ir, ahead);
  LLVMValueRef args[] = {LLVMBuildGEP2(ir->b, ir->i8, ptr, &off, 1, "ahead"), LLVMConstInt(ir->i32, 0, 0),
                         LLVMConstInt(ir->i32, 3, 0), LLVMConstInt(ir->i32, 1, 0)};
  lyc_intrinsic(ir, "llvm.prefetch", tys, 1, args, 4);
}

LLVMValueRef lyc_loop_begin(LycIR *ir, LycLoopIR *l, LLVMValueRef lo, LLVMValueRef hi, const char *name) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(ir->b);
  l->head = LLVMAppendBasicBlockInContext(ir->c, ir->fn, name);
  l->body = LLVMAppendBasicBlockInContext(ir->c, ir->fn, "body");
  l->exit = LLVMAppendBasicBlockInContext(ir->c, ir->fn, "exit");
  LLVMBuildBr(ir->b, l->head);
  LLVMPositionBuilderAtEnd(ir->b, l->head);
  l->iv = LLVMBuildPhi(ir->b, ir->i64, name);
  LLVMAddIncoming(l->iv, &lo, &pre, 1);
  LLVMBuildCondBr(ir->b, LLVMBuildICmp(ir->b, LLVMIntULT, l->iv, hi, "more"), l->body, l->exit);
  LLVMPositionBuilderAtEnd(ir->b, l->body);
  return l->iv;
}

static void loop_end(LycIR *ir, LycLoopIR *l, bool rolled) {
  LLVMValueRef next = LLVMBuildNUWAdd(ir->b, l->iv, lyc_i64(ir, 1), "next");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(ir->b);
  LLVMValueRef br = LLVMBuildBr(ir->b, l->head);
  if (rolled) { /* !llvm.loop !{self, !{"llvm.loop.unroll.disable"}} */
    LLVMMetadataRef hint = LLVMMDStringInContext2(ir->c, "llvm.loop.unroll.disable", 24);
    LLVMMetadataRef ops[] = {NULL, LLVMMDNodeInContext2(ir->c, &hint, 1)};
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(ir->c, NULL, 0);
    ops[0] = tmp;
    LLVMMetadataRef id = LLVMMDNodeInContext2(ir->c, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, id); /* the node's first operand is itself */
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(ir->c, "llvm.loop", 9), LLVMMetadataAsValue(ir->c, id));
  }
  LLVMAddIncoming(l->iv, &next, &latch, 1);
  /* Keep blocks in program order so the printed IR reads top to bottom. */
  LLVMMoveBasicBlockAfter(l->exit, latch);
  LLVMPositionBuilderAtEnd(ir->b, l->exit);
}

void lyc_loop_end(LycIR *ir, LycLoopIR *l) { loop_end(ir, l, false); }

void lyc_loop_end_rolled(LycIR *ir, LycLoopIR *l) { loop_end(ir, l, true); }

static bool pow2(int64_t k) { return k > 0 && !(k & (k - 1)); }

/* v * k. Callers pass v >= 0 (an index or digit value); k may be negative
 * (strided layouts), so only the signed no-wrap flag is always valid. */
LLVMValueRef lyc_mul_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name) {
  if (k == 1)
    return v;
  LLVMValueRef r;
  if (pow2(k)) {
    r = LLVMBuildShl(ir->b, v, lyc_i64(ir, lyc_log2_ceil(k)), name);
    if (LLVMIsAInstruction(r))
      LLVMSetNSW(r, 1);
  } else {
    r = LLVMBuildNSWMul(ir->b, v, lyc_i64(ir, k), name);
  }
  return r;
}

LLVMValueRef lyc_div_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name) {
  if (k == 1)
    return v;
  if (pow2(k))
    return LLVMBuildLShr(ir->b, v, lyc_i64(ir, lyc_log2_ceil(k)), name);
  return LLVMBuildUDiv(ir->b, v, lyc_i64(ir, k), name);
}

LLVMValueRef lyc_rem_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name) {
  if (pow2(k))
    return LLVMBuildAnd(ir->b, v, lyc_i64(ir, k - 1), name);
  return LLVMBuildURem(ir->b, v, lyc_i64(ir, k), name);
}

bool lyc_verify(LyDiagEngine *d, LLVMModuleRef m) {
  char *msg = NULL;
  bool bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
  if (bad)
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "internal error: generated IR is invalid: %s",
                 msg ? msg : "");
  LLVMDisposeMessage(msg);
  return !bad;
}

char *lyc_module_text(LLVMModuleRef m) {
  char *s = LLVMPrintModuleToString(m);
  size_t n = strlen(s);
  char *r = ly_malloc(n + 1);
  if (r)
    memcpy(r, s, n + 1);
  LLVMDisposeMessage(s);
  return r;
}

/* ===== Address computation ====================================================== */

static LLVMValueRef digit_value(LycIR *ir, const LyTypeImpl *t, const LyDigit *g, LLVMValueRef *idx);

/* E of a general digit: its linear combination of indices plus its nested
 * digits, each times its coefficient (desc.h). */
static LLVMValueRef general_e(LycIR *ir, const LyTypeImpl *t, const LyDigit *g, LLVMValueRef *idx) {
  LLVMValueRef e = NULL;
  for (int d = 0; d < t->rank; d++) {
    if (!g->coef[d])
      continue;
    LLVMValueRef term = lyc_mul_const(ir, idx[d], g->coef[d], "coef");
    e = e ? LLVMBuildNSWAdd(ir->b, e, term, "lin") : term;
  }
  for (int j = 0; j < g->nsub; j++) {
    LLVMValueRef term = lyc_mul_const(ir, digit_value(ir, t, &g->sub[j], idx), g->sub[j].stride, "sub");
    e = e ? LLVMBuildNSWAdd(ir->b, e, term, "lin") : term;
  }
  return e ? e : lyc_i64(ir, 0);
}

/* The value of a digit: floor(E / div), reduced mod ext when it wraps. */
static LLVMValueRef digit_value(LycIR *ir, const LyTypeImpl *t, const LyDigit *g, LLVMValueRef *idx) {
  char name[32], buf[48];
  LLVMValueRef e;
  if (g->dim >= 0) {
    e = idx[g->dim];
    snprintf(name, sizeof name, "d%d", g->dim);
  } else {
    e = general_e(ir, t, g, idx);
    snprintf(name, sizeof name, "lin");
  }
  snprintf(buf, sizeof buf, "%s.div%lld", name, (long long)g->div);
  LLVMValueRef v = lyc_div_const(ir, e, g->div, buf);
  if (g->wrap) {
    snprintf(buf, sizeof buf, "%s.mod%lld", name, (long long)g->ext);
    v = lyc_rem_const(ir, v, g->ext, buf);
  }
  return v;
}

LLVMValueRef lyc_emit_offset(LycIR *ir, const LyTypeImpl *t, LLVMValueRef *idx) {
  LLVMValueRef off = NULL;
  for (int k = 0; k < t->ndigits; k++) {
    const LyDigit *g = &t->digits[k];
    LLVMValueRef term = lyc_mul_const(ir, digit_value(ir, t, g, idx), g->stride, "term");
    off = off ? LLVMBuildNSWAdd(ir->b, off, term, "off") : term;
  }
  if (!off)
    return lyc_i64(ir, t->base);
  return t->base ? LLVMBuildNSWAdd(ir->b, off, lyc_i64(ir, t->base), "off") : off;
}

LLVMValueRef lyEmitOffset(LyContext ctx, LLVMBuilderRef builder, LyType type, LLVMValueRef *idx) {
  const LyTypeImpl *t = lyd_type(type);
  if (!lyd_is_static(t)) {
    ly_diag_emit(&lyd_ctx(ctx)->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0},
                 "cannot emit the offset of a type without static geometry (dynamic, 'any' or symbolic)");
    return NULL;
  }
  LLVMBasicBlockRef bb = LLVMGetInsertBlock(builder);
  LycIR ir;
  lyc_ir_init(&ir, LLVMGetGlobalParent(LLVMGetBasicBlockParent(bb)));
  LLVMDisposeBuilder(ir.b);
  ir.b = builder; /* the caller's builder, so instructions land at its point */
  ir.fn = LLVMGetBasicBlockParent(bb);
  return lyc_emit_offset(&ir, t, idx);
}

/* ===== The address-function module ============================================== */

/* i64 @ly_offset(ptr idx) */
static LLVMValueRef emit_offset_fn(LycIR *ir, const LyTypeImpl *t) {
  LLVMTypeRef params[] = {ir->ptr};
  LLVMValueRef fn = lyc_ir_function(ir, "ly_offset", ir->i64, params, 1);
  LLVMValueRef idx[LY_MAX_RANK], arg = LLVMGetParam(fn, 0);
  LLVMSetValueName2(arg, "idx", 3);
  for (int d = 0; d < t->rank; d++) {
    char name[16];
    snprintf(name, sizeof name, "i%d", d);
    LLVMValueRef at = LLVMBuildGEP2(ir->b, ir->i64, arg, (LLVMValueRef[]){lyc_i64(ir, d)}, 1, "");
    idx[d] = LLVMBuildLoad2(ir->b, ir->i64, at, name);
    LLVMSetAlignment(idx[d], 8);
  }
  /* Through the public entry point, so the emitted modules exercise it. */
  LLVMBuildRet(ir->b, lyc_emit_offset(ir, t, idx));
  return fn;
}

/* void @ly_offset_batch(ptr idx, ptr out, i64 n): out[i] = offset(idx + i*rank) */
static void emit_batch_fn(LycIR *ir, const LyTypeImpl *t, LLVMValueRef single) {
  LLVMTypeRef params[] = {ir->ptr, ir->ptr, ir->i64};
  LLVMValueRef fn = lyc_ir_function(ir, "ly_offset_batch", ir->vd, params, 3);
  LLVMValueRef idx = LLVMGetParam(fn, 0), out = LLVMGetParam(fn, 1), n = LLVMGetParam(fn, 2);
  LLVMSetValueName2(idx, "idx", 3);
  LLVMSetValueName2(out, "out", 3);
  LLVMSetValueName2(n, "n", 1);
  LycLoopIR l;
  LLVMValueRef i = lyc_loop_begin(ir, &l, lyc_i64(ir, 0), n, "i");
  LLVMValueRef row = LLVMBuildGEP2(ir->b, ir->i64, idx, (LLVMValueRef[]){lyc_mul_const(ir, i, t->rank, "")}, 1, "row");
  LLVMValueRef off = LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(single), single, &row, 1, "off");
  LLVMBuildStore(ir->b, off, LLVMBuildGEP2(ir->b, ir->i64, out, &i, 1, ""));
  lyc_loop_end(ir, &l);
  LLVMBuildRetVoid(ir->b);
  LLVMSetLinkage(single, LLVMExternalLinkage);
}

static LLVMValueRef declare_printf(LycIR *ir) {
  LLVMValueRef f = LLVMGetNamedFunction(ir->m, "printf");
  if (f)
    return f;
  LLVMTypeRef ft = LLVMFunctionType(ir->i32, (LLVMTypeRef[]){ir->ptr}, 1, 1);
  return LLVMAddFunction(ir->m, "printf", ft);
}

/* main: prints the offset of every element in row-major logical order. */
static void emit_offset_main(LycIR *ir, const LyTypeImpl *t, LLVMValueRef single) {
  lyc_ir_function(ir, "main", ir->i32, NULL, 0);
  LLVMValueRef printf_fn = declare_printf(ir);
  LLVMValueRef fmt = LLVMBuildGlobalStringPtr(ir->b, "%lld\n", "fmt");
  LLVMValueRef buf = LLVMBuildArrayAlloca(ir->b, ir->i64, lyc_i64(ir, t->rank ? t->rank : 1), "idx");
  LycLoopIR loops[LY_MAX_RANK];
  for (int d = 0; d < t->rank; d++) {
    LLVMValueRef i = lyc_loop_begin(ir, &loops[d], lyc_i64(ir, 0), lyc_i64(ir, t->dims[d]), "i");
    LLVMBuildStore(ir->b, i, LLVMBuildGEP2(ir->b, ir->i64, buf, (LLVMValueRef[]){lyc_i64(ir, d)}, 1, ""));
  }
  LLVMValueRef off = LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(single), single, &buf, 1, "off");
  LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(printf_fn), printf_fn, (LLVMValueRef[]){fmt, off}, 2, "");
  for (int d = t->rank - 1; d >= 0; d--)
    lyc_loop_end(ir, &loops[d]);
  LLVMBuildRet(ir->b, LLVMConstInt(ir->i32, 0, 0));
}

/* Reports why a type has no address function; false if it has none. */
static bool need_static(LyDiagEngine *d, const LyTypeImpl *t) {
  if (lyd_is_static(t))
    return true;
  LyBuf b;
  ly_buf_init(&b);
  lyd_print(t, &b);
  ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "cannot emit an address function for '%s': %s",
               ly_buf_cstr(&b),
               lyd_is_foreign(t)    ? LYD_FOREIGN_WHY
               : t->kind == LYD_ANY ? "its layout is 'any' (not chosen yet)"
               : lyd_is_opaque(t) ? LYD_OPAQUE_WHY
               : lyd_is_encoded(t) ? LYD_ENCODED_WHY
                                  : "it has dynamic ('?') dims, strides or offset");
  ly_buf_free(&b);
  return false;
}

/* Finishes a module into text: verify, optionally optimise, print. */
static char *finish_module(LyDiagEngine *d, LLVMModuleRef m, unsigned flags) {
  char *text = NULL;
  if (lyc_verify(d, m) && (!(flags & LY_EMIT_OPTIMIZE) || lyc_optimize(d, m))) {
    text = lyc_module_text(m);
    if (!text)
      ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
  }
  return text;
}

char *lyEmitLLVMOffset(LyContext ctx, LyType type, unsigned flags) {
  LyDiagEngine *d = &lyd_ctx(ctx)->diag;
  const LyTypeImpl *t = lyd_type(type);
  if (!need_static(d, t))
    return NULL;
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("layoutc.offset", c);
  LycIR ir;
  lyc_ir_init(&ir, m);
  LLVMValueRef single = emit_offset_fn(&ir, t);
  emit_batch_fn(&ir, t, single);
  if (flags & LY_EMIT_WITH_MAIN)
    emit_offset_main(&ir, t, single);
  lyc_ir_dispose(&ir);
  char *text = finish_module(d, m, flags);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return text;
}

char *lyEmitLLVMRepack(LyContext ctx, LyType src, LyType dst, unsigned flags) {
  LyDiagEngine *d = &lyd_ctx(ctx)->diag;
  const LyTypeImpl *s = lyd_type(src), *t = lyd_type(dst);
  if (lyc_check_pair(d, s, t) != LY_OK)
    return NULL;
  LycTarget tgt;
  LycPlan p, q; /* q: the plain variant's */
  lyc_host_target(&tgt);
  if (!lyc_plan(&p, s, t, &tgt, false)) {
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  if (!lyc_plan(&q, s, t, &tgt, true)) {
    lyc_plan_free(&p);
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("layoutc.repack", c);
  LLVMValueRef kernel = lyc_emit_repack(m, &q, "ly_repack", false);
  if (p.nt)
    lyc_emit_repack(m, &p, "ly_repack_nt", true);
  if (flags & LY_EMIT_WITH_MAIN)
    lyc_emit_repack_main(m, &p, kernel);
  char *text = finish_module(d, m, flags);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  lyc_plan_free(&p);
  lyc_plan_free(&q);
  return text;
}
