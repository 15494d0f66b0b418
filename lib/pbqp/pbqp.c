/* pbqp: reductions R0/R1/R2, branch and bound over them with bounds from
 * min-sum diffusion, RN and local search for incumbents (see pbqp.h). Each
 * branch works on a compact copy of what is left of the graph, so undoing a
 * branch is freeing it. */
#include "pbqp/pbqp.h"

#include <string.h>

typedef struct {
  int n;      /* choices */
  int orig;   /* id in the caller's graph */
  int64_t *c; /* cost vector */
  int *adj;   /* alive incident edges */
  int nadj, cadj;
  bool alive;
  bool own_adj; /* adj is its own block (else part of the graph's bulk) */
} Node;

typedef struct {
  int u, v;
  int64_t *m; /* u's choices by v's */
  bool alive;
} Edge;

struct LypqGraph {
  struct Block *blocks; /* cost vectors and matrices */
  Node *nodes;
  int nnodes, cnodes;
  Edge *edges;
  int nedges, cedges;
  int64_t constant; /* cost of the nodes already removed by R0 or fixed */
  int nalive;       /* alive nodes */
  long nedges_alive;
  int *work;        /* nodes whose degree may have dropped to 2 or less */
  int nwork;
  unsigned char *queued;
  int scan;         /* the RN heuristic's next candidate node */
  void *bulk;       /* a clone's vectors, matrices and adjacency, in one block */
  bool oom;
};

/* A reduction or a fixed choice, replayed backwards to pick each removed
 * node's choice once its neighbours' are known. Points into the graph of
 * the level that made it, alive while that level is. */
typedef struct {
  int kind; /* 0: R0, 1: R1, 2: R2, 3: fixed */
  int x, nx, choice;
  const int64_t *c;
  int y[2], ny[2];
  const int64_t *m[2];
  bool x_is_u[2];
} Step;

typedef struct {
  Step *steps;
  int nsteps, csteps;
  int *sel, *best;
  int norig;
  int64_t best_cost;
  long work, budget, branches;
  bool exhausted, heuristic, oom, have_best;
} Search;

static void *grow(void *p, int *cap, int need, size_t elem) {
  if (need <= *cap)
    return p;
  int c = *cap ? *cap * 2 : 8;
  while (c < need)
    c *= 2;
  void *q = ly_realloc(p, (size_t)c * elem);
  if (q)
    *cap = c;
  return q;
}

/* Room for n entries of a vector or matrix, not zeroed (every caller
 * writes them all): a large model holds tens of megabytes of them, and an
 * arena would clear each before it is copied into. */
struct Block {
  struct Block *next;
  size_t used, size;
  int64_t data[];
};

static int64_t *entries(LypqGraph *g, size_t n) {
  struct Block *b = g->blocks;
  if (!b || b->size - b->used < n) {
    size_t size = n > 32768 ? n : 32768;
    struct Block *nb = ly_malloc(sizeof *nb + size * sizeof(int64_t));
    if (!nb)
      return NULL;
    nb->used = 0, nb->size = size;
    if (b && size == n) { /* a large one: behind the current block */
      nb->next = b->next, b->next = nb;
    } else {
      nb->next = b, g->blocks = nb;
    }
    b = nb;
  }
  int64_t *p = b->data + b->used;
  b->used += n;
  return p;
}

LypqGraph *lypq_create(void) {
  LypqGraph *g = ly_malloc(sizeof *g);
  if (g) {
    memset(g, 0, sizeof *g);
  }
  return g;
}

void lypq_destroy(LypqGraph *g) {
  if (!g)
    return;
  for (int i = 0; i < g->nnodes; i++)
    if (g->nodes[i].own_adj)
      ly_free(g->nodes[i].adj);
  ly_free(g->bulk);
  ly_free(g->nodes);
  ly_free(g->edges);
  ly_free(g->work);
  ly_free(g->queued);
  for (struct Block *b = g->blocks, *next; b; b = next) {
    next = b->next;
    ly_free(b);
  }
  ly_free(g);
}

int lypq_add_node(LypqGraph *g, int n, const int64_t *costs) {
  Node *nodes = grow(g->nodes, &g->cnodes, g->nnodes + 1, sizeof *nodes);
  int64_t *c = entries(g, (size_t)n);
  if (!nodes || !c) {
    g->oom = true;
    if (nodes)
      g->nodes = nodes;
    return -1;
  }
  g->nodes = nodes;
  if (costs)
    memcpy(c, costs, (size_t)n * sizeof *c);
  else
    memset(c, 0, (size_t)n * sizeof *c);
  nodes[g->nnodes] = (Node){.n = n, .orig = g->nnodes, .c = c, .alive = true};
  g->nalive++;
  return g->nnodes++;
}

int lypq_node_size(const LypqGraph *g, int x) { return g->nodes[x].n; }

