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
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef void (*KernelFn)(const void *src, void *dst, int64_t thread, int64_t nthreads);

typedef struct Repacker Repacker;

typedef struct LycKernel {
  struct LycKernel *next; /* cache chain */
  Repacker *owner;
  const LyTypeImpl *src, *dst;
  int threads;
  bool compiled; /* false: the interpreter runs it */
  /* The plain kernel, and the one with non-temporal stores for 64-byte
   * aligned destinations (large repacks). When the latter exists the former
   * is compiled on the first misaligned destination (hence atomic). */
  KernelFn fn, fn_nt;
  bool memset_dst;
  int64_t dst_bytes;
  double compile_seconds;
  char *plan; /* lyc_plan_print text */
} LycKernel;

struct Repacker {
  LyCtx *ctx;
  LLVMOrcLLJITRef jit;
  LLVMTargetMachineRef tm;
  LycTarget tgt;
  pthread_mutex_t mu;
  LycKernel **buckets;
  size_t nbuckets, count;
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

static void init_native(void) {
  native_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
}

void lyc_host_target(LycTarget *t) {
  char *f = LLVMGetHostCPUFeatures();
  t->vector_bytes = strstr(f, "+avx512f") ? 64 : strstr(f, "+avx2") ? 32 : 16;
  LLVMDisposeMessage(f);
  /* A core's share of a last-level cache is rarely more than this; repacks
   * that move more are streaming through memory. */
  t->nt_threshold = 16 << 20;
}

/* A target machine for the host CPU and its features, at O3. */
static LLVMTargetMachineRef host_machine(LyDiagEngine *d) {
  pthread_once(&init_once, init_native);
  if (!native_ok) {
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "LLVM has no native target for this host");
    return NULL;
  }
  char *triple = LLVMGetDefaultTargetTriple(), *err = NULL;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    report_message(d, "cannot find the host target", err);
  } else {
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    if (!tm)
      ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "cannot create a target machine for the host");
  }
  LLVMDisposeMessage(triple);
  return tm;
}

/* The O3 pipeline. Kernels whose inner loops are already explicit vector
 * code skip the loop and SLP vectorisers and the unroller: they would find
 * nothing to do and cost a third of the compile time. */
static bool optimize_with(LyDiagEngine *d, LLVMModuleRef m, LLVMTargetMachineRef tm, bool vectorize) {
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
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, vectorize);
  LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (err) {
    lyc_report_error(d, "LLVM optimisation failed", err);
    return false;
  }
  return true;
}

