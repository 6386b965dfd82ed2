"""Spec section 8: the two reference examples, verbatim, must compile and run correctly
(four levels, as every rule; the GPU test runs them too)."""
import numpy as np

from spec_helpers import Rule, fixed, randn, spec_tests, zeros

SOFTMAX = """\
// y = softmax(x) along rows; one program per row. -D BLOCK=1024
__global__ void softmax(float *Y, float *X, int stride_y, int stride_x, int N) {
  int m = get_program_id(0);
  int n[BLOCK] = 0 ... BLOCK;
  bool check[BLOCK] = n < N;
  float x[BLOCK] = check ? *(X + m * stride_x + n) : -F32_INFINITY;
  float e[BLOCK] = exp(x - x[max]);
  *?(check)(Y + m * stride_y + n) = e / e[+];
}
"""

MATMUL = """\
// C[M,N] = A[M,K] @ B[K,N], half in, float accumulate, half out. Paper-style tunables.
const tunable int TM = {64, 128};
const tunable int TN = {64, 128};
const tunable int TK = {32, 64};
__global__ void matmul(half *A __noalias __readonly __aligned(16),
                       half *B __noalias __readonly __aligned(16),
                       half *C __noalias __aligned(16),
                       int M, int N, int K,
                       int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  half *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  half *pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
  float acc[TM, TN] = 0;
  for (int k = K; k > 0; k -= TK) {
    half a[TM, TK] = (rm[:, newaxis] < M && rk[newaxis, :] < k) ? *pa : 0;
    half b[TK, TN] = (rk[:, newaxis] < k && rn[newaxis, :] < N) ? *pb : 0;
    acc += a @ b;
    pa += TK;
    pb += TK * ldb;
  }
  half c[TM, TN] = acc;
  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc *(C + rm[:, newaxis] * ldc + rn[newaxis, :]) = c;
}
"""

X = randn(3, 700)
A, B = randn(100, 104, dtype=np.float16), randn(90, 72, dtype=np.float16)  # K = 90 inside lda = 104 (a multiple of 8)


def _softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


RULES = [
    Rule("softmax", SOFTMAX, defines={"BLOCK": 1024}, grid=3, args=fixed(zeros(3, 700), X, 700, 700, 700),
         expect=lambda a: {0: _softmax(a[1])}, rtol=1e-5, atol=1e-7,
         ir="CHECK: %x = tt.load {{%[0-9]+}}, %check, {{%[0-9]+}} : f32[1024]\nCHECK: combine = \"maxnumf\"\n"
            "CHECK: math.exp\nCHECK: combine = \"addf\"\nCHECK: tt.store {{.*}}, %check",
         gpu_rtol=1e-5, gpu_atol=1e-7),
    Rule("matmul", MATMUL, grid=(2, 2), args=fixed(A, B, zeros(100, 72, dtype=np.float16), 100, 72, 90, 104, 72, 72),
         expect=lambda a: {2: (a[0][:, :90].astype(np.float64) @ a[1].astype(np.float64)).astype(np.float16)},
         rtol=2e-3, atol=2e-3, types={"acc": "float[64, 64]", "pa": "half*[64, 32]"},
         ir="CHECK: scf.for\nCHECK: %a = tt.load %pa{{[_0-9]*}}, {{%[0-9]+}}, {{%[0-9]+}} : f16[64,32]\nCHECK: tt.dot\n"
            "CHECK: tt.store {{.*}}, %checkc",
         ttir="CHECK: %acc{{[_0-9]*}} = tt.dot {{.*}}, %acc", gpu_rtol=5e-3, gpu_atol=5e-3),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
