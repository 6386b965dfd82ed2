"""The SIMT simulator's math intrinsics and atomics (tritonc/simt/extra_ops.py) against the
interpreter: approximate math within its documented error, masked (guarded) atomics whose
old values join at a phi after a divergent branch, cas/xchg with one writer per address."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

MATH = """
__global__ void k(float *X, float *Y, int *I, half *H) {
  int r[64] = 0 ... 64;
  float x[64] = *(X + r);
  *(Y + r) = exp(x) + log(fabs(x) + 1.0f) + sin(x) * cos(x) + rsqrt(fabs(x) + 1.0f) + sqrt(fabs(x));
  *(Y + 64 + r) = floor(x) + ceil(x) + (float) (x / (fabs(x) + 1.0f));
  *(I + r) = abs((int) floor(x * 8.0f)) + (int) ((bfloat16) (r * 1000001));
  *(H + r) = (half) exp((half) x);
}
"""

ATOMICS = """
__global__ void k(half *AH, float *AF, int *D, int *Old, long *L, int n) {
  int r[64] = 0 ... 64;
  int pid = get_program_id(0);
  atomic_add(AH + r % 4, (half) 0.5f, r < n);
  atomic_max(AF + r % 3, (float) (r - 20), r < n);
  *(Old + pid * 64 + r) = atomic_xchg(D + pid * 64 + 63 - r, r + pid);
  *(Old + 256 + pid * 64 + r) = atomic_cas(D + 512 + pid * 64 + r, r % 2, 7);
  atomic_add(L, (long) pid + 1);
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_math_intrinsics_match_interpreter(arch):
    comp = Compilation(MATH, CompileOptions(num_warps=2, arch=arch))
    x = (np.random.default_rng(0).integers(-40, 40, 64) / 8).astype(np.float32)
    sim = [x, np.full(128, np.nan, np.float32), np.zeros(64, np.int32), np.zeros(64, np.float16)]
    ref = [a.copy() for a in sim]
    run_kernel(comp.ttgir, "k", (1,), sim, arch=arch)
    run_function(comp.ttir, "k", (1,), ref)
    np.testing.assert_allclose(sim[1], ref[1], rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(sim[2], ref[2])
    np.testing.assert_array_equal(sim[3], ref[3])


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_atomics_match_interpreter(arch):
    comp = Compilation(ATOMICS, CompileOptions(num_warps=4, arch=arch))
    d = np.arange(1024, dtype=np.int32) % 3

    def args():
        return [np.zeros(4, np.float16), np.full(3, -100, np.float32), d.copy(), np.full(512, -1, np.int32),
                np.zeros(1, np.int64), np.int32(50)]
    sim, ref = args(), args()
    run_kernel(comp.ttgir, "k", (4,), sim, arch=arch)
    run_function(comp.ttir, "k", (4,), ref)
    for got, want in zip(sim[:5], ref[:5]):
        np.testing.assert_array_equal(got, want)
    assert sim[4][0] == 1 + 2 + 3 + 4 and sim[0][0] == 4 * 13 * 0.5


DIVISION = """
__global__ void k(long *X, long *Q, long *R, int *X32, int *Q32, int *R32) {
  int r[8] = 0 ... 8;
  long x[8] = *(X + r);
  long d[8] = (r % 3 == 0) ? -7 : r + 2;
  *(Q + r) = x / d;
  *(R + r) = x % d;
  int y[8] = *(X32 + r);
  *(Q32 + r) = y / (r - 4 + (r == 4));
  *(R32 + r) = y % (r - 4 + (r == 4));
}
"""


def test_signed_division_of_wide_integers_is_exact():
    """64-bit sdiv/srem beyond 2^53 (the simulator divided in float64 and lost the low bits:
    ``x % 4`` of a 62-bit ``x`` came out -112; found by tritonc-fuzz)."""
    comp = Compilation(DIVISION, CompileOptions(num_warps=1, arch="sm_80"))
    x = np.array([2 ** 62 - 1, -(2 ** 62) + 3, 2 ** 53 + 1, -(2 ** 53) - 1, 123456789012345678, -5, 7, -(2 ** 62)],
                 np.int64)
    x32 = np.array([2 ** 31 - 1, -(2 ** 31) + 1, 7, -7, 5, -5, 100000007, -1], np.int32)

    def args():
        return [x.copy(), np.zeros(8, np.int64), np.zeros(8, np.int64), x32.copy(), np.zeros(8, np.int32),
                np.zeros(8, np.int32)]
    sim, ref = args(), args()
    run_kernel(comp.ttgir, "k", (1,), sim, arch="sm_80")
    run_function(comp.ttir, "k", (1,), ref)
    for got, want in zip(sim, ref):
        np.testing.assert_array_equal(got, want)
    assert ref[2][0] == (2 ** 62 - 1) % -7 + (7 if (2 ** 62 - 1) % -7 else 0)  # C: the sign of the dividend
