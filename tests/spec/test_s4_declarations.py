"""Spec section 4, declarations and attributes: parameter attributes after the declarator (any
number, any order, GNU spelling, C restrict), paper-era prefix qualifiers and `kernel`, local
`__multipleof`, initialisers that broadcast, inner-scope redeclarations, `const tunable`
meta-parameters with -D / --tune overrides, and num_warps / num_stages."""
import numpy as np

from spec_helpers import Rule, fixed, randn, spec_tests, zeros

f16, f32, i32 = np.float16, np.float32, np.int32

COPY = """
  int r[16] = 0 ... 16;
  *(Y + r) = *(X + r);
}"""

RULES = [
    Rule("param_attributes_any_order", """
__global__ void k(float *X __readonly __aligned(16) __noalias, float *Y __multipleof(4) __writeonly __aligned(8),
                  int n __retune __multipleof(8), long m __multipleof(2)) {""" + COPY,
         args=fixed(randn(16), zeros(16), 8, 2), expect=lambda a: {1: a[0]},
         ir="CHECK: %X: ptr<f32> {aligned = 16, noalias, readonly}, %Y: ptr<f32> {aligned = 8, multipleof = 4, writeonly}, "
            "%n: i32 {multipleof = 8, retune}, %m: i64 {multipleof = 2}", gpu=True),
    Rule("gnu_attribute_spelling_and_c_restrict", """
__global__ void k(float * restrict X __attribute__((readonly, aligned(16))),
                  float *Y __attribute__((noalias)) __attribute__((writeonly))) {""" + COPY,
         args=fixed(randn(16), zeros(16)), expect=lambda a: {1: a[0]},
         ir="CHECK: %X: ptr<f32> {aligned = 16, noalias, readonly}, %Y: ptr<f32> {noalias, writeonly}", gpu=True),
    Rule("paper_prefix_qualifiers_and_kernel_keyword", """
kernel void k(restrict read_only align(16) float *X, write_only float *Y, multiple_of(8) int n) {
  int r[16] = 0 ... 16;
  *?(r < n)(Y + r) = *(X + r);
}""", args=fixed(randn(16), zeros(16), 8), expect=lambda a: {1: np.where(np.arange(16) < 8, a[0], 0)},
         ir="CHECK: tt.func @k(%X: ptr<f32> {aligned = 16, noalias, readonly}, %Y: ptr<f32> {writeonly}, "
            "%n: i32 {multipleof = 8}) attributes {kernel}", gpu=True),
    Rule("local_multipleof", """
__global__ void k(float *X, int *pinc, float *Y) {
  int off __multipleof(8) = *pinc;
  int r[8] = 0 ... 8;
  *(Y + r) = *(X + off + r);
  off = off + 8;
  *(Y + 8 + r) = *(X + off + r);
}""", args=fixed(randn(32), np.array([8], i32), zeros(16)), expect=lambda a: {2: a[0][8:24]},
         ir="CHECK: %off = tt.load %pinc {multipleof = 8} : i32\nCHECK: %off_1 = arith.addi {{.*}} {multipleof = 8} : i32",
         gpu=True),
    Rule("initialisers_broadcast_and_several_declarators", """
__global__ void k(float *Out, int *I) {
  float acc[4, 8] = 0;
  float row[8] = 1.5f;
  float b[4, 8] = row;
  int a = 2, v[4] = 0 ... 4, *p = I;
  *(p + v) = v * a;
  *(Out + (0 ... 4)[:, newaxis] * 8 + (0 ... 8)[newaxis, :]) = acc + b;
}""", args=lambda: [zeros(4, 8), zeros(4, dtype=i32)], expect=lambda a: {0: np.full((4, 8), 1.5), 1: [0, 2, 4, 6]},
         types={"acc": "float[4, 8]", "a": "int", "v": "int[4]", "p": "int*"},
         ir="CHECK: %acc = arith.constant {value = 0.0} : f32[4,8]\nCHECK: %row = arith.constant {value = 1.5} : f32[8]"),
    Rule("inner_scopes_redeclare", """
__global__ void k(int *Out) {
  int a = 1;
  {
    float a = 2.5f;
    *(Out + 1) = (int)(a * 2);
    {
      int a[4] = 0 ... 4;
      *(Out + 2) = a[+];
    }
  }
  for (int i = 0; i < 2; i++) {
    bool a = i == 1;
    *(Out + 3 + i) = a;
  }
  *Out = a;
}""", args=lambda: [zeros(5, dtype=i32)], expect=lambda a: {0: [1, 5, 6, 0, 1]},
         types={"a": "float"}, ir="CHECK: scf.for\nCHECK: tt.store %Out, {{%[0-9a-z_]+}}"),
    Rule("const_locals_are_constants", """
__global__ void k(int *Out) {
  const int N = 8;
  const long M = N * 2;
  int r[N] = 0 ... N;
  int s[M] = 0 ... M;
  *(Out + r) = r + N;
  *(Out + 8 + (0 ... 8)) = s[+] - 120 + M;
}""",
         args=lambda: [zeros(16, dtype=i32)], expect=lambda a: {0: np.concatenate([np.arange(8, 16), np.full(8, 16)])},
         types={"r": "int[8]", "s": "int[16]"},
         ir="CHECK: tt.make_range {end = 8, start = 0}\nCHECK: tt.make_range {end = 16, start = 0}"),
    Rule("tunable_first_candidate", """
const tunable int TM = {8, 16, 32};
__global__ void k(int *Out) {
  int r[TM] = 0 ... TM;
  *(Out + r) = r + TM;
}""", args=lambda: [zeros(32, dtype=i32)], expect=lambda a: {0: np.concatenate([np.arange(8) + 8, np.zeros(24)])},
         types={"r": "int[8]"}, ir="CHECK: tt.make_range {end = 8, start = 0}"),
    Rule("tunable_fixed_with_define", """
const tunable int TM = {8, 16, 32};
__global__ void k(int *Out) {
  int r[TM] = 0 ... TM;
  *(Out + r) = r + TM;
}""", defines={"TM": "32"}, args=lambda: [zeros(32, dtype=i32)], expect=lambda a: {0: np.arange(32) + 32},
         types={"r": "int[32]"}, ir="CHECK: tt.make_range {end = 32, start = 0}", gpu=True),
    Rule("tunable_fixed_with_tune", """
const tunable int TM = {8, 16, 32};
tunable int32 TN = {4};
__global__ void k(int *Out) {
  int r[TM] = 0 ... TM;
  *(Out + r) = r + TN;
}""", tunables={"TM": 16}, args=lambda: [zeros(32, dtype=i32)],
         expect=lambda a: {0: np.concatenate([np.arange(16) + 4, np.zeros(16)])}, types={"r": "int[16]"},
         ir="CHECK: tt.make_range {end = 16, start = 0}"),
    Rule("tune_candidates_for_a_macro", """
__global__ void k(int *Out) {
  int r[BLOCK] = 0 ... BLOCK;
  *(Out + r) = r;
}""", tunables={"BLOCK": 16}, args=lambda: [zeros(16, dtype=i32)], expect=lambda a: {0: np.arange(16)},
         types={"r": "int[16]"}, ir="CHECK: tt.make_range {end = 16, start = 0}"),
    Rule("num_warps_and_num_stages", """
__global__ void k(half *A, half *B, float *C) {
  int r[32] = 0 ... 32;
  float acc[32, 32] = 0;
  for (int i = 0; i < 4; i++)
    acc += *(A + i * 32 + r[:, newaxis] * 128 + r[newaxis, :]) @ *(B + i * 1024 + r[:, newaxis] * 32 + r[newaxis, :]);
  *(C + r[:, newaxis] * 32 + r[newaxis, :]) = acc;
}""", options={"num_warps": 8, "num_stages": 2},
         args=fixed(randn(32, 128, dtype=f16), randn(128, 32, dtype=f16), zeros(32, 32)),
         expect=lambda a: {2: a[0].astype(np.float64) @ a[1].astype(np.float64)}, rtol=1e-5, atol=1e-4,
         ir="CHECK: module attributes {num_warps = 8}", ptx="CHECK: .maxntid 256", gpu=True, gpu_rtol=1e-3, gpu_atol=1e-3),
    # A 2021 copy kernel marks its output __readonly: the store is kept (LLVM would delete it
    # through a `readonly` parameter), with a warning, and the loads of X stay non-coherent.
    Rule("store_through_readonly_is_kept", """
#define TYPE float
__global__ void copy(TYPE *X __noalias __readonly __aligned(16), TYPE *Y __noalias __readonly __aligned(16), int N) {
  int off[256] = get_program_id(0) * 256 + 0 ... 256;
  TYPE *px[256] = X + off;
  TYPE *py[256] = Y + off;
  *py = *px;
}""", grid=2, args=fixed(randn(512), zeros(512), 512), expect=lambda a: {1: a[0]},
         warnings=["store through 'Y', which is declared __readonly; the store is kept and the promise is not used "
                   "[-Wreadonly-store]"],
         ptx="CHECK: ld.global.nc\nCHECK: st.global", gpu=True),
    Rule("atomic_through_readonly_is_kept", """
__global__ void k(int *C __readonly) {
  int r[32] = 0 ... 32;
  atomic_add(C + r % 4, 1);
}""", args=lambda: [zeros(4, dtype=i32)], expect=lambda a: {0: [8, 8, 8, 8]},
         warnings=["atomic through 'C', which is declared __readonly"], gpu=True),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
