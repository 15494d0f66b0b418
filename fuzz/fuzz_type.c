/* fuzz_type: lyTypeParse (and lyTypeParseValue) on arbitrary bytes. Bad input must be a diagnostic
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
  /* lyTypeParseValue: a tensor is lyTypeParse's object; any other type it
   * accepts is not a tensor, prints as one line and parses back to itself. */
  int before = fz_errors;
  LyType v = lyTypeParseValue(ctx, (const char *)data, size, NULL);
  if (lyTypeIsNull(v) && fz_errors == before)
    fz_fail("lyTypeParseValue failed without an error diagnostic");
  if (!lyTypeIsNull(v) && !lyTypeIsNull(t) && !lyTypeEqual(v, t))
    fz_fail("lyTypeParseValue and lyTypeParse give two objects for one tensor type");
  if (!lyTypeIsNull(v) && lyTypeIsNull(t)) {
    char *s = lyTypeToString(v);
    if (lyTypeIsTensor(v) || !s || strpbrk(s, "\n\r") ||
        !lyTypeEqual(v, lyTypeParseValue(ctx, s, strlen(s), NULL)))
      fz_fail("'%s': a non-tensor type does not print back to itself", s ? s : "(null)");
    lyStringFree(s);
  }
  lyContextDestroy(ctx);
  return 0;
}
