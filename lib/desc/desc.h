/* desc: the canonical layout descriptor behind every spelling, its interning
 * context, the lowering of each layout spelling into it, geometry queries and
 * the printer. Internal prefix: lyd_. See docs/descriptor.md for the design.
 *
 * The model. A type with static dims maps the logical index (i_0..i_{r-1}) to
 *
 *     offset = base + sum_k digit_k.stride * value_k
 *     value_k = floor(E_k / digit_k.div)            (mod digit_k.ext if wrap)
 *     E_k     = i_dim                    for a simple digit (dim >= 0)
 *             = sum_d coef[d] * i_d      for a general digit (dim < 0)
 *               + sum_j sub_j.stride * value(sub_j)
 *
 * Simple digits are the shape:stride model (CuTe), oneDNN's blocking and XLA
 * tiles without '*'. General digits hold a tile across combined dims that the
 * tile does not divide; nested sub-digits hold tiles of tiles that do not
 * divide (XLA allows both). alloc is the allocation in elements (padding
 * included). The digit list is canonical (see lyd_canonicalize) so that equal
 * maps are equal lists and types can be interned. */
#ifndef LAYOUTC_DESC_H
#define LAYOUTC_DESC_H

#include "support/support.h"

#include <string.h>

#define LY_MAX_TILES 8
#define LY_MAX_BLOCKS 4
#define LY_MAX_DIGITS 64
/* Limits of the general form, shared by the parser and the size rules so
 * that every interned type prints as text the parser reads: a digit has at
 * most LY_MAX_SUBS nested digits, and nesting (the digit itself included) is
 * at most LY_MAX_DIGIT_NEST deep. */
#define LY_MAX_SUBS 8
#define LY_MAX_DIGIT_NEST 8

typedef struct LyDigit {
  int64_t stride; /* elements; LY_DYNAMIC if '?' (in a sub-digit: its coefficient in E) */
  int64_t div;    /* >= 1 */
  int64_t ext;    /* values lie in [0, ext) */
  bool wrap;      /* value is reduced mod ext (else it is < ext by range) */
  int dim;        /* >= 0: simple digit of that dim; -1: general */
  const int64_t *coef;        /* general: rank coefficients (>= 0) of E */
  int nsub;                   /* general: nested digits whose values add to E, */
  const struct LyDigit *sub;  /* each times its stride field */
} LyDigit;

/* LYD_FOREIGN: not a tensor (`index`, `i32`, `memref<4xf32>`, `!dialect.t`):
 * a value type of the IR that layoutc carries through verbatim (symbolic
 * holds its text); it has no dims, layout or geometry. */
typedef enum { LYD_DIGITS, LYD_ANY, LYD_SYMBOLIC, LYD_ENCODED, LYD_FOREIGN } LyLayoutKind;

/* --- Multi-buffer encodings (encoding.c; docs/language.md, sparse) ---------
 * A sparse tensor in MLIR's sparse_tensor form (levels over a dim-to-level
 * map that is a permutation or a block map), oneDNN's packed and grouped
 * encodings and a host scalar. The buffers each one needs are derived from it
 * (lyd_enc_buffers); they are not stored. */
typedef enum { LYE_SPARSE = 1, LYE_PACKED, LYE_GROUPED, LYE_HOST_SCALAR } LyEncKind;
typedef enum { LYE_EXPR_DIM, LYE_EXPR_FLOORDIV, LYE_EXPR_MOD } LyLevelExpr;

typedef struct {
  int format;  /* LyLevelFormat */
  int props;   /* LY_LEVEL_NONUNIQUE | LY_LEVEL_NONORDERED | LY_LEVEL_SOA */
  int expr;    /* LyLevelExpr: the level's coordinate is dim, dim floordiv c or dim mod c */
  int dim;
  int64_t c;   /* block size (floordiv, mod); 0 for a plain dim */
  int n, m;    /* n_out_of_m */
} LyLevel;

typedef struct LyEncoding {
  LyEncKind kind;
  int nlevels;
  LyLevel lvl[LY_MAX_RANK];
  int pos_width, crd_width; /* bits; 0 is index (64-bit) */
  int64_t nnz;              /* stored entries (sparse, packed); LY_DYNAMIC when '?' */
  int var_dim;              /* grouped: the dim whose extent varies per group */
  int64_t groups;           /* grouped: the number of groups */
  int offsets_width;        /* grouped: bits of an offset */
} LyEncoding;

