/* pbqp_bench: the PBQP solver alone on instances written by `layoutc opt
 * --assign-layouts --dump-pbqp=FILE` (format: docs/passes.md). Solves each
 * again and prints, per instance, its size, the solver's answer and CPU
 * time, and the cost the dump recorded, so a change to lib/pbqp can be
 * measured on the functions of the differential tests without the rest of
 * the pass. Usage: pbqp_bench FILE [BUDGET] */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pbqp/pbqp.h"

typedef struct {
  const char *path;
  int line;
} Where;

static void fail(const Where *w, const char *what) {
  fprintf(stderr, "%s:%d: error: %s\n", w->path, w->line, what);
  exit(1);
}

/* The next cost on the line ("inf" or a decimal); advances *s. */
static int64_t cost(const Where *w, char **s) {
  while (**s == ' ')
    (*s)++;
  if (!strncmp(*s, "inf", 3)) {
    *s += 3;
    return LYPQ_INF;
  }
  char *end;
  errno = 0;
  long long v = strtoll(*s, &end, 10);
  if (end == *s || errno || v < 0 || v > LYPQ_INF)
    fail(w, "expected a cost (a non-negative decimal or 'inf')");
  *s = end;
  return v;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  int instances, proven, same, better, worse;
  double seconds, max_seconds;
} Totals;

/* Solves the instance read so far and prints its row. */
static void solve(LypqGraph *g, const char *name, int64_t dumped, long budget, Totals *t) {
  int n = lypq_node_count(g);
  int *sel = malloc((size_t)n * sizeof *sel + 1);
  if (!sel)
    exit(1);
  LypqResult r;
  double t0 = cpu_now();
  LyStatus st = lypq_solve(g, budget, sel, &r);
  double dt = cpu_now() - t0;
  free(sel);
  if (st != LY_OK) {
    fprintf(stderr, "pbqp_bench: out of memory on %s\n", name);
    exit(1);
  }
  printf("%-12s %6d %6d %9ld %14" PRId64 " %14" PRId64 " %14" PRId64 " %-9s %9.4f\n", name, n, r.core, r.branches,
         r.cost, r.lower_bound, dumped, r.optimal ? "proven" : "heuristic", dt);
  t->instances++;
  t->proven += r.optimal;
  t->same += r.cost == dumped;
  t->better += r.cost < dumped;
  t->worse += r.cost > dumped;
  t->seconds += dt;
  if (dt > t->max_seconds)
    t->max_seconds = dt;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: pbqp_bench FILE [BUDGET]\n");
    return 2;
  }
  long budget = argc == 3 ? atol(argv[2]) : LYPQ_DEFAULT_BUDGET;
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    fprintf(stderr, "pbqp_bench: cannot open '%s'\n", argv[1]);
    return 1;
  }
  Where w = {argv[1], 0};
  char *line = NULL, name[256] = "";
  size_t cap = 0;
  LypqGraph *g = NULL;
  int64_t *buf = NULL, dumped = LYPQ_INF;
  size_t bufcap = 0;
  Totals t = {0};
  printf("%-12s %6s %6s %9s %14s %14s %14s %-9s %9s\n", "function", "nodes", "core", "branches", "cost", "bound",
         "dumped_cost", "status", "cpu_s");
  while (getline(&line, &cap, in) > 0) {
    w.line++;
    char *s = line;
    int u, v, n, k;
    if (sscanf(s, "pbqp %255s", name) == 1) {
      if (g)
        fail(&w, "'pbqp' inside an instance (no 'end' before it)");
      g = lypq_create();
      dumped = LYPQ_INF;
    } else if (!g) {
      fail(&w, "expected 'pbqp @NAME nodes N edges E'");
    } else if (sscanf(s, "node %d %d%n", &u, &n, &k) == 2 || sscanf(s, "edge %d %d%n", &u, &v, &k) == 2) {
      bool node = s[0] == 'n';
      if (node ? u != lypq_node_count(g) || n < 1
               : u < 0 || v < 0 || u >= lypq_node_count(g) || v >= lypq_node_count(g) || u == v)
        fail(&w, node ? "nodes must be numbered 0, 1, ... and have a choice" : "edge between unknown nodes");
      size_t count = node ? (size_t)n : (size_t)lypq_node_size(g, u) * (size_t)lypq_node_size(g, v);
      if (count > bufcap) {
        bufcap = count;
        buf = realloc(buf, bufcap * sizeof *buf);
        if (!buf)
          return 1;
      }
      s += k;
      for (size_t i = 0; i < count; i++)
        buf[i] = cost(&w, &s);
      if (node ? lypq_add_node(g, n, buf) < 0 : !lypq_add_edge(g, u, v, buf))
        return 1;
    } else if (!strncmp(s, "cost ", 5)) {
      s += 5;
      dumped = cost(&w, &s);
    } else if (!strncmp(s, "end", 3)) {
      solve(g, name, dumped, budget, &t);
      lypq_destroy(g);
      g = NULL;
    } /* layout, select, output-cost, lower-bound, status: not needed */
  }
  if (g)
    fail(&w, "the file ends inside an instance");
  printf("%d instances: %d proven optimal; against the dumped cost %d same, %d better, %d worse; "
         "solver CPU %.3f s in all, %.4f s at most\n",
         t.instances, t.proven, t.same, t.better, t.worse, t.seconds, t.max_seconds);
  free(line);
  free(buf);
  fclose(in);
  return 0;
}
