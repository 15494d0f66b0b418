"""Repacking NumPy arrays between layouts with JIT-compiled kernels."""
import ctypes

import numpy as np

from ._capi import lib

_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
           "i32": np.int32, "i64": np.int64, "bf16": np.uint16}  # bf16 as its raw 16 bits


def dtype_of(elem):
    if elem not in _DTYPES:
        raise TypeError(f"no NumPy dtype for {elem}")
    return np.dtype(_DTYPES[elem])


class Kernel:
    """A compiled (or interpreted) repack from one type to another."""

    def __init__(self, repacker, h, src, dst):
        self.repacker, self._h, self.src, self.dst = repacker, h, src, dst

    @property
    def compiled(self):
        return bool(lib.lyRepackKernelIsCompiled(self._h))

    def run(self, src_buffer):
        """src_buffer: a C-contiguous array holding src's allocation (its
        bytes). Returns a new uint8 array holding dst's allocation."""
        src = np.ascontiguousarray(src_buffer)
        if src.nbytes != self.src.size_bytes:
            raise ValueError(f"source holds {src.nbytes} bytes, {self.src} needs {self.src.size_bytes}")
        out = np.empty(self.dst.size_bytes, dtype=np.uint8)
        st = lib.lyRepackRun(self._h, src.ctypes.data_as(ctypes.c_void_p), out.ctypes.data_as(ctypes.c_void_p))
        self.repacker.ctx._status("repack", st)
        return out


class Repacker:
    """A JIT and kernel cache over a Context (shareable between threads)."""

    def __init__(self, ctx):
        self.ctx, self._h = ctx, lib.lyRepackerCreate(ctx._h)
        if not self._h:
            ctx._fail("repacker")

    def kernel(self, src, dst, threads=1):
        h = lib.lyRepackKernelGet(self._h, src._h, dst._h, threads)
        if not h:
            self.ctx._fail(f"kernel {src} -> {dst}")
        return Kernel(self, h, src, dst)

    def set_cache_capacity(self, n):
        lib.lyRepackerSetCacheCapacity(self._h, n)

    def pack(self, array, dst, threads=1):
        """A row-major NumPy array into dst's layout: the raw allocation
        (padding zeroed) as a flat array of dst's element dtype."""
        a = np.ascontiguousarray(array)
        src = self.ctx.row_major(dst.element, list(a.shape))
        if a.dtype != dtype_of(dst.element):
            raise TypeError(f"array dtype {a.dtype} is not {dst.element}")
        return self.kernel(src, dst, threads).run(a).view(dtype_of(dst.element))

    def unpack(self, buffer, src, threads=1):
        """dst's raw allocation (from pack) back to a row-major NumPy array."""
        rm = self.ctx.row_major(src.element, src.dims)
        out = self.kernel(src, rm, threads).run(np.ascontiguousarray(buffer))
        return out.view(dtype_of(src.element)).reshape(src.dims)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.lyRepackerDestroy(self._h)
            self._h = None
