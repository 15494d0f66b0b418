/* dnnl_views: oneDNN's own answer for views of a format tag (test oracle, not product code).
 *
 * Usage:
 *   dnnl_views TAG D0,D1,... reshape   E0,E1,...
 *   dnnl_views TAG D0,D1,... permute   P0,P1,...          (dnnl_memory_desc_permute_axes)
 *   dnnl_views TAG D0,D1,... submemory OFF0,... SIZE0,...  (dnnl_memory_desc_init_submemory)
 *   dnnl_views -                       one case per stdin line (the words above), answers in order
 *
 * TAG is a oneDNN abstract tag (aBcd16b, ...). For each case it prints one line:
 *   "view O0 O1 ..."   oneDNN built the result desc; Oi is the element offset of the result's
 *                      element i (row-major), relative to the source's base pointer;
 *   "refused STATUS"   oneDNN returned an error status for the operation;
 *   "inconsistent ..." oneDNN built a result desc that is malformed (an inner block on a dim the
 *                      result does not have) or whose address formula and reorder disagree on
 *                      some element: a oneDNN bug, the answer is unusable;
 *   "error MESSAGE"    the case itself is bad (unknown tag, bad list) or the oracle failed (then
 *                      the exit status is 1).
 * Each offset is measured twice and the two must agree: with oneDNN's address formula over the
 * result desc (offset0 + inner blocks + outer strides, memory_desc_wrapper::off_v) and through a
 * real s32 reorder from the result desc, over a buffer whose every position holds its own index,
 * into a dense row-major destination. */
#include <dnnl.h>
#include <dnnl_debug.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELEMS (1 << 22)

static dnnl_engine_t engine;
static dnnl_stream_t stream;

/* oneDNN has no name-to-tag function; invert dnnl_fmt_tag2str over the whole enum. */
static int find_tag(const char *name, dnnl_format_tag_t *out) {
  for (int v = 1; v < (int)dnnl_format_tag_last; v++) {
    if (v == (int)dnnl_format_tag_any)
      continue;
    const char *s = dnnl_fmt_tag2str((dnnl_format_tag_t)v);
    if (s && strcmp(s, name) == 0) {
      *out = (dnnl_format_tag_t)v;
      return 1;
    }
  }
  return 0;
}

/* Parses "A,B,..." (non-negative integers) into out[]; returns the count or -1. */
static int parse_list(const char *text, int64_t *out) {
  const char *p = text;
  int n = 0;
  for (;;) {
    if (n == DNNL_MAX_NDIMS)
      return -1;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno || v < 0 || v > INT32_MAX || (*end != ',' && *end != '\0'))
      return -1;
    out[n++] = v;
    if (*end == '\0')
      return n;
    p = end + 1;
  }
}

static dnnl_format_tag_t plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {
      dnnl_a,       dnnl_ab,       dnnl_abc,       dnnl_abcd,       dnnl_abcde,       dnnl_abcdef,
      dnnl_abcdefg, dnnl_abcdefgh, dnnl_abcdefghi, dnnl_abcdefghij, dnnl_abcdefghijk, dnnl_abcdefghijkl};
  return tags[ndims - 1];
}