void lypq_add_cost(LypqGraph *g, int x, int i, int64_t c) {
  LY_ASSERT(x >= 0 && x < g->nnodes && i >= 0 && i < g->nodes[x].n);
  g->nodes[x].c[i] = lypq_add(g->nodes[x].c[i], c);
}

static bool adj_add(Node *x, int e) {
  if (x->nadj == x->cadj) {
    int c = x->cadj ? 2 * x->cadj : 4;
    int *a = x->own_adj ? ly_realloc(x->adj, (size_t)c * sizeof *a) : ly_malloc((size_t)c * sizeof *a);
    if (!a)
      return false;
    if (!x->own_adj && x->nadj)
      memcpy(a, x->adj, (size_t)x->nadj * sizeof *a);
    x->adj = a, x->cadj = c, x->own_adj = true;
  }
  x->adj[x->nadj++] = e;
  return true;
}

static void adj_remove(Node *x, int e) {
  for (int i = 0; i < x->nadj; i++)
    if (x->adj[i] == e) {
      x->adj[i] = x->adj[--x->nadj];
      return;
    }
  LY_ASSERT(!"edge not in adjacency");
}

/* The alive edge between u and v, or -1 (scans the smaller list). */
static int find_edge(const LypqGraph *g, int u, int v) {
  const Node *a = &g->nodes[u], *b = &g->nodes[v];
  if (b->nadj < a->nadj) {
    const Node *t = a;
    a = b, b = t;
  }
  int other = a == &g->nodes[u] ? v : u;
  for (int i = 0; i < a->nadj; i++) {
    const Edge *e = &g->edges[a->adj[i]];
    if (e->u == other || e->v == other)
      return a->adj[i];
  }
  return -1;
}

bool lypq_add_edge(LypqGraph *g, int u, int v, const int64_t *m) {
  LY_ASSERT(u != v && u >= 0 && v >= 0 && u < g->nnodes && v < g->nnodes);
  int nu = g->nodes[u].n, nv = g->nodes[v].n, e = find_edge(g, u, v);
  if (e >= 0) {
    Edge *x = &g->edges[e];
    for (int i = 0; i < nu; i++)
      for (int j = 0; j < nv; j++) {
        int64_t add = m[i * nv + j];
        int64_t *to = x->u == u ? &x->m[i * nv + j] : &x->m[j * nu + i];
        *to = lypq_add(*to, add);
      }
    return true;
  }
  Edge *edges = grow(g->edges, &g->cedges, g->nedges + 1, sizeof *edges);
  int64_t *mm = entries(g, (size_t)nu * (size_t)nv);
  if (mm)
    memcpy(mm, m, (size_t)nu * (size_t)nv * sizeof *mm);
  if (edges)
    g->edges = edges;
  if (!edges || !mm || !adj_add(&g->nodes[u], g->nedges) || !adj_add(&g->nodes[v], g->nedges)) {
    g->oom = true;
    return false;
  }
  edges[g->nedges++] = (Edge){u, v, mm, true};
  g->nedges_alive++;
  return true;
}

int lypq_node_count(const LypqGraph *g) { return g->nnodes; }

const int64_t *lypq_node_costs(const LypqGraph *g, int x) {
  LY_ASSERT(x >= 0 && x < g->nnodes);
  return g->nodes[x].c;
}

int lypq_edge_count(const LypqGraph *g) { return g->nedges; }

const int64_t *lypq_edge_matrix(const LypqGraph *g, int e, int *u, int *v) {
  LY_ASSERT(e >= 0 && e < g->nedges && g->edges[e].alive);
  *u = g->edges[e].u, *v = g->edges[e].v;
  return g->edges[e].m;
}

/* Entry (i of x, j of the other end) of a matrix seen from x. */
static int64_t at(const int64_t *m, bool x_is_u, int nx, int ny, int i, int j) {
  return x_is_u ? m[i * ny + j] : m[j * nx + i];
}

static void kill_edge(LypqGraph *g, int e) {
  Edge *x = &g->edges[e];
  x->alive = false;
  g->nedges_alive--;
  adj_remove(&g->nodes[x->u], e);
  adj_remove(&g->nodes[x->v], e);
}

static bool push_step(Search *s, Step st) {
  Step *steps = grow(s->steps, &s->csteps, s->nsteps + 1, sizeof *steps);
  if (!steps) {
    s->oom = true;
    return false;
  }
  s->steps = steps;
  steps[s->nsteps++] = st;
  return true;
}

/* Records edge k of x for the step (the neighbour by its caller's id) and
 * removes it; returns the neighbour's local id. */
static int take_edge(LypqGraph *g, int x, int e, Step *st, int k) {
  Edge *ed = &g->edges[e];
  st->x_is_u[k] = ed->u == x;
  int y = st->x_is_u[k] ? ed->v : ed->u;
  st->y[k] = g->nodes[y].orig;
  st->ny[k] = g->nodes[y].n;
  st->m[k] = ed->m;
  kill_edge(g, e);
  return y;
}

