"""``tt.reduce``: combine a tile along one axis (Triton's ReduceOp lowering).

For a source in layout ``L`` (blocked, an mma accumulator (versions 2 and 3) or a slice of
either; the axis is base dimension ``d``) the result
is in ``SliceLayout(axis, L)`` (a uniform scalar for a rank-1 source). Three stages:

1. **in-thread**: registers that differ only along ``d`` are combined (one result register
   per group of source registers with equal offsets in the other dimensions);
2. **in-warp**: butterfly shuffles ``shfl.sync.bfly.b32`` (PTX ISA 9.7.8.6 shfl.sync) over the
   lane-id bits of dimension ``d`` (strides ``lane_stride * 2^k``); every lane of a group
   ends with the same value (the combine ops are commutative, so the butterfly is bitwise
   symmetric). 64-bit values shuffle as two 32-bit halves, narrower ones widened to 32 bits;
3. **across warps**, only when several warps hold distinct data along ``d``: lane 0 along ``d``
   of each such warp stores its partial to the op's scratch at ``[result element][warp]``,
   ``bar.sync``, then every thread combines the ``warps`` partials of each of its result
   registers: with up to 4 warps it reads them all (one vector load) and combines them in
   warp order; from 8 warps on, when at least ``warps`` lanes lie along ``d`` (they hold the
   same result elements), the lane with coordinate ``c`` along ``d`` reads partial
   ``c % warps`` and a butterfly over ``log2(warps)`` of those lane bits combines them (one load and ``2 log2(warps)`` instructions
   instead of ``warps / 4`` loads and ``warps - 1`` combines: 9 instead of 19 for softmax's 16
   warps), the same tree in every lane and warp, so the result is bitwise uniform. One
   barrier per reduction, where Triton's lowering stores the combined value once more and
   waits at a second one. Scratch (``ir/scratch.reduce_scratch``): ``result numel * warps * bytes``;
   the barrier before the next writer of those bytes is ``insert-barriers``' job.

On an mma accumulator (``ir/distribution.axis_threads``) a row lives in a quad of lanes:
stage 2 shuffles over lane bits 0-1 (a column: bits 2-4) and stage 3 runs when ``WN > 1``
warps split the row (``WM > 1`` the column); an mma source must not wrap along ``d``
(``remove-layout-conversions`` keeps such reductions in a blocked layout).

Replicated (wrapped) layouts: along ``d`` only the first ``S`` unwrapped positions hold
distinct data, so stage 1 keeps registers with offset ``< S``, stage 2 shuffles over the
first ``S / spt`` lanes and stage 3 over the first ``S / (spt * tpw)`` warps; nothing is
counted twice.
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.ir.core import Operation
from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.distribution import axis_threads, lanes_and_warps
from tritonc.ir.layouts import MmaLayout
from tritonc.ir.scratch import smem_elem_bytes
from tritonc.ir.types import TileType

from .elementwise import intrinsic_call
from .layout_math import canonical_ir, linear_ids_ir
from .lowering import F32, I32, I64, KernelLowering, const, lowers

#: From this many warps on, the partials of stage 3 are combined by a butterfly over lanes.
SHUFFLE_COMBINE_WARPS = 8

_COMBINE = {"addi": "add", "addf": "fadd", "muli": "mul", "mulf": "fmul", "andi": "and_", "ori": "or_",
            "xori": "xor"}
_COMBINE_INTRINSIC = {"maxsi": "smax", "minsi": "smin", "maxui": "umax", "minui": "umin",
                      "maxnumf": "maxnum", "minnumf": "minnum"}


def combiner(lw: KernelLowering, name: str):
    """A function ``(a, b) -> a (+) b`` for the ``combine`` attribute ``name``."""
    if name in _COMBINE:
        method = _COMBINE[name]
        return lambda a, b: getattr(lw.b, method)(a, b)
    base = _COMBINE_INTRINSIC[name]
    return lambda a, b: intrinsic_call(lw, base, [a, b])


def shuffle_xor(lw: KernelLowering, v: ir.Value, lane_mask: int) -> ir.Value:
    """``shfl.sync.bfly`` of any scalar register type (full warp)."""
    b = lw.b
    args = [const(I32, -1), None, const(I32, lane_mask), const(I32, 31)]
    ty = v.type
    if ty == F32:
        args[1] = v
        return lw.call("llvm.nvvm.shfl.sync.bfly.f32", F32, args)
    bits = ty.width if isinstance(ty, ir.IntType) else {"half": 16, "bfloat": 16, "double": 64}[str(ty)]
    as_int = v if isinstance(ty, ir.IntType) else b.bitcast(v, ir.IntType(bits))
    if bits == 64:
        lo = b.trunc(as_int, I32)
        hi = b.trunc(b.lshr(as_int, const(I64, 32)), I32)
        args[1] = lo
        lo2 = lw.call("llvm.nvvm.shfl.sync.bfly.i32", I32, list(args))
        args[1] = hi
        hi2 = lw.call("llvm.nvvm.shfl.sync.bfly.i32", I32, list(args))
        out = b.or_(b.zext(lo2, I64), b.shl(b.zext(hi2, I64), const(I64, 32)))
    else:
        args[1] = b.zext(as_int, I32) if bits < 32 else as_int
        out = lw.call("llvm.nvvm.shfl.sync.bfly.i32", I32, args)
        if bits < 32:
            out = b.trunc(out, ir.IntType(bits))
    return out if isinstance(ty, ir.IntType) else b.bitcast(out, ty)


@lowers("tt.reduce")
def _reduce(lw: KernelLowering, op: Operation) -> None:
    src = op.operands[0]
    axis = op.attrs["axis"]
    combine = combiner(lw, op.attrs["combine"])
    sd = lw.dist(src)
    blk = sd.blocked
    d = sd.dims[axis]
    size = sd.pshape[d]
    if isinstance(blk, MmaLayout) and sd.wraps(d):
        raise InternalCompilerError(f"tt.reduce along a wrapped dimension of {blk} ({list(src.type.shape)})")
    at = axis_threads(blk, d)
    spt, tpw, wpc = at.spt, at.tpw, at.wpc
    wraps = sd.wraps(d)
    keep_regs = min(spt, size) if wraps else None
    lanes, warps = lanes_and_warps(sd, d)

    regs = lw.get(src)
    # 1. in-thread: group by offsets in the other dimensions.
    groups: dict[tuple, ir.Value] = {}
    first_reg: dict[tuple, int] = {}
    for r, off in enumerate(sd.offsets):
        if keep_regs is not None and off[d] >= keep_regs:
            continue
        key = off[:d] + (0,) + off[d + 1:]
        if key in groups:
            groups[key] = combine(groups[key], regs[r])
        else:
            groups[key] = regs[r]
            first_reg[key] = r
    # 2. in-warp butterfly over the lane bits of dimension d.
    stride = at.lane_stride
    k = 1
    while k < lanes:
        for key in groups:
            groups[key] = combine(groups[key], shuffle_xor(lw, groups[key], stride * k))
        k *= 2
    # Result registers, in the result layout's order.
    res = op.result
    if isinstance(res.type, TileType):
        rd = lw.dist(res)
        keys = list(rd.offsets)
    else:
        rd = None
        keys = [next(iter(groups))] if groups else []
    partials = [groups[key] for key in keys]
    # 3. across warps through shared memory.
    if warps > 1:
        elem = src.type.element
        nbytes = smem_elem_bytes(elem)
        numel = res.type.numel if rd is not None else 1
        base = lw.scratch_base(op, numel * warps * nbytes)
        b = lw.b
        lin = linear_ids_ir(lw, rd) if rd is not None else [const(I32, 0)]
        warp_c = b.urem(b.udiv(lw.warp(), const(I32, at.warp_stride)), const(I32, wpc))
        lane_c = b.urem(b.udiv(lw.lane(), const(I32, stride)), const(I32, tpw))
        is_lane0 = b.icmp_unsigned("==", lane_c, const(I32, 0))
        canon = canonical_ir(lw, sd)
        for key, val, li in zip(keys, partials, lin):
            pred = lw.and_pred(is_lane0, canon[first_reg[key]])
            slot = b.add(b.mul(li, const(I32, warps)), warp_c)
            with lw.if_then(pred):
                lw.smem_store(val, elem, lw.scratch_address(base, b.mul(slot, const(I32, nbytes))))
        lw.barrier()
        out = []
        if warps >= SHUFFLE_COMBINE_WARPS and tpw >= warps:
            # The lanes along d hold the same result elements (the result is the slice of d),
            # so a butterfly over those lane bits combines partials of one element only.
            mine = b.and_(lane_c, const(I32, warps - 1))
            for li in lin:
                slot = b.add(b.mul(li, const(I32, warps)), mine)
                acc = lw.smem_load(elem, lw.scratch_address(base, b.mul(slot, const(I32, nbytes))))
                k = 1
                while k < warps:
                    acc = combine(acc, shuffle_xor(lw, acc, stride * k))
                    k *= 2
                out.append(acc)
        else:
            for li in lin:
                acc = None
                for w in range(warps):
                    slot = b.add(b.mul(li, const(I32, warps)), const(I32, w))
                    v = lw.smem_load(elem, lw.scratch_address(base, b.mul(slot, const(I32, nbytes))))
                    acc = v if acc is None else combine(acc, v)
                out.append(acc)
        partials = out
    lw.set(res, partials if rd is not None else partials[0])
