/* layoutc IR: functions of layout operations (reshape, transpose, slice,
 * broadcast, relayout, view and opaque compute ops) in MLIR's generic
 * syntax, and the passes that transform them. See docs/ir.md and
 * docs/passes.md.
 *
 * Ownership: the caller owns a module and releases it with lyModuleDestroy,
 * before destroying the context it was parsed in. The types inside a module
 * belong to the context. Strings returned by lyModuleToString are owned by
 * the caller (free with lyStringFree). As in layoutc.h, nothing here prints
 * or exits: problems are reported through the context's diagnostic handler,
 * located in the module's text. */
#ifndef LAYOUTC_IR_H
#define LAYOUTC_IR_H

#include "layoutc/layoutc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { void *ptr; } LyModule;
typedef struct { void *ptr; } LyFunc;
typedef struct { void *ptr; } LyOp;
typedef struct { void *ptr; } LyValue;

static inline int lyModuleIsNull(LyModule m) { return m.ptr == NULL; }
static inline int lyFuncIsNull(LyFunc f) { return f.ptr == NULL; }
static inline int lyOpIsNull(LyOp o) { return o.ptr == NULL; }
static inline int lyValueIsNull(LyValue v) { return v.ptr == NULL; }
static inline int lyValueEqual(LyValue a, LyValue b) { return a.ptr == b.ptr; }

/* A string that is not NUL-terminated (a name inside the module). */
typedef struct {
  const char *data;
  size_t length;
} LyStringRef;

/* The ops (docs/ir.md). */
typedef enum {
  LY_OP_RESHAPE,   /* layout.reshape   attribute "shape": int array */
  LY_OP_TRANSPOSE, /* layout.transpose attribute "permutation": int array */
  LY_OP_SLICE,     /* layout.slice     attributes "offsets", "sizes": int arrays */
  LY_OP_BROADCAST, /* layout.broadcast attribute "shape": int array */
  LY_OP_RELAYOUT,  /* layout.relayout */
  LY_OP_VIEW,      /* layout.view */
  LY_OP_COMPUTE,   /* layout.op, named by its "name" string attribute */
  LY_OP_RETURN,    /* func.return */
  LY_OP_COUNT
} LyOpKind;

/* Parses a module from text[0, len). `name` labels diagnostics (NULL means
 * "<input>"). The text is copied: it need not outlive the call. Returns a
 * null handle after reporting a diagnostic. Parsing checks the syntax, that
 * each value is defined once before its uses, and that the types an op's
 * signature lists are its operands' types; lyModuleVerify checks the rest. */
LAYOUTC_API LyModule lyModuleParse(LyContext ctx, const char *text, size_t len, const char *name);
LAYOUTC_API void lyModuleDestroy(LyModule m);

/* Checks every op's type rules and every function's returns, reporting each
 * problem. LY_OK or LY_ERROR_INVALID. Here and in the passes' entry points, a
 * null module (what a failed parse returns) is LY_ERROR_INVALID, with no
 * diagnostic: the parse has reported. */
LAYOUTC_API LyStatus lyModuleVerify(LyModule m);

/* Prints the module in the syntax lyModuleParse reads (printing what that
 * parses gives the same text). The callback may be called several times. */
LAYOUTC_API void lyModulePrint(LyModule m, LyStringCallback cb, void *user);
/* The printed module as a NUL-terminated string (NULL if memory is
 * exhausted); release with lyStringFree. */
LAYOUTC_API char *lyModuleToString(LyModule m);

typedef enum {
  LY_PRINT_DEFAULT = 0,
  /* The form mlir-opt prints (docs/ir.md §5): `module { ... }`, functions
   * in their custom form, values numbered %argN / %N, layouts as `#layout.*`
   * dialect attributes. `mlir-opt-19 --allow-unregistered-dialect` reads it
   * and prints it back unchanged; lyModuleParse reads it too. */
  LY_PRINT_MLIR = 1 << 0,
} LyPrintFlags;