/* One buffer of a multi-buffer type, in MLIR's storage order. */
typedef struct {
  LyBufferRole role;
  int level;          /* positions and coordinates; -1 otherwise */
  LyElem elem;
  int64_t size_bytes; /* LY_DYNAMIC when it depends on unknown counts */
} LyBufferInfo;

#define LYE_MAX_BUFFERS (2 * LY_MAX_RANK + 1)

typedef struct LyTypeImpl {
  struct LyTypeImpl *next; /* intern chain */
  uint64_t hash;
  LyElem elem;
  int rank;
  int64_t dims[LY_MAX_RANK]; /* LY_DYNAMIC for '?' */
  int64_t ms_num;            /* memory space number (0 = default) */
  const char *ms_str;        /* named memory space, or NULL */
  LyLayoutKind kind;
  /* LYD_DIGITS */
  int64_t base;  /* LY_DYNAMIC possible */
  int64_t alloc; /* elements; LY_DYNAMIC when not static */
  int ndigits;
  const LyDigit *digits;
  /* LYD_SYMBOLIC: a tiled layout or format tag over dynamic dims, kept in
   * its canonical spelling (the geometry needs the dims). */
  const char *symbolic;
  /* LYD_ENCODED */
  const LyEncoding *enc;
  /* Printing (print.c), not identity: the first tiled_layout spelling the
   * type was parsed from in its context, printed when the printer's search
   * finds no familiar form; and that search's answer, worked out on the
   * first print (malloc'd, freed with the context). Set after interning,
   * with atomics (types are printed from any thread). */
  const char *spelled;
  const char *searched;
  bool interned; /* a context's own copy (types built on the stack are not) */
} LyTypeImpl;

typedef struct LyCtx {
  LyArena arena;
  LyDiagEngine diag;
  /* Set by a view query (view.c) that failed because the layout has no
   * such view, rather than because the request was bad: embedders ask
   * "is this a view?" without treating no as an error (lyTypeTry*). */
  bool view_refused;
  LyTypeImpl **buckets;
  size_t nbuckets, count;
  /* While the IR parser parses a type: its module's attribute aliases
   * (`#map = affine_map<...>`), so that `#map` in a type reads as its text.
   * NULL otherwise. */
  const char *(*alias_lookup)(void *user, const char *name, int len, int *text_len);
  void *alias_user;
} LyCtx;

static inline LyCtx *lyd_ctx(LyContext c) { return (LyCtx *)c.ptr; }
static inline const LyTypeImpl *lyd_type(LyType t) { return (const LyTypeImpl *)t.ptr; }
static inline LyType lyd_wrap(const LyTypeImpl *t) { return (LyType){t}; }

/* --- Layout spellings (what the parser produces) --------------------------- */

typedef enum {
  LYS_NONE, LYS_ANY, LYS_TILED, LYS_STRIDED, LYS_TAG, LYS_GENERAL, LYS_OPAQUE, LYS_AFFINE, LYS_ENCODING, LYS_MORTON
} LySpecKind;

typedef struct {
  int n;                      /* entries, '*' included */
  int64_t size[LY_MAX_RANK];  /* 0 marks '*' */
  LyLoc loc;
} LyTile;

/* An affine map's expression (MLIR's affine_map<...>), folded as parsed:
 * MUL has a constant (or symbol) right side, FLOORDIV/CEILDIV/MOD a
 * positive constant. */
typedef enum { LYA_DIM, LYA_SYM, LYA_CONST, LYA_ADD, LYA_MUL, LYA_FLOORDIV, LYA_CEILDIV, LYA_MOD } LyAffKind;
typedef struct LyAffNode {
  LyAffKind kind;
  int64_t v; /* DIM, SYM: the index; CONST: the value */
  const struct LyAffNode *a, *b;
  LyLoc loc;
} LyAffNode;

#define LY_MAX_AFFINE_RESULTS 32

