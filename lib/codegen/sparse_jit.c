/* codegen/sparse_jit: dense <-> sparse kernels compiled to machine code for
 * the formats whose storage is a loop nest: dense levels, one compressed
 * level, then dense block levels (CSR, CSC, BSR) or singletons (COO), or a
 * last n_out_of_m level under dense ones (2:4). Each
 * format gets three functions specialised on its sizes and widths: the nnz
 * count, the fill and the validating scatter. The interpreter (sparse.c)
 * stays the reference: it runs every other format and reports the errors the
 * kernels only detect. Kernels go through the same O3 pipeline, host target
 * machine and persistent kernel cache as the repack kernels. */
#include "codegen/codegen.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/LLJIT.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef int64_t (*CountFn)(const void *dense);
typedef int64_t (*FillFn)(const void *dense, void *const *bufs, const int64_t *counts);
typedef int64_t (*ScatterFn)(void *dense, const void *const *bufs, const int64_t *counts);

/* A format as a loop nest. */
typedef struct {
  int a, L;          /* the compressed level (n_out_of_m: the last), the level rank */
  bool coo;          /* levels after a are singletons (else dense block levels) */
  bool nm;           /* dense levels, then n_out_of_m (2:4): no positions */
  int n, m;          /* n_out_of_m */
  int64_t size[LY_MAX_RANK], ls[LY_MAX_RANK]; /* level sizes, dense strides */
  int64_t parents;   /* entries of the dense levels above a */
  int64_t blk;       /* values per stored unit */
  int vbits, pbits, cbits;
  uint64_t vmask;    /* the value bits that make it nonzero */
  int pos_buf, val_buf, crd_buf[LY_MAX_RANK], crd_stride[LY_MAX_RANK], crd_field[LY_MAX_RANK];
  int count_lanes;   /* the nnz pass counts a parent's run of elements this many at a time; 0: one by one */
  int fill_lanes;    /* the fill packs a CSR row's nonzeros this many at a time (compress); 0: chunks */
  int64_t run_bytes; /* the dense bytes of a parent's elements when they are one run; 0: not */
  bool stage;        /* the scatter builds each run in a buffer on the stack and streams it out */
  bool prefetch;     /* the vector nnz pass and fill prefetch the dense tensor PREFETCH_BYTES ahead */
  int nm_lanes;      /* n_out_of_m over one run of groups: the fill compresses this many elements at a time */
} Shape;

typedef struct {
  int64_t key[6 * LY_MAX_RANK + 8];
  int nkey;
  bool supported;
  int count_lanes, fill_lanes; /* the Shape's */
  bool stage;
  CountFn count;
  FillFn fill;
  ScatterFn scatter;
} Entry;

/* Not thread-safe: one converter per thread. */
struct LycSparseJit {
  LyDiagEngine *d;
  LycTarget tgt;
  LLVMOrcLLJITRef jit;
  Entry *entries;
  int n, cap;
  unsigned next_id;
};

/* ===== The format as a loop nest ============================================= */

static void map_buffers(const LycSparse *f, Shape *s) {
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  for (int b = 0; b < nb; b++) {
    if (info[b].kind == LYC_BUF_POS)
      s->pos_buf = b;
    else if (info[b].kind == LYC_BUF_VAL)
      s->val_buf = b;
    for (int k = 0; info[b].kind == LYC_BUF_CRD && k < info[b].nlvls; k++) {
      s->crd_buf[info[b].lvl + k] = b;
      s->crd_stride[info[b].lvl + k] = info[b].nlvls;
      s->crd_field[info[b].lvl + k] = k;
    }
  }
}

/* Groups of n_out_of_m are unrolled: up to this many elements. */
#define NM_MAX_M 64

/* The loop-nest view of a checked format; false when it has none. */
static bool shape_of(const LycSparse *f, Shape *s) {
  int L = f->lvl_rank, a = 0;
  while (a < L && f->kind[a] == LYC_LVL_DENSE)
    a++;
  bool nm = a == L - 1 && f->kind[a] == LYC_LVL_N_OUT_OF_M && f->m <= NM_MAX_M; /* checked: mod m, 1 <= n <= m */
  if (a == L || (f->kind[a] != LYC_LVL_COMPRESSED && !nm) || f->nonordered[a])
    return false;
  *s = (Shape){.a = a, .L = L, .coo = f->nonunique[a], .nm = nm, .n = f->n, .m = f->m, .parents = 1, .blk = 1,
               .vbits = lyElemGetBits(f->value)};
  for (int l = a + 1; l < L; l++)
    if (f->kind[l] != (s->coo ? LYC_LVL_SINGLETON : LYC_LVL_DENSE) || f->nonordered[l])
      return false;
  if (s->vbits != 8 && s->vbits != 16 && s->vbits != 32 && s->vbits != 64)
    return false;
  int64_t ds[LY_MAX_RANK], st = 1;
  for (int i = f->rank - 1; i >= 0; i--)
    ds[i] = st, st *= f->dims[i];
  for (int l = 0; l < L; l++) {
    s->size[l] = f->lvl_mod[l] ? f->lvl_mod[l] : f->dims[f->lvl_dim[l]] / f->lvl_div[l];
    s->ls[l] = f->lvl_div[l] * ds[f->lvl_dim[l]];
    if (l < a)
      s->parents *= s->size[l];
    if (l > a && !s->coo)
      s->blk *= s->size[l];
  }
  s->pbits = f->pos_bits ? f->pos_bits : 64;
  s->cbits = f->crd_bits ? f->crd_bits : 64;
  s->vmask = lyc_sparse_value_mask(f->value);
  map_buffers(f, s);
  return true;
}

/* The vector paths the host allows for a parent whose units are single
 * elements in one contiguous run (CSR and CSC over a row-major dense
 * tensor, COO whose later levels follow in memory). Counting: a
 * vector's nonzero lanes are a popcount of a compare. Filling a CSR row:
 * AVX-512's compress packs the nonzero lanes' values and coordinates to the
 * front, stored under a mask of their count; no branch on the data, so a
 * row costs about a read of it at any density (4096x4096 f32 on an
 * Emerald Rapids VM: the fill at 1% 10.7 -> 3.4 ms, at 10% 23 -> 3.5 ms).
 * Both vectors (values, coordinates) are 128 to 512 bits. */
/* The elements of levels [from, to) when they are one run of the dense
 * tensor (the last level's stride 1, each level's the product of those
 * after it), else 0. */
static int64_t run_elements(const Shape *s, int from, int to) {
  int64_t n = 1;
  for (int l = to - 1; l >= from; l--) {
    if (s->ls[l] != n)
      return 0;
    n *= s->size[l];
  }
  return n;
}

static void plan_vectors(Shape *s, const LycTarget *t) {
  int end = s->coo ? s->L : s->a + 1;
  int64_t n = s->blk == 1 && !s->nm ? run_elements(s, s->a, end) : 0; /* n_out_of_m has kernels of its own */
  bool run = n > 0;
  s->run_bytes = n * s->vbits / 8;
  /* Past the cache (the planner's rule), the scatter zeroes each run and
   * drops its entries into a buffer in L1, then streams it to the dense
   * tensor a line at a time: each line written once, never read (zeroing
   * the tensor in place, then scattering into lines long evicted, moves it
   * three times). Runs of whole lines up to 16 KB (the stack of the
   * caller's thread may be small). */
  s->stage = run && s->run_bytes % 64 == 0 && s->run_bytes <= (16 << 10) &&
             !lyc_target_resident(t, s->run_bytes * s->parents);
  /* Reading a tensor past the cache, the hardware's prefetch alone leaves
   * the two passes short of the memory's speed: 4096x4096 f32 at 1%, from
   * memory, on an Emerald Rapids VM: nnz pass 5.5 -> 4.5-4.8 ms, fill
   * 10.8 -> 5.5-6.2 ms with reads 4 KB ahead (1-8 KB within noise). */
  s->prefetch = run && !lyc_target_resident(t, s->run_bytes * s->parents);
  s->count_lanes = run ? 8 * t->vector_bytes / s->vbits : 0;
  int wide = s->vbits > s->cbits ? s->vbits : s->cbits, narrow = s->vbits + s->cbits - wide;
  int lanes = 8 * t->vector_bytes / wide;
  bool soa2 = s->coo && s->L - s->a == 2 && s->crd_stride[s->a + 1] == 1; /* a 2-D COO, SoA */
  bool ok = run && (!s->coo || soa2) && end == s->L && s->crd_stride[s->a] == 1 && t->compress_bits &&
            narrow >= t->compress_bits && lanes * narrow >= 128;
  s->fill_lanes = ok ? lanes : 0;
  /* n_out_of_m groups of at most 8 that follow each other in memory: a
   * vector of whole groups keeps exactly n lanes of each (its nonzeros, then
   * its lowest zeros; the first n nonzeros of an overfull one), a mask
   * looked up per group, compressed to n / m of the vector. */
  int64_t all = s->nm ? run_elements(s, 0, s->L) : 0;
  bool groups = all && s->m <= 8 && t->compress_bits && narrow >= t->compress_bits && lanes * narrow >= 128 &&
                lanes % s->m == 0;
  s->nm_lanes = groups ? lanes : 0;
  if (groups)
    s->prefetch = !lyc_target_resident(t, all * s->vbits / 8);
}

