/* bench_parse: times lyTypeParse on large type strings of several shapes at
 * 64 KiB, 256 KiB and 1 MiB and checks that the time grows linearly with the
 * size (issue 5: a 1 MB type string parses, or is refused, in linear time).
 * In-process, so the figures are the parser's and not process start-up.
 *
 * usage: bench_parse [KIB ...]      (default 64 256 1024)
 * Prints, per shape, the outcome and the best time at each size, the time
 * per byte at the smallest and largest size and their ratio; exits 1 when a
 * ratio exceeds 3 on a shape whose largest time is above 1 ms (a quadratic
 * parser gives 16 between 64 KiB and 1 MiB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layoutc/layoutc.h"

typedef struct {
  const char *name, *head, *fill, *tail;
} Shape;

static const Shape shapes[] = {
    {"long whitespace", "tensor<4xf32, strided<[", " ", "1]>>"},
    {"many newlines", "tensor<4xf32,", "\n", "strided<[1]>>"},
    {"long comment", "// ", "c", "\ntensor<4xf32>"},
    {"many comment lines", "", "// c\n", "tensor<4xf32>"},
    {"long tag block (zero-padded)", "tensor<4x32xf32, \"aB", "0", "16b\">"},
    {"long dim (zero-padded)", "tensor<", "0", "4xf32>"},
    {"long memspace string", "tensor<4xf32, memspace<\"", "m", "\">>"},
    {"long tag string (refused)", "tensor<4xf32, \"", "a", "\">"},
    {"many dims (refused)", "tensor<", "1x", "f32>"},
    {"deep '(' (refused)", "tensor<4xf32, layout<[", "(", ""},
    {"deep '<' (refused)", "tensor", "<", ""},
    {"many '>' (refused)", "tensor<4xf32", ">", ""},
    {"bad byte at the end (refused)", "tensor<4xf32,", " ", "#>"},
    {"bad byte after many lines", "tensor<4xf32,", "\n", "#>"},
    {"unclosed string (refused)", "tensor<4xf32, \"", "a", ""},
};

static char *build(const Shape *s, size_t n, size_t *len) {
  size_t h = strlen(s->head), f = strlen(s->fill), t = strlen(s->tail);
  size_t k = n > h + t ? (n - h - t) / f : 0;
  char *p = malloc(h + k * f + t + 1), *q = p;
  if (!p)
    abort();
  memcpy(q, s->head, h), q += h;
  for (size_t i = 0; i < k; i++)
    memcpy(q, s->fill, f), q += f;
  memcpy(q, s->tail, t), q += t;
  *q = 0;
  *len = (size_t)(q - p);
  return p;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char first_error[96];
static void keep_first(const LyDiagnostic *d, void *user) {
  (void)user;
  if (!first_error[0] && d->severity == LY_SEVERITY_ERROR)
    snprintf(first_error, sizeof first_error, "%s", d->message);
}

/* Best time of at least 5 runs and at least 0.2 s in total. */
static double time_parse(const char *text, size_t len, int *ok) {
  double best = 1e30, total = 0;
  for (int rep = 0; rep < 5 || total < 0.2; rep++) {
    LyContext c = lyContextCreate();
    lyContextSetDiagnosticHandler(c, keep_first, NULL);
    first_error[0] = 0;
    double t0 = now();
    LyType t = lyTypeParse(c, text, len, NULL);
    double dt = now() - t0;
    *ok = !lyTypeIsNull(t);
    lyContextDestroy(c);
    best = dt < best ? dt : best;
    total += dt;
    if (rep > 1000)
      break;
  }
  return best;
}

int main(int argc, char **argv) {
  size_t sizes[8] = {64 << 10, 256 << 10, 1 << 20};
  int nsizes = 3;
  if (argc > 1) {
    nsizes = 0;
    for (int i = 1; i < argc && nsizes < 8; i++)
      sizes[nsizes++] = (size_t)strtoul(argv[i], NULL, 10) << 10;
  }
  printf("%-30s", "shape");
  for (int i = 0; i < nsizes; i++)
    printf(" %8zuK", sizes[i] >> 10);
  printf("  ns/B first  ns/B last  ratio  outcome\n");
  int bad = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    double t[8];
    int ok = 0;
    char outcome[96] = "";
    for (int i = 0; i < nsizes; i++) {
      size_t len;
      char *text = build(&shapes[s], sizes[i], &len);
      t[i] = time_parse(text, len, &ok);
      if (i == nsizes - 1)
        snprintf(outcome, sizeof outcome, "%s", ok ? "parsed" : first_error);
      free(text);
    }
    double first = t[0] / sizes[0] * 1e9, last = t[nsizes - 1] / sizes[nsizes - 1] * 1e9;
    double ratio = last / first;
    printf("%-30s", shapes[s].name);
    for (int i = 0; i < nsizes; i++)
      printf(" %7.3fms", t[i] * 1e3);
    const char *flag = t[nsizes - 1] > 1e-3 && ratio > 3 ? "  SUPERLINEAR" : "";
    bad |= *flag != 0;
    printf("  %10.3f %10.3f %6.2f  %.60s%s\n", first, last, ratio, outcome, flag);
  }
  return bad;
}
