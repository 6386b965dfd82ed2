"""Shared-memory buffers as the lowering sees them, and reads and writes of whole tiles.

* :class:`SharedBuffer`: a buffer value's base offset, shape, layout and element type;
  :class:`DeferredLoad`: a ``ttg.local_load`` whose ``ldmatrix`` the next ``tt.dot`` issues;
* addressing: swizzled element offsets (:class:`OffsetBuilder`, :func:`byte_address`),
  per-register offsets and the grouping of registers into vector accesses;
* :func:`store_tile` / :func:`load_tile`: a tile in a blocked (or any distributed) layout to
  and from a buffer.

The op handlers that use them (``local_alloc``, ``local_load``, ``cp.async``, ...) and the
``ldmatrix`` fragment loads are in ``shared_ops.py``, whose docstring gives the rules.
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir
import numpy as np

from tritonc.ir.distribution import Distribution
from tritonc.ir.layouts import BlockedLayout, SharedLayout
from tritonc.ir.types import MemDescType, TileType

from .layout_math import canonical_ir, mma_thread_bases_ir, thread_bases_ir
from .lowering import I1, I32, KernelLowering, const, llvm_type, storage_type


@dataclass
class SharedBuffer:
    """A lowered buffer value: the i32 byte offset of the whole buffer's element 0, its type,
    and, for a sub-slice, where it starts in the whole buffer (``type.full_shape``
    coordinates; empty: at 0)."""

    base: ir.Value
    type: MemDescType
    origin: tuple[int, ...] = ()

    @property
    def start(self) -> tuple[int, ...]:
        return self.origin or (0,) * self.type.rank


@dataclass
class DeferredLoad:
    """A ``ttg.local_load`` into a dot-operand layout whose ``ldmatrix`` the consuming dot issues."""

    buf: SharedBuffer
    type: TileType


def elem_bytes(t) -> int:
    return max(1, t.element.bits // 8)


# -- swizzled shared memory ----------------------------------------------------------------

def row_width(layout: SharedLayout, shape: tuple[int, ...]) -> int:
    """Elements per row of the swizzle pattern: the contiguous dimension, or ``layout.block``
    when that splits it (see :func:`shared_offset`)."""
    full = shape[layout.order[0]]
    return layout.block if 0 < layout.block < full else full


def shared_offset(layout: SharedLayout, shape: tuple[int, ...], coords):
    """Element offset of ``coords`` (ints or numpy arrays, one per dimension) in a buffer of
    ``shape`` laid out by ``layout``.

    Dimension ``order[0]`` is contiguous; ``order[1]`` is the *row* dimension; the other
    dimensions are outer (slowest last). A row holds ``C = shape[order[0]]`` elements in
    chunks of ``vec``; row ``r`` stores its logical chunk ``c`` at chunk ``c ^ ((r //
    per_phase) % max_phase)`` (Triton's swizzled shared encoding). With ``layout.block`` (and
    ``C > block``) the contiguous dimension is cut into ``C / block`` blocks, each stored as
    ``[rows, block]`` (rows ``block`` elements long) one after the other, inside the outer
    dimensions (wgmma's canonical layouts, PTX ISA 9.7.15.5.1).
    """
    order = layout.order
    col = coords[order[0]]
    offset = col % layout.vec
    if len(order) == 1:
        return col
    row = coords[order[1]]
    width, block = row_width(layout, shape), 0
    if width != shape[order[0]]:
        col, block = col % width, col // width
    phase = (row // layout.per_phase) % layout.max_phase
    offset = offset + ((col // layout.vec) ^ phase) * layout.vec + row * width
    if width != shape[order[0]]:
        offset = offset + block * (width * shape[order[1]])
    stride = shape[order[0]] * shape[order[1]]
    for d in order[2:]:
        offset = offset + coords[d] * stride
        stride *= shape[d]
    return offset


def shared_offset_ir(builder, layout: SharedLayout, shape: tuple[int, ...], coords: list):
    """:func:`shared_offset` with i32 LLVM values (``coords`` may mix ints and values)."""
    def c(x):
        return const(I32, x) if isinstance(x, int) else x

    def udiv(x, d):
        if isinstance(x, int):
            return x // d
        return x if d == 1 else builder.lshr(x, const(I32, d.bit_length() - 1))

    def urem(x, d):
        if isinstance(x, int):
            return x % d
        return builder.and_(x, const(I32, d - 1))

    def add(x, y):
        if isinstance(x, int) and isinstance(y, int):
            return x + y
        if isinstance(y, int) and y == 0:
            return x
        if isinstance(x, int) and x == 0:
            return y
        return builder.add(c(x), c(y))

    def mul(x, k):
        if isinstance(x, int):
            return x * k
        if k == 1:
            return x
        if k & (k - 1) == 0:
            return builder.shl(x, const(I32, k.bit_length() - 1))
        return builder.mul(x, const(I32, k))

    def xor(x, y):
        if isinstance(x, int) and isinstance(y, int):
            return x ^ y
        if isinstance(y, int) and y == 0:
            return x
        return builder.xor(c(x), c(y))

    order = layout.order
    col = coords[order[0]]
    if len(order) == 1:
        return c(col)
    row = coords[order[1]]
    vec = layout.vec
    width, block = row_width(layout, shape), 0
    if width != shape[order[0]]:
        col, block = urem(col, width), udiv(col, width)
    phase = urem(udiv(row, layout.per_phase), layout.max_phase) if layout.max_phase > 1 else 0
    offset = add(add(urem(col, vec), mul(xor(udiv(col, vec), phase), vec)), mul(row, width))
    if width != shape[order[0]]:
        offset = add(offset, mul(block, width * shape[order[1]]))
    stride = shape[order[0]] * shape[order[1]]
    for d in order[2:]:
        offset = add(offset, mul(coords[d], stride))
        stride *= shape[d]
    return c(offset)


# -- address helpers -----------------------------------------------------------------------

def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def swizzle_periods(layout: SharedLayout, rank: int) -> list[int]:
    """Per buffer dimension, the period of a constant coordinate shift the swizzle does not see."""
    periods = [1] * rank
    periods[layout.order[0]] = max(layout.vec * _pow2_ceil(layout.max_phase), layout.block)
    if rank > 1:
        periods[layout.order[1]] = layout.per_phase * layout.max_phase
    return periods


class OffsetBuilder:
    """Element offsets ``shared_offset(layout, shape, base + const)`` with ``base`` symbolic
    (entry-block i32 values) and ``const`` ints, split as the module docstring says."""

    def __init__(self, lw: KernelLowering, layout: SharedLayout, shape: tuple[int, ...]):
        self.lw, self.layout, self.shape = lw, layout, tuple(shape)
        self.periods = swizzle_periods(layout, len(shape))

    def offset(self, base: list, consts: list[int]) -> ir.Value | int:
        """``base`` per dimension (i32 value or int), ``consts`` per dimension (ints)."""
        lo = [c % p for c, p in zip(consts, self.periods)]
        hi = [c - l for c, l in zip(consts, lo)]
        hi_off = int(shared_offset(self.layout, self.shape, hi))
        key = (self.layout, self.shape, tuple(id(b) if not isinstance(b, int) else b for b in base), tuple(lo))
        cache = self.lw.entry_values.smem_offsets
        if key not in cache:
            coords = []
            for b, c in zip(base, lo):
                if isinstance(b, int):
                    coords.append(b + c)
                else:
                    coords.append(self.lw.eb.add(b, const(I32, c)) if c else b)
            cache[key] = (shared_offset_ir(self.lw.eb, self.layout, self.shape, coords), base)
        value = cache[key][0]
        if hi_off == 0:
            return value
        return self.lw.b.add(value, const(I32, hi_off))


def byte_address(lw: KernelLowering, buf: SharedBuffer, elem_offset, nbytes: int) -> ir.Value:
    """``ptr addrspace(3)`` of element ``elem_offset`` (i32 value) of ``buf``."""
    b = lw.b
    off = elem_offset if nbytes == 1 else b.mul(elem_offset, const(I32, nbytes))
    return lw.smem_ptr(b.add(buf.base, off))


def _dist_bases(lw: KernelLowering, dist: Distribution) -> list:
    if isinstance(dist.blocked, BlockedLayout):
        return thread_bases_ir(lw, dist.blocked)
    return mma_thread_bases_ir(lw, dist.blocked, dist.cta)


def vector_groups(dist: Distribution, contig_dim: int, vmax: int) -> tuple[int, list[list[int]]]:
    """``(v, groups)``: registers grouped by ``v`` (a power of two ``<= vmax``) that hold, in every
    thread, elements ``x, x + 1, ..., x + v - 1`` along tile dimension ``contig_dim`` with
    ``x`` a multiple of ``v`` and the same canonical status; every register is in one group."""
    coords = dist.coords()
    canon = dist.canonical()
    n = dist.num_regs
    strides = [1] * len(dist.shape)
    for d in range(len(dist.shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * dist.shape[d + 1]
    lin = (coords * np.array(strides, dtype=np.int64)).sum(axis=2)  # [threads, regs]
    columns: dict[bytes, list[int]] = {}
    for r in range(n):
        columns.setdefault(lin[:, r].tobytes() + canon[:, r].tobytes(), []).append(r)
    step = strides[contig_dim]
    v = max(1, vmax)
    while v > 1:
        groups, used, ok = [], set(), True
        pos = coords[:, :, contig_dim]
        for r in range(n):
            if r in used:
                continue
            if np.any(pos[:, r] % v):
                continue
            group = [r]
            for j in range(1, v):
                key = (lin[:, r] + j * step).tobytes() + canon[:, r].tobytes()
                cands = [c for c in columns.get(key, []) if c not in used and c not in group]
                if not cands or np.any(pos[:, r] + j >= dist.shape[contig_dim]):
                    ok = False
                    break
                group.append(cands[0])
            if not ok:
                break
            used.update(group)
            groups.append(group)
        if ok and len(used) == n:
            return v, groups
        v //= 2
    return 1, [[r] for r in range(n)]


def register_offsets(lw: KernelLowering, dist: Distribution, buf: SharedBuffer, regs: list[int]) -> list:
    """Element offsets (i32) in ``buf`` (relative to the whole buffer's element 0) of the
    elements that registers ``regs`` of a tile in ``dist`` hold."""
    layout, shape, origin = buf.type.layout, tuple(buf.type.full_shape), buf.start
    bases = _dist_bases(lw, dist)
    ob = OffsetBuilder(lw, layout, shape)
    b = lw.b
    out = []
    for r in regs:
        off = dist.offsets[r]
        base, consts, wrapped = [], [], []
        for i, d in enumerate(dist.dims):
            if dist.wraps(d):
                u = b.add(bases[d], const(I32, off[d])) if off[d] else bases[d]
                w = b.urem(u, const(I32, dist.pshape[d]))
                wrapped.append(b.add(w, const(I32, origin[i])) if origin[i] else w)
                base.append(None)
                consts.append(0)
            else:
                wrapped.append(None)
                base.append(bases[d])
                consts.append(off[d] + origin[i])
        if any(w is not None for w in wrapped):
            coords = [w if w is not None else b.add(bs, const(I32, c)) if c else bs
                      for w, bs, c in zip(wrapped, base, consts)]
            out.append(shared_offset_ir(b, layout, shape, coords))
        else:
            out.append(ob.offset(base, consts))
    return out


def _to_storage(b, v, element):
    ty = llvm_type(element)
    return b.zext(v, storage_type(element)) if ty == I1 else v


def _from_storage(b, v, element):
    return b.trunc(v, I1) if llvm_type(element) == I1 else v


def store_tile(lw: KernelLowering, buf: SharedBuffer, regs: list, tile: TileType) -> None:
    """Write a tile's registers into ``buf`` (same shape), vectorised, canonical copies only."""
    layout = buf.type.layout
    dist = lw.dist(tile)
    eb = elem_bytes(buf.type)
    v, groups = vector_groups(dist, layout.order[0], max(1, 16 // eb))
    offsets = register_offsets(lw, dist, buf, [g[0] for g in groups])
    canon = canonical_ir(lw, dist)
    sty = storage_type(tile.element)
    b = lw.b
    for g, off in zip(groups, offsets):
        ptr = byte_address(lw, buf, off, eb)
        with lw.if_then(canon[g[0]]):
            if v == 1:
                b.store(_to_storage(b, regs[g[0]], tile.element), ptr, align=eb)
            else:
                vec = ir.Constant(ir.VectorType(sty, v), None)
                for j, r in enumerate(g):
                    vec = b.insert_element(vec, _to_storage(b, regs[r], tile.element), const(I32, j))
                b.store(vec, ptr, align=v * eb)


def load_tile(lw: KernelLowering, buf: SharedBuffer, tile: TileType) -> list:
    """Read a tile of ``tile``'s layout from ``buf`` (same shape), vectorised."""
    layout = buf.type.layout
    dist = lw.dist(tile)
    eb = elem_bytes(buf.type)
    v, groups = vector_groups(dist, layout.order[0], max(1, 16 // eb))
    offsets = register_offsets(lw, dist, buf, [g[0] for g in groups])
    sty = storage_type(tile.element)
    b = lw.b
    regs: list = [None] * dist.num_regs
    for g, off in zip(groups, offsets):
        ptr = byte_address(lw, buf, off, eb)
        if v == 1:
            regs[g[0]] = _from_storage(b, b.load(ptr, typ=sty, align=eb), tile.element)
        else:
            vec = b.load(ptr, typ=ir.VectorType(sty, v), align=v * eb)
            for j, r in enumerate(g):
                regs[r] = _from_storage(b, b.extract_element(vec, const(I32, j)), tile.element)
    return regs
