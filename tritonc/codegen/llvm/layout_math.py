"""Index math of layouts: which tile element each register of each thread holds.

A tile value of shape ``S`` in layout ``L`` is lowered to a list of LLVM values, one per
*register* of a thread, the same list length and meaning in every thread (SIMT). This module
says, for ``(L, S)``, what register ``r`` of thread ``tid`` holds; everything else in the
lowering (element-wise ops, loads, reductions, conversions) is built on it.

Model (Triton's ``BlockedEncodingAttr``, TritonGPU dialect; legacy ``scanline_layout``):

* A :class:`~tritonc.ir.layouts.BlockedLayout` ``(spt, tpw, wpc, order)`` covers a *CTA tile*
  of ``C[d] = spt[d] * tpw[d] * wpc[d]`` elements per dimension. ``tid = 32 * warp + lane``;
  ``lane`` is split into per-dimension lane coordinates ``t[d]`` over ``tpw`` with
  ``order[0]`` fastest, ``warp`` likewise into ``w[d]`` over ``wpc``. The thread's *base*
  along ``d`` is ``base[d] = w[d] * spt[d] * tpw[d] + t[d] * spt[d]``.
* Along ``d`` a thread owns ``n[d] = spt[d] * max(1, S[d] / C[d])`` registers; register
  index ``k`` along ``d`` has the constant *offset* ``(k // spt[d]) * C[d] + k % spt[d]``.
  Registers are numbered over the per-dimension indices with ``order[0]`` fastest.
* The element coordinate is ``(base[d] + offset[d]) mod S[d]``. When ``S[d] >= C[d]`` the
  layout is repeated and no wrap happens; when ``S[d] < C[d]`` it wraps: several
  (thread, register) pairs hold the same element (*replicas*). Exactly one of them has the
  unwrapped position ``base[d] + offset[d] < S[d]`` in every dimension: it is *canonical*.
  Stores, atomics and shared-memory writes act on canonical registers only.
* A :class:`~tritonc.ir.layouts.SliceLayout` ``(dim, parent)`` of shape ``S`` is the parent
  layout on ``S`` with a size-1 dimension inserted at ``dim``, keeping only the registers at
  index 0 along that dimension; threads that differ only along ``dim`` hold replicas.
  Slices nest; the innermost parent is always blocked here.

Every quantity comes in two forms: concrete (numpy, for a given thread; used at compile time
to decide whether a layout change is a register renumbering) and symbolic (LLVM values of
``%tid.x``, see ``lowering.py``'s ``LayoutValues``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tritonc.ir.layouts import BlockedLayout, Layout, SliceLayout

WARP_SIZE = 32


@dataclass(frozen=True)
class Distribution:
    """The distribution of a tile of ``shape`` in ``layout`` over ``num_warps * 32`` threads.

    Attributes:
        layout, shape: what is distributed.
        blocked: the innermost blocked layout (the layout itself when it is blocked).
        pshape: the shape in ``blocked``'s dimension space (sliced dimensions have size 1).
        dims: tile dimension ``i`` is ``blocked`` dimension ``dims[i]``.
        offsets: per register, its constant offset along each ``blocked`` dimension.
    """

    layout: Layout
    shape: tuple[int, ...]
    blocked: BlockedLayout
    pshape: tuple[int, ...]
    dims: tuple[int, ...]
    offsets: tuple[tuple[int, ...], ...]

    @property
    def num_regs(self) -> int:
        return len(self.offsets)

    @property
    def num_threads(self) -> int:
        n = WARP_SIZE
        for w in self.blocked.warps_per_cta:
            n *= w
        return n

    def wraps(self, d: int) -> bool:
        """Whether blocked dimension ``d`` wraps (the CTA tile is larger than the tile there)."""
        return self.pshape[d] < self.blocked.cta_tile()[d]

    @property
    def replicated(self) -> bool:
        """Whether some element is held by more than one (thread, register)."""
        return any(self.wraps(d) for d in range(len(self.pshape)))

    # -- concrete (numpy) ------------------------------------------------------------------
    def thread_bases(self) -> np.ndarray:
        """``[threads, blocked rank]``: each thread's base along each blocked dimension."""
        return _thread_bases(self.blocked, self.num_threads)

    def coords(self) -> np.ndarray:
        """``[threads, regs, tile rank]``: the tile coordinates each register holds."""
        base = self.thread_bases()
        off = np.array(self.offsets, dtype=np.int64).reshape(self.num_regs, len(self.pshape))
        full = (base[:, None, :] + off[None, :, :]) % np.array(self.pshape, dtype=np.int64)
        return full[:, :, list(self.dims)]

    def canonical(self) -> np.ndarray:
        """``[threads, regs]`` booleans: whether the register is the element's canonical copy."""
        base = self.thread_bases()
        off = np.array(self.offsets, dtype=np.int64).reshape(self.num_regs, len(self.pshape))
        unwrapped = base[:, None, :] + off[None, :, :]
        return np.all(unwrapped < np.array(self.pshape, dtype=np.int64), axis=2)

    def linear_ids(self) -> np.ndarray:
        """``[threads, regs]``: row-major linear element id of each register."""
        return linearize(self.coords(), self.shape)


