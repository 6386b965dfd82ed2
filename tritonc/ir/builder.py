"""An insertion-point builder for the tile IR.

``Builder.create(name, operands, result_types, attrs)`` makes an :class:`Operation`, inserts it
at the insertion point and returns it; :meth:`Builder.value` does the same for ops with one
result and returns that result. The insertion point is a block and an index (``None`` means
"at the end"); ``at_end``, ``before`` and ``after`` move it, and ``Builder.insertion(block)``
is a context manager that restores the previous point. :func:`append_loop_args` rebuilds an
``scf.for`` with more iteration arguments.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from ..diagnostics import SourceLoc
from .core import Block, Operation, Region, Value
from .types import Type, TileType, element_type, shape_of


class Builder:
    def __init__(self, block: Block | None = None, loc: SourceLoc | None = None):
        self.block = block
        self.index: int | None = None
        self.loc = loc

    # -- insertion point --------------------------------------------------------------------
    def at_end(self, block: Block) -> "Builder":
        self.block, self.index = block, None
        return self

    def before(self, op: Operation) -> "Builder":
        assert op.parent is not None
        self.block, self.index = op.parent, op.parent.ops.index(op)
        return self

    def after(self, op: Operation) -> "Builder":
        assert op.parent is not None
        self.block, self.index = op.parent, op.parent.ops.index(op) + 1
        return self

    @contextmanager
    def insertion(self, block: Block, index: int | None = None) -> Iterator["Builder"]:
        saved = (self.block, self.index)
        self.block, self.index = block, index
        try:
            yield self
        finally:
            self.block, self.index = saved

    @contextmanager
    def location(self, loc: SourceLoc | None) -> Iterator["Builder"]:
        saved = self.loc
        self.loc = loc if loc is not None else saved
        try:
            yield self
        finally:
            self.loc = saved

    # -- creation ---------------------------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        assert self.block is not None, "builder has no insertion point"
        if op.loc is None:
            op.loc = self.loc
        if self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def create(self, name: str, operands: list[Value] | tuple[Value, ...] = (), result_types: list[Type] | tuple[Type, ...] = (),
               attrs: dict[str, Any] | None = None, regions: list[Region] | None = None,
               name_hint: str | None = None, loc: SourceLoc | None = None) -> Operation:
        names = [name_hint] if name_hint and len(result_types) == 1 else None
        op = Operation(name, list(operands), list(result_types), attrs, regions, loc or self.loc, names)
        return self.insert(op)

    def value(self, name: str, operands: list[Value] | tuple[Value, ...], result_type: Type,
              attrs: dict[str, Any] | None = None, name_hint: str | None = None) -> Value:
        """Create a one-result op and return its result."""
        return self.create(name, operands, [result_type], attrs, name_hint=name_hint).result

    # -- small conveniences used across passes ----------------------------------------------
    def constant(self, value: int | float | bool, type: Type, name_hint: str | None = None) -> Value:
        """``arith.constant`` of a scalar, or a splat tile if ``type`` is a tile type."""
        if isinstance(value, bool):
            value = int(value)
        return self.value("arith.constant", [], type, {"value": value}, name_hint)

    def splat(self, scalar: Value, shape: tuple[int, ...]) -> Value:
        if not shape:
            return scalar
        return self.value("tt.splat", [scalar], TileType(element_type(scalar.type), tuple(shape)))

    def broadcast_to(self, v: Value, shape: tuple[int, ...]) -> Value:
        """NumPy-style broadcast of ``v`` (scalar or tile) to ``shape`` with splat/expand_dims/broadcast."""
        shape = tuple(shape)
        src = shape_of(v.type)
        if src == shape:
            return v
        if not src:
            return self.splat(v, shape)
        while len(shape_of(v.type)) < len(shape):
            cur = shape_of(v.type)
            v = self.value("tt.expand_dims", [v], TileType(element_type(v.type), (1,) + cur), {"axis": 0})
        if shape_of(v.type) != shape:
            v = self.value("tt.broadcast", [v], TileType(element_type(v.type), shape))
        return v


def append_loop_args(loop: Operation, inits: list[Value]) -> tuple[Operation, list[Value]]:
    """``loop`` (an ``scf.for``) rebuilt with ``inits`` as extra iteration arguments, after its
    own: the new loop takes the old one's place and body (the region is moved, not copied),
    the old loop's results are replaced by the new one's first results, and the old loop is
    erased. The caller appends the values the body yields for the new arguments.

    Returns:
        ``(new_loop, args)``: the new ``scf.for`` and the body's new block arguments, one per
        init, of the inits' types.
    """
    n_new = len(inits)
    new_loop = Operation("scf.for", list(loop.operands) + list(inits), [r.type for r in loop.results]
                         + [v.type for v in inits], dict(loop.attrs), loc=loop.loc,
                         result_names=[r.name for r in loop.results] + [None] * n_new)
    loop.parent.insert_before(loop, new_loop)
    region = loop.regions[0]
    loop.regions.clear()
    new_loop.add_region(region)
    args = [region.block.add_argument(v.type) for v in inits]
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
    loop.erase()
    return new_loop, args
