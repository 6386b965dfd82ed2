"""``allocate-shared``: write the shared-memory plan into the IR.

What: every op that owns a buffer (its scratch, or an explicit buffer it allocates) gets the
attribute ``smem_offset`` (bytes from the start of the kernel's dynamic shared memory), and
every function ``shared_bytes``, the total it needs; the lowering reads both
(``KernelLowering.scratch_base``, ``KernelInfo.shared_bytes``) instead of assuming offset 0.

Preconditions: ttg IR with final layouts (after ``remove-layout-conversions`` and the clean-up
passes, before ``insert-barriers``, which reads the offsets): scratch sizes follow from
layouts, and a pass that changed ops afterwards would leave stale offsets.

Legality: the offsets come from the ``allocation`` analysis (``analysis/allocation.py``:
liveness from ``analysis/liveness.py``, first-fit packing after legacy Triton's
``allocation.cc``), so buffers live at the same time never share a byte. Earlier
``smem_offset`` attributes are dropped first, so the pass can run again after the IR changed.

Preserves: ``liveness`` and ``allocation`` (it only adds attributes, which they do not read).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.allocation import SharedAllocation
from ..analysis.liveness import SharedLiveness
from ..ir.core import Module
from ..passes import AnalysisManager, Pass, register_pass

OFFSET_ATTR = "smem_offset"
TOTAL_ATTR = "shared_bytes"


@register_pass
@dataclass
class AllocateSharedPass(Pass):
    """Give every shared-memory buffer an offset (smem_offset) and each kernel its shared_bytes."""

    name = "allocate-shared"
    requires = (SharedAllocation,)
    preserves = (SharedLiveness, SharedAllocation)

    def run(self, module: Module, am: AnalysisManager) -> bool:
        allocation = am.get(SharedAllocation)
        changed = False
        for f in module.functions:
            for op in f.walk():
                offset = allocation.offset(op)
                if op.attrs.get(OFFSET_ATTR) != offset:
                    changed = True
                    if offset is None:
                        del op.attrs[OFFSET_ATTR]
                    else:
                        op.attrs[OFFSET_ATTR] = offset
            total = allocation.total_size(f)
            if f.attrs.get(TOTAL_ATTR) != total:
                f.attrs[TOTAL_ATTR] = total
                changed = True
        return changed
