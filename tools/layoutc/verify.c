/* Source files for the driver: reading a file (or stdin), splitting it at
 * `// -----` lines, and MLIR-style `--verify-diagnostics`: diagnostics are
 * captured and matched against `// expected-error {{...}}` annotations. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"

/* Source files larger than this are refused (the parsers' own limit). */
#define MAX_SOURCE_BYTES ((size_t)16 << 20)

static char *read_error(FILE *f, char *buf, const char *path, const char *why) {
  fprintf(stderr, "layoutc: error: cannot read '%s': %s\n", path, why);
  if (f != stdin)
    fclose(f);
  free(buf);
  return NULL;
}

FILE *open_output(const char *path) {
  if (!path || !strcmp(path, "-"))
    return stdout;
  FILE *f = fopen(path, "w");
  if (!f)
    driver_error("cannot open '%s' for writing: %s", path, strerror(errno));
  return f;
}

bool close_output(FILE *f, const char *path) {
  bool ok = f == stdout ? fflush(f) == 0 && !ferror(f) : fclose(f) == 0;
  if (!ok)
    driver_error("cannot write '%s'", path && strcmp(path, "-") ? path : "<stdout>");
  return ok;
}

char *read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    fprintf(stderr, "layoutc: error: cannot open '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
    return read_error(f, NULL, path, "it is a directory");
  size_t cap = 4096, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n > MAX_SOURCE_BYTES)
      return read_error(f, buf, path, "larger than the 16 MiB limit");
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb)
        free(buf);
      buf = nb;
    }
  }
  if (!buf)
    return read_error(f, NULL, path, "out of memory");
  if (ferror(f))
    return read_error(f, buf, path, strerror(errno));
  if (f != stdin)
    fclose(f);
  *len = n;
  return buf;
}

int split_input(const char *text, size_t len, Chunk *out, int max) {
  int n = 0, line = 1;
  size_t start = 0;
  int start_line = 1;
  for (size_t i = 0; i <= len; i++) {
    bool eol = i == len || text[i] == '\n';
    if (!eol)
      continue;
    /* Is the line [ls, i) a separator? */
    size_t ls = i;
    while (ls > 0 && text[ls - 1] != '\n')
      ls--;
    const char *l = text + ls;
    size_t ll = i - ls;
    while (ll && (*l == ' ' || *l == '\t'))
      l++, ll--;
    if (ll >= 8 && !strncmp(l, "// -----", 8)) {
      if (n == max)
        return -1;
      out[n++] = (Chunk){text + start, ls - start, start_line};
      start = i < len ? i + 1 : len;
      start_line = line + 1;
    }
    line++;
  }
  if (n == max)
    return -1;
  out[n++] = (Chunk){text + start, len - start, start_line};
  return n;
}

/* --- Diagnostic capture and verification ----------------------------------- */

void capture_handler(const LyDiagnostic *d, void *user) {
  Capture *c = user;
  if (c->verify) {
    if (c->n == c->cap) {
      int cap = c->cap ? c->cap * 2 : 16;
      CapturedDiag *nd = realloc(c->diags, cap * sizeof *nd);
      if (!nd)
        return;
      c->diags = nd;
      c->cap = cap;
    }
    c->diags[c->n++] = (CapturedDiag){d->severity, d->line > 0 ? d->line + c->line_offset : 0, strdup(d->message)};
    return;
  }
  LyDiagnostic copy = *d;
  if (copy.line > 0)
    copy.line += c->line_offset;
  if (!copy.source_name)
    copy.source_name = c->file_name; /* a pass's error about the whole file */
  lyDiagnosticPrintToFile(&copy, stderr);
}

void capture_reset(Capture *c) {
  for (int i = 0; i < c->n; i++)
    free(c->diags[i].message);
  c->n = 0;
}

void capture_free(Capture *c) {
  capture_reset(c);
  free(c->diags);
  c->diags = NULL;
  c->cap = 0;
}

