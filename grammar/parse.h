/* grammar: the re2c lexer and bison parser for textual types, and the glue
 * that hands a parsed type to desc for lowering. Internal prefix: lyp_. */
#ifndef LAYOUTC_PARSE_H
#define LAYOUTC_PARSE_H

#include "desc/desc.h"

#define LYP_MAX_NEST 64

typedef struct {
  /* Lexer state: the cursor lives here, never in globals. */
  const char *buf, *cur, *lim, *tok, *line_start;
  int line;
  bool after_dim;   /* an 'x' right after a dim separates dims */
  bool lex_error;   /* the lexer already reported this token */
  struct { char ch; LyLoc loc; } open[LYP_MAX_NEST];
  int nopen;
  /* Parser state */
  LyCtx *ctx;
  LySource src;
  LyTypeAst ast;
  bool have_layout, have_ms, tiled_ms;
  LyLoc layout_loc, ms_loc;
  int64_t gcoef[LY_MAX_DIGITS][LY_MAX_RANK]; /* general digit coefficients */
  int64_t cur_coef[LY_MAX_RANK];
  int cur_dim, cur_terms;
} LyParser;

/* Reports a located error and counts it. */
void lyp_error(LyParser *p, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