/* ===== Emission ================================================================ */

typedef enum { MODE_COUNT, MODE_FILL, MODE_SCATTER } Mode;

typedef struct {
  LycIR ir;
  const Shape *s;
  Mode mode;
  LLVMValueRef dense, k, prev, fail; /* k, prev: i64 slots */
  LLVMBasicBlockRef fail_bb;
  LLVMValueRef buf[LYC_SPARSE_MAX_BUFS];
  LLVMValueRef ncrd, nval;           /* scatter: usable entries */
  LLVMValueRef c[LY_MAX_RANK];       /* the current level coordinates */
  LLVMValueRef any;                  /* i1 slot: the block has a nonzero */
  LLVMValueRef k_now;                /* scatter: the entry being copied */
  LLVMValueRef cap;                  /* fill: units the buffers hold */
  LLVMValueRef stage, aligned;       /* scatter: the staged run (Shape.stage), the tensor 64-byte aligned */
} Emit;

typedef void (*Body)(Emit *e, LLVMValueRef off, LLVMValueRef lin);

static LLVMTypeRef int_type(Emit *e, int bits) { return LLVMIntTypeInContext(e->ir.c, (unsigned)bits); }

static LLVMValueRef load_int(Emit *e, int bits, LLVMValueRef base, LLVMValueRef idx) {
  LLVMTypeRef t = int_type(e, bits);
  LLVMValueRef p = LLVMBuildGEP2(e->ir.b, t, base, &idx, 1, "p");
  return LLVMBuildLoad2(e->ir.b, t, p, "v");
}

static LLVMValueRef load_index(Emit *e, int bits, LLVMValueRef base, LLVMValueRef idx) {
  LLVMValueRef v = load_int(e, bits, base, idx);
  return bits < 64 ? LLVMBuildZExt(e->ir.b, v, e->ir.i64, "z") : v;
}

static void store_int(Emit *e, int bits, LLVMValueRef base, LLVMValueRef idx, LLVMValueRef v) {
  LLVMTypeRef t = int_type(e, bits);
  if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) > (unsigned)bits)
    v = LLVMBuildTrunc(e->ir.b, v, t, "t");
  LLVMBuildStore(e->ir.b, v, LLVMBuildGEP2(e->ir.b, t, base, &idx, 1, "p"));
}

static LLVMValueRef add(Emit *e, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildNUWAdd(e->ir.b, x, y, "a"); }

/* Loops over levels [from, to) in order; body gets the dense offset and
 * the linear index within those levels (on top of lin's). */
static void nest(Emit *e, int from, int to, LLVMValueRef off, LLVMValueRef lin, Body body) {
  if (from == to) {
    body(e, off, lin);
    return;
  }
  LycLoopIR lp;
  LLVMValueRef iv = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, e->s->size[from]), "lvl");
  e->c[from] = iv;
  LLVMValueRef off2 = add(e, off, lyc_mul_const(&e->ir, iv, e->s->ls[from], "o"));
  LLVMValueRef lin2 = add(e, lyc_mul_const(&e->ir, lin, e->s->size[from], "l"), iv);
  nest(e, from + 1, to, off2, lin2, body);
  lyc_loop_end(&e->ir, &lp);
}

static LLVMValueRef nonzero(Emit *e, LLVMValueRef v) {
  LLVMValueRef m = LLVMBuildAnd(e->ir.b, v, LLVMConstInt(LLVMTypeOf(v), e->s->vmask, 0), "m");
  return LLVMBuildICmp(e->ir.b, LLVMIntNE, m, LLVMConstNull(LLVMTypeOf(v)), "nz");
}

static LLVMValueRef get_k(Emit *e) { return LLVMBuildLoad2(e->ir.b, e->ir.i64, e->k, "k"); }

/* --- dense -> sparse ---------------------------------------------------------- */

static void block_or(Emit *e, LLVMValueRef off, LLVMValueRef lin) {
  (void)lin;
  LLVMValueRef v = load_int(e, e->s->vbits, e->dense, off);
  LLVMValueRef acc = LLVMBuildLoad2(e->ir.b, e->ir.i1, e->any, "any");
  LLVMBuildStore(e->ir.b, LLVMBuildOr(e->ir.b, acc, nonzero(e, v), "or"), e->any);
}

static void block_copy_out(Emit *e, LLVMValueRef off, LLVMValueRef lin) {
  LLVMValueRef at = add(e, lyc_mul_const(&e->ir, get_k(e), e->s->blk, "kb"), lin);
  LLVMValueRef v = load_int(e, e->s->vbits, e->dense, off);
  /* A zero of the block is stored as +0 (a -0.0 is no stored value), as the interpreter does. */
  v = LLVMBuildSelect(e->ir.b, nonzero(e, v), v, LLVMConstNull(LLVMTypeOf(v)), "v");
  store_int(e, e->s->vbits, e->buf[e->s->val_buf], at, v);
}

static void bump_k(Emit *e) { LLVMBuildStore(e->ir.b, add(e, get_k(e), lyc_i64(&e->ir, 1)), e->k); }

static void store_coords(Emit *e, LLVMValueRef k) {
  const Shape *s = e->s;
  for (int l = s->a; l < (s->coo ? s->L : s->a + 1); l++) {
    LLVMValueRef at = add(e, lyc_mul_const(&e->ir, k, s->crd_stride[l], "ks"), lyc_i64(&e->ir, s->crd_field[l]));
    store_int(e, s->cbits, e->buf[s->crd_buf[l]], at, e->c[l]);
  }
}

/* A one-element unit (CSR, CSC, COO) without a data-dependent branch: the
 * coordinates and value are written at k whether or not the element is
 * stored, and k advances by nz. At 10% density the branch mispredicts
 * often enough to halve the fill's speed. The writes stop at the buffers'
 * end (k < cap: taken until the last stored element, so predictable). */
static void store_point_branchless(Emit *e, LLVMValueRef nz, LLVMValueRef v) {
  LLVMValueRef k = get_k(e);
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "store");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "cont");
  LLVMBuildCondBr(e->ir.b, LLVMBuildICmp(e->ir.b, LLVMIntULT, k, e->cap, "room"), then, cont);
  LLVMPositionBuilderAtEnd(e->ir.b, then);
  store_coords(e, k);
  store_int(e, e->s->vbits, e->buf[e->s->val_buf], k, v);
  LLVMBuildBr(e->ir.b, cont);
  LLVMPositionBuilderAtEnd(e->ir.b, cont);
  LLVMBuildStore(e->ir.b, add(e, k, LLVMBuildZExt(e->ir.b, nz, e->ir.i64, "inc")), e->k);
}

/* Stores the unit at dense offset off when nz: coordinates, values, k++.
 * v is the value of a one-element unit, NULL for a block. */
static void store_unit(Emit *e, LLVMValueRef nz, LLVMValueRef off, LLVMValueRef v) {
  if (e->mode == MODE_FILL && v)
    return store_point_branchless(e, nz, v);
  if (v) /* counting one-element units: a sum LLVM vectorises */
    return (void)LLVMBuildStore(e->ir.b, add(e, get_k(e), LLVMBuildZExt(e->ir.b, nz, e->ir.i64, "inc")), e->k);
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "store");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "cont");
  LLVMBuildCondBr(e->ir.b, nz, then, cont);
  LLVMPositionBuilderAtEnd(e->ir.b, then);
  if (e->mode == MODE_FILL) { /* within the buffers' room, as store_point_branchless */
    LLVMBasicBlockRef write = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "write");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "written");
    LLVMBuildCondBr(e->ir.b, LLVMBuildICmp(e->ir.b, LLVMIntULT, get_k(e), e->cap, "room"), write, done);
    LLVMPositionBuilderAtEnd(e->ir.b, write);
    store_coords(e, get_k(e));
    nest(e, e->s->a + 1, e->s->L, off, lyc_i64(&e->ir, 0), block_copy_out);
    LLVMBuildBr(e->ir.b, done);
    LLVMPositionBuilderAtEnd(e->ir.b, done);
  }
  bump_k(e);
  LLVMBuildBr(e->ir.b, cont);
  LLVMPositionBuilderAtEnd(e->ir.b, cont);
}

