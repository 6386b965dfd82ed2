"""examples/softmax.tri: softmax along rows in the interpreter against float64 numpy, rows that
fit one tile (the single-tile path) and rows several tiles wide (the online max / sum loop),
separate row strides, extreme values and -inf entries."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

rng = np.random.default_rng(160)


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _run(x: np.ndarray, defines) -> np.ndarray:
    M, N = x.shape
    X = np.zeros((M, N + 3), np.float32)  # row stride N + 3
    X[:, :N] = x
    Y = poisoned((M, N + 1), np.float32)  # row stride N + 1; its last column stays poisoned
    run("softmax", "softmax", (M,), Y, X, np.int32(N + 1), np.int32(N + 3), np.int32(N), np.int32(M),
        defines=defines)
    assert np.isnan(Y[:, N:]).all(), "wrote past N"
    return Y[:, :N]


@pytest.mark.parametrize("defines", [{"BLOCK": "32"}, None], ids=["BLOCK=32", "no-D"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 32), (2, 33), (3, 64), (2, 100), *ragged_sizes(161, 3, [(1, 9), (33, 3000)], [None, 32])],
                         ids=str)
def test_softmax(shape, defines):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    assert_close(_run(x, defines), _softmax(x), rtol=1e-5, atol=1e-7, what="y")


@pytest.mark.parametrize("N", [20, 200], ids=["one tile", "loop"])
def test_softmax_extremes(N):
    """Large magnitudes (exp would overflow without the maximum), a row whose maximum comes
    late (the loop's rescaling), -inf entries (exp(-inf) = 0), a lane that sees only -inf
    before a finite value."""
    x = (rng.standard_normal((4, N)) * 30).astype(np.float32)
    x[1] = np.linspace(-80, 80, N, dtype=np.float32)  # increasing: every step raises the max
    x[2, ::3] = -np.inf
    x[3, :N - 1] = -np.inf
    x[3, N - 1] = 1.0
    assert_close(_run(x, {"BLOCK": "32"}), _softmax(x), rtol=1e-5, atol=1e-7, what="y")
