"""Minimal reproducers of compiler gaps found while writing the example kernels.

Each test states what the language (or the legacy kernels it must run) needs. A gap still open
is marked ``xfail(strict=True)``, so fixing it makes the test pass and the marker must go.
"""
import re

import pytest

from tritonc.driver import Compilation
from tritonc.ir.layouts import BlockedLayout
from tritonc.ir.types import TileType
from tritonc.options import CompileOptions

# The lock idiom of legacy triton.ops.matmul (split-K) and of examples/splitk_matmul.tri.
SPIN_LOCK = """__global__ void locked_add(int *lock, float *out, float *x) {
  int r[128] = 0 ... 128;
  while (atomic_cas(lock, 0, 1) == 1);
  *(out + r) = *(out + r) + *(x + get_program_id(0) * 128 + r);
  atomic_xchg(lock, 0);
}
"""

FENCE = re.compile(r"\b(membar\.(gl|sys)|fence\.(sc|acq_rel)\.(gpu|sys))\b")
BARRIER = re.compile(r"\b(bar\.sync|barrier\.sync)\b")


def _lines(ptx: str, pattern: str) -> list[int]:
    return [i for i, line in enumerate(ptx.splitlines()) if re.search(pattern, line)]


def test_spin_lock_critical_section_is_fenced():
    """Scalar atomics order the critical section against other program instances: a gpu-scope
    fence and a CTA barrier between the protected stores and the unlock (without them
    examples/splitk_matmul.tri was wrong in 30 of 30 H200 runs; with them right in 30 of 30)."""
    ptx = Compilation(SPIN_LOCK, CompileOptions(arch="sm_90")).ptx
    lines = ptx.splitlines()
    exch = _lines(ptx, r"atom\.[\w.]*exch")
    stores = _lines(ptx, r"st\.global")
    assert exch and stores and _lines(ptx, r"atom\.[\w.]*cas")
    # ordering between program instances: a gpu-scope fence, or acquire/release atomics
    assert FENCE.search(ptx) or re.search(r"atom\.(acquire|release|acq_rel)", ptx), "no gpu-scope ordering"
    # every thread's protected stores are done before thread 0 unlocks
    release = "\n".join(lines[stores[-1]:exch[-1]])
    assert BARRIER.search(release), "no CTA barrier between the protected stores and the unlock"


COPY_2D = """__global__ void copy2d(float *Y, float *X) {
  int r0[32] = 0 ... 32;
  int r1[32] = 0 ... 32;
  float x[32, 32] = *(X + r0[:, newaxis] * 32 + r1[newaxis, :]);
  *(Y + r0[:, newaxis] * 32 + r1[newaxis, :]) = x;
}
"""

COPY_3D = """__global__ void copy3d(float *Y, float *X) {
  int r0[4] = 0 ... 4;
  int r1[32] = 0 ... 32;
  int r2[32] = 0 ... 32;
  float x[4, 32, 32] = *(X + r0[:, newaxis, newaxis] * 1024 + r1[newaxis, :, newaxis] * 32 + r2[newaxis, newaxis, :]);
  *(Y + r0[:, newaxis, newaxis] * 1024 + r1[newaxis, :, newaxis] * 32 + r2[newaxis, newaxis, :]) = x;
}
"""


# Was a gap (a tile built from broadcast ranges took the default layout of its [N, 1] operand:
# all 128 threads on the first axis, a [32, 32] tile replicated 4x, uncoalesced accesses);
# assign-layouts now builds around the coalesced layouts of the accesses (transforms/coalesce.py).
@pytest.mark.parametrize("src", [COPY_2D, COPY_3D], ids=["2d", "3d"])
def test_loaded_tile_layout_does_not_replicate(src):
    module = Compilation(src, CompileOptions(arch="sm_90")).ttgir
    loads = [op for f in module.functions for op in f.walk() if op.name == "tt.load"]
    assert loads
    for op in loads:
        t = op.result.type
        assert isinstance(t, TileType) and isinstance(t.layout, BlockedLayout)
        covered = t.layout.cta_tile()
        assert all(c <= s for c, s in zip(covered, t.shape)), f"{t.layout} replicates a {list(t.shape)} tile"
        assert t.layout.threads_per_warp[-1] > 1, f"{t.layout}: no two lanes of a warp on the contiguous axis"