static int64_t vec_min(const int64_t *c, int n, int *arg) {
  int64_t best = LYPQ_INF;
  int a = 0;
  for (int i = 0; i < n; i++)
    if (c[i] < best)
      best = c[i], a = i;
  if (arg)
    *arg = a;
  return best;
}

/* R1: x's only neighbour y absorbs min_i (c_x[i] + M[i][j]). */
static void reduce_r1(LypqGraph *g, int x, Step *st, int *ys) {
  Node *nx = &g->nodes[x];
  ys[0] = take_edge(g, x, nx->adj[0], st, 0);
  Node *ny = &g->nodes[ys[0]];
  for (int j = 0; j < ny->n; j++) {
    int64_t best = LYPQ_INF;
    for (int i = 0; i < nx->n; i++) {
      int64_t v = lypq_add(nx->c[i], at(st->m[0], st->x_is_u[0], nx->n, ny->n, i, j));
      if (v < best)
        best = v;
    }
    ny->c[j] = lypq_add(ny->c[j], best);
  }
}

/* R2: x's two neighbours y and z get an edge (or more on theirs) of
 * min_i (c_x[i] + M_xy[i][j] + M_xz[i][k]). */
static bool reduce_r2(LypqGraph *g, int x, Step *st, int *ys) {
  Node *nx = &g->nodes[x];
  int e0 = nx->adj[0], e1 = nx->adj[1];
  ys[0] = take_edge(g, x, e0, st, 0);
  ys[1] = take_edge(g, x, e1, st, 1);
  int ny = st->ny[0], nz = st->ny[1];
  int64_t *m = ly_malloc((size_t)ny * (size_t)nz * sizeof *m);
  if (!m)
    return false;
  for (int j = 0; j < ny; j++)
    for (int k = 0; k < nz; k++) {
      int64_t best = LYPQ_INF;
      for (int i = 0; i < nx->n; i++) {
        int64_t v = lypq_add(nx->c[i], lypq_add(at(st->m[0], st->x_is_u[0], nx->n, ny, i, j),
                                                 at(st->m[1], st->x_is_u[1], nx->n, nz, i, k)));
        if (v < best)
          best = v;
      }
      m[j * nz + k] = best;
    }
  bool ok = lypq_add_edge(g, ys[0], ys[1], m);
  ly_free(m);
  return ok;
}

/* Queues x for reduce() if its degree allows a reduction. */
static void requeue(LypqGraph *g, int x) {
  if (g->work && !g->queued[x] && g->nodes[x].alive && g->nodes[x].nadj <= 2) {
    g->queued[x] = 1;
    g->work[g->nwork++] = x;
  }
}

/* Applies R0, R1 and R2 until every alive node has degree 3 or more. The
 * first call queues every node; later ones only what fixing or reducing
 * touched, so a long run of fixes stays linear. */
static bool reduce(LypqGraph *g, Search *s) {
  if (!g->work) {
    g->work = ly_malloc((size_t)(g->nnodes + 1) * sizeof *g->work);
    g->queued = ly_malloc((size_t)g->nnodes + 1);
    if (!g->work || !g->queued)
      return false;
    memset(g->queued, 0, (size_t)g->nnodes + 1);
    for (int i = g->nnodes - 1; i >= 0; i--)
      requeue(g, i);
  }
  bool ok = true;
  while (ok && g->nwork) {
    int x = g->work[--g->nwork];
    g->queued[x] = 0;
    Node *nx = &g->nodes[x];
    if (!nx->alive || nx->nadj > 2)
      continue;
    Step st = {.kind = nx->nadj, .x = nx->orig, .nx = nx->n, .c = nx->c};
    int ys[2];
    if (nx->nadj == 0)
      g->constant = lypq_add(g->constant, vec_min(nx->c, nx->n, NULL));
    else if (nx->nadj == 1)
      reduce_r1(g, x, &st, ys);
    else
      ok = reduce_r2(g, x, &st, ys);
    nx->alive = false;
    g->nalive--;
    ok = ok && push_step(s, st);
    for (int k = 0; ok && k < st.kind; k++)
      requeue(g, ys[k]);
  }
  return ok;
}

/* --- Branch and bound ---------------------------------------------------------- */

/* Every edge is owned by its first end; each node pays at least its
 * cheapest choice plus, for each edge it owns, the cheapest entry of that
 * choice's row (tighter than the sum of separate minima). This is node
 * x's term at choice i (or something at least `cap` once it reaches it). */
static int64_t node_term(const LypqGraph *g, int x, int i, int64_t cap) {
  const Node *nx = &g->nodes[x];
  int64_t v = nx->c[i];
  for (int k = 0; k < nx->nadj && v < cap; k++) {
    const Edge *ed = &g->edges[nx->adj[k]];
    if (ed->u != x)
      continue;
    int nv = g->nodes[ed->v].n;
    v = lypq_add(v, vec_min(&ed->m[i * nv], nv, NULL));
  }
  return v;
}

