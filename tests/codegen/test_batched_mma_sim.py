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


ALIGNED_BMM = """
__global__ void bmm(half *A __noalias __readonly __aligned(16), half *B __noalias __readonly __aligned(16),
                    half *C __noalias __aligned(16), int M, int N, int K, int BATCH,
                    int stride_ab __multipleof(8), int stride_am __multipleof(8),
                    int stride_bb __multipleof(8), int stride_bk __multipleof(8),
                    int stride_cb, int stride_cm) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;
  int rb[TB] = get_program_id(2) * TB + 0 ... TB;
  int rk[TK] = 0 ... TK;
  half *pa[TM, TK, TB] = A + rm[:, newaxis, newaxis] * stride_am + rk[newaxis, :, newaxis]
                           + rb[newaxis, newaxis, :] * stride_ab;
  half *pb[TK, TN, TB] = B + rk[:, newaxis, newaxis] * stride_bk + rn[newaxis, :, newaxis]
                           + rb[newaxis, newaxis, :] * stride_bb;
  bool checkam[TM, TK, TB] = rm[:, newaxis, newaxis] < M && rb[newaxis, newaxis, :] < BATCH;
  bool checkbn[TK, TN, TB] = rn[newaxis, :, newaxis] < N && rb[newaxis, newaxis, :] < BATCH;
  float acc[TM, TN, TB] = 0;
  for (int k = K; k > 0; k -= TK) {
    half a[TM, TK, TB] = checkam && rk[newaxis, :, newaxis] < k ? *pa : 0;
    half b[TK, TN, TB] = checkbn && rk[:, newaxis, newaxis] < k ? *pb : 0;
    acc += a @ b;
    pa += TK;
    pb += TK * stride_bk;
  }
  half c[TM, TN, TB] = acc;
  half *pc[TM, TN, TB] = C + rm[:, newaxis, newaxis] * stride_cm + rn[newaxis, :, newaxis]
                           + rb[newaxis, newaxis, :] * stride_cb;
  *?(rm[:, newaxis, newaxis] < M && rn[newaxis, :, newaxis] < N && rb[newaxis, newaxis, :] < BATCH) pc = c;
}
"""


@pytest.mark.parametrize("arch,stages", [("sm_80", 3), ("sm_90a", 3), ("sm_90a", 4)])
def test_batched_operands_are_pipelined_with_cp_async(arch, stages):
    """With aligned strides, the 2-D slices of the batched operands are cp.async copies into
    rings (the 3-D loads and pointers were split per batch element by unbatch-dots)."""
    tile = (64, 32, 32, 2)
    defines = {"TM": "64", "TN": "32", "TK": "32", "TB": "2"}
    module = Compilation(ALIGNED_BMM, CompileOptions(defines=defines, num_warps=4, num_stages=stages, arch=arch)).ttgir
    copies = [op for op in module.walk() if op.name == "ttg.async_copy_global_to_local"]
    assert copies and all(op.attrs["vec"] == 8 for op in copies)
    batch, M, N, K = 3, 70, 40, 100
    rng = np.random.default_rng(5)
    A = np.zeros((batch, M, 104), np.float16)
    A[:, :, :K] = rng.standard_normal((batch, M, K))
    B = np.zeros((batch, K, 40), np.float16)
    B[:] = rng.standard_normal((batch, K, 40))
    C = np.full((batch, M, N), np.nan, np.float16)
    args = [A, B, C, M, N, K, batch, M * 104, 104, K * 40, 40, M * N, N]
    run_kernel(module, "bmm", _grid(batch, M, N, tile), args, arch=arch)
    ref = A[:, :, :K].astype(np.float64) @ B.astype(np.float64)
    assert np.isfinite(C).all()
    np.testing.assert_allclose(C.astype(np.float64), ref, rtol=2e-3, atol=8e-3)
