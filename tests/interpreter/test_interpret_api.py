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
    tritonc.interpret(example("softmax.tri"), "softmax", (4,), Y, X, 700, 700, 700, 4)
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(1, keepdims=True), rtol=1e-6, atol=1e-9)


def test_matmul_example_with_tunables():
    M, N, K = 100, 70, 90
    lda, ldb = 96, 72  # leading dimensions keep the example's __multipleof(8) promises
    A = rng.standard_normal((M, lda)).astype(np.float16)
    B = rng.standard_normal((K, ldb)).astype(np.float16)
    C = np.zeros((M, ldb), np.float16)
    tritonc.interpret(example("matmul.tri"), "matmul", (2, 2), A, B, C, M, N, K, lda, ldb, ldb,
                      tunables={"TM": 64, "TN": 64, "TK": 32})
    ref = (A[:, :K].astype(np.float64) @ B[:, :N].astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(C[:, :N].astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_transpose_reduce_layernorm_examples():
    a = rng.standard_normal((50, 70)).astype(np.float32)
    out = np.zeros((70, 50), np.float32)
    tritonc.interpret(example("transpose.tri"), "transpose", (2, 3), out, a, 50, 70, 70, 50)
    assert (out == a.T).all()
    rows, cols = np.zeros(50, np.float32), np.zeros(70, np.float32)
    tritonc.interpret(example("reduce.tri"), "row_sum", (7,), rows, a, 50, 70, 70)
    tritonc.interpret(example("reduce.tri"), "col_sum", (1, 16), cols, a, 50, 70, 70)  # SPLIT = 16, cols zeroed
    np.testing.assert_allclose(rows, a.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cols, a.sum(0), rtol=1e-5, atol=1e-5)
    R, N = 3, 1500
    X = rng.standard_normal((R, N)).astype(np.float16)
    W, Bb = rng.standard_normal(N).astype(np.float16), rng.standard_normal(N).astype(np.float16)
    Y, mean, rstd = np.zeros_like(X), np.zeros(R, np.float32), np.zeros(R, np.float32)
    tritonc.interpret(example("layernorm.tri"), "layernorm", (R,), Y, X, W, Bb, mean, rstd, N, N, 1e-5, R)
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


# -- promises: tritonc.interpret checks __multipleof / __aligned as the launchers do ----------------

PROMISES = """
__global__ void k(float *X __aligned(16), half *H __multipleof(8), float *Out,
                  int lda __multipleof(8), int n) {
  int r[8] = 0 ... 8;
  *(Out + r) = *(X + r * lda) + (float) *(H + r) + n;
}"""


def promise_args(**change):
    args = {"X": np.ones(64, np.float32), "H": np.ones(8, np.float16), "Out": np.zeros(8, np.float32),
            "lda": 8, "n": 70}
    args.update(change)
    return list(args.values())


def test_arguments_that_keep_the_promises_run():
    args = promise_args(X=np.ones(80, np.float32)[16:])  # a view 64 bytes into its allocation
    tritonc.interpret(PROMISES, "k", 1, *args)
    assert (args[2] == 72).all()


def test_a_scalar_breaking_multipleof_is_refused():
    """The issue's case: lda = 70 despite __multipleof(8)."""
    with pytest.raises(InterpreterError, match=r"argument 3 \(%lda: i32\) of @k = 70 breaks its "
                                               r"__multipleof\(8\) promise; pass a multiple of 8"):
        tritonc.interpret(PROMISES, "k", 1, *promise_args(lda=70))


def test_a_misaligned_view_breaks_aligned():
    x = np.ones(80, np.float32)[1:]  # 4 bytes into its allocation
    with pytest.raises(InterpreterError, match=r"argument 0 \(%X: ptr<f32>\) of @k starts 4 bytes into its "
                                               r"allocation, which breaks its __aligned\(16\) promise"):
        tritonc.interpret(PROMISES, "k", 1, *promise_args(X=x))


def test_a_pointer_breaking_multipleof_is_refused_and_nothing_is_written():
    h = np.ones(16, np.float16)[2:]  # 4 bytes in: not a multiple of 8
    out = np.zeros(8, np.float32)
    with pytest.raises(InterpreterError, match=r"argument 1 \(%H: ptr<f16>\) of @k starts 4 bytes into its "
                                               r"allocation, which breaks its __multipleof\(8\) promise"):
        tritonc.interpret(PROMISES, "k", 1, *promise_args(H=h, Out=out))
    assert not out.any()


def test_null_pointers_and_unpromised_parameters_are_not_checked():
    src = """
__global__ void k(float *X __aligned(16), float *Out, int n) {
  *Out = n;  // X is never read
}"""
    out = np.zeros(4, np.float32)[1:]
    tritonc.interpret(src, "k", 1, None, out, 7)
    assert out[0] == 7


def test_run_function_checks_the_promises_of_the_ir_too():
    from tritonc.driver import compile_to_ttir
    from tritonc.interpreter import run_function

    module = compile_to_ttir(PROMISES)
    with pytest.raises(InterpreterError, match="breaks its __multipleof"):
        run_function(module, "k", 1, promise_args(lda=12))
