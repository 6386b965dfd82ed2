"""dce: remove ops and loop-carried values whose results nothing needs.

An aggressive (mark-and-sweep) dead-code elimination over the structured IR: everything is
dead until proven live, so a loop-carried value that only feeds itself (``%f2 = ori %f, ...;
scf.yield %f2`` with the loop's result unused, as irgen's carried break/continue flags are)
disappears with its whole chain.

Preconditions: none; requires no analysis; preserves none when it changes the IR.

Legality:

* roots (always live): ops with side effects (``pure=False``: stores, atomics, barriers,
  calls, ``tt.return``), except ``tt.load``, which only reads memory and may be removed like a
  pure op, and ``scf.*`` ops, which are live only through their results or nested roots;
* a live op makes its operands live; a live op nested in a region makes its enclosing ops
  live; a live ``scf.for`` / ``scf.if`` needs its bounds / condition, a live ``scf.while``
  its ``scf.condition`` condition;
* a *slot* of a region op (one carried value: init, block argument, yielded value, result)
  is live if its result or block argument is used by a live op; then its init and yielded
  values are live. ``scf.while`` has two kinds of slots: the values carried into 'before'
  (inits, 'before' arguments, 'after' yields) and those forwarded by ``scf.condition``
  ('after' arguments, results);
* dead slots of live region ops are removed; dead ops are erased, region ops whole. Removing
  a loop without side effects whose results are unused assumes it terminates (as C11 6.8.5
  lets a compiler assume for loops without side effects, and as MLIR does).

Source: "aggressive dead code elimination" (Cytron et al. 1991, §7.1) on SSA, adapted to
structured regions; MLIR ``RemoveDeadValues``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Block, BlockArgument, Function, Module, Operation, OpResult, Value
from ..ir.ops import has_trait, is_read_only
from ..passes import AnalysisManager, Pass, register_pass

def _is_root(op: Operation) -> bool:
    """Live whatever its results: an op with effects other than reads (control flow is live
    through the values it carries)."""
    return not (op.opdef.pure or is_read_only(op) or has_trait(op, "control-flow"))


class _Liveness:
    """Mark phase: live ops and live slots ``(region op, kind, index)``."""

    def __init__(self, function: Function):
        self.live_ops: set[Operation] = set()
        self.live_slots: set[tuple[Operation, str, int]] = set()
        self.worklist: list[Value | Operation] = []
        for op in function.walk():
            if _is_root(op):
                self.worklist.append(op)
        while self.worklist:
            item = self.worklist.pop()
            if isinstance(item, Operation):
                self.mark_op(item)
            else:
                self.mark_value(item)

    def mark_op(self, op: Operation) -> None:
        if op in self.live_ops:
            return
        self.live_ops.add(op)
        parent = op.parent_op()
        if parent is not None:
            self.worklist.append(parent)
        if op.name == "scf.for":
            self.worklist.extend(op.operands[:3])
        elif op.name == "scf.if":
            self.worklist.append(op.operands[0])
        elif op.name == "scf.while":
            self.worklist.append(op.regions[0].block.terminator.operands[0])  # type: ignore[union-attr]
        elif op.name not in ("scf.yield", "scf.condition"):
            self.worklist.extend(op.operands)

    def mark_value(self, v: Value) -> None:
        if isinstance(v, OpResult):
            op = v.op
            if op.name in ("scf.for", "scf.if"):
                self.mark_slot(op, "carried", v.index)
            elif op.name == "scf.while":
                self.mark_slot(op, "forwarded", v.index)
            else:
                self.worklist.append(op)
        elif isinstance(v, BlockArgument):
            op = v.block.parent_op()
            if op is None:
                return  # a function parameter
            if op.name == "scf.for":
                if v.index == 0:
                    self.worklist.append(op)
                else:
                    self.mark_slot(op, "carried", v.index - 1)
            elif op.name == "scf.while":
                self.mark_slot(op, "carried" if v.block is op.regions[0].block else "forwarded", v.index)

    def mark_slot(self, op: Operation, kind: str, index: int) -> None:
        slot = (op, kind, index)
        if slot in self.live_slots:
            return
        self.live_slots.add(slot)
        self.worklist.append(op)
        if op.name == "scf.for":
            self.worklist.append(op.operands[3 + index])
            self.worklist.append(op.regions[0].block.terminator.operands[index])  # type: ignore[union-attr]
        elif op.name == "scf.if":
            for region in op.regions:
                self.worklist.append(region.block.terminator.operands[index])  # type: ignore[union-attr]
        elif kind == "carried":  # scf.while: init and the 'after' region's yield
            self.worklist.append(op.operands[index])
            self.worklist.append(op.regions[1].block.terminator.operands[index])  # type: ignore[union-attr]
        else:  # scf.while: the value scf.condition forwards
            self.worklist.append(op.regions[0].block.terminator.operands[1 + index])  # type: ignore[union-attr]


def _remove_block_args(block: Block, dead: list[int]) -> None:
    for i in sorted(dead, reverse=True):
        assert not block.args[i].uses, "removing a used block argument"
        del block.args[i]
    for i, arg in enumerate(block.args):
        arg.index = i


def _remove_results(op: Operation, dead: list[int]) -> None:
    for i in sorted(dead, reverse=True):
        assert not op.results[i].uses, "removing a used result"
        del op.results[i]
    for i, r in enumerate(op.results):
        r.index = i


def _remove_operands(op: Operation, dead: list[int], offset: int = 0) -> None:
    drop = {i + offset for i in dead}
    op.set_operands([v for i, v in enumerate(op.operands) if i not in drop])


def _prune_slots(op: Operation, live: _Liveness) -> bool:
    """Remove the dead slots of a live region op; True if any was removed."""
    def dead(kind: str, count: int) -> list[int]:
        return [i for i in range(count) if (op, kind, i) not in live.live_slots]

    if op.name == "scf.for":
        body = op.regions[0].block
        gone = dead("carried", len(op.results))
        _remove_operands(body.terminator, gone)  # type: ignore[arg-type]
        _remove_block_args(body, [i + 1 for i in gone])
        _remove_operands(op, gone, offset=3)
        _remove_results(op, gone)
        return bool(gone)
    if op.name == "scf.if":
        gone = dead("carried", len(op.results))
        for region in op.regions:
            _remove_operands(region.block.terminator, gone)  # type: ignore[arg-type]
        _remove_results(op, gone)
        return bool(gone)
    if op.name == "scf.while":
        before, after = op.regions[0].block, op.regions[1].block
        carried = dead("carried", len(before.args))
        _remove_operands(after.terminator, carried)  # type: ignore[arg-type]
        _remove_block_args(before, carried)
        _remove_operands(op, carried)
        forwarded = dead("forwarded", len(op.results))
        _remove_operands(before.terminator, forwarded, offset=1)  # type: ignore[arg-type]
        _remove_block_args(after, forwarded)
        _remove_results(op, forwarded)
        return bool(carried or forwarded)
    return False


def eliminate_dead_code(function: Function) -> bool:
    """Run the mark and sweep phases on ``function``; True if anything was removed."""
    live = _Liveness(function)
    dead = [op for op in function.walk() if op not in live.live_ops and not op.opdef.terminator
            and (op.parent_op() is None or op.parent_op() in live.live_ops)]
    for op in dead:  # outermost dead ops: cut every reference they hold first
        op.drop_all_references()
    changed = bool(dead)
    # Users before definers (reverse walk order): a dead slot's result may still feed a later
    # loop's dead slot (an uninitialised tile carried by two loops), whose operand goes first.
    for op in reversed(list(function.walk())):
        if op in live.live_ops and op.regions:
            changed |= _prune_slots(op, live)
    for op in dead:
        op.parent.ops.remove(op)  # type: ignore[union-attr]
        op.parent = None
    return changed


@register_pass
@dataclass
class DeadCodeEliminationPass(Pass):
    """Remove dead ops and dead loop-carried values (see the module docstring)."""

    name = "dce"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        for f in module.functions:
            changed |= eliminate_dead_code(f)
        return changed
