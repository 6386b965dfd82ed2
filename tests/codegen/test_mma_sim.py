"""Tensor-core matmuls through the whole compiler, run on the CPU by the SIMT simulator.

Each case compiles ``benchmarks/kernels/matmul.tri`` (or ``examples/matmul.tri``) through the
default pipeline (``accelerate-matmul``, ``software-pipeline``, the shared-memory plan), lowers
it to LLVM IR and runs every CTA in ``tritonc.simt``, which models ``ldmatrix``, ``mma.sync`` and
``cp.async`` (with their wait groups) from the PTX definitions; the result must match a float64
reference on ragged sizes with the output poisoned first. This checks the index math of the
lowering (fragments, swizzle, ring slots, masks) without a GPU.
"""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tritonc.simt import run_kernel
from tritonc.driver import Compilation
from tritonc.ir.printer import print_module
from tritonc.options import CodegenOptions, CompileOptions

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "benchmarks" / "kernels" / "matmul.tri"
NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "char": np.int8}


def compile_matmul(defines, tile, num_warps, num_stages, allow_tf32=False, path=KERNEL, arch="sm_90",
                   codegen: CodegenOptions | None = None):
    TM, TN, TK = tile
    opts = CompileOptions(defines=dict(defines), tune={"TM": [TM], "TN": [TN], "TK": [TK]}, num_warps=num_warps,
                          num_stages=num_stages, allow_tf32=allow_tf32, arch=arch, codegen=codegen or CodegenOptions())
    return Compilation(path, opts).ttgir


def run_matmul(module, defines, tile, M, N, K, seed=0, arch="sm_90"):
    rng = np.random.default_rng(seed)
    TM, TN, _ = tile
    t = defines.get("TYPE", "half")
    dt = NP[t]
    out_dt = np.int32 if t == "char" else dt
    acol, bcol = defines.get("A_COL") == "1", defines.get("B_COL") == "1"

    def r8(x):
        return (x + 7) // 8 * 8

    if t == "char":
        a = rng.integers(-100, 100, (M, K)).astype(np.int8)
        b = rng.integers(-100, 100, (K, N)).astype(np.int8)
    else:
        a = rng.standard_normal((M, K)).astype(dt)
        b = rng.standard_normal((K, N)).astype(dt)
    A = np.zeros((K, r8(M)) if acol else (M, r8(K)), dtype=dt)
    B = np.zeros((N, r8(K)) if bcol else (K, r8(N)), dtype=dt)
    if acol:
        A[:, :M] = a.T
    else:
        A[:, :K] = a
    if bcol:
        B[:, :K] = b.T
    else:
        B[:, :N] = b
    C = np.full((M, r8(N)), -7 if t == "char" else np.nan, dtype=out_dt)
    grid = (-(-M // TM) * -(-N // TN),)
    run_kernel(module, "matmul", grid, [A, B, C, M, N, K, A.shape[1], B.shape[1], C.shape[1]], arch=arch)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    got = C[:, :N].astype(np.float64)
    assert not np.isnan(got).any(), "unwritten outputs"
    return np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30)


CASES = [
    # (defines, tile, num_warps, num_stages, sizes, tolerance)
    ({}, (64, 64, 32), 4, 3, [(70, 33, 100), (20, 17, 5), (64, 64, 64)], 1e-3),
    ({"TYPE": "bfloat16", "A_COL": "1", "B_COL": "1"}, (64, 128, 32), 8, 4, [(70, 130, 72)], 1e-2),
    ({"A_COL": "1"}, (32, 32, 32), 1, 2, [(33, 40, 200)], 1e-3),
    ({"B_COL": "1"}, (64, 64, 32), 4, 1, [(65, 64, 48)], 1e-3),
    ({"TYPE": "char", "ACC": "int", "OUT": "int"}, (64, 64, 64), 4, 3, [(70, 33, 100)], 0.0),
    # the cost model's pick for the 64x64x16 convolutions and split-K (5 stages, K = 16 per step)
    ({}, (64, 64, 16), 4, 5, [(70, 33, 100), (64, 64, 16)], 1e-3),
]


@pytest.mark.parametrize("defines, tile, num_warps, num_stages, sizes, tol", CASES,
                         ids=[f"{c[0] or 'f16'}-{c[1]}-w{c[2]}-s{c[3]}" for c in CASES])
def test_matmul_on_tensor_cores(defines, tile, num_warps, num_stages, sizes, tol):
    module = compile_matmul(defines, tile, num_warps, num_stages)
    text = print_module(module)
    assert "#ttg.mma<version=2" in text
    if num_stages > 1 and defines.get("TYPE") != "char":
        assert "ttg.async_copy_global_to_local" in text
    for M, N, K in sizes:
        assert run_matmul(module, defines, tile, M, N, K) <= tol, (M, N, K)


WGMMA_CASES = [
    # (defines, tile, num_warps, num_stages, sizes): one warp group and two, every operand
    # major (B row-major and A column-major are MN-major: the transpose bits), 128-, 64- and
    # 32-byte swizzles, two N chunks of 256, and both pipelined schedules (a second barrier
    # with S <= 4, copies between the dot and its wait with S > 4) and the unpipelined loop
    ({}, (64, 64, 32), 4, 3, [(70, 33, 100), (20, 17, 5), (64, 64, 64)]),
    ({}, (64, 64, 64), 4, 5, [(65, 64, 300)]),
    ({"TYPE": "bfloat16", "A_COL": "1", "B_COL": "1"}, (128, 128, 32), 8, 4, [(130, 70, 72)]),
    ({"A_COL": "1"}, (64, 128, 32), 4, 2, [(33, 140, 40)]),
    ({"B_COL": "1"}, (64, 64, 32), 4, 1, [(65, 64, 48)]),
    ({}, (128, 512, 64), 8, 3, [(128, 300, 64)]),
]


@pytest.mark.parametrize("defines, tile, num_warps, num_stages, sizes", WGMMA_CASES,
                         ids=[f"{c[0] or 'f16'}-{c[1]}-w{c[2]}-s{c[3]}" for c in WGMMA_CASES])
def test_matmul_on_wgmma(defines, tile, num_warps, num_stages, sizes):
    module = compile_matmul(defines, tile, num_warps, num_stages, arch="sm_90a")
    assert "#ttg.mma<version=3" in print_module(module)
    tol = 1e-2 if defines.get("TYPE") == "bfloat16" else 1e-3
    for M, N, K in sizes:
        assert run_matmul(module, defines, tile, M, N, K, arch="sm_90a") <= tol, (M, N, K)


def test_tf32_matmul():
    defines = {"TYPE": "float"}
    module = compile_matmul(defines, (64, 64, 32), 4, 3, allow_tf32=True)
    assert "mma" in print_module(module)
    assert run_matmul(module, defines, (64, 64, 32), 70, 33, 100) < 2e-3


def test_examples_matmul_128x256():
    """The benchmark configuration (8 warps, warp tiles of 64 x 64, 3 stages) on examples/matmul.tri."""
    module = compile_matmul({}, (128, 256, 64), 8, 3, path=ROOT / "examples" / "matmul.tri")
    rng = np.random.default_rng(1)
    M, N, K = 130, 250, 136
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, 256)).astype(np.float16)
    C = np.full((M, 256), np.nan, dtype=np.float16)
    run_kernel(module, "matmul", (2, 1), [A, B, C, M, N, K, K, 256, 256])
    ref = A.astype(np.float64) @ B[:, :N].astype(np.float64)
    assert np.linalg.norm(C[:, :N] - ref) / np.linalg.norm(ref) < 1e-3


