"""``accelerate-matmul``: move eligible ``tt.dot`` ops to tensor cores (``mma.sync``, mma v2;
``wgmma``, mma v3, on sm_90a).

Preconditions: ttg IR (every tile has a layout, after ``assign-layouts``). Postconditions: each
eligible dot has an :class:`~tritonc.ir.layouts.MmaLayout` accumulator and result, and
:class:`~tritonc.ir.layouts.DotOperandLayout` operands read from swizzled shared memory; a 2-D
dot that stays on CUDA cores has the accumulator and result layout of :func:`fma_layout` where
one applies; everything else is unchanged. Preserves: nothing.

Eligible (Triton's ``AccelerateMatmul.cpp`` for mma v2; PTX ISA 9.7.14.5.14): a 2-D ``tt.dot``
``[M, K] @ [K, N] + [M, N]`` with ``M`` a multiple of 16 and ``N`` of 8, and operands/accumulator

* ``f16`` / ``f16`` / ``f32`` and ``bf16`` / ``bf16`` / ``f32``: ``m16n8k16``, ``K % 16 == 0``;
* ``f32`` / ``f32`` / ``f32`` only with ``allow_tf32`` (``--allow-tf32``) or
  ``input_precision = "tf32"``: ``m16n8k8.tf32``, ``K % 8 == 0``; otherwise the FMA path keeps
  full f32 precision;
* ``i8`` / ``i8`` / ``i32``: ``m16n8k32.s8``, ``K % 32 == 0``.

Rewrite of ``d = tt.dot(a, b, c)``:

1. ``mma = MmaLayout(2, warps, [16, 8])`` with ``warps`` "as square as possible"
   (:func:`warps_per_tile`, Triton's ``warpsPerTileV2``: double along M while M has more
   16-row tiles per warp than N has 16-column tiles, else along N);
2. each operand goes through shared memory: ``ttg.local_alloc(x)`` right after ``x`` is defined,
   in a swizzled :class:`~tritonc.ir.layouts.SharedLayout` (:func:`swizzled_layout`: ``vec`` =
   16 bytes of elements, ``per_phase = max(1, 128 / row bytes)``, ``max_phase = 8 /
   per_phase``; ``order`` = the operand's register order, i.e. its memory order once
   ``coalesce`` ran), and ``ttg.local_load`` into ``DotOperandLayout(op_idx, mma, k_width)``
   right before the dot (``k_width`` = elements per 32-bit register: 2, 1 (tf32), 4 (i8));
3. ``c`` is converted to ``mma``, the new dot produces ``mma``, and a conversion back to the old
   layout feeds the old users.

On ``--arch sm_90a`` a dot that :func:`wgmma_eligible` accepts (f16 / bf16 operands, an f32
accumulator, ``M`` a multiple of 16 rows per warp) gets ``MmaLayout(3, [num_warps, 1], [16,
N])`` instead: warp groups of 4 warps stacked along M, ``N`` the width of one
``wgmma.mma_async.m64nNk16`` (at most 256), the same register distribution as mma v2 with those
warps (``codegen/llvm/layout_math.py``); its operand buffers are in :func:`wgmma_layout`, and
the tensor cores read them straight from shared memory (``codegen/llvm/dot_wgmma.py``).

**Chained dots** (:func:`chained_dots`: a dot whose A operand is computed from another dot's
accumulator by element-wise ops, reductions and broadcasts, flash attention's ``p @ v``): both
dots' mma v2 layouts stack the warps along M (:func:`chain_warps`) and the second dot's A is a
``ttg.convert_layout`` to its dot-operand layout instead of a trip through shared memory; once
``remove-layout-conversions`` has put the producer in the accumulator layout, that conversion
only renumbers registers (mma.sync), and on sm_90a the wgmma reads A from registers
(``codegen/llvm/dot_wgmma.py``).

**Dots on CUDA cores** (2-D, not eligible: ``f32`` operands without TF32, say) get the
accumulator layout of :func:`fma_layout` instead of the one ``assign-layouts`` gave them (the
store's, whose rows a thread holds 4 apart): each warp owns whole rows of the tile, a thread
``M / num_warps`` consecutive rows and ``4`` consecutive columns (fewer for ``N`` under 128)
at a time, so ``codegen/llvm/dot_fma.py`` reads each ``k``'s column of A (staged transposed)
and row of B 16 bytes at a time. The accumulator is converted like an mma one (step 3 and the
loop-carried clean-up below): once before the loop, once after it.

Then two clean-ups keep the accumulator in registers in the mma layout (and the loop-carried
one, in the FMA layout):

* **loop-carried accumulators**: an ``scf.for`` iteration argument whose uses are all
  conversions to one mma layout and whose yielded value is a conversion from that layout is
  retyped to it: the initial value is converted once before the loop (a splat constant is
  rebuilt in the mma layout), the conversions in the body disappear, and one conversion after
  the loop feeds the loop's users (the epilogue);
* **epilogue sinking**: a conversion out of an mma layout whose only user is an element-wise
  op (a cast, or an arithmetic op whose other operands are constants, splats or broadcast rows
  / columns such as a bias, whose small tile is converted to a slice of the mma layout) moves
  below that op, which then runs in the mma layout; so ``half c = relu(alpha * acc + bias);``
  is computed in the accumulator registers and converts halves, not floats, on the way to
  the store's layout.

What the new ops read and write (for ``allocate-shared`` / ``insert-barriers``): see
``codegen/llvm/shared_ops.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.ir.builder import Builder
from tritonc.ir.core import Function, Module, Operation, Value
from tritonc.ir.layouts import BlockedLayout, DotOperandLayout, Layout, MmaLayout, SharedLayout
from tritonc.ir.ops import has_trait
from tritonc.ir.types import MemDescType, ScalarType, TileType
from tritonc.passes import AnalysisManager, Pass, register_pass
from tritonc.target import DEFAULT_ARCH, Target

#: The smallest K of a dot on wgmma (see :func:`wgmma_eligible`).
WGMMA_MIN_K = 32

#: Operand element -> (accumulator element, k_width) of the mma v2 instruction for it.
MMA_TYPES = {"f16": ("f32", 2), "bf16": ("f32", 2), "f32": ("f32", 1), "i8": ("i32", 4)}

#: Element-wise ops an mma-layout epilogue may run (one result, every tile operand one layout).
_CASTS = {"arith.truncf", "arith.extf", "arith.fptosi", "arith.fptoui", "arith.sitofp", "arith.uitofp",
          "arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast", "arith.negf", "math.exp", "math.exp2",
          "math.absf", "math.sqrt", "math.rsqrt", "math.log", "math.log2"}
_BINARY = {"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maxnumf", "arith.minnumf",
           "arith.addi", "arith.subi", "arith.muli", "arith.maxsi", "arith.minsi"}


def warps_per_tile(shape: tuple[int, ...], num_warps: int) -> tuple[int, int]:
    """``[WM, WN]`` for an ``[M, N]`` accumulator (see the module docstring)."""
    wm, wn = 1, 1
    while wm * wn < num_warps:
        if shape[0] // 16 // wm >= shape[1] // 16 // wn:
            if wm < shape[0] // 16:
                wm *= 2
            else:
                wn *= 2
        else:
            wn *= 2
    return wm, wn


def swizzled_layout(shape: tuple[int, ...], order: tuple[int, ...], elem_bytes: int) -> SharedLayout:
    """The bank-conflict-free swizzle for ``ldmatrix`` of a buffer of ``shape`` (``order[0]``
    contiguous): 16-byte chunks XORed with ``(row / per_phase) % max_phase``."""
    row = shape[order[0]]
    vec = max(1, 16 // elem_bytes)
    per_phase = max(1, 128 // max(1, row * elem_bytes))
    max_phase = max(1, min(8 // per_phase, row // vec))
    return SharedLayout(vec, per_phase, max_phase, tuple(order))


def wgmma_layout(shape: tuple[int, ...], order: tuple[int, ...], elem_bytes: int) -> SharedLayout | None:
    """The swizzled layout ``wgmma`` reads an operand buffer of ``shape`` (``order[0]``
    contiguous) in, or ``None`` when rows are not a multiple of 32 bytes.

    The swizzle mode is the widest of 128, 64 and 32 bytes that divides a row; rows longer
    than it are cut into ``block``-element blocks of that width (PTX ISA 9.7.15.5.1, the
    canonical K-major and MN-major layouts: 8 rows of 16-byte chunks, chunk ``c`` of row ``r``
    at ``c ^ ((r / per_phase) % max_phase)``: the hardware's XOR of address bits [4, 7) with
    bits [7, 10) on a buffer aligned to 8 rows)."""
    row = shape[order[0]] * elem_bytes
    swizzle = next((s for s in (128, 64, 32) if row % s == 0), None)
    if swizzle is None:
        return None
    return SharedLayout(16 // elem_bytes, 128 // swizzle, swizzle // 16, tuple(order),
                        swizzle // elem_bytes if row > swizzle else 0)


def operand_layout(shape: tuple[int, ...], order: tuple[int, ...], elem_bytes: int, mma: MmaLayout) -> SharedLayout:
    """The shared layout of a dot operand buffer: :func:`wgmma_layout` for mma v3 (wgmma),
    :func:`swizzled_layout` (``ldmatrix``) otherwise."""
    if mma.version == 3:
        layout = wgmma_layout(shape, order, elem_bytes)
        if layout is not None:
            return layout
    return swizzled_layout(shape, order, elem_bytes)


def register_order(layout: Layout | None, rank: int) -> tuple[int, ...]:
    """The dimension order (fastest first) of a register layout (row-major if unknown)."""
    while layout is not None and hasattr(layout, "parent") and not isinstance(layout, DotOperandLayout):
        layout = layout.parent  # slices: the parent's order restricted below
    if isinstance(layout, BlockedLayout) and layout.rank == rank:
        return tuple(layout.order)
    return tuple(range(rank - 1, -1, -1))


def mma_types(a: ScalarType, b: ScalarType, acc: ScalarType, input_precision: str, allow_tf32: bool):
    """``k_width`` when ``a @ b + acc`` has an mma v2 instruction, else ``None``."""
    if a != b or a.name not in MMA_TYPES:
        return None
    want_acc, kw = MMA_TYPES[a.name]
    if acc.name != want_acc:
        return None
    if a.name == "f32" and not (allow_tf32 or input_precision == "tf32"):
        return None
    return kw


def wgmma_shape_n(a_element: str, acc_element: str, M: int, N: int, K: int, num_warps: int) -> int | None:
    """The element-type and shape conditions of :func:`wgmma_eligible` alone (no operand
    layouts): the instruction's ``N`` for an ``[M, K] @ [K, N]`` dot with ``a_element``
    operands (type names, ``"f16"``) and an ``acc_element`` accumulator at ``num_warps``
    warps, else ``None``. The cost model uses it for the 2-D slices of a batched dot, which
    ``unbatch-dots`` creates after it has ranked the configurations."""
    if a_element not in ("f16", "bf16") or acc_element != "f32" or num_warps % 4:
        return None
    n = min(N, 256)
    if M % (16 * num_warps) or N % 8 or N % n or K % 16 or K < WGMMA_MIN_K:
        return None
    return n


def wgmma_eligible(op: Operation, num_warps: int) -> int | None:
    """The ``N`` of one ``wgmma`` instruction when dot ``op`` (already :func:`eligible` for mma
    v2) can run as ``wgmma.mma_async.m64nNk16`` on sm_90a, else ``None``: f16 / bf16 operands
    with an f32 accumulator, warp groups of 4 warps stacked along M (``warps = [num_warps,
    1]``, every warp owning 16-row slices of the whole width), ``M`` a multiple of ``16 *
    num_warps``, ``N`` at most 256 or a multiple of 256 (one instruction per 256 columns) and a
    multiple of 8; operand rows a multiple of 32 bytes (:func:`wgmma_layout`); ``K`` at least
    :data:`WGMMA_MIN_K` (a K of 16 is one instruction per warp group and loop trip, too little
    to cover the trip's fixed costs: conv2d 64x64x16 ran 19 % slower on wgmma than on
    mma.sync on an H200, benchmarks/RESULTS.md)."""
    a, b, acc = (v.type for v in op.operands)
    M, K = a.shape
    n = wgmma_shape_n(a.element.name, acc.element.name, M, b.shape[1], K, num_warps)
    if n is None:
        return None
    for x in (op.operands[0], op.operands[1]):
        t = x.type
        order = register_order(t.layout, 2)
        lay = wgmma_layout(t.shape, order, t.element.bytes)
        if lay is None:
            return None
        mn, extent = (0, 64) if x is op.operands[0] else (1, n)
        if order[0] == mn and lay.block and extent % lay.block:
            return None  # an instruction's M or N must cover whole blocks
    return n


def eligible(op: Operation, allow_tf32: bool) -> int | None:
    """``k_width`` if dot ``op`` can use mma v2, else ``None``."""
    a, b, acc = (v.type for v in op.operands)
    if not all(isinstance(t, TileType) and t.layout is not None for t in (a, b, acc)):
        return None
    if a.rank != 2 or isinstance(acc.layout, MmaLayout):
        return None
    kw = mma_types(a.element, b.element, acc.element, op.attrs.get("input_precision", "ieee"), allow_tf32)
    if kw is None:
        return None
    M, K = a.shape
    N = b.shape[1]
    if M % 16 or N % 8 or K % (8 * kw):
        return None
    return kw


def _insert_after_def(builder: Builder, v: Value) -> None:
    owner = getattr(v, "op", None)
    if owner is not None:
        builder.after(owner)
    else:
        builder.block, builder.index = v.block, 0


def _convert(builder: Builder, v: Value, layout: Layout) -> Value:
    if v.type.layout == layout:
        return v
    return builder.value("ttg.convert_layout", [v], v.type.with_layout(layout))


def _operand(builder: Builder, dot: Operation, index: int, mma: MmaLayout, kw: int) -> Value:
    x = dot.operands[index]
    t = x.type
    order = register_order(t.layout, 2)
    shared = operand_layout(t.shape, order, t.element.bytes, mma)
    mt = MemDescType(t.element, t.shape, shared)
    # One buffer per value and layout: a tile that feeds several dots (attention's q, read by
    # the q @ k of both key loops) is stored once; the buffer is never written after.
    alloc = next((u.result for u, _ in x.uses if u.name == "ttg.local_alloc" and u.result.type == mt), None)
    if alloc is None:
        _insert_after_def(builder, x)
        alloc = builder.value("ttg.local_alloc", [x], mt)
    builder.before(dot)
    return builder.value("ttg.local_load", [alloc], t.with_layout(DotOperandLayout(index, mma, kw)))


def rewrite_dot(dot: Operation, num_warps: int, kw: int, wgmma_n: int | None = None,
                chain: frozenset = frozenset()) -> None:
    """Step 1-3 of the module docstring for one dot (mma v3 when ``wgmma_n`` is given);
    ``chain``: the dots of chains (:func:`chained_dots`)."""
    a, b, acc = dot.operands
    old = dot.result.type
    if wgmma_n is not None:
        mma = MmaLayout(3, (num_warps, 1), (16, wgmma_n))
    else:
        mma = MmaLayout(2, chain_warps(dot, num_warps, chain) or warps_per_tile(old.shape, num_warps), (16, 8))
    builder = Builder().before(dot)
    # The accumulator's conversion goes first: the operands' local_loads must sit right before
    # the dot, which reads them from shared memory itself (ldmatrix / wgmma descriptors).
    c2 = _convert(builder, acc, mma)
    if dot in chain and a_from_dot(dot) is not None and register_a_fits(dot, mma):
        a2 = _register_operand(builder, dot, mma, kw)
    else:
        a2 = _operand(builder, dot, 0, mma, kw)
    b2 = _operand(builder, dot, 1, mma, kw)
    _replace_dot(builder, dot, [a2, b2, c2], mma)


def _replace_dot(builder: Builder, dot: Operation, operands: list, layout: Layout) -> None:
    """Replace ``dot`` by a dot of ``operands`` with its result in ``layout``, converted back
    to the old layout for the old users."""
    old = dot.result.type
    builder.before(dot)
    new = builder.create("tt.dot", operands, [old.with_layout(layout)], dict(dot.attrs),
                         name_hint=dot.result.name)
    back = builder.value("ttg.convert_layout", [new.result], old)
    dot.result.replace_all_uses_with(back)
    dot.erase()


def fma_layout(shape: tuple[int, ...], num_warps: int) -> BlockedLayout | None:
    """The accumulator layout of an ``[M, N]`` dot on CUDA cores (module docstring):
    ``size_per_thread = [M / num_warps, v]``, ``threads_per_warp = [1, 32]``,
    ``warps_per_cta = [num_warps, 1]``, ``v`` the largest of 4, 2, 1 with ``32 v`` dividing
    ``N`` (a thread's columns repeat every ``32 v``); a ``[M, N, 1]`` tile (a batched dot of
    one batch element) gets the same with size-1 batch axes. ``None`` where the tile has too
    few rows for the warps (``M % num_warps``), ``N`` is not a multiple of 32, or the dot is
    batched over more than one element.

    All lanes of a warp share their rows, so a read of A is one broadcast; the lanes' columns
    are consecutive, so a read of B is one contiguous run of ``32 v`` elements. Per ``k`` a
    thread reads its ``M / num_warps`` rows of A and ``N / 32`` columns of B, 16 bytes at a
    time, for ``M * N / (32 num_warps)`` FMAs; with its rows 4 apart (the store's layout, which
    ``assign-layouts`` gives the dot) each row was one scalar load."""
    if len(shape) < 2 or any(d != 1 for d in shape[2:]) or shape[0] % num_warps:
        return None
    M, N = shape[:2]
    v = next((v for v in (4, 2, 1) if N % (32 * v) == 0), None)
    if v is None:
        return None
    ones = (1,) * (len(shape) - 2)  # a batched dot of one batch element: its batch axes
    return BlockedLayout((M // num_warps, v) + ones, (1, 32) + ones, (num_warps, 1) + ones,
                         (1, 0) + tuple(range(2, len(shape))))


def rewrite_fma_dot(dot: Operation, layout: BlockedLayout) -> None:
    """Give dot ``dot`` (staying on CUDA cores) the accumulator and result ``layout``: its
    accumulator converted into it, its result converted back for the old users."""
    a, b, acc = dot.operands
    builder = Builder().before(dot)
    _replace_dot(builder, dot, [a, b, _convert(builder, acc, layout)], layout)


# -- chained dots (flash attention: p = f(q @ k); acc += p @ v) ---------------------------

#: Ops looked through backward from a dot's A operand to find the dot that computes it.
_CHAIN_SEARCH_LIMIT = 64


def a_from_dot(dot: Operation) -> Operation | None:
    """The ``tt.dot`` whose accumulator the A operand of ``dot`` is computed from by
    element-wise ops, broadcasts, reductions and conversions (in one block), else None."""
    seen: set = set()
    work = [dot.operands[0]]
    while work and len(seen) < _CHAIN_SEARCH_LIMIT:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        op = getattr(v, "op", None)
        if op is None:
            continue
        if op.name == "tt.dot" and op is not dot:
            return op
        if op.regions or len(op.results) != 1:
            continue
        if has_trait(op, "elementwise") or op.name in ("tt.broadcast", "tt.expand_dims", "tt.reduce",
                                                       "ttg.convert_layout"):
            work.extend(x for x in op.operands if isinstance(x.type, TileType))
    return None


def chained_dots(f: Function, allow_tf32: bool = False) -> frozenset:
    """The tensor-core dots of ``f`` (:func:`eligible`) that feed another one's A operand (see
    :func:`a_from_dot`) and the dots they feed. A dot fed by an FMA dot keeps reading A from
    shared memory (``ldmatrix`` / descriptors beat a generic conversion)."""
    chain = set()
    for dot in [op for op in f.walk() if op.name == "tt.dot"]:
        first = a_from_dot(dot)
        if first is not None and eligible(first, allow_tf32) is not None and eligible(dot, allow_tf32) is not None:
            chain.update((dot, first))
    return frozenset(chain)


def chain_warps(dot: Operation, num_warps: int, chain: frozenset) -> tuple[int, int] | None:
    """``[num_warps, 1]`` for an mma v2 dot of a chain whose M allows it: every warp then owns
    whole rows of the accumulator, which are exactly the rows of its A fragments in the next
    dot (PTX ISA 9.7.14.5.14: the ``m16n8k16`` accumulator fragment of two ``n8`` tiles is the
    A fragment of one ``k16`` step), so the next dot reads A from the same registers."""
    M = dot.result.type.shape[0]
    if dot not in chain or M % (16 * num_warps):
        return None
    return num_warps, 1


def register_a_fits(dot: Operation, mma: MmaLayout) -> bool:
    """Whether ``dot``'s A operand may be given in registers: 16-bit operands (the accumulator
    is converted to f16/bf16) and warps stacked along M."""
    a = dot.operands[0].type
    return a.element.name in ("f16", "bf16") and mma.warps_per_cta[1] == 1


def _register_operand(builder: Builder, dot: Operation, mma: MmaLayout, kw: int) -> Value:
    """A operand converted to ``DotOperandLayout(0, mma, kw)`` registers right before the dot
    (free once ``remove-layout-conversions`` has put the producer in ``mma``'s layout)."""
    x = dot.operands[0]
    builder.before(dot)
    return _convert(builder, x, DotOperandLayout(0, mma, kw))


# -- loop-carried accumulators -------------------------------------------------------------

def _is_convert(op: Operation | None) -> bool:
    return op is not None and op.name == "ttg.convert_layout"


def _retype_loop_args(f: Function, accumulator_layouts: frozenset = frozenset()) -> bool:
    """The loop-carried clean-up (module docstring) for the mma layouts and
    ``accumulator_layouts`` (those of the dots on CUDA cores)."""
    changed = False
    for loop in [op for op in f.walk() if op.name == "scf.for"]:
        body = loop.regions[0].block
        yield_op = body.terminator
        for j, arg in enumerate(body.args[1:]):
            if not isinstance(arg.type, TileType) or not arg.uses:
                continue
            users = [u for u, _ in arg.uses]
            if not all(_is_convert(u) and (isinstance(u.result.type.layout, MmaLayout)
                                           or u.result.type.layout in accumulator_layouts) for u in users):
                continue
            layout = users[0].result.type.layout
            if any(u.result.type.layout != layout for u in users):
                continue
            yielded = yield_op.operands[j]
            src = getattr(yielded, "op", None)
            if not (_is_convert(src) and src.parent is body and src.operands[0].type.layout == layout):
                continue
            old_type = arg.type
            new_type = old_type.with_layout(layout)
            builder = Builder().before(loop)
            init = loop.operands[3 + j]
            init_op = getattr(init, "op", None)
            if init_op is not None and init_op.name == "arith.constant" and not isinstance(init_op.attrs["value"], list):
                new_init = builder.constant(init_op.attrs["value"], new_type)
            else:
                new_init = _convert(builder, init, layout)
            loop.set_operand(3 + j, new_init)
            arg.type = new_type
            for u in users:
                u.result.replace_all_uses_with(arg)
                u.erase()
            yield_op.set_operand(j, src.operands[0])
            if not src.result.uses:
                src.erase()
            res = loop.results[j]
            res.type = new_type
            if res.uses:
                after = Builder().after(loop)
                back = after.value("ttg.convert_layout", [res], old_type)
                for op_, idx in list(res.uses):
                    if op_ is not back.op:
                        op_.set_operand(idx, back)
            changed = True
    return changed


# -- epilogue sinking ----------------------------------------------------------------------

def _rebuild_in(builder: Builder, v: Value, layout: Layout) -> Value | None:
    """``v`` rebuilt in ``layout`` when it is cheap: a splat or constant tile, or a broadcast
    of ``expand_dims`` of a smaller tile (a bias row or column: the small tile is converted to
    a slice of ``layout``); else None."""
    op = getattr(v, "op", None)
    if op is None or not isinstance(v.type, TileType):
        return None
    if v.type.layout == layout:
        return v
    if op.name == "arith.constant" and not isinstance(op.attrs["value"], list):
        return builder.constant(op.attrs["value"], v.type.with_layout(layout))
    if op.name == "tt.splat":
        return builder.value("tt.splat", [op.operands[0]], v.type.with_layout(layout))
    if op.name == "tt.broadcast":
        src = _rebuild_in(builder, op.operands[0], layout)
        return None if src is None else builder.value("tt.broadcast", [src], v.type.with_layout(layout))
    if op.name == "tt.expand_dims" and isinstance(op.operands[0].type, TileType):
        from tritonc.ir.layouts import SliceLayout
        src = _convert(builder, op.operands[0], SliceLayout(op.attrs["axis"], layout))
        return builder.value("tt.expand_dims", [src], v.type.with_layout(layout), dict(op.attrs))
    return None


def _sink_conversions(f: Function) -> bool:
    changed = False
    progress = True
    while progress:
        progress = False
        for cvt in [op for op in f.walk() if _is_convert(op)]:
            src = cvt.operands[0]
            if not isinstance(src.type.layout, MmaLayout) or len(cvt.result.uses) != 1:
                continue
            user, index = cvt.result.uses[0]
            if len(user.results) != 1 or not isinstance(user.result.type, TileType) or user.regions:
                continue
            if user.name not in _CASTS and user.name not in _BINARY:
                continue
            mma = src.type.layout
            builder = Builder().before(user)
            operands = []
            for i, v in enumerate(user.operands):
                if i == index:
                    operands.append(src)
                    continue
                rebuilt = _rebuild_in(builder, v, mma) if isinstance(v.type, TileType) else v
                if rebuilt is None:
                    break
                operands.append(rebuilt)
            else:
                res_type = user.result.type
                new = builder.create(user.name, operands, [res_type.with_layout(mma)], dict(user.attrs),
                                     name_hint=user.result.name)
                back = builder.value("ttg.convert_layout", [new.result], res_type)
                user.result.replace_all_uses_with(back)
                user.erase()
                cvt.erase()
                changed = progress = True
                break
    return changed


@register_pass
@dataclass
class AccelerateMatmul(Pass):
    """Give eligible dots an mma layout and dot-operand operands from swizzled shared memory."""

    name = "accelerate-matmul"
    num_warps: int = 4
    allow_tf32: bool = False
    #: Target architecture: one whose :class:`~tritonc.target.Target` has ``wgmma`` (``sm_90a``)
    #: enables it (mma v3, :func:`wgmma_eligible`).
    arch: str = DEFAULT_ARCH

    def run(self, module: Module, am: AnalysisManager) -> bool:
        num_warps = int(module.attrs.get("num_warps", self.num_warps))
        wgmma = Target(self.arch).has_dot_instruction("wgmma")
        changed = False
        for f in module.functions:
            chain = chained_dots(f, self.allow_tf32)
            fma_layouts = set()
            for dot in [op for op in f.walk() if op.name == "tt.dot"]:
                kw = eligible(dot, self.allow_tf32)
                warps = module.num_warps_of(f, num_warps)
                if kw is not None:
                    n = wgmma_eligible(dot, warps) if wgmma else None
                    rewrite_dot(dot, warps, kw, n, chain)
                    changed = True
                elif not isinstance(dot.result.type.layout, MmaLayout):
                    layout = fma_layout(tuple(dot.result.type.shape), warps)
                    if layout is not None and layout != dot.result.type.layout:
                        rewrite_fma_dot(dot, layout)
                        fma_layouts.add(layout)
                        changed = True
            if changed:
                _retype_loop_args(f, frozenset(fma_layouts))
                _sink_conversions(f)
        return changed
