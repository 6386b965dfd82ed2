"""The pipelined loop computes what the plain loop computes: ``examples/matmul.tri`` and the
split-K example go through ``accelerate-matmul`` and ``software-pipeline`` (1 to 4 stages) and
the resulting ttg IR runs in the interpreter (buffers as numpy arrays, copies landing at once,
so a copy into the slot being read, a wrong slot rotation or a wrong prologue shows up as a
wrong result) on ragged sizes, K shorter than the prologue included."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tritonc.driver import Compilation, run_pipeline
from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]
PASSES = ("assign-layouts", "accelerate-matmul", "remove-layout-conversions", "canonicalize", "cse", "dce",
          "software-pipeline", "canonicalize", "cse", "dce")


def pipelined(path, defines, tune, num_warps, num_stages, arch="sm_90"):
    opts = CompileOptions(defines=defines, tune=tune, num_warps=num_warps)
    module = parse_module(print_module(Compilation(path, opts).ttir))
    module.attrs["num_warps"] = num_warps
    run_pipeline(module, PASSES, num_warps=num_warps, num_stages=num_stages, arch=arch)
    return module


@pytest.mark.parametrize("tile, num_warps, num_stages, arch", [
    ((32, 32, 16), 4, 2, "sm_90"), ((32, 32, 16), 4, 3, "sm_90"), ((16, 32, 16), 1, 4, "sm_90"),
    ((32, 32, 16), 4, 1, "sm_90"),
    # wgmma: a group left running; copies S - 1 trips ahead after a second barrier (S <= 4) or
    # S - 2 ahead with one barrier (S > 4)
    ((64, 32, 32), 4, 2, "sm_90a"), ((64, 32, 32), 4, 3, "sm_90a"), ((64, 32, 32), 4, 4, "sm_90a"),
    ((64, 32, 32), 4, 5, "sm_90a"), ((64, 32, 32), 4, 6, "sm_90a"),
    ((64, 32, 16), 4, 3, "sm_90a")])  # K = 16: mma.sync even on sm_90a
def test_pipelined_matmul(tile, num_warps, num_stages, arch):
    TM, TN, TK = tile
    module = pipelined(ROOT / "examples" / "matmul.tri", {}, {"TM": [TM], "TN": [TN], "TK": [TK]}, num_warps,
                       num_stages, arch)
    text = print_module(module)
    assert ("ttg.async_copy_global_to_local" in text) == (num_stages > 1)
    wgmma = arch == "sm_90a" and TK >= 32
    assert ("version=3" in text) == wgmma
    assert ("ttg.wgmma_wait" in text) == (wgmma and num_stages >= 3)
    assert "tt.load" not in text.split("scf.for")[1].split("scf.yield")[0] or num_stages == 1
    rng = np.random.default_rng(num_stages)
    for M, N, K in [(40, 33, 100), (17, 9, 5), (32, 32, 16), (33, 40, 48)]:
        lda, ldb = -(-K // 8) * 8, -(-N // 8) * 8
        A = rng.standard_normal((M, lda)).astype(np.float16)
        B = rng.standard_normal((K, ldb)).astype(np.float16)
        C = np.full((M, ldb), np.nan, dtype=np.float16)
        run_function(module, "matmul", (-(-M // TM), -(-N // TN)), [A, B, C, M, N, K, lda, ldb, ldb])
        ref = A[:, :K].astype(np.float64) @ B[:K, :N].astype(np.float64)
        assert not np.isnan(C[:, :N]).any()
        np.testing.assert_allclose(C[:, :N].astype(np.float64), ref, rtol=2e-2, atol=5e-2)


def test_pipelined_splitk_with_spin_lock():
    """Spin-lock split-K (tests/data/splitk_spinlock.tri, the old split-K example): the K slice
    loop is pipelined (``rk`` carried ahead too), the spin-locked epilogue is untouched."""
    TM = TN = 32
    defines = {"TYPE": "half", "TM": str(TM), "TN": str(TN), "TK": "16", "SPLITK": "3", "GROUP_M": "2"}
    module = pipelined(ROOT / "tests" / "data" / "splitk_spinlock.tri", defines, {}, 4, 3)
    assert "ttg.async_copy_global_to_local" in print_module(module)
    rng = np.random.default_rng(7)
    M, N, K = 45, 40, 150
    A = rng.standard_normal((M, 152)).astype(np.float16)
    B = rng.standard_normal((K, 40)).astype(np.float16)
    C = np.full((M, 40), np.nan, dtype=np.float16)
    tiles = -(-M // TM) * -(-N // TN)
    locks = np.zeros(2 * tiles, np.int32)
    run_function(module, "splitk_matmul", (tiles, 1, 3), [A, B, C, M, N, K, 152, 40, 40, locks], order_seed=3)
    assert (locks == 0).all()
    ref = A[:, :K].astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C.astype(np.float64), ref, rtol=2e-2, atol=5e-2)
