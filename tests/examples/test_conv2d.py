"""examples/conv2d.tri: implicit-GEMM conv2d (NCHW x KCRS -> NKPQ) with a host-built offset
look-up table, against a float64 numpy convolution, in the interpreter at ragged sizes."""
import numpy as np
import pytest

from example_helpers import EXAMPLES, assert_close, cdiv, poisoned, ragged_sizes, run

EXAMPLE = EXAMPLES / "conv2d.tri"

TM, TN, TK = 32, 16, 8
rng = np.random.default_rng(1)


def offset_table(C: int, R: int, S: int, lda_c: int, lda_h: int) -> np.ndarray:
    """AOFF[i] = offset(c, r, s) = c*lda_c + r*lda_h + s for i = (c, r, s) (no tile size in it)."""
    i = np.arange(C * R * S)
    c, r, s = i // (R * S), (i // S) % R, i % S
    return (c * lda_c + r * lda_h + s).astype(np.int32)


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


def conv2d_args(X, W, Y, stride, pad):
    """The kernel's arguments after the pointers (the table first): shapes and strides."""
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    P, Q = Y.shape[2:]
    (sh, sw), (ph, pw) = stride, pad
    return [offset_table(C, R, S, H * Wd, Wd), N * P * Q, K, C * R * S, H, Wd, R, S, P, Q, sh, sw, ph, pw,
            C * H * Wd, Wd, C * R * S, K * P * Q, P * Q, Q]


def conv2d(X, W, stride, pad, dtype_name="float", tiles=(TM, TN, TK)):
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Y = poisoned((N, K, P, Q), X.dtype)
    tm, tn, tk = tiles
    defines = dict(TYPE=dtype_name, TM=str(tm), TN=str(tn), TK=str(tk))
    run("conv2d", "conv2d", (cdiv(N * P * Q, tm), cdiv(K, tn)), X, W, Y, *conv2d_args(X, W, Y, stride, pad),
        defines=defines)
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


@pytest.mark.parametrize("splitk", [1, 3, 4, 40])
def test_conv2d_splitk(splitk):
    """The split-K path: conv2d_splitk at shares of the C*R*S = 180 reduction (23 slices of 8)
    that end anywhere, more instances than slices (40: some add nothing), and 1, adding into
    the zeroed channels-last workspace; then nhwc_to_nchw into Y (fp16 operands and Y)."""
    X = rng.standard_normal((2, 20, 7, 6)).astype(np.float16)
    W = (rng.standard_normal((19, 20, 3, 3)) / 8).astype(np.float16)
    stride, pad = (1, 2), (1, 1)
    N, _, H, Wd = X.shape
    K = W.shape[0]
    P, Q = (H + 2 * pad[0] - 3) // stride[0] + 1, (Wd + 2 * pad[1] - 3) // stride[1] + 1
    Y = poisoned((N, K, P, Q), np.float16)
    Ws = np.zeros(N * P * Q * K, np.float32)
    defines = dict(TYPE="half", TM=str(TM), TN=str(TN), TK=str(TK), SPLITK=str(splitk), TC="8", TP="16")
    run("conv2d", "conv2d_splitk", (cdiv(N * P * Q, TM), cdiv(K, TN), splitk), X, W, Ws,
        *conv2d_args(X, W, Y, stride, pad)[:-3], defines=defines)
    assert_close(Ws.reshape(N, P, Q, K).transpose(0, 3, 1, 2), reference(X, W, stride, pad), rtol=1e-3, atol=2e-3)
    run("conv2d", "nhwc_to_nchw", (cdiv(P * Q, 16), cdiv(K, 8), N), Y, Ws, K, P * Q, N, defines=defines)
    assert_close(Y, reference(X, W, stride, pad), rtol=2e-3, atol=2e-3)


def test_offset_table_addresses_every_tap():
    """AOFF[i] is the offset of tap (c, r, s) = unpack(i) from the top-left pixel."""
    C, R, S, H, W = 3, 3, 2, 7, 5
    x = np.arange(C * H * W).reshape(C, H, W)
    t = offset_table(C, R, S, H * W, W)
    for i in range(C * R * S):
        c, r, s = i // (R * S), i // S % R, i % S
        assert x.ravel()[t[i]] == x[c, r, s]


def test_the_tiles_the_cost_model_chooses():
    """No -D at all but TYPE: the tiles are the tunables' choice; still right at ragged sizes."""
    X = rng.standard_normal((2, 5, 9, 8)).astype(np.float16)
    W = (rng.standard_normal((20, 5, 3, 3)) / 4).astype(np.float16)
    from tritonc.driver import Compilation
    from tritonc.options import CompileOptions
    comp = Compilation(EXAMPLE, CompileOptions(defines={"TYPE": "half"}, arch="sm_80"))
    tun = comp.tunables
    Y = conv2d(X, W, (1, 1), (1, 1), "half", (tun["TM"], tun["TN"], tun["TK"]))
    assert_close(Y, reference(X, W, (1, 1), (1, 1)), rtol=1e-2, atol=2e-2)
