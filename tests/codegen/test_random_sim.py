"""rand / randint / randn through the whole compiler and the SIMT simulator, against the
interpreter: ``randint``/``rand`` bit for bit, ``randn`` within 1e-6 (scaled by ``max(1, |x|)``:
the f32 ``log`` lowering and ``cos.approx`` are not correctly rounded, and near a zero of
``cos`` no relative bound holds), at several tile shapes, warp counts and program ids."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SRC = """
__global__ void k(unsigned int *I, float *U, float *N, long seed, int base) {
  int o[ROWS, COLS] = (0 ... ROWS)[:, newaxis] * COLS + (0 ... COLS)[newaxis, :];
  int r[ROWS, COLS] = base + get_program_id(0) * (ROWS * COLS) + o;
  int at[ROWS, COLS] = get_program_id(0) * (ROWS * COLS) + o;
  *(I + at) = randint(seed, r);
  *(U + at) = rand(seed, r);
  *(N + at) = randn(seed, r);
}
"""

CASES = [  # rows, cols, num_warps
    (1, 128, 4), (16, 32, 4), (1, 64, 1), (32, 64, 8), (1, 8, 4), (4, 4, 2),
]
GRID = 3


def _args(n: int, seed: int, base: int) -> list:
    return [np.zeros(n, np.uint32), np.zeros(n, np.float32), np.zeros(n, np.float32), np.int64(seed), np.int32(base)]


@pytest.mark.parametrize("rows,cols,num_warps", CASES, ids=[f"{r}x{c}-w{w}" for r, c, w in CASES])
def test_simulator_matches_interpreter(rows, cols, num_warps):
    comp = Compilation(SRC, CompileOptions(num_warps=num_warps, arch="sm_90",
                                           defines={"ROWS": str(rows), "COLS": str(cols)}))
    n = GRID * rows * cols
    seed, base = 0x5EED_0000_1234 + rows, -17 * cols
    sim = _args(n, seed, base)
    run_kernel(comp.ttgir, "k", (GRID,), sim)
    ref = _args(n, seed, base)
    run_function(comp.ttir, "k", (GRID,), ref)
    assert np.array_equal(sim[0], ref[0]), "randint"
    assert np.array_equal(sim[1].view(np.uint32), ref[1].view(np.uint32)), "rand"
    err = np.abs(sim[2].astype(np.float64) - ref[2]) / np.maximum(1.0, np.abs(ref[2].astype(np.float64)))
    assert err.max() <= 1e-6, f"randn: scaled error {err.max():.3g}"
    assert np.all(ref[1] < 1.0) and len(np.unique(ref[0])) == n


def test_philox_lowering_uses_mul_hi_once_per_block():
    """randn needs words 0 and 1 of one Philox block: LLVM merges the two expansions, so the PTX
    has one block's products (at most 20 ``mul.hi.u32`` for one element per thread), all 32-bit."""
    comp = Compilation(SRC, CompileOptions(num_warps=4, arch="sm_90", defines={"ROWS": "1", "COLS": "128"}))
    ptx = comp.ptx
    assert 0 < ptx.count("mul.hi.u32") <= 20
    assert "mul.lo.s64" not in ptx and "mul.hi.u64" not in ptx
