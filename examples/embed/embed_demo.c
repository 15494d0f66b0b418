/* layoutc inside a compiler that has its own LLVM: types, a pass over IR it
 * built, and two repack kernels emitted into its own module under its own
 * names, JIT-compiled by its own LLJIT and checked against the library's
 * reference interpreter. Exit status 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <layoutc/codegen.h>
#include <layoutc/ir.h>
#include <layoutc/layoutc.h>
#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

static LyType parse(LyContext c, const char *s) { return lyTypeParse(c, s, strlen(s), "embed_demo"); }

/* A pass: build `reshape` with an open ('any') result layout, legalize it,
 * and read the layout the pass chose. */
static int run_pass(LyContext ctx, LyType src) {
  LyType any = parse(ctx, "tensor<2x2x16x4x5xf32, any>");
  LyModule m = lyModuleCreate(ctx);
  LyFunc f = lyFuncCreate(m, "main", 1, &src, 1, &any);
  LyValue arg = lyFuncGetArg(f, 0);
  LyValue r = lyOpGetResult(lyOpCreate(f, LY_OP_RESHAPE, 1, &arg, 1, &any), 0);
  lyOpCreate(f, LY_OP_RETURN, 1, &r, 0, NULL);
  int ok = lyModuleRunPipeline(m, "legalize-reshapes", 0) == LY_OK;
  LyOp first = lyFuncGetFirstOp(f);
  char *chosen = lyTypeToString(lyValueGetType(lyOpGetResult(first, 0)));
  printf("pass: %s result is %s\n", lyOpKindGetName(lyOpGetKind(first)), chosen);
  ok = ok && lyOpGetKind(first) == LY_OP_VIEW;
  lyStringFree(chosen);
  lyModuleDestroy(m);
  return ok;
}

typedef void (*Kernel)(const void *src, void *dst, int64_t thread, int64_t nthreads);

static int check(LyContext ctx, Kernel k, LyType s, LyType d, const char *name) {
  int64_t sb, db;
  lyTypeGetSizeBytes(s, &sb);
  lyTypeGetSizeBytes(d, &db);
  unsigned char *in = malloc(sb), *out = calloc(1, db), *want = calloc(1, db);
  for (int64_t i = 0; i < sb; i++) { /* a mix of the index: no channel plane repeats another */
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15u;
    x ^= x >> 29;
    in[i] = (unsigned char)((x * 0xBF58476D1CE4E5B9u) >> 56);
  }
  k(in, out, 0, 1);
  int ok = lyRepackInterpret(ctx, s, d, in, want) == LY_OK && !memcmp(out, want, db);
  printf("kernel @%s: %lld bytes, %s\n", name, (long long)db, ok ? "matches the interpreter" : "WRONG");
  free(in), free(out), free(want);
  return ok;
}

static void *lookup(LLVMOrcLLJITRef jit, const char *name) {
  LLVMOrcExecutorAddress a = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(jit, &a, name);
  if (e)
    LLVMConsumeError(e);
  return e ? NULL : (void *)(uintptr_t)a;
}

int main(void) {
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  LyType plain = parse(ctx, "tensor<2x32x4x5xf32>"), blocked = parse(ctx, "tensor<2x32x4x5xf32, \"nChw16c\">");
  LyType nhwc_bf16 = parse(ctx, "tensor<2x32x4x5xbf16, \"nhwc\">");
  int64_t bytes;
  lyTypeGetSizeBytes(blocked, &bytes);
  printf("types: %d-d, %lld bytes, hash %016llx\n", lyTypeGetRank(blocked), (long long)bytes,
         (unsigned long long)lyTypeGetHash(blocked));
  int ok = run_pass(ctx, blocked);

  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMOrcLLJITRef jit;
  if (LLVMOrcCreateLLJIT(&jit, NULL))
    return 1;
  LLVMOrcDefinitionGeneratorRef gen; /* kernels may call memcpy / memset */
  if (!LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL))
    LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("my_compiler", LLVMOrcThreadSafeContextGetContext(tsc));
  ok = ok && lyEmitRepackFunction(ctx, m, "my_pack", plain, blocked) == LY_OK;
  ok = ok && lyEmitRepackFunction(ctx, m, "my_convert", blocked, nhwc_bf16) == LY_OK;
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  if (LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), tsm))
    return 1;
  Kernel pack = lookup(jit, "my_pack"), convert = lookup(jit, "my_convert");
  ok = ok && pack && convert && check(ctx, pack, plain, blocked, "my_pack") &&
       check(ctx, convert, blocked, nhwc_bf16, "my_convert");
  LLVMOrcDisposeLLJIT(jit);
  lyContextDestroy(ctx);
  printf("%s\n", ok ? "embed_demo: ok" : "embed_demo: FAILED");
  return ok ? 0 : 1;
}
