"""``liveness``: the shared-memory buffers of each function and the program points where each is live.

What: every piece of shared memory a kernel needs is a :class:`Buffer` with a live interval
``[start, end)`` over *program points*, the ops of the function numbered in pre-order (an op
with regions comes before the ops inside it, so a range that covers a loop op and its last
body op covers the whole loop). Two kinds:

* **scratch**: an op whose lowering uses shared memory internally declares how many bytes
  on its op definition (:func:`tritonc.ir.ops.scratch_bytes`, ``ir/scratch.py``; 0 = none). The op writes, synchronises and reads it while it runs, so the buffer is live at
  that op only, ``[i, i + 1)``, also inside a loop: the next trip's use is a new lifetime that
  ``insert-barriers`` separates from this one.
* **explicit buffers**: a value that names shared memory (an ``"alloc"``
  :class:`~tritonc.ir.effects.SharedEffect`, e.g. a local allocation). It is live
  from the allocating op to the last use of any value that may name it.

Algorithm (legacy Triton ``liveness.cc``, on the generic solver of ``dataflow.py``):

1. **aliases**, sparse forward: the set of buffers each value may name. An ``"alloc"`` result
   names its own buffer; a ``"view"`` result what its source names; loop-carried values and
   ``scf.if`` results join (union) what flows into them.
2. **liveness**, dense backward: a buffer is live before an op that uses a value naming it
   (any operand: reads, writes, views, yields, loop inits) and dies at its allocating op.
   Around a loop the solver joins the body's entry into its end, so a buffer used by a later
   trip is live across the whole body: loops extend ranges of values used across iterations.
3. **intervals**: a buffer's range spans its allocating op and every op before or after
   which it is live.

Preconditions: layouts are final (scratch sizes depend on them). Every op that uses a value
naming a buffer, other than control flow and terminators, must declare its effects
(``OpDef.shared_effects``, :func:`tritonc.ir.ops.shared_effects`), and an op owns at most one buffer
(scratch or allocation); both are checked (internal errors). An allocation inside a loop gets
one offset for every trip, so a trip must not still use the previous trip's buffer after
allocating its own (pipelining allocates its rings before the loop). Never mutates the IR.
``--print-analysis=liveness`` prints ``live=[start,end) size=N`` after each op that owns a buffer.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import InternalCompilerError
from ..ir.core import Function, Module, Operation, Value
from ..ir.ops import has_shared_effects, has_trait, scratch_bytes, shared_effects
from ..passes import Analysis, AnalysisManager
from .dataflow import BackwardProblem, ForwardProblem, solve_backward, solve_forward



@dataclass(eq=False)
class Buffer:
    """A piece of shared memory: ``owner``'s scratch, or the explicit buffer ``value`` it allocates."""

    owner: Operation
    size: int
    alignment: int
    value: Value | None = None  # None: scratch
    start: int = 0
    end: int = 0

    @property
    def is_scratch(self) -> bool:
        return self.value is None

    def interferes(self, other: "Buffer") -> bool:
        """Whether the live intervals overlap (the two may not share bytes)."""
        return self.start < other.end and other.start < self.end

    def __repr__(self) -> str:
        kind = "scratch" if self.is_scratch else "buffer"
        return f"<{kind} of {self.owner.name} size={self.size} live=[{self.start},{self.end})>"


class _Aliases(ForwardProblem[frozenset]):
    """Step 1: the buffers (by allocating :class:`Buffer`) each value may name."""

    def __init__(self, allocated: dict[Value, Buffer]):
        self.allocated = allocated

    def initial(self, value: Value) -> frozenset:
        return frozenset()

    def join(self, a: frozenset, b: frozenset) -> frozenset:
        return a | b

    def transfer(self, op: Operation, operand_facts: list[frozenset]) -> list[frozenset]:
        facts = dict(zip(op.operands, operand_facts))
        out = {r: frozenset({self.allocated[r]}) if r in self.allocated else frozenset() for r in op.results}
        for effect in shared_effects(op):
            if effect.kind == "view":
                out[effect.value] = out[effect.value] | facts.get(effect.source, frozenset())
        return [out[r] for r in op.results]


