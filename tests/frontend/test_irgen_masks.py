"""IR generation of ``?:`` with a tile condition: every memory access in a branch is masked by
the lanes that select that branch (``c`` for the true branch, ``!c`` for the false one, AND-ed
with any enclosing branch), however deeply it is nested in the branch.

The interpreter runs use arrays that end exactly where the in-bounds lanes end, so a load (or
store, or atomic) in a lane that the condition excludes would raise a memory fault.
"""
import numpy as np
import pytest

from fe_helpers import error_of, in_order, ir, ops_of, run
from tritonc.interpreter.errors import InterpreterError

f32, f16, i32 = np.float32, np.float16, np.int32
RNG = np.random.default_rng(7)
UNMASKED_LOAD = r"tt\.load %[a-z0-9_]+ :"   # a load without a mask operand


def randn(*shape, dtype=f32):
    return RNG.standard_normal(shape).astype(dtype)


def no_unmasked_load(text: str) -> None:
    import re
    assert not re.search(UNMASKED_LOAD, text), text


# ---------------------------------------------------------------------------------- the exact idiom

def test_exact_idiom_is_unchanged():
    text = ir("void k(float *p, float *o, int n) {\n  int r[16] = 0 ... 16;\n"
              "  *(o + r) = r < n ? *(p + r) : 1.0f;\n}\n")
    assert ops_of(text) == ["tt.make_range", "tt.splat", "tt.addptr", "tt.splat", "arith.cmpi", "tt.splat",
                            "tt.addptr", "arith.constant", "tt.load", "tt.store", "tt.return"]
    in_order(text, r"(%\d+) = arith.cmpi", r"tt.load %\d+, %\d+, %\d+ : f32\[16\]")


def test_select_builtin_does_not_mask():
    text = ir("void k(float *p, float *o, int n) {\n  int r[16] = 0 ... 16;\n"
              "  *(o + r) = select(r < n, *(p + r) * 2.0f, 1.0f);\n}\n")
    in_order(text, r"tt.load %\d+ : f32\[16\]", r"arith.select")


# ---------------------------------------------------------------------------------- nested loads

NESTED = """
__global__ void k(float *X, half *H, float *W, float *Y, int n) {
  int r[16] = 0 ... 16;
  bool c[16] = r < n;
  *(Y + r) = c ? BRANCH : 1.0f;
}
"""

NESTED_FORMS = {
    "scaled": ("*(X + r) * 2.0f", lambda X, H, W: X * 2),
    "tile_cast": ("(float[16]) *(H + r)", lambda X, H, W: H.astype(f32)),
    "element_cast": ("(float) *(H + r)", lambda X, H, W: H.astype(f32)),
    "two_loads": ("*(X + r) + *(W + r)", lambda X, H, W: X + W),
    "negated": ("-*(X + r)", lambda X, H, W: -X),
    "math": ("exp(*(X + r)) - 1.0f", lambda X, H, W: np.exp(X.astype(np.float64)) - 1),
    "masked_deref": ("*?(r > 0)(X + r) * 2.0f", lambda X, H, W: np.where(np.arange(len(X)) > 0, X * 2, np.nan)),
    "select_inside": ("select(r > 1, *(X + r), *(W + r))", lambda X, H, W: np.where(np.arange(len(X)) > 1, X, W)),
    "nested_select_kind": ("(r < 2 ? *(X + r) * 2.0f : *(W + r))",
                           lambda X, H, W: np.where(np.arange(len(X)) < 2, X * 2, W)),
}


@pytest.mark.parametrize("form", list(NESTED_FORMS))
def test_nested_load_is_masked(form):
    branch, ref = NESTED_FORMS[form]
    src = NESTED.replace("BRANCH", branch)
    text = ir(src)
    no_unmasked_load(text)
    n = 5
    X, H, W, Y = randn(n), randn(n, dtype=f16), randn(n), np.zeros(16, f32)
    run(src, "k", (1,), X, H, W, Y, n)
    want = ref(X, H, W).astype(f32)
    ok = ~np.isnan(want)
    np.testing.assert_allclose(Y[:n][ok], want[ok], rtol=1e-6)
    np.testing.assert_array_equal(Y[n:], 1.0)


def test_scaled_load_masks_with_the_condition():
    text = ir(NESTED.replace("BRANCH", "*(X + r) * 2.0f"))
    in_order(text, r"%c = arith.cmpi", r"tt.load %\d+, %c : f32\[16\]", r"arith.mulf",
             r"arith.select %c, %\d+, %\d+ : f32\[16\]")


