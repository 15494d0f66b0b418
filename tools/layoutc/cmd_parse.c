/* layoutc parse: parses a file of types (one per `// -----` chunk with
 * --split-input-file) and prints each canonical spelling; with
 * --verify-diagnostics, checks the diagnostics against expected-* notes. */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define MAX_CHUNKS 100000

/* A chunk with nothing but blanks and comments holds no type. */
static bool chunk_is_empty(const Chunk *ch) {
  const char *p = ch->text, *end = ch->text + ch->len;
  while (p < end) {
    if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
      p++;
    } else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
      while (p < end && *p != '\n')
        p++;
    } else {
      return false;
    }
  }
  return true;
}

int cmd_parse(Args *a) {
  const char *path = a->operand[0];
  bool split = args_has(a, "--split-input-file"), verify = args_has(a, "--verify-diagnostics");
  size_t len;
  char *text = read_file(path, &len);
  if (!text)
    return EXIT_BAD_INPUT;
  Chunk *chunks = malloc(MAX_CHUNKS * sizeof *chunks);
  int n = chunks ? (split ? split_input(text, len, chunks, MAX_CHUNKS) : 1) : -1;
  if (n < 0) {
    driver_error("too many chunks in '%s'", path);
    free(text);
    free(chunks);
    return EXIT_BAD_INPUT;
  }
  if (!split)
    chunks[0] = (Chunk){text, len, 1};
  const char *name = strcmp(path, "-") ? path : "<stdin>";
  Capture cap = {.verify = verify, .file_name = name};
  LyContext ctx = new_context();
  lyContextSetDiagnosticHandler(ctx, capture_handler, &cap);
  int failures = 0;
  for (int i = 0; i < n; i++) {
    if (i)
      printf("// -----\n");
    cap.line_offset = chunks[i].first_line - 1;
    if (chunk_is_empty(&chunks[i]) && split)
      continue;
    LyType t = lyTypeParse(ctx, chunks[i].text, chunks[i].len, name);
    if (!lyTypeIsNull(t)) {
      char *s = lyTypeToString(t);
      LyType back = s ? lyTypeParse(ctx, s, strlen(s), "<printed>") : (LyType){NULL};
      if (!lyTypeEqual(t, back)) {
        fprintf(stderr, "layoutc: internal error: '%s' does not parse back to the same type\n", s ? s : "");
        abort();
      }
      printf("%s\n", s);
      lyStringFree(s);
    } else if (!verify) {
      failures++;
    }
    if (verify && !verify_chunk(&chunks[i], &cap, name))
      failures++;
  }
  capture_free(&cap);
  lyContextDestroy(ctx);
  free(chunks);
  free(text);
  return failures ? EXIT_BAD_INPUT : 0;
}
