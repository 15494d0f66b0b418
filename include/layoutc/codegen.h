/* layoutc code generation: LLVM IR for address computation, JIT-compiled
 * repacking kernels between any two layouts of the same dims, and the
 * reference interpreter they are tested against.
 *
 * Ownership:
 * - A repacker is created by lyRepackerCreate and owned by the caller until
 *   lyRepackerDestroy. It borrows its context (which must outlive it) and
 *   owns the JIT, the compiled code and every kernel it hands out.
 * - A kernel returned by lyRepackKernelGet is owned by its repacker: never
 *   free it; it stays valid until the repacker is destroyed. Kernels are
 *   cached, so asking twice for the same (src, dst, threads) returns the same
 *   kernel cheaply. A repacker may be shared between threads.
 * - Strings returned by lyEmitLLVM* are owned by the caller (lyStringFree).
 * - lyEmitOffset adds instructions to the caller's builder and function; the
 *   caller owns them like any other IR it builds.
 *
 * Nothing here prints or exits: problems are diagnostics on the context
 * (lyContextSetDiagnosticHandler) plus a null handle or an error status.
 *
 * This header does not need LLVM's headers: the two LLVM-C handle typedefs it
 * uses are repeated below exactly as llvm-c/Types.h declares them. */
#ifndef LAYOUTC_CODEGEN_H
#define LAYOUTC_CODEGEN_H

#include "layoutc/layoutc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct LLVMOpaqueBuilder *LLVMBuilderRef;
typedef struct LLVMOpaqueValue *LLVMValueRef;
typedef struct LLVMOpaqueModule *LLVMModuleRef;
typedef struct LLVMOrcOpaqueLLJIT *LLVMOrcLLJITRef;

typedef struct { void *ptr; } LyRepacker;
typedef struct { const void *ptr; } LyRepackKernel;

static inline int lyRepackerIsNull(LyRepacker r) { return r.ptr == NULL; }
static inline int lyRepackKernelIsNull(LyRepackKernel k) { return k.ptr == NULL; }

/* --- Address computation ---------------------------------------------------- */

/* Emits, at the builder's insertion point, the element offset (an i64 value)
 * of the element whose logical index is idx[0..rank) (i64 values, assumed in
 * range). Power-of-two divisions and remainders become shifts and masks.
 * Returns NULL after a diagnostic on ctx when t has no static geometry
 * (dynamic, 'any' or symbolic): see lyEmitOffsetFunction for dynamic dims. */
LAYOUTC_API LLVMValueRef lyEmitOffset(LyContext ctx, LLVMBuilderRef builder, LyType t, LLVMValueRef *idx);

/* --- Code in the caller's module --------------------------------------------- */
/* Both add functions to m (the caller's module, in its LLVM context) under
 * the caller's name, so one module can hold several; they leave the target,
 * data layout and optimisation to the caller. LY_OK, or an error status
 * after a diagnostic on ctx (a name m already uses, a pair or type they
 * cannot handle). */

/* Defines `void @name(ptr src, ptr dst, i64 thread, i64 nthreads)`, the
 * repack kernel of lyEmitLLVMRepack, and `i1 @name_needs_memset()` (when
 * true, dst must be zeroed before the shares run). Static geometry only: a
 * kernel is planned for its shapes. Element pairs with no conversion
 * (complex <-> real) are refused. */
LAYOUTC_API LyStatus lyEmitRepackFunction(LyContext ctx, LLVMModuleRef m, const char *name, LyType src,
                                          LyType dst);

/* Defines the offset function of t: `i64 @name(ptr idx)` for static
 * geometry, or `i64 @name(ptr idx, ptr dims)` when t has dynamic dims, where
 * dims holds the rank run-time extents (only the '?' entries are read). Dynamic
 * dims work for row-major types and for strided layouts whose strides and
 * offset are static; other layouts are LY_ERROR_DYNAMIC. */
LAYOUTC_API LyStatus lyEmitOffsetFunction(LyContext ctx, LLVMModuleRef m, const char *name, LyType t);

/* Options for the textual IR emitters. */
enum {
  LY_EMIT_WITH_MAIN = 1, /* add a `main` so lli can run the module (tests) */
  LY_EMIT_OPTIMIZE = 2   /* run the O3 pipeline for the host CPU first */
};

