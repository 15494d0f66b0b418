/* codegen/jit: host target machine, the O3 pipeline, ORC LLJIT, the kernel
 * cache and running kernels (optionally on several threads). Every
 * LLVMErrorRef and LLVM message is turned into a diagnostic here and
 * disposed. */
#include "codegen/codegen.h"

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*KernelFn)(const void *src, void *dst, int64_t thread, int64_t nthreads);

typedef struct Repacker Repacker;

typedef struct LycKernel {
  struct LycKernel *next; /* cache chain */
  struct LycKernel *lru_prev, *lru_next; /* ready kernels, most recently used first */
  Repacker *owner;
  /* Guarded by the owner's lock. A kernel is building until its compile
   * (done without the lock) finishes; refs counts lyRepackKernelAcquire
   * holders; a pinned kernel (handed out by lyRepackKernelGet) is never
   * evicted, nor is one with holders. */
  bool building, pinned;
  int refs;
  LLVMOrcResourceTrackerRef rt; /* its machine code in the JIT; NULL if none */
  const LyTypeImpl *src, *dst;
  int threads;
  bool compiled; /* false: the interpreter runs it */
  /* The plain kernel, and the one with non-temporal stores for 64-byte
   * aligned destinations (large repacks). When the latter exists the former
   * is compiled on the first misaligned destination (hence atomic). */
  KernelFn fn, fn_nt;
  /* With fn_nt: the non-temporal variants for destinations 16, 32 and 48
   * bytes past a line (lyc_plan_shifted), each compiled on the first such
   * destination, or no_shift where the plain kernel serves it (atomic). */
  KernelFn fn_past[3];
  bool memset_dst;
  int64_t dst_bytes;
  double compile_seconds;
  char *plan; /* lyc_plan_print text */
} LycKernel;

/* Thread safety: `mu` guards the table, the LRU list, the kernels' flags
 * and the pool pointer; compiles run without it (each with its own LLVM
 * context and target machine), so a lookup never waits behind a compile
 * of another kernel. `built` wakes threads waiting for a kernel another
 * thread is compiling. `diag_mu` serialises diagnostics to the context. */
struct Repacker {
  LyCtx *ctx;
  LLVMOrcLLJITRef jit;
  bool own_jit; /* false: the caller's (lyRepackerCreateWithJIT) */
  LycTarget tgt;
  pthread_mutex_t mu, diag_mu;
  pthread_cond_t built;
  LycKernel **buckets;
  size_t nbuckets, count;
  size_t capacity; /* 0: unlimited */
  LycKernel *lru_head, *lru_tail;
  unsigned next_id; /* atomic */
  LyThreadPool host_pool;
  bool has_host_pool;
  LycPool *pool; /* ours, started on the first multi-threaded run */
};

/* ===== Errors =================================================================== */

void lyc_report_error(LyDiagEngine *d, const char *what, LLVMErrorRef err) {
  char *msg = LLVMGetErrorMessage(err); /* consumes err */
  ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s: %s", what, msg ? msg : "unknown LLVM error");
  LLVMDisposeErrorMessage(msg);
}

static void report_message(LyDiagEngine *d, const char *what, char *msg) {
  ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s: %s", what, msg ? msg : "unknown LLVM error");
  LLVMDisposeMessage(msg);
}

/* ===== Host target ================================================================ */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool native_ok;

static LLVMTargetMachineRef new_host_machine(LyDiagEngine *d);
static bool optimize_with(LyDiagEngine *d, LLVMModuleRef m, LLVMTargetMachineRef tm, bool vectorize, bool unroll);

/* Compiles an empty function once, so LLVM's lazily built process-wide
 * state (pass registries, timer groups, option tables) exists before
 * threads compile at once: its publication inside libLLVM is invisible to
 * ThreadSanitizer, which would otherwise flag the first concurrent
 * compiles. Failures are ignored: the real compile reports them. */
static void warm_up(void) {
  LyDiagEngine quiet = {0};
  LLVMTargetMachineRef tm = new_host_machine(&quiet);
  if (!tm)
    return;
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("ly_warm_up", c);
  LLVMValueRef f = LLVMAddFunction(m, "ly_warm_up", LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  LLVMMemoryBufferRef obj = NULL;
  char *msg = NULL;
  if (optimize_with(&quiet, m, tm, true, true) && !LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj))
    LLVMDisposeMemoryBuffer(obj);
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  LLVMDisposeTargetMachine(tm);
}

static void init_native(void) {
  native_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
  if (native_ok)
    warm_up();
}

/* A target machine for the host CPU and its features, at O3. */
LLVMTargetMachineRef lyc_host_machine(LyDiagEngine *d) {
  pthread_once(&init_once, init_native);
  if (!native_ok) {
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "LLVM has no native target for this host");
    return NULL;
  }
  return new_host_machine(d);
}

