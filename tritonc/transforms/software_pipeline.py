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

The slice is cloned in the copy's own layout (Triton's coalesced layout: ``vec`` contiguous
elements per thread along the most contiguous dimension, ``layout_algebra.blocked_layout``): its
ops are rebuilt in that layout (slices of it for the 1-D ranges), loop invariants are converted
once before the loop. The ring's layout is the swizzled layout of ``accelerate-matmul``
(``swizzled_layout``) along the pointer's memory order, so ``ldmatrix`` reads it without bank
conflicts; a ``tt.trans`` between load and allocation becomes a ``ttg.memdesc_trans`` view.

K-slice prefetch (the pass option ``slice-prefetch=on|off|auto``, ``tritonc
-f[no-]slice-prefetch``; ``auto`` by default: where the registers allow it, see
:func:`slice_registers`; measured in ``benchmarks/RESULTS.md``), CUTLASS's multistage main loop: when the loop's one dot reads both operands straight from
the rings and its K holds two or more mma steps, the prologue copies ``S`` iterations (all
slots), waits for slot 0 and loads its first K slice (``ttg.memdesc_subslice``); the dot is
split into one dot per K slice, the fragments of slice ``kk + 1`` loaded before the dot of
slice ``kk``; before the last slice's dot: ``async_wait {num = S-2}``, ``gpu.barrier``, the copy
for iteration ``i + S`` into the slot just read (every thread finished reading it before this
barrier), and the load of the next slot's slice 0, carried into the next trip. One barrier
per trip, with the last slice's mma still to issue after it, so the tensor cores do not
wait for the barrier; the price is a second set of fragment registers.

