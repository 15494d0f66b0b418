/* codegen: repack planning (the common refinement of two layouts as loop
 * nests), LLVM IR for address computation and repack kernels, the ORC JIT
 * with its kernel cache, and the reference interpreter with element
 * conversion. Internal prefix: lyc_. See docs/codegen.md for the design.
 *
 * Sections: elements and conversion (interp.c), plans (plan.c), IR emission
 * (emit.c for addresses, repack.c for kernels, convert.c for element
 * conversion), host facts (host.c), JIT (jit.c). */
#ifndef LAYOUTC_CODEGEN_INTERNAL_H
#define LAYOUTC_CODEGEN_INTERNAL_H

#include "desc/desc.h"
#include "layoutc/codegen.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>
#include <string.h>

/* ceil(log2(v)) for v >= 1: a power of two's exponent, else the next one's. */
static inline int lyc_log2_ceil(int64_t v) { return v <= 1 ? 0 : 64 - __builtin_clzll((uint64_t)(v - 1)); }

/* ===== Elements and conversion (interp.c) ================================== */

/* Converts one element held in the low bits of `bits` from one element type
 * to another (rules in layoutc/codegen.h). The result is in the low bits. */
uint64_t lyc_convert(LyElem from, LyElem to, uint64_t bits);

/* Why a pair of element types cannot be converted, or NULL when it can. */
const char *lyc_unsupported_pair(LyElem from, LyElem to);

/* The largest value of a `bits`-wide unsigned integer (1..64). */
static inline uint64_t lyc_uint_max(int bits) { return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1; }

/* Reads / writes entry i of a buffer of `bits`-wide (a multiple of 8, at
 * most 64) little-endian integers, whatever the host; inline for the
 * runtime's loops over index buffers. */
static inline uint64_t lyc_load_uint(const uint8_t *b, int bits, int64_t i) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  switch (bits) {
  case 8: return b[i];
  case 16: { uint16_t v; memcpy(&v, b + 2 * i, 2); return v; }
  case 32: { uint32_t v; memcpy(&v, b + 4 * i, 4); return v; }
  case 64: { uint64_t v; memcpy(&v, b + 8 * i, 8); return v; }
  }
#endif
  uint64_t v = 0;
  for (int k = 0; k < bits / 8; k++)
    v |= (uint64_t)b[i * (bits / 8) + k] << (8 * k);
  return v;
}

static inline void lyc_store_uint(uint8_t *b, int bits, int64_t i, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  switch (bits) {
  case 8: b[i] = (uint8_t)v; return;
  case 16: { uint16_t x = (uint16_t)v; memcpy(b + 2 * i, &x, 2); return; }
  case 32: { uint32_t x = (uint32_t)v; memcpy(b + 4 * i, &x, 4); return; }
  case 64: memcpy(b + 8 * i, &v, 8); return;
  }
#endif
  for (int k = 0; k < bits / 8; k++)
    b[i * (bits / 8) + k] = (uint8_t)(v >> (8 * k));
}

/* Reads / writes the element at element offset `off` of a packed buffer. */
uint64_t lyc_load_elem(const uint8_t *buf, LyElem e, int64_t off);
void lyc_store_elem(uint8_t *buf, LyElem e, int64_t off, uint64_t bits);

/* Checks that src can be repacked into dst; diagnostics on d. */
LyStatus lyc_check_pair(LyDiagEngine *d, const LyTypeImpl *src, const LyTypeImpl *dst);

/* The reference interpreter on a checked pair. */
void lyc_interpret(const LyTypeImpl *src, const LyTypeImpl *dst, const void *in, void *out);


/* ===== Plans (plan.c) ====================================================== */

#define LYC_MAX_LOOPS 64
#define LYC_MAX_NESTS 256

/* One loop of a nest: extent and the source / destination strides of its
 * index, in elements. */
typedef struct {
  int64_t n, ss, ds;
} LycLoop;