typedef struct {
  LySpecKind kind;
  LyLoc loc; /* start of the layout */
  /* affine_map: dims, symbols and results */
  int aff_ndims, aff_nsyms, aff_nresults;
  const LyAffNode *aff_results[LY_MAX_AFFINE_RESULTS];
  /* tiled_layout */
  int nperm;
  int perm[LY_MAX_RANK];
  int ntiles;
  LyTile tiles[LY_MAX_TILES];
  /* strided */
  int nstrides;
  int64_t strides[LY_MAX_RANK]; /* LY_DYNAMIC for '?' */
  int64_t offset;               /* strided and general; LY_DYNAMIC for '?' */
  /* format tag (and opaque's name): the string, located at loc */
  const char *tag;
  size_t tag_len;
  /* general */
  int ndigits;
  LyDigit digits[LY_MAX_DIGITS];
  int64_t size; /* -1: not given */
  /* LYS_ENCODING: the encoding as written, and where its parts are */
  LyEncoding enc;
  LyLoc lvl_loc[LY_MAX_RANK];  /* each level's format */
  LyLoc lvl_expr_loc[LY_MAX_RANK];
  LyLoc pos_loc, crd_loc, nnz_loc, group_loc, var_loc, off_loc;
  unsigned enc_keys; /* LYE_KEY_* given */
} LySpec;

enum { LYE_KEY_MAP = 1, LYE_KEY_POS = 2, LYE_KEY_CRD = 4, LYE_KEY_NNZ = 8, LYE_KEY_VAR = 16, LYE_KEY_GROUPS = 32,
       LYE_KEY_OFFSETS = 64, LYE_SHORT_CSR = 128, LYE_SHORT_COO = 256 };

/* A parsed type before lowering. */
typedef struct {
  LyElem elem;
  int rank;
  int64_t dims[LY_MAX_RANK];
  LyLoc dim_loc[LY_MAX_RANK];
  int64_t ms_num;
  const char *ms_str;
  size_t ms_str_len;
  LySpec spec;
  const LySource *src;
} LyTypeAst;

/* Lowers a parsed type to its interned descriptor, reporting located
 * diagnostics. NULL on error. (build.c) */
const LyTypeImpl *lyd_build(LyCtx *ctx, const LyTypeAst *ast);
/* Appends t's blob (lyTypeSerialize's bytes: one blob, one type) to b. */
void lyd_serialize(const LyTypeImpl *t, LyBuf *b);

/* Lowers a tiled_layout spec on static dims to canonical digits without
 * reporting anything (nested digits go to scratch). -1 when invalid. */
int lyd_tiled_digits(const LySpec *spec, int rank, const int64_t *dims, LyDigit *g, int64_t *alloc,
                     LyArena *scratch);

/* The allocation of a tiled_layout spec on static dims from its tiled shape
 * alone (the product of its extents), without lowering; -1 when invalid or
 * too large. The printer skips candidates whose allocation differs (a tile
 * that does not divide what it tiles lowers to general digits, which
 * canonicalising checks over every element). (build.c) */
int64_t lyd_tiled_alloc(const LySpec *spec, int rank, const int64_t *dims);

/* Canonicalises t's digits in place (t->digits must be writable) and interns
 * it. Every constructor of a type ends here, so the size rules
 * (lyd_check_sizes) hold for every type whoever built it. NULL after
 * reporting an unlocated error (a size that overflows, or out of memory).
 * (desc.c) */
const LyTypeImpl *lyd_intern(LyCtx *ctx, LyTypeImpl *t, LyDigit *digits);

/* Frees what printing t remembered. (print.c) */
void lyd_print_forget(LyTypeImpl *t);

/* Records a tiled_layout spelling that lowers to t, as its printed form of
 * last resort, unless t has one; false on OOM. (desc.c) */
bool lyd_note_spelling(LyCtx *c, const LyTypeImpl *t, const char *text, size_t len);

/* The size rules: the element count of the static dims, the allocation in
 * bits (so byte sizes and bit offsets never wrap) and base + allocation fit
 * in 64 bits, and nested digits stay within the parser's limits (so the
 * printed form always parses). NULL when they hold, else what is wrong. The parser checks
 * the same rules earlier, to locate the dim or layout at fault. */
