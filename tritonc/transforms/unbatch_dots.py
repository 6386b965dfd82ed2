"""``unbatch-dots``: split a batched ``tt.dot`` into 2-D dots so that ``accelerate-matmul`` can
put each on tensor cores (``mma.sync`` / ``wgmma``).

Preconditions: ttg IR (``assign-layouts`` ran); runs right before ``accelerate-matmul``.
Postconditions: every eligible rank-3 dot ``[M, K, B] @ [K, N, B] + [M, N, B]`` (the batch
axis trailing, spec section 5 "Matrix product") is replaced by ``B`` rank-2 dots, one per batch
element, over slices of its operands, and one ``tt.stack`` of their results. The slices
(``tt.extract``) are then pushed towards the leaves (:class:`_Slicer`): an operand loaded for
the dot alone becomes ``B`` 2-D loads whose addresses and masks are 2-D computations, and a
loop-carried batched value used only through slices (the accumulator; a pointer advanced by
``pa += TK``) is split into ``B`` loop-carried 2-D values (:func:`split_loop_args`), so the
accumulators stay in mma registers across the loop and ``software-pipeline`` can copy each
operand slice with ``cp.async``. Preserves: nothing.

Why unrolling rather than a rank-3 mma layout: the 2-D dots reuse the whole existing tensor
core path unchanged (operand swizzles, ``ldmatrix``, ``wgmma`` descriptors, the accumulator
clean-ups of ``accelerate-matmul``, software pipelining of the operand loads), at the price
of ``B`` instruction streams per batch tile, which is what a batch tile of a few matrices
needs anyway (each 2-D slice is an independent product).

Eligible: rank 3, ``B <=`` :data:`MAX_BATCH_UNROLL`, and a 2-D slice that ``accelerate-matmul``
would move to mma v2 (element types, ``M % 16``, ``N % 8``, ``K`` a multiple of the
instruction's K: :func:`~tritonc.transforms.accelerate_matmul.mma_types`). Others stay on the
FMA path, batched.

Slices live in ``SliceLayout(2, parent)`` of their source's layout, so ``tt.extract`` and
``tt.stack`` are register renumberings whenever each thread holds whole batch columns; they go
through shared memory otherwise (``codegen/llvm/convert.py``). An operand that is not a load of
its own is first converted to :func:`batch_in_thread` of its layout, so its extracts are free.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.ir.builder import Builder
from tritonc.ir.core import Function, Module, Operation, Value
from tritonc.ir.layouts import BlockedLayout, MmaLayout, SliceLayout
from tritonc.ir.ops import get_opdef, has_trait, is_read_only
from tritonc.ir.types import TileType
from tritonc.passes import AnalysisManager, Pass, register_pass

from .accelerate_matmul import mma_types

#: The largest batch tile split into 2-D dots (one dot per batch element).
MAX_BATCH_UNROLL = 16


def unbatch_eligible(op: Operation, allow_tf32: bool) -> bool:
    """Whether batched dot ``op`` is split (see the module docstring)."""
    a, b, acc = (v.type for v in op.operands)
    if not all(isinstance(t, TileType) and t.layout is not None for t in (a, b, acc)):
        return False
    if a.rank != 3 or isinstance(acc.layout, MmaLayout) or a.shape[2] > MAX_BATCH_UNROLL:
        return False
    kw = mma_types(a.element, b.element, acc.element, op.attrs.get("input_precision", "ieee"), allow_tf32)
    if kw is None:
        return False
    M, K, _ = a.shape
    N = b.shape[1]
    return M % 16 == 0 and N % 8 == 0 and K % (8 * kw) == 0


def _slice_type(t: TileType, axis: int) -> TileType:
    return TileType(t.element, t.shape[:axis] + t.shape[axis + 1:], SliceLayout(axis, t.layout))


def batch_in_thread(layout: BlockedLayout, shape: tuple[int, ...], axis: int) -> BlockedLayout:
    """``layout`` changed so that each thread holds whole columns along ``axis``
    (``size_per_thread[axis] = shape[axis]``): the lanes and warps it spread along ``axis``
    move, one factor of 2 at a time, to the dimension with the most elements left per
    repetition. ``tt.extract`` / ``tt.stack`` along ``axis`` are then register renumberings."""
    spt, tpw, wpc = list(layout.size_per_thread), list(layout.threads_per_warp), list(layout.warps_per_cta)

    def room(d: int) -> float:
        return shape[d] / (spt[d] * tpw[d] * wpc[d])

    others = [d for d in range(len(shape)) if d != axis]
    for counts in (tpw, wpc):
        while counts[axis] > 1:
            counts[axis] //= 2
            d = max(others, key=room)
            counts[d] *= 2
    spt[axis] = shape[axis]
    return BlockedLayout(tuple(spt), tuple(tpw), tuple(wpc), tuple(layout.order))


def _convert(builder: Builder, v: Value, layout) -> Value:
    if v.type.layout == layout:
        return v
    return builder.value("ttg.convert_layout", [v], v.type.with_layout(layout))


def extract(builder: Builder, v: Value, axis: int, index: int) -> Value:
    """``tt.extract(v) {axis, index}`` in the slice layout of ``v``'s layout."""
    return builder.value("tt.extract", [v], _slice_type(v.type, axis), {"axis": axis, "index": index})