/* How the two innermost levels of a nest move data. */
typedef enum {
  LYC_INNER_SCALAR,  /* plain loops; LLVM vectorises what it can */
  LYC_INNER_CONTIG,  /* innermost loop contiguous on both sides */
  LYC_INNER_ZIP      /* register transpose of an x-by-V tile (see repack.c) */
} LycInner;

typedef struct {
  int64_t src_base, dst_base; /* element offsets of the nest's origin */
  int nloops;
  LycLoop loops[LYC_MAX_LOOPS]; /* outermost first */
  LycInner inner;
  /* LYC_INNER_ZIP: loops[nloops-1] is X (dst stride 1); the Y group is the
   * ny loops before it (innermost first in src order: contiguous in src).
   * The outer loops come before them. */
  int ny;
  /* LYC_INNER_ZIP: every vector store is aligned to its size whenever the
   * destination buffer is 64-byte aligned (so it may be non-temporal). */
  bool aligned;
  /* LYC_INNER_ZIP: X rows per sweep over the Y blocks (0: all of X), so a
   * sweep touches few enough source pages for the TLB. */
  int64_t xsuper;
  /* LYC_INNER_ZIP: V-wide Y blocks handled per X chunk, so each source row
   * is read in runs of ym vectors (sequential lines the prefetcher follows). */
  int ym;
  /* Sub-byte elements on either side, LYC_INNER_ZIP or LYC_INNER_CONTIG:
   * tiles (or chunks of a run) load and store whole bytes, unpacked to a
   * lane per element in registers, so threads may share. */
  bool packed;
  /* packed, and the two element types equal: the tiles move the bits as
   * they are, a destination byte per lane (repack.c's nibble_tile). */
  bool bit_copy;
  /* bit_copy: each whole run of ym Y blocks is one tile of k = 8/bits rows
   * whose rows load a run at a time (plan.c's bit_row_run, repack.c's
   * wide_bit_tile). */
  bool wide_bits;
  /* LYC_INNER_ZIP: V-row chunks of X per tile group, stored together so
   * each Y position gets a whole 64-byte line at once (X.n % (xg*V) == 0). */
  int xg;
  /* LYC_INNER_ZIP: destination padding elements after the X rows of each Y
   * position, written as zero by the tile itself (X.n + xpad <= V). */
  int xpad;
  /* LYC_INNER_ZIP: bytes ahead along each source row to prefetch; LYC_INNER_CONTIG
   * (aligned, not packed): bytes ahead along the run (0: none). */
  int prefetch;
  /* LYC_INNER_ZIP into Y positions apart (not contiguous across Y): the
   * tiles transpose by byte columns (repack.c's nibble_lanes): i4 bits
   * copied with 64-wide tiles (the full ones, and from NIBBLE_PARTIAL_MIN
   * rows and columns the partial ones too), or i8 to i8 with 32-wide tiles
   * on a host with 64-byte vectors (full ones, in groups of two or four
   * chunks). The one place that decides it is plan.c's shape_nest. */
  bool columns;
  /* columns, in groups of four chunks: each full run of ym Y blocks of a
   * tile group's rows is copied into a stack buffer first (repack.c's
   * stage_rows). */
  bool stage_rows;
  /* LYC_INNER_CONTIG: the loops go in source order (read one stream, write
   * a few or within a window) rather than destination order. */
  bool src_order;
  /* LYC_INNER_ZIP, not aligned, past the cache: the tiles of a Y run write
   * each X piece into a stack panel, and the whole destination lines it
   * completes are streamed from it, read back at the destination's
   * alignment (repack.c's x_piece and panel_flush_fn; plan.c's zip_panel,
   * lyc_plan_misaligned). LYC_INNER_CONTIG, in the plain variant only:
   * pieces of ym runs of each row (loops[nloops-2]) along the loop before
   * the rows go through the panel the same way (plan.c's contig_panel,
   * repack.c's contig_pieces). */
  bool panel;
  /* panel, LYC_INNER_ZIP, in the plain variant only: the X rows and the Y
   * group fill one destination range (the block: OIhw16i16o's 16x16x3x3),
   * transposed whole into the panel, then streamed as one range (plan.c's
   * zip_block, repack.c's block_zip). */
  bool block;
  /* LYC_INNER_ZIP in a variant for destinations past a line (plan.c's
   * rotate_rows): the X rows begin rot elements into each row, so every
   * tile group stores whole lines, and the last rot rows of the tile that
   * ends a row are the first of the next row, read rot_ss elements further
   * on (0: none). */
  int rot;
  int64_t rot_ss;
} LycNest;

