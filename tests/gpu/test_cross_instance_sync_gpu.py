"""Program instances that synchronise through scalar atomics, on the GPU: a spin lock around a
read-modify-write that is not atomic, 2000 instances three times over (updates are lost if a
scalar atomic does not order the critical section against the other instances: the lock's
``atom.acq_rel.gpu``, codegen/llvm/atomics.py). Skipped without an NVIDIA GPU and driver, or
without torch."""
from __future__ import annotations

import pytest

from gpu_helpers import gpu_arch, launcher  # tests/gpu is on sys.path
from tritonc.driver import Compilation
from tritonc.options import CompileOptions

GPU_ARCH = gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]
ARCH = "sm_90a" if GPU_ARCH == "sm_90" else GPU_ARCH

LOCKED_COUNT = """__global__ void locked_count(int *lock, int *counts) {
  int r[64] = 0 ... 64;
  while (atomic_cas(lock, 0, 1) == 1) {}
  *(counts + r) = *(counts + r) + 1 + r;
  atomic_xchg(lock, 0);
}
"""


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_spin_lock_orders_the_critical_section(torch):
    mod = launcher(Compilation(LOCKED_COUNT, CompileOptions(arch=ARCH, num_warps=4), path="lock.tri"))
    lock = torch.zeros(1, dtype=torch.int32, device="cuda")
    counts = torch.zeros(64, dtype=torch.int32, device="cuda")
    programs = 2000
    for _ in range(3):
        mod.locked_count(lock, counts, grid=(programs,))
    torch.cuda.synchronize()
    want = 3 * programs * (1 + torch.arange(64, device="cuda", dtype=torch.int32))
    assert int(lock.item()) == 0
    assert torch.equal(counts, want), f"lost updates: {(want - counts).sum().item()} of {want.sum().item()}"

