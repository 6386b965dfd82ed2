"""Spec section 2, source files and the preprocessor: macros, conditionals, includes, -D, the
built-in prelude, several kernels per file, __device__ functions, comments and literals.
Each rule is checked at four levels (see spec_helpers.py); rejections are in test_diagnostics.py."""
from pathlib import Path

import numpy as np

from spec_helpers import Rule, fixed, randn, spec_tests, zeros

INCLUDE = str(Path(__file__).parent / "include")
f32, f16, i32, u32 = np.float32, np.float16, np.int32, np.uint32

RULES = [
    Rule("object_and_function_macros", """
#define BLOCK 16
#define SQ(x) ((x) * (x))
#define CAT(a, b) a##b
#define TWICE(x) SQ(x) + \
                 SQ(x)
__global__ void k(int *Out) {
  int CAT(my, var)[BLOCK] = 0 ... BLOCK;
  *(Out + myvar) = TWICE(myvar + 1);
}""", args=lambda: [zeros(16, dtype=i32)], expect=lambda a: {0: 2 * (np.arange(16) + 1) ** 2},
         types={"myvar": "int[16]"}, ir="CHECK: tt.make_range {end = 16, start = 0}\nCHECK: arith.muli", gpu=True),
    Rule("undef_and_conditionals", """
#define A 1
#undef A
#define B 3
#ifdef A
#error A is undefined
#else
#define FROM_ELSE 10
#endif
#if defined(B) && B > 5
#define V 1
#elif B == 3
#define V 2
#else
#define V 3
#endif
#ifndef C
#define W 100
#endif
#if true && !false
#define T 1000
#endif
__global__ void k(int *Out) {
  *Out = FROM_ELSE + V + W + T;
}""", args=lambda: [zeros(1, dtype=i32)], expect=lambda a: {0: [1112]}, ir="CHECK: arith.constant {value = 1112}"),
    Rule("include_with_search_path", """
#include "spec_common.h"
#include "spec_common.h"
__global__ void k(float *X) {
  float x = *X;
  *X = scaled(x) + SCALE;
}""", options={"include_dirs": [INCLUDE]}, args=fixed(randn(2)), expect=lambda a: {0: [a[0][0] * 3 + 3, a[0][1]]},
         ir='CHECK: tt.func @scaled\nCHECK: tt.call %x {callee = "scaled"}', gpu=True),
    Rule("angle_include_and_function_like_define", """
#include <spec_common.h>
__global__ void k(float *X, int *Out) {
  *X = scaled(*X);
  *Out = SQ(3) + TWO;
}""", options={"include_dirs": [INCLUDE]}, defines={"SQ(x)": "((x) * (x))", "TWO": "2"},
         args=fixed(np.ones(1, f32), zeros(1, dtype=i32)), expect=lambda a: {0: [3.0], 1: [11]},
         ir='CHECK: tt.func @scaled\nCHECK: tt.call {{.*}} {callee = "scaled"}\nCHECK: arith.constant {value = 11} : i32'),
    Rule("command_line_defines", """
__global__ void k(TYPE *X, float *Out, int lda) {
  int rm[TM] = 0 ... TM;
  int rk[TK] = 0 ... TK;
  TYPE x[TM, TK] = *(X + rm[:, newaxis] * STRIDE_AM + rk[BROADCAST_AK]);
#ifdef FLAG
  *(Out + rk) = x[RED];
#else
  *(Out + rk) = 0;
#endif
}""", defines={"TYPE": "half", "TM": "8", "TK": 4, "STRIDE_AM": "lda", "BROADCAST_AK": "newaxis, :",
               "RED": "+, :", "FLAG": None},
         args=fixed(randn(8, 4, dtype=f16), zeros(4), 4), expect=lambda a: {1: a[0].astype(np.float64).sum(0)},
         rtol=5e-3, atol=5e-3, types={"x": "half[8, 4]"}, ir="CHECK: tt.load {{.*}} : f16[8,4]\nCHECK: tt.reduce {{.*}}axis = 0",
         gpu=True, gpu_rtol=5e-3, gpu_atol=5e-3),  # a half sum: the GPU adds in another order
    Rule("prelude_type_names_and_bool", """
__global__ void k(int8 *A, int16 *B, int32 *C, int64 *D, uint8 *E, uint16 *F, uint32 *G, uint64 *H, bool *Z) {
  *A = -1; *B = -1; *C = -1; *D = -1;
  *E = -1; *F = -1; *G = -1; *H = -1;
  bool t = true, f = false;
  *Z = t; *(Z + 1) = f; *(Z + 2) = t && !f;
}""", args=lambda: [zeros(1, dtype=t) for t in (np.int8, np.int16, i32, np.int64, np.uint8, np.uint16, u32, np.uint64)]
         + [np.zeros(3, bool)],
         expect=lambda a: {0: [-1], 1: [-1], 2: [-1], 3: [-1], 4: [255], 5: [65535], 6: [2**32 - 1], 7: [2**64 - 1],
                           8: [True, False, True]},
         types={"t": "bool"}, ir="CHECK: %A: ptr<i8>, %B: ptr<i16>, %C: ptr<i32>, %D: ptr<i64>, %E: ptr<i8> {unsigned}"),
    Rule("prelude_attribute_macros", """
__global__ void k(float *X __noalias __readonly __aligned(16), float *Y __writeonly __multipleof(4),
                  int n __multipleof(8) __retune) {
  int r[8] = 0 ... 8;
  *?(r < n)(Y + r) = *(X + r);
}""", args=fixed(randn(8), zeros(8), 8), expect=lambda a: {1: a[0]},
         ir="CHECK: %X: ptr<f32> {aligned = 16, noalias, readonly}, %Y: ptr<f32> {multipleof = 4, writeonly}, "
            "%n: i32 {multipleof = 8, retune}", gpu=True),
    Rule("prelude_infinities", """
__global__ void k(float *F, half *H) {
  *F = F32_INFINITY;
  *(F + 1) = -F32_INFINITY;
  *H = F16_INFINITY;
  float x[4] = -F32_INFINITY;
  *(F + 2 + (0 ... 4)) = x;
}""", args=lambda: [zeros(6), zeros(1, dtype=f16)], expect=lambda a: {0: [np.inf, -np.inf] + [-np.inf] * 4, 1: [np.inf]},
         ir="CHECK: arith.constant {value = inf} : f32", gpu=True),
    Rule("prelude_min_max_are_functions", """
__global__ void k(int *Out, float *X) {
  int i = 0;
  int m = min(i++, 10);
  int n = max(i++, -10);
  *Out = m; *(Out + 1) = n; *(Out + 2) = i;
  int r[8] = 0 ... 8;
  float x[8] = *(X + r);
  *(X + r) = min(x, 0.0f) + max(x, 1.0f) * 2.0f + min(r, 3);
}""", args=fixed(zeros(3, dtype=i32), randn(8)),
         expect=lambda a: {0: [0, 1, 2], 1: np.minimum(a[1], 0) + np.maximum(a[1], 1) * 2 + np.minimum(np.arange(8), 3)},
         ir="CHECK: arith.minsi\nCHECK: arith.maxsi\nCHECK: arith.minnumf\nCHECK: arith.maxnumf", gpu=True),
    Rule("prelude_atomic_add_aliases", """
__global__ void k(float *F, half *H, float *S) {
  int rm[64] = 0 ... 64;
  int rn[64] = 0 ... 64;
  float *pf[64, 64] = F + rm[:, newaxis] * 64 + rn[newaxis, :];
  atomic_add_float_64x64(pf, 1.5f, rn[newaxis, :] < 32);
  half *ph[64, 64] = H + rm[:, newaxis] * 64 + rn[newaxis, :];
  half one[64, 64] = 1;
  atomic_add_half_64x64(ph, one, rm[:, newaxis] < rn[newaxis, :]);
  atomic_add_float_1x1(S, 2.0f, true);
}""", grid=2, seeds=(None, 1),
         args=lambda: [zeros(64, 64), zeros(64, 64, dtype=f16), zeros(1)],
         expect=lambda a: {0: np.where(np.arange(64)[None, :] < 32, 3.0, 0.0) + np.zeros((64, 64)),
                           1: np.where(np.arange(64)[:, None] < np.arange(64)[None, :], 2.0, 0.0), 2: [4.0]},
         ir='CHECK: tt.atomic_rmw {{.*}} {kind = "fadd"} : f32[64,64]\nCHECK: {kind = "fadd"} : f16[64,64]\n'
            'CHECK: tt.atomic_rmw %S, {{%[0-9]+}}, {{%[0-9]+}} {kind = "fadd"} : f32', gpu=True),
    Rule("several_kernels_in_one_file", """
__device__ int twice(int x) { return 2 * x; }
__global__ void first(int *Out) { *Out = twice(1); }
void second(int *Out) { *Out = twice(21); }
kernel void third(int *Out) { *Out = 3; }
""", kernel="second", args=lambda: [zeros(1, dtype=i32)], expect=lambda a: {0: [42]},
         ir="CHECK: tt.func @twice{{.*}} attributes {device}\nCHECK: tt.func @first{{.*}} attributes {kernel}\n"
            "CHECK: tt.func @second{{.*}} attributes {kernel}\nCHECK: tt.func @third{{.*}} attributes {kernel}",
         gpu=True),
    Rule("kernel_selection", """
__device__ int twice(int x) { return 2 * x; }
__global__ void first(int *Out) { *Out = twice(1); }
void second(int *Out) { *Out = twice(21); }
""", kernel="second", options={"kernel": "second"}, args=lambda: [zeros(1, dtype=i32)], expect=lambda a: {0: [42]},
         ir="CHECK-NOT: @first\nCHECK: tt.func @second", ttir="CHECK-NOT: @first\nCHECK: tt.func @second"),
    Rule("kernel_selection_skips_unparsable_kernels", """
__device__ int twice(int x) { return 2 * x; }
__device__ TYPE unused(TYPE x) { return x; }
void second(int *Out) { *Out = twice(21); }
__global__ void first(TYPE *X) {  // TYPE and TM are undefined: with --kernel second, never parsed
  TYPE x[TM] = *(X + (0 ... TM));
}""", kernel="second", options={"kernel": "second"}, args=lambda: [zeros(1, dtype=i32)], expect=lambda a: {0: [42]},
         ir="CHECK: tt.func @twice\nCHECK-NOT: @unused\nCHECK: tt.func @second\nCHECK-NOT: @first"),
    Rule("device_functions_scalar_and_tile", """
#define N 16
__device__ float[N] clamp(float x[N], float lo, float hi) {
  return min(max(x, lo), hi);
}
__device__ float sq(float x) { return x * x; }
__device__ float[N] sq_clamped(float x[N]) {
  float c[N] = clamp(x, -1.0f, 1.0f);
  return c * c;
}
__device__ int sign(int v) {
  if (v < 0) return -1;
  if (v == 0) return 0;
  return 1;
}
__global__ void k(float *X, float *Y, int *S) {
  int r[N] = 0 ... N;
  float x[N] = *(X + r);
  *(Y + r) = sq_clamped(x) + sq(2.0f);
  *S = sign(-5); *(S + 1) = sign(0); *(S + 2) = sign(7);
}""", args=fixed(randn(16) * 2, zeros(16), zeros(3, dtype=i32)),
         expect=lambda a: {1: np.clip(a[0], -1, 1) ** 2 + 4, 2: [-1, 0, 1]},
         ir="CHECK: tt.func @clamp(%x: f32[16], %lo: f32, %hi: f32) -> f32[16] attributes {device}\n"
            "CHECK: tt.func @sq_clamped\nCHECK: tt.call %x, {{.*}} {callee = \"clamp\"}\nCHECK: tt.func @k\n"
            "CHECK: tt.call %x {callee = \"sq_clamped\"}",
         ttir="CHECK-NOT: tt.call\nCHECK: tt.func @k", gpu=True),
    Rule("device_functions_are_shape_polymorphic", """
// scalar parameters called with tiles: applied element-wise, arguments broadcast, tile result
__device__ float clampf(float v, float lo, float hi) { return min(max(v, lo), hi); }
__device__ float scaled(float v, float s) {
  float t = v * s;  // a tile in the element-wise instance
  return clampf(t, -1.0f, 1.0f);
}
__device__ float gather(float *p) { return *p; }
__global__ void k(float *X, float *S, float *Y) {
  int r[16] = 0 ... 16;
  int c[8] = 0 ... 8;
  float x[16, 8] = gather(X + r[:, newaxis] * 8 + c[newaxis, :]);
  float s[8] = *(S + c);
  *(Y + r[:, newaxis] * 8 + c[newaxis, :]) = scaled(x, s) + clampf(2.0f, 0.0f, 1.0f);
}""", args=fixed(randn(16, 8), randn(8) * 2, zeros(16, 8)),
         expect=lambda a: {2: np.clip(a[0] * a[1][None, :], -1, 1) + 1},
         types={"x": "float[16, 8]", "t": "float[16, 8]"},
         ir='CHECK: tt.func @k\nCHECK: tt.call {{.*}} {callee = "gather__ew16x8"} : f32[16,8]\n'
            'CHECK: {callee = "scaled__ew16x8"} : f32[16,8]\n'
            'CHECK: tt.func @scaled__ew16x8(%v: f32[16,8], %s: f32[16,8]) -> f32[16,8] attributes {device}\n'
            'CHECK: {callee = "clampf__ew16x8_tss"} : f32[16,8]',
         ttir="CHECK-NOT: tt.call", gpu=True),
    Rule("device_functions_if_on_a_tile_runs_masked", """
// an element-wise call runs an 'if' on a tile per element: both branches masked, 'return' per element
__device__ int sign(int v) {
  if (v < 0) return -1;
  return v > 0;
}
__device__ float bump(float *p, float v) {
  float acc = 0.0f;
  if (v > 0) {
    acc = v + *p;   // loaded where v > 0 only
    *p = 1.0f;      // stored where v > 0 only
  } else {
    acc = -v;
  }
  if (acc > 5.0f) return 5.0f;
  return acc * 2.0f;
}
__global__ void k(int *S, float *P, float *Y) {
  int r[64] = 0 ... 64;
  *(S + r) = sign(r - 32);
  *(Y + r) = bump(P + r, *(Y + r));
}""", args=fixed(zeros(64, dtype=i32), randn(64) * 4, randn(64) * 4, ),
         expect=lambda a: {0: np.sign(np.arange(64) - 32), 1: np.where(a[2] > 0, 1, a[1]),
                           2: np.where(np.where(a[2] > 0, a[2] + a[1], -a[2]) > 5, 5,
                                       2 * np.where(a[2] > 0, a[2] + a[1], -a[2]))},
         ir='CHECK: tt.func @bump__ew64\nCHECK: tt.load %p, {{%[0-9]+}} : f32[64]\nCHECK: tt.store %p, {{%[0-9]+}}, {{%[0-9]+}}',
         ttir="CHECK-NOT: tt.call", gpu=True),
    Rule("device_functions_pointers_loops_and_early_returns", """
__device__ int first_negative(int *X, int n) {
  for (int i = 0; i < n; i++) {
    if (*(X + i) < 0) return i;
  }
  return -1;
}
__device__ int put(int *P, int v) {
  *P = v;
  return v;
}
__global__ void k(int *X, int *Out) {
  put(Out, first_negative(X, 8));
  put(Out + 1, first_negative(X, 2));
}""", args=fixed(np.array([3, 4, 5, -1, 2, -3, 0, 0], i32), zeros(2, dtype=i32)), expect=lambda a: {1: [3, -1]},
         ttir="CHECK-NOT: tt.call", gpu=True),
    Rule("device_functions_void_and_pointer_tiles", """
__device__ void store2(float *P[8], float v[8]) {
  *P = v * 2.0f;
}
__device__ float*[8] ptrs(float *X) {
  return X + (0 ... 8);
}
__global__ void k(float *X) {
  float *p[8] = ptrs(X);
  store2(p, *p);
}""", args=fixed(randn(8)), expect=lambda a: {0: a[0] * 2},
         ir="CHECK: tt.func @store2(%P: ptr<f32>[8], %v: f32[8]) attributes {device}\n"
            "CHECK: tt.func @ptrs(%X: ptr<f32>) -> ptr<f32>[8] attributes {device}", ttir="CHECK-NOT: tt.call"),
    Rule("comments_and_integer_literals", """
// line comment
/* block
   comment */
__global__ void k(long *Out /* inline */) {
  *Out = 10;           // decimal
  *(Out + 1) = 010;    // octal
  *(Out + 2) = 0x1F;
  *(Out + 3) = 7u + 5l + 3ul + 2ll + 1LL + 4U;
  *(Out + 4) = -1 < 0xFFFFFFFF;
  *(Out + 5) = -1 < 4294967295;
  *(Out + 6) = 2147483647 + 1l;
  *(Out + 7) = 0x7FFFFFFFFFFFFFFF;
}""", args=lambda: [zeros(8, dtype=np.int64)],
         expect=lambda a: {0: [10, 8, 31, 22, 0, 1, 2147483648, 2**63 - 1]},
         ir="CHECK: {value = 10} : i64\nCHECK: {value = 8} : i64\nCHECK: {value = 31} : i64\nCHECK: {value = 22} : i64\n"
            "CHECK: {value = 0} : i64\nCHECK: {value = 1} : i64\nCHECK: {value = 2147483648} : i64"),
    Rule("float_literals_double_and_float", """
__global__ void k(double *D, float *F) {
  *D = 0.1;
  *(D + 1) = 0.1f;
  *(D + 2) = 1e-3 + .5 + 2.;
  *(D + 3) = 1.5e2f;
  float x = 0.1f;
  *F = x * 3.0;
  *(F + 1) = x * 3.0f;
}""", args=lambda: [zeros(4, dtype=np.float64), zeros(2)],
         expect=lambda a: {0: [0.1, float(f32(0.1)), 1e-3 + 0.5 + 2, 150.0],
                           1: [f32(float(f32(0.1)) * 3.0), f32(0.1) * f32(3.0)]},
         warnings=[], ir="CHECK: arith.constant {value = 0.1} : f64\nCHECK: {value = 0.10000000149011612} : f64\n"
                         "CHECK: {value = 2.501} : f64\nCHECK: %x = arith.constant {value = 0.10000000149011612} : f32\n"
                         "CHECK: arith.extf %x : f64\nCHECK: arith.mulf %x, {{%[0-9]+}} : f32"),
    Rule("double_promotion_warning", """
__global__ void k(float *X) {
  int r[16] = 0 ... 16;
  float x[16] = *(X + r);
  *(X + r) = x * 0.5;
  *(X + 16 + r) = x * 0.5f;
}""", args=fixed(randn(32)), expect=lambda a: {0: np.concatenate([a[0][:16] * 0.5, a[0][:16] * 0.5])},
         warnings=["unsuffixed literal '0.5' is a 'double' and promotes 'float[16]' to 'double[16]'; "
                   "write '0.5f' to stay in single precision [-Wdouble-promotion]"],
         ir="CHECK: arith.extf %x : f64[16]\nCHECK: arith.mulf {{.*}} : f64[16]\nCHECK: arith.truncf\n"
            "CHECK: arith.mulf {{.*}} : f32[16]"),
    # A user's function may take a built-in's name; in that file the user's definition wins.
    Rule("kernel_named_dot", """
// the 2020-2021 corpus names its matmul kernel 'dot'; '@' still means the product
#define TM 32
#define TN 32
#define TK 16
__global__ void dot(TYPE *A, TYPE *B, float *C, int K, int lda, int ldb, int ldc) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  TYPE *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  TYPE *pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
  float acc[TM, TN] = 0;
  for (int k = K; k > 0; k -= TK) {
    acc += *pa @ *pb;
    pa += TK;
    pb += TK * ldb;
  }
  *(C + rm[:, newaxis] * ldc + rn[newaxis, :]) = acc;
}""", defines={"TYPE": "half"}, grid=(2, 2),
         args=fixed(randn(64, 48, dtype=f16), randn(48, 64, dtype=f16), zeros(64, 64), 48, 48, 64, 64),
         expect=lambda a: {2: a[0].astype(np.float64) @ a[1].astype(np.float64)}, rtol=1e-5, atol=1e-5,
         gpu_rtol=2e-3, gpu_atol=2e-3,
         ir="CHECK: tt.func @dot(%A: ptr<f16>{{.*}} attributes {kernel}\nCHECK: tt.dot {{.*}} : f32[32,32]"),
    Rule("user_functions_take_builtin_names", """
__device__ float max(float a, float b) { return a + b; }  // the user's 'max' wins for calls
__device__ float[8] trans(float x[8]) { return -x; }
__global__ void k(float *X, float *Y) {
  int r[8] = 0 ... 8;
  float x[8] = *(X + r);
  *(Y + r) = max(x[+], 1.0f) + trans(x) + x[max];  // 'x[max]' is still the max reduction
}""", args=fixed(randn(8), zeros(8)),
         expect=lambda a: {1: (a[0].sum(dtype=np.float32) + 1) - a[0] + a[0].max()}, rtol=1e-6, atol=1e-6,
         ir='CHECK: tt.func @max(%a: f32, %b: f32) -> f32 attributes {device}\n'
            'CHECK: tt.func @trans(%x: f32[8]) -> f32[8] attributes {device}\nCHECK: tt.func @k\n'
            'CHECK: tt.call {{.*}} {callee = "max"}\nCHECK: tt.call %x {callee = "trans"}\n'
            'CHECK: tt.reduce %x {{.*}}combine = "maxnumf"', gpu=True),
    Rule("parameter_name_reused_with_shadow_warning", """
// paper-era: a kernel redeclares its parameter 'a' as a tile; from there on 'a' is the tile
void matmul(restrict read_only fp32 *a, fp32 *c) {
  int r[16] = 0 ... 16;
  fp32 *pa[16] = a + r;
  fp32 a[16] = *pa;
  *(c + r) = a * 2.0f;
}""", args=fixed(randn(16), zeros(16)), expect=lambda a: {1: a[0] * 2},
         warnings=["declaration of 'a' shadows a parameter; from here on 'a' means the new variable [-Wshadow]"],
         types={"a": "float[16]"}, gpu=True),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