static int64_t node_min_term(const LypqGraph *g, int x) {
  int64_t best = LYPQ_INF;
  for (int i = 0; i < g->nodes[x].n && best > 0; i++) {
    int64_t v = node_term(g, x, i, best);
    best = v < best ? v : best;
  }
  return best;
}

static int64_t lower_bound(const LypqGraph *g) {
  int64_t lb = g->constant;
  for (int x = 0; x < g->nnodes; x++)
    if (g->nodes[x].alive)
      lb = lypq_add(lb, node_min_term(g, x));
  return lb;
}

/* Branch and bound starts on a graph (or goes on without a solution yet)
 * only when this many copies of it fit in what is left of the budget. */
#define MIN_BRANCHES 64

static long alive_size(const LypqGraph *g) { return g->nalive + 2 * g->nedges_alive; }

/* --- Reparametrisation: min-sum diffusion ---------------------------------------- */

/* Moves cost between node x and its edges without changing the cost of any
 * selection (min-sum diffusion: Kovalevsky and Koval; Werner, PAMI 2007):
 * x takes the cheapest entry of each of its rows, then gives an equal share
 * of its vector back to each edge. Repeated over the graph, it raises
 * lower_bound() towards the bound of the LP relaxation. Entries stay in
 * [0, INF]; a row that is all INF makes that choice INF. */
static void diffuse_node(LypqGraph *g, int x) {
  Node *nx = &g->nodes[x];
  int deg = nx->nadj;
  for (int k = 0; k < deg; k++) {
    const Edge *ed = &g->edges[nx->adj[k]];
    bool xu = ed->u == x;
    int ny = g->nodes[xu ? ed->v : ed->u].n;
    size_t step = xu ? 1 : (size_t)nx->n;
    for (int i = 0; i < nx->n; i++) {
      int64_t *row = xu ? ed->m + (size_t)i * (size_t)ny : ed->m + i, m = LYPQ_INF;
      for (int j = 0; j < ny; j++)
        m = row[j * step] < m ? row[j * step] : m;
      if (m >= LYPQ_INF)
        nx->c[i] = LYPQ_INF;
      if (m >= LYPQ_INF || m == 0)
        continue;
      for (int j = 0; j < ny; j++)
        if (row[j * step] < LYPQ_INF)
          row[j * step] -= m;
      nx->c[i] = lypq_add(nx->c[i], m);
    }
  }
  /* An impossible choice's rows become INF, so no edge's minimum counts
   * them. */
  for (int i = 0; deg && i < nx->n; i++) {
    int64_t share = nx->c[i] < LYPQ_INF ? nx->c[i] / deg : LYPQ_INF;
    if (!share)
      continue;
    for (int k = 0; k < deg; k++) {
      const Edge *ed = &g->edges[nx->adj[k]];
      bool xu = ed->u == x;
      int ny = g->nodes[xu ? ed->v : ed->u].n;
      size_t step = xu ? 1 : (size_t)nx->n;
      int64_t *row = xu ? ed->m + (size_t)i * (size_t)ny : ed->m + i;
      for (int j = 0; j < ny; j++)
        row[j * step] = lypq_add(row[j * step], share);
    }
    if (share < LYPQ_INF)
      nx->c[i] -= share * deg;
  }
}

/* Rounds of local search, at most. */
#define LOCAL_SEARCH_ROUNDS 16

/* Sweeps at the root, and at most per branch. */
#define ROOT_SWEEPS 100
#define BRANCH_SWEEPS 8

/* Diffuses until the bound reaches `enough`, stops rising or `sweeps` is
 * spent; returns the bound. A branch inherits its parent's costs, so a
 * few sweeps take it close to where diffusion converges. */
static int64_t diffuse(LypqGraph *g, Search *s, int sweeps, int64_t enough) {
  int64_t lb = lower_bound(g);
  for (int k = 0; k < sweeps && lb < enough; k++) {
    s->work += alive_size(g);
    for (int x = 0; x < g->nnodes; x++)
      if (g->nodes[x].alive)
        diffuse_node(g, x);
    int64_t next = lower_bound(g);
    if (next <= lb) {
      lb = next > lb ? next : lb;
      break;
    }
    lb = next;
  }
  return lb;
}

/* A compact copy of what is alive (caller ids kept, edges in the same
 * order, so the search sees the same graph); NULL on OOM. Branching copies
 * the whole remaining graph at every level, so this is the search's inner
 * loop: three allocations, whatever the size (cost vectors, matrices and
 * adjacency share one block; reductions only ever shrink a node's
 * adjacency, and adj_add moves one out if it grows). */
