"""f32 ``x / d`` with one divisor for the whole tile (``codegen/llvm/elementwise._divide_by_uniform``):
``(x * c) * (1 / (d * c))``, ``c`` the power of two that brings ``d`` into the normal range,
straight-line code. The lowered kernel runs in the SIMT simulator against numpy's IEEE
quotient, at normal, huge, subnormal, zero, infinite and NaN divisors."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt.simulator import lower_for_simulation, run_kernel

SOURCE = """
__global__ void divide(float *Z __noalias, float *X __noalias __readonly, float d) {
  int r[128] = 0 ... 128;
  *(Z + r) = *(X + r) / d;
}
"""


def _ttgir():
    return Compilation(SOURCE, CompileOptions(arch="sm_90", num_warps=1), path="divide.tri").ttgir


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units of the last place of ``want`` (float32), 0 where both are equal."""
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.where(got == want, 0.0, np.abs(got.astype(np.float64) - want.astype(np.float64)) / spacing)


DIVISORS = [3.0, -0.7, 1e-3, 2.0 ** 126, 3e38, -2.0 ** 127, 1e-39, -2.0 ** -140, 2.0 ** -126]


@pytest.mark.parametrize("d", DIVISORS, ids=str)
def test_quotient_within_1_5_ulp(d):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(128) * np.float32(10.0) ** rng.integers(-30, 30, 128)).astype(np.float32)
    x[:4] = [0.0, -0.0, 1.0, 3e38]
    z = np.full(128, np.nan, np.float32)
    run_kernel(_ttgir(), "divide", (1,), [z, x, np.float32(d)])
    with np.errstate(all="ignore"):
        want = x / np.float32(d)
    finite = np.isfinite(want) & (np.abs(want) >= np.finfo(np.float32).tiny)  # normal quotients
    assert (_ulps(z[finite], want[finite]) <= 1.5).all(), (z[finite], want[finite])
    # overflowing quotients are infinite with the right sign; underflowing ones tiny
    assert (z[np.isinf(want)] == want[np.isinf(want)]).all()
    assert (np.abs(z[~finite & np.isfinite(want)]) <= 2 * np.finfo(np.float32).tiny).all()


@pytest.mark.parametrize("d", [0.0, -0.0, np.inf, -np.inf, np.nan], ids=str)
def test_special_divisors_give_ieee_results(d):
    x = np.array([1.0, -2.0, 0.0, np.inf, np.nan] * 26, np.float32)[:128]
    z = np.full(128, 7.0, np.float32)
    run_kernel(_ttgir(), "divide", (1,), [z, x, np.float32(d)])
    with np.errstate(all="ignore"):
        want = x / np.float32(d)
    np.testing.assert_array_equal(z, want)


def test_no_branch_and_one_reciprocal():
    kernel = lower_for_simulation(_ttgir())[0]["divide"][0]
    text = str(kernel)
    assert "br i1" not in text and "llvm.nvvm.div.full" not in text
    assert text.count("fdiv") == 1
