/* layoutc describe: the canonical type and its geometry, as text or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

typedef struct {
  char *type;
  int rank;
  LyStatus numel_s, alloc_s, bytes_s, inj_s, strides_s;
  int64_t numel, alloc, bytes, offset, strides[LY_MAX_RANK];
  int64_t elem_strides[LY_MAX_RANK], byte_strides[LY_MAX_RANK]; /* LY_DYNAMIC: unknown or not whole bytes */
  int injective;
  LyStatus blocking_s;
  LyBlocking blocking;
} Facts;

static void print_value(FILE *f, LyStatus s, int64_t v, int json) {
  if (s == LY_OK)
    fprintf(f, "%" PRId64, v);
  else
    fputs(json ? "null" : s == LY_ERROR_DYNAMIC ? "?" : "unknown", f);
}

static void print_dims(FILE *f, LyType t, int json) {
  fputc('[', f);
  for (int d = 0; d < lyTypeGetRank(t); d++) {
    int64_t v = lyTypeGetDim(t, d);
    fputs(d ? ", " : "", f);
    if (v == LY_DYNAMIC)
      fputs(json ? "null" : "?", f);
    else
      fprintf(f, "%" PRId64, v);
  }
  fputc(']', f);
}

static void print_strides(FILE *f, const Facts *x, const int64_t *strides, int json) {
  if (x->strides_s != LY_OK) {
    fputs(json                                ? "null"
          : x->strides_s == LY_ERROR_DYNAMIC ? "unknown (the layout depends on dynamic dims)"
          : x->strides_s == LY_ERROR_ANY     ? "none (the layout is 'any')"
          : x->strides_s == LY_ERROR_OPAQUE  ? "none (the layout is opaque)"
          : x->strides_s == LY_ERROR_MULTI_BUFFER ? "none (a multi-buffer encoding)"
                                             : "none (not one stride per dim)",
          f);
    return;
  }
  fputc('[', f);
  for (int d = 0; d < x->rank; d++) {
    fputs(d ? ", " : "", f);
    print_value(f, strides[d] == LY_DYNAMIC ? LY_ERROR_DYNAMIC : LY_OK, strides[d], json);
  }
  fputc(']', f);
}

static void print_list(FILE *f, const int64_t *v, int n) {
  fputc('[', f);
  for (int k = 0; k < n; k++)
    fprintf(f, "%s%" PRId64, k ? ", " : "", v[k]);
  fputc(']', f);
}

/* oneDNN's blocked memory descriptor fields (lyTypeGetBlocking). */
static void print_blocking(FILE *f, const Facts *x, int json) {
  const LyBlocking *b = &x->blocking;
  if (x->blocking_s != LY_OK) {
    fputs(json ? "null" : "none (not a oneDNN blocked layout)", f);
    return;
  }
  int64_t idxs[LY_MAX_RANK];
  for (int k = 0; k < b->inner_nblks; k++)
    idxs[k] = b->inner_idxs[k];
  const char *const keys[2][6] = {{"padded_dims ", ", padded_offsets ", ", offset0 ", ", strides ", ", inner_blks ",
                                   ", inner_idxs "},
                                  {"{\"padded_dims\": ", ", \"padded_offsets\": ", ", \"offset0\": ", ", \"strides\": ",
                                   ", \"inner_blks\": ", ", \"inner_idxs\": "}};
  fputs(keys[json][0], f);
  print_list(f, b->padded_dims, x->rank);
  fputs(keys[json][1], f);
  print_list(f, b->padded_offsets, x->rank);
  fprintf(f, "%s%" PRId64 "%s", keys[json][2], b->offset0, keys[json][3]);
  print_list(f, b->strides, x->rank);
  fputs(keys[json][4], f);
  print_list(f, b->inner_blks, b->inner_nblks);
  fputs(keys[json][5], f);
  print_list(f, idxs, b->inner_nblks);
  fputs(json ? "}" : "", f);
}

/* Strides in elements and in bytes from lyTypeGetStrides (bytes, or
 * elements for sub-byte types); a sub-byte stride that is not a whole number
 * of bytes has no byte stride. */
static void split_strides(Facts *x, int bits) {
  for (int d = 0; d < x->rank && x->strides_s == LY_OK; d++) {
    int64_t s = x->strides[d];
    bool dyn = s == LY_DYNAMIC;
    x->elem_strides[d] = dyn || bits < 8 ? s : s / (bits / 8);
    x->byte_strides[d] = dyn || bits >= 8 ? s : s * bits % 8 ? LY_DYNAMIC : s * bits / 8;
  }
}