EPILOGUE = """
__global__ void mm_epi(half *A __noalias __readonly __aligned(16), half *B __noalias __readonly __aligned(16),
                       half *C __noalias __aligned(16), float *bias __noalias __readonly __aligned(16),
                       float alpha, int M, int N, int K,
                       int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int rm[64] = get_program_id(0) * 64 + 0 ... 64;
  int rn[64] = get_program_id(1) * 64 + 0 ... 64;
  int rk[32] = 0 ... 32;
  half *pa[64, 32] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  half *pb[32, 64] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
  float acc[64, 64] = 0;
  for (int k = K; k > 0; k -= 32) {
    half a[64, 32] = (rm[:, newaxis] < M && rk[newaxis, :] < k) ? *pa : (half)0;
    half b[32, 64] = (rk[:, newaxis] < k && rn[newaxis, :] < N) ? *pb : (half)0;
    acc += a @ b;
    pa += 32;
    pb += 32 * ldb;
  }
  float bv[64] = (rn < N) ? *(bias + rn) : 0.0f;
  float y[64, 64] = acc * alpha + bv[newaxis, :];
  y = max(y, 0.0f);
  half c[64, 64] = y;
  bool checkc[64, 64] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc *(C + rm[:, newaxis] * ldc + rn[newaxis, :]) = c;
}
"""