typedef enum {
  LYC_PLAN_NESTS,      /* refined loop nests (every dim splits cleanly) */
  LYC_PLAN_ELEMENTWISE /* per-element address computation (general digits) */
} LycPlanKind;

typedef struct {
  LycPlanKind kind;
  const LyTypeImpl *src, *dst;
  int sbits, dbits;    /* element widths */
  int sbytes, dbytes;  /* storage bytes per element (1 for sub-byte elements) */
  int vlen;            /* elements per vector for LYC_INNER_ZIP */
  int nnests;
  LycNest *nests;      /* element copies */
  int nzero;
  LycNest *zero;       /* destination padding to zero (src strides unused) */
  bool memset_dst;     /* destination has holes: zero all of it first */
  bool nt;             /* large destination: also emit a non-temporal variant */
  bool resident;       /* both sides fit under the non-temporal threshold: stores stay cached */
  bool few_row_runs;   /* the target's: past the cache, sweeps of few rows take runs of Y blocks */
  int alias_run_bytes; /* the target's: bytes of a source row a Y run covers when rows alias (y_multiple) */
  bool gfni;           /* i1 bit tiles transpose with GF2P8AFFINEQB (repack.c's transpose_words) */
  bool zmm;            /* the target has 64-byte vectors (i8 transposes by columns) */
  bool ternlog;        /* nibble_pairs' bit select as VPTERNLOG (the host has AVX-512F) */
  int lookup_bytes;    /* vector conversions look their codes up in tables this wide (lyc_emit_convert_lookup); 0: no */
  int cvtph_bytes;     /* f32 -> f16 by VCVTPS2PH this wide (LycIR.cvtph_bytes); 0: fptrunc */
  int cvtbf16_bytes;   /* f32 -> bf16 by VCVTNEPS2BF16 this wide (LycIR.cvtbf16_bytes); 0: integer rounding */
  /* lyc_plan_shifted: elements added to every destination offset; the kernel
   * is called with the destination that many elements before the caller's,
   * on a line (0 otherwise). */
  int64_t dst_shift;
  int64_t cut_row_bytes; /* the target's: see cut_at_line */
} LycPlan;

/* Target facts the planner needs. */
typedef struct {
  int vector_bytes;     /* widest vector register: 16, 32 or 64 */
  int64_t nt_threshold; /* source + destination bytes from which stores bypass the cache */
  int64_t alias_nt_threshold; /* beyond it, transposes into rows a multiple of 4 KB apart do too */
  int64_t rfo_nt_threshold; /* below nt_threshold, from it on: stream too if lyc_host_rfo_costly(); 0: no */
  int64_t write_window; /* bytes a source-order chunk of line copies writes in; 0: no chunks */
  bool few_row_runs;    /* past the cache, sweeps of at most 64 rows read them in runs of Y blocks */
  int alias_run_bytes;  /* bytes of each source row a Y run of tiles of at most 16 rows covers when the rows are
                         * a multiple of 4 KB apart */
  int64_t cut_row_bytes; /* from these destination row bytes on, lyc_plan_shifted cuts X at a line */
  int gfni_bytes;       /* widest vector GF2P8AFFINEQB takes on the host (16, 32, 64); 0: none */
  int pshufb_bytes;     /* widest vector PSHUFB takes on the host (16, 32, 64); 0: none */
  int compress_bits;    /* narrowest lanes AVX-512's compress packs in 128- to 512-bit vectors (8, 32); 0: none */
  bool ternlog;         /* the host has AVX-512's VPTERNLOG (whatever vector_bytes says) */
  int cvtph_bytes;      /* widest f32 vector VCVTPS2PH narrows to f16 (32 with F16C, 64 with AVX-512F); 0: none */
  int cvtbf16_bytes;    /* widest f32 vector VCVTNEPS2BF16 narrows to bf16 (64 with AVX512_BF16 and VL); 0: none */
} LycTarget;

