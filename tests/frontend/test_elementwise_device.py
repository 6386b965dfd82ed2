"""Shape-polymorphic __device__ functions (spec section 2): a device function whose parameters
are scalars, called with tiles, applies element-wise: the arguments broadcast and the result is
a tile of the broadcast shape, as with the built-in min/max."""
import numpy as np
import pytest

from fe_helpers import error_of, in_order, ir, run, sema, warnings_of
from tritonc.frontend import ast

SRC = """
__device__ float clampf(float v, float lo, float hi) { return min(max(v, lo), hi); }
__device__ float scaled(float v, float s) { return clampf(v * s, -1.0f, 1.0f); }
__device__ float gather(float *p) { return *p; }
__device__ void put(float *p, float v) { *p = v; }
__global__ void k(float *X, float *S, float *Y) {
  int r[16] = 0 ... 16;
  int c[8] = 0 ... 8;
  float x[16, 8] = gather(X + r[:, newaxis] * 8 + c[newaxis, :]);
  float s[8] = *(S + c);
  put(Y + r[:, newaxis] * 8 + c[newaxis, :], scaled(x, s) + clampf(2.0f, 0.0f, 1.0f));
}"""


def call_types(src):
    tu, result = sema(src)
    return {n.name + "/" + ",".join(str(result.info(a).type) for a in n.args): str(result.info(n).type)
            for n in tu.walk() if isinstance(n, ast.Call) and id(n) in result.exprs}


def test_called_with_tiles_the_result_is_a_tile_of_the_broadcast_shape():
    types = call_types(SRC)
    assert types["scaled/float[16, 8],float[8]"] == "float[16, 8]"
    assert types["gather/float*[16, 8]"] == "float[16, 8]"
    assert types["clampf/float,float,float"] == "float"  # scalars stay a scalar call
    assert types["put/float*[16, 8],float[16, 8]"] == "void"


def test_each_shape_gets_one_instance_and_scalar_arguments_stay_scalars():
    text = ir(SRC)
    in_order(text,
             r"tt.func @clampf\(%v: f32, %lo: f32, %hi: f32\) -> f32 attributes \{device\}",
             r"tt.func @k",
             r'tt.call \S+ \{callee = "gather__ew16x8"\} : f32\[16,8\]',
             r'tt.call %x, \S+ \{callee = "scaled__ew16x8"\} : f32\[16,8\]',
             r'\{callee = "clampf"\} : f32\n',
             r'\{callee = "put__ew16x8"\}',
             r"tt.func @gather__ew16x8\(%p: ptr<f32>\[16,8\]\) -> f32\[16,8\] attributes \{device\}",
             r"tt.func @scaled__ew16x8\(%v: f32\[16,8\], %s: f32\[16,8\]\) -> f32\[16,8\]",
             r'\{callee = "clampf__ew16x8_tss"\}',
             r"tt.func @put__ew16x8\(%p: ptr<f32>\[16,8\], %v: f32\[16,8\]\) attributes \{device\}",
             r"tt.func @clampf__ew16x8_tss\(%v: f32\[16,8\], %lo: f32, %hi: f32\) -> f32\[16,8\]")
    assert text.count("tt.func @clampf__ew") == 1


def test_runs_element_wise_in_the_interpreter():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    s = rng.standard_normal(8).astype(np.float32) * 2
    y = np.zeros((16, 8), np.float32)
    run(SRC, "k", 1, x, s, y)
    np.testing.assert_array_equal(y, np.clip(x * s[None, :], -1, 1) + 1)


def test_same_shape_twice_reuses_the_instance():
    text = ir("""
__device__ int twice(int v) { return 2 * v; }
__global__ void k(int *X) {
  int r[32] = 0 ... 32;
  *(X + r) = twice(r) + twice(r + 1) + twice(3);
}""")
    assert text.count("tt.func @twice__ew32(") == 1 and text.count('callee = "twice__ew32"') == 2


def test_arguments_that_do_not_broadcast_are_an_error_at_the_call():
    err = error_of("""
__device__ int add(int a, int b) { return a + b; }
__global__ void k(int *X) {
  int r[16] = 0 ... 16;
  int c[8] = 0 ... 8;
  *(X + r) = add(r, c);
}""")
    assert (err.message, err.loc.line, err.loc.col) == ("cannot broadcast shapes [16] and [8]", 6, 14)


