/* layoutc offset: element offsets of given indices, or of all elements. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static int check_geometry(LyType t, const char *text) {
  int64_t a;
  LyStatus s = lyTypeGetAllocElements(t, &a);
  if (s != LY_OK) {
    arg_error("<input>", text, 1, "cannot compute offsets: %s", status_text(s));
    return 0;
  }
  return 1;
}

int cmd_offset(int argc, char **argv) {
  if (argc < 2)
    return usage("offset needs a type and indices (or --all)");
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--all") && argc != 2)
      return usage("--all cannot be combined with indices");
  LyContext ctx = new_context();
  LyType t = parse_type(ctx, argv[0]);
  int rc = EXIT_BAD_INPUT;
  if (lyTypeIsNull(t) || !check_geometry(t, argv[0]))
    goto done;
  int rank = lyTypeGetRank(t);
  int64_t idx[LY_MAX_RANK], off;
  if (argc == 2 && !strcmp(argv[1], "--all")) {
    int64_t numel;
    lyTypeGetNumel(t, &numel);
    memset(idx, 0, sizeof idx);
    for (int64_t e = 0; e < numel; e++) {
      lyTypeGetOffset(t, idx, &off);
      printf("%" PRId64 "\n", off);
      for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < lyTypeGetDim(t, d))
          break;
        idx[d] = 0;
      }
    }
    rc = 0;
    goto done;
  }
  for (int i = 1; i < argc; i++) {
    char name[32];
    snprintf(name, sizeof name, "<index %d>", i);
    int n = rank == 0 && !strcmp(argv[i], "") ? 0 : parse_list(name, argv[i], idx, LY_MAX_RANK);
    if (n < 0)
      goto done;
    if (n != rank) {
      arg_error(name, argv[i], 1, "index has %d components but the type has rank %d", n, rank);
      goto done;
    }
    for (int d = 0, col = 1; d < rank; d++) {
      if (idx[d] >= lyTypeGetDim(t, d)) {
        arg_error(name, argv[i], col, "index %" PRId64 " is out of range for dim %d of size %" PRId64, idx[d], d,
                  lyTypeGetDim(t, d));
        goto done;
      }
      col += snprintf(NULL, 0, "%" PRId64, idx[d]) + 1;
    }
    lyTypeGetOffset(t, idx, &off);
    printf("%" PRId64 "\n", off);
  }
  rc = 0;
done:
  lyContextDestroy(ctx);
  return rc;
}