/* Plans a checked pair with byte-sized elements. false on allocation
 * failure. When the plan streams its stores (nt), it is that of the
 * variant for 64-byte aligned destinations, unless plain: then of the
 * plain variant, the one other destinations run (p->nt still says that
 * the other exists). There no transpose stores aligned lines, those that
 * can go through the panel (LycNest.panel) do, its lines streamed whatever
 * the alignment, and copies of whole-line runs keep the order of plain
 * stores (no write window). */
bool lyc_plan(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, bool plain);
/* The non-temporal variant's plan for a destination line_off bytes past a
 * line (a multiple of the element size, byte-sized elements): every offset
 * is moved by line_off (the kernel runs on the caller's destination minus
 * line_off), and a transpose whose destination rows are a whole number of
 * lines apart cuts X where its rows' lines begin, so its tiles store whole
 * aligned lines past the cache as on an aligned destination. *useful says
 * whether any register transpose then stores aligned lines (else the plain
 * variant serves that destination as well, and p holds nothing). false on
 * allocation failure. */
bool lyc_plan_shifted(LycPlan *p, const LyTypeImpl *src, const LyTypeImpl *dst, const LycTarget *tgt, int line_off,
                      bool *useful);
void lyc_plan_free(LycPlan *p);
/* p's nests; then, when plain (the plain variant's plan of the same pair)
 * is given, those of its nests that differ from p's. */
void lyc_plan_print(const LycPlan *p, const LycPlan *plain, LyBuf *out);
/* The nests of a useful lyc_plan_shifted plan, under a line naming line_off. */
void lyc_plan_print_shifted(const LycPlan *p, int line_off, LyBuf *out);
/* Elements per chunk of a contiguous run with sub-byte elements on either
 * side: 64 bytes of the narrower side, at most 1 KB of the wider. */
int lyc_contig_chunk(const LycPlan *p);
/* A panel nest's (LycNest.panel): whether its rows are joined (each Y
 * position's X rows follow the last's, and a sweep takes all of X: a Y run
 * is one destination range, streamed whole after its pieces; a contig
 * nest's: each row's run follows the last row's and the loop before the
 * rows continues them), the bytes between its rows (a block's: the
 * block's), and its size. */
bool lyc_panel_joined(const LycNest *x);
int64_t lyc_panel_stride(const LycNest *x, const LycPlan *p);
int64_t lyc_panel_bytes(const LycNest *x, const LycPlan *p);

/* ===== IR emission (emit.c, repack.c) ====================================== */

/* A builder positioned in a function, with the types codegen uses. */
typedef struct {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef i1, i8, i16, i32, i64, ptr, f16, bf16, f32, f64, vd;
  /* f32 vectors narrow to f16 with x86's VCVTPS2PH in pieces this wide
   * (bytes of f32), straight to i16 lanes; 0: fptrunc to half. On hosts
   * with AVX512-FP16, half vectors are a legal type, LLVM 19 folds the
   * bitcast to i16 into the store, and has no non-temporal store of half
   * vectors: the store stays in the cache (convert.c's float_out). */
  int cvtph_bytes;
  /* f32 vectors narrow to bf16 with AVX512_BF16's VCVTNEPS2BF16 in pieces
   * this wide (bytes of f32; 32 or 64); 0: in integer arithmetic. Both are
   * oneDNN's rule (convert.c's f32_to_bf16). */
  int cvtbf16_bytes;
} LycIR;

