/* layoutc: the command-line driver. A thin layer over the public API: one
 * command table drives dispatch, `help`, the bash completion and "did you
 * mean"; the exit status is 0 ok, 1 bad input or impossible operation, 2
 * usage (SPEC §4). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "layoutc/ir.h"

static const OptSpec json_only[] = {{"--json", OPT_FLAG, "one JSON object (describe --json's shape)"}, {NULL}};
static const OptSpec no_opts[] = {{NULL}};
static const OptSpec describe_opts[] = {{"--json", OPT_FLAG, "one JSON object"},
                                        {"--blob", OPT_VALUE, "describe the type a blob file holds (layoutc blob)"},
                                        {NULL}};
static const OptSpec blob_opts[] = {{"-o", OPT_VALUE, "the blob file to write"}, {NULL}};
static const OptSpec equal_opts[] = {{"--json", OPT_FLAG, "{\"equal\": true|false, \"a\": ..., \"b\": ...}"}, {NULL}};
static const OptSpec offset_opts[] = {
    {"--all", OPT_FLAG, "the offsets of all elements in row-major logical order"},
    {"--json", OPT_FLAG, "{\"type\": ..., \"offsets\": [...]}"},
    {NULL}};
static const OptSpec reshape_opts[] = {
    {"--strided", OPT_FLAG, "only views with one stride per dim (MLIR memref, NumPy)"},
    {"--json", OPT_FLAG, "the view as one JSON object (describe --json's shape)"},
    {NULL}};
static const OptSpec parse_opts[] = {
    {"--split-input-file", OPT_FLAG, "each `// -----` chunk is a type of its own"},
    {"--verify-diagnostics", OPT_FLAG, "check diagnostics against expected-error {{...}} notes"},
    {NULL}};
static const OptSpec opt_opts[] = {
    {"--split-input-file", OPT_FLAG, "each `// -----` chunk is a module of its own"},
    {"--verify-diagnostics", OPT_FLAG, "check diagnostics against expected-error {{...}} notes"},
    {"--print-ir-after-all", OPT_FLAG, "print the IR to stderr after each pass"},
    {"--debug-reasons", OPT_FLAG, "explain each relayout and variant chosen"},
    {"--strided-views", OPT_FLAG, "legalize reshapes into strided views only"},
    {"--list-passes", OPT_FLAG, "print the passes, one per line, and exit"},
    {"--assign-layouts", OPT_OPTIONAL_VALUE, "run assign-layouts (=exact, the default; =greedy; =row-major)"},
    {"--emit", OPT_VALUE, "mlir: print as mlir-opt does (#layout.* attributes); layoutc: the default"},
    {"--dump-pbqp", OPT_VALUE, "with --assign-layouts: write each function's PBQP and its answer to a file ('-': stdout)"},
    {"-o", OPT_VALUE, "write the output to a file ('-': stdout)"},
    {NULL}};
static const OptSpec repack_opts[] = {
    {"-i", OPT_VALUE, "the input file (SRC's allocation, raw little-endian bytes)"},
    {"-o", OPT_VALUE, "the output file (DST's allocation)"},
    {"--bench", OPT_FLAG, "time the kernel; last line throughput_gbps: X"},
    {"--plan", OPT_FLAG, "print the kernel's loop plan"},
    {"--interpret", OPT_FLAG, "run the reference interpreter instead of the compiled kernel"},
    {"--threads", OPT_VALUE, "threads to run on (1..1024)"},
    {"--iters", OPT_VALUE, "benchmark iterations (1..1000000)"},
    {"--density", OPT_VALUE, "sparse and grouped --bench: the share of nonzeros (of padded rows), 0..1 (0.1)"},
    {NULL}};
static const OptSpec emit_opts[] = {
    {"--repack", OPT_FLAG, "the repack kernel of two types instead of an address function"},
    {"--with-main", OPT_FLAG, "add a main() that exercises the function"},
    {"-O", OPT_FLAG, "optimize the IR"},
    {NULL}};

static const OptSpec draw_opts[] = {
    {"-o", OPT_VALUE, "write the picture to a file (its format from .svg, .txt or .html)"},
    {"--format", OPT_VALUE, "svg (the default), txt (a table for the terminal) or html (the SVG in a page)"},
    {NULL}};

static int cmd_help(Args *a);
static int cmd_completion(Args *a);

static const char types_help[] =
    "TYPE is a tensor type such as 'tensor<2x20x3x3xf32, \"nChw16c\">'; '-' reads it from stdin\n"
    "and '--' ends the options. Diagnostics name operand N as <arg N>.\n";

static const char repack_help[] =
    "TYPE is a tensor type such as 'tensor<2x20x3x3xf32, \"nChw16c\">'; '-' reads it from stdin\n"
    "and '--' ends the options. Diagnostics name operand N as <arg N>.\n"
    "\n"
    "Multi-buffer encodings take one file per buffer, in the type's buffer order\n"
    "('layoutc describe' lists them); the dense side is the row-major tensor:\n"
    "  repack DENSE SPARSE -i IN -o BUF0 -o BUF1 ...    and back with -i per buffer, -o OUT\n"
    "  repack SPARSE1 SPARSE2 -i BUF... -o BUF...       sparse to sparse (CSR to CSC, COO, BSR...)\n"
    "  repack GROUPED PADDED -i OFFSETS -i VALUES -o PADDED\n"
    "  repack PADDED GROUPED -i OFFSETS -i PADDED -o VALUES\n"
    "PADDED is tensor<G x dims with the variable dim widened to P>, P at least the largest group.\n"
    "--bench on these times the conversion on synthetic data (--density D: the share of\n"
    "nonzeros, 0.1 by default; grouped: random group sizes) and prints its throughput and\n"
    "ratio_to_limit, against the streaming copy of the larger side.\n";

const Command commands[] = {
    {"describe", cmd_describe, "(TYPE | --blob FILE) [--json]", "the canonical type and its geometry", types_help,
     describe_opts, 0, 1},
    {"blob", cmd_blob, "TYPE -o FILE", "the type's binary form (versioned, little-endian), written to FILE",
     types_help, blob_opts, 1, 1},
    {"offset", cmd_offset, "TYPE (IDX... | --all) [--json]", "the element offset of each index (e.g. 1,2,3)",
     types_help, offset_opts, 1, -1},
    {"parse", cmd_parse, "FILE [--split-input-file] [--verify-diagnostics]",
     "the canonical spelling of each type in FILE ('-': stdin)", NULL, parse_opts, 1, 1},
    {"reshape", cmd_reshape, "TYPE DIMS [--strided] [--json]",
     "the zero-copy view with new dims (row-major element order kept)", types_help, reshape_opts, 2, 2},
    {"permute", cmd_permute, "TYPE PERM [--json]", "the view with dim i moved to PERM[i]", types_help, json_only, 2,
     2},
    {"slice", cmd_slice, "TYPE OFFSETS SIZES [--json]", "the view of a box", types_help, json_only, 3, 3},
    {"broadcast", cmd_broadcast, "TYPE DIMS [--json]", "the view broadcast to DIMS (NumPy rules, stride 0)",
     types_help, json_only, 2, 2},
    {"squeeze", cmd_squeeze, "TYPE DIM [--json]", "the view without extent-1 dim DIM", types_help, json_only, 2, 2},
    {"unsqueeze", cmd_unsqueeze, "TYPE DIM [--json]", "the view with an extent-1 dim inserted at DIM", types_help,
     json_only, 2, 2},
    {"with-layout", cmd_with_layout, "TYPE LAYOUT [--json]",
     "TYPE's dims and element with another layout (e.g. '\"nchw\"', 'strided<[1,4]>'; '' is row-major)",
     types_help, json_only, 2, 2},
    {"equal", cmd_equal, "A B [--json]",
     "whether two types are the same layout: prints equal or not equal; exit 0 equal, 1 not equal",
     "Exit status: 0 the types are equal, 1 they are not (stdout says 'not equal') or an operand\n"
     "does not parse (a diagnostic on stderr, nothing on stdout), 2 a usage error.\n",
     equal_opts, 2, 2},
    {"opt", cmd_opt, "FILE [PASS-OPTIONS] [-o OUT]",
     "verify FILE's functions, run the passes in the order given, print the result", NULL, opt_opts, 0, 1},
    {"repack", cmd_repack, "SRC DST (-i IN -o OUT | --bench | --plan) [--threads N]",
     "repack raw bytes from SRC's layout into DST's", repack_help, repack_opts, 2, 2},
    {"emit-llvm", cmd_emit_llvm, "TYPE | --repack SRC DST [--with-main] [-O]",
     "LLVM IR of the address function (or the repack kernel)", types_help, emit_opts, 1, 2},
    {"draw", cmd_draw, "TYPE [-o OUT] [--format=svg|txt|html]",
     "a picture: each element's offset on the logical grid colored by tile; memory in offset order",
     "Ranks 0 to 4 (3-D and 4-D as small multiples of 2-D grids), at most 4096 elements in 65536\n"
     "places. Tiles are the runs where a step along a dim moves the offset as the first step does.\n",
     draw_opts, 1, 1},
    {"help", cmd_help, "[COMMAND]", "the commands, or one command's usage and options", NULL, no_opts, 0, 1},
    {"completion", cmd_completion, "bash", "a bash completion script, generated from the command table", NULL,
     no_opts, 1, 1},
};
const int ncommands = sizeof commands / sizeof commands[0];

const Command *find_command(const char *name) {
  for (int i = 0; i < ncommands; i++)
    if (!strcmp(commands[i].name, name))
      return &commands[i];
  return NULL;
}

static void print_usage(FILE *f) {
  fputs("usage: layoutc <command> [args]\n       layoutc --version\n\ncommands:\n", f);
  for (int i = 0; i < ncommands; i++)
    fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fputs("\n'layoutc help COMMAND' or 'layoutc COMMAND --help' shows a command's usage and options.\n", f);
  fputs(types_help, f);
}

static int cmd_help(Args *a) {
  if (a->noperands == 0) {
    print_usage(stdout);
    return 0;
  }
  const Command *c = find_command(a->operand[0]);
  if (!c) {
    const char *names[64];
    for (int i = 0; i < ncommands; i++)
      names[i] = commands[i].name;
    const char *m = did_you_mean(a->operand[0], names, ncommands);
    if (m)
      return usage_error(NULL, "unknown command '%s'; did you mean '%s'?", a->operand[0], m);
    return usage_error(NULL, "unknown command '%s'", a->operand[0]);
  }
  print_command_help(c, stdout);
  return 0;
}

/* The bash completion: commands first, then the command's options (and
 * files for operands). Generated at build time, so it cannot go stale. */
