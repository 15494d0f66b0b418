"""ctypes declarations of layoutc's C API (include/layoutc/*.h).

Finds liblayoutc.so through $LAYOUTC_LIBRARY, else next to an installed
package (the install writes _libdir.py), else the system's library path.
"""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint,
                    c_uint64, c_void_p)


class Handle(Structure):
    """A layoutc handle: a struct of one pointer (LyContext, LyType, ...)."""
    _fields_ = [("ptr", c_void_p)]

    def __bool__(self):
        return bool(self.ptr)


class StringRef(Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t)]

    def text(self):
        return ctypes.string_at(self.data, self.length).decode() if self.length else ""


class Diagnostic(Structure):
    _fields_ = [("severity", c_int), ("source_name", c_char_p), ("line", c_int), ("column", c_int),
                ("source_line", c_void_p), ("source_line_len", c_int), ("message", c_char_p)]


DiagnosticHandler = CFUNCTYPE(None, POINTER(Diagnostic), c_void_p)
ParallelBody = CFUNCTYPE(None, c_int, c_void_p)


def _find_library():
    env = os.environ.get("LAYOUTC_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _libdir  # written by `cmake --install`
        cand = os.path.normpath(os.path.join(here, _libdir.LIBDIR, "liblayoutc.so"))
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    found = ctypes.util.find_library("layoutc")
    if found:
        return found
    raise OSError("liblayoutc.so not found: set LAYOUTC_LIBRARY to its path")


lib = ctypes.CDLL(_find_library())

# name: (restype, argtypes)
_SIGNATURES = {
    "lyGetVersion": (c_int, []),
    "lyGetVersionString": (c_char_p, []),
    "lyStatusGetString": (c_char_p, [c_int]),
    "lyContextCreate": (Handle, []),
    "lyContextDestroy": (None, [Handle]),
    "lyContextSetDiagnosticHandler": (None, [Handle, DiagnosticHandler, c_void_p]),
    "lyTypeParse": (Handle, [Handle, c_char_p, c_size_t, c_char_p]),
    "lyTypeParseValue": (Handle, [Handle, c_char_p, c_size_t, c_char_p]),
    "lyTypeGetRowMajor": (Handle, [Handle, c_int, c_int, POINTER(c_int64)]),
    "lyElemGetName": (c_char_p, [c_int]),
    "lyElemGetBits": (c_int, [c_int]),
    "lyTypeGetRank": (c_int, [Handle]),
    "lyTypeGetDim": (c_int64, [Handle, c_int]),
    "lyTypeGetElement": (c_int, [Handle]),
    "lyTypeIsAny": (c_int, [Handle]),
    "lyTypeIsTensor": (c_int, [Handle]),
    "lyTypeIsDynamic": (c_int, [Handle]),
    "lyTypeIsContiguous": (c_int, [Handle]),
    "lyTypeGetHash": (c_uint64, [Handle]),
    "lyTypeGetNumel": (c_int, [Handle, POINTER(c_int64)]),
    "lyTypeGetAllocElements": (c_int, [Handle, POINTER(c_int64)]),
    "lyTypeGetSizeBytes": (c_int, [Handle, POINTER(c_int64)]),
    "lyTypeGetOffset": (c_int, [Handle, POINTER(c_int64), POINTER(c_int64)]),
    "lyTypeGetStrides": (c_int, [Handle, POINTER(c_int64), POINTER(c_int64)]),
    "lyTypeToString": (c_void_p, [Handle]),
    "lyStringFree": (None, [c_void_p]),
    "lyTypePermute": (Handle, [Handle, Handle, POINTER(c_int)]),
    "lyTypeReshape": (Handle, [Handle, Handle, c_int, POINTER(c_int64)]),
    "lyTypeBroadcast": (Handle, [Handle, Handle, c_int, POINTER(c_int64)]),
    "lyTypeWithLayout": (Handle, [Handle, Handle, c_char_p]),
    "lyTypeTryReshape": (c_int, [Handle, Handle, c_int, POINTER(c_int64), POINTER(Handle)]),
    "lyTypeTryReshapeStrided": (c_int, [Handle, Handle, c_int, POINTER(c_int64), POINTER(Handle)]),
    "lyTypeTrySlice": (c_int, [Handle, Handle, POINTER(c_int64), POINTER(c_int64), POINTER(Handle)]),
    "lyTypeGetReshapeRelayout": (Handle, [Handle, Handle, c_int, POINTER(c_int64)]),
    # IR
    "lyModuleParse": (Handle, [Handle, c_char_p, c_size_t, c_char_p]),
    "lyModuleCreate": (Handle, [Handle]),
    "lyModuleDestroy": (None, [Handle]),
    "lyModuleVerify": (c_int, [Handle]),
    "lyModuleToString": (c_void_p, [Handle]),
    "lyModuleRunPass": (c_int, [Handle, c_char_p, c_uint]),
    "lyModuleRunPipeline": (c_int, [Handle, c_char_p, c_uint]),
    "lyPassGetCount": (c_int, []),
    "lyPassGetName": (c_char_p, [c_int]),
    "lyFuncCreate": (Handle, [Handle, c_char_p, c_int, POINTER(Handle), c_int, POINTER(Handle)]),
    "lyModuleGetFirstFunc": (Handle, [Handle]),
    "lyFuncGetNext": (Handle, [Handle]),
    "lyFuncGetName": (StringRef, [Handle]),
    "lyFuncGetNumArgs": (c_int, [Handle]),
    "lyFuncGetArg": (Handle, [Handle, c_int]),
    "lyFuncGetFirstOp": (Handle, [Handle]),
    "lyOpGetNext": (Handle, [Handle]),
    "lyOpCreate": (Handle, [Handle, c_int, c_int, POINTER(Handle), c_int, POINTER(Handle)]),
    "lyOpGetKind": (c_int, [Handle]),
    "lyOpKindGetName": (c_char_p, [c_int]),
    "lyOpGetNumOperands": (c_int, [Handle]),
    "lyOpGetOperand": (Handle, [Handle, c_int]),
    "lyOpGetNumResults": (c_int, [Handle]),
    "lyOpGetResult": (Handle, [Handle, c_int]),
    "lyOpSetIntAttribute": (c_int, [Handle, c_char_p, c_int64]),
    "lyOpSetStringAttribute": (c_int, [Handle, c_char_p, c_char_p]),
    "lyOpSetIntArrayAttribute": (c_int, [Handle, c_char_p, c_int, POINTER(c_int64)]),
    "lyOpGetNumAttributes": (c_int, [Handle]),
    "lyOpGetAttributeName": (StringRef, [Handle, c_int]),
    "lyOpGetIntAttribute": (c_int, [Handle, c_char_p, POINTER(c_int64)]),
    "lyOpGetStringAttribute": (c_int, [Handle, c_char_p, POINTER(StringRef)]),
    "lyOpGetIntArrayAttribute": (c_int, [Handle, c_char_p, POINTER(c_int64), c_int, POINTER(c_int)]),
    "lyValueGetType": (Handle, [Handle]),
    "lyValueGetDefiningOp": (Handle, [Handle]),
    # codegen
    "lyRepackerCreate": (Handle, [Handle]),
    "lyRepackerDestroy": (None, [Handle]),
    "lyRepackKernelGet": (Handle, [Handle, Handle, Handle, c_int]),
    "lyRepackRun": (c_int, [Handle, c_void_p, c_void_p]),
    "lyRepackKernelIsCompiled": (c_int, [Handle]),
    "lyRepackKernelGetCompileSeconds": (c_double, [Handle]),
    "lyRepackInterpret": (c_int, [Handle, Handle, Handle, c_void_p, c_void_p]),
    "lyRepackerSetCacheCapacity": (None, [Handle, c_size_t]),
    "lyRepackerGetCacheSize": (c_size_t, [Handle]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def take_string(ptr):
    """A string the library allocated, released after copying."""
    if not ptr:
        raise MemoryError("layoutc: out of memory")
    try:
        return ctypes.string_at(ptr).decode()
    finally:
        lib.lyStringFree(ptr)


def i64_array(values):
    values = list(values)
    return (c_int64 * max(len(values), 1))(*values)
