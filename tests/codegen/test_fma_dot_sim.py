"""Matmuls on CUDA cores (the FMA dot: f32 without TF32, f16 into f32 with a K too short for
mma, i8 into i32) through the whole compiler, run on the CPU by the SIMT simulator.

``accelerate-matmul`` gives such a dot the accumulator layout of
:func:`~tritonc.transforms.accelerate_matmul.fma_layout` (a warp's lanes share their rows), and
``codegen/llvm/dot_fma.py`` stages A transposed with padded rows and reads each ``k``'s rows
and columns as vectors. The result must match a float64 reference on ragged sizes with the
output poisoned first, with A and B row- and column-major (the staging stores of A change
pattern with its load layout)."""
from __future__ import annotations

import pytest

from test_mma_sim import compile_matmul, run_matmul
from tritonc.driver import Compilation
from tritonc.ir.printer import print_module
from tritonc.options import CompileOptions
from tritonc.transforms.accelerate_matmul import fma_layout
from tritonc.ir.layouts import BlockedLayout

CASES = [
    # (defines, tile, num_warps, num_stages, sizes, tol)
    ({"TYPE": "float"}, (64, 128, 16), 4, 2, [(70, 130, 40), (64, 128, 16)], 1e-5),
    ({"TYPE": "float", "A_COL": "1"}, (32, 64, 8), 2, 1, [(33, 70, 20)], 1e-5),
    ({"TYPE": "float", "B_COL": "1"}, (64, 32, 16), 8, 2, [(65, 31, 33)], 1e-5),
    ({"TYPE": "half"}, (32, 64, 8), 4, 2, [(40, 70, 24)], 1e-3),  # K = 8: too short for mma
    ({"TYPE": "char", "ACC": "int", "OUT": "int"}, (32, 32, 16), 4, 1, [(35, 33, 40)], 0.0),
]


@pytest.mark.parametrize("defines, tile, num_warps, num_stages, sizes, tol", CASES,
                         ids=[f"{'-'.join(f'{k}={v}' for k, v in c[0].items())}-{c[1]}-w{c[2]}" for c in CASES])
def test_matmul_on_cuda_cores(defines, tile, num_warps, num_stages, sizes, tol):
    module = compile_matmul(defines, tile, num_warps, num_stages)
    text = print_module(module)
    assert "#ttg.mma" not in text
    want = fma_layout(tile[:2], num_warps)
    assert want is not None and f"size_per_thread=[{want.size_per_thread[0]},{want.size_per_thread[1]}]" in text
    for M, N, K in sizes:
        assert run_matmul(module, defines, tile, M, N, K) <= tol, (M, N, K)


def test_fma_layout_rows_per_warp_and_vector_columns():
    assert fma_layout((128, 128), 4) == BlockedLayout((32, 4), (1, 32), (4, 1), (1, 0))
    assert fma_layout((64, 64), 8) == BlockedLayout((8, 2), (1, 32), (8, 1), (1, 0))
    assert fma_layout((16, 256), 4) == BlockedLayout((4, 4), (1, 32), (4, 1), (1, 0))  # columns repeat
    assert fma_layout((2, 64), 4) is None   # fewer rows than warps
    assert fma_layout((64, 16), 4) is None  # under 32 columns
    assert fma_layout((64, 64, 2), 4) is None  # batched: unchanged
    assert fma_layout((64, 64, 1), 4) == BlockedLayout((16, 2, 1), (1, 32, 1), (4, 1, 1), (1, 0, 2))


def test_the_k_loop_reads_vectors():
    """A 128x128 float tile at 4 warps: 32 rows a thread (8 vectors of A) and 4 columns (one
    vector of B) per k, and no scalar shared-memory load."""
    from tritonc.tools.examples import by_name

    ptx = Compilation(by_name("matmul").path.parent.parent / "benchmarks" / "kernels" / "matmul.tri",
                      CompileOptions(defines={"TYPE": "float"}, tune={"TM": [128], "TN": [128], "TK": [16]},
                                     num_warps=4, num_stages=1, arch="sm_90")).ptx
    assert "ld.shared.v4.b32" in ptx
    assert "ld.shared.b32" not in ptx and "ld.shared.f32" not in ptx


def test_a_batched_dot_of_one_element_reads_vectors_too():
    """examples/bmm.tri in float at TB=1: the [128, 128, 1] accumulator gets the FMA layout
    and the k loop reads vectors; the result is right on ragged sizes."""
    import numpy as np

    from tritonc.simt import run_kernel
    from tritonc.tools.examples import by_name

    comp = Compilation(by_name("bmm").path, CompileOptions(
        defines={"TM": "32", "TN": "64", "TK": "16", "TB": "1"}, num_warps=2, num_stages=1, arch="sm_90"))
    assert "size_per_thread=[16,2,1]" in print_module(comp.ttgir)
    assert "ld.shared.v2.b32" in comp.ptx
    rng = np.random.default_rng(1)
    nb, m, n, k = 3, 40, 70, 24
    a = rng.standard_normal((nb, m, k)).astype(np.float32)
    b = rng.standard_normal((nb, k, n)).astype(np.float32)
    c = np.full((nb, m, n), np.nan, np.float32)
    grid = (-(-m // 32), -(-n // 64), nb)
    run_kernel(comp.ttgir, "bmm", grid, [a, b, c, m, n, k, nb, m * k, k, k * n, n, m * n, n], arch="sm_90")
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)
