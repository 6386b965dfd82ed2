"""Pointer origins: which pointer parameters a pointer value may point into.

A forward may-analysis over the structured IR, iterated to a fixed point: the *origins* of a
pointer value are the indices of the function's pointer parameters it can be derived from by
``tt.addptr``, ``tt.splat``, ``tt.broadcast``, shape ops, layout conversions, ``arith.select``
and the loop-carried / ``scf.if`` values that join them; ``None`` means unknown (a pointer
loaded from memory, ``int_to_ptr``, a call result). It is the classic points-to question
restricted to parameters (Andersen-style, flow-insensitive through the loop back edges).

Users:

* the parameter promise ``__readonly``: a kernel that stores through such a pointer breaks it
  (spec section 4); :func:`stored_parameters` finds the parameters that may be written, so
  that the frontend warns (``-Wreadonly-store``) and the lowering drops the promise;
* the lowering's read-only loads (``ld.global.nc``, ``!invariant.load``):
  :func:`readonly_pointer_values`.
"""
from __future__ import annotations

from tritonc.ir.core import Function, Operation, Value
from tritonc.ir.types import PointerType, element_type

#: Ops whose result points where their pointer operand does (``tt.addptr``: its ``ptr``).
PASS_THROUGH = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans",
                "ttg.convert_layout")

#: Ops that write global memory through their first operand.
GLOBAL_WRITES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas")

Origins = "frozenset[int] | None"


def pointer_origins(f: Function) -> dict[Value, frozenset[int] | None]:
    """The origins of every pointer-typed value of ``f`` (and of the values joined with them).

    Returns a map from value to a frozenset of parameter indices, or ``None`` where the pointer
    may come from anywhere. Values that are absent have no pointer origin (empty set).
    """
    origins: dict[Value, frozenset[int] | None] = {}
    for i, arg in enumerate(f.args):
        if isinstance(element_type(arg.type), PointerType):
            origins[arg] = frozenset([i])

    def join(a, b):
        if a is None or b is None:
            return None
        return a | b

    def update(v: Value, o) -> bool:
        old = origins.get(v, frozenset())
        new = join(old, o) if v in origins else o
        if new != old or v not in origins:
            origins[v] = new
            return True
        return False

    def get(v: Value):
        return origins.get(v, frozenset())

    changed = True
    while changed:
        changed = False
        for op in f.walk():
            if not op.results and op.name not in ("scf.yield", "scf.condition"):
                continue
            if op.name in PASS_THROUGH:
                src = op.operands[0] if op.name != "tt.addptr" else op.get("ptr")
                changed |= update(op.result, get(src))
            elif op.name == "arith.select":
                changed |= update(op.result, join(get(op.operands[1]), get(op.operands[2])))
            elif op.name == "scf.for":
                body = op.regions[0].block
                for init, arg, res, y in zip(op.operands[3:], body.args[1:], op.results, body.terminator.operands):
                    o = join(get(init), get(y))
                    changed |= update(arg, o)
                    changed |= update(res, o)
            elif op.name == "scf.while":
                before, after = op.regions[0].block, op.regions[1].block
                for init, arg, y in zip(op.operands, before.args, after.terminator.operands):
                    changed |= update(arg, join(get(init), get(y)))
                for v, arg, res in zip(before.terminator.operands[1:], after.args, op.results):
                    changed |= update(arg, get(v))
                    changed |= update(res, get(v))
            elif op.name == "scf.if":
                for i, res in enumerate(op.results):
                    changed |= update(res, join(get(op.regions[0].block.terminator.operands[i]),
                                                get(op.regions[1].block.terminator.operands[i])))
            else:
                for res in op.results:
                    if isinstance(element_type(res.type), PointerType):
                        changed |= update(res, None)
    return origins


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
