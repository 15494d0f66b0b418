/* support: allocator with fault injection, arenas, buffers, hashing and the
 * diagnostic engine. */
#include "support/support.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void ly_assert_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "layoutc internal error: %s:%d: assertion '%s' failed\n", file, line, what);
  abort();
}

/* --- Allocator ------------------------------------------------------------ */

/* The fault-injection hook and the allocation count are the library's only
 * process-wide state. They are atomic so threads allocating at once (each in
 * its own context, or in a shared repacker) are well-defined; the hook itself
 * is for single-threaded tests. Neither is exported from the shared library. */
static _Atomic long fail_countdown;
static _Atomic long alloc_counter;

static bool should_fail(void) {
  atomic_fetch_add_explicit(&alloc_counter, 1, memory_order_relaxed);
  long n = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
  /* Only the thread that takes the countdown from 1 to 0 fails. */
  while (n > 0)
    if (atomic_compare_exchange_weak_explicit(&fail_countdown, &n, n - 1, memory_order_relaxed,
                                              memory_order_relaxed))
      return n == 1;
  return false;
}

void ly_alloc_fail_after(long n) { atomic_store(&fail_countdown, n); }
long ly_alloc_count(void) { return atomic_load(&alloc_counter); }

static _Atomic long failed_counter;
long ly_alloc_failures(void) { return atomic_load_explicit(&failed_counter, memory_order_relaxed); }

void *ly_malloc(size_t n) {
  void *p = should_fail() ? NULL : malloc(n ? n : 1);
  if (!p)
    atomic_fetch_add_explicit(&failed_counter, 1, memory_order_relaxed);
  return p;
}

void *ly_realloc(void *p, size_t n) {
  void *q = should_fail() ? NULL : realloc(p, n ? n : 1);
  if (!q)
    atomic_fetch_add_explicit(&failed_counter, 1, memory_order_relaxed);
  return q;
}

void ly_free(void *p) { free(p); }

/* --- Arena ---------------------------------------------------------------- */

struct LyArenaBlock {
  LyArenaBlock *next;
  size_t size;
  _Alignas(16) char data[];
};

void ly_arena_init(LyArena *a) { a->head = NULL, a->cur = a->end = NULL; }

void ly_arena_free(LyArena *a) {
  for (LyArenaBlock *b = a->head, *n; b; b = n) {
    n = b->next;
    ly_free(b);
  }
  ly_arena_init(a);
}

void *ly_arena_alloc(LyArena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0)
    n = 16;
  if ((size_t)(a->end - a->cur) < n || !a->cur) {
    size_t sz = n > 8192 ? n : 8192;
    LyArenaBlock *b = ly_malloc(sizeof *b + sz);
    if (!b)
      return NULL;
    b->next = a->head;
    b->size = sz;
    a->head = b;
    a->cur = b->data;
    a->end = b->data + sz;
  }
  void *p = a->cur;
  a->cur += n;
  memset(p, 0, n);
  return p;
}

void *ly_arena_dup(LyArena *a, const void *p, size_t n) {
  void *q = ly_arena_alloc(a, n);
  if (q && n)
    memcpy(q, p, n);
  return q;
}

char *ly_arena_strndup(LyArena *a, const char *s, size_t n) {
  char *q = ly_arena_alloc(a, n + 1);
  if (q) {
    memcpy(q, s, n);
    q[n] = 0;
  }
  return q;
}

/* --- Buffers -------------------------------------------------------------- */

void ly_buf_init(LyBuf *b) { memset(b, 0, sizeof *b); }
void ly_buf_free(LyBuf *b) {
  ly_free(b->data);
  ly_buf_init(b);
}

