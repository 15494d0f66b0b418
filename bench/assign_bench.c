/* assign_bench: times assign-layouts (exact, greedy, row-major) on
 * ResNet-like and transformer-like functions of about 1k, 10k and 100k
 * ops, and writes the two real graphs of examples/ (--emit resnet50 |
 * transformer). The graphs carry oneDNN-style variants: blocked nChw16c /
 * OIhw16i16o, nhwc / hwio and plain convolutions, matmuls with
 * transposed-weight variants, attention heads reshaped and transposed.
 * Costs are in bytes-equivalent: multiply-adds over a throughput per
 * variant, so variants differ per layer.
 *
 * Usage: assign_bench [--emit resnet50|transformer [SCALE]] [--sizes 1000,10000,100000] */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layoutc/ir.h"

typedef struct {
  FILE *args, *body;
  char *args_text, *body_text;
  size_t args_len, body_len;
  int nargs, nvals, nops;
  char (*type)[96]; /* per value */
  int cap;
} Gen;

static void gen_init(Gen *g) {
  memset(g, 0, sizeof *g);
  g->args = open_memstream(&g->args_text, &g->args_len);
  g->body = open_memstream(&g->body_text, &g->body_len);
}

static int new_value(Gen *g, const char *type_in) {
  char type[96]; /* type_in may point into g->type, which may move */
  snprintf(type, sizeof type, "%s", type_in);
  if (g->nvals == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 1024;
    g->type = realloc(g->type, (size_t)g->cap * sizeof *g->type);
    if (!g->type)
      abort();
  }
  snprintf(g->type[g->nvals], sizeof g->type[0], "%s", type);
  return g->nvals++;
}

/* Arguments are values too: %vN like every other. */
static int arg(Gen *g, const char *type) {
  int v = new_value(g, type);
  fprintf(g->args, "%s%%v%d: %s", g->nargs++ ? ", " : "", v, type);
  return v;
}

static char *act4(char *buf, int c, int h, int w) {
  sprintf(buf, "tensor<1x%dx%dx%dxf32, any>", c, h, w);
  return buf;
}

/* --- ResNet ------------------------------------------------------------------------ */

/* A convolution with its variants; weights arrive plain (oihw) from the
 * framework, so the blocked and hwio variants pay for their weight copy. */
static int conv(Gen *g, int x, int c, int h, int w, int o, int k, int s, bool stem) {
  char wt[96], rt[96];
  sprintf(wt, "tensor<%dx%dx%dx%dxf32>", o, c, k, k);
  int wv = arg(g, wt);
  int ho = (h + s - 1) / s, wo = (w + s - 1) / s;
  long long macs = (long long)o * ho * wo * c * k * k;
  int r = new_value(g, act4(rt, o, ho, wo));
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"conv%dx%d\", variants = [[\"nChw16c\", \"OIhw16i16o\", "
          "\"nChw16c\", %lld], [\"nhwc\", \"hwio\", \"nhwc\", %lld], [\"nchw\", \"oihw\", \"nchw\", %lld]",
          r, x, wv, k, k, macs / 64, k == 1 ? macs / 60 : macs / 40, macs / 16);
  if (stem) /* oneDNN's first convolution: plain source, blocked destination */
    fprintf(g->body, ", [\"nchw\", \"Ohwi16o\", \"nChw16c\", %lld]", macs / 56);
  fprintf(g->body, "]} : (%s, %s) -> %s\n", g->type[x], wt, rt);
  g->nops++;
  return r;
}

static int pool(Gen *g, const char *name, int x, int c, int h, int w, int ho, int wo) {
  char rt[96];
  int r = new_value(g, act4(rt, c, ho, wo));
  long long n = (long long)c * h * w;
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d) {name = \"%s\", variants = [[\"nChw16c\", \"nChw16c\", %lld], [\"nhwc\", "
          "\"nhwc\", %lld], [\"nchw\", \"nchw\", %lld]]} : (%s) -> %s\n",
          r, x, name, n / 8, n / 6, n / 2, g->type[x], rt);
  g->nops++;
  return r;
}

static int add_relu(Gen *g, int a, int b) {
  int r = new_value(g, g->type[a]);
  fprintf(g->body, "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"add_relu\", elementwise = true} : (%s, %s) -> %s\n",
          r, a, b, g->type[a], g->type[b], g->type[a]);
  g->nops++;
  return r;
}

