"""``readonly-pointers``: the pointer values that point only into ``noalias readonly`` parameters.

A sparse forward may-analysis on the generic solver (``dataflow.py``): a value's fact is the
set of pointer parameters (by index) it may point into, or ``None`` when that is unknown
(a pointer made by ``tt.int_to_ptr``, loaded from memory, or returned by any other op).
Pointer parameters start as themselves; address arithmetic and layout moves (``tt.addptr``,
``tt.splat``, ``tt.broadcast``, ``tt.expand_dims``, ``tt.reshape``, ``tt.trans``,
``ttg.convert_layout``) keep the fact of their source; ``arith.select`` joins its two
sides; loop-carried values and ``scf.if`` results join what flows into them (the solver).
The join is the union, with ``None`` absorbing.

The lowering reads such pointers with ``ld.global.nc`` (the read-only data cache).
"""
from __future__ import annotations

from ..ir.core import BlockArgument, Function, Operation, Value
from ..ir.types import PointerType, element_type
from .dataflow import ForwardProblem, solve_forward

#: Ops whose result points where their first operand (``tt.addptr``: its ``ptr``) points.
_PASS_THROUGH = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans",
                 "ttg.convert_layout")

Origins = "frozenset[int] | None"


class _Origins(ForwardProblem):
    """The parameters each value may point into (``None``: unknown)."""

    def __init__(self, f: Function):
        self.params = {arg: i for i, arg in enumerate(f.args)}

    def initial(self, value: Value):
        return frozenset()

    def join(self, a, b):
        if a is None or b is None:
            return None
        return a | b

    def entry(self, arg: BlockArgument):
        if arg in self.params and isinstance(element_type(arg.type), PointerType):
            return frozenset([self.params[arg]])
        return frozenset()

    def transfer(self, op: Operation, operand_facts: list) -> list:
        if op.name in _PASS_THROUGH:
            return [operand_facts[0]]
        if op.name == "arith.select":
            return [self.join(operand_facts[1], operand_facts[2])]
        return [None if isinstance(element_type(r.type), PointerType) else frozenset() for r in op.results]


def readonly_pointer_values(f: Function) -> set[Value]:
    """Pointer values of ``f`` that derive only from ``noalias readonly`` parameters."""
    facts = solve_forward(_Origins(f), f).facts
    good = {i for i, attrs in enumerate(f.arg_attrs) if attrs.get("noalias") and attrs.get("readonly")}
    return {v for v, o in facts.items() if o and o <= good}
