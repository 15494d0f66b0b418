/* layoutc public C API: tensor types with physical layouts, their canonical
 * descriptors, and geometry queries.
 *
 * Ownership: a context owns every type it creates. Types are interned: two
 * types with the same element-offset map, dims, element type, memory space and
 * allocation are the same object, so equality is handle equality. Types live
 * until the context is destroyed. Strings returned by the printer are owned by
 * the caller (free with lyStringFree). Nothing in this library prints or exits:
 * problems with user input are reported through the context's diagnostic
 * handler and a null handle or an error status. */
#ifndef LAYOUTC_LAYOUTC_H
#define LAYOUTC_LAYOUTC_H

#include <stddef.h>
#include <stdint.h>

/* The library's version; lyGetVersion() says which one is loaded. */
#define LAYOUTC_VERSION_MAJOR 0
#define LAYOUTC_VERSION_MINOR 2
#define LAYOUTC_VERSION_PATCH 0
#define LAYOUTC_VERSION (LAYOUTC_VERSION_MAJOR * 10000 + LAYOUTC_VERSION_MINOR * 100 + LAYOUTC_VERSION_PATCH)

/* Marks the public API: the only symbols liblayoutc.so exports (the
 * library is built with -fvisibility=hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define LAYOUTC_API __attribute__((visibility("default")))
#else
#define LAYOUTC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Largest rank a type may have. */
#define LY_MAX_RANK 16
/* A dim, stride or offset whose value is not known statically ('?'). */
#define LY_DYNAMIC INT64_MIN

typedef struct { void *ptr; } LyContext;
typedef struct { const void *ptr; } LyType;

static inline int lyContextIsNull(LyContext c) { return c.ptr == NULL; }
static inline int lyTypeIsNull(LyType t) { return t.ptr == NULL; }
static inline int lyTypeEqual(LyType a, LyType b) { return a.ptr == b.ptr; }

typedef enum {
  LY_OK = 0,
  LY_ERROR_INVALID,   /* bad argument or malformed input */
  LY_ERROR_DYNAMIC,   /* the answer depends on a dynamic ('?') value */
  LY_ERROR_ANY,       /* the layout is 'any': not chosen yet */
  LY_ERROR_RANGE,     /* an index is out of range */
  LY_ERROR_OVERFLOW,  /* a size does not fit in 64 bits */
  LY_ERROR_UNKNOWN,   /* the property cannot be decided cheaply */
  LY_ERROR_NOMEM,     /* allocation failed */
  LY_ERROR_NOT_A_VIEW, /* a view query's answer: the operation needs a copy */
  LY_ERROR_OPAQUE,    /* the layout is opaque<"..."> : layoutc does not interpret it */
  LY_ERROR_NOT_A_TENSOR, /* an IR value's type that is not a tensor (index, i32, !dialect.t) */
  LY_ERROR_MULTI_BUFFER /* a sparse, packed or grouped encoding: no single-buffer geometry */
} LyStatus;

/* The status's name, e.g. "LY_ERROR_RANGE" (static storage; "?" for a value
 * outside the enum). */
LAYOUTC_API const char *lyStatusGetString(LyStatus s);

/* The loaded library's LAYOUTC_VERSION (compare with the header's) and its
 * version as "MAJOR.MINOR.PATCH" (static storage). */
LAYOUTC_API int lyGetVersion(void);
LAYOUTC_API const char *lyGetVersionString(void);

typedef enum {
  LY_ELEM_I1, LY_ELEM_I2, LY_ELEM_I4, LY_ELEM_I8, LY_ELEM_I16, LY_ELEM_I32,
  LY_ELEM_I64, LY_ELEM_F16, LY_ELEM_BF16, LY_ELEM_F32, LY_ELEM_F64,
  LY_ELEM_F8E4M3FN, LY_ELEM_F8E5M2,
  /* MLIR's signed and unsigned integers (the iN above are signless and
   * convert as signed), index (64 bits, MLIR's default data layout), the
   * small floats and complex numbers (two components, real first). */
  LY_ELEM_UI8, LY_ELEM_UI16, LY_ELEM_UI32, LY_ELEM_UI64,
  LY_ELEM_SI8, LY_ELEM_SI16, LY_ELEM_SI32, LY_ELEM_SI64,
  LY_ELEM_INDEX,
  LY_ELEM_F8E4M3FNUZ, LY_ELEM_F8E5M2FNUZ, LY_ELEM_F8E4M3B11FNUZ, LY_ELEM_F8E8M0FNU,
  LY_ELEM_F6E2M3FN, LY_ELEM_F6E3M2FN, LY_ELEM_F4E2M1FN, LY_ELEM_TF32,
  LY_ELEM_COMPLEX_F16, LY_ELEM_COMPLEX_F32, LY_ELEM_COMPLEX_F64,
  LY_ELEM_COUNT
} LyElem;