wgmma dots (mma v3, sm_90a; ``wgmma_in_flight``): the dot is issued and left running
(``pending = 1``); ``ttg.wgmma_wait {num = 1}`` after it waits for the trip before, and
``{num = 0}`` after the loop for the last one. A slot is then free only once every warp group
is past the wait for the trip that read it, so the copies either go out between the dot and
its wait into the slot of two trips before (``S - 2`` trips ahead, one barrier a trip; the
copies carry ``no_war``, which tells ``insert-barriers`` that the slot is not the one being
read), or after the wait and a second barrier into the slot of the trip before (``S - 1``
ahead, OpenAI Triton's loop; ``wgmma_second_barrier``, by default when ``S <= 4``).

Chained wgmma dots (flash attention: ``s = q @ k``, a softmax of ``s``, ``acc = acc * alpha +
p @ v``; :meth:`SoftwarePipeliner.chained_wgmma_target`): the body's last dot, whose result
only the yield uses, is left running into the next trip, where ``ttg.wgmma_wait {num = 0}``
precedes the first use of its iteration argument (after the next trip's first dot, whose own
``wait_group 0`` has retired it already: wgmma groups complete in order), and after the loop.
Its tensor-core work then overlaps the next trip's barrier, copies and first-dot issue (OpenAI
Triton's attention loop does the same). Its B ring slot is read until that wait, so the copies
go out after it into the slot of two trips before (``S - 2`` trips ahead, ``no_war``, one
barrier a trip): at this trip's barrier every warp group is past the trip before's first-dot
wait.

Register staging (pass option ``register-staging``, on by default): the dot-operand loads of a
loop that fail the ``cp.async`` conditions (conv2d's fp16 A: no 4-byte runs proven) but whose
address slice is as above are issued one trip ahead instead, at the top of the body, into
registers carried to the next trip (:meth:`SoftwarePipeliner.rewrite_staged`), where the
staged tiles and the accumulators fit the register file (:func:`staging_registers`, with
:data:`STAGING_RESERVE` registers to spare; else the loop is left as it is). A loop with both
kinds of loads (conv2d's A gathered, its B in 16-byte runs under the ``__spec16`` variant) is
staged first, then its ``cp.async`` loads get their rings in the staged loop; before, such a
loop pipelined the ``cp.async`` loads only and left the gather in the trip that used it (two
dependent global latencies a trip, the index load's and the gather's: conv2d fp16 at 0.23x
torch on an H100).

The loop stays correct for any trip count: copies for iterations that do not exist are
masked off (they read nothing and write zeros nobody reads), and the ring is waited for after
the loop before its shared memory can be reused.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.ir.builder import Builder
from tritonc.ir.clone import clone_op
from tritonc.ir.core import Block, BlockArgument, Module, Operation, Region, Value
from tritonc.ir.layout_algebra import blocked_layout
from tritonc.ir.layouts import DotOperandLayout, Layout, MmaLayout
from tritonc.ir.ttg_ops import subview_layout, trans_shared_layout
from tritonc.ir.effects import GLOBAL, RECURSIVE, WRITE
from tritonc.ir.ops import get_opdef, memory_effects
from tritonc.ir.types import I1, I32, MemDescType, TileType, element_type
from tritonc.passes import AnalysisManager, Pass, register_pass
from tritonc.target import DEFAULT_ARCH, WARP_SIZE, Target

from .accelerate_matmul import operand_layout
from .pipeline_plan import (Candidate, LoopCloner, LoopPlan, build_limit, is_zero_constant, limit_form, operand_wants,
                            prefix_mask)

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


class SoftwarePipeliner:
    """Plans and rewrites the loops of one module; ``options`` is the pass (its switches)."""

    def __init__(self, num_stages: int, num_warps: int, axis: AxisInfoAnalysis, options: "SoftwarePipeline"):
        self.S, self.num_warps, self.axis = num_stages, num_warps, axis
        self.options = options

    # -- analysis ----------------------------------------------------------------------------
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
        in its own layout (see :meth:`rewrite_staged`)."""
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

    # -- transformation ----------------------------------------------------------------------
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

    def rewrite_staged(self, plan: LoopPlan) -> Operation:
        """Register staging of the dot-operand loads that ``cp.async`` cannot copy (e.g.
        conv2d's A in fp16, whose addresses prove no 4-byte runs): each candidate load is
        issued one trip ahead, at the top of the body, for iteration ``i + 1`` (the address
        slice, index loads included, cloned with the carried values one trip ahead; every load
        masked by "iteration ``i + 1`` exists"), and carried to the next trip, where its
        ``local_alloc`` stores it. The global loads' latency then overlaps a trip's math. An
        index load of the slice computed from the induction variable and invariants alone goes
        two trips ahead (loaded for ``i + 2``, masked by that iteration's existence, carried),
        so the gather issued at the top of a trip does not first wait for its offsets.
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
            tiles = [cloner.clone_load(c.load, c.load.result, c.copy_layout) for c in plan.candidates]
            return tiles, [cloner.get(yield_op.operands[j], arg_layout(j)) for j in plan.s0_args]

        # Index loads of the slice that depend on the induction variable and loop invariants
        # alone (conv2d's AOFF[k:k+TK]) go one more trip ahead: loaded for iteration i + 2 and
        # carried, so the gather of iteration i + 1 does not wait for its offsets.
        index_loads = [op for op in body.ops if op in plan.slice_ops and op.name == "tt.load"
                       and self._depends_on_iv_only(op, plan, iv)]

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

        n_old = len(old_args)
        types = [r.type for r in loop.results] + [a.type for a in ahead1] + [t.type for t in tiles0] \
            + [x.type for x in index1]
        new_loop = Operation("scf.for", [lb, ub, step] + inits + ahead1 + tiles0 + index1, types, dict(loop.attrs),
                             loc=loop.loc, result_names=[r.name for r in loop.results] + [None] * (len(types) - n_old))
        loop.parent.insert_before(loop, new_loop)
        region = loop.regions[0]
        loop.regions.clear()
        new_loop.add_region(region)
        n_ahead = [body.add_argument(a.type) for a in ahead1]
        cur = [body.add_argument(t.type) for t in tiles0]
        idx_cur = [body.add_argument(x.type) for x in index1]

        top = Builder().before(body.ops[0])
        nxt = top.value("arith.addi", [iv, step], iv.type)
        index_next = index_stage(top, top.value("arith.addi", [nxt, step], iv.type)) if index_loads else []
        env = {iv: nxt}
        env.update({old_args[j]: a for j, a in zip(plan.s0_args, n_ahead)})
        env.update({op.result: x for op, x in zip(index_loads, idx_cur)})
        tiles_next, ahead_next = stage(top, env, nxt)
        for c, x in zip(plan.candidates, cur):
            c.load.result.replace_all_uses_with(x)
            c.load.erase()
        yield_op.set_operands(list(yield_op.operands) + ahead_next + tiles_next + index_next)
        for k in range(n_old):
            loop.results[k].replace_all_uses_with(new_loop.results[k])
        loop.erase()
        return new_loop

    @staticmethod
    def _depends_on_iv_only(op: Operation, plan: LoopPlan, iv: Value) -> bool:
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

    def rewrite(self, plan: LoopPlan) -> None:
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
        target = self.slice_target(plan)
        running = None if target else self.wgmma_target(plan)
        # Iterations between a copy and its use: with a wgmma left running, the slot of the
        # trip before is still being read when the next copy is issued, so one less.
        second_barrier = self.options.wgmma_second_barrier
        chained = running is not None and sum(op.name == "tt.dot" for op in body.ops) > 1
        second = running is not None and not chained and \
            (S <= 4 if second_barrier == "auto" else second_barrier == "on")
        ahead_by = S if target else S - 2 if running and not second else S - 1

        for c in plan.candidates:
            src_t = c.load.result.type
            shared = operand_layout(src_t.shape, c.order, src_t.element.bytes, consumer_mma(c.alloc))
            ring_layout = dataclasses.replace(shared, order=tuple(d + 1 for d in shared.order) + (0,))
            c.ring_type = MemDescType(src_t.element, (S,) + tuple(src_t.shape), ring_layout)
            c.ring = pre.value("ttg.local_alloc", [], c.ring_type)
        slot_type = {id(c): MemDescType(c.ring_type.element, c.ring_type.shape[1:],
                                        subview_layout(c.ring_type.layout))
                     for c in plan.candidates}
        rings = [c.ring for c in plan.candidates]

        def arg_layout(j: int) -> Layout | None:
            a = old_args[j]
            if not isinstance(a.type, TileType):
                return None
            return plan.wants.get(a, a.type.layout)

        def issue(b: Builder, env: dict, slot: Value, iter_iv: Value, no_war: bool = False) -> None:
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
            if not (running and (self.options.wgmma_copies_after_dot or second or chained)):
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
                if self.options.wgmma_copies_after_dot and not second or chained:
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
            done = Builder().before(first).value("ttg.wgmma_wait", [arg], arg.type, {"num": 0})
            for user, index in list(arg.uses):
                if user is not done.op:
                    user.set_operand(index, done)
        yields = [vmap.get(v, v) for v in yield_op.operands] + ahead_next
        yields += [ext_next] + carried if target else [rotate(ins), rotate(ext)]
        b.create("scf.yield", yields, [])

        for old, new in zip(loop.results, new_loop.results):
            old.replace_all_uses_with(new)
        j = yield_op.operands.index(running.result) if running is not None else None
        loop.erase()
        Builder().after(new_loop).create("ttg.async_wait", rings, [], {"num": 0})
        if running is not None:
            res = new_loop.results[j]
            done = Builder().after(new_loop).value("ttg.wgmma_wait", [res], res.type, {"num": 0})
            for user, index in list(res.uses):
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
    #: ``"on"``, ``"off"``, or ``"auto"``: where :func:`slice_registers` fits the register file
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
        pipeliners = {}
        plans = []
        for f in module.functions:
            warps = module.num_warps_of(f, num_warps)
            pipeliner = pipeliners.setdefault(warps, SoftwarePipeliner(self.num_stages, warps, axis, self))
            for op in f.walk():
                if op.name == "scf.for":
                    staged = pipeliner.plan(op, staged=True) if self.register_staging else None
                    if staged is not None and (staging_registers(staged, warps) + STAGING_RESERVE
                                               > Target(self.arch).max_registers_per_thread):
                        staged = None  # it would spill: the loads stay in the trip that uses them
                    if staged is not None:
                        staged.staged = True  # rewritten by rewrite_staged, then planned for cp.async
                        plans.append((pipeliner, staged))
                    else:
                        plan = pipeliner.plan(op)
                        if plan is not None:
                            plans.append((pipeliner, plan))
        changed = bool(plans)
        for pipeliner, plan in plans:
            if plan.staged:
                # the loads cp.async cannot copy go one trip ahead through registers; the
                # others of the same loop (conv2d's B, 16-byte runs) then get their rings
                loop = pipeliner.rewrite_staged(plan)
                plan = pipeliner.plan(loop)
                if plan is None:
                    continue
            pipeliner.rewrite(plan)
        return changed


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
