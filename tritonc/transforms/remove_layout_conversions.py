"""``remove-layout-conversions``: drop ``ttg.convert_layout`` ops that are not needed.

Preconditions: ttg IR (after ``assign-layouts`` / ``coalesce``). Preserves: nothing.

A conversion that moves data between threads goes through shared memory (a store, a barrier,
a load: ``codegen/llvm/convert.py``); one that only renumbers registers is free. Rewrites,
to a fixed point:

* ``convert_layout(x) -> L`` with ``x`` already in ``L``: replaced by ``x``;
* ``convert_layout(convert_layout(x) -> L1) -> L2``: reads ``x`` directly (the inner one is
  erased when it has no other users);
* a conversion with no users is erased (it has no side effects);
* **rematerialisation** (Triton's backward rematerialisation in ``RemoveLayoutConversions.cpp``):
  a conversion that is not free and whose operand is computed by *cheap* ops only (index
  arithmetic: constants, ``make_range``, ``splat``, ``broadcast``, ``expand_dims``, ``trans``,
  integer arithmetic and comparisons, ``select``, integer casts, ``addptr``), from scalars and
  from values already in a fitting layout, is replaced by a copy of that computation built
  directly in the wanted layout: each copied op goes right after its original, its operands in
  the layouts the lowering needs (``expand_dims`` of ``SliceLayout(axis, L)`` gives ``L``,
  ``trans`` of the inverse permutation of ``L``, element-wise ops and ``broadcast`` of ``L``).
  The originals die (``dce``) when nothing else uses them. At most :data:`MAX_REMAT_OPS` ops
  are copied per conversion; loads, reductions, dots, loop-carried values and float
  arithmetic are never copied (their data is not cheap to recompute);
* **loop-carried index tiles carried twice**: a conversion inside an ``scf.for`` of one of the
  loop's iteration arguments ``a``, where the value the loop yields for ``a`` is computed from
  ``a`` by cheap ops alone (an induction such as ``rk += TK``, or ``pa += TK`` on pointers),
  becomes a new iteration argument already in the wanted layout: its initial value is the
  initial value of ``a`` rematerialised in that layout (or converted once, before the loop),
  and each trip's update is the cheap update copied in that layout. One conversion before
  the loop replaces one conversion (shared memory and barriers) per trip: split-K's ``rk``,
  used both as ``rk[newaxis, :]`` (the A tile's mask) and ``rk[:, newaxis]`` (the B tile's).

First of all, tensor-core accumulator layouts are pushed forward from every conversion out of
one (``transforms/mma_propagation.py``): reductions, element-wise ops, row statistics and
loop-carried values then stay in the mma layout and its row slices.

What stays is a conversion between two layouts that both are needed (a load coalesced along
one dimension stored coalesced along the other: a transpose).
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.ir.builder import append_loop_args
from tritonc.ir.core import BlockArgument, Module, Operation, Value
from tritonc.ir.layout_algebra import inverse_permutation, trans_layout
from tritonc.ir.layouts import BlockedLayout, Layout, SliceLayout
from tritonc.ir.ops import has_trait
from tritonc.ir.types import TileType
from tritonc.passes import AnalysisManager, Pass, register_pass

from .mma_propagation import propagate_mma_layouts

#: Most ops copied to rematerialise the operand of one conversion.
MAX_REMAT_OPS = 48


def _cheap(op: Operation) -> bool:
    """An op with the ``cheap`` trait (integer ``arith``, constants, selects, the shape ops that
    move registers) and one result: copied into another layout instead of converting it."""
    return has_trait(op, "cheap") and not op.regions and len(op.results) == 1


def _operand_layouts(op: Operation, layout: Layout) -> list[Layout | None] | None:
    """The layouts ``op``'s operands need for its result to be in ``layout`` (None: scalar or
    not a tile), or None when ``op`` cannot produce ``layout``."""
    name = op.name
    if name == "tt.expand_dims":
        return [SliceLayout(op.attrs["axis"], layout)]
    if name == "tt.trans":
        if not isinstance(layout, BlockedLayout):
            return None
        return [trans_layout(layout, inverse_permutation(op.attrs["order"]))]
    return [layout if isinstance(v.type, TileType) else None for v in op.operands]


def _is_free(src: TileType, dst: TileType) -> bool:
    """Whether converting ``src`` to ``dst`` only renumbers registers (no shared memory)."""
    from tritonc.ir.distribution import distribution, find_register_map, linearize
    try:
        sd, dd = distribution(src.layout, src.shape), distribution(dst.layout, dst.shape)
    except (NotImplementedError, ValueError):
        return False
    if sd.num_threads != dd.num_threads:
        return False
    return find_register_map(sd, linearize(dd.coords(), dd.shape)) is not None


class _Remat:
    """Plans and performs the copy of one conversion's operand in the wanted layout."""

    def __init__(self):
        self.memo: dict[tuple[Value, Layout], Value] = {}

    def plan(self, v: Value, layout: Layout, seen: dict, budget: list[int]) -> bool:
        """Whether ``v`` can be had in ``layout`` by copying cheap ops (counts them in ``budget``)."""
        if not isinstance(v.type, TileType) or v.type.layout == layout or (v, layout) in self.memo:
            return True
        key = (v, layout)
        if key in seen:
            return seen[key]
        op = getattr(v, "op", None)
        if op is None:
            seen[key] = False
            return False
        if op.name == "ttg.convert_layout":
            ok = self.plan(op.operands[0], layout, seen, budget)
            seen[key] = ok
            return ok
        if not _cheap(op):
            seen[key] = False
            return False
        budget[0] -= 1
        if budget[0] < 0:
            return False
        lays = _operand_layouts(op, layout)
        ok = lays is not None and all(lay is None or self.plan(x, lay, seen, budget)
                                      for x, lay in zip(op.operands, lays))
        seen[key] = ok
        return ok

    def build(self, v: Value, layout: Layout) -> Value:
        """``v`` in ``layout`` (after a successful :meth:`plan`)."""
        if not isinstance(v.type, TileType) or v.type.layout == layout:
            return v
        key = (v, layout)
        if key in self.memo:
            return self.memo[key]
        op = v.op
        if op.name == "ttg.convert_layout":
            new = self.build(op.operands[0], layout)
        else:
            lays = _operand_layouts(op, layout)
            operands = [x if lay is None else self.build(x, lay) for x, lay in zip(op.operands, lays)]
            copy = Operation(op.name, operands, [v.type.with_layout(layout)], dict(op.attrs), loc=op.loc,
                             result_names=[None])
            op.parent.insert_after(op, copy)
            new = copy.result
        self.memo[key] = new
        return new