/* A bottleneck block: 1x1, 3x3 (strided), 1x1, and a projection on the
 * shortcut when the shape changes; the residual add is elementwise. */
static int bottleneck(Gen *g, int x, int *c, int *h, int *w, int width, int s) {
  int out = 4 * width;
  int a = conv(g, x, *c, *h, *w, width, 1, 1, false);
  int b = conv(g, a, width, *h, *w, width, 3, s, false);
  int ho = (*h + s - 1) / s, wo = (*w + s - 1) / s;
  int d = conv(g, b, width, ho, wo, out, 1, 1, false);
  int sc = x;
  if (*c != out || s != 1)
    sc = conv(g, x, *c, *h, *w, out, 1, s, false);
  *c = out, *h = ho, *w = wo;
  return add_relu(g, d, sc);
}

/* ResNet-50 (stages 3, 4, 6, 3) for repeat = 1; more repeats of the last
 * three stages make the larger benchmark graphs. */
static void resnet(Gen *g, int repeat, int *result) {
  int x = arg(g, "tensor<1x3x224x224xf32>");
  int c = 3, h = 224, w = 224;
  int v = conv(g, x, c, h, w, 64, 7, 2, true);
  c = 64, h = 112, w = 112;
  v = pool(g, "maxpool", v, c, h, w, 56, 56);
  h = w = 56;
  static const int blocks[4] = {3, 4, 6, 3}, widths[4] = {64, 128, 256, 512};
  for (int st = 0; st < 4; st++)
    for (int b = 0; b < blocks[st] * (st ? repeat : 1); b++)
      v = bottleneck(g, v, &c, &h, &w, widths[st], b == 0 && st ? 2 : 1);
  v = pool(g, "avgpool", v, c, h, w, 1, 1);
  char rt[96];
  int flat = new_value(g, "tensor<1x2048xf32, any>");
  fprintf(g->body, "  %%v%d = \"layout.reshape\"(%%v%d) : (%s) -> %s\n", flat, v, g->type[v], g->type[flat]);
  int wv = arg(g, "tensor<2048x1000xf32>");
  sprintf(rt, "tensor<1x1000xf32, any>");
  int fc = new_value(g, rt);
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"fc\", variants = [[\"ab\", \"ab\", \"ab\", 64000], "
          "[\"ab\", \"ba\", \"ab\", 32000]]} : (%s, tensor<2048x1000xf32>) -> %s\n",
          fc, flat, wv, g->type[flat], rt);
  int out = new_value(g, "tensor<1x1000xf32>");
  fprintf(g->body, "  %%v%d = \"layout.relayout\"(%%v%d) : (%s) -> tensor<1x1000xf32>\n", out, fc, rt);
  g->nops += 3;
  *result = out;
}

/* --- Transformer ------------------------------------------------------------------- */

enum { SEQ = 128, HID = 768, HEADS = 12, DH = 64, FFN = 3072 };

/* x[S,K] times W[K,N]: plain, transposed weights (the weight read as its
 * transpose, faster), or blocked weights. Weights are `any`: the compiler
 * may prepack them. */
static int matmul(Gen *g, int x, int k, int n) {
  char wt[96], rt[96];
  sprintf(wt, "tensor<%dx%dxf32, any>", k, n);
  int wv = arg(g, wt);
  sprintf(rt, "tensor<%dx%dxf32, any>", SEQ, n);
  int r = new_value(g, rt);
  long long macs = (long long)SEQ * k * n;
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"matmul\", variants = [[\"ab\", \"ab\", \"ab\", %lld], "
          "[\"ab\", \"ba\", \"ab\", %lld], [\"ab\", \"AB16b16a\", \"ab\", %lld]]} : (%s, %s) -> %s\n",
          r, x, wv, macs / 16, macs / 24, macs / 20, g->type[x], wt, rt);
  g->nops++;
  return r;
}

static int unary(Gen *g, const char *op, int x, const char *attrs, const char *rt) {
  int r = new_value(g, rt);
  fprintf(g->body, "  %%v%d = \"%s\"(%%v%d)%s : (%s) -> %s\n", r, op, x, attrs, g->type[x], rt);
  g->nops++;
  return r;
}

