"""examples/layernorm.tri (forward: one-pass Welford statistics) and examples/layernorm_bwd.tri
(dx, dgamma and dbeta in one pass; dgamma / dbeta partial sums as fp32 atomics into outputs the
caller zeroes), in the interpreter against float64 numpy at ragged sizes, with small tiles fixed
by -D (many tiles per row; the backward both with rows in one tile and longer) and with the
files' own tunables (no -D)."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

EPS = 1e-5
SMALL = {"BLOCK": "32"}
BWD_SMALL = {"BLOCK": "512", "G": "4"}  # rows of up to 512 in one tile
BWD_TILED = {"BLOCK": "32", "G": "3"}   # rows of more than 32 take the tiled path
rng = np.random.default_rng(161)


def forward(X, W, B, defines):
    M, N = X.shape
    Y, mean, rstd = poisoned((M, N), np.float16), poisoned(M, np.float32), poisoned(M, np.float32)
    run("layernorm", "layernorm", (M,), Y, X, W, B, mean, rstd, np.int32(N), np.int32(N), np.float32(EPS),
        np.int32(M), defines=defines)
    return Y, mean, rstd


def ref_forward(X, W, B):
    x = X.astype(np.float64)
    mean = x.mean(1)
    rstd = 1 / np.sqrt(x.var(1) + EPS)
    return (x - mean[:, None]) * rstd[:, None] * W.astype(np.float64) + B.astype(np.float64), mean, rstd


def ref_backward(X, W, DY, mean, rstd):
    x, w, dy = X.astype(np.float64), W.astype(np.float64), DY.astype(np.float64)
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = w * dy
    dx = rstd[:, None] * (g - (xhat * (xhat * g).mean(1, keepdims=True) + g.mean(1, keepdims=True)))
    return dx, (dy * xhat).sum(0), dy.sum(0)


def data(M, N, offset=0.0):
    X = (rng.standard_normal((M, N)) + offset).astype(np.float16)
    return X, rng.standard_normal(N).astype(np.float16), rng.standard_normal(N).astype(np.float16)


@pytest.mark.parametrize("defines", [SMALL, None], ids=["small-tiles", "no-D"])
@pytest.mark.parametrize("shape", [(1, 1), *ragged_sizes(162, 3, [(1, 9), (33, 3000)], [None, 32])], ids=str)
def test_layernorm_forward(shape, defines):
    X, W, B = data(*shape)
    got = forward(X, W, B, defines)
    want = ref_forward(X, W, B)
    assert_close(got[0], want[0], rtol=1e-2, atol=1e-2, what="y")
    assert_close(got[1], want[1], rtol=1e-5, atol=1e-5, what="mean")
    assert_close(got[2], want[2], rtol=1e-4, atol=0, what="rstd")


def test_layernorm_forward_welford_large_mean():
    """Rows with mean 500 and unit spread, many tiles wide: the one-pass statistics keep the
    variance (a float sum-of-squares formula would lose most of it)."""
    X, W, B = data(3, 1000, offset=500.0)
    got, want = forward(X, W, B, SMALL), ref_forward(X, W, B)
    assert_close(got[2], want[2], rtol=1e-3, atol=0, what="rstd")
    assert_close(got[0], want[0], rtol=2e-2, atol=2e-2, what="y")


@pytest.mark.parametrize("defines, grid", [(BWD_SMALL, 4), (BWD_TILED, 3), (None, 512)],
                         ids=["small-tiles", "tiled", "no-D"])
@pytest.mark.parametrize("shape", ragged_sizes(163, 3, [(1, 70), (1, 300)], [4, 16]), ids=str)
def test_layernorm_backward(shape, defines, grid):
    M, N = shape
    X, W, _ = data(M, N)
    DY = rng.standard_normal((M, N)).astype(np.float16)
    _, mean, rstd = ref_forward(X, W, W)
    mean32, rstd32 = mean.astype(np.float32), rstd.astype(np.float32)
    DX = poisoned((M, N), np.float16)
    DW, DB = np.zeros(N + 2, np.float32), np.zeros(N + 2, np.float32)  # zeroed by the caller
    run("layernorm_bwd", "layernorm_bwd", (min(M, grid),), DX, DW, DB, DY, X, W, mean32, rstd32, np.int32(N),
        np.int32(N), np.int32(M), defines=defines)
    want_dx, want_dw, want_db = ref_backward(X, W, DY, mean32.astype(np.float64), rstd32.astype(np.float64))
    assert_close(DX, want_dx, rtol=1e-2, atol=1e-2, what="dx")
    assert_close(DW[:N], want_dw, rtol=1e-4, atol=1e-3, what="dgamma")
    assert_close(DB[:N], want_db, rtol=1e-4, atol=1e-3, what="dbeta")
    assert (DW[N:] == 0).all() and (DB[N:] == 0).all(), "wrote past N"


def test_layernorm_backward_matches_finite_differences():
    """dx from the kernel against a central difference of sum(Y * DY) (float64 forward)."""
    M, N = 2, 45
    X = rng.standard_normal((M, N)).astype(np.float16)
    W = rng.standard_normal(N).astype(np.float16)
    DY = rng.standard_normal((M, N)).astype(np.float16)
    _, mean, rstd = ref_forward(X, W, W)
    DX = poisoned((M, N), np.float16)
    DW, DB = np.zeros(N, np.float32), np.zeros(N, np.float32)
    run("layernorm_bwd", "layernorm_bwd", (M,), DX, DW, DB, DY, X, W, mean.astype(np.float32),
        rstd.astype(np.float32), np.int32(N), np.int32(N), np.int32(M), defines=BWD_SMALL)
    x0, h = X.astype(np.float64), 1e-6

    def loss(x):
        m = x.mean(1, keepdims=True)
        return (((x - m) / np.sqrt(x.var(1, keepdims=True) + EPS)) * W * DY.astype(np.float64)).sum()

    for i, j in [(0, 0), (1, 44), (0, 17)]:
        xp, xm = x0.copy(), x0.copy()
        xp[i, j] += h
        xm[i, j] -= h
        assert abs(float(DX[i, j]) - (loss(xp) - loss(xm)) / (2 * h)) < 2e-2 * max(1, abs(float(DX[i, j])))
