"""Forward propagation of tensor-core accumulator layouts (part of ``remove-layout-conversions``).

After ``accelerate-matmul`` a dot's result is in an :class:`~tritonc.ir.layouts.MmaLayout` and
its users read it through a ``ttg.convert_layout`` back to the blocked layout
``assign-layouts`` chose, which goes through shared memory. Flash attention's online softmax
(``s = q @ k``, row maxima and sums, ``exp``, ``acc = acc * alpha[:, newaxis] + p @ v``) would
then convert the score tile, the row statistics and the accumulator on every loop trip.

This is a small form of Triton's layout propagation (``RemoveLayoutConversions.cpp``, the
forward propagation from dot anchors): starting at each conversion out of an mma layout, the
mma layout is pushed to every value connected to it through *layout-transparent* ops:

* element-wise ops (trait ``elementwise``; not on pointers): result and tile operands share a
  layout;
* ``tt.broadcast``: operand and result share a layout;
* ``tt.expand_dims{axis}``: the operand is in ``SliceLayout(axis, L)`` of the result's ``L``;
* ``tt.reduce{axis}``: the result is ``SliceLayout(axis, L)`` of the operand's ``L`` (a
  reduction to a scalar reads the group's layout), when the operand's distribution does not wrap along ``axis`` (``codegen/llvm/reduce.py``
  reduces over the lanes of an mma fragment);
* ``scf.for`` loop-carried values: the initial value, the body argument, the yielded value
  and the result of one position share a layout, so the accumulator and the row statistics
  stay in the tensor-core layout for the whole loop (backward through loop-carried values).

An element-wise user joins (forward) only when its other operands are free to have in the
group's layout (in the group or another mma-based layout, cheap index computations,
loop-carried values, or conversions, broadcasts, reductions and element-wise results of
those); a user that would need a loaded tile converted (split-K's ``c + *pc``)
keeps its layout and reads the group's value through one conversion, as before.

Values reached *backward* (an operand of a transparent op that is not yet in the group) join
only when they are floating-point, not pointers, and every use of them is itself
transparent; otherwise (index arithmetic, masks, loads, values also used elsewhere) they stay
where they are and are converted where the group reads them (the rematerialisation of
``remove-layout-conversions`` then rebuilds cheap index chains in the new layout). A use of a
group value by any other op (a store, a dot operand, a ``local_alloc``, an ``scf.if`` yield)
gets a conversion back to the value's old type. When one value is wanted in two layouts the
group is dropped unless the two distribute identically (two wgmma layouts that differ only in
the instruction's ``N``): then the second edge becomes a free conversion.

Every rewrite keeps the program's meaning: only layouts change, and every changed value's
old users see the old type through a conversion.
"""
from __future__ import annotations

from tritonc.ir.builder import Builder
from tritonc.ir.core import BlockArgument, Function, Module, Operation, Value
from tritonc.ir.distribution import distribution
from tritonc.ir.layouts import Layout, MmaLayout, SliceLayout
from tritonc.ir.ops import has_trait
from tritonc.ir.types import PointerType, TileType


def _base(layout: Layout | None) -> Layout | None:
    while isinstance(layout, SliceLayout):
        layout = layout.parent
    return layout


def _is_mma_based(layout: Layout | None) -> bool:
    return isinstance(_base(layout), MmaLayout)


def _is_tile(v: Value) -> bool:
    return isinstance(v.type, TileType)


def _elementwise(op: Operation) -> bool:
    if op.regions or len(op.results) != 1 or op.name == "arith.constant":
        return False
    if not has_trait(op, "elementwise") or not _is_tile(op.result):
        return False
    return not any(isinstance(v.type, TileType) and isinstance(v.type.element, PointerType)
                   for v in list(op.operands) + [op.result])


def _reducible(layout: Layout, shape: tuple[int, ...], axis: int) -> bool:
    """Whether ``tt.reduce`` along ``axis`` of a ``shape`` tile in mma-based ``layout`` lowers
    (the distribution must not wrap along the reduced dimension)."""
    try:
        sd = distribution(layout, shape)
    except (NotImplementedError, ValueError):
        return False
    return not sd.wraps(sd.dims[axis])


def _equivalent(a: Layout, b: Layout, shape: tuple[int, ...]) -> bool:
    """Whether a tile of ``shape`` is distributed identically in ``a`` and ``b``."""
    try:
        da, db = distribution(a, shape), distribution(b, shape)
    except (NotImplementedError, ValueError):
        return False
    return da.num_threads == db.num_threads and da.offsets == db.offsets and \
        (da.coords() == db.coords()).all()


def _loop_position(v: Value):
    """``(loop, j)`` when ``v`` is iteration argument / result ``j`` of an ``scf.for``."""
    if isinstance(v, BlockArgument):
        op = v.block.parent_op()
        if op is not None and op.name == "scf.for" and v.index >= 1:
            return op, v.index - 1
        return None
    op = getattr(v, "op", None)
    if op is not None and op.name == "scf.for":
        return op, v.index
    return None