bool lyc_optimize(LyDiagEngine *d, LLVMModuleRef m) {
  LLVMTargetMachineRef tm = host_machine(d);
  if (!tm)
    return false;
  bool ok = optimize_with(d, m, tm, true);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

/* ===== The repacker ================================================================ */

static Repacker *rp(LyRepacker r) { return (Repacker *)r.ptr; }

static bool create_jit(Repacker *r) {
  LyDiagEngine *d = &r->ctx->diag;
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

LyRepacker lyRepackerCreate(LyContext ctx) {
  Repacker *r = ly_malloc(sizeof *r);
  if (!r) {
    ly_diag_emit(&lyd_ctx(ctx)->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return (LyRepacker){NULL};
  }
  memset(r, 0, sizeof *r);
  r->ctx = lyd_ctx(ctx);
  r->nbuckets = 64;
  r->buckets = ly_malloc(r->nbuckets * sizeof *r->buckets);
  pthread_mutex_init(&r->mu, NULL);
  LyRepacker h = {r};
  if (!r->buckets) {
    ly_diag_emit(&r->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    lyRepackerDestroy(h);
    return (LyRepacker){NULL};
  }
  memset(r->buckets, 0, r->nbuckets * sizeof *r->buckets);
  lyc_host_target(&r->tgt);
  if (!(r->tm = host_machine(&r->ctx->diag)) || !create_jit(r)) {
    lyRepackerDestroy(h);
    return (LyRepacker){NULL};
  }
  return h;
}

void lyRepackerDestroy(LyRepacker h) {
  Repacker *r = rp(h);
  if (!r)
    return;
  for (size_t i = 0; r->buckets && i < r->nbuckets; i++)
    for (LycKernel *k = r->buckets[i], *n; k; k = n) {
      n = k->next;
      ly_free(k->plan);
      ly_free(k);
    }
  ly_free(r->buckets);
  if (r->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(r->jit);
    if (err)
      lyc_report_error(&r->ctx->diag, "disposing the JIT failed", err);
  }
  if (r->tm)
    LLVMDisposeTargetMachine(r->tm);
  pthread_mutex_destroy(&r->mu);
  ly_free(r);
}

/* ===== Compiling a kernel ============================================================ */

static double now_seconds(void) {
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
        (p->nests[i].inner == LYC_INNER_CONTIG && p->src->elem != p->dst->elem);
  for (int i = 0; i < p->nzero; i++)
    v = v || (p->zero[i].nloops && p->zero[i].loops[p->zero[i].nloops - 1].ds != 1);
  return v;
}

/* The object code of kernel module m: from the persistent cache, or
 * optimised and compiled (and then stored). NULL after a diagnostic. */
static LLVMMemoryBufferRef kernel_object(Repacker *r, LLVMModuleRef m, const LycCacheKey *key, bool vectorize) {
  LyDiagEngine *d = &r->ctx->diag;
  LLVMMemoryBufferRef obj = lyc_cache_load(key);
  char *msg = NULL;
  if (obj)
    return obj;
  if (!optimize_with(d, m, r->tm, vectorize))
    return NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(r->tm, m, LLVMObjectFile, &msg, &obj)) {
    report_message(d, "LLVM code generation failed", msg);
    return NULL;
  }
  lyc_cache_store(key, obj);
  return obj;
}

/* Plan, emit, optimise, make machine code, load it, find the entry: the
 * plain kernel or the non-temporal one. Functions are named by their cache
 * key, so a kernel this JIT already holds (the same pair on another thread
 * count) is found instead of compiled again. */
static bool compile_variant(Repacker *r, const LycPlan *p, bool nt, KernelFn *out) {
  LyDiagEngine *d = &r->ctx->diag;
  const char *fixed = nt ? "ly_repack_nt" : "ly_repack";
  bool vectorize = needs_vectorizer(p);
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(fixed, c);
  lyc_emit_repack(m, p, fixed, nt);
  LycCacheKey key = {0};
  bool ok = lyc_verify(d, m) && lyc_cache_key(&key, m, fixed, vectorize ? "default<O3>" : "default<O3> -vectorize");
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef err = NULL;
  if (ok && (err = LLVMOrcLLJITLookup(r->jit, &addr, key.name))) {
    LLVMConsumeError(err); /* not loaded yet */
    LLVMMemoryBufferRef obj = kernel_object(r, m, &key, vectorize);
    ok = obj != NULL;
    err = ok ? LLVMOrcLLJITAddObjectFile(r->jit, LLVMOrcLLJITGetMainJITDylib(r->jit), obj) : NULL; /* takes obj */
    if (!err && ok)
      err = LLVMOrcLLJITLookup(r->jit, &addr, key.name);
    if (err) {
      lyc_report_error(d, "loading the kernel into the JIT failed", err);
      ok = false;
    }
  }
  if (ok)
    __atomic_store_n(out, (KernelFn)(uintptr_t)addr, __ATOMIC_RELEASE);
  lyc_cache_key_free(&key);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return ok;
}

/* The plain kernel of one that so far has only the non-temporal variant,
 * built on the first misaligned destination. NULL after a diagnostic. */
static KernelFn plain_kernel(LycKernel *k) {
  Repacker *r = k->owner;
  pthread_mutex_lock(&r->mu);
  KernelFn fn = k->fn;
  LycPlan p;
  if (!fn && lyc_plan(&p, k->src, k->dst, &r->tgt)) {
    if (compile_variant(r, &p, false, &k->fn))
      fn = k->fn;
    lyc_plan_free(&p);
  } else if (!fn) {
    ly_diag_emit(&r->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
  }
  pthread_mutex_unlock(&r->mu);
  return fn;
}

static bool describe_plan(LycKernel *k, const LycPlan *p) {
  LyBuf b;
  ly_buf_init(&b);
  if (p)
    lyc_plan_print(p, &b);
  else
    ly_buf_puts(&b, "interpreter\n");
  if (k->threads > 1)
    ly_buf_printf(&b, "threads %d\n", k->threads);
  k->plan = b.oom ? NULL : b.data;
  if (b.oom)
    ly_buf_free(&b);
  return k->plan != NULL;
}

static LycKernel *build_kernel(Repacker *r, const LyTypeImpl *s, const LyTypeImpl *t, int threads) {
  LyDiagEngine *d = &r->ctx->diag;
  if (lyc_check_pair(d, s, t) != LY_OK)
    return NULL;
  LycKernel *k = ly_malloc(sizeof *k);
  if (!k) {
    ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    return NULL;
  }
  *k = (LycKernel){.owner = r, .src = s, .dst = t, .threads = threads};
  int errors = d->errors;
  lyTypeGetSizeBytes(lyd_wrap(t), &k->dst_bytes);
  double t0 = now_seconds();
  LycPlan p;
  bool ok = lyc_plan(&p, s, t, &r->tgt);
  if (ok) {
    k->memset_dst = p.memset_dst;
    k->compiled = true;
    ok = describe_plan(k, &p) && compile_variant(r, &p, p.nt, p.nt ? &k->fn_nt : &k->fn);
    lyc_plan_free(&p);
  }
  if (!ok) {
    if (d->errors == errors)
      ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "out of memory");
    ly_free(k->plan);
    ly_free(k);
    return NULL;
  }
  k->compile_seconds = now_seconds() - t0;
  return k;
}

/* ===== The cache ========================================================================= */

/* Types are interned, so their addresses identify them. */
static size_t key_hash(const void *s, const void *t, int threads) {
  uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)(uintptr_t)t * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)threads * 0x165667b19e3779f9ULL;
  return (size_t)(h ^ (h >> 29));
}

static void cache_insert(Repacker *r, LycKernel *k) {
  if (r->count + 1 > r->nbuckets) { /* grow; on failure keep the longer chains */
    size_t nb = r->nbuckets * 2;
    LycKernel **b = ly_malloc(nb * sizeof *b);
    if (b) {
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
  }
  size_t j = key_hash(k->src, k->dst, k->threads) & (r->nbuckets - 1);
  k->next = r->buckets[j];
  r->buckets[j] = k;
  r->count++;
}

LyRepackKernel lyRepackKernelGet(LyRepacker h, LyType src, LyType dst, int threads) {
  Repacker *r = rp(h);
  const LyTypeImpl *s = lyd_type(src), *t = lyd_type(dst);
  if (threads < 1 || threads > 1024) {
    ly_diag_emit(&r->ctx->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0},
                 "thread count %d is out of range (1 to 1024)", threads);
    return (LyRepackKernel){NULL};
  }
  pthread_mutex_lock(&r->mu);
  LycKernel *k = r->buckets[key_hash(s, t, threads) & (r->nbuckets - 1)];
  while (k && !(k->src == s && k->dst == t && k->threads == threads))
    k = k->next;
  if (!k && (k = build_kernel(r, s, t, threads)))
    cache_insert(r, k);
  pthread_mutex_unlock(&r->mu);
  return (LyRepackKernel){k};
}

/* ===== Running ============================================================================ */

typedef struct {
  const LycKernel *k;
  const void *src;
  void *dst;
  int64_t thread;
  bool started;
  KernelFn fn;
} Share;

static void *run_share(void *arg) {
  Share *s = arg;
  s->fn(s->src, s->dst, s->thread, s->k->threads);
  return NULL;
}

LyStatus lyRepackRun(LyRepackKernel kh, const void *src, void *dst) {
  const LycKernel *k = kh.ptr;
  if (!k)
    return LY_ERROR_INVALID;
  if (!k->compiled) {
    lyc_interpret(k->src, k->dst, src, dst);
    return LY_OK;
  }
  KernelFn fn = k->fn_nt && !((uintptr_t)dst & 63) ? k->fn_nt : __atomic_load_n(&k->fn, __ATOMIC_ACQUIRE);
  if (!fn && !(fn = plain_kernel((LycKernel *)k)))
    return LY_ERROR_NOMEM;
  if (k->memset_dst)
    memset(dst, 0, (size_t)k->dst_bytes);
  if (k->threads == 1) {
    fn(src, dst, 0, 1);
    return LY_OK;
  }
  Share *shares = ly_malloc(k->threads * sizeof *shares);
  pthread_t *ids = ly_malloc(k->threads * sizeof *ids);
  for (int t = 1; t < k->threads; t++) {
    if (shares && ids) {
      shares[t] = (Share){k, src, dst, t, false, fn};
      shares[t].started = pthread_create(&ids[t], NULL, run_share, &shares[t]) == 0;
    }
  }
  fn(src, dst, 0, k->threads);
  for (int t = 1; t < k->threads; t++) {
    if (shares && ids && shares[t].started)
      pthread_join(ids[t], NULL);
    else /* no thread to spare: do that share here */
      fn(src, dst, t, k->threads);
  }
  ly_free(shares);
  ly_free(ids);
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