/* What an element's bits mean: how it converts (docs/codegen.md). */
typedef enum {
  LY_ELEM_KIND_SIGNLESS, /* iN and index: two's complement, converted as signed (i1: a boolean) */
  LY_ELEM_KIND_SIGNED,   /* siN */
  LY_ELEM_KIND_UNSIGNED, /* uiN */
  LY_ELEM_KIND_FLOAT,
  LY_ELEM_KIND_COMPLEX   /* two floats of lyElemGetComponent's type, real first */
} LyElemKind;

/* --- Diagnostics ---------------------------------------------------------- */

typedef enum { LY_SEVERITY_ERROR, LY_SEVERITY_WARNING, LY_SEVERITY_NOTE } LySeverity;

typedef struct {
  LySeverity severity;
  const char *source_name; /* e.g. "<input>"; NULL when not tied to text */
  int line, column;        /* 1-based; 0 when unknown */
  const char *source_line; /* the whole line (no newline), or NULL */
  int source_line_len;
  const char *message;
} LyDiagnostic;

/* Called once per diagnostic; the pointers are valid only during the call. */
typedef void (*LyDiagnosticHandler)(const LyDiagnostic *diag, void *user);

/* Formats a diagnostic as `name:line:col: error: msg`, the source line (tabs
 * expanded) and a caret kept on the text, into the stream (a FILE *).
 * Suitable as a handler. */
LAYOUTC_API void lyDiagnosticPrintToFile(const LyDiagnostic *diag, void *file);

/* --- Context -------------------------------------------------------------- */

/* Creates a context; returns a null handle if memory is exhausted. The default
 * handler discards diagnostics. */
LAYOUTC_API LyContext lyContextCreate(void);
LAYOUTC_API void lyContextDestroy(LyContext ctx);
LAYOUTC_API void lyContextSetDiagnosticHandler(LyContext ctx, LyDiagnosticHandler h, void *user);

/* --- Types ---------------------------------------------------------------- */

/* Parses `tensor<...>`. `name` labels diagnostics (NULL means "<input>").
 * Returns a null handle after reporting a diagnostic on bad input. */
LAYOUTC_API LyType lyTypeParse(LyContext ctx, const char *text, size_t len, const char *name);
/* Parses the type of an IR value: a tensor type as lyTypeParse does, or one
 * that is not a tensor and that layoutc carries verbatim (lyTypeIsTensor):
 * an MLIR builtin scalar (`index`, `i32`, `ui8`, `f16`, ...), a builtin
 * composite (`memref<...>`, `vector<...>`, `complex<...>`, `tuple<...>`)
 * or a dialect type (`!llvm.ptr`). For building functions whose arguments
 * are not all tensors (lyFuncCreate). Null after a diagnostic. */
LAYOUTC_API LyType lyTypeParseValue(LyContext ctx, const char *text, size_t len, const char *name);

/* Builds the dense row-major type of the given dims (LY_DYNAMIC allowed). */
LAYOUTC_API LyType lyTypeGetRowMajor(LyContext ctx, LyElem elem, int rank, const int64_t *dims);

/* Element type names and widths. A name is the type grammar's spelling
 * ("f8E4M3FN", "ui8", "complex<f32>"); the width is the storage in bits
 * (tf32: 32, complex<f32>: 64); "?" and 0 outside the enum. */
LAYOUTC_API const char *lyElemGetName(LyElem e);
LAYOUTC_API int lyElemGetBits(LyElem e);
LAYOUTC_API LyElemKind lyElemGetKind(LyElem e);
/* A complex type's component type (complex<f32>: LY_ELEM_F32); any other
 * type is its own component. */
LAYOUTC_API LyElem lyElemGetComponent(LyElem e);
/* The element spelled by the `len` bytes at `name`, exactly as
 * lyElemGetName spells it; returns 0 (and leaves *out) if there is none. */