/* lyModulePrint and lyModuleToString with LyPrintFlags. */
LAYOUTC_API void lyModulePrintWithFlags(LyModule m, unsigned flags, LyStringCallback cb, void *user);
LAYOUTC_API char *lyModuleToStringWithFlags(LyModule m, unsigned flags);

/* --- Building and walking a module --------------------------------------------
 * Handles to functions, ops and values are owned by their module and valid
 * until it is destroyed. Functions have one block; ops run in order; an op
 * may have regions (below). */

/* An empty module; null if memory is exhausted (a diagnostic on ctx). */
LAYOUTC_API LyModule lyModuleCreate(LyContext ctx);
LAYOUTC_API LyContext lyModuleGetContext(LyModule m);

/* Appends `func.func @name(args) -> (results)` with an empty body; its
 * argument values are lyFuncGetArg(f, i). Null after a diagnostic (an empty
 * name or one the module already has, a null type, out of memory). */
LAYOUTC_API LyFunc lyFuncCreate(LyModule m, const char *name, int nargs, const LyType *args, int nresults,
                                const LyType *results);
LAYOUTC_API LyFunc lyModuleGetFirstFunc(LyModule m); /* null when empty */
LAYOUTC_API LyFunc lyFuncGetNext(LyFunc f);           /* null after the last */
LAYOUTC_API LyFunc lyModuleLookupFunc(LyModule m, const char *name);
LAYOUTC_API LyStringRef lyFuncGetName(LyFunc f);
LAYOUTC_API int lyFuncGetNumArgs(LyFunc f);
LAYOUTC_API LyValue lyFuncGetArg(LyFunc f, int i);
LAYOUTC_API int lyFuncGetNumResults(LyFunc f);
LAYOUTC_API LyType lyFuncGetResultType(LyFunc f, int i);
LAYOUTC_API LyOp lyFuncGetFirstOp(LyFunc f);
LAYOUTC_API LyOp lyOpGetNext(LyOp op);

/* Regions (docs/ir.md §1): an op layoutc does not know may have regions,
 * each one block of ops with argument values (`^bb0(%i: index)`). Read
 * only. lyOpGetNext walks a region's ops as it walks a function's. Out of
 * range: 0 or a null handle. lyOpGetParentOp is the op whose region holds
 * op, null at a function's top level. A block argument's defining op is
 * null, as a function argument's. */
LAYOUTC_API int lyOpGetNumRegions(LyOp op);
LAYOUTC_API int lyOpGetRegionNumArgs(LyOp op, int region);
LAYOUTC_API LyValue lyOpGetRegionArg(LyOp op, int region, int i);
LAYOUTC_API LyOp lyOpGetRegionFirstOp(LyOp op, int region);
LAYOUTC_API LyOp lyOpGetParentOp(LyOp op);

/* Appends an op to f: its operands (values of f) and the types of its
 * results, which are new values lyOpGetResult(op, i). Attributes are set
 * afterwards; lyModuleVerify checks the whole. Null after a diagnostic. */
LAYOUTC_API LyOp lyOpCreate(LyFunc f, LyOpKind kind, int noperands, const LyValue *operands, int nresults,
                            const LyType *result_types);
LAYOUTC_API LyOpKind lyOpGetKind(LyOp op);
LAYOUTC_API const char *lyOpKindGetName(LyOpKind k); /* "layout.reshape", ...; "?" outside the enum */
LAYOUTC_API int lyOpGetNumOperands(LyOp op);
LAYOUTC_API LyValue lyOpGetOperand(LyOp op, int i);
LAYOUTC_API int lyOpGetNumResults(LyOp op);
LAYOUTC_API LyValue lyOpGetResult(LyOp op, int i);

/* Attributes. Setting replaces an attribute of the same name. Getters
 * return LY_ERROR_INVALID, without a diagnostic, when the op has no such
 * attribute of that kind. An int array getter writes at most `cap`
 * elements and sets *n to the array's length. */
