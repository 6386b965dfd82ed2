"""``-fexp-uncorrected`` folds the subtraction (and a scalar scale) of ``exp``'s argument into
the ``fma`` that feeds ``ex2.approx`` (``codegen/llvm/math_ops._exp_folded``): ``exp(a - b)``
and ``exp(d * k - b)`` cost one ``fma`` per element besides ``ex2``. The default ``exp`` (the
spec's 2^-21, ``exp_f32``) is not changed. Results in the SIMT simulator against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CodegenOptions, CompileOptions
from tritonc.simt import run_kernel

SOURCE = """
__global__ void f(float *X, float *B, float *Y, float *Z, float *W, float k, float s) {
  int r[128] = 0 ... 128;
  float x[128] = *(X + r);
  float b[128] = *(B + r);
  *(Y + r) = exp(x - b);
  *(Z + r) = exp(x * k - b);
  *(W + r) = exp(x * s);
}
"""


@pytest.mark.parametrize("uncorrected", [False, True])
def test_exp_of_a_scaled_difference(uncorrected, tmp_path):
    path = tmp_path / "f.tri"
    path.write_text(SOURCE)
    comp = Compilation(path, CompileOptions(arch="sm_90", num_warps=4,
                                            codegen=CodegenOptions(exp_uncorrected=uncorrected)))
    ptx = comp.ptx
    ex2 = ptx.count("ex2.approx")
    assert ex2 == 3
    if uncorrected:  # one fma per folded exp; x * s has no subtraction: a multiply, no fma
        assert ptx.count("fma.rn.f32") == 2 and "mul.rm" not in ptx
    else:
        assert ptx.count("mul.rm.f32") == 3
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, 128).astype(np.float32)
    b = rng.uniform(-4, 4, 128).astype(np.float32)
    outs = [np.full(128, np.nan, np.float32) for _ in range(3)]
    run_kernel(comp.ttgir, "f", (1,), [x, b, *outs, np.float32(0.75), np.float32(-1.5)], arch="sm_90")
    x64, b64 = x.astype(np.float64), b.astype(np.float64)
    for got, want in zip(outs, (np.exp(x64 - b64), np.exp(x64 * 0.75 - b64), np.exp(x64 * -1.5))):
        np.testing.assert_allclose(got, want, rtol=2e-6)
