/* fuzz_ir: lyModuleParse on arbitrary bytes. Bad input must be a diagnostic
 * (never a crash, a hang or a leak); a module that parses prints to text
 * that parses and prints again to the same text; a module that verifies
 * stays valid through legalize-reshapes, whose output is a fixed point. */
#include <string.h>

#include "fuzz_common.h"
#include "layoutc/ir.h"

static char *reprint(LyContext ctx, const char *text) {
  LyModule m = lyModuleParse(ctx, text, strlen(text), "<printed>");
  if (lyModuleIsNull(m))
    fz_fail("printed module does not parse:\n%s", text);
  char *s = lyModuleToString(m);
  lyModuleDestroy(m);
  if (!s)
    fz_fail("out of memory printing");
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LyContext ctx = fz_context();
  fz_errors = 0;
  LyModule m = lyModuleParse(ctx, (const char *)data, size, NULL);
  if (lyModuleIsNull(m)) {
    if (fz_errors == 0)
      fz_fail("parse failed without an error diagnostic");
    lyContextDestroy(ctx);
    return 0;
  }
  char *a = lyModuleToString(m);
  char *b = a ? reprint(ctx, a) : NULL;
  if (a && strcmp(a, b))
    fz_fail("print, parse, print is not a fixed point:\n%s\n---\n%s", a, b);
  lyStringFree(a);
  lyStringFree(b);
  if (lyModuleVerify(m) == LY_OK && lyModuleRunPass(m, "legalize-reshapes", 0) == LY_OK) {
    if (lyModuleVerify(m) != LY_OK)
      fz_fail("legalize-reshapes produced a module that does not verify");
    char *once = lyModuleToString(m);
    if (lyModuleRunPass(m, "legalize-reshapes", 0) != LY_OK)
      fz_fail("legalize-reshapes failed on its own output");
    char *twice = lyModuleToString(m);
    if (once && twice && strcmp(once, twice))
      fz_fail("legalize-reshapes is not idempotent:\n%s\n---\n%s", once, twice);
    lyStringFree(once);
    lyStringFree(twice);
  }
  lyModuleDestroy(m);
  lyContextDestroy(ctx);
  return 0;
}
