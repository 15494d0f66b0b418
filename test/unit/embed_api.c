/* The embedding API as another compiler uses it: version and status names,
 * view queries that answer "not a view" quietly, building and walking IR
 * from C and running a pipeline, code emitted into the caller's own LLVM
 * module and JIT (several functions per module, dynamic dims as arguments),
 * a repacker over the caller's LLJIT, the cache capacity and the host
 * thread-pool hook. Every result is compared with the library's own
 * answers (lyTypeGetOffset, lyRepackInterpret, lyTypeReshape). */
#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_dst.h"
#include "layoutc/codegen.h"
#include "layoutc/ir.h"
#include "layoutc/layoutc.h"
#include "test_util.h"

typedef struct { int errors, notes; char last[512]; } Seen;

static void record(const LyDiagnostic *d, void *user) {
  Seen *s = user;
  s->errors += d->severity == LY_SEVERITY_ERROR;
  s->notes += d->severity == LY_SEVERITY_NOTE;
  snprintf(s->last, sizeof s->last, "%s", d->message);
}

static LyType parse(LyContext c, const char *s) { return lyTypeParse(c, s, strlen(s), NULL); }

static void test_version_and_status(void) {
  CHECK(lyGetVersion() == LAYOUTC_VERSION);
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", LAYOUTC_VERSION_MAJOR, LAYOUTC_VERSION_MINOR, LAYOUTC_VERSION_PATCH);
  CHECK(!strcmp(lyGetVersionString(), v));
  CHECK(!strcmp(lyStatusGetString(LY_OK), "LY_OK"));
  CHECK(!strcmp(lyStatusGetString(LY_ERROR_NOT_A_VIEW), "LY_ERROR_NOT_A_VIEW"));
  CHECK(!strcmp(lyStatusGetString((LyStatus)99), "?"));
}

static void test_view_queries(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, record, &seen);
  LyType t = parse(c, "tensor<2x32x4x5xf32, \"nChw16c\">"), v;
  LyType t48 = parse(c, "tensor<2x48x4x5xf32, \"nChw16c\">");
  int64_t ok_dims[] = {2, 2, 16, 4, 5}, copy_dims[] = {2, 4, 12, 4, 5}, bad_dims[] = {7};
  CHECK(lyTypeTryReshape(c, t, 5, ok_dims, &v) == LY_OK && lyTypeEqual(v, lyTypeReshape(c, t, 5, ok_dims)));
  CHECK(lyTypeTryReshape(c, t48, 5, copy_dims, &v) == LY_ERROR_NOT_A_VIEW && lyTypeIsNull(v));
  CHECK(seen.errors == 0 && seen.notes == 0);
  /* The same question through lyTypeReshape is an error with notes. */
  CHECK(lyTypeIsNull(lyTypeReshape(c, t48, 5, copy_dims)) && seen.errors == 1 && seen.notes == 1);
  seen = (Seen){0};
  CHECK(lyTypeTryReshape(c, t, 1, bad_dims, &v) == LY_ERROR_INVALID && seen.errors == 1);
  int64_t off[] = {0, 24, 0, 0}, sz[] = {2, 16, 4, 5}, off2[] = {0, 16, 0, 0};
  seen = (Seen){0};
  CHECK(lyTypeTrySlice(c, t, off, sz, &v) == LY_ERROR_INVALID && seen.errors == 1); /* out of range */
  seen = (Seen){0};
  CHECK(lyTypeTrySlice(c, t, off2, sz, &v) == LY_OK && lyTypeEqual(v, lyTypeSlice(c, t, off2, sz)));
  int64_t sdims[] = {2, 32, 20};
  CHECK(lyTypeTryReshapeStrided(c, t, 3, sdims, &v) == LY_ERROR_NOT_A_VIEW && seen.errors == 0);
  lyContextDestroy(c);
}

