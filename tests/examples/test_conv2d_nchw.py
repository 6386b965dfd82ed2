"""examples/conv2d_nchw.tri: NCHW conv2d as two launches (the input transposed to NHWC by
``nchw_to_nhwc``, then the channels-last implicit GEMM writing NKPQ), against a float64 numpy
convolution, in the interpreter at ragged sizes: channel counts that are not a multiple of TK
or of the transpose's tile, images whose pixel count is not a multiple of its tile, taps in
the padding, strides and filters of several shapes."""
import numpy as np
import pytest

from example_helpers import EXAMPLES, assert_close, cdiv, poisoned, run
from test_conv2d import reference
from test_conv2d_krsc import (CONFIGS, SIZES, TK, TM, TN, check_default_tiles, check_half_5x5_stride2,
                              check_ragged, default_tunables)

EXAMPLE = EXAMPLES / "conv2d_nchw.tri"

TC, TP = 8, 16  # the transpose's tile (TM, TN, TK: test_conv2d_krsc.py's)
rng = np.random.default_rng(11)


def to_nhwc(X, dtype_name="float", tiles=(TC, TP)):
    """``nchw_to_nhwc`` on ``X`` [N, C, H, W]: the channels-last copy [N, H, W, C]."""
    N, C, H, Wd = X.shape
    tc, tp = tiles
    Xt = poisoned((N, H, Wd, C), X.dtype)
    run("conv2d_nchw", "nchw_to_nhwc", (cdiv(H * Wd, tp), cdiv(C, tc), N), Xt, X, C, H * Wd, N,
        defines=dict(TYPE=dtype_name, TC=str(tc), TP=str(tp)))
    return Xt


def conv2d_nchw(X, W, stride, pad, dtype_name="float", tiles=(TM, TN, TK)):
    """Y [N, K, P, Q] for NCHW ``X`` and KCRS ``W`` (repacked here to KRSC, as the kernel
    takes it), through both kernels."""
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Xt = to_nhwc(X, dtype_name)
    Wk = np.ascontiguousarray(W.transpose(0, 2, 3, 1))
    Y = poisoned((N, K, P, Q), X.dtype)
    tm, tn, tk = tiles
    M = N * P * Q
    run("conv2d_nchw", "conv2d_nchw", (cdiv(M, tm), cdiv(K, tn)), Xt, Wk, Y, M, K, C, H, Wd, R, S, P, Q,
        sh, sw, ph, pw, P * Q, defines=dict(TYPE=dtype_name, TM=str(tm), TN=str(tn), TK=str(tk)))
    return Y


def conv2d_nchw_splitk(X, W, stride, pad, splitk, dtype_name="float", tiles=(TM, TN, TK)):
    """As :func:`conv2d_nchw` through the split-K path's three launches: ``nchw_to_nhwc_zero``
    (X transposed, the float workspace Ws zeroed: it starts poisoned here), ``conv2d_nchw_splitk``
    (partial tiles added into Ws, channels-last) and ``nhwc_to_nchw`` (Ws into NCHW Y)."""
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    M = N * P * Q
    Xt = poisoned((N, H, Wd, C), X.dtype)
    Ws = poisoned(M * K + 5, np.float32)  # 5 more floats: the zeroing stops at M*K
    defines = dict(TYPE=dtype_name, TC=str(TC), TP=str(TP))
    run("conv2d_nchw", "nchw_to_nhwc_zero", (cdiv(H * Wd, TP), cdiv(C, TC), N), Xt, X, C, H * Wd, N, Ws, M * K,
        defines=defines)
    np.testing.assert_array_equal(Xt, X.transpose(0, 2, 3, 1))
    assert (Ws[:M * K] == 0).all() and np.isnan(Ws[M * K:]).all()
    Wk = np.ascontiguousarray(W.transpose(0, 2, 3, 1))
    tm, tn, tk = tiles
    run("conv2d_nchw", "conv2d_nchw_splitk", (cdiv(M, tm), cdiv(K, tn), splitk), Xt, Wk, Ws, M, K, C, H, Wd, R, S,
        P, Q, sh, sw, ph, pw, defines=dict(TYPE=dtype_name, TM=str(tm), TN=str(tn), TK=str(tk), SPLITK=str(splitk)))
    Y = poisoned((N, K, P, Q), X.dtype)
    run("conv2d_nchw", "nhwc_to_nchw", (cdiv(P * Q, TP), cdiv(K, TC), N), Y, Ws, K, P * Q, N, defines=defines)
    return Y


@pytest.mark.parametrize("size,config", list(zip(SIZES, CONFIGS)), ids=lambda v: str(v))
def test_conv2d_nchw_ragged(size, config):
    """The sizes and configurations of test_conv2d_krsc.py, through both launches."""
    check_ragged(conv2d_nchw, size, config)


@pytest.mark.parametrize("splitk", [1, 3, 4])
def test_conv2d_nchw_splitk(splitk):
    """Split-K shares at 3 (steps not a multiple of it: a short last share) and 4, the 7 x 7
    output of a stride-2 layer (P*Q = 49) and a 4 x 4 one, K not a multiple of the transposes'
    tile (5, 9), in float and half (Y rounded from the float workspace)."""
    for (N, C, H, K) in [(2, 7, 13, 5), (3, 8, 8, 9)]:
        X = rng.standard_normal((N, C, H, H)).astype(np.float32)
        W = rng.standard_normal((K, C, 3, 3)).astype(np.float32)
        Y = conv2d_nchw_splitk(X, W, (2, 2), (1, 1), splitk)
        assert_close(Y, reference(X, W, (2, 2), (1, 1)), rtol=1e-5, atol=1e-4)
        Xh, Wh = X.astype(np.float16), W.astype(np.float16)
        Yh = conv2d_nchw_splitk(Xh, Wh, (2, 2), (1, 1), splitk, "half")
        assert Yh.dtype == np.float16
        assert_close(Yh, reference(Xh.astype(np.float32), Wh.astype(np.float32), (2, 2), (1, 1)), rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("shape", [(2, 5, 7, 3), (1, 16, 4, 8), (3, 9, 6, 5)])
def test_nchw_to_nhwc(shape):
    X = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(to_nhwc(X), X.transpose(0, 2, 3, 1))


def test_conv2d_nchw_half_5x5_stride2():
    check_half_5x5_stride2(conv2d_nchw)


def test_the_tiles_the_cost_model_chooses():
    """No -D at all but TYPE: the tiles are the tunables' choice; still right at ragged sizes."""
    tun = default_tunables(EXAMPLE)
    X = rng.standard_normal((2, 20, 9, 8)).astype(np.float16)
    np.testing.assert_array_equal(to_nhwc(X, "half", (tun["TC"], tun["TP"])), X.transpose(0, 2, 3, 1))
    check_default_tiles(conv2d_nchw, tun)
