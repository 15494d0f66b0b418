"""layoutc from Python: tensor types with physical layouts, views, the IR
and its passes, and repacking NumPy arrays between layouts.

A thin ctypes layer over liblayoutc.so (no compiled extension). Objects
follow the C API's ownership: a Context owns its types; a Module, a
Repacker and their handles keep their Context alive. Errors raise
LayoutcError carrying the diagnostics the library reported.

    import layoutc
    ctx = layoutc.Context()
    t = ctx.parse('tensor<2x32x4x5xf32, "nChw16c">')
    t.offset([1, 17, 2, 1]); t.try_reshape([2, 2, 16, 4, 5])
"""
import ctypes
from ctypes import byref, c_int, c_int64

from . import _capi
from ._capi import Handle, lib, take_string, i64_array

__all__ = ["Context", "Type", "Module", "Func", "Op", "Value", "Repacker", "Kernel", "LayoutcError",
           "NotAView", "version", "passes", "OP_KINDS"]

STATUS = ["LY_OK", "LY_ERROR_INVALID", "LY_ERROR_DYNAMIC", "LY_ERROR_ANY", "LY_ERROR_RANGE",
          "LY_ERROR_OVERFLOW", "LY_ERROR_UNKNOWN", "LY_ERROR_NOMEM", "LY_ERROR_NOT_A_VIEW"]
OP_KINDS = ["layout.reshape", "layout.transpose", "layout.slice", "layout.broadcast", "layout.relayout",
            "layout.view", "layout.op", "func.return"]
_NOT_A_VIEW = STATUS.index("LY_ERROR_NOT_A_VIEW")


class LayoutcError(Exception):
    """A failed call: .status (a STATUS name) and .diagnostics (messages)."""

    def __init__(self, what, status="LY_ERROR_INVALID", diagnostics=()):
        self.status = status
        self.diagnostics = list(diagnostics)
        detail = "; ".join(self.diagnostics)
        super().__init__(f"{what}: {status}" + (f": {detail}" if detail else ""))


class NotAView(LayoutcError):
    """The operation needs a copy (view queries)."""


def version():
    """The loaded library's version string, e.g. '0.2.0'."""
    return lib.lyGetVersionString().decode()


def passes():
    """The names of the registered passes."""
    return [lib.lyPassGetName(i).decode() for i in range(lib.lyPassGetCount())]


class Context:
    """A layoutc context. Use it from one thread at a time."""

    def __init__(self):
        self._h = lib.lyContextCreate()
        if not self._h:
            raise MemoryError("layoutc: out of memory")
        self.diagnostics = []  # messages since the last call that failed
        self._cb = _capi.DiagnosticHandler(self._on_diag)
        lib.lyContextSetDiagnosticHandler(self._h, self._cb, None)

    def _on_diag(self, diag, _user):
        d = diag.contents
        sev = ("error", "warning", "note")[d.severity]
        loc = f"{d.line}:{d.column}: " if d.line else ""
        self.diagnostics.append(f"{loc}{sev}: {d.message.decode()}")

    def _fail(self, what, status="LY_ERROR_INVALID", cls=LayoutcError):
        diags, self.diagnostics = self.diagnostics, []
        raise cls(what, status, diags)

    def _status(self, what, status):
        if status:
            self._fail(what, STATUS[status] if 0 <= status < len(STATUS) else "?")

    def _type(self, h, what):
        if not h:
            self._fail(what)
        self.diagnostics = []
        return Type(self, h)

    def parse(self, text, name="<python>"):
        """The interned type spelled `text`."""
        b = text.encode()
        return self._type(lib.lyTypeParse(self._h, b, len(b), name.encode()), f"parse {text!r}")

    def parse_value(self, text, name="<python>"):
        """The type of an IR value: a tensor type, or one that is not a tensor
        (`index`, `i32`, `memref<...>`, `!dialect.t`), kept as its text."""
        b = text.encode()
        return self._type(lib.lyTypeParseValue(self._h, b, len(b), name.encode()), f"parse {text!r}")

    def row_major(self, elem, dims):
        """The dense row-major type of dims with element `elem` ('f32', ...)."""
        e = ELEMS.index(elem)
        return self._type(lib.lyTypeGetRowMajor(self._h, e, len(dims), i64_array(dims)), "row_major")

    def parse_module(self, text, name="<python>"):
        b = text.encode()
        h = lib.lyModuleParse(self._h, b, len(b), name.encode())
        if not h:
            self._fail("parse module")
        return Module(self, h)

    def module(self):
        """An empty module to build."""
        return Module(self, lib.lyModuleCreate(self._h))

    def __del__(self):
        if getattr(self, "_h", None):
            lib.lyContextDestroy(self._h)
            self._h = None


