"""examples/splitk_matmul.tri: split-K matmul adding fp32 partial tiles with atomic_add into a
C the caller zeroed, with the in-source GROUP_M swizzle, against float64 numpy at ragged sizes;
random interleavings of the program instances (order_seed) change the order of the adds."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, round_up, run

TM, TN, TK, GROUP_M = 16, 16, 8, 2
rng = np.random.default_rng(4)


def padded(rows, cols, dtype):
    """A [rows, cols] matrix inside a [rows, round_up(cols, 8)] buffer (the ld promises)."""
    buf = poisoned((rows, round_up(cols, 8)), dtype)
    buf[:, :cols] = rng.standard_normal((rows, cols)).astype(dtype)
    return buf


def splitk(A, B, M, N, K, splitk, type_name="float", seed=None):
    """Runs the kernel on the grid its ``__grid`` declares, C zeroed first (the caller's duty);
    the padding columns of C are poisoned: nothing may be added there."""
    grid = (cdiv(M, TM) * cdiv(N, TN), 1, splitk)
    C = poisoned((M, round_up(N, 8)), np.float32)
    C[:, :N] = 0
    defines = {"TYPE": type_name, "TM": str(TM), "TN": str(TN), "TK": str(TK), "SPLITK": str(splitk),
               "GROUP_M": str(GROUP_M)}
    run("splitk_matmul", "splitk_matmul", grid, A, B, C, M, N, K, A.shape[1], B.shape[1],
        C.shape[1], defines=defines, order_seed=seed)
    assert np.isnan(C[:, N:]).all(), "wrote outside C"
    return C[:, :N]


@pytest.mark.parametrize("M,N,K,seed", [s + (i,) for i, s in enumerate(
    ragged_sizes(40, 3, [(3, 70), (3, 50), (9, 90)], [TM, TN, TK]))])
def test_splitk_ragged(M, N, K, seed):
    A, B = padded(M, K, np.float32), padded(K, N, np.float32)
    C = splitk(A, B, M, N, K, 3, seed=seed)
    assert_close(C, A[:, :K].astype(np.float64) @ B[:, :N], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("splitk_", [1, 4])
def test_splitk_half(splitk_):
    M, N, K = 35, 21, 50
    A, B = padded(M, K, np.float16), padded(K, N, np.float16)
    C = splitk(A, B, M, N, K, splitk_, "half", seed=7)
    assert_close(C, A[:, :K].astype(np.float64) @ B[:, :N].astype(np.float64), rtol=2e-2, atol=3e-2)


def test_output_must_be_zeroed_by_the_caller():
    """The kernel adds to C: a C that is not zeroed keeps its old contents under the product."""
    M, N, K = 20, 16, 24
    A, B = padded(M, K, np.float32), padded(K, N, np.float32)
    C = np.full((M, 16), 1.0, np.float32)
    defines = {"TYPE": "float", "TM": str(TM), "TN": str(TN), "TK": str(TK), "SPLITK": "2", "GROUP_M": str(GROUP_M)}
    run("splitk_matmul", "splitk_matmul", (cdiv(M, TM) * cdiv(N, TN), 1, 2), A, B, C, M, N, K, A.shape[1],
        B.shape[1], 16, defines=defines)
    assert_close(C, 1.0 + A[:, :K].astype(np.float64) @ B[:, :N], rtol=1e-5, atol=1e-4)


def test_more_slices_than_reduction_steps():
    """K = 9 with TK = 8 and SPLITK = 4: two slices have an empty range and add zeros."""
    M, N, K = 17, 9, 9
    A, B = padded(M, K, np.float32), padded(K, N, np.float32)
    C = splitk(A, B, M, N, K, 4, seed=3)
    assert_close(C, A[:, :K].astype(np.float64) @ B[:, :N], rtol=1e-5, atol=1e-5)


def test_swizzle_covers_every_tile_once():
    """The GROUP_M program-id swizzle is a permutation of the output tiles (numpy model)."""
    for gm, gn in [(1, 1), (5, 3), (7, 9), (2, 11)]:
        seen = set()
        for pid in range(gm * gn):
            width = GROUP_M * gn
            group = pid // width
            size = min(gm - group * GROUP_M, GROUP_M)
            seen.add((group * GROUP_M + pid % size, pid % width // size))
        assert seen == {(m, n) for m in range(gm) for n in range(gn)}
