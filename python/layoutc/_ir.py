"""The function IR from Python: parse or build modules, walk them, run
passes and pipelines, read the types a pass chose."""
from ctypes import byref, c_int, c_int64

from ._capi import Handle, StringRef, lib, take_string, i64_array


def _handles(objs):
    arr = (Handle * max(len(objs), 1))()
    for i, o in enumerate(objs):
        arr[i] = o._h
    return arr


class Module:
    """A module of functions; keeps its Context alive."""

    def __init__(self, ctx, h):
        if not h:
            ctx._fail("module")
        self.ctx, self._h = ctx, h

    def __str__(self):
        return take_string(lib.lyModuleToString(self._h))

    def verify(self):
        self.ctx._status("verify", lib.lyModuleVerify(self._h))

    def run_pass(self, name, flags=0):
        self.ctx._status(f"pass {name}", lib.lyModuleRunPass(self._h, name.encode(), flags))

    def run_pipeline(self, pipeline, flags=0):
        """Comma-separated pass names, e.g. 'legalize-reshapes'."""
        self.ctx._status(f"pipeline {pipeline!r}", lib.lyModuleRunPipeline(self._h, pipeline.encode(), flags))

    @property
    def functions(self):
        f = lib.lyModuleGetFirstFunc(self._h)
        out = []
        while f:
            out.append(Func(self, f))
            f = lib.lyFuncGetNext(f)
        return out

    def add_function(self, name, args, results):
        """func.func @name(args) -> results, empty; add ops with Func.add_op."""
        h = lib.lyFuncCreate(self._h, name.encode(), len(args), _handles(args), len(results), _handles(results))
        if not h:
            self.ctx._fail(f"function {name}")
        return Func(self, h)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.lyModuleDestroy(self._h)
            self._h = None


class Func:
    def __init__(self, module, h):
        self.module, self._h = module, h

    @property
    def name(self):
        return lib.lyFuncGetName(self._h).text()

    @property
    def args(self):
        return [Value(self.module, lib.lyFuncGetArg(self._h, i)) for i in range(lib.lyFuncGetNumArgs(self._h))]

    @property
    def ops(self):
        op, out = lib.lyFuncGetFirstOp(self._h), []
        while op:
            out.append(Op(self.module, op))
            op = lib.lyOpGetNext(op)
        return out

    def add_op(self, kind, operands, result_types, **attrs):
        """Appends an op ('layout.reshape', ...); attrs: int, str or int list."""
        k = _KINDS.index(kind)
        h = lib.lyOpCreate(self._h, k, len(operands), _handles(operands), len(result_types), _handles(result_types))
        if not h:
            self.module.ctx._fail(f"op {kind}")
        op = Op(self.module, h)
        for name, v in attrs.items():
            op.set_attr(name, v)
        return op


class Op:
    def __init__(self, module, h):
        self.module, self._h = module, h

    @property
    def kind(self):
        return lib.lyOpKindGetName(lib.lyOpGetKind(self._h)).decode()

    @property
    def operands(self):
        return [Value(self.module, lib.lyOpGetOperand(self._h, i)) for i in range(lib.lyOpGetNumOperands(self._h))]

    @property
    def results(self):
        return [Value(self.module, lib.lyOpGetResult(self._h, i)) for i in range(lib.lyOpGetNumResults(self._h))]

    def set_attr(self, name, v):
        n, st = name.encode(), 0
        if isinstance(v, str):
            st = lib.lyOpSetStringAttribute(self._h, n, v.encode())
        elif isinstance(v, int):
            st = lib.lyOpSetIntAttribute(self._h, n, v)
        else:
            v = list(v)
            st = lib.lyOpSetIntArrayAttribute(self._h, n, len(v), i64_array(v))
        self.module.ctx._status(f"attribute {name}", st)

    @property
    def attrs(self):
        """{name: int, str or list of ints}."""
        out = {}
        for i in range(lib.lyOpGetNumAttributes(self._h)):
            name = lib.lyOpGetAttributeName(self._h, i).text()
            n, i64, ref, cnt = name.encode(), c_int64(), StringRef(), c_int()
            if lib.lyOpGetIntAttribute(self._h, n, byref(i64)) == 0:
                out[name] = i64.value
            elif lib.lyOpGetStringAttribute(self._h, n, byref(ref)) == 0:
                out[name] = ref.text()
            elif lib.lyOpGetIntArrayAttribute(self._h, n, None, 0, byref(cnt)) == 0:
                arr = (c_int64 * max(cnt.value, 1))()
                lib.lyOpGetIntArrayAttribute(self._h, n, arr, cnt.value, byref(cnt))
                out[name] = list(arr[:cnt.value])
        return out


class Value:
    def __init__(self, module, h):
        self.module, self._h = module, h

    def __eq__(self, other):
        return isinstance(other, Value) and self._h.ptr == other._h.ptr

    @property
    def type(self):
        from . import Type
        return Type(self.module.ctx, lib.lyValueGetType(self._h))

    @property
    def defining_op(self):
        h = lib.lyValueGetDefiningOp(self._h)
        return Op(self.module, h) if h else None


_KINDS = ["layout.reshape", "layout.transpose", "layout.slice", "layout.broadcast", "layout.relayout",
          "layout.view", "layout.op", "func.return"]
