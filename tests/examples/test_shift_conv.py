"""examples/shift_conv.tri: fused shift + 1x1 convolution (per-channel (dh, dw) shifts with
zero fill), against float64 numpy at ragged sizes."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, run

TM, TN, TK = 32, 16, 8
rng = np.random.default_rng(9)


def reference(X, W, dh, dw):
    N, C, H, Wd = X.shape
    S = np.zeros((N, C, H, Wd))
    for c in range(C):
        src_h = slice(max(dh[c], 0), H + min(dh[c], 0))
        dst_h = slice(max(-dh[c], 0), H + min(-dh[c], 0))
        src_w = slice(max(dw[c], 0), Wd + min(dw[c], 0))
        dst_w = slice(max(-dw[c], 0), Wd + min(-dw[c], 0))
        S[:, c, dst_h, dst_w] = X[:, c, src_h, src_w]  # S[h, w] = X[h + dh, w + dw]
    return np.einsum("nchw,kc->nkhw", S, W.astype(np.float64))


def shift_conv(X, W, dh, dw, type_name="float"):
    N, C, H, Wd = X.shape
    K = W.shape[0]
    Y = poisoned((N, K, H, Wd), X.dtype)
    M = N * H * Wd
    run("shift_conv", "shift_conv", (cdiv(M, TM), cdiv(K, TN)), X, W, Y, dh, dw, M, K, C, H, Wd,
        C * H * Wd, H * Wd, C, K * H * Wd, H * Wd,
        defines={"TYPE": type_name, "TM": str(TM), "TN": str(TN), "TK": str(TK)})
    return Y


@pytest.mark.parametrize("N,C,H,W,K", ragged_sizes(90, 3, [(1, 3), (2, 20), (2, 9), (2, 9), (2, 40)],
                                                    [None, TK, None, None, TN]))
def test_shift_conv_ragged(N, C, H, W, K):
    X = rng.standard_normal((N, C, H, W)).astype(np.float32)
    Wt = rng.standard_normal((K, C)).astype(np.float32)
    dh = rng.integers(-2, 3, C).astype(np.int32)
    dw = rng.integers(-2, 3, C).astype(np.int32)
    assert_close(shift_conv(X, Wt, dh, dw), reference(X, Wt, dh, dw), rtol=1e-5, atol=1e-4)


def test_shift_conv_half_3x3_shift_pattern():
    """The usual 3x3 shift pattern: the channels split into 9 groups, one per (dh, dw)."""
    C = 18
    groups = [(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)]
    dh = np.array([groups[c * 9 // C][0] for c in range(C)], np.int32)
    dw = np.array([groups[c * 9 // C][1] for c in range(C)], np.int32)
    X = rng.standard_normal((2, C, 6, 7)).astype(np.float16)
    Wt = (rng.standard_normal((20, C)) / 3).astype(np.float16)
    assert_close(shift_conv(X, Wt, dh, dw, "half"), reference(X, Wt, dh, dw), rtol=1e-2, atol=1e-2)


def test_zero_shift_is_a_1x1_convolution():
    X = rng.standard_normal((1, 5, 3, 4)).astype(np.float32)
    Wt = rng.standard_normal((3, 5)).astype(np.float32)
    zero = np.zeros(5, np.int32)
    assert_close(shift_conv(X, Wt, zero, zero), np.einsum("nchw,kc->nkhw", X, Wt), rtol=1e-5, atol=1e-5)
