"""``tritonc.interpret``: Triton-C source through the driver into the interpreter; the example
kernels against plain numpy; source locations in interpreter errors."""
from pathlib import Path

import numpy as np
import pytest

import tritonc
from tritonc.interpreter import InterpreterError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
rng = np.random.default_rng(0)


def example(name: str) -> Path:
    path = EXAMPLES / name
    if not path.exists():
        pytest.skip(f"{name} is not in examples/")
    return path


def test_vector_add_and_softmax_examples():
    n = 3000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    tritonc.interpret(example("vector_add.tri"), "vector_add", (3,), z, x, y, n)
    assert (z == x + y).all()
    X = rng.standard_normal((4, 700)).astype(np.float32)
    Y = np.zeros_like(X)
    tritonc.interpret(example("softmax.tri"), "softmax", (4,), Y, X, 700, 700, 700)
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(1, keepdims=True), rtol=1e-6, atol=1e-9)


def test_matmul_example_with_tunables():
    M, N, K = 100, 70, 90
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float16)
    tritonc.interpret(example("matmul.tri"), "matmul", (2, 2), A, B, C, M, N, K, K, N, N,
                      tunables={"TM": 64, "TN": 64, "TK": 32})
    ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(C.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_transpose_reduce_layernorm_examples():
    a = rng.standard_normal((50, 70)).astype(np.float32)
    out = np.zeros((70, 50), np.float32)
    tritonc.interpret(example("transpose.tri"), "transpose", (2, 3), out, a, 50, 70, 70, 50)
    assert (out == a.T).all()
    rows, cols = np.zeros(50, np.float32), np.zeros(70, np.float32)
    tritonc.interpret(example("reduce.tri"), "row_sum", (7,), rows, a, 50, 70, 70)
    tritonc.interpret(example("reduce.tri"), "col_sum", (1,), cols, a, 50, 70, 70)
    np.testing.assert_allclose(rows, a.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cols, a.sum(0), rtol=1e-5, atol=1e-5)
    R, N = 3, 1500
    X = rng.standard_normal((R, N)).astype(np.float16)
    W, Bb = rng.standard_normal(N).astype(np.float16), rng.standard_normal(N).astype(np.float16)
    Y, mean, rstd = np.zeros_like(X), np.zeros(R, np.float32), np.zeros(R, np.float32)
    tritonc.interpret(example("layernorm.tri"), "layernorm", (R,), Y, X, W, Bb, mean, rstd, N, N, 1e-5)
    x = X.astype(np.float64)
    m = x.mean(1)
    r = 1 / np.sqrt(((x - m[:, None]) ** 2).mean(1) + 1e-5)
    np.testing.assert_allclose(mean, m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, r, rtol=1e-5)
    np.testing.assert_allclose(Y.astype(np.float32), (x - m[:, None]) * r[:, None] * W + Bb, rtol=5e-3, atol=5e-3)


SPIN = """__global__ void accumulate(int *lock, float *out, float *x) {
  int pid = get_program_id(0);
  while (atomic_cas(lock, 0, 1) == 1);
  *out = *out + *(x + pid);
  atomic_xchg(lock, 0);
}
"""


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_source_spin_lock(seed):
    x, out, lock = np.arange(8, dtype=np.float32), np.zeros(1, np.float32), np.zeros(1, np.int32)
    tritonc.interpret(SPIN, None, 8, lock, out, x, order_seed=seed)  # kernel=None: the only kernel
    assert out[0] == 28 and lock[0] == 0


def test_out_of_bounds_error_points_at_the_source():
    src = """__global__ void fill(float *X, int N) {
  int offs[16] = get_program_id(0) * 16 + 0 ... 16;
  *(X + offs) = 1.0f;
}
"""
    with pytest.raises(InterpreterError, match=r"tt.store at \S+:3:\d+ in program \(1\): element \[4\]: out-of-bounds"):
        tritonc.interpret(src, "fill", (2,), np.zeros(20, np.float32), 20)
