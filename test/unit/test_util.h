/* A minimal check macro for the C unit tests: report and count, never stop
 * at the first failure. */
#ifndef LAYOUTC_TEST_UTIL_H
#define LAYOUTC_TEST_UTIL_H
#include <stdio.h>
#include <string.h>

#include "layoutc/layoutc.h"

static int test_failures, test_checks;
#define CHECK(c)                                                                 \
  do {                                                                           \
    test_checks++;                                                               \
    if (!(c)) {                                                                  \
      test_failures++;                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);      \
    }                                                                            \
  } while (0)
#define TEST_DONE(name)                                                          \
  (printf("%s: %d checks, %d failures\n", name, test_checks, test_failures),     \
   test_failures ? 1 : 0)

/* The last diagnostic, for tests that check messages (lyContextSetDiagnosticHandler(ctx,
 * test_record, NULL)), and a parse that reports a type it cannot read. */
static char test_last_diag[1024];

static inline void test_record(const LyDiagnostic *d, void *user) {
  (void)user;
  snprintf(test_last_diag, sizeof test_last_diag, "%s", d->message);
}

static inline LyType test_parse(LyContext ctx, const char *text) {
  LyType t = lyTypeParse(ctx, text, strlen(text), "<test>");
  if (lyTypeIsNull(t))
    fprintf(stderr, "cannot parse %s: %s\n", text, test_last_diag);
  return t;
}
#endif
