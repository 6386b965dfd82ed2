"""``software-pipeline``: overlap the global->shared copies of a matmul loop with its math.

Preconditions: ttg IR after ``accelerate-matmul`` (dot operands are ``tt.load -> [tt.trans ->]
ttg.local_alloc -> ttg.local_load``). Postconditions: every pipelinable ``scf.for`` copies its
dot operands ``num_stages - 1`` iterations ahead with ``cp.async`` into a ring of
``num_stages`` shared buffers per operand. Preserves: nothing. ``num_stages < 2`` disables it.

This follows modern Triton's pipeliner (without the modulo
scheduler). With ``S = num_stages``, for a loop ``for iv in [lb, ub) step st``::

    ring_x = ttg.local_alloc : !ttg.memdesc<T[S, ...]>            (one per pipelined load x)
    for j in 0 .. S-2:                                            (prologue)
        copy iteration j's tile of x into slot j, masked by (iteration j exists)
        ttg.async_commit_group
    for iv ... (carrying also: the address values S-1 iterations ahead, ins = S-1, ext = 0):
        ttg.async_wait {num = S-2}; gpu.barrier      (iteration i's copies have landed, and
                                                      every thread is done reading slot i-1)
        copy iteration i+S-1's tile into slot ins, masked by (iteration i+S-1 exists)
        ttg.async_commit_group
        ... the original body, reading x from slot ext (ttg.memdesc_subview) ...
        ins, ext = (ins + 1) % S, (ext + 1) % S
    ttg.async_wait {num = 0}                          (no copy is in flight after the loop)

Which loops and loads are pipelined, and how, is the schedule of
:mod:`tritonc.transforms.pipeline_schedule` (its docstring lists the conditions): a dot
operand's load (``tt.load -> [tt.trans ->] ttg.local_alloc -> ttg.local_load``) whose address,
mask and ``other`` the body computes by pure ops (the *stage-0 slice*, index loads of look-up
tables included) from the induction variable, loop invariants and iteration arguments computed
that way, and which ``cp.async`` can copy (runs of 4, 8 or 16 bytes proven by axis info, a mask
uniform or true on a prefix of each run). Any other loop is left as it is: plain loads,
``local_alloc``, a barrier, ``local_load``, which is correct for any input.

The slice is cloned in the copy's own layout (Triton's coalesced layout: ``vec`` contiguous
elements per thread along the most contiguous dimension, ``layout_algebra.blocked_layout``): its
ops are rebuilt in that layout (slices of it for the 1-D ranges), loop invariants are converted
once before the loop. The ring's layout is the swizzled layout of ``accelerate-matmul``
(``swizzled_layout``) along the pointer's memory order, so ``ldmatrix`` reads it without bank
conflicts; a ``tt.trans`` between load and allocation becomes a ``ttg.memdesc_trans`` view.

K-slice prefetch (the pass option ``slice-prefetch=on|off|auto``,
``tritonc -f[no-]slice-prefetch``; ``auto`` by default: where the registers allow it, see
:func:`~tritonc.transforms.pipeline_schedule.slice_registers`; measured in
``benchmarks/RESULTS.md``), CUTLASS's multistage main loop: when the loop's one dot reads both
operands straight from the rings and its K holds two or more mma steps, the prologue copies
``S`` iterations (all slots), waits for slot 0 and loads its first K slice
(``ttg.memdesc_subslice``); the dot is split into one dot per K slice, the fragments of slice
``kk + 1`` loaded before the dot of slice ``kk``; before the last slice's dot:
``async_wait {num = S-2}``, ``gpu.barrier``, the copy for iteration ``i + S`` into the slot just
read (every thread finished reading it before this barrier), and the load of the next slot's
slice 0, carried into the next trip. One barrier per trip, with the last slice's mma still to
issue after it, so the tensor cores do not wait for the barrier; the price is a second set of
fragment registers.

wgmma dots (mma v3, sm_90a; ``wgmma_in_flight``): the dot is issued and left running
(``pending = 1``); ``ttg.wgmma_wait {num = 1}`` after it waits for the trip before, and
``{num = 0}`` after the loop for the last one. A slot is then free only once every warp group
is past the wait for the trip that read it, so the copies either go out between the dot and
its wait into the slot of two trips before (``S - 2`` trips ahead, one barrier a trip; the
copies carry ``no_war``, which tells ``insert-barriers`` that the slot is not the one being
read), or after the wait and a second barrier into the slot of the trip before (``S - 1``
ahead, OpenAI Triton's loop; ``wgmma_second_barrier``, by default when ``S <= 4``).

Chained wgmma dots (flash attention: ``s = q @ k``, a softmax of ``s``,
``acc = acc * alpha + p @ v``;
:meth:`~tritonc.transforms.pipeline_schedule.PipelinePlanner.chained_wgmma_target`): the body's
last dot, whose result only the yield uses, is left running into the next trip, where
``ttg.wgmma_wait {num = 0}`` precedes the first use of its iteration argument (after the next
trip's first dot, whose own ``wait_group 0`` has retired it already: wgmma groups complete in
order), and after the loop. Its tensor-core work then overlaps the next trip's barrier, copies
and first-dot issue (OpenAI Triton's attention loop does the same). Its B ring slot is read
until that wait, so the copies go into the slot of two trips before (``S - 2`` trips ahead, one
barrier a trip): at this trip's barrier every warp group is past the trip before's first-dot
wait, which retired that slot's last reader. They go out after the running dot (``no_war``),
so that the tensor cores get the trip's work first, except at three stages: one trip ahead,
they go out right after the barrier, to have the whole trip to land (issued at the end of the
trip they had almost none). Measured on an H100 (benchmarks/RESULTS.md, 2026-11-27): at three
stages the top 4-5% faster (D=64: 1.483 against 1.549 ms; D=128: 2.468 against 2.604), at four
stages after the dot 4% faster (D=64: 1.433 against 1.495 ms).

FlashAttention-3's intra-warpgroup pipelining (issuing trip ``i``'s last dot in trip ``i + 1``,
after the first, so that it runs during the softmax) was built and measured on an H100 in
session 11 (benchmarks/RESULTS.md, 2026-11-27): no faster than the loop above. ptxas places
the ``wgmma.wait_group 0`` of the carried dot right after the first dot's wait, before the
softmax, whatever the PTX order (the conversions of the next ``p`` write the registers the
dot reads; carrying ``p`` in f32 and converting it at the top of the next trip moves the wait
no later); a fence before the wait keeps it after the softmax, and that was no faster either.

Register staging (pass option ``register-staging``, on by default): the dot-operand loads of a
loop that fail the ``cp.async`` conditions (conv2d's fp16 A: no 4-byte runs proven) but whose
address slice qualifies are issued one trip ahead instead, right after the stores of the tiles
carried in, into registers carried to the next trip (:meth:`SoftwarePipeliner.rewrite_staged`;
tiles of 8- and 16-bit elements carried as i32: :func:`widen`), where the staged tiles and the
accumulators fit the register file
(:func:`~tritonc.transforms.pipeline_schedule.staging_registers`, with
:data:`~tritonc.transforms.pipeline_schedule.STAGING_RESERVE` registers to spare; else the loop
is left as it is). A loop with both kinds of loads (conv2d's A gathered, its B in 16-byte runs
under the ``__spec16`` variant) is staged first, then its ``cp.async`` loads get their rings in
the staged loop; before, such a loop pipelined the ``cp.async`` loads only and left the gather
in the trip that used it (two dependent global latencies a trip, the index load's and the
gather's: conv2d fp16 at 0.23x torch on an H100).

Loops without a dot (pass option ``pipeline-memory-loads``, ``-f[no-]pipeline-memory-loads``, on
by default): :meth:`~tritonc.transforms.pipeline_schedule.PipelinePlanner.memory_plan` gives the
tile loads of a loop over rows (layernorm's backward) plain shared buffers, ``tt.load ->
ttg.local_alloc -> ttg.local_load`` in the load's own layout, and the same rings then copy them
``S - 1`` trips ahead, so a CTA keeps the next trips' bytes in flight while a trip's reductions
wait at their barriers. Measured on an H100 (benchmarks/RESULTS.md, session 16): layernorm
backward 80.2 -> 75.0 us, rmsnorm backward 76.8 -> 74.0 at 8192 x 4096, the column sum 8192 x
8192 90.2 -> 88.0; rmsnorm forward, whose loop walks a row in tiles and takes one trip, 46.9 ->
52.6 (the copy to shared memory and back with nothing to overlap): such loops are left as they
are (:meth:`~tritonc.transforms.pipeline_schedule.PipelinePlanner.walks_along_rows`).

The loop stays correct for any trip count: copies for iterations that do not exist are
masked off (they read nothing and write zeros nobody reads), and the ring is waited for after
the loop before its shared memory can be reused.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.analysis.pointer_origins import readonly_pointer_values
from tritonc.ir.builder import Builder, append_loop_args
from tritonc.ir.clone import clone_op
from tritonc.ir.core import Block, Module, Operation, Region, Value
from tritonc.ir.layouts import DotOperandLayout, Layout
from tritonc.ir.ttg_ops import subview_layout, trans_shared_layout
from tritonc.ir.types import I1, I32, SCALARS, MemDescType, TileType
from tritonc.passes import AnalysisManager, Pass, register_pass
from tritonc.target import DEFAULT_ARCH

from .accelerate_matmul import operand_layout
from .pipeline_plan import Candidate, LoopCloner, LoopPlan, build_limit
from .pipeline_schedule import PipelinePlanner, consumer_mma, depends_on_iv_only


def widen(b: Builder, tile: Value) -> Value:
    """A staged tile of elements narrower than 32 bits as ``i32`` (its bits zero-extended), so
    that it is carried to the next trip in 32-bit registers of its own: ptxas packs two 16-bit
    loop-carried values into one register, and the ``PRMT`` that merges a load's result into
    its half waits for the load in the trip that issued it. The lowering loads a narrow element
    straight into a 32-bit register (``codegen/llvm/memory.py``, ``masked_load``)."""
    t = tile.type
    bits = t.element.bits
    if bits >= 32 or bits == 1:
        return tile
    as_int = tile if t.element.is_int else b.value("arith.bitcast", [tile], t.with_element(SCALARS[f"i{bits}"]))
    return b.value("arith.extui", [as_int], t.with_element(I32))


def narrow(b: Builder, carried: Value, element) -> Value:
    """The inverse of :func:`widen`: ``carried`` back as a tile of ``element``s."""
    t = carried.type
    if t.element == element:
        return carried
    as_int = b.value("arith.trunci", [carried], t.with_element(SCALARS[f"i{element.bits}"]))
    return as_int if element.is_int else b.value("arith.bitcast", [as_int], t.with_element(element))


class SoftwarePipeliner:
    """Rewrites the loops that ``planner`` planned, on the schedule it decides
    (:class:`~tritonc.transforms.pipeline_schedule.PipelinePlanner`)."""

    def __init__(self, planner: PipelinePlanner):
        self.planner = planner
        self.S, self.options = planner.S, planner.options

    def rewrite_staged(self, plan: LoopPlan) -> Operation:
        """Register staging of the dot-operand loads that ``cp.async`` cannot copy (e.g.
        conv2d's A in fp16, whose addresses prove no 4-byte runs): each candidate load is
        issued one trip ahead for iteration ``i + 1`` (the address slice, index loads included,
        cloned with the carried values one trip ahead; every load masked by "iteration
        ``i + 1`` exists") and carried to the next trip, where its ``local_alloc`` stores it.
        The loads go right after those stores of the tiles carried in, so each carried register
        is dead before its successor is loaded and ptxas needs no copy on the back edge (a copy
        waits for the load); a narrow tile is carried widened to i32 (:func:`widen`). Measured
        on an H100 (benchmarks/RESULTS.md, 2026-11-27, gpu-check fp16): conv2d_krsc 0.052 ->
        0.049 ms, shift_conv 0.071 -> 0.068, conv2d (offset table) 0.072 -> 0.077 (its gathers,
        12 L1 sectors each, go out later in the trip). The global loads' latency overlaps a
        trip's math. An index load of the slice computed from the induction variable and
        invariants alone goes two trips ahead (loaded for ``i + 2``, masked by that iteration's
        existence, carried), so the gather issued in a trip does not first wait for its offsets.
        Prologue: the loads of iteration 0 and the carried values of iteration 1. Returns the
        new loop (its other operand loads are then left to :meth:`rewrite`'s rings)."""
        loop = plan.loop
        body = loop.regions[0].block
        lb, ub, step = loop.operands[:3]
        inits = list(loop.operands[3:])
        pred = loop.attrs.get("predicate", "slt")
        iv = body.args[0]
        old_args = list(body.args[1:])
        yield_op = body.terminator
        pre = Builder().before(loop)
        hoisted: dict = {}

        def arg_layout(j: int) -> Layout | None:
            a = old_args[j]
            return plan.wants.get(a, a.type.layout) if isinstance(a.type, TileType) else None

        def stage(b: Builder, env: dict, it: Value) -> tuple[list[Value], list[Value]]:
            valid = b.value("arith.cmpi", [it, ub], I1, {"predicate": pred})
            cloner = LoopCloner(plan, env, b, pre, hoisted, valid)
            tiles = [widen(b, cloner.clone_load(c.load, c.load.result, c.copy_layout)) for c in plan.candidates]
            return tiles, [cloner.get(yield_op.operands[j], arg_layout(j)) for j in plan.s0_args]

        # Index loads of the slice that depend on the induction variable and loop invariants
        # alone (conv2d's AOFF[k:k+TK]) go one more trip ahead: loaded for iteration i + 2 and
        # carried, so the gather of iteration i + 1 does not wait for its offsets.
        index_loads = [op for op in body.ops if op in plan.slice_ops and op.name == "tt.load"
                       and depends_on_iv_only(op, plan, iv)]

        def index_layout(op: Operation) -> Layout | None:
            r = op.result
            return plan.wants.get(r, r.type.layout) if isinstance(r.type, TileType) else None

        def index_stage(b: Builder, it: Value) -> list[Value]:
            valid = b.value("arith.cmpi", [it, ub], I1, {"predicate": pred})
            cloner = LoopCloner(plan, {iv: it}, b, pre, hoisted, valid)
            return [cloner.get(op.result, index_layout(op)) for op in index_loads]

        ahead0 = [pre.value("ttg.convert_layout", [inits[j]], inits[j].type.with_layout(arg_layout(j)))
                  if isinstance(inits[j].type, TileType) and inits[j].type.layout != arg_layout(j) else inits[j]
                  for j in plan.s0_args]
        env0 = {iv: lb}
        env0.update({old_args[j]: a for j, a in zip(plan.s0_args, ahead0)})
        tiles0, ahead1 = stage(pre, env0, lb)
        index1 = index_stage(pre, pre.value("arith.addi", [lb, step], lb.type)) if index_loads else []

        new_loop, new_args = append_loop_args(loop, ahead1 + tiles0 + index1)
        n_ahead = new_args[:len(ahead1)]
        cur = new_args[len(ahead1):len(ahead1) + len(tiles0)]
        idx_cur = new_args[len(ahead1) + len(tiles0):]

        # The loads for the next trip go out right after the stores of the carried tiles into
        # shared memory (their allocations), so the carried registers are dead when the loads
        # write theirs: ptxas gives both one register, with no copy on the back edge (a copy
        # would wait for the load in the trip that issued it).
        head = Builder().before(body.ops[0])
        top = Builder().after(max((c.alloc for c in plan.candidates), key=body.ops.index))
        nxt = top.value("arith.addi", [iv, step], iv.type)
        index_next = index_stage(top, top.value("arith.addi", [nxt, step], iv.type)) if index_loads else []
        env = {iv: nxt}
        env.update({old_args[j]: a for j, a in zip(plan.s0_args, n_ahead)})
        env.update({op.result: x for op, x in zip(index_loads, idx_cur)})
        tiles_next, ahead_next = stage(top, env, nxt)
        for c, x in zip(plan.candidates, cur):
            c.load.result.replace_all_uses_with(narrow(head, x, c.load.result.type.element))
            c.load.erase()
        yield_op.set_operands(list(yield_op.operands) + ahead_next + tiles_next + index_next)
        return new_loop

    def allocate_rings(self, plan: LoopPlan, pre: Builder) -> dict[int, MemDescType]:
        """Allocates, with ``pre``, the ring of ``S`` shared buffers of each candidate (its
        ``ring`` and ``ring_type``); returns the type of one slot of each ring (by ``id`` of the
        candidate)."""
        S = self.S
        for c in plan.candidates:
            src_t = c.load.result.type
            if any(isinstance(u.result.type.layout, DotOperandLayout) for u, _ in c.alloc.result.uses):
                shared = operand_layout(src_t.shape, c.order, src_t.element.bytes, consumer_mma(c.alloc))
            else:  # a memory-bound loop's load (PipelinePlanner.memory_plan): its own buffer's layout
                shared = c.alloc.result.type.layout
            ring_layout = dataclasses.replace(shared, order=tuple(d + 1 for d in shared.order) + (0,))
            c.ring_type = MemDescType(src_t.element, (S,) + tuple(src_t.shape), ring_layout)
            c.ring = pre.value("ttg.local_alloc", [], c.ring_type)
        return {id(c): MemDescType(c.ring_type.element, c.ring_type.shape[1:], subview_layout(c.ring_type.layout))
                for c in plan.candidates}

    def rewrite(self, plan: LoopPlan) -> None:
        """The cp.async rings of ``plan``'s loop, on the schedule of
        :meth:`~tritonc.transforms.pipeline_schedule.PipelinePlanner.schedule` (see the module
        docstring): the rings, the prologue's copies, the new loop (the copies ahead and the
        original body reading the slots, its dot split into K slices or left running) and the
        epilogue (:meth:`replace_loop`)."""
        S = self.S
        loop = plan.loop
        body = loop.regions[0].block
        lb, ub, step = loop.operands[:3]
        inits = loop.operands[3:]
        pred = loop.attrs.get("predicate", "slt")
        iv = body.args[0]
        old_args = body.args[1:]
        yield_op = body.terminator
        pre = Builder().before(loop)
        hoisted: dict = {}
        target, running, chained, second, ahead_by = self.planner.schedule(plan)
        # chained dots one trip ahead (three stages): the copies right after the barrier
        chained_top = chained and ahead_by < 2
        slot_type = self.allocate_rings(plan, pre)
        rings = [c.ring for c in plan.candidates]

        def arg_layout(j: int) -> Layout | None:
            a = old_args[j]
            if not isinstance(a.type, TileType):
                return None
            return plan.wants.get(a, a.type.layout)

        def issue(b: Builder, env: dict, slot: Value, iter_iv: Value, no_war: bool = False) -> LoopCloner:
            valid = b.value("arith.cmpi", [iter_iv, ub], I1, {"predicate": pred})
            cloner = LoopCloner(plan, env, b, pre, hoisted, valid)
            for c in plan.candidates:
                ptr, mask = c.load.get("ptr"), c.load.get("mask")
                lay = c.copy_layout
                p = cloner.get(ptr, lay)
                shape = tuple(ptr.type.shape)
                if c.mask_kind == "limit":
                    m = build_limit(b, cloner, c.limit, lay)[1]
                    zero = b.constant(0, TileType(I32, shape, lay))
                    m = b.value("arith.select", [valid, m, zero], m.type)
                else:
                    vtile = b.value("tt.splat", [valid], TileType(I1, shape, lay))
                    m = vtile if mask is None else b.value("arith.andi", [cloner.get(mask, lay), vtile],
                                                            TileType(I1, shape, lay))
                dst = b.value("ttg.memdesc_subview", [c.ring, slot], slot_type[id(c)])
                attrs = {"vec": c.vec, "mask_kind": c.mask_kind or "uniform"}
                if no_war:
                    attrs["no_war"] = True  # its slot is not the one read since the barrier
                b.create("ttg.async_copy_global_to_local", [p, dst, m], [], attrs)
            b.create("ttg.async_commit_group", [], [])
            return cloner

        def advance(cloner: LoopCloner) -> list[Value]:
            return [cloner.get(yield_op.operands[j], arg_layout(j)) for j in plan.s0_args]

        def view(b: Builder, c: Candidate, slot: Value) -> Value:
            """Slot ``slot`` of ``c``'s ring as the dot operand it replaces (transposed if need be)."""
            v = b.value("ttg.memdesc_subview", [c.ring, slot], slot_type[id(c)])
            if c.trans is not None:
                order = list(c.trans.attrs["order"])
                vt = MemDescType(v.type.element, tuple(v.type.shape[o] for o in order),
                                 trans_shared_layout(v.type.layout, order))
                v = b.value("ttg.memdesc_trans", [v], vt, {"order": order})
            return v

        def k_slice_load(b: Builder, v: Value, operand: int, kk: int, k_slice: int, result_type: TileType) -> Value:
            shape = list(v.type.shape)
            offsets = [0, 0]
            kdim = 1 if operand == 0 else 0
            shape[kdim] = k_slice
            offsets[kdim] = kk * k_slice
            st = MemDescType(v.type.element, tuple(shape), v.type.layout, v.type.full_shape)
            sl = b.value("ttg.memdesc_subslice", [v], st, {"offsets": offsets})
            return b.value("ttg.local_load", [sl], result_type.with_shape(tuple(shape)).with_layout(result_type.layout))

        def iter_iv(b: Builder, base: Value, k: int) -> Value:
            if k == 0:
                return base
            kc = b.constant(k, base.type)
            return b.value("arith.addi", [base, b.value("arith.muli", [step, kc], base.type)], base.type)

        # Prologue: copies for the first ahead_by iterations, slots 0, 1, ...
        ahead = [pre.value("ttg.convert_layout", [inits[j]], inits[j].type.with_layout(arg_layout(j)))
                 if isinstance(inits[j].type, TileType) and inits[j].type.layout != arg_layout(j) else inits[j]
                 for j in plan.s0_args]
        for j in range(ahead_by):
            iv_j = iter_iv(pre, lb, j)
            env: dict[Value, Value] = {iv: iv_j}
            env.update({old_args[jj]: a for jj, a in zip(plan.s0_args, ahead)})
            cloner = issue(pre, env, pre.constant(j, I32), iv_j)
            ahead = advance(cloner)
        zero = pre.constant(0, I32)
        if target:
            dot, load_a, load_b, k_slice = target
            cand = {c.alloc.result: c for c in plan.candidates}
            ca, cb = cand[load_a.operands[0]], cand[load_b.operands[0]]
            pre.create("ttg.async_wait", rings, [], {"num": S - 1})
            pre.create("gpu.barrier", [], [])
            first = [k_slice_load(pre, view(pre, ca, zero), 0, 0, k_slice, dot.operands[0].type),
                     k_slice_load(pre, view(pre, cb, zero), 1, 0, k_slice, dot.operands[1].type)]
            extra_inits, extra_types = [zero] + first, [I32] + [f.type for f in first]
        else:
            extra_inits, extra_types = [pre.constant(ahead_by, I32), zero], [I32, I32]

        # The new loop.
        new_inits = list(inits) + ahead + extra_inits
        new_types = [v.type for v in inits] + [a.type for a in ahead] + extra_types
        new_loop = Operation("scf.for", [lb, ub, step] + new_inits, new_types, dict(loop.attrs), loc=loop.loc,
                             result_names=[r.name for r in loop.results] + [None] * (len(ahead) + len(extra_types)))
        nb = Block([iv.type] + new_types, [iv.name] + [a.name for a in old_args] + [None] * (len(ahead) + len(extra_types)))
        new_loop.add_region(Region(nb))
        loop.parent.insert_before(loop, new_loop)
        n_old = len(old_args)
        niv = nb.args[0]
        n_args = nb.args[1:1 + n_old]
        n_ahead = nb.args[1 + n_old:1 + n_old + len(ahead)]
        extras = nb.args[1 + n_old + len(ahead):]

        b = Builder().at_end(nb)

        def rotate(x: Value) -> Value:
            nxt = b.value("arith.addi", [x, b.constant(1, I32)], I32)
            wrap = b.value("arith.cmpi", [nxt, b.constant(S, I32)], I1, {"predicate": "eq"})
            return b.value("arith.select", [wrap, zero, nxt], I32)

        def issue_ahead(slot: Value, no_war: bool = False) -> list[Value]:
            dist = b.value("arith.muli", [step, b.constant(ahead_by, iv.type)], iv.type)
            iv_n = b.value("arith.addi", [niv, dist], iv.type)
            env = {iv: iv_n}
            env.update({old_args[jj]: a for jj, a in zip(plan.s0_args, n_ahead)})
            return advance(issue(b, env, slot, iv_n, no_war))

        vmap: dict[Value, Value] = {iv: niv}
        vmap.update(dict(zip(old_args, n_args)))
        skip = {c.load for c in plan.candidates} | {c.alloc for c in plan.candidates} | \
            {c.trans for c in plan.candidates if c.trans is not None}
        if target:
            ext, a_cur, b_cur = extras
            skip |= {load_a, load_b}
            ahead_next, ext_next, carried = [], None, []
        else:
            ins, ext = extras
            b.create("ttg.async_wait", rings, [], {"num": ahead_by - 1})
            b.create("gpu.barrier", [], [])
            if chained_top or not (running and (self.options.wgmma_copies_after_dot or second or chained)):
                ahead_next = issue_ahead(ins)

        # The original body, reading the pipelined tiles from slot ext.
        for op in body.ops[:-1]:
            if op in skip:
                c = next((c for c in plan.candidates if c.alloc is op), None)
                if c is not None:
                    vmap[op.result] = view(b, c, ext)
                continue
            if target and op is dot:
                # K slices: load slice kk + 1 before the mma of slice kk; before the last slice,
                # wait for the next slot, barrier, refill the slot just read, load the next
                # slot's slice 0 (carried into the next trip).
                va, vb = vmap[load_a.operands[0]], vmap[load_b.operands[0]]
                acc = vmap.get(dot.operands[2], dot.operands[2])
                kks = dot.operands[0].type.shape[1] // k_slice
                cur = (a_cur, b_cur)
                for kk in range(kks):
                    if kk + 1 < kks:
                        nxt = (k_slice_load(b, va, 0, kk + 1, k_slice, dot.operands[0].type),
                               k_slice_load(b, vb, 1, kk + 1, k_slice, dot.operands[1].type))
                    else:
                        b.create("ttg.async_wait", rings, [], {"num": S - 2})
                        b.create("gpu.barrier", [], [])
                        ahead_next = issue_ahead(ext)
                        ext_next = rotate(ext)
                        nxt = (k_slice_load(b, view(b, ca, ext_next), 0, 0, k_slice, dot.operands[0].type),
                               k_slice_load(b, view(b, cb, ext_next), 1, 0, k_slice, dot.operands[1].type))
                    acc = b.value("tt.dot", [cur[0], cur[1], acc], dot.result.type, dict(dot.attrs))
                    cur = nxt
                vmap[dot.result] = acc
                carried = list(cur)
                continue
            new_op = clone_op(op, vmap)
            b.insert(new_op)
            if op is running:
                # Issued and left running; the copies go out while it runs, then the wait
                # for the trip before (its slot is refilled in two trips' time).
                new_op.attrs["pending"] = 1
                if (self.options.wgmma_copies_after_dot and not second or chained) and not chained_top:
                    ahead_next = issue_ahead(ins, no_war=True)
                if chained:
                    continue  # carried running; waited for before its first use next trip
                vmap[op.result] = b.value("ttg.wgmma_wait", [new_op.result], new_op.result.type, {"num": 1})
                if second:
                    ahead_next = issue_ahead(ins)  # insert-barriers puts a barrier before it

        if chained:
            # The running dot's iteration argument: wait right before its first use.
            arg = n_args[yield_op.operands.index(running.result)]
            first = next(op for op in nb.ops if any(x is arg for x in op.operands))
            _wgmma_wait_all(Builder().before(first), arg)
        yields = [vmap.get(v, v) for v in yield_op.operands] + ahead_next
        yields += [ext_next] + carried if target else [rotate(ins), rotate(ext)]
        b.create("scf.yield", yields, [])

        self.replace_loop(loop, new_loop, rings, running)

    @staticmethod
    def replace_loop(loop: Operation, new_loop: Operation, rings: list[Value], running: Operation | None) -> None:
        """Epilogue: ``new_loop`` takes ``loop``'s place; after it, the wait for the copies in
        flight and, with a wgmma dot left ``running``, the wait for its last trip (its result's
        users then read the waited value)."""
        for old, new in zip(loop.results, new_loop.results):
            old.replace_all_uses_with(new)
        j = loop.regions[0].block.terminator.operands.index(running.result) if running is not None else None
        loop.erase()
        Builder().after(new_loop).create("ttg.async_wait", rings, [], {"num": 0})
        if running is not None:
            _wgmma_wait_all(Builder().after(new_loop), new_loop.results[j])


def _wgmma_wait_all(b: Builder, v: Value) -> None:
    """``ttg.wgmma_wait {num = 0}`` of ``v`` built with ``b``: every other user of ``v`` then
    reads the waited value."""
    done = b.value("ttg.wgmma_wait", [v], v.type, {"num": 0})
    for user, index in list(v.uses):
        if user is not done.op:
            user.set_operand(index, done)


@register_pass
@dataclass
class SoftwarePipeline(Pass):
    """Copy dot operands ``num_stages - 1`` loop iterations ahead with cp.async into shared rings."""

    name = "software-pipeline"
    num_stages: int = 3
    num_warps: int = 4
    #: The target architecture (its register file bounds the ``auto`` K-slice prefetch).
    arch: str = DEFAULT_ARCH
    #: Split the dot into K slices, prefetching slice kk + 1 before the mma of slice kk and the
    #: next trip's slice 0 right after the one barrier per trip (see the module docstring):
    #: ``"on"``, ``"off"``, or ``"auto"``: where
    #: :func:`~tritonc.transforms.pipeline_schedule.slice_registers` fits the register file
    #: (``-f[no-]slice-prefetch``, ``CodegenOptions.slice_prefetch``).
    slice_prefetch: str = "auto"
    #: Leave each trip's wgmma running into the next trip (``wgmma.wait_group 1`` instead of 0,
    #: Triton's and CUTLASS's Hopper main loop): the copies then run ``S - 2`` trips ahead, since
    #: the slot of the trip before is still being read when a copy is issued.
    wgmma_in_flight: bool = True
    #: With a wgmma left running: issue the copies after the dot (the tensor cores get the trip's
    #: work first), before its ``ttg.wgmma_wait {num = 1}``; else right after the barrier.
    wgmma_copies_after_dot: bool = True
    #: With a wgmma left running: issue the copies after the wait for the trip before and a second
    #: barrier (after it every warp group is done with that trip's slot: OpenAI Triton's Hopper
    #: loop), so they run ``S - 1`` trips ahead instead of ``S - 2``, for one more barrier a trip.
    #: ``"auto"``: where ``S - 2`` trips would be fewer than 3 (``S <= 4``). Measured on an H200
    #: (fp16 4096^3, benchmarks/RESULTS.md): 128x256x64 s4 628 TFLOP/s with it, 587 without;
    #: 128x256x32 s6 581 with it, 615 without; s8 580 / 611.
    wgmma_second_barrier: str = "auto"
    #: A loop with dot-operand loads none of which ``cp.async`` can copy stages them through
    #: registers, one trip ahead (:meth:`SoftwarePipeliner.rewrite_staged`); off: left as it is.
    register_staging: bool = True
    #: Loops without a dot: their tile loads go ``num_stages - 1`` trips ahead through cp.async
    #: rings too (:meth:`~tritonc.transforms.pipeline_schedule.PipelinePlanner.memory_plan`).
    pipeline_memory_loads: bool = True

    def __post_init__(self) -> None:
        for name in ("slice_prefetch", "wgmma_second_barrier"):
            if getattr(self, name) not in ("on", "off", "auto"):
                raise ValueError(f"option '{name.replace('_', '-')}' of pass 'software-pipeline' expects "
                                 f"on, off or auto, got '{getattr(self, name)}'")

    def run(self, module: Module, am: AnalysisManager) -> bool:
        if self.num_stages < 2:
            return False
        num_warps = int(module.attrs.get("num_warps", self.num_warps))
        axis = am.get(AxisInfoAnalysis)
        planners = {}
        plans = []
        for f in module.functions:
            warps = module.num_warps_of(f, num_warps)
            planner = planners.setdefault(warps, PipelinePlanner(self.num_stages, warps, axis, self))
            readonly = readonly_pointer_values(f) if self.pipeline_memory_loads else set()
            for op in list(f.walk()):
                if op.name != "scf.for":
                    continue
                plan = planner.plan_loop(op)
                if plan is None and self.pipeline_memory_loads:
                    plan = planner.memory_plan(op, readonly)
                if plan is not None:
                    plans.append((planner, plan))
        changed = bool(plans)
        for planner, plan in plans:
            pipeliner = SoftwarePipeliner(planner)
            if plan.staged:
                # the loads cp.async cannot copy go one trip ahead through registers; the
                # others of the same loop (conv2d's B, 16-byte runs) then get their rings
                loop = pipeliner.rewrite_staged(plan)
                plan = planner.plan(loop)
                if plan is None:
                    continue
            pipeliner.rewrite(plan)
        return changed