def linearize(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Row-major linear index of ``coords[..., rank]`` in ``shape``."""
    lin = np.zeros(coords.shape[:-1], dtype=np.int64)
    for d, size in enumerate(shape):
        lin = lin * size + coords[..., d]
    return lin


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, s = [], 1
    for size in reversed(shape):
        strides.append(s)
        s *= size
    return tuple(reversed(strides))


@lru_cache(maxsize=None)
def _thread_bases(layout: BlockedLayout, num_threads: int) -> np.ndarray:
    tid = np.arange(num_threads, dtype=np.int64)
    lane, warp = tid % WARP_SIZE, tid // WARP_SIZE
    lane_c, warp_c = split_ids(layout, lane, warp)
    rank = layout.rank
    base = np.zeros((num_threads, rank), dtype=np.int64)
    for d in range(rank):
        spt, tpw = layout.size_per_thread[d], layout.threads_per_warp[d]
        base[:, d] = warp_c[d] * spt * tpw + lane_c[d] * spt
    return base


def split_ids(layout: BlockedLayout, lane, warp):
    """Per-dimension lane and warp coordinates (``order[0]`` fastest). Works on numpy arrays
    and, through the ``ops`` duck typing of ``//``/``%``, on Python ints."""
    rank = layout.rank
    lane_c: list = [0] * rank
    warp_c: list = [0] * rank
    lstride = wstride = 1
    for d in layout.order:
        tpw, wpc = layout.threads_per_warp[d], layout.warps_per_cta[d]
        lane_c[d] = (lane // lstride) % tpw
        warp_c[d] = (warp // wstride) % wpc
        lstride *= tpw
        wstride *= wpc
    return lane_c, warp_c


def lane_stride(layout: BlockedLayout, d: int) -> int:
    """The lane-id stride between neighbouring threads along blocked dimension ``d``."""
    s = 1
    for e in layout.order:
        if e == d:
            return s
        s *= layout.threads_per_warp[e]
    raise ValueError(d)


def warp_stride(layout: BlockedLayout, d: int) -> int:
    """The warp-id stride between neighbouring warps along blocked dimension ``d``."""
    s = 1
    for e in layout.order:
        if e == d:
            return s
        s *= layout.warps_per_cta[e]
    raise ValueError(d)


@lru_cache(maxsize=None)
def distribution(layout: Layout, shape: tuple[int, ...]) -> Distribution:
    """The :class:`Distribution` of a tile of ``shape`` in ``layout`` (blocked or slice).

    Raises:
        NotImplementedError: for MMA, dot-operand and shared layouts (not lowered yet).
    """
    shape = tuple(shape)
    if isinstance(layout, BlockedLayout):
        if layout.rank != len(shape):
            raise ValueError(f"layout {layout} has rank {layout.rank}, the tile {shape}")
        cta = layout.cta_tile()
        counts = [layout.size_per_thread[d] * max(1, shape[d] // cta[d]) for d in range(len(shape))]
        per_dim = []
        for d in range(len(shape)):
            spt = layout.size_per_thread[d]
            per_dim.append([(k // spt) * cta[d] + k % spt for k in range(counts[d])])
        offsets = []
        # Register numbering: order[0] fastest.
        total = 1
        for c in counts:
            total *= c
        for r in range(total):
            off = [0] * len(shape)
            rest = r
            for d in layout.order:
                off[d] = per_dim[d][rest % counts[d]]
                rest //= counts[d]
            offsets.append(tuple(off))
        return Distribution(layout, shape, layout, shape, tuple(range(len(shape))), tuple(offsets))
    if isinstance(layout, SliceLayout):
        pshape_tile = shape[:layout.dim] + (1,) + shape[layout.dim:]
        parent = distribution(layout.parent, pshape_tile)
        bdim = parent.dims[layout.dim]
        offsets = tuple(o for o in parent.offsets if o[bdim] == 0)
        dims = parent.dims[:layout.dim] + parent.dims[layout.dim + 1:]
        return Distribution(layout, shape, parent.blocked, parent.pshape, dims, offsets)
    raise NotImplementedError(f"lowering of tiles in layout {layout} is not implemented")


def find_register_map(src: Distribution, dst_src_lin: np.ndarray) -> list[int] | None:
    """A register renumbering that realises a data movement without moving data between threads.

    Args:
        src: the source distribution.
        dst_src_lin: ``[threads, dst regs]``: for each destination register, the source
            linear element id it must hold.
    Returns:
        ``m`` with destination register ``r`` = source register ``m[r]`` in every thread, or
        ``None`` if some destination register needs an element its thread does not hold in
        one common source register.
    """
    src_lin = src.linear_ids()
    if src_lin.shape[0] != dst_src_lin.shape[0]:
        return None
    result = []
    for r in range(dst_src_lin.shape[1]):
        hits = np.all(src_lin == dst_src_lin[:, r:r + 1], axis=0)
        idx = np.flatnonzero(hits)
        if idx.size == 0:
            return None
        result.append(int(idx[0]))
    return result


# -- symbolic (LLVM values of %tid.x), emitted once in the kernel's entry block ------------

def thread_bases_ir(lw, blocked: BlockedLayout) -> list:
    """LLVM i32 values: this thread's base along each dimension of ``blocked``."""
    key = ("bases", blocked)
    if key in lw.cache:
        return lw.cache[key]
    from .lowering import I32, const
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
    lw.cache[key] = bases
    return bases


def _unwrapped_ir(lw, dist: Distribution) -> list:
    """Per register, per blocked dimension: ``base + offset`` (before the wrap)."""
    key = ("unwrapped", dist.layout, dist.shape)
    if key in lw.cache:
        return lw.cache[key]
    from .lowering import I32, const
    bases = thread_bases_ir(lw, dist.blocked)
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
    lw.cache[key] = out
    return out


def coords_ir(lw, dist: Distribution) -> list[list]:
    """Per register, per tile dimension: the i32 coordinate of the element it holds."""
    key = ("coords", dist.layout, dist.shape)
    if key in lw.cache:
        return lw.cache[key]
    from .lowering import I32, const
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
    lw.cache[key] = out
    return out


def canonical_ir(lw, dist: Distribution) -> list:
    """Per register: an i1 that is true where it is the element's canonical copy, or
    ``None`` where it always is (no wrap in any dimension)."""
    key = ("canonical", dist.layout, dist.shape)
    if key in lw.cache:
        return lw.cache[key]
    from .lowering import I32, const
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
    lw.cache[key] = out
    return out


def linear_ir(builder, coords: list, shape: tuple[int, ...]):
    """Row-major linear index (i32) of ``coords`` (i32 values) in ``shape``."""
    from .lowering import I32, const
    lin = None
    for c, size, stride in zip(coords, shape, row_major_strides(shape)):
        term = builder.mul(c, const(I32, stride)) if stride != 1 else c
        lin = term if lin is None else builder.add(lin, term)
    return lin if lin is not None else const(I32, 0)


def linear_ids_ir(lw, dist: Distribution) -> list:
    """Per register: the i32 row-major linear id of its element."""
    key = ("linear", dist.layout, dist.shape)
    if key not in lw.cache:
        lw.cache[key] = [linear_ir(lw.eb, c, dist.shape) for c in coords_ir(lw, dist)]
    return lw.cache[key]