/* A module defining
 *   i64  @ly_offset(ptr idx)                       -- idx: rank i64 values
 *   void @ly_offset_batch(ptr idx, ptr out, i64 n) -- n indices, row-major
 * as LLVM IR text. With LY_EMIT_WITH_MAIN, main prints the offset of every
 * element in row-major logical order, one per line (like `offset --all`).
 * NULL after a diagnostic. */
LAYOUTC_API char *lyEmitLLVMOffset(LyContext ctx, LyType t, unsigned flags);

/* A module defining the repack kernel
 *   void @ly_repack(ptr src, ptr dst, i64 thread, i64 nthreads)
 * which copies every element of src (SRC's layout) to dst (DST's layout),
 * converting the element type, for the share of the work of thread `thread`
 * out of `nthreads` (the shares of 0..nthreads-1 together do it all), and
 *   i1 @ly_repack_needs_memset()
 * which says whether dst must be zeroed before the kernel runs (a
 * destination with holes that are not padding blocks). When the tensors are
 * larger than the cache it also defines @ly_repack_nt, the same kernel with
 * non-temporal stores, which needs a 64-byte aligned dst. With
 * LY_EMIT_WITH_MAIN, main fills src with a mix of the byte index (byte k is
 * the top byte of x = k * 0x9E3779B97F4A7C15, x ^= x >> 29,
 * x *= 0xBF58476D1CE4E5B9, mod 2^64), runs the kernel as three thread shares in turn and prints dst's bytes in
 * hex, 16 to a line, as `od -An -tx1 -v -w16` does. NULL after a diagnostic
 * (a pair that cannot be repacked, or memory exhausted). */
LAYOUTC_API char *lyEmitLLVMRepack(LyContext ctx, LyType src, LyType dst, unsigned flags);

/* --- Repacking ------------------------------------------------------------- */

/* Creates a repacker (JIT and kernel cache) for types of ctx. Returns a null
 * handle after a diagnostic if the host JIT cannot be set up. */
LAYOUTC_API LyRepacker lyRepackerCreate(LyContext ctx);
/* The same over the caller's LLJIT, which it borrows (it must outlive the
 * repacker): kernels are added to its main JITDylib, each under a resource
 * tracker of its own and a name unique to this repacker. The JIT must
 * resolve memcpy and memset (a process symbol generator, as usual). */
LAYOUTC_API LyRepacker lyRepackerCreateWithJIT(LyContext ctx, LLVMOrcLLJITRef jit);
/* Frees the repacker, its kernels and their code (and its JIT, if its own). */
LAYOUTC_API void lyRepackerDestroy(LyRepacker r);

/* Bounds the cache to `capacity` kernels (0, the default: unlimited), as
 * oneDNN's set_primitive_cache_capacity. Beyond it, the least recently used
 * kernels that nobody holds are evicted and their machine code released.
 * Kernels from lyRepackKernelGet are pinned (they live as long as the
 * repacker), so only kernels from lyRepackKernelAcquire are ever evicted. */
LAYOUTC_API void lyRepackerSetCacheCapacity(LyRepacker r, size_t capacity);
/* Kernels in the cache now (those being compiled included). */
LAYOUTC_API size_t lyRepackerGetCacheSize(LyRepacker r);

/* The host's thread pool, as oneDNN's threadpool_iface: parallel_for must
 * call body(i, arg) once for every i in [0, n), on any threads, and return
 * when all calls have returned. It may be called from several threads at
 * once. Without one, a repacker runs multi-threaded kernels on worker
 * threads of its own, started on the first such run and kept until
 * lyRepackerDestroy. */
typedef struct {
  void (*parallel_for)(void *user, int n, void (*body)(int i, void *arg), void *arg);
  void *user;
} LyThreadPool;
/* Lends a pool (copied; NULL goes back to the repacker's own workers). Set
 * it before kernels run, not while they do. */
LAYOUTC_API void lyRepackerSetThreadPool(LyRepacker r, const LyThreadPool *pool);

