"""``allocation``: a byte offset in the kernel's shared memory for every buffer, and the total.

What: each :class:`~tritonc.analysis.liveness.Buffer` of a function (an op's scratch or an
explicit buffer) gets an ``offset`` such that two buffers whose live intervals overlap never
share a byte; buffers never live at the same time reuse the same bytes. The function needs
:meth:`SharedAllocation.total_size` bytes (the end of the highest buffer, rounded up to 16).

Algorithm: first-fit interval packing, as legacy Triton's ``allocation.cc`` (MAPL'19 §5,
"shared memory allocation": live ranges packed with a storage-allocation algorithm) and modern
Triton's ``Allocation.cpp`` do it:

1. order the buffers by size, largest first (ties: program order of their owners);
2. place each at the lowest offset, aligned to its alignment (16 bytes; 128 for swizzled
   buffers), where it overlaps no already placed buffer whose live interval intersects its own.
   The candidates are 0 and the aligned end of every such buffer, so a hole left by buffers
   that are dead at this one's time is reused.

Largest-first keeps the big, long-lived operand buffers low and lets short scratch fill the
holes; first fit is not optimal in general (the problem is NP-hard), but with one buffer live
at a time, the common case, it is: every buffer starts at 0.

Preconditions: those of ``liveness`` (layouts final). Never mutates the IR; the
``allocate-shared`` pass writes the result into it. ``--print-analysis=allocation`` prints
``smem offset=N size=M`` after each op that owns a buffer.
"""
from __future__ import annotations

from ..ir.core import Function, Module, Operation
from ..passes import Analysis, AnalysisManager
from .liveness import Buffer, SharedLiveness


def align_up(n: int, alignment: int) -> int:
    return (n + alignment - 1) // alignment * alignment


def first_fit(buffers: list[Buffer]) -> dict[Buffer, int]:
    """Offsets for ``buffers`` (steps 1 and 2 of the module docstring)."""
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, i))
    offsets: dict[Buffer, int] = {}
    for i in order:
        buf = buffers[i]
        live = [(offsets[other], other.size) for other in offsets if other.interferes(buf)]
        candidates = sorted({0} | {align_up(start + size, buf.alignment) for start, size in live})
        offsets[buf] = next(c for c in candidates
                            if all(c + buf.size <= start or start + size <= c for start, size in live))
    return offsets


class SharedAllocation(Analysis):
    """Offsets of every buffer and the shared memory each function needs.

    Queries: :meth:`offset` / :meth:`buffer` of an op that owns a buffer, :meth:`total_size`.
    """

    name = "allocation"

    def __init__(self, module: Module, am: AnalysisManager):
        super().__init__(module, am)
        self.liveness = am.get(SharedLiveness)
        self.offsets: dict[Buffer, int] = {}
        self._total: dict[Function, int] = {}
        for f in module.functions:
            placed = first_fit(self.liveness.buffers(f))
            self.offsets.update(placed)
            self._total[f] = align_up(max((o + b.size for b, o in placed.items()), default=0), 16)

    def buffer(self, op: Operation) -> Buffer | None:
        """The buffer ``op`` owns (its scratch or its allocation), if any."""
        return self.liveness.scratch_of(op) or self.liveness.allocation_of(op)

    def offset(self, op: Operation) -> int | None:
        buf = self.buffer(op)
        return self.offsets[buf] if buf is not None else None

    def interval(self, buf: Buffer) -> tuple[int, int]:
        """The bytes ``[offset, offset + size)`` of ``buf``."""
        return self.offsets[buf], self.offsets[buf] + buf.size

    def total_size(self, f: Function) -> int:
        """Bytes of shared memory ``f`` needs (0 without buffers)."""
        return self._total.get(f, 0)

    def annotate(self, op: Operation) -> str | None:
        """The ``--print-analysis=allocation`` comment: the owned buffer's offset and size."""
        buf = self.buffer(op)
        if buf is None:
            return None
        return f"smem offset={self.offsets[buf]} size={buf.size}"
