"""Moving tile elements between registers and threads: ``ttg.convert_layout``,
``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``.

All five are one operation, :func:`redistribute`: destination register ``r`` of thread ``t``
must hold a given source element (for a conversion, the same coordinates; for a broadcast,
the coordinates with broadcast dimensions set to 0; for ``expand_dims``, the coordinates
without the new dimension; for ``trans``, permuted coordinates; for ``reshape``, the same
row-major linear index). At compile time the mapping is evaluated for every thread (numpy,
``layout_math``):

1. if one source register number serves destination register ``r`` in *every* thread, the
   op is a register renumbering and emits no instruction (the usual case for broadcast,
   expand_dims of a slice, trans of a blocked layout, conversions between equivalent
   layouts);
2. otherwise through shared memory: each canonical source register (one copy per element)
   is stored at its row-major linear index, ``bar.sync``, each destination register loads the
   element it needs, ``bar.sync`` (the second barrier lets the next user of shared memory
   overwrite it). Shared memory used: ``numel * element bytes`` (pointers 8, ``i1`` 1).

Warp-shuffle conversions (when only lanes of one warp exchange data) and swizzled,
vectorised shared-memory traffic come later.
"""
from __future__ import annotations

import numpy as np

from tritonc.ir.types import TileType

from .layout_math import (canonical_ir, coords_ir, find_register_map, linear_ids_ir, linear_ir,
                          linearize)
from .lowering import I32, const, lowers, smem_elem_bytes


def redistribute(lw, src_regs: list, src_type: TileType, dst_type: TileType, select=None) -> list:
    """Registers of ``dst_type`` from a tile of ``src_type`` (see the module docstring).

    Args:
        select: for each source dimension, the destination dimension its coordinate comes
            from, or ``None`` for coordinate 0; ``None`` altogether means "same row-major linear
            index" (reshape).
    """
    sd, dd = lw.dist(src_type), lw.dist(dst_type)
    if sd == dd and (select is None or list(select) == list(range(len(dd.shape)))):
        return list(src_regs)
    dcoords = dd.coords()
    if select is None:
        target = linearize(dcoords, dd.shape)
    else:
        zeros = np.zeros(dcoords.shape[:-1], dtype=np.int64)
        cols = [dcoords[..., s] if s is not None else zeros for s in select]
        target = linearize(np.stack(cols, axis=-1), sd.shape)
    mapping = find_register_map(sd, target)
    if mapping is not None:
        return [src_regs[i] for i in mapping]
    return _through_shared(lw, src_regs, src_type, dst_type, select)


def _through_shared(lw, src_regs, src_type, dst_type, select) -> list:
    sd, dd = lw.dist(src_type), lw.dist(dst_type)
    elem = src_type.element
    nbytes = smem_elem_bytes(elem)
    lw.use_smem(src_type.numel * nbytes)
    b = lw.b
    canon = canonical_ir(lw, sd)
    lin = linear_ids_ir(lw, sd)
    for r, v in enumerate(src_regs):
        with lw.if_then(canon[r]):
            lw.smem_store(v, elem, b.mul(lin[r], const(I32, nbytes)))
    lw.barrier()
    out = []
    memo: dict = {}
    for coords in coords_ir(lw, dd):
        if select is None:
            idx = linear_ir(b, coords, dd.shape)
        else:
            idx = linear_ir(b, [coords[s] if s is not None else const(I32, 0) for s in select], sd.shape)
        key = (tuple(id(c) for c in coords) if select is None
               else tuple(id(coords[s]) if s is not None else None for s in select))
        if key not in memo:
            memo[key] = lw.smem_load(elem, b.mul(idx, const(I32, nbytes)))
        out.append(memo[key])
    lw.barrier()
    return out


@lowers("ttg.convert_layout")
def _convert_layout(lw, op) -> None:
    src = op.operands[0]
    lw.set(op.result, redistribute(lw, lw.get(src), src.type, op.result.type, list(range(src.type.rank))))


@lowers("tt.broadcast")
def _broadcast(lw, op) -> None:
    src, res = op.operands[0].type, op.result.type
    select = [i if s == r else None for i, (s, r) in enumerate(zip(src.shape, res.shape))]
    lw.set(op.result, redistribute(lw, lw.get(op.operands[0]), src, res, select))


@lowers("tt.expand_dims")
def _expand_dims(lw, op) -> None:
    src, res, axis = op.operands[0], op.result.type, op.attrs["axis"]
    if not isinstance(src.type, TileType):
        raise NotImplementedError("expand_dims of a scalar")
    select = [j for j in range(res.rank) if j != axis]
    lw.set(op.result, redistribute(lw, lw.get(src), src.type, res, select))


@lowers("tt.reshape")
def _reshape(lw, op) -> None:
    src = op.operands[0]
    lw.set(op.result, redistribute(lw, lw.get(src), src.type, op.result.type, None))


@lowers("tt.trans")
def _trans(lw, op) -> None:
    src, order = op.operands[0], list(op.attrs["order"])
    inv = [0] * len(order)
    for i, o in enumerate(order):
        inv[o] = i
    lw.set(op.result, redistribute(lw, lw.get(src), src.type, op.result.type, inv))
