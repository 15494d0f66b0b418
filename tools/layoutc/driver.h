/* tools/layoutc: the command-line driver's shared helpers. Each command lives
 * in its own cmd_*.c file; one table in main.c drives dispatch, help, the
 * bash completion and the "did you mean" of unknown options (args.c). */
#ifndef LAYOUTC_DRIVER_H
#define LAYOUTC_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "layoutc/layoutc.h"

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

/* --- The command table and the arguments (args.c) -------------------------- */

typedef enum { OPT_FLAG, OPT_VALUE, OPT_OPTIONAL_VALUE /* only as --name=value */ } OptKind;

typedef struct {
  const char *name; /* "--json", "-o" */
  OptKind kind;
  const char *help;
} OptSpec;

#define MAX_OPERANDS 64
#define MAX_SEEN 128

/* A command line after the generic parse: operands in order (`--` ends the
 * options, `-` is an operand meaning stdin) and the options seen, in order. */
typedef struct {
  const struct Command *cmd;
  const char *operand[MAX_OPERANDS];
  int noperands;
  struct {
    const char *name; /* the spec's name */
    const char *value;
  } seen[MAX_SEEN];
  int nseen;
  char *stdin_text; /* a type read from '-', owned */
} Args;

typedef struct Command {
  const char *name;
  int (*run)(Args *a);
  const char *synopsis; /* operands and options, as in `usage: layoutc NAME SYNOPSIS` */
  const char *summary;  /* one line */
  const char *help;     /* paragraphs for `layoutc help NAME`, or NULL */
  const OptSpec *opts;  /* terminated by {NULL} */
  int min_operands, max_operands;
} Command;

extern const Command commands[];
extern const int ncommands;
const Command *find_command(const char *name);
/* The options of c (opt's include one per pass); terminated by {NULL}. */
const OptSpec *command_options(const Command *c);

/* Parses argv against c's options. Returns 0, -1 when --help was printed
 * (exit 0), or EXIT_USAGE after reporting. */
int args_parse(const Command *c, int argc, char **argv, Args *a);
void args_free(Args *a);
bool args_has(const Args *a, const char *name);
/* The last value given to the option, or NULL. */
const char *args_value(const Args *a, const char *name);

/* `layoutc: error: MSG` and the command's usage as a note; returns 2. */
int usage_error(const Command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The driver's own errors (files, memory): `layoutc: error: MSG`. */
void driver_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_command_help(const Command *c, FILE *f);
/* The closest of the candidates to `word` (edit distance), or NULL. */
const char *did_you_mean(const char *word, const char *const *cands, int n);

/* --- Operands and diagnostics ---------------------------------------------- */

/* A context whose diagnostics go to the driver's printer; exits 1 if memory
 * is exhausted. */
LyContext new_context(void);
/* The name diagnostics give operand i (0-based): `<arg I+1>`, or `<stdin>`. */
const char *operand_name(const Args *a, int i);
/* Operand i's text; '-' is read from stdin (once). NULL after reporting. */
const char *operand_text(Args *a, int i);
/* Parses operand i as a type, round-tripped through the printer. */
LyType operand_type(LyContext ctx, Args *a, int i);
/* Diagnostics the library reports without a place (a view that does not
 * exist, a kernel that cannot be built) are located at operand i's first
 * character. */
void diag_focus(const Args *a, int i);
/* Diagnostics from lyTypeWithLayout (named "<layout>") are moved onto the
 * operand whose text the layout came from. */
void diag_focus_layout(const Args *a, int i);
/* Prints a diagnostic in the one shape, placed at the focus if it has no
 * place of its own. Suitable as a handler. */
void driver_diag(const LyDiagnostic *d, void *unused);

/* Reports an error located in a command-line argument. */
void arg_error(const char *name, const char *text, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Parses "1,2,3" into out; returns the count or -1 after reporting. */
int parse_list(const char *name, const char *text, int64_t *out, int max);
const char *status_text(LyStatus s);

/* --- JSON and facts (cmd_describe.c) --------------------------------------- */

void json_string(FILE *f, const char *s);
/* describe's output for t (text or one JSON object). False when out of memory. */
bool print_type_facts(FILE *f, LyType t, bool json);

/* --- Source files, split input and --verify-diagnostics (verify.c) --------- */

typedef struct {
  const char *text;
  size_t len;
  int first_line; /* line of the chunk's first character in the file */
} Chunk;

/* Reads a whole file ("-" is stdin) into a malloc'd buffer. */
char *read_file(const char *path, size_t *len);
/* Opens an output file for writing; "-" (or no path) is stdout. NULL after
 * reporting why it cannot be opened. */
FILE *open_output(const char *path);
/* Closes what open_output returned (stdout is only flushed); false after
 * reporting a write error. */
bool close_output(FILE *f, const char *path);
/* Splits at `// -----` lines; returns the chunk count or -1 if more than max. */
int split_input(const char *text, size_t len, Chunk *out, int max);

typedef struct {
  LySeverity sev;
  int line;
  char *message;
} CapturedDiag;

/* A diagnostic handler that either records diagnostics (verify mode) or
 * prints them with line numbers shifted to the file's. */
typedef struct {
  bool verify;
  int line_offset;
  const char *file_name;
  CapturedDiag *diags;
  int n, cap;
} Capture;
void capture_handler(const LyDiagnostic *d, void *user);
void capture_reset(Capture *c);
void capture_free(Capture *c);
/* Matches the captured diagnostics of a chunk against its expected-*
 * annotations; reports mismatches on stderr. Resets the capture. */
bool verify_chunk(const Chunk *ch, Capture *c, const char *file_name);

/* --- Commands -------------------------------------------------------------- */

int cmd_describe(Args *a);
int cmd_blob(Args *a);
int describe_blob(Args *a, const char *path);
int cmd_offset(Args *a);
int cmd_parse(Args *a);
int cmd_reshape(Args *a);
int cmd_permute(Args *a);
int cmd_slice(Args *a);
int cmd_broadcast(Args *a);
int cmd_squeeze(Args *a);
int cmd_unsqueeze(Args *a);
int cmd_with_layout(Args *a);
int cmd_equal(Args *a);
int cmd_opt(Args *a);
int cmd_repack(Args *a);
int cmd_emit_llvm(Args *a);
int cmd_draw(Args *a);

#endif
