"""The exact number of CTA barriers in the final PTX of matmul, softmax and layernorm (at their
fixed settings of ``tritonc/tools/examples.py``, sm_90), and where each one comes from.

This test is the source of truth for those counts. Each barrier is either

* **inner**: emitted by the lowering of an op that uses scratch shared memory, between its own
  write and read (store, ``bar.sync``, load): one per scratch user (read after write); or
* **inserted**: a ``gpu.barrier`` placed by ``insert-barriers`` between two ops whose accesses
  conflict; every scratch area is live at its op only and sits at offset 0, so the next user
  overwrites bytes the previous one's threads read (write after read).

Nothing follows the last user: the kernel ends. The PTX counts each barrier once (a barrier in
a loop body is one instruction). When a change of layouts or lowering moves these numbers,
update the table with the new reasons.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from tritonc.driver import Compilation
from tritonc.tools.examples import by_name
from tritonc.tools.golden import golden_options


@dataclass(frozen=True)
class Expected:
    users: tuple[str, ...]  # ops with scratch (an smem_offset), in program order
    inserted: int  # gpu.barrier ops placed by insert-barriers
    ptx: int  # bar.sync / barrier.sync instructions: one inner per user, plus the inserted ones


EXPECTED = {
    # One program per row; f32[1024] spread over the 4 warps, so both reductions cross warps
    # (4 partials, 16 bytes of scratch at offset 0):
    #   1. x[max]: partials stored, bar.sync (inner), loaded;
    #   2. gpu.barrier before e[+] (inserted): its partials overwrite those every thread of x[max]
    #      reads (write after read); placed as late as possible, after exp(x - max);
    #   3. e[+]: stored, bar.sync (inner), loaded. 3 in all.
    # Two branches of an scf.if: the row that fits one tile (x[max], e[+]) and the loop for
    # longer rows (m_j[max] after the loop, then scaled[+]); each branch as above, an inner
    # bar.sync per reduction and one inserted barrier between its two. 6 in all.
    "softmax": Expected(("tt.reduce", "tt.reduce", "tt.reduce", "tt.reduce"), 2, 6),
    # Two branches of an scf.if, each with two statistics that cross warps like softmax's:
    # the row that fits one tile (x[+], then d2[+] of the squared deviations) and the loops
    # for longer rows (the Welford lanes combined: weighted[+], then spread[+]; the loops use
    # no shared memory). Per branch:
    #   1. the first sum: inner bar.sync;
    #   2. gpu.barrier before the second (inserted, write after read of the first's partials);
    #   3. the second sum: inner bar.sync. 6 in all.
    "layernorm": Expected(("tt.reduce", "tt.reduce", "tt.reduce", "tt.reduce"), 2, 6),
    # 64x64x32 matmul on tensor cores with a 3-stage cp.async pipeline and K-slice prefetch:
    # the two operand rings are explicit buffers (allocated once, no inner barrier); the
    # epilogue's conversion of the accumulator (mma layout -> the store's blocked layout) uses
    # scratch. Barriers (the first two placed by software-pipeline, counted as inserted here):
    #   1. after the prologue's cp.async.wait_group 2: slot 0 is visible to every thread
    #      before its first K slice is loaded;
    #   2. in the loop, after cp.async.wait_group 1 and before the last slice's mma: the next
    #      slot is visible, and every thread is done reading the slot the copies then refill;
    #   3. gpu.barrier before the conversion (inserted by insert-barriers): its scratch reuses
    #      the rings' bytes, read by the last trip's ldmatrix in other threads;
    #   4. the conversion's inner bar.sync. 4 in all.
    "matmul": Expected(("ttg.local_alloc", "ttg.local_alloc", "ttg.convert_layout"), 3, 4),
}

BARRIER = re.compile(r"\b(?:bar|barrier)\.sync\b")


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def compiled(request):
    example = by_name(request.param)
    return request.param, Compilation(example.path, golden_options(example))


def test_shared_memory_users_and_inserted_barriers(compiled):
    name, comp = compiled
    ops = list(comp.ttgir.walk())
    users = tuple(op.name for op in ops if "smem_offset" in op.attrs)
    inserted = sum(op.name == "gpu.barrier" for op in ops)
    assert (users, inserted) == (EXPECTED[name].users, EXPECTED[name].inserted)


def test_barriers_in_ptx(compiled):
    name, comp = compiled
    expected = EXPECTED[name]
    inner = sum(user != "ttg.local_alloc" for user in expected.users)  # explicit buffers have none
    assert expected.ptx == inner + expected.inserted
    assert len(BARRIER.findall(comp.ptx)) == expected.ptx
