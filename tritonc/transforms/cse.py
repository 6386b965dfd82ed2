"""cse: replace a pure op by an equal op that dominates it.

Two ops are equal when they have the same name, the same operands (in any order for a
``commutative`` op), equal attributes (floats compared by their text, so ``-0.0`` is not
``0.0``) and the same result types.

Preconditions: none; requires no analysis; preserves none when it changes the IR.

Legality:

* only pure ops without regions are candidates (``OpDef.pure``): loads, stores, atomics,
  barriers, calls and ``scf.*`` ops are never merged;
* with structured control flow an op dominates everything after it in its block and in the
  regions nested there: a definition is visible in inner regions, never outside the region
  that contains it (scoped hash tables, one scope per block).

Source: the dominator-tree walk with scoped value tables of Alpern, Wegman and Zadeck /
MLIR ``CSE.cpp``; xDSL ``common_subexpression_elimination.py``.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from typing import Any, Hashable

from ..ir.core import Block, Module, Operation
from ..passes import AnalysisManager, Pass, register_pass


def _freeze(value: Any) -> Hashable:
    """A hashable key for an attribute value; floats by ``repr`` (``-0.0 != 0.0``, ``nan == nan``)."""
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def op_key(op: Operation) -> Hashable:
    """What makes two pure ops interchangeable."""
    operands: tuple[int, ...] | frozenset = tuple(id(v) for v in op.operands)
    if op.opdef.commutative:
        operands = tuple(sorted(operands))
    attrs = tuple(sorted((k, _freeze(v)) for k, v in op.attrs.items()))
    return (op.name, operands, attrs, tuple(r.type for r in op.results))


def _is_candidate(op: Operation) -> bool:
    return op.opdef.pure and not op.regions and not op.opdef.terminator and bool(op.results)


def eliminate_common_subexpressions(block: Block, available: ChainMap) -> bool:
    """CSE over ``block`` and its nested regions; ``available`` maps keys to dominating ops."""
    changed = False
    for op in list(block.ops):
        if _is_candidate(op):
            key = op_key(op)
            existing = available.get(key)
            if existing is not None:
                for old, new in zip(op.results, existing.results):
                    old.replace_all_uses_with(new)
                op.erase()
                changed = True
                continue
            available[key] = op
        for region in op.regions:
            changed |= eliminate_common_subexpressions(region.block, available.new_child())
    return changed


@register_pass
@dataclass
class CommonSubexpressionEliminationPass(Pass):
    """Merge equal pure ops (see the module docstring)."""

    name = "cse"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        for f in module.functions:
            changed |= eliminate_common_subexpressions(f.body.block, ChainMap())
        return changed
