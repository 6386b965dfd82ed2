"""Explicit shared-memory buffers: ``ttg.local_alloc``, ``ttg.local_load``, ``ttg.local_store``,
``ttg.memdesc_subview``, ``ttg.memdesc_trans``, ``ttg.async_copy_global_to_local``,
``ttg.async_commit_group``, ``ttg.async_wait`` (semantics: ``ir/ttg_ops.py``).

A buffer value lowers to a :class:`SharedBuffer`: the i32 byte offset of its element 0 in the
kernel's dynamic shared memory and its ``!ttg.memdesc`` type. An allocation's offset is the
``smem_offset`` attribute ``allocate-shared`` wrote on it; a slot of a multi-buffer adds
``index * slot bytes``; a transposed view only permutes the type (the address of a
coordinate is the same function of the memory, see :func:`~.smem_access.shared_offset`).

Addresses. The element offset of a coordinate is Triton's XOR swizzle
(:func:`~.smem_access.shared_offset`). For a register at thread base ``b`` plus a constant
offset ``c``, ``c`` is split into a part that the swizzle does not see (whole swizzle
periods: ``per_phase * max_phase`` rows, ``vec * 2^ceil(log2 max_phase)`` columns), added as a
constant, and a small remainder; the swizzled offset of ``b + remainder`` is computed once in
the kernel's entry block. So the address of a register in the loop is one add to a
loop-invariant value, folded into the instruction's immediate where the base is constant.

Accesses are vectorised: registers of one thread holding consecutive elements along the
buffer's contiguous dimension, starting at a multiple of the vector width, are one
``ld.shared``/``st.shared`` of up to 16 bytes (found by evaluating the layout for every
thread at compile time, :func:`vector_groups`). Replicated registers write from their
canonical copy only.

Dot operands (``ttg.local_load`` into a :class:`~tritonc.ir.layouts.DotOperandLayout`) are
read with ``ldmatrix`` (PTX ISA 9.7.14.5.15) when the buffer allows it
(:func:`ldmatrix_mode`): ``.x4`` gives one A fragment (``a0..a3``) or the B fragments of two
``n8`` tiles; ``.trans`` when the buffer is contiguous along M (A) or N (B) (16-bit elements
only); lane ``l`` points at row ``l % 8`` of matrix ``l // 8``. A ``local_load`` whose only
user is the next ``tt.dot`` (nothing that writes shared memory or synchronises in between) is
*deferred*: ``dot_mma.py`` issues its ``ldmatrix`` one K step at a time, next to the ``mma``
instructions that consume it, which keeps only one step of fragments live. Only the other
operand's load (and buffer views) may sit between the two; a load placed earlier on purpose
(the pipeliner's K-slice prefetch) is issued where it stands.

``ttg.async_copy_global_to_local``: each group of ``vec`` contiguous elements (the op's
``vec`` attribute, what axis info proved contiguous and aligned in global memory; at most 16
bytes) is one ``cp.async`` with a source size: ``cp.async.cg.shared.global [dst], [src], 16,
n`` for 16 bytes (L2 only), ``cp.async.ca`` for 4 and 8; ``n`` is the bytes to read, the rest
is zero-filled: the full size, or 0 where masked off (``mask_kind = "uniform"``), or the
number of leading true mask elements times the element size (``"prefix"``), or the first
element's limit clamped to ``[0, vec]`` times the element size (``"limit"``: an i32 mask). A
masked-off copy reads no global memory. In a loop, the source address of each copy is formed
right at it from the scalar base and the i32 offsets (``memory.access_addresses``: one
``mad.wide.s32`` per offset), so no 64-bit pointer per copy lives across trips.

Barriers: none here. ``insert-barriers`` orders the accesses of different threads from the
effects the ops declare (``OpDef.shared_effects``, ``ir/ttg_ops.py``); the software pipeliner places its own barrier
after each ``ttg.async_wait``.
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation
from tritonc.ir.distribution import mma_parent, mma_reps
from tritonc.ir.layouts import DotOperandLayout, SharedLayout
from tritonc.ir.ttg_ops import subview_layout
from tritonc.ir.types import MemDescType, TileType

from .layout_math import canonical_ir, mma_warp_ids_ir
from .lowering import I32, KernelLowering, const, llvm_type, lowers
from .memory import access_addresses
from .smem_access import (DeferredLoad, OffsetBuilder, SharedBuffer, byte_address,
                          elem_bytes, load_tile, register_offsets, store_tile, vector_groups)


# -- ldmatrix ------------------------------------------------------------------------------

def ldmatrix_mode(buf_type: MemDescType, layout) -> str | None:
    """``"plain"`` / ``"trans"`` when ``ldmatrix`` can read dot operand ``layout`` from a buffer
    of ``buf_type``, else ``None``."""
    if not isinstance(layout, DotOperandLayout) or not isinstance(buf_type.layout, SharedLayout):
        return None
    if buf_type.rank != 2:
        return None
    sl = buf_type.layout
    eb = elem_bytes(buf_type)
    if eb * layout.k_width != 4:
        return None
    if sl.vec * eb % 16 and sl.max_phase > 1:
        return None  # a 16-byte row of a matrix could be split by the swizzle
    wm, wn = mma_parent(layout).warps_per_cta
    if (layout.op_idx == 0 and buf_type.shape[0] < 16 * wm) or (layout.op_idx == 1 and buf_type.shape[1] < 8 * wn):
        return None  # warps would wrap around the tile
    k_dim = 1 if layout.op_idx == 0 else 0
    contig = sl.order[0]
    if buf_type.full_shape[contig] * eb % 16:
        return None
    if contig == k_dim:
        return "plain"
    return "trans" if eb == 2 else None


def _lane_row_ids(lw: KernelLowering) -> tuple:
    """``(i, r) = (lane // 8, lane % 8)`` for ldmatrix row addresses (entry block)."""
    if lw.entry_values.ldmatrix_lane is None:
        lane = lw.lane()
        lw.entry_values.ldmatrix_lane = (lw.eb.lshr(lane, const(I32, 3)), lw.eb.and_(lane, const(I32, 7)))
    return lw.entry_values.ldmatrix_lane


class FragmentLoader:
    """``ldmatrix`` of the fragments of one dot operand: :meth:`words` gives the 32-bit words
    of repetition ``rep`` (``rm`` for A, ``rn`` for B) and K step ``kk``: ``a0..a3`` (A) or
    ``b0, b1`` (B), as i32 values."""

    def __init__(self, lw: KernelLowering, buf: SharedBuffer, layout: DotOperandLayout, shape):
        self.lw, self.buf, self.layout, self.shape = lw, buf, layout, tuple(shape)
        self.mode = ldmatrix_mode(buf.type, layout)
        if self.mode is None:
            raise InternalCompilerError(f"ldmatrix cannot read {layout} from {buf.type}")
        self.mma = mma_parent(layout)
        self.reps, self.kks, self.kw = mma_reps(layout, shape)
        self.eb = elem_bytes(buf.type)
        self.cache: dict = {}
        self.ob = OffsetBuilder(lw, buf.type.layout, buf.type.full_shape)

    def _lane_offset(self, origins: list[tuple[int, int]], lane_base: tuple):
        """Element offset of this lane's row: matrix ``lane // 8`` at ``origins[i]`` (constant
        parts) plus ``lane_base`` (symbolic per-dimension parts), row ``lane % 8`` along the
        buffer's non-contiguous dimension."""
        lw = self.lw
        eb_ = lw.eb
        i, r = _lane_row_ids(lw)
        contig = self.buf.type.layout.order[0]
        row_dim = 1 - contig
        # origins differ between the 4 matrices in bit 0 / bit 1 of i: express as
        # origin(i) = o0 + (i & 1) * d1 + (i >> 1) * d2 (affine in the two bits).
        o0 = origins[0]
        d1 = tuple(a - b for a, b in zip(origins[1], o0))
        d2 = tuple(a - b for a, b in zip(origins[2], o0))
        assert tuple(o0[k] + d1[k] + d2[k] for k in range(2)) == tuple(origins[3])
        key = (d1, d2, row_dim, tuple(id(x) for x in lane_base))
        rows = lw.entry_values.ldmatrix_rows
        if key not in rows:
            bit0 = eb_.and_(i, const(I32, 1))
            bit1 = eb_.lshr(i, const(I32, 1))
            sym = []
            for k in range(2):
                v = lane_base[k]
                if d1[k]:
                    v = eb_.add(v, eb_.mul(bit0, const(I32, d1[k])))
                if d2[k]:
                    v = eb_.add(v, eb_.mul(bit1, const(I32, d2[k])))
                if k == row_dim:
                    v = eb_.add(v, r)
                sym.append(v)
            rows[key] = sym
        sym = rows[key]
        return self.ob.offset(sym, [o + s_ for o, s_ in zip(o0, self.buf.start)])

    def _warp_bases(self) -> tuple:
        wm, wn = mma_warp_ids_ir(self.lw, self.mma)
        return wm, wn

    def _ldmatrix(self, offset, count: int) -> list:
        lw = self.lw
        trans = ".trans" if self.mode == "trans" else ""
        name = f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{count}{trans}.b16"
        ret = ir.LiteralStructType([I32] * count)
        ptr = byte_address(lw, self.buf, offset, self.eb)
        res = lw.call(name, ret, [ptr])
        return [lw.b.extract_value(res, j) for j in range(count)]

    def words(self, rep: int, kk: int) -> list:
        key = (rep, kk)
        if key in self.cache:
            return self.cache[key]
        lw = self.lw
        kw = self.kw
        wm_n, wn_n = self.mma.warps_per_cta
        wm, wn = self._warp_bases()
        k0 = 8 * kw * kk
        kq = 4 * kw
        if self.layout.op_idx == 0:
            m0 = 16 * wm_n * rep
            base = self._sym_base(("A", wm), lambda: lw.eb.mul(wm, const(I32, 16)), 0)
            origins = [(m0, k0), (m0 + 8, k0), (m0, k0 + kq), (m0 + 8, k0 + kq)]
            words = self._ldmatrix(self._lane_offset(origins, base), 4)
            self.cache[key] = words
            return words
        # B: one x4 covers reps rep and rep + 1 (when there is one), else x2
        n_of = [8 * wn_n * q for q in (rep, rep + 1)]
        base = self._sym_base(("B", wn), lambda: lw.eb.mul(wn, const(I32, 8)), 1)
        if rep + 1 < self.reps:
            origins = [(k0, n_of[0]), (k0 + kq, n_of[0]), (k0, n_of[1]), (k0 + kq, n_of[1])]
            words = self._ldmatrix(self._lane_offset(origins, base), 4)
            self.cache[key] = words[:2]
            self.cache[(rep + 1, kk)] = words[2:]
            return words[:2]
        origins = [(k0, n_of[0]), (k0 + kq, n_of[0]), (k0, n_of[0]), (k0 + kq, n_of[0])]
        words = self._ldmatrix(self._lane_offset(origins, base), 2)
        self.cache[key] = words
        return words

    def _sym_base(self, key, make, dim: int) -> tuple:
        """Per-dimension symbolic base: the warp's row (A) / column (B) start; 0 along K."""
        cache_key = (key[0], self.mma.warps_per_cta)
        bases = self.lw.entry_values.ldmatrix_base
        if cache_key not in bases:
            v = make()
            bases[cache_key] = (v, const(I32, 0)) if dim == 0 else (const(I32, 0), v)
        return bases[cache_key]


def unpack_words(lw: KernelLowering, words: list, element, kw: int) -> list:
    """Split i32 words into ``kw`` elements each (little-endian: element 0 in the low bits)."""
    b = lw.b
    ety = llvm_type(element)
    out = []
    for w in words:
        if kw == 1:
            out.append(b.bitcast(w, ety))
            continue
        vec = b.bitcast(w, ir.VectorType(ety, kw))
        out.extend(b.extract_element(vec, const(I32, e)) for e in range(kw))
    return out


def ldmatrix_tile(lw: KernelLowering, buf: SharedBuffer, tile: TileType) -> list:
    """All registers of a dot-operand tile, read with ``ldmatrix``."""
    fl = FragmentLoader(lw, buf, tile.layout, tile.shape)
    regs = []
    for rep in range(fl.reps):
        for kk in range(fl.kks):
            regs.extend(unpack_words(lw, fl.words(rep, kk), tile.element, fl.kw))
    return regs


# -- handlers ------------------------------------------------------------------------------

def buffer_of(lw: KernelLowering, v) -> SharedBuffer:
    buf = lw.get(v)
    if not isinstance(buf, SharedBuffer):
        raise InternalCompilerError(f"lowering: {v!r} is not a shared-memory buffer")
    return buf


@lowers("ttg.local_alloc")
def _local_alloc(lw: KernelLowering, op: Operation) -> None:
    offset = op.attrs.get("smem_offset")
    if offset is None:
        raise InternalCompilerError("lowering: ttg.local_alloc has no smem_offset (run allocate-shared first)")
    t = op.result.type
    if not isinstance(t.layout, SharedLayout):
        raise InternalCompilerError(f"lowering: buffer {t} has no shared layout")
    buf = SharedBuffer(const(I32, int(offset)), t)
    lw.values[op.result] = buf
    if op.operands:
        src = op.operands[0]
        store_tile(lw, buf, lw.get(src), src.type)


@lowers("ttg.local_store")
def _local_store(lw: KernelLowering, op: Operation) -> None:
    value, dst = op.operands
    store_tile(lw, buffer_of(lw, dst), lw.get(value), value.type)


@lowers("ttg.memdesc_subview")
def _subview(lw: KernelLowering, op: Operation) -> None:
    src = buffer_of(lw, op.operands[0])
    index = lw.get(op.operands[1])
    t = op.result.type
    slot_bytes = t.numel * elem_bytes(t)
    if isinstance(index, ir.Constant):
        base = lw.b.add(src.base, const(I32, int(index.constant) * slot_bytes))
    else:
        base = lw.b.add(src.base, lw.b.mul(index, const(I32, slot_bytes)))
    lw.values[op.result] = SharedBuffer(base, t)


@lowers("ttg.memdesc_trans")
def _memdesc_trans(lw: KernelLowering, op: Operation) -> None:
    src = buffer_of(lw, op.operands[0])
    origin = tuple(src.start[o] for o in op.attrs["order"]) if src.origin else ()
    lw.values[op.result] = SharedBuffer(src.base, op.result.type, origin)


@lowers("ttg.memdesc_subslice")
def _memdesc_subslice(lw: KernelLowering, op: Operation) -> None:
    src = buffer_of(lw, op.operands[0])
    origin = tuple(a + o for a, o in zip(src.start, op.attrs["offsets"]))
    lw.values[op.result] = SharedBuffer(src.base, op.result.type, origin)


def deferred_by_dot(op) -> bool:
    """Whether ``local_load`` ``op`` is read by the dot that uses it (see the module docstring)."""
    res = op.result
    if not isinstance(res.type.layout, DotOperandLayout) or len(res.uses) != 1:
        return False
    user, index = res.uses[0]
    if user.name != "tt.dot" or index > 1 or user.parent is not op.parent:
        return False
    if res.type.layout.parent.version == 2 and ldmatrix_mode(op.operands[0].type, res.type.layout) is None:
        return False
    block = op.parent.ops
    for mid in block[block.index(op) + 1:block.index(user)]:
        if mid.name not in ("ttg.local_load", "ttg.memdesc_subview", "ttg.memdesc_trans", "ttg.memdesc_subslice"):
            return False  # only the other operand's load may sit in between
    return True


@lowers("ttg.local_load")
def _local_load(lw: KernelLowering, op: Operation) -> None:
    buf = buffer_of(lw, op.operands[0])
    t = op.result.type
    if deferred_by_dot(op):
        lw.values[op.result] = DeferredLoad(buf, t)
        return
    if ldmatrix_mode(buf.type, t.layout) is not None:
        lw.set(op.result, ldmatrix_tile(lw, buf, t))
        return
    lw.set(op.result, load_tile(lw, buf, t))


# -- cp.async ------------------------------------------------------------------------------

@lowers("ttg.async_copy_global_to_local")
def _async_copy(lw: KernelLowering, op: Operation) -> None:
    ptr, dst = op.operands[0], op.operands[1]
    mask = op.operands[2] if len(op.operands) > 2 else None
    buf = buffer_of(lw, dst)
    eb = elem_bytes(buf.type)
    dist = lw.dist(ptr)
    vmax = min(int(op.attrs.get("vec", 1)), 16 // eb)
    v, groups = vector_groups(dist, buf.type.layout.order[0], vmax)
    if v * eb < 4:
        raise InternalCompilerError(f"cp.async of {v * eb} bytes (at least 4 are needed) for {ptr.type}")
    offsets = register_offsets(lw, dist, buf, [g[0] for g in groups])
    canon = canonical_ir(lw, dist)
    # in a loop: each source address formed at its cp.async (``memory.access_addresses``)
    ptrs = access_addresses(lw, op, ptr, dist.num_regs, [g[0] for g in groups])
    masks = lw.get(mask) if mask is not None else None
    kind = op.attrs.get("mask_kind", "uniform")
    nbytes = v * eb
    name = (f"llvm.nvvm.cp.async.cg.shared.global.16.s" if nbytes == 16
            else f"llvm.nvvm.cp.async.ca.shared.global.{nbytes}.s")
    b = lw.b
    for g, off in zip(groups, offsets):
        if masks is None:
            size = const(I32, nbytes)
        elif kind == "limit":
            lim = lw.call("llvm.smax.i32", I32, [lw.call("llvm.smin.i32", I32, [masks[g[0]], const(I32, v)]),
                                                 const(I32, 0)])
            size = b.mul(lim, const(I32, eb)) if eb > 1 else lim
        elif kind == "prefix":
            size = None
            for r in g:
                bit = b.zext(masks[r], I32)
                size = bit if size is None else b.add(size, bit)
            size = b.mul(size, const(I32, eb)) if eb > 1 else size
        else:
            size = b.select(masks[g[0]], const(I32, nbytes), const(I32, 0))
        dptr = byte_address(lw, buf, off, eb)
        src = ptrs[g[0]]
        with lw.if_then(canon[g[0]]):
            lw.call(name, ir.VoidType(), [dptr, src, size])


@lowers("ttg.async_commit_group")
def _commit(lw: KernelLowering, op: Operation) -> None:
    lw.call("llvm.nvvm.cp.async.commit.group", ir.VoidType(), [])


@lowers("ttg.async_wait")
def _wait(lw: KernelLowering, op: Operation) -> None:
    lw.call("llvm.nvvm.cp.async.wait.group", ir.VoidType(), [const(I32, int(op.attrs["num"]))])


__all__ = ["SharedBuffer", "DeferredLoad", "FragmentLoader", "ldmatrix_mode", "store_tile", "load_tile",
           "subview_layout"]
