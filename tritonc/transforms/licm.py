"""licm: hoist loop-invariant pure ops out of ``scf.for`` and ``scf.while`` loops.

An op directly in a loop's region is invariant when all its operands are defined outside
the loop; it then moves to just before the loop. Hoisting one op can make its users
invariant, and loops are visited innermost first, so an invariant expression climbs as many
loops as it can in one run.

Preconditions: none; requires no analysis; preserves none when it changes the IR.

Legality:

* only pure ops without regions move (``OpDef.pure``): never ``tt.load`` (its address or mask
  may be valid only inside the loop), ``tt.store``, atomics, ``gpu.barrier``, calls;
* hoisting runs an op even when the loop runs zero times (``scf.for``) or when the 'after'
  region of an ``scf.while`` never runs. Pure ops are speculatable, with one exception that
  is never hoisted: integer division and remainder unless the divisor is a constant other
  than 0 (and, for signed ops, other than -1). NVIDIA GPUs do not trap on division by
  zero, but ``sdiv``/``udiv`` by zero (and ``sdiv MIN, -1``) are undefined behaviour in the
  LLVM IR we lower to, so they must not be executed speculatively;
* ops nested in an ``scf.if`` inside the loop stay there (hoisting them would also run them
  when the branch is not taken).

Source: classic LICM (Aho, Lam, Sethi, Ullman §9.5.2) on structured loops; MLIR
``LoopInvariantCodeMotionUtils.cpp``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Module, Operation, Value
from ..ir.types import element_type
from ..passes import AnalysisManager, Pass, register_pass

_LOOPS = ("scf.for", "scf.while")
_DIVISIONS = {"arith.divsi": True, "arith.remsi": True, "arith.divui": False, "arith.remui": False}


def _defined_outside(value: Value, loop: Operation) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is None or not loop.is_ancestor_of(op)


def _divisor_is_safe(op: Operation) -> bool:
    """A division may run speculatively only with a constant divisor that is not 0 (or -1 if signed)."""
    divisor = op.operands[1].owner
    if not isinstance(divisor, Operation) or divisor.name != "arith.constant":
        return False
    bits = element_type(op.operands[1].type).bits  # type: ignore[union-attr]
    value = int(divisor.attrs["value"]) & ((1 << bits) - 1)
    return value != 0 and not (_DIVISIONS[op.name] and value == (1 << bits) - 1)


def is_hoistable(op: Operation, loop: Operation) -> bool:
    """Whether ``op`` (directly in a region of ``loop``) may move before ``loop``."""
    if not op.opdef.pure or op.regions or op.opdef.terminator:
        return False
    if op.name in _DIVISIONS and not _divisor_is_safe(op):
        return False
    return all(_defined_outside(v, loop) for v in op.operands)


def hoist_loop_invariants(loop: Operation) -> bool:
    """Move every invariant op of ``loop``'s regions before it, in program order."""
    changed = False
    for region in loop.regions:
        for op in list(region.block.ops):
            if is_hoistable(op, loop):
                region.block.ops.remove(op)
                loop.parent.insert_before(loop, op)  # type: ignore[union-attr]
                changed = True
    return changed


def _loops_innermost_first(ops: list[Operation]) -> list[Operation]:
    result: list[Operation] = []
    for op in ops:
        for region in op.regions:
            result.extend(_loops_innermost_first(region.block.ops))
        if op.name in _LOOPS:
            result.append(op)
    return result


@register_pass
@dataclass
class LoopInvariantCodeMotionPass(Pass):
    """Hoist loop-invariant pure ops (see the module docstring)."""

    name = "licm"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        for f in module.functions:
            for loop in _loops_innermost_first(f.body.block.ops):
                changed |= hoist_loop_invariants(loop)
        return changed