/* The kernel copying every element of a SRC-layout buffer into a DST-layout
 * buffer (same dims; element types may differ), writing zero into DST's
 * padding, split over `threads` threads (1 = run on the caller's thread).
 * Element conversion: floats round to nearest even (f32 to bf16 as oneDNN
 * does it: subnormal inputs become signed zero, NaNs stay quiet NaNs; bf16
 * to f32 is exact, NaN payloads untouched);
 * integers extend by the source's signedness (uiN and i1 zero-extend, the
 * others sign-extend) and wrap; float to integer rounds to nearest even and
 * saturates (NaN gives 0; unsigned types at 0 and 2^N-1); the FNUZ, f6/f4,
 * E8M0 and tf32 rules and complex numbers (by halves; complex <-> real is
 * refused) are in docs/codegen.md.
 * Compiles on the first request, then comes from the cache. Compiled objects
 * are also kept on disk, so another process finds them instead of compiling:
 * in $LAYOUTC_CACHE_DIR (empty or "off": not kept), else
 * $XDG_CACHE_HOME/layoutc/kernels, else ~/.cache/layoutc/kernels (see
 * docs/codegen.md for the key and the guarantees). Null after a
 * diagnostic (dims differ, a layout without static geometry, a destination
 * that stores two elements in one place). */
LAYOUTC_API LyRepackKernel lyRepackKernelGet(LyRepacker r, LyType src, LyType dst, int threads);
/* The same kernel, held rather than pinned: it stays valid until
 * lyRepackKernelRelease, after which a capacity-bounded cache may evict it.
 * Acquire and release in pairs. */
LAYOUTC_API LyRepackKernel lyRepackKernelAcquire(LyRepacker r, LyType src, LyType dst, int threads);
LAYOUTC_API void lyRepackKernelRelease(LyRepackKernel k);

/* Runs a kernel. src must hold SRC's allocation (lyTypeGetSizeBytes), dst
 * DST's. The buffers must not overlap. Large repacks run fastest with a
 * 64-byte aligned dst (their stores can then bypass the cache). The first
 * run of such a kernel on a misaligned dst (malloc's large buffers are 16
 * bytes off) compiles a variant for it, which streams whole lines where it
 * can (transposes, blocked and channels-last reorders, contiguous
 * conversions: docs/codegen.md), and fails with LY_ERROR_NOMEM and a
 * diagnostic only if that compile fails. A dst 16, 32 or 48 bytes past a
 * line gets a variant of its own when the kernel transposes into rows a
 * whole number of lines apart and at least 2 KB long: those rows are cut
 * where their lines begin, and the rest runs as on an aligned dst. */
LAYOUTC_API LyStatus lyRepackRun(LyRepackKernel k, const void *src, void *dst);

/* 1 when the kernel is JIT-compiled machine code. Every pair the type system
 * allows is compiled (conversions, f8, sub-byte elements, general digits);
 * the interpreter (lyRepackInterpret) is the reference they are tested
 * against. */
LAYOUTC_API int lyRepackKernelIsCompiled(LyRepackKernel k);

/* Wall time spent compiling the kernel (IR, O3, machine code), in seconds. */
LAYOUTC_API double lyRepackKernelGetCompileSeconds(LyRepackKernel k);

/* The kernel's loop plan as text: one line per loop nest, for tests and
 * curiosity; a plan with non-temporal stores then lists the nests that a
 * destination not 64-byte aligned runs differently, and those of the
 * variant for a destination 16 bytes past a line when there is one (see
 * lyRepackRun). Owned by the caller
 * (lyStringFree); NULL if out of memory. */
LAYOUTC_API char *lyRepackKernelDescribe(LyRepackKernel k);

/* The reference: copies element by element through descriptor offsets,
 * with the same conversion rules and zeroed destination padding. Needs no
 * JIT. Errors as for lyRepackKernelGet (diagnostics on ctx). */
LAYOUTC_API LyStatus lyRepackInterpret(LyContext ctx, LyType src, LyType dst, const void *in, void *out);

/* --- Dense <-> sparse (docs/codegen.md, "Sparse conversions") -------------
 * Between a dense row-major buffer of a sparse type's dims and element and
 * the buffers of its sparse encoding (MLIR's #sparse_tensor.encoding, csr,
 * coo), in the type's buffer order (lyTypeGetNumBuffers; MLIR's storage
 * order). The elements stored are those != 0 (NaN is, -0.0 is not). Kernels
 * are JIT-compiled for CSR, CSC, COO, BSR-like and n_out_of_m (2:4) formats
 * and interpreted for the others. A converter is not thread-safe: one per thread. */
