"""Layout groups: the tile values of a function whose layouts must be equal (union-find).

``assign-layouts`` gives every value of a group one layout, chosen for the group's memory
accesses (``transforms/coalesce.py``'s :func:`~tritonc.transforms.coalesce.access_layouts`),
so that conversions appear only where two accesses really disagree.
"""
from __future__ import annotations

from ..ir.core import Function, Operation, Value
from ..ir.ops import has_trait
from ..ir.types import TileType


def is_source(v: Value) -> bool:
    """Constants, splats and ranges: cheap to build in any layout, so they link no groups."""
    op = getattr(v, "op", None)
    return op is not None and op.name in ("arith.constant", "tt.splat", "tt.make_range")


class LayoutGroups:
    """Union-find over the tile values of function ``f`` whose layouts must be equal: the
    operands and results of a same-layout op, a dot's accumulator and result, and the values
    that flow into and out of loop-carried arguments and ``scf.if`` results.

    Broadcasts and *sources* (constants, splats, ranges) link nothing: they are cheap to
    rebuild in another layout (``remove-layout-conversions``), and a mask or index tile shared
    by two accesses must not force one access into the other's layout.
    """

    def __init__(self, f: Function):
        self.parent: dict[Value, Value] = {}
        for op in f.walk():
            self._add(op)

    def find(self, v: Value) -> Value:
        root = v
        while self.parent.get(root, root) is not root:
            root = self.parent[root]
        while v is not root:  # path compression
            self.parent[v], v = root, self.parent.get(v, v)
        return root

    def union(self, *values: Value) -> None:
        tiles = [v for v in values if isinstance(v.type, TileType) and not is_source(v)]
        for v in tiles[1:]:
            a, b = self.find(tiles[0]), self.find(v)
            if a is not b:
                self.parent[b] = a

    def _add(self, op: Operation) -> None:
        name = op.name
        if name == "scf.for":
            body = op.regions[0].block
            for vs in zip(op.operands[3:], body.args[1:], body.terminator.operands, op.results):
                self.union(*vs)
        elif name == "scf.while":
            before, after = op.regions[0].block, op.regions[1].block
            for vs in zip(op.operands, before.args, after.terminator.operands):
                self.union(*vs)
            for vs in zip(before.terminator.operands[1:], after.args, op.results):
                self.union(*vs)
        elif name == "scf.if":
            for i, res in enumerate(op.results):
                self.union(res, *(r.block.terminator.operands[i] for r in op.regions))
        elif name == "tt.dot":
            self.union(op.operands[2], op.result)
        elif has_trait(name, "same-layout"):
            self.union(*op.operands, *op.results)
