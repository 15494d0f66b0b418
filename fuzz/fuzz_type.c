/* fuzz_type: lyTypeParse on arbitrary bytes. Bad input must be a diagnostic
 * (never a crash, a hang or a leak); a type that parses must print to a
 * spelling that parses back to the same object with the same hash, and its
 * geometry queries must agree with each other (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LyContext ctx = fz_context();
  fz_errors = 0;
  LyType t = lyTypeParse(ctx, (const char *)data, size, NULL);
  if (lyTypeIsNull(t) && fz_errors == 0)
    fz_fail("parse failed without an error diagnostic");
  if (!lyTypeIsNull(t)) {
    if (fz_errors)
      fz_fail("parse succeeded after an error diagnostic");
    char *s = fz_check_round_trip(ctx, t);
    fz_check_queries(t, s);
    /* The same text again is the same object (interning). */
    if (!lyTypeEqual(t, lyTypeParse(ctx, (const char *)data, size, NULL)))
      fz_fail("'%s': parsing the same text twice gives two objects", s);
    lyStringFree(s);
  }
  lyContextDestroy(ctx);
  return 0;
}
