/* codegen/repack: LLVM IR for a repack kernel from a plan (see plan.c).
 *
 *   void @ly_repack(ptr noalias src, ptr noalias dst, i64 thread, i64 nthreads)
 *
 * Each nest's outermost loop is split evenly between threads. Inner forms:
 * a contiguous run is a memcpy (same element type) or a loop LLVM
 * vectorises; a transpose is a register "zip": x rows of V source elements
 * are loaded as vectors and interleaved with log2(x) stages of shuffles so
 * that each result vector is x destination-contiguous elements of V/x
 * source positions (x = V is the full V-by-V transpose). */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile: `rows` real X rows (the rest of the xt, a power of two <= V, are
 * zero) by `yv` valid Y positions out of V; `width` elements are stored per
 * Y position: the rows, then destination padding (zero rows) up to width.
 * A group of xg such tiles (full ones, X chunks side by side) stores its
 * pieces Y position by Y position, so each position's line is written whole
 * by consecutive stores. In a rotated nest (LycNest.rot), the full group or
 * chunk that ends the X rows has wrap = rot: its last wrap rows are the next
 * row's first, read LycNest.rot_ss elements further on (wrap_off). */
typedef struct {
  int xt, rows, yv, width, xg, wrap;
} Tile;

/* The source offset added to row `row` of a tile group (chunk c's row r is
 * c * t.rows + r) for the rows that wrap (see Tile). */
static int64_t wrap_off(const LycNest *x, Tile t, int64_t row) {
  return t.wrap && row >= (int64_t)t.xg * t.rows - t.wrap ? x->rot_ss : 0;
}

/* One of the kernel's Y run functions (run_call) and what its body was
 * made for: the nest's content (same_run_nest), not its address. */
typedef struct {
  LycNest x;
  Tile t;
  int ym;
  bool counted; /* the run's length is an argument (a shorter last run) */
  LLVMValueRef fn;
  int calls;
} RunFn;
#define MAX_RUN_FNS 16

typedef struct {
  LycIR ir;
  const LycPlan *p;
  LLVMValueRef src, dst, tid, nth;
  LLVMTypeRef st, dt; /* element storage types: iN */
  bool nt;            /* non-temporal stores in aligned transposes */
  LLVMValueRef stage; /* 32 lines on the stack for nibble_lanes' groups of four chunks */
  LLVMValueRef rows;  /* the stack copy of a run's source rows (plan: stage_rows) */
  LLVMValueRef run_so; /* while tiles read from rows: the run's first element */
  int64_t run_bytes;  /* bytes of each row in rows */
  LycNest ytab_nest; /* a copy of the nest whose Y offsets ytab holds (y_table; no loops: none yet) */
  LLVMValueRef ytab;  /* NULL once ytab_nest is set: its offsets take the digits */
  LLVMValueRef panel;    /* the stack panel of the panel nests (x_piece) */
  LLVMValueRef flush_fn[2]; /* its flush (panel_flush_fn), without and with prefetches */
  RunFn *run_fns; /* the Y runs' functions (run_call), MAX_RUN_FNS of them; NULL: none yet */
  int nrun_fns;
  bool in_run_fn; /* emitting one of them */
} Gen;

static LLVMTypeRef vec(LLVMTypeRef t, int n) { return n ? LLVMVectorType(t, (unsigned)n) : t; }

/* ===== Element conversion ====================================================== */

/* Source-element bits (iN or <n x iN>) to destination-element bits. */
static LLVMValueRef convert(Gen *g, LLVMValueRef v, int n) {
  if (g->p->lookup_bytes && n >= 16 && n % 16 == 0)
    return lyc_emit_convert_lookup(&g->ir, g->p->src->elem, g->p->dst->elem, v, n, g->p->lookup_bytes);
  return lyc_emit_convert(&g->ir, g->p->src->elem, g->p->dst->elem, v, n);
}

/* ===== Memory access ============================================================ */

static LLVMValueRef at(Gen *g, LLVMValueRef base, LLVMValueRef elem_off, int bytes) {
  LLVMValueRef off = lyc_mul_const(&g->ir, elem_off, bytes, "");
  return LLVMBuildGEP2(g->ir.b, g->ir.i8, base, &off, 1, "");
}

static LLVMValueRef load(Gen *g, LLVMTypeRef t, LLVMValueRef ptr) {
  LLVMValueRef v = LLVMBuildLoad2(g->ir.b, t, ptr, "");
  LLVMSetAlignment(v, 1); /* callers' buffers need no alignment */
  return v;
}

static void store(Gen *g, LLVMValueRef v, LLVMValueRef ptr) { LLVMSetAlignment(LLVMBuildStore(g->ir.b, v, ptr), 1); }

/* A store that bypasses the cache; ptr is aligned to the value's size. */
static void store_nt(Gen *g, LLVMValueRef v, LLVMValueRef ptr, unsigned bytes) { lyc_store_nt(&g->ir, v, ptr, bytes); }

static bool is_zero(LLVMValueRef v) { return LLVMIsAConstantInt(v) && LLVMConstIntGetSExtValue(v) == 0; }

static LLVMValueRef add(Gen *g, LLVMValueRef a, LLVMValueRef b) {
  if (is_zero(b))
    return a;
  if (is_zero(a))
    return b;
  return LLVMBuildNSWAdd(g->ir.b, a, b, ""); /* terms of negative strides are negative */
}

/* off + iv * stride */
static LLVMValueRef step(Gen *g, LLVMValueRef off, LLVMValueRef iv, int64_t stride) {
  return stride ? add(g, off, lyc_mul_const(&g->ir, iv, stride, "")) : off;
}

/* Sub-byte elements: the byte holding element `off` of a packed buffer and
 * the element's bit position in it (low bits first). */
static LLVMValueRef packed_at(Gen *g, LLVMValueRef base, LLVMValueRef off, int bits, LLVMValueRef *shift) {
  LLVMValueRef bit = lyc_mul_const(&g->ir, off, bits, "bit");
  *shift = LLVMBuildTrunc(g->ir.b, LLVMBuildAnd(g->ir.b, bit, lyc_i64(&g->ir, 7), ""), g->ir.i8, "sh");
  LLVMValueRef byte = LLVMBuildLShr(g->ir.b, bit, lyc_i64(&g->ir, 3), "byte");
  return LLVMBuildGEP2(g->ir.b, g->ir.i8, base, &byte, 1, "");
}

/* The byte after `ptr` when an element of `bits` at bit `sh` of it
 * straddles into that byte (f6), else `ptr` itself: in bounds either way. */
static LLVMValueRef straddle(Gen *g, LLVMValueRef ptr, LLVMValueRef sh, int bits) {
  LLVMValueRef over = LLVMBuildICmp(g->ir.b, LLVMIntUGT, sh, LLVMConstInt(g->ir.i8, (unsigned)(8 - bits), 0), "");
  LLVMValueRef one = LLVMBuildZExt(g->ir.b, over, g->ir.i64, "");
  return LLVMBuildGEP2(g->ir.b, g->ir.i8, ptr, &one, 1, "");
}

static LLVMValueRef load_elem(Gen *g, LLVMValueRef so) {
  int bits = g->p->sbits;
  if (bits >= 8)
    return load(g, g->st, at(g, g->src, so, g->p->sbytes));
  LLVMBuilderRef b = g->ir.b;
  LLVMValueRef sh, ptr = packed_at(g, g->src, so, bits, &sh), mask = LLVMConstInt(g->ir.i8, (1u << bits) - 1, 0);
  if (8 % bits == 0)
    return LLVMBuildAnd(b, LLVMBuildLShr(b, load(g, g->ir.i8, ptr), sh, ""), mask, "");
  LLVMValueRef lo = LLVMBuildZExt(b, load(g, g->ir.i8, ptr), g->ir.i16, "");
  LLVMValueRef hi = LLVMBuildZExt(b, load(g, g->ir.i8, straddle(g, ptr, sh, bits)), g->ir.i16, "");
  LLVMValueRef w = LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, LLVMConstInt(g->ir.i16, 8, 0), ""), "");
  w = LLVMBuildLShr(b, w, LLVMBuildZExt(b, sh, g->ir.i16, ""), "");
  return LLVMBuildAnd(b, LLVMBuildTrunc(b, w, g->ir.i8, ""), mask, "");
}

/* A sub-byte destination was zeroed first (plan: memset_dst) and is
 * written by one thread, so each element is or-ed into its byte (or, for
 * f6, its two bytes: the second gets zero bits when it does not straddle). */
static void store_elem(Gen *g, LLVMValueRef v, LLVMValueRef dof) {
  int bits = g->p->dbits;
  if (bits >= 8) {
    store(g, v, at(g, g->dst, dof, g->p->dbytes));
    return;
  }
  LLVMBuilderRef b = g->ir.b;
  LLVMValueRef sh, ptr = packed_at(g, g->dst, dof, bits, &sh);
  LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, v, g->ir.i16, ""), LLVMBuildZExt(b, sh, g->ir.i16, ""), "");
  store(g, LLVMBuildOr(b, load(g, g->ir.i8, ptr), LLVMBuildTrunc(b, w, g->ir.i8, ""), ""), ptr);
  if (8 % bits == 0)
    return;
  LLVMValueRef next = straddle(g, ptr, sh, bits);
  LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, w, LLVMConstInt(g->ir.i16, 8, 0), ""), g->ir.i8, "");
  store(g, LLVMBuildOr(b, load(g, g->ir.i8, next), hi, ""), next);
}

static void copy_one(Gen *g, LLVMValueRef so, LLVMValueRef dof) { store_elem(g, convert(g, load_elem(g, so), 0), dof); }

/* ===== Loops and thread split ==================================================== */

/* [0, n) (an i64 value), or this thread's share of it when split:
 * [n*t/T, n*(t+1)/T). */
static void range_of(Gen *g, LLVMValueRef n, bool split, LLVMValueRef *lo, LLVMValueRef *hi) {
  *lo = lyc_i64(&g->ir, 0), *hi = n;
  if (!split)
    return;
  LLVMBuilderRef b = g->ir.b;
  LLVMValueRef t1 = LLVMBuildAdd(b, g->tid, lyc_i64(&g->ir, 1), "");
  *lo = LLVMBuildUDiv(b, LLVMBuildMul(b, n, g->tid, ""), g->nth, "lo");
  *hi = LLVMBuildUDiv(b, LLVMBuildMul(b, n, t1, ""), g->nth, "hi");
}

static void range(Gen *g, int64_t n, bool split, LLVMValueRef *lo, LLVMValueRef *hi) {
  range_of(g, lyc_i64(&g->ir, n), split, lo, hi);
}

static LLVMValueRef open_loop(Gen *g, LycLoopIR *l, int64_t n, bool split, const char *name) {
  LLVMValueRef lo, hi;
  range(g, n, split, &lo, &hi);
  return lyc_loop_begin(&g->ir, l, lo, hi, name);
}

/* if (cond) { then } else { otherwise }: positions the builder in the then
 * block; if_else moves it to the else block, if_end after both (an if with
 * no else still calls if_else: the else block needs its branch). */
typedef struct {
  LLVMBasicBlockRef otherwise, done;
} LycIf;

static void if_begin(Gen *g, LycIf *f, LLVMValueRef cond) {
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->ir.c, g->ir.fn, "then");
  f->otherwise = LLVMAppendBasicBlockInContext(g->ir.c, g->ir.fn, "else");
  f->done = LLVMAppendBasicBlockInContext(g->ir.c, g->ir.fn, "endif");
  LLVMBuildCondBr(g->ir.b, cond, then, f->otherwise);
  LLVMPositionBuilderAtEnd(g->ir.b, then);
}

static void if_else(Gen *g, LycIf *f) {
  LLVMBuildBr(g->ir.b, f->done);
  LLVMPositionBuilderAtEnd(g->ir.b, f->otherwise);
}

static void if_end(Gen *g, LycIf *f) {
  LLVMBuildBr(g->ir.b, f->done);
  LLVMPositionBuilderAtEnd(g->ir.b, f->done);
}

/* Runs what follows only on thread 0 (a nest with no loop to split). */
static LLVMBasicBlockRef only_thread0(Gen *g) {
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(g->ir.c, g->ir.fn, "t0");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ir.c, g->ir.fn, "t0.done");
  LLVMValueRef is0 = LLVMBuildICmp(g->ir.b, LLVMIntEQ, g->tid, lyc_i64(&g->ir, 0), "");
  LLVMBuildCondBr(g->ir.b, is0, run, done);
  LLVMPositionBuilderAtEnd(g->ir.b, run);
  return done;
}

/* ===== Inner forms =============================================================== */

/* A contiguous run of whole destination lines (the planner's `aligned`) in
 * the non-temporal variant: vectors loaded, converted and stored past the
 * cache, line by line, one store a line (f32 -> s8 had four 16-byte ones);
 * threads share it in lines. With ahead, each source line of a destination
 * line is prefetched that many bytes ahead. */
/* The destination line at element e0 of the run, from the source's
 * elements there (prefetched `ahead` bytes ahead), stored past the cache. */
static void contig_line(Gen *g, int ahead, LLVMValueRef so, LLVMValueRef dof, LLVMValueRef e0) {
  int V = g->p->vlen, line = 64 / g->p->dbytes, np = 0;
  LLVMValueRef parts[64];
  for (int q = 0; ahead && q < line * g->p->sbytes; q += 64)
    lyc_prefetch(&g->ir, at(g, g->src, add(g, so, e0), g->p->sbytes), ahead + q);
  for (int j = 0; j < line; j += V) {
    LLVMValueRef e = add(g, e0, lyc_i64(&g->ir, j));
    parts[np++] = convert(g, load(g, vec(g->st, V), at(g, g->src, add(g, so, e), g->p->sbytes)), V);
  }
  store_nt(g, lyc_concat(&g->ir, parts, np), at(g, g->dst, add(g, dof, e0), g->p->dbytes), 64); /* one store a line */
}

static void contig_lines(Gen *g, const LycLoop *x, int ahead, LLVMValueRef so, LLVMValueRef dof, bool split) {
  LycLoopIR l;
  LLVMValueRef b = open_loop(g, &l, x->n / (64 / g->p->dbytes), split, "line");
  contig_line(g, ahead, so, dof, lyc_mul_const(&g->ir, b, 64 / g->p->dbytes, ""));
  lyc_loop_end(&g->ir, &l);
}

/* Elements [lo, hi) of a run (i64 values), one at a time. */
static void copy_range(Gen *g, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef so, LLVMValueRef dof) {
  LycLoopIR l;
  LLVMValueRef i = lyc_loop_begin(&g->ir, &l, lo, hi, "c");
  copy_one(g, add(g, so, i), add(g, dof, i));
  lyc_loop_end(&g->ir, &l);
}

/* A contiguous run of whole destination lines with a conversion (the
 * planner's `aligned`) in the plain variant, whose destination is not
 * 64-byte aligned: when the run's first element is whole elements off a
 * line, the elements before the first line boundary go one at a time
 * (thread 0), the whole lines after it as in contig_lines (threads share
 * them), the rest one at a time (the last thread); otherwise all one at a
 * time. f32 -> s8 nchw 32x64x56x56 into a destination 16 bytes off,
 * interleaved: 25-27 GB/s with its stores through the cache, 31-36 so
 * (aligned, in the same runs: 35-38). */
static void contig_shifted(Gen *g, const LycLoop *x, int ahead, LLVMValueRef so, LLVMValueRef dof, bool split) {
  LycIR *ir = &g->ir;
  LLVMBuilderRef b = ir->b;
  int db = g->p->dbytes, line = 64 / db;
  LLVMValueRef n = lyc_i64(ir, x->n), zero = lyc_i64(ir, 0);
  LLVMValueRef m = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, at(g, g->dst, dof, db), ir->i64, ""), lyc_i64(ir, 63), "");
  LLVMValueRef whole = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, m, lyc_i64(ir, db - 1), ""), zero, "");
  LycIf f;
  if_begin(g, &f, whole);
  {
    LLVMValueRef e = lyc_div_const(ir, LLVMBuildAnd(b, LLVMBuildSub(b, lyc_i64(ir, 64), m, ""), lyc_i64(ir, 63), ""),
                                   db, "head");
    e = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, e, n, ""), n, e, "");
    LLVMValueRef nl = lyc_div_const(ir, LLVMBuildSub(b, n, e, ""), line, "lines");
    LLVMValueRef lo, hi, first = LLVMConstInt(ir->i1, 1, 0), last = first;
    range_of(g, nl, split, &lo, &hi);
    if (split) {
      first = LLVMBuildICmp(b, LLVMIntEQ, g->tid, zero, "");
      last = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAdd(b, g->tid, lyc_i64(ir, 1), ""), g->nth, "");
    }
    LycIf fh, ft;
    if_begin(g, &fh, first);
    copy_range(g, zero, e, so, dof);
    if_else(g, &fh);
    if_end(g, &fh);
    LycLoopIR l;
    LLVMValueRef k = lyc_loop_begin(ir, &l, lo, hi, "line");
    contig_line(g, ahead, so, dof, add(g, e, lyc_mul_const(ir, k, line, "")));
    lyc_loop_end(ir, &l);
    if_begin(g, &ft, last);
    copy_range(g, add(g, e, lyc_mul_const(ir, nl, line, "")), n, so, dof);
    if_else(g, &ft);
    if_end(g, &ft);
  }
  if_else(g, &f);
  {
    LLVMValueRef lo, hi;
    range(g, x->n, split, &lo, &hi);
    copy_range(g, lo, hi, so, dof);
  }
  if_end(g, &f);
}

static void contig_packed(Gen *g, const LycNest *nest, const LycLoop *x, LLVMValueRef so, LLVMValueRef dof, bool split);

static void inner_contig(Gen *g, const LycNest *nest, const LycLoop *x, LLVMValueRef so, LLVMValueRef dof, bool split) {
  if (nest->packed) {
    contig_packed(g, nest, x, so, dof, split);
    return;
  }
  if (g->nt && nest->aligned) {
    contig_lines(g, x, nest->prefetch, so, dof, split);
    return;
  }
  if (nest->aligned && g->p->nt && g->p->src->elem != g->p->dst->elem) { /* the plain variant */
    contig_shifted(g, x, nest->prefetch, so, dof, split);
    return;
  }
  if (g->p->src->elem == g->p->dst->elem) { /* one memcpy of this thread's share */
    LLVMValueRef lo, hi;
    range(g, x->n, split, &lo, &hi);
    LLVMValueRef len = lyc_mul_const(&g->ir, LLVMBuildSub(g->ir.b, hi, lo, ""), g->p->sbytes, "len");
    LLVMBuildMemCpy(g->ir.b, at(g, g->dst, add(g, dof, lo), g->p->dbytes), 1, at(g, g->src, add(g, so, lo), g->p->sbytes),
                    1, len);
    return;
  }
  LycLoopIR l;
  LLVMValueRef i = open_loop(g, &l, x->n, split, "c");
  copy_one(g, add(g, so, i), add(g, dof, i));
  lyc_loop_end(&g->ir, &l);
}

