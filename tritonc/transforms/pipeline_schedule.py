"""The schedule of ``software-pipeline``: which loops and loads are pipelined, and how.

:class:`PipelinePlanner` makes the :class:`~tritonc.transforms.pipeline_plan.LoopPlan` of an
``scf.for`` (its candidate loads, their address slice, the layouts the slice is cloned in) and
decides how :class:`~tritonc.transforms.software_pipeline.SoftwarePipeliner` rewrites it
(:mod:`tritonc.transforms.software_pipeline`'s docstring describes the transformation):
register staging or ``cp.async`` rings (:meth:`PipelinePlanner.plan_loop`, where
:func:`staging_registers` fits), the K-slice prefetch (:meth:`PipelinePlanner.slice_target`,
where :func:`slice_registers` fits), a wgmma dot left running across trips
(:meth:`PipelinePlanner.wgmma_target`, :meth:`PipelinePlanner.chained_wgmma_target`) and how
many iterations ahead the copies go (:meth:`PipelinePlanner.schedule`). A loop without a dot
is planned by :meth:`PipelinePlanner.memory_plan`, which gives its tile loads the
``local_alloc`` / ``local_load`` pair below and then plans them by the same rules.

Which loops and loads (else the loop is left as it is: plain loads, ``local_alloc``, a barrier,
``local_load``, which is correct for any input):

* the load is in the loop body (not nested), its only user is a ``ttg.local_alloc`` (possibly
  through one ``tt.trans``) whose users are ``ttg.local_load`` ops;
* its address, mask and ``other`` are computed in the body (the *stage-0 slice*) by pure ops
  from the induction variable, loop invariants and iteration arguments whose next values are
  themselves computed that way (``pa += TK``); so they can be evaluated for iteration
  ``i + S - 1`` by cloning the slice with the induction variable ``iv + (S-1) * st`` and
  those iteration arguments carried ``S - 1`` iterations ahead (the original ones stay for any
  other user; ``dce`` removes them when unused). The slice may also hold ``tt.load`` ops, the
  *index loads* of look-up tables (conv2d's ``*poff``, blocksparse's ``*plut``), when nothing
  in the loop writes global memory: a clone loads in the layout its consumer wants, its mask
  and'ed with "the cloned iteration exists", so it reads exactly what the original loop reads;
* ``cp.async`` can do it: axis info (:class:`~tritonc.analysis.axis_info.AxisInfoAnalysis`)
  proves runs of ``vec`` contiguous, ``vec * elem_bytes``-aligned elements with
  ``vec * elem_bytes`` of 4, 8 or 16 bytes; the mask is constant on each such run
  (``mask_kind = "uniform"``) or provably true on a prefix of each run (``"prefix"``: an
  ``andi`` of run-constant terms and ``x < bound`` comparisons of a contiguous ``x`` with a
  run-constant ``bound``, such as ``k < K`` on a ragged K); ``other`` is absent or zero (the
  copy zero-fills masked elements). A prefix mask made of signed ``x < b`` / ``x <= b``
  bounds (and run-constant terms) is passed as its *limit* ``b - x`` instead (``mask_kind =
  "limit"``, an i32 tile, ``min`` over the bounds, 0 where a run-constant term is false), so
  the lowering reads the byte count of each copy off its first element (two instructions)
  instead of adding up the mask bits.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.ir.builder import Builder
from tritonc.ir.core import Block, BlockArgument, Operation, Value
from tritonc.ir.effects import GLOBAL, RECURSIVE, WRITE
from tritonc.ir.layout_algebra import blocked_layout
from tritonc.ir.layouts import DotOperandLayout, MmaLayout, SharedLayout
from tritonc.ir.ops import get_opdef, memory_effects
from tritonc.ir.types import MemDescType, TileType, element_type
from tritonc.target import WARP_SIZE, Target

from .pipeline_plan import Candidate, LoopPlan, is_zero_constant, limit_form, operand_wants, prefix_mask

if TYPE_CHECKING:
    from .software_pipeline import SoftwarePipeline

#: Shared memory (bytes, every slot of every ring) that the rings of one loop without a dot may
#: take (:meth:`PipelinePlanner.memory_plan`): a quarter of an H100 SM's 228 KiB, so that the
#: rings leave room for the reductions' scratch and several CTAs an SM.
MEMORY_RING_BYTES = 48 * 1024

#: Registers per thread kept free of staged tiles and accumulators (addresses, masks, loop
#: counters) when deciding whether register staging fits (:func:`staging_registers`).
STAGING_RESERVE = 48


def staging_registers(plan: LoopPlan, num_warps: int) -> int:
    """Estimated registers per thread that register staging of ``plan`` keeps live: three per
    staged element (its value in a 32-bit register whatever its width, and the 64-bit address
    of the next trip's element-wise load; twice the value for 64-bit elements) plus the
    accumulators of the loop's dots. Staging pays when the staged tiles hide one trip's global
    latency; past the register file it spills, and plain loads in the loop are cheaper than
    local-memory traffic (conv2d_nhwc's generic kernel, one element an access, at 64x128x64 on
    4 warps: 96 staged halves and 64 accumulators a thread spilled 1.3 KB)."""
    threads = WARP_SIZE * num_warps

    def regs(t, per_element: int) -> int:
        return -(-t.numel // threads) * (per_element + max(1, -(-t.element.bits // 32)) - 1)

    body = plan.loop.regions[0].block
    return (sum(regs(c.load.result.type, 3) for c in plan.candidates)
            + sum(regs(op.result.type, 1) for op in body.ops if op.name == "tt.dot"))


def slice_registers(acc_shape, warps: tuple[int, int], num_warps: int, copy_chunks: int, elem_bytes: int) -> int:
    """Estimated registers per thread of a K-sliced loop: accumulators, two sets of one
    slice's fragments (16 K of A and B per warp), one per copy chunk (``copy_chunks``: the
    16-byte chunks a thread copies per trip, those of a copy with a ``"limit"`` or ``"prefix"``
    mask counted twice: its i32 limit or mask bits per chunk) and ~47 for the rest. A chunk
    costs its i32 offset: the copy's source address is formed at the ``cp.async`` from the
    carried scalar base (``codegen/llvm/memory.py``); the offsets shared by a row or column
    of chunks and the rest of the masks are in the constant.

    Calibrated on ``ptxas -v`` (sm_90, fp16 ``benchmarks/kernels/matmul.tri`` forced sliced):
    the largest estimates that fit are 128x256x64 on 8 warps with uniform masks (251; the
    ``__spec16`` variant: 254 registers, no spills, 242 the least ``.maxnreg`` without) and
    128x128x64 on 4 warps (255: 246, none); 256x64x64 on 4 warps (259) spills at 255
    registers, and so does 128x256x64 on 8 warps with limit masks (the variant for any size,
    263: 4 to 12 bytes)."""
    threads = 32 * num_warps
    acc = acc_shape[0] * acc_shape[1] // threads
    frag = (acc_shape[0] // warps[0] + acc_shape[1] // warps[1]) * 16 * elem_bytes // (32 * 4)
    return acc + 2 * frag + copy_chunks + 47


def writes_global(op: Operation) -> bool:
    """Whether ``op`` may write global memory (its declared effects; unmodelled ones may)."""
    effects = memory_effects(op)
    if effects == RECURSIVE:
        return False  # its regions' ops are walked themselves
    return effects is None or any(e.kind == WRITE and e.resource == GLOBAL for e in effects)


def consumer_mma(alloc: Operation) -> MmaLayout:
    """The mma layout of the dot operands ``local_load``-ed from ``alloc``'s buffer."""
    return next(u.result.type.layout.parent for u, _ in alloc.result.uses
                if isinstance(u.result.type.layout, DotOperandLayout))