/* Sets up ir for module m (the builder is created; dispose with
 * lyc_ir_dispose). */
void lyc_ir_init(LycIR *ir, LLVMModuleRef m);
void lyc_ir_dispose(LycIR *ir);
/* Adds a function and positions the builder in its entry block. */
LLVMValueRef lyc_ir_function(LycIR *ir, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n);
LLVMValueRef lyc_i64(LycIR *ir, int64_t v);
/* A call of the intrinsic `name` overloaded on tys[0..ntys). */
LLVMValueRef lyc_intrinsic(LycIR *ir, const char *name, LLVMTypeRef *tys, int ntys, LLVMValueRef *args, int nargs);
/* parts[0..np) (np a power of two, vectors of one type) as one vector,
 * concatenated pairwise. */
LLVMValueRef lyc_concat(LycIR *ir, const LLVMValueRef *parts, int np);
/* A store of v that bypasses the cache (!nontemporal), ptr aligned to
 * `align`. LLVM 19's x86 back end silently makes it a cached store when v
 * is a half vector or a lone trunc (codegen.md, non-temporal stores):
 * callers store integer lanes, whole groups of narrowed vectors. */
LLVMValueRef lyc_store_nt(LycIR *ir, LLVMValueRef v, LLVMValueRef ptr, unsigned align);
/* A read prefetch into all cache levels `ahead` bytes past ptr (prefetches
 * never fault, even past the end of a buffer). */
void lyc_prefetch(LycIR *ir, LLVMValueRef ptr, int64_t ahead);

/* A counted loop: lyc_loop_begin positions the builder in the body and
 * returns the induction variable (lo <= iv < hi); lyc_loop_end closes it and
 * positions the builder after it. */
typedef struct {
  LLVMBasicBlockRef head, body, exit;
  LLVMValueRef iv;
} LycLoopIR;
LLVMValueRef lyc_loop_begin(LycIR *ir, LycLoopIR *l, LLVMValueRef lo, LLVMValueRef hi, const char *name);
void lyc_loop_end(LycIR *ir, LycLoopIR *l);
/* The same, with llvm.loop.unroll.disable on the latch: for a loop over
 * whole inner loops, where unrolling only multiplies the code to compile. */
void lyc_loop_end_rolled(LycIR *ir, LycLoopIR *l);

/* i64 arithmetic by a constant: shifts and masks for powers of two. */
LLVMValueRef lyc_mul_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name);
LLVMValueRef lyc_div_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name);
LLVMValueRef lyc_rem_const(LycIR *ir, LLVMValueRef v, int64_t k, const char *name);

/* Emits the element offset of idx (i64 values) for a static type. */
LLVMValueRef lyc_emit_offset(LycIR *ir, const LyTypeImpl *t, LLVMValueRef *idx);

/* Adds `void @name(ptr src, ptr dst, i64 thread, i64 nthreads)` to m. With
 * nt, the aligned register-transpose stores are non-temporal: the caller
 * must pass a 64-byte aligned dst. Either variant streams the lines of
 * its panel nests (LycNest.panel), whatever dst's alignment. */
LLVMValueRef lyc_emit_repack(LLVMModuleRef m, const LycPlan *p, const char *name, bool nt);

/* Adds `i32 @main()` running the repack kernel on a pattern (see
 * lyEmitLLVMRepack). */
void lyc_emit_repack_main(LLVMModuleRef m, const LycPlan *p, LLVMValueRef kernel);

/* Converts element bits (storage type iN or <n x iN>, n = 0 for a scalar;
 * sub-byte elements as the low bits of i8) from one element type to another
 * with the interpreter's rules; returns the destination's storage bits. */