static LLVMTargetMachineRef new_host_machine(LyDiagEngine *d) {
  char *triple = LLVMGetDefaultTargetTriple(), *err = NULL;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    report_message(d, "cannot find the host target", err);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, lyc_host_cpu(), lyc_host_features(), LLVMCodeGenLevelAggressive,
                                 LLVMRelocPIC, LLVMCodeModelDefault);
    if (!tm)
      ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "cannot create a target machine for the host");
  }
  LLVMDisposeMessage(triple);
  return tm;
}

/* The O3 pipeline. Kernels whose inner loops are already explicit vector
 * code skip the loop and SLP vectorisers and the unroller: they would find
 * nothing to do and cost a third of the compile time. Converting kernels
 * skip the unroller: fully unrolled over a small tensor, tens of
 * instructions of conversion per element make one block that the backend's
 * scheduler takes seconds over (an f8E5M2 -> f16 repack of 3x7x7 took 1.6 s
 * of CPU, 0.08 s without), and on large tensors the vectorised loops ran
 * as fast without it (f32 -> bf16, s8 -> f32, f8E5M2 -> f16 measured). */
static bool optimize_with(LyDiagEngine *d, LLVMModuleRef m, LLVMTargetMachineRef tm, bool vectorize, bool unroll) {
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(m, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  char *layout = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(m, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(dl);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(opts, vectorize);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, vectorize);
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, unroll);
  LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (err) {
    lyc_report_error(d, "LLVM optimisation failed", err);
    return false;
  }
  return true;
}

bool lyc_optimize(LyDiagEngine *d, LLVMModuleRef m) {
  LLVMTargetMachineRef tm = lyc_host_machine(d);
  if (!tm)
    return false;
  bool ok = optimize_with(d, m, tm, true, true);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

/* ===== Shuffle fences ============================================================= */

/* Bits of the widest vector the host keeps in one register whatever its
 * elements (x86: AVX-512BW zmm, AVX ymm; 0 elsewhere, and below AVX). */
static unsigned fence_bits(void) {
  return lyc_host_has_feature("avx512bw") ? 512 : lyc_host_has_feature("avx") ? 256 : 0;
}

static unsigned vector_bits(LLVMTypeRef t) {
  LLVMTypeRef e = LLVMGetElementType(t);
  LLVMTypeKind k = LLVMGetTypeKind(e);
  unsigned w = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(e) : k == LLVMFloatTypeKind ? 32 : k == LLVMDoubleTypeKind ? 64 : 0;
  return w >= 8 ? LLVMGetVectorSize(t) * w : 0;
}

/* The register transposes are chains of shuffles (log2 of the tile's rows
 * deep: 6 for a 64-row byte tile), and the X86 DAG combiner, which looks
 * back through a shuffle's operands up to 8 levels to merge them, spends
 * most of a byte transpose's compile time there without finding anything
 * better than the network: the instruction selection of the i4 4096^2
 * transpose took 142 of its 307 ms in llc. Once the IR optimisers are done,
 * each shuffle that takes a shuffle and feeds one (every stage of a network
 * but its ends) passes its value to its shuffle users through an empty asm
 * that the combiner cannot see through: chains stay as the generator built
 * them. Before optimisation the asm would cost the kernels (the loop
 * unroller counts it as a call: a small OIhw -> OIhw16i16o repack kept its
 * Y loop and ran 3x slower), so it goes in after. Vectors of a whole
 * register only (the asm's operand must fit one). */
static void fence_shuffle_chains(LLVMModuleRef m) {
  unsigned widest = fence_bits();
  if (!widest)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        unsigned bits = LLVMIsAShuffleVectorInst(i) ? vector_bits(LLVMTypeOf(i)) : 0;
        if ((bits != 256 && bits != 512) || bits > widest ||
            !(LLVMIsAShuffleVectorInst(LLVMGetOperand(i, 0)) || LLVMIsAShuffleVectorInst(LLVMGetOperand(i, 1))))
          continue;
        LLVMValueRef fenced = NULL;
        for (;;) { /* one shuffle user at a time: its uses of i move to the fence */
          LLVMValueRef user = NULL;
          for (LLVMUseRef u = LLVMGetFirstUse(i); u && !user; u = LLVMGetNextUse(u))
            if (LLVMIsAShuffleVectorInst(LLVMGetUser(u)))
              user = LLVMGetUser(u);
          if (!user)
            break;
          if (!fenced) {
            LLVMTypeRef t = LLVMTypeOf(i), ft = LLVMFunctionType(t, &t, 1, 0);
            LLVMValueRef fence = LLVMGetInlineAsm(ft, "", 0, "=v,0", 4, 0, 0, LLVMInlineAsmDialectATT, 0);
            LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(i));
            fenced = LLVMBuildCall2(b, ft, fence, &i, 1, "fence");
          }
          for (unsigned op = 0; op < 2; op++)
            if (LLVMGetOperand(user, op) == i)
              LLVMSetOperand(user, op, fenced);
        }
        if (fenced)
          i = fenced;
      }
  LLVMDisposeBuilder(b);
}

