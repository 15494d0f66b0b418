/* dnnl_oracle: oneDNN's own answer for a format tag's geometry (test oracle, not product code).
 * Usage: dnnl_oracle TAG D0,D1,...  Prints "size_bytes: N" (f32), then each element's offset in
 * elements, one per line, in row-major logical order, as measured through a real reorder.
 *        dnnl_oracle --blocking TAG D0,D1,... [OFFSETS SIZES]  Prints the blocked memory
 * descriptor oneDNN builds for the tag (or for its submemory at OFFSETS of SIZES) as one JSON
 * object: padded_dims, padded_offsets, offset0, strides, inner_blks, inner_idxs. */
#include <dnnl.h>
#include <dnnl_debug.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sentinel written into the destination before the reorder: proves the reorder wrote every
 * position (elements with their value, padding with zero). */
#define SENTINEL INT32_MIN

static int die_dnnl(const char *what, dnnl_status_t st) {
  fprintf(stderr, "dnnl_oracle: %s failed: %s\n", what, dnnl_status2str(st));
  return 1;
}

/* oneDNN has no name-to-tag function; invert dnnl_fmt_tag2str over the whole enum. */
static int find_tag(const char *name, dnnl_format_tag_t *out) {
  for (int v = 1; v < (int)dnnl_format_tag_last; v++) {
    if (v == (int)dnnl_format_tag_any) /* "any" is not a layout: nothing to measure */
      continue;
    const char *s = dnnl_fmt_tag2str((dnnl_format_tag_t)v);
    if (s && strcmp(s, name) == 0) {
      *out = (dnnl_format_tag_t)v;
      return 1;
    }
  }
  return 0;
}

/* Parses "D0,D1,..." into positive dims; the product must fit the s32 values we store. */
static int parse_dims(const char *text, dnnl_dims_t dims, int *ndims, int64_t *numel) {
  const char *p = text;
  int n = 0;
  int64_t total = 1;
  for (;;) {
    if (n == DNNL_MAX_NDIMS) {
      fprintf(stderr, "dnnl_oracle: more than %d dims in '%s'\n", DNNL_MAX_NDIMS, text);
      return 0;
    }
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || errno || d <= 0 || d > INT32_MAX || (*end != ',' && *end != '\0')) {
      fprintf(stderr, "dnnl_oracle: bad dims '%s' (want positive integers like 2,3,4)\n", text);
      return 0;
    }
    if (__builtin_mul_overflow(total, (int64_t)d, &total) || total >= INT32_MAX) {
      fprintf(stderr, "dnnl_oracle: dims '%s' have too many elements\n", text);
      return 0;
    }
    dims[n++] = d;
    if (*end == '\0')
      break;
    p = end + 1;
  }
  *ndims = n;
  *numel = total;
  return 1;
}

/* Plain row-major tag of a rank: dnnl_a, dnnl_ab, ... (the enum lists them in order). */
static dnnl_format_tag_t plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {
      dnnl_a,       dnnl_ab,       dnnl_abc,       dnnl_abcd,       dnnl_abcde,       dnnl_abcdef,
      dnnl_abcdefg, dnnl_abcdefgh, dnnl_abcdefghi, dnnl_abcdefghij, dnnl_abcdefghijk, dnnl_abcdefghijkl};
  return tags[ndims - 1];
}

struct oracle {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  dnnl_memory_t src_mem, dst_mem;
  int32_t *src, *dst;
  int64_t *offset;
};

static void oracle_free(struct oracle *o) {
  if (o->prim) dnnl_primitive_destroy(o->prim);
  if (o->pd) dnnl_primitive_desc_destroy(o->pd);
  if (o->src_mem) dnnl_memory_destroy(o->src_mem);
  if (o->dst_mem) dnnl_memory_destroy(o->dst_mem);
  if (o->stream) dnnl_stream_destroy(o->stream);
  if (o->engine) dnnl_engine_destroy(o->engine);
  free(o->src);
  free(o->dst);
  free(o->offset);
}

