"""A pointer tile declared without an initialiser and walked by two loops (a 2019 batchnorm
kernel's shape): it compiled to an internal error in ``dce`` ("removing a used result", issue
10). Checked through the whole pipeline: the simulator against the interpreter and numpy."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

# Two passes over the rows of X (N x 64): column sums, then X minus the sums.
TWO_PASSES = """
__global__ void center(float *Y, float *X, float *S, int N) {
  float *px[64];
  float x[64];
  int r[64] = 0 ... 64;
  float s[64] = 0;
  px = X + r;
  for (int i = 0; i < N; i += 1) { x = *px; s = s + x; px = px + 64; }
  float *py[64] = Y + r;
  px = X + r;
  for (int i = 0; i < N; i += 1) { x = *px; *py = x - s; px = px + 64; py = py + 64; }
  *(S + r) = s;
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_pointer_tile_without_initialiser_walked_twice(arch):
    comp = Compilation(TWO_PASSES, CompileOptions(arch=arch))
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 64)).astype(np.float32)

    def args():
        return [np.full((5, 64), np.nan, np.float32), X.copy(), np.full(64, np.nan, np.float32), 5]

    sim, ref = args(), args()
    run_kernel(comp.ttgir, "center", (1,), sim, arch=arch)
    run_function(comp.ttir, "center", (1,), ref)
    s = X.astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(ref[2], s, rtol=1e-5)
    np.testing.assert_allclose(ref[0], X - s, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sim[2], ref[2], rtol=1e-6)
    np.testing.assert_allclose(sim[0], ref[0], rtol=1e-6, atol=1e-6)