static int cmd_completion(Args *a) {
  if (strcmp(a->operand[0], "bash"))
    return usage_error(a->cmd, "only 'bash' completion is generated, not '%s'", a->operand[0]);
  printf("# bash completion for layoutc, generated by 'layoutc completion bash'.\n"
         "_layoutc() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"--version --help");
  for (int i = 0; i < ncommands; i++)
    printf(" %s", commands[i].name);
  printf("\" -- \"$cur\"))\n    return\n  fi\n  local opts=\"\"\n  case \"${COMP_WORDS[1]}\" in\n");
  for (int i = 0; i < ncommands; i++) {
    printf("  %s) opts=\"--help", commands[i].name);
    for (const OptSpec *o = command_options(&commands[i]); o->name; o++)
      printf(" %s%s", o->name, o->kind == OPT_OPTIONAL_VALUE ? " --assign-layouts=greedy --assign-layouts=row-major" : "");
    if (!strcmp(commands[i].name, "help"))
      for (int j = 0; j < ncommands; j++)
        printf(" %s", commands[j].name);
    printf("\" ;;\n");
  }
  printf("  esac\n"
         "  if [[ \"$cur\" == -* ]] || [ \"${COMP_WORDS[1]}\" = help ]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _layoutc layoutc\n");
  return 0;
}

/* Output that could not be written (a full disk, a closed pipe) is a
 * failure, whatever the command computed. */
static int finish_output(int status) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    driver_error("cannot write the output: %s", strerror(errno));
    return status ? status : EXIT_BAD_INPUT;
  }
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_usage(stderr);
    return EXIT_USAGE;
  }
  const char *name = argv[1];
  if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
    print_usage(stdout);
    return finish_output(0);
  }
  if (!strcmp(name, "--version")) {
    printf("layoutc %s\n", lyGetVersionString());
    return finish_output(0);
  }
  const Command *c = find_command(name);
  if (!c) {
    const char *names[64 + 2];
    for (int i = 0; i < ncommands; i++)
      names[i] = commands[i].name;
    names[ncommands] = "--version";
    names[ncommands + 1] = "--help";
    const char *m = did_you_mean(name, names, ncommands + 2);
    if (m)
      return usage_error(NULL, "unknown command '%s'; did you mean '%s'?", name, m);
    return usage_error(NULL, "unknown command '%s'", name);
  }
  Args a;
  int rc = args_parse(c, argc - 2, argv + 2, &a);
  if (rc == 0)
    rc = c->run(&a);
  else if (rc < 0)
    rc = 0; /* --help was printed */
  args_free(&a);
  return finish_output(rc);
}