def test_fused_epilogue_runs_in_the_mma_layout():
    """relu(alpha * acc + bias) -> half is computed on the accumulator registers (mma layout);
    one conversion, of the halves, feeds the store."""
    module = Compilation(EPILOGUE, CompileOptions(num_warps=4, arch="sm_90")).ttgir
    text = print_module(module)
    epilogue = text[text.rindex("scf.yield"):]
    for op in ("arith.mulf", "arith.addf", "arith.maxnumf", "arith.truncf"):
        line = next(l for l in epilogue.splitlines() if op in l)
        assert "#mma" in line, line
    assert [l for l in epilogue.splitlines() if "ttg.convert_layout" in l and "[64,64]" in l][0].count("f16") == 1
    rng = np.random.default_rng(0)
    M, N, K = 70, 90, 100
    A = rng.standard_normal((M, 104)).astype(np.float16)
    B = rng.standard_normal((K, 96)).astype(np.float16)
    bias = rng.standard_normal(96).astype(np.float32)
    C = np.full((M, 96), np.nan, np.float16)
    run_kernel(module, "mm_epi", (2, 2), [A, B, C, bias, np.float32(0.5), M, N, K, 104, 96, 96])
    ref = np.maximum(0.5 * (A[:, :K].astype(np.float64) @ B[:, :N].astype(np.float64)) + bias[:N], 0)
    assert not np.isnan(C[:, :N]).any()
    np.testing.assert_allclose(C[:, :N].astype(np.float64), ref, rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("defines, tile, num_warps, num_stages", [
    ({}, (64, 64, 32), 4, 3), ({"A_COL": "1", "TYPE": "bfloat16"}, (64, 128, 64), 8, 2),
    ({"B_COL": "1"}, (32, 32, 64), 1, 4)])
def test_k_slice_prefetch(defines, tile, num_warps, num_stages):
    """software-pipeline's K-slice prefetch (one barrier per trip, before the last slice)."""
    module = compile_matmul(defines, tile, num_warps, num_stages, codegen=CodegenOptions(slice_prefetch="on"))
    text = print_module(module)
    assert "ttg.memdesc_subslice" in text and text.count("tt.dot") == tile[2] // 16
    tol = 1e-2 if defines.get("TYPE") == "bfloat16" else 1e-3
    for M, N, K in [(70, 33, 100), (20, 17, 5), (64, 128, 192)]:
        assert run_matmul(module, defines, tile, M, N, K) <= tol, (M, N, K)


@pytest.mark.parametrize("arch, stages, instruction", [("sm_90a", 4, "version=3"), ("sm_90", 4, "version=2"),
                                                       ("sm_80", 3, "version=2")])
def test_default_build_of_examples_matmul_on_its_declared_grid(arch, stages, instruction):
    """What ``tritonc examples/matmul.tri --arch ARCH`` builds with no other option (the cost
    model's 128x256x64, 8 warps; docs/tuning.md), launched on the grid the kernel declares."""
    from tritonc.launcher.grid import evaluate_grid

    comp = Compilation(ROOT / "examples" / "matmul.tri", CompileOptions(arch=arch))
    assert (comp.tunables, comp.num_warps, comp.num_stages) == ({"TM": 128, "TN": 256, "TK": 64}, 8, stages)
    module = comp.ttgir
    assert f"#ttg.mma<{instruction}" in print_module(module)
    rng = np.random.default_rng(2)
    M, N, K = 130, 300, 136
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, 304)).astype(np.float16)
    C = np.full((M, 304), np.nan, dtype=np.float16)
    args = dict(M=M, N=N, K=K, lda=K, ldb=304, ldc=304)
    grid = evaluate_grid(comp.grids["matmul"], args)
    assert grid == (2, 2)
    run_kernel(module, "matmul", grid, [A, B, C, M, N, K, K, 304, 304], arch=arch)
    ref = A.astype(np.float64) @ B[:, :N].astype(np.float64)
    assert np.linalg.norm(C[:, :N] - ref) / np.linalg.norm(ref) < 1e-3
    assert np.isnan(C[:, N:]).all()  # nothing written past N


def test_default_build_of_paper_matmul_on_its_declared_grid():
    """examples/paper_matmul.tri (B stored [N, K], fp32 C) as built with no option on sm_90a."""
    from tritonc.launcher.grid import evaluate_grid

    comp = Compilation(ROOT / "examples" / "paper_matmul.tri", CompileOptions(arch="sm_90a"))
    assert comp.tunables == {"TM": 128, "TN": 256, "TK": 64} and comp.num_warps == 8
    rng = np.random.default_rng(3)
    M, N, K = 130, 260, 72
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((N, K)).astype(np.float16)
    C = np.full((M, 264), np.nan, dtype=np.float32)
    grid = evaluate_grid(comp.grids["paper_matmul"], dict(M=M, N=N, K=K))
    assert grid == (2, 2)
    run_kernel(comp.ttgir, "paper_matmul", grid, [A, B, C, M, N, K, K, K, 264], arch="sm_90a")
    ref = A.astype(np.float64) @ B.astype(np.float64).T
    assert np.linalg.norm(C[:, :N] - ref) / np.linalg.norm(ref) < 1e-3