/* ===== Transposes in registers ===================================================
 *
 * zip(v, x, V) interleaves x vectors of V lanes (x a power of two <= V):
 * element j of v[i] goes to position o = j*x + i of the result, that is
 * vector o / V, lane o % V. Name the bits of i (r of them) i0.. and of j
 * (l of them) j0..; then every element's place is a choice of which bit
 * sits at each lane-bit and vector-bit position: at the start the lanes
 * hold j0..j(l-1) and the vectors i0..i(r-1); at the end the lanes hold
 * i0..i(r-1) j0..j(l-r-1) and the vectors the rest. A stage shuffles
 * vector pairs differing in one vector bit and exchanges that bit with a
 * lane bit; its masks follow from the placements before and after it.
 *
 * Machines shuffle cheaply within 128-bit lanes (unpack: the pair bit
 * enters at lane bit 0 and the within-lane bits move up one) and across
 * them by whole 128-bit blocks (the pair bit enters the top block bit, the
 * other block bits in any order). A full-width interleave of halves can do
 * every stage alone, but for elements under 32 bits it is a two-table
 * permute with a constant index vector (vpermt2b, vpermt2w), slower to run
 * and far slower for LLVM to compile. So the network uses unpacks for the
 * within-lane bits and block shuffles for the rest when that takes no more
 * stages (full transposes, x = V, and vectors of at most 16 bytes), and
 * interleaves of halves otherwise. */
#define ZIP_MAXBITS 12

typedef struct {
  int at[ZIP_MAXBITS]; /* the logical bit at each position: lanes 0..l-1, then vector bits */
} ZipState;

typedef struct {
  ZipState s[ZIP_MAXBITS + 1]; /* s[0] the start, s[k] after stage k */
  int pair[ZIP_MAXBITS];       /* the vector bit each stage pairs on */
  int n, l, r;
} ZipNet;

static int position_of(const ZipState *s, int nbits, int bit) {
  for (int p = 0; p < nbits; p++)
    if (s->at[p] == bit)
      return p;
  return -1;
}

/* The in-lane network for x vectors of V elements of ebits each; false
 * when it would take more stages than the interleave of halves. Logical
 * bits: i_k is k, j_k is r + k, so that lane bit p ends holding bit p.
 * Relaxed, it only brings every bit of i into the lanes, the other lane
 * bits left as they fall: each vector then holds whole rows' runs of x
 * elements, in an order its caller reads from the final placement. */
static bool inlane_net(ZipNet *z, int x, int V, int ebits, bool relaxed) {
  int l = lyc_log2_ceil(V), r = lyc_log2_ceil(x), w = ebits <= 128 ? lyc_log2_ceil(128 / ebits) : 0, nb = l + r;
  if (w > l)
    w = l;
  if (nb > ZIP_MAXBITS)
    return false;
  z->l = l, z->r = r, z->n = 0;
  ZipState cur;
  for (int p = 0; p < l; p++)
    cur.at[p] = r + p;
  for (int k = 0; k < r; k++)
    cur.at[l + k] = k;
  z->s[0] = cur;
  /* Unpacks: i(min(r,w)-1) .. i0 enter at lane bit 0. */
  for (int k = (r < w ? r : w) - 1; k >= 0; k--) {
    int q = position_of(&cur, nb, k) - l, top = cur.at[w - 1];
    for (int p = w - 1; p > 0; p--)
      cur.at[p] = cur.at[p - 1];
    cur.at[0] = k, cur.at[l + q] = top;
    z->pair[z->n] = q, z->s[++z->n] = cur;
  }
  /* Block shuffles: each brings one missing target bit in at the top
   * block bit and drops one bit the blocks do not keep. */
  while (relaxed) { /* any missing bit of i in, any bit of j out */
    int need = -1, drop = -1;
    for (int k = 0; k < r && need < 0; k++)
      if (position_of(&cur, nb, k) >= l)
        need = k;
    if (need < 0)
      break;
    for (int p = w; p < l && drop < 0; p++)
      if (cur.at[p] >= r)
        drop = p;
    LY_ASSERT(drop >= 0);
    int q = position_of(&cur, nb, need) - l, kept = w;
    ZipState nx = cur;
    for (int p = w; p < l; p++)
      if (p != drop)
        nx.at[kept++] = cur.at[p];
    nx.at[l - 1] = need, nx.at[l + q] = cur.at[drop];
    cur = nx;
    z->pair[z->n] = q, z->s[++z->n] = cur;
  }
  while (!relaxed) {
    int need = -1, drop = -1; /* the top block bit's target comes last */
    for (int p = w; p < l && need < 0; p++)
      if (position_of(&cur, nb, p) >= l && (p < l - 1 || need < 0))
        need = p;
    if (need < 0)
      break;
    for (int p = w; p < l && drop < 0; p++)
      if (cur.at[p] < w || cur.at[p] >= l)
        drop = p;
    LY_ASSERT(drop >= 0);
    int q = position_of(&cur, nb, need) - l, rest[ZIP_MAXBITS], nrest = 0;
    for (int p = w; p < l; p++)
      if (p != drop)
        rest[nrest++] = cur.at[p];
    bool last = true; /* whether this stage completes the blocks */
    for (int p = w; p < l; p++)
      if (p != need && position_of(&cur, nb, p) >= l)
        last = false;
    ZipState nx = cur;
    if (last) { /* the final order: target order, need at the top */
      if (need != l - 1)
        return false; /* the top block bit must be the new one */
      for (int p = w; p < l - 1; p++)
        nx.at[p] = p;
    } else
      for (int p = w; p < l - 1; p++)
        nx.at[p] = rest[p - w];
    nx.at[l - 1] = need, nx.at[l + q] = cur.at[drop];
    cur = nx;
    z->pair[z->n] = q, z->s[++z->n] = cur;
  }
  for (int p = 0; p < (relaxed ? r : l); p++)
    if (position_of(&cur, nb, p) != p && (!relaxed || position_of(&cur, nb, p) >= l))
      return false;
  return z->n <= r;
}

/* The shuffle of a and b (V-lane mask m: lanes of a, then of b) applied to
 * each of the nb V-lane blocks of a and b (nb = 1: the shuffle itself). */
static LLVMValueRef shuffle_blocks(Gen *g, LLVMValueRef a, LLVMValueRef b, const LLVMValueRef *m, int V, int nb,
                                   const char *name) {
  if (nb == 1)
    return LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector((LLVMValueRef *)m, (unsigned)V), name);
  LLVMValueRef w[64];
  for (int c = 0; c < nb; c++)
    for (int lo = 0; lo < V; lo++) {
      unsigned i = (unsigned)LLVMConstIntGetZExtValue(m[lo]);
      w[c * V + lo] = LLVMConstInt(g->ir.i32, i < (unsigned)V ? c * V + i : nb * V + c * V + i - V, 0);
    }
  return LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector(w, (unsigned)(nb * V)), name);
}

/* Runs the network's stages: stage k takes placements s[k] to s[k + 1];
 * lane `lo` of output vector vo comes from the element whose bits, placed
 * as in s[k + 1], give (vo, lo). Vectors of `blocks` blocks of V lanes run
 * it in each block (shuffle_blocks). */
static void net_stages(Gen *g, const ZipNet *z, LLVMValueRef *v, int x, int V, int blocks) {
  int l = z->l, r = z->r, nb = l + r;
  LLVMValueRef t[64], m[64];
  for (int k = 0; k < z->n; k++) {
    const ZipState *Q = &z->s[k + 1];
    int from[ZIP_MAXBITS], bit = 1 << z->pair[k];
    for (int p = 0; p < nb; p++)
      from[p] = position_of(&z->s[k], nb, Q->at[p]);
    for (int vo = 0; vo < x; vo++) {
      int a = vo & ~bit, b = vo | bit;
      for (int lo = 0; lo < V; lo++) {
        int phys = vo << l | lo, in = 0;
        for (int p = 0; p < nb; p++)
          in |= (phys >> p & 1) << from[p];
        LY_ASSERT((in >> l) == a || (in >> l) == b);
        m[lo] = LLVMConstInt(g->ir.i32, (unsigned)((in & (V - 1)) + ((in >> l) == b ? V : 0)), 0);
      }
      t[vo] = shuffle_blocks(g, v[a], v[b], m, V, blocks, "net");
    }
    memcpy(v, t, x * sizeof *v);
  }
}

/* Runs the network and puts its results in the order of zip(). */
static void run_net(Gen *g, const ZipNet *z, LLVMValueRef *v, int x, int V, int nb) {
  int l = z->l, r = z->r;
  LLVMValueRef t[64];
  net_stages(g, z, v, x, V, nb);
  /* Result k is the vector whose bits j(l-r).. (logical l..) spell k. */
  for (int k = 0; k < x; k++) {
    int phys = 0;
    for (int q = 0; q < r; q++) {
      int bit = z->s[z->n].at[l + q];
      LY_ASSERT(bit >= l);
      phys |= (k >> (bit - l) & 1) << q;
    }
    t[k] = v[phys];
  }
  memcpy(v, t, x * sizeof *v);
}

/* Shuffle mask picking, from the concatenation of two V-vectors, the
 * interleave of their halves (hi: second halves). */
static void zip_mask(Gen *g, int V, bool hi, LLVMValueRef *m) {
  for (int j = 0; j < V; j++) {
    int src = (hi ? V / 2 : 0) + j / 2 + (j & 1 ? V : 0);
    m[j] = LLVMConstInt(g->ir.i32, (unsigned)src, 0);
  }
}

/* Interleaves x vectors (x a power of two <= V): afterwards v[k] holds
 * elements [k*V, (k+1)*V) of v0[0] v1[0] .. v{x-1}[0] v0[1] ... With nb
 * blocks of V lanes per vector, each block is interleaved on its own. */
static void zip_blocks(Gen *g, LLVMValueRef *v, int x, int V, int nb) {
  LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(v[0]));
  ZipNet z;
  if (LLVMGetTypeKind(et) == LLVMIntegerTypeKind && inlane_net(&z, x, V, (int)LLVMGetIntTypeWidth(et), false)) {
    run_net(g, &z, v, x, V, nb);
    return;
  }
  LLVMValueRef lo[64], hi[64], t[64];
  zip_mask(g, V, false, lo);
  zip_mask(g, V, true, hi);
  for (int stage = 1; stage < x; stage *= 2) {
    for (int i = 0; i < x / 2; i++) {
      t[2 * i] = shuffle_blocks(g, v[i], v[i + x / 2], lo, V, nb, "zlo");
      t[2 * i + 1] = shuffle_blocks(g, v[i], v[i + x / 2], hi, V, nb, "zhi");
    }
    memcpy(v, t, x * sizeof *v);
  }
}

static void zip(Gen *g, LLVMValueRef *v, int x, int V) { zip_blocks(g, v, x, V, 1); }

/* The destination offsets of a Y group of several loops (ny > 1) of at most
 * Y_TABLE_MAX positions, as a constant i32 table (NULL for a larger group,
 * or offsets past i32). Computed from the digits, each of a tile's V
 * stores took a division and a remainder by each inner extent (OIhw16i16o:
 * the (i, hw) position by 9, 16 of each a tile); from the table it takes
 * one load. A position known at compile time (zip_sweep's unrolled runs)
 * folds to a constant either way. On this project's Emerald Rapids VM,
 * interleaved old/new, OIhw -> OIhw16i16o: 64x64x5x5 (in the cache) 37-38
 * -> 42-43.5 GB/s, 512x512x3x3 (past it) 18.7-23.2 -> 21-24.6; compile
 * 53-57 -> 33-40 ms and 55-90 -> 53-57 ms. */
#define Y_TABLE_MAX 4096

/* Destination offset of position y of the Y group from its digits; a
 * constant y folds to a constant (the builder folds constant operands). */
static LLVMValueRef y_digits_offset(Gen *g, const LycNest *x, LLVMValueRef y) {
  int first = x->nloops - 1 - x->ny, last = x->nloops - 2;
  LLVMValueRef off = lyc_i64(&g->ir, 0);
  for (int i = last; i >= first; i--) {
    const LycLoop *l = &x->loops[i];
    LLVMValueRef digit = i == first ? y : lyc_rem_const(&g->ir, y, l->n, "ydig");
    off = step(g, off, digit, l->ds);
    if (i != first)
      y = lyc_div_const(&g->ir, y, l->n, "yq");
  }
  return off;
}

static bool same_y_group(const LycNest *a, const LycNest *b) {
  if (a->ny != b->ny)
    return false;
  for (int k = 0; k < a->ny; k++) {
    const LycLoop *la = &a->loops[a->nloops - 2 - k], *lb = &b->loops[b->nloops - 2 - k];
    if (la->n != lb->n || la->ds != lb->ds)
      return false;
  }
  return true;
}

static LLVMValueRef y_table(Gen *g, const LycNest *x) {
  /* The nests of a box product share theirs. The key is a copy: a panel's
   * or a block's nest lives on the stack, and a later copy at the same
   * address with another Y group would have found this table. */
  if (g->ytab_nest.nloops && same_y_group(&g->ytab_nest, x))
    return g->ytab;
  g->ytab_nest = *x, g->ytab = NULL;
  int first = x->nloops - 1 - x->ny, last = x->nloops - 2;
  int64_t n = 1;
  for (int i = first; i <= last; i++) {
    if (x->loops[i].n > Y_TABLE_MAX / n)
      return NULL;
    n *= x->loops[i].n;
  }
  LLVMValueRef *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return NULL; /* the digits then */
  bool fits = true;
  for (int64_t y = 0; y < n && fits; y++) {
    LLVMValueRef c = y_digits_offset(g, x, lyc_i64(&g->ir, y));
    int64_t off = LLVMIsAConstantInt(c) ? LLVMConstIntGetSExtValue(c) : INT64_MAX;
    fits = off >= INT32_MIN && off <= INT32_MAX;
    v[y] = LLVMConstInt(g->ir.i32, (unsigned long long)off, 1);
  }
  if (fits) {
    LLVMTypeRef at = LLVMArrayType2(g->ir.i32, (uint64_t)n);
    g->ytab = LLVMAddGlobal(g->ir.m, at, "ly_y_offsets");
    LLVMSetInitializer(g->ytab, LLVMConstArray2(g->ir.i32, v, (uint64_t)n));
    LLVMSetGlobalConstant(g->ytab, 1);
    LLVMSetLinkage(g->ytab, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g->ytab, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g->ytab, 64);
  }
  free(v);
  return g->ytab;
}

/* Destination offset of position y of the Y group (the ny loops before X,
 * outermost in source order first; the innermost has source stride 1):
 * from the group's table (y_table) where it has one, else from the digits. */
static LLVMValueRef y_dst_offset(Gen *g, const LycNest *x, LLVMValueRef y) {
  LLVMValueRef tab = LLVMIsConstant(y) ? NULL : y_table(g, x);
  if (!tab)
    return y_digits_offset(g, x, y);
  LLVMValueRef e = LLVMBuildLoad2(g->ir.b, g->ir.i32, LLVMBuildGEP2(g->ir.b, g->ir.i32, tab, &y, 1, ""), "yoff");
  LLVMSetAlignment(e, 4);
  return LLVMBuildSExt(g->ir.b, e, g->ir.i64, "");
}

/* Destination offset of Y position y0 + y of a tile group, relative to the
 * group's dof (which already holds y0's when the Y group is one loop). */
static LLVMValueRef y_position_offset(Gen *g, const LycNest *x, LLVMValueRef y0, int y) {
  return x->ny == 1 ? lyc_i64(&g->ir, y * x->loops[x->nloops - 2].ds) : y_dst_offset(g, x, add(g, y0, lyc_i64(&g->ir, y)));
}

/* The most lanes of a constant mask or vector the helpers below build (a
 * chunk of a contiguous sub-byte run: 512 i1 elements). */
#define MAX_LANES 512

/* n lanes of the integer constant c of type t. */
static LLVMValueRef splat_int(LLVMTypeRef t, unsigned c, int n) {
  LLVMValueRef m[MAX_LANES];
  for (int i = 0; i < n; i++)
    m[i] = LLVMConstInt(t, c, 0);
  return LLVMConstVector(m, (unsigned)n);
}

static LLVMValueRef splat_i8(Gen *g, unsigned c, int n) { return splat_int(g->ir.i8, c, n); }

static LLVMValueRef lane_mask(Gen *g, int n, int valid) {
  LLVMValueRef m[MAX_LANES];
  for (int i = 0; i < n; i++)
    m[i] = LLVMConstInt(g->ir.i1, i < valid, 0);
  return LLVMConstVector(m, (unsigned)n);
}

/* Loads or stores only the first `valid` lanes: the rest may lie past the
 * end of the buffer (masked lanes never fault). */
static LLVMValueRef masked_load(Gen *g, LLVMTypeRef vt, LLVMValueRef ptr, int n, int valid) {
  LLVMTypeRef tys[] = {vt, g->ir.ptr};
  LLVMValueRef args[] = {ptr, LLVMConstInt(g->ir.i32, 1, 0), lane_mask(g, n, valid), LLVMConstNull(vt)};
  return lyc_intrinsic(&g->ir, "llvm.masked.load", tys, 2, args, 4);
}

static void masked_store(Gen *g, LLVMValueRef v, LLVMValueRef ptr, int n, int valid) {
  LLVMTypeRef tys[] = {LLVMTypeOf(v), g->ir.ptr};
  LLVMValueRef args[] = {v, ptr, LLVMConstInt(g->ir.i32, 1, 0), lane_mask(g, n, valid)};
  lyc_intrinsic(&g->ir, "llvm.masked.store", tys, 2, args, 4);
}

/* Packed vector j of a tile whose destination run is contiguous across Y
 * (rows elements per position): element e of the run is row e % rows of
 * position e / rows, found in zip result (y / per) at lane (y % per)*xt + row.
 * With rows > xt/2 one packed vector draws on at most three results. */
