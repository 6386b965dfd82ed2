"""``tt.dot`` on CUDA cores: ``acc + a @ b`` with one FMA per product (the correct, general path;
``accelerate-matmul`` moves eligible dots to ``mma.sync``/``wgmma``; ``dot.py`` chooses).

Shapes ``a: [M, K, *B]``, ``b: [K, N, *B]``, ``acc``/result ``[M, N, *B]`` (trailing batch axes).
``a`` and ``b`` may be in any layout; the result has the accumulator's layout.

1. ``a`` and ``b`` are staged in the op's scratch, ``b`` after ``a`` (16-byte aligned): each
   canonical register stores its element, then ``bar.sync``. ``b`` is row-major; ``a`` is
   transposed for a 2-D dot (or one of a single batch element), ``[K, M]`` with rows padded
   to ``M`` plus 16 bytes (:func:`~tritonc.ir.scratch.fma_dot_a_pitch`), so that the ``a`` elements one ``k`` needs are
   a contiguous row; row-major for a batched dot.
2. Each thread runs a loop over ``k`` (an LLVM loop with one phi per accumulator register;
   LLVM's unroller decides how far to unroll): for every distinct row ``(m, batch)`` of its
   accumulator registers it loads ``a[m, k, batch]``, for every distinct column
   ``(n, batch)`` ``b[k, n, batch]``, and updates each register with
   ``acc = fma(a, b, acc)`` (``llvm.fma``, PTX ``fma.rn``) for floats or ``acc + a * b`` for
   integers (wrapping). Inputs are first converted to the accumulator's type: ``f16``/``bf16``
   -> ``f32`` exactly (``fpext``), ``i8`` -> ``i32`` by sign extension. Where the accumulator's
   layout is blocked and a thread's rows (columns) come in runs of consecutive ones (the
   layout ``accelerate-matmul`` gives a 2-D dot, :func:`~tritonc.transforms.accelerate_matmul.fma_layout`),
   a run's ``a`` (``b``) elements are read as one vector of up to 16 bytes.

Scratch (``ir/scratch.dot_scratch``): :func:`~tritonc.ir.scratch.fma_dot_b_offset` bytes of
``a``, then ``numel(b) * bytes(b)``. The barrier before the scratch is written again (the next
trip of a K loop) is ``insert-barriers``' job.
``input_precision = "tf32"`` is computed in full f32 (the spec allows more precision).
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.ir.core import Operation
from tritonc.ir.distribution import Distribution
from tritonc.ir.layouts import BlockedLayout
from tritonc.ir.scratch import dot_scratch, fma_dot_a_pitch, fma_dot_b_offset, smem_elem_bytes
from tritonc.ir.types import ScalarType

from .elementwise import intrinsic_call
from .layout_math import canonical_ir, coords_ir, linear_ids_ir
from .lowering import I32, KernelLowering, const, llvm_type, storage_type


def _to_acc(b: ir.IRBuilder, v: ir.Value, src: ScalarType, acc: ScalarType, acc_ty: ir.Type) -> ir.Value:
    if src == acc:
        return v
    if src.is_float and acc.is_float:
        return b.fpext(v, acc_ty) if src.bits < acc.bits else b.fptrunc(v, acc_ty)
    if src.is_int and acc.is_int:
        return b.sext(v, acc_ty) if src.bits < acc.bits else b.trunc(v, acc_ty)
    if src.is_int:
        return b.sitofp(v, acc_ty)
    return b.fptosi(v, acc_ty)


def _stage(lw: KernelLowering, regs, tile, base: int, pitch: int | None = None) -> None:
    """Store ``tile``'s canonical registers at ``base``: row-major, or with ``pitch`` transposed
    (element ``(m, k)`` at ``k * pitch + m``)."""
    dist = lw.dist(tile)
    nbytes = smem_elem_bytes(tile.element)
    canon = canonical_ir(lw, dist)
    b = lw.b
    if pitch is None:
        index = linear_ids_ir(lw, dist)
    else:
        index = [b.add(b.mul(c[1], const(I32, pitch)), c[0]) for c in coords_ir(lw, dist)]
    for r, v in enumerate(regs):
        with lw.if_then(canon[r]):
            lw.smem_store(v, tile.element, lw.scratch_address(base, b.mul(index[r], const(I32, nbytes))))


def _runs(dist: Distribution, dim: int, max_vec: int, stride: int) -> tuple[int, list[int]] | None:
    """``(v, starts)``: the distinct offsets along ``dim`` of a thread's registers of an
    accumulator in a blocked layout that does not wrap (2-D, or batch axes of size 1), as runs
    of ``v`` consecutive ones starting at ``starts`` (each a multiple of ``v``), ``v`` the largest power of two up to
    ``max_vec`` dividing ``size_per_thread[dim]`` and ``stride`` (the elements between two
    ``k``s in the scratch); ``None`` where the layout is not such a one."""
    lay = dist.blocked
    if not isinstance(lay, BlockedLayout) or dist.dims[:2] != (0, 1) or any(d != 1 for d in dist.pshape[2:]) \
            or dist.replicated or any(dist.offsets[0]):
        return None
    v = max_vec
    while v > 1 and (lay.size_per_thread[dim] % v or stride % v):
        v //= 2
    offs = sorted({o[dim] for o in dist.offsets})
    starts = [o for o in offs if o % v == 0]
    if len(starts) * v != len(offs) or any(s + j not in offs for s in starts for j in range(v)):
        return None
    return v, starts


def _vector_reads(lw: KernelLowering, element: ScalarType, base, step, v: int, starts: list[int],
                  acc_el: ScalarType, acc_ty) -> dict:
    """The elements at ``base + step + (s + j) * bytes`` (``s`` in ``starts``, ``j < v``), read
    as ``v``-element vectors, converted to the accumulator's type, by offset ``s + j``."""
    b = lw.b
    nbytes = smem_elem_bytes(element)
    ety = storage_type(element)
    out = {}
    for s in starts:
        ptr = lw.smem_ptr(b.add(b.add(base, step), const(I32, s * nbytes)))
        if v == 1:
            vals = [b.load(ptr, typ=ety, align=nbytes)]
        else:
            vec = b.load(ptr, typ=ir.VectorType(ety, v), align=v * nbytes)
            vals = [b.extract_element(vec, const(I32, j)) for j in range(v)]
        for j, x in enumerate(vals):
            out[s + j] = _to_acc(b, x, element, acc_el, acc_ty)
    return out


