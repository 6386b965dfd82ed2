"""inline: replace every ``tt.call`` of a device function by a copy of its body.

After the pass a module holds only kernels: every call is inlined (calls in inlined bodies
too) and every device function (``kind == "device"``) is removed.

Preconditions: runs first on irgen's output. Sema has rejected recursion, and irgen gives
each device function one structured block ending in its only ``tt.return``. Requires no
analysis; preserves none when it changes the IR.

Legality and guarantees:

* the callee's body is cloned before the call (``ir/clone.py``) with its parameters mapped to
  the call's arguments; the call's results are replaced by the cloned ``tt.return`` operands;
  parameter attributes (``aligned``, ``multipleof``...) of the callee are dropped;
* a call of anything but a device function of the module, or a chain of nested calls deeper
  than ``max_depth`` (recursion that escaped sema), is an internal compiler error.

Source: textbook bottom-up inlining of a call graph without cycles (Muchnick §15.2).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import InternalCompilerError
from ..ir.clone import clone_op
from ..ir.core import Function, Module, Operation, Value
from ..passes import AnalysisManager, Pass, register_pass


def _calls_in(ops: list[Operation]) -> list[Operation]:
    return [nested for op in ops for nested in op.walk() if nested.name == "tt.call"]


def inline_call(call: Operation, callee: Function) -> list[Operation]:
    """Inline ``callee`` at ``call``; return the ops inserted in its place (top level)."""
    value_map: dict[Value, Value] = dict(zip(callee.args, call.operands))
    block = call.parent
    assert block is not None
    body = callee.body.block.ops
    inserted = []
    for op in body[:-1]:
        copy = clone_op(op, value_map)
        if copy.loc is None:
            copy.loc = call.loc
        inserted.append(block.insert_before(call, copy))
    returned = [value_map.get(v, v) for v in body[-1].operands]
    for result, value in zip(call.results, returned, strict=True):
        result.replace_all_uses_with(value)
    call.erase()
    return inserted


def inline_module(module: Module, max_depth: int = 64) -> bool:
    """Inline every call in the kernels of ``module``, then drop its device functions."""
    devices = {f.name: f for f in module.functions if f.kind == "device"}
    changed = False
    for f in module.functions:
        if f.kind == "device":
            continue
        worklist = [(call, 1) for call in _calls_in(f.body.block.ops)]
        while worklist:
            call, depth = worklist.pop()
            callee = devices.get(call.attrs["callee"])
            if callee is None:
                raise InternalCompilerError(f"@{f.name} calls @{call.attrs['callee']}, which is not a device function of the module")
            if depth > max_depth:
                raise InternalCompilerError(f"calls nested deeper than {max_depth} levels through @{callee.name}: recursion?")
            inserted = inline_call(call, callee)
            worklist.extend((nested, depth + 1) for nested in _calls_in(inserted))
            changed = True
    if devices:
        module.functions = [f for f in module.functions if f.kind != "device"]
        changed = True
    return changed


@register_pass
@dataclass
class InlinePass(Pass):
    """Inline device functions into kernels and remove them (see the module docstring)."""

    name = "inline"
    max_depth: int = 64

    def run(self, module: Module, am: AnalysisManager) -> bool:
        return inline_module(module, self.max_depth)
