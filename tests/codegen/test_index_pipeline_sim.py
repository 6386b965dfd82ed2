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
from tritonc.ir.types import TileType
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
    args = lambda C: [blocks, B, C, lut, N, B.shape[1], C.shape[1], 4 * block]  # noqa: E731
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


def _conv_reference(X, W, stride, pad):
    N, C, H, Wd = X.shape
    K, _, R, S = W.shape
    P, Q = (H + 2 * pad - R) // stride + 1, (Wd + 2 * pad - S) // stride + 1
    Xp = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    Y = np.zeros((N, K, P, Q))
    for r in range(R):
        for s in range(S):
            patch = Xp[:, :, r:r + stride * (P - 1) + 1:stride, s:s + stride * (Q - 1) + 1:stride]
            Y += np.einsum("nchw,kc->nkhw", patch, W[:, :, r, s].astype(np.float64))
    return Y


@pytest.mark.parametrize("type_name,stride,pad,stages,arch", [("float", 1, 1, 3, "sm_80"), ("float", 2, 1, 4, "sm_80"),
                                                              ("half", 1, 1, 3, "sm_80"), ("half", 2, 0, 3, "sm_90a")])
def test_conv2d_offset_table_loop_is_pipelined(type_name, stride, pad, stages, arch):
    """examples/conv2d.tri. In float with --allow-tf32 (mma.sync m16n8k8 tf32) the operands
    are 4-byte cp.async copies, the offsets AOFF[k] loaded stages ahead; in half no operand
    can be a cp.async copy (2-byte runs), so both are staged through registers one trip
    ahead (the offsets with them)."""
    tiles = {"TM": "64", "TN": "32", "TK": "16"}
    defines = dict(tiles, TYPE=type_name)
    module = Compilation(EXAMPLES / "conv2d.tri", CompileOptions(defines=defines, num_warps=4, num_stages=stages,
                                                                 arch=arch, allow_tf32=True, kernel="conv2d")).ttgir
    loops = _ops(module, "scf.for")
    if type_name == "float":
        assert _ops(module, "ttg.async_copy_global_to_local"), "the conv2d loop was not pipelined"
    else:
        # staged: the loop carries the next trip's A and B tiles, widened to i32 (their halves in
        # 32-bit registers of their own)
        staged = [r for r in loops[0].results
                  if isinstance(r.type, TileType) and r.type.rank == 2 and r.type.element.name == "i32"]
        assert len(loops) == 1 and len(staged) == 2
    rng = np.random.default_rng(stride)
    N, C, H, Wd, K, R, S = 2, 3, 9, 10, 20, 3, 3
    dt = np.float32 if type_name == "float" else np.float16
    X = rng.standard_normal((N, C, H, Wd)).astype(dt)
    W = rng.standard_normal((K, C, R, S)).astype(dt)
    P, Q = (H + 2 * pad - R) // stride + 1, (Wd + 2 * pad - S) // stride + 1
    i = np.arange(C * R * S)
    aoff = ((i // (R * S)) * H * Wd + (i // S) % R * Wd + i % S).astype(np.int32)
    M, CRS = N * P * Q, C * R * S
    grid = (-(-M // 64), -(-K // 32))

    def args(Y):
        return [X, W, Y, aoff, M, K, CRS, H, Wd, R, S, P, Q, stride, stride, pad, pad,
                C * H * Wd, Wd, CRS, K * P * Q, P * Q, Q]
    Y_sim = np.full((N, K, P, Q), np.nan, dt)
    run_kernel(module, "conv2d", grid, args(Y_sim), arch=arch)
    Y_int = np.full_like(Y_sim, np.nan)
    tritonc.interpret(EXAMPLES / "conv2d.tri", "conv2d", grid, *args(Y_int), defines=defines)
    want = _conv_reference(X, W, stride, pad)
    assert np.isfinite(Y_sim).all()
    scale = np.abs(want).max()
    Y_sim, Y_int = Y_sim.astype(np.float64), Y_int.astype(np.float64)
    np.testing.assert_allclose(Y_sim, want, rtol=0, atol=1e-2 * scale)  # TF32 / fp16: 10-bit mantissas
    np.testing.assert_allclose(Y_sim, Y_int, rtol=0, atol=1e-2 * scale)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_shift_conv_shift_table_loop_is_staged(arch):
    """examples/shift_conv.tri in half: the per-channel shift loads (SHIFT_H, SHIFT_W) feed A's
    addresses and bounds; both operands are staged through registers one trip ahead."""
    defines = {"TYPE": "half", "TM": "64", "TN": "32", "TK": "16"}
    module = Compilation(EXAMPLES / "shift_conv.tri", CompileOptions(defines=defines, num_warps=4, num_stages=3,
                                                                     arch=arch)).ttgir
    loops = _ops(module, "scf.for")
    staged = [r for r in loops[0].results
              if isinstance(r.type, TileType) and r.type.rank == 2 and r.type.element.name == "i32"]
    assert len(loops) == 1 and len(staged) == 2
    rng = np.random.default_rng(11)
    N, C, H, Wd, K = 2, 37, 5, 7, 40
    X = rng.standard_normal((N, C, H, Wd)).astype(np.float16)
    W = (rng.standard_normal((K, C)) / 4).astype(np.float16)
    dh = rng.integers(-2, 3, C).astype(np.int32)
    dw = rng.integers(-2, 3, C).astype(np.int32)
    M = N * H * Wd
    grid = (-(-M // 64), -(-K // 32))

    def args(Y):
        return [X, W, Y, dh, dw, M, K, C, H, Wd, C * H * Wd, H * Wd, C, K * H * Wd, H * Wd]
    Y_sim = np.full((N, K, H, Wd), np.nan, np.float16)
    run_kernel(module, "shift_conv", grid, args(Y_sim), arch=arch)
    Y_int = np.full_like(Y_sim, np.nan)
    tritonc.interpret(EXAMPLES / "shift_conv.tri", "shift_conv", grid, *args(Y_int), defines=defines)
    S = np.zeros((N, C, H, Wd))
    for c in range(C):
        for h in range(H):
            for w in range(Wd):
                if 0 <= h + dh[c] < H and 0 <= w + dw[c] < Wd:
                    S[:, c, h, w] = X[:, c, h + dh[c], w + dw[c]]
    want = np.einsum("nchw,kc->nkhw", S, W.astype(np.float64))
    got = Y_sim.astype(np.float64)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-2)
    np.testing.assert_allclose(got, Y_int.astype(np.float64), rtol=1e-2, atol=2e-2)
