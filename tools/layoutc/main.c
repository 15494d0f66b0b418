/* layoutc: the command-line driver. A thin layer over the public API: it
 * parses arguments, calls the library, prints results and picks the exit
 * status (0 ok, 1 bad input or impossible operation, 2 usage). */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutc/layoutc.h"

#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: layoutc <command> [args]\n"
    "\n"
    "commands:\n"
    "  describe TYPE [--json]        canonical type and its geometry\n"
    "  offset TYPE IDX [IDX ...]     element offset of each index (e.g. 1,2,3)\n"
    "  offset TYPE --all             offsets of all elements in row-major order\n"
    "\n"
    "TYPE is a tensor type such as 'tensor<2x20x3x3xf32, \"nChw16c\">'.\n";

static int usage(const char *msg) {
  if (msg)
    fprintf(stderr, "layoutc: %s\n", msg);
  fputs(usage_text, stderr);
  return EXIT_USAGE;
}

static LyContext new_context(void) {
  LyContext ctx = lyContextCreate();
  if (lyContextIsNull(ctx)) {
    fprintf(stderr, "layoutc: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  return ctx;
}

static LyType parse_type(LyContext ctx, const char *text) {
  return lyTypeParse(ctx, text, strlen(text), "<input>");
}

/* Reports an error located in a command-line argument, like the library
 * does for types. */
static void arg_error(const char *name, const char *text, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void arg_error(const char *name, const char *text, int col, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  LyDiagnostic d = {.severity = LY_SEVERITY_ERROR, .source_name = name, .line = 1, .column = col,
                    .source_line = text, .source_line_len = (int)strlen(text), .message = msg};
  lyDiagnosticPrintToFile(&d, stderr);
}

/* Parses a comma-separated list of non-negative integers ("1,2,3"). */
static int parse_list(const char *name, const char *text, int64_t *out, int max) {
  int n = 0;
  const char *s = text;
  if (!*s) {
    arg_error(name, text, 1, "expected a comma-separated list of integers");
    return -1;
  }
  for (;;) {
    const char *start = s;
    int64_t v = 0;
    if (*s < '0' || *s > '9') {
      arg_error(name, text, (int)(s - text) + 1, "expected a non-negative integer, found '%.1s'", *s ? s : " ");
      return -1;
    }
    for (; *s >= '0' && *s <= '9'; s++)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v)) {
        arg_error(name, text, (int)(start - text) + 1, "integer does not fit in 64 bits");
        return -1;
      }
    if (n == max) {
      arg_error(name, text, (int)(start - text) + 1, "more than %d entries", max);
      return -1;
    }
    out[n++] = v;
    if (!*s)
      return n;
    if (*s != ',') {
      arg_error(name, text, (int)(s - text) + 1, "expected ',' between integers, found '%c'", *s);
      return -1;
    }
    s++;
  }
}

static const char *status_text(LyStatus s) {
  switch (s) {
  case LY_ERROR_DYNAMIC: return "the type has dynamic ('?') dims, strides or offset";
  case LY_ERROR_ANY: return "the layout is 'any' (not chosen yet): it has no geometry";
  case LY_ERROR_RANGE: return "index out of range";
  case LY_ERROR_OVERFLOW: return "size overflows 64 bits";
  case LY_ERROR_UNKNOWN: return "too large to decide";
  case LY_ERROR_NOMEM: return "out of memory";
  default: return "invalid";
  }
}

/* --- describe ----------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

typedef struct {
  char *type;
  int rank;
  LyStatus numel_s, alloc_s, bytes_s, inj_s, strides_s;
  int64_t numel, alloc, bytes, offset, strides[LY_MAX_RANK];
  int injective;
} Facts;

static void print_value(FILE *f, LyStatus s, int64_t v, int json) {
  if (s == LY_OK)
    fprintf(f, "%" PRId64, v);
  else
    fputs(json ? "null" : s == LY_ERROR_DYNAMIC ? "?" : "unknown", f);
}

static void print_dims(FILE *f, LyType t, int json) {
  fputc('[', f);
  for (int d = 0; d < lyTypeGetRank(t); d++) {
    int64_t v = lyTypeGetDim(t, d);
    fputs(d ? ", " : "", f);
    if (v == LY_DYNAMIC)
      fputs(json ? "null" : "?", f);
    else
      fprintf(f, "%" PRId64, v);
  }
  fputc(']', f);
}

static void print_strides(FILE *f, const Facts *x, int json) {
  if (x->strides_s != LY_OK) {
    fputs(json ? "null" : "none (not one stride per dim)", f);
    return;
  }
  fputc('[', f);
  for (int d = 0; d < x->rank; d++) {
    fputs(d ? ", " : "", f);
    print_value(f, x->strides[d] == LY_DYNAMIC ? LY_ERROR_DYNAMIC : LY_OK, x->strides[d], json);
  }
  fputc(']', f);
}

static void print_memspace(FILE *f, LyType t, int json) {
  int64_t num;
  const char *str;
  switch (lyTypeGetMemorySpace(t, &num, &str)) {
  case 0: fputs(json ? "null" : "default", f); break;
  case 1: fprintf(f, "%" PRId64, num); break;
  default: json_string(f, str); break;
  }
}

static int cmd_describe(int argc, char **argv) {
  int json = 0;
  const char *text = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!text)
      text = argv[i];
    else
      return usage("describe takes one type");
  }
  if (!text)
    return usage("describe needs a type");
  LyContext ctx = new_context();
  LyType t = parse_type(ctx, text);
  if (lyTypeIsNull(t)) {
    lyContextDestroy(ctx);
    return EXIT_BAD_INPUT;
  }
  Facts x = {.rank = lyTypeGetRank(t)};
  x.type = lyTypeToString(t);
  x.numel_s = lyTypeGetNumel(t, &x.numel);
  x.alloc_s = lyTypeGetAllocElements(t, &x.alloc);
  x.bytes_s = lyTypeGetSizeBytes(t, &x.bytes);
  x.inj_s = lyTypeIsInjective(t, &x.injective);
  x.strides_s = lyTypeGetStrides(t, x.strides, &x.offset);
  if (!x.type) {
    fprintf(stderr, "layoutc: out of memory\n");
    lyContextDestroy(ctx);
    return EXIT_BAD_INPUT;
  }
  FILE *f = stdout;
  LyElem e = lyTypeGetElement(t);
  const char *tf[] = {"false", "true"};
  if (json) {
    fputs("{\"type\": ", f);
    json_string(f, x.type);
    fprintf(f, ", \"rank\": %d, \"dims\": ", x.rank);
    print_dims(f, t, 1);
    fprintf(f, ", \"element\": \"%s\", \"element_bits\": %d, \"memory_space\": ", lyElemGetName(e), lyElemGetBits(e));
    print_memspace(f, t, 1);
    fprintf(f, ", \"layout_any\": %s, \"numel\": ", tf[lyTypeIsAny(t)]);
    print_value(f, x.numel_s, x.numel, 1);
    fputs(", \"alloc_elements\": ", f);
    print_value(f, x.alloc_s, x.alloc, 1);
    fputs(", \"size_bytes\": ", f);
    print_value(f, x.bytes_s, x.bytes, 1);
    fprintf(f, ", \"contiguous\": %s, \"injective\": %s, \"dynamic\": %s, \"strides\": ",
            tf[lyTypeIsContiguous(t)], x.inj_s == LY_OK ? tf[x.injective] : "null", tf[lyTypeIsDynamic(t)]);
    print_strides(f, &x, 1);
    fputs(", \"offset\": ", f);
    print_value(f, x.strides_s == LY_OK && x.offset != LY_DYNAMIC ? LY_OK : LY_ERROR_DYNAMIC, x.offset, 1);
    fprintf(f, ", \"hash\": \"0x%016" PRIx64 "\"}\n", lyTypeGetHash(t));
  } else {
    fprintf(f, "%s\nrank: %d\ndims: ", x.type, x.rank);
    print_dims(f, t, 0);
    fprintf(f, "\nelement: %s\nelement_bits: %d\nmemory_space: ", lyElemGetName(e), lyElemGetBits(e));
    print_memspace(f, t, 0);
    fputs(lyTypeIsAny(t) ? "\nlayout: any (not chosen yet)" : "", f);
    fputs("\nnumel: ", f);
    print_value(f, x.numel_s, x.numel, 0);
    fputs("\nalloc_elements: ", f);
    print_value(f, x.alloc_s, x.alloc, 0);
    fputs("\nsize_bytes: ", f);
    print_value(f, x.bytes_s, x.bytes, 0);
    fprintf(f, "\ncontiguous: %s\ninjective: %s\ndynamic: %s\nstrides: ", tf[lyTypeIsContiguous(t)],
            x.inj_s == LY_OK ? tf[x.injective] : "unknown", tf[lyTypeIsDynamic(t)]);
    print_strides(f, &x, 0);
    if (x.strides_s == LY_OK) {
      fputs("\noffset: ", f);
      print_value(f, x.offset == LY_DYNAMIC ? LY_ERROR_DYNAMIC : LY_OK, x.offset, 0);
    }
    fprintf(f, "\nhash: 0x%016" PRIx64 "\n", lyTypeGetHash(t));
  }
  lyStringFree(x.type);
  lyContextDestroy(ctx);
  return 0;
}

/* --- offset ------------------------------------------------------------- */

static int check_geometry(LyType t, const char *text) {
  int64_t a;
  LyStatus s = lyTypeGetAllocElements(t, &a);
  if (s != LY_OK) {
    arg_error("<input>", text, 1, "cannot compute offsets: %s", status_text(s));
    return 0;
  }
  return 1;
}

static int cmd_offset(int argc, char **argv) {
  if (argc < 2)
    return usage("offset needs a type and indices (or --all)");
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
    if (!strcmp(argv[i], "--all")) {
      rc = usage("--all cannot be combined with indices");
      goto done;
    }
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

int main(int argc, char **argv) {
  if (argc < 2)
    return usage(NULL);
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (!strcmp(cmd, "describe"))
    return cmd_describe(argc - 2, argv + 2);
  if (!strcmp(cmd, "offset"))
    return cmd_offset(argc - 2, argv + 2);
  fprintf(stderr, "layoutc: unknown command '%s'\n", cmd);
  return usage(NULL);
}
