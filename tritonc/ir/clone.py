"""Deep copies of operations, blocks, functions and modules (inlining, the pipeliner, the
``specialize`` pass's kernel variants, and the driver, which runs each chain of passes on its
own copy of a module).

``clone_op(op, value_map)`` copies ``op`` with its regions. Operands are looked up in
``value_map`` (a value missing from the map is used as it is: it is defined outside what is
being copied); every result and nested block argument of the copy is recorded in
``value_map`` against its original, so copying a sequence of ops with one map rewires the
later copies to the earlier ones. Name hints, attributes (lists copied) and source locations
are kept. The copy is detached: insert it into a block yourself. :func:`clone_function` and
:func:`clone_module` copy whole functions and modules.
"""
from __future__ import annotations

from typing import Any

from .core import Block, Function, Module, Operation, Region, Value


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


def clone_function(f: Function, name: str | None = None) -> Function:
    """A deep copy of ``f`` (detached: add it to a module yourself), optionally renamed."""
    copy = Function(name or f.name, f.arg_types, f.result_types, [a.name for a in f.args], kind=f.kind,
                    arg_attrs=[dict(a) for a in f.arg_attrs], loc=f.loc, attrs=dict(f.attrs))
    value_map: dict[Value, Value] = dict(zip(f.args, copy.args))
    for op in f.body.block.ops:
        copy.body.block.append(clone_op(op, value_map))
    return copy


def clone_module(module: Module) -> Module:
    """A deep copy of ``module`` (functions in order, module attributes)."""
    return Module([clone_function(f) for f in module.functions], attrs=dict(module.attrs))