static int eltwise(Gen *g, const char *name, int a, int b) {
  int r = new_value(g, g->type[a]);
  if (b >= 0)
    fprintf(g->body, "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"%s\", elementwise = true} : (%s, %s) -> %s\n", r,
            a, b, name, g->type[a], g->type[b], g->type[a]);
  else
    fprintf(g->body, "  %%v%d = \"layout.op\"(%%v%d) {name = \"%s\", elementwise = true} : (%s) -> %s\n", r, a, name,
            g->type[a], g->type[a]);
  g->nops++;
  return r;
}

static int layernorm(Gen *g, int x) {
  int r = new_value(g, g->type[x]);
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d) {name = \"layernorm\", variants = [[\"ab\", \"ab\", %d], [\"ba\", \"ab\", "
          "%d]]} : (%s) -> %s\n",
          r, x, SEQ * HID / 2, SEQ * HID * 2, g->type[x], g->type[x]);
  g->nops++;
  return r;
}

/* Heads: [S, H*D] -> [S, H, D] -> [H, S, D] (MLIR permutation [1, 0, 2]);
 * keys go on to [H, D, S] ([1, 2, 0]). */
static int heads(Gen *g, int x, bool keys) {
  char t3[96], th[96];
  sprintf(t3, "tensor<%dx%dx%dxf32, any>", SEQ, HEADS, DH);
  int r = unary(g, "layout.reshape", x, "", t3);
  if (keys) {
    sprintf(th, "tensor<%dx%dx%dxf32, any>", HEADS, DH, SEQ);
    return unary(g, "layout.transpose", r, " {permutation = [1, 2, 0]}", th);
  }
  sprintf(th, "tensor<%dx%dx%dxf32, any>", HEADS, SEQ, DH);
  return unary(g, "layout.transpose", r, " {permutation = [1, 0, 2]}", th);
}

/* A batched matmul that reads strided (transposed) operands directly, a
 * little slower than on contiguous ones; `lr`, if given, is a variant that
 * also writes its result strided (the heads merged back in place), slower
 * still. */
static int bmm(Gen *g, int a, int b, const char *la, const char *lb, const char *lr, const char *rt, long long macs) {
  int r = new_value(g, rt);
  fprintf(g->body,
          "  %%v%d = \"layout.op\"(%%v%d, %%v%d) {name = \"bmm\", variants = [[\"abc\", \"abc\", \"abc\", %lld], "
          "[\"%s\", \"%s\", \"abc\", %lld]",
          r, a, b, macs / 16, la, lb, macs / 14);
  if (lr)
    fprintf(g->body, ", [\"%s\", \"%s\", \"%s\", %lld]", la, lb, lr, macs / 13);
  fprintf(g->body, "]} : (%s, %s) -> %s\n", g->type[a], g->type[b], rt);
  g->nops++;
  return r;
}

/* One BERT-base encoder layer. */
static int encoder(Gen *g, int x) {
  int q = heads(g, matmul(g, x, HID, HID), false);
  int k = heads(g, matmul(g, x, HID, HID), true);
  int v = heads(g, matmul(g, x, HID, HID), false);
  char st[96], ct[96], c3[96], c2[96];
  sprintf(st, "tensor<%dx%dx%dxf32, any>", HEADS, SEQ, SEQ);
  int s = bmm(g, q, k, "bac", "cab", NULL, st, (long long)HEADS * SEQ * SEQ * DH);
  s = eltwise(g, "softmax", s, -1);
  sprintf(ct, "tensor<%dx%dx%dxf32, any>", HEADS, SEQ, DH);
  int c = bmm(g, s, v, "abc", "bac", "bac", ct, (long long)HEADS * SEQ * SEQ * DH);
  sprintf(c3, "tensor<%dx%dx%dxf32, any>", SEQ, HEADS, DH);
  c = unary(g, "layout.transpose", c, " {permutation = [1, 0, 2]}", c3);
  sprintf(c2, "tensor<%dx%dxf32, any>", SEQ, HID);
  c = unary(g, "layout.reshape", c, "", c2);
  int o = matmul(g, c, HID, HID);
  int h = layernorm(g, eltwise(g, "add", o, x));
  int f = eltwise(g, "gelu", matmul(g, h, HID, FFN), -1);
  f = matmul(g, f, FFN, HID);
  return layernorm(g, eltwise(g, "add", f, h));
}