/* func @f(%a: nChw16c) { %0 = reshape %a -> any; %1 = transpose %0; return %1 } */
static LyModule build_module(LyContext c, LyType src, LyType *reshaped_any) {
  LyModule m = lyModuleCreate(c);
  LyType any = parse(c, "tensor<2x2x16x4x5xf32, any>"), any_t = parse(c, "tensor<2x2x16x5x4xf32, any>");
  LyFunc f = lyFuncCreate(m, "f", 1, &src, 1, &any_t);
  LyValue a = lyFuncGetArg(f, 0);
  LyOp r = lyOpCreate(f, LY_OP_RESHAPE, 1, &a, 1, &any);
  LyValue r0 = lyOpGetResult(r, 0);
  LyOp t = lyOpCreate(f, LY_OP_TRANSPOSE, 1, &r0, 1, &any_t);
  int64_t perm[] = {0, 1, 2, 4, 3};
  CHECK(lyOpSetIntArrayAttribute(t, "permutation", 5, perm) == LY_OK);
  LyValue t0 = lyOpGetResult(t, 0);
  CHECK(!lyOpIsNull(lyOpCreate(f, LY_OP_RETURN, 1, &t0, 0, NULL)));
  *reshaped_any = any;
  return m;
}

static void test_ir_build_and_pipeline(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, record, &seen);
  LyType src = parse(c, "tensor<2x32x4x5xf32, \"nChw16c\">"), any;
  LyModule m = build_module(c, src, &any);
  CHECK(lyModuleVerify(m) == LY_OK);
  /* The built module prints as the equivalent text parses. */
  const char *text = "func.func @f(%0: tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x2x16x5x4xf32, any> {\n"
                     "  %1 = \"layout.reshape\"(%0) : (tensor<2x32x4x5xf32, \"nChw16c\">) -> tensor<2x2x16x4x5xf32, any>\n"
                     "  %2 = \"layout.transpose\"(%1) {permutation = [0, 1, 2, 4, 3]} : (tensor<2x2x16x4x5xf32, any>) -> tensor<2x2x16x5x4xf32, any>\n"
                     "  \"func.return\"(%2) : (tensor<2x2x16x5x4xf32, any>) -> ()\n}\n";
  LyModule parsed = lyModuleParse(c, text, strlen(text), "text");
  char *s1 = lyModuleToString(m), *s2 = lyModuleToString(parsed);
  CHECK(s1 && s2 && !strcmp(s1, s2));
  if (s1 && s2 && strcmp(s1, s2))
    fprintf(stderr, "built:\n%s\nparsed:\n%s\n", s1, s2);
  /* A bad pipeline is refused whole, before anything runs. */
  CHECK(lyModuleRunPipeline(m, "legalize-reshapes, no-such-pass", 0) == LY_ERROR_INVALID);
  CHECK(strstr(seen.last, "unknown pass 'no-such-pass'") != NULL);
  CHECK(lyModuleRunPipeline(m, "legalize-reshapes,", 0) == LY_ERROR_INVALID);
  char *s3 = lyModuleToString(m);
  CHECK(s3 && !strcmp(s1, s3));
  seen = (Seen){0};
  CHECK(lyModuleRunPipeline(m, " legalize-reshapes ", 0) == LY_OK && seen.errors == 0);
  CHECK(lyModuleRunPass(parsed, "legalize-reshapes", 0) == LY_OK);
  char *s4 = lyModuleToString(m), *s5 = lyModuleToString(parsed);
  CHECK(s4 && s5 && !strcmp(s4, s5));
  /* Walk: the reshape became a view; its type is the layout the pass chose,
   * the view lyTypeReshape gives. */
  int64_t dims[] = {2, 2, 16, 4, 5};
  LyType want = lyTypeReshape(c, src, 5, dims);
  int nviews = 0, nops = 0;
  LyFunc f = lyModuleLookupFunc(m, "f");
  CHECK(lyFuncGetName(f).length == 1 && lyFuncGetName(f).data[0] == 'f' && lyFuncIsNull(lyFuncGetNext(f)));
  for (LyOp op = lyFuncGetFirstOp(f); !lyOpIsNull(op); op = lyOpGetNext(op), nops++) {
    CHECK(lyOpGetKind(op) != LY_OP_RESHAPE);
    if (lyOpGetKind(op) == LY_OP_VIEW && nviews++ == 0) {
      CHECK(lyTypeEqual(lyValueGetType(lyOpGetResult(op, 0)), want));
      CHECK(lyValueEqual(lyOpGetOperand(op, 0), lyFuncGetArg(f, 0)));
      CHECK(lyOpIsNull(lyValueGetDefiningOp(lyOpGetOperand(op, 0))));
    }
    if (lyOpGetKind(op) == LY_OP_TRANSPOSE) {
      int64_t p[8];
      int n = 0;
      CHECK(lyOpGetIntArrayAttribute(op, "permutation", p, 8, &n) == LY_OK && n == 5 && p[3] == 4 && p[4] == 3);
      CHECK(lyOpGetIntAttribute(op, "permutation", p) == LY_ERROR_INVALID);
    }
  }
  CHECK(nviews >= 1 && nops >= 3);
  /* Attributes and types set from C. */
  LyOp first = lyFuncGetFirstOp(f);
  CHECK(lyOpSetStringAttribute(first, "note", "from C") == LY_OK && lyOpSetIntAttribute(first, "k", -3) == LY_OK);
  LyStringRef sv;
  int64_t k;
  CHECK(lyOpGetStringAttribute(first, "note", &sv) == LY_OK && sv.length == 6 && !memcmp(sv.data, "from C", 6));
  CHECK(lyOpGetIntAttribute(first, "k", &k) == LY_OK && k == -3);
  CHECK(lyOpSetIntAttribute(first, "k", 5) == LY_OK && lyOpGetIntAttribute(first, "k", &k) == LY_OK && k == 5);
  CHECK(lyFuncIsNull(lyFuncCreate(m, "f", 0, NULL, 0, NULL)) && seen.errors == 1);
  free(s1), free(s2), free(s3), free(s4), free(s5);
  lyModuleDestroy(m);
  lyModuleDestroy(parsed);
  lyContextDestroy(c);
}