static void coo_point(Emit *e, LLVMValueRef off, LLVMValueRef lin) {
  (void)lin;
  LLVMValueRef v = load_int(e, e->s->vbits, e->dense, off);
  store_unit(e, nonzero(e, v), off, v);
}

static void block_unit(Emit *e, LLVMValueRef off, LLVMValueRef lin) {
  (void)lin;
  const Shape *s = e->s;
  if (s->blk == 1 && s->a + 1 == s->L) {
    LLVMValueRef v = load_int(e, s->vbits, e->dense, off);
    store_unit(e, nonzero(e, v), off, v);
    return;
  }
  LLVMBuildStore(e->ir.b, LLVMConstInt(e->ir.i1, 0, 0), e->any);
  nest(e, s->a + 1, s->L, off, lyc_i64(&e->ir, 0), block_or);
  store_unit(e, LLVMBuildLoad2(e->ir.b, e->ir.i1, e->any, "any"), off, NULL);
}

/* Elements [lo, hi) of the compressed level under one parent (CSR, CSC). */
static void fill_points(Emit *e, LLVMValueRef off, LLVMValueRef lo, LLVMValueRef hi) {
  const Shape *s = e->s;
  int l = s->coo ? s->L - 1 : s->a; /* COO: the last level's, the others set by the caller */
  LycLoopIR lp;
  LLVMValueRef c = lyc_loop_begin(&e->ir, &lp, lo, hi, "elem");
  e->c[l] = c;
  LLVMValueRef v = load_int(e, s->vbits, e->dense, add(e, off, lyc_mul_const(&e->ir, c, s->ls[l], "o")));
  store_point_branchless(e, nonzero(e, v), v);
  lyc_loop_end(&e->ir, &lp);
}

#define PREFETCH_BYTES 4096

/* A read prefetch of the dense tensor PREFETCH_BYTES past element off. */
static void prefetch_ahead(Emit *e, LLVMValueRef off) {
  lyc_prefetch(&e->ir, LLVMBuildGEP2(e->ir.b, int_type(e, e->s->vbits), e->dense, &off, 1, "at"), PREFETCH_BYTES);
}

#define CHUNK 16

/* The fill of one CSR/CSC parent in chunks of CHUNK elements: a chunk with
 * no nonzero (one OR of its elements, which LLVM vectorises) is skipped, the
 * others take the branchless per-element path. Sparse rows then cost about
 * a read of the row; dense ones do not mispredict. */
static void fill_chunked(Emit *e, LLVMValueRef off) {
  const Shape *s = e->s;
  int64_t n = s->size[s->a], nch = n / CHUNK;
  LycLoopIR lp;
  LLVMValueRef ch = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, nch), "chunk");
  LLVMValueRef lo = lyc_mul_const(&e->ir, ch, CHUNK, "lo"), any = LLVMConstInt(e->ir.i1, 0, 0);
  if (s->prefetch) /* a run: CSR */
    prefetch_ahead(e, add(e, off, lo));
  for (int j = 0; j < CHUNK; j++) {
    LLVMValueRef at = add(e, off, lyc_mul_const(&e->ir, add(e, lo, lyc_i64(&e->ir, j)), s->ls[s->a], "o"));
    any = LLVMBuildOr(e->ir.b, any, nonzero(e, load_int(e, s->vbits, e->dense, at)), "any");
  }
  LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "some");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "next");
  LLVMBuildCondBr(e->ir.b, any, some, next);
  LLVMPositionBuilderAtEnd(e->ir.b, some);
  fill_points(e, off, lo, add(e, lo, lyc_i64(&e->ir, CHUNK)));
  LLVMBuildBr(e->ir.b, next);
  LLVMPositionBuilderAtEnd(e->ir.b, next);
  lyc_loop_end(&e->ir, &lp);
  if (n % CHUNK)
    fill_points(e, off, lyc_i64(&e->ir, nch * CHUNK), lyc_i64(&e->ir, n));
}

static LLVMTypeRef vec(Emit *e, int bits, int lanes) { return LLVMVectorType(int_type(e, bits), (unsigned)lanes); }

/* <0, 1, ..., lanes - 1> of bits-wide integers. */
static LLVMValueRef iota(Emit *e, int bits, int lanes) {
  LLVMValueRef k[64];
  for (int i = 0; i < lanes; i++)
    k[i] = LLVMConstInt(int_type(e, bits), (unsigned long long)i, 0);
  return LLVMConstVector(k, (unsigned)lanes);
}

static LLVMValueRef splat(Emit *e, LLVMValueRef x, int lanes) {
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), (unsigned)lanes);
  LLVMValueRef one = LLVMBuildInsertElement(e->ir.b, LLVMGetPoison(vt), x, LLVMConstInt(e->ir.i32, 0, 0), "");
  return LLVMBuildShuffleVector(e->ir.b, one, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(e->ir.i32, (unsigned)lanes)),
                                "splat");
}

/* Loads `lanes` elements at dense offset off (in elements); *nz gets the
 * nonzero lanes (<lanes x i1>), the result their count (i64). */
static LLVMValueRef load_lanes(Emit *e, LLVMValueRef off, int lanes, LLVMValueRef *v, LLVMValueRef *nz) {
  const Shape *s = e->s;
  LLVMValueRef p = LLVMBuildGEP2(e->ir.b, int_type(e, s->vbits), e->dense, &off, 1, "p");
  *v = LLVMBuildLoad2(e->ir.b, vec(e, s->vbits, lanes), p, "v");
  LLVMSetAlignment(*v, (unsigned)s->vbits / 8);
  LLVMValueRef m = LLVMBuildAnd(e->ir.b, *v, splat(e, LLVMConstInt(int_type(e, s->vbits), s->vmask, 0), lanes), "m");
  *nz = LLVMBuildICmp(e->ir.b, LLVMIntNE, m, LLVMConstNull(LLVMTypeOf(m)), "nz");
  LLVMValueRef bits = LLVMBuildBitCast(e->ir.b, *nz, int_type(e, lanes), "bits");
  LLVMTypeRef bt = LLVMTypeOf(bits);
  return LLVMBuildZExt(e->ir.b, lyc_intrinsic(&e->ir, "llvm.ctpop", &bt, 1, &bits, 1), e->ir.i64, "pop");
}

/* Counts the nonzeros of a parent's run of n elements at dense offset off,
 * count_lanes at a time (the rest one by one). */
static void count_run(Emit *e, LLVMValueRef off) {
  const Shape *s = e->s;
  int V = s->count_lanes;
  int64_t n = s->run_bytes / (s->vbits / 8);
  LycLoopIR lp;
  LLVMValueRef i = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, n / V), "vec");
  LLVMValueRef at = add(e, off, lyc_mul_const(&e->ir, i, V, "lo"));
  if (s->prefetch)
    prefetch_ahead(e, at);
  LLVMValueRef v, nz, pop = load_lanes(e, at, V, &v, &nz);
  LLVMBuildStore(e->ir.b, add(e, get_k(e), pop), e->k);
  lyc_loop_end(&e->ir, &lp);
  if (n % V) {
    LLVMValueRef j = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, n / V * V), lyc_i64(&e->ir, n), "elem");
    LLVMValueRef x = load_int(e, s->vbits, e->dense, add(e, off, j));
    LLVMBuildStore(e->ir.b, add(e, get_k(e), LLVMBuildZExt(e->ir.b, nonzero(e, x), e->ir.i64, "inc")), e->k);
    lyc_loop_end(&e->ir, &lp);
  }
}

/* The nonzero lanes of x packed to the front (AVX-512's compress). */
static LLVMValueRef compress(Emit *e, LLVMValueRef x, LLVMValueRef nz) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef args[] = {x, LLVMConstNull(t), nz};
  return lyc_intrinsic(&e->ir, "llvm.x86.avx512.mask.compress", &t, 1, args, 3);
}

