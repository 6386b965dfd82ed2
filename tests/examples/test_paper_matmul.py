"""examples/paper_matmul.tri: the paper-era (E0/E1) spelling of matmul: const tunable,
kernel void, prefix qualifiers, get_global_range, dot/trans, @mask statements. Against
float64 numpy at ragged sizes, with the tunables fixed three ways."""
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, ragged_sizes, round_up, run

rng = np.random.default_rng(8)


def operand(rows, cols):
    buf = np.zeros((rows, round_up(cols, 8)), np.float16)  # ld a multiple of 8 (multiple_of(8))
    buf[:, :cols] = rng.standard_normal((rows, cols))
    return buf


def paper_matmul(M, N, K, tm, tn, tk, **fix):
    A, B = operand(M, K), operand(N, K)
    C = poisoned((M, round_up(N, 8)), np.float32)
    run("paper_matmul", "paper_matmul", (cdiv(M, tm), cdiv(N, tn)), A, B, C, M, N, K, A.shape[1], B.shape[1],
        C.shape[1], **fix)
    assert np.isnan(C[:, N:]).all(), "wrote outside C"
    want = A[:, :K].astype(np.float64) @ B[:, :K].T.astype(np.float64)
    assert_close(C[:, :N], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M,N,K", ragged_sizes(80, 3, [(2, 70), (2, 70), (2, 50)], [32, 32, 16]))
def test_paper_matmul_ragged(M, N, K):
    paper_matmul(M, N, K, 32, 32, 16, tunables={"TM": 32, "TN": 32, "TK": 16})


def test_paper_matmul_tunables_by_define():
    """-D overrides a `const tunable` list."""
    paper_matmul(45, 20, 35, 16, 32, 8, defines={"TM": "16", "TN": "32", "TK": "8"})


def test_paper_matmul_first_candidates():
    """Without -D or --tune the first candidate of each list is compiled (64, 64, 16)."""
    paper_matmul(70, 65, 20, 64, 64, 16)