static LypqGraph *clone(const LypqGraph *g, int *local) {
  LypqGraph *h = lypq_create();
  if (!h)
    return NULL;
  size_t costs = 0, adj = 2 * (size_t)g->nedges_alive;
  for (int i = 0; i < g->nnodes; i++)
    if (g->nodes[i].alive)
      costs += (size_t)g->nodes[i].n;
  for (int e = 0; e < g->nedges; e++)
    if (g->edges[e].alive)
      costs += (size_t)g->nodes[g->edges[e].u].n * (size_t)g->nodes[g->edges[e].v].n;
  h->nodes = ly_malloc((size_t)g->nalive * sizeof *h->nodes + 1);
  h->edges = ly_malloc((size_t)g->nedges_alive * sizeof *h->edges + 1);
  h->bulk = ly_malloc(costs * sizeof(int64_t) + adj * sizeof(int) + 1);
  if (!h->nodes || !h->edges || !h->bulk) {
    lypq_destroy(h);
    return NULL;
  }
  h->cnodes = g->nalive;
  h->cedges = (int)g->nedges_alive;
  int64_t *c = h->bulk;
  int *a = (int *)(c + costs);
  h->constant = g->constant;
  for (int i = 0; i < g->nnodes; i++) {
    const Node *x = &g->nodes[i];
    local[i] = -1;
    if (!x->alive)
      continue;
    memcpy(c, x->c, (size_t)x->n * sizeof *c);
    local[i] = h->nnodes;
    h->nodes[h->nnodes++] = (Node){.n = x->n, .orig = x->orig, .c = c, .adj = a, .cadj = x->nadj, .alive = true};
    c += x->n;
    a += x->nadj;
  }
  for (int e = 0; e < g->nedges; e++) {
    const Edge *x = &g->edges[e];
    if (!x->alive)
      continue;
    size_t n = (size_t)g->nodes[x->u].n * (size_t)g->nodes[x->v].n;
    memcpy(c, x->m, n * sizeof *c);
    Node *u = &h->nodes[local[x->u]], *v = &h->nodes[local[x->v]];
    u->adj[u->nadj++] = h->nedges;
    v->adj[v->nadj++] = h->nedges;
    h->edges[h->nedges++] = (Edge){local[x->u], local[x->v], c, true};
    c += n;
  }
  h->nalive = h->nnodes;
  h->nedges_alive = h->nedges;
  return h;
}

/* Fixes x at choice i: its row of each edge moves onto the neighbour. */
static bool fix(LypqGraph *g, int x, int i, Search *s) {
  Node *nx = &g->nodes[x];
  g->constant = lypq_add(g->constant, nx->c[i]);
  while (nx->nadj) {
    int e = nx->adj[0];
    Edge *ed = &g->edges[e];
    bool xu = ed->u == x;
    Node *ny = &g->nodes[xu ? ed->v : ed->u];
    for (int j = 0; j < ny->n; j++)
      ny->c[j] = lypq_add(ny->c[j], at(ed->m, xu, nx->n, ny->n, i, j));
    kill_edge(g, e);
    requeue(g, (int)(ny - g->nodes));
  }
  nx->alive = false;
  g->nalive--;
  return push_step(s, (Step){.kind = 3, .x = nx->orig, .nx = nx->n, .choice = i});
}

/* The RN order: each choice's own cost plus, per edge, the cheapest way
 * its neighbour can follow. Highest degree first. */
static int branch_node(const LypqGraph *g) {
  int best = -1;
  for (int i = 0; i < g->nnodes; i++)
    if (g->nodes[i].alive && (best < 0 || g->nodes[i].nadj > g->nodes[best].nadj))
      best = i;
  return best;
}