static LLVMValueRef packed_vector(Gen *g, LLVMValueRef *out, int nout, Tile t, int V, int j) {
  int per = V / t.xt, total = t.yv * t.width, kmin = (j * V / t.width) / per;
  LLVMValueRef src[4], m[64];
  for (int i = 0; i < 4; i++)
    src[i] = kmin + i < nout ? out[kmin + i] : LLVMGetUndef(LLVMTypeOf(out[0]));
  for (int l = 0; l < V; l++) {
    int e = j * V + l, y = e / t.width, k = y / per;
    bool ok = e < total && k - kmin < 4;
    LY_ASSERT(e >= total || ok);
    m[l] = ok ? LLVMConstInt(g->ir.i32, (unsigned)((k - kmin) * V + (y % per) * t.xt + e % t.width), 0)
              : LLVMGetUndef(g->ir.i32);
  }
  LLVMValueRef lo[128], hi[128];
  for (int l = 0; l < 2 * V; l++)
    lo[l] = LLVMConstInt(g->ir.i32, (unsigned)l, 0), hi[l] = lo[l];
  LLVMValueRef cat = LLVMConstVector(lo, (unsigned)(2 * V));
  LLVMValueRef a = LLVMBuildShuffleVector(g->ir.b, src[0], src[1], cat, "cat");
  LLVMValueRef b = LLVMBuildShuffleVector(g->ir.b, src[2], src[3], LLVMConstVector(hi, (unsigned)(2 * V)), "cat");
  return LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector(m, (unsigned)V), "packed");
}

/* Sub-byte elements, k = 8 / bits to a byte (low bits first), between a
 * byte vector and one element per i8 lane in its low bits. i4 and i2
 * unpack in lanes of k bytes that hold their byte k times: field i,
 * shifted down by i * bits, lands in byte i and is masked there. x86 has
 * no byte shift by lane, and LLVM widened the per-lane shift to words and
 * packed it back (six shuffles a vector): in the cache, i4 -> i8 41-45 ->
 * 55-59 GB/s, i4 -> bf16 36-41 -> 41-50, i4 -> f16 38-43 -> 46-49, i2 ->
 * i8 34-40 -> 36-47; past the cache (4096x4096 -> bf16) no change. i1's
 * eight fields in 64-bit lanes ran slower (26-31 -> 16-18); its lanes test
 * their bit instead (VPTESTMB, then 0 or 1 by the mask): i1 -> i8 30-34 ->
 * 36-46, i1 -> bf16 29.5-30 -> 34-42, i1 -> f32 within the noise. */
static LLVMValueRef unpack_bytes(Gen *g, LLVMValueRef bytes, int bits, int n) {
  int k = 8 / bits;
  LLVMValueRef idx[MAX_LANES];
  for (int l = 0; l < n; l++)
    idx[l] = LLVMConstInt(g->ir.i32, (unsigned)(l / k), 0);
  LLVMValueRef v = LLVMBuildShuffleVector(g->ir.b, bytes, LLVMGetUndef(LLVMTypeOf(bytes)), LLVMConstVector(idx, (unsigned)n), "unpack");
  if (n % k == 0 && bits >= 2) {
    LLVMTypeRef lt = LLVMIntTypeInContext(g->ir.c, (unsigned)(8 * k));
    LLVMValueRef w = LLVMBuildBitCast(g->ir.b, v, vec(lt, n / k), ""), r = NULL;
    for (int i = 0; i < k; i++) {
      LLVMValueRef f = i ? LLVMBuildLShr(g->ir.b, w, splat_int(lt, (unsigned)(i * bits), n / k), "") : w;
      f = LLVMBuildAnd(g->ir.b, f, splat_int(lt, ((1u << bits) - 1) << (8 * i), n / k), "");
      r = r ? LLVMBuildOr(g->ir.b, r, f, "fields") : f;
    }
    return LLVMBuildBitCast(g->ir.b, r, vec(g->ir.i8, n), "");
  }
  if (bits == 1) { /* each lane's bit tested: a mask, widened to 0 or 1 */
    LLVMValueRef bit[MAX_LANES];
    for (int l = 0; l < n; l++)
      bit[l] = LLVMConstInt(g->ir.i8, 1u << (l % 8), 0);
    LLVMValueRef t = LLVMBuildAnd(g->ir.b, v, LLVMConstVector(bit, (unsigned)n), "");
    return LLVMBuildZExt(g->ir.b, LLVMBuildICmp(g->ir.b, LLVMIntNE, t, LLVMConstNull(LLVMTypeOf(t)), ""), vec(g->ir.i8, n), "bits");
  }
  LLVMValueRef sh[MAX_LANES]; /* a lane count that splits a byte: each lane shifted by its own amount */
  for (int l = 0; l < n; l++)
    sh[l] = LLVMConstInt(g->ir.i8, (unsigned)(l % k * bits), 0);
  v = LLVMBuildLShr(g->ir.b, v, LLVMConstVector(sh, (unsigned)n), "");
  return LLVMBuildAnd(g->ir.b, v, splat_i8(g, (1u << bits) - 1, n), "");
}

static LLVMValueRef pack_bytes(Gen *g, LLVMValueRef v, int bits, int n) {
  int k = 8 / bits, nb = n / k;
  LLVMValueRef acc = NULL, idx[MAX_LANES], sh[MAX_LANES];
  v = LLVMBuildAnd(g->ir.b, v, splat_i8(g, (1u << bits) - 1, n), "");
  for (int i = 0; i < k; i++) {
    for (int j = 0; j < nb; j++) {
      idx[j] = LLVMConstInt(g->ir.i32, (unsigned)(j * k + i), 0);
      sh[j] = LLVMConstInt(g->ir.i8, (unsigned)(i * bits), 0);
    }
    LLVMValueRef part = LLVMBuildShuffleVector(g->ir.b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, (unsigned)nb), "pick");
    part = i ? LLVMBuildShl(g->ir.b, part, LLVMConstVector(sh, (unsigned)nb), "") : part;
    acc = acc ? LLVMBuildOr(g->ir.b, acc, part, "pack") : part;
  }
  return acc;
}

/* ===== Contiguous runs of sub-byte elements ========================================
 *
 * A run contiguous on both sides that starts on a byte on each packed side
 * and fills whole destination bytes (plan: contig bytes) goes in chunks of
 * E elements, E filling 64 bytes of the narrower side (at most a kilobyte
 * of the wider): a chunk's bytes are loaded, unpacked to a lane per element
 * (sub-byte source), converted, packed back (sub-byte destination) and
 * stored; threads share the chunks. The last, partial chunk loads and
 * stores only its bytes (masked), with zero in the lanes past the run, so
 * the bits of the destination's last byte that no element holds stay zero.
 * Past the cache, full chunks of whole lines on lines are stored past it
 * (plan: contig aligned bytes). Before, such runs took scalar loops: i4 ->
 * i8 1000x1000 5.4 GB/s. */
/* The byte offset of packed element offset base + off, both multiples of
 * the elements a byte holds: base shifted, off added after, so the rows or
 * Y positions of a tile share one shift (and the optimiser one shift of a
 * value). A shift of each sum instead made scalar evolution in the loop
 * passes most of the compile: i4 1000x1000 transposed 530-690 -> 190 ms,
 * 4000x3000 505 -> 245 (interleaved runs, medians of 5). */
static LLVMValueRef packed_byte(Gen *g, LLVMValueRef base, int64_t off, int bits) {
  int k = 8 / bits;
  LY_ASSERT(off % k == 0);
  return add(g, lyc_div_const(&g->ir, base, k, "byte"), lyc_i64(&g->ir, off / k));
}

/* The source address of element offset so + off: packed, its byte
 * (packed_byte; an element offset would point twice as far or more). */
static LLVMValueRef src_at(Gen *g, LLVMValueRef so, int64_t off) {
  if (g->p->sbits >= 8)
    return at(g, g->src, add(g, so, lyc_i64(&g->ir, off)), g->p->sbytes);
  LLVMValueRef byte = packed_byte(g, so, off, g->p->sbits);
  return LLVMBuildGEP2(g->ir.b, g->ir.i8, g->src, &byte, 1, "");
}

/* V sub-byte source elements from ptr (src_at), one per i8 lane; only
 * the bytes of the first `valid` are read (a last byte they share with
 * later elements whole). */
static LLVMValueRef load_unpacked(Gen *g, LLVMValueRef ptr, int V, int valid) {
  int bits = g->p->sbits, nb = V * bits / 8, vb = (valid * bits + 7) / 8;
  LLVMTypeRef bt = vec(g->ir.i8, nb);
  return unpack_bytes(g, vb == nb ? load(g, bt, ptr) : masked_load(g, bt, ptr, nb, vb), bits, V);
}

/* E source elements from element offset so (sub-byte: so a multiple of the
 * elements per byte), one per lane; only the first `valid` are read. */
static LLVMValueRef load_chunk(Gen *g, LLVMValueRef so, int E, int valid) {
  if (g->p->sbits < 8)
    return load_unpacked(g, src_at(g, so, 0), E, valid);
  LLVMTypeRef vt = vec(g->st, E);
  LLVMValueRef ptr = at(g, g->src, so, g->p->sbytes);
  return valid == E ? load(g, vt, ptr) : masked_load(g, vt, ptr, E, valid);
}

/* Stores v (n lanes, `bytes` bytes, a multiple of 64) at ptr, a line at a
 * time past the cache; ptr is on a line. */
static void store_lines_nt(Gen *g, LLVMValueRef v, int n, int bytes, LLVMValueRef ptr) {
  int per = n * 64 / bytes;
  LLVMValueRef m[64];
  for (int q = 0; q < bytes / 64; q++) {
    for (int l = 0; l < per; l++)
      m[l] = LLVMConstInt(g->ir.i32, (unsigned)(q * per + l), 0);
    LLVMValueRef piece = per == n ? v : LLVMBuildShuffleVector(g->ir.b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(m, (unsigned)per), "line");
    LLVMValueRef off = lyc_i64(&g->ir, (int64_t)q * 64);
    store_nt(g, piece, LLVMBuildGEP2(g->ir.b, g->ir.i8, ptr, &off, 1, ""), 64);
  }
}

/* Stores the first `valid` of E destination elements v at element offset
 * dof + off (sub-byte: packed, both multiples of the elements per byte, the
 * lanes past `valid` zeroed so a partial last byte gets zero bits); a full
 * chunk past the cache when nt (its bytes are whole lines, on a line). */
static void store_chunk(Gen *g, LLVMValueRef v, LLVMValueRef dof, int64_t off, int E, int valid, bool nt) {
  int bits = g->p->dbits;
  if (bits >= 8) {
    LLVMValueRef ptr = at(g, g->dst, add(g, dof, lyc_i64(&g->ir, off)), g->p->dbytes);
    if (valid == E && nt)
      store_lines_nt(g, v, E, E * g->p->dbytes, ptr);
    else if (valid == E)
      store(g, v, ptr);
    else
      masked_store(g, v, ptr, E, valid);
    return;
  }
  int nb = E * bits / 8, vb = (valid * bits + 7) / 8;
  if (valid < E)
    v = LLVMBuildSelect(g->ir.b, lane_mask(g, E, valid), v, LLVMConstNull(LLVMTypeOf(v)), "");
  v = pack_bytes(g, v, bits, E);
  LLVMValueRef byte = packed_byte(g, dof, off, bits);
  LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
  if (vb == nb && nt)
    store_lines_nt(g, v, nb, nb, ptr);
  else if (vb == nb)
    store(g, v, ptr);
  else
    masked_store(g, v, ptr, nb, vb);
}

static void contig_packed(Gen *g, const LycNest *nest, const LycLoop *x, LLVMValueRef so, LLVMValueRef dof, bool split) {
  int E = lyc_contig_chunk(g->p);
  bool nt = g->nt && nest->aligned;
  int64_t nchunks = x->n / E;
  int rest = (int)(x->n % E);
  if (g->p->src->elem == g->p->dst->elem) { /* whole bytes of one element type: memcpy */
    int k = 8 / g->p->sbits;
    LLVMValueRef lo, hi;
    range(g, (x->n + k - 1) / k, split, &lo, &hi);
    LLVMValueRef s0 = add(g, lyc_div_const(&g->ir, so, k, "byte"), lo), d0 = add(g, lyc_div_const(&g->ir, dof, k, "byte"), lo);
    LLVMBuildMemCpy(g->ir.b, LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &d0, 1, ""), 1,
                    LLVMBuildGEP2(g->ir.b, g->ir.i8, g->src, &s0, 1, ""), 1, LLVMBuildSub(g->ir.b, hi, lo, "len"));
    return;
  }
  if (nchunks) {
    LycLoopIR l;
    LLVMValueRef c = open_loop(g, &l, nchunks, split, "chunk");
    LLVMValueRef e = lyc_mul_const(&g->ir, c, E, "");
    store_chunk(g, convert(g, load_chunk(g, add(g, so, e), E, E), E), add(g, dof, e), 0, E, E, nt);
    lyc_loop_end(&g->ir, &l);
  }
  if (rest) {
    LLVMBasicBlockRef done = split ? only_thread0(g) : NULL;
    LLVMValueRef e = lyc_i64(&g->ir, nchunks * E);
    store_chunk(g, convert(g, load_chunk(g, add(g, so, e), E, rest), E), add(g, dof, e), 0, E, rest, false);
    if (done) {
      LLVMBuildBr(g->ir.b, done);
      LLVMPositionBuilderAtEnd(g->ir.b, done);
    }
  }
}

/* Stores n destination elements v at element offset dof + off (sub-byte:
 * packed into n*bits/8 bytes; both are then multiples of the elements per
 * byte, packed_byte). */
static void store_run(Gen *g, LLVMValueRef v, LLVMValueRef dof, int64_t off, int n, bool nt) {
  int bits = g->p->dbits;
  LLVMValueRef ptr;
  if (bits < 8) {
    v = pack_bytes(g, v, bits, n);
    LLVMValueRef byte = packed_byte(g, dof, off, bits);
    ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
  } else
    ptr = at(g, g->dst, add(g, dof, lyc_i64(&g->ir, off)), g->p->dbytes);
  if (nt)
    store_nt(g, v, ptr, (unsigned)(n * bits / 8));
  else
    store(g, v, ptr);
}

/* Stores the tile when its destination run is contiguous across Y. */
static void store_packed(Gen *g, const LycNest *x, LLVMValueRef *out, Tile t, LLVMValueRef dof, bool full) {
  int V = g->p->vlen, total = t.yv * t.width;
  for (int j = 0; j * V < total; j++) {
    LLVMValueRef v = t.width == t.xt ? out[j] : packed_vector(g, out, t.xt, t, V, j);
    int64_t off = (int64_t)j * V;
    int count = total - j * V < V ? total - j * V : V;
    LY_ASSERT(g->p->dbits >= 8 || count % (8 / g->p->dbits) == 0);
    if (count < V) /* the last Y block of a partial tile (sub-byte: count fills bytes) */
      store_chunk(g, v, dof, off, V, count, false);
    else
      store_run(g, v, dof, off, V, full && g->nt && x->aligned);
  }
}

/* Stores the tile group one Y position at a time (width elements of each of
 * the xg chunks, side by side; out holds V vectors per chunk). */
static void store_pieces(Gen *g, const LycNest *x, LLVMValueRef *out, Tile t, LLVMValueRef dof, LLVMValueRef y0,
                         bool full) {
  int V = g->p->vlen, per = V / t.xt;
  bool nt = full && g->nt && x->aligned;
  /* A narrowing conversion's vector is a trunc, which LLVM folds into a
   * truncating store (VPMOVDW to memory), never a non-temporal one: the
   * non-temporal variant stores a position's xg vectors as one. */
  bool one = nt && t.width == V && t.xg > 1 && (t.xg & (t.xg - 1)) == 0 && g->p->dbits >= 8 &&
             g->p->dbytes < g->p->sbytes;
  for (int y = 0; y < t.yv; y++) {
    /* one Y loop: a constant past dof (packed_byte); else a value */
    int64_t yc = x->ny == 1 ? y * x->loops[x->nloops - 2].ds : 0;
    LLVMValueRef base = x->ny == 1 ? dof : add(g, dof, y_position_offset(g, x, y0, y));
    if (one) {
      LLVMValueRef parts[8];
      LY_ASSERT(t.xg <= 8);
      for (int c = 0; c < t.xg; c++)
        parts[c] = out[c * V + y / per];
      store_run(g, lyc_concat(&g->ir, parts, t.xg), base, yc, t.xg * V, true);
      continue;
    }
    for (int c = 0; c < t.xg; c++) {
      LLVMValueRef piece = out[c * V + y / per], m[64];
      if (t.width < V) {
        for (int e = 0; e < t.width; e++)
          m[e] = LLVMConstInt(g->ir.i32, (unsigned)((y % per) * t.xt + e), 0);
        piece = LLVMBuildShuffleVector(g->ir.b, piece, LLVMGetUndef(LLVMTypeOf(piece)),
                                       LLVMConstVector(m, (unsigned)t.width), "piece");
      }
      store_run(g, piece, base, yc + (int64_t)c * V, t.width, nt);
    }
  }
}


/* A tile whose source rows follow each other (X stride = the Y length, at
 * most 4: nhwc with 3 channels) is one contiguous run of yv*V elements:
 * load it as yv vectors and pick each Y position's V elements out of them
 * (lane e of the run is row e / yv, position e % yv), instead of yv masked
 * loads per row. out[y] gets V destination-contiguous elements, as a full
 * transpose leaves them. */
static void deinterleave_tile(Gen *g, int yv, LLVMValueRef so, LLVMValueRef *out) {
  int V = g->p->vlen;
  LLVMTypeRef vt = vec(g->st, V);
  LLVMValueRef v[4], idx[64], m[64];
  for (int j = 0; j < 4; j++)
    v[j] = j < yv ? load(g, vt, at(g, g->src, add(g, so, lyc_i64(&g->ir, (int64_t)j * V)), g->p->sbytes))
                  : LLVMGetUndef(vt);
  for (int l = 0; l < 2 * V; l++)
    idx[l] = LLVMConstInt(g->ir.i32, (unsigned)l, 0);
  LLVMValueRef cat = LLVMConstVector(idx, (unsigned)(2 * V));
  LLVMValueRef a = LLVMBuildShuffleVector(g->ir.b, v[0], v[1], cat, "cat");
  LLVMValueRef b = LLVMBuildShuffleVector(g->ir.b, v[2], v[3], cat, "cat");
  for (int y = 0; y < yv; y++) {
    for (int l = 0; l < V; l++)
      m[l] = LLVMConstInt(g->ir.i32, (unsigned)(l * yv + y), 0);
    out[y] = convert(g, LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector(m, (unsigned)V), "deint"), V);
  }
}

