"""Memory and values of the SIMT simulator (:mod:`tritonc.simt.simulator`).

A value is a numpy array over the CTA's ``num_warps * WARP`` threads: ``[T]`` for a scalar LLVM
type, ``[T, n]`` for an ``<n x ty>`` vector, a tuple of those for a struct. The LLVM types map to
numpy dtypes one to one (:func:`np_dtype`: ``iN`` unsigned, ``i1`` bool, ``half``, ``bfloat``
(``ml_dtypes``), ``float``, ``double``, pointers ``uint64``); integer results are wrapped to
their width (:func:`wrap`) and read as two's complement where an instruction is signed
(:func:`signed`). Loads, stores and bitcasts go through the little-endian bytes of a value
(:func:`to_bytes`, :func:`from_bytes`; :func:`size_of` is an LLVM type's store size, pointers 8
bytes in the global and generic address spaces, 4 in the others).

:class:`Memory` holds the global memory, one byte array in which every argument buffer has its
own 256-byte aligned range from :data:`GLOBAL_BASE` on (so an address below it, or past the
buffers, is out of bounds), and the CTA's shared memory (address space 3, from 0), filled with
``0xAB`` at the start of every CTA so that a read of a byte nobody wrote shows. An access by a
masked-off thread does nothing; an out-of-bounds or misaligned one raises ``IndexError``.
"""
from __future__ import annotations

import llvmlite.ir as ir
import ml_dtypes
import numpy as np

WARP = 32
GLOBAL_BASE = 1 << 20


def np_dtype(ty: ir.Type):
    if isinstance(ty, ir.IntType):
        return {1: np.bool_, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[ty.width]
    s = str(ty)
    if s == "half":
        return np.float16
    if s == "bfloat":
        return ml_dtypes.bfloat16
    if s == "float":
        return np.float32
    if s == "double":
        return np.float64
    if isinstance(ty, ir.PointerType):
        return np.uint64
    raise NotImplementedError(f"type {ty}")


def size_of(ty: ir.Type) -> int:
    if isinstance(ty, ir.VectorType):
        return ty.count * size_of(ty.element)
    if isinstance(ty, ir.IntType):
        return max(1, ty.width // 8)
    if isinstance(ty, ir.PointerType):
        return 8 if ty.addrspace in (0, 1) else 4
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(ty)]


def signed(x: np.ndarray, width: int) -> np.ndarray:
    x = x.astype(np.int64) if width < 64 else x.view(np.int64)
    if width < 64:
        x = np.where(x >= (1 << (width - 1)), x - (1 << width), x)
    return x


def wrap(x, width: int) -> np.ndarray:
    if width == 1:
        return np.asarray(x).astype(np.bool_)
    if width == 64:
        return np.asarray(x).astype(np.int64).view(np.uint64) if np.asarray(x).dtype != np.uint64 else np.asarray(x)
    return (np.asarray(x).astype(np.int64) & ((1 << width) - 1)).astype(np_dtype(ir.IntType(width)))


class Memory:
    """Global memory (one byte array holding every argument buffer) and shared memory."""

    def __init__(self, arrays: list[np.ndarray], shared_bytes: int):
        self.addresses = []
        offset = 0
        for a in arrays:
            self.addresses.append(GLOBAL_BASE + offset)
            offset += (a.nbytes + 255) // 256 * 256
        self.g = np.zeros(max(offset, 16), dtype=np.uint8)
        for a, addr in zip(arrays, self.addresses):
            self.g[addr - GLOBAL_BASE:addr - GLOBAL_BASE + a.nbytes] = np.frombuffer(np.ascontiguousarray(a).tobytes(), np.uint8)
        self.s = np.full(max(shared_bytes, 16), 0xAB, dtype=np.uint8)

    def space(self, addrspace: int):
        return (self.s, 0) if addrspace == 3 else (self.g, GLOBAL_BASE)

    def read(self, addrspace: int, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
        buf, base = self.space(addrspace)
        out = np.zeros((addr.shape[0], nbytes), dtype=np.uint8)
        idx = np.nonzero(mask)[0]
        if idx.size:
            a = addr[idx].astype(np.int64) - base
            if (a < 0).any() or (a + nbytes > buf.size).any():
                bad = idx[(a < 0) | (a + nbytes > buf.size)][0]
                raise IndexError(f"thread {bad}: read of {nbytes} bytes at {int(addr[bad]):#x} out of bounds "
                                 f"({'shared' if addrspace == 3 else 'global'})")
            if nbytes > 1 and (a % nbytes).any() and nbytes <= 16:
                raise IndexError(f"misaligned {nbytes}-byte read")
            out[idx] = buf[a[:, None] + np.arange(nbytes)]
        return out

    def write(self, addrspace: int, addr: np.ndarray, data: np.ndarray, mask: np.ndarray) -> None:
        buf, base = self.space(addrspace)
        nbytes = data.shape[1]
        idx = np.nonzero(mask)[0]
        if not idx.size:
            return
        a = addr[idx].astype(np.int64) - base
        if (a < 0).any() or (a + nbytes > buf.size).any():
            raise IndexError(f"write of {nbytes} bytes out of bounds ({'shared' if addrspace == 3 else 'global'})")
        if nbytes > 1 and (a % min(nbytes, 16)).any():
            raise IndexError(f"misaligned {nbytes}-byte write")
        buf[a[:, None] + np.arange(nbytes)] = data[idx]


def to_bytes(v: np.ndarray, ty: ir.Type) -> np.ndarray:
    """[T] or [T, n] values of ``ty`` -> [T, bytes] uint8."""
    if isinstance(ty, ir.VectorType):
        el = ty.element
        arr = np.asarray(v).astype(np_dtype(el)) if not isinstance(el, ir.IntType) or el.width > 1 else v
        if isinstance(el, ir.IntType) and el.width == 1:
            arr = np.asarray(v).astype(np.uint8)
        return np.ascontiguousarray(arr).view(np.uint8).reshape(arr.shape[0], -1)
    if isinstance(ty, ir.IntType) and ty.width == 1:
        return np.asarray(v).astype(np.uint8).reshape(-1, 1)
    arr = np.ascontiguousarray(np.asarray(v).astype(np_dtype(ty)))
    return arr.view(np.uint8).reshape(arr.shape[0], -1)


def from_bytes(b: np.ndarray, ty: ir.Type):
    if isinstance(ty, ir.VectorType):
        el = ty.element
        if isinstance(el, ir.IntType) and el.width == 1:
            return b.astype(np.bool_)
        return np.ascontiguousarray(b).view(np_dtype(el)).reshape(b.shape[0], ty.count)
    if isinstance(ty, ir.IntType) and ty.width == 1:
        return b[:, 0].astype(np.bool_)
    return np.ascontiguousarray(b).view(np_dtype(ty)).reshape(b.shape[0])