static void transformer(Gen *g, int layers, int *result) {
  char t[96];
  sprintf(t, "tensor<%dx%dxf32>", SEQ, HID);
  int x = arg(g, t);
  for (int l = 0; l < layers; l++)
    x = encoder(g, x);
  int out = new_value(g, t);
  fprintf(g->body, "  %%v%d = \"layout.relayout\"(%%v%d) : (%s) -> %s\n", out, x, g->type[x], t);
  g->nops++;
  *result = out;
}

/* --- Driver ------------------------------------------------------------------------ */

static char *finish(Gen *g, const char *name, int result) {
  fprintf(g->body, "  \"func.return\"(%%v%d) : (%s) -> ()\n}\n", result, g->type[result]);
  fclose(g->args);
  fclose(g->body);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  fprintf(f, "func.func @%s(%s) -> %s {\n%s", name, g->args_text, g->type[result], g->body_text);
  fclose(f);
  free(g->args_text);
  free(g->body_text);
  free(g->type);
  return text;
}

static char *build(const char *kind, int scale, int *nops) {
  Gen g;
  gen_init(&g);
  int r;
  if (!strcmp(kind, "resnet"))
    resnet(&g, scale, &r);
  else
    transformer(&g, scale, &r);
  *nops = g.nops + 1;
  return finish(&g, kind, r);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void ignore(const LyDiagnostic *d, void *user) { (void)d, (void)user; }

/* Parses text and times the pass; returns seconds, or -1 on failure. */
static double time_pass(const char *text, unsigned flags) {
  LyContext ctx = lyContextCreate();
  lyContextSetDiagnosticHandler(ctx, ignore, NULL);
  LyModule m = lyModuleParse(ctx, text, strlen(text), "bench");
  double t = -1;
  if (!lyModuleIsNull(m) && lyModuleVerify(m) == LY_OK) {
    double t0 = now();
    if (lyModuleRunPass(m, "assign-layouts", flags) == LY_OK)
      t = now() - t0;
  }
  lyModuleDestroy(m);
  lyContextDestroy(ctx);
  return t;
}

static int ops_at(const char *kind, int scale) {
  int ops;
  free(build(kind, scale, &ops));
  return ops;
}

/* The smallest scale that gives at least n ops (ops grow with the scale):
 * doubling, then bisection. */
static int scale_for(const char *kind, int n) {
  int hi = 1;
  while (ops_at(kind, hi) < n)
    hi *= 2;
  int lo = hi / 2;
  while (lo + 1 < hi) {
    int mid = lo + (hi - lo) / 2;
    if (ops_at(kind, mid) >= n)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

int main(int argc, char **argv) {
  if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--emit")) {
    int ops; /* a third argument scales the graph (repeated blocks or layers) */
    char *text = build(!strcmp(argv[2], "resnet50") ? "resnet" : "transformer", argc == 4 ? atoi(argv[3]) : 1, &ops);
    fputs(text, stdout);
    free(text);
    return 0;
  }
  int sizes[8] = {1000, 10000, 100000}, nsizes = 3;
  if (argc == 3 && !strcmp(argv[1], "--sizes")) {
    nsizes = 0;
    for (char *s = strtok(argv[2], ","); s && nsizes < 8; s = strtok(NULL, ","))
      sizes[nsizes++] = atoi(s);
  }
  static const char *const kinds[] = {"resnet", "transformer"};
  printf("%-12s %8s %10s %10s %10s\n", "graph", "ops", "exact_s", "greedy_s", "rowmajor_s");
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < nsizes; i++) {
      int ops;
      char *text = build(kinds[k], scale_for(kinds[k], sizes[i]), &ops);
      printf("%-12s %8d %10.3f %10.3f %10.3f\n", kinds[k], ops, time_pass(text, LY_PASS_DEFAULT),
             time_pass(text, LY_PASS_ASSIGN_GREEDY), time_pass(text, LY_PASS_ASSIGN_ROW_MAJOR));
      fflush(stdout);
      free(text);
    }
  return 0;
}
