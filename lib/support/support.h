/* support: the one allocator (with fault injection), arenas, string
 * buffers, checked arithmetic, hashing and diagnostics shared by every
 * component. Internal prefix: ly_. */
#ifndef LAYOUTC_SUPPORT_H
#define LAYOUTC_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layoutc/layoutc.h"

/* An impossible internal state: abort with file and line. Never used for
 * anything a user can cause. */
#define LY_ASSERT(c) ((c) ? (void)0 : ly_assert_fail(#c, __FILE__, __LINE__))
_Noreturn void ly_assert_fail(const char *what, const char *file, int line);

/* --- The allocator --------------------------------------------------------- */
/* Every allocation goes through these so tests can inject failure. */
void *ly_malloc(size_t n);
void *ly_realloc(void *p, size_t n);
void ly_free(void *p);
/* Fail the n-th allocation from now (1 = the next); 0 disables. */
void ly_alloc_fail_after(long n);
/* Allocations performed since start (for fault-injection loops). */
long ly_alloc_count(void);
/* Allocations that failed since start, in any thread: work that must not
 * remember an answer a failure may have changed compares it before and after. */
long ly_alloc_failures(void);

/* --- Arenas: bump allocation, freed all at once ---------------------------- */
typedef struct LyArenaBlock LyArenaBlock;
typedef struct {
  LyArenaBlock *head;
  char *cur, *end;
} LyArena;

void ly_arena_init(LyArena *a);
void ly_arena_free(LyArena *a);
void *ly_arena_alloc(LyArena *a, size_t n); /* 16-byte aligned, zeroed; NULL on OOM */
void *ly_arena_dup(LyArena *a, const void *p, size_t n);
char *ly_arena_strndup(LyArena *a, const char *s, size_t n);

/* --- Growable string buffer ----------------------------------------------- */
typedef struct {
  char *data;
  size_t len, cap;
  bool oom;
} LyBuf;

void ly_buf_init(LyBuf *b);
void ly_buf_free(LyBuf *b);
void ly_buf_put(LyBuf *b, const char *s, size_t n);
void ly_buf_puts(LyBuf *b, const char *s);
void ly_buf_printf(LyBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ly_buf_vprintf(LyBuf *b, const char *fmt, va_list ap);
const char *ly_buf_cstr(LyBuf *b); /* "" when empty or on OOM */
/* Appends the character at s[0, len) for a message: 'c' quoted, a whole
 * UTF-8 sequence quoted, "byte 0xNN" for anything else, "end of input" when
 * len is 0. Returns the bytes it covered. */
size_t ly_buf_put_char(LyBuf *b, const char *s, size_t len);
/* Index of the first byte of s[0, len) that is not well-formed UTF-8, or len. */
size_t ly_utf8_check(const char *s, size_t len);

/* --- Checked arithmetic: false on overflow ---------------------------------- */
static inline bool ly_mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline bool ly_add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline int64_t ly_ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }
/* Greatest common divisor of |a| and |b| (gcd(a, 0) = |a|). */
static inline int64_t ly_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y, y = t;
  }
  return (int64_t)x;
}

/* --- Hashing (FNV-1a 64, stable across runs and hosts) --------------------- */
#define LY_HASH_INIT 0xcbf29ce484222325ULL
uint64_t ly_hash_bytes(uint64_t h, const void *p, size_t n);
uint64_t ly_hash_i64(uint64_t h, int64_t v);

/* --- Diagnostics ---------------------------------------------------------- */
typedef struct {
  int line, col;
} LyLoc;

typedef struct LyDiagEngine {
  LyDiagnosticHandler handler;
  void *user;
  int errors;
} LyDiagEngine;

/* Source text being processed, so diagnostics can show the line. */
typedef struct {
  const char *name;
  const char *text;
  size_t len;
} LySource;

void ly_diag_emit(LyDiagEngine *d, LySeverity sev, const LySource *src, LyLoc loc,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void ly_diag_vemit(LyDiagEngine *d, LySeverity sev, const LySource *src, LyLoc loc,
                   const char *fmt, va_list ap);

#endif
