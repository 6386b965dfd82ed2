"""Deep copies of operations and blocks (used by inlining and, later, by loop transformations).

``clone_op(op, value_map)`` copies ``op`` with its regions. Operands are looked up in
``value_map`` (a value missing from the map is used as it is: it is defined outside what is
being copied); every result and nested block argument of the copy is recorded in
``value_map`` against its original, so copying a sequence of ops with one map rewires the
later copies to the earlier ones. Name hints, attributes (lists copied) and source locations
are kept. The copy is detached: insert it into a block yourself.
"""
from __future__ import annotations

from typing import Any

from .core import Block, Operation, Region, Value


def _copy_attr(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy_attr(v) for v in value]
    return value


def clone_op(op: Operation, value_map: dict[Value, Value]) -> Operation:
    """A deep copy of ``op``; maps its results (and nested block arguments) in ``value_map``."""
    operands = [value_map.get(v, v) for v in op.operands]
    copy = Operation(op.name, operands, [r.type for r in op.results],
                     {k: _copy_attr(v) for k, v in op.attrs.items()}, loc=op.loc,
                     result_names=[r.name for r in op.results])
    for old, new in zip(op.results, copy.results):
        value_map[old] = new
    for region in op.regions:
        new_region = Region(Block())
        copy.add_region(new_region)
        clone_block_into(region.block, new_region.block, value_map)
    return copy


def clone_block_into(source: Block, dest: Block, value_map: dict[Value, Value]) -> list[Operation]:
    """Give ``dest`` copies of ``source``'s arguments (mapped) and append copies of its ops."""
    for arg in source.args:
        value_map[arg] = dest.add_argument(arg.type, arg.name)
    return [dest.append(clone_op(op, value_map)) for op in source.ops]
