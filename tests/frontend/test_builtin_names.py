"""A user's function may take a built-in's name (spec section 2): in that file the user's
definition wins for calls, '@' still means the product, and calling a kernel is an error."""
import numpy as np

from fe_helpers import error_of, ir, run


def test_kernel_named_dot_compiles_and_at_is_still_the_product():
    text = ir("""
__global__ void dot(float *A, float *C) {
  int r[16] = 0 ... 16;
  float a[16, 16] = *(A + r[:, newaxis] * 16 + r[newaxis, :]);
  *(C + r[:, newaxis] * 16 + r[newaxis, :]) = a @ a;
}""")
    assert "tt.func @dot(" in text and "tt.dot" in text and "tt.call" not in text


def test_a_call_means_the_users_function_not_the_builtin():
    text = ir("""
__device__ float dot(float a, float b) { return a - b; }
__global__ void k(float *X) {
  *X = dot(*X, 1.0f);
}""")
    assert 'tt.call' in text and 'callee = "dot"' in text and "tt.dot" not in text


def test_a_users_function_with_an_alias_name_wins_too():
    # get_range_id is the paper's spelling of get_program_id; a user's function of that name wins
    text = ir("""
__device__ int get_range_id(int axis) { return 40 + axis; }
__global__ void k(int *X) {
  *X = get_range_id(2);
}""")
    assert 'callee = "get_range_id"' in text and "tt.get_program_id" not in text


def test_a_users_function_named_like_a_pure_builtin_keeps_its_side_effects():
    # The built-in dot is pure; the user's 'dot' stores. A scalar ?: must run it only when selected.
    src = """
__device__ int dot(int *P) { *P = 7; return 1; }
__global__ void k(int *P, int c) {
  int v = c ? dot(P) : 5;
  *(P + 1) = v;
}"""
    p = np.zeros(2, np.int32)
    run(src, "k", 1, p, 0)
    assert p.tolist() == [0, 5]
    run(src, "k", 1, p, 1)
    assert p.tolist() == [7, 1]


def test_calling_a_kernel_named_dot_is_an_error():
    err = error_of("""
__global__ void dot(float *A, float *B) { }
__global__ void k(float *X) {
  float x[16, 16] = 0;
  float y[16, 16] = dot(x, x);
}""")
    assert err.message == "cannot call kernel 'dot'; only '__device__' functions can be called"
    assert (err.loc.line, err.loc.col) == (5, 21)


def test_two_functions_of_one_builtin_name_are_a_redefinition():
    err = error_of("""
__device__ float max(float a, float b) { return a; }
__device__ float max(float a, float b) { return b; }
""")
    assert err.message == "redefinition of 'max'"


def test_a_users_atomic_add_is_not_a_predicable_atomic():
    err = error_of("""
__device__ int atomic_add(int *p, int v) { return v; }
__global__ void k(int *P) {
  @(true) atomic_add(P, 1);
}""")
    assert err.message.startswith("'@mask' applies to an assignment, a store or a masked atomic")
