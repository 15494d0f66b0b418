/* codegen/embed: code generation into the caller's LLVM module under names
 * the caller chooses: repack kernels and offset functions, the latter with
 * dynamic dims as run-time arguments where the layout allows. */
#include "codegen/codegen.h"

#include <stdio.h>
#include <string.h>

static void err(LyContext ctx, const char *fmt, const char *arg) {
  ly_diag_emit(&lyd_ctx(ctx)->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, arg);
}

/* A name free in m for a function the caller asked for. */
static bool name_free(LyContext ctx, LLVMModuleRef m, const char *name, const char *suffix) {
  char buf[256];
  if (!name || !*name || strlen(name) > 200) {
    err(ctx, "invalid function name '%s' (empty or longer than 200 bytes)", name ? name : "");
    return false;
  }
  size_t n = strlen(name);
  memcpy(buf, name, n);
  strcpy(buf + n, suffix);
  if (LLVMGetNamedFunction(m, buf) || LLVMGetNamedGlobal(m, buf)) {
    err(ctx, "the module already defines '%s'", buf);
    return false;
  }
  return true;
}

LyStatus lyEmitRepackFunction(LyContext ctx, LLVMModuleRef m, const char *name, LyType src, LyType dst) {
  LyDiagEngine *d = &lyd_ctx(ctx)->diag;
  const LyTypeImpl *s = lyd_type(src), *t = lyd_type(dst);
  LyStatus st = lyc_check_pair(d, s, t);
  if (st != LY_OK)
    return st;
  if (!name_free(ctx, m, name, "") || !name_free(ctx, m, name, "_needs_memset"))
    return LY_ERROR_INVALID;
  LycTarget tgt;
  lyc_host_target(&tgt);
  LycPlan p;
  if (!lyc_plan(&p, s, t, &tgt, true)) { /* the plain variant: dst may have any alignment */
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return LY_ERROR_NOMEM;
  }
  lyc_emit_repack(m, &p, name, false);
  lyc_plan_free(&p);
  return LY_OK;
}

/* i64 @name(ptr idx[, ptr dims]) with the builder in its entry block; the
 * indices loaded into idx[]. */
static LLVMValueRef offset_prologue(LycIR *ir, const char *name, int rank, bool dims, LLVMValueRef *idx) {
  LLVMTypeRef params[] = {ir->ptr, ir->ptr};
  LLVMValueRef fn = lyc_ir_function(ir, name, ir->i64, params, dims ? 2 : 1);
  LLVMValueRef arg = LLVMGetParam(fn, 0);
  LLVMSetValueName2(arg, "idx", 3);
  if (dims)
    LLVMSetValueName2(LLVMGetParam(fn, 1), "dims", 4);
  for (int d = 0; d < rank; d++) {
    LLVMValueRef at = LLVMBuildGEP2(ir->b, ir->i64, arg, (LLVMValueRef[]){lyc_i64(ir, d)}, 1, "");
    idx[d] = LLVMBuildLoad2(ir->b, ir->i64, at, "i");
  }
  return fn;
}

/* Row-major over dims that may be dynamic: sum idx[d] * prod(dims[d+1..]),
 * a static extent as a constant, a '?' one loaded from the dims argument. */
static LLVMValueRef row_major(LycIR *ir, const LyTypeImpl *t, LLVMValueRef dims, LLVMValueRef *idx) {
  LLVMValueRef off = lyc_i64(ir, 0);
  for (int d = 0; d < t->rank; d++) {
    LLVMValueRef ext = lyc_i64(ir, t->dims[d]);
    if (t->dims[d] == LY_DYNAMIC) {
      LLVMValueRef at = LLVMBuildGEP2(ir->b, ir->i64, dims, (LLVMValueRef[]){lyc_i64(ir, d)}, 1, "");
      ext = LLVMBuildLoad2(ir->b, ir->i64, at, "dim");
    }
    off = LLVMBuildNSWAdd(ir->b, LLVMBuildNSWMul(ir->b, off, ext, ""), idx[d], "off");
  }
  return off;
}

/* Static strides (in elements) and offset over dynamic dims. */
static bool static_strides(LyType type, int64_t *strides, int64_t *base) {
  const LyTypeImpl *t = lyd_type(type);
  int bits = lyElemGetBits(t->elem);
  if (lyTypeGetStrides(type, strides, base) != LY_OK || *base == LY_DYNAMIC)
    return false;
  for (int d = 0; d < t->rank; d++) {
    if (strides[d] == LY_DYNAMIC)
      return false;
    if (bits >= 8)
      strides[d] /= bits / 8;
  }
  return true;
}

LyStatus lyEmitOffsetFunction(LyContext ctx, LLVMModuleRef m, const char *name, LyType type) {
  const LyTypeImpl *t = lyd_type(type);
  int64_t strides[LY_MAX_RANK], base = 0;
  bool stat = lyd_is_static(t), rm = !stat && lyTypeIsContiguous(type);
  if (!stat && !rm && !static_strides(type, strides, &base)) {
    err(ctx, "%s", "no offset function for this type: its geometry needs more than its dims at run time "
                   "(an 'any', symbolic or dynamically strided layout)");
    return LY_ERROR_DYNAMIC;
  }
  if (!name_free(ctx, m, name, ""))
    return LY_ERROR_INVALID;
  LycIR ir;
  lyc_ir_init(&ir, m);
  LLVMValueRef idx[LY_MAX_RANK];
  LLVMValueRef fn = offset_prologue(&ir, name, t->rank, !stat, idx);
  LLVMValueRef off;
  if (stat) {
    off = lyc_emit_offset(&ir, t, idx);
  } else if (rm) {
    off = row_major(&ir, t, LLVMGetParam(fn, 1), idx);
  } else {
    off = lyc_i64(&ir, base);
    for (int d = 0; d < t->rank; d++)
      off = LLVMBuildNSWAdd(ir.b, off, LLVMBuildNSWMul(ir.b, idx[d], lyc_i64(&ir, strides[d]), ""), "off");
  }
  LLVMBuildRet(ir.b, off);
  lyc_ir_dispose(&ir);
  return LY_OK;
}