LLVMValueRef lyc_emit_convert(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n);
/* A source of at most 4 bits into one of at most 16 (codes in the low bits
 * of n i8 lanes, n a multiple of 16) by table lookups of `width` bytes
 * (PSHUFB: 16, 32 or 64). */
LLVMValueRef lyc_emit_convert_lookup(LycIR *ir, LyElem from, LyElem to, LLVMValueRef v, int n, int width);

/* Verifies m; an invalid module is an internal error, reported on d. */
bool lyc_verify(LyDiagEngine *d, LLVMModuleRef m);

/* The module as text, allocated with ly_malloc; NULL if out of memory. */
char *lyc_module_text(LLVMModuleRef m);

/* ===== Persistent kernel cache (diskcache.c) ================================ */

/* A kernel's cache key: its recipe (everything its deterministic generator
 * reads), the hash of the library's sources, the pipeline, the host CPU and
 * features, the LLVM version. */
typedef struct {
  char *text;
  size_t len;
  uint64_t hash;
  char name[64]; /* the entry symbol: fixed name + hash */
} LycCacheKey;

/* Whether a persistent cache directory is configured (and exists). */
bool lyc_cache_enabled(void);
/* The key of a kernel made from recipe (len bytes), to be emitted with its
 * defined functions starting with k->name (so kernels of different keys
 * never share a symbol). false when out of memory. */
bool lyc_cache_key(LycCacheKey *k, const void *recipe, size_t len, const char *fixed_name, const char *pipeline);
/* The key of kernel module m, its IR (as bitcode) the recipe; m's defined
 * functions starting with fixed_name are renamed to start with k->name. */
bool lyc_cache_key_module(LycCacheKey *k, LLVMModuleRef m, const char *fixed_name, const char *pipeline);
void lyc_cache_key_free(LycCacheKey *k);
/* The stored object for k (the caller owns it), NULL on a miss. */
LLVMMemoryBufferRef lyc_cache_load(const LycCacheKey *k);
/* Stores obj under k (atomically; failures are silent: the cache is only a
 * cache). obj stays the caller's. */
void lyc_cache_store(const LycCacheKey *k, LLVMMemoryBufferRef obj);

/* ===== Host facts (host.c) ================================================= */

/* Host target facts (vector width, caches) for planning. */
void lyc_host_target(LycTarget *t);
/* The host CPU's name and LLVM feature string (computed once per process). */
const char *lyc_host_cpu(void);
const char *lyc_host_features(void);
/* Whether the host's feature string has +name ("avx512bw"). */
bool lyc_host_has_feature(const char *name);
/* Whether plain stores past the L2 pay for a read of each line they fill
 * (measured once per host, kept in the persistent cache, or once per
 * process without it; LAYOUTC_RFO_COSTLY=0|1 answers instead). */
bool lyc_host_rfo_costly(void);
/* Whether a kernel moving `bytes` keeps its stores in the cache: below the
 * target's non-temporal threshold, and below its ownership threshold where
 * the host's plain stores pay for a read (lyc_host_rfo_costly, asked only
 * when the size is in between). */
bool lyc_target_resident(const LycTarget *t, int64_t bytes);
/* memcpy and memset (nt 0), or with stores of nt = lyc_stream_bytes()
 * bytes that bypass the cache, for data past it (!lyc_target_resident);
 * stream.c. lyc_stream_bytes: 32 with AVX2, else 16 on x86-64; 0 elsewhere. */
int lyc_stream_bytes(void);
void lyc_copy(void *dst, const void *src, size_t n, int nt);
void lyc_zero(void *dst, size_t n, int nt);

/* ===== JIT (jit.c) ========================================================= */

/* Seconds on the monotonic clock (compile times, the pool's spin). */
double lyc_now_seconds(void);

