"""wgmma's shared layouts (``accelerate_matmul.wgmma_layout``): the element offsets of
``layout_math.shared_offset`` are the hardware's swizzle modes (PTX ISA 9.7.15.5.1: address bits
[4, 4 + log2(S/16)) XORed with the bits from 7 up, on a buffer aligned to 8 rows of S bytes),
with rows longer than the swizzle width cut into blocks, and a bijection onto the buffer."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.codegen.llvm.smem_access import row_width, shared_offset
from tritonc.transforms.accelerate_matmul import wgmma_layout


def hardware_swizzle(linear_bytes: np.ndarray, swizzle: int) -> np.ndarray:
    mask = swizzle // 16 - 1
    return linear_bytes ^ (((linear_bytes >> 7) & mask) << 4)


@pytest.mark.parametrize("rows, cols, elem_bytes, swizzle, block", [
    (64, 64, 2, 128, 0), (64, 256, 2, 128, 64), (32, 256, 2, 128, 64), (128, 32, 2, 64, 0),
    (16, 16, 2, 32, 0), (64, 48, 2, 32, 16), (64, 256, 1, 128, 128), (16, 96, 2, 64, 32),
])
def test_offsets_are_the_hardware_swizzle(rows, cols, elem_bytes, swizzle, block):
    layout = wgmma_layout((rows, cols), (1, 0), elem_bytes)
    assert layout.block == block and layout.max_phase == swizzle // 16 and layout.per_phase == 128 // swizzle
    assert row_width(layout, (rows, cols)) * elem_bytes == swizzle
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    got = shared_offset(layout, (rows, cols), [r, c]) * elem_bytes
    width = swizzle // elem_bytes
    linear = (c // width) * (rows * swizzle) + r * swizzle + (c % width) * elem_bytes
    np.testing.assert_array_equal(got, hardware_swizzle(linear, swizzle))
    assert sorted(got.ravel().tolist()) == list(range(0, rows * cols * elem_bytes, elem_bytes))


def test_column_major_operand_is_blocked_along_its_contiguous_dimension():
    # A stored K x M (M contiguous, 128 wide): blocks of 64 along M, K rows of 128 bytes.
    layout = wgmma_layout((32, 128), (1, 0), 2)
    assert layout.block == 64 and (layout.vec, layout.per_phase, layout.max_phase) == (8, 1, 8)
    trans = wgmma_layout((128, 32), (0, 1), 2)  # the same memory seen as M x K
    assert trans.order == (0, 1) and trans.block == 64
    k, m = np.meshgrid(np.arange(32), np.arange(128), indexing="ij")
    np.testing.assert_array_equal(shared_offset(layout, (32, 128), [k, m]),
                                  shared_offset(trans, (128, 32), [m, k]))


def test_rows_of_fewer_than_32_bytes_have_no_wgmma_layout():
    assert wgmma_layout((64, 8), (1, 0), 2) is None
    assert wgmma_layout((64, 24), (1, 0), 2) is None