/* A full tile (V rows) of at most V/2 Y positions (the last Y block of a
 * channel count that is not a multiple of V: 20 channels are a block of 16
 * and one of 4) is V rows of yv' (yv rounded up to a power of two)
 * elements, not V vectors: each group of k = V/yv' rows is loaded into one
 * vector (rows after one another), transposed within it (lane c*k + b gets
 * row b's position c), and the yv' vectors are interleaved k lanes at a
 * time, which leaves out[c] holding position c of every row, as zip() does
 * for a full tile: yv' + yv' log2(yv') shuffles besides the joins of the
 * row loads, instead of V masked loads and a V-by-V network (64 shuffles
 * for 16 f32). nhwc -> nchw f32 with 20 channels: 304 -> 208 shuffles in
 * the kernel; neither its speed (memory-bound, 73-95 GB/s on the Zen 5)
 * nor its compile time (43-66 ms) changed measurably. */
static bool narrow_tile(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, int c, LLVMValueRef *out) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int V = g->p->vlen, yw = 1 << lyc_log2_ceil(t.yv), k = V / yw;
  if (t.xt != V || t.rows != V || 2 * t.yv > V || k > 8 || g->p->sbits < 8)
    return false;
  bool narrow_first = g->p->dbytes < g->p->sbytes;
  LLVMTypeRef pt = vec(g->st, yw);
  LLVMValueRef w[64], piece[8], m[64];
  for (int q = 0; q < yw; q++) {
    for (int b = 0; b < k; b++) {
      int row = q * k + b;
      LLVMValueRef ptr = at(g, g->src, add(g, so, lyc_i64(&g->ir, row * X->ss + wrap_off(x, t, c * V + row))),
                            g->p->sbytes);
      piece[b] = t.yv == yw ? load(g, pt, ptr) : masked_load(g, pt, ptr, yw, t.yv);
    }
    LLVMValueRef v = lyc_concat(&g->ir, piece, k);
    if (narrow_first)
      v = convert(g, v, V);
    for (int l = 0; l < V; l++) /* lane c*k + b <- lane b*yw + c */
      m[l] = LLVMConstInt(g->ir.i32, (unsigned)(l % k * yw + l / k), 0);
    w[q] = LLVMBuildShuffleVector(g->ir.b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(m, (unsigned)V), "cols");
  }
  for (int stage = 1; stage < yw; stage *= 2) { /* interleave k-lane units of halves, as zip() does lanes */
    LLVMValueRef lo[64], hi[64], tmp[64];
    for (int l = 0; l < V; l++) {
      int u = l / k, src = u / 2 + (u & 1 ? yw : 0);
      lo[l] = LLVMConstInt(g->ir.i32, (unsigned)(src * k + l % k), 0);
      hi[l] = LLVMConstInt(g->ir.i32, (unsigned)((src + yw / 2) * k + l % k), 0);
    }
    for (int i = 0; i < yw / 2; i++) {
      tmp[2 * i] = LLVMBuildShuffleVector(g->ir.b, w[i], w[i + yw / 2], LLVMConstVector(lo, (unsigned)V), "ulo");
      tmp[2 * i + 1] = LLVMBuildShuffleVector(g->ir.b, w[i], w[i + yw / 2], LLVMConstVector(hi, (unsigned)V), "uhi");
    }
    memcpy(w, tmp, yw * sizeof *w);
  }
  for (int c = 0; c < V; c++) /* positions past yv' (never stored) repeat the first */
    out[c] = c < yw ? (narrow_first ? w[c] : convert(g, w[c], V)) : out[0];
  return true;
}

/* The converted result vectors of one tile (X rows from so): out[k] holds
 * destination-contiguous runs of xt elements, V/xt Y positions each. */
static void tile_vectors(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, int c, LLVMValueRef *out) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen;
  if (x->ny == 1 && t.rows == V && t.yv == Yin->n && t.yv <= 4 && X->ss == Yin->n && g->p->sbits >= 8 && !x->rot) {
    deinterleave_tile(g, t.yv, so, out);
    return;
  }
  if (narrow_tile(g, x, t, so, c, out))
    return;
  bool narrow_first = g->p->dbytes < g->p->sbytes; /* shuffle the narrower elements */
  LLVMTypeRef vt = vec(g->st, V);
  for (int r = 0; r < t.xt; r++) {
    if (r >= t.rows)
      out[r] = LLVMConstNull(vt); /* padding rows: zero, and never stored */
    else {
      LLVMValueRef ptr = src_at(g, so, r * X->ss + wrap_off(x, t, (int64_t)c * V + r));
      if (x->prefetch && t.yv == V)
        lyc_prefetch(&g->ir, ptr, x->prefetch);
      LY_ASSERT(g->p->sbits >= 8 || t.yv % (8 / g->p->sbits) == 0); /* whole bytes (whole_bytes) */
      out[r] = g->p->sbits < 8 ? load_unpacked(g, ptr, V, t.yv)
               : t.yv == V ? load(g, vt, ptr) : masked_load(g, vt, ptr, V, t.yv);
    }
    if (narrow_first)
      out[r] = convert(g, out[r], V);
  }
  zip(g, out, t.xt, V);
  for (int k = 0; k < t.xt && !narrow_first; k++)
    out[k] = convert(g, out[k], V);
}

/* Lane l of the concatenation of k vectors of n lanes each, in the order
 * of lane (l % k) * n + l / k: their interleave. */
static LLVMValueRef interleave(Gen *g, LLVMValueRef *q, int k, int n) {
  LLVMValueRef cat = lyc_concat(&g->ir, q, k), m[64];
  for (int l = 0; l < k * n; l++)
    m[l] = LLVMConstInt(g->ir.i32, (unsigned)(l % k * n + l / k), 0);
  return LLVMBuildShuffleVector(g->ir.b, cat, LLVMGetUndef(LLVMTypeOf(cat)), LLVMConstVector(m, (unsigned)(k * n)), "ilv");
}

/* transpose_words for bits 1 (8x8 bit matrices) in one GF2P8AFFINEQB per
 * vector: byte j of each 64-bit lane of its result is the parity of byte j
 * of its first operand ANDed with each byte of the lane of its second (bit
 * b with byte 7 - b). With the matrix, rows reversed, as the second operand
 * and unit bytes 1 << j as the first, byte j gets bit j of every row: the
 * transpose. */
static LLVMValueRef affine_transpose(Gen *g, LLVMValueRef v, int n) {
  LLVMValueRef m[64], unit[64];
  for (int l = 0; l < n; l++) {
    m[l] = LLVMConstInt(g->ir.i32, (unsigned)(l ^ 7), 0);
    unit[l] = LLVMConstInt(g->ir.i8, 1u << (l % 8), 0);
  }
  LLVMValueRef rev = LLVMBuildShuffleVector(g->ir.b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(m, (unsigned)n), "rows");
  char name[48];
  snprintf(name, sizeof name, "llvm.x86.vgf2p8affineqb.%d", 8 * n);
  LLVMValueRef args[] = {LLVMConstVector(unit, (unsigned)n), rev, LLVMConstInt(g->ir.i8, 0, 0)};
  return lyc_intrinsic(&g->ir, name, NULL, 0, args, 3);
}

/* Each group of k bytes of v (k = 8 / bits: byte r holding row r's k
 * elements of a column group) as a k-by-k matrix of bits-wide elements,
 * transposed in place: byte r then holds element r of every row, one
 * destination byte. log2(k) delta swaps on k-byte integer lanes; the stage
 * of block size s exchanges element (r, i) with (r + s, i - s), s * (8 -
 * bits) bits apart, for r mod 2s < s <= i mod 2s (the stages commute). */
static LLVMValueRef transpose_words(Gen *g, LLVMValueRef v, int bits, int n) {
  int k = 8 / bits;
  if (g->p->gfni && bits == 1)
    return affine_transpose(g, v, n);
  LLVMTypeRef wt = LLVMIntTypeInContext(g->ir.c, (unsigned)(8 * k)), vt = vec(wt, n / k);
  LLVMValueRef x = LLVMBuildBitCast(g->ir.b, v, vt, "words"), m[64], sh[64];
  for (int s = k / 2; s >= 1; s /= 2) {
    unsigned long long mask = 0;
    for (int r = 0; r < k; r++)
      for (int i = 0; i < k; i++)
        if (r % (2 * s) < s && i % (2 * s) >= s)
          mask |= ((1ull << bits) - 1) << (8 * r + bits * i);
    for (int l = 0; l < n / k; l++) {
      m[l] = LLVMConstInt(wt, mask, 0);
      sh[l] = LLVMConstInt(wt, (unsigned long long)(s * (8 - bits)), 0);
    }
    LLVMValueRef M = LLVMConstVector(m, (unsigned)(n / k)), S = LLVMConstVector(sh, (unsigned)(n / k));
    LLVMValueRef t = LLVMBuildAnd(g->ir.b, LLVMBuildXor(g->ir.b, x, LLVMBuildLShr(g->ir.b, x, S, ""), ""), M, "swap");
    x = LLVMBuildXor(g->ir.b, x, LLVMBuildXor(g->ir.b, t, LLVMBuildShl(g->ir.b, t, S, ""), ""), "");
  }
  return LLVMBuildBitCast(g->ir.b, x, vec(g->ir.i8, n), "");
}

/* k source rows of nb bytes (k = 8 / bits elements a byte) as one vector
 * of k*nb bytes whose block h (nb bytes) holds, in byte c, element h of
 * byte c of every row (row q in field q): the destination byte of Y
 * position c*k + h. The rows are concatenated and their fields transposed
 * across the blocks in log2(k) stages; the stage of distance s pairs
 * block q with block q ^ s: a shuffle swaps the pairs, a rotation of each
 * word moves the partner's fields s places (left in the lower block of a
 * pair, right in the upper), and a bit select keeps the block's own fields
 * where they stay (f mod 2s < s in the lower block, >= s in the upper).
 * Bits a rotation carries across a byte, or around the word, land only in
 * the fields it does not select. */
static LLVMValueRef field_rows(Gen *g, LLVMValueRef *rows, int k, int nb, int bits) {
  int n = k * nb, wb = nb < 8 ? nb : 8; /* word bytes: rotations stay within a block */
  LLVMValueRef z = lyc_concat(&g->ir, rows, k), m[64], amt[64], sel[64];
  LLVMTypeRef wt = LLVMIntTypeInContext(g->ir.c, (unsigned)(8 * wb)), vt = vec(wt, n / wb);
  for (int s = k / 2; s >= 1; s /= 2) {
    unsigned lo_fields = 0; /* fields f mod 2s < s of a byte */
    for (int f = 0; f < k; f++)
      if (f % (2 * s) < s)
        lo_fields |= ((1u << bits) - 1) << (f * bits);
    for (int l = 0; l < n; l++) {
      int q = l / nb;
      m[l] = LLVMConstInt(g->ir.i32, (unsigned)((q ^ s) * nb + l % nb), 0);
      sel[l] = LLVMConstInt(g->ir.i8, q % (2 * s) < s ? lo_fields : ~lo_fields & 0xff, 0);
    }
    for (int w = 0; w < n / wb; w++) {
      int q = w * wb / nb;
      amt[w] = LLVMConstInt(wt, (unsigned long long)(q % (2 * s) < s ? s * bits : 8 * wb - s * bits), 0);
    }
    LLVMValueRef swapped = LLVMBuildShuffleVector(g->ir.b, z, LLVMGetUndef(LLVMTypeOf(z)), LLVMConstVector(m, (unsigned)n), "pair");
    LLVMValueRef w = LLVMBuildBitCast(g->ir.b, swapped, vt, "");
    LLVMValueRef args[] = {w, w, LLVMConstVector(amt, (unsigned)(n / wb))};
    LLVMValueRef rot = LLVMBuildBitCast(g->ir.b, lyc_intrinsic(&g->ir, "llvm.fshl", &vt, 1, args, 3), LLVMTypeOf(z), "");
    LLVMValueRef S = LLVMConstVector(sel, (unsigned)n);
    z = LLVMBuildOr(g->ir.b, LLVMBuildAnd(g->ir.b, z, S, ""), LLVMBuildAnd(g->ir.b, rot, LLVMBuildNot(g->ir.b, S, ""), ""),
                    "fields");
  }
  return z;
}

/* The in-lane interleave of a and b (64 bytes each): lane blocks of 16
 * bytes, byte i of a and of b side by side from i = lo * 8 (x86's unpack). */
static LLVMValueRef unpack_bytes16(Gen *g, LLVMValueRef a, LLVMValueRef b, bool hi) {
  LLVMValueRef m[64];
  for (int l = 0; l < 64; l++) {
    int block = l / 16, i = (l % 16) / 2 + (hi ? 8 : 0);
    m[l] = LLVMConstInt(g->ir.i32, (unsigned)((l & 1 ? 64 : 0) + block * 16 + i), 0);
  }
  return LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector(m, 64), hi ? "hi" : "lo");
}

/* i4 nibbles of one chunk of 64 rows (rows at so + r * X->ss, the 16
 * bytes from byte `piece` of each): out[j], j < 16, gets byte piece + j of
 * every row, row r in byte r. Each vector is loaded as four 16-byte
 * pieces of rows q, q+16, q+32, q+48 (inserts, mostly from memory), and
 * four stages of in-lane byte interleaves transpose the 16x16 blocks of
 * all four lanes at once: 64 byte shuffles for 16 vectors, where the
 * network across whole vectors takes 96. With the row pieces staged
 * (stage_rows), the rows are read from the stack. A partial tile reads
 * `rows` rows and `bytes` bytes of each (masked); the rest are zero. */
static void nibble_columns(Gen *g, const LycNest *x, LLVMValueRef so, int64_t row0, LLVMValueRef piece, int rows,
                           int bytes, LLVMValueRef *out) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  LLVMTypeRef qt = vec(g->ir.i8, 16);
  LLVMValueRef v[16], w[16], q[4], in_run = NULL;
  if (g->run_so) { /* the tile's bytes within the staged rows */
    in_run = LLVMBuildSub(g->ir.b, so, g->run_so, "");
    if (g->p->sbits == 4)
      in_run = lyc_div_const(&g->ir, in_run, 2, "inrun");
  }
  for (int r = 0; r < 16; r++) {
    for (int l = 0; l < 4; l++) {
      int64_t rr = row0 + r + 16 * l;
      LLVMValueRef row;
      if (r + 16 * l >= rows) {
        q[l] = LLVMConstNull(qt);
        continue;
      }
      if (in_run) {
        LLVMValueRef at_r = add(g, in_run, lyc_i64(&g->ir, rr * g->run_bytes));
        row = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->rows, &at_r, 1, "");
      } else
        row = src_at(g, so, rr * X->ss);
      if (x->prefetch && !in_run)
        lyc_prefetch(&g->ir, row, x->prefetch);
      LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, row, &piece, 1, "");
      q[l] = bytes == 16 ? load(g, qt, ptr) : masked_load(g, qt, ptr, 16, bytes);
    }
    v[r] = lyc_concat(&g->ir, q, 4);
  }
  for (int stage = 0; stage < 4; stage++) { /* the same interleave four times transposes 16x16 */
    for (int i = 0; i < 8; i++) {
      w[2 * i] = unpack_bytes16(g, v[i], v[i + 8], false);
      w[2 * i + 1] = unpack_bytes16(g, v[i], v[i + 8], true);
    }
    memcpy(v, w, sizeof v);
  }
  memcpy(out, v, sizeof v);
}

/* The low (odd: high) nibbles of a column's 64 row bytes packed in pairs:
 * byte m of each 16-bit word holds rows 2m and 2m+1's nibbles of one Y
 * position, the low byte of word m (the high one is left over). */
static LLVMValueRef nibble_pairs(Gen *g, LLVMValueRef col, bool odd) {
  LLVMTypeRef wt = vec(g->ir.i16, 32);
  LLVMValueRef w = LLVMBuildBitCast(g->ir.b, col, wt, "");
  LLVMValueRef s4 = LLVMBuildLShr(g->ir.b, w, splat_int(g->ir.i16, 4, 32), "");
  LLVMValueRef lo = odd ? s4 : w, hi = odd ? LLVMBuildLShr(g->ir.b, w, splat_int(g->ir.i16, 8, 32), "") : s4;
  /* a bit select, the byte's low nibble from lo and the rest from hi, as
   * one VPTERNLOG where the host has it: written as and/or, the optimiser
   * narrows the masks to the byte that is kept and the select becomes an
   * and and a ternary op; 0xCA: A ? B : C. Elsewhere (64-byte plans on
   * narrower hosts, for the tests) the and/or. */
  if (!g->p->ternlog) {
    LLVMValueRef r = LLVMBuildOr(g->ir.b, LLVMBuildAnd(g->ir.b, lo, splat_int(g->ir.i16, 0x000F, 32), ""),
                                 LLVMBuildAnd(g->ir.b, hi, splat_int(g->ir.i16, 0xFFF0, 32), ""), "nibbles");
    return LLVMBuildBitCast(g->ir.b, r, vec(g->ir.i8, 64), "");
  }
  LLVMTypeRef qt = vec(g->ir.i64, 8);
  LLVMValueRef mask = LLVMBuildBitCast(g->ir.b, splat_int(g->ir.i16, 0x000F, 32), qt, "");
  LLVMValueRef args[] = {mask, LLVMBuildBitCast(g->ir.b, lo, qt, ""), LLVMBuildBitCast(g->ir.b, hi, qt, ""),
                         LLVMConstInt(g->ir.i32, 0xCA, 0)};
  LLVMValueRef r = lyc_intrinsic(&g->ir, "llvm.x86.avx512.pternlog.q.512", NULL, 0, args, 4);
  return LLVMBuildBitCast(g->ir.b, r, vec(g->ir.i8, 64), "");
}

/* The even bytes of a then of b (64 bytes each): one two-source byte
 * permute (VBMI). */
static LLVMValueRef even_bytes(Gen *g, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef m[64];
  for (int l = 0; l < 64; l++)
    m[l] = LLVMConstInt(g->ir.i32, (unsigned)(2 * l), 0);
  return LLVMBuildShuffleVector(g->ir.b, a, b, LLVMConstVector(m, 64), "pack");
}