/* memory_desc_wrapper::off_v with is_pos_padded = false. */
static int64_t desc_offset(const dnnl_memory_desc_t *md, int64_t linear) {
  const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
  int64_t pos[DNNL_MAX_NDIMS] = {0};
  for (int d = md->ndims - 1; d >= 0; d--) {
    pos[d] = linear % md->dims[d] + md->padded_offsets[d];
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

/* Reorders the result desc (over a buffer of position indices) into row-major s32 and stores
 * what each element read. Returns 1 (message in err) on failure. */
static int reorder_offsets(const dnnl_memory_desc_t *md, int64_t buf_len, int64_t numel, int64_t *got,
                           char *err, size_t errlen) {
  dnnl_memory_desc_t plain;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t prim = NULL;
  dnnl_memory_t src_mem = NULL, dst_mem = NULL;
  int32_t *src = malloc((size_t)buf_len * sizeof *src), *dst = malloc((size_t)(numel ? numel : 1) * sizeof *dst);
  int rc = 1;
  dnnl_status_t st;
  if (!src || !dst) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  if ((st = dnnl_memory_desc_init_by_tag(&plain, md->ndims, md->dims, dnnl_s32, plain_tag(md->ndims))) != dnnl_success) {
    snprintf(err, errlen, "init_by_tag(plain): %s", dnnl_status2str(st));
    goto out;
  }
  if ((st = dnnl_memory_create(&src_mem, md, engine, src)) != dnnl_success ||
      (st = dnnl_memory_create(&dst_mem, &plain, engine, dst)) != dnnl_success) {
    snprintf(err, errlen, "memory_create: %s", dnnl_status2str(st));
    goto out;
  }
  /* Fill after memory creation: oneDNN may zero the padding of a buffer when it is attached. */
  for (int64_t p = 0; p < buf_len; p++)
    src[p] = (int32_t)p;
  for (int64_t i = 0; i < numel; i++)
    dst[i] = -1;
  if ((st = dnnl_reorder_primitive_desc_create(&pd, md, engine, &plain, engine, NULL)) != dnnl_success) {
    snprintf(err, errlen, "reorder_primitive_desc_create: %s", dnnl_status2str(st));
    goto out;
  }
  if ((st = dnnl_primitive_create(&prim, pd)) != dnnl_success) {
    snprintf(err, errlen, "primitive_create: %s", dnnl_status2str(st));
    goto out;
  }
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src_mem}, {DNNL_ARG_TO, dst_mem}};
  if ((st = dnnl_primitive_execute(prim, stream, 2, args)) != dnnl_success ||
      (st = dnnl_stream_wait(stream)) != dnnl_success) {
    snprintf(err, errlen, "reorder execute: %s", dnnl_status2str(st));
    goto out;
  }
  for (int64_t i = 0; i < numel; i++)
    got[i] = dst[i];
  rc = 0;
out:
  if (prim) dnnl_primitive_destroy(prim);
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (src_mem) dnnl_memory_destroy(src_mem);
  if (dst_mem) dnnl_memory_destroy(dst_mem);
  free(src);
  free(dst);
  return rc;
}

