"""The innermost term of a pointer tile's address: a structural look at how it was built.

Triton-C addresses are written ``X + i * s0 + j * s1 + k * s2`` with the fastest index last,
and the frontend builds them as a chain of ``tt.addptr`` (``((X + a) + b) + c``). The
*innermost term* of a pointer is the offset of the last ``tt.addptr`` of that chain, found
through shape ops, layout conversions and loop-carried pointers (an ``scf.for`` body argument
stands for its initial value: the increments the loop adds are uniform). Its users:

* ``transforms/specialize.py``: the integer parameters multiplying an index inside it are
  *stride-like*: a variant assuming them equal to 1 makes the access contiguous;
* ``transforms/coalesce.py``: a gather (no contiguity proven) puts consecutive lanes along
  the one axis the term varies along.
"""
from __future__ import annotations

from tritonc.ir.core import BlockArgument, OpResult, Value

#: Ops whose result points where their pointer operand does, keeping its rank.
RANK_PRESERVING = ("tt.broadcast", "ttg.convert_layout")
#: ... and those that change the rank.
RANK_CHANGING = ("tt.expand_dims",)


def loop_initial_value(v: Value) -> Value | None:
    """The initial value of ``v`` when it is a loop-carried argument of an ``scf.for`` body
    (not the induction variable), else ``None``."""
    if not isinstance(v, BlockArgument):
        return None
    op = v.owner.parent_op()
    if op is None or op.name != "scf.for" or v.index == 0:
        return None
    inits = op.operands[3:]
    return inits[v.index - 1] if v.index - 1 < len(inits) else None


def innermost_term(ptr: Value, same_rank: bool = False) -> Value | None:
    """The offset of the last ``tt.addptr`` that built pointer ``ptr`` (see the module
    docstring), or ``None`` when there is none to find. With ``same_rank``, ``expand_dims`` is
    not looked through, so the term has ``ptr``'s rank and axes."""
    through = RANK_PRESERVING if same_rank else RANK_PRESERVING + RANK_CHANGING
    seen: set[Value] = set()
    v: Value | None = ptr
    while v is not None and v not in seen:
        seen.add(v)
        if isinstance(v, OpResult) and v.owner.name in through:
            v = v.owner.operands[0]
        elif isinstance(v, OpResult) and v.owner.name == "tt.addptr":
            return v.owner.operands[1]
        else:
            v = loop_initial_value(v)
    return None