/* One 16-byte piece of the rows of a tile group (piece: its byte offset,
 * 0 or 16; bytes of it valid), whose Y positions (i4: 32, i8: 16) start at
 * destination byte pdof (nibble_lanes). A Y position's run is made of
 * lines of R rows (i4: 128, two chunks' columns packed; i8: 64, one
 * column), xg * V / R of them (1 or 2; i4 with xg 1: half a line). */
static void nibble_piece(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, LLVMValueRef pdof, LLVMValueRef piece,
                         int bytes, bool nt) {
  const LycLoop *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen, bits = g->p->sbits, R = bits == 4 ? 128 : 64, nlines = t.xg * V / R;
  int64_t ybytes = Yin->ds * bits / 8; /* between Y positions; even ds for i4 (whole_bytes) */
  LLVMTypeRef lt = vec(g->ir.i8, 64);
  if (nlines == 0) /* i4, one chunk: nlines would be one half */
    nlines = 1;
  for (int line = 0; line < nlines; line++) {
    LLVMValueRef a[16], b[16];
    nibble_columns(g, x, so, (int64_t)line * R, piece, bits == 4 ? t.rows : 64, bytes, a);
    if (bits == 4 && t.xg > 1)
      nibble_columns(g, x, so, (int64_t)line * R + V, piece, V, bytes, b);
    for (int j = 0; j < bytes; j++)
      for (int odd = 0; odd < (bits == 4 ? 2 : 1); odd++) {
        int y = bits == 4 ? 2 * j + odd : j; /* within the piece */
        LLVMValueRef byte = add(g, pdof, lyc_i64(&g->ir, y * ybytes));
        LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
        if (bits == 4 && t.xg == 1) { /* 32 bytes a position: both of the column's positions in one permute */
          if (odd)
            continue;
          LLVMValueRef both = even_bytes(g, nibble_pairs(g, a[j], false), nibble_pairs(g, a[j], true)), m[32];
          for (int h = 0; h < 2; h++) {
            for (int l = 0; l < 32; l++)
              m[l] = LLVMConstInt(g->ir.i32, (unsigned)(32 * h + l), 0);
            LLVMValueRef half = LLVMBuildShuffleVector(g->ir.b, both, LLVMGetUndef(lt), LLVMConstVector(m, 32), "half");
            LLVMValueRef hb = add(g, pdof, lyc_i64(&g->ir, (y + h) * ybytes));
            LLVMValueRef hp = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &hb, 1, "");
            if (t.rows == V)
              store(g, half, hp);
            else /* a partial tile's rows: their bytes */
              masked_store(g, half, hp, 32, t.rows / 2);
          }
          continue;
        }
        LLVMValueRef first = NULL, cur = bits == 4 ? even_bytes(g, nibble_pairs(g, a[j], odd), nibble_pairs(g, b[j], odd))
                                                   : a[j];
        if (nlines == 2) { /* the first line waits for the second */
          LLVMValueRef at_slot = lyc_i64(&g->ir, 2 * j + odd);
          LLVMValueRef slot = LLVMBuildGEP2(g->ir.b, lt, g->stage, &at_slot, 1, "");
          if (line == 0) {
            LLVMSetAlignment(LLVMBuildStore(g->ir.b, cur, slot), 64);
            continue;
          }
          first = LLVMBuildLoad2(g->ir.b, lt, slot, "");
          LLVMSetAlignment(first, 64);
        }
        LLVMValueRef lines[2] = {first ? first : cur, cur};
        for (int l = 0; l < (first ? 2 : 1); l++) {
          LLVMValueRef off = lyc_i64(&g->ir, 64 * l);
          LLVMValueRef at_l = LLVMBuildGEP2(g->ir.b, g->ir.i8, ptr, &off, 1, "");
          if (nt)
            store_nt(g, lines[l], at_l, 64);
          else
            store(g, lines[l], at_l);
        }
      }
  }
}

/* A transposed tile group of i4 (xg chunks of 64 rows by 64 Y positions,
 * each position's 32 bytes of a chunk side by side; xg 1, 2 or 4) with
 * 64-byte vectors, by byte columns: a chunk's 64 rows are 32 columns of 64
 * bytes (nibble_columns), and a column's pairs of rows packed
 * (nibble_pairs) are Y positions 2j and 2j+1 for those rows. Two chunks'
 * columns make whole 64-byte lines (even_bytes); with four, the first
 * pair's lines wait in a stack buffer so each Y position gets two
 * consecutive lines, which stream past the cache at the write bandwidth
 * where single lines to rows 2 KB apart do not (x_line_group). The two
 * 16-byte pieces of the rows go in a loop (unrolled, a full tile doubles
 * the kernel's compile time); a partial tile (fewer rows, xg 1, or fewer
 * Y positions; both even) reads and writes only its bytes, with plain
 * stores, its pieces unrolled when it has fewer Y positions. */
static void nibble_lanes(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, LLVMValueRef dof, bool nt) {
  const LycLoop *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen, bits = g->p->sbits, per = 16 * 8 / bits; /* Y positions a piece */
  int64_t ybytes = Yin->ds * bits / 8;
  LY_ASSERT(bits == 4 ? V == 64 && (t.xg == 1 || t.xg == 2 || t.xg == 4) && t.rows % 2 == 0 && t.yv % 2 == 0 &&
                            (t.xg == 1 || t.rows == V)
                      : bits == 8 && V == 32 && (t.xg == 2 || t.xg == 4) && t.rows == V);
  LY_ASSERT(t.xg * V / (bits == 4 ? 128 : 64) < 2 || g->stage);
  LLVMValueRef byte0 = bits == 4 ? lyc_div_const(&g->ir, dof, 2, "byte") : dof; /* packed_byte's */
  if (t.yv < V) {
    for (int p = 0; p < 2 && per * p < t.yv; p++) {
      int bytes = t.yv * bits / 8 - 16 * p;
      nibble_piece(g, x, t, so, add(g, byte0, lyc_i64(&g->ir, per * p * ybytes)), lyc_i64(&g->ir, 16 * p),
                   bytes < 16 ? bytes : 16, false);
    }
    return;
  }
  LycLoopIR pl;
  LLVMValueRef pi = lyc_loop_begin(&g->ir, &pl, lyc_i64(&g->ir, 0), lyc_i64(&g->ir, 2), "piece");
  nibble_piece(g, x, t, so, step(g, byte0, pi, per * ybytes), lyc_mul_const(&g->ir, pi, 16, ""), 16, nt && t.rows == V);
  lyc_loop_end(&g->ir, &pl);
}

/* A full tile of sub-byte elements copied as they are (k = 8/bits to a
 * byte; xt rows, a multiple of k): each k rows become one vector of V
 * destination bytes, one per Y position, and those xt/k byte rows are
 * transposed as bytes. When the destination continues across Y (whole),
 * the vectors are stored as they are, so lane c must be Y position c: the
 * rows' bytes are interleaved, then transpose_words. Otherwise each Y
 * position's bytes are stored apart, and any order will do: the rows'
 * fields are moved across them (field_rows; i1 with GFNI keeps its one
 * affine transform a word) and the byte rows only brought into the lanes
 * (the relaxed network); the pieces are read where the placement left
 * them. A group of xg tiles side by side in X (full ones: X chunks V rows
 * apart) stores its pieces of each Y position as one run: a whole line
 * (x_line_group). */
static void nibble_tile(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, LLVMValueRef dof, bool full) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen, bits = g->p->sbits, k = 8 / bits, nb = V / k, xb = t.xt / k;
  LLVMTypeRef bt = vec(g->ir.i8, nb);
  LLVMValueRef rows[64], p[8][64];
  bool whole = x->ny == 1 && Yin->ds == t.width; /* contiguous across Y: V bytes per vector (xg is 1) */
  if (!whole && x->columns && t.xt == V && (t.xg == 1 || t.xg == 2 || (t.xg == 4 && g->stage))) {
    nibble_lanes(g, x, t, so, dof, g->nt && x->aligned && full);
    return;
  }
  ZipNet z;
  bool loose = !whole && inlane_net(&z, xb, V, 8, true);
  bool fields = loose && (k <= 4 || !g->p->gfni); /* rows' fields transposed across blocks (GFNI: i1 words) */
  /* so, dof and the strides between rows and Y positions are whole bytes
   * (whole_bytes), so every address is packed_byte's. */
  LY_ASSERT(X->ss % k == 0 && Yin->ds % k == 0);
  for (int c = 0; c < t.xg; c++) { /* the group's chunks, V rows apart */
    for (int r = 0; r < t.xt; r++) {
      LLVMValueRef ptr = src_at(g, so, ((int64_t)c * V + r) * X->ss);
      if (x->prefetch)
        lyc_prefetch(&g->ir, ptr, x->prefetch);
      rows[r] = load(g, bt, ptr);
    }
    for (int gr = 0; gr < xb; gr++)
      p[c][gr] = fields ? field_rows(g, rows + gr * k, k, nb, bits)
                        : transpose_words(g, interleave(g, rows + gr * k, k, nb), bits, V);
    if (loose)
      net_stages(g, &z, p[c], xb, V, 1);
    else
      zip(g, p[c], xb, V);
  }
  bool nt = g->nt && x->aligned && full;
  if (whole) {
    for (int j = 0; j < xb; j++) {
      LLVMValueRef byte = packed_byte(g, dof, (int64_t)j * V * k, bits);
      LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
      if (nt)
        store_nt(g, p[0][j], ptr, (unsigned)V);
      else
        store(g, p[0][j], ptr);
    }
    return;
  }
  /* Where byte row e of Y position y lies: zip's order, or the loose
   * network's final placement (logical bits: e's, then y's). */
  int l = lyc_log2_ceil(V), r = lyc_log2_ceil(xb), at[ZIP_MAXBITS];
  LY_ASSERT(2 * xb <= 64);
  for (int b = 0; b < l + r; b++)
    at[b] = loose ? position_of(&z.s[z.n], l + r, b) : b; /* zip: o = y * xb + e */
  for (int y = 0; y < V; y++) { /* xb bytes of each chunk per Y position, side by side */
    LLVMValueRef m[64], piece = NULL, two[4]; /* 2 * xb <= 64 */
    int vy = 0;
    for (int e = 0; e < xb; e++) {
      int phys = 0;
      for (int b = 0; b < r; b++)
        phys |= (e >> b & 1) << at[b];
      int lane = fields ? y % k * nb + y / k : y;
      for (int b = 0; b < l; b++)
        phys |= (lane >> b & 1) << at[r + b];
      vy = phys >> l;
      m[e] = LLVMConstInt(g->ir.i32, (unsigned)(phys & (V - 1)), 0);
      m[xb + e] = LLVMConstInt(g->ir.i32, (unsigned)(V + (phys & (V - 1))), 0);
    }
    if (t.xg == 1)
      piece = LLVMBuildShuffleVector(g->ir.b, p[0][vy], LLVMGetUndef(LLVMTypeOf(p[0][0])), LLVMConstVector(m, (unsigned)xb),
                                     "piece");
    else { /* chunks in pairs, each pair's pieces picked by one shuffle; then the pairs concatenated */
      LY_ASSERT(t.xg % 2 == 0 && t.xg <= 8);
      for (int c = 0; c < t.xg; c += 2)
        two[c / 2] = LLVMBuildShuffleVector(g->ir.b, p[c][vy], p[c + 1][vy], LLVMConstVector(m, (unsigned)(2 * xb)), "pieces");
      piece = lyc_concat(&g->ir, two, t.xg / 2);
    }
    LLVMValueRef byte = packed_byte(g, dof, y * Yin->ds, bits);
    LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
    if (nt)
      store_nt(g, piece, ptr, (unsigned)(t.xg * xb));
    else
      store(g, piece, ptr);
  }
}

/* Whether a run of ym Y blocks is one wide_bit_tile: the plan says so
 * (bit_row_run), the run is one of the plan's whole runs (not a shorter
 * last one, nor a block left over) and its blocks are full. The plan's
 * conditions make every such tile k = 8/bits rows stored as they are, one
 * destination byte per column. */
static bool wide_bits(const Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef ycount) {
  if (!x->wide_bits || ym != x->ym || ycount || t.yv != g->p->vlen)
    return false;
  int k = 8 / g->p->sbits;
  LY_ASSERT(t.xt == k && t.rows == k && t.width == k && t.xg == 1 && x->ym * g->p->sbits <= 8);
  return true;
}

/* ym full Y blocks of k rows of sub-byte elements (wide_bits): each row's
 * ym * V/k bytes are one load, and each block's V bytes (its rows' bytes
 * interleaved, then transpose_words) one store of V destination bytes, the
 * blocks back to back. */
static void wide_bit_tile(Gen *g, const LycNest *x, int ym, LLVMValueRef so, LLVMValueRef dof) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int V = g->p->vlen, bits = g->p->sbits, k = 8 / bits, nb = V / k;
  LLVMValueRef rows[8], part[8], m[64];
  for (int r = 0; r < k; r++) /* whole bytes: packed_byte's addresses, as in nibble_tile */
    rows[r] = load(g, vec(g->ir.i8, ym * nb), src_at(g, so, r * X->ss));
  bool nt = g->nt && x->aligned;
  for (int b = 0; b < ym; b++) {
    for (int e = 0; e < nb; e++)
      m[e] = LLVMConstInt(g->ir.i32, (unsigned)(b * nb + e), 0);
    for (int r = 0; r < k; r++)
      part[r] = LLVMBuildShuffleVector(g->ir.b, rows[r], LLVMGetUndef(LLVMTypeOf(rows[r])), LLVMConstVector(m, (unsigned)nb),
                                       "block");
    LLVMValueRef v = transpose_words(g, interleave(g, part, k, nb), bits, V);
    LLVMValueRef byte = packed_byte(g, dof, (int64_t)b * V * k, bits);
    LLVMValueRef ptr = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->dst, &byte, 1, "");
    if (nt)
      store_nt(g, v, ptr, (unsigned)V);
    else
      store(g, v, ptr);
  }
}

/* A full group of xg narrowing tiles transposes k chunks at a time, k as
 * many as the pieces of a Y position that fit one source-width vector (f32
 * -> s8: 4 chunks of 16 rows, 16 bytes each, with 64-byte vectors; 4 of 8
 * rows, 8 bytes each, with 32-byte ones): row r of each of the k chunks,
 * converted, joined into one vector (chunk c in block c), and the network
 * run in every block at once (zip_blocks), so vector y holds Y position y's
 * run of k*V elements. Per 64 f32 rows into s8 with 64-byte vectors that
 * is 48 joins, 64 shuffles of 64-byte vectors and 16 stores, against 256
 * shuffles of 16-byte vectors and 64 stores chunk by chunk. On the Zen 5,
 * f32 nchw -> s8 nhwc 32x64x56x56 went from 43-47 to 55-65 GB/s (in the
 * cache, one image: 51-56 -> 78-90), f32 -> bf16 nhwc 46-53 -> 49-58; for
 * destinations of one byte and bf16 only: f32 -> f16 nhwc, one vcvtps2ph
 * a vector and bound by memory, ran 81 -> 65 GB/s this way (the order of
 * the row loads did not explain it: chunk by chunk, 66). */
static bool wide_group(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, LLVMValueRef dof, LLVMValueRef y0,
                       bool full) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen, sb = g->p->sbytes, db = g->p->dbytes, k = db ? sb / db : 0;
  if (k > t.xg)
    k = t.xg;
  if (db > 1 && g->p->dst->elem != LY_ELEM_BF16) /* measured: f32 -> f16, i32 -> i16 keep the chunks */
    return false;
  if (k < 2 || t.xg % k || t.xt != V || t.rows != V || t.width != V || t.yv != V || g->p->sbits < 8 ||
      g->p->dbits < 8 || (x->ny == 1 && t.yv == Yin->n && t.yv <= 4 && X->ss == Yin->n && !x->rot))
    return false; /* (the last: deinterleave_tile's) */
  LLVMTypeRef vt = vec(g->st, V);
  for (int s = 0; s < t.xg; s += k) {
    LLVMValueRef w[64], piece[8];
    for (int r = 0; r < V; r++) {
      for (int c = 0; c < k; c++) {
        int64_t off = ((int64_t)(s + c) * V + r) * X->ss + wrap_off(x, t, (int64_t)(s + c) * V + r);
        LLVMValueRef ptr = at(g, g->src, add(g, so, lyc_i64(&g->ir, off)), sb);
        if (x->prefetch)
          lyc_prefetch(&g->ir, ptr, x->prefetch);
        piece[c] = convert(g, load(g, vt, ptr), V);
      }
      w[r] = lyc_concat(&g->ir, piece, k);
    }
    zip_blocks(g, w, V, V, k);
    for (int y = 0; y < V; y++) {
      LLVMValueRef yoff = y_position_offset(g, x, y0, y);
      store_run(g, w[y], add(g, dof, yoff), (int64_t)s * V, k * V, full && g->nt && x->aligned);
    }
  }
  return true;
}

/* Copies the source rows of a run of ym full Y blocks of a tile group (xg
 * chunks of V rows from run_so) into the stack, a row's ym*V/2 bytes after
 * another, whole lines in turn, so that the tiles' 16-byte reads
 * (nibble_columns) find them in the L1 however the rows' addresses fall in
 * its sets (plan: stage_rows). */
static void stage_rows(Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef run_so) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int V = g->p->vlen;
  int bits = g->p->sbits;
  g->run_bytes = (int64_t)ym * V * bits / 8;
  LY_ASSERT(g->run_bytes % 64 == 0 && X->ss * bits % 8 == 0);
  LLVMTypeRef lt = vec(g->ir.i8, 64);
  LLVMValueRef first = src_at(g, run_so, 0);
  LycLoopIR l;
  LLVMValueRef r = lyc_loop_begin(&g->ir, &l, lyc_i64(&g->ir, 0), lyc_i64(&g->ir, (int64_t)t.xg * V), "srow");
  LLVMValueRef from = lyc_mul_const(&g->ir, r, X->ss * bits / 8, ""), to = lyc_mul_const(&g->ir, r, g->run_bytes, "");
  LLVMValueRef src = LLVMBuildGEP2(g->ir.b, g->ir.i8, first, &from, 1, "");
  LLVMValueRef dst = LLVMBuildGEP2(g->ir.b, g->ir.i8, g->rows, &to, 1, "");
  if (x->prefetch)
    lyc_prefetch(&g->ir, src, x->prefetch);
  for (int64_t k = 0; k < g->run_bytes; k += 64) {
    LLVMValueRef off = lyc_i64(&g->ir, k);
    LLVMValueRef v = load(g, lt, LLVMBuildGEP2(g->ir.b, g->ir.i8, src, &off, 1, ""));
    LLVMSetAlignment(LLVMBuildStore(g->ir.b, v, LLVMBuildGEP2(g->ir.b, g->ir.i8, dst, &off, 1, "")), 64);
  }
  lyc_loop_end(&g->ir, &l);
  g->run_so = run_so;
}

