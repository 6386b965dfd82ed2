"""examples/bmm.tri: batched matrix product with 3-D tiles and a batched `@`, against float64
numpy, at ragged sizes (batch, rows, columns and reduction all ragged)."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, run

TM, TN, TK, TB = 16, 16, 8, 2
DEFINES = {"TM": str(TM), "TN": str(TN), "TK": str(TK), "TB": str(TB)}
rng = np.random.default_rng(3)


def bmm(A, B, type_name="float"):
    batch, M, K = A.shape
    N = B.shape[2]
    C = poisoned((batch, M, N), A.dtype)
    run("bmm", "bmm", (cdiv(M, TM), cdiv(N, TN), cdiv(batch, TB)), A, B, C, M, N, K, batch,
        A.strides[0] // A.itemsize, A.strides[1] // A.itemsize, B.strides[0] // B.itemsize,
        B.strides[1] // B.itemsize, C.strides[0] // C.itemsize, C.strides[1] // C.itemsize,
        defines=dict(DEFINES, TYPE=type_name))
    return C


@pytest.mark.parametrize("batch,M,N,K", ragged_sizes(30, 3, [(1, 5), (3, 40), (3, 40), (3, 30)], [TB, TM, TN, TK]))
def test_bmm_ragged(batch, M, N, K):
    A = rng.standard_normal((batch, M, K)).astype(np.float32)
    B = rng.standard_normal((batch, K, N)).astype(np.float32)
    assert_close(bmm(A, B), A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)


def test_bmm_half():
    A = rng.standard_normal((3, 20, 37)).astype(np.float16)
    B = rng.standard_normal((3, 37, 9)).astype(np.float16)
    want = A.astype(np.float64) @ B.astype(np.float64)
    assert_close(bmm(A, B, "half"), want, rtol=1e-2, atol=1e-2)


def test_bmm_batches_do_not_mix():
    """Batch b of C depends on batch b of A and B only (the batch axis is not reduced)."""
    A = np.zeros((3, 5, 4), np.float32)
    B = np.zeros((3, 4, 6), np.float32)
    A[1] = 1
    B[1] = 2
    B[2] = 5
    C = bmm(A, B)
    assert (C[0] == 0).all() and (C[1] == 8).all() and (C[2] == 0).all()
