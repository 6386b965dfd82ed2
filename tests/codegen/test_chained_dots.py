"""Two chained ``@`` (flash attention's forward: ``s = q @ k``, an online softmax, then
``acc += p @ v`` with ``p`` computed in registers) compile on every arch. On sm_90a both dots
run on wgmma; the second one's A operand is written to shared memory by the CTA first. It was
an internal compiler error on sm_90a (issue 14): the accumulator's layout conversion sat
between the operands' shared-memory loads and the dot, so the loads were no longer the dot's
own. The interpreter's result is checked against numpy (softmax(q k^T * scale) v)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions

SOURCE = Path(__file__).resolve().parents[1] / "data" / "attention_fwd.tri"


@pytest.mark.parametrize("arch, num_warps, bm", [("sm_90a", 4, 64), ("sm_90a", 8, 128), ("sm_90", 4, 64),
                                                 ("sm_80", 4, 64)])
def test_attention_compiles_with_tensor_cores(arch, num_warps, bm):
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, defines={"BM": str(bm), "BN": "64"}))
    ptx = comp.ptx
    if arch == "sm_90a":
        # per warp group: q @ k is 4 k16 steps (D = 64), p @ v 4 more (BN = 64), each N = 64
        assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16", ptx)) == 8, ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx


def test_attention_interpreted_matches_numpy():
    S, BH, D = 100, 2, 64
    comp = Compilation(SOURCE, CompileOptions(defines={"BM": "64", "BN": "32"}))
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((BH, S, D)).astype(np.float16) for _ in range(3))
    out = np.full((BH, S, D), np.nan, np.float16)
    run_function(comp.ttir, "attention", ((S + 63) // 64, BH), [q, k, v, out, np.float32(0.125), S])
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * 0.125
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), ref, atol=2e-3, rtol=1e-2)