def test_false_branch_masks_with_the_negated_condition():
    src = NESTED.replace("c ? BRANCH : 1.0f", "!c ? 1.0f : *(X + r) * 2.0f")
    text = ir(src)
    in_order(text, r"(%\d+) = arith.xori %c", r"(%\d+) = arith.xori", r"tt.load %\d+, %\d+ : f32\[16\]")
    X, Y = randn(5), np.zeros(16, f32)
    run(src, "k", (1,), X, randn(5, dtype=f16), randn(5), Y, 5)
    np.testing.assert_array_equal(Y, np.concatenate([X * 2, np.ones(11, f32)]))


def test_nested_conditions_and_the_masks():
    src = """
__global__ void k(float *X, float *Y, int n, int m) {
  int r[16] = 0 ... 16;
  *(Y + r) = r < n ? (r < m ? *(X + r) * 2.0f : 3.0f) : 4.0f;
  *(Y + 16 + r) = r < n ? (r < m ? *(X + r) : 3.0f) : 4.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    assert text.count("arith.andi") == 2   # inner condition AND outer one, for each load
    for n, m in ((4, 8), (8, 4)):
        X, Y = randn(min(n, m)), np.zeros(32, f32)
        run(src, "k", (1,), X, Y, n, m)
        k = min(n, m)
        row = np.concatenate([np.full(k, np.nan), np.full(max(n - k, 0), 3.0), np.full(16 - max(n, k), 4.0)])
        np.testing.assert_array_equal(Y[k:16], row[k:])
        np.testing.assert_array_equal(Y[:k], X * 2)
        np.testing.assert_array_equal(Y[16:16 + k], X)
        np.testing.assert_array_equal(Y[16 + k:], row[k:])


def test_scalar_pointer_load_is_masked_by_any_lane():
    src = """
__global__ void k(float *S, float *Y, int n) {
  int r[16] = 0 ... 16;
  *(Y + r) = r < n ? *S * 2.0f : 1.0f;
}
"""
    text = ir(src)
    in_order(text, r"(%\d+) = arith.cmpi", r"(%\d+) = tt.reduce %\d+ \{axis = 0, combine = \"ori\"\} : i1",
             r"tt.load %S, %\d+ : f32", r"arith.mulf %\d+, %\d+ : f32", r"tt.splat")
    Y = np.zeros(16, f32)
    run(src, "k", (1,), np.array([1.5], f32), Y, 3)
    np.testing.assert_array_equal(Y, [3.0] * 3 + [1.0] * 13)
    Y = np.zeros(16, f32)
    run(src, "k", (1,), None, Y, 0)   # no lane selects the branch: the null pointer is never read
    np.testing.assert_array_equal(Y, 1.0)


def test_scalar_condition_inside_a_tile_branch_stays_an_if():
    src = """
__global__ void k(float *X, float *Y, int n, int s) {
  int r[16] = 0 ... 16;
  *(Y + r) = r < n ? (s > 0 ? *(X + r) * 2.0f : 5.0f) : 1.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"scf.if", r"tt.load %\d+, %\d+ : f32\[16\]")
    X, Y = randn(4), np.zeros(16, f32)
    run(src, "k", (1,), X, Y, 4, 1)
    np.testing.assert_array_equal(Y, np.concatenate([X * 2, np.ones(12, f32)]))


def test_loads_in_the_pointer_of_a_load_are_masked():
    src = """
__global__ void k(float *X, int *I, float *Y, int n) {
  int r[16] = 0 ... 16;
  *(Y + r) = r < n ? *(X + *(I + r)) : 0.0f;
  *(Y + 16 + r) = r < n ? *(X + *(I + r)) * 2.0f : 0.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    X, I, Y = randn(6), np.array([5, 0, 3], i32), np.zeros(32, f32)
    run(src, "k", (1,), X, I, Y, 3)
    np.testing.assert_array_equal(Y[:3], X[I])
    np.testing.assert_array_equal(Y[16:19], X[I] * 2)
    assert not Y[3:16].any() and not Y[19:].any()


# ---------------------------------------------------------------------------------- lanes that move

def test_row_reduction_in_a_branch_masks_whole_rows():
    src = """
__global__ void k(float *X, float *Y, int M) {
  int rm[4] = 0 ... 4;
  int rn[8] = 0 ... 8;
  float *px[4, 8] = X + rm[:, newaxis] * 8 + rn[newaxis, :];
  *(Y + rm) = rm < M ? (*px)[:, +] : -1.0f;
  *(Y + 4 + rm) = rm < M ? __sum(*px * 2.0f, 1) : -1.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.expand_dims %\d+ \{axis = 1\} : i1\[4,1\]", r"tt.broadcast %\d+ : i1\[4,8\]",
             r"tt.load %px, %\d+ : f32\[4,8\]")
    X, Y = randn(2, 8), np.zeros(8, f32)
    run(src, "k", (1,), X, Y, 2)
    np.testing.assert_allclose(Y, np.concatenate([X.sum(1), [-1, -1], 2 * X.sum(1), [-1, -1]]), rtol=1e-5)