typedef struct { void *ptr; } LySparseConverter;
static inline int lySparseConverterIsNull(LySparseConverter c) { return c.ptr == NULL; }
/* Null after a diagnostic on ctx. */
LAYOUTC_API LySparseConverter lySparseConverterCreate(LyContext ctx);
LAYOUTC_API void lySparseConverterDestroy(LySparseConverter c);
/* Dense to sparse. With buffers NULL, the nnz pass alone: sizes[b] is set
 * to buffer b's size in bytes. With buffers, sizes[b] is buffer b's room in
 * bytes (pass back the nnz pass's sizes): the call fails (LY_ERROR_INVALID,
 * a diagnostic, nothing written) unless every buffer has room for what it
 * stores, fills them and sets the sizes again. A compiled fill that directly follows
 * the nnz pass of the same type and dense pointer on this converter takes
 * that pass's sizes as the buffers' room instead of counting again: if the
 * tensor has since gained stored entries the call fails (LY_ERROR_INVALID,
 * nothing written past the room), if it lost some the sizes say so. */
LAYOUTC_API LyStatus lySparseFromDense(LySparseConverter c, LyType sparse, const void *dense, int64_t *sizes,
                                       void *const *buffers);
/* Sparse to dense: buffers of sizes[b] bytes, validated (positions monotone
 * and in range, coordinates in range, ordered and unique where the levels
 * say so; each fault a diagnostic naming the buffer and entry), scattered
 * into the zeroed dense buffer. */
LAYOUTC_API LyStatus lySparseToDense(LySparseConverter c, LyType sparse, const void *const *buffers,
                                     const int64_t *sizes, void *dense);

/* Sparse to sparse, same dims and element (CSR to CSC, COO, BSR...): the
 * source buffers (src_sizes[b] bytes) are validated as lySparseToDense
 * does, their stored points re-expressed in dst's levels and sorted;
 * explicit zeros stay stored, as SciPy's tocsc/tobsr keep them. Between
 * the matrix formats (CSR, CSC, COO, DCSR, DCSC, BSR, BSC, ordered) in
 * O(entries + dims), without a sort, as SciPy's tocsr/tocsc/tocoo/tobsr. With dst_buffers NULL, the nnz pass alone sets dst_sizes (bytes); with them,
 * dst_sizes[b] is buffer b's room in bytes (pass back the nnz pass's): the
 * call counts again, fails (LY_ERROR_INVALID, nothing written) unless every
 * buffer has room, fills them and sets the sizes again. */
LAYOUTC_API LyStatus lySparseConvert(LySparseConverter c, LyType src, const void *const *src_buffers,
                                     const int64_t *src_sizes, LyType dst, int64_t *dst_sizes,
                                     void *const *dst_buffers);

/* --- Grouped <-> padded dense (docs/codegen.md, "Grouped conversions") ----
 * oneDNN's grouped<variable_dim: d, groups: G> (Mixture-of-Experts) holds
 * the row-major tensor of its dims (values) whose rows along dim d form G
 * groups, and G cumulative offsets: offsets[g] is the end of group g (the
 * sizes [1, 3, 5] give [1, 4, 9]), signed, of the type's offsets width. The
 * padded tensor is the row-major dense type of rank + 1 whose dims are G,
 * then the grouped dims with dim d widened to P, at least the largest
 * group (tensor<9x256xf32, grouped<variable_dim: 0, groups: 3>> pads to
 * tensor<3x5x256xf32>); the same element type. Both directions need the
 * offsets (the group sizes live only there) and validate them first: each
 * within [previous, dims[d]], the last equal to dims[d], no group longer
 * than P (a diagnostic names the entry or the group). The copies are whole
 * contiguous runs; nothing is written on an error. With offsets NULL,
 * lyGroupedToPadded only checks the pair (LY_OK or a diagnostic). */
/* Gathers: padded group g holds group g's rows, the rows past it zero. */
LAYOUTC_API LyStatus lyGroupedToPadded(LyContext ctx, LyType grouped, LyType padded, const void *offsets,
                                       const void *values, void *out);
/* Scatters back: the values get each group's rows; padding is not read. */
LAYOUTC_API LyStatus lyGroupedFromPadded(LyContext ctx, LyType grouped, LyType padded, const void *offsets,
                                         const void *in, void *values);

#ifdef __cplusplus
}
#endif
#endif
