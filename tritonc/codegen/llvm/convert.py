"""Moving tile elements between registers and threads: ``ttg.convert_layout``,
``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``.

All five are one operation, a redistribution (:func:`redistribution`): destination register ``r`` of thread ``t``
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
   is stored at its row-major linear index in the op's scratch, ``bar.sync``, each destination
   register loads the element it needs. Scratch (:func:`scratch_bytes`): ``numel * element
   bytes`` (pointers 8, ``i1`` 1). The barrier that lets a later op overwrite the scratch is
   ``insert-barriers``' job.

Warp-shuffle conversions (when only lanes of one warp exchange data) and swizzled,
vectorised shared-memory traffic come later.
"""
from __future__ import annotations

import numpy as np

from tritonc.ir.distribution import distribution, find_register_map, linearize
from tritonc.ir.layout_algebra import inverse_permutation
from tritonc.ir.types import TileType

from .layout_math import canonical_ir, coords_ir, linear_ids_ir, linear_ir
from .lowering import I32, const, lowers, scratch, smem_elem_bytes


def redistribution(op) -> tuple:
    """``(source type, destination type, select)`` of one of this module's ops.

    ``select``: for each source dimension, the destination dimension its coordinate comes from,
    or ``None`` for coordinate 0; ``None`` altogether means "same row-major linear index"
    (reshape).
    """
    src, res = op.operands[0].type, op.result.type
    if op.name == "tt.broadcast":
        return src, res, [i if s == r else None for i, (s, r) in enumerate(zip(src.shape, res.shape))]
    if op.name == "tt.expand_dims":
        if not isinstance(src, TileType):
            raise NotImplementedError("expand_dims of a scalar")
        return src, res, [j for j in range(res.rank) if j != op.attrs["axis"]]
    if op.name == "tt.reshape":
        return src, res, None
    if op.name == "tt.trans":
        return src, res, list(inverse_permutation(op.attrs["order"]))
    return src, res, list(range(src.rank))  # ttg.convert_layout


def register_map(src_type: TileType, dst_type: TileType, select) -> list[int] | None:
    """Case 1 of the module docstring: the source register of each destination register when
    the move is a renumbering in every thread, else ``None`` (case 2, through shared memory)."""
    sd, dd = distribution(src_type.layout, src_type.shape), distribution(dst_type.layout, dst_type.shape)
    if sd == dd and (select is None or list(select) == list(range(len(dd.shape)))):
        return list(range(sd.num_regs))
    dcoords = dd.coords()
    if select is None:
        target = linearize(dcoords, dd.shape)
    else:
        zeros = np.zeros(dcoords.shape[:-1], dtype=np.int64)
        cols = [dcoords[..., s] if s is not None else zeros for s in select]
        target = linearize(np.stack(cols, axis=-1), sd.shape)
    return find_register_map(sd, target)


def through_shared_bytes(tile: TileType) -> int:
    """Scratch of a move through shared memory: one copy of every element of ``tile``."""
    return tile.numel * smem_elem_bytes(tile.element)


@scratch("ttg.convert_layout", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans")
def scratch_bytes(op) -> int:
    if not isinstance(op.operands[0].type, TileType):
        return 0
    src, dst, select = redistribution(op)
    return 0 if register_map(src, dst, select) is not None else through_shared_bytes(src)


@lowers("ttg.convert_layout", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans")
def _redistribute(lw, op) -> None:
    src, dst, select = redistribution(op)
    regs = lw.get(op.operands[0])
    lw.dist(src), lw.dist(dst)  # checks that both layouts are for this kernel's threads
    mapping = register_map(src, dst, select)
    if mapping is not None:
        lw.set(op.result, [regs[i] for i in mapping])
    else:
        lw.set(op.result, through_shared(lw, op, regs, src, dst, select))


def through_shared(lw, op, src_regs, src_type, dst_type, select) -> list:
    """Registers of ``dst_type`` from ``src_regs`` through ``op``'s scratch: store, barrier, load."""
    sd, dd = lw.dist(src_type), lw.dist(dst_type)
    elem = src_type.element
    nbytes = smem_elem_bytes(elem)
    base = lw.scratch_base(op, through_shared_bytes(src_type))
    b = lw.b
    canon = canonical_ir(lw, sd)
    lin = linear_ids_ir(lw, sd)
    for r, v in enumerate(src_regs):
        with lw.if_then(canon[r]):
            lw.smem_store(v, elem, lw.scratch_address(base, b.mul(lin[r], const(I32, nbytes))))
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
            memo[key] = lw.smem_load(elem, lw.scratch_address(base, b.mul(idx, const(I32, nbytes))))
        out.append(memo[key])
    return out