/* ===== The repacker ================================================================ */

static Repacker *rp(LyRepacker r) { return (Repacker *)r.ptr; }

/* Diagnostics of a repacker call: collected on a per-call engine (its
 * error count belongs to the call) and handed to the context's handler one
 * at a time, whichever thread reports them. */
static void forward_diag(const LyDiagnostic *diag, void *user) {
  Repacker *r = user;
  /* Only the handler is the context's: the per-call engine counts errors, so
   * nothing here writes to the context (other threads may be using it). */
  pthread_mutex_lock(&r->diag_mu);
  if (r->ctx->diag.handler)
    r->ctx->diag.handler(diag, r->ctx->diag.user);
  pthread_mutex_unlock(&r->diag_mu);
}

static LyDiagEngine call_diag(Repacker *r) { return (LyDiagEngine){.handler = forward_diag, .user = r}; }

static void oom(LyDiagEngine *d) { ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory"); }

static bool create_jit(Repacker *r, LyDiagEngine *d) {
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (err) {
    lyc_report_error(d, "cannot detect the host for the JIT", err);
    return false;
  }
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb); /* takes jtmb */
  if ((err = LLVMOrcCreateLLJIT(&r->jit, builder))) {              /* takes builder */
    lyc_report_error(d, "cannot create the JIT", err);
    r->jit = NULL;
    return false;
  }
  r->own_jit = true;
  /* Kernels call memcpy and memset: let them resolve in this process. */
  LLVMOrcDefinitionGeneratorRef gen;
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(r->jit), NULL, NULL);
  if (err) {
    lyc_report_error(d, "cannot expose process symbols to the JIT", err);
    return false;
  }
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(r->jit), gen); /* takes gen */
  return true;
}

/* A repacker over jit (the caller's), or over a JIT of its own when NULL. */
static LyRepacker repacker_create(LyContext ctx, LLVMOrcLLJITRef jit) {
  Repacker *r = ly_malloc(sizeof *r);
  LyDiagEngine *cd = &lyd_ctx(ctx)->diag;
  if (!r) {
    oom(cd);
    return (LyRepacker){NULL};
  }
  *r = (Repacker){.ctx = lyd_ctx(ctx), .jit = jit, .nbuckets = 64};
  pthread_mutex_init(&r->mu, NULL);
  pthread_mutex_init(&r->diag_mu, NULL);
  pthread_cond_init(&r->built, NULL);
  LyRepacker h = {r};
  if (!(r->buckets = ly_malloc(r->nbuckets * sizeof *r->buckets))) {
    oom(cd);
    lyRepackerDestroy(h);
    return (LyRepacker){NULL};
  }
  memset(r->buckets, 0, r->nbuckets * sizeof *r->buckets);
  lyc_host_target(&r->tgt);
  LLVMTargetMachineRef tm = lyc_host_machine(cd); /* checks the host target once */
  if (!tm || (!jit && !create_jit(r, cd))) {
    if (tm)
      LLVMDisposeTargetMachine(tm);
    lyRepackerDestroy(h);
    return (LyRepacker){NULL};
  }
  LLVMDisposeTargetMachine(tm);
  return h;
}

LyRepacker lyRepackerCreate(LyContext ctx) { return repacker_create(ctx, NULL); }

LyRepacker lyRepackerCreateWithJIT(LyContext ctx, LLVMOrcLLJITRef jit) {
  if (!jit) {
    ly_diag_emit(&lyd_ctx(ctx)->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "lyRepackerCreateWithJIT: null JIT");
    return (LyRepacker){NULL};
  }
  return repacker_create(ctx, jit);
}

/* Frees a kernel and its machine code (no lock needed: nobody holds it). */
static void kernel_free(Repacker *r, LycKernel *k) {
  if (k->rt) {
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(k->rt);
    if (err) {
      LyDiagEngine d = call_diag(r);
      lyc_report_error(&d, "releasing a kernel's code failed", err);
    }
    LLVMOrcReleaseResourceTracker(k->rt);
  }
  ly_free(k->plan);
  ly_free(k);
}

void lyRepackerDestroy(LyRepacker h) {
  Repacker *r = rp(h);
  if (!r)
    return;
  lyc_pool_destroy(r->pool);
  for (size_t i = 0; r->buckets && i < r->nbuckets; i++)
    for (LycKernel *k = r->buckets[i], *n; k; k = n) {
      n = k->next;
      kernel_free(r, k);
    }
  ly_free(r->buckets);
  if (r->jit && r->own_jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(r->jit);
    if (err)
      lyc_report_error(&r->ctx->diag, "disposing the JIT failed", err);
  }
  pthread_cond_destroy(&r->built);
  pthread_mutex_destroy(&r->diag_mu);
  pthread_mutex_destroy(&r->mu);
  ly_free(r);
}

