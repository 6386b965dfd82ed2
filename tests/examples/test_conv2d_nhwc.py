"""examples/conv2d_nhwc.tri: implicit-GEMM conv2d on channels-last tensors (NHWC x KRSC -> NPQK),
against a float64 numpy convolution, in the interpreter: ragged pixel counts, channel counts
that are not a multiple of TK (the last slice of each tap masked), padding and strides; and
the split-K kernel at several splits."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, run

TM, TN, TK = 32, 16, 8
rng = np.random.default_rng(2)


def reference(X, W, stride, pad):
    """Y[n, p, q, k] for X [N, H, W, C] and W [K, R, S, C], float64."""
    N, H, Wd, C = X.shape
    K, R, S, _ = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Xp = np.pad(X.astype(np.float64), ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    Y = np.zeros((N, P, Q, K))
    for r in range(R):
        for s in range(S):
            patch = Xp[:, r:r + sh * (P - 1) + 1:sh, s:s + sw * (Q - 1) + 1:sw, :]
            Y += np.einsum("nhwc,kc->nhwk", patch, W[:, r, s, :].astype(np.float64))
    return Y


def conv2d_nhwc(X, W, stride, pad, dtype_name="float", tiles=(TM, TN, TK), splitk=None):
    """Y through conv2d_nhwc, or through conv2d_nhwc_splitk with ``splitk`` program instances a
    tile (float Y, zeroed first as the kernel asks of its caller)."""
    N, H, Wd, C = X.shape
    K, R, S, _ = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    tm, tn, tk = tiles
    defines = dict(TYPE=dtype_name, TM=str(tm), TN=str(tn), TK=str(tk))
    M = N * P * Q
    if splitk is None:
        Y = poisoned((N, P, Q, K), X.dtype)
        run("conv2d_nhwc", "conv2d_nhwc", (cdiv(M, tm), cdiv(K, tn)), X, W, Y,
            M, K, C, H, Wd, R, S, P, Q, sh, sw, ph, pw, defines=defines)
    else:
        Y = np.zeros((N, P, Q, K), np.float32)
        run("conv2d_nhwc", "conv2d_nhwc_splitk", (cdiv(M, tm), cdiv(K, tn), splitk), X, W, Y,
            M, K, C, H, Wd, R, S, P, Q, sh, sw, ph, pw, defines={**defines, "SPLITK": str(splitk)})
    return Y


# (N, H, W, C, K) random, C and K not multiples of the tiles; filter, stride and padding cycle
SIZES = ragged_sizes(11, 3, [(1, 3), (2, 7), (5, 12), (3, 21), (3, 40)], [None, None, None, TK, TN])
CONFIGS = [((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (0, 1)), ((1, 1), (2, 2), (0, 0))]


@pytest.mark.parametrize("size,config", list(zip(SIZES, CONFIGS)), ids=lambda v: str(v))
def test_conv2d_nhwc_ragged(size, config):
    N, H, Wd, C, K = size
    (R, S), stride, pad = config
    X = rng.standard_normal((N, H, Wd, C)).astype(np.float32)
    W = rng.standard_normal((K, R, S, C)).astype(np.float32)
    Y = conv2d_nhwc(X, W, stride, pad)
    assert (N * Y.shape[1] * Y.shape[2]) % TM and C % TK  # ragged M and channel slices
    assert_close(Y, reference(X, W, stride, pad), rtol=1e-5, atol=1e-4)


def test_conv2d_nhwc_half_5x5_stride2_channel_multiple():
    """C a multiple of TK (no masked slice), a 5x5 filter, stride 2, uneven padding, fp16."""
    X = rng.standard_normal((2, 11, 10, 16)).astype(np.float16)
    W = (rng.standard_normal((19, 5, 5, 16)) / 8).astype(np.float16)
    Y = conv2d_nhwc(X, W, (2, 2), (2, 1), "half")
    assert_close(Y, reference(X, W, (2, 2), (2, 1)), rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("splitk", [1, 3, 4, 40])
def test_conv2d_nhwc_splitk(splitk):
    """Split-K at shares that cut taps and channel slices anywhere (3x3 taps, C = 20 in slices
    of 8: 27 steps), more instances than steps (40: some add nothing), and 1; fp16 operands,
    float Y."""
    X = rng.standard_normal((2, 7, 6, 20)).astype(np.float16)
    W = (rng.standard_normal((19, 3, 3, 20)) / 8).astype(np.float16)
    Y = conv2d_nhwc(X, W, (1, 2), (1, 1), "half", splitk=splitk)
    assert Y.dtype == np.float32
    assert_close(Y, reference(X, W, (1, 2), (1, 1)), rtol=1e-3, atol=2e-3)