LAYOUTC_API int lyElemFromName(const char *name, size_t len, LyElem *out);

LAYOUTC_API int lyTypeGetRank(LyType t);
LAYOUTC_API int64_t lyTypeGetDim(LyType t, int dim);           /* LY_DYNAMIC if '?' */
LAYOUTC_API LyElem lyTypeGetElement(LyType t);
/* The memory space: returns 0 for the default space, 1 for an integer space
 * (stored in *num), 2 for a named one (*str, owned by the context). */
LAYOUTC_API int lyTypeGetMemorySpace(LyType t, int64_t *num, const char **str);

LAYOUTC_API int lyTypeIsAny(LyType t);          /* layout not chosen yet */
/* False for the types of IR values that are not tensors (`index`, `i32`,
 * `memref<...>`, `!dialect.t`): layoutc carries them verbatim; lyTypePrint
 * gives their text, rank is 0 and geometry queries answer
 * LY_ERROR_NOT_A_TENSOR. Types from lyTypeParse are always tensors. */
LAYOUTC_API int lyTypeIsTensor(LyType t);
LAYOUTC_API int lyTypeIsDynamic(LyType t);      /* some dim, stride or offset is '?' */
LAYOUTC_API int lyTypeIsContiguous(LyType t);   /* dense row-major, no padding, offset 0 */
/* Sets *out to whether no two elements share storage. LY_ERROR_UNKNOWN when
 * the layout is too large to decide exactly. */
LAYOUTC_API LyStatus lyTypeIsInjective(LyType t, int *out);

/* A stable 64-bit hash: the same for equal types in every context and run. */
LAYOUTC_API uint64_t lyTypeGetHash(LyType t);

LAYOUTC_API LyStatus lyTypeGetNumel(LyType t, int64_t *out);
/* Allocation in elements (padding included) and in bytes (sub-byte packed). */
LAYOUTC_API LyStatus lyTypeGetAllocElements(LyType t, int64_t *out);
LAYOUTC_API LyStatus lyTypeGetSizeBytes(LyType t, int64_t *out);
/* Offset in elements of the element at idx[rank]. */
LAYOUTC_API LyStatus lyTypeGetOffset(LyType t, const int64_t *idx, int64_t *out);
/* When every dim maps to one stride (MLIR strided form), writes strides in
 * bytes (elements for sub-byte types) and the base offset in elements. */
LAYOUTC_API LyStatus lyTypeGetStrides(LyType t, int64_t *strides, int64_t *offset);

/* oneDNN's blocked memory descriptor (dnnl_blocking_desc_t and the padding
 * fields of dnnl_memory_desc_t) for a layout that has one: the offset of
 * (i_0..) is offset0 + sum_d floor(i_d / B_d) * strides[d] + the position of
 * the i_d mod B_d within the dense inner blocks (inner_blks[k] of dim
 * inner_idxs[k], outermost first), B_d the product of dim d's blocks.
 * Strides are in elements. Dims whose outer index is always 0 get the stride
 * oneDNN's fill_blocked gives them. padded_offsets are always 0: a slice is
 * its own descriptor here, located by offset0 (oneDNN's submemory offset).
 * LY_ERROR_INVALID when the layout is not blocked (a tile across combined
 * dims, a wrapped or general digit, inner blocks that are not dense). */
typedef struct {
  int64_t padded_dims[LY_MAX_RANK];
  int64_t padded_offsets[LY_MAX_RANK];
  int64_t offset0;
  int64_t strides[LY_MAX_RANK];
  int inner_nblks;
  int64_t inner_blks[LY_MAX_RANK];
  int inner_idxs[LY_MAX_RANK];
} LyBlocking;
LAYOUTC_API LyStatus lyTypeGetBlocking(LyType t, LyBlocking *out);

/* Prints the canonical spelling. The callback may be called several times
 * with consecutive pieces. */
typedef void (*LyStringCallback)(const char *piece, size_t len, void *user);
LAYOUTC_API void lyTypePrint(LyType t, LyStringCallback cb, void *user);
/* Convenience: the canonical spelling as a malloc'd NUL-terminated string
 * (NULL if memory is exhausted); release with lyStringFree. */
LAYOUTC_API char *lyTypeToString(LyType t);
LAYOUTC_API void lyStringFree(char *s);

