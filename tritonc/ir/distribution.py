"""Distributions of layouts: which tile element each register of each thread holds.

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
  Slices nest; the innermost parent is blocked, mma or dot-operand.
* An :class:`~tritonc.ir.layouts.MmaLayout` (version 2, ``mma.sync.m16n8kK``) of a 2-D tile
  ``[M, N]`` is the accumulator fragment (PTX ISA 9.7.14.5.14): warps form a
  ``warps_per_cta = [WM, WN]`` grid, warp ``w`` at ``(wm, wn) = ((w // WN) % WM, w % WN)``
  (row-major); with ``g = lane // 4``, ``t = lane % 4`` the thread's base is
  ``(16 wm + g, 8 wn + 2 t)``; the warp tile is ``16 x 8`` and the CTA tile
  ``16 WM x 8 WN``, repeated ``RM = M / (16 WM)`` times down and ``RN = N / (8 WN)`` across.
  Registers: for ``rm < RM``, ``rn < RN``: four, at offsets ``(16 WM rm + 8 i, 8 WN rn + j)``
  for ``(i, j)`` in ``(0,0), (0,1), (1,0), (1,1)``: exactly ``c0..c3`` of one ``mma``.
* A :class:`~tritonc.ir.layouts.DotOperandLayout` ``(op_idx, parent mma, k_width = kw)`` is
  an ``mma`` input fragment (32-bit registers of ``kw`` elements, ``kw = 4 / element
  bytes``; one instruction covers ``8 kw`` of K). Operand A ``[M, K]``: base
  ``(16 wm + g, kw t)``; per ``rm < RM``, ``kk < K / (8 kw)``: ``a0..a3`` at row offsets
  ``0, 8, 0, 8`` and K offsets ``0, 0, 4 kw, 4 kw`` (+``kk 8 kw``), each ``kw`` consecutive
  K elements. Operand B ``[K, N]``: base ``(kw t, 8 wn + g)``; per ``rn``, ``kk``: ``b0, b1``
  at K offsets ``0, 4 kw``. Every warp of a row (column) of the warp grid holds the same A
  (B) fragments: those replicas are modelled as a wrap, the base along K carrying an extra
  ``K * wn`` (``K * wm`` for B) that the ``mod K`` removes, so only ``wn == 0`` (``wm == 0``)
  holds the canonical copy.
* A :class:`~tritonc.ir.layouts.SharedLayout` is not a register layout: ``codegen/llvm/smem_access.shared_offset``
  gives the element offset of a coordinate in a swizzled buffer.

Everything here is concrete (numpy, per thread): pure layout algebra that passes use at
compile time (is a layout change a register renumbering? how much scratch does an op need?).
The lowering's symbolic forms (LLVM values of ``%tid.x``) are in
``tritonc/codegen/llvm/layout_math.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tritonc.target import WARP_SIZE

from .layout_algebra import inverse_permutation
from .layouts import BlockedLayout, DotOperandLayout, Layout, MmaLayout, SliceLayout
from .types import TileType

@dataclass(frozen=True)
class Distribution:
    """The distribution of a tile of ``shape`` in ``layout`` over ``num_warps * 32`` threads.

    Attributes:
        layout, shape: what is distributed.
        blocked: the innermost non-slice layout, the *base* (the layout itself when it is
            blocked, mma or dot-operand); its thread bases are :meth:`thread_bases`.
        pshape: the shape in ``blocked``'s dimension space (sliced dimensions have size 1).
        dims: tile dimension ``i`` is ``blocked`` dimension ``dims[i]``.
        offsets: per register, its constant offset along each ``blocked`` dimension.
        cta: per ``blocked`` dimension, the extent of one repetition of the base layout
            (``cta_tile()`` for a blocked layout); a dimension wraps where ``pshape`` is smaller.
    """

    layout: Layout
    shape: tuple[int, ...]
    blocked: Layout
    pshape: tuple[int, ...]
    dims: tuple[int, ...]
    offsets: tuple[tuple[int, ...], ...]
    cta: tuple[int, ...] = ()

    @property
    def num_regs(self) -> int:
        return len(self.offsets)

    @property
    def num_threads(self) -> int:
        n = WARP_SIZE
        for w in _base_warps(self.blocked):
            n *= w
        return n

    @property
    def register_run(self) -> tuple[int, int]:
        """``(d, run)``: the blocked dimension ``d`` along which a thread's registers are
        consecutive elements, and how many: registers ``g .. g + run - 1`` (``g`` a multiple
        of ``run``) hold ``run`` neighbouring elements along ``d``, the first at register ``g``.
        For a blocked layout ``d`` is ``order[0]`` and ``run`` its ``size_per_thread``; for an
        mma or dot-operand base ``d`` is the last dimension and ``run`` the largest power of
        two the register offsets show (2 for an mma accumulator: ``c0, c1`` of each 8-column
        fragment, PTX ISA 9.7.13.4.7)."""
        base = self.blocked
        if isinstance(base, BlockedLayout):
            return base.order[0], base.size_per_thread[base.order[0]]
        d = len(self.pshape) - 1
        offs = self.offsets
        run = 1
        while len(offs) % (2 * run) == 0 and all(
                offs[g + j][d] == offs[g][d] + j
                and all(offs[g + j][e] == offs[g][e] for e in range(len(offs[g])) if e != d)
                for g in range(0, len(offs), 2 * run) for j in range(2 * run)):
            run *= 2
        return d, run

    def wraps(self, d: int) -> bool:
        """Whether blocked dimension ``d`` wraps (the CTA tile is larger than the tile there)."""
        return self.pshape[d] < (self.cta or self.blocked.cta_tile())[d]

    @property
    def replicated(self) -> bool:
        """Whether some element is held by more than one (thread, register)."""
        return any(self.wraps(d) for d in range(len(self.pshape)))

    # -- concrete (numpy) ------------------------------------------------------------------
    def thread_bases(self) -> np.ndarray:
        """``[threads, blocked rank]``: each thread's base along each blocked dimension."""
        if isinstance(self.blocked, BlockedLayout):
            return _thread_bases(self.blocked, self.num_threads)
        return _mma_thread_bases(self.blocked, self.cta)

    def _memo(self, name: str, compute) -> np.ndarray:
        """``compute()``, kept on this (immutable, ``distribution()``-cached) object and
        returned read-only: the passes and the lowering ask for the same arrays of the same few
        layouts many times (``coords`` of a 128x256 tile of 8 warps is 64K entries)."""
        cached = self.__dict__.get(name)
        if cached is None:
            cached = compute()
            cached.flags.writeable = False
            self.__dict__[name] = cached
        return cached

    def coords(self) -> np.ndarray:
        """``[threads, regs, tile rank]``: the tile coordinates each register holds (read-only)."""
        return self._memo("_coords", self._coords)

    def _coords(self) -> np.ndarray:
        base = self.thread_bases()
        off = np.array(self.offsets, dtype=np.int64).reshape(self.num_regs, len(self.pshape))
        full = (base[:, None, :] + off[None, :, :]) % np.array(self.pshape, dtype=np.int64)
        return full[:, :, list(self.dims)]

    def canonical(self) -> np.ndarray:
        """``[threads, regs]`` booleans: whether the register is the element's canonical copy
        (read-only)."""
        return self._memo("_canonical", self._canonical)

    def _canonical(self) -> np.ndarray:
        base = self.thread_bases()
        off = np.array(self.offsets, dtype=np.int64).reshape(self.num_regs, len(self.pshape))
        unwrapped = base[:, None, :] + off[None, :, :]
        return np.all(unwrapped < np.array(self.pshape, dtype=np.int64), axis=2)

    def linear_ids(self) -> np.ndarray:
        """``[threads, regs]``: row-major linear element id of each register (read-only)."""
        return self._memo("_linear_ids", lambda: linearize(self.coords(), self.shape))


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
        NotImplementedError: for shared layouts (buffers, not register tiles), mma layouts
            other than version 2 on 2-D tiles, dot operands whose K is not a whole number of
            instructions.
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
        return Distribution(layout, shape, layout, shape, tuple(range(len(shape))), tuple(offsets), cta)
    if isinstance(layout, SliceLayout):
        pshape_tile = shape[:layout.dim] + (1,) + shape[layout.dim:]
        parent = distribution(layout.parent, pshape_tile)
        bdim = parent.dims[layout.dim]
        offsets = tuple(o for o in parent.offsets if o[bdim] == 0)
        dims = parent.dims[:layout.dim] + parent.dims[layout.dim + 1:]
        return Distribution(layout, shape, parent.blocked, parent.pshape, dims, offsets, parent.cta)
    if isinstance(layout, (MmaLayout, DotOperandLayout)):
        return _mma_distribution(layout, shape)
    raise NotImplementedError(f"lowering of tiles in layout {layout} is not implemented")


