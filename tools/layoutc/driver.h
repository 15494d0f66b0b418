/* tools/layoutc: the command-line driver's shared helpers. Each command lives
 * in its own cmd_*.c file; main.c dispatches. */
#ifndef LAYOUTC_DRIVER_H
#define LAYOUTC_DRIVER_H

#include <stdint.h>
#include <stdio.h>

#include "layoutc/layoutc.h"

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

int usage(const char *msg);
/* A context whose diagnostics go to stderr; exits 1 if memory is exhausted. */
LyContext new_context(void);
/* Parses a type given on the command line (diagnostics name it <input>). */
LyType parse_type(LyContext ctx, const char *text);
/* Reports an error located in a command-line argument. */
void arg_error(const char *name, const char *text, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Parses "1,2,3" into out; returns the count or -1 after reporting. */
int parse_list(const char *name, const char *text, int64_t *out, int max);
const char *status_text(LyStatus s);

/* --- Source files, split input and --verify-diagnostics (verify.c) --- */
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *text;
  size_t len;
  int first_line; /* line of the chunk's first character in the file */
} Chunk;

/* Reads a whole file ("-" is stdin) into a malloc'd buffer. */
char *read_file(const char *path, size_t *len);
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

int cmd_describe(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_reshape(int argc, char **argv);
int cmd_permute(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_broadcast(int argc, char **argv);
int cmd_offset(int argc, char **argv);
int cmd_opt(int argc, char **argv);

#endif
