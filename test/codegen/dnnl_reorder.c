/* dnnl_reorder: oneDNN's reorder as a test oracle for `layoutc repack` (not product code).
 * Usage: dnnl_reorder SRC_TAG DST_TAG D0,D1,... SRC_DT DST_DT IN OUT
 * Tags are oneDNN tag names ("abcd", "aBcd16b"); data types f32 bf16 f16 s8 s32 u8. IN holds exactly
 * the source memory's bytes; OUT receives the whole destination memory (padding included) as the
 * reorder leaves it. The destination is filled with 0xA5 after the memory object is created (oneDNN
 * zero-pads buffers when they are attached), so OUT shows what the reorder itself writes. */
#include <dnnl.h>
#include <dnnl_debug.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_dnnl(const char *what, dnnl_status_t st) {
  fprintf(stderr, "dnnl_reorder: %s failed: %s\n", what, dnnl_status2str(st));
  return 1;
}

/* oneDNN has no name-to-tag function; invert dnnl_fmt_tag2str over the enum. */
static int find_tag(const char *name, dnnl_format_tag_t *out) {
  for (int v = 1; v < (int)dnnl_format_tag_last; v++) {
    const char *s = dnnl_fmt_tag2str((dnnl_format_tag_t)v);
    if (v != (int)dnnl_format_tag_any && s && strcmp(s, name) == 0) {
      *out = (dnnl_format_tag_t)v;
      return 1;
    }
  }
  fprintf(stderr, "dnnl_reorder: unknown oneDNN format tag '%s'\n", name);
  return 0;
}

static int find_dt(const char *name, dnnl_data_type_t *out) {
  static const struct {
    const char *name;
    dnnl_data_type_t dt;
  } dts[] = {{"f32", dnnl_f32}, {"bf16", dnnl_bf16}, {"f16", dnnl_f16}, {"s8", dnnl_s8}, {"s32", dnnl_s32}, {"u8", dnnl_u8}};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++)
    if (!strcmp(dts[i].name, name)) {
      *out = dts[i].dt;
      return 1;
    }
  fprintf(stderr, "dnnl_reorder: unknown data type '%s' (f32 bf16 f16 s8 s32 u8)\n", name);
  return 0;
}

static int parse_dims(const char *text, dnnl_dims_t dims, int *ndims) {
  int n = 0;
  for (const char *p = text;;) {
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (n == DNNL_MAX_NDIMS || end == p || errno || d <= 0 || (*end != ',' && *end)) {
      fprintf(stderr, "dnnl_reorder: bad dims '%s'\n", text);
      return 0;
    }
    dims[n++] = d;
    if (!*end)
      break;
    p = end + 1;
  }
  *ndims = n;
  return 1;
}

static int read_file(const char *path, void *buf, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "dnnl_reorder: cannot open '%s': %s\n", path, strerror(errno));
    return 0;
  }
  size_t got = fread(buf, 1, size, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != size || extra) {
    fprintf(stderr, "dnnl_reorder: '%s' does not hold exactly %zu bytes\n", path, size);
    return 0;
  }
  return 1;
}

static int write_file(const char *path, const void *buf, size_t size) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(buf, 1, size, f) == size;
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    fprintf(stderr, "dnnl_reorder: cannot write '%s'\n", path);
  return ok;
}

typedef struct {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  dnnl_memory_t src_mem, dst_mem;
  void *src, *dst;
} Reorder;

static void reorder_free(Reorder *r) {
  if (r->prim) dnnl_primitive_destroy(r->prim);
  if (r->pd) dnnl_primitive_desc_destroy(r->pd);
  if (r->src_mem) dnnl_memory_destroy(r->src_mem);
  if (r->dst_mem) dnnl_memory_destroy(r->dst_mem);
  if (r->stream) dnnl_stream_destroy(r->stream);
  if (r->engine) dnnl_engine_destroy(r->engine);
  free(r->src);
  free(r->dst);
}

static int run(Reorder *r, const dnnl_memory_desc_t *smd, const dnnl_memory_desc_t *dmd, const char *in,
               const char *out) {
  dnnl_status_t st;
  size_t sbytes = dnnl_memory_desc_get_size(smd), dbytes = dnnl_memory_desc_get_size(dmd);
  r->src = malloc(sbytes + 1);
  r->dst = malloc(dbytes + 1);
  if (!r->src || !r->dst)
    return fprintf(stderr, "dnnl_reorder: out of memory\n"), 1;
  if ((st = dnnl_engine_create(&r->engine, dnnl_cpu, 0)) != dnnl_success)
    return fail_dnnl("dnnl_engine_create", st);
  if ((st = dnnl_stream_create(&r->stream, r->engine, dnnl_stream_default_flags)) != dnnl_success)
    return fail_dnnl("dnnl_stream_create", st);
  if ((st = dnnl_memory_create(&r->src_mem, smd, r->engine, r->src)) != dnnl_success)
    return fail_dnnl("dnnl_memory_create(src)", st);
  if ((st = dnnl_memory_create(&r->dst_mem, dmd, r->engine, r->dst)) != dnnl_success)
    return fail_dnnl("dnnl_memory_create(dst)", st);
  if (!read_file(in, r->src, sbytes))
    return 1;
  memset(r->dst, 0xa5, dbytes);
  if ((st = dnnl_reorder_primitive_desc_create(&r->pd, smd, r->engine, dmd, r->engine, NULL)) != dnnl_success)
    return fail_dnnl("dnnl_reorder_primitive_desc_create", st);
  if ((st = dnnl_primitive_create(&r->prim, r->pd)) != dnnl_success)
    return fail_dnnl("dnnl_primitive_create", st);
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, r->src_mem}, {DNNL_ARG_TO, r->dst_mem}};
  if ((st = dnnl_primitive_execute(r->prim, r->stream, 2, args)) != dnnl_success)
    return fail_dnnl("dnnl_primitive_execute", st);
  if ((st = dnnl_stream_wait(r->stream)) != dnnl_success)
    return fail_dnnl("dnnl_stream_wait", st);
  return write_file(out, r->dst, dbytes) ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: dnnl_reorder SRC_TAG DST_TAG D0,D1,... SRC_DT DST_DT IN OUT\n");
    return 2;
  }
  dnnl_format_tag_t stag, dtag;
  dnnl_data_type_t sdt, ddt;
  dnnl_dims_t dims;
  int ndims;
  if (!find_tag(argv[1], &stag) || !find_tag(argv[2], &dtag) || !parse_dims(argv[3], dims, &ndims) ||
      !find_dt(argv[4], &sdt) || !find_dt(argv[5], &ddt))
    return 1;
  dnnl_memory_desc_t smd, dmd;
  dnnl_status_t st;
  if ((st = dnnl_memory_desc_init_by_tag(&smd, ndims, dims, sdt, stag)) != dnnl_success)
    return fail_dnnl("dnnl_memory_desc_init_by_tag(src)", st);
  if ((st = dnnl_memory_desc_init_by_tag(&dmd, ndims, dims, ddt, dtag)) != dnnl_success)
    return fail_dnnl("dnnl_memory_desc_init_by_tag(dst)", st);
  Reorder r = {0};
  int rc = run(&r, &smd, &dmd, argv[6], argv[7]);
  reorder_free(&r);
  return rc;
}