def test_an_if_on_a_tile_argument_runs_both_branches_masked():
    src = """
__device__ int sign(int v) {
  if (v < 0) return -1;
  return v > 0;
}
__device__ float relu_sum(float *p, float v) {
  float acc = 0.0f;          // assigned under a condition on a tile: one value per element
  if (v > 0) {
    acc = v + *p;            // a load masked by v > 0
    *p = 1.0f;               // a store masked by v > 0
  } else {
    acc = -v;
  }
  if (acc > 5.0f) return 5.0f;
  acc = acc * 2.0f;
  return acc;
}
__global__ void k(int *X, float *P, float *Y) {
  int r[16] = 0 ... 16;
  *(X + r) = sign(r - 8) + sign(3);
  *(Y + r) = relu_sum(P + r, *(Y + r));
}"""
    text = ir(src)
    in_order(text, r"tt.func @relu_sum__ew16", r"tt.load %p, %\d+ : f32\[16\]", r"tt.store %p, %\d+, %\d+",
             r"arith.select")
    x = np.zeros(16, np.int32)
    p = np.arange(16, dtype=np.float32)
    y = (np.arange(16) - 8).astype(np.float32)
    p0, y0 = p.copy(), y.copy()
    run(src, "k", 1, x, p, y)
    np.testing.assert_array_equal(x, np.sign(np.arange(16) - 8) + 1)
    acc = np.where(y0 > 0, y0 + p0, -y0)
    np.testing.assert_array_equal(y, np.where(acc > 5, 5, acc * 2))
    np.testing.assert_array_equal(p, np.where(y0 > 0, 1, p0))


def test_a_return_in_some_elements_masks_the_rest_of_the_function():
    src = """
__device__ int f(int v, int w) {
  int y = 7;
  if (v > 2) {
    if (w > 0) return 100;   // taken in some elements only
    y = 50;
    if (v > 4) { int t = 1; if (w < -1) t = 2; y = y + t; }
  }
  int z = y + v;             // runs in the elements that did not return
  return z;
}
__global__ void k(int *X, int *W) {
  int r[8] = 0 ... 8;
  *(X + r) = f(r, *(W + r));
}"""
    x = np.zeros(8, np.int32)
    w = np.array([1, -1, 1, -1, 1, -1, -2, 0], np.int32)
    run(src, "k", 1, x, w)
    v = np.arange(8)
    y = np.where(v > 2, 50 + np.where(v > 4, np.where(w < -1, 2, 1), 0), 7)
    np.testing.assert_array_equal(x, np.where((v > 2) & (w > 0), 100, y + v))


@pytest.mark.parametrize("body, message, line, col", [
    ("  if (v > 0) { for (int i = 0; i < 2; i++) v = v + 1; }\n  return v;",
     "a 'for' loop cannot run under a condition on a tile in an element-wise call of 'f'", 2, 16),
    ("  for (int i = 0; i < 2; i++) { if (v > i) break; }\n  return v;",
     "'break' cannot be taken under a condition on a tile in an element-wise call of 'f'", 2, 44),
    ("  for (int i = 0; i < 2; i++) { if (v > i) return 1; }\n  return v;",
     "a 'return' under a condition on a tile cannot be inside a loop", 2, 44),
    ("  if (v > 0) return 1;\n  for (int i = 0; i < 2; i++) { if (i > 0) return 2; }\n  return v;",
     "a 'return' inside a loop cannot be combined with a 'return' under a condition on a tile", 3, 44),
    ("  if (v > 0) atomic_cas(P, 0, 1);\n  return v;",
     "'atomic_cas' cannot be masked, so it cannot be in a branch of an 'if' on a tile", 2, 14),
    ("  if (v > 0) g(P);\n  return v;",
     "'g' accesses memory, which cannot be masked in a call from a branch of an 'if' on a tile", 2, 14),
])
def test_what_cannot_run_masked_is_an_error_with_a_note_at_the_call(body, message, line, col):
    err = error_of(f"""__device__ int g(int *P) {{ *P = 1; return 0; }}
__device__ int f(int v, int *P) {{
{body}
}}
__global__ void k(int *X) {{
  int r[16] = 0 ... 16;
  *(X + r) = f(r - 8, X);
}}""")
    assert (err.message, err.loc.line - 1, err.loc.col) == (message, line, col)
    (note,) = err.diagnostic.notes
    assert note.message == "in 'f' applied element-wise to tiles (parameters of type 'int[16]') by this call"
    assert note.loc.line == body.count("\n") + 7


