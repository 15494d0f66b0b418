/* A minimal check macro for the C unit tests: report and count, never stop
 * at the first failure. */
#ifndef LAYOUTC_TEST_UTIL_H
#define LAYOUTC_TEST_UTIL_H
#include <stdio.h>

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
#endif
