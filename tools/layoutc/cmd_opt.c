/* layoutc opt: parses a module of functions, verifies it, runs the passes
 * named on the command line in order (verifying after each) and prints the
 * result, like mlir-opt. With --split-input-file each `// -----` chunk is a
 * module of its own; with --verify-diagnostics the diagnostics are checked
 * against the chunk's expected-* annotations instead of printed. With
 * --emit=mlir the result is printed as mlir-opt prints it (docs/ir.md §5);
 * with --dump-pbqp=FILE, assign-layouts writes the PBQP of each function
 * and its answer to FILE (docs/passes.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "layoutc/ir.h"

#define MAX_CHUNKS 100000
#define MAX_PASSES 64

typedef struct {
  const char *path, *out_path, *dump_path;
  const char *passes[MAX_PASSES];
  int npasses;
  bool split, verify, print_after_all;
  unsigned flags;       /* LyPassFlags */
  unsigned print_flags; /* LyPrintFlags */
} OptArgs;

static void write_piece(const char *piece, size_t len, void *file) { fwrite(piece, 1, len, file); }

static bool is_pass(const char *name) {
  for (int i = 0; i < lyPassGetCount(); i++)
    if (!strcmp(lyPassGetName(i), name))
      return true;
  return false;
}

/* Fills a from the parsed options, in order (passes run in the order
 * given). Returns 0, or the usage exit status after reporting. */
static int opt_args(const Args *in, OptArgs *a) {
  a->path = in->noperands ? in->operand[0] : NULL;
  a->out_path = args_value(in, "-o");
  a->split = args_has(in, "--split-input-file");
  a->verify = args_has(in, "--verify-diagnostics");
  a->print_after_all = args_has(in, "--print-ir-after-all");
  a->flags |= args_has(in, "--debug-reasons") ? LY_PASS_EXPLAIN : 0;
  a->flags |= args_has(in, "--strided-views") ? LY_PASS_STRIDED_VIEWS : 0;
  a->dump_path = args_value(in, "--dump-pbqp");
  const char *emit = args_value(in, "--emit");
  if (emit && !strcmp(emit, "mlir"))
    a->print_flags = LY_PRINT_MLIR;
  else if (emit && strcmp(emit, "layoutc"))
    return usage_error(in->cmd, "--emit= takes mlir or layoutc, not '%s'", emit);
  if (a->dump_path && !*a->dump_path)
    return usage_error(in->cmd, "--dump-pbqp= needs a file");
  for (int i = 0; i < in->nseen; i++) {
    const char *name = in->seen[i].name, *mode = in->seen[i].value;
    if (!strcmp(name, "--assign-layouts")) {
      /* The pass's baselines (docs/passes.md): same pass, other solver. */
      if (mode && !strcmp(mode, "greedy"))
        a->flags |= LY_PASS_ASSIGN_GREEDY;
      else if (mode && !strcmp(mode, "row-major"))
        a->flags |= LY_PASS_ASSIGN_ROW_MAJOR;
      else if (mode && strcmp(mode, "exact"))
        return usage_error(in->cmd, "--assign-layouts= takes exact, greedy or row-major, not '%s'", mode);
    } else if (!is_pass(name + 2)) {
      continue;
    }
    if (a->npasses == MAX_PASSES)
      return usage_error(in->cmd, "more than %d passes", MAX_PASSES);
    a->passes[a->npasses++] = name + 2;
  }
  if (!a->path)
    return usage_error(in->cmd, "opt needs a file ('-' for stdin)");
  bool assigns = false;
  for (int i = 0; i < a->npasses; i++)
    assigns |= !strcmp(a->passes[i], "assign-layouts");
  if (a->dump_path && !assigns)
    return usage_error(in->cmd, "--dump-pbqp= needs --assign-layouts: that pass builds the PBQP");
  return 0;
}

static void list_passes(void) {
  for (int i = 0; i < lyPassGetCount(); i++)
    printf("%-20s %s\n", lyPassGetName(i), lyPassGetSummary(i));
}