class LoopSchedule(NamedTuple):
    """How one planned loop is pipelined (:meth:`PipelinePlanner.schedule`)."""

    #: ``(dot, load_a, load_b, k_slice)``: the K-slice prefetch (:meth:`PipelinePlanner.slice_target`)
    target: tuple | None
    #: the wgmma dot left running across trips (:meth:`PipelinePlanner.wgmma_target`)
    running: Operation | None
    #: ``running`` is the last of several dots (:meth:`PipelinePlanner.chained_wgmma_target`)
    chained: bool
    #: with ``running``: the copies go out after its wait and a second barrier
    #: (``SoftwarePipeline.wgmma_second_barrier``)
    second: bool
    #: iterations between a copy and its use
    ahead_by: int


class PipelinePlanner:
    """Plans the loops of one module (:meth:`plan_loop`) and their schedule (:meth:`schedule`);
    ``options`` is the pass (its switches)."""

    def __init__(self, num_stages: int, num_warps: int, axis: AxisInfoAnalysis, options: SoftwarePipeline):
        self.S, self.num_warps, self.axis = num_stages, num_warps, axis
        self.options = options

    @staticmethod
    def operand_chain(load: Operation, body: Block) -> tuple[Operation | None, Operation] | None:
        """``(tt.trans or None, ttg.local_alloc)`` when ``load`` feeds a dot operand through
        ``tt.load -> [tt.trans ->] ttg.local_alloc -> ttg.local_load`` inside ``body`` (its
        only use each step), else None: the loads the pipeliner may move ahead."""
        res = load.result
        if not isinstance(res.type, TileType) or len(res.uses) != 1:
            return None
        user = res.uses[0][0]
        trans = None
        if user.name == "tt.trans" and user.parent is body and len(user.result.uses) == 1:
            trans, user = user, user.result.uses[0][0]
        if user.name != "ttg.local_alloc" or user.parent is not body:
            return None
        if not user.result.uses or any(u.name != "ttg.local_load" for u, _ in user.result.uses):
            return None
        return trans, user

    def candidate(self, load: Operation, body: Block) -> Candidate | None:
        chain = self.operand_chain(load, body)
        if chain is None:
            return None
        trans, user = chain
        ptr, mask, other = load.get("ptr"), load.get("mask"), load.get("other")
        if other is not None and not is_zero_constant(other):
            return None
        pointee = element_type(ptr.type).pointee
        eb = pointee.bytes
        if pointee.bits < 8:
            return None
        shape = tuple(ptr.type.shape)
        order = tuple(self.axis.order(ptr))
        numel = 1
        for s in shape:
            numel *= s
        vec = min(self.axis.max_vector_elems(ptr, eb), max(1, 16 // eb), shape[order[0]],
                  max(1, numel // (WARP_SIZE * self.num_warps)))
        if vec * eb < 4:
            return None
        kind = None
        if mask is not None:
            d = order[0]
            limit = None
            if self.axis.info(mask).constancy[d] % vec == 0:
                kind = "uniform"
            elif (limit := limit_form(mask, d, vec, self.axis)) is not None:
                kind = "limit"
            elif prefix_mask(mask, d, vec, self.axis):
                kind = "prefix"
            else:
                return None
        spt = [1] * len(shape)
        spt[order[0]] = vec
        layout = blocked_layout(shape, order, tuple(spt), self.num_warps)
        return Candidate(load, user, trans, order, vec, kind, layout, limit if mask is not None else None)

    def staged_candidate(self, load: Operation, body: Block) -> Candidate | None:
        """A dot-operand load (``tt.load -> [tt.trans ->] ttg.local_alloc -> ttg.local_load``)
        that ``cp.async`` cannot copy, staged through registers instead: loaded one trip ahead
        in its own layout (see :meth:`SoftwarePipeliner.rewrite_staged`)."""
        res = load.result
        chain = self.operand_chain(load, body)
        if chain is None or res.type.layout is None:
            return None
        trans, user = chain
        if load.get("other") is not None and load.get("mask") is None:
            return None
        return Candidate(load, user, trans, (), 0, None, res.type.layout)

    def plan(self, loop: Operation, staged: bool = False) -> LoopPlan | None:
        """The cp.async plan of ``loop`` (``staged``: the register-staging plan of
        :meth:`staged_candidate` loads), or None."""
        body = loop.regions[0].block
        loads = [op for op in body.ops if op.name == "tt.load"]
        if staged:  # the loads cp.async cannot copy (the others go through the rings)
            cands = [c for c in (self.staged_candidate(op, body) for op in loads if self.candidate(op, body) is None)
                     if c]
        else:
            cands = [c for c in (self.candidate(op, body) for op in loads) if c]
        if not cands:
            return None
        args = body.args
        arg_index = {a: i - 1 for i, a in enumerate(args) if i > 0}
        yield_op = body.terminator
        slice_ops: set[Operation] = set()
        s0: set[int] = set()
        ok = True
        # An index load (conv2d's ``*pdelta``, blocksparse's ``*plut``) may be part of the slice,
        # evaluated for a later iteration, when nothing in the loop writes global memory.
        no_global_writes = not any(writes_global(op) for op in loop.walk() if op is not loop)

        def visit(v: Value) -> None:
            nonlocal ok
            if isinstance(v, BlockArgument):
                if v.block is body and v in arg_index and arg_index[v] not in s0:
                    s0.add(arg_index[v])
                    visit(yield_op.operands[arg_index[v]])
                return
            op = v.op
            if op.parent is not body:
                if body.parent_op().is_ancestor_of(op):
                    ok = False  # defined in a nested region of the body
                return
            if op in slice_ops:
                return
            if op.regions or not (get_opdef(op.name).pure or (op.name == "tt.load" and no_global_writes)):
                ok = False
                return
            slice_ops.add(op)
            for x in op.operands:
                visit(x)

        for c in cands:
            for x in c.load.operands:
                visit(x)
        if not ok:
            return None
        plan = LoopPlan(loop, cands, slice_ops, sorted(s0))
        # Layout wants, backward from the copies (program order reversed).
        wants = plan.wants
        for c in cands:
            for x in c.load.operands:
                if isinstance(x.type, TileType):
                    wants.setdefault(x, c.copy_layout)
        for op in reversed(body.ops):
            if op not in slice_ops or len(op.results) != 1:
                continue
            w = wants.get(op.result)
            if w is None or not isinstance(op.result.type, TileType):
                continue
            for x, ow in zip(op.operands, operand_wants(op, w)):
                if ow is not None and isinstance(x.type, TileType):
                    wants.setdefault(x, ow)
        return plan

    def plan_loop(self, loop: Operation) -> LoopPlan | None:
        """The plan of ``loop``, or None (left as it is): its register-staging plan (``staged``
        set: rewritten by :meth:`SoftwarePipeliner.rewrite_staged`, then planned again for
        cp.async) where the pass's ``register_staging`` allows it and the staged tiles fit the
        register file (:func:`staging_registers`), else its cp.async plan."""
        staged = self.plan(loop, staged=True) if self.options.register_staging else None
        if staged is not None and (staging_registers(staged, self.num_warps) + STAGING_RESERVE
                                   > Target(self.options.arch).max_registers_per_thread):
            staged = None  # it would spill: the loads stay in the trip that uses them
        if staged is not None:
            staged.staged = True  # rewritten by rewrite_staged, then planned for cp.async
            return staged
        return self.plan(loop)

    def memory_plan(self, loop: Operation, readonly: set[Value]) -> LoopPlan | None:
        """The cp.async plan of a loop without a dot (a memory-bound loop over rows: layernorm's
        backward, a column sum), or None: its tile loads go ``S - 1`` trips ahead
        through rings, as a matmul's operands do, so that a CTA keeps the next trips' bytes in
        flight while it computes (the reductions of a trip wait at their barriers with no load
        of their own out otherwise), in shared memory rather than in registers.

        Which loops and loads: a ``scf.for`` with no dot and no loop inside it; the loads of
        tiles directly in its body that :meth:`candidate` accepts (``cp.async`` can copy them)
        and that may move ahead of the loop's global writes (none in the loop, or a pointer
        derived only from ``__noalias`` parameters that the kernel only reads: ``readonly``,
        :func:`~tritonc.analysis.pointer_origins.readonly_pointer_values`); at most
        :data:`MEMORY_RING_BYTES` of rings; not a loop that walks a row in tiles
        (:meth:`walks_along_rows`). Each such load is given a plain (unswizzled) buffer,
        ``tt.load -> ttg.local_alloc -> ttg.local_load`` in its own layout, which the rings then
        replace; loads left out are left as they are. The copy layout and the load's layout are
        both the coalesced layout of the pointer's order, so each thread reads back the bytes it
        copied (no bank conflicts)."""
        body = loop.regions[0].block
        if any(op.name in ("tt.dot", "scf.for", "scf.while") for op in loop.walk() if op is not loop):
            return None
        movable = not any(writes_global(op) for op in loop.walk() if op is not loop)
        wrapped = []
        for load in [op for op in body.ops if op.name == "tt.load"]:
            t = load.result.type
            if not isinstance(t, TileType) or t.layout is None or not load.result.uses:
                continue
            if not (movable or load.get("ptr") in readonly):
                continue
            order = tuple(self.axis.order(load.get("ptr")))
            b = Builder().after(load)
            alloc = b.value("ttg.local_alloc", [load.result], MemDescType(t.element, tuple(t.shape),
                                                                           SharedLayout(1, 1, 1, order)))
            back = b.value("ttg.local_load", [alloc], t)
            for user, index in list(load.result.uses):
                if user is not alloc.op:
                    user.set_operand(index, back)
            wrapped.append((load, alloc.op, back.op))
        plan = self.plan(loop) if wrapped else None
        if plan is not None and any(self.walks_along_rows(c, body) for c in plan.candidates):
            plan = None
        kept = {c.load for c in plan.candidates} if plan is not None else set()
        if plan is not None and sum(self.S * c.load.result.type.numel * c.load.result.type.element.bytes
                                    for c in plan.candidates) > MEMORY_RING_BYTES:
            plan, kept = None, set()
        for load, alloc, back in wrapped:
            if load not in kept:  # as it was
                back.result.replace_all_uses_with(load.result)
                back.erase()
                alloc.erase()
        return plan

    def walks_along_rows(self, c: Candidate, body: Block) -> bool:
        """Whether candidate ``c``'s loop walks along the contiguous dimension of its tile: its
        mask varies along that dimension and with the induction variable (``off + cols < N``).
        Such a loop (rmsnorm's forward over a row's tiles) takes ``N / BLOCK`` trips, and the
        tile is chosen to hold the row: one trip, whose copies a ring only delays (rmsnorm
        forward on an H100: 46.9 -> 52.6 us). Loops over rows (a mask invariant in the loop,
        or constant along the row) are the ones pipelined."""
        mask = c.load.get("mask")
        d = c.order[0]
        work = [mask] if mask is not None else []
        while work:  # the terms of an ``and`` of masks (col_sum's rows < M && cols < N)
            m = work.pop()
            if self.axis.info(m).constancy[d] >= m.type.shape[d]:
                continue  # constant along the row
            op = getattr(m, "op", None)
            if op is not None and op.name in ("arith.andi", "tt.broadcast", "ttg.convert_layout") \
                    and all(isinstance(x.type, TileType) and x.type.rank == m.type.rank for x in op.operands):
                work.extend(op.operands)
            elif _depends_on(m, body.args[0], body):
                return True
        return False

    def slice_target(self, plan: LoopPlan):
        """``(dot, load_a, load_b, k_slice)`` when the loop's one dot reads both operands straight
        from pipelined buffers and its K holds at least two mma steps (see
        :attr:`SoftwarePipeline.slice_prefetch`)."""
        if self.options.slice_prefetch == "off":
            return None
        auto = self.options.slice_prefetch == "auto"
        body = plan.loop.regions[0].block
        allocs = {c.alloc.result: c for c in plan.candidates}
        dots = [op for op in body.ops if op.name == "tt.dot"]
        if len(dots) != 1:
            return None
        dot = dots[0]
        loads = []
        for x in dot.operands[:2]:
            ld = getattr(x, "op", None)
            if ld is None or ld.name != "ttg.local_load" or ld.parent is not body or len(x.uses) != 1 \
                    or ld.operands[0] not in allocs:
                return None
            loads.append(ld)
        a_layout = dot.operands[0].type.layout
        if not isinstance(a_layout, DotOperandLayout) or a_layout.parent.version != 2:
            return None  # wgmma (v3) reads whole buffers; its K steps need no fragment prefetch
        k_slice = 8 * a_layout.k_width
        if dot.operands[0].type.shape[1] < 2 * k_slice:
            return None
        if auto:
            threads = 32 * self.num_warps
            chunks = sum(-(-c.load.result.type.numel // (c.vec * threads))
                         * (2 if c.mask_kind in ("limit", "prefix") else 1) for c in plan.candidates)
            regs = slice_registers(dot.result.type.shape, a_layout.parent.warps_per_cta, self.num_warps, chunks,
                                   dot.operands[0].type.element.bytes)
            target = Target(self.options.arch)
            if regs > min(target.max_registers_per_thread, target.registers_per_sm // threads):
                return None
        return dot, loads[0], loads[1], k_slice

    def wgmma_target(self, plan: LoopPlan) -> Operation | None:
        """The loop's one dot when it can be left running across trips (see
        :attr:`SoftwarePipeline.wgmma_in_flight`):
        a wgmma (mma v3) dot reading both operands from the rings, accumulating into an
        iteration argument used by it alone, its result used by the yield alone; ``S >= 3``."""
        if not self.options.wgmma_in_flight or self.S < 3:
            return None
        body = plan.loop.regions[0].block
        allocs = {c.alloc.result for c in plan.candidates}
        dots = [op for op in body.ops if op.name == "tt.dot"]
        if len(dots) > 1:
            return self.chained_wgmma_target(plan, dots)
        if len(dots) != 1:
            return None
        dot = dots[0]
        layout = dot.result.type.layout
        if not isinstance(layout, MmaLayout) or layout.version != 3:
            return None
        for x in dot.operands[:2]:
            ld = getattr(x, "op", None)
            if ld is None or ld.name != "ttg.local_load" or ld.operands[0] not in allocs:
                return None
        acc = dot.operands[2]
        if not (isinstance(acc, BlockArgument) and acc.block is body and len(acc.uses) == 1):
            return None
        if [u for u, _ in dot.result.uses] != [body.terminator] or len(dot.result.uses) != 1:
            return None
        if body.terminator.operands.index(dot.result) != body.args.index(acc) - 1:
            return None
        return dot

    def chained_wgmma_target(self, plan: LoopPlan, dots: list[Operation]) -> Operation | None:
        """With several dots (flash attention's ``s = q @ k`` then ``acc = acc * alpha + p @ v``):
        the body's last dot, left running into the next trip, when it is a wgmma (mma v3) dot
        reading its B operand from a ring, its result used by the yield alone and the
        corresponding iteration argument not used by any dot before it (it is waited for,
        ``ttg.wgmma_wait {num = 0}``, right before its first use in the next trip: after the
        next trip's first dot, whose own wait retires it too, wgmma groups completing in
        order). Copies then run ``S - 2`` trips ahead into the slot of two trips before (every
        warp group is past the trip before's first-dot wait at this trip's barrier)."""
        body = plan.loop.regions[0].block
        allocs = {c.alloc.result for c in plan.candidates}
        dot = dots[-1]
        layout = dot.result.type.layout
        if not isinstance(layout, MmaLayout) or layout.version != 3:
            return None
        ld = getattr(dot.operands[1], "op", None)
        if ld is None or ld.name != "ttg.local_load" or ld.operands[0] not in allocs:
            return None
        if [u for u, _ in dot.result.uses] != [body.terminator] or len(dot.result.uses) != 1:
            return None
        j = body.terminator.operands.index(dot.result)
        arg = body.args[j + 1]
        first = next((op for op in body.ops if any(x is arg for x in op.operands)), None)
        if first is None or body.ops.index(first) < body.ops.index(dots[0]) or first in dots:
            return None
        if not _depends_on(dot.operands[0], dots[0].result, body):
            return None  # independent dots of one body (a batched dot split by unbatch-dots)
        return dot

    def schedule(self, plan: LoopPlan) -> LoopSchedule:
        """How :meth:`SoftwarePipeliner.rewrite` pipelines ``plan``'s loop (see
        :class:`LoopSchedule`)."""
        S = self.S
        body = plan.loop.regions[0].block
        target = self.slice_target(plan)
        running = None if target else self.wgmma_target(plan)
        # Iterations between a copy and its use: with a wgmma left running, the slot of the
        # trip before is still being read when the next copy is issued, so one less.
        second_barrier = self.options.wgmma_second_barrier
        chained = running is not None and sum(op.name == "tt.dot" for op in body.ops) > 1
        second = running is not None and not chained and \
            (S <= 4 if second_barrier == "auto" else second_barrier == "on")
        ahead_by = S if target else S - 2 if running and not second else S - 1
        return LoopSchedule(target, running, chained, second, ahead_by)


def depends_on_iv_only(op: Operation, plan: LoopPlan, iv: Value) -> bool:
    """Whether ``op`` of the slice is computed from ``iv`` and loop invariants alone (no
    other iteration argument of the loop, no other load)."""
    body = iv.block
    seen: set = set()

    def ok(v: Value) -> bool:
        if isinstance(v, BlockArgument):
            return v.block is not body or v is iv
        d = v.op
        if d not in plan.slice_ops or d in seen:
            return True
        seen.add(d)
        if d is not op and d.name == "tt.load":
            return False
        return all(ok(x) for x in d.operands)

    return all(ok(x) for x in op.operands)


def _depends_on(value, source, body) -> bool:
    """Whether ``value`` is computed from ``source`` by ops of ``body`` (use-def chains inside
    the loop body; block arguments and values defined outside end the walk)."""
    seen, work = set(), [value]
    while work:
        v = work.pop()
        if v is source:
            return True
        op = getattr(v, "op", None)
        if op is None or op.parent is not body or id(op) in seen:
            continue
        seen.add(id(op))
        work.extend(op.operands)
    return False
