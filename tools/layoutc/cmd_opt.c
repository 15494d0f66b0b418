/* layoutc opt: parses a module of functions, verifies it, runs the passes
 * named on the command line in order (verifying after each) and prints the
 * result, like mlir-opt. With --split-input-file each `// -----` chunk is a
 * module of its own; with --verify-diagnostics the diagnostics are checked
 * against the chunk's expected-* annotations instead of printed. With
 * --dump-pbqp=FILE, assign-layouts writes the PBQP of each function and
 * its answer to FILE (docs/passes.md). */
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
  unsigned flags; /* LyPassFlags */
  unsigned print_flags; /* LyPrintFlags */
} OptArgs;

static void write_piece(const char *piece, size_t len, void *file) { fwrite(piece, 1, len, file); }

static bool is_pass(const char *name) {
  for (int i = 0; i < lyPassGetCount(); i++)
    if (!strcmp(lyPassGetName(i), name))
      return true;
  return false;
}

/* Returns 0, or the usage exit status after reporting. */
static int parse_args(int argc, char **argv, OptArgs *a) {
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--split-input-file")) {
      a->split = true;
    } else if (!strcmp(s, "--verify-diagnostics")) {
      a->verify = true;
    } else if (!strcmp(s, "--print-ir-after-all")) {
      a->print_after_all = true;
    } else if (!strncmp(s, "--emit=", 7)) {
      /* --emit=mlir: the form mlir-opt prints (docs/ir.md §5) */
      if (!strcmp(s + 7, "mlir"))
        a->print_flags = LY_PRINT_MLIR;
      else if (strcmp(s + 7, "layoutc"))
        return usage("opt: --emit= takes mlir or layoutc");
    } else if (!strcmp(s, "--debug-reasons")) {
      a->flags |= LY_PASS_EXPLAIN;
    } else if (!strcmp(s, "--strided-views")) {
      a->flags |= LY_PASS_STRIDED_VIEWS;
    } else if (!strncmp(s, "--assign-layouts=", 17)) {
      /* The pass's baselines (docs/passes.md): same pass, other solver. */
      const char *mode = s + 17;
      if (!strcmp(mode, "greedy"))
        a->flags |= LY_PASS_ASSIGN_GREEDY;
      else if (!strcmp(mode, "row-major"))
        a->flags |= LY_PASS_ASSIGN_ROW_MAJOR;
      else if (strcmp(mode, "exact"))
        return usage("opt: --assign-layouts= takes exact, greedy or row-major");
      if (a->npasses == MAX_PASSES)
        return usage("opt: too many passes");
      a->passes[a->npasses++] = "assign-layouts";
    } else if (!strncmp(s, "--dump-pbqp=", 12)) {
      if (!s[12])
        return usage("opt: --dump-pbqp= needs a file");
      a->dump_path = s + 12;
    } else if (!strcmp(s, "-o")) {
      if (i + 1 == argc)
        return usage("opt: -o needs a file");
      a->out_path = argv[++i];
    } else if (!strncmp(s, "--", 2) && is_pass(s + 2)) {
      if (a->npasses == MAX_PASSES)
        return usage("opt: too many passes");
      a->passes[a->npasses++] = s + 2;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "layoutc: opt: unknown option '%s'\n", s);
      return usage(NULL);
    } else if (a->path) {
      return usage("opt takes one file");
    } else {
      a->path = s;
    }
  }
  if (!a->path)
    return usage("opt needs a file ('-' for stdin)");
  bool assigns = false;
  for (int i = 0; i < a->npasses; i++)
    assigns |= !strcmp(a->passes[i], "assign-layouts");
  if (a->dump_path && !assigns)
    return usage("opt: --dump-pbqp= needs --assign-layouts: that pass builds the PBQP");
  return 0;
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
    fprintf(stderr, "layoutc: out of memory\n");
    return NULL;
  }
  *n = 1;
  chunks[0] = (Chunk){text, len, 1};
  if (a->split && (*n = split_input(text, len, chunks, MAX_CHUNKS)) < 0) {
    fprintf(stderr, "layoutc: too many chunks in '%s'\n", a->path);
    free(chunks);
    return NULL;
  }
  return chunks;
}

int cmd_opt(int argc, char **argv) {
  OptArgs a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc)
    return rc;
  size_t len;
  char *text = read_file(a.path, &len);
  int n = 0;
  Chunk *chunks = text ? chunks_of(&a, text, len, &n) : NULL;
  FILE *out = a.out_path ? fopen(a.out_path, "w") : stdout;
  FILE *dump = a.dump_path ? fopen(a.dump_path, "w") : NULL;
  if (!chunks || !out || (a.dump_path && !dump)) {
    if (!out || (a.dump_path && !dump))
      fprintf(stderr, "layoutc: cannot open '%s' for writing\n", !out ? a.out_path : a.dump_path);
    if (out && out != stdout)
      fclose(out);
    if (dump)
      fclose(dump);
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
  if (out != stdout && fclose(out) != 0) {
    fprintf(stderr, "layoutc: error writing '%s'\n", a.out_path);
    failures++;
  }
  if (dump && fclose(dump) != 0) {
    fprintf(stderr, "layoutc: error writing '%s'\n", a.dump_path);
    failures++;
  }
  free(chunks);
  free(text);
  return failures ? EXIT_BAD_INPUT : 0;
}
