"""``tt.dot`` on Hopper tensor cores: ``wgmma.mma_async`` (PTX ISA 9.7.15; sm_90a).

Applies when the accumulator has an mma version 3 layout (set by ``accelerate-matmul`` for
``--arch sm_90a``; ``dot.py`` chooses); other dots go to ``dot_mma.py`` / ``dot_fma.py``. ``B`` is a
deferred ``ttg.local_load`` (see ``shared_ops.py``) of a buffer in a
:func:`~tritonc.transforms.accelerate_matmul.wgmma_layout`, read by the tensor cores from
shared memory through a 64-bit *matrix descriptor*; so is ``A``, or ``A`` is a tile in
``DotOperandLayout(0, mma, 2)`` registers (a chained dot: flash attention's ``p @ v`` with ``p``
computed from the first dot's accumulator), passed as four 32-bit words per instruction in the
register form of the instruction (PTX ISA 9.7.15.5.2; the fragment of A, 9.7.15.5.1, is the
mma.sync ``m16n8k16`` A fragment of each warp's 16 rows).

Warp group ``g`` (warps ``4g .. 4g+3``; the layout has ``warps = [W, 1]``) owns accumulator
rows ``64 g + 16 W i .. + 64`` for each row repetition ``i``; one instruction
``wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`` per row repetition, per ``N``-column
chunk (``N = instr_shape[1]``, at most 256) and per K step of 16, accumulating into the
chunk's ``N / 2`` f32 registers, which are the mma layout's registers of those tiles in order
(``dot_mma``'s four per ``16 x 8`` tile). The sequence is (PTX ISA 9.7.15.6):

    wgmma.fence.sync.aligned                 (the accumulators were written by ordinary code)
    wgmma.mma_async ... x (K / 16) * reps * chunks
    wgmma.commit_group.sync.aligned
    wgmma.wait_group.sync.aligned 0          (inline asm that also "produces" the accumulators,
                                              so nothing reads them before the wait)

A dot with the ``pending`` attribute (the software pipeliner's, see ``-fwgmma-in-flight``)
stops after the commit: its result is read through a ``ttg.wgmma_wait`` (the same inline asm,
``wait_group num``), so the group runs on while the loop issues its copies.

Descriptor (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format"): bits 0-13 the start address >> 4,
16-29 the leading-dimension byte offset (LBO) >> 4, 32-45 the stride-dimension byte offset
(SBO) >> 4, 62-63 the swizzle mode (1 = 128-byte, 2 = 64-byte, 3 = 32-byte). With a swizzle
of ``s`` bytes (the layout's row width):

* K-major operand (contiguous along K; A row-major, B column-major): SBO = ``8 s`` (the
  next 8 rows), LBO unused (1); the K step ``kk`` starts ``32 kk`` bytes into the row (inside
  one swizzle row; the hardware applies the XOR to the address), or in the next block;
* MN-major operand (contiguous along M / N; the instruction's transpose bit): SBO = ``8 s``
  (the next 8 K rows), LBO = ``rows * s``, the distance between two ``s``-byte blocks
  along M / N (``SharedLayout.block``).

Start addresses sit on a row that is a multiple of 8, where the swizzle is the identity, so
they are :func:`~.smem_access.shared_offset` of the instruction's first element; the buffer is
1024-byte aligned (``ir/effects.WGMMA_ALIGNMENT``). Shared memory written by ordinary stores
or ``cp.async`` is made visible to wgmma by the ``fence.proxy.async`` that precedes every
barrier of such a kernel (``KernelLowering.barrier``).
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation
from tritonc.ir.distribution import mma_reps
from tritonc.ir.layouts import DotOperandLayout, MmaLayout

from .lowering import F32, I32, I64, KernelLowering, const, lowers
from .smem_access import DeferredLoad, elem_bytes, row_width, shared_offset

#: Swizzle width in bytes -> the descriptor's mode bits (PTX ISA 9.7.15.5.1).
SWIZZLE_MODES = {128: 1, 64: 2, 32: 3}


class _Descriptors:
    """Matrix descriptors of one operand buffer: ``desc(row, k)`` for the instruction whose
    first element is at (M or N coordinate ``mn``, K coordinate ``k``) of the view; ``mn`` may
    have a per-warp-group part (``group_rows`` per group, a multiple of 8 or of the block)."""

    def __init__(self, lw: KernelLowering, load: DeferredLoad, operand: int, group_rows: int, groups: int = 1):
        self.lw = lw
        buf = load.buf
        t = buf.type
        self.layout, self.full = t.layout, tuple(t.full_shape)
        self.start = buf.start
        self.eb = elem_bytes(t)
        self.k_dim = 1 if operand == 0 else 0
        self.mn_dim = 1 - self.k_dim
        layout = self.layout
        if t.rank != 2 or layout is None:
            raise InternalCompilerError(f"wgmma operand buffer {t}")
        width = row_width(layout, self.full)
        swizzle = width * self.eb
        if swizzle not in SWIZZLE_MODES or layout.vec * self.eb != 16 or \
                layout.max_phase != swizzle // 16 or layout.per_phase * swizzle != 128:
            raise InternalCompilerError(f"wgmma cannot read a buffer in {layout} of shape {list(self.full)}")
        self.transposed = layout.order[0] == self.mn_dim
        rows = self.full[layout.order[1]]
        lbo = rows * swizzle if self.transposed else 16
        sbo = 8 * swizzle
        self.high = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (SWIZZLE_MODES[swizzle] << 62)
        # Per warp group: the element offset of its first row (linear in the group index).
        self.group_rows = group_rows
        self.group_step = self._offset(group_rows, 0) - self._offset(0, 0)
        if any(self._offset(g * group_rows, 0) - self._offset(0, 0) != g * self.group_step for g in range(groups)):
            raise InternalCompilerError(f"wgmma: warp-group rows are not evenly spaced in {layout}")
        b = lw.b
        addr = b.ptrtoint(lw.smem_ptr(buf.base), I32)
        if group_rows:
            group = b.lshr(lw.warp(), const(I32, 2))
            addr = b.add(addr, b.mul(group, const(I32, self.group_step * self.eb)))
        addr = b.and_(addr, const(I32, 0x3FFFF))
        self.base = b.or_(b.zext(b.lshr(addr, const(I32, 4)), I64), const(I64, self.high))

    def _offset(self, mn: int, k: int) -> int:
        coords = [0, 0]
        coords[self.mn_dim], coords[self.k_dim] = mn, k
        coords = [c + s for c, s in zip(coords, self.start)]
        return int(shared_offset(self.layout, self.full, coords))

    def desc(self, mn: int, k: int) -> ir.Value:
        byte = (self._offset(mn, k) - self._offset(0, 0)) * self.eb
        if byte % 16:
            raise InternalCompilerError(f"wgmma descriptor start {byte} is not 16-byte aligned")
        return self.lw.b.add(self.base, const(I64, byte >> 4)) if byte else self.base


def _wgmma_asm(lw: KernelLowering, n: int, element: str, trans_a: bool, trans_b: bool) -> ir.InlineAsm:
    k = n // 2  # operands: k outputs, k tied inputs, descriptor A, descriptor B, scale-d
    regs = ", ".join(f"${i}" for i in range(k))
    text = ("{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {%s}, $%d, $%d, p, 1, 1, %d, %d;\n}"
            % (2 * k + 2, n, element, element, regs, 2 * k, 2 * k + 1, int(trans_a), int(trans_b)))
    constraints = ",".join(["=f"] * k + [str(i) for i in range(k)] + ["l", "l", "r"])
    fty = ir.FunctionType(lw.struct_type(F32, k), [F32] * k + [I64, I64, I32])
    return ir.InlineAsm(fty, text, constraints, side_effect=True)


def _wgmma_asm_reg_a(lw: KernelLowering, n: int, element: str, trans_b: bool) -> ir.InlineAsm:
    """The register-A form (PTX ISA 9.7.15.5.2): ``wgmma.mma_async ... d, {a0, a1, a2, a3},
    b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b`` (no transpose bit for A)."""
    k = n // 2  # operands: k outputs, k tied inputs, 4 A words, descriptor B, scale-d
    regs = ", ".join(f"${i}" for i in range(k))
    a = ", ".join(f"${2 * k + i}" for i in range(4))
    text = ("{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {%s}, {%s}, $%d, p, 1, 1, %d;\n}"
            % (2 * k + 5, n, element, element, regs, a, 2 * k + 4, int(trans_b)))
    constraints = ",".join(["=f"] * k + [str(i) for i in range(k)] + ["r"] * 4 + ["l", "r"])
    fty = ir.FunctionType(lw.struct_type(F32, k), [F32] * k + [I32] * 4 + [I64, I32])
    return ir.InlineAsm(fty, text, constraints, side_effect=True)


def _a_words(lw: KernelLowering, a, regs: list, rm: int, kk: int, kks: int) -> list:
    """The four 32-bit A words of row repetition ``rm`` and K step ``kk`` from a
    ``DotOperandLayout(0, mma v3, 2)`` tile's registers (``ir/distribution``: per ``(rm, kk)``
    the words ``(g, 2t)``, ``(g + 8, 2t)``, ``(g, 2t + 8)``, ``(g + 8, 2t + 8)``, two elements each:
    the register fragment of A, PTX ISA 9.7.15.5.1)."""
    b = lw.b
    ety = regs[0].type
    start = (rm * kks + kk) * 8
    words = []
    for w in range(4):
        vec = ir.Constant(ir.VectorType(ety, 2), None)
        for e in range(2):
            vec = b.insert_element(vec, regs[start + 2 * w + e], const(I32, e))
        words.append(b.bitcast(vec, I32))
    return words


def _wait_asm(lw: KernelLowering, count: int, num: int) -> ir.InlineAsm:
    constraints = ",".join(["=f"] * count + [str(i) for i in range(count)])
    fty = ir.FunctionType(lw.struct_type(F32, count), [F32] * count)
    return ir.InlineAsm(fty, f"wgmma.wait_group.sync.aligned {num};", constraints, side_effect=True)


def lower_wgmma_dot(lw: KernelLowering, op: Operation) -> None:
    """Lower ``d = tt.dot(a, b, c)`` in an mma v3 layout (see the module docstring): ``a``
    ``[M, K]`` (deferred from shared memory, or in ``DotOperandLayout(0, mma, 2)`` registers)
    and ``b`` ``[K, N]`` (deferred from shared memory) f16/bf16 tiles, ``c`` and ``d``
    f32 ``[M, N]``; ``(M / (16 W)) * (N / n) * (K / 16)`` wgmma instructions per warp group.

    Raises:
        InternalCompilerError: operands not deferred shared-memory loads, warps not stacked
            along M in groups of 4, tiles that do not cover the dot, or a buffer layout wgmma
            cannot describe.
    """
    a, b_, acc = op.operands
    ct = op.result.type
    mma: MmaLayout = ct.layout
    if ct.element.name != "f32" or a.type.element.name not in ("f16", "bf16"):
        raise InternalCompilerError(f"wgmma dot of {a.type.element} accumulating in {ct.element}")
    A, B = lw.get(a), lw.get(b_)
    reg_a = not isinstance(A, DeferredLoad)
    if reg_a:
        lay = a.type.layout
        if not (isinstance(lay, DotOperandLayout) and lay.op_idx == 0 and lay.k_width == 2 and
                isinstance(lay.parent, MmaLayout) and lay.parent.version == 3 and
                lay.parent.warps_per_cta == mma.warps_per_cta):
            raise InternalCompilerError(f"wgmma A operand in registers in {lay}")
    if not isinstance(B, DeferredLoad):
        raise InternalCompilerError("wgmma dot operands must be read from shared memory by the dot")
    W = mma.warps_per_cta[0]
    if W % 4 or mma.warps_per_cta[1] != 1:
        raise InternalCompilerError(f"wgmma needs warp groups stacked along M, got {mma}")
    n = mma.instr_shape[1]
    M, N = ct.shape
    K = a.type.shape[1]
    rm_n, rn_n, _ = mma_reps(mma, ct.shape)
    chunks = N // n
    if rm_n * 16 * W != M or chunks * n != N or K % 16:
        raise InternalCompilerError(f"wgmma tiles do not cover the {M}x{N}x{K} dot in {mma}")
    da = None if reg_a else _Descriptors(lw, A, 0, 64 if W > 4 else 0, W // 4)
    db = _Descriptors(lw, B, 1, 0)
    regs = list(lw.get(acc))
    per = n // 2  # accumulator registers of one instruction
    if reg_a:
        asm = _wgmma_asm_reg_a(lw, n, a.type.element.name, db.transposed)
    else:
        asm = _wgmma_asm(lw, n, a.type.element.name, da.transposed, db.transposed)
    bld = lw.b
    # Register A: every word is formed (the f16 / bf16 conversions of p) before the fence; a
    # conversion between two wgmma makes ptxas insert a warpgroup.arrive and serialise them
    # (ptxas info C7519), each instruction then waiting for the one before.
    words = {(rm, kk): _a_words(lw, a, A, rm, kk, K // 16) for kk in range(K // 16) for rm in range(rm_n)} \
        if reg_a else {}
    lw.call("llvm.nvvm.wgmma.fence.sync.aligned", ir.VoidType(), [])
    one = const(I32, 1)
    for kk in range(K // 16):
        for rm in range(rm_n):
            if reg_a:
                a_ops = words[rm, kk]
            else:
                a_ops = [da.desc(16 * W * rm, 16 * kk)]
            for c in range(chunks):
                desc_b = db.desc(n * c, 16 * kk)
                start = (rm * rn_n + c * (n // 8)) * 4
                res = bld.call(asm, regs[start:start + per] + a_ops + [desc_b, one])
                for j in range(per):
                    regs[start + j] = bld.extract_value(res, j)
    lw.call("llvm.nvvm.wgmma.commit_group.sync.aligned", ir.VoidType(), [])
    if op.attrs.get("pending"):
        lw.set(op.result, regs)  # left running: read only through a ttg.wgmma_wait
    else:
        lw.set(op.result, wait_for(lw, regs, 0))


def wait_for(lw: KernelLowering, regs: list, num: int) -> list:
    """``wgmma.wait_group num`` passing ``regs`` (f32 accumulators) through, so that no read
    of them is scheduled before the wait."""
    bld = lw.b
    res = bld.call(_wait_asm(lw, len(regs), num), regs)
    return [bld.extract_value(res, j) for j in range(len(regs))]


@lowers("ttg.wgmma_wait")
def _wgmma_wait(lw: KernelLowering, op: Operation) -> None:
    lw.set(op.result, wait_for(lw, list(lw.get(op.operands[0])), int(op.attrs["num"])))
