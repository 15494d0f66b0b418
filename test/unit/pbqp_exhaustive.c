/* The PBQP solver against exhaustive enumeration: random trees, sparse
 * graphs with cycles and dense graphs of up to 16 nodes, some choices and
 * pairs forbidden. The solver must find the optimum and say it is proven;
 * with no budget (RN alone), or one that stops branch and bound early (its
 * first incumbent, local search, reduced-cost fixing), it must still
 * return a feasible selection, priced right, with a lower bound that holds,
 * and be the optimum if it says so.
 * Usage: pbqp_exhaustive [CASES [SEED]] (a tenth of CASES when
 * LAYOUTC_TEST_QUICK is set: the sanitizer run). */
#include <stdlib.h>
#include <string.h>

#include "pbqp/pbqp.h"
#include "test_util.h"

#define MAXN 16
#define MAXC 4

typedef struct {
  int n, nc[MAXN];
  int64_t c[MAXN][MAXC];
  int ne, eu[MAXN * MAXN], ev[MAXN * MAXN];
  int64_t m[MAXN * MAXN][MAXC * MAXC];
} Problem;

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33) % n;
}

static int64_t cost_entry(void) { return rnd(10) == 0 ? LYPQ_INF : (int64_t)rnd(100); }

static void add(Problem *p, int u, int v) {
  for (int e = 0; e < p->ne; e++)
    if ((p->eu[e] == u && p->ev[e] == v) || (p->eu[e] == v && p->ev[e] == u))
      return;
  p->eu[p->ne] = u, p->ev[p->ne] = v;
  for (int i = 0; i < p->nc[u] * p->nc[v]; i++)
    p->m[p->ne][i] = rnd(4) == 0 ? 0 : cost_entry();
  p->ne++;
}

/* kind 0: a tree; 1: each node tied to up to three earlier ones; 2: dense. */
static void generate(Problem *p, int kind) {
  memset(p, 0, sizeof *p);
  p->n = kind == 2 ? 3 + (int)rnd(6) : 2 + (int)rnd(MAXN - 1);
  for (int i = 0; i < p->n; i++) {
    p->nc[i] = 1 + (int)rnd(p->n > 12 ? 3 : MAXC);
    for (int k = 0; k < p->nc[i]; k++)
      p->c[i][k] = cost_entry();
  }
  for (int i = 1; i < p->n; i++) {
    int links = kind == 0 ? 1 : kind == 1 ? 1 + (int)rnd(3) : i;
    for (int l = 0; l < links; l++)
      add(p, kind == 2 ? l : (int)rnd((uint32_t)i), i);
  }
}

static double space(const Problem *p) {
  double s = 1;
  for (int i = 0; i < p->n; i++)
    s *= p->nc[i];
  return s;
}

/* Depth-first over every selection, nodes in order, pricing each edge when
 * its later end is chosen. */
static void enumerate(const Problem *p, int k, int *sel, int64_t acc, int64_t *best) {
  if (acc >= LYPQ_INF && *best < LYPQ_INF)
    return;
  if (k == p->n) {
    if (acc < *best)
      *best = acc;
    return;
  }
  for (int i = 0; i < p->nc[k]; i++) {
    sel[k] = i;
    int64_t a = lypq_add(acc, p->c[k][i]);
    for (int e = 0; e < p->ne; e++)
      if (p->ev[e] == k)
        a = lypq_add(a, p->m[e][sel[p->eu[e]] * p->nc[k] + i]);
    enumerate(p, k + 1, sel, a, best);
  }
}

static int64_t price(const Problem *p, const int *sel) {
  int64_t c = 0;
  for (int i = 0; i < p->n; i++)
    c = lypq_add(c, p->c[i][sel[i]]);
  for (int e = 0; e < p->ne; e++)
    c = lypq_add(c, p->m[e][sel[p->eu[e]] * p->nc[p->ev[e]] + sel[p->ev[e]]]);
  return c;
}

static LypqGraph *build(const Problem *p) {
  LypqGraph *g = lypq_create();
  for (int i = 0; i < p->n; i++)
    CHECK(lypq_add_node(g, p->nc[i], p->c[i]) == i);
  for (int e = 0; e < p->ne; e++)
    CHECK(lypq_add_edge(g, p->eu[e], p->ev[e], p->m[e]));
  return g;
}

int main(int argc, char **argv) {
  int cases = argc > 1 ? atoi(argv[1]) : 3000;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  if (getenv("LAYOUTC_TEST_QUICK"))
    cases /= 10;
  int solved = 0, cyclic = 0, stopped = 0;
  for (int t = 0; t < cases; t++) {
    Problem p;
    int kind = t % 3;
    do
      generate(&p, kind);
    while (space(&p) > 2e6);
    int sel[MAXN], tmp[MAXN];
    int64_t best = LYPQ_INF;
    enumerate(&p, 0, tmp, 0, &best);

    LypqGraph *g = build(&p);
    CHECK(lypq_eval(g, (int[MAXN]){0}) == price(&p, (int[MAXN]){0}));
    LypqResult r;
    CHECK(lypq_solve(g, LYPQ_DEFAULT_BUDGET, sel, &r) == LY_OK);
    lypq_destroy(g);
    CHECK(r.cost == best);
    CHECK(price(&p, sel) == best || best >= LYPQ_INF);
    CHECK(r.optimal && r.lower_bound == r.cost);
    cyclic += r.core > 0;

    /* No budget: the RN heuristic alone; feasible when it finds it, priced
     * right, never below the optimum, and the bound holds. */
    g = build(&p);
    CHECK(lypq_solve(g, 0, sel, &r) == LY_OK);
    lypq_destroy(g);
    CHECK(r.cost >= best && r.lower_bound <= best);
    CHECK(r.cost >= LYPQ_INF || price(&p, sel) == r.cost);
    CHECK(r.optimal || r.core > 0);

    /* A small budget: branch and bound starts on small cores only, and may
     * stop early. */
    g = build(&p);
    CHECK(lypq_solve(g, t % 2 ? 2000 : 20000, sel, &r) == LY_OK);
    lypq_destroy(g);
    CHECK(r.cost >= best && r.lower_bound <= best);
    CHECK(r.cost >= LYPQ_INF || price(&p, sel) == r.cost);
    CHECK(!r.optimal || r.cost == best);
    stopped += !r.optimal;
    solved++;
  }
  printf("pbqp_exhaustive: %d problems (%d needed branch and bound; %d not proven on a small budget)\n", solved,
         cyclic, stopped);
  return TEST_DONE("pbqp_exhaustive");
}
