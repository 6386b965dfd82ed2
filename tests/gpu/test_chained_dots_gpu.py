"""Flash attention's forward (``tests/data/attention_fwd.tri``: two chained ``@`` with an
online softmax between them) on the GPU, for sm_90 (mma.sync) and sm_90a (wgmma), fp16, at a
ragged sequence length, against float64 numpy: the GPU side of
``tests/codegen/test_chained_dots.py``."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_spec_gpu import GPU_ARCH, launcher  # noqa: E402

from tritonc.driver import Compilation  # noqa: E402
from tritonc.options import CompileOptions  # noqa: E402

SOURCE = Path(__file__).resolve().parents[1] / "data" / "attention_fwd.tri"
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]


@pytest.mark.parametrize("arch, num_warps, bm, bn", [("sm_90a", 4, 64, 64), ("sm_90a", 8, 128, 64),
                                                     ("sm_90", 4, 64, 64), ("sm_90", 8, 128, 32)])
def test_attention_on_gpu(arch, num_warps, bm, bn):
    torch = pytest.importorskip("torch")
    S, BH, D = 300, 3, 64
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, defines={"BM": str(bm), "BN": str(bn)}))
    rng = np.random.default_rng(bm + bn)
    q, k, v = (rng.standard_normal((BH, S, D)).astype(np.float16) for _ in range(3))
    dq, dk, dv = (torch.from_numpy(x).cuda() for x in (q, k, v))
    out = torch.full((BH, S, D), float("nan"), dtype=torch.float16, device="cuda")
    launcher(comp).attention(dq, dk, dv, out, 0.125, S, grid=((S + bm - 1) // bm, BH))
    torch.cuda.synchronize()
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * 0.125
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    got = out.cpu().numpy().astype(np.float64)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, atol=1e-2, rtol=1e-2)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "attention.tri"


@pytest.mark.parametrize("arch, d, causal, type_name", [("sm_90a", 64, False, "half"), ("sm_90a", 64, True, "half"),
                                                        ("sm_90a", 128, True, "bfloat16"),
                                                        ("sm_90", 128, False, "half")])
def test_attention_example_on_gpu(arch, d, causal, type_name):
    """examples/attention.tri (BM = 128, BN = 64, 8 warps: the bench configuration) at a ragged
    sequence length against torch's scaled_dot_product_attention in float32."""
    torch = pytest.importorskip("torch")
    S, BH = 333, 3
    defines = {"TYPE": type_name, "D": str(d), "CAUSAL": str(int(causal)), "BM": "128", "BN": "64"}
    comp = Compilation(EXAMPLE, CompileOptions(arch=arch, num_warps=8, defines=defines))
    dt = torch.float16 if type_name == "half" else torch.bfloat16
    q, k, v = (torch.randn(BH, S, d, device="cuda", dtype=dt) for _ in range(3))
    out = torch.full((BH, S, d), float("nan"), dtype=dt, device="cuda")
    launcher(comp).attention(q, k, v, out, d ** -0.5, S, BH)
    torch.cuda.synchronize()
    want = torch.nn.functional.scaled_dot_product_attention(q.float()[None], k.float()[None], v.float()[None],
                                                           is_causal=causal, scale=d ** -0.5)[0]
    assert not torch.isnan(out).any()
    err = (out.float() - want).abs().max().item()
    assert err <= (1e-2 if type_name == "half" else 3e-2), err
