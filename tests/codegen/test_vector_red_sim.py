"""fp32 ``atomic_add`` whose old values are unused (split-K's epilogue): laid out as a store
(``transforms/coalesce.vector_red``) and, on sm_90a, lowered to vector
``red.relaxed.gpu.global.add.v4.f32`` (``codegen/llvm/atomics.py``); on sm_80 one atomic per
element. Run on the SIMT simulator against numpy: several program instances add into the
same elements, masked at a ragged edge."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SOURCE = """
__global__ void addto(float *C __noalias __aligned(16), float *X __noalias __readonly __aligned(16),
                      int M, int N __multipleof(4), int ldc __multipleof(4)) {
  int rm[16] = get_program_id(0) % 2 * 16 + 0 ... 16;
  int rn[32] = 0 ... 32;
  float x[16, 32] = *(X + get_program_id(0) * 512 + rm[:, newaxis] % 16 * 32 + rn[newaxis, :]);
  bool ok[16, 32] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  atomic_add(C + rm[:, newaxis] * ldc + rn[newaxis, :], x, ok);
}
"""

USED = """
__global__ void addto(float *C __noalias __aligned(16), float *Old __noalias __aligned(16), int ldc __multipleof(4)) {
  int rm[16] = 0 ... 16;
  int rn[32] = 0 ... 32;
  float one[16, 32] = 1.0f;
  *(Old + rm[:, newaxis] * 32 + rn[newaxis, :]) = atomic_add(C + rm[:, newaxis] * ldc + rn[newaxis, :], one);
}
"""


def compile_module(tmp_path, source, arch):
    path = tmp_path / "addto.tri"
    path.write_text(source)
    comp = Compilation(path, CompileOptions(arch=arch, num_warps=4))
    return comp


@pytest.mark.parametrize("arch, vector", [("sm_90a", True), ("sm_80", False)])
def test_unused_fp32_atomic_add_is_a_vector_red_on_sm90(tmp_path, arch, vector):
    comp = compile_module(tmp_path, SOURCE, arch)
    ptx = comp.ptx
    assert ("red.relaxed.gpu.global.add.v4.f32" in ptx) == vector
    rng = np.random.default_rng(7)
    M, N, ldc, programs = 27, 28, 32, 6
    X = rng.standard_normal(programs * 512).astype(np.float32)
    C = np.full((32, ldc), np.nan, np.float32)
    C[:M, :N] = 0.0
    run_kernel(comp.ttgir, "addto", (programs, 1, 1), [C, X, M, N, ldc], arch=arch)
    want = np.zeros((32, 32))
    xs = X.reshape(programs, 16, 32).astype(np.float64)
    for p in range(programs):
        r0 = p % 2 * 16
        want[r0:r0 + 16] += xs[p]
    np.testing.assert_allclose(C[:M, :N], want[:M, :N], rtol=1e-5, atol=1e-5)
    assert np.isnan(C[M:]).all() and np.isnan(C[:, N:]).all()


def test_atomic_add_whose_old_values_are_used_stays_an_atomic(tmp_path):
    comp = compile_module(tmp_path, USED, "sm_90a")
    assert "red.relaxed.gpu.global.add.v" not in comp.ptx
    C = np.full((16, 32), 2.0, np.float32)
    Old = np.zeros((16, 32), np.float32)
    run_kernel(comp.ttgir, "addto", (1, 1, 1), [C, Old, 32], arch="sm_90a")
    assert (C == 3.0).all() and (Old == 2.0).all()
