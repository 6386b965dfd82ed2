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

from .distribution import distribution, lanes_and_warps, redistribution, register_map, stack_register_map
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
#: bytes of the 32 shared-memory banks (:func:`redistribution_shape`).
ROW_PAD_BYTES = 16


def redistribution_shape(src: TileType, select) -> tuple[int, ...]:
    """The shape in which a redistribution through shared memory lays the source tile out, row
    major: the source's, its rows padded by :data:`ROW_PAD_BYTES` when they are a multiple of 128
    bytes (rank 2 or more; not for ``tt.reshape``, ``select`` None, whose two sides share the
    unpadded linear index). Without the pad every row starts on the same bank, and the eight
    rows an mma accumulator's warp writes at once (its lanes' groups ``g = lane / 4``) hit
    the same four banks: an 8-way conflict per store (ncu on an H100, 2026-11-27: the matmul,
    bmm and attention epilogues' ``STS`` at 8 times the ideal wavefronts)."""
    shape = tuple(src.shape)
    row = shape[-1] * smem_elem_bytes(src.element) if shape else 0
    if select is None or len(shape) < 2 or row % 128:
        return shape
    return shape[:-1] + (shape[-1] + ROW_PAD_BYTES // smem_elem_bytes(src.element),)


def redistribution_bytes(src: TileType, select) -> int:
    """Scratch bytes of a redistribution through shared memory (:func:`redistribution_shape`)."""
    n = 1
    for d in redistribution_shape(src, select):
        n *= d
    return n * smem_elem_bytes(src.element)


def redistribution_scratch(op: Operation) -> int:
    """``ttg.convert_layout``, ``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``:
    0 when the move is a register renumbering in every thread, else one copy of the source
    (:func:`redistribution_bytes`)."""
    if not isinstance(op.operands[0].type, TileType):
        return 0
    src, dst, select = redistribution(op)
    return 0 if register_map(src, dst, select) is not None else redistribution_bytes(src, select)


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


def fma_dot_b_offset(a_type: TileType) -> int:
    """Where an FMA dot's ``b`` operand starts in its scratch: after ``a``, 16-byte aligned."""
    return (a_type.numel * smem_elem_bytes(a_type.element) + 15) // 16 * 16


def dot_scratch(op: Operation) -> int:
    """``tt.dot``: 0 on tensor cores (an mma layout); an FMA dot stages both operands:
    ``numel(a) * bytes(a)`` rounded up to 16, plus ``numel(b) * bytes(b)``."""
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