def split_dot(dot: Operation) -> None:
    """Replace batched ``dot`` by one 2-D dot per batch element and a ``tt.stack``."""
    a, b, c = dot.operands
    old = dot.result.type
    builder = Builder().before(dot)
    parts = []
    # An operand loaded for this dot alone is extracted as it is: push_extracts turns its
    # slices into 2-D loads. Other operands are converted to layouts whose threads hold whole
    # batch columns, so that the extracts are free. The accumulator is extracted in its own
    # layout, so that a loop-carried one splits (split_loop_args) and its extracts disappear.
    ops = []
    for x in (a, b):
        lay = x.type.layout
        load = _producer(x, "tt.load")
        if load is not None and len(x.uses) == 1:
            ops.append(x)  # its slices become 2-D loads (push_extracts)
            continue
        if isinstance(lay, BlockedLayout):
            lay = batch_in_thread(lay, x.type.shape, 2)
        ops.append(_convert(builder, x, lay))
    a, b = ops
    for i in range(a.type.shape[2]):
        ai, bi, ci = (extract(builder, x, 2, i) for x in (a, b, c))
        parts.append(builder.value("tt.dot", [ai, bi, ci], _slice_type(old, 2), dict(dot.attrs)))
    stacked = builder.value("tt.stack", parts, old, {"axis": 2})
    dot.result.replace_all_uses_with(stacked)
    dot.erase()


def _producer(v: Value, name: str) -> Operation | None:
    op = getattr(v, "op", None)
    return op if op is not None and op.name == name else None


class _Slicer:
    """Builds ``tt.extract(v) {axis, index}`` as the same computation on 2-D tiles where it can
    (pushing the extract towards the leaves), so that each 2-D dot's operand is a 2-D load
    whose address is a 2-D computation: ``software-pipeline`` can then copy it with
    ``cp.async``. Rules (``S(v)`` = the slice of ``v``, in ``SliceLayout(axis, v's layout)``):

    * a scalar constant or ``tt.splat(s)``: the same of the slice type;
    * ``tt.broadcast(y)``: ``S(y)`` (index 0 where ``y`` has size 1 there), broadcast if needed;
    * ``tt.expand_dims(y) {axis}`` along the sliced axis: ``y``;
    * ``ttg.convert_layout(y)``: a conversion of ``S(y)``;
    * a pure op with one layout for all its tiles (element-wise ``arith``/``math``, ``tt.addptr``,
      ``arith.select``, comparisons): the op on the slices of its operands;
    * ``tt.load(p, m?, o?)`` whose every user is an extract along the axis: a load of ``S(p)``
      (``S(m)``, ``S(o)``), issued where the original was;
    * ``tt.stack(x0, ...)`` along the axis: ``x_index``;
    * anything else (loop-carried values included): a ``tt.extract`` op right after it.
    """

    def __init__(self):
        self.memo: dict = {}

    @staticmethod
    def _builder_at(v: Value) -> Builder:
        owner = getattr(v, "op", None)
        if owner is not None:
            return Builder().after(owner)
        b = Builder()
        b.block, b.index = v.block, 0
        return b

    def get(self, v: Value, axis: int, index: int) -> Value:
        key = (v, axis, index)
        if key not in self.memo:
            self.memo[key] = self._build(v, axis, index)
        return self.memo[key]

    def _build(self, v: Value, axis: int, index: int) -> Value:
        t = v.type
        st = _slice_type(t, axis)
        op = getattr(v, "op", None)
        # Each builder is made after the operands' slices exist (they may be inserted before
        # ``v``'s op, which moves it).
        if op is not None and not op.regions and len(op.results) == 1:
            name = op.name
            if name == "arith.constant" and not isinstance(op.attrs["value"], list):
                return self._builder_at(v).constant(op.attrs["value"], st)
            if name == "tt.splat":
                return self._builder_at(v).value("tt.splat", [op.operands[0]], st)
            if name == "tt.stack" and op.attrs["axis"] == axis and op.operands[index].type == st:
                return op.operands[index]
            if name == "tt.expand_dims" and op.attrs["axis"] == axis and op.operands[0].type == st:
                return op.operands[0]
            if name == "tt.broadcast":
                y = op.operands[0]
                ys = self.get(y, axis, index if y.type.shape[axis] > 1 else 0)
                if ys.type.layout != st.layout:
                    return self._fallback(v, axis, index)
                if ys.type.shape == st.shape:
                    return ys
                return self._builder_at(v).value("tt.broadcast", [ys], st)
            if name == "ttg.convert_layout":
                ys = self.get(op.operands[0], axis, index)
                return ys if ys.type == st else self._builder_at(v).value("ttg.convert_layout", [ys], st)
            tiles = [x for x in op.operands if isinstance(x.type, TileType)]
            same_shape = all(x.type.shape == t.shape and x.type.layout == t.layout for x in tiles)
            if name == "tt.load" and same_shape and all(u.name == "tt.extract" and u.attrs["axis"] == axis
                                                         for u, _ in v.uses):
                operands = [self.get(x, axis, index) for x in op.operands]
                return self._builder_at(v).value("tt.load", operands, st, dict(op.attrs))
            if has_trait(name, "same-layout") and get_opdef(name).pure and same_shape:
                operands = [self.get(x, axis, index) if isinstance(x.type, TileType) else x for x in op.operands]
                return self._builder_at(v).value(name, operands, st, dict(op.attrs))
        return self._fallback(v, axis, index)

    def _fallback(self, v: Value, axis: int, index: int) -> Value:
        return extract(self._builder_at(v), v, axis, index)