/* One tile group: X rows x0.. (so, dof include them), Y positions y0... */
static void zip_tile(Gen *g, const LycNest *x, Tile t, LLVMValueRef so, LLVMValueRef dof, LLVMValueRef y0) {
  const LycLoop *X = &x->loops[x->nloops - 1], *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen, bits = g->p->sbits;
  /* Full tiles are the ones zip_aligned() judged for non-temporal stores.
   * Stored a Y position at a time, a tile of fewer Y positions (the last
   * Y block, or all of a Y shorter than V) stores whole pieces too. */
  bool whole_x = t.width == (X->n < V ? X->n + x->xpad : V), full = t.yv == V && whole_x;
  if (x->columns && x->packed && Yin->ds != t.width && !x->xpad && (t.xg == 1 || t.rows == V) &&
      t.rows == t.width && (t.rows < V || t.yv < V)) { /* a partial tile of i4 into rows apart */
    nibble_lanes(g, x, t, so, dof, false);
    return;
  }
  if (x->columns && !x->packed && t.rows == V && t.width == V && (t.xg == 2 || (t.xg == 4 && g->stage))) { /* i8 */
    nibble_lanes(g, x, t, so, dof, full && g->nt && x->aligned);
    return;
  }
  if (x->bit_copy && t.rows == t.xt && t.yv == V &&
      t.width == t.xt && t.xt % (8 / bits) == 0 && x->ny == 1) {
    nibble_tile(g, x, t, so, dof, full);
    return;
  }
  if (wide_group(g, x, t, so, dof, y0, full))
    return;
  LLVMValueRef v[4 * 64];
  for (int c = 0; c < t.xg; c++)
    tile_vectors(g, x, t, add(g, so, lyc_i64(&g->ir, (int64_t)c * V * X->ss)), c, v + c * V);
  if (x->ny == 1 && Yin->ds == t.width && t.xg == 1)
    store_packed(g, x, v, t, dof, full);
  else
    store_pieces(g, x, v, t, dof, y0, whole_x);
}

static void y_run(Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef ycount, LLVMValueRef so, LLVMValueRef dof,
                  LLVMValueRef y0);
static void add_attr(LycIR *ir, LLVMValueRef fn, unsigned idx, const char *name);

/* Whether a Y run's source rows are staged first (plan: staged; stage_rows):
 * a whole run of full tiles of the nest's groups. */
static bool staged_run(const Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef ycount) {
  int V = g->p->vlen;
  return x->stage_rows && g->rows && !ycount && ym == x->ym && t.xg == x->xg && t.xt == V && t.rows == V && t.yv == V;
}

/* A function of the kernel's own (internal, noinline, nounwind), named
 * <kernel><suffix>, for code its calls share (panel_flush_fn, run_call):
 * the builder moves into its body, and helper_end returns it to where the
 * kernel's code was. */
typedef struct {
  LLVMValueRef kernel;
  LLVMBasicBlockRef resume;
} Helper;

static LLVMValueRef helper_begin(Gen *g, Helper *h, const char *suffix, LLVMTypeRef *params, int n) {
  LycIR *ir = &g->ir;
  h->kernel = ir->fn;
  h->resume = LLVMGetInsertBlock(ir->b);
  size_t len;
  const char *kname = LLVMGetValueName2(h->kernel, &len);
  char name[160];
  snprintf(name, sizeof name, "%.*s%s", (int)len, kname, suffix);
  LLVMValueRef fn = lyc_ir_function(ir, name, ir->vd, params, n);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  add_attr(ir, fn, LLVMAttributeFunctionIndex, "noinline");
  add_attr(ir, fn, LLVMAttributeFunctionIndex, "nounwind");
  return fn;
}

static void helper_end(Gen *g, const Helper *h) {
  LLVMBuildRetVoid(g->ir.b);
  g->ir.fn = h->kernel;
  LLVMPositionBuilderAtEnd(g->ir.b, h->resume);
}

/* Whether two nests make the same Y run bodies: every field a run reads
 * (all but the origins, which reach it in so and dof; a field added to
 * LycNest belongs here). Panels' and blocks' nests are copies on the
 * stack, so the content is the key, not the address. */
static bool same_run_nest(const LycNest *a, const LycNest *b) {
  return a->nloops == b->nloops && !memcmp(a->loops, b->loops, (size_t)a->nloops * sizeof *a->loops) &&
         a->inner == b->inner && a->ny == b->ny && a->aligned == b->aligned && a->xsuper == b->xsuper &&
         a->ym == b->ym && a->packed == b->packed && a->bit_copy == b->bit_copy && a->wide_bits == b->wide_bits &&
         a->xg == b->xg && a->xpad == b->xpad && a->prefetch == b->prefetch && a->columns == b->columns &&
         a->stage_rows == b->stage_rows && a->src_order == b->src_order && a->panel == b->panel &&
         a->block == b->block && a->rot == b->rot && a->rot_ss == b->rot_ss;
}

/* A Y run as a call of a function of the kernel's, one for each shape of
 * tile, so the sweeps of a nest (a super-block, the rows after the last
 * one) share their tiles' code instead of each inlining its own.
 *   void <kernel>_run<i>(ptr src, ptr dst, i64 so, i64 dof, i64 y0, i64 ycount, ptr stage, ptr rows)
 * Column nests (LycNest.columns: byte and nibble transposes): whole runs,
 * shorter ones and the blocks left after them (a run of one) call the same
 * body with their length (ycount); staged runs (stage_rows) have bodies of
 * their own. Inlined, the i4 4000x3000 transpose's kernel held twelve
 * copies of the nibble tile's pieces, blocks of 500-1100 instructions, and
 * compiled in 360-440 ms, two thirds of it in instruction selection; a
 * function per piece (two a tile) cost 4% of its speed in the cache, and a
 * run is eight pieces (docs/codegen.md has the measurements).
 * Tile transposes of one Y loop in a repack past the cache (plan: nt),
 * where a call a run costs nothing measurable (a repack of a few kilobytes
 * keeps its tiles inline): whole runs and counted ones have bodies apart,
 * so a whole run keeps its constant length. The f32 6004x5000 transpose
 * (two sweeps through the panel) compiled in 179-194 ms, 136-140 after.
 * A function called once is inlined after all (inline_single_runs). */
static void run_call(Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef ycount, LLVMValueRef so, LLVMValueRef dof,
                     LLVMValueRef y0) {
  LycIR *ir = &g->ir;
  if (x->columns && !staged_run(g, x, t, ym, ycount)) { /* any length up to the nest's runs, counted */
    LY_ASSERT(ym == 1 || ym == x->ym);
    ycount = ycount ? ycount : lyc_i64(ir, ym);
    ym = x->ym > 1 ? x->ym : 1;
  }
  RunFn *f = NULL;
  for (int i = 0; i < g->nrun_fns && !f; i++)
    if (same_run_nest(&g->run_fns[i].x, x) && !memcmp(&g->run_fns[i].t, &t, sizeof t) && g->run_fns[i].ym == ym &&
        g->run_fns[i].counted == (ycount != NULL))
      f = &g->run_fns[i];
  if (!f && !g->run_fns)
    g->run_fns = ly_malloc(MAX_RUN_FNS * sizeof *g->run_fns);
  if (!f && (!g->run_fns || g->nrun_fns == MAX_RUN_FNS)) { /* a kernel of many shapes: the rest inline */
    g->in_run_fn = true;
    y_run(g, x, t, ym, ycount, so, dof, y0);
    g->in_run_fn = false;
    return;
  }
  if (!f) {
    LLVMTypeRef params[] = {ir->ptr, ir->ptr, ir->i64, ir->i64, ir->i64, ir->i64, ir->ptr, ir->ptr};
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_run%d", g->nrun_fns);
    Helper h;
    LLVMValueRef fn = helper_begin(g, &h, suffix, params, 8);
    unsigned separate[] = {1, 2, 7, 8}; /* src, dst, stage, rows: separate objects, as in the kernel */
    for (int a = 0; a < 4; a++)
      add_attr(ir, fn, separate[a], "noalias");
    LLVMValueRef saved[4] = {g->src, g->dst, g->stage, g->rows};
    g->src = LLVMGetParam(fn, 0), g->dst = LLVMGetParam(fn, 1);
    g->stage = g->stage ? LLVMGetParam(fn, 6) : NULL;
    g->rows = g->rows ? LLVMGetParam(fn, 7) : NULL;
    g->in_run_fn = true;
    y_run(g, x, t, ym, ycount ? LLVMGetParam(fn, 5) : NULL, LLVMGetParam(fn, 2), LLVMGetParam(fn, 3),
          LLVMGetParam(fn, 4));
    g->in_run_fn = false;
    helper_end(g, &h);
    g->src = saved[0], g->dst = saved[1], g->stage = saved[2], g->rows = saved[3];
    f = &g->run_fns[g->nrun_fns++];
    *f = (RunFn){*x, t, ym, ycount != NULL, fn, 0};
  }
  f->calls++;
  LLVMValueRef fn = f->fn, null = LLVMConstPointerNull(ir->ptr);
  LLVMValueRef args[] = {g->src, g->dst, so, dof, y0, ycount ? ycount : lyc_i64(ir, 0), g->stage ? g->stage : null,
                         g->rows ? g->rows : null};
  LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(fn), fn, args, 8, "");
}

/* A tile for each of the ym consecutive V-wide Y blocks from y0 (rows
 * x0.. already in so and dof): one source row's blocks back to back. With
 * ycount, the run has that many blocks (at most ym) instead. Column nests'
 * runs, and large tile transposes', are functions (run_call). */
static void y_run(Gen *g, const LycNest *x, Tile t, int ym, LLVMValueRef ycount, LLVMValueRef so, LLVMValueRef dof,
                  LLVMValueRef y0) {
  bool outline = x->columns || (x->ny == 1 && g->p->nt);
  if (outline && !g->in_run_fn && !wide_bits(g, x, t, ym, ycount)) {
    run_call(g, x, t, ym, ycount, so, dof, y0);
    return;
  }
  const LycLoop *Yin = &x->loops[x->nloops - 2];
  int V = g->p->vlen;
  if (wide_bits(g, x, t, ym, ycount)) {
    wide_bit_tile(g, x, ym, add(g, so, y0), step(g, dof, y0, Yin->ds));
    return;
  }
  if (staged_run(g, x, t, ym, ycount))
    stage_rows(g, x, t, ym, add(g, so, y0));
  LycLoopIR l;
  LLVMValueRef m = ym > 1 ? lyc_loop_begin(&g->ir, &l, lyc_i64(&g->ir, 0), ycount ? ycount : lyc_i64(&g->ir, ym), "ym")
                          : NULL;
  LLVMValueRef y = m ? add(g, y0, lyc_mul_const(&g->ir, m, V, "")) : y0;
  zip_tile(g, x, t, add(g, so, y), x->ny == 1 ? step(g, dof, y, Yin->ds) : dof, y);
  if (m)
    lyc_loop_end(&g->ir, &l);
  g->run_so = NULL;
}

/* A byte store of v's lanes lo <= i < hi (lo < hi <= 64, runtime i64s). */
static void masked_store_range(Gen *g, LLVMValueRef v, LLVMValueRef ptr, LLVMValueRef lo, LLVMValueRef hi) {
  LLVMBuilderRef b = g->ir.b;
  LLVMValueRef ones = lyc_i64(&g->ir, -1);
  LLVMValueRef bits = LLVMBuildAnd(b, LLVMBuildLShr(b, ones, LLVMBuildSub(b, lyc_i64(&g->ir, 64), hi, ""), ""),
                                   LLVMBuildShl(b, ones, lo, ""), "lanes");
  LLVMValueRef mask = LLVMBuildBitCast(b, bits, vec(g->ir.i1, 64), "");
  LLVMTypeRef tys[] = {LLVMTypeOf(v), g->ir.ptr};
  LLVMValueRef args[] = {v, ptr, LLVMConstInt(g->ir.i32, 1, 0), mask};
  lyc_intrinsic(&g->ir, "llvm.masked.store", tys, 2, args, 4);
}

/* A panel nest's Y run (plan: panel, see plan.c's zip_panel): its tiles
 * write each X piece into the panel, row r (Y position y0 + r) at S * r +
 * 64 (line-aligned stores), and panel_flush_fn's function streams the lines
 * the piece completes, read back at the destination's alignment. */
typedef struct {
  LycNest nest;       /* the nest with the panel's Y stride: its tiles write into the panel */
  LLVMValueRef rows;  /* Y positions in the run */
  int64_t S;          /* bytes between the panel's rows */
  int64_t dst_row;    /* elements between the destination's rows */
  bool joined;        /* lyc_panel_joined: one flush of the run's rows, after its pieces */
} Panel;

#define PANEL_AT 64 /* a row's piece in the panel: after a line for the carry */

/* The source lines panel_flush_fn prefetches while it streams: `lines`
 * from pf, 2^lg to a row, rows `row` bytes apart (lines 0: none). */
typedef struct {
  LLVMValueRef pf;
  int64_t row, lg, lines;
} FlushPrefetch;

/* The same inside the flush (its parameters), and m, the lines of a
 * panel row's piece: panel row r's line k (k < m) prefetches line r * m + k. */
typedef struct {
  LLVMValueRef pf, row, lg, lines, m;
} FlushPrefetchIR;

static void flush_prefetch(Gen *g, const FlushPrefetchIR *f, LLVMValueRef r, LLVMValueRef k) {
  LycIR *ir = &g->ir;
  LLVMBuilderRef b = ir->b;
  LLVMValueRef j = LLVMBuildAdd(b, LLVMBuildMul(b, r, f->m, ""), k, "pfj");
  LycIf fp;
  if_begin(g, &fp, LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, k, f->m, ""), LLVMBuildICmp(b, LLVMIntULT, j, f->lines, ""), ""));
  LLVMValueRef col = LLVMBuildAnd(b, j, LLVMBuildSub(b, LLVMBuildShl(b, lyc_i64(ir, 1), f->lg, ""), lyc_i64(ir, 1), ""), "");
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildLShr(b, j, f->lg, ""), f->row, ""),
                                  lyc_mul_const(ir, col, 64, ""), "");
  lyc_prefetch(ir, LLVMBuildGEP2(b, ir->i8, f->pf, &off, 1, "pf"), 0);
  if_else(g, &fp);
  if_end(g, &fp);
}

/* void <kernel>_panel_flush(ptr panel, ptr dst, i64 a0, i64 rows, i64 bytes, i64 before, i1 last, i64 S,
 *                           i64 row)
 * void <kernel>_panel_flush_pf(..., i64 row, ptr pf, i64 pf_row, i64 pf_lg, i64 pf_lines)
 * Streams row by row the destination lines an X piece of `bytes` bytes per
 * row completes (rows of the panel S bytes apart, of the destination `row`
 * bytes apart; the piece's first destination byte at address a0, each
 * row's at `off` in its line, `before` bytes of the sweep before it):
 * whole lines non-temporal, the line the sweep starts inside and, after its
 * last piece (last), the one it ends inside by masked plain stores of the
 * sweep's bytes alone; otherwise the piece's last, partial line is carried
 * to just before where the next piece will lie (a piece that completes no
 * line carries its first). A full line never holds another row's bytes, so
 * rows apart by any distance, other nests and other threads' pieces are
 * left as they are. One function for every piece of the kernel (not
 * inlined: a copy per piece took the 6004x5000 f32 transpose's IR from
 * 2091 to 2921 lines and its compile time up by as much).
 * The _pf variant, while it streams, prefetches the source of the piece
 * that comes next (pf_lines lines from pf, 2^pf_lg a row, rows pf_row
 * bytes apart), a line for each line it stores: the pieces' loads and the
 * flushes' stores would otherwise take turns, neither overlapping the other
 * (docs/codegen.md, "The panel's prefetch"). */