/* Runs one case given as words; prints its answer line. Returns 0, or 1 on an oracle error. */
static int run_case(int argc, char **argv) {
  if (argc < 4) {
    printf("error expected TAG DIMS OP ARGS\n");
    return 1;
  }
  dnnl_format_tag_t tag;
  if (!find_tag(argv[0], &tag)) {
    printf("error unknown oneDNN format tag '%s'\n", argv[0]);
    return 1;
  }
  int64_t dims[DNNL_MAX_NDIMS], a[DNNL_MAX_NDIMS], b[DNNL_MAX_NDIMS];
  int ndims = parse_list(argv[1], dims), na = parse_list(argv[3], a), nb = 0;
  if (ndims <= 0 || na <= 0) {
    printf("error bad dims or arguments\n");
    return 1;
  }
  dnnl_memory_desc_t src_md, md;
  memset(&src_md, 0, sizeof src_md);
  memset(&md, 0, sizeof md);
  dnnl_status_t st = dnnl_memory_desc_init_by_tag(&src_md, ndims, dims, dnnl_s32, tag);
  if (st != dnnl_success) {
    printf("error tag '%s' does not fit dims %s: %s\n", argv[0], argv[1], dnnl_status2str(st));
    return 1;
  }
  const char *op = argv[2];
  if (strcmp(op, "reshape") == 0 && argc == 4) {
    st = dnnl_memory_desc_reshape(&md, &src_md, na, a);
  } else if (strcmp(op, "permute") == 0 && argc == 4 && na == ndims) {
    int perm[DNNL_MAX_NDIMS];
    for (int i = 0; i < na; i++)
      perm[i] = (int)a[i];
    st = dnnl_memory_desc_permute_axes(&md, &src_md, perm);
  } else if (strcmp(op, "submemory") == 0 && argc == 5 && na == ndims &&
             (nb = parse_list(argv[4], b)) == ndims) {
    st = dnnl_memory_desc_init_submemory(&md, &src_md, b, a);
  } else {
    printf("error bad operation or argument count\n");
    return 1;
  }
  if (st != dnnl_success) {
    printf("refused %s\n", dnnl_status2str(st));
    return 0;
  }
  if (md.format_kind != dnnl_blocked) {
    printf("error result desc is not blocked\n");
    return 1;
  }
  /* oneDNN 2.6's reshape can leave an inner block on a dim the result does not have. */
  for (int k = 0; k < md.format_desc.blocking.inner_nblks; k++)
    if (md.format_desc.blocking.inner_idxs[k] < 0 || md.format_desc.blocking.inner_idxs[k] >= md.ndims) {
      printf("inconsistent the result desc has an inner block of %lld on dim %lld, but rank %d\n",
             (long long)md.format_desc.blocking.inner_blks[k], (long long)md.format_desc.blocking.inner_idxs[k],
             md.ndims);
      return 0;
    }
  int64_t numel = 1;
  for (int d = 0; d < md.ndims; d++)
    numel *= md.dims[d];
  if (numel > MAX_ELEMS) {
    printf("error too many elements\n");
    return 1;
  }
  /* The buffer is the source's: the result addresses it from the same base pointer. */
  int64_t buf_len = (int64_t)(dnnl_memory_desc_get_size(&src_md) / sizeof(int32_t));
  int64_t res_len = (int64_t)(dnnl_memory_desc_get_size(&md) / sizeof(int32_t)) + md.offset0;
  if (res_len > buf_len)
    buf_len = res_len;
  int64_t *got = malloc((size_t)(numel ? numel : 1) * sizeof *got);
  if (!got) {
    printf("error out of memory\n");
    return 1;
  }
  char err[256];
  if (reorder_offsets(&md, buf_len, numel, got, err, sizeof err)) {
    printf("error %s\n", err);
    free(got);
    return 1;
  }
  for (int64_t i = 0; i < numel; i++) {
    int64_t want = desc_offset(&md, i);
    if (want != got[i] || want < 0 || want >= buf_len) {
      /* oneDNN disagrees with itself: its result desc is not usable as an answer. */
      printf("inconsistent element %lld: the result desc says offset %lld, the reorder read %lld\n", (long long)i,
             (long long)want, (long long)got[i]);
      free(got);
      return 0;
    }
  }
  fputs("view", stdout);
  for (int64_t i = 0; i < numel; i++)
    printf(" %lld", (long long)got[i]);
  putchar('\n');
  free(got);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dnnl_views TAG D0,... reshape|permute|submemory ARGS...   or   dnnl_views -\n");
    return 2;
  }
  dnnl_status_t st;
  if ((st = dnnl_engine_create(&engine, dnnl_cpu, 0)) != dnnl_success ||
      (st = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags)) != dnnl_success) {
    fprintf(stderr, "dnnl_views: engine/stream: %s\n", dnnl_status2str(st));
    return 1;
  }
  int rc = 0;
  if (strcmp(argv[1], "-") == 0 && argc == 2) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
      char *words[8];
      int n = 0;
      for (char *w = strtok(line, " \t\r\n"); w && n < 8; w = strtok(NULL, " \t\r\n"))
        words[n++] = w;
      if (n == 0)
        continue;
      rc |= run_case(n, words);
      fflush(stdout);
    }
  } else {
    rc = run_case(argc - 1, argv + 1);
  }
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "dnnl_views: write error on stdout\n");
    rc = 1;
  }
  return rc;
}
