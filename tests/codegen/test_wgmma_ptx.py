"""The Hopper matmul in PTX (``--arch sm_90a``): ``wgmma.mma_async`` from shared-memory
descriptors, the proxy fence before each barrier, 1024-byte aligned shared memory, the
transpose bits of column-major operands, and ptxas resource usage (no spills, no wgmma
serialisation warnings)."""
from __future__ import annotations

import re

import pytest

from tritonc.codegen.cubin import assemble_ptx
from tritonc.codegen.target import Target

from test_mma_ptx import EXAMPLE, KERNEL, filecheck, ptx_of  # tests/codegen is on sys.path

# 128x256x64 on 8 warps (two warp groups of 64 x 256), 4 stages: the prologue copies three
# tiles; per trip: wait for this trip's slot, fence the generic-proxy writes for the async
# proxy, barrier, four m64n256k16 (K = 64 in steps of 16) reading A (K-major) and B (row-major:
# N-major, transpose bit 1) through descriptors, left running (wait_group 1: the trip before
# is done in this warp group), a second barrier (done in every warp group; no write is pending,
# so no proxy fence), then the copies into the slot of the trip before, three trips ahead.
# After the loop everything is waited for.
WGMMA_CHECKS = """
CHECK: .extern .shared .align 1024 .b8 global_smem[];
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
CHECK-COUNT-3: cp.async.commit_group;
CHECK-NOT: cp.async.commit_group;
CHECK: cp.async.wait_group 2;
CHECK-NEXT: fence.proxy.async.shared::cta;
CHECK-NEXT: bar.sync 0;
CHECK: wgmma.fence.sync.aligned;
CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned;
CHECK: wgmma.wait_group.sync.aligned 1;
CHECK-NOT: fence.proxy.async
CHECK: bar.sync 0;
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group;
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.wait_group.sync.aligned 0;
CHECK: cp.async.wait_group 0;
"""

# 128x256x32, 6 stages: one barrier a trip; the copies go out right after the wgmma issue
# (into the slot of two trips before, four trips ahead), before the wait for the trip before.
WGMMA_CHECKS_DEEP = """
CHECK-COUNT-4: cp.async.commit_group;
CHECK-NOT: cp.async.commit_group;
CHECK: cp.async.wait_group 3;
CHECK-NEXT: fence.proxy.async.shared::cta;
CHECK-NEXT: bar.sync 0;
CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
CHECK: wgmma.commit_group.sync.aligned;
CHECK-NOT: bar.sync
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group;
CHECK-NOT: bar.sync
CHECK: wgmma.wait_group.sync.aligned 1;
CHECK-NOT: bar.sync
CHECK: wgmma.wait_group.sync.aligned 0;
"""


@pytest.mark.parametrize("tile, stages, checks", [((128, 256, 64), 4, WGMMA_CHECKS),
                                                  ((128, 256, 32), 6, WGMMA_CHECKS_DEEP)])
def test_wgmma_main_loop(tile, stages, checks, tmp_path):
    ptx = ptx_of(KERNEL, "sm_90a", tile=tile, num_warps=8, num_stages=stages)
    filecheck(ptx, checks, tmp_path)
    assert "ldmatrix" not in ptx and "mma.sync" not in ptx


def test_mma_sync_below_sm_90a():
    ptx = ptx_of(KERNEL, "sm_90", tile=(128, 256, 64), num_warps=8, num_stages=3)
    assert "wgmma" not in ptx and "mma.sync" in ptx and "fence.proxy.async" not in ptx


@pytest.mark.parametrize("defines, element, bits", [
    ({}, "f16", "0, 1"),                                  # A K-major, B N-major
    ({"TYPE": "bfloat16"}, "bf16", "0, 1"),
    ({"A_COL": "1"}, "f16", "1, 1"),                      # A M-major (column-major A)
    ({"B_COL": "1"}, "f16", "0, 0"),                      # B K-major (column-major B)
    ({"A_COL": "1", "B_COL": "1"}, "f16", "1, 0"),
])
def test_operand_majorness_and_type(defines, element, bits):
    ptx = ptx_of(KERNEL, "sm_90a", tile=(128, 128, 64), num_warps=4, num_stages=3, defines=defines)
    instrs = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.(\w+)\.\w+ .*p, 1, 1, (\d, \d);", ptx)
    # 128 rows on one warp group: two row repetitions x 4 K steps per trip.
    assert len(instrs) == 8 and all(e == element and b == bits for e, b in instrs), instrs


def test_example_matmul_on_wgmma():
    ptx = ptx_of(EXAMPLE, "sm_90a", tile=(64, 64, 32), num_warps=4, num_stages=3)
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx


@pytest.mark.parametrize("tile, num_warps, num_stages", [((128, 256, 64), 8, 3), ((128, 256, 64), 8, 4),
                                                         ((128, 256, 32), 8, 4), ((128, 128, 64), 4, 4),
                                                         ((256, 128, 64), 8, 3)])
def test_wgmma_configurations_assemble_cleanly(tile, num_warps, num_stages):
    ptx = ptx_of(KERNEL, "sm_90a", tile=tile, num_warps=num_warps, num_stages=num_stages)
    out = assemble_ptx(ptx, Target("sm_90a"))
    res = out.resources["matmul"]
    assert not res.spills and res.stack_bytes == 0, res
    assert not [w for w in out.warnings if "wgmma" in w], out.warnings