def mma_parent(layout: Layout) -> MmaLayout:
    """The mma layout of an mma or dot-operand layout. Version 3 (wgmma, warps ``[W, 1]``)
    distributes the accumulator exactly as version 2 with those warps: warp ``w`` owns rows
    ``16 w + 16 W i + {g, g + 8}`` and columns ``8 j + 2 t + {0, 1}``, four registers per
    ``16 x 8`` tile in the order of ``wgmma``'s ``d`` registers (PTX ISA 9.7.15.5.3)."""
    parent = layout.parent if isinstance(layout, DotOperandLayout) else layout
    if not isinstance(parent, MmaLayout) or parent.version not in (2, 3) or len(parent.warps_per_cta) != 2:
        raise NotImplementedError(f"only mma version 2 and 3 layouts of 2-D tiles are lowered, got {layout}")
    return parent


def _base_warps(base: Layout) -> tuple[int, ...]:
    if isinstance(base, BlockedLayout):
        return base.warps_per_cta
    return mma_parent(base).warps_per_cta


def mma_reps(layout: Layout, shape: tuple[int, ...]) -> tuple[int, int, int]:
    """``(RM or RN, KK, kw)`` for a dot operand (``RM`` for A, ``RN`` for B), ``(RM, RN, 1)`` for
    the accumulator: the repetitions of the instruction tile over the CTA tile."""
    mma = mma_parent(layout)
    wm, wn = mma.warps_per_cta
    if isinstance(layout, MmaLayout):
        return max(1, shape[0] // (16 * wm)), max(1, shape[1] // (8 * wn)), 1
    kw = layout.k_width
    if layout.op_idx == 0:
        return max(1, shape[0] // (16 * wm)), shape[1] // (8 * kw), kw
    return max(1, shape[1] // (8 * wn)), shape[0] // (8 * kw), kw


def _mma_distribution(layout: Layout, shape: tuple[int, ...]) -> Distribution:
    if len(shape) != 2:
        raise NotImplementedError(f"layout {layout} of a tile of rank {len(shape)}")
    mma = mma_parent(layout)
    wm, wn = mma.warps_per_cta
    offsets: list[tuple[int, int]] = []
    if isinstance(layout, MmaLayout):
        rm_n, rn_n, _ = mma_reps(layout, shape)
        for rm in range(rm_n):
            for rn in range(rn_n):
                for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)):
                    offsets.append((16 * wm * rm + 8 * i, 8 * wn * rn + j))
        cta = (16 * wm, 8 * wn)
    else:
        reps, kks, kw = mma_reps(layout, shape)
        if kks < 1 or shape[1 - layout.op_idx] % (8 * kw):
            raise NotImplementedError(f"K = {shape[1 - layout.op_idx]} is not a multiple of {8 * kw} for {layout}")
        if layout.op_idx == 0:
            for rm in range(reps):
                for kk in range(kks):
                    for i, kq in ((0, 0), (8, 0), (0, 4 * kw), (8, 4 * kw)):
                        for e in range(kw):
                            offsets.append((16 * wm * rm + i, 8 * kw * kk + kq + e))
            cta = (16 * wm, shape[1] * wn)
        else:
            for rn in range(reps):
                for kk in range(kks):
                    for kq in (0, 4 * kw):
                        for e in range(kw):
                            offsets.append((8 * kw * kk + kq + e, 8 * wn * rn))
            cta = (shape[0] * wm, 8 * wn)
    return Distribution(layout, shape, layout, shape, (0, 1), tuple(offsets), cta)


@lru_cache(maxsize=None)
def _mma_thread_bases(layout: Layout, cta: tuple[int, ...]) -> np.ndarray:
    mma = mma_parent(layout)
    wm_n, wn_n = mma.warps_per_cta
    tid = np.arange(WARP_SIZE * wm_n * wn_n, dtype=np.int64)
    lane, warp = tid % WARP_SIZE, tid // WARP_SIZE
    wm, wn = (warp // wn_n) % wm_n, warp % wn_n
    g, t = lane // 4, lane % 4
    base = np.zeros((tid.size, 2), dtype=np.int64)
    if isinstance(layout, MmaLayout):
        base[:, 0], base[:, 1] = 16 * wm + g, 8 * wn + 2 * t
    elif layout.op_idx == 0:
        base[:, 0], base[:, 1] = 16 * wm + g, layout.k_width * t + (cta[1] // wn_n) * wn
    else:
        base[:, 0], base[:, 1] = layout.k_width * t + (cta[0] // wm_n) * wm, 8 * wn + g
    return base


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
    # The candidates for destination register r are the source registers that hold its element
    # in thread 0; the first of them (lowest number) that holds it in every thread is taken.
    # (Comparing every source register in every thread against every destination register
    # was registers^2 * threads: 4M comparisons for a 128x256 tile of 8 warps.)
    by_value: dict[int, list[int]] = {}
    for m, v in enumerate(src_lin[0].tolist()):
        by_value.setdefault(v, []).append(m)
    src_cols = np.ascontiguousarray(src_lin.T)
    dst_cols = np.ascontiguousarray(dst_src_lin.T)
    result = []
    for r, want in enumerate(dst_cols):
        for m in by_value.get(int(want[0]), ()):
            if np.array_equal(src_cols[m], want):
                result.append(m)
                break
        else:
            return None
    return result


@dataclass(frozen=True)
class Fixed:
    """A ``select`` entry (:func:`redistribution`): the source coordinate is ``index`` for
    every destination element (``tt.extract``)."""

    index: int


def select_column(dcoords: np.ndarray, s) -> np.ndarray:
    """The source coordinate that ``select`` entry ``s`` gives for destination coordinates
    ``dcoords[..., rank]``."""
    if s is None:
        return np.zeros(dcoords.shape[:-1], dtype=np.int64)
    if isinstance(s, Fixed):
        return np.full(dcoords.shape[:-1], s.index, dtype=np.int64)
    return dcoords[..., s]


def redistribution(op) -> tuple:
    """``(source type, destination type, select)`` of a layout-moving op: ``ttg.convert_layout``,
    ``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans`` or ``tt.extract``.
    Destination register ``r`` of thread ``t`` needs the source element at ``select`` applied
    to its coordinate.

    ``select``: for each source dimension, the destination dimension its coordinate comes from,
    ``None`` for coordinate 0, or :class:`Fixed` for a constant coordinate; ``None``
    altogether means "same row-major linear index" (reshape).
    """
    src, res = op.operands[0].type, op.result.type
    if op.name == "tt.extract":
        axis = op.attrs["axis"]
        rest = iter(range(res.rank))
        return src, res, [Fixed(op.attrs["index"]) if d == axis else next(rest) for d in range(src.rank)]
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
    """The source register of each destination register when the redistribution
    ``(src_type, dst_type, select)`` (:func:`redistribution`) is a renumbering of registers in
    every thread, else ``None`` (the elements must move between threads, through shared
    memory: ``codegen/llvm/convert.py``). Memoised: passes and lowering ask about the same
    pairs of layouts many times."""
    found = _register_map(src_type, dst_type, None if select is None else tuple(select))
    return None if found is None else list(found)


@lru_cache(maxsize=4096)
def _register_map(src_type: TileType, dst_type: TileType, select: tuple | None) -> tuple[int, ...] | None:
    sd, dd = distribution(src_type.layout, src_type.shape), distribution(dst_type.layout, dst_type.shape)
    if sd == dd and (select is None or list(select) == list(range(len(dd.shape)))):
        return list(range(sd.num_regs))
    dcoords = dd.coords()
    if select is None:
        target = linearize(dcoords, dd.shape)
    else:
        cols = [select_column(dcoords, s) for s in select]
        target = linearize(np.stack(cols, axis=-1), sd.shape)
    found = find_register_map(sd, target)
    return None if found is None else tuple(found)


@dataclass(frozen=True)
class AxisThreads:
    """How the threads of a base layout are laid along one of its dimensions ``d``: the
    elements one thread holds contiguously (``spt``), the lanes (``tpw``) and warps (``wpc``)
    along ``d``, and the lane-id / warp-id strides between neighbours along ``d``: a thread's
    lane coordinate along ``d`` is ``(lane / lane_stride) % tpw``, its warp coordinate
    ``(warp / warp_stride) % wpc``.

    For an mma accumulator (versions 2 and 3, PTX ISA 9.7.14.5.14 / 9.7.15.5.3) a row of a
    ``16 x 8`` tile lives in the quad of lanes ``4 g .. 4 g + 3`` (lane bits 0-1, two
    consecutive columns each) and a column in the 8 lanes ``t, t + 4, ..`` (lane bits 2-4; the
    registers ``c0, c2`` hold rows ``g`` and ``g + 8``); warps are ``(wm, wn) = ((w / WN) %
    WM, w % WN)``."""

    spt: int
    tpw: int
    wpc: int
    lane_stride: int
    warp_stride: int


def axis_threads(base: Layout, d: int) -> AxisThreads:
    """The :class:`AxisThreads` of dimension ``d`` of a blocked or mma accumulator layout.

    Raises:
        NotImplementedError: for other layouts (dot operands, shared)."""
    if isinstance(base, BlockedLayout):
        return AxisThreads(base.size_per_thread[d], base.threads_per_warp[d], base.warps_per_cta[d],
                           lane_stride(base, d), warp_stride(base, d))
    if isinstance(base, MmaLayout):
        wm, wn = mma_parent(base).warps_per_cta
        if d == 1:
            return AxisThreads(2, 4, wn, 1, 1)
        return AxisThreads(1, 8, wm, 4, wn)
    raise NotImplementedError(f"threads along a dimension of {base}")


def stack_register_map(src_type: TileType, dst_type: TileType, axis: int) -> list[tuple[int, int]] | None:
    """For ``tt.stack`` of operands of ``src_type`` into ``dst_type`` along ``axis``: per
    destination register, ``(operand, source register)`` when the stack is a register
    renumbering in every thread (each destination register's ``axis`` coordinate is the same
    in every thread, and the thread holds that element of the operand), else ``None``."""
    sd, dd = distribution(src_type.layout, src_type.shape), distribution(dst_type.layout, dst_type.shape)
    dcoords = dd.coords()
    which = dcoords[..., axis]
    if np.any(which != which[:1, :]):
        return None
    rest = [d for d in range(dst_type.rank) if d != axis]
    regs = find_register_map(sd, linearize(dcoords[..., rest], sd.shape))
    if regs is None:
        return None
    return [(int(which[0, r]), regs[r]) for r in range(dd.num_regs)]


def lanes_and_warps(sd: Distribution, d: int) -> tuple[int, int]:
    """How many lanes and warps hold distinct data along blocked dimension ``d`` of ``sd``
    (blocked or mma accumulator base; an mma base must not wrap along ``d``)."""
    blk = sd.blocked
    size = sd.pshape[d]
    if isinstance(blk, MmaLayout):
        at = axis_threads(blk, d)
        if sd.wraps(d):
            raise NotImplementedError(f"a reduction along a wrapped dimension of {blk}")
        return at.tpw, at.wpc
    spt, tpw, wpc = blk.size_per_thread[d], blk.threads_per_warp[d], blk.warps_per_cta[d]
    lanes = tpw if spt * tpw <= size else max(1, size // spt)
    warps = wpc if spt * tpw * wpc <= size else max(1, size // (spt * tpw))
    return lanes, warps
