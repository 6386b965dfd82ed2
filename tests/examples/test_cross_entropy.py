"""examples/cross_entropy.tri: softmax cross-entropy forward (loss and log-normaliser per row,
the logits read once) and backward (dlogits recomputed from the logits and the log-normaliser), against float64 numpy, at ragged sizes: rows narrower
than a tile, and rows many tiles wide (the online max / sum-exp over the row's tiles)."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

TILE = 128
rng = np.random.default_rng(2)


def reference(X, labels, dloss):
    """(loss, log-normaliser, dlogits) in float64."""
    x = X.astype(np.float64)
    m = x.max(1, keepdims=True)
    lse = np.log(np.exp(x - m).sum(1, keepdims=True)) + m
    rows = np.arange(x.shape[0])
    p = np.exp(x - lse)
    onehot = np.zeros_like(p)
    onehot[rows, labels] = 1
    return lse[rows, 0] - x[rows, labels], lse[:, 0], (p - onehot) * dloss.astype(np.float64)[:, None]


def cross_entropy(X, labels, dloss, type_name, tile=TILE):
    rows, n = X.shape
    defines = {"TYPE": type_name} | ({"TILE": str(tile)} if tile else {})
    loss, lse = poisoned((rows,), X.dtype), poisoned((rows,), np.float32)
    run("cross_entropy", "forward", (rows,), X, labels, loss, lse, n, rows, defines=defines)
    dx = poisoned(X.shape, X.dtype)
    run("cross_entropy", "backward", (rows,), dx, X, lse, labels, dloss, n, rows, defines=defines)
    return loss, lse, dx


@pytest.mark.parametrize("rows,n", ragged_sizes(20, 3, [(1, 9), (2, TILE - 1)], [None, TILE]))
def test_cross_entropy_ragged(rows, n):
    X = (3 * rng.standard_normal((rows, n))).astype(np.float32)
    labels = rng.integers(0, n, rows).astype(np.int64)
    dloss = rng.standard_normal(rows).astype(np.float32)
    loss, lse, dx = cross_entropy(X, labels, dloss, "float")
    want_loss, want_lse, want_dx = reference(X, labels, dloss)
    assert_close(loss, want_loss, rtol=1e-5, atol=1e-5, what="loss")
    assert_close(lse, want_lse, rtol=1e-5, atol=1e-5, what="lse")
    assert_close(dx, want_dx, rtol=1e-5, atol=1e-6, what="dlogits")


@pytest.mark.parametrize("rows,n,tile", [(3, 1000, 32), (2, 4099, 128), (2, 5000, None)])
def test_cross_entropy_rows_many_tiles_wide(rows, n, tile):
    """The row spans many tiles (32-wide tiles over 1000 columns; no -D: the file's TILE over
    5000 columns), the largest logit in a late tile, labels at both ends of the row."""
    X = (3 * rng.standard_normal((rows, n))).astype(np.float32)
    X[0, n - 3] = 30.0  # the max arrives late: the running sums are rescaled
    labels = np.array([n - 1, 0, 5][:rows], np.int64)
    dloss = rng.standard_normal(rows).astype(np.float32)
    got = cross_entropy(X, labels, dloss, "float", tile)
    for g, w, what in zip(got, reference(X, labels, dloss), ("loss", "lse", "dlogits")):
        assert_close(g, w, rtol=1e-5, atol=1e-5, what=what)


def test_cross_entropy_half_with_large_logits():
    """half logits whose exp overflows half and float without the max shift."""
    X = (40 * rng.standard_normal((5, 77))).astype(np.float16)
    labels = rng.integers(0, 77, 5).astype(np.int64)
    dloss = np.ones(5, np.float16)
    loss, lse, dx = cross_entropy(X, labels, dloss, "half")
    want_loss, want_lse, want_dx = reference(X, labels, dloss)
    assert_close(loss, want_loss, rtol=2e-3, atol=2e-2, what="loss")
    assert_close(lse, want_lse, rtol=1e-5, atol=1e-5, what="lse (float)")
    assert_close(dx, want_dx, rtol=2e-3, atol=2e-3, what="dlogits")
    assert np.allclose(dx.astype(np.float64).sum(1), 0, atol=1e-2)  # softmax - onehot sums to 0


def test_backward_in_place():
    """DX may alias X: the gradient overwrites the logits it is computed from."""
    X = rng.standard_normal((3, 50)).astype(np.float32)
    labels = np.array([0, 49, 7], np.int64)
    dloss = rng.standard_normal(3).astype(np.float32)
    want = reference(X, labels, dloss)[2]
    loss, lse = poisoned((3,), X.dtype), poisoned((3,), np.float32)
    defines = {"TILE": str(TILE)}
    run("cross_entropy", "forward", (3,), X, labels, loss, lse, 50, 3, defines=defines)
    run("cross_entropy", "backward", (3,), X, X, lse, labels, dloss, 50, 3, defines=defines)
    assert_close(X, want, rtol=1e-5, atol=1e-6)


def test_cross_entropy_minus_infinity_logits():
    """Masked vocabulary entries (-inf logits), one lane of every tile never finite: the loss
    and the gradients of the finite entries are right; the masked entries get p = 0."""
    rows, n = 2, 300
    X = (2 * rng.standard_normal((rows, n))).astype(np.float32)
    X[0, ::5] = -np.inf
    X[1, 3::32] = -np.inf
    labels = np.array([1, 4], np.int64)
    dloss = np.ones(rows, np.float32)
    loss, lse, dx = cross_entropy(X, labels, dloss, "float", 32)
    want_loss, want_lse, want_dx = reference(X, labels, dloss)
    assert_close(loss, want_loss, rtol=1e-5, atol=1e-5, what="loss")
    assert_close(lse, want_lse, rtol=1e-5, atol=1e-5, what="lse")
    assert (dx[~np.isfinite(X)] == 0).all()
    assert_close(dx, want_dx, rtol=1e-5, atol=1e-6, what="dlogits")
