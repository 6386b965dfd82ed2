"""A wgmma dot whose B operand cannot be copied with cp.async (its row stride ``ld`` is a
run-time int of unknown alignment, no specialisation) while A can: once an internal compiler
error on sm_90a ("wgmma dot operands must be read from shared memory by the dot", found by
the specialisation work of 2026-11-24). The operand is staged through shared memory some
other way; the result must match the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SOURCE = """
__global__ void k(half *A __aligned(16), half *B __aligned(16), float *C, int ld) {
  int rm[128] = 0 ... 128; int rn[16] = 0 ... 16; int rk[32] = 0 ... 32;
  half *pa[128, 32] = A + rm[:, newaxis] * 64 + rk[newaxis, :];
  half *pb[32, 16] = B + rk[:, newaxis] * ld + rn[newaxis, :];
  float acc[128, 16] = 0;
  for (int k = 64; k > 0; k -= 32) { acc = dot(*pa, *pb, acc); pa += 32; pb += 32 * 16; }
  *(C + rm[:, newaxis] * 16 + rn[newaxis, :]) = acc;
}
"""


@pytest.mark.parametrize("num_warps", [4, 8])
def test_unaligned_b_operand_on_wgmma(num_warps):
    comp = Compilation(SOURCE, CompileOptions(arch="sm_90a", num_warps=num_warps, specialize=False))
    assert "wgmma.mma_async" in comp.ptx
    rng = np.random.default_rng(num_warps)
    a = rng.standard_normal((128, 64)).astype(np.float16)
    b = rng.standard_normal(64 * 16 + 64).astype(np.float16)
    got = np.full((128, 16), np.nan, np.float32)
    run_kernel(comp.ttgir, "k", (1,), [a, b, got, 16], arch="sm_90a")
    want = np.full((128, 16), np.nan, np.float32)
    run_function(comp.ttir, "k", (1,), [a, b, want, 16])
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
