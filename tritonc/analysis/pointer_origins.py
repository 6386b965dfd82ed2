"""Pointer origins: which pointer parameters a pointer value may point into.

A forward may-analysis over the structured IR, iterated to a fixed point: the *origins* of a
pointer value are the indices of the function's pointer parameters it can be derived from by
``tt.addptr``, ``tt.splat``, ``tt.broadcast``, shape ops, layout conversions, ``arith.select``
and the loop-carried / ``scf.if`` values that join them; ``None`` means unknown (a pointer
loaded from memory, ``int_to_ptr``, a call result). It is the classic points-to question
restricted to parameters (Andersen-style, flow-insensitive through the loop back edges), solved
on the generic sparse forward solver (``dataflow.py``).

Users:

* the parameter promise ``__readonly``: a kernel that stores through such a pointer breaks it
  (spec section 4); :func:`stored_parameters` finds the parameters that may be written, so
  that the driver warns (:func:`warn_readonly_stores`, ``-Wreadonly-store``) and the lowering
  drops the promise;
* the lowering's read-only loads (``ld.global.nc``, ``!invariant.load``):
  :func:`readonly_pointer_values`.
"""
from __future__ import annotations

from tritonc.diagnostics import DiagnosticSink
from tritonc.ir.core import BlockArgument, Function, Module, Operation, Value
from tritonc.ir.types import PointerType, element_type

from .dataflow import ForwardProblem, solve_forward

#: Ops whose result points where their pointer operand does (``tt.addptr``: its ``ptr``).
PASS_THROUGH = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans",
                "ttg.convert_layout")

#: Ops that write global memory through their first operand.
GLOBAL_WRITES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas")


class _Origins(ForwardProblem):
    """The parameters each value may point into (``None``: unknown); the join is the union,
    with ``None`` absorbing."""

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
        if op.name in PASS_THROUGH:
            return [operand_facts[0]]
        if op.name == "arith.select":
            return [self.join(operand_facts[1], operand_facts[2])]
        return [None if isinstance(element_type(r.type), PointerType) else frozenset() for r in op.results]


def pointer_origins(f: Function) -> dict[Value, frozenset[int] | None]:
    """The origins of every value of ``f`` (on the sparse forward solver of ``dataflow.py``:
    loop-carried values and ``scf.if`` results join what flows into them).

    Returns a map from value to a frozenset of parameter indices, or ``None`` where the pointer
    may come from anywhere. Values that are absent have no pointer origin (empty set).
    """
    return solve_forward(_Origins(f), f).facts


def global_writes(f: Function) -> list[Operation]:
    """The ops of ``f`` that write global memory (stores and atomics), in walk order."""
    return [op for op in f.walk() if op.name in GLOBAL_WRITES]


def stored_parameters(f: Function, origins: dict[Value, frozenset[int] | None] | None = None) -> frozenset[int]:
    """Indices of the pointer parameters that some store or atomic of ``f`` may write through.

    A write through a pointer of unknown origin may write through any pointer parameter.
    """
    origins = pointer_origins(f) if origins is None else origins
    pointers = {i for i, arg in enumerate(f.args) if isinstance(element_type(arg.type), PointerType)}
    out: set[int] = set()
    for op in global_writes(f):
        o = origins.get(op.operands[0], frozenset())
        if o is None:
            return frozenset(pointers)
        out |= o
    return frozenset(out)


def promised_readonly(f: Function, origins: dict[Value, frozenset[int] | None] | None = None) -> frozenset[int]:
    """Indices of the parameters declared ``__readonly`` that ``f`` does not write through:
    the promises the code generator may use."""
    stored = stored_parameters(f, origins)
    return frozenset(i for i, attrs in enumerate(f.arg_attrs) if attrs.get("readonly") and i not in stored)


def readonly_pointer_values(f: Function) -> set[Value]:
    """Pointer values of ``f`` that derive only from ``noalias`` parameters whose ``__readonly``
    promise holds (:func:`promised_readonly`): loads through them may use the non-coherent
    read-only path."""
    origins = pointer_origins(f)
    good = {i for i in promised_readonly(f, origins) if f.arg_attrs[i].get("noalias")}
    return {v for v, o in origins.items() if o and o <= good}


def warn_readonly_stores(module: Module, diag: DiagnosticSink) -> None:
    """``-Wreadonly-store`` (spec section 4): a store or atomic whose pointer may derive from a
    parameter declared ``__readonly``/``read_only`` breaks that promise. The store is kept and
    the code generator does not use the promise for that parameter (:func:`promised_readonly`);
    this only tells the user, at the store. Run by the driver on the frontend's module."""
    for f in module.functions:
        origins = pointer_origins(f)
        for op in global_writes(f):
            hit = origins.get(op.operands[0], frozenset()) or frozenset()
            for i in sorted(hit):
                if f.arg_attrs[i].get("readonly"):
                    what = "atomic" if op.name.startswith("tt.atomic") else "store"
                    diag.warn("readonly-store", f"{what} through '{f.args[i].name}', which is declared __readonly; "
                              "the store is kept and the promise is not used", op.loc)