/* ===== Compiling a kernel ============================================================ */

double lyc_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether LLVM's vectorisers have work: loops the plan left scalar. */
static bool needs_vectorizer(const LycPlan *p) {
  if (!p->vlen) /* packed elements: shifts and read-modify-writes of bytes, which the SLP */
    return false; /* vectoriser takes seconds over once unrolled and cannot speed up */
  bool v = p->kind == LYC_PLAN_ELEMENTWISE;
  for (int i = 0; i < p->nnests; i++)
    v = v || p->nests[i].inner == LYC_INNER_SCALAR ||
        (p->nests[i].inner == LYC_INNER_CONTIG && !p->nests[i].packed && p->src->elem != p->dst->elem);
  for (int i = 0; i < p->nzero; i++)
    v = v || (p->zero[i].nloops && p->zero[i].loops[p->zero[i].nloops - 1].ds != 1);
  return v;
}

/* The recipe of a repack kernel for the persistent cache: everything the
 * planner and the emitter read (the two types, the target facts, the
 * variant), so a hit need not emit the IR at all. */
static bool repack_recipe(LyBuf *b, const LycPlan *p, const LycTarget *tgt, bool nt) {
  ly_buf_printf(b,
                "repack %s\nvector_bytes %d\nnt_threshold %lld\nalias_nt_threshold %lld\nwrite_window %lld\n"
                "few_row_runs %d\nalias_run_bytes %d\ngfni_bytes %d\npshufb_bytes %d\ncvtbf16_bytes %d\nresident %d\n"
                "dst_shift %lld\ncut_row_bytes %lld\n",
                nt ? "nt" : "plain", tgt->vector_bytes, (long long)tgt->nt_threshold,
                (long long)tgt->alias_nt_threshold, (long long)tgt->write_window, tgt->few_row_runs,
                tgt->alias_run_bytes, tgt->gfni_bytes, tgt->pshufb_bytes, tgt->cvtbf16_bytes, p->resident,
                (long long)p->dst_shift, (long long)p->cut_row_bytes);
  lyd_serialize(p->src, b);
  lyd_serialize(p->dst, b);
  return !b->oom;
}

/* A kernel's object file: the plan (made for tgt) emitted as `name`,
 * optimised and compiled with a target machine of this call's own. With a
 * cache key (the functions are then named key->name), the persistent cache
 * is asked first and given what was compiled. NULL after a diagnostic. */
static LLVMMemoryBufferRef compile_object(LyDiagEngine *d, const LycPlan *p, const LycTarget *tgt, const char *name,
                                          bool nt, LycCacheKey *key) {
  /* The vectorisers run only where the plan left loops scalar: in the
   * generator's vectors they find nothing and cost compile time. The
   * unroller runs on every kernel that copies elements as they are: without
   * it the tile loops of the register transposes ran up to 2.5 times slower
   * (an AVX-512 Zen 5: small OIhw -> OIhw16i16o 0.48x -> 1.23x of the copy
   * limit, i1 into (32,128),(8,1) 0.63x -> 0.83x). Converting kernels skip
   * it: a fully unrolled f8 conversion took seconds in the backend. */
  bool vectorize = needs_vectorizer(p);
  bool unroll = p->src->elem == p->dst->elem;
  const char *pipeline = vectorize ? (unroll ? "default<O3>" : "default<O3> -unroll")
                                   : (unroll ? "default<O3> -vectorize" : "default<O3> -vectorize -unroll");
  if (key) {
    LyBuf recipe;
    ly_buf_init(&recipe);
    bool keyed = repack_recipe(&recipe, p, tgt, nt) && lyc_cache_key(key, recipe.data, recipe.len, name, pipeline);
    ly_buf_free(&recipe);
    if (!keyed) {
      oom(d);
      return NULL;
    }
    LLVMMemoryBufferRef obj = lyc_cache_load(key);
    if (obj)
      return obj;
    name = key->name;
  }
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("layoutc.kernel", c);
  lyc_emit_repack(m, p, name, nt);
  LLVMMemoryBufferRef obj = NULL;
  LLVMTargetMachineRef tm = NULL;
  bool ok = lyc_verify(d, m) && (tm = lyc_host_machine(d)) && optimize_with(d, m, tm, vectorize, unroll);
  if (ok)
    fence_shuffle_chains(m);
  char *msg = NULL;
  if (ok) {
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj)) {
      report_message(d, "LLVM code generation failed", msg);
      obj = NULL;
    } else if (key) {
      lyc_cache_store(key, obj);
    }
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  if (tm)
    LLVMDisposeTargetMachine(tm);
  return obj;
}

