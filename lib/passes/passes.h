/* passes: transformations of the function IR and their registry.
 * Internal prefix: lypass_. Each pass is one file. A pass runs on verified
 * IR, reports through the module's context and returns LY_OK, or
 * LY_ERROR_INVALID when it fails (an inconsistency it cannot recover from),
 * or LY_ERROR_NOMEM. The driver runs the verifier between passes
 * (docs/passes.md). */
#ifndef LAYOUTC_PASSES_H
#define LAYOUTC_PASSES_H

#include "ir/ir.h"
#include "layoutc/ir.h"

typedef struct {
  const char *name;    /* as in `layoutc opt --NAME` */
  const char *summary; /* one line, for usage text */
  LyStatus (*run)(LyirModule *m, unsigned flags); /* flags: LyPassFlags */
} LypassInfo;

int lypass_count(void);
const LypassInfo *lypass_get(int i);
const LypassInfo *lypass_lookup(const char *name); /* NULL if unknown */

/* legalize_reshapes.c */
LyStatus lypass_legalize_reshapes(LyirModule *m, unsigned flags);
LyStatus lypass_legalize_func(LyirModule *m, LyirFunc *f, unsigned flags);

/* What legalize-reshapes does to a reshape, transpose, slice or broadcast
 * whose operand has type src: a relayout of the operand to `pre` (or none),
 * then a view of type `view`, then a relayout to the declared result `post`
 * (or none). view is NULL when the op stays (src `any` or dynamic, or no
 * relayout helps). Reports nothing. LY_OK or LY_ERROR_NOMEM. */
typedef struct {
  const LyTypeImpl *pre, *view, *post;
} LypassViewPlan;
LyStatus lypass_legalize_plan(LyirModule *m, const LyirOp *op, const LyTypeImpl *src, unsigned flags,
                              LypassViewPlan *out);

/* assign_layouts.c */
LyStatus lypass_assign_layouts(LyirModule *m, unsigned flags);

#endif