def push_extracts(f: Function) -> bool:
    """Replace every ``tt.extract`` of ``f`` by its :class:`_Slicer` computation."""
    slicer = _Slicer()
    changed = False
    for op in [o for o in f.walk() if o.name == "tt.extract"]:
        if op.parent is None:
            continue
        src = op.operands[0]
        if getattr(src, "op", None) is None and src.block.parent_op() is not None \
                and src.block.parent_op().name == "scf.for":
            continue  # a loop-carried value: split_loop_args' job
        new = slicer.get(src, op.attrs["axis"], op.attrs["index"]) if _pushable(src) else None
        if new is None or _producer(new, "tt.extract") is not None or new.type != op.result.type:
            if new is not None and new is not op.result and not new.uses and getattr(new, "op", None) is not None:
                new.op.erase()  # an unused fallback extract
                slicer.memo.clear()
            continue  # nothing to push through
        op.result.replace_all_uses_with(new)
        op.erase()
        _erase_dead(src)
        changed = True
    return changed


def _erase_dead(v: Value) -> None:
    """Erase ``v``'s op when nothing uses it and it has no effect (a pure op or a load), then
    its operands' ops likewise (the batched computation the slices replaced)."""
    op = getattr(v, "op", None)
    if op is None or op.parent is None or op.regions or any(r.uses for r in op.results):
        return
    if not (get_opdef(op.name).pure or is_read_only(op.name)):
        return
    operands = list(op.operands)
    op.erase()
    for x in operands:
        _erase_dead(x)


def _pushable(v: Value) -> bool:
    op = getattr(v, "op", None)
    return op is not None and op.name not in ("tt.extract",)


