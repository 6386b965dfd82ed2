"""The lowering's form of the layout distributions: LLVM values of ``%tid.x``.

:mod:`tritonc.ir.distribution` says, for a layout and a shape, which element each register
of each thread holds (concrete, numpy); the functions here compute the same quantities as
LLVM i32 values of the running thread (``coords_ir``, ``canonical_ir``, ``linear_ids_ir``,
thread bases), caching what they emit in the entry block (``KernelLowering.entry_values``).
"""
from __future__ import annotations

from tritonc.ir.distribution import Distribution, Fixed, mma_parent, row_major_strides
from tritonc.ir.layouts import BlockedLayout, Layout, MmaLayout

from .lowering import I32, KernelLowering, const

def mma_thread_bases_ir(lw: KernelLowering, layout: Layout, cta: tuple[int, ...]) -> list:
    """LLVM i32 values: this thread's base along the two dimensions (see :func:`_mma_thread_bases`)."""
    key = (layout, cta)
    if key in lw.entry_values.mma_bases:
        return lw.entry_values.mma_bases[key]
    eb = lw.eb
    mma = mma_parent(layout)
    wm_n, wn_n = mma.warps_per_cta
    g, t = mma_lane_ids_ir(lw)
    wm, wn = mma_warp_ids_ir(lw, mma)

    def lin(*terms):
        acc = None
        for v, c in terms:
            if c == 0 or (isinstance(v, int) and v == 0):
                continue
            x = v if c == 1 else eb.mul(v, const(I32, c))
            acc = x if acc is None else eb.add(acc, x)
        return acc if acc is not None else const(I32, 0)

    if isinstance(layout, MmaLayout):
        bases = [lin((wm, 16), (g, 1)), lin((wn, 8), (t, 2))]
    elif layout.op_idx == 0:
        bases = [lin((wm, 16), (g, 1)), lin((t, layout.k_width), (wn, cta[1] // wn_n))]
    else:
        bases = [lin((t, layout.k_width), (wm, cta[0] // wm_n)), lin((wn, 8), (g, 1))]
    lw.entry_values.mma_bases[key] = bases
    return bases


def mma_lane_ids_ir(lw: KernelLowering) -> tuple:
    """``(g, t) = (lane // 4, lane % 4)`` (i32, entry block)."""
    if lw.entry_values.mma_lane is None:
        lane = lw.lane()
        lw.entry_values.mma_lane = (lw.eb.lshr(lane, const(I32, 2)), lw.eb.and_(lane, const(I32, 3)))
    return lw.entry_values.mma_lane


def mma_warp_ids_ir(lw: KernelLowering, mma: MmaLayout) -> tuple:
    """``(wm, wn)``: this warp's position in ``mma.warps_per_cta`` (i32, entry block)."""
    key = mma.warps_per_cta
    if key not in lw.entry_values.mma_warp:
        eb = lw.eb
        wm_n, wn_n = mma.warps_per_cta
        warp = lw.warp()
        wn = eb.urem(warp, const(I32, wn_n)) if wn_n > 1 else const(I32, 0)
        wm = eb.urem(eb.udiv(warp, const(I32, wn_n)), const(I32, wm_n)) if wm_n > 1 else const(I32, 0)
        lw.entry_values.mma_warp[key] = (wm, wn)
    return lw.entry_values.mma_warp[key]


def thread_bases_ir(lw: KernelLowering, blocked: BlockedLayout) -> list:
    """LLVM i32 values: this thread's base along each dimension of ``blocked``."""
    key = blocked
    if key in lw.entry_values.bases:
        return lw.entry_values.bases[key]
    eb = lw.eb
    lane, warp = lw.lane(), lw.warp()
    bases = [None] * blocked.rank
    lstride = wstride = 1
    for d in blocked.order:
        spt, tpw, wpc = blocked.size_per_thread[d], blocked.threads_per_warp[d], blocked.warps_per_cta[d]
        t = eb.urem(eb.udiv(lane, const(I32, lstride)), const(I32, tpw)) if tpw > 1 else const(I32, 0)
        w = eb.urem(eb.udiv(warp, const(I32, wstride)), const(I32, wpc)) if wpc > 1 else const(I32, 0)
        lstride *= tpw
        wstride *= wpc
        bases[d] = eb.add(eb.mul(w, const(I32, spt * tpw)), eb.mul(t, const(I32, spt)))
    lw.entry_values.bases[key] = bases
    return bases


def _unwrapped_ir(lw: KernelLowering, dist: Distribution) -> list:
    """Per register, per blocked dimension: ``base + offset`` (before the wrap)."""
    key = (dist.layout, dist.shape)
    if key in lw.entry_values.unwrapped:
        return lw.entry_values.unwrapped[key]
    if isinstance(dist.blocked, BlockedLayout):
        bases = thread_bases_ir(lw, dist.blocked)
    else:
        bases = mma_thread_bases_ir(lw, dist.blocked, dist.cta)
    memo: dict = {}
    out = []
    for off in dist.offsets:
        row = []
        for d, o in enumerate(off):
            k = (d, o)
            if k not in memo:
                memo[k] = lw.eb.add(bases[d], const(I32, o)) if o else bases[d]
            row.append(memo[k])
        out.append(row)
    lw.entry_values.unwrapped[key] = out
    return out


def coords_ir(lw: KernelLowering, dist: Distribution) -> list[list]:
    """Per register, per tile dimension: the i32 coordinate of the element it holds."""
    key = (dist.layout, dist.shape)
    if key in lw.entry_values.coords:
        return lw.entry_values.coords[key]
    unwrapped = _unwrapped_ir(lw, dist)
    memo: dict = {}
    out = []
    for r, off in enumerate(dist.offsets):
        row = []
        for i, d in enumerate(dist.dims):
            k = (d, off[d])
            if k not in memo:
                u = unwrapped[r][d]
                memo[k] = lw.eb.urem(u, const(I32, dist.pshape[d])) if dist.wraps(d) else u
            row.append(memo[k])
        out.append(row)
    lw.entry_values.coords[key] = out
    return out


def canonical_ir(lw: KernelLowering, dist: Distribution) -> list:
    """Per register: an i1 that is true where it is the element's canonical copy, or
    ``None`` where it always is (no wrap in any dimension)."""
    key = (dist.layout, dist.shape)
    if key in lw.entry_values.canonical:
        return lw.entry_values.canonical[key]
    unwrapped = _unwrapped_ir(lw, dist)
    memo: dict = {}
    out = []
    for r, off in enumerate(dist.offsets):
        pred = None
        for d in range(len(dist.pshape)):
            if not dist.wraps(d):
                continue
            k = (d, off[d])
            if k not in memo:
                memo[k] = lw.eb.icmp_unsigned("<", unwrapped[r][d], const(I32, dist.pshape[d]))
            pred = memo[k] if pred is None else lw.eb.and_(pred, memo[k])
        out.append(pred)
    lw.entry_values.canonical[key] = out
    return out


def linear_ir(builder, coords: list, shape: tuple[int, ...]):
    """Row-major linear index (i32) of ``coords`` (i32 values) in ``shape``."""
    return strided_ir(builder, coords, row_major_strides(shape))


def strided_ir(builder, coords: list, strides: tuple[int, ...]):
    """``sum(coords[i] * strides[i])`` (i32): the index of ``coords`` in a tile laid out with
    ``strides`` (elements)."""
    lin = None
    for c, stride in zip(coords, strides):
        term = builder.mul(c, const(I32, stride)) if stride != 1 else c
        lin = term if lin is None else builder.add(lin, term)
    return lin if lin is not None else const(I32, 0)


def linear_ids_ir(lw: KernelLowering, dist: Distribution) -> list:
    """Per register: the i32 row-major linear id of its element."""
    key = (dist.layout, dist.shape)
    if key not in lw.entry_values.linear:
        lw.entry_values.linear[key] = [linear_ir(lw.eb, c, dist.shape) for c in coords_ir(lw, dist)]
    return lw.entry_values.linear[key]


def linear_split_ir(lw: KernelLowering, dist: Distribution, select=None, strides: tuple[int, ...] | None = None) -> tuple | None:
    """The row-major linear ids of the elements ``dist``'s registers hold, or read, as
    ``(thread, offsets)``: register ``r``'s id is ``thread + offsets[r]``, ``thread`` an i32
    value of the running thread (entry block), ``offsets`` Python ints. None where a tile
    dimension the id depends on wraps (a coordinate is then ``(base + offset) % size``, not
    a sum).

    Without ``select``, the row-major id of the element register ``r`` holds (as
    :func:`linear_ids_ir`). With a ``select`` of :func:`~tritonc.ir.distribution.redistribution`
    and the ``strides`` of the source's dimensions (elements), the index of the source element
    register ``r`` reads: per source dimension, ``dist``'s coordinate ``select[s]``, 0 for
    ``None``, ``Fixed.index``, times its stride.

    The form an address wants: one ``getelementptr`` of a per-thread pointer and a constant
    per register, instead of an ``add``/``mul`` chain per register that LLVM has to take
    apart again (InstCombine turns each chain into ``or disjoint``s, and alias analysis
    decomposes every pair of such addresses: in a 128x256 matmul's epilogue conversion, 128
    stores and 128 loads, that was most of the time of InstCombine and DSE)."""
    if select is None:
        picks = list(enumerate(row_major_strides(dist.shape)))
        fixed = 0
    else:
        picks, fixed = [], 0
        for s, stride in zip(select, strides):
            if isinstance(s, Fixed):
                fixed += s.index * stride
            elif s is not None:
                picks.append((s, stride))
    if any(dist.wraps(dist.dims[i]) for i, _ in picks):
        return None
    if isinstance(dist.blocked, BlockedLayout):
        bases = thread_bases_ir(lw, dist.blocked)
    else:
        bases = mma_thread_bases_ir(lw, dist.blocked, dist.cta)
    eb = lw.eb
    thread = None
    for i, stride in picks:
        term = bases[dist.dims[i]]
        term = eb.mul(term, const(I32, stride)) if stride != 1 else term
        thread = term if thread is None else eb.add(thread, term)
    offsets = [fixed + sum(off[dist.dims[i]] * stride for i, stride in picks) for off in dist.offsets]
    return (thread if thread is not None else const(I32, 0)), offsets