/* --- Views (zero-copy; SPEC §3.3) ------------------------------------------ */
/* Each returns the view's type, interned in ctx, or a null handle after
 * reporting why no view exists (an error diagnostic with notes naming the
 * dims, the block, tile or padding in the way and, for reshape, the relayout
 * that would make it a view). The view keeps the source's base pointer:
 * offsets are relative to the same buffer. */

/* oneDNN permute_axes: the source's dim i becomes the view's dim perm[i]. */
LAYOUTC_API LyType lyTypePermute(LyContext ctx, LyType t, const int *perm);
/* Row-major element order is preserved (NumPy C order). A view exists when
 * the source's digits regroup under the new dims; a view dim may then hold
 * several digits (joining the dims of "acdb" gives one dim with three). */
LAYOUTC_API LyType lyTypeReshape(LyContext ctx, LyType t, int rank, const int64_t *dims);
/* MLIR memref / NumPy semantics: a view only when every view dim has one
 * plain stride (the result is an MLIR strided layout). */
LAYOUTC_API LyType lyTypeReshapeStrided(LyContext ctx, LyType t, int rank, const int64_t *dims);
/* oneDNN submemory: the box offsets[d] .. offsets[d] + sizes[d]. */
LAYOUTC_API LyType lyTypeSlice(LyContext ctx, LyType t, const int64_t *offsets, const int64_t *sizes);
/* NumPy broadcasting to dims (rank >= t's rank): new leading dims and
 * extent-1 dims become stride-0 dims. */
LAYOUTC_API LyType lyTypeBroadcast(LyContext ctx, LyType t, int rank, const int64_t *dims);
/* Removes extent-1 dim `dim` / inserts an extent-1 dim at position `dim`. */
LAYOUTC_API LyType lyTypeSqueeze(LyContext ctx, LyType t, int dim);
LAYOUTC_API LyType lyTypeUnsqueeze(LyContext ctx, LyType t, int dim);
/* The layout of t's dims and element that makes `reshape(t, dims)` a view,
 * chosen to move the fewest bytes and keep t's blocks where possible; t itself
 * when the reshape already is a view. Null (with a diagnostic) on bad dims. */
LAYOUTC_API LyType lyTypeGetReshapeRelayout(LyContext ctx, LyType t, int rank, const int64_t *dims);
/* The same type with another layout: relayout targets. Parses `layout` as the
 * layout attribute of t's dims and element (e.g. "\"nchw\"" or
 * "strided<[1,4]>"; "" is row-major). Null after a diagnostic on bad input. */
LAYOUTC_API LyType lyTypeWithLayout(LyContext ctx, LyType t, const char *layout);

/* View queries, for compilers that ask as a matter of course. Like the
 * functions above, but when the layout makes the operation a copy they
 * return LY_ERROR_NOT_A_VIEW with *view null and report nothing. A bad
 * request (wrong element count, a slice out of range, a dynamic or 'any'
 * source) is LY_ERROR_INVALID after the usual diagnostic; LY_OK sets *view. */
LAYOUTC_API LyStatus lyTypeTryReshape(LyContext ctx, LyType t, int rank, const int64_t *dims, LyType *view);
LAYOUTC_API LyStatus lyTypeTryReshapeStrided(LyContext ctx, LyType t, int rank, const int64_t *dims,
                                             LyType *view);
LAYOUTC_API LyStatus lyTypeTrySlice(LyContext ctx, LyType t, const int64_t *offsets, const int64_t *sizes,
                                    LyType *view);


/* --- Multi-buffer encodings and host scalars (docs/capi.md) ---------------- */
/* A type's layout may be a multi-buffer encoding: MLIR's
 * #sparse_tensor.encoding (and oneDNN's csr and coo spellings of it),
 * oneDNN's packed and grouped encodings, or host_scalar. Single-buffer
 * geometry (offsets, strides, allocation, views, repacks) refuses such types
 * with LY_ERROR_MULTI_BUFFER (a host scalar keeps its one-element geometry);
 * the queries below describe their buffers. */