/* ===== Codegen into the caller's module and JIT ===================================== */

static LLVMOrcLLJITRef make_jit(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMOrcLLJITRef jit = NULL;
  if (LLVMOrcCreateLLJIT(&jit, NULL))
    return NULL;
  LLVMOrcDefinitionGeneratorRef gen;
  if (!LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL))
    LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
  return jit;
}

static void *lookup(LLVMOrcLLJITRef jit, const char *name) {
  LLVMOrcExecutorAddress a = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(jit, &a, name);
  if (e) {
    LLVMConsumeError(e);
    return NULL;
  }
  return (void *)(uintptr_t)a;
}

static void fill(uint8_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    p[i] = test_source_byte(i);
}

typedef int64_t (*OffFn)(const int64_t *idx);
typedef int64_t (*DynOffFn)(const int64_t *idx, const int64_t *dims);
typedef void (*RepackFn)(const void *, void *, int64_t, int64_t);

/* Runs an emitted repack kernel (two shares) and compares with the interpreter. */
static int repack_matches(LyContext c, RepackFn fn, LyType s, LyType d) {
  int64_t sb, db;
  lyTypeGetSizeBytes(s, &sb);
  lyTypeGetSizeBytes(d, &db);
  uint8_t *in = malloc(sb), *out = calloc(1, db), *want = calloc(1, db);
  fill(in, sb);
  fn(in, out, 0, 2);
  fn(in, out, 1, 2);
  int same = lyRepackInterpret(c, s, d, in, want) == LY_OK && !memcmp(out, want, db);
  free(in), free(out), free(want);
  return same;
}

static void check_offsets(LyType t, OffFn fn) {
  int64_t idx[4] = {0};
  int bad = 0;
  for (idx[0] = 0; idx[0] < lyTypeGetDim(t, 0); idx[0]++)
    for (idx[1] = 0; idx[1] < lyTypeGetDim(t, 1); idx[1]++)
      for (idx[2] = 0; idx[2] < lyTypeGetDim(t, 2); idx[2]++)
        for (idx[3] = 0; idx[3] < lyTypeGetDim(t, 3); idx[3]++) {
          int64_t want;
          bad += lyTypeGetOffset(t, idx, &want) != LY_OK || want != fn(idx);
        }
  CHECK(bad == 0);
}

