"""Moving tile elements between registers and threads: ``ttg.convert_layout``,
``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``, ``tt.extract`` (and
``tt.stack``, its many-operand inverse, :func:`_stack`).

All six are one operation, a redistribution (:func:`redistribution`): destination register ``r`` of thread ``t``
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
   is stored at its index in the op's scratch, ``bar.sync``, each destination register loads
   the element it needs. Scratch (``ir/scratch.redistribution_scratch``): the source tile row
   major, or column major where the destination reads along the rows
   (``ir/scratch.redistribution_order``), its fastest dimension padded by 16 bytes where it is
   a multiple of 128 (no bank conflicts between the rows one warp writes:
   ``ir/scratch.redistribution_strides``), elements of their size (pointers 8, ``i1`` 1). The
   barrier that lets a later op overwrite the scratch is ``insert-barriers``' job.

Warp-shuffle conversions (when only lanes of one warp exchange data) and swizzled,
vectorised shared-memory traffic come later.
"""
from __future__ import annotations

from tritonc.ir.core import Operation
from tritonc.ir.distribution import Fixed, redistribution, register_map, row_major_strides, stack_register_map
from tritonc.ir.scratch import redistribution_bytes, redistribution_strides, smem_elem_bytes, through_shared_bytes

from .layout_math import canonical_ir, coords_ir, linear_ids_ir, linear_ir, linear_split_ir, strided_ir
from .lowering import I8, I32, KernelLowering, const, lowers


@lowers("ttg.convert_layout", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans", "tt.extract")
def _redistribute(lw: KernelLowering, op: Operation) -> None:
    src, dst, select = redistribution(op)
    regs = lw.get(op.operands[0])
    lw.dist(src), lw.dist(dst)  # checks that both layouts are for this kernel's threads
    mapping = register_map(src, dst, select)
    if mapping is not None:
        lw.set(op.result, [regs[i] for i in mapping])
    else:
        lw.set(op.result, through_shared(lw, op, regs, src, dst, select))


def _select_ir(coords, s):
    """The source coordinate (an i32 IR value) of ``select`` entry ``s``."""
    if s is None:
        return const(I32, 0)
    if isinstance(s, Fixed):
        return const(I32, s.index)
    return coords[s]


@lowers("tt.stack")
def _stack(lw: KernelLowering, op: Operation) -> None:
    """``tt.stack``: a register renumbering when every destination register takes one operand
    in every thread (:func:`~tritonc.ir.distribution.stack_register_map`), else through the
    op's scratch: each operand's canonical registers stored at their row-major index in the
    result, ``bar.sync``, each destination register loaded."""
    src, dst, axis = op.operands[0].type, op.result.type, op.attrs["axis"]
    parts = [lw.get(v) for v in op.operands]
    mapping = stack_register_map(src, dst, axis)
    if mapping is not None:
        lw.set(op.result, [parts[k][r] for k, r in mapping])
        return
    sd, dd = lw.dist(src), lw.dist(dst)
    elem = src.element
    nbytes = smem_elem_bytes(elem)
    base = lw.scratch_base(op, through_shared_bytes(dst))
    b = lw.b
    canon = canonical_ir(lw, sd)
    src_coords = coords_ir(lw, sd)
    for k, regs in enumerate(parts):
        for r, v in enumerate(regs):
            coords = list(src_coords[r])
            coords.insert(axis, const(I32, k))
            idx = linear_ir(b, coords, dst.shape)
            with lw.if_then(canon[r]):
                lw.smem_store(v, elem, lw.scratch_address(base, b.mul(idx, const(I32, nbytes))))
    lw.barrier()
    out = []
    for coords in coords_ir(lw, dd):
        idx = linear_ir(b, coords, dst.shape)
        out.append(lw.smem_load(elem, lw.scratch_address(base, b.mul(idx, const(I32, nbytes)))))
    lw.set(op.result, out)


def through_shared(lw: KernelLowering, op: Operation, src_regs, src_type, dst_type, select) -> list:
    """Registers of ``dst_type`` from ``src_regs`` through ``op``'s scratch: store, barrier, load.

    The scratch holds the source tile at :func:`~tritonc.ir.scratch.redistribution_strides`
    (row major or, for a conversion whose destination reads along the rows, column major;
    padded against bank conflicts). Where a side's layout does not wrap, its addresses are one
    per-thread pointer plus a constant per register (:func:`~.layout_math.linear_split_ir`);
    else each register's index is computed from its coordinates."""
    sd, dd = lw.dist(src_type), lw.dist(dst_type)
    elem = src_type.element
    nbytes = smem_elem_bytes(elem)
    base = lw.scratch_base(op, redistribution_bytes(src_type, dst_type, select))
    b = lw.b
    canon = canonical_ir(lw, sd)
    strides, _ = redistribution_strides(src_type, dst_type, select)
    dense = strides == row_major_strides(tuple(src_type.shape))
    split = linear_split_ir(lw, sd) if dense else linear_split_ir(lw, sd, list(range(len(strides))), strides)
    if split is not None:
        thread, offsets = split
        ptr = lw.smem_ptr(lw.scratch_address(base, b.mul(thread, const(I32, nbytes))))
        addrs = [_offset_ptr(lw, ptr, o * nbytes) for o in offsets]
    else:
        lins = linear_ids_ir(lw, sd) if dense else [strided_ir(b, c, strides) for c in coords_ir(lw, sd)]
        addrs = [lw.smem_ptr(lw.scratch_address(base, b.mul(lin, const(I32, nbytes)))) for lin in lins]
    for r, v in enumerate(src_regs):
        with lw.if_then(canon[r]):
            lw.smem_store_at(v, elem, addrs[r])
    lw.barrier()
    out = []
    memo: dict = {}
    split = linear_split_ir(lw, dd, select, strides if select is not None else None)
    if split is not None:
        thread, offsets = split
        ptr = lw.smem_ptr(lw.scratch_address(base, b.mul(thread, const(I32, nbytes))))
        for o in offsets:
            if o not in memo:
                memo[o] = lw.smem_load_at(elem, _offset_ptr(lw, ptr, o * nbytes))
            out.append(memo[o])
        return out
    for coords in coords_ir(lw, dd):
        if select is None:
            idx = linear_ir(b, coords, dd.shape)
        else:
            idx = strided_ir(b, [_select_ir(coords, s) for s in select], strides)
        key = (tuple(id(c) for c in coords) if select is None
               else tuple(id(coords[s]) if isinstance(s, int) else s for s in select))
        if key not in memo:
            memo[key] = lw.smem_load(elem, lw.scratch_address(base, b.mul(idx, const(I32, nbytes))))
        out.append(memo[key])
    return out


def _offset_ptr(lw: KernelLowering, ptr, byte_offset: int):
    """``ptr + byte_offset`` (a shared-memory pointer; ``ptr`` itself for 0)."""
    return lw.b.gep(ptr, [const(I32, byte_offset)], source_etype=I8) if byte_offset else ptr
