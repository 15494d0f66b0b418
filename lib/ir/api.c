/* ir/api: the public module API of include/layoutc/ir.h over lib/ir. */
#include "layoutc/ir.h"
#include "ir/ir.h"

static LyirModule *unwrap(LyModule m) { return (LyirModule *)m.ptr; }

LyModule lyModuleParse(LyContext ctx, const char *text, size_t len, const char *name) {
  return (LyModule){lyir_parse(lyd_ctx(ctx), name, text, len)};
}

void lyModuleDestroy(LyModule m) { lyir_module_destroy(unwrap(m)); }

void lyModuleSetPbqpDump(LyModule m, LyStringCallback cb, void *user) {
  unwrap(m)->pbqp_dump = cb;
  unwrap(m)->pbqp_dump_user = user;
}

/* A null module (a failed parse) has no context to report in: invalid. */
LyStatus lyModuleVerify(LyModule m) { return m.ptr && lyir_verify(unwrap(m)) ? LY_OK : LY_ERROR_INVALID; }

/* Large modules reach the callback in pieces of about this size. */
#define PRINT_PIECE (64u << 10)

static void print(LyModule m, unsigned flags, LyBuf *b) {
  if (flags & LY_PRINT_MLIR)
    lyir_print_mlir(unwrap(m), b);
  else
    lyir_print(unwrap(m), b);
}

void lyModulePrint(LyModule m, LyStringCallback cb, void *user) { lyModulePrintWithFlags(m, 0, cb, user); }

void lyModulePrintWithFlags(LyModule m, unsigned flags, LyStringCallback cb, void *user) {
  LyBuf b;
  ly_buf_init(&b);
  print(m, flags, &b);
  for (size_t at = 0; !b.oom && at < b.len; at += PRINT_PIECE)
    cb(b.data + at, b.len - at < PRINT_PIECE ? b.len - at : PRINT_PIECE, user);
  ly_buf_free(&b);
}

char *lyModuleToString(LyModule m) { return lyModuleToStringWithFlags(m, 0); }

char *lyModuleToStringWithFlags(LyModule m, unsigned flags) {
  LyBuf b;
  ly_buf_init(&b);
  print(m, flags, &b);
  ly_buf_puts(&b, ""); /* an empty module is "" rather than NULL */
  if (b.oom || !b.data) {
    ly_buf_free(&b);
    return NULL;
  }
  return b.data;
}
