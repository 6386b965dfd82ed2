"""examples/reduce.tri: row sums, and column sums as a grid-spanning reduction (the rows split
over SPLIT program instances per column block, partial sums combined with fp32 atomic_add into
an output the caller zeroes), in the interpreter against float64 numpy at ragged sizes, with
the tile sizes and the split factor fixed small (-D) and at the file's own choices."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, run

rng = np.random.default_rng(40)
SMALL = {"BM": "4", "BN": "16", "SPLIT": "4"}


def col_sum(X, defines, split, bn, order_seed=None, n=None):
    """Column sums of ``X[:, :n]`` (``X`` contiguous; its row stride may exceed ``n``)."""
    M, N = X.shape[0], n or X.shape[1]
    out = np.zeros(N + 3, np.float32)  # zeroed by the caller; the 3 past N must stay 0
    run("reduce", "col_sum", (cdiv(N, bn), split), out, X, np.int32(M), np.int32(N), np.int32(X.shape[1]),
        defines=defines, order_seed=order_seed)
    return out


@pytest.mark.parametrize("shape", ragged_sizes(41, 4, [(1, 70), (1, 50)], [4, 16]), ids=str)
def test_col_sum_split_ragged(shape):
    M, N = shape
    X = rng.standard_normal((M, N + 5)).astype(np.float32)  # a row stride past N
    out = col_sum(X, SMALL, 4, 16, n=N)
    assert_close(out[:N], X[:, :N].astype(np.float64).sum(0), rtol=1e-5, atol=1e-5, what="col_sum")
    assert (out[N:] == 0).all(), "wrote past N"


@pytest.mark.parametrize("split", ["1", "2", "8"])
def test_col_sum_any_split_and_program_order(split):
    """Each split factor covers every row exactly once; the atomics' order does not matter."""
    X = rng.standard_normal((37, 21)).astype(np.float32)
    want = X.astype(np.float64).sum(0)
    for seed in (None, 3):
        out = col_sum(X, {**SMALL, "SPLIT": split}, int(split), 16, order_seed=seed)
        assert_close(out[:21], want, rtol=1e-5, atol=1e-5, what=f"col_sum SPLIT={split}")


def test_col_sum_default_tunables():
    """No -D: the file's own tile sizes and split (BN=256, SPLIT=16), a ragged 300 x 300."""
    X = rng.standard_normal((300, 300)).astype(np.float32)
    out = col_sum(X, None, 16, 256)
    assert_close(out[:300], X.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("defines, bm", [(SMALL, 4), (None, 8)])
def test_row_sum_ragged(defines, bm):
    M, N = 53, 301
    X = rng.standard_normal((M, N)).astype(np.float32)
    out = poisoned(M + 2, np.float32)
    run("reduce", "row_sum", (cdiv(M, bm),), out, X, np.int32(M), np.int32(N), np.int32(N), defines=defines)
    assert_close(out[:M], X.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    assert np.isnan(out[M:]).all()
