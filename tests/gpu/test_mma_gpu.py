"""Tensor-core matmuls on the GPU: ``benchmarks/kernels/matmul.tri`` through the default
pipeline and the generated Python launcher, against a float64 torch reference, for f16 and
bf16, row- and column-major operands, ragged sizes (K shorter than the pipeline's prologue
included), 1/4/8 warps and 1 to 4 pipeline stages (``bench_matmul.test_cases``); and the
split-K example (spin-locked epilogue) on tensor cores. Outputs are poisoned first; every
element must be written and nothing past C. Skipped without torch and a GPU.

With ``TRITONC_PREBUILT=DIR`` the launcher modules are read from ``DIR`` (written elsewhere by
``python -m tritonc.tools.bench_matmul --prebuild DIR``) instead of being compiled here."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

from tritonc.options import CompileOptions  # noqa: E402
from tritonc.tools.bench_matmul import ROOT, Row, check, compile_row, load_module  # noqa: E402
from tritonc.tools.bench_matmul import test_cases as mma_test_cases  # noqa: E402

pytestmark = pytest.mark.gpu

SIZES = [(333, 517, 250), (100, 70, 40), (64, 64, 16), (1, 8, 1000)]
CASES = mma_test_cases()


_CAP = torch.cuda.get_device_capability()
NATIVE = f"sm_{_CAP[0]}{_CAP[1]}" if f"sm_{_CAP[0]}{_CAP[1]}" in ("sm_80", "sm_86", "sm_89", "sm_90") else "sm_80"
#: Every case runs for the GPU's own architecture (mma.sync) and, on Hopper, for sm_90a (wgmma).
ARCHS = [NATIVE] + (["sm_90a"] if _CAP == (9, 0) else [])


@pytest.fixture(scope="module")
def arch():
    return NATIVE


@pytest.mark.parametrize("target", ARCHS)
@pytest.mark.parametrize("cfg, dtype, a_col, b_col", CASES,
                         ids=[f"{c[1]}-{'T' if c[2] else 'N'}{'T' if c[3] else 'N'}-{c[0]}".replace(" ", "_")
                              for c in CASES])
def test_mma_matmul(cfg, dtype, a_col, b_col, target, tmp_path):
    mod, _ = compile_row(Row("test", dtype, a_col, b_col, SIZES[0], cfg), target, tmp_path)
    for size in SIZES:
        r = Row("test", dtype, a_col, b_col, size, cfg)
        for seed in (0, 1):
            ok, err, msg = check(torch, mod, r, seed=seed)
            assert ok, f"{size} seed {seed}: {msg} (error {err:.3g})"


SPLITK_DEFINES = {"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "SPLITK": "4", "GROUP_M": "8"}


def splitk_module(arch, outdir):
    options = CompileOptions(defines=SPLITK_DEFINES, arch=arch, num_warps=4)
    return load_module(f"splitk_matmul_{arch}", ROOT / "examples" / "splitk_matmul.tri", options, outdir)[0]


@pytest.mark.parametrize("M, N, K", [(33, 8, 1000), (1001, 776, 550), (100, 200, 3001)])
def test_splitk_example_on_tensor_cores(M, N, K, arch, tmp_path):
    """fp32 atomic adds of the partial tiles into a zeroed C, on the declared grid."""
    mod = splitk_module(arch, tmp_path)
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a = torch.randn(M, -(-K // 8) * 8, device="cuda", generator=g).half()[:, :K]
    b = torch.randn(K, N, device="cuda", generator=g).half()
    c = torch.zeros((M, N), device="cuda", dtype=torch.float32)
    mod.splitk_matmul(a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    assert torch.isfinite(c).all()
    assert ((c.double() - ref).norm() / ref.norm()).item() < 1e-2
