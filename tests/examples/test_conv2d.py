"""examples/conv2d.tri: implicit-GEMM conv2d (NCHW x KCRS -> NKPQ) with a host-built delta
look-up table, against a float64 numpy convolution, in the interpreter at ragged sizes."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, run

TM, TN, TK = 32, 16, 8
rng = np.random.default_rng(1)


def delta_table(C: int, R: int, S: int, lda_c: int, lda_h: int, tk: int) -> np.ndarray:
    """ADELTA[i] = offset(i + TK) - offset(i), offset(c, r, s) = c*lda_c + r*lda_h + s."""
    i = np.arange(C * R * S)

    def unpack(j):
        return j // (R * S), (j // S) % R, j % S

    c, r, s = unpack(i)
    c2, r2, s2 = unpack(i + tk)
    return ((c2 - c) * lda_c + (r2 - r) * lda_h + (s2 - s)).astype(np.int32)


def reference(X, W, stride, pad):
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Xp = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    Y = np.zeros((N, K, P, Q))
    for r in range(R):
        for s in range(S):
            patch = Xp[:, :, r:r + sh * (P - 1) + 1:sh, s:s + sw * (Q - 1) + 1:sw]
            Y += np.einsum("nchw,kc->nkhw", patch, W[:, :, r, s].astype(np.float64))
    return Y


def conv2d(X, W, stride, pad, dtype_name="float"):
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Y = poisoned((N, K, P, Q), X.dtype)
    M, CRS = N * P * Q, C * R * S
    delta = delta_table(C, R, S, H * Wd, Wd, TK)
    defines = dict(TYPE=dtype_name, TM=str(TM), TN=str(TN), TK=str(TK),
                   HH=str(H), WW=str(Wd), RR=str(R), SS=str(S), PP=str(P), QQ=str(Q))
    run("conv2d", "conv2d", (cdiv(M, TM), cdiv(K, TN)), X, W, Y, delta, M, K, CRS, sh, sw, ph, pw,
        C * H * Wd, H * Wd, Wd, CRS, K * P * Q, P * Q, Q, defines=defines)
    return Y


# (N, C, H, W, K) random; filter, stride and padding cycle through common configurations
SIZES = ragged_sizes(10, 3, [(1, 3), (2, 7), (5, 12), (5, 12), (3, 40)], [None, None, None, None, TN])
CONFIGS = [((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (0, 1)), ((1, 1), (2, 2), (0, 0))]


@pytest.mark.parametrize("size,config", list(zip(SIZES, CONFIGS)), ids=lambda v: str(v))
def test_conv2d_ragged(size, config):
    N, C, H, Wd, K = size
    (R, S), stride, pad = config
    X = rng.standard_normal((N, C, H, Wd)).astype(np.float32)
    W = rng.standard_normal((K, C, R, S)).astype(np.float32)
    Y = conv2d(X, W, stride, pad)
    assert (N * Y.shape[2] * Y.shape[3]) % TM and (C * R * S) % TK  # ragged M and reduction
    assert_close(Y, reference(X, W, stride, pad), rtol=1e-5, atol=1e-4)


def test_conv2d_half_5x5_stride2():
    X = rng.standard_normal((2, 3, 11, 10)).astype(np.float16)
    W = (rng.standard_normal((19, 3, 5, 5)) / 4).astype(np.float16)
    Y = conv2d(X, W, (2, 2), (2, 1), "half")
    assert_close(Y, reference(X, W, (2, 2), (2, 1)), rtol=1e-2, atol=2e-2)


def test_delta_table_walks_the_reduction():
    """Summing the table from 0 in steps of TK gives the offset of every (c, r, s)."""
    C, R, S, H, W = 3, 3, 2, 7, 5
    d = delta_table(C, R, S, H * W, W, TK)
    for lane in range(TK):
        off, i = lane // (R * S) * H * W + lane // S % R * W + lane % S, lane
        while i < C * R * S:
            assert off == i // (R * S) * H * W + i // S % R * W + i % S
            off, i = off + d[i], i + TK