/* Loads obj under the kernel's resource tracker and finds `name`. *dup is
 * set when the JIT already holds that name (another kernel loaded the same
 * cached object); nothing is loaded then and nothing is reported. The check
 * and the load happen under the lock, so two threads loading one cached
 * object cannot both define it; linking (the last lookup) runs without it. */
static bool load_object(Repacker *r, LyDiagEngine *d, LycKernel *k, LLVMMemoryBufferRef obj, const char *name,
                        KernelFn *out, bool *dup) {
  LLVMOrcExecutorAddress addr = 0;
  pthread_mutex_lock(&r->mu);
  LLVMErrorRef err = LLVMOrcLLJITLookup(r->jit, &addr, name);
  *dup = err == NULL;
  if (*dup) {
    pthread_mutex_unlock(&r->mu);
    LLVMDisposeMemoryBuffer(obj);
    return false;
  }
  LLVMConsumeError(err); /* not loaded: the expected case */
  if (!k->rt) /* shared by the kernel's variants */
    k->rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(r->jit));
  err = LLVMOrcLLJITAddObjectFileWithRT(r->jit, k->rt, obj); /* takes obj */
  pthread_mutex_unlock(&r->mu);
  if (!err)
    err = LLVMOrcLLJITLookup(r->jit, &addr, name);
  if (err) {
    lyc_report_error(d, "loading the kernel into the JIT failed", err);
    return false;
  }
  __atomic_store_n(out, (KernelFn)(uintptr_t)addr, __ATOMIC_RELEASE);
  return true;
}

/* Plan, emit, optimise, make machine code (or find it in the persistent
 * cache), load it under the kernel's resource tracker and find the entry:
 * the plain kernel or the non-temporal one. Runs without the repacker's
 * lock. Cached objects are named by their key, so each loads once per JIT:
 * a repacker on the caller's JIT (names must stay apart from other
 * repackers'), or a second kernel with the same code while the first is
 * loaded (its code must not be freed with the other's), compiles under a
 * name of its own instead. */
static bool compile_variant(Repacker *r, LyDiagEngine *d, LycKernel *k, const LycPlan *p, bool nt, KernelFn *out) {
  const char *fixed = nt ? "ly_repack_nt" : "ly_repack";
  if (r->own_jit && lyc_cache_enabled()) {
    LycCacheKey key = {0};
    LLVMMemoryBufferRef obj = compile_object(d, p, &r->tgt, fixed, nt, &key);
    bool dup = false, ok = obj && load_object(r, d, k, obj, key.name, out, &dup);
    lyc_cache_key_free(&key);
    if (ok || (!dup && d->errors))
      return ok;
  }
  char name[64];
  unsigned id = __atomic_fetch_add(&r->next_id, 1, __ATOMIC_RELAXED);
  /* The repacker's address keeps names apart when several share a JIT. */
  snprintf(name, sizeof name, "%s_%" PRIxPTR "_%u", fixed, (uintptr_t)r, id);
  LLVMMemoryBufferRef obj = compile_object(d, p, &r->tgt, name, nt, NULL);
  bool dup;
  return obj && load_object(r, d, k, obj, name, out, &dup);
}

/* Publishes a variant built without the lock into the empty *slot: two
 * threads may both build it, and the first to finish is kept (the other's
 * code stays unused in the JIT until the kernel is freed). Returns the one
 * kept. */
