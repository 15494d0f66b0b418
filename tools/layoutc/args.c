/* The driver's arguments and diagnostics: the generic option parser every
 * command shares (--help, --, '-', "did you mean"), operands read as types,
 * and the one diagnostic shape, `name:line:col: error: ...` with the text and
 * a caret, or `layoutc: error: ...` for the driver's own errors. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "layoutc/ir.h"

static void vdriver_error(const char *fmt, va_list ap) {
  fputs("layoutc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void driver_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdriver_error(fmt, ap);
  va_end(ap);
}

int usage_error(const Command *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdriver_error(fmt, ap);
  va_end(ap);
  if (c)
    fprintf(stderr, "layoutc: note: usage: layoutc %s %s (see 'layoutc help %s')\n", c->name, c->synopsis, c->name);
  else
    fputs("layoutc: note: see 'layoutc help'\n", stderr);
  return EXIT_USAGE;
}

/* --- Did you mean ---------------------------------------------------------- */

static int edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 64 || m > 64)
    return 1000;
  int row[65];
  for (size_t j = 0; j <= m; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      best = up + 1 < best ? up + 1 : best;
      best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
      diag = up;
      row[j] = best;
    }
  }
  return row[m];
}

const char *did_you_mean(const char *word, const char *const *cands, int n) {
  const char *best = NULL;
  int best_d = 1000, limit = (int)strlen(word) / 3;
  limit = limit < 1 ? 1 : limit;
  for (int i = 0; i < n; i++) {
    int d = edit_distance(word, cands[i]);
    if (d < best_d && d <= limit)
      best = cands[i], best_d = d;
  }
  return best;
}

/* --- Options --------------------------------------------------------------- */

#define MAX_OPTS 96

const OptSpec *command_options(const Command *c) {
  if (strcmp(c->name, "opt"))
    return c->opts;
  /* opt: its fixed options, then one flag per registered pass. */
  static OptSpec all[MAX_OPTS];
  static char names[MAX_OPTS][64];
  if (all[0].name)
    return all;
  int n = 0;
  for (const OptSpec *o = c->opts; o->name && n < MAX_OPTS - 1; o++)
    all[n++] = *o;
  for (int i = 0; i < lyPassGetCount() && n < MAX_OPTS - 1; i++) {
    if (!strcmp(lyPassGetName(i), "assign-layouts"))
      continue; /* listed among the fixed options, with its =MODE */
    snprintf(names[n], sizeof names[n], "--%s", lyPassGetName(i));
    all[n] = (OptSpec){names[n], OPT_FLAG, lyPassGetSummary(i)};
    n++;
  }
  all[n] = (OptSpec){NULL, OPT_FLAG, NULL};
  return all;
}

static const OptSpec *find_option(const OptSpec *opts, const char *s, size_t len) {
  for (const OptSpec *o = opts; o->name; o++)
    if (strlen(o->name) == len && !strncmp(o->name, s, len))
      return o;
  return NULL;
}