def test_transpose_in_a_branch_moves_the_mask():
    src = """
__global__ void k(float *X, float *Y, int M) {
  int r4[4] = 0 ... 4;
  int r8[8] = 0 ... 8;
  bool c[8, 4] = r4[newaxis, :] < M;
  float *px[4, 8] = X + r4[:, newaxis] * 8 + r8[newaxis, :];
  *(Y + r8[:, newaxis] * 4 + r4[newaxis, :]) = c ? ^*px : 0.0f;
  *(Y + 32 + r8[:, newaxis] * 4 + r4[newaxis, :]) = c ? (*px)[^1, ^0] * 1.0f : 0.0f;
  *(Y + 64 + r8[:, newaxis] * 4 + r4[newaxis, :]) = c ? trans(*px) : 0.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.trans %c \{order = \[1, 0\]\} : i1\[4,8\]", r"tt.load %px, %\d+ : f32\[4,8\]")
    X, Y = randn(2, 8), np.zeros(96, f32)
    run(src, "k", (1,), X, Y, 2)
    want = np.concatenate([X.T, np.zeros((8, 2), f32)], axis=1)
    for k in range(3):
        np.testing.assert_array_equal(Y[32 * k:32 * (k + 1)].reshape(8, 4), want)


def test_matrix_product_in_a_branch_masks_rows_and_columns():
    src = """