static void test_emit_into_module(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, record, &seen);
  LyType a = parse(c, "tensor<2x20x3x3xf32, \"nChw16c\">"), plain = parse(c, "tensor<2x20x3x3xf32>");
  LyType dyn = parse(c, "tensor<?x6x?xf32>"), strided = parse(c, "tensor<?x6xf32, strided<[1,9], offset: 2>>");
  LyType bf = parse(c, "tensor<2x20x3x3xbf16, \"nChw16c\">");
  LLVMOrcLLJITRef jit = make_jit();
  CHECK(jit != NULL);
  if (!jit)
    return;
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("caller", lc);
  CHECK(lyEmitOffsetFunction(c, m, "off_a", a) == LY_OK);
  CHECK(lyEmitOffsetFunction(c, m, "off_dyn", dyn) == LY_OK);
  CHECK(lyEmitOffsetFunction(c, m, "off_strided", strided) == LY_OK);
  CHECK(lyEmitRepackFunction(c, m, "to_blocked", plain, a) == LY_OK);
  CHECK(lyEmitRepackFunction(c, m, "to_bf16", a, bf) == LY_OK);
  CHECK(seen.errors == 0);
  CHECK(lyEmitRepackFunction(c, m, "to_blocked", a, plain) == LY_ERROR_INVALID && seen.errors == 1);
  CHECK(lyEmitOffsetFunction(c, m, "off_any", parse(c, "tensor<4xf32, any>")) == LY_ERROR_DYNAMIC);
  /* lyEmitOffset reports through the context now. */
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  LLVMValueRef f = LLVMAddFunction(m, "scratch", LLVMFunctionType(LLVMVoidTypeInContext(lc), NULL, 0, 0));
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(lc, f, "entry"));
  seen = (Seen){0};
  CHECK(lyEmitOffset(c, b, dyn, NULL) == NULL && seen.errors == 1);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);

  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc); /* takes m */
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), tsm); /* takes tsm */
  CHECK(!e);
  OffFn off_a = lookup(jit, "off_a");
  DynOffFn off_dyn = lookup(jit, "off_dyn"), off_strided = lookup(jit, "off_strided");
  RepackFn to_blocked = lookup(jit, "to_blocked"), to_bf16 = lookup(jit, "to_bf16");
  int (*needs)(void) = lookup(jit, "to_blocked_needs_memset");
  CHECK(off_a && off_dyn && off_strided && to_blocked && to_bf16 && needs);
  if (off_a && off_dyn && off_strided && to_blocked && to_bf16) {
    check_offsets(a, off_a);
    /* Dynamic dims at run time: tensor<5x6x7xf32> row-major. */
    int64_t dims[] = {5, 6, 7}, idx[] = {3, 4, 6};
    CHECK(off_dyn(idx, dims) == (3 * 6 + 4) * 7 + 6);
    int64_t sdims[] = {9, 6}, sidx[] = {5, 4};
    CHECK(off_strided(sidx, sdims) == 2 + 5 * 1 + 4 * 9);
    CHECK(repack_matches(c, to_blocked, plain, a));
    CHECK(repack_matches(c, to_bf16, a, bf));
  }
  lyContextDestroy(c);
  e = LLVMOrcDisposeLLJIT(jit);
  CHECK(!e);
}

/* ===== Repackers: the caller's JIT, capacity, the host's pool ========================= */

static int pool_calls, pool_shares;

/* A host pool that runs the shares in turn (a real one fans them out). */
static void host_parallel_for(void *user, int n, void (*body)(int, void *), void *arg) {
  (*(int *)user)++;
  pool_calls++;
  for (int i = n - 1; i >= 0; i--, pool_shares++)
    body(i, arg);
}

static int kernel_matches(LyContext c, LyRepackKernel k, LyType s, LyType d) {
  int64_t sb, db;
  lyTypeGetSizeBytes(s, &sb);
  lyTypeGetSizeBytes(d, &db);
  uint8_t *in = malloc(sb), *out = malloc(db), *want = calloc(1, db);
  fill(in, sb);
  memset(out, 0xAB, db);
  int same = !lyRepackKernelIsNull(k) && lyRepackRun(k, in, out) == LY_OK &&
             lyRepackInterpret(c, s, d, in, want) == LY_OK && !memcmp(out, want, db);
  free(in), free(out), free(want);
  return same;
}

