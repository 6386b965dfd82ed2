"""GPU cases of issue 17's language rules (spec section 2), launched through the generated Python
module (torch tensors) and compared with numpy and with the numpy interpreter on the same tile IR:

* a shape-polymorphic ``__device__`` function (scalar parameters) called with tiles: applied
  element-wise, its arguments broadcast, a local turned into a tile, an ``if`` on a tile with a
  per-element ``return``, a pointer tile gathered;
* the 2020-2021 corpus's matmul kernel named ``dot`` (``@`` still the product, on tensor cores
  for ``half``), with the ``--kernel`` selection of a file whose other kernel does not parse.

Modelled on ``tests/gpu/test_spec_gpu.py``. Skipped without an NVIDIA GPU and driver, or without
torch. Needs on the GPU machine: numpy, ml_dtypes, lark, pcpp, llvmlite, cuda-python and torch.
"""
from __future__ import annotations


import importlib.util

import numpy as np
import pytest

from gpu_helpers import gpu_arch, launcher  # tests/gpu is on sys.path
from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions


GPU_ARCH = gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]



@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")




def run_both(torch, src: str, options: CompileOptions, kernel: str, grid, args: list):
    """Launch ``kernel`` on the GPU and run it in the interpreter (same tile IR) on copies of
    ``args``; returns ``(gpu arrays, interpreter arrays)`` for the array arguments."""
    comp = Compilation(src, options)
    reference = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_function(comp.ttir, kernel, grid, reference)
    device = [torch.from_numpy(a.copy()).cuda() if isinstance(a, np.ndarray) else a for a in args]
    getattr(launcher(comp), kernel)(*device, grid=grid)
    torch.cuda.synchronize()
    gpu = [d.cpu().numpy() for d in device if not isinstance(d, (int, float))]
    ref = [r for r in reference if isinstance(r, np.ndarray)]
    return gpu, ref


ELEMENTWISE = """
#define BM 64
#define BN 32
__device__ float clampf(float v, float lo, float hi) { return min(max(v, lo), hi); }
__device__ float soft(float v, float s) {
  float t = v * s;           // a tile in the element-wise instance
  if (t > 1.5f) return 3.0f; // an 'if' on a tile: a return in those elements only
  float acc = 0.0f;
  for (int i = 0; i < 2; i++)
    acc = acc + clampf(t, -1.0f, 1.0f);
  return acc;
}
__device__ float gather(float *p) { return *p; }
__global__ void k(float *X, float *S, float *Y, int n) {
  int r[BM] = get_program_id(0) * BM + 0 ... BM;
  int c[BN] = 0 ... BN;
  float x[BM, BN] = gather(X + r[:, newaxis] * BN + c[newaxis, :]);
  float s[BN] = *(S + c);
  *(Y + r[:, newaxis] * BN + c[newaxis, :]) = soft(x, s) + clampf(2.0f, 0.0f, 1.0f) + (float) n;
}
"""


def test_elementwise_device_function_on_gpu_matches_numpy_and_interpreter(torch):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((256, 32)).astype(np.float32)
    s = (rng.standard_normal(32) * 2).astype(np.float32)
    y = np.zeros((256, 32), np.float32)
    gpu, ref = run_both(torch, ELEMENTWISE, CompileOptions(arch=GPU_ARCH), "k", (4,), [x, s, y, 3])
    t = x * s[None, :]
    expected = np.where(t > 1.5, 3, 2 * np.clip(t, -1, 1)) + 1 + 3
    np.testing.assert_allclose(ref[2], expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gpu[2], ref[2], rtol=2e-6, atol=2e-6)


DOT = """
#define TM 64
#define TN 64
#define TK 32
// the 2020-2021 corpus names its matmul kernel 'dot'; '@' still means the product
__global__ void dot(TYPE *A, TYPE *B, float *C, int M, int N, int K,
                    int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  TYPE *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  TYPE *pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
  float acc[TM, TN] = 0;
  for (int k = K; k > 0; k -= TK) {
    TYPE a[TM, TK] = (rm[:, newaxis] < M && rk[newaxis, :] < k) ? *pa : 0;
    TYPE b[TK, TN] = (rk[:, newaxis] < k && rn[newaxis, :] < N) ? *pb : 0;
    acc += a @ b;
    pa += TK;
    pb += TK * ldb;
  }
  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc *(C + rm[:, newaxis] * ldc + rn[newaxis, :]) = acc;
}
// needs other -D values (TYPE2 is undefined here): with --kernel dot it is never parsed
__global__ void other(TYPE2 *X) { TYPE2 x[TM] = *(X + (0 ... TM)); }
"""


def test_kernel_named_dot_on_gpu_matches_numpy_and_interpreter(torch):
    rng = np.random.default_rng(18)
    M, N, K = 128, 192, 96
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    options = CompileOptions(arch=GPU_ARCH, defines={"TYPE": "half"}, kernel="dot")
    gpu, ref = run_both(torch, DOT, options, "dot", (M // 64, N // 64), [a, b, c, M, N, K, K, N, N])
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(ref[2], expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(gpu[2], ref[2], rtol=2e-3, atol=2e-3)
