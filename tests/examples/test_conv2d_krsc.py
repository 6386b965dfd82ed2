"""examples/conv2d_krsc.tri: implicit-GEMM conv2d (NCHW x KRSC -> NKPQ), the reduction over
taps (r, s) and TK-wide channel blocks, against a float64 numpy convolution, in the interpreter
at ragged sizes: channel counts that are not a multiple of TK (a last block partly outside C),
taps in the padding, strides and filters of several shapes."""
import numpy as np
import pytest

from example_helpers import EXAMPLES, assert_close, cdiv, poisoned, ragged_sizes, run
from test_conv2d import reference

EXAMPLE = EXAMPLES / "conv2d_krsc.tri"

TM, TN, TK = 32, 16, 8
rng = np.random.default_rng(7)


def conv2d_krsc(X, W, stride, pad, dtype_name="float", tiles=(TM, TN, TK)):
    """Y for NCHW ``X`` and KCRS ``W`` (repacked here to KRSC, as the kernel takes it)."""
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    (sh, sw), (ph, pw) = stride, pad
    P, Q = (H + 2 * ph - R) // sh + 1, (Wd + 2 * pw - S) // sw + 1
    Wk = np.ascontiguousarray(W.transpose(0, 2, 3, 1))
    Y = poisoned((N, K, P, Q), X.dtype)
    tm, tn, tk = tiles
    defines = dict(TYPE=dtype_name, TM=str(tm), TN=str(tn), TK=str(tk))
    M = N * P * Q
    run("conv2d_krsc", "conv2d_krsc", (cdiv(M, tm), cdiv(K, tn)), X, Wk, Y, M, K, C, H, Wd, R, S, P, Q,
        sh, sw, ph, pw, C * H * Wd, H * Wd, R * S * C, K * P * Q, P * Q, Q, defines=defines)
    return Y


# (N, C, H, W, K) random; filter, stride and padding cycle through common configurations
SIZES = ragged_sizes(11, 4, [(1, 3), (2, 21), (5, 12), (5, 12), (3, 40)], [None, TK, None, None, TN])
CONFIGS = [((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (0, 1)), ((1, 1), (2, 2), (0, 0)), ((5, 5), (1, 2), (2, 2))]


def check_ragged(conv, size, config):
    """``conv(X, W, stride, pad)`` at one of :data:`SIZES` and :data:`CONFIGS` (float), against
    the float64 reference; the sizes leave a partial tile along M and a partial channel block
    at the tiles TM and TK (shared with test_conv2d_nchw.py)."""
    N, C, H, Wd, K = size
    (R, S), stride, pad = config
    X = rng.standard_normal((N, C, H, Wd)).astype(np.float32)
    W = rng.standard_normal((K, C, R, S)).astype(np.float32)
    Y = conv(X, W, stride, pad)
    assert (N * Y.shape[2] * Y.shape[3]) % TM and C % TK  # ragged M and channel blocks
    assert_close(Y, reference(X, W, stride, pad), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("size,config", list(zip(SIZES, CONFIGS)), ids=lambda v: str(v))
def test_conv2d_krsc_ragged(size, config):
    check_ragged(conv2d_krsc, size, config)


def check_half_5x5_stride2(conv):
    """``conv`` in half precision, a 5x5 filter at stride 2 over 3 channels."""
    X = rng.standard_normal((2, 3, 11, 10)).astype(np.float16)
    W = (rng.standard_normal((19, 3, 5, 5)) / 4).astype(np.float16)
    Y = conv(X, W, (2, 2), (2, 1), "half")
    assert_close(Y, reference(X, W, (2, 2), (2, 1)), rtol=1e-2, atol=2e-2)


def default_tunables(example) -> dict:
    """The tunables ``example`` gets with no -D but TYPE=half (sm_80)."""
    from tritonc.driver import Compilation
    from tritonc.options import CompileOptions
    return Compilation(example, CompileOptions(defines={"TYPE": "half"}, arch="sm_80")).tunables


def check_default_tiles(conv, tun):
    """``conv`` at the tiles of :func:`default_tunables` ``tun``, at ragged sizes."""
    X = rng.standard_normal((2, 20, 9, 8)).astype(np.float16)
    W = (rng.standard_normal((20, 20, 3, 3)) / 8).astype(np.float16)
    Y = conv(X, W, (1, 1), (1, 1), "half", (tun["TM"], tun["TN"], tun["TK"]))
    assert_close(Y, reference(X, W, (1, 1), (1, 1)), rtol=1e-2, atol=2e-2)


def test_conv2d_krsc_half_5x5_stride2():
    check_half_5x5_stride2(conv2d_krsc)


def test_the_tiles_the_cost_model_chooses():
    """No -D at all but TYPE: the tiles are the tunables' choice; still right at ragged sizes."""
    check_default_tiles(conv2d_krsc, default_tunables(EXAMPLE))
