/* layoutc blob: a type's binary form (lyTypeSerialize) written to a file;
 * `describe --blob FILE` reads one back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

int cmd_blob(Args *a) {
  const char *out = args_value(a, "-o");
  if (!out)
    return usage_error(a->cmd, "blob needs -o FILE (the blob is binary)");
  LyContext ctx = new_context();
  LyType t = operand_type(ctx, a, 0);
  int rc = EXIT_BAD_INPUT;
  size_t len = 0;
  unsigned char *blob = lyTypeIsNull(t) ? NULL : lyTypeSerialize(t, &len);
  if (blob) {
    FILE *f = fopen(out, "wb");
    if (!f)
      driver_error("cannot create '%s': %s", out, strerror(errno));
    else if (fwrite(blob, 1, len, f) != len || fclose(f) != 0)
      driver_error("cannot write '%s'", out);
    else
      rc = 0;
  } else if (!lyTypeIsNull(t)) {
    driver_error("out of memory");
  }
  lyStringFree((char *)blob);
  lyContextDestroy(ctx);
  return rc;
}

/* describe --blob FILE: the type a blob holds; a malformed blob is an error
 * at its byte offset. */
int describe_blob(Args *a, const char *path) {
  size_t len;
  char *data = read_file(path, &len);
  if (!data)
    return EXIT_BAD_INPUT;
  LyContext ctx = new_context();
  LyType t = lyTypeDeserialize(ctx, data, len, path);
  int rc = !lyTypeIsNull(t) && print_type_facts(stdout, t, args_has(a, "--json")) ? 0 : EXIT_BAD_INPUT;
  lyContextDestroy(ctx);
  free(data);
  return rc;
}