class _Group:
    """Plans one propagation: ``layout[v]`` for every value of the group."""

    def __init__(self):
        self.layout: dict[Value, Layout] = {}
        self.work: list[Value] = []
        self.free_edges: set[tuple[Operation, int]] = set()
        self.failed = False

    def add(self, v: Value, layout: Layout, edge: tuple[Operation, int] | None = None) -> bool:
        """Put ``v`` in the group in ``layout``; False when it is already in another one."""
        have = self.layout.get(v)
        if have is not None:
            if have == layout:
                return True
            if edge is not None and _equivalent(have, layout, v.type.shape):
                self.free_edges.add(edge)
                return True
            self.failed = True
            return False
        self.layout[v] = layout
        self.work.append(v)
        return True

    def joins_backward(self, v: Value, layout: Layout) -> bool:
        """Whether operand ``v`` of a transparent op joins the group in ``layout`` (see the
        module docstring)."""
        if v in self.layout:
            return True
        if not _is_tile(v) or not getattr(v.type.element, "is_float", False):
            return False
        if _loop_position(v) is not None:
            return True
        op = getattr(v, "op", None)
        if op is None or not (_elementwise(op) or op.name in ("tt.broadcast", "tt.expand_dims", "tt.reduce")):
            return False
        if _operand_layout(op, layout) is None:
            return False  # a reduction that cannot run in the parent of ``layout``
        return all(_transparent_use(u, i) for u, i in v.uses)


def _transparent_use(op: Operation, index: int) -> bool:
    if _elementwise(op) or op.name == "tt.broadcast":
        return True
    if op.name in ("tt.expand_dims", "tt.reduce"):
        return True
    if op.name == "scf.for":
        return index >= 3
    if op.name == "scf.yield":
        parent = op.parent_op()
        return parent is not None and parent.name == "scf.for"
    return False


#: How deep :func:`_free_to_join` looks through operands.
_JOIN_DEPTH = 24


def _rebuildable(v: Value, depth: int = _JOIN_DEPTH) -> bool:
    """Whether ``v`` is computed from scalars by cheap ops only (constants, ranges, splats, index
    arithmetic, masks, conversions of those): the rematerialisation of
    ``remove-layout-conversions`` rebuilds it in any layout instead of converting it."""
    if not _is_tile(v):
        return True
    op = getattr(v, "op", None)
    if op is None or depth <= 0:
        return False
    if op.name == "ttg.convert_layout":
        return _rebuildable(op.operands[0], depth - 1)
    if not has_trait(op, "cheap") or op.regions or len(op.results) != 1:
        return False
    return all(_rebuildable(x, depth - 1) for x in op.operands)


def _free_to_join(v: Value, g: "_Group", depth: int = _JOIN_DEPTH) -> bool:
    """Whether operand ``v`` of an element-wise user can be had in the group's layout without a
    conversion through shared memory on the way: it is in the group, rebuilt cheaply, a
    loop-carried value (converted once outside the loop at most), or computed element-wise
    from such values."""
    if v in g.layout or not _is_tile(v) or _rebuildable(v):
        return True
    if _loop_position(v) is not None or _is_mma_based(v.type.layout):
        return True
    op = getattr(v, "op", None)
    if op is None or depth <= 0:
        return False
    if op.name in ("ttg.convert_layout", "tt.broadcast", "tt.expand_dims", "tt.reduce"):
        return _free_to_join(op.operands[0], g, depth - 1)
    if not _elementwise(op):
        return False
    return all(_free_to_join(x, g, depth - 1) for x in op.operands)


def _forward_result(op: Operation, index: int, layout: Layout):
    """The layout of ``op``'s result when operand ``index`` is in ``layout`` (None: not transparent)."""
    if _elementwise(op) or op.name == "tt.broadcast":
        return layout
    if op.name == "tt.expand_dims":
        if isinstance(layout, SliceLayout) and layout.dim == op.attrs["axis"]:
            return layout.parent
        return None
    if op.name == "tt.reduce":
        if not _is_tile(op.result):
            return None
        axis = op.attrs["axis"]
        if not _reducible(layout, op.operands[0].type.shape, axis):
            return None
        return SliceLayout(axis, layout)
    return None


def _operand_layout(op: Operation, layout: Layout):
    """The layout of ``op``'s (first) tile operand when its result is in ``layout`` (backward)."""
    if _elementwise(op) or op.name == "tt.broadcast":
        return layout
    if op.name == "tt.expand_dims":
        return SliceLayout(op.attrs["axis"], layout)
    if op.name == "tt.reduce":
        if isinstance(layout, SliceLayout) and layout.dim == op.attrs["axis"] and \
                _reducible(layout.parent, op.operands[0].type.shape, layout.dim):
            return layout.parent
        return None
    return None