def _split_arg(loop: Operation, j: int) -> bool:
    """Split iteration argument ``j`` of ``loop`` into one argument per slice when its only
    uses are ``tt.extract`` along one axis covering every index: the initial values and the
    yielded values are extracted too (and pushed by :func:`push_extracts`)."""
    body = loop.regions[0].block
    arg = body.args[1 + j]
    if not isinstance(arg.type, TileType) or not arg.uses:
        return False
    yield_op = body.terminator
    yielded = yield_op.operands[j]
    stack = _producer(yielded, "tt.stack")
    if stack is not None and stack.parent is not body:
        stack = None
    # Without a stack, the yielded value must be a pure one-layout op (pa + TK) of the argument
    # and values from outside the loop, used by the yield alone: it is rebuilt on the slices.
    step = None
    if stack is None:
        step = getattr(yielded, "op", None)
        if step is None or step.parent is not body or len(yielded.uses) != 1 or step.regions \
                or not (has_trait(step.name, "same-layout") and get_opdef(step.name).pure):
            return False
        for x in step.operands:
            if not isinstance(x.type, TileType):
                continue
            if x.type.shape != arg.type.shape or x.type.layout != arg.type.layout:
                return False
            owner = getattr(x, "op", None) or x.block.parent_op()
            if x is not arg and owner is not None and loop.is_ancestor_of(owner):
                return False
    users = [u for u, _ in arg.uses if u is not step]
    if not users or not all(u.name == "tt.extract" for u in users):
        return False
    axis = users[0].attrs["axis"]
    if any(u.attrs["axis"] != axis for u in users) or (stack is not None and stack.attrs["axis"] != axis):
        return False
    count = arg.type.shape[axis]
    part_type = _slice_type(arg.type, axis)
    if any(u.result.type != part_type for u in users):
        return False
    if stack is not None and any(x.type != part_type for x in stack.operands):
        return False
    # New initial values: a splat constant is rebuilt per slice, anything else extracted.
    init = loop.operands[3 + j]
    pre = Builder().before(loop)
    init_op = _producer(init, "arith.constant")
    if init_op is not None and not isinstance(init_op.attrs["value"], list) and init.type == arg.type:
        new_inits = [pre.constant(init_op.attrs["value"], part_type)] * count
    else:
        src = init if init.type == arg.type else pre.value("ttg.convert_layout", [init], arg.type)
        new_inits = [extract(pre, src, axis, i) for i in range(count)]
    # The new loop owns the old body; argument j becomes ``count`` arguments at the end.
    n_old = len(loop.results)
    inits = [v for k, v in enumerate(loop.operands[3:]) if k != j] + new_inits
    types = [r.type for k, r in enumerate(loop.results) if k != j] + [part_type] * count
    names = [r.name for k, r in enumerate(loop.results) if k != j] + [None] * count
    new_loop = Operation("scf.for", list(loop.operands[:3]) + inits, types, dict(loop.attrs), loc=loop.loc,
                         result_names=names)
    loop.parent.insert_before(loop, new_loop)
    region = loop.regions[0]
    loop.regions.clear()
    new_loop.add_region(region)
    parts = [body.add_argument(part_type) for _ in range(count)]
    for u in users:
        u.result.replace_all_uses_with(parts[u.attrs["index"]])
        u.erase()
    if stack is not None:
        new_yields = list(stack.operands)
    else:
        slicer = _Slicer()
        for i in range(count):
            slicer.memo[(arg, axis, i)] = parts[i]
        new_yields = [slicer.get(yielded, axis, i) for i in range(count)]
    yield_op.set_operands([v for k, v in enumerate(yield_op.operands) if k != j] + new_yields)
    if stack is not None and not stack.result.uses:
        stack.erase()
    if step is not None:
        step.erase()
    body.args.pop(1 + j)
    for k, a in enumerate(body.args):
        a.index = k
    # Old results: those kept map in order; result j is the stack of the new last ones.
    kept = [k for k in range(n_old) if k != j]
    for new_index, k in enumerate(kept):
        loop.results[k].replace_all_uses_with(new_loop.results[new_index])
    if loop.results[j].uses:
        after = Builder().after(new_loop)
        joined = after.value("tt.stack", list(new_loop.results[n_old - 1:]), loop.results[j].type, {"axis": axis})
        loop.results[j].replace_all_uses_with(joined)
    loop.erase()
    return True


def split_loop_args(f: Function) -> bool:
    """Apply :func:`_split_arg` to every loop of ``f`` until nothing changes."""
    changed = False
    progress = True
    while progress:
        progress = False
        for loop in [op for op in f.walk() if op.name == "scf.for"]:
            for j in range(len(loop.results)):
                if _split_arg(loop, j):
                    changed = progress = True
                    break
            if progress:
                break
    return changed


@register_pass
@dataclass
class UnbatchDots(Pass):
    """Split eligible batched dots into 2-D dots (see the module docstring)."""

    name = "unbatch-dots"
    allow_tf32: bool = False

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        for f in module.functions:
            dots = [op for op in f.walk() if op.name == "tt.dot" and unbatch_eligible(op, self.allow_tf32)]
            for dot in dots:
                split_dot(dot)
            if dots:
                # Push the slices towards the leaves and split the loop-carried batched values,
                # until neither changes anything (each split exposes new extracts to push).
                while push_extracts(f) | split_loop_args(f):
                    pass
                changed = True
        return changed
