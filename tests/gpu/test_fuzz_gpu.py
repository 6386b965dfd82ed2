"""The bounded differential run on the GPU: generated programs on a fixed list of seeds,
interpreter against the GPU through the generated Python module, for sm_90 and sm_90a
(``make gpu-fuzz`` draws fresh seeds). Skipped without an NVIDIA GPU, its driver and torch."""
from __future__ import annotations

import pytest
from test_spec_gpu import GPU_ARCH

from tritonc.fuzz.runner import fuzz

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None or not GPU_ARCH.startswith("sm_9"),
                                                 reason="no Hopper GPU and driver")]

SEEDS = [(101, 50), (202, 50), (303, 50), (404, 50)]


@pytest.mark.parametrize("seed,count", SEEDS, ids=[f"seed{s}" for s, _ in SEEDS])
def test_generated_programs_agree_on_gpu(seed, count):
    pytest.importorskip("torch")
    stats = fuzz(count, seed, target="gpu", shrink=False)
    assert stats.programs == count
    assert not stats.failures, "\n".join(f.report() for f in stats.failures)