/* Stores the first `lanes` lanes of x at element k of buffer b. */
static void store_front(Emit *e, int bits, int b, LLVMValueRef k, LLVMValueRef x, LLVMValueRef lanes) {
  LLVMTypeRef t = int_type(e, bits), tys[] = {LLVMTypeOf(x), e->ir.ptr};
  int V = (int)LLVMGetVectorSize(LLVMTypeOf(x));
  LLVMValueRef mask = LLVMBuildICmp(e->ir.b, LLVMIntULT, iota(e, 8, V),
                                    splat(e, LLVMBuildTrunc(e->ir.b, lanes, e->ir.i8, "n"), V), "front");
  LLVMValueRef args[] = {x, LLVMBuildGEP2(e->ir.b, t, e->buf[b], &k, 1, "p"), LLVMConstInt(e->ir.i32, (unsigned)bits / 8, 0),
                         mask};
  lyc_intrinsic(&e->ir, "llvm.masked.store", tys, 2, args, 4);
}

/* The fill of one CSR row (contiguous in the dense tensor), fill_lanes
 * elements at a time: the nonzero lanes' values and coordinates are
 * compressed to the front and stored under a mask of their count, bounded
 * by the buffers' room as store_point_branchless is; k advances by the
 * count. The last elements short of a vector go one by one. A 2-D COO
 * (SoA) takes its rows so, the row's coordinate stored beside each column's. */
static void fill_compressed(Emit *e, LLVMValueRef off) {
  const Shape *s = e->s;
  int V = s->fill_lanes;
  int64_t n = s->size[s->L - 1];
  LLVMValueRef row = NULL;
  LycLoopIR rp, lp;
  if (s->coo) { /* levels a (rows), a + 1 */
    row = e->c[s->a] = lyc_loop_begin(&e->ir, &rp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, s->size[s->a]), "row");
    off = add(e, off, lyc_mul_const(&e->ir, row, s->ls[s->a], "r"));
  }
  LLVMValueRef i = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, n / V), "vec");
  LLVMValueRef lo = lyc_mul_const(&e->ir, i, V, "lo");
  if (s->prefetch)
    prefetch_ahead(e, add(e, off, lo));
  LLVMValueRef v, nz, pop = load_lanes(e, add(e, off, lo), V, &v, &nz), k = get_k(e);
  LLVMValueRef room = LLVMBuildSelect(e->ir.b, LLVMBuildICmp(e->ir.b, LLVMIntULT, k, e->cap, "has"),
                                      LLVMBuildSub(e->ir.b, e->cap, k, "left"), lyc_i64(&e->ir, 0), "room");
  LLVMValueRef lanes = LLVMBuildSelect(e->ir.b, LLVMBuildICmp(e->ir.b, LLVMIntULT, pop, room, "fits"), pop, room, "lanes");
  LLVMValueRef c = LLVMBuildAdd(e->ir.b, splat(e, LLVMBuildTrunc(e->ir.b, lo, int_type(e, s->cbits), "c"), V),
                                iota(e, s->cbits, V), "crd");
  store_front(e, s->vbits, s->val_buf, k, compress(e, v, nz), lanes);
  store_front(e, s->cbits, s->crd_buf[s->L - 1], k, compress(e, c, nz), lanes);
  if (row) /* the same row for every lane: no compress */
    store_front(e, s->cbits, s->crd_buf[s->a], k, splat(e, LLVMBuildTrunc(e->ir.b, row, int_type(e, s->cbits), "i"), V),
                lanes);
  LLVMBuildStore(e->ir.b, add(e, k, pop), e->k);
  lyc_loop_end(&e->ir, &lp);
  if (n % V)
    fill_points(e, off, lyc_i64(&e->ir, n / V * V), lyc_i64(&e->ir, n));
  if (row)
    lyc_loop_end(&e->ir, &rp);
}

/* One parent of the compressed level: its units, then its positions entry. */
static void pack_parent(Emit *e, LLVMValueRef off, LLVMValueRef parent) {
  const Shape *s = e->s;
  if (e->mode == MODE_FILL && s->fill_lanes)
    fill_compressed(e, off);
  else if (e->mode == MODE_FILL && !s->coo && s->a + 1 == s->L)
    fill_chunked(e, off);
  else if (e->mode == MODE_COUNT && s->count_lanes)
    count_run(e, off);
  else
    nest(e, s->a, s->coo ? s->L : s->a + 1, off, lyc_i64(&e->ir, 0), s->coo ? coo_point : block_unit);
  if (e->mode == MODE_FILL)
    store_int(e, s->pbits, e->buf[s->pos_buf], add(e, parent, lyc_i64(&e->ir, 1)), get_k(e));
}

static void load_buffers(Emit *e, LLVMValueRef bufs, int n) {
  for (int b = 0; b < n; b++) {
    LLVMValueRef idx = lyc_i64(&e->ir, b);
    LLVMValueRef p = LLVMBuildGEP2(e->ir.b, e->ir.ptr, bufs, &idx, 1, "bp");
    e->buf[b] = LLVMBuildLoad2(e->ir.b, e->ir.ptr, p, "buf");
  }
}

static LLVMValueRef new_slot(Emit *e, LLVMTypeRef t, LLVMValueRef init, const char *name) {
  LLVMValueRef slot = LLVMBuildAlloca(e->ir.b, t, name);
  LLVMBuildStore(e->ir.b, init, slot);
  return slot;
}

static LLVMValueRef count_of(Emit *e, LLVMValueRef counts, int b, int64_t per) {
  LLVMValueRef idx = lyc_i64(&e->ir, b);
  LLVMValueRef n = LLVMBuildLoad2(e->ir.b, e->ir.i64, LLVMBuildGEP2(e->ir.b, e->ir.i64, counts, &idx, 1, "cp"), "n");
  return per == 1 ? n : LLVMBuildUDiv(e->ir.b, n, lyc_i64(&e->ir, per), "units");
}

/* i64 count(ptr dense) or i64 fill(ptr dense, ptr bufs, ptr counts), both
 * the units stored (the fill writes those within the counts' room). */
static void emit_pack(LLVMModuleRef m, const Shape *s, const char *name, Mode mode, int nbufs) {
  Emit e = {.s = s, .mode = mode};
  lyc_ir_init(&e.ir, m);
  LLVMTypeRef params[3] = {e.ir.ptr, e.ir.ptr, e.ir.ptr};
  lyc_ir_function(&e.ir, name, e.ir.i64, params, mode == MODE_COUNT ? 1 : 3);
  e.dense = LLVMGetParam(e.ir.fn, 0);
  e.k = new_slot(&e, e.ir.i64, lyc_i64(&e.ir, 0), "k");
  e.any = new_slot(&e, e.ir.i1, LLVMConstInt(e.ir.i1, 0, 0), "any");
  if (mode == MODE_FILL) {
    load_buffers(&e, LLVMGetParam(e.ir.fn, 1), nbufs);
    e.cap = count_of(&e, LLVMGetParam(e.ir.fn, 2), s->val_buf, s->blk);
    store_int(&e, s->pbits, e.buf[s->pos_buf], lyc_i64(&e.ir, 0), lyc_i64(&e.ir, 0));
  }
  nest(&e, 0, s->a, lyc_i64(&e.ir, 0), lyc_i64(&e.ir, 0), pack_parent);
  LLVMBuildRet(e.ir.b, get_k(&e));
  lyc_ir_dispose(&e.ir);
}

/* --- sparse -> dense ------------------------------------------------------------ */

/* Branches to the failure exit when bad. */
static void check(Emit *e, LLVMValueRef bad) {
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "ok");
  LLVMBuildCondBr(e->ir.b, bad, e->fail_bb, ok);
  LLVMPositionBuilderAtEnd(e->ir.b, ok);
}

static LLVMValueRef ugt(Emit *e, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildICmp(e->ir.b, LLVMIntUGT, x, y, "gt"); }

static void block_copy_in(Emit *e, LLVMValueRef off, LLVMValueRef lin) {
  LLVMValueRef at = add(e, lyc_mul_const(&e->ir, e->k_now, e->s->blk, "kb"), lin);
  store_int(e, e->s->vbits, e->dense, off, load_int(e, e->s->vbits, e->buf[e->s->val_buf], at));
}

/* Entry k of the current parent: coordinates checked in range and in
 * strictly increasing order (as one linear index), then its values. */
