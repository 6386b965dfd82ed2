"""Atomics: ``tt.atomic_rmw`` and ``tt.atomic_cas`` (PTX ISA 9.7.13.5 atom).

Each element is updated exactly once and every register gets the element's old value:

* tiles: register ``r`` performs ``atomicrmw <kind> ptr, v syncscope("device") monotonic``
  (relaxed, GPU scope: ``atom.relaxed.gpu.global.*``; LLVM expands kinds the hardware lacks,
  e.g. ``fmax`` or 8/16-bit integers, into a ``cmpxchg`` loop of the same scope) under the
  predicate ``mask && canonical(r)``, branching around it; a masked-off register's old value is
  0 (undefined by the spec). If the layout replicates elements and the result is used, the old
  values are broadcast to the replicas through the op's scratch (store canonical,
  ``bar.sync``, load).
* scalars (a 0-d pointer): a scalar atomic is the program instance's synchronisation point
  with other program instances (the spin lock ``while (atomic_cas(lock, 0, 1) == 1); ...
  atomic_xchg(lock, 0);`` of split-K kernels, a barrier of the program instances that share a
  reduction), so it is lowered as *acquire-release for the whole CTA*, as the legacy compiler
  did (``bar.sync`` + ``membar.gl`` around atomics): ``bar.sync`` (every thread's earlier global
  writes happen before thread 0's release); thread 0 runs one ``atom.acq_rel.gpu.global``
  (PTX ISA 8.5 "Memory Consistency Model", 9.7.13.5: the release is cumulative over what the
  barrier ordered before it, the acquire orders thread 0's later accesses, and the barrier
  after it everyone's); if the result is used thread 0 stores the old value to the op's
  scratch; ``bar.sync`` (every thread's later accesses happen after the acquire, and see the
  old value); every thread loads it. So the whole CTA sees one old value and a spin lock is a
  uniform loop (``insert-barriers`` adds the barrier that lets the next trip overwrite the
  scratch). The ``atom`` is inline PTX because LLVM's NVPTX back end drops an ``atomicrmw``'s
  ordering (it prints a plain, relaxed ``atom``); a kind or type with no single ``atom``
  (``fmax``, 16-bit, float exchange: :data:`_PTX_ATOM`) is thread 0's ``fence.acq_rel.gpu``,
  the relaxed ``atomicrmw`` and another ``fence.acq_rel.gpu``, the same semantics with two
  fences. Scratch: ``ir/scratch.atomic_scratch``. Without any ordering the data protected by a
  lock was seen stale on an H200 (30 of 30 split-K runs wrong). Tile atomics stay relaxed (spec
  §5): they accumulate, they do not synchronise.
* fp32 adds whose old values are unused (``transforms/coalesce.vector_red``), on sm_90 and
  later: each thread's run of ``vec`` contiguous, ``4 * vec``-byte-aligned elements
  (:func:`~.memory.vector_width`, the mask constant on the run) is one
  ``red.relaxed.gpu.global.add.v{vec}.f32`` (PTX ISA 9.7.13.6, vector ``red``: PTX 8.1,
  sm_90), the same relaxed GPU-scope update per element as ``atomicrmw``, 2 or 4 times fewer
  instructions and no branch (split-K's epilogue adds its partial tile this way).
* ``atomic_cas(p, cmp, v)``: ``cmpxchg p, cmp, v syncscope("device") monotonic monotonic``
  (floats compared and swapped as their bits).
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.ir.core import Operation
from tritonc.ir.scratch import smem_elem_bytes
from tritonc.ir.types import TileType, element_type

from .convert import through_shared
from .layout_math import canonical_ir
from .lowering import GPTR, I1, I32, KernelLowering, const, llvm_type, lowers
from .memory import access_addresses, scalar_leader, vector_width

ORDER = 'syncscope("device") monotonic'

_RMW = {"add": "add", "fadd": "fadd", "max": "max", "umax": "umax", "min": "min", "umin": "umin",
        "fmax": "fmax", "fmin": "fmin", "xchg": "xchg", "and": "and", "or": "or", "xor": "xor"}
_FLOAT_KIND = {"add": "fadd", "max": "fmax", "min": "fmin"}


def _guarded(lw: KernelLowering, pred, ty: ir.Type, emit) -> ir.Value:
    """``emit()`` under ``pred`` (None: unconditionally); the result is 0 where it did not run."""
    if pred is None:
        return emit()
    b = lw.b
    pre = b.block
    then = b.append_basic_block("atomic")
    merge = b.append_basic_block("atomic.end")
    b.cbranch(pred, then, merge)
    b.position_at_end(then)
    v = emit()
    then_end = b.block
    b.branch(merge)
    b.position_at_end(merge)
    phi = b.phi(ty)
    phi.add_incoming(v, then_end)
    phi.add_incoming(ir.Constant(ty, None), pre)
    return phi


def _finish(lw: KernelLowering, op: Operation, olds: list, is_tile: bool) -> None:
    """Give every register (every thread, for scalars) the old value of its element."""
    res = op.result
    if not res.uses:
        lw.set(res, olds if is_tile else olds[0])
        return
    if is_tile:
        dist = lw.dist(res)
        if dist.replicated:
            olds = through_shared(lw, op, olds, res.type, res.type, list(range(res.type.rank)))
        lw.set(res, olds)
        return
    elem = res.type
    base = lw.scratch_base(op, smem_elem_bytes(elem))
    with lw.if_then(scalar_leader(lw)):
        lw.smem_store(olds[0], elem, const(I32, base))
    lw.barrier()
    v = lw.smem_load(elem, const(I32, base))
    lw.set(res, v)


#: (kind, LLVM type) -> the ``atom`` operation and type, and the inline-asm constraint, of a
#: scalar atomic with acquire-release semantics in one instruction (PTX ISA 9.7.13.5).
_PTX_ATOM = {
    **{(kind, f"i{bits}"): (f"{op}.{sign}{bits}", reg)
       for bits, reg in ((32, "r"), (64, "l"))
       for kind, op, sign in (("add", "add", "u"), ("xchg", "exch", "b"), ("max", "max", "s"),
                              ("umax", "max", "u"), ("min", "min", "s"), ("umin", "min", "u"),
                              ("and", "and", "b"), ("or", "or", "b"), ("xor", "xor", "b"),
                              ("cas", "cas", "b"))},
    ("fadd", "float"): ("add.f32", "f"),
}


def _scalar_atomic(lw: KernelLowering, kind: str, ty: ir.Type, ptr, values, relaxed):
    """Thread 0's part of a scalar atomic (module docstring), as a function that emits it: one
    inline ``atom.acq_rel.gpu.global.<op>`` of ``values`` at ``ptr`` when :data:`_PTX_ATOM` has
    one for ``kind`` and ``ty``, else ``relaxed()`` (the relaxed LLVM atomic) between two
    ``fence.acq_rel.gpu``."""
    entry = _PTX_ATOM.get((kind, str(ty)))
    if entry is None:
        def fenced():
            lw.b.fence("acq_rel", "device")
            old = relaxed()
            lw.b.fence("acq_rel", "device")
            return old
        return fenced
    name, reg = entry
    operands = ", ".join(f"${i + 2}" for i in range(len(values)))
    asm = ir.InlineAsm(ir.FunctionType(ty, [GPTR] + [ty] * len(values)),
                       f"atom.acq_rel.gpu.global.{name} $0, [$1], {operands};",
                       ",".join([f"={reg}", "l"] + [reg] * len(values) + ["~{memory}"]), side_effect=True)
    return lambda: lw.b.call(asm, [ptr, *values])


def _synchronising(lw: KernelLowering, op: Operation, emit, mask=None) -> None:
    """A scalar atomic as a CTA-wide acquire-release (module docstring): barrier, thread 0's
    ``emit()`` (:func:`_scalar_atomic`), then :func:`_finish`'s broadcast, or a barrier when the
    result is unused."""
    lw.barrier()
    ty = llvm_type(element_type(op.result.type))
    pred = scalar_leader(lw) if mask is None else lw.and_pred(lw.regs(mask, 1)[0], scalar_leader(lw))
    old = _guarded(lw, pred, ty, emit)
    _finish(lw, op, [old], False)
    if not op.result.uses:
        lw.barrier()


def _predicates(lw: KernelLowering, op: Operation, ptr, mask):
    if isinstance(ptr.type, TileType):
        dist = lw.dist(ptr)
        n = dist.num_regs
        canon = canonical_ir(lw, dist)
    else:
        n = 1
        canon = [scalar_leader(lw)]
    masks = lw.regs(mask, n) if mask is not None else [None] * n
    return n, [lw.and_pred(m, c) for m, c in zip(masks, canon)]


@lowers("tt.atomic_rmw")
def _atomic_rmw(lw: KernelLowering, op: Operation) -> None:
    ptr, value, mask = op.get("ptr"), op.get("value"), op.get("mask")
    ty = llvm_type(element_type(value.type))
    kind = op.attrs["kind"]
    if not isinstance(ty, ir.IntType):
        kind = _FLOAT_KIND.get(kind, kind)
    rmw = _RMW[kind]
    if not isinstance(ptr.type, TileType):
        p, v = lw.regs(ptr, 1)[0], lw.regs(value, 1)[0]
        _synchronising(lw, op, _scalar_atomic(lw, rmw, ty, p, [v], lambda: lw.b.atomic_rmw(rmw, p, v, ORDER)), mask)
        return
    if _vector_red(lw, op, ptr, value, mask):
        return
    n, preds = _predicates(lw, op, ptr, mask)
    ptrs, values = lw.regs(ptr, n), lw.regs(value, n)
    olds = [_guarded(lw, pred, ty, lambda p=p, v=v: lw.b.atomic_rmw(rmw, p, v, ORDER))
            for p, v, pred in zip(ptrs, values, preds)]
    _finish(lw, op, olds, isinstance(ptr.type, TileType))


#: The first compute capability with vector ``red.global.add.v2/v4.f32`` (PTX ISA 8.1).
VECTOR_RED_CAPABILITY = 90


def _vector_red(lw: KernelLowering, op: Operation, ptr, value, mask) -> bool:
    """Lower ``op`` as vector ``red`` instructions (module docstring) if it qualifies; returns
    whether it did."""
    from tritonc.transforms.coalesce import vector_red

    if lw.capability < VECTOR_RED_CAPABILITY or not vector_red(op):
        return False
    vec = min(vector_width(lw, ptr, mask), 4)
    if vec < 2:
        return False
    n, preds = _predicates(lw, op, ptr, mask)
    ptrs, values = access_addresses(lw, op, ptr, n, range(0, n, vec)), lw.regs(value, n)
    f32 = ir.FloatType()
    regs = ", ".join(f"${i + 1}" for i in range(vec))
    for g in range(0, n, vec):
        pred = preds[g]
        text = f"red.relaxed.gpu.global.add.v{vec}.f32 [ $0 + 0 ], {{ {regs} }};"
        args, cons, types = [ptrs[g]] + values[g:g + vec], ["l"] + ["f"] * vec, [GPTR] + [f32] * vec
        if pred is not None:
            text = f"@${vec + 1} " + text
            args.append(pred)
            cons.append("b")
            types.append(I1)
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), types), text, ",".join(cons), side_effect=True)
        lw.b.call(asm, args)
    lw.set(op.result, [ir.Constant(f32, 0.0)] * n)
    return True


@lowers("tt.atomic_cas")
def _atomic_cas(lw: KernelLowering, op: Operation) -> None:
    ptr, cmp, value = op.operands
    ty = llvm_type(element_type(value.type))
    ity = ty if isinstance(ty, ir.IntType) else ir.IntType({"half": 16, "bfloat": 16, "float": 32,
                                                           "double": 64}[str(ty)])
    n, preds = _predicates(lw, op, ptr, None)
    b = lw.b

    def cas(p, c, v):
        if ity is not ty:
            c, v = b.bitcast(c, ity), b.bitcast(v, ity)
        old = b.extract_value(b.cmpxchg(p, c, v, ORDER, "monotonic"), 0)
        return old if ity is ty else b.bitcast(old, ty)
    if not isinstance(ptr.type, TileType):
        p, c, v = lw.regs(ptr, 1)[0], lw.regs(cmp, 1)[0], lw.regs(value, 1)[0]
        _synchronising(lw, op, _scalar_atomic(lw, "cas", ty, p, [c, v], lambda: cas(p, c, v)))
        return
    olds = [_guarded(lw, pred, ty, lambda p=p, c=c, v=v: cas(p, c, v))
            for p, c, v, pred in zip(lw.regs(ptr, n), lw.regs(cmp, n), lw.regs(value, n), preds)]
    _finish(lw, op, olds, isinstance(ptr.type, TileType))