def lower_fma_dot(lw: KernelLowering, op: Operation) -> None:
    """Lower ``tt.dot`` ``op`` with one FMA per product (see the module docstring)."""
    a, bv, acc = op.operands
    at, bt, ct = a.type, bv.type, op.result.type
    M, K = at.shape[0], at.shape[1]
    N = bt.shape[1]
    nb = 1
    for s in at.shape[2:]:
        nb *= s
    a_bytes, b_bytes = smem_elem_bytes(at.element), smem_elem_bytes(bt.element)
    base = lw.scratch_base(op, dot_scratch(op))
    a_base, b_base = base, base + fma_dot_b_offset(at)
    pitch = fma_dot_a_pitch(at)  # a transposed (2-D), else row-major
    _stage(lw, lw.get(a), at, a_base, pitch)
    _stage(lw, lw.get(bv), bt, b_base)
    lw.barrier()

    b = lw.b
    acc_el: ScalarType = ct.element
    acc_ty = llvm_type(acc_el)
    cdist = lw.dist(ct)
    coords = coords_ir(lw, cdist)
    batch_strides = []
    s = 1
    for size in reversed(ct.shape[2:]):
        batch_strides.append(s)
        s *= size
    batch_strides.reverse()

    def batch_lin(c):
        lin = const(I32, 0)
        for x, st in zip(c[2:], batch_strides):
            lin = b.add(lin, b.mul(x, const(I32, st)))
        return lin

    # Vector reads: a thread's rows (columns) in runs of consecutive ones (2-D, blocked, no wrap).
    a_runs = _runs(cdist, 0, max(1, 16 // a_bytes), pitch) if pitch is not None else None
    b_runs = _runs(cdist, 1, max(1, 16 // b_bytes), N) if a_runs is not None else None
    vector = a_runs is not None and b_runs is not None

    # Per distinct row / column: the byte address at k = 0 (computed before the loop).
    a_rows: dict = {}
    b_cols: dict = {}
    reg_rows, reg_cols = [], []
    if vector:  # the thread's first row / column; the registers' offsets from them
        a_first = lw.scratch_address(a_base, b.mul(coords[0][0], const(I32, a_bytes)))
        b_first = lw.scratch_address(b_base, b.mul(coords[0][1], const(I32, b_bytes)))
        reg_rows = [o[0] for o in cdist.offsets]
        reg_cols = [o[1] for o in cdist.offsets]
    else:
        for c in coords:
            ka = (id(c[0]),) + tuple(id(x) for x in c[2:])
            kb = (id(c[1]),) + tuple(id(x) for x in c[2:])
            if ka not in a_rows:
                idx = c[0] if pitch is not None else b.add(b.mul(c[0], const(I32, K * nb)), batch_lin(c))
                a_rows[ka] = lw.scratch_address(a_base, b.mul(idx, const(I32, a_bytes)))
            if kb not in b_cols:
                idx = b.add(b.mul(c[1], const(I32, nb)), batch_lin(c))
                b_cols[kb] = b.add(b.mul(idx, const(I32, b_bytes)), const(I32, b_base))
            reg_rows.append(ka)
            reg_cols.append(kb)

    init = lw.get(acc)
    pre = b.block
    loop = b.append_basic_block("dot.loop")
    done = b.append_basic_block("dot.done")
    b.branch(loop)
    b.position_at_end(loop)
    k = b.phi(I32)
    k.add_incoming(const(I32, 0), pre)
    phis = []
    for v in init:
        phi = b.phi(acc_ty)
        phi.add_incoming(v, pre)
        phis.append(phi)
    a_step = b.mul(k, const(I32, (pitch if pitch is not None else nb) * a_bytes))
    b_step = b.mul(k, const(I32, N * nb * b_bytes))
    if vector:
        a_vals = _vector_reads(lw, at.element, a_first, a_step, *a_runs, acc_el, acc_ty)
        b_vals = _vector_reads(lw, bt.element, b_first, b_step, *b_runs, acc_el, acc_ty)
    else:
        a_vals = {key: _to_acc(b, lw.smem_load(at.element, b.add(addr, a_step)), at.element, acc_el, acc_ty)
                  for key, addr in a_rows.items()}
        b_vals = {key: _to_acc(b, lw.smem_load(bt.element, b.add(addr, b_step)), bt.element, acc_el, acc_ty)
                  for key, addr in b_cols.items()}
    new = []
    for phi, ka, kb in zip(phis, reg_rows, reg_cols):
        x, y = a_vals[ka], b_vals[kb]
        if acc_el.is_float:
            new.append(intrinsic_call(lw, "fma", [x, y, phi]))
        else:
            new.append(b.add(b.mul(x, y), phi))
    k_next = b.add(k, const(I32, 1))
    latch = b.block
    k.add_incoming(k_next, latch)
    for phi, v in zip(phis, new):
        phi.add_incoming(v, latch)
    b.cbranch(b.icmp_unsigned("<", k_next, const(I32, K)), loop, done)
    b.position_at_end(done)
    lw.set(op.result, new)
