/* layoutc: the command-line driver. A thin layer over the public API: it
 * parses arguments, calls the library, prints results and picks the exit
 * status (0 ok, 1 bad input or impossible operation, 2 usage). */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_codegen.h"
#include "driver.h"

static const char usage_text[] =
    "usage: layoutc <command> [args]\n"
    "\n"
    "commands:\n"
    "  describe TYPE [--json]        canonical type and its geometry\n"
    "  offset TYPE IDX [IDX ...]     element offset of each index (e.g. 1,2,3)\n"
    "  offset TYPE --all             offsets of all elements in row-major order\n"
    "  parse FILE [--split-input-file] [--verify-diagnostics]\n"
    "                                canonical spelling of each type in FILE ('-': stdin)\n"
    "  opt FILE [--legalize-reshapes] [--split-input-file] [--verify-diagnostics]\n"
    "      [--assign-layouts[=exact|greedy|row-major]] [--dump-pbqp=FILE]\n"
    "      [--print-ir-after-all] [--debug-reasons] [--strided-views] [-o OUT]\n"
    "                                verify FILE's functions, run the passes in order, print\n"
    "  reshape TYPE DIMS [--strided] the zero-copy view with new dims (row-major order kept);\n"
    "                                --strided: only views with one stride per dim (NumPy)\n"
    "  permute TYPE PERM             the view with dim i moved to PERM[i]\n"
    "  slice TYPE OFFSETS SIZES      the view of a box\n"
    "  broadcast TYPE DIMS           the view broadcast to DIMS (NumPy rules, stride 0)\n"
    "  repack SRC DST -i IN -o OUT   repack raw bytes from SRC's layout into DST's [--threads N] [--interpret]\n"
    "  repack SRC DST --bench        time the kernel; last line throughput_gbps: X [--threads N] [--iters K]\n"
    "  repack SRC DST --plan         print the kernel's loop plan\n"
    "  emit-llvm TYPE                LLVM IR of the address function [--with-main] [-O]\n"
    "  emit-llvm --repack SRC DST    LLVM IR of the repack kernel [--with-main] [-O]\n"
    "\n"
    "TYPE is a tensor type such as 'tensor<2x20x3x3xf32, \"nChw16c\">'.\n";

int usage(const char *msg) {
  if (msg)
    fprintf(stderr, "layoutc: %s\n", msg);
  fputs(usage_text, stderr);
  return EXIT_USAGE;
}

LyContext new_context(void) {
  LyContext ctx = lyContextCreate();
  if (lyContextIsNull(ctx)) {
    fprintf(stderr, "layoutc: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  lyContextSetDiagnosticHandler(ctx, lyDiagnosticPrintToFile, stderr);
  return ctx;
}

LyType parse_type(LyContext ctx, const char *text) {
  LyType t = lyTypeParse(ctx, text, strlen(text), "<input>");
  if (lyTypeIsNull(t))
    return t;
  /* Every type the driver sees is round-tripped through the printer: the
   * canonical spelling must parse back to the same interned object. This is
   * how the whole lit suite checks the printer. */
  char *s = lyTypeToString(t);
  if (!s) {
    fprintf(stderr, "layoutc: out of memory\n");
    exit(EXIT_BAD_INPUT);
  }
  LyType back = lyTypeParse(ctx, s, strlen(s), "<printed>");
  if (!lyTypeEqual(t, back)) {
    fprintf(stderr, "layoutc internal error: '%s' does not parse back to the same type\n", s);
    abort();
  }
  lyStringFree(s);
  return t;
}

/* Reports an error located in a command-line argument, like the library
 * does for types. */
void arg_error(const char *name, const char *text, int col, const char *fmt, ...) {
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
int parse_list(const char *name, const char *text, int64_t *out, int max) {
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

const char *status_text(LyStatus s) {
  switch (s) {
  case LY_ERROR_DYNAMIC: return "the type has dynamic ('?') dims, strides or offset";
  case LY_ERROR_ANY: return "the layout is 'any' (not chosen yet): it has no geometry";
  case LY_ERROR_OPAQUE: return "the layout is opaque (layoutc does not interpret it): it has no geometry";
  case LY_ERROR_RANGE: return "index out of range";
  case LY_ERROR_OVERFLOW: return "size overflows 64 bits";
  case LY_ERROR_UNKNOWN: return "too large to decide";
  case LY_ERROR_NOMEM: return "out of memory";
  default: return "invalid";
  }
}

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} commands[] = {
    {"describe", cmd_describe},
    {"offset", cmd_offset},
    {"parse", cmd_parse},
    {"reshape", cmd_reshape},
    {"permute", cmd_permute},
    {"slice", cmd_slice},
    {"broadcast", cmd_broadcast},
    {"opt", cmd_opt},
    {"repack", cmd_repack},
    {"emit-llvm", cmd_emit_llvm},
};

/* Output that could not be written (a full disk, a closed pipe) is a
 * failure, whatever the command computed. */
static int finish_output(int status) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "layoutc: error: cannot write the output: %s\n", strerror(errno));
    return status ? status : EXIT_BAD_INPUT;
  }
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage(NULL);
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    fputs(usage_text, stdout);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i].name))
      return finish_output(commands[i].run(argc - 2, argv + 2));
  fprintf(stderr, "layoutc: unknown command '%s'\n", cmd);
  return usage(NULL);
}
