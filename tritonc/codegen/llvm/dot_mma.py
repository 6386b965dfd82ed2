"""``tt.dot`` on tensor cores: ``mma.sync.aligned.m16n8kK`` (PTX ISA 9.7.14.5.14).

Applies when the accumulator has an :class:`~tritonc.ir.layouts.MmaLayout` (version 2) and
``a``/``b`` have the matching :class:`~tritonc.ir.layouts.DotOperandLayout` (set by
``accelerate-matmul``; ``dot.py`` chooses); any other ``tt.dot`` goes to ``dot_fma.py``. The instruction per
operand type (``kw`` elements per 32-bit register, K per instruction ``8 kw``):

=========  ==========================================  =====================================
operands   LLVM intrinsic                              PTX
=========  ==========================================  =====================================
f16        ``llvm.nvvm.mma.m16n8k16.row.col.f32.f32``  ``mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32``
           (``<2 x half>`` operands)
bf16       ``llvm.nvvm.mma.m16n8k16.row.col.bf16``     ``...m16n8k16.row.col.f32.bf16.bf16.f32``
           (i32 operands)
f32 (tf32) ``llvm.nvvm.mma.m16n8k8.row.col.tf32``      ``...m16n8k8.row.col.f32.tf32.tf32.f32``
           (operands rounded with ``cvt.rna.tf32.f32``)
i8         ``llvm.nvvm.mma.m16n8k32.row.col.s8``       ``...m16n8k32.row.col.s32.s8.s8.s32``
=========  ==========================================  =====================================

The accumulator registers are the ``mma`` layout's (four per ``16 x 8`` instruction tile,
``c0..c3``); the result is the accumulator after ``K / (8 kw)`` instructions per tile. Loop
order: per K step ``kk``, the A fragments of every row repetition and the B fragments of every
column repetition are formed first (``ldmatrix`` when the operand is a deferred
``ttg.local_load``, see ``shared_ops.py``; packed from registers otherwise), then one ``mma`` per
``(rm, rn)``, the columns in serpentine order so consecutive instructions share a fragment.
With ``-ffragment-prefetch`` (``CodegenOptions.fragment_prefetch``) the fragments of step
``kk + 1`` are loaded before the mma of step ``kk`` are issued (register double buffering of
the fragments inside one dot; off by default: measured 4 % slower on an H200 at 128x256x64,
benchmarks/RESULTS.md; the pipeliner's K-slice prefetch does this across dots).
An ``mma`` dot needs no shared memory of its own.
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation
from tritonc.ir.distribution import mma_reps
from tritonc.ir.layouts import DotOperandLayout

from .lowering import F16, F32, I32, KernelLowering, const, llvm_type
from .shared_ops import DeferredLoad, FragmentLoader

def _mma_kind(a_el, acc_el) -> tuple[str, ir.Type, list, ir.Type]:
    """(intrinsic, operand register type, packing info, accumulator type) for the element types."""
    name = a_el.name
    if name == "f16":
        return "llvm.nvvm.mma.m16n8k16.row.col.f32.f32", ir.VectorType(F16, 2), 2, F32
    if name == "bf16":
        return "llvm.nvvm.mma.m16n8k16.row.col.bf16", I32, 2, F32
    if name == "f32":
        return "llvm.nvvm.mma.m16n8k8.row.col.tf32", I32, 1, F32
    if name == "i8":
        return "llvm.nvvm.mma.m16n8k32.row.col.s8", I32, 4, I32
    raise InternalCompilerError(f"no mma instruction for {a_el} operands")


class _Operand:
    """The 32-bit fragment words of one dot operand, from ldmatrix or from registers."""

    def __init__(self, lw: KernelLowering, value, reg_ty: ir.Type, kw: int):
        self.lw, self.reg_ty, self.kw = lw, reg_ty, kw
        lowered = lw.get(value)
        t = value.type
        self.layout: DotOperandLayout = t.layout
        self.reps, self.kks, _ = mma_reps(t.layout, t.shape)
        self.words_per_step = 4 if t.layout.op_idx == 0 else 2
        self.element = t.element
        if isinstance(lowered, DeferredLoad):
            self.loader = FragmentLoader(lw, lowered.buf, t.layout, t.shape)
            self.regs = None
        else:
            self.loader = None
            self.regs = lowered

    def words(self, rep: int, kk: int) -> list:
        if self.loader is not None:
            return [self._from_i32(w) for w in self.loader.words(rep, kk)]
        n = self.words_per_step
        start = (rep * self.kks + kk) * n * self.kw
        return [self._pack(self.regs[start + w * self.kw:start + (w + 1) * self.kw]) for w in range(n)]

    def _from_i32(self, w: ir.Value) -> ir.Value:
        b = self.lw.b
        if self.element.name == "f32":
            return self._tf32(b.bitcast(w, F32))
        return w if self.reg_ty == I32 else b.bitcast(w, self.reg_ty)

    def _tf32(self, x: ir.Value) -> ir.Value:
        return self.lw.call("llvm.nvvm.f2tf32.rna", I32, [x])

    def _pack(self, elems: list) -> ir.Value:
        b = self.lw.b
        if self.element.name == "f32":
            return self._tf32(elems[0])
        ety = llvm_type(self.element)
        vec = ir.Constant(ir.VectorType(ety, self.kw), None)
        for e, x in enumerate(elems):
            vec = b.insert_element(vec, x, const(I32, e))
        return vec if self.reg_ty == vec.type else b.bitcast(vec, self.reg_ty)


def lower_mma_dot(lw: KernelLowering, op: Operation) -> None:
    a, b_, acc = op.operands
    at, ct = a.type, op.result.type
    if not (isinstance(at.layout, DotOperandLayout) and isinstance(b_.type.layout, DotOperandLayout)):
        raise InternalCompilerError(f"mma dot with operands in {at.layout} and {b_.type.layout}")
    if at.layout.parent != ct.layout or b_.type.layout.parent != ct.layout:
        raise InternalCompilerError("mma dot operands belong to another mma layout than the accumulator")
    name, reg_ty, kw, acc_ty = _mma_kind(at.element, ct.element)
    if at.layout.k_width != kw or b_.type.layout.k_width != kw:
        raise InternalCompilerError(f"k_width {at.layout.k_width} for {at.element} operands (expected {kw})")
    if llvm_type(ct.element) != acc_ty:
        raise InternalCompilerError(f"mma dot accumulating in {ct.element}")
    A = _Operand(lw, a, reg_ty, kw)
    B = _Operand(lw, b_, reg_ty, kw)
    rm_n, rn_n, _ = mma_reps(ct.layout, ct.shape)
    if A.reps != rm_n or B.reps != rn_n or A.kks != B.kks:
        raise InternalCompilerError(f"mma dot repetitions disagree: A {A.reps}x{A.kks}, B {B.reps}x{B.kks}, "
                                    f"C {rm_n}x{rn_n}")
    regs = list(lw.get(acc))
    ret = ir.LiteralStructType([acc_ty] * 4)
    fn = lw.intrinsic(name, ret, [reg_ty] * 6 + [acc_ty] * 4)
    bld = lw.b

    def fragments(kk):
        return [A.words(rm, kk) for rm in range(rm_n)], [B.words(rn, kk) for rn in range(rn_n)]

    nxt = fragments(0)
    for kk in range(A.kks):
        fa, fb = nxt
        if lw.options.fragment_prefetch and kk + 1 < A.kks:
            nxt = fragments(kk + 1)  # issued before this step's mma: its ldmatrix latency overlaps them
        elif kk + 1 < A.kks:
            nxt = None
        for rm in range(rm_n):
            cols = range(rn_n) if rm % 2 == 0 else range(rn_n - 1, -1, -1)
            for rn in cols:
                base = (rm * rn_n + rn) * 4
                res = bld.call(fn, fa[rm] + fb[rn] + regs[base:base + 4])
                for j in range(4):
                    regs[base + j] = bld.extract_value(res, j)
        if nxt is None:
            nxt = fragments(kk + 1)
    lw.set(op.result, regs)