ELEMS = [lib.lyElemGetName(i).decode() for i in range(13)]


class Type:
    """An interned tensor type; equal types are the same handle."""

    def __init__(self, ctx, h):
        self.ctx, self._h = ctx, h

    def __eq__(self, other):
        return isinstance(other, Type) and self._h.ptr == other._h.ptr

    def __hash__(self):
        return hash(self._h.ptr)

    def __str__(self):
        return take_string(lib.lyTypeToString(self._h))

    def __repr__(self):
        return f"layoutc.Type({str(self)!r})"

    @property
    def rank(self):
        return lib.lyTypeGetRank(self._h)

    @property
    def dims(self):
        return [None if d == -(1 << 63) else d for d in (lib.lyTypeGetDim(self._h, i) for i in range(self.rank))]

    @property
    def element(self):
        return ELEMS[lib.lyTypeGetElement(self._h)]

    @property
    def hash(self):
        return lib.lyTypeGetHash(self._h)

    @property
    def is_contiguous(self):
        return bool(lib.lyTypeIsContiguous(self._h))

    @property
    def is_tensor(self):
        return bool(lib.lyTypeIsTensor(self._h))

    @property
    def is_any(self):
        return bool(lib.lyTypeIsAny(self._h))

    def _i64(self, fn, what):
        out = c_int64()
        self.ctx._status(what, fn(self._h, byref(out)))
        return out.value

    @property
    def numel(self):
        return self._i64(lib.lyTypeGetNumel, "numel")

    @property
    def size_bytes(self):
        return self._i64(lib.lyTypeGetSizeBytes, "size_bytes")

    @property
    def alloc_elements(self):
        return self._i64(lib.lyTypeGetAllocElements, "alloc_elements")

    def offset(self, idx):
        out = c_int64()
        self.ctx._status(f"offset {list(idx)}", lib.lyTypeGetOffset(self._h, i64_array(idx), byref(out)))
        return out.value

    def strides(self):
        """(byte strides, element offset) for one-stride-per-dim layouts."""
        s, off = (c_int64 * 16)(), c_int64()
        self.ctx._status("strides", lib.lyTypeGetStrides(self._h, s, byref(off)))
        return list(s[:self.rank]), off.value

    # --- views ---------------------------------------------------------------
    def _view(self, h, what):
        return self.ctx._type(h, what)

    def permute(self, perm):
        return self._view(lib.lyTypePermute(self.ctx._h, self._h, (c_int * max(len(perm), 1))(*perm)), "permute")

    def reshape(self, dims):
        return self._view(lib.lyTypeReshape(self.ctx._h, self._h, len(dims), i64_array(dims)), "reshape")

    def broadcast(self, dims):
        return self._view(lib.lyTypeBroadcast(self.ctx._h, self._h, len(dims), i64_array(dims)), "broadcast")

    def with_layout(self, layout):
        return self._view(lib.lyTypeWithLayout(self.ctx._h, self._h, layout.encode()), f"with_layout {layout!r}")

    def reshape_relayout(self, dims):
        return self._view(lib.lyTypeGetReshapeRelayout(self.ctx._h, self._h, len(dims), i64_array(dims)),
                          "reshape_relayout")

    def _try(self, what, call):
        out = Handle()
        st = call(byref(out))
        if st == _NOT_A_VIEW:
            self.ctx._fail(what, "LY_ERROR_NOT_A_VIEW", NotAView)
        self.ctx._status(what, st)
        return Type(self.ctx, out)

    def try_reshape(self, dims, strided=False):
        """The view, or NotAView (no diagnostic) when the reshape needs a copy."""
        fn = lib.lyTypeTryReshapeStrided if strided else lib.lyTypeTryReshape
        return self._try(f"reshape to {list(dims)}", lambda o: fn(self.ctx._h, self._h, len(dims), i64_array(dims), o))

    def try_slice(self, offsets, sizes):
        return self._try("slice", lambda o: lib.lyTypeTrySlice(self.ctx._h, self._h, i64_array(offsets),
                                                               i64_array(sizes), o))


from ._ir import Module, Func, Op, Value  # noqa: E402
from ._repack import Repacker, Kernel  # noqa: E402
