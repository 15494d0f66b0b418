/* ir: the function IR of layout operations (MLIR generic syntax), its
 * builder, printer and verifier. Internal prefix: lyir_. See docs/ir.md.
 *
 * Ownership. A module owns one arena that holds its functions, ops, values,
 * attributes and a NUL-terminated copy of the source text; names point into
 * that copy. Everything dies with lyir_module_destroy. Types are interned in
 * the context (LyCtx) and outlive the module.
 *
 * Shape. A module is a list of functions; a function is a list of argument
 * values, result types and a straight-line list of ops (one block). Each op
 * has operand values, result values (the value carries its type),
 * attributes and regions; a region is one block (LyirBlock) with argument
 * values and its own list of ops, as in MLIR (scf.for, linalg.generic).
 * Values are SSA: each is defined once, by an argument, a block argument or
 * an op result, before its uses; a region sees the values defined before
 * its op in the enclosing blocks. Ops form doubly-linked lists so passes can
 * insert before and after any op in O(1). */
#ifndef LAYOUTC_LIB_IR_H
#define LAYOUTC_LIB_IR_H

#include "desc/desc.h"

typedef enum {
  LYIR_OP_RESHAPE,
  LYIR_OP_TRANSPOSE,
  LYIR_OP_SLICE,
  LYIR_OP_BROADCAST,
  LYIR_OP_RELAYOUT,
  LYIR_OP_VIEW,
  LYIR_OP_COMPUTE, /* "layout.op": opaque compute, named by its `name` attribute */
  LYIR_OP_RETURN,
  LYIR_OP_COUNT
} LyirOpKind;

/* A slice of the module's text (or of another arena string). */
typedef struct {
  const char *s;
  int len;
} LyirStr;

/* UNIT is a name without a value (MLIR's unit attribute); OPAQUE is any
 * other MLIR attribute (an alias #map, affine_map<...>, dense<...>, a float,
 * #dialect.x<...>), kept as its text and printed back verbatim. */
typedef enum {
  LYIR_ATTR_INT, LYIR_ATTR_STRING, LYIR_ATTR_BOOL, LYIR_ATTR_ARRAY, LYIR_ATTR_UNIT, LYIR_ATTR_OPAQUE,
  LYIR_ATTR_DICT
} LyirAttrKind;

typedef struct LyirAttrValue {
  LyirAttrKind kind;
  int64_t i;                   /* INT, BOOL */
  LyirStr s;                   /* STRING (without quotes), OPAQUE (its text) */
  LyirStr type;                /* INT, OPAQUE: the type after ':' (`1 : i32`), len 0 if none */
  LyirStr dense;               /* ARRAY written array<T: ...>: T (i64, i32, ...); len 0 for [...] */
  int n;                       /* ARRAY: element count */
  struct LyirAttrValue *elems; /* ARRAY */
  struct LyirAttr *fields;     /* DICT: n named attributes */
  LyLoc loc;
} LyirAttrValue;

typedef struct LyirAttr {
  LyirStr name;
  LyirAttrValue value;
  LyLoc loc; /* the attribute's name */
} LyirAttr;

/* An attribute dictionary of a function, argument or module. */
typedef struct {
  int n;
  LyirAttr *attrs;
} LyirDict;

typedef struct LyirOp LyirOp;
typedef struct LyirBlock LyirBlock;

typedef struct {
  const LyTypeImpl *type;
  LyirStr name;   /* as written; len 0 for values a pass created */
  bool numbered;  /* unnamed or written %N: the printer renumbers it */
  LyirOp *def;    /* defining op; NULL for a function or block argument */
  LyirBlock *block; /* a block argument's block; NULL otherwise */
  LyLoc loc;      /* definition */
  unsigned print_id; /* scratch for the printer's numbering */
  unsigned print_dup; /* scratch: K > 0 prints a name as name_K (a clash) */
  bool in_scope;     /* scratch for the verifier's scope check */
} LyirValue;

