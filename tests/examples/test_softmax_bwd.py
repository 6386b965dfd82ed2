"""examples/softmax_bwd.tri: dx = y * (dy - sum(y * dy)) per row, in the interpreter against
float64 numpy, rows narrower and many tiles wider than the tile, separate row strides."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

rng = np.random.default_rng(180)


@pytest.mark.parametrize("defines", [{"BLOCK": "32"}, None], ids=["BLOCK=32", "no-D"])
@pytest.mark.parametrize("shape", [(1, 1), *ragged_sizes(181, 3, [(1, 9), (33, 3000)], [None, 32])], ids=str)
def test_softmax_bwd(shape, defines):
    M, N = shape
    x = rng.standard_normal((M, N))
    y = np.exp(x - x.max(1, keepdims=True))
    Y = np.zeros((M, N + 3), np.float32)  # row stride N + 3
    Y[:, :N] = y / y.sum(1, keepdims=True)
    DY = rng.standard_normal((M, N + 1)).astype(np.float32)  # row stride N + 1
    DX = poisoned((M, N + 2), np.float32)  # row stride N + 2; its last 2 columns stay poisoned
    run("softmax_bwd", "softmax_bwd", (M,), DX, Y, DY, np.int32(N + 2), np.int32(N + 3), np.int32(N + 1), np.int32(N),
        np.int32(M), defines=defines)
    y64, dy64 = Y[:, :N].astype(np.float64), DY[:, :N].astype(np.float64)
    want = y64 * (dy64 - (y64 * dy64).sum(1, keepdims=True))
    assert_close(DX[:, :N], want, rtol=1e-5, atol=1e-6, what="dx")
    assert np.isnan(DX[:, N:]).all(), "wrote past N"