def test_a_function_with_tile_parameters_is_not_element_wise():
    err = error_of("""
__device__ float f(float x[16], float s) { return x[+] * s; }
__global__ void k(float *X) {
  int r[16] = 0 ... 16;
  *X = f(*(X + r), *(X + r));
}""")
    assert err.message.startswith("passing to parameter of type 'float' from a tile of type 'float[16]'")


def test_warnings_of_the_body_are_not_repeated_per_instance_but_new_ones_are_given():
    got = warnings_of("""
__device__ float half_of(float v) {
  float v = v * 0.5;
  return v;
}
__global__ void k(float *X) {
  int r[16] = 0 ... 16;
  *(X + r) = half_of(*(X + r)) + half_of(1.0f);
}""")
    assert got == [
        "3:9: declaration of 'v' shadows a parameter; from here on 'v' means the new variable [-Wshadow]",
        "3:17: unsuffixed literal '0.5' is a 'double' and promotes 'float[16]' to 'double[16]'; "
        "write '0.5f' to stay in single precision [-Wdouble-promotion]"]


def test_recursion_through_an_element_wise_call_is_rejected():
    err = error_of("""
__device__ int f(int v) { return v > 0 ? f(v - 1) : 0; }
__global__ void k(int *X) {
  int r[16] = 0 ... 16;
  *(X + r) = f(r);
}""")
    assert err.message == "recursive call to device function 'f'"


def test_locals_that_receive_tiles_become_tiles_and_loops_on_scalars_stay():
    src = """
__device__ float smooth(float x, int n) {
  float t = x * x;          // a tile in the element-wise instance (its initialiser is one)
  float acc = 0.0f;         // a tile too: a tile is assigned to it in the loop
  for (int i = 0; i < n; i++)
    acc = acc + t;
  acc += 1.0f;
  return acc;
}
__global__ void k(float *X, int n) {
  int r[16] = 0 ... 16;
  *(X + r) = smooth(*(X + r), n) + smooth(2.0f, n);
}"""
    text = ir(src)
    in_order(text, r"tt.func @smooth__ew16_ts\(%x: f32\[16\], %n: i32\) -> f32\[16\]", r"scf.for",
             r"arith.addf %acc\S*, %t : f32\[16\]")
    x = np.arange(16, dtype=np.float32)
    run(src, "k", 1, x, 3)
    np.testing.assert_array_equal(x, 3 * np.arange(16, dtype=np.float32) ** 2 + 1 + (3 * 4 + 1))


def test_instances_made_before_a_local_became_a_tile_are_dropped():
    text = ir("""
__device__ float g(float a, float b) { return a * b; }
__device__ float f(float v) {
  float acc = 1.0f;
  float s = g(acc, v);   // first checked with 'acc' a scalar: an instance g__ew16_st
  acc = acc + v;         // 'acc' is a tile: the body is checked again, g(acc, v) is g__ew16
  return acc + s;
}
__global__ void k(float *X) {
  int r[16] = 0 ... 16;
  *(X + r) = f(*(X + r));
}""")
    assert "@g__ew16(" in text and "g__ew16_st" not in text


def test_increments_and_compound_assignments_under_an_if_on_a_tile_are_per_element():
    src = """
__device__ int count(int v) {
  int n = 0;
  if (v > 2) n++;
  if (v > 4) ++n;
  if (v > 5) n += 10;
  return n;
}
__global__ void k(int *X) {
  int r[8] = 0 ... 8;
  *(X + r) = count(r);
}"""
    x = np.zeros(8, np.int32)
    run(src, "k", 1, x)
    v = np.arange(8)
    np.testing.assert_array_equal(x, (v > 2).astype(int) + (v > 4) + 10 * (v > 5))


def test_an_instance_name_never_collides_with_a_users_function():
    text = ir("""
__device__ int twice(int v) { return 2 * v; }
__device__ int twice__ew16(int v) { return 3 * v; }
__global__ void k(int *X) {
  int r[16] = 0 ... 16;
  *(X + r) = twice(r) + twice__ew16(1);
}""")
    assert "tt.func @twice__ew16_(%v: i32[16])" in text and 'callee = "twice__ew16_"' in text