struct LyirOp {
  LyirOp *prev, *next;
  struct LyirModule *module; /* its owner (the C API's handles need it) */
  LyirOpKind kind;
  LyLoc loc;      /* start of the op: its first result, else its name */
  LyLoc name_loc; /* the quoted op name */
  int noperands, nresults, nattrs;
  LyirValue **operands;
  LyLoc *operand_locs;
  LyirValue **results;
  LyLoc *result_type_locs; /* the result types in the op's signature */
  LyirAttr *attrs;
  /* An op layoutc does not know (kind LYIR_OP_COMPUTE, opaque compute
   * without constraints): its name; len 0 for layoutc's own ops. */
  LyirStr foreign;
  LyirDict props; /* a foreign op's properties, `<{...}>` (MLIR's generic form of registered ops) */
  LyirStr srcloc; /* the op's `loc(...)`, len 0 if none */
  int nregions;
  LyirBlock **regions; /* each region is one block */
  LyirBlock *block;    /* the region block holding the op; NULL at a function's top level */
};

/* The one block of a region: its arguments and ops. */
struct LyirBlock {
  LyirOp *first, *last;
  int nargs;
  LyirValue **args;
  LyirOp *parent; /* the op whose region this is */
  LyLoc loc;      /* the region's '{' */
};

typedef struct LyirFunc {
  struct LyirFunc *next;
  struct LyirModule *module; /* its owner (the C API's handles need it) */
  LyirStr name; /* without '@' */
  LyLoc loc;    /* the '@name' */
  int nargs, nresults;
  LyirValue **args;
  const LyTypeImpl **result_types;
  LyLoc *result_locs;
  LyirOp *first, *last;
  bool decl;          /* a declaration: no body */
  LyirStr visibility; /* `private`, `public`, `nested`; len 0 if not written */
  LyirDict attrs;     /* `attributes {...}` */
  LyirDict *arg_attrs; /* per argument; NULL when none has any */
  LyirDict *res_attrs; /* per result (`-> (T {attrs})`); NULL when none has any */
  LyirStr srcloc;
} LyirFunc;

/* A top-level alias definition, `#map = affine_map<...>`. */
typedef struct {
  LyirStr name; /* without '#' */
  LyirStr text; /* the attribute */
} LyirAlias;

typedef struct LyirModule {
  LyCtx *ctx;
  LyArena arena;
  LySource src; /* the module's own copy: diagnostics show its lines */
  LyirFunc *first, *last;
  struct LyirLayoutMemo *layouts; /* lyir_layout_apply's answers (layout_attr.c) */
  LyStringCallback pbqp_dump;     /* assign-layouts' instances go here (lyModuleSetPbqpDump) */
  void *pbqp_dump_user;
  bool wrapped;   /* written inside `module { ... }` */
  LyirStr sym;    /* `module @name`, len 0 if none */
  LyirDict attrs; /* `module attributes {...}` */
  int naliases;
  LyirAlias *aliases;
} LyirModule;

/* --- Op kinds ---------------------------------------------------------------- */

const char *lyir_op_name(LyirOpKind k); /* "layout.reshape", ... */
/* The kind named name[0..len), or LYIR_OP_COUNT if none. */
LyirOpKind lyir_op_lookup(const char *name, int len);

/* --- Building (every function returns NULL / false only when out of memory) */

/* An empty module over a copy of text; NULL if memory is exhausted. */
LyirModule *lyir_module_create(LyCtx *ctx, const char *name, const char *text, size_t len);
void lyir_module_destroy(LyirModule *m);
void *lyir_alloc(LyirModule *m, size_t n); /* zeroed, from the module arena */

LyirFunc *lyir_func_create(LyirModule *m, LyirStr name, LyLoc loc);
void lyir_func_append(LyirModule *m, LyirFunc *f);

LyirValue *lyir_value_create(LyirModule *m, const LyTypeImpl *type, LyirStr name, LyLoc loc);

/* An op with room for its operands, results and attributes; the caller fills
 * the arrays. Result values are not created. */
LyirOp *lyir_op_create(LyirModule *m, LyirOpKind kind, LyLoc loc, int noperands, int nresults, int nattrs);
/* A one-operand one-result op whose result is a new unnamed value of type t,
 * located at loc. */
