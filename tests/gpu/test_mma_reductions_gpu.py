"""Reductions, element-wise ops and broadcasts on tensor-core accumulator layouts
(``tests/data/mma_reductions.tri``) on the GPU, mma.sync (sm_90) and wgmma (sm_90a), at 4 and
8 warps, against the interpreter: the GPU side of ``tests/codegen/test_mma_reductions_sim.py``."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_spec_gpu import GPU_ARCH, launcher  # noqa: E402

from tritonc.driver import Compilation  # noqa: E402
from tritonc.interpreter import run_function  # noqa: E402
from tritonc.options import CompileOptions  # noqa: E402

SOURCE = Path(__file__).resolve().parents[1] / "data" / "mma_reductions.tri"
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]


@pytest.mark.parametrize("arch, num_warps, tm, tn", [("sm_90", 4, 64, 64), ("sm_90", 8, 128, 32),
                                                     ("sm_90a", 4, 64, 64), ("sm_90a", 8, 128, 64)])
def test_mma_reductions_on_gpu(arch, num_warps, tm, tn):
    torch = pytest.importorskip("torch")
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, defines={"TM": str(tm), "TN": str(tn)}))
    rng = np.random.default_rng(tm + tn)
    a = rng.standard_normal((tm, 32)).astype(np.float16)
    b = rng.standard_normal((32, tn)).astype(np.float16)
    shapes = [(tm,)] * 3 + [(tn,)] * 3 + [(tm, tn), (1,)]
    want = [np.full(s, np.nan, np.float32) for s in shapes]
    run_function(comp.ttir, "mred", (1,), [a, b, *want])
    outs = [torch.full(s, float("nan"), dtype=torch.float32, device="cuda") for s in shapes]
    launcher(comp).mred(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), *outs, grid=(1,))
    torch.cuda.synchronize()
    for got, w in zip(outs, want):
        g = got.cpu().numpy()
        assert not np.isnan(g).any()
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-3)