const char *lyd_check_sizes(const LyTypeImpl *t);
/* The first static dim at which the running element count overflows, or -1. */
int lyd_check_numel(int rank, const int64_t *dims);
/* Whether alloc elements of elem have a size in bits that fits in 64 bits. */
bool lyd_check_alloc_bits(int64_t alloc, LyElem elem);

/* Canonicalises n digits in place; general digits' coefficients and nested
 * digits are copied into scratch. Returns the new count, -1 on OOM. Each
 * dim's simple digits are rebuilt from the map's jumps (docs/descriptor.md),
 * which can add digits: g needs room for LY_MAX_DIGITS, except when every dim
 * has at most one simple digit and none is general (row-major lists), which
 * never grow. */
int lyd_canonicalize(int rank, const int64_t *dims, LyDigit *g, int n, LyArena *scratch);

/* The canonical simple digits (of dim d) of the map f on [0, n), f(0) = 0,
 * rebuilt from its jumps as lyd_canonicalize does; at most room of them.
 * -1 when f(0) != 0, they do not fit, or a value overflows. */
int lyd_function_digits(int d, const int64_t *f, int64_t n, LyDigit *out, int room);
/* The root of d in a union-find forest over dims (up[d] == d at a root), compressing the path. */
int lyd_find_root(int *up, int d);

/* Structural equality of canonical digit lists. */
bool lyd_digits_equal(int rank, const LyDigit *a, const LyDigit *b, int n);

/* Value of a digit at a logical index. */
int64_t lyd_digit_value(const LyDigit *g, int rank, const int64_t *idx);
/* Largest value a digit takes over the index space; LY_DYNAMIC if unknown. */
int64_t lyd_digit_max_value(const LyDigit *g, int rank, const int64_t *dims);
/* Whether logical dim d enters the digit. */
bool lyd_digit_uses_dim(const LyDigit *g, int rank, int d);

/* The smallest and largest of sum stride * value over the index space
 * (static dims and strides; base not included): exact (*exact) for digits
 * of single dims and for small types, else a bound that contains the range.
 * False on overflow. */
bool lyd_offset_range(int rank, const int64_t *dims, const LyDigit *g, int n, int64_t *lo, int64_t *hi,
                      bool *exact);

/* Cost of evaluating a digit once (its nodes and coefficients): the unit of
 * the enumeration budgets. */
int64_t lyd_digit_cost(const LyDigit *g, int rank);

/* Largest value of E over the type's index space (static dims). */
int64_t lyd_digit_max_e(const LyDigit *g, int rank, const int64_t *dims);
/* Whether evaluating g (its expression and nested digits) on the static dims
 * stays within 64 bits; *max_value is then g's largest value. */
bool lyd_digit_expr_fits(const LyDigit *g, int rank, const int64_t *dims, int64_t *max_value);

/* Element offset of idx; t must be static digits and idx in range. */
int64_t lyd_offset(const LyTypeImpl *t, const int64_t *idx);

/* An opaque<"name"> layout (kept as symbolic text): no geometry. */
static inline bool lyd_is_opaque(const LyTypeImpl *t) {
  return t->kind == LYD_SYMBOLIC && !strncmp(t->symbolic, "opaque<", 7);
}
#define LYD_OPAQUE_WHY "the layout is opaque (layoutc does not interpret it): it has no geometry"

/* A type that is not a tensor, kept as its text (interned like the rest).
 * NULL after reporting when memory is exhausted. (desc.c) */
const LyTypeImpl *lyd_foreign(LyCtx *ctx, const char *text, size_t len);
static inline bool lyd_is_foreign(const LyTypeImpl *t) { return t->kind == LYD_FOREIGN; }
/* Whether text[0..len) names a type that is not a tensor and that layoutc
 * carries: an MLIR builtin scalar (`index`, `i32`, `ui8`, `f16`,
 * `f8E4M3FN`, ...), a builtin composite (`memref<`, `vector<`, `complex<`,
 * `tuple<` ...) or a dialect type (`!dialect.name...`). Only the head is
 * looked at: brackets are the caller's (the IR lexer balances them). (desc.c) */