__global__ void k(float *A, float *B, float *C, int M, int N) {
  int r16[16] = 0 ... 16;
  bool c[16, 16] = r16[:, newaxis] < M && r16[newaxis, :] < N;
  float *pa[16, 16] = A + r16[:, newaxis] * 16 + r16[newaxis, :];
  float *pb[16, 16] = B + r16[:, newaxis] * N + r16[newaxis, :];
  *(C + r16[:, newaxis] * 16 + r16[newaxis, :]) = c ? *pa @ *pb : 0.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.reduce %c \{axis = 1, combine = \"ori\"\} : i1\[16\]", r"tt.load %pa, %\d+",
                   r"tt.reduce %c \{axis = 0, combine = \"ori\"\} : i1\[16\]", r"tt.load %pb, %\d+", r"tt.dot")
    M, N = 5, 3
    A, B, C = randn(M, 16), randn(16, N), np.zeros((16, 16), f32)
    run(src, "k", (1,), A, B, C, M, N)
    want = np.zeros((16, 16))
    want[:M, :N] = A.astype(np.float64) @ B
    np.testing.assert_allclose(C, want, rtol=1e-5, atol=1e-5)


def test_reshape_cast_in_a_branch_moves_the_mask():
    src = """
__global__ void k(float *X, float *Y, int n) {
  int r[16] = 0 ... 16;
  int r4[4] = 0 ... 4;
  float *px[4, 4] = X + r4[:, newaxis] * 4 + r4[newaxis, :];
  *(Y + r) = r < n ? (float[16]) *px : 0.0f;
  float z[16] = 0;
  *(Y + 16 + r) = r < n ? (z = *px) * 1.0f : 0.0f;
  *(Y + 32 + r) = r < n ? __reshape(*px * 2.0f, 16) : 0.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.reshape %\d+ : i1\[4,4\]", r"tt.load %px, %\d+ : f32\[4,4\]")
    X, Y = randn(6), np.zeros(48, f32)
    run(src, "k", (1,), X, Y, 6)
    np.testing.assert_array_equal(Y, np.concatenate([X, np.zeros(10), X, np.zeros(10), 2 * X, np.zeros(10)]))


def test_broadcast_in_a_branch_needs_any_lane_of_the_copies():
    src = """
__global__ void k(float *X, float *Y, int M) {
  int rm[4] = 0 ... 4;
  int rn[8] = 0 ... 8;
  bool c[4, 8] = rm[:, newaxis] < M && rn[newaxis, :] < 3;
  *(Y + rm[:, newaxis] * 8 + rn[newaxis, :]) = c ? (*(X + rm))[:, newaxis] * 2.0f : 0.0f;
  *(Y + 32 + rm[:, newaxis] * 8 + rn[newaxis, :]) = c ? *(X + rm[:, newaxis]) + 0.0f : 0.0f;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.reduce %c \{axis = 1, combine = \"ori\"\} : i1\[4\]", r"tt.load %\d+, %\d+ : f32\[4\]")
    X, Y = randn(2), np.zeros(64, f32)
    run(src, "k", (1,), X, Y, 2)
    want = np.zeros((4, 8), f32)
    want[:2, :3] = X[:, None]
    np.testing.assert_array_equal(Y[:32].reshape(4, 8), 2 * want)
    np.testing.assert_array_equal(Y[32:].reshape(4, 8), want)


# ---------------------------------------------------------------------------------- effects in branches

def test_atomic_in_a_branch_is_masked():
    src = """
__global__ void k(int *P, int *Old, int n) {
  int r[16] = 0 ... 16;
  *(Old + r) = r < n ? atomic_add(P + r, 1) : -1;
  *(Old + 16 + r) = r >= n ? -2 : atomic_max(P + r, 7, r > 0) + 0;
}
"""
    text = ir(src)
    in_order(text, r"(%\d+) = arith.cmpi", r"tt.atomic_rmw %\d+, %\d+, %\d+ \{kind = \"add\"\}",
             r"tt.atomic_rmw %\d+, %\d+, %\d+ \{kind = \"max\"\}")
    P, Old = np.arange(4, dtype=i32), np.zeros(32, i32)
    run(src, "k", (1,), P, Old, 4)
    np.testing.assert_array_equal(P, [1, 7, 7, 7])
    np.testing.assert_array_equal(Old[:16], [0, 1, 2, 3] + [-1] * 12)
    assert (Old[20:] == -2).all() and (Old[17:20] == [2, 3, 4]).all()


def test_store_and_assignment_in_a_branch_are_masked():
    src = """
__global__ void k(float *X, float *Y, float *Z, int n) {
  int r[16] = 0 ... 16;
  float x[16] = -5.0f;
  *(Z + r) = r < n ? (*(Y + r) = *(X + r) * 2.0f) : 0.0f;
  *(Z + 16 + r) = r < n ? (x = *(X + r)) : 1.0f;
  *(Z + 32 + r) = x;
}
"""
    text = ir(src)
    no_unmasked_load(text)
    in_order(text, r"tt.store %\d+, %\d+, %\d+\n", r"%x_\d = arith.select %\d+, %\d+, %x : f32\[16\]")
    X, Y, Z = randn(3), np.zeros(3, f32), np.zeros(48, f32)
    run(src, "k", (1,), X, Y, Z, 3)
    np.testing.assert_array_equal(Y, X * 2)
    np.testing.assert_array_equal(Z[32:], np.concatenate([X, np.full(13, -5.0, f32)]))


def test_pure_device_function_in_a_branch():
    src = """
__device__ float[16] twice(float x[16]) { return x * 2.0f; }
__global__ void k(float *X, float *Y, int n) {
  int r[16] = 0 ... 16;
  float x[16] = r < n ? *(X + r) : 0.0f;
  *(Y + r) = r < n ? twice(x) : 1.0f;
}
"""
    X, Y = randn(3), np.zeros(16, f32)
    run(src, "k", (1,), X, Y, 3)
    np.testing.assert_array_equal(Y, np.concatenate([X * 2, np.ones(13, f32)]))


@pytest.mark.parametrize("body, message, col", [
    ("*(O + r) = r < n ? atomic_cas(P + r, 0, 1) : 0;",
     "'atomic_cas' cannot be masked, so it cannot be in a branch of a '?:' whose condition is a tile", 22),
    ("*(O + r) = r < n ? 0 : atomic_cas(P + r, 0, 1) + 1;",
     "'atomic_cas' cannot be masked, so it cannot be in a branch of a '?:' whose condition is a tile", 26),
    ("*(O + r) = r < n ? load(P + r) : 0;",
     "'load' accesses memory, which cannot be masked in a call from a branch of a '?:' whose condition is a tile",
     22),
    ("*(O + r) = r < n ? twice(*(P + r)) : 0;",
     "a load in an argument of 'twice' cannot be masked in a branch of a '?:' whose condition is a tile; "
     "load it before the call",
     28),
])
def test_what_cannot_be_masked_is_rejected(body, message, col):
    src = ("__device__ int[16] load(int *p[16]) { return *p; }\n"
           "__device__ int[16] twice(int x[16]) { return x * 2; }\n"
           "__global__ void k(int *P, int *O, int n) {\n  int r[16] = 0 ... 16;\n  " + body + "\n}\n")
    err = error_of(src)
    assert (err.message, err.loc.line, err.loc.col) == (message, 5, col)


def test_scalar_condition_may_use_atomic_cas():
    src = """
__global__ void k(int *P, int *O, int n) {
  *O = n > 0 ? atomic_cas(P, 0, 5) : -1;
}
"""
    assert "scf.if" in ir(src)
    P, O = np.zeros(1, i32), np.zeros(1, i32)
    run(src, "k", (1,), P, O, 1)
    assert P[0] == 5 and O[0] == 0


def test_unmasked_load_would_fault():
    """The interpreter catches the bug these tests guard against (``select`` does not mask)."""
    src = NESTED.replace("c ? BRANCH : 1.0f", "select(c, *(X + r) * 2.0f, 1.0f)")
    with pytest.raises(InterpreterError):
        run(src, "k", (1,), randn(5), randn(5, dtype=f16), randn(5), np.zeros(16, f32), 5)