/* Optimises m at O3 for the host CPU; reports LLVM errors on d. */
bool lyc_optimize(LyDiagEngine *d, LLVMModuleRef m);

/* Turns an LLVM error into a diagnostic and disposes it. */
void lyc_report_error(LyDiagEngine *d, const char *what, LLVMErrorRef err);

/* A target machine for the host CPU at O3; NULL after a diagnostic. One per
 * thread at a time: LLVM target machines are not shared between threads. */
LLVMTargetMachineRef lyc_host_machine(LyDiagEngine *d);

/* ===== Worker threads (pool.c) ============================================= */

/* Persistent workers for multi-threaded runs; several callers may run jobs
 * at once. lyc_pool_run calls fn(i, arg) for every i in [0, n), on the
 * caller's thread and the workers, and returns when all are done. */
typedef struct LycPool LycPool;
LycPool *lyc_pool_create(void); /* NULL if out of memory */
void lyc_pool_run(LycPool *p, int n, void (*fn)(int i, void *arg), void *arg);
void lyc_pool_destroy(LycPool *p);

/* ===== Sparse storage (sparse.c, sparse_jit.c) ============================== */

/* A sparse format with MLIR's SparseTensor storage semantics (docs/codegen.md,
 * "Sparse conversions"). Level l's coordinate is
 * floor(i_{lvl_dim[l]} / lvl_div[l]) mod lvl_mod[l] (lvl_mod 0: no mod); the
 * levels of one dim must split it exactly (a permutation, or blocks whose
 * size divides the dim). */
typedef enum {
  LYC_LVL_DENSE, LYC_LVL_COMPRESSED, LYC_LVL_LOOSE_COMPRESSED, LYC_LVL_SINGLETON, LYC_LVL_N_OUT_OF_M
} LycLevelKind;

typedef struct {
  int rank; /* dims */
  int64_t dims[LY_MAX_RANK];
  int lvl_rank;
  int lvl_dim[LY_MAX_RANK];
  int64_t lvl_div[LY_MAX_RANK], lvl_mod[LY_MAX_RANK];
  LycLevelKind kind[LY_MAX_RANK];
  bool nonunique[LY_MAX_RANK], nonordered[LY_MAX_RANK], soa[LY_MAX_RANK];
  int n, m;               /* n_out_of_m */
  int pos_bits, crd_bits; /* 8, 16, 32 or 64 (0: index = 64) */
  LyElem value;           /* byte-sized element type of values and of the dense side */
} LycSparse;

/* One storage buffer, in MLIR's order: per level its positions then its
 * coordinates, the values last. A coordinates buffer covers levels
 * [lvl, lvl + nlvls): nlvls > 1 is an array-of-structs COO buffer. */
#define LYC_SPARSE_MAX_BUFS (2 * LY_MAX_RANK + 1)
typedef enum { LYC_BUF_POS, LYC_BUF_CRD, LYC_BUF_VAL } LycBufKind;
typedef struct {
  LycBufKind kind;
  int lvl, nlvls;
  int bits; /* of one entry */
} LycBufInfo;

/* Checks the format (level structure, splits, widths); diagnostics on d. */
LyStatus lyc_sparse_check(LyDiagEngine *d, const LycSparse *f);
/* The bits of a value of e (at most 64 bits, checked) that make it nonzero:
 * every bit but the sign of each float component with a signed zero, so
 * -0.0 is not stored; all of them for integers and for the FNUZ floats
 * (their 0x80 is NaN). The interpreter and the kernels share it. */
uint64_t lyc_sparse_value_mask(LyElem e);
/* The buffers of a checked format; returns their number. */
int lyc_sparse_buffers(const LycSparse *f, LycBufInfo *out);

/* The reference interpreter. Counts are in entries (not bytes), one per
 * buffer. lyc_sparse_from_dense with bufs NULL is the nnz pass: it only sets
 * counts; with bufs (sized by a previous nnz pass) it fills them. Stored
 * entries are the values != 0 (NaN is stored, -0.0 is not). */