LAYOUTC_API LyStatus lyOpSetIntAttribute(LyOp op, const char *name, int64_t v);
LAYOUTC_API LyStatus lyOpSetBoolAttribute(LyOp op, const char *name, int v);
LAYOUTC_API LyStatus lyOpSetStringAttribute(LyOp op, const char *name, const char *v);
LAYOUTC_API LyStatus lyOpSetIntArrayAttribute(LyOp op, const char *name, int n, const int64_t *v);
LAYOUTC_API int lyOpGetNumAttributes(LyOp op);
LAYOUTC_API LyStringRef lyOpGetAttributeName(LyOp op, int i);
LAYOUTC_API LyStatus lyOpGetIntAttribute(LyOp op, const char *name, int64_t *v);
LAYOUTC_API LyStatus lyOpGetStringAttribute(LyOp op, const char *name, LyStringRef *v);
LAYOUTC_API LyStatus lyOpGetIntArrayAttribute(LyOp op, const char *name, int64_t *v, int cap, int *n);

/* A value's type: after a pass, the layout it chose. Setting a type (for
 * example a layout the embedder chose) takes effect at the next verify. */
LAYOUTC_API LyType lyValueGetType(LyValue v);
LAYOUTC_API void lyValueSetType(LyValue v, LyType t);
/* The op defining v; null for a function or block argument. */
LAYOUTC_API LyOp lyValueGetDefiningOp(LyValue v);

/* --- Passes ------------------------------------------------------------------ */

/* The registered passes, by index: their names (as in `layoutc opt
 * --NAME`) and one-line summaries. Static strings. */
LAYOUTC_API int lyPassGetCount(void);
LAYOUTC_API const char *lyPassGetName(int i);
LAYOUTC_API const char *lyPassGetSummary(int i);

typedef enum {
  LY_PASS_DEFAULT = 0,
  /* Report, as notes located at each op, why the pass did what it did (for
   * example the view algebra's reason a reshape needs a relayout). */
  LY_PASS_EXPLAIN = 1 << 0,
  /* legalize-reshapes: a reshape is a view only in MLIR's strided form (one
   * stride per dim, lyTypeReshapeStrided); otherwise it gets a relayout
   * first. */
  LY_PASS_STRIDED_VIEWS = 1 << 1,
  /* assign-layouts: instead of the exact optimum, the baselines it is
   * measured against: a greedy propagation in program order (XLA-style),
   * or every value the pass may choose row-major (ops still pick their
   * cheapest variant). */
  LY_PASS_ASSIGN_GREEDY = 1 << 2,
  LY_PASS_ASSIGN_ROW_MAJOR = 1 << 3,
} LyPassFlags;

/* Runs the named pass on every function. The module is verified first (a
 * pass assumes valid IR) and verifies after the pass. LY_ERROR_INVALID after
 * reporting when the name is unknown, the module does not verify or the pass
 * fails; LY_ERROR_NOMEM when memory is exhausted (the module is then
 * unspecified: destroy it). */
LAYOUTC_API LyStatus lyModuleRunPass(LyModule m, const char *pass, unsigned flags);

/* assign-layouts writes the PBQP it builds for each function, and the
 * answer it chose, to cb (the text format of docs/passes.md, "Dumping the
 * PBQP"), in pieces of whole lines; cb NULL stops. For checking the solver
 * against an independent one; the pass itself is unchanged by it. */
LAYOUTC_API void lyModuleSetPbqpDump(LyModule m, LyStringCallback cb, void *user);

/* Runs a pipeline: registered pass names separated by commas (spaces
 * around names allowed), as `mlir-opt --pass-pipeline` does, e.g.
 * "legalize-reshapes". The whole string is checked before anything runs;
 * then each pass runs as lyModuleRunPass does (verifier before each) and the
 * module is verified after the last. The first failure stops the pipeline,
 * with its status. An empty pipeline only verifies. */
LAYOUTC_API LyStatus lyModuleRunPipeline(LyModule m, const char *pipeline, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