static KernelFn publish_variant(KernelFn *slot, KernelFn mine) {
  KernelFn first = NULL;
  return __atomic_compare_exchange_n(slot, &first, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ? mine : first;
}

/* The plain kernel of one that so far has only the non-temporal variant,
 * built on the first misaligned destination (publish_variant). NULL after
 * a diagnostic. */
static KernelFn plain_kernel(LycKernel *k) {
  Repacker *r = k->owner;
  LyDiagEngine d = call_diag(r);
  KernelFn mine = NULL;
  LycPlan p;
  if (!lyc_plan(&p, k->src, k->dst, &r->tgt, true)) {
    oom(&d);
    return NULL;
  }
  if (compile_variant(r, &d, k, &p, false, &mine))
    mine = publish_variant(&k->fn, mine);
  lyc_plan_free(&p);
  return mine;
}

/* Marks a destination offset the plain kernel serves (fn_past). */
static void no_shift(const void *src, void *dst, int64_t thread, int64_t nthreads) {
  (void)src, (void)dst, (void)thread, (void)nthreads;
}

/* The non-temporal variant for destinations off bytes past a line (16, 32
 * or 48), built on the first such destination (publish_variant); NULL when
 * the plain kernel serves them (no transpose gains aligned lines) or after
 * a diagnostic. It runs on the destination minus off. */
static KernelFn shifted_kernel(LycKernel *k, unsigned off) {
  KernelFn *slot = &k->fn_past[off / 16 - 1];
  KernelFn fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (fn)
    return fn == no_shift ? NULL : fn;
  Repacker *r = k->owner;
  LyDiagEngine d = call_diag(r);
  LycPlan p;
  bool useful;
  if (!lyc_plan_shifted(&p, k->src, k->dst, &r->tgt, (int)off, &useful)) {
    oom(&d);
    return NULL;
  }
  KernelFn mine = no_shift;
  if (useful && !compile_variant(r, &d, k, &p, true, &mine))
    mine = NULL;
  lyc_plan_free(&p);
  if (mine)
    mine = publish_variant(slot, mine);
  return mine == no_shift ? NULL : mine;
}

/* The plan's text; with non-temporal stores, also what the plain variant
 * does differently (planned here, though it is compiled only on the first
 * misaligned destination). */
static bool describe_plan(LycKernel *k, const LycPlan *p) {
  LyBuf b;
  ly_buf_init(&b);
  LycPlan q;
  bool plain = p && p->nt && lyc_plan(&q, k->src, k->dst, &k->owner->tgt, true);
  if (p && p->nt && !plain)
    b.oom = true;
  else if (p)
    lyc_plan_print(p, plain ? &q : NULL, &b);
  if (plain)
    lyc_plan_free(&q);
  bool useful = false; /* what malloc's large blocks get: 16 bytes past a line */
  if (p && p->nt && !lyc_plan_shifted(&q, k->src, k->dst, &k->owner->tgt, 16, &useful))
    b.oom = true;
  if (useful) {
    lyc_plan_print_shifted(&q, 16, &b);
    lyc_plan_free(&q);
  }
  if (!p)
    ly_buf_puts(&b, "interpreter\n");
  if (k->threads > 1)
    ly_buf_printf(&b, "threads %d\n", k->threads);
  k->plan = b.oom ? NULL : b.data;
  if (b.oom)
    ly_buf_free(&b);
  return k->plan != NULL;
}

/* Fills in a placeholder kernel: plans and compiles it. Runs without the
 * lock. false after a diagnostic. */
static bool build_kernel(Repacker *r, LyDiagEngine *d, LycKernel *k) {
  if (lyc_check_pair(d, k->src, k->dst) != LY_OK)
    return false;
  lyTypeGetSizeBytes(lyd_wrap(k->dst), &k->dst_bytes);
  double t0 = lyc_now_seconds();
  LycPlan p;
  bool ok = lyc_plan(&p, k->src, k->dst, &r->tgt, false);
  if (ok) {
    k->memset_dst = p.memset_dst;
    k->compiled = true;
    ok = describe_plan(k, &p) && compile_variant(r, d, k, &p, p.nt, p.nt ? &k->fn_nt : &k->fn);
    lyc_plan_free(&p);
  }
  if (!ok && d->errors == 0)
    oom(d);
  k->compile_seconds = lyc_now_seconds() - t0;
  return ok;
}

/* ===== The cache ========================================================================= */

/* Types are interned, so their addresses identify them. */
static size_t key_hash(const void *s, const void *t, int threads) {
  uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)(uintptr_t)t * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)threads * 0x165667b19e3779f9ULL;
  return (size_t)(h ^ (h >> 29));
}

static void cache_grow(Repacker *r) {
  size_t nb = r->nbuckets * 2;
  LycKernel **b = ly_malloc(nb * sizeof *b);
  if (!b) /* keep the longer chains */
    return;
  memset(b, 0, nb * sizeof *b);
  for (size_t i = 0; i < r->nbuckets; i++)
    for (LycKernel *e = r->buckets[i], *n; e; e = n) {
      n = e->next;
      size_t j = key_hash(e->src, e->dst, e->threads) & (nb - 1);
      e->next = b[j];
      b[j] = e;
    }
  ly_free(r->buckets);
  r->buckets = b;
  r->nbuckets = nb;
}

static void cache_insert(Repacker *r, LycKernel *k) {
  if (r->count + 1 > r->nbuckets)
    cache_grow(r);
  size_t j = key_hash(k->src, k->dst, k->threads) & (r->nbuckets - 1);
  k->next = r->buckets[j];
  r->buckets[j] = k;
  r->count++;
}

static void cache_remove(Repacker *r, LycKernel *k) {
  LycKernel **p = &r->buckets[key_hash(k->src, k->dst, k->threads) & (r->nbuckets - 1)];
  while (*p != k)
    p = &(*p)->next;
  *p = k->next;
  r->count--;
}

static LycKernel *cache_find(Repacker *r, const LyTypeImpl *s, const LyTypeImpl *t, int threads) {
  LycKernel *k = r->buckets[key_hash(s, t, threads) & (r->nbuckets - 1)];
  while (k && !(k->src == s && k->dst == t && k->threads == threads))
    k = k->next;
  return k;
}

