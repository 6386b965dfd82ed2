"""examples/rmsnorm.tri: RMSNorm forward (y, rstd), and the backward's dx and dweight in one
pass (dweight's partial sums as fp32 atomics into an output the caller zeroes), in the
interpreter against float64 numpy at ragged sizes, small tiles fixed by -D (rows in one tile,
and rows longer than the tile) and the file's own (no -D)."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

EPS = 1e-6
SMALL = {"BLOCK": "32", "G": "4"}
TILED = {"BLOCK": "16", "G": "3"}  # rows of more than 16 take the tiled path
rng = np.random.default_rng(170)


def reference(X, W, DY):
    x, w, dy = X.astype(np.float64), W.astype(np.float64), DY.astype(np.float64)
    rstd = 1 / np.sqrt((x * x).mean(1) + EPS)
    y = x * rstd[:, None] * w
    g = w * dy
    dx = rstd[:, None] * g - x * rstd[:, None] ** 3 * (g * x).mean(1, keepdims=True)
    return y, rstd, dx, (dy * x * rstd[:, None]).sum(0)


@pytest.mark.parametrize("defines, grid", [(SMALL, 4), (TILED, 3), (None, 512)], ids=["small-tiles", "tiled", "no-D"])
@pytest.mark.parametrize("shape", [(1, 1), *ragged_sizes(171, 3, [(1, 40), (33, 800)], [4, 32])], ids=str)
def test_rmsnorm_forward_backward(shape, defines, grid):
    M, N = shape
    X = rng.standard_normal((M, N)).astype(np.float16)
    W = rng.standard_normal(N).astype(np.float16)
    DY = rng.standard_normal((M, N)).astype(np.float16)
    want_y, want_rstd, want_dx, want_dw = reference(X, W, DY)
    Y, rstd = poisoned((M, N), np.float16), poisoned(M, np.float32)
    run("rmsnorm", "rmsnorm_fwd", (M,), Y, X, W, rstd, np.int32(N), np.int32(N), np.float32(EPS), np.int32(M),
        defines=defines)
    assert_close(Y, want_y, rtol=1e-2, atol=1e-2, what="y")
    assert_close(rstd, want_rstd, rtol=1e-5, atol=0, what="rstd")
    DX = poisoned((M, N), np.float16)
    DW = np.zeros(N + 2, np.float32)  # zeroed by the caller
    run("rmsnorm", "rmsnorm_bwd", (min(M, grid),), DX, DW, DY, X, W, rstd, np.int32(N), np.int32(N), np.int32(M),
        defines=defines)
    assert_close(DX, want_dx, rtol=1e-2, atol=1e-2, what="dx")
    assert_close(DW[:N], want_dw, rtol=1e-4, atol=1e-3, what="dweight")
    assert (DW[N:] == 0).all(), "wrote past N"


def test_rmsnorm_dx_matches_finite_differences():
    M, N = 2, 40
    X = rng.standard_normal((M, N)).astype(np.float16)
    W = rng.standard_normal(N).astype(np.float16)
    DY = rng.standard_normal((M, N)).astype(np.float16)
    rstd = (1 / np.sqrt((X.astype(np.float64) ** 2).mean(1) + EPS)).astype(np.float32)
    DX = poisoned((M, N), np.float16)
    DW = np.zeros(N, np.float32)
    run("rmsnorm", "rmsnorm_bwd", (M,), DX, DW, DY, X, W, rstd, np.int32(N), np.int32(N), np.int32(M), defines=SMALL)

    def loss(x):
        return (x / np.sqrt((x * x).mean(1, keepdims=True) + EPS) * W * DY.astype(np.float64)).sum()

    x0, h = X.astype(np.float64), 1e-6
    for i, j in [(0, 0), (1, 39), (1, 7)]:
        xp, xm = x0.copy(), x0.copy()
        xp[i, j] += h
        xm[i, j] -= h
        assert abs(float(DX[i, j]) - (loss(xp) - loss(xm)) / (2 * h)) < 2e-2 * max(1, abs(float(DX[i, j])))
