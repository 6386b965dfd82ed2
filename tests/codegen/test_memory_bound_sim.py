"""The memory-bound examples through the whole compiler (tt -> ttg -> LLVM) and the SIMT simulator
at small sizes, against float64 numpy: the grid-spanning column sums (fp32 atomics from several
program instances), the one-pass Welford statistics, the online max / sum-exp of cross-entropy
over a row many tiles wide, and batchnorm's split statistics. Small tiles fixed with -D and 4
warps, so the layouts replicate and wrap as they do at full size."""
from __future__ import annotations


import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel
from tritonc.tools.examples import EXAMPLES_DIR

rng = np.random.default_rng(1600)


def compiled(name: str, **defines):
    options = CompileOptions(defines={k: str(v) for k, v in defines.items()}, arch="sm_90", num_warps=4)
    return Compilation(EXAMPLES_DIR / f"{name}.tri", options).ttgir


def test_col_sum_split_atomics():
    M, N = 19, 37
    X = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros(N + 2, np.float32)
    run_kernel(compiled("reduce", BM=4, BN=16, SPLIT=2), "col_sum", (3, 2), [out, X, M, N, N])
    np.testing.assert_allclose(out[:N], X.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
    assert (out[N:] == 0).all()


def test_layernorm_welford_forward():
    M, N = 2, 75
    X = (rng.standard_normal((M, N)) + 20).astype(np.float16)
    W, B = rng.standard_normal(N).astype(np.float16), rng.standard_normal(N).astype(np.float16)
    Y, mean, rstd = np.zeros((M, N), np.float16), np.zeros(M, np.float32), np.zeros(M, np.float32)
    run_kernel(compiled("layernorm", BLOCK=32), "layernorm", (M,), [Y, X, W, B, mean, rstd, N, N, 1e-5, M])
    x = X.astype(np.float64)
    np.testing.assert_allclose(mean, x.mean(1), rtol=1e-5)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(x.var(1) + 1e-5), rtol=1e-3)
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * W + B
    np.testing.assert_allclose(Y.astype(np.float64), want, rtol=1e-2, atol=1e-2)


def test_cross_entropy_online_forward():
    rows, n = 2, 150
    X = (3 * rng.standard_normal((rows, n))).astype(np.float32)
    X[1, 140] = 25.0  # the row maximum in the last tile
    labels = np.array([149, 3], np.int64)
    loss, lse = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    run_kernel(compiled("cross_entropy", TILE=32), "forward", (rows,), [X, labels, loss, lse, n, rows])
    x = X.astype(np.float64)
    m = x.max(1)
    want = np.log(np.exp(x - m[:, None]).sum(1)) + m
    np.testing.assert_allclose(lse, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(loss, want - x[np.arange(rows), labels], rtol=1e-5, atol=1e-5)


def test_batchnorm_split_statistics():
    N, C, H, W = 3, 2, 5, 7
    split = 4
    X = (rng.standard_normal((N, C, H, W)) + 5).astype(np.float32)
    gamma, beta = rng.standard_normal(C).astype(np.float32), rng.standard_normal(C).astype(np.float32)
    rm, rv = np.zeros(C, np.float32), np.ones(C, np.float32)
    module = compiled("batchnorm", BN=2, BHW=16, SPLIT=split)
    part = np.full(3 * C * split, np.nan, np.float32)
    run_kernel(module, "batchnorm_stats", (C, split), [part, X, N, C, H * W, C * H * W])
    Y, mean, rstd = np.zeros_like(X), np.zeros(C, np.float32), np.zeros(C, np.float32)
    run_kernel(module, "batchnorm", (C, split),
               [Y, X, part, gamma, beta, mean, rstd, rm, rv, N, C, H * W, C * H * W, 1e-5, 0.1])
    x = X.astype(np.float64)
    mu, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(mean, mu, rtol=1e-5)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(var + 1e-5), rtol=1e-4)
    ch = (slice(None), None, None)
    np.testing.assert_allclose(Y, (x - mu[ch]) / np.sqrt(var[ch] + 1e-5) * gamma[ch] + beta[ch], rtol=1e-4, atol=1e-4)


def test_rmsnorm_backward_dw_and_softmax_backward():
    M, N = 9, 21
    X = rng.standard_normal((M, N)).astype(np.float16)
    DY = rng.standard_normal((M, N)).astype(np.float16)
    rstd = (1 / np.sqrt((X.astype(np.float64) ** 2).mean(1) + 1e-6)).astype(np.float32)
    W = rng.standard_normal(N).astype(np.float16)
    want = (DY.astype(np.float64) * X * rstd[:, None]).sum(0)
    x, g = X.astype(np.float64), W.astype(np.float64) * DY
    r = rstd.astype(np.float64)[:, None]
    want_dx = r * g - x * r ** 3 * (g * x).mean(1, keepdims=True)
    # one pass (N <= BLOCK: 3 program instances take the 9 rows in turn) and the tiled path
    for block, grid in ((32, 3), (16, 4)):
        dw, dx = np.zeros(N, np.float32), np.zeros((M, N), np.float16)
        run_kernel(compiled("rmsnorm", BLOCK=block, G=grid), "rmsnorm_bwd", (grid,), [dx, dw, DY, X, W, rstd, N, N, M])
        np.testing.assert_allclose(dw, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(dx, want_dx, rtol=1e-2, atol=1e-2)
    Y = rng.random((3, 45)).astype(np.float32)
    D = rng.standard_normal((3, 45)).astype(np.float32)
    DX = np.zeros_like(Y)
    run_kernel(compiled("softmax_bwd", BLOCK=32), "softmax_bwd", (3,), [DX, Y, D, 45, 45, 45, 45, 3])
    y, d = Y.astype(np.float64), D.astype(np.float64)
    np.testing.assert_allclose(DX, y * (d - (y * d).sum(1, keepdims=True)), rtol=1e-5, atol=1e-5)