static LLVMValueRef panel_flush_fn(Gen *g, bool prefetch) {
  if (g->flush_fn[prefetch])
    return g->flush_fn[prefetch];
  LycIR *ir = &g->ir;
  LLVMBuilderRef b = ir->b;
  LLVMTypeRef params[] = {ir->ptr, ir->ptr, ir->i64, ir->i64, ir->i64, ir->i64, ir->i1,
                          ir->i64, ir->i64, ir->ptr, ir->i64, ir->i64, ir->i64};
  Helper h;
  LLVMValueRef fn = helper_begin(g, &h, prefetch ? "_panel_flush_pf" : "_panel_flush", params, prefetch ? 13 : 9);
  LLVMValueRef panel = LLVMGetParam(fn, 0), dst = LLVMGetParam(fn, 1), a0 = LLVMGetParam(fn, 2);
  LLVMValueRef rows = LLVMGetParam(fn, 3), bytes = LLVMGetParam(fn, 4), before = LLVMGetParam(fn, 5);
  LLVMValueRef last = LLVMGetParam(fn, 6), S = LLVMGetParam(fn, 7), row = LLVMGetParam(fn, 8);
  FlushPrefetchIR pfs = {0};
  if (prefetch)
    pfs = (FlushPrefetchIR){LLVMGetParam(fn, 9), LLVMGetParam(fn, 10), LLVMGetParam(fn, 11), LLVMGetParam(fn, 12),
                            LLVMBuildLShr(b, bytes, lyc_i64(ir, 6), "")};
  LLVMTypeRef lt = vec(ir->i8, 64);
  LLVMValueRef zero = lyc_i64(ir, 0), c64 = lyc_i64(ir, 64);
  LycLoopIR rl;
  LLVMValueRef r = lyc_loop_begin(ir, &rl, zero, rows, "prow");
  LLVMValueRef ar = LLVMBuildAdd(b, a0, LLVMBuildMul(b, r, row, ""), ""); /* the row's piece in dst */
  LLVMValueRef off = LLVMBuildAnd(b, ar, lyc_i64(ir, 63), "off");
  LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, r, S, ""), lyc_i64(ir, PANEL_AT), "at");
  LLVMValueRef lp_at = LLVMBuildSub(b, at, off, "");
  LLVMValueRef lp = LLVMBuildGEP2(b, ir->i8, panel, &lp_at, 1, "lp"); /* the bytes of its first line */
  LLVMValueRef ld_at = LLVMBuildSub(b, LLVMBuildSub(b, ar, off, ""), LLVMBuildPtrToInt(b, dst, ir->i64, ""), "");
  LLVMValueRef ld = LLVMBuildGEP2(b, ir->i8, dst, &ld_at, 1, "ld");
  LLVMValueRef total = LLVMBuildAdd(b, off, bytes, "");
  LLVMValueRef n = LLVMBuildLShr(b, total, lyc_i64(ir, 6), "lines"); /* lines it completes */
  LLVMValueRef rem = LLVMBuildAnd(b, total, lyc_i64(ir, 63), "rem");
  LLVMValueRef head = LLVMBuildSub(b, off, before, ""); /* where the sweep starts in line 0, if there */
  LLVMValueRef lo = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, head, zero, ""), head, zero, "lo");
  LycIf f0; /* line 0: masked when the sweep starts inside it */
  if_begin(g, &f0, LLVMBuildICmp(b, LLVMIntUGE, n, lyc_i64(ir, 1), ""));
  {
    LLVMValueRef v = load(g, lt, lp);
    LycIf fm;
    if_begin(g, &fm, LLVMBuildICmp(b, LLVMIntNE, lo, zero, ""));
    masked_store_range(g, v, ld, lo, c64);
    if_else(g, &fm);
    store_nt(g, v, ld, 64);
    if_end(g, &fm);
    if (prefetch)
      flush_prefetch(g, &pfs, r, zero);
    LycLoopIR ll;
    LLVMValueRef k = lyc_loop_begin(ir, &ll, lyc_i64(ir, 1), n, "pline"), o = lyc_mul_const(ir, k, 64, "");
    store_nt(g, load(g, lt, LLVMBuildGEP2(b, ir->i8, lp, &o, 1, "")), LLVMBuildGEP2(b, ir->i8, ld, &o, 1, ""), 64);
    if (prefetch)
      flush_prefetch(g, &pfs, r, k);
    lyc_loop_end(ir, &ll);
  }
  if_else(g, &f0);
  if_end(g, &f0);
  LycIf fr; /* the partial line after them */
  if_begin(g, &fr, LLVMBuildICmp(b, LLVMIntNE, rem, zero, ""));
  {
    LLVMValueRef o = lyc_mul_const(ir, n, 64, "");
    LLVMValueRef v = load(g, lt, LLVMBuildGEP2(b, ir->i8, lp, &o, 1, ""));
    LycIf fl;
    if_begin(g, &fl, last);
    LLVMValueRef from = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, n, zero, ""), lo, zero, "");
    masked_store_range(g, v, LLVMBuildGEP2(b, ir->i8, ld, &o, 1, ""), from, rem);
    if_else(g, &fl);
    LLVMValueRef to = LLVMBuildSub(b, at, rem, ""); /* its rem bytes end where the next piece starts */
    store(g, v, LLVMBuildGEP2(b, ir->i8, panel, &to, 1, ""));
    if_end(g, &fl);
  }
  if_else(g, &fr);
  if_end(g, &fr);
  lyc_loop_end_rolled(ir, &rl); /* unrolled over the 16 rows its calls pass, 974 lines of IR */
  helper_end(g, &h);
  return g->flush_fn[prefetch] = fn;
}

/* The address of destination element `off` (an i64). */
static LLVMValueRef dst_at(Gen *g, LLVMValueRef off) {
  return LLVMBuildPtrToInt(g->ir.b, at(g, g->dst, off, g->p->dbytes), g->ir.i64, "");
}

/* The prefetch of `rows` source rows of `bytes` bytes from element `so`,
 * `stride` elements apart: none (lines 0) unless a row is a power of two
 * of whole lines (callers count bytes with sbits / 8: none for sub-byte
 * elements). */
static FlushPrefetch source_rows(Gen *g, LLVMValueRef so, int64_t rows, int64_t stride, int64_t bytes) {
  FlushPrefetch f = {0};
  int64_t per = bytes / 64;
  if (bytes % 64 || !per || (per & (per - 1)))
    return f;
  f.pf = at(g, g->src, so, g->p->sbits / 8);
  f.row = stride * (g->p->sbits / 8);
  f.lg = lyc_log2_ceil(per);
  f.lines = rows * per;
  return f;
}

/* Calls the flush (panel_flush_fn) of `rows` rows of `bytes` each from
 * address a0, prefetching fp's lines (none: NULL or no lines). */
static void panel_flush(Gen *g, const Panel *pn, LLVMValueRef a0, LLVMValueRef rows, LLVMValueRef before,
                        LLVMValueRef last, LLVMValueRef bytes, const FlushPrefetch *fp) {
  if (fp && !fp->lines)
    fp = NULL;
  LLVMValueRef fn = panel_flush_fn(g, fp != NULL);
  LLVMValueRef args[] = {g->panel, g->dst, a0, rows, bytes, before, last, lyc_i64(&g->ir, pn->S),
                         lyc_i64(&g->ir, pn->dst_row * g->p->dbytes), fp ? fp->pf : NULL,
                         lyc_i64(&g->ir, fp ? fp->row : 0), lyc_i64(&g->ir, fp ? fp->lg : 0),
                         lyc_i64(&g->ir, fp ? fp->lines : 0)};
  LLVMBuildCall2(g->ir.b, LLVMGlobalGetValueType(fn), fn, args, fp ? 13 : 9, "");
}

/* One X piece of a Y run: the tiles of its ym Y blocks from y0 (X rows x0..
 * of so and dof, at offset x0), into the destination, or through the
 * panel (pn; last: whether the piece ends the sweep). */
static void x_piece(Gen *g, const LycNest *x, const Panel *pn, Tile t, int ym, LLVMValueRef ycount, LLVMValueRef so,
                    LLVMValueRef dof, LLVMValueRef x0, LLVMValueRef y0, LLVMValueRef last) {
  if (!pn) {
    y_run(g, x, t, ym, ycount, so, add(g, dof, x0), y0);
    return;
  }
  const LycLoop *Y = &x->loops[x->nloops - 2];
  int db = g->p->dbytes;
  /* panel elements: row y - y0 at bytes PANEL_AT + (y - y0) * S */
  LLVMValueRef pdof = LLVMBuildSub(g->ir.b, lyc_i64(&g->ir, PANEL_AT / db), lyc_mul_const(&g->ir, y0, pn->S / db, ""),
                                   "pdof");
  LLVMValueRef dst = g->dst;
  g->dst = g->panel;
  y_run(g, &pn->nest, t, ym, ycount, so, add(g, pdof, pn->joined ? x0 : lyc_i64(&g->ir, 0)), y0);
  g->dst = dst;
  if (!pn->joined) { /* while the next piece's source rows come in */
    const LycLoop *X = &x->loops[x->nloops - 1];
    int64_t rows = (int64_t)t.xg * t.rows;
    FlushPrefetch fp = {0};
    if (Y->ss == 1 && !ycount)
      fp = source_rows(g, add(g, add(g, so, lyc_i64(&g->ir, rows * X->ss)), y0), rows, X->ss,
                       (int64_t)ym * t.yv * (g->p->sbits / 8));
    panel_flush(g, pn, dst_at(g, add(g, add(g, dof, x0), lyc_mul_const(&g->ir, y0, Y->ds, ""))), pn->rows,
                lyc_mul_const(&g->ir, x0, db, ""), last, lyc_i64(&g->ir, (int64_t)t.width * t.xg * db), /* xg chunks */
                &fp);
  }
}

/* Where a joined panel nest's Y run (lyc_panel_joined) lies in the range
 * one thread streams: the bytes of the range before it, and whether it
 * ends the range. A run that does not end it carries its last partial line
 * to the next (panel_flush_fn), so only the range's two ends are masked. */
typedef struct {
  LLVMValueRef before, last;
} RunSeq;

/* A contig panel nest (plan: panel, plan.c's contig_panel) from the loop
 * before its rows (P) on: this thread's share of P in pieces of ym runs,
 * each piece's runs of every row copied into the panel (row r at r * S +
 * PANEL_AT; joined rows: one range, as in the destination), then the
 * lines they complete streamed, the partial one carried to the next piece
 * (panel_flush_fn). */
static void contig_pieces(Gen *g, const LycNest *x, LLVMValueRef so, LLVMValueRef dof, bool split) {
  const LycLoop *P = &x->loops[x->nloops - 3], *R = &x->loops[x->nloops - 2], *run = &x->loops[x->nloops - 1];
  LycIR *ir = &g->ir;
  LLVMBuilderRef b = ir->b;
  int db = g->p->dbytes;
  int64_t K = x->ym;
  bool joined = lyc_panel_joined(x);
  Panel pn = {.S = lyc_panel_stride(x, g->p), .dst_row = R->ds};
  int64_t run_at = joined ? R->n * run->n : run->n; /* panel elements from one P position to the next */
  LLVMValueRef lo, hi;
  range(g, P->n, split, &lo, &hi);
  LLVMValueRef npieces = lyc_div_const(ir, LLVMBuildAdd(b, LLVMBuildSub(b, hi, lo, ""), lyc_i64(ir, K - 1), ""), K, "");
  LycLoopIR pl, rl, kl;
  LLVMValueRef p0 = add(g, lo, lyc_mul_const(ir, lyc_loop_begin(ir, &pl, lyc_i64(ir, 0), npieces, "piece"), K, ""));
  LLVMValueRef left = LLVMBuildSub(b, hi, p0, "");
  LLVMValueRef cnt = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, left, lyc_i64(ir, K), ""), left, lyc_i64(ir, K), "");
  LLVMValueRef dst = g->dst;
  g->dst = g->panel;
  LLVMValueRef r = open_loop(g, &rl, R->n, false, "prow");
  LLVMValueRef k = lyc_loop_begin(ir, &kl, lyc_i64(ir, 0), cnt, "prun");
  LLVMValueRef pd = add(g, lyc_i64(ir, PANEL_AT / db), add(g, lyc_mul_const(ir, r, pn.S / db, ""), lyc_mul_const(ir, k, run_at, "")));
  inner_contig(g, x, run, step(g, step(g, so, add(g, p0, k), P->ss), r, R->ss), pd, false);
  lyc_loop_end(ir, &kl);
  lyc_loop_end(ir, &rl);
  g->dst = dst;
  LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, add(g, p0, cnt), hi, "");
  /* the next piece's source, when each P position's rows are one range
   * (nhwc -> nChw16c), or each row's P positions (nChw16c -> nhwc) */
  FlushPrefetch fp = {0};
  LLVMValueRef next = step(g, so, add(g, p0, lyc_i64(ir, K)), P->ss);
  if (run->ss == 1 && R->ss == run->n)
    fp = source_rows(g, next, K, P->ss, R->n * run->n * (g->p->sbits / 8));
  else if (run->ss == 1 && P->ss == run->n)
    fp = source_rows(g, next, R->n, R->ss, K * run->n * (g->p->sbits / 8));
  panel_flush(g, &pn, dst_at(g, step(g, dof, p0, P->ds)), lyc_i64(ir, joined ? 1 : R->n),
              lyc_mul_const(ir, LLVMBuildSub(b, p0, lo, ""), run_at * db, "before"), last,
              lyc_mul_const(ir, cnt, run_at * db, ""), &fp);
  lyc_loop_end(ir, &pl);
}

/* The X rows of the Y blocks at y0: chunks of V rows, then the tail rows
 * (with the destination padding that follows them, xpad); seq: the run's
 * place in its thread's range of joined runs (NULL: a range alone). */
static void x_rows(Gen *g, const LycNest *x, int64_t nrows, int yv, int ym, LLVMValueRef ycount, LLVMValueRef so,
                   LLVMValueRef dof, LLVMValueRef y0, const RunSeq *seq) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  int V = g->p->vlen, tail = (int)(nrows % V);
  int xg = x->xg > 1 ? x->xg : 1;
  int64_t ngroups = nrows / ((int64_t)V * xg), nleft = (nrows - ngroups * V * xg) / V;
  Panel pn, *pp = NULL;
  if (x->panel) {
    pp = &pn;
    pn.nest = *x;
    pn.S = lyc_panel_stride(x, g->p);
    LY_ASSERT(g->p->dbits >= 8);
    pn.nest.loops[x->nloops - 2].ds = pn.S / g->p->dbytes;
    pn.dst_row = x->loops[x->nloops - 2].ds;
    pn.rows = ycount ? lyc_mul_const(&g->ir, ycount, yv, "") : lyc_i64(&g->ir, (int64_t)ym * yv);
    pn.joined = lyc_panel_joined(x);
    LY_ASSERT(!pn.joined || nrows == X->n);
  }
  LLVMValueRef yes = LLVMConstInt(g->ir.i1, 1, 0), no = LLVMConstInt(g->ir.i1, 0, 0);
  /* A rotated nest: the group or chunk that ends the rows, whose rows wrap, on its own after the others */
  LY_ASSERT(!x->rot || (!tail && !pp && (ngroups || nleft)));
  bool wrap_group = x->rot && !nleft;
  int64_t nloop = ngroups - wrap_group;
  if (nloop) { /* groups of xg chunks */
    LycLoopIR l;
    LLVMValueRef xc = nloop >= 2 ? lyc_loop_begin(&g->ir, &l, lyc_i64(&g->ir, 0), lyc_i64(&g->ir, nloop), "xc") : NULL;
    LLVMValueRef x0 = xc ? lyc_mul_const(&g->ir, xc, (int64_t)V * xg, "x0") : lyc_i64(&g->ir, 0);
    LLVMValueRef last = nleft || tail ? no
                        : xc      ? LLVMBuildICmp(g->ir.b, LLVMIntEQ, xc, lyc_i64(&g->ir, nloop - 1), "")
                                  : yes;
    x_piece(g, x, pp, (Tile){V, V, yv, V, xg, 0}, ym, ycount, step(g, so, x0, X->ss), dof, x0, y0, last);
    if (xc)
      lyc_loop_end(&g->ir, &l);
  }
  if (wrap_group) {
    int64_t xl = nloop * V * xg;
    x_piece(g, x, NULL, (Tile){V, V, yv, V, xg, x->rot}, ym, ycount, add(g, so, lyc_i64(&g->ir, xl * X->ss)), dof,
            lyc_i64(&g->ir, xl), y0, yes);
  }
  /* The whole chunks left over after the groups (whole-line pieces only,
   * see x_line_group), one at a time. */
  for (int64_t x0 = ngroups * V * xg; x0 + V <= nrows; x0 += V)
    x_piece(g, x, pp, (Tile){V, V, yv, V, 1, x0 + V == nrows ? x->rot : 0}, ym, ycount,
            add(g, so, lyc_i64(&g->ir, x0 * X->ss)), dof,
            lyc_i64(&g->ir, x0), y0, x0 + V < nrows ? no : yes);
  if (tail) {
    int64_t x0 = nrows - tail;
    int width = tail + x->xpad;
    x_piece(g, x, pp, (Tile){1 << lyc_log2_ceil(width), tail, yv, width, 1, 0}, ym, ycount,
            add(g, so, lyc_i64(&g->ir, x0 * X->ss)), dof, lyc_i64(&g->ir, x0), y0, yes);
  }
  if (pp && pn.joined) { /* the run's rows, one range, while the next run's source comes in */
    FlushPrefetch fp = {0};
    if (x->loops[x->nloops - 2].ss == 1)
      fp = source_rows(g, add(g, so, add(g, y0, lyc_i64(&g->ir, (int64_t)ym * yv))), nrows, X->ss,
                       (int64_t)ym * yv * (g->p->sbits / 8));
    panel_flush(g, &pn, dst_at(g, add(g, dof, lyc_mul_const(&g->ir, y0, X->n, ""))), lyc_i64(&g->ir, 1),
                seq ? seq->before : lyc_i64(&g->ir, 0), seq ? seq->last : yes,
                lyc_mul_const(&g->ir, pn.rows, pn.S, ""), &fp);
  }
}

/* Y blocks of V (in runs of ym per X chunk, see y_multiple), then the
 * partial Y block, each over nrows X rows from so/dof. The blocks after the
 * last whole run make one shorter run, through the same code (a run length
 * known only at run time), except in wide bit tiles, whose run length is
 * their vector length, and when there is no whole run: then they go one
 * at a time. With split, the loops over Y blocks take the thread split; the
 * partial Y block then runs on thread 0 only. A Y group of several loops
 * swept in at most Y_UNROLL_RUNS runs (not split) is unrolled, its
 * positions constants (y_dst_offset): LLVM did that itself while the
 * offsets were divisions by constants, and with the table's loads it does
 * not (small OIhw16i16o 32x32x3x1, 3 runs: 67 GB/s unrolled, 52 in a
 * loop). Not more: the nine runs of 512x512x3x3 unrolled compiled in
 * 250-390 ms instead of 55, for no more speed past the cache. */
#define Y_UNROLL_RUNS 4
static void zip_sweep(Gen *g, const LycNest *x, int64_t nrows, LLVMValueRef so, LLVMValueRef dof, bool split) {
  int V = g->p->vlen, ym = x->ym > 1 ? x->ym : 1;
  int64_t ytotal = 1;
  for (int i = x->nloops - 1 - x->ny; i < x->nloops - 1; i++)
    ytotal *= x->loops[i].n;
  int64_t nblocks = ytotal / V, nruns = nblocks / ym, left = nblocks % ym;
  int ytail = (int)(ytotal % V);
  bool short_run = nruns && left && !(x->bit_copy && g->p->sbits < 8);
  if (nruns && x->ny > 1 && !split && !short_run && nruns <= Y_UNROLL_RUNS) {
    for (int64_t r = 0; r < nruns; r++)
      x_rows(g, x, nrows, V, ym, NULL, so, dof, lyc_i64(&g->ir, r * V * ym), NULL);
  } else if (nruns) {
    LycLoopIR yl;
    LLVMValueRef lo, hi;
    range(g, nruns + short_run, split, &lo, &hi);
    LLVMValueRef yb = lyc_loop_begin(&g->ir, &yl, lo, hi, "yb"), count = NULL;
    if (short_run) {
      LLVMValueRef last = LLVMBuildICmp(g->ir.b, LLVMIntEQ, yb, lyc_i64(&g->ir, nruns), "");
      count = LLVMBuildSelect(g->ir.b, last, lyc_i64(&g->ir, left), lyc_i64(&g->ir, ym), "yrun");
    }
    RunSeq seq = {0}; /* a joined panel's runs: one range per thread, carried from run to run */
    if (x->panel && lyc_panel_joined(x)) {
      seq.before = lyc_mul_const(&g->ir, LLVMBuildSub(g->ir.b, yb, lo, ""), (int64_t)V * ym * x->loops[x->nloops - 1].n *
                                                                                 g->p->dbytes, "before");
      seq.last = LLVMBuildICmp(g->ir.b, LLVMIntEQ, LLVMBuildAdd(g->ir.b, yb, lyc_i64(&g->ir, 1), ""), hi, "");
    }
    x_rows(g, x, nrows, V, ym, count, so, dof, lyc_mul_const(&g->ir, yb, (int64_t)V * ym, "y0"),
           seq.before ? &seq : NULL);
    lyc_loop_end(&g->ir, &yl);
  }
  if (left && !short_run) { /* one at a time */
    LycLoopIR rl;
    LLVMValueRef yr = open_loop(g, &rl, left, split, "yr");
    LLVMValueRef y0 = add(g, lyc_i64(&g->ir, nruns * ym * V), lyc_mul_const(&g->ir, yr, V, ""));
    x_rows(g, x, nrows, V, 1, NULL, so, dof, y0, NULL);
    lyc_loop_end(&g->ir, &rl);
  }
  if (ytail) {
    LLVMBasicBlockRef done = split ? only_thread0(g) : NULL;
    x_rows(g, x, nrows, ytail, 1, NULL, so, dof, lyc_i64(&g->ir, nblocks * V), NULL);
    if (done) {
      LLVMBuildBr(g->ir.b, done);
      LLVMPositionBuilderAtEnd(g->ir.b, done);
    }
  }
}

