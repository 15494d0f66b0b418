/* layoutc reshape | permute | slice | broadcast | squeeze | unsqueeze |
 * with-layout | equal: print the resulting type (with --json, describe's
 * object for it), or exit 1 with a diagnostic located in the operand the
 * failure is about. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

typedef enum { VIEW_RESHAPE, VIEW_PERMUTE, VIEW_SLICE, VIEW_BROADCAST, VIEW_SQUEEZE, VIEW_UNSQUEEZE } ViewKind;

/* 1-based column of entry i of a comma-separated list. */
static int entry_col(const char *text, int i) {
  const char *s = text;
  for (; i > 0 && *s; s++)
    i -= *s == ',';
  return (int)(s - text) + 1;
}

static int print_result(LyType v, const Args *a) {
  if (args_has(a, "--json"))
    return print_type_facts(stdout, v, true) ? 0 : EXIT_BAD_INPUT;
  char *s = lyTypeToString(v);
  if (!s) {
    driver_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  printf("%s\n", s);
  lyStringFree(s);
  return 0;
}

/* Operands 1.. are lists; a list operand cannot come from stdin. */
static int list_operands_usage(const Args *a) {
  for (int i = 1; i < a->noperands; i++)
    if (!strcmp(a->operand[i], "-"))
      return usage_error(a->cmd, "operand %d is a list, not a type: it cannot be read from stdin ('-')", i + 1);
  return 0;
}

/* Checks a list's length against the rank; false after reporting. */
static bool check_rank(const Args *a, int i, int n, int want) {
  if (n == want)
    return true;
  arg_error(operand_name(a, i), a->operand[i], 1, "expected %d entr%s (the rank), found %d", want,
            want == 1 ? "y" : "ies", n);
  return false;
}

static LyType apply_view(ViewKind kind, LyContext ctx, LyType t, const Args *a, int64_t *x, int nx, int64_t *y) {
  int rank = lyTypeGetRank(t);
  switch (kind) {
  case VIEW_RESHAPE:
    return args_has(a, "--strided") ? lyTypeReshapeStrided(ctx, t, nx, x) : lyTypeReshape(ctx, t, nx, x);
  case VIEW_PERMUTE: {
    int perm[LY_MAX_RANK];
    for (int i = 0; i < nx; i++) {
      if (x[i] >= rank) {
        arg_error(operand_name(a, 1), a->operand[1], entry_col(a->operand[1], i),
                  "permutation entry %" PRId64 " is out of range 0..%d", x[i], rank - 1);
        return (LyType){NULL};
      }
      perm[i] = (int)x[i];
    }
    return lyTypePermute(ctx, t, perm);
  }
  case VIEW_SLICE: return lyTypeSlice(ctx, t, x, y);
  case VIEW_BROADCAST: return lyTypeBroadcast(ctx, t, nx, x);
  case VIEW_SQUEEZE:
  case VIEW_UNSQUEEZE:
    if (x[0] > LY_MAX_RANK) {
      arg_error(operand_name(a, 1), a->operand[1], 1, "dim %" PRId64 " is out of range for rank %d", x[0], rank);
      return (LyType){NULL};
    }
    return kind == VIEW_SQUEEZE ? lyTypeSqueeze(ctx, t, (int)x[0]) : lyTypeUnsqueeze(ctx, t, (int)x[0]);
  }
  return (LyType){NULL};
}

static int run_view(ViewKind kind, Args *a) {
  int rc = list_operands_usage(a);
  if (rc)
    return rc;
  LyContext ctx = new_context();
  rc = EXIT_BAD_INPUT;
  LyType t = operand_type(ctx, a, 0), v = {NULL};
  int64_t x[LY_MAX_RANK], y[LY_MAX_RANK];
  int nx = 0, ny = 0, max = kind == VIEW_SQUEEZE || kind == VIEW_UNSQUEEZE ? 1 : LY_MAX_RANK;
  if (lyTypeIsNull(t) || (nx = parse_list(operand_name(a, 1), a->operand[1], x, max)) < 0 ||
      (kind == VIEW_SLICE && (ny = parse_list(operand_name(a, 2), a->operand[2], y, LY_MAX_RANK)) < 0))
    goto done;
  int rank = lyTypeGetRank(t);
  if ((kind == VIEW_PERMUTE || kind == VIEW_SLICE) && !check_rank(a, 1, nx, rank))
    goto done;
  if (kind == VIEW_SLICE && !check_rank(a, 2, ny, rank))
    goto done;
  /* What the library cannot place: the type when its geometry is missing,
   * else the request the layout cannot serve. */
  diag_focus(a, lyTypeIsAny(t) || lyTypeIsDynamic(t) ? 0 : 1);
  v = apply_view(kind, ctx, t, a, x, nx, y);
  if (!lyTypeIsNull(v))
    rc = print_result(v, a);
done:
  lyContextDestroy(ctx);
  return rc;
}

int cmd_reshape(Args *a) { return run_view(VIEW_RESHAPE, a); }
int cmd_permute(Args *a) { return run_view(VIEW_PERMUTE, a); }
int cmd_slice(Args *a) { return run_view(VIEW_SLICE, a); }
int cmd_broadcast(Args *a) { return run_view(VIEW_BROADCAST, a); }
int cmd_squeeze(Args *a) { return run_view(VIEW_SQUEEZE, a); }
int cmd_unsqueeze(Args *a) { return run_view(VIEW_UNSQUEEZE, a); }

int cmd_with_layout(Args *a) {
  if (!strcmp(a->operand[1], "-"))
    return usage_error(a->cmd, "the layout cannot be read from stdin ('-')");
  LyContext ctx = new_context();
  int rc = EXIT_BAD_INPUT;
  LyType t = operand_type(ctx, a, 0);
  if (!lyTypeIsNull(t)) {
    diag_focus_layout(a, 1);
    LyType v = lyTypeWithLayout(ctx, t, a->operand[1]);
    if (!lyTypeIsNull(v))
      rc = print_result(v, a);
  }
  lyContextDestroy(ctx);
  return rc;
}

int cmd_equal(Args *a) {
  LyContext ctx = new_context();
  LyType x = operand_type(ctx, a, 0), y = lyTypeIsNull(x) ? x : operand_type(ctx, a, 1);
  int rc = EXIT_BAD_INPUT;
  if (!lyTypeIsNull(y)) {
    bool eq = lyTypeEqual(x, y);
    if (args_has(a, "--json")) {
      char *s = lyTypeToString(x), *u = lyTypeToString(y);
      fputs("{\"equal\": ", stdout);
      fputs(eq ? "true" : "false", stdout);
      fputs(", \"a\": ", stdout);
      json_string(stdout, s ? s : "");
      fputs(", \"b\": ", stdout);
      json_string(stdout, u ? u : "");
      fputs("}\n", stdout);
      lyStringFree(s);
      lyStringFree(u);
    } else {
      puts(eq ? "equal" : "not equal");
    }
    rc = eq ? 0 : 1;
  }
  lyContextDestroy(ctx);
  return rc;
}