static void scatter_entry(Emit *e, LLVMValueRef off, LLVMValueRef k) {
  const Shape *s = e->s;
  LLVMValueRef lin = lyc_i64(&e->ir, 0);
  for (int l = s->a; l < (s->coo ? s->L : s->a + 1); l++) {
    LLVMValueRef at = add(e, lyc_mul_const(&e->ir, k, s->crd_stride[l], "ks"), lyc_i64(&e->ir, s->crd_field[l]));
    LLVMValueRef c = load_index(e, s->cbits, e->buf[s->crd_buf[l]], at);
    check(e, LLVMBuildICmp(e->ir.b, LLVMIntUGE, c, lyc_i64(&e->ir, s->size[l]), "range"));
    lin = add(e, lyc_mul_const(&e->ir, lin, s->size[l], "l"), c);
    off = add(e, off, lyc_mul_const(&e->ir, c, s->ls[l], "o"));
  }
  LLVMValueRef prev = LLVMBuildLoad2(e->ir.b, e->ir.i64, e->prev, "prev");
  check(e, LLVMBuildICmp(e->ir.b, LLVMIntSLE, lin, prev, "order"));
  LLVMBuildStore(e->ir.b, lin, e->prev);
  if (s->coo) {
    store_int(e, s->vbits, e->dense, off, load_int(e, s->vbits, e->buf[s->val_buf], k));
  } else {
    e->k_now = k;
    nest(e, s->a + 1, s->L, off, lyc_i64(&e->ir, 0), block_copy_in);
  }
}

/* Streams the staged run to dense bytes [at, at + run_bytes) a line at a
 * time when the tensor is 64-byte aligned (then so is every run), else copies it. */
static void stream_run(Emit *e, LLVMValueRef at) {
  LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "stream");
  LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "copy");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ir.c, e->ir.fn, "streamed");
  LLVMValueRef dst = LLVMBuildGEP2(e->ir.b, e->ir.i8, e->dense, &at, 1, "run");
  LLVMBuildCondBr(e->ir.b, e->aligned, nt, plain);
  LLVMPositionBuilderAtEnd(e->ir.b, nt);
  LycLoopIR lp;
  LLVMValueRef i = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, e->s->run_bytes / 64), "line");
  LLVMValueRef o = lyc_mul_const(&e->ir, i, 64, "o");
  LLVMTypeRef lt = vec(e, 32, 16);
  LLVMValueRef v = LLVMBuildLoad2(e->ir.b, lt, LLVMBuildGEP2(e->ir.b, e->ir.i8, e->stage, &o, 1, "from"), "line");
  LLVMSetAlignment(v, 64);
  lyc_store_nt(&e->ir, v, LLVMBuildGEP2(e->ir.b, e->ir.i8, dst, &o, 1, "to"), 64);
  lyc_loop_end(&e->ir, &lp);
  LLVMBuildBr(e->ir.b, done);
  LLVMPositionBuilderAtEnd(e->ir.b, plain);
  LLVMBuildMemCpy(e->ir.b, dst, 1, e->stage, 64, lyc_i64(&e->ir, e->s->run_bytes));
  LLVMBuildBr(e->ir.b, done);
  LLVMPositionBuilderAtEnd(e->ir.b, done);
}

static void scatter_parent(Emit *e, LLVMValueRef off, LLVMValueRef parent) {
  const Shape *s = e->s;
  LLVMValueRef dense = e->dense, at = lyc_mul_const(&e->ir, off, s->vbits / 8, "at");
  if (s->stage) { /* the entries go to the staged run; off is 0 there */
    LLVMBuildMemSet(e->ir.b, e->stage, LLVMConstInt(e->ir.i8, 0, 0), lyc_i64(&e->ir, s->run_bytes), 64);
    e->dense = e->stage, off = lyc_i64(&e->ir, 0);
  } else if (s->run_bytes) { /* zeroed here, in cache for its entries */
    LLVMBuildMemSet(e->ir.b, LLVMBuildGEP2(e->ir.b, e->ir.i8, e->dense, &at, 1, "run"), LLVMConstInt(e->ir.i8, 0, 0),
                    lyc_i64(&e->ir, s->run_bytes), (unsigned)s->vbits / 8);
  }
  LLVMValueRef lo = load_index(e, s->pbits, e->buf[s->pos_buf], parent);
  LLVMValueRef hi = load_index(e, s->pbits, e->buf[s->pos_buf], add(e, parent, lyc_i64(&e->ir, 1)));
  LLVMValueRef bad = LLVMBuildOr(e->ir.b, ugt(e, lo, hi), ugt(e, hi, e->ncrd), "bad");
  check(e, LLVMBuildOr(e->ir.b, bad, ugt(e, hi, e->nval), "bad"));
  LLVMBuildStore(e->ir.b, lyc_i64(&e->ir, -1), e->prev);
  LycLoopIR lp;
  LLVMValueRef k = lyc_loop_begin(&e->ir, &lp, lo, hi, "entry");
  scatter_entry(e, off, k);
  lyc_loop_end(&e->ir, &lp);
  if (s->stage)
    e->dense = dense, stream_run(e, at);
}

