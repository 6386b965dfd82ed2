"""Memory-bound loops pipelined through cp.async rings (``software-pipeline``'s
``PipelinePlanner.memory_plan``), through the whole compiler, run on the CPU by the SIMT simulator.

``tests/data/row_loop.tri``'s ``row_loop`` is layernorm backward's loop over rows: its row loads
go ``num_stages - 1`` trips ahead into shared rings while the trip's reductions run; its result
must match numpy on ragged sizes (trip counts 0 to 5, fewer trips than the prologue's copies
included) with the outputs poisoned first. ``chunks`` walks a row in tiles (rmsnorm forward's
shape: one trip at the sizes it is tuned for), which is left as it is.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.ir.printer import print_module
from tritonc.options import CodegenOptions, CompileOptions
from tritonc.simt import run_kernel

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests" / "data" / "row_loop.tri"


def compile_rows(num_warps: int, num_stages: int, block: int = 256, group: int = 3, pipeline: bool = True):
    opts = CompileOptions(defines={"BLOCK": str(block), "G": str(group)}, num_warps=num_warps,
                          num_stages=num_stages, arch="sm_90",
                          codegen=CodegenOptions(pipeline_memory_loads=pipeline))
    return Compilation(KERNEL, opts).ttgir


def loop_text(module, kernel: str) -> str:
    text = print_module(module)
    return text.split(f"tt.func @{kernel}(")[1].split("tt.func @")[0]


@pytest.mark.parametrize("num_warps, num_stages", [(2, 2), (2, 3), (4, 4)])
def test_row_loop_pipelined_matches_numpy(num_warps, num_stages):
    G, BLOCK = 3, 256
    module = compile_rows(num_warps, num_stages, BLOCK, G)
    text = loop_text(module, "row_loop")
    assert text.count("ttg.async_copy_global_to_local") == 2 * num_stages  # X and DY: prologue + loop
    assert "#ttg.shared<vec=1, per_phase=1, max_phase=1" in print_module(module)
    rng = np.random.default_rng(num_stages)
    for M, N in [(7, 200), (2, 256), (12, 37), (1, 16)]:
        stride = 256
        X = rng.standard_normal((M, stride)).astype(np.float16)
        DY = rng.standard_normal((M, stride)).astype(np.float16)
        DX = np.full((M, stride), np.nan, np.float32)
        DW = np.full((G, stride), np.nan, np.float32)
        run_kernel(module, "row_loop", (G,), [DX, DW, DY, X, stride, N, M], arch="sm_90")
        x, dy = X[:, :N].astype(np.float64), DY[:, :N].astype(np.float64)
        c = (x * dy).sum(1, keepdims=True) / N
        np.testing.assert_allclose(DX[:, :N], dy - x * c, rtol=1e-5, atol=1e-5)
        for p in range(G):
            want = (dy[p::G] * x[p::G]).sum(0)
            np.testing.assert_allclose(DW[p, :N], want, rtol=1e-5, atol=1e-5)


def test_chunk_loop_and_switch_off_keep_plain_loads():
    module = compile_rows(4, 3)
    assert "ttg.async_copy_global_to_local" not in loop_text(module, "chunks")
    off = compile_rows(4, 3, pipeline=False)
    assert "ttg.async_copy_global_to_local" not in print_module(off)


def test_rings_over_the_budget_keep_plain_loads():
    """Two rings of 3 x 16384 halves (96 KiB) exceed MEMORY_RING_BYTES: left as they are."""
    module = compile_rows(4, 3, block=16384)
    assert "ttg.async_copy_global_to_local" not in loop_text(module, "row_loop")