def _plan(seed: Value, layout: Layout) -> _Group | None:
    g = _Group()
    g.add(seed, layout)
    while g.work and not g.failed:
        v = g.work.pop()
        lay = g.layout[v]
        # Loop-carried positions: init, body argument, yielded value and result together.
        pos = _loop_position(v)
        if pos is not None:
            loop, j = pos
            body = loop.regions[0].block
            for w in (loop.operands[3 + j], body.args[1 + j], body.terminator.operands[j], loop.results[j]):
                if w is v or w in g.layout:
                    if w in g.layout and g.layout[w] != lay:
                        g.failed = True
                    continue
                if isinstance(w, BlockArgument) or getattr(w, "op", None) is loop or g.joins_backward(w, lay):
                    g.add(w, lay)
        # Backward: the defining op's other tile operands.
        op = getattr(v, "op", None)
        if op is not None and (op.name in ("tt.broadcast", "tt.expand_dims", "tt.reduce") or _elementwise(op)):
            want = _operand_layout(op, lay)
            for i, x in enumerate(op.operands):
                if not _is_tile(x):
                    continue
                if op.name in ("tt.broadcast", "tt.expand_dims", "tt.reduce") and i > 0:
                    continue
                if want is not None and g.joins_backward(x, want):
                    g.add(x, want, (op, i))
        # Forward: users.
        for user, i in list(v.uses):
            if user.name == "scf.for" and i >= 3:
                body = user.regions[0].block
                g.add(body.args[1 + i - 3], lay)
                continue
            if user.name == "scf.yield" and _transparent_use(user, i):
                loop = user.parent_op()
                g.add(loop.results[i], lay)
                continue
            res_lay = _forward_result(user, i, lay)
            if res_lay is None:
                continue
            if _elementwise(user) and not all(k == i or not _is_tile(x) or _free_to_join(x, g)
                                              for k, x in enumerate(user.operands)):
                continue  # another operand would cost a conversion: the user keeps its layout
            g.add(user.result, res_lay, (user, i))
            if _elementwise(user):
                for k, x in enumerate(user.operands):
                    if k != i and _is_tile(x) and g.joins_backward(x, lay):
                        g.add(x, lay, (user, k))
    if g.failed:
        return None
    return g


def _needed(op: Operation, index: int, g: _Group) -> Layout | None:
    """The layout operand ``index`` of ``op`` must have once the group is retyped, or None
    when ``op`` is not a transparent op of the group (the operand keeps what it had)."""
    for r in op.results:
        if r in g.layout:
            break
    else:
        r = None
    if op.name == "scf.for" and index >= 3:
        arg = op.regions[0].block.args[1 + index - 3]
        return g.layout.get(arg)
    if op.name == "scf.yield":
        loop = op.parent_op()
        if loop is not None and loop.name == "scf.for":
            return g.layout.get(loop.results[index])
        return None
    if op.name == "tt.reduce" and not _is_tile(op.result):
        x = op.operands[0]  # a reduction to a scalar reads its operand in the group's layout
        lay = g.layout.get(x)
        if lay is not None and _reducible(lay, x.type.shape, op.attrs["axis"]):
            return lay
        return None
    if r is None:
        return None
    if op.name in ("tt.broadcast", "tt.expand_dims", "tt.reduce") and index > 0:
        return None
    return _operand_layout(op, g.layout[r])


def _apply(g: _Group) -> None:
    old = {v: v.type for v in g.layout}
    for v, lay in g.layout.items():
        v.type = v.type.with_layout(lay)
    # Every use of a tile value whose type no longer fits its user gets a conversion.
    touched: set[Operation] = set()
    for v in g.layout:
        for user, _ in v.uses:
            touched.add(user)
        owner = getattr(v, "op", None)
        if owner is not None:
            touched.add(owner)
        if isinstance(v, BlockArgument) and v.block.parent_op() is not None:
            touched.add(v.block.parent_op())
    for op in touched:
        if op.parent is None or op.name == "ttg.convert_layout":
            continue  # a conversion reads any layout
        for i, x in enumerate(list(op.operands)):
            if not _is_tile(x):
                continue
            need = _needed(op, i, g)
            if need is None:
                # Not a transparent op of the group: it reads the old type.
                want = old.get(x, x.type)
            else:
                want = x.type.with_layout(need)
            if x.type == want:
                continue
            builder = Builder().before(op)
            cvt = builder.value("ttg.convert_layout", [x], want)
            op.set_operand(i, cvt)


def propagate_mma_layouts(module: Module) -> bool:
    """Push mma accumulator layouts forward from every conversion out of one (see the module
    docstring). Returns whether the IR changed."""
    changed = False
    for f in module.functions:
        changed |= _propagate_function(f)
    return changed


def _propagate_function(f: Function) -> bool:
    changed = False
    tried: set[Operation] = set()
    progress = True
    while progress:
        progress = False
        for cvt in [op for op in f.walk() if op.name == "ttg.convert_layout"]:
            if cvt in tried or cvt.parent is None:
                continue
            src = cvt.operands[0]
            if not _is_tile(src) or not _is_mma_based(src.type.layout) or _is_mma_based(cvt.result.type.layout):
                continue
            tried.add(cvt)
            g = _plan(cvt.result, src.type.layout)
            if g is None or len(g.layout) < 2:
                continue
            _apply(g)
            changed = progress = True
            break
    return changed