/* i64 scatter(ptr dense, ptr bufs, ptr counts): 0, or 1 on malformed input. */
static void emit_scatter(LLVMModuleRef m, const Shape *s, const char *name, int nbufs, int64_t dense_bytes) {
  Emit e = {.s = s, .mode = MODE_SCATTER};
  lyc_ir_init(&e.ir, m);
  LLVMTypeRef params[3] = {e.ir.ptr, e.ir.ptr, e.ir.ptr};
  lyc_ir_function(&e.ir, name, e.ir.i64, params, 3);
  e.dense = LLVMGetParam(e.ir.fn, 0);
  LLVMValueRef counts = LLVMGetParam(e.ir.fn, 2);
  e.fail_bb = LLVMAppendBasicBlockInContext(e.ir.c, e.ir.fn, "malformed");
  e.prev = new_slot(&e, e.ir.i64, lyc_i64(&e.ir, -1), "prev");
  load_buffers(&e, LLVMGetParam(e.ir.fn, 1), nbufs);
  if (s->stage) {
    e.stage = LLVMBuildAlloca(e.ir.b, LLVMArrayType(e.ir.i8, (unsigned)s->run_bytes), "stage");
    LLVMSetAlignment(e.stage, 64);
    LLVMValueRef low = LLVMBuildAnd(e.ir.b, LLVMBuildPtrToInt(e.ir.b, e.dense, e.ir.i64, "addr"), lyc_i64(&e.ir, 63), "low");
    e.aligned = LLVMBuildICmp(e.ir.b, LLVMIntEQ, low, lyc_i64(&e.ir, 0), "aligned");
  }
  if (!s->run_bytes) /* else one parent at a time (scatter_parent) */
    LLVMBuildMemSet(e.ir.b, e.dense, LLVMConstInt(e.ir.i8, 0, 0), lyc_i64(&e.ir, dense_bytes), 1);
  e.ncrd = count_of(&e, counts, s->crd_buf[s->a], s->crd_stride[s->a]);
  for (int l = s->a + 1; s->coo && l < s->L; l++) { /* SoA: the fewest entries of the region's buffers */
    LLVMValueRef n = count_of(&e, counts, s->crd_buf[l], s->crd_stride[l]);
    e.ncrd = LLVMBuildSelect(e.ir.b, ugt(&e, e.ncrd, n), n, e.ncrd, "min");
  }
  e.nval = count_of(&e, counts, s->val_buf, s->blk);
  check(&e, LLVMBuildICmp(e.ir.b, LLVMIntSLT, count_of(&e, counts, s->pos_buf, 1), lyc_i64(&e.ir, s->parents + 1),
                          "short"));
  nest(&e, 0, s->a, lyc_i64(&e.ir, 0), lyc_i64(&e.ir, 0), scatter_parent);
  if (s->stage) /* the streamed lines are ordered before the caller's next access */
    LLVMBuildFence(e.ir.b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
  LLVMBuildRet(e.ir.b, lyc_i64(&e.ir, 0));
  LLVMMoveBasicBlockAfter(e.fail_bb, LLVMGetInsertBlock(e.ir.b));
  LLVMPositionBuilderAtEnd(e.ir.b, e.fail_bb);
  LLVMBuildRet(e.ir.b, lyc_i64(&e.ir, 1));
  lyc_ir_dispose(&e.ir);
}

/* --- n_out_of_m (2:4) ------------------------------------------------------------ */

/* The group at dense offset off: its m values and nonzero flags, unrolled. */
static LLVMValueRef nm_load_group(Emit *e, LLVMValueRef off, LLVMValueRef *v, LLVMValueRef *nz) {
  const Shape *s = e->s;
  LLVMValueRef cnt = lyc_i64(&e->ir, 0);
  for (int c = 0; c < s->m; c++) {
    v[c] = load_int(e, s->vbits, e->dense, add(e, off, lyc_i64(&e->ir, c * s->ls[s->a])));
    nz[c] = nonzero(e, v[c]);
    cnt = add(e, cnt, LLVMBuildZExt(e->ir.b, nz[c], e->ir.i64, "inc"));
  }
  return cnt;
}

/* Counting: only whether some group holds more than n nonzeros. Filling:
 * exactly n entries, the nonzeros and explicit zeros at the lowest free
 * coordinates, in coordinate order, as the interpreter stores them. A
 * coordinate not taken is written to a scratch slot instead of branching
 * on the data; `taken < n` bounds the writes even on an overfull group. */
static void nm_pack_group(Emit *e, LLVMValueRef off, LLVMValueRef parent) {
  const Shape *s = e->s;
  LLVMValueRef v[NM_MAX_M], nz[NM_MAX_M], cnt = nm_load_group(e, off, v, nz), n = lyc_i64(&e->ir, s->n);
  LLVMValueRef any = LLVMBuildLoad2(e->ir.b, e->ir.i1, e->any, "any");
  if (e->mode == MODE_COUNT)
    return (void)LLVMBuildStore(e->ir.b, LLVMBuildOr(e->ir.b, any, ugt(e, cnt, n), "over"), e->any);
  LLVMTypeRef ct = int_type(e, s->cbits), vt = int_type(e, s->vbits);
  LLVMValueRef base = lyc_mul_const(&e->ir, parent, s->n, "base"), taken = lyc_i64(&e->ir, 0);
  LLVMValueRef spare = LLVMBuildSub(e->ir.b, n, cnt, "spare"), zero = lyc_i64(&e->ir, 0);
  for (int c = 0; c < s->m; c++) {
    LLVMValueRef want = LLVMBuildOr(e->ir.b, nz[c], LLVMBuildICmp(e->ir.b, LLVMIntSGT, spare, zero, "pad"), "want");
    LLVMValueRef take = LLVMBuildAnd(e->ir.b, want, LLVMBuildICmp(e->ir.b, LLVMIntULT, taken, n, "room"), "take");
    LLVMValueRef pad = LLVMBuildAnd(e->ir.b, take, LLVMBuildNot(e->ir.b, nz[c], "z"), "padded");
    spare = LLVMBuildSub(e->ir.b, spare, LLVMBuildZExt(e->ir.b, pad, e->ir.i64, "p"), "spare");
    LLVMValueRef at = add(e, base, taken);
    LLVMValueRef pc = LLVMBuildGEP2(e->ir.b, ct, e->buf[s->crd_buf[s->a]], &at, 1, "pc");
    LLVMValueRef pv = LLVMBuildGEP2(e->ir.b, vt, e->buf[s->val_buf], &at, 1, "pv");
    LLVMBuildStore(e->ir.b, LLVMConstInt(ct, (unsigned long long)c, 0),
                   LLVMBuildSelect(e->ir.b, take, pc, e->prev, "cdst"));
    LLVMBuildStore(e->ir.b, LLVMBuildSelect(e->ir.b, nz[c], v[c], LLVMConstNull(vt), "val"),
                   LLVMBuildSelect(e->ir.b, take, pv, e->prev, "vdst"));
    taken = add(e, taken, LLVMBuildZExt(e->ir.b, take, e->ir.i64, "t"));
  }
}

/* For every nonzero pattern of a group of m (<= 8): the lanes kept (low 8
 * bits) and whether it is overfull (bit 8). */
static LLVMValueRef nm_keep_table(Emit *e) {
  const Shape *s = e->s;
  LLVMValueRef k[256];
  for (unsigned x = 0; x < 1u << s->m; x++) {
    int cnt = __builtin_popcount(x), left = s->n, spare = s->n > cnt ? s->n - cnt : 0;
    unsigned keep = 0;
    for (int c = 0; c < s->m && left; c++) /* nm_pack_group's order: nonzeros, and zeros while spare */
      if (x >> c & 1 || (spare && spare--))
        keep |= 1u << c, left--;
    k[x] = LLVMConstInt(e->ir.i16, keep | (cnt > s->n) << 8, 0);
  }
  LLVMValueRef init = LLVMConstArray(e->ir.i16, k, 1u << s->m);
  LLVMValueRef g = LLVMAddGlobal(e->ir.m, LLVMTypeOf(init), "nm_keep");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  return g;
}

/* Vector i of the fill: compress packs the lanes each group keeps (keep),
 * values (zeros as +0) and coordinates within the group, into the vector's
 * n / m share of the entries, stored whole. */
static void nm_pack_vector(Emit *e, LLVMValueRef i, LLVMValueRef v, LLVMValueRef nz, LLVMValueRef keep) {
  const Shape *s = e->s;
  int V = s->nm_lanes, out = V / s->m * s->n;
  LLVMValueRef cm[64], take[64];
  for (int l = 0; l < V; l++)
    cm[l] = LLVMConstInt(int_type(e, s->cbits), (unsigned long long)(l % s->m), 0);
  for (int l = 0; l < out; l++)
    take[l] = LLVMConstInt(e->ir.i32, (unsigned)l, 0);
  LLVMValueRef km = LLVMBuildBitCast(e->ir.b, keep, LLVMTypeOf(nz), "keepm");
  v = LLVMBuildSelect(e->ir.b, nz, v, LLVMConstNull(LLVMTypeOf(v)), "v"); /* kept zeros are +0 */
  LLVMValueRef at = lyc_mul_const(&e->ir, i, out, "at"), sel = LLVMConstVector(take, (unsigned)out);
  LLVMValueRef pv = compress(e, v, km), pc = compress(e, LLVMConstVector(cm, (unsigned)V), km);
  pv = LLVMBuildShuffleVector(e->ir.b, pv, LLVMGetPoison(LLVMTypeOf(pv)), sel, "vals");
  pc = LLVMBuildShuffleVector(e->ir.b, pc, LLVMGetPoison(LLVMTypeOf(pc)), sel, "crds");
  LLVMValueRef pval = LLVMBuildGEP2(e->ir.b, int_type(e, s->vbits), e->buf[s->val_buf], &at, 1, "pv");
  LLVMValueRef pcrd = LLVMBuildGEP2(e->ir.b, int_type(e, s->cbits), e->buf[s->crd_buf[s->a]], &at, 1, "pc");
  LLVMSetAlignment(LLVMBuildStore(e->ir.b, pv, pval), (unsigned)s->vbits / 8);
  LLVMSetAlignment(LLVMBuildStore(e->ir.b, pc, pcrd), (unsigned)s->cbits / 8);
}

/* The nnz pass or the fill of n_out_of_m groups that follow each other in
 * memory, nm_lanes elements (whole groups) at a time, the nonzero pattern of
 * each group looked up in nm_keep_table: counting, whether one is overfull;
 * filling, nm_pack_vector. The groups short of a vector go one at a time. */
static void nm_vectors(Emit *e) {
  const Shape *s = e->s;
  int V = s->nm_lanes, per = V / s->m;
  int64_t nv = s->parents / per;
  LLVMValueRef table = nm_keep_table(e);
  LycLoopIR lp;
  LLVMValueRef i = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, 0), lyc_i64(&e->ir, nv), "vec");
  LLVMValueRef off = lyc_mul_const(&e->ir, i, V, "off"), v, nz;
  if (s->prefetch)
    prefetch_ahead(e, off);
  load_lanes(e, off, V, &v, &nz);
  LLVMTypeRef it = int_type(e, V);
  LLVMValueRef bits = LLVMBuildBitCast(e->ir.b, nz, it, "bits"), keep = LLVMConstInt(it, 0, 0);
  LLVMValueRef over = LLVMConstInt(e->ir.i16, 0, 0);
  for (int q = 0; q < per; q++) {
    LLVMValueRef x = LLVMBuildAnd(e->ir.b, LLVMBuildLShr(e->ir.b, bits, LLVMConstInt(it, (unsigned)(q * s->m), 0), ""),
                                  LLVMConstInt(it, (1u << s->m) - 1, 0), "pattern");
    LLVMValueRef idx[] = {lyc_i64(&e->ir, 0), LLVMBuildZExt(e->ir.b, x, e->ir.i64, "")};
    LLVMValueRef k = LLVMBuildLoad2(e->ir.b, e->ir.i16,
                                    LLVMBuildGEP2(e->ir.b, LLVMGlobalGetValueType(table), table, idx, 2, ""), "entry");
    over = LLVMBuildOr(e->ir.b, over, k, "over");
    k = LLVMBuildZExt(e->ir.b, LLVMBuildTrunc(e->ir.b, k, e->ir.i8, "kept"), it, "");
    keep = LLVMBuildOr(e->ir.b, keep, LLVMBuildShl(e->ir.b, k, LLVMConstInt(it, (unsigned)(q * s->m), 0), ""), "keep");
  }
  if (e->mode == MODE_COUNT) {
    LLVMValueRef bad = LLVMBuildICmp(e->ir.b, LLVMIntUGE, over, LLVMConstInt(e->ir.i16, 256, 0), "overfull");
    LLVMBuildStore(e->ir.b, LLVMBuildOr(e->ir.b, LLVMBuildLoad2(e->ir.b, e->ir.i1, e->any, "any"), bad, "any"), e->any);
  } else {
    nm_pack_vector(e, i, v, nz, keep);
  }
  lyc_loop_end(&e->ir, &lp);
  LLVMValueRef g = lyc_loop_begin(&e->ir, &lp, lyc_i64(&e->ir, nv * per), lyc_i64(&e->ir, s->parents), "group");
  nm_pack_group(e, lyc_mul_const(&e->ir, g, s->m, "o"), g);
  lyc_loop_end(&e->ir, &lp);
}

