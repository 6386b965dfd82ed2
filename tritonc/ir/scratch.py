"""Scratch shared memory: the bytes an op's lowering uses internally, from its layouts alone.

An op whose lowering moves data between threads through shared memory (a layout conversion
that is not a register renumbering, a reduction across warps, an FMA dot's operand staging,
the broadcast of an atomic's old values) declares how many bytes with a scratch function on
its op definition (``OpDef.scratch``, queried with :func:`tritonc.ir.ops.scratch_bytes`).
The lowering uses the scratch as *write; barrier; read* inside the op; ``allocate-shared``
gives it an offset and ``insert-barriers`` orders it against other ops.

The sizes follow from the operand and result layouts (pure layout algebra,
:mod:`tritonc.ir.distribution`); the layouts were built for the Target's warp size.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .distribution import (distribution, lanes_and_warps, redistribution, register_map, row_major_strides,
                           stack_register_map)
from .layouts import MmaLayout
from .types import PointerType, TileType, Type

if TYPE_CHECKING:
    from .core import Operation


def smem_elem_bytes(element: Type) -> int:
    """Bytes an element occupies in shared memory (pointers as i64, i1 as i8)."""
    if isinstance(element, PointerType):
        return 8
    return max(1, element.bits // 8)


def through_shared_bytes(tile: TileType) -> int:
    """Scratch of a move through shared memory: one copy of every element of ``tile``."""
    return tile.numel * smem_elem_bytes(tile.element)


#: Bytes added to each row of a redistribution's scratch whose rows are a multiple of the 128
#: bytes of the 32 shared-memory banks (:func:`redistribution_strides`).
ROW_PAD_BYTES = 16


def redistribution_order(src: TileType, dst: TileType, select) -> tuple[int, ...]:
    """The order of the source's dimensions in a redistribution's scratch, fastest first:
    row major (the last dimension fastest), except for a 2-D ``ttg.convert_layout`` whose
    destination reads longer runs along dimension 0 than the source writes along its own
    fastest dimension (an mma accumulator, pairs along the columns, converted for a store
    that is contiguous along the rows: an NCHW convolution's output, Y[n, k, p, q] with the
    tile's rows the pixels): then column major, so that the side that can use wide accesses
    gets them (``Distribution.register_run``), instead of loading one element at a time from
    addresses a padded row apart."""
    if select is None or len(src.shape) != 2 or list(select) != [0, 1] or src.layout is None or dst.layout is None:
        return tuple(reversed(range(len(src.shape))))
    sd, dd = distribution(src.layout, src.shape), distribution(dst.layout, dst.shape)
    if sd.blocked != src.layout or dd.blocked != dst.layout:  # a slice: its runs are the parent's
        return (1, 0)
    (sfast, srun), (dfast, drun) = sd.register_run, dd.register_run
    srun = min(srun, src.shape[sfast])
    drun = min(drun, dst.shape[dfast])
    if dfast == 0 and sfast != 0 and drun > max(srun, 1):
        return (0, 1)
    return (1, 0)


def redistribution_strides(src: TileType, dst: TileType, select) -> tuple[tuple[int, ...], int]:
    """Where a redistribution through shared memory puts the source tile: ``(strides,
    elements)``, the stride in elements of each source dimension and the scratch's length.

    The dimensions go in :func:`redistribution_order`, the fastest one padded by
    :data:`ROW_PAD_BYTES` when its extent is a multiple of 128 bytes (rank 2 or more; not for
    ``tt.reshape``, ``select`` None, whose two sides share the unpadded row-major linear
    index). Without the pad every row starts on the same bank, and the eight rows an mma
    accumulator's warp writes at once (its lanes' groups ``g = lane / 4``) hit the same four
    banks: an 8-way conflict per store (ncu on an H100, 2026-11-27: the matmul, bmm and
    attention epilogues' ``STS`` at 8 times the ideal wavefronts)."""
    shape = tuple(src.shape)
    if select is None or not shape:
        return row_major_strides(shape), src.numel
    order = redistribution_order(src, dst, select)
    extents = list(shape)
    fast = order[0]
    if len(shape) >= 2 and (shape[fast] * smem_elem_bytes(src.element)) % 128 == 0:
        extents[fast] += ROW_PAD_BYTES // smem_elem_bytes(src.element)
    strides = [0] * len(shape)
    n = 1
    for d in order:
        strides[d] = n
        n *= extents[d]
    return tuple(strides), n


def redistribution_bytes(src: TileType, dst: TileType, select) -> int:
    """Scratch bytes of a redistribution through shared memory (:func:`redistribution_strides`)."""
    return redistribution_strides(src, dst, select)[1] * smem_elem_bytes(src.element)


def redistribution_scratch(op: Operation) -> int:
    """``ttg.convert_layout``, ``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``:
    0 when the move is a register renumbering in every thread, else one copy of the source
    (:func:`redistribution_bytes`)."""
    if not isinstance(op.operands[0].type, TileType):
        return 0
    src, dst, select = redistribution(op)
    return 0 if register_map(src, dst, select) is not None else redistribution_bytes(src, dst, select)


def stack_scratch(op: Operation) -> int:
    """``tt.stack``: 0 when it is a register renumbering (:func:`~tritonc.ir.distribution.stack_register_map`),
    else one copy of the result."""
    res = op.result.type
    if stack_register_map(op.operands[0].type, res, op.attrs["axis"]) is not None:
        return 0
    return through_shared_bytes(res)


def reduce_scratch(op: Operation) -> int:
    """``tt.reduce``: the ``[result element][warp]`` partials of the cross-warp stage; 0 when
    one warp holds the whole reduced axis."""
    src, res = op.operands[0].type, op.result.type
    sd = distribution(src.layout, src.shape)
    _, warps = lanes_and_warps(sd, sd.dims[op.attrs["axis"]])
    if warps <= 1:
        return 0
    numel = res.numel if isinstance(res, TileType) else 1
    return numel * warps * smem_elem_bytes(src.element)


def fma_dot_a_pitch(a_type: TileType) -> int | None:
    """The row pitch (elements) of a 2-D FMA dot's ``a`` ``[M, K]`` in its scratch, where it is
    staged transposed, ``[K, M]`` (a column of ``a``, what one ``k`` of the product reads, is a
    contiguous row): ``M`` plus 16 bytes of padding, so that rows stay 16-byte aligned and a
    warp's stores of a ``[M, K]`` tile whose lanes run along ``K`` fall in more banks (4-way
    conflicts for a 128-row float tile, instead of 8). ``None`` for a batched dot (``a``
    staged row-major; one batch element, ``[M, K, 1]``, is staged as a 2-D one)."""
    if a_type.rank < 2 or any(d != 1 for d in a_type.shape[2:]):
        return None
    return a_type.shape[0] + 16 // smem_elem_bytes(a_type.element)


def fma_dot_b_offset(a_type: TileType) -> int:
    """Where an FMA dot's ``b`` operand starts in its scratch: after ``a`` (transposed and
    padded for a 2-D dot, :func:`fma_dot_a_pitch`), 16-byte aligned."""
    pitch = fma_dot_a_pitch(a_type)
    elems = a_type.numel if pitch is None else a_type.shape[1] * pitch
    return (elems * smem_elem_bytes(a_type.element) + 15) // 16 * 16


def dot_scratch(op: Operation) -> int:
    """``tt.dot``: 0 on tensor cores (an mma layout); an FMA dot stages both operands: ``a``
    (:func:`fma_dot_b_offset` bytes: transposed and padded for a 2-D dot, else ``numel(a) *
    bytes(a)``, rounded up to 16), then ``numel(b) * bytes(b)``."""
    if isinstance(op.result.type.layout, MmaLayout):
        return 0
    a, b, _ = op.operands
    return fma_dot_b_offset(a.type) + b.type.numel * smem_elem_bytes(b.type.element)


def atomic_scratch(op: Operation) -> int:
    """``tt.atomic_rmw`` / ``tt.atomic_cas``: the broadcast of the old values; 0 when the result
    is unused or each element's old value is held once."""
    res = op.result
    if not res.uses:
        return 0
    if isinstance(res.type, TileType):
        replicated = distribution(res.type.layout, res.type.shape).replicated
        return through_shared_bytes(res.type) if replicated else 0
    return smem_elem_bytes(res.type)