/* --print-ir-after-all, in MLIR's format. */
static void dump_ir(const char *pass, LyModule m) {
  fprintf(stderr, "// -----// IR Dump After %s //----- //\n", pass);
  lyModulePrint(m, write_piece, stderr);
}

/* The pipeline for one module: verify, then each pass followed by the
 * verifier, as MLIR's pass manager does. */
static bool run_pipeline(const OptArgs *a, LyModule m) {
  if (lyModuleVerify(m) != LY_OK)
    return false;
  for (int i = 0; i < a->npasses; i++) {
    if (lyModuleRunPass(m, a->passes[i], a->flags) != LY_OK)
      return false;
    if (a->print_after_all)
      dump_ir(a->passes[i], m);
    if (lyModuleVerify(m) != LY_OK) {
      fprintf(stderr, "layoutc: internal error: the IR does not verify after '%s'\n", a->passes[i]);
      return false;
    }
  }
  return true;
}

static bool run_chunk(const OptArgs *a, LyContext ctx, const Chunk *ch, const char *name, FILE *out, FILE *dump) {
  LyModule m = lyModuleParse(ctx, ch->text, ch->len, name);
  if (lyModuleIsNull(m))
    return false;
  if (dump)
    lyModuleSetPbqpDump(m, write_piece, dump);
  bool ok = run_pipeline(a, m);
  if (ok)
    lyModulePrintWithFlags(m, a->print_flags, write_piece, out);
  lyModuleDestroy(m);
  return ok;
}

/* Splits the input (or takes it whole); NULL after reporting. */
static Chunk *chunks_of(const OptArgs *a, const char *text, size_t len, int *n) {
  Chunk *chunks = malloc((a->split ? MAX_CHUNKS : 1) * sizeof *chunks);
  if (!chunks) {
    driver_error("out of memory");
    return NULL;
  }
  *n = 1;
  chunks[0] = (Chunk){text, len, 1};
  if (a->split && (*n = split_input(text, len, chunks, MAX_CHUNKS)) < 0) {
    driver_error("too many chunks in '%s'", a->path);
    free(chunks);
    return NULL;
  }
  return chunks;
}

int cmd_opt(Args *in) {
  if (args_has(in, "--list-passes")) {
    list_passes();
    return 0;
  }
  OptArgs a = {0};
  int rc = opt_args(in, &a);
  if (rc)
    return rc;
  size_t len;
  char *text = read_file(a.path, &len);
  int n = 0;
  Chunk *chunks = text ? chunks_of(&a, text, len, &n) : NULL;
  FILE *out = chunks ? open_output(a.out_path) : NULL;
  FILE *dump = out && a.dump_path ? open_output(a.dump_path) : NULL;
  if (!chunks || !out || (a.dump_path && !dump)) {
    if (out)
      close_output(out, a.out_path);
    free(chunks);
    free(text);
    return EXIT_BAD_INPUT;
  }
  const char *name = strcmp(a.path, "-") ? a.path : "<stdin>";
  Capture cap = {.verify = a.verify, .file_name = name};
  LyContext ctx = new_context();
  lyContextSetDiagnosticHandler(ctx, capture_handler, &cap);
  int failures = 0;
  for (int i = 0; i < n; i++) {
    if (i)
      fprintf(out, "// -----\n");
    cap.line_offset = chunks[i].first_line - 1;
    bool ok = run_chunk(&a, ctx, &chunks[i], name, out, dump);
    if (a.verify ? !verify_chunk(&chunks[i], &cap, name) : !ok)
      failures++;
  }
  capture_free(&cap);
  lyContextDestroy(ctx);
  if (dump && dump != out && !close_output(dump, a.dump_path))
    failures++;
  if (!close_output(out, a.out_path))
    failures++;
  free(chunks);
  free(text);
  return failures ? EXIT_BAD_INPUT : 0;
}
