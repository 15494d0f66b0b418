/* codegen/grouped: oneDNN's grouped encoding (Mixture-of-Experts) to and from
 * the padded dense tensor, one group per slice of a new outer dim. Every
 * group is a run of whole slabs along the variable dim, so both directions
 * are contiguous copies (memcpy, which streams past the cache on large
 * runs) plus zeroing of the padding: no element loop. */
#include "codegen/codegen.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The pair's geometry in bytes: the values are the row-major tensor of the
 * grouped type's dims, group g the rows [off[g-1], off[g]) of dim d; the
 * padded tensor is G x (dims with dim d widened to pad), row-major. */
typedef struct {
  int dim, width;      /* the variable dim; bytes of one offset */
  int64_t groups;      /* G */
  int64_t total, pad;  /* rows of dim d in the values, in each padded group */
  int64_t outer, row;  /* slabs before dim d; bytes of one row (the dims after d) */
} GroupedGeo;

static LyStatus gfail(LyCtx *c, LyStatus s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static LyStatus gfail(LyCtx *c, LyStatus s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ly_diag_vemit(&c->diag, LY_SEVERITY_ERROR, NULL, (LyLoc){0, 0}, fmt, ap);
  va_end(ap);
  return s;
}

/* The padded type the grouped one expects, with P for the padded extent. */
static void padded_text(LyType g, char *out, size_t size) {
  int rank = lyTypeGetRank(g), d = lyTypeGetGroupedDim(g);
  size_t k = (size_t)snprintf(out, size, "tensor<%" PRId64, lyTypeGetGroupCount(g));
  for (int i = 0; i < rank && k < size; i++)
    k += i == d ? (size_t)snprintf(out + k, size - k, "xP")
                : (size_t)snprintf(out + k, size - k, "x%" PRId64, lyTypeGetDim(g, i));
  if (k < size)
    snprintf(out + k, size - k, "x%s>", lyElemGetName(lyTypeGetElement(g)));
}

static LyStatus pair_error(LyCtx *c, LyType g, const char *what) {
  char want[256];
  padded_text(g, want, sizeof want);
  return gfail(c, LY_ERROR_INVALID, "the padded tensor of a grouped type is the row-major %s (the groups, then its "
               "dims with dim %d padded to P >= the largest group): %s", want, lyTypeGetGroupedDim(g), what);
}

/* Checks the pair and computes its geometry. */
static LyStatus geometry(LyCtx *c, LyType g, LyType p, GroupedGeo *o) {
  if (lyTypeGetEncoding(g) != LY_ENCODING_GROUPED)
    return gfail(c, LY_ERROR_INVALID, "a grouped <-> padded conversion needs a grouped<variable_dim: D, groups: G> "
                 "type");
  int rank = lyTypeGetRank(g), eb = lyElemGetBits(lyTypeGetElement(g));
  for (int i = 0; i < rank; i++)
    if (lyTypeGetDim(g, i) == LY_DYNAMIC)
      return gfail(c, LY_ERROR_DYNAMIC, "cannot convert a grouped tensor with dynamic ('?') dims");
  if (eb < 8 || eb % 8)
    return gfail(c, LY_ERROR_INVALID, "grouped values of %s are not byte-sized",
                 lyElemGetName(lyTypeGetElement(g)));
  char what[160];
  *o = (GroupedGeo){.dim = lyTypeGetGroupedDim(g), .width = lyElemGetBits(lyTypeGetBufferElement(g, 0)) / 8,
                    .groups = lyTypeGetGroupCount(g), .outer = 1, .row = eb / 8};
  if (lyTypeGetEncoding(p) != LY_ENCODING_NONE || !lyTypeIsContiguous(p))
    return pair_error(c, g, "the other type is not a row-major dense tensor");
  if (lyTypeGetRank(p) != rank + 1 || lyTypeGetElement(p) != lyTypeGetElement(g)) {
    snprintf(what, sizeof what, "the other type has rank %d and element %s", lyTypeGetRank(p),
             lyElemGetName(lyTypeGetElement(p)));
    return pair_error(c, g, what);
  }
  for (int i = 0; i <= rank; i++) {
    int64_t want = i == 0 ? o->groups : lyTypeGetDim(g, i - 1), got = lyTypeGetDim(p, i);
    if (i == o->dim + 1 ? got < 0 : got != want) {
      snprintf(what, sizeof what, "its dim %d is %" PRId64 ", not %" PRId64, i, got, want);
      return pair_error(c, g, what);
    }
  }
  o->total = lyTypeGetDim(g, o->dim);
  o->pad = lyTypeGetDim(p, o->dim + 1);
  for (int i = 0; i < rank; i++) /* within the padded tensor's size: no overflow */
    if (i < o->dim)
      o->outer *= lyTypeGetDim(g, i);
    else if (i > o->dim)
      o->row *= lyTypeGetDim(g, i);
  return LY_OK;
}

static int64_t load_offset(const uint8_t *b, int width, int64_t g) {
  uint64_t v = lyc_load_uint(b, 8 * width, g); /* signed (oneDNN's s32) */
  int sh = 64 - 8 * width;
  return sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

/* Offsets are oneDNN's: G cumulative ends, monotone, the last the total,
 * each group at most the padded extent. Each fault names the entry. */
static LyStatus check_offsets(LyCtx *c, const GroupedGeo *o, const void *offsets) {
  int64_t prev = 0;
  for (int64_t g = 0; g < o->groups; g++) {
    int64_t v = load_offset(offsets, o->width, g);
    if (v < prev)
      return g ? gfail(c, LY_ERROR_INVALID, "grouped buffer 0 (offsets): entry %" PRId64 " is %" PRId64
                       ", below entry %" PRId64 " (%" PRId64 "): offsets are cumulative", g, v, g - 1, prev)
               : gfail(c, LY_ERROR_INVALID, "grouped buffer 0 (offsets): entry 0 is %" PRId64 ", negative", v);
    if (v > o->total)
      return gfail(c, LY_ERROR_INVALID, "grouped buffer 0 (offsets): entry %" PRId64 " is %" PRId64
                   ", beyond the %" PRId64 " rows of dim %d", g, v, o->total, o->dim);
    if (v - prev > o->pad)
      return gfail(c, LY_ERROR_INVALID, "group %" PRId64 " has %" PRId64 " rows of dim %d (offsets %" PRId64
                   " to %" PRId64 "), more than the padded extent %" PRId64, g, v - prev, o->dim, prev, v, o->pad);
    prev = v;
  }
  if (prev != o->total)
    return gfail(c, LY_ERROR_INVALID, "grouped buffer 0 (offsets): the last entry is %" PRId64 ", not the %" PRId64
                 " rows of dim %d", prev, o->total, o->dim);
  return LY_OK;
}

/* Group g's rows of slab s: their byte offsets in the values and the
 * padded tensor, and their bytes. */
static void group_run(const GroupedGeo *o, int64_t start, int64_t g, int64_t s, int64_t *val, int64_t *pad) {
  *val = (s * o->total + start) * o->row;
  *pad = ((g * o->outer + s) * o->pad) * o->row;
}

/* The runs' streaming store width (lyc_copy), 0 when they stay in the
 * cache: the padded tensor and the values together against the planner's
 * rule. */
static int streams(const GroupedGeo *o) {
  int64_t bytes = o->groups * o->outer * o->pad * o->row + o->outer * o->total * o->row;
  if (bytes < (1 << 20)) /* resident on any host; spares the target's queries */
    return 0;
  LycTarget t;
  lyc_host_target(&t);
  return lyc_target_resident(&t, bytes) ? 0 : lyc_stream_bytes();
}

LyStatus lyGroupedToPadded(LyContext ctx, LyType grouped, LyType padded, const void *offsets, const void *values,
                           void *out) {
  LyCtx *c = lyd_ctx(ctx);
  GroupedGeo o;
  LyStatus st = geometry(c, grouped, padded, &o);
  if (st == LY_OK && offsets)
    st = check_offsets(c, &o, offsets);
  int64_t start = 0;
  int nt = st == LY_OK ? streams(&o) : 0;
  for (int64_t g = 0; st == LY_OK && offsets && g < o.groups; g++) {
    int64_t end = load_offset(offsets, o.width, g), n = (end - start) * o.row, v, p;
    for (int64_t s = 0; s < o.outer; s++) {
      group_run(&o, start, g, s, &v, &p);
      if (n) /* an empty group may come with no values buffer at all */
        lyc_copy((uint8_t *)out + p, (const uint8_t *)values + v, (size_t)n, nt);
      lyc_zero((uint8_t *)out + p + n, (size_t)(o.pad * o.row - n), nt); /* the padding rows */
    }
    start = end;
  }
  return st;
}

LyStatus lyGroupedFromPadded(LyContext ctx, LyType grouped, LyType padded, const void *offsets, const void *in,
                             void *values) {
  LyCtx *c = lyd_ctx(ctx);
  GroupedGeo o;
  LyStatus st = geometry(c, grouped, padded, &o);
  if (st == LY_OK)
    st = check_offsets(c, &o, offsets);
  int64_t start = 0;
  int nt = st == LY_OK ? streams(&o) : 0;
  for (int64_t g = 0; st == LY_OK && g < o.groups; g++) {
    int64_t end = load_offset(offsets, o.width, g), n = (end - start) * o.row, v, p;
    for (int64_t s = 0; s < o.outer; s++) {
      group_run(&o, start, g, s, &v, &p);
      if (n)
        lyc_copy((uint8_t *)values + v, (const uint8_t *)in + p, (size_t)n, nt);
    }
    start = end;
  }
  return st;
}