/* Reorders linear_index+1 from row-major into TAG and reads each element's position back. */
static int measure(struct oracle *o, const dnnl_memory_desc_t *src_md, const dnnl_memory_desc_t *dst_md,
                   int64_t numel, size_t dst_len) {
  dnnl_status_t st;
  if ((st = dnnl_engine_create(&o->engine, dnnl_cpu, 0)) != dnnl_success)
    return die_dnnl("dnnl_engine_create", st);
  if ((st = dnnl_stream_create(&o->stream, o->engine, dnnl_stream_default_flags)) != dnnl_success)
    return die_dnnl("dnnl_stream_create", st);
  o->src = malloc((size_t)numel * sizeof(int32_t));
  o->dst = malloc(dst_len * sizeof(int32_t));
  o->offset = malloc((size_t)numel * sizeof(int64_t));
  if (!o->src || !o->dst || !o->offset) {
    fprintf(stderr, "dnnl_oracle: out of memory\n");
    return 1;
  }
  if ((st = dnnl_memory_create(&o->src_mem, src_md, o->engine, o->src)) != dnnl_success)
    return die_dnnl("dnnl_memory_create(src)", st);
  if ((st = dnnl_memory_create(&o->dst_mem, dst_md, o->engine, o->dst)) != dnnl_success)
    return die_dnnl("dnnl_memory_create(dst)", st);
  /* Fill after memory creation: oneDNN may zero-pad a buffer when it is attached. */
  for (int64_t i = 0; i < numel; i++)
    o->src[i] = (int32_t)(i + 1);
  for (size_t p = 0; p < dst_len; p++)
    o->dst[p] = SENTINEL;
  if ((st = dnnl_reorder_primitive_desc_create(&o->pd, src_md, o->engine, dst_md, o->engine, NULL)) != dnnl_success)
    return die_dnnl("dnnl_reorder_primitive_desc_create", st);
  if ((st = dnnl_primitive_create(&o->prim, o->pd)) != dnnl_success)
    return die_dnnl("dnnl_primitive_create", st);
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, o->src_mem}, {DNNL_ARG_TO, o->dst_mem}};
  if ((st = dnnl_primitive_execute(o->prim, o->stream, 2, args)) != dnnl_success)
    return die_dnnl("dnnl_primitive_execute", st);
  if ((st = dnnl_stream_wait(o->stream)) != dnnl_success)
    return die_dnnl("dnnl_stream_wait", st);
  return 0;
}

/* oneDNN's own address formula for a blocked desc (memory_desc_wrapper::off_v): inner blocks
 * innermost first, then outer strides. Cross-checks the measured offsets against the desc. */
static int64_t desc_offset(const dnnl_memory_desc_t *md, int64_t linear) {
  const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
  int64_t pos[DNNL_MAX_NDIMS];
  for (int d = md->ndims - 1; d >= 0; d--) {
    pos[d] = linear % md->dims[d];
    linear /= md->dims[d];
  }
  int64_t off = md->offset0, blk_stride = 1;
  for (int k = b->inner_nblks - 1; k >= 0; k--) {
    int d = (int)b->inner_idxs[k];
    off += (pos[d] % b->inner_blks[k]) * blk_stride;
    pos[d] /= b->inner_blks[k];
    blk_stride *= b->inner_blks[k];
  }
  for (int d = 0; d < md->ndims; d++)
    off += pos[d] * b->strides[d];
  return off;
}

/* Inverts the destination: every element exactly once, every other position zero. */
static int invert(struct oracle *o, int64_t numel, size_t dst_len) {
  for (int64_t i = 0; i < numel; i++)
    o->offset[i] = -1;
  for (size_t p = 0; p < dst_len; p++) {
    int32_t v = o->dst[p];
    if (v == 0)
      continue;
    if (v < 0 || v > numel) {
      fprintf(stderr, "dnnl_oracle: position %zu holds %d: %s\n", p, v,
              v == SENTINEL ? "not written by the reorder" : "not an element value");
      return 1;
    }
    if (o->offset[v - 1] >= 0) {
      fprintf(stderr, "dnnl_oracle: element %d found at positions %lld and %zu\n", v - 1,
              (long long)o->offset[v - 1], p);
      return 1;
    }
    o->offset[v - 1] = (int64_t)p;
  }
  for (int64_t i = 0; i < numel; i++)
    if (o->offset[i] < 0) {
      fprintf(stderr, "dnnl_oracle: element %lld missing from the destination\n", (long long)i);
      return 1;
    }
  return 0;
}

static int cross_check(const struct oracle *o, const dnnl_memory_desc_t *md, int64_t numel) {
  if (md->format_kind != dnnl_blocked) {
    fprintf(stderr, "dnnl_oracle: destination is not a blocked memory desc\n");
    return 1;
  }
  for (int64_t i = 0; i < numel; i++) {
    int64_t want = desc_offset(md, i);
    if (want != o->offset[i]) {
      fprintf(stderr, "dnnl_oracle: element %lld: reorder put it at %lld, the desc says %lld\n",
              (long long)i, (long long)o->offset[i], (long long)want);
      return 1;
    }
  }
  return 0;
}

static void print_dims_json(const char *key, const dnnl_dim_t *v, int n) {
  printf("\"%s\": [", key);
  for (int k = 0; k < n; k++)
    printf("%s%lld", k ? ", " : "", (long long)v[k]);
  printf("]");
}

