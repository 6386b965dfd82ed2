"""``unbatch-dots``: split a batched ``tt.dot`` into 2-D dots so that ``accelerate-matmul`` can
put each on tensor cores (``mma.sync`` / ``wgmma``).

Preconditions: ttg IR (``assign-layouts`` ran); runs right before ``accelerate-matmul``.
Postconditions: every eligible rank-3 dot ``[M, K, B] @ [K, N, B] + [M, N, B]`` (the batch
axis trailing, spec section 5 "Matrix product") is replaced by ``B`` rank-2 dots, one per batch
element, over ``tt.extract`` slices of its operands, and one ``tt.stack`` of their results;
loop-carried batched accumulators are split into ``B`` loop-carried 2-D accumulators so that
they stay in mma registers across the loop. Preserves: nothing.

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
through shared memory otherwise (``codegen/llvm/convert.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.ir.builder import Builder
from tritonc.ir.core import Function, Module, Operation, Value
from tritonc.ir.layouts import BlockedLayout, MmaLayout, SliceLayout
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
    # The operands are converted to layouts whose threads hold whole batch columns, so that
    # the extracts are free; the accumulator is extracted in its own layout, so that a
    # loop-carried one splits (:func:`split_loop_args`) and its extracts disappear.
    ops = []
    for x in (a, b):
        lay = x.type.layout
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


def _split_arg(loop: Operation, j: int) -> bool:
    """Split iteration argument ``j`` of ``loop`` into one argument per slice when its only
    uses are ``tt.extract`` along one axis and the body yields a ``tt.stack`` along it."""
    body = loop.regions[0].block
    arg = body.args[1 + j]
    stack = _producer(body.terminator.operands[j], "tt.stack")
    if stack is None or stack.parent is not body or not arg.uses:
        return False
    axis = stack.attrs["axis"]
    users = [u for u, _ in arg.uses]
    if not all(u.name == "tt.extract" and u.attrs["axis"] == axis for u in users):
        return False
    count = len(stack.operands)
    part_type = stack.operands[0].type
    if any(u.result.type != part_type for u in users):
        return False
    # New initial values: a splat constant is rebuilt per slice, anything else extracted.
    init = loop.operands[3 + j]
    pre = Builder().before(loop)
    init_op = _producer(init, "arith.constant")
    if init_op is not None and not isinstance(init_op.attrs["value"], list):
        new_inits = [pre.constant(init_op.attrs["value"], part_type)] * count
    else:
        new_inits = [extract(pre, init, axis, i) for i in range(count)]
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
    yield_op = body.terminator
    yield_op.set_operands([v for k, v in enumerate(yield_op.operands) if k != j] + list(stack.operands))
    if not stack.result.uses:
        stack.erase()
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
                split_loop_args(f)
                changed = True
        return changed