static int unknown_option(const Command *c, const OptSpec *opts, const char *s) {
  const char *cands[MAX_OPTS + 2];
  int n = 0;
  for (const OptSpec *o = opts; o->name && n < MAX_OPTS; o++)
    cands[n++] = o->name;
  cands[n++] = "--help";
  const char *eq = strchr(s, '=');
  char word[128];
  snprintf(word, sizeof word, "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
  const char *m = did_you_mean(word, cands, n);
  if (m)
    return usage_error(c, "unknown option '%s' for '%s'; did you mean '%s'?", s, c->name, m);
  return usage_error(c, "unknown option '%s' for '%s'", s, c->name);
}

static int add_operand(const Command *c, Args *a, const char *s) {
  if (a->noperands == MAX_OPERANDS)
    return usage_error(c, "more than %d operands", MAX_OPERANDS);
  a->operand[a->noperands++] = s;
  return 0;
}

static int add_seen(const Command *c, Args *a, const char *name, const char *value) {
  if (a->nseen == MAX_SEEN)
    return usage_error(c, "more than %d options", MAX_SEEN);
  a->seen[a->nseen].name = name;
  a->seen[a->nseen++].value = value;
  return 0;
}

/* One option argument at argv[*i]; consumes its value. 0 or a status. */
static int parse_option(const Command *c, const OptSpec *opts, int argc, char **argv, int *i, Args *a) {
  const char *s = argv[*i], *eq = strncmp(s, "--", 2) ? NULL : strchr(s, '=');
  const OptSpec *o = find_option(opts, s, eq ? (size_t)(eq - s) : strlen(s));
  if (!o)
    return unknown_option(c, opts, s);
  if (o->kind == OPT_FLAG && eq)
    return usage_error(c, "option '%s' takes no value", o->name);
  if (o->kind == OPT_VALUE && !eq) {
    if (*i + 1 == argc)
      return usage_error(c, "option '%s' needs a value", o->name);
    return add_seen(c, a, o->name, argv[++*i]);
  }
  return add_seen(c, a, o->name, eq ? eq + 1 : NULL);
}

int args_parse(const Command *c, int argc, char **argv, Args *a) {
  memset(a, 0, sizeof *a);
  a->cmd = c;
  const OptSpec *opts = command_options(c);
  bool only_operands = false;
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    int rc = 0;
    /* "-" is stdin; "-1,2" is a list with a negative entry, reported as such. */
    if (only_operands || s[0] != '-' || !s[1] || (s[1] >= '0' && s[1] <= '9')) {
      rc = add_operand(c, a, s);
    } else if (!strcmp(s, "--")) {
      only_operands = true;
    } else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      print_command_help(c, stdout);
      return -1;
    } else {
      rc = parse_option(c, opts, argc, argv, &i, a);
    }
    if (rc)
      return rc;
  }
  if (a->noperands < c->min_operands || (c->max_operands >= 0 && a->noperands > c->max_operands)) {
    if (c->min_operands == c->max_operands)
      return usage_error(c, "'%s' takes %d operand%s, found %d", c->name, c->min_operands,
                         c->min_operands == 1 ? "" : "s", a->noperands);
    if (a->noperands < c->min_operands)
      return usage_error(c, "'%s' takes at least %d operands, found %d", c->name, c->min_operands, a->noperands);
    return usage_error(c, "'%s' takes at most %d operand%s, found %d", c->name, c->max_operands,
                       c->max_operands == 1 ? "" : "s", a->noperands);
  }
  int stdin_uses = 0;
  for (int i = 0; i < a->noperands; i++)
    stdin_uses += !strcmp(a->operand[i], "-");
  if (stdin_uses > 1)
    return usage_error(c, "only one operand can be '-' (stdin)");
  return 0;
}

void args_free(Args *a) {
  free(a->stdin_text);
  a->stdin_text = NULL;
}

bool args_has(const Args *a, const char *name) {
  for (int i = 0; i < a->nseen; i++)
    if (!strcmp(a->seen[i].name, name))
      return true;
  return false;
}

const char *args_value(const Args *a, const char *name) {
  const char *v = NULL;
  for (int i = 0; i < a->nseen; i++)
    if (!strcmp(a->seen[i].name, name))
      v = a->seen[i].value;
  return v;
}

void print_command_help(const Command *c, FILE *f) {
  fprintf(f, "usage: layoutc %s %s\n\n%s\n", c->name, c->synopsis, c->summary);
  if (c->help)
    fprintf(f, "\n%s", c->help);
  const OptSpec *opts = command_options(c);
  if (opts[0].name)
    fputs("\noptions:\n", f);
  for (const OptSpec *o = opts; o->name; o++) {
    char head[64];
    snprintf(head, sizeof head, "%s%s", o->name,
             o->kind == OPT_VALUE ? " VALUE" : o->kind == OPT_OPTIONAL_VALUE ? "[=VALUE]" : "");
    fprintf(f, "  %-26s %s\n", head, o->help ? o->help : "");
  }
}

