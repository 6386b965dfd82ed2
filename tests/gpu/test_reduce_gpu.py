"""Reductions along every axis at 4, 8 and 16 warps on the GPU (``reduction_cases.py``),
through the generated Python launcher, against numpy: the GPU side of
``tests/codegen/test_reduce_sim.py`` (issue 10)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "codegen"))
import reduction_cases as R  # noqa: E402
from test_spec_gpu import GPU_ARCH, launcher, to_device, to_host  # noqa: E402

from tritonc.driver import Compilation  # noqa: E402
from tritonc.options import CompileOptions  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]


@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
@pytest.mark.parametrize("num_warps", R.NUM_WARPS)
@pytest.mark.parametrize("case", sorted(R.SHAPES))
def test_reductions_along_every_axis_on_gpu(case, num_warps, arch):
    torch = pytest.importorskip("torch")
    shape, extent = R.SHAPES[case]
    comp = Compilation(R.source(shape), CompileOptions(num_warps=num_warps, arch=arch))
    args = R.arguments(shape, extent, seed=100 + num_warps)
    dev = [to_device(torch, a) for a in args]
    launcher(comp).red(*dev, grid=(1,))
    torch.cuda.synchronize()
    out = [to_host(torch, d, a) if isinstance(a, np.ndarray) else a for d, a in zip(dev, args)]
    R.check(shape, extent, out)
