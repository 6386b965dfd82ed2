"""examples/blocksparse_matmul.tri: block-sparse (compact blocks) x dense matmul driven by a
look-up table of (a-block, b-block) pairs, against float64 numpy at ragged N."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, round_up, run

BLOCK, TN = 16, 32
rng = np.random.default_rng(5)


def make_lut(layout: np.ndarray) -> np.ndarray:
    """Header (offset, count) per block row, then the (a-block, b-block) pairs of each row."""
    rows = layout.shape[0]
    index = np.cumsum(layout.ravel()).reshape(layout.shape) - 1  # position in compact storage
    header, pairs = [], []
    for i in range(rows):
        ks = np.flatnonzero(layout[i])
        header += [2 * rows + len(pairs), len(ks)]
        for k in ks:
            pairs += [int(index[i, k]), int(k)]
    return np.array(header + pairs, np.int32)


def dense(blocks: np.ndarray, layout: np.ndarray) -> np.ndarray:
    out = np.zeros((layout.shape[0] * BLOCK, layout.shape[1] * BLOCK))
    for j, (i, k) in enumerate(zip(*np.nonzero(layout))):
        out[i * BLOCK:(i + 1) * BLOCK, k * BLOCK:(k + 1) * BLOCK] = blocks[j]
    return out


def blocksparse(layout, blocks, B, N, type_name="float"):
    rows = layout.shape[0]
    C = poisoned((rows * BLOCK, round_up(N, 8)), B.dtype)
    run("blocksparse_matmul", "blocksparse_matmul", (rows, cdiv(N, TN)), blocks, B, C, make_lut(layout),
        N, B.shape[1], C.shape[1], rows * BLOCK, defines={"TYPE": type_name, "BLOCK": str(BLOCK), "TN": str(TN)})
    assert np.isnan(C[:, N:]).all(), "wrote outside C"
    return C[:, :N]


@pytest.mark.parametrize("mb,kb,N", ragged_sizes(50, 3, [(1, 4), (1, 4), (2, 80)], [None, None, TN]))
def test_blocksparse_ragged(mb, kb, N):
    layout = rng.random((mb, kb)) < 0.6
    layout[0, :] = False  # an empty block row must come out as zeros
    blocks = rng.standard_normal((max(int(layout.sum()), 1), BLOCK, BLOCK)).astype(np.float32)
    B = np.zeros((kb * BLOCK, round_up(N, 8)), np.float32)
    B[:, :N] = rng.standard_normal((kb * BLOCK, N))
    C = blocksparse(layout, blocks, B, N)
    assert_close(C, dense(blocks, layout) @ B[:, :N], rtol=1e-5, atol=1e-4)


def test_blocksparse_half_diagonal_and_dense_rows():
    layout = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 1]], bool)
    blocks = rng.standard_normal((5, BLOCK, BLOCK)).astype(np.float16)
    B = rng.standard_normal((3 * BLOCK, 40)).astype(np.float16)
    C = blocksparse(layout, blocks, B, 37, "half")
    want = dense(blocks.astype(np.float64), layout) @ B[:, :37].astype(np.float64)
    assert_close(C, want, rtol=1e-2, atol=2e-2)


def test_lut_format():
    layout = np.array([[0, 1], [1, 1]], bool)
    assert make_lut(layout).tolist() == [4, 1, 6, 2, 0, 1, 1, 0, 2, 1]