static void test_repackers(void) {
  LyContext c = lyContextCreate();
  Seen seen = {0};
  lyContextSetDiagnosticHandler(c, record, &seen);
  const char *dst[] = {"\"nChw16c\"", "\"nChw8c\"", "\"nhwc\"", "\"chwn\""};
  LyType plain = parse(c, "tensor<2x32x5x5xf32>"), ts[4];
  for (int i = 0; i < 4; i++)
    ts[i] = lyTypeWithLayout(c, plain, dst[i]);

  LLVMOrcLLJITRef jit = make_jit();
  LyRepacker r = lyRepackerCreateWithJIT(c, jit);
  CHECK(!lyRepackerIsNull(r));
  LyRepackKernel k = lyRepackKernelGet(r, plain, ts[0], 1);
  CHECK(lyRepackKernelIsCompiled(k) && kernel_matches(c, k, plain, ts[0]));
  lyRepackerDestroy(r); /* the JIT is the caller's: still usable */
  CHECK(LLVMOrcLLJITGetMainJITDylib(jit) != NULL);
  CHECK(!LLVMOrcDisposeLLJIT(jit));

  r = lyRepackerCreate(c);
  lyRepackerSetCacheCapacity(r, 2);
  for (int i = 0; i < 4; i++) {
    LyRepackKernel h = lyRepackKernelAcquire(r, plain, ts[i], 1);
    CHECK(kernel_matches(c, h, plain, ts[i]));
    lyRepackKernelRelease(h);
    CHECK(lyRepackerGetCacheSize(r) <= 2);
  }
  /* Held kernels are not evicted; released ones go beyond the capacity. */
  LyRepackKernel held[4];
  for (int i = 0; i < 4; i++)
    held[i] = lyRepackKernelAcquire(r, plain, ts[i], 1);
  CHECK(lyRepackerGetCacheSize(r) == 4);
  for (int i = 0; i < 4; i++)
    CHECK(kernel_matches(c, held[i], plain, ts[i])); /* evicted ones were rebuilt correctly */
  for (int i = 0; i < 4; i++)
    lyRepackKernelRelease(held[i]);
  CHECK(lyRepackerGetCacheSize(r) == 2);
  /* Pinned kernels (lyRepackKernelGet) stay. */
  LyRepackKernel p0 = lyRepackKernelGet(r, ts[0], plain, 1), p1 = lyRepackKernelGet(r, ts[1], plain, 1);
  LyRepackKernel p2 = lyRepackKernelGet(r, ts[2], plain, 1);
  CHECK(lyRepackerGetCacheSize(r) == 3 && kernel_matches(c, p0, ts[0], plain) && kernel_matches(c, p1, ts[1], plain));
  CHECK(kernel_matches(c, p2, ts[2], plain));
  lyRepackerSetCacheCapacity(r, 0);

  /* The host's pool runs the shares of a multi-threaded kernel. */
  int mine = 0;
  LyThreadPool pool = {host_parallel_for, &mine};
  lyRepackerSetThreadPool(r, &pool);
  LyRepackKernel k4 = lyRepackKernelGet(r, plain, ts[0], 4);
  CHECK(kernel_matches(c, k4, plain, ts[0]) && mine == 1 && pool_shares == 4);
  /* Back to the repacker's own workers: the same answer, the hook unused. */
  lyRepackerSetThreadPool(r, NULL);
  CHECK(kernel_matches(c, k4, plain, ts[0]) && kernel_matches(c, k4, plain, ts[0]) && mine == 1);
  CHECK(seen.errors == 0);
  lyRepackerDestroy(r);
  lyContextDestroy(c);
}

int main(void) {
  test_version_and_status();
  test_view_queries();
  test_ir_build_and_pipeline();
  test_emit_into_module();
  test_repackers();
  return TEST_DONE("embed_api");
}
