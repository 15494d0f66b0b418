/* fuzz_blob: lyTypeDeserialize on arbitrary bytes, and blobs of parsed types.
 * A malformed blob must be an error diagnostic (never a crash, a leak or a
 * type); a blob that is accepted must be its type's own bytes. An input
 * that starts with 'T' is a type's text instead: its blob must read back to
 * the same object, in a fresh context to the same type (each context's print
 * of it parses in the other to the object there: the prints themselves may
 * differ, since a tiling the printer's search misses prints as spelled only
 * where it was spelled), and every shorter prefix of it must be refused. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

static void check_blob_of(LyContext ctx, LyType t) {
  size_t len;
  unsigned char *b = lyTypeSerialize(t, &len);
  if (!b)
    fz_fail("serialize failed");
  LyType u = lyTypeDeserialize(ctx, b, len, NULL);
  char *s = lyTypeToString(t);
  if (!lyTypeEqual(t, u))
    fz_fail("'%s': its blob reads back to another type", s);
  LyContext fresh = fz_context();
  LyType f = lyTypeDeserialize(fresh, b, len, NULL);
  char *s2 = lyTypeToString(f);
  if (!s2 || !lyTypeEqual(lyTypeParse(ctx, s2, strlen(s2), NULL), t) ||
      !lyTypeEqual(lyTypeParse(fresh, s, strlen(s), NULL), f))
    fz_fail("'%s': its blob reads as '%s' in a fresh context, another type", s, s2 ? s2 : "(null)");
  for (size_t n = 0; n < len; n++) {
    fz_errors = 0;
    if (!lyTypeIsNull(lyTypeDeserialize(fresh, b, n, NULL)) || !fz_errors)
      fz_fail("'%s': a %zu-byte prefix of its %zu-byte blob is accepted", s, n, len);
  }
  lyContextDestroy(fresh);
  lyStringFree(s2);
  lyStringFree(s);
  lyStringFree((char *)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LyContext ctx = fz_context();
  fz_errors = 0;
  if (size && data[0] == 'T') {
    LyType t = lyTypeParse(ctx, (const char *)data + 1, size - 1, NULL);
    if (!lyTypeIsNull(t))
      check_blob_of(ctx, t);
  } else {
    LyType t = lyTypeDeserialize(ctx, data, size, NULL);
    if (lyTypeIsNull(t) != (fz_errors != 0))
      fz_fail("deserialize: a null handle must come with an error diagnostic, and only then");
    if (!lyTypeIsNull(t)) {
      size_t len;
      unsigned char *b = lyTypeSerialize(t, &len);
      if (!b || len != size || memcmp(b, data, size))
        fz_fail("an accepted blob is not its type's own bytes");
      lyStringFree((char *)b);
      char *s = fz_check_round_trip(ctx, t);
      fz_check_queries(t, s);
      lyStringFree(s);
    }
  }
  lyContextDestroy(ctx);
  return 0;
}
