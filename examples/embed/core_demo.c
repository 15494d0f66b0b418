/* The descriptor and views alone, from layoutc-core (no LLVM): offsets of a
 * blocked layout, a zero-copy view, and a reshape that needs a copy. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <layoutc/layoutc.h>

int main(void) {
  if (lyGetVersion() != LAYOUTC_VERSION) {
    fprintf(stderr, "header %d, library %d\n", LAYOUTC_VERSION, lyGetVersion());
    return 1;
  }
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  const char *s = "tensor<2x48x4x5xf32, \"nChw16c\">";
  LyType t = lyTypeParse(ctx, s, strlen(s), "core_demo");
  int64_t idx[] = {1, 17, 2, 1}, off = -1;
  if (lyTypeIsNull(t) || lyTypeGetOffset(t, idx, &off) != LY_OK)
    return 1;
  int64_t view_dims[] = {2, 3, 16, 4, 5}, copy_dims[] = {2, 4, 12, 4, 5};
  LyType v;
  LyStatus a = lyTypeTryReshape(ctx, t, 5, view_dims, &v);
  char *vs = a == LY_OK ? lyTypeToString(v) : NULL;
  LyStatus b = lyTypeTryReshape(ctx, t, 5, copy_dims, &v);
  printf("layoutc %s: offset(1,17,2,1) = %" PRId64 "\n", lyGetVersionString(), off);
  printf("reshape 2x3x16x4x5: %s\n", vs ? vs : lyStatusGetString(a));
  printf("reshape 2x4x12x4x5: %s\n", lyStatusGetString(b));
  lyStringFree(vs);
  lyContextDestroy(ctx);
  return off == 1457 && a == LY_OK && b == LY_ERROR_NOT_A_VIEW ? 0 : 1;
}
