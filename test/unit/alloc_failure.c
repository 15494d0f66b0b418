/* Allocation failure injected at each allocation site in turn: every parse
 * either succeeds or fails cleanly, and nothing leaks (run under LSan). */
#include <string.h>

#include "layoutc/layoutc.h"
#include "support/support.h"
#include "test_util.h"

static const char *inputs[] = {
    "tensor<2x20x3x3xf32, \"nChw16c\">",
    "tensor<2x7x8x11x10xf32, tiled_layout<<0,1,2,3,4>,(*,*,2,*,3)>>",
    "tensor<7xi1, tiled_layout<<0>,(6),(4)>>",
    "tensor<4x6xf32, strided<[1,4], offset: 3>>",
    "tensor<4xf32, layout<[((d0) mod 3) floordiv 2 * 1], size: 2>>",
    "tensor<4x6xf32, tiled_layout<<0,1>,(2,2,2)>>", /* an error path */
    "tensor<4xf32, memspace<\"hbm\">>",
};

static int run_once(void) {
  LyContext c = lyContextCreate();
  if (lyContextIsNull(c))
    return 0;
  int ok = 0;
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    LyType t = lyTypeParse(c, inputs[i], strlen(inputs[i]), NULL);
    if (!lyTypeIsNull(t)) {
      char *s = lyTypeToString(t);
      ok += s != NULL;
      lyStringFree(s);
    }
  }
  lyContextDestroy(c);
  return ok;
}

int main(void) {
  long before = ly_alloc_count();
  int full = run_once();
  long sites = ly_alloc_count() - before;
  CHECK(full == 6);
  CHECK(sites > 10);
  for (long n = 1; n <= sites; n++) {
    ly_alloc_fail_after(n);
    int got = run_once();
    ly_alloc_fail_after(0);
    CHECK(got <= full);
  }
  CHECK(run_once() == full); /* nothing is left broken */
  printf("alloc_failure: %ld allocation sites injected\n", sites);
  return TEST_DONE("alloc_failure");
}
