"""A comparison whose result axis info says is constant over runs of elements (``constancy``) is
computed once per run and thread (``codegen/llvm/elementwise.repeated_registers``): the mask
``r < N`` with ``N __multipleof(16)`` over 8 floats per thread (two runs of 4 contiguous
registers) is 2 compares per thread, not 8; without the promise, 8. Both run right in the SIMT
simulator (the mask also feeds a select, not only the load and store predicates)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt.simulator import lower_for_simulation, run_kernel

SOURCE = """
__global__ void masked(float *Z __noalias __aligned(16), float *X __noalias __readonly __aligned(16),
                       int N PROMISE) {
  int r[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  bool in[1024] = r < N;
  float x[1024] = in ? *(X + r) : 0;
  *(Z + r) = in ? x * 2 : -1.0f;
}
"""


def _ttgir(promise: str):
    text = SOURCE.replace("PROMISE", promise)
    return Compilation(text, CompileOptions(arch="sm_90", num_warps=4), path="masked.tri").ttgir


@pytest.mark.parametrize("promise, compares", [("__multipleof(16)", 2), ("", 8)], ids=["N%16", "any N"])
def test_one_compare_per_run(promise, compares):
    module = _ttgir(promise)
    text = str(lower_for_simulation(module)[0]["masked"][0])
    assert len(re.findall(r"icmp slt i32", text)) == compares
    n = 1024 + 512 + 16 if promise else 1024 + 517
    x = np.random.default_rng(5).standard_normal(2048).astype(np.float32)
    z = np.full(2048, np.nan, np.float32)
    run_kernel(module, "masked", (2,), [z, x, np.int32(n)])
    np.testing.assert_array_equal(z, np.where(np.arange(2048) < n, x * 2, np.float32(-1.0)))