def _loop_iter_arg(v: Value) -> tuple[Operation, int] | None:
    """``(loop, j)`` when ``v`` is iteration argument ``j`` of an ``scf.for`` body (not its
    induction variable)."""
    if not isinstance(v, BlockArgument) or v.index == 0:
        return None
    loop = v.block.parent_op()
    if loop is None or loop.name != "scf.for":
        return None
    return loop, v.index - 1


def _carry_in_layout(op: Operation, carried_args: dict) -> bool:
    """Replace the conversion ``op`` of a loop-carried cheap induction by a second iteration
    argument carried in the wanted layout (module docstring); whether it did. ``carried_args``
    maps ``(iteration argument, layout)`` to the argument already carried for it, so that
    another conversion of the same argument to the same layout reuses it."""
    src = op.operands[0]
    while getattr(src, "op", None) is not None and src.op.name == "ttg.convert_layout":
        src = src.op.operands[0]
    found = _loop_iter_arg(src)
    if found is None:
        return False
    loop, j = found
    if not loop.is_ancestor_of(op):
        return False
    layout = op.result.type.layout
    if (src, layout) in carried_args:
        op.result.replace_all_uses_with(carried_args[(src, layout)])
        op.erase()
        return True
    yielded = loop.regions[0].block.terminator.operands[j]
    remat = _Remat()
    if not remat.plan(yielded, layout, {(src, layout): True}, [MAX_REMAT_OPS]):
        return False
    init = loop.operands[3 + j]
    if remat.plan(init, layout, {}, [MAX_REMAT_OPS]):
        init_l = remat.build(init, layout)
    else:
        convert = Operation("ttg.convert_layout", [init], [init.type.with_layout(layout)], {}, loc=op.loc,
                            result_names=[None])
        loop.parent.insert_before(loop, convert)
        init_l = convert.result
    loop, (carried,) = append_loop_args(loop, [init_l])
    remat.memo[(src, layout)] = carried
    terminator = loop.regions[0].block.terminator
    terminator.set_operands(list(terminator.operands) + [remat.build(yielded, layout)])
    op.result.replace_all_uses_with(carried)
    op.erase()
    carried_args[(src, layout)] = carried
    return True


def _rematerialise(module: Module) -> bool:
    changed = False
    remat = _Remat()
    carried_args: dict = {}
    for op in list(module.walk()):
        if op.name != "ttg.convert_layout" or op.parent is None:
            continue
        src, res = op.operands[0], op.result
        if src.type == res.type or _is_free(src.type, res.type):
            continue
        if not remat.plan(src, res.type.layout, {}, [MAX_REMAT_OPS]):
            if _carry_in_layout(op, carried_args):
                changed = True
                remat = _Remat()  # a loop was rebuilt: its memo entries name the old loop's values
            continue
        new = remat.build(src, res.type.layout)
        res.replace_all_uses_with(new)
        op.erase()
        changed = True
    return changed


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
    """Drop identity conversions and chains of conversions; rebuild cheap operands in place."""

    name = "remove-layout-conversions"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = propagate_mma_layouts(module)
        while _simplify_once(module):
            changed = True
        if _rematerialise(module):
            changed = True
            while _simplify_once(module):
                pass
        return changed
