"""Batched ``@`` (``examples/bmm.tri``, ``[TM, TK, TB] @ [TK, TN, TB]``) on tensor cores, run on the
CPU by the SIMT simulator and compared with the numpy interpreter and a float64 reference.

``unbatch-dots`` splits the rank-3 dot into ``TB`` 2-D dots that ``accelerate-matmul`` moves to
``mma.sync`` (``--arch sm_90``) or ``wgmma`` (``sm_90a``); the loop-carried accumulator is split
into ``TB`` mma-layout accumulators. Sizes are ragged in every dimension, outputs poisoned.
"""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tritonc
from tritonc.driver import Compilation
from tritonc.ir.layouts import MmaLayout
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

ROOT = Path(__file__).resolve().parents[2]
BMM = ROOT / "examples" / "bmm.tri"
NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _defines(type_name, tile):
    TM, TN, TK, TB = tile
    return {"TYPE": type_name, "TM": str(TM), "TN": str(TN), "TK": str(TK), "TB": str(TB)}


def _args(A, B, C):
    batch, M, K = A.shape
    N = B.shape[2]
    e = A.itemsize
    return [A, B, C, M, N, K, batch, A.strides[0] // e, A.strides[1] // e, B.strides[0] // e,
            B.strides[1] // e, C.strides[0] // e, C.strides[1] // e]


def _grid(batch, M, N, tile):
    TM, TN, _, TB = tile
    return (-(-M // TM), -(-N // TN), -(-batch // TB))


CASES = [
    # (type, (TM, TN, TK, TB), num_warps, arch, (batch, M, N, K))
    ("half", (32, 32, 16, 2), 4, "sm_90", (3, 40, 37, 50)),
    ("half", (64, 64, 32, 4), 4, "sm_90a", (5, 70, 72, 40)),
    ("bfloat16", (64, 64, 32, 2), 4, "sm_90a", (2, 64, 64, 64)),
    ("half", (16, 16, 16, 4), 2, "sm_80", (4, 17, 9, 33)),
]


@pytest.mark.parametrize("type_name,tile,num_warps,arch,sizes", CASES)
def test_batched_dot_on_tensor_cores_matches_interpreter(type_name, tile, num_warps, arch, sizes):
    defines = _defines(type_name, tile)
    module = Compilation(BMM, CompileOptions(defines=defines, num_warps=num_warps, num_stages=2, arch=arch)).ttgir
    dots = [op for op in module.walk() if op.name == "tt.dot"]
    assert len(dots) == tile[3] and all(isinstance(d.result.type.layout, MmaLayout) for d in dots)
    assert all(d.result.type.layout.version == (3 if arch == "sm_90a" else 2) for d in dots)
    batch, M, N, K = sizes
    dt = NP[type_name]
    rng = np.random.default_rng(7)
    A = rng.standard_normal((batch, M, K)).astype(dt)
    B = rng.standard_normal((batch, K, N)).astype(dt)
    C_sim = np.full((batch, M, N), np.nan, dt)
    run_kernel(module, "bmm", _grid(batch, M, N, tile), _args(A, B, C_sim), arch=arch)
    C_int = np.full((batch, M, N), np.nan, dt)
    tritonc.interpret(BMM, "bmm", _grid(batch, M, N, tile), *_args(A, B, C_int), defines=defines)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    sim, inter = C_sim.astype(np.float64), C_int.astype(np.float64)
    assert np.isfinite(sim).all(), "unwritten outputs"
    tol = 2e-2 if type_name == "bfloat16" else 2e-3
    np.testing.assert_allclose(sim, ref, rtol=tol, atol=tol * 4)
    np.testing.assert_allclose(sim, inter, rtol=tol, atol=tol * 4)


def test_batches_do_not_mix_on_tensor_cores():
    """Batch b of C depends on batch b of A and B only: the slices are not swapped or summed."""
    tile = (16, 16, 16, 4)
    defines = _defines("half", tile)
    module = Compilation(BMM, CompileOptions(defines=defines, num_warps=1, num_stages=2, arch="sm_90")).ttgir
    A = np.zeros((4, 16, 16), np.float16)
    B = np.zeros((4, 16, 16), np.float16)
    for b in range(4):
        A[b] = b + 1
        B[b] = 1
    C = np.full((4, 16, 16), np.nan, np.float16)
    run_kernel(module, "bmm", (1, 1, 1), _args(A, B, C), arch="sm_90")
    for b in range(4):
        assert (C[b] == 16 * (b + 1)).all(), b
