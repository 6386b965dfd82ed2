"""Software pipelining of loops whose addresses come from loads in the loop (look-up tables:
``examples/blocksparse_matmul.tri``'s ``*plut``, ``examples/conv2d.tri``'s ``*pdelta``), run on
the CPU by the SIMT simulator and compared with the numpy interpreter and float64 references.

The index loads are evaluated stages ahead (masked by "that iteration exists", so a prefetch
past the end of the table reads nothing); the operand tiles go through ``cp.async`` rings when
``cp.async`` can copy them, else they are staged through registers one trip ahead.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tritonc
from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def make_lut(layout: np.ndarray, size: int = 64) -> np.ndarray:
    """Header (offset, count) per block row, then the (a-block, b-block) pairs of each row
    (the format of ``examples/blocksparse_matmul.tri``), the pairs placed at the end of a
    table of ``size`` ints: the simulator's global memory ends with the last argument buffer
    (rounded to 256 bytes), so an index load one pair past the table is out of bounds."""
    rows = layout.shape[0]
    index = np.cumsum(layout.ravel()).reshape(layout.shape) - 1
    start = size - 2 * int(layout.sum())
    header, pairs = [], []
    for i in range(rows):
        ks = np.flatnonzero(layout[i])
        header += [start + len(pairs), len(ks)]
        for k in ks:
            pairs += [int(index[i, k]), int(k)]
    lut = np.zeros(size, np.int32)
    lut[:len(header)] = header
    lut[start:] = pairs
    return lut


def _ops(module, name):
    return [op for op in module.walk() if op.name == name]


@pytest.mark.parametrize("block,tn,stages,arch", [(16, 32, 3, "sm_80"), (32, 64, 4, "sm_90"), (64, 64, 3, "sm_90a")])
def test_blocksparse_lut_loop_is_pipelined(block, tn, stages, arch):
    defines = {"TYPE": "half", "BLOCK": str(block), "TN": str(tn)}
    module = Compilation(EXAMPLES / "blocksparse_matmul.tri",
                         CompileOptions(defines=defines, num_warps=4, num_stages=stages, arch=arch)).ttgir
    assert _ops(module, "ttg.async_copy_global_to_local"), "the LUT loop was not pipelined"
    rng = np.random.default_rng(block)
    layout = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 0], [0, 1, 0]], bool)
    blocks = rng.standard_normal((int(layout.sum()), block, block)).astype(np.float16)
    N = 2 * tn - 5
    B = np.zeros((3 * block, 2 * tn), np.float16)
    B[:, :N] = rng.standard_normal((3 * block, N))
    lut = make_lut(layout)
    grid = (layout.shape[0], -(-N // tn))
    args = lambda C: [blocks, B, C, lut, N, B.shape[1], C.shape[1]]  # noqa: E731
    C_sim = np.full((4 * block, B.shape[1]), np.nan, np.float16)
    run_kernel(module, "blocksparse_matmul", grid, args(C_sim), arch=arch)
    C_int = np.full_like(C_sim, np.nan)
    tritonc.interpret(EXAMPLES / "blocksparse_matmul.tri", "blocksparse_matmul", grid, *args(C_int), defines=defines)
    dense = np.zeros((4 * block, 3 * block))
    for j, (i, k) in enumerate(zip(*np.nonzero(layout))):
        dense[i * block:(i + 1) * block, k * block:(k + 1) * block] = blocks[j]
    want = dense @ B[:, :N].astype(np.float64)
    got = C_sim[:, :N].astype(np.float64)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-2)
    np.testing.assert_allclose(got, C_int[:, :N].astype(np.float64), rtol=1e-2, atol=2e-2)
