"""Layout math of the tensor-core layouts (mma v2 accumulator, dot operands) and of swizzled
shared memory, checked against the PTX fragment definitions (PTX ISA 9.7.14.5.14) by brute force."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.ir.distribution import distribution
from tritonc.codegen.llvm.smem_access import shared_offset
from tritonc.ir.layouts import DotOperandLayout, MmaLayout, SharedLayout, SliceLayout
from tritonc.transforms.accelerate_matmul import swizzled_layout, warps_per_tile

WARPS = [(1, 1), (2, 1), (1, 2), (2, 2), (4, 2), (2, 4), (8, 1), (1, 4)]


def _check_cover(dist, shape):
    lin = dist.linear_ids()
    canon = dist.canonical()
    counts = np.bincount(lin[canon], minlength=int(np.prod(shape)))
    assert (counts == 1).all(), "every element has exactly one canonical copy"
    assert dist.num_threads == lin.shape[0]


@pytest.mark.parametrize("wpc", WARPS)
@pytest.mark.parametrize("shape", [(16, 8), (32, 32), (64, 128), (128, 256), (16, 64)])
def test_mma_and_operands_cover_each_element_once(wpc, shape):
    mma = MmaLayout(2, wpc, (16, 8))
    _check_cover(distribution(mma, shape), shape)
    for kw in (1, 2, 4):
        _check_cover(distribution(DotOperandLayout(0, mma, kw), (shape[0], 16 * kw)), (shape[0], 16 * kw))
        _check_cover(distribution(DotOperandLayout(1, mma, kw), (32 * kw, shape[1])), (32 * kw, shape[1]))
    sl = SliceLayout(0, mma)
    _check_cover(distribution(sl, (shape[1],)), (shape[1],))


@pytest.mark.parametrize("kw", [1, 2, 4])
def test_fragments_match_the_ptx_definition(kw):
    """Warp 0's registers of one instruction are a0..a3 / b0, b1 / c0..c3 (PTX ISA 9.7.14.5.8)."""
    mma = MmaLayout(2, (1, 1), (16, 8))
    a = distribution(DotOperandLayout(0, mma, kw), (16, 8 * kw)).coords()
    b = distribution(DotOperandLayout(1, mma, kw), (8 * kw, 8)).coords()
    c = distribution(mma, (16, 8)).coords()
    for lane in range(32):
        g, t = lane // 4, lane % 4
        want_a = [(g + 8 * (w % 2), kw * t + 4 * kw * (w // 2) + e) for w in range(4) for e in range(kw)]
        want_b = [(kw * t + 4 * kw * w + e, g) for w in range(2) for e in range(kw)]
        want_c = [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
        assert [tuple(x) for x in a[lane]] == want_a
        assert [tuple(x) for x in b[lane]] == want_b
        assert [tuple(x) for x in c[lane]] == want_c


def test_operand_replicas_are_the_other_warp_dimension():
    mma = MmaLayout(2, (2, 2), (16, 8))
    a = distribution(DotOperandLayout(0, mma, 2), (32, 16))
    coords, canon = a.coords(), a.canonical()
    # warps 0 and 1 (wn = 0, 1) hold the same A rows; only wn == 0 is canonical
    assert (coords[0:32] == coords[32:64]).all() and canon[0:32].all() and not canon[32:64].any()


@pytest.mark.parametrize("shape, order", [((64, 32), (1, 0)), ((32, 64), (1, 0)), ((128, 64), (0, 1)),
                                          ((16, 16), (1, 0)), ((64, 256), (1, 0)), ((32, 8), (1, 0))])
def test_swizzle_is_a_bank_conflict_free_permutation(shape, order):
    layout = swizzled_layout(shape, order, 2)
    rows, cols = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
    off = shared_offset(layout, shape, [rows, cols])
    assert sorted(off.ravel().tolist()) == list(range(shape[0] * shape[1]))
    # ldmatrix: 8 consecutive rows (along the non-contiguous dimension) at one 16-byte column
    # land in 8 different 16-byte bank groups
    contig, row_dim = order[0], order[1]
    if shape[contig] * 2 < 128:
        return  # rows shorter than 128 bytes share bank groups by construction of per_phase
    for r0 in range(0, shape[row_dim] - 7, 8):
        for c in range(0, shape[contig], 8):
            idx = [None, None]
            idx[row_dim] = np.arange(r0, r0 + 8)
            idx[contig] = np.full(8, c)
            groups = (shared_offset(layout, shape, idx) * 2 // 16) % 8
            assert len(set(groups.tolist())) == 8


def test_swizzle_parameters():
    assert swizzled_layout((64, 32), (1, 0), 2) == SharedLayout(8, 2, 4, (1, 0))
    assert swizzled_layout((32, 64), (1, 0), 2) == SharedLayout(8, 1, 8, (1, 0))
    assert swizzled_layout((64, 16), (1, 0), 2) == SharedLayout(8, 4, 2, (1, 0))
    assert swizzled_layout((64, 8), (1, 0), 2) == SharedLayout(8, 8, 1, (1, 0))
    assert swizzled_layout((64, 32), (1, 0), 4) == SharedLayout(4, 1, 8, (1, 0))


def test_warps_as_square_as_possible():
    assert warps_per_tile((128, 256), 8) == (2, 4)
    assert warps_per_tile((128, 128), 8) == (4, 2)
    assert warps_per_tile((64, 64), 4) == (2, 2)
    assert warps_per_tile((16, 64), 4) == (1, 4)
    assert warps_per_tile((128, 128), 1) == (1, 1)