typedef struct {
  LySeverity sev;
  int line;
  char *text;
  bool matched;
} Expected;

static const char *const sev_names[] = {"error", "warning", "note"};

/* `@+N` / `@-N` after expected-<sev>: the target line, which must exist in a
 * file of int-sized line numbers. False when the offset is malformed or
 * out of range. */
static bool parse_line_offset(const char **sp, const char *eol, int line, int *target) {
  const char *s = *sp;
  int sign = *s == '-' ? -1 : 1;
  if (*s == '+' || *s == '-')
    s++;
  long long v = 0;
  const char *digits = s;
  for (; s < eol && *s >= '0' && *s <= '9'; s++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v) || v > INT_MAX)
      v = (long long)INT_MAX + 1;
  *sp = s;
  long long t = line + sign * v;
  if (s == digits || v > INT_MAX || t < 1 || t > INT_MAX)
    return false;
  *target = (int)t;
  return true;
}

/* Parses `expected-<sev>[@<offset>] {{text}}` annotations of one chunk. */
static int collect_expected(const Chunk *ch, Expected *out, int max) {
  int n = 0, line = ch->first_line;
  const char *p = ch->text, *end = ch->text + ch->len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
      eol = end;
    for (const char *q = p; q < eol && n < max; q++) {
      if ((size_t)(eol - q) < 9 || strncmp(q, "expected-", 9))
        continue;
      const char *s = q + 9;
      int sev = -1;
      for (int k = 0; k < 3; k++)
        if (!strncmp(s, sev_names[k], strlen(sev_names[k])))
          sev = k, s += strlen(sev_names[k]);
      if (sev < 0)
        continue;
      int target = line;
      if (*s == '@') {
        s++;
        if (!strncmp(s, "above", 5))
          target = line - 1, s += 5;
        else if (!strncmp(s, "below", 5))
          target = line + 1, s += 5;
        else if (!parse_line_offset(&s, eol, line, &target))
          target = -line; /* negative: reported by verify_chunk at this line */
      }
      while (s < eol && *s == ' ')
        s++;
      const char *open = s + 2 <= eol && !strncmp(s, "{{", 2) ? s + 2 : NULL;
      const char *close = NULL;
      for (const char *r = open; r && r + 1 < eol && !close; r++)
        if (!strncmp(r, "}}", 2))
          close = r;
      if (!open || !close)
        continue;
      out[n++] = (Expected){(LySeverity)sev, target, strndup(open, (size_t)(close - open)), false};
      q = close;
    }
    line++;
    p = eol + 1;
  }
  return n;
}

bool verify_chunk(const Chunk *ch, Capture *c, const char *file_name) {
  Expected exp[256];
  int ne = collect_expected(ch, exp, 256);
  bool ok = true;
  for (int k = 0; k < ne; k++)
    if (exp[k].line < 0) {
      fprintf(stderr, "%s:%d: error: expected-%s has a line offset that is malformed or leaves the file\n",
              file_name, -exp[k].line, sev_names[exp[k].sev]);
      exp[k].matched = true;
      ok = false;
    }
  for (int i = 0; i < c->n; i++) {
    CapturedDiag *d = &c->diags[i];
    bool found = false;
    for (int k = 0; k < ne && !found; k++)
      if (!exp[k].matched && exp[k].sev == d->sev && exp[k].line == d->line && strstr(d->message, exp[k].text))
        exp[k].matched = found = true;
    if (!found) {
      fprintf(stderr, "%s:%d: error: unexpected %s: %s\n", file_name, d->line, sev_names[d->sev], d->message);
      ok = false;
    }
  }
  for (int k = 0; k < ne; k++) {
    if (!exp[k].matched) {
      fprintf(stderr, "%s:%d: error: expected %s \"%s\" was not produced\n", file_name, exp[k].line,
              sev_names[exp[k].sev], exp[k].text);
      ok = false;
    }
    free(exp[k].text);
  }
  capture_reset(c);
  return ok;
}
