"""examples/dropout.tri: fused dropout in the interpreter against numpy, at ragged sizes: the
keep mask is exactly ``rand(seed, offset) > p`` with OpenAI Triton's ``tl.rand`` (Philox4x32-10
word 0, key = the seed's two words, counter = the offset; ``uint_to_uniform_float``), kept
elements are ``x / (1 - p)``, nothing past N is written, and the same seed gives the same mask."""
import numpy as np
import pytest

from example_helpers import cdiv, poisoned, run
from tritonc.interpreter.numerics import philox4x32

BLOCK = 128
DEFINES = {"BLOCK": str(BLOCK)}
rng = np.random.default_rng(16)


def tl_rand(seed: int, offsets: np.ndarray) -> np.ndarray:
    """Triton's ``tl.rand(seed, offsets)`` in numpy (word 0 of Philox4x32-10, folded to [0, 1))."""
    s = seed & (2 ** 64 - 1)
    w = philox4x32(offsets.astype(np.uint32), 0, 0, 0, s & 0xFFFFFFFF, s >> 32)[0].view(np.int32)
    return np.where(w < 0, -w - 1, w).astype(np.float32) * np.float32(4.6566127342e-10)


@pytest.mark.parametrize("n,p,seed", [(1000, 0.5, 1234), (77, 0.1, -3), (4099, 0.9, 0x1234_5678_9ABC),
                                      (128, 0.0, 7)])
def test_dropout(n, p, seed):
    X = rng.standard_normal(n + 5).astype(np.float32)
    Y = poisoned(n + 5, np.float32)
    run("dropout", "dropout", (cdiv(n, BLOCK),), Y, X, np.int32(n), np.float32(p), np.int64(seed), defines=DEFINES)
    keep = tl_rand(seed, np.arange(n)) > np.float32(p)
    want = np.where(keep, X[:n] / (np.float32(1) - np.float32(p)), np.float32(0))
    assert np.array_equal(Y[:n] == 0, ~keep | (X[:n] == 0)), "the dropped elements"
    np.testing.assert_allclose(Y[:n], want, rtol=1e-6, atol=0)
    assert np.isnan(Y[n:]).all(), "wrote past N"
    if 0 < p < 1 and n >= 1000:
        assert abs(keep.mean() - (1 - p)) < 4 * np.sqrt(p * (1 - p) / n)


def test_same_seed_same_mask_other_seed_other_mask():
    n = 512
    X = np.ones(n, np.float32)
    outs = []
    for seed in (99, 99, 100):
        Y = poisoned(n, np.float32)
        run("dropout", "dropout", (cdiv(n, BLOCK),), Y, X, np.int32(n), np.float32(0.5), np.int64(seed),
            defines=DEFINES)
        outs.append(Y)
    assert np.array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], outs[2])