class _Live(BackwardProblem[frozenset]):
    """Step 2: the explicit buffers live at each program point."""

    def __init__(self, aliases, owned: dict[Operation, Buffer]):
        self.aliases = aliases
        self.owned = owned

    def bottom(self) -> frozenset:
        return frozenset()

    def join(self, a: frozenset, b: frozenset) -> frozenset:
        return a | b

    def transfer(self, op: Operation, after: frozenset) -> frozenset:
        live = after - {self.owned[op]} if op in self.owned else after
        for v in op.operands:
            live = live | self.aliases[v]
        return live


class SharedLiveness(Analysis):
    """The buffers of every function with their live intervals (see the module docstring).

    Queries: :meth:`buffers` of a function, :meth:`scratch_of` / :meth:`allocation_of` an op,
    :meth:`names` (the buffers a value may name), :attr:`point` (op -> program point).
    """

    name = "liveness"

    def __init__(self, module: Module, am: AnalysisManager):
        super().__init__(module, am)
        self.point: dict[Operation, int] = {}
        self._buffers: dict[Function, list[Buffer]] = {}
        self._scratch: dict[Operation, Buffer] = {}
        self._allocation: dict[Operation, Buffer] = {}
        allocated: dict[Value, Buffer] = {}
        for f in module.functions:
            self._buffers[f] = []
            for i, op in enumerate(f.walk()):
                self.point[op] = i
                self._collect(f, op, i, allocated)
        self.aliases = solve_forward(_Aliases(allocated), module)
        self._check_effects(module)
        live = solve_backward(_Live(self.aliases, self._allocation), module)
        for f in module.functions:
            self._explicit_intervals(f, live)

    def _collect(self, f: Function, op: Operation, i: int, allocated: dict[Value, Buffer]) -> None:
        size = scratch_bytes(op)
        if size > 0:
            buf = Buffer(op, size, 16, None, i, i + 1)
            self._scratch[op] = buf
            self._buffers[f].append(buf)
        for effect in shared_effects(op):
            if effect.kind != "alloc":
                continue
            if op in self._scratch or op in self._allocation:
                raise InternalCompilerError(f"liveness: '{op.name}' owns more than one shared-memory buffer")
            buf = Buffer(op, int(effect.size), int(effect.alignment), effect.value, i, i + 1)
            allocated[effect.value] = buf
            self._allocation[op] = buf
            self._buffers[f].append(buf)

    def _check_effects(self, module: Module) -> None:
        for op in module.walk():
            # control flow and terminators only pass values along
            if has_shared_effects(op) or has_trait(op, "control-flow") or has_trait(op, "terminator"):
                continue
            if any(self.aliases[v] for v in op.operands):
                raise InternalCompilerError(f"liveness: '{op.name}' uses a shared-memory buffer but declares "
                                            "no shared_effects (ir/ops.py OpDef)")

    def _explicit_intervals(self, f: Function, live) -> None:
        for op in f.walk():
            i = self.point[op]
            for buf in live.before(op) | live.after(op):
                buf.start, buf.end = min(buf.start, i), max(buf.end, i + 1)

    # -- queries ------------------------------------------------------------------------------
    def buffers(self, f: Function) -> list[Buffer]:
        """Every buffer of ``f`` in program order of its owner."""
        return list(self._buffers.get(f, []))

    def scratch_of(self, op: Operation) -> Buffer | None:
        return self._scratch.get(op)

    def allocation_of(self, op: Operation) -> Buffer | None:
        return self._allocation.get(op)

    def names(self, value: Value) -> frozenset:
        """The explicit buffers ``value`` may name (empty for a value that names none)."""
        return self.aliases[value]

    def annotate(self, op: Operation) -> str | None:
        """The ``--print-analysis=liveness`` comment: the owned buffer's interval and size."""
        buf = self._scratch.get(op) or self._allocation.get(op)
        if buf is None:
            return None
        return f"live=[{buf.start},{buf.end}) size={buf.size}"