bool lyd_foreign_name(const char *text, size_t len);
#define LYD_FOREIGN_WHY "the type is not a tensor: it has no layout"

/* Whether two tensor types have the same dims (never true of a type that is
 * not a tensor: it has no dims to share a layout over). */
static inline bool lyd_same_dims(const LyTypeImpl *a, const LyTypeImpl *b) {
  return !lyd_is_foreign(a) && !lyd_is_foreign(b) && a->rank == b->rank &&
         !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]);
}
/* A multi-buffer encoding (sparse, packed, grouped) or a host scalar: the
 * single-buffer geometry (offsets, strides, views, repacks) does not apply. */
static inline bool lyd_is_encoded(const LyTypeImpl *t) { return t->kind == LYD_ENCODED; }
#define LYD_ENCODED_WHY "the type is a multi-buffer encoding (sparse, packed or grouped) or a host scalar: " \
                        "it has no single-buffer geometry"

/* Encodings (encoding.c). Validates the parsed encoding against the type's
 * dims with located diagnostics and fills t->enc (in scratch). */
bool lyd_enc_build(LyCtx *ctx, const LyTypeAst *a, LyTypeImpl *t, LyArena *scratch);
uint64_t lyd_enc_hash(uint64_t h, const LyEncoding *e);
bool lyd_enc_equal(const LyEncoding *a, const LyEncoding *b);
/* The encoding's spelling: the short oneDNN form when it is exactly one. */
void lyd_enc_print(const LyTypeImpl *t, LyBuf *out);
/* MLIR's #sparse_tensor.encoding form (sparse encodings; others as above). */
void lyd_enc_print_mlir(const LyTypeImpl *t, LyBuf *out);
/* The buffers in storage order; -1 when the implementation chooses them (packed). */
int lyd_enc_buffers(const LyTypeImpl *t, LyBufferInfo *out);

/* True when every dim is static and the layout is digits with static strides. */
bool lyd_is_static(const LyTypeImpl *t);

/* When each dim has at most one plain digit (the MLIR strided form), writes
 * one stride per dim in elements and returns true. Broadcast dims get 0,
 * extent-1 dims the contiguous stride. */
bool lyd_plain_strides(const LyTypeImpl *t, int64_t *strides);

/* Prints the canonical spelling. (print.c) */
void lyd_print(const LyTypeImpl *t, LyBuf *out);
void lyd_print_layout(const LyTypeImpl *t, LyBuf *out); /* "" when none */
/* The MLIR form: the layout as one `#layout.*` dialect attribute. */
void lyd_print_mlir(const LyTypeImpl *t, LyBuf *out);

/* Row-major digits for the dims (shared by lowering and printing). */
int lyd_row_major_digits(int rank, const int64_t *dims, LyDigit *out, int64_t *alloc);
/* The Morton (Z-order) digits of static dims: each dim padded to a power of
 * two, the bits of the indices interleaved from the lowest, the last dim
 * lowest in each round (a dim out of bits drops out); -1 past 62 bits. */
int lyd_morton_digits(int rank, const int64_t *dims, LyDigit *out, int64_t *alloc);

/* Format tags: parses a tag string for a rank into an outer order and inner
 * blocks; on error sets *err_col (0-based within the tag) and a message. */
typedef struct {
  int order[LY_MAX_RANK]; /* logical dims, outermost first */
  int nblocks;
  int block_dim[LY_MAX_BLOCKS];
  int64_t block_size[LY_MAX_BLOCKS]; /* outermost to innermost */
} LyTagInfo;
bool lyd_tag_parse(const char *tag, size_t len, int rank, LyTagInfo *out, int *err_col, LyBuf *err);
/* Digits of a format tag on static dims. Returns digit count, -1 on overflow. */
/* The format tag whose lowering is exactly t, if there is one. (print.c) */
bool lyd_tag_of(const LyTypeImpl *t, LyTagInfo *info);
/* Prints a tag in oneDNN's abstract spelling, quoted ("aBcd16b"). */
void lyd_tag_print(const LyTagInfo *tag, int rank, LyBuf *out);
int lyd_tag_digits(const LyTagInfo *tag, int rank, const int64_t *dims, LyDigit *out, int64_t *alloc);

#endif
