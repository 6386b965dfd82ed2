"""Pure layout algebra: functions from shapes, orders and layouts to layouts.

Nothing here looks at ops or at the code generator; the transforms (``assign-layouts``,
``accelerate-matmul``, ``software-pipeline``, ...) and the lowering build on it.

* :func:`inverse_permutation`: the inverse of a dimension permutation (``tt.trans`` orders);
* :func:`blocked_layout`: the blocked layout of a shape for a given ``size_per_thread`` and
  dimension order, lanes and warps filling the dimensions (Triton's ``BlockedEncodingAttr::get``);
* :func:`default_blocked_layout`: the layout a tile gets from its shape alone;
* :func:`trans_layout`: the layout of a transposed tile.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from tritonc.target import WARP_SIZE

from .layouts import BlockedLayout


def inverse_permutation(order: Sequence[int]) -> tuple[int, ...]:
    """The permutation ``inv`` with ``inv[order[i]] == i`` (``order`` a permutation of ``0..n-1``).

    For ``tt.trans(x){order}`` (``result.shape[i] == x.shape[order[i]]``) the inverse maps a
    dimension of ``x`` to the result dimension it becomes.
    """
    inv = [0] * len(order)
    for i, o in enumerate(order):
        inv[o] = i
    return tuple(inv)


def blocked_layout(shape: Sequence[int], order: Sequence[int], size_per_thread: Sequence[int], num_warps: int,
                   warps_slowest_first: bool = False, warp_size: int = WARP_SIZE) -> BlockedLayout:
    """The blocked layout of a tile of ``shape`` (powers of two) with ``size_per_thread`` and
    ``order`` (dimensions, fastest first), for ``num_warps`` warps of ``warp_size`` lanes.

    The lanes of a warp fill the dimensions in ``order``, each dimension taking at most the
    threads it needs (``shape[d] // size_per_thread[d]``, at least 1); lanes left over go to the
    slowest dimension. The warps then fill the dimensions the same way, fastest first (Triton's
    ``BlockedEncodingAttr::get``), or slowest first with ``warps_slowest_first`` (the shape
    default, :func:`default_blocked_layout`: warps split rows before columns); warps left over
    go to the slowest dimension.
    """
    rank = len(shape)
    tpw, wpc = [1] * rank, [1] * rank
    lanes = warp_size
    for d in order:
        tpw[d] = max(1, min(lanes, shape[d] // size_per_thread[d]))
        lanes //= tpw[d]
    tpw[order[-1]] *= lanes
    warps = num_warps
    for d in (reversed(order) if warps_slowest_first else order):
        wpc[d] = max(1, min(warps, shape[d] // (size_per_thread[d] * tpw[d])))
        warps //= wpc[d]
    wpc[order[-1]] *= warps
    return BlockedLayout(tuple(size_per_thread), tuple(tpw), tuple(wpc), tuple(order))


@lru_cache(maxsize=None)
def default_blocked_layout(shape: tuple[int, ...], num_warps: int) -> BlockedLayout:
    """The layout a tile of ``shape`` gets from its shape alone, for ``num_warps`` warps:
    row-major order (the last dimension fastest); up to 4 consecutive elements per thread
    along it when the tile has more elements than the CTA has threads; lanes along the fast
    dimensions, warps along the slow ones (:func:`blocked_layout` with ``warps_slowest_first``).
    """
    rank = len(shape)
    order = tuple(range(rank - 1, -1, -1))
    numel = 1
    for s in shape:
        numel *= s
    threads = WARP_SIZE * num_warps
    spt = [1] * rank
    if numel > threads:
        spt[order[0]] = max(1, min(4, numel // threads, shape[order[0]]))
    return blocked_layout(shape, order, tuple(spt), num_warps, warps_slowest_first=True)


def trans_layout(layout: BlockedLayout, order: Sequence[int]) -> BlockedLayout:
    """The layout of ``tt.trans(x){order}`` for ``x`` in ``layout``: the same threads hold the
    same elements, the dimensions permuted."""
    inv = inverse_permutation(order)
    return BlockedLayout(tuple(layout.size_per_thread[o] for o in order),
                         tuple(layout.threads_per_warp[o] for o in order),
                         tuple(layout.warps_per_cta[o] for o in order),
                         tuple(inv[d] for d in layout.order))
