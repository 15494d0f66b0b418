/* layoutc reshape | permute | slice | broadcast: print the view's type, or
 * exit 1 with the reason no view exists. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

typedef enum { VIEW_RESHAPE, VIEW_PERMUTE, VIEW_SLICE, VIEW_BROADCAST } ViewKind;

/* 1-based column of entry i of a comma-separated list. */
static int entry_col(const char *text, int i) {
  const char *s = text;
  for (; i > 0 && *s; s++)
    i -= *s == ',';
  return (int)(s - text) + 1;
}

static int run_view(ViewKind kind, int argc, char **argv) {
  static const char *const names[] = {"reshape", "permute", "slice", "broadcast"};
  bool strided = false;
  if (kind == VIEW_RESHAPE && argc > 0 && !strcmp(argv[argc - 1], "--strided"))
    strided = true, argc--;
  int want = kind == VIEW_SLICE ? 3 : 2;
  if (argc != want) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s takes a type and %s", names[kind],
             kind == VIEW_SLICE ? "offsets and sizes" : kind == VIEW_PERMUTE ? "a permutation" : "dims");
    return usage(msg);
  }
  LyContext ctx = new_context();
  int rc = EXIT_BAD_INPUT;
  LyType t = parse_type(ctx, argv[0]);
  int64_t a[LY_MAX_RANK], b[LY_MAX_RANK];
  int na = 0, nb = 0;
  if (lyTypeIsNull(t) || (na = parse_list("<arg 2>", argv[1], a, LY_MAX_RANK)) < 0 ||
      (kind == VIEW_SLICE && (nb = parse_list("<arg 3>", argv[2], b, LY_MAX_RANK)) < 0))
    goto done;
  int rank = lyTypeGetRank(t);
  if ((kind == VIEW_PERMUTE || kind == VIEW_SLICE) && na != rank) {
    arg_error("<arg 2>", argv[1], 1, "expected %d entries (the rank), found %d", rank, na);
    goto done;
  }
  if (kind == VIEW_SLICE && nb != rank) {
    arg_error("<arg 3>", argv[2], 1, "expected %d entries (the rank), found %d", rank, nb);
    goto done;
  }
  LyType v = {NULL};
  switch (kind) {
  case VIEW_RESHAPE:
    v = strided ? lyTypeReshapeStrided(ctx, t, na, a) : lyTypeReshape(ctx, t, na, a);
    break;
  case VIEW_PERMUTE: {
    int perm[LY_MAX_RANK];
    for (int i = 0; i < na; i++) {
      if (a[i] >= rank) {
        arg_error("<arg 2>", argv[1], entry_col(argv[1], i), "permutation entry %" PRId64 " is out of range 0..%d",
                  a[i], rank - 1);
        goto done;
      }
      perm[i] = (int)a[i];
    }
    v = lyTypePermute(ctx, t, perm);
    break;
  }
  case VIEW_SLICE:
    v = lyTypeSlice(ctx, t, a, b);
    break;
  case VIEW_BROADCAST:
    v = lyTypeBroadcast(ctx, t, na, a);
    break;
  }
  if (lyTypeIsNull(v))
    goto done;
  char *s = lyTypeToString(v);
  if (s)
    printf("%s\n", s);
  lyStringFree(s);
  rc = s ? 0 : EXIT_BAD_INPUT;
done:
  lyContextDestroy(ctx);
  return rc;
}

int cmd_reshape(int argc, char **argv) { return run_view(VIEW_RESHAPE, argc, argv); }
int cmd_permute(int argc, char **argv) { return run_view(VIEW_PERMUTE, argc, argv); }
int cmd_slice(int argc, char **argv) { return run_view(VIEW_SLICE, argc, argv); }
int cmd_broadcast(int argc, char **argv) { return run_view(VIEW_BROADCAST, argc, argv); }