static void lru_unlink(Repacker *r, LycKernel *k) {
  *(k->lru_prev ? &k->lru_prev->lru_next : &r->lru_head) = k->lru_next;
  *(k->lru_next ? &k->lru_next->lru_prev : &r->lru_tail) = k->lru_prev;
  k->lru_prev = k->lru_next = NULL;
}

static void lru_push_front(Repacker *r, LycKernel *k) {
  k->lru_prev = NULL;
  k->lru_next = r->lru_head;
  *(r->lru_head ? &r->lru_head->lru_prev : &r->lru_tail) = k;
  r->lru_head = k;
}

/* Evicts least recently used kernels nobody holds until the cache is within
 * its capacity (mu held). Returns those that can be freed now, chained
 * through `next`, to free after unlocking. */
static LycKernel *evict(Repacker *r) {
  LycKernel *dead = NULL;
  for (LycKernel *k = r->lru_tail, *prev; k && r->capacity && r->count > r->capacity; k = prev) {
    prev = k->lru_prev;
    if (k->pinned || k->refs)
      continue;
    lru_unlink(r, k);
    cache_remove(r, k);
    k->next = dead;
    dead = k;
  }
  return dead;
}

static void free_chain(Repacker *r, LycKernel *k) {
  for (LycKernel *n; k; k = n) {
    n = k->next;
    kernel_free(r, k);
  }
}

/* The cached kernel for the key, built if absent (mu held on entry and
 * exit, released while compiling). Waits only for a kernel of the same
 * key that another thread is compiling. NULL after a diagnostic. */
static LycKernel *lookup(Repacker *r, const LyTypeImpl *s, const LyTypeImpl *t, int threads) {
  LycKernel *k;
  while ((k = cache_find(r, s, t, threads)) && k->building)
    pthread_cond_wait(&r->built, &r->mu);
  if (k) {
    lru_unlink(r, k);
    lru_push_front(r, k);
    return k;
  }
  LyDiagEngine d = call_diag(r);
  if (!(k = ly_malloc(sizeof *k))) {
    pthread_mutex_unlock(&r->mu);
    oom(&d);
    pthread_mutex_lock(&r->mu);
    return NULL;
  }
  *k = (LycKernel){.owner = r, .src = s, .dst = t, .threads = threads, .building = true};
  cache_insert(r, k);
  pthread_mutex_unlock(&r->mu);
  bool ok = build_kernel(r, &d, k);
  pthread_mutex_lock(&r->mu);
  k->building = false;
  pthread_cond_broadcast(&r->built);
  if (ok) {
    lru_push_front(r, k);
    return k;
  }
  cache_remove(r, k); /* a failed pair is not cached: asking again reports again */
  pthread_mutex_unlock(&r->mu);
  kernel_free(r, k);
  pthread_mutex_lock(&r->mu);
  return NULL;
}

static bool check_threads(Repacker *r, int threads) {
  if (threads >= 1 && threads <= 1024)
    return true;
  LyDiagEngine d = call_diag(r);
  ly_diag_emit(&d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "thread count %d is out of range (1 to 1024)", threads);
  return false;
}

/* lyRepackKernelGet pins (never evicted); Acquire holds a reference. */
static LycKernel *get_kernel(LyRepacker h, LyType src, LyType dst, int threads, bool pin) {
  Repacker *r = rp(h);
  if (!check_threads(r, threads))
    return NULL;
  pthread_mutex_lock(&r->mu);
  LycKernel *k = lookup(r, lyd_type(src), lyd_type(dst), threads);
  LycKernel *dead = NULL;
  if (k) {
    k->pinned |= pin;
    k->refs += !pin;
    dead = evict(r);
  }
  pthread_mutex_unlock(&r->mu);
  free_chain(r, dead);
  return k;
}

LyRepackKernel lyRepackKernelGet(LyRepacker h, LyType src, LyType dst, int threads) {
  return (LyRepackKernel){get_kernel(h, src, dst, threads, true)};
}

LyRepackKernel lyRepackKernelAcquire(LyRepacker h, LyType src, LyType dst, int threads) {
  return (LyRepackKernel){get_kernel(h, src, dst, threads, false)};
}

void lyRepackKernelRelease(LyRepackKernel kh) {
  LycKernel *k = (LycKernel *)kh.ptr;
  if (!k)
    return;
  Repacker *r = k->owner;
  pthread_mutex_lock(&r->mu);
  LY_ASSERT(k->refs > 0 || k->pinned);
  k->refs -= k->refs > 0;
  LycKernel *dead = evict(r);
  pthread_mutex_unlock(&r->mu);
  free_chain(r, dead);
}

