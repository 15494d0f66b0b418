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

static inline int lyModuleIsNull(LyModule m) { return m.ptr == NULL; }

/* Parses a module from text[0, len). `name` labels diagnostics (NULL means
 * "<input>"). The text is copied: it need not outlive the call. Returns a
 * null handle after reporting a diagnostic. Parsing checks the syntax, that
 * each value is defined once before its uses, and that the types an op's
 * signature lists are its operands' types; lyModuleVerify checks the rest. */
LAYOUTC_API LyModule lyModuleParse(LyContext ctx, const char *text, size_t len, const char *name);
LAYOUTC_API void lyModuleDestroy(LyModule m);

/* Checks every op's type rules and every function's returns, reporting each
 * problem. LY_OK or LY_ERROR_INVALID. */
LAYOUTC_API LyStatus lyModuleVerify(LyModule m);

/* Prints the module in the syntax lyModuleParse reads (printing what that
 * parses gives the same text). The callback may be called several times. */
LAYOUTC_API void lyModulePrint(LyModule m, LyStringCallback cb, void *user);
/* The printed module as a NUL-terminated string (NULL if memory is
 * exhausted); release with lyStringFree. */
LAYOUTC_API char *lyModuleToString(LyModule m);

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
} LyPassFlags;

/* Runs the named pass on every function. The module is verified first (a
 * pass assumes valid IR) and verifies after the pass. LY_ERROR_INVALID after
 * reporting when the name is unknown, the module does not verify or the pass
 * fails; LY_ERROR_NOMEM when memory is exhausted (the module is then
 * unspecified: destroy it). */
LAYOUTC_API LyStatus lyModuleRunPass(LyModule m, const char *pass, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