LyStatus lyc_sparse_from_dense(LyDiagEngine *d, const LycSparse *f, const void *dense, int64_t *counts,
                               void *const *bufs);
/* The nnz pass alone: lyc_sparse_from_dense without buffers. */
LyStatus lyc_sparse_sizes(LyDiagEngine *d, const LycSparse *f, const void *dense, int64_t *counts);
/* Validates the buffers (counts[b] entries each) and scatters them into the
 * row-major dense buffer (zeroed first). */
LyStatus lyc_sparse_to_dense(LyDiagEngine *d, const LycSparse *f, const int64_t *counts, const void *const *bufs,
                             void *dense);
/* Sparse to sparse through a coordinate list (same dims and value type):
 * sets dcounts when given (dbufs NULL: the nnz pass), fills dbufs when
 * given, both from one decoded and sorted list. */
LyStatus lyc_sparse_convert(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts,
                            const void *const *sbufs, const LycSparse *dst, int64_t *dcounts, void *const *dbufs);

/* Sparse to sparse between the formats of a matrix (sparse_matrix.c): CSR,
 * CSC, COO (AoS, SoA), DCSR, DCSC, BSR and BSC, ordered, of the same dims and
 * value type, in O(entries + dims); lyc_sparse_convert's arguments and
 * results. 1: converted (dbufs NULL: dcounts set only); 0: nothing done, no
 * diagnostic, the interpreter's to do (another pair, dims far beyond the
 * entries, or buffers the interpreter rejects: it says where); -1: out of
 * memory, diagnosed. */
bool lyc_sparse_matrix_supports(const LycSparse *src, const LycSparse *dst);
int lyc_sparse_matrix_convert(LyDiagEngine *d, const LycSparse *src, const int64_t *scounts,
                              const void *const *sbufs, const LycSparse *dst, int64_t *dcounts, void *const *dbufs);

/* JIT-compiled dense <-> sparse kernels (sparse_jit.c) for formats made of
 * dense levels, then one compressed level, then dense levels (CSR, CSC, BSR)
 * or a COO region to the end (compressed(nonunique) + singletons), ordered,
 * or then a last n_out_of_m level (2:4, m up to 64),
 * with no mod on the outer levels. Same semantics and diagnostics as the
 * interpreter, which they fall back on for every other format (and which
 * reports malformed input found by the scatter kernel). Kernels are cached
 * per format in the converter and in the persistent kernel cache. */
typedef struct LycSparseJit LycSparseJit;
LycSparseJit *lyc_sparse_jit_create(LyDiagEngine *d); /* NULL after a diagnostic */
void lyc_sparse_jit_destroy(LycSparseJit *j);
/* Whether the format has compiled kernels (compiling them on first use).
 * Unlike the interpreter, lyc_sparse_jit_from_dense reads counts (the nnz
 * pass's) when filling: the fill bounds its writes by them, fails
 * (LY_ERROR_INVALID, a diagnostic) when the tensor holds more entries, and
 * sets them to what it stored otherwise. */
bool lyc_sparse_jit_supports(LycSparseJit *j, const LycSparse *f);
/* The vector paths of a supported format's kernels (0 otherwise): the nnz
 * pass counts *count elements at a time, the fill packs *fill at a time
 * with the host's compress (0: element by element); *staged: the scatter
 * builds each parent's run in a buffer and streams it out. */
void lyc_sparse_jit_lanes(LycSparseJit *j, const LycSparse *f, int *count, int *fill, bool *staged);
LyStatus lyc_sparse_jit_from_dense(LycSparseJit *j, const LycSparse *f, const void *dense, int64_t *counts,
                                   void *const *bufs);
LyStatus lyc_sparse_jit_to_dense(LycSparseJit *j, const LycSparse *f, const int64_t *counts,
                                 const void *const *bufs, void *dense);

#endif
