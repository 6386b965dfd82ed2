"""``insert-barriers``: the fewest ``gpu.barrier`` ops that order every conflicting pair of
shared-memory accesses between ops (legacy Triton "membar", MAPL'19 §5 "shared memory
synchronization").

Why barriers are needed. The threads of a CTA run at their own pace; ``bar.sync`` is the only
point where a thread knows that every other thread finished its earlier shared-memory
accesses. An access must be separated by a barrier from an earlier access to the same bytes by
*other* threads when at least one of them writes:

* **RAW** (read after write): a thread would read bytes another thread may not have written
  yet (a conversion reading what another layout stored);
* **WAR** (write after read): a thread would overwrite bytes another thread may still be
  reading (the next op reusing a scratch area, a copy into a buffer that is being loaded);
* **WAW** (write after write): two writers of the same bytes, whose order would be undefined
  for a later reader.

An op that needs a barrier between its own write and read (a scratch user: conversion through
shared memory, cross-warp reduction, FMA dot staging, atomics broadcast) emits that inner
barrier itself (``codegen/llvm``); this pass places the barriers *between* ops, which the
lowering does not emit. An asynchronous copy (``cp.async``) is complete for the issuing thread
only after an ``async_wait`` that covers it: a read of its bytes needs a barrier after the wait
(RAW), and a barrier before the wait does not make them visible. Which copies a
``wait_group(num > 0)`` completes is not tracked: each such wait treats every copy in flight as
possibly complete (a pending write) and still in flight; ``num = 0`` completes them all.
Buffers are whole intervals (a pipeline ring is one), so a copy the software pipeliner issues
into a slot nobody is reading, after the reads of other slots, carries ``no_war`` and is not
ordered against those reads.

Algorithm: a dense forward data-flow problem (``dataflow.solve_dense_forward``) whose state is
the set of byte intervals read, written and asynchronously written since the last barrier
(:class:`Pending`). Each op's accesses (:func:`accesses`) come from the ``allocation``
analysis: a scratch user writes its scratch, synchronises, then reads it; an op with explicit
buffer effects reads or writes the intervals of the buffers its operands name. Before an op
whose first accesses (those before its inner barrier) conflict with the pending set, a
barrier goes in and clears the set (not the asynchronous writes). Control flow: ``scf.if``
joins the states of its branches (a barrier in one branch does not clear the join); a loop
iterates to a fixpoint of the state at its head, so an access that conflicts with the
previous trip's last accesses gets a barrier at that access, near the top of the body. Then the
barriers go in where the fixpoint says. A barrier goes as late as possible, right before the
access that needs it: for straight-line code that is the fewest (greedy stabbing of the hazard
intervals); an existing ``gpu.barrier`` counts.

Proxy fences (kernels with wgmma): wgmma reads shared memory through the async proxy, so a
barrier that orders completed generic-proxy writes (``st.shared``, ``cp.async`` after its
wait) before such reads is lowered with a ``fence.proxy.async`` in front; a barrier with no
completed write pending (the state before it has none: e.g. the one that orders wgmma reads
before the next copies) is marked ``no_proxy_fence`` and lowered without it.

Preconditions: ``allocate-shared`` ran last (the ``smem_offset`` attributes must match the
``allocation`` analysis; checked). Barriers are only legal at points every thread reaches:
``scf`` conditions are uniform scalars. Preserves: ``liveness`` and ``allocation`` (a barrier
owns no buffer and names none). Running the pass again adds nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.allocation import SharedAllocation
from ..analysis.dataflow import DenseForwardProblem, solve_dense_forward
from ..analysis.liveness import SharedLiveness
from ..ir.ops import shared_effects
from ..diagnostics import InternalCompilerError
from ..ir.core import Module, Operation
from ..passes import AnalysisManager, Pass, register_pass
from .allocate_shared import OFFSET_ATTR

Interval = tuple[int, int]  # bytes [start, end)


@dataclass(frozen=True)
class Access:
    """One step of an op's shared-memory protocol: ``kind`` is ``read``, ``write``,
    ``async_write`` (with ``interval``), ``async_wait`` (``drain``: no copy left in flight) or
    ``barrier`` (the op's inner barrier)."""

    kind: str
    interval: Interval = (0, 0)
    drain: bool = False
    no_war: bool = False  # an async_write its producer guarantees no thread is reading


@dataclass(frozen=True)
class Pending:
    """What was accessed since the last barrier (the data-flow state); ``async_writes`` are
    copies not yet waited for."""

    reads: frozenset[Interval] = field(default_factory=frozenset)
    writes: frozenset[Interval] = field(default_factory=frozenset)
    async_writes: frozenset[Interval] = field(default_factory=frozenset)

    def join(self, other: "Pending") -> "Pending":
        return Pending(self.reads | other.reads, self.writes | other.writes, self.async_writes | other.async_writes)

    def after_barrier(self) -> "Pending":
        """A barrier orders everything but copies still in flight."""
        return Pending(async_writes=self.async_writes)


def _overlaps(interval: Interval, others: frozenset[Interval]) -> bool:
    return any(interval[0] < end and start < interval[1] for start, end in others)


def accesses(op: Operation, allocation: SharedAllocation) -> list[Access]:
    """``op``'s shared-memory protocol, in order (see the module docstring)."""
    if op.name == "gpu.barrier":
        return [Access("barrier")]
    liveness = allocation.liveness
    scratch = liveness.scratch_of(op)
    if scratch is not None:
        interval = allocation.interval(scratch)
        return [Access("write", interval), Access("barrier"), Access("read", interval)]
    steps = []
    for effect in shared_effects(op):
        if effect.kind == "async_wait":
            steps.append(Access("async_wait", drain=effect.num == 0))
        elif effect.kind in ("read", "write", "async_write"):
            for buf in sorted(liveness.names(effect.value), key=lambda b: liveness.point[b.owner]):
                steps.append(Access(effect.kind, allocation.interval(buf), no_war=effect.no_war))
    return steps


class _PendingAccesses(DenseForwardProblem[Pending]):
    def __init__(self, allocation: SharedAllocation):
        self.allocation = allocation
        self.steps: dict[Operation, list[Access]] = {}

    def bottom(self) -> Pending:
        return Pending()

    def join(self, a: Pending, b: Pending) -> Pending:
        return a.join(b)

    def accesses(self, op: Operation) -> list[Access]:
        if op not in self.steps:
            self.steps[op] = accesses(op, self.allocation)
        return self.steps[op]

    def needs_barrier(self, op: Operation, before: Pending) -> bool:
        """Whether an access of ``op`` before its inner barrier conflicts with ``before``."""
        writes = before.writes
        for step in self.accesses(op):
            if step.kind == "barrier":
                return False
            if step.kind == "async_wait":
                writes = writes | before.async_writes
            elif step.kind == "read" and _overlaps(step.interval, writes):
                return True  # RAW
            elif step.kind in ("write", "async_write") and (
                    (not step.no_war and _overlaps(step.interval, before.reads)) or _overlaps(step.interval, writes)):
                return True  # WAR / WAW
        return False

    def transfer(self, op: Operation, before: Pending) -> Pending:
        steps = self.accesses(op)
        if not steps:
            return before
        state = before.after_barrier() if self.needs_barrier(op, before) else before
        reads, writes, in_flight = set(state.reads), set(state.writes), set(state.async_writes)
        for step in steps:
            if step.kind == "barrier":
                reads, writes = set(), set()
            elif step.kind == "async_wait":
                writes |= in_flight
                if step.drain:
                    in_flight = set()
            else:
                {"read": reads, "write": writes, "async_write": in_flight}[step.kind].add(step.interval)
        return Pending(frozenset(reads), frozenset(writes), frozenset(in_flight))


def _check_offsets(module: Module, allocation: SharedAllocation) -> None:
    for op in module.walk():
        if op.attrs.get(OFFSET_ATTR) != allocation.offset(op):
            raise InternalCompilerError(f"insert-barriers: the smem_offset of '{op.name}' does not match the "
                                        "allocation (run allocate-shared right before insert-barriers)")


@register_pass
@dataclass
class InsertBarriersPass(Pass):
    """Insert gpu.barrier ops against RAW/WAR/WAW hazards on shared memory between ops."""

    name = "insert-barriers"
    requires = (SharedAllocation,)
    preserves = (SharedLiveness, SharedAllocation)

    def run(self, module: Module, am: AnalysisManager) -> bool:
        allocation = am.get(SharedAllocation)
        _check_offsets(module, allocation)
        problem = _PendingAccesses(allocation)
        result = solve_dense_forward(problem, module)
        changed = False
        for f in module.functions:
            targets = [op for op in f.walk() if not op.regions and problem.needs_barrier(op, result.before(op))]
            # (barrier, whether no completed write is pending before it) for the proxy fences
            barriers = [(op, not result.before(op).writes) for op in f.walk() if op.name == "gpu.barrier"]
            for op in targets:
                barrier = Operation("gpu.barrier", [], [], loc=op.loc)
                op.parent.insert_before(op, barrier)
                barriers.append((barrier, not result.before(op).writes))
            if _has_wgmma(f):
                for barrier, clean in barriers:
                    if clean:
                        barrier.attrs[NO_PROXY_FENCE] = True
            changed |= bool(targets)
        return changed


#: ``gpu.barrier`` attribute: no completed generic-proxy shared-memory write is pending at the
#: barrier, so the lowering leaves out the ``fence.proxy.async`` it puts before the barriers of
#: a kernel with wgmma (``KernelLowering.barrier``).
NO_PROXY_FENCE = "no_proxy_fence"


def _has_wgmma(f) -> bool:
    for op in f.walk():
        if op.name == "tt.dot":
            layout = getattr(op.result.type, "layout", None)
            if getattr(layout, "version", None) == 3:
                return True
    return False