/* i64 count(ptr dense): groups x n, or -1 when a group is overfull (the
 * interpreter then names it); i64 fill(ptr dense, ptr bufs, ptr counts):
 * groups x n. */
static void emit_nm_pack(LLVMModuleRef m, const Shape *s, const char *name, Mode mode, int nbufs) {
  Emit e = {.s = s, .mode = mode};
  lyc_ir_init(&e.ir, m);
  LLVMTypeRef params[3] = {e.ir.ptr, e.ir.ptr, e.ir.ptr};
  lyc_ir_function(&e.ir, name, e.ir.i64, params, mode == MODE_COUNT ? 1 : 3);
  e.dense = LLVMGetParam(e.ir.fn, 0);
  e.any = new_slot(&e, e.ir.i1, LLVMConstInt(e.ir.i1, 0, 0), "any");
  e.prev = LLVMBuildAlloca(e.ir.b, e.ir.i64, "scratch"); /* holds one coordinate or value */
  if (mode == MODE_FILL)
    load_buffers(&e, LLVMGetParam(e.ir.fn, 1), nbufs);
  if (s->nm_lanes)
    nm_vectors(&e);
  else
    nest(&e, 0, s->a, lyc_i64(&e.ir, 0), lyc_i64(&e.ir, 0), nm_pack_group);
  if (mode == MODE_COUNT)
    LLVMBuildRet(e.ir.b, LLVMBuildSelect(e.ir.b, LLVMBuildLoad2(e.ir.b, e.ir.i1, e.any, "any"), lyc_i64(&e.ir, -1),
                                         lyc_i64(&e.ir, s->parents * s->n), "units"));
  else
    LLVMBuildRet(e.ir.b, lyc_i64(&e.ir, s->parents * s->n));
  lyc_ir_dispose(&e.ir);
}

/* One group back: n coordinates, each below m and above the one before. */
static void nm_scatter_group(Emit *e, LLVMValueRef off, LLVMValueRef parent) {
  const Shape *s = e->s;
  LLVMValueRef base = lyc_mul_const(&e->ir, parent, s->n, "base"), prev = NULL;
  for (int j = 0; j < s->n; j++) {
    LLVMValueRef at = add(e, base, lyc_i64(&e->ir, j));
    LLVMValueRef c = load_index(e, s->cbits, e->buf[s->crd_buf[s->a]], at);
    LLVMValueRef bad = LLVMBuildICmp(e->ir.b, LLVMIntUGE, c, lyc_i64(&e->ir, s->m), "range");
    check(e, prev ? LLVMBuildOr(e->ir.b, bad, LLVMBuildICmp(e->ir.b, LLVMIntULE, c, prev, "order"), "bad") : bad);
    LLVMValueRef dst = add(e, off, lyc_mul_const(&e->ir, c, s->ls[s->a], "o"));
    store_int(e, s->vbits, e->dense, dst, load_int(e, s->vbits, e->buf[s->val_buf], at));
    prev = c;
  }
}

/* i64 scatter(ptr dense, ptr bufs, ptr counts): 0, or 1 on malformed input. */
static void emit_nm_scatter(LLVMModuleRef m, const Shape *s, const char *name, int nbufs, int64_t dense_bytes) {
  Emit e = {.s = s, .mode = MODE_SCATTER};
  lyc_ir_init(&e.ir, m);
  LLVMTypeRef params[3] = {e.ir.ptr, e.ir.ptr, e.ir.ptr};
  lyc_ir_function(&e.ir, name, e.ir.i64, params, 3);
  e.dense = LLVMGetParam(e.ir.fn, 0);
  LLVMValueRef counts = LLVMGetParam(e.ir.fn, 2), need = lyc_i64(&e.ir, s->parents * s->n);
  e.fail_bb = LLVMAppendBasicBlockInContext(e.ir.c, e.ir.fn, "malformed");
  load_buffers(&e, LLVMGetParam(e.ir.fn, 1), nbufs);
  LLVMBuildMemSet(e.ir.b, e.dense, LLVMConstInt(e.ir.i8, 0, 0), lyc_i64(&e.ir, dense_bytes), 1);
  check(&e, LLVMBuildOr(e.ir.b, LLVMBuildICmp(e.ir.b, LLVMIntSLT, count_of(&e, counts, s->crd_buf[s->a], 1), need, "c"),
                        LLVMBuildICmp(e.ir.b, LLVMIntSLT, count_of(&e, counts, s->val_buf, 1), need, "v"), "short"));
  nest(&e, 0, s->a, lyc_i64(&e.ir, 0), lyc_i64(&e.ir, 0), nm_scatter_group);
  LLVMBuildRet(e.ir.b, lyc_i64(&e.ir, 0));
  LLVMMoveBasicBlockAfter(e.fail_bb, LLVMGetInsertBlock(e.ir.b));
  LLVMPositionBuilderAtEnd(e.ir.b, e.fail_bb);
  LLVMBuildRet(e.ir.b, lyc_i64(&e.ir, 1));
  lyc_ir_dispose(&e.ir);
}

/* ===== Compiling and caching ===================================================== */

static void err(LyDiagEngine *d, const char *what) { ly_diag_emit(d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "%s", what); }

LycSparseJit *lyc_sparse_jit_create(LyDiagEngine *d) {
  LycSparseJit *j = ly_malloc(sizeof *j);
  if (!j)
    return err(d, "out of memory"), NULL;
  *j = (LycSparseJit){.d = d};
  lyc_host_target(&j->tgt);
  LLVMTargetMachineRef tm = lyc_host_machine(d); /* initialises the native target once */
  if (!tm)
    return ly_free(j), NULL;
  LLVMDisposeTargetMachine(tm);
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->jit, LLVMOrcCreateLLJITBuilder());
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  if (!e) /* kernels call memset */
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), NULL, NULL);
  if (e) {
    lyc_report_error(d, "cannot create the JIT for sparse kernels", e);
    lyc_sparse_jit_destroy(j);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j->jit), gen);
  return j;
}

void lyc_sparse_jit_destroy(LycSparseJit *j) {
  if (!j)
    return;
  if (j->jit)
    LLVMOrcDisposeLLJIT(j->jit);
  ly_free(j->entries);
  ly_free(j);
}

/* Everything the kernels depend on, as the cache key of a format. */
static int format_key(const LycSparse *f, int64_t *k) {
  int n = 0;
  k[n++] = f->rank, k[n++] = f->lvl_rank, k[n++] = f->pos_bits, k[n++] = f->crd_bits, k[n++] = f->value;
  k[n++] = f->n, k[n++] = f->m;
  for (int i = 0; i < f->rank; i++)
    k[n++] = f->dims[i];
  for (int l = 0; l < f->lvl_rank; l++) {
    k[n++] = f->lvl_dim[l], k[n++] = f->lvl_div[l], k[n++] = f->lvl_mod[l], k[n++] = f->kind[l];
    k[n++] = f->nonunique[l] | f->nonordered[l] << 1 | f->soa[l] << 2;
  }
  return n;
}