static void print_memspace(FILE *f, LyType t, int json) {
  int64_t num;
  const char *str;
  switch (lyTypeGetMemorySpace(t, &num, &str)) {
  case 0: fputs(json ? "null" : "default", f); break;
  case 1: fprintf(f, "%" PRId64, num); break;
  default: json_string(f, str); break;
  }
}

/* The buffers (docs/language.md, encodings): role, level, element and size of
 * each, in MLIR's storage order; null (JSON) when the implementation
 * chooses them (packed). */
static void print_buffers(FILE *f, LyType t, int json) {
  static const char *const roles[] = {"values", "positions", "coordinates", "offsets"};
  int n = lyTypeGetNumBuffers(t);
  if (n < 0) {
    fputs(json ? "null" : "chosen by the implementation (packed)", f);
    return;
  }
  fputs(json ? "[" : "", f);
  for (int i = 0; i < n; i++) {
    int64_t bytes;
    LyStatus s = lyTypeGetBufferSizeBytes(t, i, &bytes);
    int level = lyTypeGetBufferLevel(t, i);
    const char *role = roles[lyTypeGetBufferRole(t, i)], *elem = lyElemGetName(lyTypeGetBufferElement(t, i));
    if (json) {
      fprintf(f, "%s{\"role\": \"%s\", ", i ? ", " : "", role);
      if (level >= 0)
        fprintf(f, "\"level\": %d, ", level);
      fprintf(f, "\"element\": \"%s\", \"size_bytes\": ", elem);
      print_value(f, s, bytes, 1);
      fputc('}', f);
    } else {
      fprintf(f, "\nbuffer %d: %s", i, role);
      if (level >= 0)
        fprintf(f, " level %d", level);
      fprintf(f, " %s ", elem);
      print_value(f, s, bytes, 0);
      fputs(s == LY_OK ? " bytes" : " bytes", f);
    }
  }
  fputs(json ? "]" : "", f);
}

/* Total bytes of a multi-buffer type, when every buffer's size is known. */
static LyStatus total_bytes(LyType t, int64_t *out) {
  int n = lyTypeGetNumBuffers(t);
  int64_t sum = 0, b;
  if (n < 0)
    return LY_ERROR_ANY;
  for (int i = 0; i < n; i++) {
    LyStatus s = lyTypeGetBufferSizeBytes(t, i, &b);
    if (s != LY_OK)
      return s;
    if (__builtin_add_overflow(sum, b, &sum))
      return LY_ERROR_OVERFLOW;
  }
  *out = sum;
  return LY_OK;
}

/* Only for encoded types: a dense type's one buffer is its size_bytes, and
 * its keys stay as they were. */
static void print_encoding(FILE *f, LyType t, int json) {
  static const char *const kinds[] = {"none", "csr", "coo", "sparse", "packed", "grouped", "host_scalar"};
  if (lyTypeGetEncoding(t) == LY_ENCODING_NONE)
    return;
  int64_t nnz;
  LyStatus s = lyTypeGetNnz(t, &nnz);
  if (json) {
    fprintf(f, ", \"encoding\": \"%s\"", kinds[lyTypeGetEncoding(t)]);
    if (s != LY_ERROR_INVALID) {
      fputs(", \"nnz\": ", f);
      print_value(f, s, nnz, 1);
    }
    if (lyTypeGetNumLevels(t))
      fprintf(f, ", \"posWidth\": %d, \"crdWidth\": %d", lyTypeGetPosWidth(t), lyTypeGetCrdWidth(t));
    fputs(", \"buffers\": ", f);
  } else {
    fprintf(f, "\nencoding: %s", kinds[lyTypeGetEncoding(t)]);
    if (s != LY_ERROR_INVALID) {
      fputs("\nnnz: ", f);
      print_value(f, s, nnz, 0);
    }
    if (lyTypeGetNumLevels(t))
      fprintf(f, "\nposWidth: %d\ncrdWidth: %d", lyTypeGetPosWidth(t), lyTypeGetCrdWidth(t));
    fprintf(f, "\nbuffers: %d", lyTypeGetNumBuffers(t));
  }
  print_buffers(f, t, json);
}