/* --blocking: the descriptor's fields, straight from oneDNN's struct. */
static int blocking_main(int argc, char **argv) {
  dnnl_format_tag_t tag;
  dnnl_dims_t dims, offsets, sizes;
  int ndims, n2;
  int64_t numel;
  if (!find_tag(argv[2], &tag)) {
    fprintf(stderr, "dnnl_oracle: unknown oneDNN format tag '%s'\n", argv[2]);
    return 1;
  }
  if (!parse_dims(argv[3], dims, &ndims, &numel))
    return 1;
  dnnl_memory_desc_t md, sub;
  dnnl_status_t st;
  if ((st = dnnl_memory_desc_init_by_tag(&md, ndims, dims, dnnl_f32, tag)) != dnnl_success)
    return die_dnnl("dnnl_memory_desc_init_by_tag", st);
  if (argc == 6) {
    /* offsets may be 0: parse them shifted by one */
    if (!parse_dims(argv[5], sizes, &n2, &numel) || n2 != ndims)
      return 1;
    char *p = argv[4];
    for (int d = 0; d < ndims; d++) {
      offsets[d] = strtoll(p, &p, 10);
      if (*p == ',')
        p++;
    }
    if ((st = dnnl_memory_desc_init_submemory(&sub, &md, sizes, offsets)) != dnnl_success)
      return die_dnnl("dnnl_memory_desc_init_submemory", st);
    md = sub;
  }
  const dnnl_blocking_desc_t *b = &md.format_desc.blocking;
  printf("{");
  print_dims_json("padded_dims", md.padded_dims, ndims);
  printf(", ");
  print_dims_json("padded_offsets", md.padded_offsets, ndims);
  printf(", \"offset0\": %lld, ", (long long)md.offset0);
  print_dims_json("strides", b->strides, ndims);
  printf(", ");
  print_dims_json("inner_blks", b->inner_blks, b->inner_nblks);
  printf(", ");
  print_dims_json("inner_idxs", b->inner_idxs, b->inner_nblks);
  printf("}\n");
  return 0;
}

int main(int argc, char **argv) {
  if ((argc == 4 || argc == 6) && !strcmp(argv[1], "--blocking"))
    return blocking_main(argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: dnnl_oracle TAG D0,D1,...   (TAG is a oneDNN abstract tag, e.g. aBcd16b)\n");
    return 2;
  }
  dnnl_format_tag_t tag;
  if (!find_tag(argv[1], &tag)) {
    fprintf(stderr, "dnnl_oracle: unknown oneDNN format tag '%s'\n", argv[1]);
    return 1;
  }
  dnnl_dims_t dims;
  int ndims;
  int64_t numel;
  if (!parse_dims(argv[2], dims, &ndims, &numel))
    return 1;

  dnnl_memory_desc_t src_md, dst_md, f32_md;
  dnnl_status_t st;
  if ((st = dnnl_memory_desc_init_by_tag(&src_md, ndims, dims, dnnl_s32, plain_tag(ndims))) != dnnl_success)
    return die_dnnl("dnnl_memory_desc_init_by_tag(src)", st);
  if ((st = dnnl_memory_desc_init_by_tag(&dst_md, ndims, dims, dnnl_s32, tag)) != dnnl_success) {
    fprintf(stderr, "dnnl_oracle: tag '%s' does not fit %d dims '%s'\n", argv[1], ndims, argv[2]);
    return die_dnnl("dnnl_memory_desc_init_by_tag(dst)", st);
  }
  if ((st = dnnl_memory_desc_init_by_tag(&f32_md, ndims, dims, dnnl_f32, tag)) != dnnl_success)
    return die_dnnl("dnnl_memory_desc_init_by_tag(f32)", st);
  size_t f32_bytes = dnnl_memory_desc_get_size(&f32_md);
  size_t dst_bytes = dnnl_memory_desc_get_size(&dst_md);
  if (dst_bytes == 0 || dst_bytes % sizeof(int32_t) != 0 || dst_md.offset0 != 0) {
    fprintf(stderr, "dnnl_oracle: unexpected destination size %zu / offset %lld\n", dst_bytes,
            (long long)dst_md.offset0);
    return 1;
  }
  size_t dst_len = dst_bytes / sizeof(int32_t);

  struct oracle o = {0};
  int rc = measure(&o, &src_md, &dst_md, numel, dst_len);
  if (rc == 0)
    rc = invert(&o, numel, dst_len);
  if (rc == 0)
    rc = cross_check(&o, &dst_md, numel);
  if (rc == 0) {
    printf("size_bytes: %zu\n", f32_bytes);
    for (int64_t i = 0; i < numel; i++)
      printf("%lld\n", (long long)o.offset[i]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "dnnl_oracle: write error on stdout\n");
      rc = 1;
    }
  }
  oracle_free(&o);
  return rc;
}
