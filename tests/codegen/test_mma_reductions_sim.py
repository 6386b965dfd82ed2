"""Reductions (``+ max min``, along rows and columns, and a row slice down to a scalar),
element-wise ops and row statistics broadcast back (``m[:, newaxis]``) directly on a
tensor-core accumulator (``tests/data/mma_reductions.tri``): ``remove-layout-conversions``
keeps them in the mma layout (mma.sync v2 on sm_80, wgmma v3 on sm_90a) and
``codegen/llvm/reduce.py`` reduces over the lanes of the fragments (a row in a quad of lanes,
then across the warps that split it). The SIMT simulator's results must equal the
interpreter's at 4 and 8 warps."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.ir.layouts import MmaLayout, SliceLayout
from tritonc.ir.types import TileType
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SOURCE = Path(__file__).resolve().parents[1] / "data" / "mma_reductions.tri"

CASES = [  # arch, num_warps, TM, TN, mma version
    ("sm_80", 4, 64, 64, 2),
    ("sm_80", 8, 64, 64, 2),
    ("sm_80", 8, 128, 32, 2),
    ("sm_90a", 4, 64, 64, 3),
    ("sm_90a", 8, 128, 64, 3),
]


def _base(layout):
    while isinstance(layout, SliceLayout):
        layout = layout.parent
    return layout


def _arguments(tm: int, tn: int) -> list:
    rng = np.random.default_rng(tm + tn)
    a = rng.standard_normal((tm, 32)).astype(np.float16)
    b = rng.standard_normal((32, tn)).astype(np.float16)
    rows = [np.full(tm, np.nan, np.float32) for _ in range(3)]
    cols = [np.full(tn, np.nan, np.float32) for _ in range(3)]
    return [a, b, *rows, *cols, np.full((tm, tn), np.nan, np.float32), np.full(1, np.nan, np.float32)]


@pytest.mark.parametrize("arch, num_warps, tm, tn, version", CASES,
                         ids=[f"{c[0]}-w{c[1]}-{c[2]}x{c[3]}" for c in CASES])
def test_reductions_on_mma_layouts(arch, num_warps, tm, tn, version):
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, defines={"TM": str(tm), "TN": str(tn)}))
    reduces = [op for op in comp.ttgir.walk() if op.name == "tt.reduce"]
    assert len(reduces) == 7
    for op in reduces:
        base = _base(op.operands[0].type.layout)
        assert isinstance(base, MmaLayout) and base.version == version, op.operands[0].type
        if isinstance(op.result.type, TileType):
            assert op.result.type.layout == SliceLayout(op.attrs["axis"], op.operands[0].type.layout)
    # exp, the division and the broadcasts of the row statistics run on the accumulator's layout
    for op in comp.ttgir.walk():
        if op.name in ("math.exp", "arith.divf", "tt.broadcast") and getattr(op.result.type.element, "is_float", False):
            assert isinstance(_base(op.result.type.layout), MmaLayout), op.name
    got = _arguments(tm, tn)
    run_kernel(comp.ttgir, "mred", (1,), got, arch=arch)
    want = _arguments(tm, tn)
    run_function(comp.ttir, "mred", (1,), want)
    for g, w in zip(got[2:], want[2:]):
        assert not np.isnan(g).any()
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-4)