bool print_type_facts(FILE *f, LyType t, bool json) {
  Facts x = {.rank = lyTypeGetRank(t)};
  x.type = lyTypeToString(t);
  x.numel_s = lyTypeGetNumel(t, &x.numel);
  x.alloc_s = lyTypeGetAllocElements(t, &x.alloc);
  x.bytes_s = lyTypeGetSizeBytes(t, &x.bytes);
  x.inj_s = lyTypeIsInjective(t, &x.injective);
  x.strides_s = lyTypeGetStrides(t, x.strides, &x.offset);
  x.blocking_s = lyTypeGetBlocking(t, &x.blocking);
  split_strides(&x, lyElemGetBits(lyTypeGetElement(t)));
  if (x.bytes_s == LY_ERROR_MULTI_BUFFER) /* the sum of its buffers */
    x.bytes_s = total_bytes(t, &x.bytes);
  if (!x.type) {
    driver_error("out of memory");
    return false;
  }
  LyElem e = lyTypeGetElement(t);
  const char *tf[] = {"false", "true"};
  if (json) {
    fputs("{\"type\": ", f);
    json_string(f, x.type);
    fprintf(f, ", \"rank\": %d, \"dims\": ", x.rank);
    print_dims(f, t, 1);
    fprintf(f, ", \"element\": \"%s\", \"element_bits\": %d, \"memory_space\": ", lyElemGetName(e), lyElemGetBits(e));
    print_memspace(f, t, 1);
    fprintf(f, ", \"layout_any\": %s, \"numel\": ", tf[lyTypeIsAny(t)]);
    print_value(f, x.numel_s, x.numel, 1);
    fputs(", \"alloc_elements\": ", f);
    print_value(f, x.alloc_s, x.alloc, 1);
    fputs(", \"size_bytes\": ", f);
    print_value(f, x.bytes_s, x.bytes, 1);
    fprintf(f, ", \"contiguous\": %s, \"injective\": %s, \"dynamic\": %s, \"strides\": ",
            tf[lyTypeIsContiguous(t)], x.inj_s == LY_OK ? tf[x.injective] : "null", tf[lyTypeIsDynamic(t)]);
    print_strides(f, &x, x.strides, 1);
    fputs(", \"offset\": ", f);
    print_value(f, x.strides_s == LY_OK && x.offset != LY_DYNAMIC ? LY_OK : LY_ERROR_DYNAMIC, x.offset, 1);
    print_encoding(f, t, 1);
    /* Keys added later go after "hash": existing consumers match prefixes. */
    fprintf(f, ", \"hash\": \"0x%016" PRIx64 "\", \"strides_elements\": ", lyTypeGetHash(t));
    print_strides(f, &x, x.elem_strides, 1);
    fputs(", \"strides_bytes\": ", f);
    print_strides(f, &x, x.byte_strides, 1);
    fputs(", \"blocking\": ", f);
    print_blocking(f, &x, 1);
    fputs("}\n", f);
  } else {
    fprintf(f, "%s\nrank: %d\ndims: ", x.type, x.rank);
    print_dims(f, t, 0);
    fprintf(f, "\nelement: %s\nelement_bits: %d\nmemory_space: ", lyElemGetName(e), lyElemGetBits(e));
    print_memspace(f, t, 0);
    fputs(lyTypeIsAny(t) ? "\nlayout: any (not chosen yet)" : "", f);
    fputs("\nnumel: ", f);
    print_value(f, x.numel_s, x.numel, 0);
    fputs("\nalloc_elements: ", f);
    print_value(f, x.alloc_s, x.alloc, 0);
    fputs("\nsize_bytes: ", f);
    print_value(f, x.bytes_s, x.bytes, 0);
    fprintf(f, "\ncontiguous: %s\ninjective: %s\ndynamic: %s\nstrides_elements: ", tf[lyTypeIsContiguous(t)],
            x.inj_s == LY_OK ? tf[x.injective] : "unknown", tf[lyTypeIsDynamic(t)]);
    print_strides(f, &x, x.elem_strides, 0);
    if (x.strides_s == LY_OK) {
      fputs("\nstrides_bytes: ", f);
      print_strides(f, &x, x.byte_strides, 0);
      fputs("\noffset: ", f);
      print_value(f, x.offset == LY_DYNAMIC ? LY_ERROR_DYNAMIC : LY_OK, x.offset, 0);
    }
    fputs("\nblocking: ", f);
    print_blocking(f, &x, 0);
    print_encoding(f, t, 0);
    fprintf(f, "\nhash: 0x%016" PRIx64 "\n", lyTypeGetHash(t));
  }
  lyStringFree(x.type);
  return true;
}

int cmd_describe(Args *a) {
  const char *blob = args_value(a, "--blob");
  if (blob && a->noperands)
    return usage_error(a->cmd, "describe takes a TYPE or --blob FILE, not both");
  if (blob)
    return describe_blob(a, blob);
  if (!a->noperands)
    return usage_error(a->cmd, "describe needs a TYPE (or --blob FILE)");
  LyContext ctx = new_context();
  LyType t = operand_type(ctx, a, 0);
  int rc = !lyTypeIsNull(t) && print_type_facts(stdout, t, args_has(a, "--json")) ? 0 : EXIT_BAD_INPUT;
  lyContextDestroy(ctx);
  return rc;
}