typedef enum {
  LY_ENCODING_NONE,        /* one dense buffer */
  LY_ENCODING_CSR,         /* sparse: exactly csr<...> */
  LY_ENCODING_COO,         /* sparse: exactly coo<...> */
  LY_ENCODING_SPARSE,      /* any other #sparse_tensor.encoding */
  LY_ENCODING_PACKED,      /* oneDNN's packed: buffers chosen by the implementation */
  LY_ENCODING_GROUPED,     /* values and cumulative group offsets */
  LY_ENCODING_HOST_SCALAR  /* one element in host memory */
} LyEncodingKind;

typedef enum {
  LY_LEVEL_DENSE, LY_LEVEL_COMPRESSED, LY_LEVEL_SINGLETON, LY_LEVEL_LOOSE_COMPRESSED, LY_LEVEL_N_OUT_OF_M
} LyLevelFormat;
/* Level properties (bits). */
#define LY_LEVEL_NONUNIQUE 1
#define LY_LEVEL_NONORDERED 2
#define LY_LEVEL_SOA 4

typedef enum { LY_BUFFER_VALUES, LY_BUFFER_POSITIONS, LY_BUFFER_COORDINATES, LY_BUFFER_OFFSETS } LyBufferRole;

LAYOUTC_API LyEncodingKind lyTypeGetEncoding(LyType t);
/* Buffers in MLIR's storage order: per level in level order its positions
 * then its coordinates (a COO region's coordinates in one buffer unless soa),
 * grouped offsets, values last. A dense type has one values buffer. -1 for
 * packed (the implementation's choice). */
LAYOUTC_API int lyTypeGetNumBuffers(LyType t);
/* Buffer i's role, storage level (-1 when none) and element type. */
LAYOUTC_API LyBufferRole lyTypeGetBufferRole(LyType t, int i);
LAYOUTC_API int lyTypeGetBufferLevel(LyType t, int i);
LAYOUTC_API LyElem lyTypeGetBufferElement(LyType t, int i);
/* Buffer i's size in bytes: LY_ERROR_DYNAMIC when it depends on an unknown
 * count (a '?' nnz or dim, or the entries of an inner compressed level),
 * LY_ERROR_RANGE for a bad i. */
LAYOUTC_API LyStatus lyTypeGetBufferSizeBytes(LyType t, int i, int64_t *out);
/* Stored entries of a sparse or packed type (LY_ERROR_DYNAMIC when '?',
 * LY_ERROR_INVALID for other types). */
LAYOUTC_API LyStatus lyTypeGetNnz(LyType t, int64_t *out);
/* The sparse encoding's levels (0 for other types). */
LAYOUTC_API int lyTypeGetNumLevels(LyType t);
LAYOUTC_API LyLevelFormat lyTypeGetLevelFormat(LyType t, int level);
LAYOUTC_API unsigned lyTypeGetLevelProperties(LyType t, int level);
/* n and m of an n_out_of_m level (0 otherwise). */
LAYOUTC_API int lyTypeGetLevelStructuredN(LyType t, int level);
LAYOUTC_API int lyTypeGetLevelStructuredM(LyType t, int level);
/* The dim-to-level map: level `level` holds dim *dim, divided by *floordiv
 * (or reduced mod *mod) when the map blocks it; both 0 for a plain dim.
 * Returns -1 for a bad level. */
LAYOUTC_API int lyTypeGetLevelDim(LyType t, int level, int64_t *floordiv, int64_t *mod);
/* Bit widths of positions and coordinates; 0 means index (64-bit). */
LAYOUTC_API int lyTypeGetPosWidth(LyType t);
LAYOUTC_API int lyTypeGetCrdWidth(LyType t);
/* Grouped: the varying dim and the group count (-1 for other types). */
LAYOUTC_API int lyTypeGetGroupedDim(LyType t);
LAYOUTC_API int64_t lyTypeGetGroupCount(LyType t);

/* --- Blobs: a binary form of any type ----------------------------------------- */
/* A versioned, little-endian byte string that deserializes, in any context,
 * to the same type (in one context: the same handle). Serialize returns a
 * malloc'd buffer (release with lyStringFree) and its length, NULL when
 * memory is exhausted. Deserialize reports a malformed blob (truncated, bad
 * magic or version, a value out of range, trailing bytes) with its byte
 * offset and returns a null handle. */
LAYOUTC_API unsigned char *lyTypeSerialize(LyType t, size_t *len);
LAYOUTC_API LyType lyTypeDeserialize(LyContext ctx, const void *blob, size_t len, const char *name);

#ifdef __cplusplus
}
#endif
#endif
