"""``remove-layout-conversions``: drop ``ttg.convert_layout`` ops that do nothing.

Preconditions: ttg IR (after ``assign-layouts``). Preserves: everything but the removed ops.

Rewrites, to a fixed point:

* ``convert_layout(x) -> L`` with ``x`` already in ``L``: replaced by ``x``;
* ``convert_layout(convert_layout(x) -> L1) -> L2``: reads ``x`` directly (the inner one is
  erased when it has no other users);
* a conversion with no users is erased (it has no side effects).

This is the trivial first version: Triton's pass also propagates layouts forward and
backward through element-wise ops and rematerialises cheap producers in the wanted layout,
which needs a cost model and comes later.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.ir.core import Module
from tritonc.passes import AnalysisManager, Pass, register_pass


def _simplify_once(module: Module) -> bool:
    changed = False
    for op in list(module.walk()):
        if op.name != "ttg.convert_layout" or op.parent is None:
            continue
        src = op.operands[0]
        res = op.result
        if src.type == res.type:
            res.replace_all_uses_with(src)
            op.erase()
            changed = True
            continue
        owner = getattr(src, "op", None)
        if owner is not None and owner.name == "ttg.convert_layout":
            op.set_operand(0, owner.operands[0])
            if not owner.result.uses:
                owner.erase()
            changed = True
            continue
        if not res.uses:
            op.erase()
            changed = True
    return changed


@register_pass
@dataclass
class RemoveLayoutConversions(Pass):
    """Drop identity conversions and chains of conversions."""

    name = "remove-layout-conversions"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        while _simplify_once(module):
            changed = True
        return changed
