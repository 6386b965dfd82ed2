"""tritonc.ir.layout_algebra: inverse permutations and the blocked-layout builder."""
from __future__ import annotations

import itertools

import pytest

from tritonc.ir.layout_algebra import blocked_layout, default_blocked_layout, inverse_permutation, trans_layout
from tritonc.ir.layouts import BlockedLayout


@pytest.mark.parametrize("order", [p for n in (1, 2, 3, 4) for p in itertools.permutations(range(n))])
def test_inverse_permutation(order):
    inv = inverse_permutation(order)
    assert all(inv[order[i]] == i for i in range(len(order)))
    assert inverse_permutation(inv) == tuple(order)


def test_blocked_layout_fills_lanes_then_warps_fastest_first():
    # 64 x 64, 4 elements per thread along dim 1: 16 lanes cover dim 1, 2 lanes dim 0; then
    # the 4 warps go to dim 0 (dim 1 is covered by one warp).
    assert blocked_layout((64, 64), (1, 0), (1, 4), 4) == BlockedLayout((1, 4), (2, 16), (4, 1), (1, 0))
    # a narrow tile: leftover lanes and warps go to the slowest dimension
    assert blocked_layout((8, 2), (1, 0), (1, 1), 2) == BlockedLayout((1, 1), (16, 2), (2, 1), (1, 0))


def test_warps_slowest_first():
    # 256 x 256, 4 per thread along dim 1: the 32 lanes cover 128 columns; fastest first, 2
    # warps cover dim 1 and the other 4 go to dim 0; slowest first, all 8 go to dim 0.
    assert blocked_layout((256, 256), (1, 0), (1, 4), 8).warps_per_cta == (4, 2)
    assert blocked_layout((256, 256), (1, 0), (1, 4), 8, warps_slowest_first=True).warps_per_cta == (8, 1)


@pytest.mark.parametrize("shape, num_warps", [((16,), 4), ((1024,), 4), ((64, 64), 4), ((2, 512), 8),
                                              ((4, 8, 16), 2), ((128, 8), 16)])
def test_default_layout_covers_the_cta(shape, num_warps):
    lay = default_blocked_layout(shape, num_warps)
    assert lay.order == tuple(range(len(shape) - 1, -1, -1))
    prod = 1
    for t in lay.threads_per_warp:
        prod *= t
    assert prod == 32
    prod = 1
    for w in lay.warps_per_cta:
        prod *= w
    assert prod == num_warps
    assert lay == blocked_layout(shape, lay.order, lay.size_per_thread, num_warps, warps_slowest_first=True)


def test_trans_layout_permutes_dimensions():
    lay = BlockedLayout((1, 4), (2, 16), (4, 1), (1, 0))
    t = trans_layout(lay, (1, 0))
    assert t == BlockedLayout((4, 1), (16, 2), (1, 4), (0, 1))
    assert trans_layout(t, inverse_permutation((1, 0))) == lay