static void inner_zip(Gen *g, const LycNest *x, LLVMValueRef so, LLVMValueRef dof, bool split);

/* A block panel nest (plan: panel=block, plan.c's zip_block): its X rows
 * and Y group, one destination range, transposed into the panel at
 * PANEL_AT, then streamed whole (panel_flush_fn: one row, both end lines
 * masked). */
static void block_zip(Gen *g, const LycNest *x, LLVMValueRef so, LLVMValueRef dof) {
  LycNest inner = *x;
  inner.panel = inner.block = false;
  LLVMValueRef dst = g->dst, one = lyc_i64(&g->ir, 1);
  g->dst = g->panel;
  inner_zip(g, &inner, so, lyc_i64(&g->ir, PANEL_AT / g->p->dbytes), false);
  g->dst = dst;
  Panel pn = {.S = lyc_panel_stride(x, g->p), .dst_row = 0}; /* one row: the block */
  panel_flush(g, &pn, dst_at(g, dof), one, lyc_i64(&g->ir, 0), LLVMConstInt(g->ir.i1, 1, 0),
              lyc_i64(&g->ir, pn.S), NULL);
}

/* The X rows in super-blocks of xsuper (threads share them), each swept
 * whole, then the rows after the last whole one (threads share its Y
 * blocks); a block panel nest through block_zip. */
static void inner_zip(Gen *g, const LycNest *x, LLVMValueRef so, LLVMValueRef dof, bool split) {
  const LycLoop *X = &x->loops[x->nloops - 1];
  if (x->block) {
    LY_ASSERT(!split);
    block_zip(g, x, so, dof);
    return;
  }
  if (!x->xsuper) {
    zip_sweep(g, x, X->n, so, dof, split);
    return;
  }
  int64_t nsuper = X->n / x->xsuper, rest = X->n % x->xsuper;
  /* A rotated nest's rows wrap at the end of X only: the super-blocks before
   * the last sweep take its copy without the rotation. */
  LycNest unrotated = *x;
  unrotated.rot = 0, unrotated.rot_ss = 0;
  bool last_whole = x->rot && !rest;
  LycLoopIR sl;
  LLVMValueRef xs = open_loop(g, &sl, nsuper - last_whole, split, "xs");
  LLVMValueRef x0 = lyc_mul_const(&g->ir, xs, x->xsuper, "xs0");
  zip_sweep(g, &unrotated, x->xsuper, step(g, so, x0, X->ss), add(g, dof, x0), false);
  lyc_loop_end(&g->ir, &sl);
  if (last_whole) {
    int64_t r0 = (nsuper - 1) * x->xsuper;
    zip_sweep(g, x, x->xsuper, add(g, so, lyc_i64(&g->ir, r0 * X->ss)), add(g, dof, lyc_i64(&g->ir, r0)), split);
  }
  if (rest) {
    int64_t r0 = nsuper * x->xsuper;
    zip_sweep(g, x, rest, add(g, so, lyc_i64(&g->ir, r0 * X->ss)), add(g, dof, lyc_i64(&g->ir, r0)), split);
  }
}

/* ===== Nests ======================================================================= */

static void zero_inner(Gen *g, const LycLoop *l, LLVMValueRef dof, bool split) {
  if (l && l->ds == 1) { /* one memset of this thread's share */
    LLVMValueRef lo, hi;
    range(g, l->n, split, &lo, &hi);
    LLVMValueRef len = lyc_mul_const(&g->ir, LLVMBuildSub(g->ir.b, hi, lo, ""), g->p->dbytes, "len");
    LLVMBuildMemSet(g->ir.b, at(g, g->dst, add(g, dof, lo), g->p->dbytes), LLVMConstInt(g->ir.i8, 0, 0), len, 1);
    return;
  }
  LycLoopIR lp;
  LLVMValueRef i = l ? open_loop(g, &lp, l->n, split, "z") : NULL;
  store(g, LLVMConstInt(g->dt, 0, 0), at(g, g->dst, i ? step(g, dof, i, l->ds) : dof, g->p->dbytes));
  if (l)
    lyc_loop_end(&g->ir, &lp);
}

/* Emits loops[lv..] of a nest; `split` marks the loop that threads share. */
static void emit_loops(Gen *g, const LycNest *x, bool zero, int lv, LLVMValueRef so, LLVMValueRef dof, bool split) {
  if (!zero && x->panel && x->inner == LYC_INNER_CONTIG && lv == x->nloops - 3) {
    contig_pieces(g, x, so, dof, split);
    return;
  }
  int inner_from = x->inner == LYC_INNER_ZIP ? x->nloops - 1 - x->ny : x->nloops - 1;
  if (lv >= inner_from) {
    const LycLoop *last = x->nloops ? &x->loops[x->nloops - 1] : NULL;
    if (zero)
      zero_inner(g, last, dof, split);
    else if (!last)
      copy_one(g, so, dof);
    else if (x->inner == LYC_INNER_ZIP)
      inner_zip(g, x, so, dof, split);
    else if (x->inner == LYC_INNER_CONTIG)
      inner_contig(g, x, last, so, dof, split);
    else {
      LycLoopIR l;
      LLVMValueRef i = open_loop(g, &l, last->n, split, "s");
      copy_one(g, step(g, so, i, last->ss), step(g, dof, i, last->ds));
      lyc_loop_end(&g->ir, &l);
    }
    return;
  }
  LycLoopIR l;
  LLVMValueRef i = open_loop(g, &l, x->loops[lv].n, split, "l");
  emit_loops(g, x, zero, lv + 1, step(g, so, i, x->loops[lv].ss), step(g, dof, i, x->loops[lv].ds), false);
  lyc_loop_end(&g->ir, &l);
}

static void emit_nest(Gen *g, const LycNest *x, bool zero) {
  LLVMValueRef so = lyc_i64(&g->ir, x->src_base), dof = lyc_i64(&g->ir, x->dst_base);
  if (x->nloops == 0 || (g->p->dbits < 8 && !x->packed)) { /* elements or-ed into bytes: one writer */
    LLVMBasicBlockRef done = only_thread0(g);
    emit_loops(g, x, zero, 0, so, dof, false);
    LLVMBuildBr(g->ir.b, done);
    LLVMPositionBuilderAtEnd(g->ir.b, done);
    return;
  }
  emit_loops(g, x, zero, 0, so, dof, true);
}

/* General digits: loop over the logical index, dim 0 split between threads,
 * each offset computed from the digits (LLVM hoists what is invariant). */
static void emit_elementwise(Gen *g) {
  const LyTypeImpl *s = g->p->src, *t = g->p->dst;
  LycLoopIR loops[LY_MAX_RANK];
  LLVMValueRef idx[LY_MAX_RANK];
  bool split = t->rank > 0 && g->p->dbits >= 8; /* packed destination bytes: one writer */
  LLVMBasicBlockRef done = split ? NULL : only_thread0(g);
  for (int d = 0; d < t->rank; d++)
    idx[d] = open_loop(g, &loops[d], t->dims[d], d == 0 && split, "i");
  copy_one(g, lyc_emit_offset(&g->ir, s, idx), lyc_emit_offset(&g->ir, t, idx));
  for (int d = t->rank - 1; d >= 0; d--)
    lyc_loop_end(&g->ir, &loops[d]);
  if (done) {
    LLVMBuildBr(g->ir.b, done);
    LLVMPositionBuilderAtEnd(g->ir.b, done);
  }
}

static LLVMTypeRef int_type(LycIR *ir, int bytes) { return LLVMIntTypeInContext(ir->c, (unsigned)bytes * 8); }

static void add_attr(LycIR *ir, LLVMValueRef fn, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(ir->c, kind, 0));
}

/* The run functions (run_call) that the kernel calls once go back into
 * it: alwaysinline for noinline. A kernel of one run shape (i4 4096x4096:
 * its staged runs) then compiles as it did without them. */
static void inline_single_runs(Gen *g) {
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  for (int i = 0; i < g->nrun_fns; i++)
    if (g->run_fns[i].calls == 1) {
      LLVMRemoveEnumAttributeAtIndex(g->run_fns[i].fn, LLVMAttributeFunctionIndex, noinline);
      add_attr(&g->ir, g->run_fns[i].fn, LLVMAttributeFunctionIndex, "alwaysinline");
    }
}

/* i1 @<name>_needs_memset(): whether dst must be zeroed before the kernel. */
static void emit_needs_memset(Gen *g, const char *name) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s_needs_memset", name);
  lyc_ir_function(&g->ir, buf, g->ir.i1, NULL, 0);
  LLVMBuildRet(g->ir.b, LLVMConstInt(g->ir.i1, g->p->memset_dst, 0));
}

LLVMValueRef lyc_emit_repack(LLVMModuleRef m, const LycPlan *p, const char *name, bool nt) {
  Gen g = {.p = p, .nt = nt};
  lyc_ir_init(&g.ir, m);
  g.ir.cvtph_bytes = p->cvtph_bytes;
  g.ir.cvtbf16_bytes = p->cvtbf16_bytes;
  g.st = int_type(&g.ir, p->sbytes);
  g.dt = int_type(&g.ir, p->dbytes);
  LLVMTypeRef params[] = {g.ir.ptr, g.ir.ptr, g.ir.i64, g.ir.i64};
  LLVMValueRef fn = lyc_ir_function(&g.ir, name, g.ir.vd, params, 4);
  const char *names[] = {"src", "dst", "thread", "nthreads"};
  for (int i = 0; i < 4; i++)
    LLVMSetValueName2(LLVMGetParam(fn, (unsigned)i), names[i], strlen(names[i]));
  add_attr(&g.ir, fn, 1, "noalias");
  add_attr(&g.ir, fn, 2, "noalias");
  add_attr(&g.ir, fn, LLVMAttributeFunctionIndex, "nounwind");
  g.src = LLVMGetParam(fn, 0), g.dst = LLVMGetParam(fn, 1);
  g.tid = LLVMGetParam(fn, 2), g.nth = LLVMGetParam(fn, 3);
  int64_t rows = 0; /* the largest run of staged rows */
  for (int i = 0; i < p->nnests; i++) {
    const LycNest *x = &p->nests[i];
    if (x->columns && x->xg == 4 && !g.stage) {
      g.stage = LLVMBuildArrayAlloca(g.ir.b, vec(g.ir.i8, 64), lyc_i64(&g.ir, 32), "stage");
      LLVMSetAlignment(g.stage, 64);
    }
    int64_t run = (int64_t)x->xg * p->vlen * x->ym * p->vlen * p->sbits / 8; /* rows * bytes */
    if (x->stage_rows && run > rows)
      rows = run;
  }
  if (rows) {
    g.rows = LLVMBuildArrayAlloca(g.ir.b, g.ir.i8, lyc_i64(&g.ir, rows), "rows");
    LLVMSetAlignment(g.rows, 64);
  }
  int64_t panel = 0; /* the largest panel (plan: panel) */
  for (int i = 0; i < p->nnests; i++)
    if (p->nests[i].panel && lyc_panel_bytes(&p->nests[i], p) > panel)
      panel = lyc_panel_bytes(&p->nests[i], p);
  if (panel) {
    g.panel = LLVMBuildArrayAlloca(g.ir.b, g.ir.i8, lyc_i64(&g.ir, panel), "panel");
    LLVMSetAlignment(g.panel, 64);
  }
  if (p->kind == LYC_PLAN_ELEMENTWISE)
    emit_elementwise(&g);
  for (int i = 0; i < p->nnests; i++)
    emit_nest(&g, &p->nests[i], false);
  for (int i = 0; i < p->nzero; i++)
    emit_nest(&g, &p->zero[i], true);
  if (nt || panel) /* non-temporal stores are weakly ordered: publish them before returning */
    LLVMBuildFence(g.ir.b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
  LLVMBuildRetVoid(g.ir.b);
  inline_single_runs(&g);
  ly_free(g.run_fns);
  if (!nt)
    emit_needs_memset(&g, name);
  lyc_ir_dispose(&g.ir);
  return fn;
}

/* ===== main for lli ================================================================= */

static LLVMValueRef declare(LycIR *ir, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n, bool va) {
  LLVMValueRef f = LLVMGetNamedFunction(ir->m, name);
  return f ? f : LLVMAddFunction(ir->m, name, LLVMFunctionType(ret, params, (unsigned)n, va));
}

static LLVMValueRef call(LycIR *ir, LLVMValueRef f, LLVMValueRef *args, int n) {
  return LLVMBuildCall2(ir->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

/* Fills src with a byte pattern, runs the kernel as three thread shares in
 * turn, prints dst like `od -An -tx1 -v -w16`. */
void lyc_emit_repack_main(LLVMModuleRef m, const LycPlan *p, LLVMValueRef kernel) {
  LycIR ir;
  lyc_ir_init(&ir, m);
  int64_t sbytes = 0, dbytes = 0;
  lyTypeGetSizeBytes(lyd_wrap(p->src), &sbytes);
  lyTypeGetSizeBytes(lyd_wrap(p->dst), &dbytes);
  LLVMValueRef malloc_fn = declare(&ir, "malloc", ir.ptr, (LLVMTypeRef[]){ir.i64}, 1, false);
  LLVMValueRef printf_fn = declare(&ir, "printf", ir.i32, (LLVMTypeRef[]){ir.ptr}, 1, true);
  lyc_ir_function(&ir, "main", ir.i32, NULL, 0);
  LLVMValueRef src = call(&ir, malloc_fn, (LLVMValueRef[]){lyc_i64(&ir, sbytes + 1)}, 1);
  LLVMValueRef dst = call(&ir, malloc_fn, (LLVMValueRef[]){lyc_i64(&ir, dbytes + 1)}, 1);
  LycLoopIR l;
  LLVMValueRef k = lyc_loop_begin(&ir, &l, lyc_i64(&ir, 0), lyc_i64(&ir, sbytes), "k");
  /* byte k: x = k * 0x9E3779B97F4A7C15, x ^= x >> 29, x *= 0xBF58476D1CE4E5B9, the top byte of
   * x (mod 2^64): a mix of the index, so no row repeats another (test_source_byte's) */
  LLVMValueRef x = LLVMBuildMul(ir.b, k, LLVMConstInt(ir.i64, 0x9E3779B97F4A7C15ull, 0), "");
  x = LLVMBuildXor(ir.b, x, LLVMBuildLShr(ir.b, x, lyc_i64(&ir, 29), ""), "");
  x = LLVMBuildMul(ir.b, x, LLVMConstInt(ir.i64, 0xBF58476D1CE4E5B9ull, 0), "");
  LLVMValueRef pat = LLVMBuildLShr(ir.b, x, lyc_i64(&ir, 56), "");
  LLVMBuildStore(ir.b, LLVMBuildTrunc(ir.b, pat, ir.i8, ""), LLVMBuildGEP2(ir.b, ir.i8, src, &k, 1, ""));
  lyc_loop_end(&ir, &l);
  /* Garbage where nothing is written proves the kernel writes padding. */
  LLVMBuildMemSet(ir.b, dst, LLVMConstInt(ir.i8, p->memset_dst ? 0 : 0xa5, 0), lyc_i64(&ir, dbytes), 1);
  for (int t = 0; t < 3; t++)
    call(&ir, kernel, (LLVMValueRef[]){src, dst, lyc_i64(&ir, t), lyc_i64(&ir, 3)}, 4);
  LLVMValueRef byte_fmt = LLVMBuildGlobalStringPtr(ir.b, " %02x", "byte");
  LLVMValueRef nl = LLVMBuildGlobalStringPtr(ir.b, "\n", "nl");
  k = lyc_loop_begin(&ir, &l, lyc_i64(&ir, 0), lyc_i64(&ir, dbytes), "k");
  LLVMValueRef byte = LLVMBuildLoad2(ir.b, ir.i8, LLVMBuildGEP2(ir.b, ir.i8, dst, &k, 1, ""), "");
  call(&ir, printf_fn, (LLVMValueRef[]){byte_fmt, LLVMBuildZExt(ir.b, byte, ir.i32, "")}, 2);
  LLVMValueRef endl = LLVMBuildOr(ir.b, LLVMBuildICmp(ir.b, LLVMIntEQ, LLVMBuildAnd(ir.b, k, lyc_i64(&ir, 15), ""), lyc_i64(&ir, 15), ""),
                                  LLVMBuildICmp(ir.b, LLVMIntEQ, k, lyc_i64(&ir, dbytes - 1), ""), "");
  LLVMBasicBlockRef pr = LLVMAppendBasicBlockInContext(ir.c, ir.fn, "newline");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(ir.c, ir.fn, "cont");
  LLVMBuildCondBr(ir.b, endl, pr, cont);
  LLVMPositionBuilderAtEnd(ir.b, pr);
  call(&ir, printf_fn, &nl, 1);
  LLVMBuildBr(ir.b, cont);
  LLVMPositionBuilderAtEnd(ir.b, cont);
  lyc_loop_end(&ir, &l);
  LLVMBuildRet(ir.b, LLVMConstInt(ir.i32, 0, 0));
  lyc_ir_dispose(&ir);
}
