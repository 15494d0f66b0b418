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

#endif
