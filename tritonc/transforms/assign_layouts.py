"""``assign-layouts``: give every tile value a layout (tt IR -> ttg IR).

Preconditions: a verified tt module (tiles may already carry layouts: those are kept).
Postconditions: every tile-typed value (op results, block arguments) has a blocked or slice
layout; every op whose operands must agree (see below) sees them in one layout, with
``ttg.convert_layout`` inserted where they did not; module attribute ``num_warps`` is set.
Preserves: nothing.

Default layout per tile *shape* (:func:`default_blocked_layout`; one per shape, whatever the
element type, so element-wise chains and casts never need conversions): ``order = [rank-1,
..., 0]``; ``size_per_thread`` is 1 except along the fastest dimension, where it is
``min(4, numel / threads, shape[-1])`` when the tile has more elements than threads (up to
four 32-bit elements, one 16-byte access; the ``coalesce`` pass will refine this per
access); the 32 lanes go to the fastest dimensions first (each clamped to
``shape[d] / size_per_thread[d]``, leftovers to the slowest dimension); warps go to the
slowest dimensions first (clamped likewise, leftovers to the slowest dimension). Leftovers
make the layout wrap: elements are then replicated over threads, which the lowering handles.

Layout rules (the constraints the lowering relies on):

* element-wise ops, casts, ``arith.select``, ``tt.addptr``, ``tt.load`` (ptr, mask, other),
  ``tt.store`` (ptr, value, mask), atomics: all tile operands and results in one layout;
* ``tt.reduce(x){axis}`` gives ``SliceLayout(axis, layout(x))`` (a scalar for rank 1);
* ``tt.expand_dims`` of ``SliceLayout(axis, P)`` along ``axis`` gives ``P`` (other operands are
  first converted to such a slice); ``tt.broadcast`` keeps its operand's layout;
* ``tt.trans`` permutes a blocked layout (free); ``tt.reshape`` gets the default layout;
* ``tt.dot`` gives its accumulator's layout (``a`` and ``b`` may have any layout: the FMA
  lowering stages them through shared memory);
* ``scf.for``/``scf.while``/``scf.if``: carried values, region arguments, yields and results
  of one position share a layout.

Memory accesses come first (``transforms/coalesce.py``): every load, store and atomic on a
pointer tile has a coalesced layout (from axis info: order by contiguity, 16-byte accesses
along the fastest dimension, lanes over consecutive addresses). Values are grouped by the
constraints above that equate layouts (element-wise ops, broadcasts, loop-carried values,
``scf.if`` results; union-find, :class:`~tritonc.analysis.layout_groups.LayoutGroups`); a group holding an access takes the
access's layout as its default instead of the shape default (loads first, then stores and
atomics, in program order; gathers, whose pointers have no contiguity, only when nothing
else decides), so an accumulator, a constant or an index computation feeding an access is
built in the access's layout. An access always gets its own coalesced layout (operands
converted into it, its result as users need), so two disagreeing accesses (a transpose)
cost one conversion, which ``remove-layout-conversions`` places.

A group whose accesses are all gathers (strides known only at run time) is decided by its
index computation, unless the layout that gives some operand of an access keeps fewer than a
quarter of the threads on distinct elements (a broadcast of a ``[4, 1, 1]`` range); then the
group takes the shape default (:meth:`_FunctionLayouts.spread_replicating_gathers`).

Algorithm, three walks over each function (a small form of Triton's layout propagation):

1. *natural* (forward): the layout each value would get from its operands alone;
2. *wants* (backward): the layout each value's users would like, from the last user in
   program order: element-wise ops want their result's layout for their operands,
   ``broadcast`` the result's layout, ``expand_dims`` a slice of it, ``reduce`` the parent of
   its slice result, stores the layout of their stored value; so ``make_range``/``splat``
   chains feeding a 2-D computation are built directly in the slice or blocked layout the
   2-D tile uses;
3. *assign* (forward): a value takes its wanted layout, else its natural one; an operand in
   another layout than its op requires is converted with ``ttg.convert_layout``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.analysis.layout_groups import LayoutGroups
from tritonc.ir.core import Block, Function, Module, Operation, Value
from tritonc.ir.layout_algebra import default_blocked_layout, inverse_permutation, trans_layout
from tritonc.ir.layouts import BlockedLayout, Layout, SliceLayout
from tritonc.ir.ops import has_trait
from tritonc.ir.types import TileType
from tritonc.passes import AnalysisManager, Pass, register_pass
from tritonc.target import WARP_SIZE

from .coalesce import access_layouts, is_tile_access, pointer_of

def _replicating(layout: BlockedLayout, shape: tuple[int, ...], num_warps: int) -> bool:
    """Whether ``layout`` keeps fewer than a quarter of the CTA's threads on distinct elements
    of a ``shape`` tile that has at least one element per thread."""
    threads = WARP_SIZE * num_warps
    numel = covering = 1
    for d, n in enumerate(shape):
        numel *= n
        covering *= min(layout.threads_per_warp[d] * layout.warps_per_cta[d], max(1, n // layout.size_per_thread[d]))
    return numel >= threads and 4 * covering <= threads


def _is_tile(v: Value) -> bool:
    return isinstance(v.type, TileType)


def _ops_forward(block: Block):
    for op in list(block.ops):
        yield op


class _FunctionLayouts:
    """The three walks over one function."""

    def __init__(self, f: Function, num_warps: int, axis: AxisInfoAnalysis | None = None):
        self.f = f
        self.num_warps = num_warps
        self.natural: dict[Value, Layout] = {}
        self.want: dict[Value, Layout] = {}
        self.carried: dict[Operation, list] = {}
        self.changed = False
        self.groups = LayoutGroups(f)
        #: memory op -> the layout it is done in; value group root -> the group's layout.
        self.access: dict[Operation, Layout] = {}
        self.group_layout: dict[Value, Layout] = {}
        self.coalescing = axis is not None
        if axis is not None:
            self.access, self.group_layout = access_layouts(f, axis, num_warps, self.groups.find)

    def group(self, v: Value) -> Layout | None:
        """The layout of ``v``'s group (from an access in it), if any."""
        return self.group_layout.get(self.groups.find(v)) if self.group_layout else None

    def default(self, v_or_shape) -> BlockedLayout:
        if isinstance(v_or_shape, Value):
            lay = self.group(v_or_shape)
            if lay is not None:
                return lay
        shape = v_or_shape.type.shape if isinstance(v_or_shape, Value) else tuple(v_or_shape)
        return default_blocked_layout(tuple(shape), self.num_warps)

    # -- walk 1: natural layouts -------------------------------------------------------------
    def nat(self, v: Value) -> Layout | None:
        if not _is_tile(v):
            return None
        if v.type.layout is not None:
            return v.type.layout
        return self.group(v) or self.natural.get(v) or self.default(v)

    def natural_block(self, block: Block) -> None:
        for op in block.ops:
            self.natural_op(op)

    def natural_op(self, op: Operation) -> None:
        name = op.name
        if name == "scf.for":
            inits = op.operands[3:]
            body = op.regions[0].block
            for init, arg, res in zip(inits, body.args[1:], op.results):
                if _is_tile(init):
                    self.natural[arg] = self.natural[res] = self.nat(init)
            self.natural_block(body)
            return
        if name == "scf.while":
            before, after = op.regions[0].block, op.regions[1].block
            for init, arg in zip(op.operands, before.args):
                if _is_tile(init):
                    self.natural[arg] = self.nat(init)
            self.natural_block(before)
            cond = before.terminator
            for v, arg, res in zip(cond.operands[1:], after.args, op.results):
                if _is_tile(v):
                    self.natural[arg] = self.natural[res] = self.nat(v)
            self.natural_block(after)
            return
        if name == "scf.if":
            for region in op.regions:
                self.natural_block(region.block)
            for v, res in zip(op.regions[0].block.terminator.operands, op.results):
                if _is_tile(v):
                    self.natural[res] = self.nat(v)
            return
        for region in op.regions:
            self.natural_block(region.block)
        if len(op.results) != 1 or not _is_tile(op.result):
            return
        res = op.result
        src = op.operands[0] if op.operands else None
        if name == "tt.broadcast":
            self.natural[res] = self.nat(src)
        elif name == "tt.expand_dims":
            sl = self.nat(src)
            if isinstance(sl, SliceLayout) and sl.dim == op.attrs["axis"]:
                self.natural[res] = sl.parent
        elif name == "tt.trans":
            lay = self.nat(src)
            if isinstance(lay, BlockedLayout):
                self.natural[res] = trans_layout(lay, tuple(op.attrs["order"]))
        elif name == "tt.reduce":
            self.natural[res] = SliceLayout(op.attrs["axis"], self.nat(src))
        elif name == "tt.dot":
            self.natural[res] = self.nat(op.operands[2])
        elif op in self.access:
            self.natural[res] = self.access[op]
        elif has_trait(name, "same-layout"):
            for v in op.operands:
                if _is_tile(v):
                    self.natural[res] = self.nat(v)
                    break

    # -- walk 2: wants -----------------------------------------------------------------------
    def set_want(self, v: Value, layout: Layout | None) -> None:
        if layout is not None and _is_tile(v) and v not in self.want and v.type.layout is None:
            self.want[v] = layout

    def chosen(self, v: Value) -> Layout | None:
        """The layout ``v`` will most likely get (its want, else its natural layout)."""
        if not _is_tile(v):
            return None
        if v.type.layout is not None:
            return v.type.layout
        return self.want.get(v) or self.nat(v)

    def wants_block(self, block: Block) -> None:
        for op in reversed(block.ops):
            self.wants_op(op)

    def wants_op(self, op: Operation) -> None:
        name = op.name
        if name == "scf.for":
            body = op.regions[0].block
            lays = [self.chosen(r) for r in op.results]
            self.carried[op] = lays
            for v, lay in zip(body.terminator.operands, lays):
                self.set_want(v, lay)
            self.wants_block(body)
            for v, lay in zip(op.operands[3:], lays):
                self.set_want(v, lay)
            return
        if name == "scf.while":
            before, after = op.regions[0].block, op.regions[1].block
            lays_before = [self.nat(v) for v in op.operands]
            lays_after = [self.chosen(r) for r in op.results]
            self.carried[op] = [lays_before, lays_after]
            for v, lay in zip(after.terminator.operands, lays_before):
                self.set_want(v, lay)
            self.wants_block(after)
            for v, lay in zip(before.terminator.operands[1:], lays_after):
                self.set_want(v, lay)
            self.wants_block(before)
            for v, lay in zip(op.operands, lays_before):
                self.set_want(v, lay)
            return
        if name == "scf.if":
            lays = [self.chosen(r) for r in op.results]
            self.carried[op] = lays
            for region in op.regions:
                for v, lay in zip(region.block.terminator.operands, lays):
                    self.set_want(v, lay)
                self.wants_block(region.block)
            return
        for region in reversed(op.regions):
            self.wants_block(region.block)
        if name == "tt.store":
            lay = self.access.get(op) or self.chosen(op.get("value"))
            for v in op.operands:
                # A store in a layout of its own converts its value (its group keeps its layout).
                self.set_want(v, (self.group(v) if v is op.get("value") else None) or lay)
            return
        if len(op.results) != 1 or not _is_tile(op.result):
            return
        lay = self.access.get(op) or self.chosen(op.result)
        src = op.operands[0] if op.operands else None
        if name == "tt.broadcast":
            self.set_want(src, lay)
        elif name == "tt.expand_dims":
            self.set_want(src, SliceLayout(op.attrs["axis"], lay))
        elif name == "tt.trans":
            if isinstance(lay, BlockedLayout):
                self.set_want(src, trans_layout(lay, inverse_permutation(op.attrs["order"])))
        elif name == "tt.reduce":
            if isinstance(lay, SliceLayout) and lay.dim == op.attrs["axis"]:
                self.set_want(src, lay.parent)
        elif name == "tt.dot":
            self.set_want(op.operands[2], lay)
        elif has_trait(name, "same-layout"):
            for v in op.operands:
                self.set_want(v, lay)

    # -- walk 3: assignment ------------------------------------------------------------------
    def set_layout(self, v: Value, layout: Layout) -> None:
        if _is_tile(v) and v.type.layout != layout:
            v.type = v.type.with_layout(layout)
            self.changed = True

    def final(self, v: Value) -> Layout | None:
        """The layout a fresh result ``v`` gets when its op does not dictate one."""
        if not _is_tile(v):
            return None
        if v.type.layout is not None:
            return v.type.layout
        return self.want.get(v) or self.default(v)

    def require(self, op: Operation, index: int, layout: Layout | None) -> None:
        """Make operand ``index`` of ``op`` arrive in ``layout`` (insert a conversion)."""
        v = op.operands[index]
        if layout is None or not _is_tile(v) or v.type.layout == layout:
            return
        cvt = Operation("ttg.convert_layout", [v], [v.type.with_layout(layout)], loc=op.loc)
        op.parent.insert_before(op, cvt)
        op.set_operand(index, cvt.result)
        self.changed = True

    def assign_block(self, block: Block) -> None:
        for op in _ops_forward(block):
            self.assign_op(op)

    def assign_op(self, op: Operation) -> None:
        name = op.name
        if name == "scf.for":
            lays = self.carried.get(op) or [self.chosen(r) for r in op.results]
            body = op.regions[0].block
            for i, lay in enumerate(lays):
                self.require(op, 3 + i, lay)
                if lay is not None:
                    self.set_layout(body.args[1 + i], lay)
                    self.set_layout(op.results[i], lay)
            self.assign_block(body)
            for i, lay in enumerate(lays):
                self.require(body.terminator, i, lay)
            return
        if name == "scf.while":
            before, after = op.regions[0].block, op.regions[1].block
            lays_before, lays_after = self.carried.get(op) or (
                [self.nat(v) for v in op.operands], [self.chosen(r) for r in op.results])
            for i, lay in enumerate(lays_before):
                self.require(op, i, lay)
                if lay is not None:
                    self.set_layout(before.args[i], lay)
            for i, lay in enumerate(lays_after):
                if lay is not None:
                    self.set_layout(after.args[i], lay)
                    self.set_layout(op.results[i], lay)
            self.assign_block(before)
            for i, lay in enumerate(lays_after):
                self.require(before.terminator, 1 + i, lay)
            self.assign_block(after)
            for i, lay in enumerate(lays_before):
                self.require(after.terminator, i, lay)
            return
        if name == "scf.if":
            lays = self.carried.get(op) or [self.chosen(r) for r in op.results]
            for i, lay in enumerate(lays):
                if lay is not None:
                    self.set_layout(op.results[i], lay)
            for region in op.regions:
                self.assign_block(region.block)
                for i, lay in enumerate(lays):
                    self.require(region.block.terminator, i, lay)
            return
        for region in op.regions:
            self.assign_block(region.block)
        if name == "tt.store":
            lay = self.access.get(op) or (op.get("value").type.layout if _is_tile(op.get("value")) else None)
            for i in range(len(op.operands)):
                self.require(op, i, lay)
            return
        if name == "ttg.convert_layout" or len(op.results) != 1 or not _is_tile(op.result):
            return
        res = op.result
        src = op.operands[0] if op.operands else None
        if op in self.access:
            lay = self.access[op]
        elif res.type.layout is not None and name not in ("tt.reduce", "tt.broadcast"):
            lay = res.type.layout
        elif name == "tt.broadcast":
            lay = src.type.layout
        elif name == "tt.expand_dims":
            axis = op.attrs["axis"]
            sl = src.type.layout
            if isinstance(sl, SliceLayout) and sl.dim == axis:
                lay = sl.parent
            else:
                lay = self.final(res)
        elif name == "tt.trans":
            if isinstance(src.type.layout, BlockedLayout):
                lay = trans_layout(src.type.layout, tuple(op.attrs["order"]))
            else:
                lay = self.final(res)
                if not isinstance(lay, BlockedLayout):
                    lay = self.default(res)
        elif name == "tt.reduce":
            lay = SliceLayout(op.attrs["axis"], src.type.layout)
        elif name == "tt.dot":
            lay = op.operands[2].type.layout
        elif has_trait(name, "same-layout") and res not in self.want:
            first = next((v for v in op.operands if _is_tile(v)), None)
            lay = first.type.layout if first is not None else self.final(res)
        else:
            lay = self.final(res)
        self.set_layout(res, lay)
        # Operand requirements.
        if name == "tt.expand_dims":
            self.require(op, 0, SliceLayout(op.attrs["axis"], lay))
        elif name == "tt.trans":
            self.require(op, 0, trans_layout(lay, inverse_permutation(op.attrs["order"])))
        elif has_trait(name, "same-layout"):
            for i in range(len(op.operands)):
                self.require(op, i, lay)
        elif name == "tt.dot":
            pass  # a, b: any layout; acc already decided the result's

    def run(self) -> bool:
        for arg in self.f.args:
            if _is_tile(arg) and arg.type.layout is None:
                self.set_layout(arg, self.default(arg))
        body = self.f.body.block
        self.natural_block(body)
        if self.spread_replicating_gathers():
            self.natural = {}
            self.natural_block(body)
        self.wants_block(body)
        self.assign_block(body)
        return self.changed

    def spread_replicating_gathers(self) -> bool:
        """Give the shape default to each value group whose accesses are all gathers (no
        coalesced layout decided it) when a layout one of its operands would get from its
        computation keeps fewer than a quarter of the threads busy on a tile with work for all (a
        broadcast of a ``[4, 1, 1]`` range puts all 32 lanes of a warp along the 4 rows:
        every element loaded by 128 threads, none along the rows in memory). Returns whether
        any group changed (the natural walk then runs again)."""
        if not self.coalescing:
            return False  # tests of the propagation alone
        changed = False
        for op in self.f.walk():
            if not is_tile_access(op) or op in self.access:
                continue
            ptr = pointer_of(op)
            root = self.groups.find(ptr)
            if root in self.group_layout:
                continue
            shape = tuple(ptr.type.shape)
            if any(isinstance(lay, BlockedLayout) and _replicating(lay, shape, self.num_warps)
                   for lay in (self.nat(v) for v in op.operands if _is_tile(v))):
                self.group_layout[root] = default_blocked_layout(shape, self.num_warps)
                changed = True
        return changed


@register_pass
@dataclass
class AssignLayouts(Pass):
    """Give every tile a layout; insert ``ttg.convert_layout`` where operands disagree."""

    name = "assign-layouts"
    num_warps: int = 4
    #: build the layouts around the coalesced layouts of the memory accesses (``coalesce.py``);
    #: ``false`` gives every group the shape default (for tests of the propagation alone).
    coalesce: bool = True

    def run(self, module: Module, am: AnalysisManager) -> bool:
        num_warps = int(module.attrs.get("num_warps", self.num_warps))
        changed = module.attrs.get("num_warps") != num_warps
        module.attrs["num_warps"] = num_warps
        axis = am.get(AxisInfoAnalysis) if self.coalesce else None
        for f in module.functions:
            changed |= _FunctionLayouts(f, module.num_warps_of(f, num_warps), axis).run()
        return changed
