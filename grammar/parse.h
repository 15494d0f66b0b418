/* grammar: the re2c lexer and bison parser for textual types, and the glue
 * that hands a parsed type to desc for lowering. Internal prefix: lyp_. */
#ifndef LAYOUTC_PARSE_H
#define LAYOUTC_PARSE_H

#include "desc/desc.h"

#define LYP_MAX_NEST 64
#define LYP_MAX_SUBS LY_MAX_SUBS
#define LYP_MAX_DIGIT_NEST LY_MAX_DIGIT_NEST

/* A digit under construction in the general layout. */
typedef struct {
  int64_t coef[LY_MAX_RANK];
  LyDigit sub[LYP_MAX_SUBS];
  int nsub, nterms, dim;
} LyDigitFrame;

typedef struct {
  /* Lexer state: the cursor lives here, never in globals. */
  const char *buf, *cur, *lim, *tok, *line_start;
  int line;
  bool after_dim;   /* an 'x' right after a dim separates dims */
  /* Inside an alias's text (`#map`): where the lexer resumes, and the
   * alias's place, where everything inside it is located. */
  bool in_alias;
  const char *saved_cur, *saved_lim, *saved_line_start;
  int saved_line;
  LyLoc alias_loc;
  bool lex_error;   /* the lexer already reported this token */
  LyLoc end_loc;    /* just after the last token */
  struct { char ch; LyLoc loc; } open[LYP_MAX_NEST];
  int nopen;
  /* Parser state */
  LyCtx *ctx;
  LySource src;
  LyTypeAst ast;
  bool have_layout, have_ms, tiled_ms, general_offset;
  LyLoc layout_loc, ms_loc;
  /* affine_map: names of its dims and symbols, in order */
  struct { const char *s; int len; } aff_dim[LY_MAX_RANK], aff_sym[LY_MAX_RANK];
  LyLoc tiled_ms_loc;     /* a bare integer in tiled_layout (the RFC's memory space) */
  int64_t tiled_ms_val;
  LyArena arena; /* nested digits and coefficients; freed after lowering */
  /* Digits under construction: frame 0 is a top-level digit, deeper frames
   * are nested sub-digits. */
  LyDigitFrame frame[LYP_MAX_DIGIT_NEST];
  int depth;
} LyParser;

/* Parses text[begin, end) of src as one type, with diagnostics located in
 * src's lines and columns (for types embedded in larger files). NULL after
 * reporting an error. */
const LyTypeImpl *lyp_parse_type_in(LyCtx *ctx, const LySource *src, size_t begin, size_t end);

/* Reports a located error and counts it. */
void lyp_error(LyParser *p, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