void lyRepackerSetCacheCapacity(LyRepacker h, size_t capacity) {
  Repacker *r = rp(h);
  pthread_mutex_lock(&r->mu);
  r->capacity = capacity;
  LycKernel *dead = evict(r);
  pthread_mutex_unlock(&r->mu);
  free_chain(r, dead);
}

size_t lyRepackerGetCacheSize(LyRepacker h) {
  Repacker *r = rp(h);
  pthread_mutex_lock(&r->mu);
  size_t n = r->count;
  pthread_mutex_unlock(&r->mu);
  return n;
}

/* ===== Running ============================================================================ */

void lyRepackerSetThreadPool(LyRepacker h, const LyThreadPool *pool) {
  Repacker *r = rp(h);
  pthread_mutex_lock(&r->mu);
  bool has = pool && pool->parallel_for;
  if (has)
    r->host_pool = *pool;
  __atomic_store_n(&r->has_host_pool, has, __ATOMIC_RELEASE); /* read without the lock by small runs */
  pthread_mutex_unlock(&r->mu);
}

typedef struct {
  KernelFn fn;
  const void *src;
  void *dst;
  int64_t nthreads;
} RunArgs;

static void run_share(int i, void *arg) {
  RunArgs *a = arg;
  a->fn(a->src, a->dst, i, a->nthreads);
}

/* Destinations smaller than this run (without a host pool) as one share on
 * the calling thread, without taking the repacker's lock: a 12 KB repack
 * takes well under a microsecond, less than handing a share to a worker
 * and waiting for it (or than the lock and a second share's partial tiles
 * at the split). The plan does not depend on the thread count, so (0, 1)
 * is a valid share. */
#define SMALL_RUN_BYTES (128 << 10)

/* Runs the kernel's `threads` shares on the host's pool if it lent one,
 * else on the repacker's own workers (on the caller's thread if those
 * cannot be had, or the run is small: waking a worker costs more than
 * the copy). */
static void run_shares(Repacker *r, RunArgs *a, bool small) {
  pthread_mutex_lock(&r->mu);
  LyThreadPool host = r->host_pool;
  bool use_host = r->has_host_pool;
  if (!use_host && !r->pool && !small)
    r->pool = lyc_pool_create();
  LycPool *pool = r->pool;
  pthread_mutex_unlock(&r->mu);
  if (use_host)
    host.parallel_for(host.user, (int)a->nthreads, run_share, a);
  else if (pool && !small)
    lyc_pool_run(pool, (int)a->nthreads, run_share, a);
  else
    for (int i = 0; i < a->nthreads; i++)
      run_share(i, a);
}

LyStatus lyRepackRun(LyRepackKernel kh, const void *src, void *dst) {
  const LycKernel *k = kh.ptr;
  if (!k)
    return LY_ERROR_INVALID;
  if (!k->compiled) {
    lyc_interpret(k->src, k->dst, src, dst);
    return LY_OK;
  }
  unsigned off = (unsigned)((uintptr_t)dst & 63);
  void *at = dst; /* where the kernel's offsets start */
  KernelFn fn = NULL;
  if (k->fn_nt && !off)
    fn = k->fn_nt;
  else if (k->fn_nt && !(off % 16) && (fn = shifted_kernel((LycKernel *)k, off)))
    at = (void *)((uintptr_t)dst - off); /* the variant's offsets start off bytes later */
  else if (!(fn = __atomic_load_n(&k->fn, __ATOMIC_ACQUIRE)) && !(fn = plain_kernel((LycKernel *)k)))
    return LY_ERROR_NOMEM;
  if (k->memset_dst)
    memset(dst, 0, (size_t)k->dst_bytes);
  if (k->threads == 1) {
    fn(src, at, 0, 1);
    return LY_OK;
  }
  bool small = k->dst_bytes < SMALL_RUN_BYTES;
  if (small && !__atomic_load_n(&k->owner->has_host_pool, __ATOMIC_ACQUIRE)) {
    fn(src, at, 0, 1);
    return LY_OK;
  }
  RunArgs a = {fn, src, at, k->threads};
  run_shares(k->owner, &a, small);
  return LY_OK;
}

int lyRepackKernelIsCompiled(LyRepackKernel k) { return k.ptr && ((const LycKernel *)k.ptr)->compiled; }

double lyRepackKernelGetCompileSeconds(LyRepackKernel k) {
  return k.ptr ? ((const LycKernel *)k.ptr)->compile_seconds : 0;
}

char *lyRepackKernelDescribe(LyRepackKernel kh) {
  const LycKernel *k = kh.ptr;
  if (!k || !k->plan)
    return NULL;
  size_t n = strlen(k->plan);
  char *s = ly_malloc(n + 1);
  if (s)
    memcpy(s, k->plan, n + 1);
  return s;
}
