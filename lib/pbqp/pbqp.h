/* pbqp: a partitioned boolean quadratic problem solver (Scholz & Eckstein;
 * Anderson & Gregg use it for primitive selection). Each node picks one of
 * its choices; the cost is the sum of the picked entries of each node's
 * cost vector and each edge's cost matrix. Internal prefix: lypq_.
 *
 * Solving is exact: the reductions R0 (no edge), R1 (one edge) and R2 (two
 * edges) are optimal and solve trees and series-parallel graphs outright;
 * what remains (every node of degree 3 or more) is searched by branch and
 * bound, each branch fixing one node and reducing again. The bound comes
 * from min-sum diffusion (a reparametrisation that approaches the LP
 * relaxation's bound; branches inherit it), and choices whose bound reaches
 * the incumbent are struck out (reduced-cost fixing). The first incumbent
 * is RN (each node in turn at its locally cheapest choice) followed by
 * local search. Past the budget the best selection found so far is kept,
 * after local search, and the result says the answer is not proven
 * optimal. When fewer than 64 copies of the irreducible part fit in the
 * budget, nothing of this runs: RN decides it in place (linear time), and
 * branches is 0.
 *
 * Ownership: a graph owns its vectors and matrices (copied in); destroy it
 * with lypq_destroy. Every allocation goes through ly_malloc. */
#ifndef LAYOUTC_PBQP_H
#define LAYOUTC_PBQP_H

#include "support/support.h"

/* An infinite cost (a forbidden choice). Sums saturate at it. */
#define LYPQ_INF (INT64_MAX / 4)

static inline int64_t lypq_add(int64_t a, int64_t b) {
  int64_t r = a + b; /* both <= LYPQ_INF: no overflow */
  return r > LYPQ_INF ? LYPQ_INF : r;
}

typedef struct LypqGraph LypqGraph;

LypqGraph *lypq_create(void); /* NULL when memory is exhausted */
void lypq_destroy(LypqGraph *g);

/* A node with n >= 1 choices and their costs (copied; each in [0, INF]).
 * Returns its id (0, 1, ... in order), -1 when memory is exhausted. */
int lypq_add_node(LypqGraph *g, int n, const int64_t *costs);
/* The number of choices of node x. */
int lypq_node_size(const LypqGraph *g, int x);
/* Adds c to choice i of node x. */
void lypq_add_cost(LypqGraph *g, int x, int i, int64_t c);
/* Adds m (row-major, u's choices by v's; copied) to the edge u-v, creating
 * it if needed; u != v. False when memory is exhausted. */
bool lypq_add_edge(LypqGraph *g, int u, int v, const int64_t *m);

typedef struct {
  int64_t cost;        /* of the selection; LYPQ_INF when nothing is feasible */
  int64_t lower_bound; /* no selection costs less */
  bool optimal;        /* the search completed: cost is the optimum */
  long branches;       /* branch-and-bound nodes visited */
  int core;            /* nodes left after the first reductions */
} LypqResult;

/* Default search budget, in units of graph elements copied by branching. */
#define LYPQ_DEFAULT_BUDGET 4000000L

/* Solves; sel[node] receives the choice of each node. The graph is
 * consumed (only lypq_destroy may follow). LY_OK or LY_ERROR_NOMEM. */
LyStatus lypq_solve(LypqGraph *g, long budget, int *sel, LypqResult *out);

/* Reading the problem back (before solving: lypq_solve consumes it). Nodes
 * are 0 .. lypq_node_count - 1; edges 0 .. lypq_edge_count - 1, one per
 * pair of nodes (added matrices are summed). lypq_edge_matrix gives the
 * edge's ends and its matrix, u's choices by v's, row-major. */
int lypq_node_count(const LypqGraph *g);
const int64_t *lypq_node_costs(const LypqGraph *g, int x);
int lypq_edge_count(const LypqGraph *g);
const int64_t *lypq_edge_matrix(const LypqGraph *g, int e, int *u, int *v);

/* The cost of a selection (before solving). */
int64_t lypq_eval(const LypqGraph *g, const int *sel);
/* The baseline: nodes in the given order (a permutation of the ids; NULL:
 * id order), each at its cheapest choice given the choices already made
 * and each unchosen neighbour at its cheapest. Does not consume the
 * graph. */
void lypq_solve_greedy(const LypqGraph *g, const int *order, int *sel, LypqResult *out);

#endif