/* --- Operands and the diagnostic focus ------------------------------------- */

static struct {
  const char *name, *text;
  bool layout; /* remap "<layout>" diagnostics onto this operand */
} focus;

const char *operand_name(const Args *a, int i) {
  static char names[MAX_OPERANDS][24];
  if (!strcmp(a->operand[i], "-"))
    return "<stdin>";
  snprintf(names[i], sizeof names[i], "<arg %d>", i + 1);
  return names[i];
}

const char *operand_text(Args *a, int i) {
  if (strcmp(a->operand[i], "-"))
    return a->operand[i];
  if (!a->stdin_text) {
    size_t len;
    char *text = read_file("-", &len);
    if (!text)
      return NULL;
    /* A type piped in ends with a newline; the text is the type. */
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
      len--;
    if (memchr(text, '\0', len)) {
      driver_error("stdin holds a NUL byte");
      free(text);
      return NULL;
    }
    char *t = realloc(text, len + 1);
    t = t ? t : text;
    t[len] = '\0';
    a->stdin_text = t;
  }
  return a->stdin_text;
}

LyType operand_type(LyContext ctx, Args *a, int i) {
  const char *text = operand_text(a, i);
  if (!text)
    return (LyType){NULL};
  LyType t = lyTypeParse(ctx, text, strlen(text), operand_name(a, i));
  if (lyTypeIsNull(t))
    return t;
  /* Every type the driver sees is round-tripped through the printer: the
   * canonical spelling must parse back to the same interned object. This is
   * how the whole lit suite checks the printer. */
  char *s = lyTypeToString(t);
  if (!s) {
    driver_error("out of memory");
    exit(EXIT_BAD_INPUT);
  }
  LyType back = lyTypeParse(ctx, s, strlen(s), "<printed>");
  if (!lyTypeEqual(t, back)) {
    fprintf(stderr, "layoutc: internal error: '%s' does not parse back to the same type\n", s);
    abort();
  }
  lyStringFree(s);
  return t;
}

void diag_focus(const Args *a, int i) {
  focus.name = operand_name(a, i);
  focus.text = !strcmp(a->operand[i], "-") ? a->stdin_text : a->operand[i];
  focus.layout = false;
}

void diag_focus_layout(const Args *a, int i) {
  diag_focus(a, i);
  focus.layout = true;
}

/* A "<layout>" diagnostic: lyTypeWithLayout parsed a type it spelled around
 * the focus operand; the column moves onto the operand's own text. */
static bool remap_layout(LyDiagnostic *d) {
  if (!focus.layout || !focus.text || !d->source_name || strcmp(d->source_name, "<layout>") || !d->source_line)
    return false;
  size_t n = strlen(focus.text);
  const char *line = d->source_line, *end = line + d->source_line_len, *at = NULL;
  for (const char *p = line; p + n <= end && !at; p++)
    if (!strncmp(p, focus.text, n) && p > line + 1 && p[-2] == ',')
      at = p;
  if (!at)
    return false;
  int shift = (int)(at - line), col = d->column - shift;
  d->column = col < 1 ? 1 : col;
  /* "opened at column N" counts in the spelled type too. */
  const char *m = strstr(d->message, "at column ");
  static char msg[600];
  long opened = m ? strtol(m + 10, NULL, 10) : 0;
  if (m && opened > shift && strlen(d->message) < 500) {
    const char *rest = m + 10;
    while (*rest >= '0' && *rest <= '9')
      rest++;
    snprintf(msg, sizeof msg, "%.*sat column %ld%s", (int)(m - d->message), d->message, opened - shift, rest);
    d->message = msg;
  }
  d->source_name = focus.name;
  d->source_line = focus.text;
  d->source_line_len = (int)n;
  return true;
}

