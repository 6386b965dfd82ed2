"""examples/batchnorm.tri: training-mode batch norm forward over NCHW (output, saved mean and
rstd, running statistics), against float64 numpy at ragged sizes: the statistics kernel
(Welford per lane, partial statistics per program instance of the C x SPLIT grid) then the
normalising kernel (which combines the SPLIT partials), at several split factors."""
import numpy as np
import pytest

from example_helpers import assert_close, poisoned, ragged_sizes, run

BN, BHW, SPLIT = 4, 32, 4
EPS, MOMENTUM = 1e-5, 0.1
rng = np.random.default_rng(6)


def reference(X, gamma, beta, run_mean, run_var):
    x = X.astype(np.float64)
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    rstd = 1 / np.sqrt(var + EPS)
    c = (slice(None), None, None)
    y = (x - mean[c]) * rstd[c] * gamma[c] + beta[c]
    count = x.size // x.shape[1]
    unbiased = var * count / (count - 1) if count > 1 else var
    return y, mean, rstd, (1 - MOMENTUM) * run_mean + MOMENTUM * mean, (1 - MOMENTUM) * run_var + MOMENTUM * unbiased


def batchnorm(X, gamma, beta, run_mean, run_var, type_name="float", split=SPLIT, order_seed=None):
    N, C, H, W = X.shape
    Y = poisoned(X.shape, X.dtype)
    mean, rstd = poisoned((C,), np.float32), poisoned((C,), np.float32)
    rm, rv = run_mean.copy(), run_var.copy()
    part = poisoned((3, C, split), np.float32)  # the workspace: every element is written
    defines = {"TYPE": type_name, "BN": str(BN), "BHW": str(BHW), "SPLIT": str(split)}
    run("batchnorm", "batchnorm_stats", (C, split), part, X, N, C, H * W, C * H * W, defines=defines,
        order_seed=order_seed)
    assert np.isfinite(part).all(), "a partial statistic not written"
    run("batchnorm", "batchnorm", (C, split), Y, X, part, gamma, beta, mean, rstd, rm, rv, N, C, H * W, C * H * W,
        EPS, MOMENTUM, defines=defines, order_seed=order_seed)
    return Y, mean, rstd, rm, rv


def inputs(shape, dtype):
    C = shape[1]
    X = (2 * rng.standard_normal(shape) + rng.standard_normal((1, C, 1, 1))).astype(dtype)
    return (X, rng.standard_normal(C).astype(np.float32), rng.standard_normal(C).astype(np.float32),
            rng.standard_normal(C).astype(np.float32), rng.random(C).astype(np.float32))


@pytest.mark.parametrize("shape", ragged_sizes(60, 3, [(1, 9), (1, 6), (1, 9), (1, 9)], [BN, None, None, None]), ids=str)
def test_batchnorm_ragged(shape):
    args = inputs(shape, np.float32)
    got, want = batchnorm(*args), reference(*args)
    for g, w, what in zip(got, want, ("y", "save_mean", "save_rstd", "running_mean", "running_var")):
        assert_close(g, w, rtol=1e-4, atol=1e-4, what=what)


def test_batchnorm_half_large_spatial():
    args = inputs((3, 2, 13, 11), np.float16)  # H*W = 143: several BHW chunks, ragged
    got, want = batchnorm(*args, type_name="half"), reference(*args)
    assert_close(got[0], want[0], rtol=1e-2, atol=1e-2, what="y")
    for g, w in zip(got[1:], want[1:]):
        assert_close(g, w, rtol=1e-4, atol=1e-4)


def test_batchnorm_single_element_per_channel():
    """N*H*W = 1: variance 0, the running variance uses the biased estimate."""
    args = inputs((1, 3, 1, 1), np.float32)
    got, want = batchnorm(*args), reference(*args)
    assert_close(got[0], want[0], rtol=1e-6, atol=1e-6)  # x - mean = 0: y = beta exactly
    assert_close(got[4], want[4], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("split", [2, 8, 32])
def test_batchnorm_split_factors(split):
    """More instances per channel than tiles (32), fewer (2): the same statistics."""
    args = inputs((5, 3, 9, 7), np.float32)  # 2 x 2 tiles of 4 x 32 per channel
    got, want = batchnorm(*args, split=split, order_seed=split), reference(*args)
    for g, w, what in zip(got, want, ("y", "save_mean", "save_rstd", "running_mean", "running_var")):
        assert_close(g, w, rtol=1e-4, atol=1e-4, what=what)


def test_batchnorm_large_offset_welford():
    """A channel mean far from zero (1e4) with a unit spread: the one-pass statistics keep the
    variance (a float sum of squares minus the squared mean would lose it)."""
    X, gamma, beta, rm, rv = inputs((4, 2, 11, 13), np.float32)
    X = (X - X.mean((0, 2, 3), keepdims=True) + np.float32(1e4)).astype(np.float32)
    got, want = batchnorm(X, gamma, beta, rm, rv), reference(X, gamma, beta, rm, rv)
    assert_close(got[2], want[2], rtol=1e-3, atol=0, what="save_rstd")
    assert_close(got[0], want[0], rtol=1e-3, atol=2e-3, what="y")