static bool buf_reserve(LyBuf *b, size_t extra) {
  if (b->oom)
    return false;
  if (b->len + extra + 1 <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *d = ly_realloc(b->data, cap);
  if (!d) {
    b->oom = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

void ly_buf_put(LyBuf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void ly_buf_puts(LyBuf *b, const char *s) { ly_buf_put(b, s, strlen(s)); }

void ly_buf_vprintf(LyBuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0 || !buf_reserve(b, (size_t)n))
    return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void ly_buf_printf(LyBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *ly_buf_cstr(LyBuf *b) { return b->data && !b->oom ? b->data : ""; }

/* Length of the well-formed UTF-8 sequence at s[0, len), or 0. */
static size_t utf8_len(const unsigned char *s, size_t len) {
  size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
  if (s[0] >= 0xf5 || n == 0 || n > len)
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

size_t ly_utf8_check(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    size_t n = u[i] < 0x80 ? 1 : utf8_len(u + i, len - i);
    if (!n)
      return i;
    i += n;
  }
  return len;
}

size_t ly_buf_put_char(LyBuf *b, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  if (len == 0) {
    ly_buf_puts(b, "end of input");
    return 0;
  }
  if (u[0] >= 0x20 && u[0] < 0x7f) {
    ly_buf_printf(b, "'%c'", s[0]);
    return 1;
  }
  size_t n = u[0] >= 0x80 ? utf8_len(u, len) : 0;
  if (n) {
    ly_buf_printf(b, "'%.*s'", (int)n, s);
    return n;
  }
  ly_buf_printf(b, "byte 0x%02x", u[0]);
  return 1;
}

/* --- Hashing -------------------------------------------------------------- */

uint64_t ly_hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t ly_hash_i64(uint64_t h, int64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)((uint64_t)v >> (8 * i)); /* fixed byte order */
  return ly_hash_bytes(h, b, 8);
}

/* --- Diagnostics ---------------------------------------------------------- */

void ly_diag_vemit(LyDiagEngine *d, LySeverity sev, const LySource *src, LyLoc loc,
                   const char *fmt, va_list ap) {
  if (sev == LY_SEVERITY_ERROR)
    d->errors++;
  LyBuf msg;
  ly_buf_init(&msg);
  ly_buf_vprintf(&msg, fmt, ap);
  LyDiagnostic diag = {.severity = sev, .message = msg.oom ? "out of memory" : ly_buf_cstr(&msg)};
  if (src) {
    diag.source_name = src->name ? src->name : "<input>";
    diag.line = loc.line;
    diag.column = loc.col;
    /* Find the line's text. */
    if (loc.line > 0 && src->text) {
      const char *p = src->text, *end = src->text + src->len;
      for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n')
          l++;
      const char *e = p;
      while (e < end && *e != '\n')
        e++;
      diag.source_line = p;
      diag.source_line_len = (int)(e - p);
    }
  }
  if (d->handler)
    d->handler(&diag, d->user);
  ly_buf_free(&msg);
}

void ly_diag_emit(LyDiagEngine *d, LySeverity sev, const LySource *src, LyLoc loc,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(d, sev, src, loc, fmt, ap);
  va_end(ap);
}

/* The source line as shown: tabs expanded to the next multiple of 8 and
 * other control bytes shown as spaces, so the caret under it lines up.
 * Returns the display column of byte `col` (0-based). */
static int put_display_line(FILE *f, const char *s, int start, int len, int col) {
  int x = 0, caret = -1;
  for (int i = start; i < start + len; i++) {
    if (i == col)
      caret = x;
    if (s[i] == '\t') {
      do
        fputc(' ', f);
      while (++x % 8);
    } else {
      fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], f);
      /* A UTF-8 continuation byte takes no column of its own. */
      x += ((unsigned char)s[i] & 0xc0) != 0x80;
    }
  }
  fputc('\n', f);
  return caret >= 0 ? caret : x;
}

void lyDiagnosticPrintToFile(const LyDiagnostic *diag, void *file) {
  FILE *f = file;
  static const char *sev[] = {"error", "warning", "note"};
  int len = diag->source_line && diag->line > 0 ? diag->source_line_len : -1;
  /* The caret stays on the text: a diagnostic at the end of the input points
   * at its last character. */
  int column = diag->column;
  if (len > 0 && column > len)
    column = len;
  if (diag->source_name && diag->line > 0)
    fprintf(f, "%s:%d:%d: ", diag->source_name, diag->line, column);
  else if (diag->source_name)
    fprintf(f, "%s: ", diag->source_name);
  fprintf(f, "%s: %s\n", sev[diag->severity], diag->message);
  if (len >= 0) {
    /* Long lines (megabyte inputs) are shown as a window around the column. */
    int col = column > 0 ? column - 1 : 0, start = 0;
    if (len > 160) {
      start = col > 60 ? col - 60 : 0;
      len = len - start > 120 ? 120 : len - start;
    }
    fputs(start ? "..." : "", f);
    int x = put_display_line(f, diag->source_line, start, len, col);
    fprintf(f, "%*s^\n", (start ? 3 : 0) + x, "");
  }
}