void driver_diag(const LyDiagnostic *d, void *unused) {
  (void)unused;
  LyDiagnostic c = *d;
  if (!remap_layout(&c) && !c.source_name) {
    /* No place of its own: the operand the command is about. */
    c.source_name = focus.name ? focus.name : "layoutc";
    if (focus.text) {
      const char *nl = strchr(focus.text, '\n');
      c.line = 1;
      c.column = 1;
      if (c.severity != LY_SEVERITY_NOTE) {
        c.source_line = focus.text;
        c.source_line_len = nl ? (int)(nl - focus.text) : (int)strlen(focus.text);
      }
    }
  }
  lyDiagnosticPrintToFile(&c, stderr);
}

LyContext new_context(void) {
  LyContext ctx = lyContextCreate();
  if (lyContextIsNull(ctx)) {
    driver_error("out of memory");
    exit(EXIT_BAD_INPUT);
  }
  lyContextSetDiagnosticHandler(ctx, driver_diag, NULL);
  return ctx;
}

/* --- Lists of integers ----------------------------------------------------- */

void arg_error(const char *name, const char *text, int col, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  LyDiagnostic d = {.severity = LY_SEVERITY_ERROR, .source_name = name, .line = 1, .column = col,
                    .source_line = text, .source_line_len = (int)strlen(text), .message = msg};
  lyDiagnosticPrintToFile(&d, stderr);
}

/* A character as a message shows it: 'x', or its byte value. */
static const char *shown(char c, char buf[16]) {
  if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
    snprintf(buf, 16, "'%c'", c);
  else
    snprintf(buf, 16, "byte 0x%02x", (unsigned char)c);
  return buf;
}

/* Parses a comma-separated list of non-negative integers ("1,2,3"). */
int parse_list(const char *name, const char *text, int64_t *out, int max) {
  char buf[16];
  int n = 0;
  const char *s = text;
  if (!*s) {
    arg_error(name, text, 1, "expected a comma-separated list of integers, found nothing");
    return -1;
  }
  for (;;) {
    const char *start = s;
    int64_t v = 0;
    if (!*s) {
      /* "24,": the caret goes on the comma, not past the text. */
      arg_error(name, text, (int)(s - text), "expected an integer after ','");
      return -1;
    }
    if (*s < '0' || *s > '9') {
      arg_error(name, text, (int)(s - text) + 1, "expected a non-negative integer, found %s", shown(*s, buf));
      return -1;
    }
    for (; *s >= '0' && *s <= '9'; s++)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v)) {
        arg_error(name, text, (int)(start - text) + 1, "integer does not fit in 64 bits");
        return -1;
      }
    if (n == max) {
      arg_error(name, text, (int)(start - text) + 1, "more than %d entr%s", max, max == 1 ? "y" : "ies");
      return -1;
    }
    out[n++] = v;
    if (!*s)
      return n;
    if (*s != ',') {
      arg_error(name, text, (int)(s - text) + 1, "expected ',' between integers, found %s", shown(*s, buf));
      return -1;
    }
    s++;
  }
}

const char *status_text(LyStatus s) {
  switch (s) {
  case LY_ERROR_DYNAMIC: return "the type has dynamic ('?') dims, strides or offset";
  case LY_ERROR_ANY: return "the layout is 'any' (not chosen yet): it has no geometry";
  case LY_ERROR_OPAQUE: return "the layout is opaque (layoutc does not interpret it): it has no geometry";
  case LY_ERROR_NOT_A_TENSOR: return "the type is not a tensor: it has no layout";
  case LY_ERROR_MULTI_BUFFER:
    return "the type is a multi-buffer encoding (sparse, packed or grouped): it has no single-buffer geometry";
  case LY_ERROR_RANGE: return "index out of range";
  case LY_ERROR_OVERFLOW: return "size overflows 64 bits";
  case LY_ERROR_UNKNOWN: return "too large to decide";
  case LY_ERROR_NOMEM: return "out of memory";
  default: return "invalid";
  }
}