LyirOp *lyir_op_create_unary(LyirModule *m, LyirOpKind kind, LyLoc loc, LyirValue *operand, const LyTypeImpl *t);

/* Appends op to the function's top-level block, or to a region's block. */
void lyir_op_append(LyirFunc *f, LyirOp *op);
void lyir_block_append(LyirBlock *b, LyirOp *op);
/* Insert next to pos, in pos's block (f's top level or a region of f). */
void lyir_op_insert_before(LyirFunc *f, LyirOp *pos, LyirOp *op);
void lyir_op_insert_after(LyirFunc *f, LyirOp *pos, LyirOp *op);
/* Unlinks op from its block (its memory stays in the arena); its results
 * must be unused. */
void lyir_op_remove(LyirFunc *f, LyirOp *op);

/* Every op of f in print order, nested ones included: the op after op
 * (its first nested op if it has one, else the next in its block or in an
 * enclosing one), NULL after the last. */
LyirOp *lyir_op_walk_next(const LyirOp *op);
/* The block that defines v (NULL: the function's top level). */
LyirBlock *lyir_value_block(const LyirValue *v);
/* The ancestor of op (op itself included) that lies directly in block b
 * (NULL: the top level); NULL if op is not inside b. */
LyirOp *lyir_op_ancestor_in(LyirOp *op, const LyirBlock *b);

const LyirAttr *lyir_op_attr(const LyirOp *op, const char *name);

/* --- Names in scope: string -> pointer hash table ------------------------- */

typedef struct {
  LyirStr key;
  void *val;
} LyirSym;

typedef struct {
  LyirSym *slots;
  size_t cap, count;
} LyirSymtab;

void lyir_symtab_init(LyirSymtab *t);
void lyir_symtab_free(LyirSymtab *t);
void *lyir_symtab_find(const LyirSymtab *t, LyirStr key);
/* Adds key -> val unless key is present (a hidden key takes val); false
 * only when out of memory. */
bool lyir_symtab_add(LyirSymtab *t, LyirStr key, void *val);
/* Forgets key's value (a name going out of scope): find gives NULL. */
void lyir_symtab_hide(LyirSymtab *t, LyirStr key);

/* --- Parsing, printing, verifying ------------------------------------------ */

/* Parses a module from text (grammar/ir.y). NULL after reporting. */
LyirModule *lyir_parse(LyCtx *ctx, const char *name, const char *text, size_t len);

/* Prints the module in the form lyir_parse reads; numbered values are
 * renumbered in order of definition, named values keep their names. */
void lyir_print(LyirModule *m, LyBuf *out);
/* The form mlir-opt prints (docs/ir.md §5): a `module`, functions in their
 * custom form, values numbered as MLIR numbers them, layouts as `#layout.*`
 * attributes; mlir-opt-19 --allow-unregistered-dialect prints it back
 * unchanged and lyir_parse reads it. */
void lyir_print_mlir(LyirModule *m, LyBuf *out);

/* Checks every op's type rules, reporting each problem at its place. */
bool lyir_verify(LyirModule *m);

/* Diagnostics located in the module's source. */
void lyir_error(LyirModule *m, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void lyir_note(LyirModule *m, LyLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A variant's layout string (docs/ir.md: a format tag's name, a
 * tiled_layout, strided or layout spelling, or "any") applied to t's dims,
 * element type and memory space: the interned type (of layout `any` for
 * "any"), or NULL with the reason appended to *why (may be NULL). Reports
 * nothing. (layout_attr.c) */
const LyTypeImpl *lyir_layout_apply(LyirModule *m, const LyTypeImpl *t, LyirStr s, LyBuf *why);
/* Frees the module's cache of lyir_layout_apply (lyir_module_destroy). */
void lyir_layout_memo_free(LyirModule *m);

/* The canonical spelling of a type in a buffer the caller frees with
 * ly_buf_free (for messages). */
void lyir_type_str(const LyTypeImpl *t, LyBuf *out);

#endif
