/* layoutc offset: element offsets of given indices, or of all elements;
 * one per line, or with --json one object {"type", "offsets"}. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static bool check_geometry(LyType t, const Args *a) {
  int64_t n;
  LyStatus s = lyTypeGetAllocElements(t, &n);
  if (s != LY_OK) {
    arg_error(operand_name(a, 0), a->stdin_text && !strcmp(a->operand[0], "-") ? a->stdin_text : a->operand[0], 1,
              "cannot compute offsets: %s", status_text(s));
    return false;
  }
  return true;
}

static void put_offset(int64_t off, bool json, bool first) {
  if (json)
    printf("%s%" PRId64, first ? "" : ", ", off);
  else
    printf("%" PRId64 "\n", off);
}

static void all_offsets(LyType t, bool json) {
  int rank = lyTypeGetRank(t);
  int64_t idx[LY_MAX_RANK] = {0}, numel, off;
  lyTypeGetNumel(t, &numel);
  for (int64_t e = 0; e < numel; e++) {
    lyTypeGetOffset(t, idx, &off);
    put_offset(off, json, e == 0);
    for (int d = rank - 1; d >= 0; d--) {
      if (++idx[d] < lyTypeGetDim(t, d))
        break;
      idx[d] = 0;
    }
  }
}

/* Index operand i: parsed and range-checked; false after reporting. */
static bool read_index(const Args *a, int i, LyType t, int64_t *idx) {
  int rank = lyTypeGetRank(t);
  const char *name = operand_name(a, i), *text = a->operand[i];
  int n = rank == 0 && !*text ? 0 : parse_list(name, text, idx, LY_MAX_RANK);
  if (n < 0)
    return false;
  if (n != rank) {
    arg_error(name, text, 1, "index has %d components but the type has rank %d", n, rank);
    return false;
  }
  for (int d = 0, col = 1; d < rank; d++) {
    if (idx[d] >= lyTypeGetDim(t, d)) {
      arg_error(name, text, col, "index %" PRId64 " is out of range for dim %d of size %" PRId64, idx[d], d,
                lyTypeGetDim(t, d));
      return false;
    }
    col += snprintf(NULL, 0, "%" PRId64, idx[d]) + 1;
  }
  return true;
}

int cmd_offset(Args *a) {
  bool all = args_has(a, "--all"), json = args_has(a, "--json");
  if (all && a->noperands != 1)
    return usage_error(a->cmd, "--all cannot be combined with indices");
  if (!all && a->noperands < 2)
    return usage_error(a->cmd, "offset needs indices (or --all)");
  for (int i = 1; i < a->noperands; i++)
    if (!strcmp(a->operand[i], "-"))
      return usage_error(a->cmd, "an index cannot be read from stdin ('-')");
  LyContext ctx = new_context();
  LyType t = operand_type(ctx, a, 0);
  int rc = EXIT_BAD_INPUT;
  if (lyTypeIsNull(t) || !check_geometry(t, a))
    goto done;
  /* Every index is checked before anything is printed. */
  int64_t(*idx)[LY_MAX_RANK] = calloc((size_t)a->noperands, sizeof *idx);
  if (!idx) {
    driver_error("out of memory");
    goto done;
  }
  for (int i = 1; i < a->noperands; i++)
    if (!read_index(a, i, t, idx[i])) {
      free(idx);
      goto done;
    }
  if (json) {
    char *s = lyTypeToString(t);
    fputs("{\"type\": ", stdout);
    json_string(stdout, s ? s : "");
    fputs(", \"offsets\": [", stdout);
    lyStringFree(s);
  }
  if (all)
    all_offsets(t, json);
  for (int i = 1; i < a->noperands; i++) {
    int64_t off;
    lyTypeGetOffset(t, idx[i], &off);
    put_offset(off, json, i == 1);
  }
  if (json)
    fputs("]}\n", stdout);
  free(idx);
  rc = 0;
done:
  lyContextDestroy(ctx);
  return rc;
}