/* prefix: compile_entry's, under 128 bytes; fn: count, fill or scatter. */
static void *lookup(LycSparseJit *j, const char *prefix, const char *fn) {
  char name[128 + sizeof "_scatter"];
  snprintf(name, sizeof name, "%s_%s", prefix, fn);
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->jit, &addr, name);
  if (e) {
    lyc_report_error(j->d, "loading a sparse kernel into the JIT failed", e);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

/* The optimised object of module m (whose functions start with prefix),
 * from the persistent cache when it holds it; *prefix becomes the cache's
 * name for it. NULL after a diagnostic. */
static LLVMMemoryBufferRef object_of(LycSparseJit *j, LLVMModuleRef m, char *prefix, size_t size) {
  LycCacheKey key = {0};
  LLVMMemoryBufferRef obj = NULL;
  bool keyed = lyc_cache_enabled() && lyc_cache_key_module(&key, m, prefix, "default<O3>");
  if (keyed) {
    snprintf(prefix, size, "%s", key.name);
    obj = lyc_cache_load(&key);
  }
  LLVMTargetMachineRef tm = NULL;
  char *msg = NULL;
  if (!obj && lyc_verify(j->d, m) && lyc_optimize(j->d, m) && (tm = lyc_host_machine(j->d))) {
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj)) {
      ly_diag_emit(j->d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, "LLVM code generation failed: %s", msg);
      LLVMDisposeMessage(msg);
      obj = NULL;
    } else if (keyed) {
      lyc_cache_store(&key, obj);
    }
  }
  if (tm)
    LLVMDisposeTargetMachine(tm);
  lyc_cache_key_free(&key);
  return obj;
}

/* Emits, compiles and loads the three kernels of a format. */
static bool compile_entry(LycSparseJit *j, const LycSparse *f, const Shape *s, Entry *en) {
  char prefix[128];
  bool cached = lyc_cache_enabled();
  if (cached)
    snprintf(prefix, sizeof prefix, "ly_sparse");
  else /* several converters may share a process: names of their own */
    snprintf(prefix, sizeof prefix, "ly_sparse_%" PRIxPTR "_%u", (uintptr_t)j, j->next_id++);
  LycBufInfo info[LYC_SPARSE_MAX_BUFS];
  int nb = lyc_sparse_buffers(f, info);
  int64_t dense_bytes = lyElemGetBits(f->value) / 8;
  for (int i = 0; i < f->rank; i++)
    dense_bytes *= f->dims[i]; /* checked by lyc_sparse_check */
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("ly_sparse", c);
  char name[160];
  snprintf(name, sizeof name, "%s_count", prefix), (s->nm ? emit_nm_pack : emit_pack)(m, s, name, MODE_COUNT, nb);
  snprintf(name, sizeof name, "%s_fill", prefix), (s->nm ? emit_nm_pack : emit_pack)(m, s, name, MODE_FILL, nb);
  snprintf(name, sizeof name, "%s_scatter", prefix);
  (s->nm ? emit_nm_scatter : emit_scatter)(m, s, name, nb, dense_bytes);
  LLVMMemoryBufferRef obj = object_of(j, m, prefix, sizeof prefix);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  if (!obj)
    return false;
  /* Loaded kernels stay for the converter's lifetime. The same cached code
   * may be loaded already (another format with equal kernels): keep that. */
  LLVMOrcExecutorAddress addr;
  snprintf(name, sizeof name, "%s_count", prefix);
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->jit, &addr, name);
  if (!e) {
    LLVMDisposeMemoryBuffer(obj);
  } else {
    LLVMConsumeError(e);
    if ((e = LLVMOrcLLJITAddObjectFile(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), obj))) /* takes obj */
      return lyc_report_error(j->d, "loading a sparse kernel into the JIT failed", e), false;
  }
  en->count = (CountFn)lookup(j, prefix, "count");
  en->fill = (FillFn)lookup(j, prefix, "fill");
  en->scatter = (ScatterFn)lookup(j, prefix, "scatter");
  return en->count && en->fill && en->scatter;
}

/* The format's entry, compiled on first use; NULL after a diagnostic. */
static Entry *entry_of(LycSparseJit *j, const LycSparse *f) {
  int64_t key[6 * LY_MAX_RANK + 8];
  int nkey = format_key(f, key);
  for (int i = 0; i < j->n; i++)
    if (j->entries[i].nkey == nkey && !memcmp(j->entries[i].key, key, (size_t)nkey * sizeof *key))
      return &j->entries[i];
  if (j->n == j->cap) {
    int cap = j->cap ? 2 * j->cap : 16;
    Entry *ne = ly_realloc(j->entries, (size_t)cap * sizeof *ne);
    if (!ne)
      return err(j->d, "out of memory"), NULL;
    j->entries = ne, j->cap = cap;
  }
  Entry *en = &j->entries[j->n];
  *en = (Entry){.nkey = nkey};
  memcpy(en->key, key, (size_t)nkey * sizeof *key);
  Shape s;
  en->supported = shape_of(f, &s);
  if (en->supported)
    plan_vectors(&s, &j->tgt), en->count_lanes = s.count_lanes, en->fill_lanes = s.nm ? s.nm_lanes : s.fill_lanes, en->stage = s.stage;
  if (en->supported && !compile_entry(j, f, &s, en))
    return NULL;
  j->n++;
  return en;
}

/* ===== Running ================================================================== */

static bool empty(const LycSparse *f) {
  for (int i = 0; i < f->rank; i++)
    if (f->dims[i] == 0)
      return true;
  return false;
}

bool lyc_sparse_jit_supports(LycSparseJit *j, const LycSparse *f) {
  LyDiagEngine quiet = {0};
  if (lyc_sparse_check(&quiet, f) || empty(f))
    return false;
  Entry *en = entry_of(j, f);
  return en && en->supported;
}

void lyc_sparse_jit_lanes(LycSparseJit *j, const LycSparse *f, int *count, int *fill, bool *staged) {
  *count = *fill = 0, *staged = false;
  if (lyc_sparse_jit_supports(j, f)) {
    Entry *en = entry_of(j, f);
    *count = en->count_lanes, *fill = en->fill_lanes, *staged = en->stage;
  }
}

LyStatus lyc_sparse_jit_from_dense(LycSparseJit *j, const LycSparse *f, const void *dense, int64_t *counts,
                                   void *const *bufs) {
  if (!lyc_sparse_jit_supports(j, f))
    return lyc_sparse_from_dense(j->d, f, dense, counts, bufs);
  Entry *en = entry_of(j, f);
  Shape s;
  shape_of(f, &s);
  int64_t units;
  if (bufs) {
    int64_t room = s.nm ? 0 : counts[s.val_buf] / s.blk;
    units = en->fill(dense, bufs, counts);
    if (s.nm)
      return LY_OK;
    if (units > room) {
      ly_diag_emit(j->d, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0},
                   "the dense tensor holds %" PRId64 " entries to store, more than the %" PRId64
                   " its sparse buffers were sized for: it changed after the nnz pass",
                   units, room);
      return LY_ERROR_INVALID;
    }
  } else {
    units = en->count(dense);
    if (units < 0 || (!s.nm && s.pbits < 64 && (uint64_t)units > (1ULL << s.pbits) - 1)) /* the interpreter reports it */
      return lyc_sparse_from_dense(j->d, f, dense, counts, NULL);
  }
  if (s.nm) {
    counts[s.crd_buf[s.a]] = counts[s.val_buf] = units;
    return LY_OK;
  }
  counts[s.pos_buf] = s.parents + 1;
  counts[s.crd_buf[s.a]] = units * s.crd_stride[s.a];
  for (int l = s.a + 1; s.coo && l < s.L; l++)
    counts[s.crd_buf[l]] = units * s.crd_stride[l];
  counts[s.val_buf] = units * s.blk;
  return LY_OK;
}

LyStatus lyc_sparse_jit_to_dense(LycSparseJit *j, const LycSparse *f, const int64_t *counts,
                                 const void *const *bufs, void *dense) {
  if (!lyc_sparse_jit_supports(j, f))
    return lyc_sparse_to_dense(j->d, f, counts, bufs, dense);
  if (entry_of(j, f)->scatter(dense, bufs, counts) == 0)
    return LY_OK;
  /* Malformed: the interpreter finds the same fault and names it. */
  return lyc_sparse_to_dense(j->d, f, counts, bufs, dense);
}