static void order_choices(const LypqGraph *g, int x, int *order, int64_t *est) {
  const Node *nx = &g->nodes[x];
  for (int i = 0; i < nx->n; i++) {
    est[i] = nx->c[i];
    for (int k = 0; k < nx->nadj; k++) {
      const Edge *ed = &g->edges[nx->adj[k]];
      bool xu = ed->u == x;
      const Node *ny = &g->nodes[xu ? ed->v : ed->u];
      int64_t m = LYPQ_INF;
      for (int j = 0; j < ny->n; j++) {
        int64_t v = lypq_add(at(ed->m, xu, nx->n, ny->n, i, j), ny->c[j]);
        m = v < m ? v : m;
      }
      est[i] = lypq_add(est[i], m);
    }
    int j = i;
    for (; j > 0 && est[order[j - 1]] > est[i]; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
}

/* Replays the steps backwards: each removed node's choice given those of
 * the nodes removed after it. Keeps the selection if it is the best. */
static void leaf(Search *s, int64_t cost) {
  if (s->have_best && cost >= s->best_cost)
    return;
  for (int k = s->nsteps - 1; k >= 0; k--) {
    const Step *st = &s->steps[k];
    int pick = st->choice;
    if (st->kind < 3) {
      int64_t best = LYPQ_INF + 1;
      for (int i = 0; i < st->nx; i++) {
        int64_t v = st->c[i];
        for (int e = 0; e < st->kind; e++)
          v = lypq_add(v, at(st->m[e], st->x_is_u[e], st->nx, st->ny[e], i, s->sel[st->y[e]]));
        if (v < best)
          best = v, pick = i;
      }
    }
    s->sel[st->x] = pick;
  }
  memcpy(s->best, s->sel, (size_t)s->norig * sizeof *s->best);
  s->best_cost = cost;
  s->have_best = true;
}

/* One step of RN: the next alive node in id order (a monotone scan, so a
 * whole run is linear), at its locally cheapest choice. In place past the
 * budget; on a copy for the first incumbent. */
static bool rn_step(LypqGraph *g, Search *s) {
  while (!g->nodes[g->scan].alive)
    g->scan++;
  int x = g->scan, n = g->nodes[x].n;
  int *order = ly_malloc((size_t)n * (sizeof(int) + sizeof(int64_t)) + 16);
  if (!order)
    return false;
  int64_t *est = (int64_t *)(order + n + (n & 1));
  order_choices(g, x, order, est);
  bool ok = fix(g, x, order[0], s);
  ly_free(order);
  return ok;
}

/* Reduced-cost fixing: a selection cheaper than the incumbent cannot give
 * node x choice i when the bound lb, with x's term at i instead of its
 * least, reaches the incumbent; such a choice becomes INF (diffusion then
 * makes its rows INF). A node left with one choice is fixed at it. Where
 * the bound is nearly tight this decides most of the graph without
 * branching. Sets *fixed when it fixed a node; false on OOM. (A node's
 * term depends only on its own vector and the edges it owns, so marking
 * one node's choices leaves the others' terms, and lb, as they were.) */
static bool tighten(LypqGraph *g, Search *s, int64_t lb, bool *fixed) {
  *fixed = false;
  s->work += alive_size(g);
  for (int x = 0; x < g->nnodes; x++) {
    Node *nx = &g->nodes[x];
    if (!nx->alive)
      continue;
    int64_t rest = lb - node_min_term(g, x);
    for (int i = 0; i < nx->n; i++)
      if (nx->c[i] < LYPQ_INF && lypq_add(rest, node_term(g, x, i, s->best_cost)) >= s->best_cost)
        nx->c[i] = LYPQ_INF;
  }
  for (int x = 0; x < g->nnodes; x++) {
    Node *nx = &g->nodes[x];
    int left = 0, pick = 0;
    for (int i = 0; nx->alive && i < nx->n; i++)
      if (nx->c[i] < LYPQ_INF)
        left++, pick = i;
    if (left == 1) {
      if (!fix(g, x, pick, s))
        return false;
      *fixed = true;
    }
  }
  return true;
}

/* --- A first incumbent, and local search ------------------------------------------ */

/* Choice i of alive node x given the choices of its neighbours in sel (by
 * caller ids), leaving out edge `skip` (-1: none). */
static int64_t local_cost(const LypqGraph *g, int x, int i, const int *sel, int skip) {
  const Node *nx = &g->nodes[x];
  int64_t v = nx->c[i];
  for (int k = 0; k < nx->nadj && v < LYPQ_INF; k++) {
    if (nx->adj[k] == skip)
      continue;
    const Edge *ed = &g->edges[nx->adj[k]];
    bool xu = ed->u == x;
    const Node *ny = &g->nodes[xu ? ed->v : ed->u];
    v = lypq_add(v, at(ed->m, xu, nx->n, ny->n, i, sel[ny->orig]));
  }
  return v;
}

/* The cost of a selection of what is alive, plus the constant. */
static int64_t alive_cost(const LypqGraph *g, const int *sel) {
  int64_t c = g->constant;
  for (int x = 0; x < g->nnodes; x++)
    if (g->nodes[x].alive)
      c = lypq_add(c, g->nodes[x].c[sel[g->nodes[x].orig]]);
  for (int e = 0; e < g->nedges; e++) {
    const Edge *ed = &g->edges[e];
    if (ed->alive)
      c = lypq_add(c, at(ed->m, true, g->nodes[ed->u].n, g->nodes[ed->v].n, sel[g->nodes[ed->u].orig],
                         sel[g->nodes[ed->v].orig]));
  }
  return c;
}

/* The two ends of edge e take the best pair of choices given their other
 * neighbours: a value and what it is tied to (its copy, the variant that
 * makes it) can only move together. True if the selection changed. */
static bool improve_pair(const LypqGraph *g, int e, int *sel) {
  const Edge *ed = &g->edges[e];
  const Node *nu = &g->nodes[ed->u], *nv = &g->nodes[ed->v];
  int64_t bu[64], bv[64];
  if (nu->n > 64 || nv->n > 64)
    return false;
  for (int i = 0; i < nu->n; i++)
    bu[i] = local_cost(g, ed->u, i, sel, e);
  for (int j = 0; j < nv->n; j++)
    bv[j] = local_cost(g, ed->v, j, sel, e);
  int su = sel[nu->orig], sv = sel[nv->orig], bi = su, bj = sv;
  int64_t best = lypq_add(lypq_add(bu[su], bv[sv]), ed->m[su * nv->n + sv]);
  for (int i = 0; i < nu->n; i++)
    for (int j = 0; j < nv->n && bu[i] < best; j++) {
      int64_t v = lypq_add(lypq_add(bu[i], bv[j]), ed->m[i * nv->n + j]);
      if (v < best)
        best = v, bi = i, bj = j;
    }
  sel[nu->orig] = bi, sel[nv->orig] = bj;
  return bi != su || bj != sv;
}

/* Local search on what is alive (sel by caller ids): each node takes its
 * best choice given its neighbours', then each edge's two ends their best
 * pair, in rounds until nothing changes or `rounds` are spent. Never
 * raises the cost; each round is counted as a copy of the graph. */
static void local_search(const LypqGraph *g, int *sel, int rounds, Search *s) {
  bool changed = true;
  for (int r = 0; r < rounds && changed; r++) {
    changed = false;
    s->work += alive_size(g);
    for (int x = 0; x < g->nnodes; x++) {
      const Node *nx = &g->nodes[x];
      if (!nx->alive)
        continue;
      int cur = sel[nx->orig], pick = cur;
      int64_t best = local_cost(g, x, cur, sel, -1);
      for (int i = 0; i < nx->n; i++) {
        int64_t v = local_cost(g, x, i, sel, -1);
        if (v < best)
          best = v, pick = i;
      }
      sel[nx->orig] = pick;
      changed |= pick != cur;
    }
    for (int e = 0; e < g->nedges; e++)
      if (g->edges[e].alive)
        changed |= improve_pair(g, e, sel);
  }
}

/* Local search from the incumbent on the root's core g (the reductions
 * before it are replayed by leaf); keeps the result if it is cheaper. */
static void polish(const LypqGraph *g, Search *s, int rounds) {
  memcpy(s->sel, s->best, (size_t)s->norig * sizeof *s->sel);
  local_search(g, s->sel, rounds, s);
  leaf(s, alive_cost(g, s->sel));
}

/* The first incumbent, before branch and bound: RN on a copy of the root's
 * core (after diffusion its local choices are good ones), then local
 * search. Branch and bound then prunes from its first branch, and stops at
 * the root when the bound already meets it. */
static bool first_incumbent(const LypqGraph *g, Search *s) {
  int *local = ly_malloc((size_t)g->nnodes * sizeof *local + 1);
  LypqGraph *h = local ? clone(g, local) : NULL;
  int mark = s->nsteps;
  bool ok = h != NULL;
  s->work += alive_size(g);
  while (ok && (ok = reduce(h, s)) && h->nalive)
    ok = rn_step(h, s);
  if (ok)
    leaf(s, h->constant);
  s->nsteps = mark;
  lypq_destroy(h);
  ly_free(local);
  if (ok && s->have_best)
    polish(g, s, LOCAL_SEARCH_ROUNDS);
  return ok;
}

static bool search(LypqGraph *g, Search *s) {
  for (;;) {
    if (!reduce(g, s))
      return false;
    if (!g->nalive) {
      leaf(s, g->constant);
      return true;
    }
    long size = alive_size(g);
    /* Without an incumbent, a search in which fewer than MIN_BRANCHES
     * copies of this graph fit cannot get anywhere: each level of the
     * descent to a first solution copies it again. RN then decides it in
     * place (linear), instead of spending the budget on copies first. */
    if (s->exhausted || s->work + size > s->budget ||
        (!s->have_best && size > (s->budget - s->work) / MIN_BRANCHES)) {
      /* Back to the incumbent, or make one with RN. */
      s->exhausted = true;
      if (s->have_best)
        return true;
      s->heuristic = true;
      if (!rn_step(g, s))
        return false;
      continue;
    }
    int64_t lb = diffuse(g, s, BRANCH_SWEEPS, s->have_best ? s->best_cost : LYPQ_INF);
    if (s->have_best && lb >= s->best_cost)
      return true;
    bool fixed = false;
    if (s->have_best && !tighten(g, s, lb, &fixed))
      return false;
    if (fixed)
      continue; /* reduce what the fixes left, and bound again */
    int x = branch_node(g), n = g->nodes[x].n;
    int *order = ly_malloc((size_t)(n + 2) * (sizeof(int) + sizeof(int64_t)) + (size_t)g->nnodes * sizeof(int));
    if (!order)
      return false;
    int64_t *est = (int64_t *)(order + n + (n & 1));
    int *local = (int *)(est + n);
    order_choices(g, x, order, est);
    bool ok = true;
    for (int k = 0; ok && k < n && !(s->exhausted && s->have_best); k++) {
      int i = order[k];
      if (k > 0 && est[i] >= LYPQ_INF)
        break;
      if (k > 0 && s->work + size > s->budget) {
        s->exhausted = true;
        break;
      }
      s->work += size;
      s->branches++;
      LypqGraph *h = clone(g, local);
      int mark = s->nsteps;
      ok = h && fix(h, local[x], i, s) && search(h, s);
      lypq_destroy(h);
      s->nsteps = mark;
    }
    ly_free(order);
    return ok;
  }
}

LyStatus lypq_solve(LypqGraph *g, long budget, int *sel, LypqResult *out) {
  memset(out, 0, sizeof *out);
  Search s = {.norig = g->nnodes, .budget = budget, .best_cost = LYPQ_INF, .sel = sel};
  /* Each step removes a node: at most one per node on any path. */
  s.steps = grow(NULL, &s.csteps, g->nnodes, sizeof *s.steps);
  s.best = ly_malloc((size_t)g->nnodes * sizeof *s.best + 1);
  bool ok = !g->oom && s.best && reduce(g, &s);
  int64_t root_lb = 0;
  bool branching = false;
  if (ok) {
    out->core = 0;
    for (int i = 0; i < g->nnodes; i++)
      out->core += g->nodes[i].alive;
    long size = alive_size(g);
    /* Where branch and bound will run, the root's bound after diffusion
     * (at most a quarter of the budget); else the plain one. */
    if (size <= budget / MIN_BRANCHES && size) {
      long sweeps = budget / 4 / size;
      root_lb = diffuse(g, &s, sweeps < ROOT_SWEEPS ? (int)sweeps : ROOT_SWEEPS, LYPQ_INF);
      branching = first_incumbent(g, &s);
      ok = branching;
    } else {
      root_lb = lower_bound(g);
    }
    ok = ok && search(g, &s);
    /* Stopped at the budget: the root's core is intact (branches work on
     * copies), so local search can still improve the best found. */
    if (ok && branching && s.exhausted)
      polish(g, &s, LOCAL_SEARCH_ROUNDS);
  }
  ok = ok && !s.oom;
  if (ok) {
    memcpy(sel, s.best, (size_t)g->nnodes * sizeof *sel);
    out->cost = s.best_cost;
    out->optimal = !s.exhausted && !s.heuristic;
    out->lower_bound = out->optimal ? s.best_cost : root_lb;
    out->branches = s.branches;
  }
  ly_free(s.best);
  ly_free(s.steps);
  return ok ? LY_OK : LY_ERROR_NOMEM;
}

/* --- Evaluation and the greedy baseline ------------------------------------------ */

int64_t lypq_eval(const LypqGraph *g, const int *sel) {
  int64_t c = g->constant;
  for (int i = 0; i < g->nnodes; i++)
    c = lypq_add(c, g->nodes[i].c[sel[i]]);
  for (int e = 0; e < g->nedges; e++) {
    const Edge *x = &g->edges[e];
    if (x->alive)
      c = lypq_add(c, x->m[sel[x->u] * g->nodes[x->v].n + sel[x->v]]);
  }
  return c;
}

/* Choice i of x against its neighbours: the chosen ones at their choice,
 * the others at their cheapest (one step of lookahead, no more). */
static int64_t greedy_cost(const LypqGraph *g, int x, int i, const int *sel) {
  const Node *nx = &g->nodes[x];
  int64_t v = nx->c[i];
  for (int k = 0; k < nx->nadj; k++) {
    const Edge *ed = &g->edges[nx->adj[k]];
    bool xu = ed->u == x;
    int y = xu ? ed->v : ed->u;
    const Node *ny = &g->nodes[y];
    if (sel[y] >= 0) {
      v = lypq_add(v, at(ed->m, xu, nx->n, ny->n, i, sel[y]));
      continue;
    }
    int64_t m = LYPQ_INF;
    for (int j = 0; j < ny->n; j++) {
      int64_t c = lypq_add(at(ed->m, xu, nx->n, ny->n, i, j), ny->c[j]);
      m = c < m ? c : m;
    }
    v = lypq_add(v, m);
  }
  return v;
}

void lypq_solve_greedy(const LypqGraph *g, const int *order, int *sel, LypqResult *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < g->nnodes; i++)
    sel[i] = -1;
  for (int at = 0; at < g->nnodes; at++) {
    int x = order ? order[at] : at;
    int64_t best = LYPQ_INF + 1;
    for (int i = 0; i < g->nodes[x].n; i++) {
      int64_t v = greedy_cost(g, x, i, sel);
      if (v < best)
        best = v, sel[x] = i;
    }
  }
  out->cost = lypq_eval(g, sel);
  out->lower_bound = 0;
}
