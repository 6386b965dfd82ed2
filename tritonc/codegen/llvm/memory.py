"""Global memory: pointer arithmetic, loads and stores (PTX ISA 9.7.9.8 ld, 9.7.9.10 st).

* ``tt.addptr(p, off)``: ``getelementptr <pointee>, ptr addrspace(1) p, i64 sext(off)``.
  ``tt.ptr_to_int``/``tt.int_to_ptr``: ``ptrtoint``/``inttoptr`` (i64).
* **Addresses formed at their use** (:func:`access_addresses`; ``-fno-wide-addresses`` turns it off): a
  global access (``tt.load``, ``tt.store``, ``ttg.async_copy_global_to_local``) whose pointer
  tile is ``tt.addptr(... tt.addptr(tt.splat(base), o_1) ..., o_k)`` with ``base`` an
  iteration argument of a loop around the access and integer offset tiles ``o_j`` of at most
  32 bits (what ``canonicalize-pointers`` leaves in a loop body: a loop-carried scalar base and
  loop-invariant i32 offsets) gets the address of each access from inline-asm ``mad.wide.s32``
  at the access, one per offset (E: the element bytes)::

      t = mad.wide.s32 o_1, E, base;   addr = mad.wide.s32 o_2, E, t;   ...

  that is ``base + sext(o_1) * E + ... + sext(o_k) * E`` mod 2^64, exactly what the chain of
  ``getelementptr`` computes (the order of the 64-bit wrapping additions does not matter; the
  offset with the fewest distinct registers goes first, so ``t`` is shared by the accesses of
  a row or column). Why asm: given the ``getelementptr`` chain, LLVM hoists the
  loop-invariant part ``sext(o_1) * E + sext(o_2) * E`` of every access out of the loop (or
  strength-reduces the whole address into a loop-carried pointer), so each thread carries one
  64-bit value (two registers) per access through the loop; the asm is opaque, so only the
  i32 offsets (one register each, shared by the accesses of one row or column) and the scalar
  base live across trips, and the address costs one ``mad.wide.s32`` per offset at the use.
  The asm is not ``sideeffect`` and carries no memory attributes; it cannot be hoisted since
  ``base`` changes every trip, and the lowering shares partial sums itself. Plain loads through such an
  address carry ``!invariant.load`` where the pointer is read-only
  (:func:`tritonc.analysis.pointer_origins.readonly_pointer_values`),
  since LLVM can no longer see the ``noalias readonly`` parameter behind it (that is what
  makes it select ``ld.global.nc``). Elsewhere (outside loops, or a base computed in the loop
  from its induction variable, which LLVM strength-reduces well) the ``getelementptr`` values
  are used: LLVM folds their constant parts into the instructions' immediates.
* **Vectorisation** (:func:`vector_width`): in a blocked layout a thread's registers come in
  runs of ``size_per_thread[order[0]]`` consecutive elements along the fastest dimension
  (``layout_math``: registers are numbered with ``order[0]`` fastest). A run is accessed
  ``vec`` elements per instruction, where ``vec`` is the largest power of two that divides
  that ``size_per_thread``, the pointer's contiguity along the dimension, its alignment
  (divisibility in bytes, over the element size) and, with a mask, the mask's constancy
  there (so one predicate serves the whole access), with ``vec * element bytes <= 16``; all
  from axis info (``analysis/axis_info.py``: parameter promises ``__aligned`` /
  ``__multipleof`` and the launcher's ``__spec16`` variants, ``transforms/specialize.py``).
  The ``coalesce`` layout choice (``transforms/coalesce.py``) makes ``size_per_thread`` that
  ``vec``. The runs come from :attr:`~tritonc.ir.distribution.Distribution.register_run`, as
  the conversion scratch's order does (``ir/scratch.redistribution_order``). An access of ``vec`` elements moves ``vec * bytes`` as 1, 2 or 4 words of 32 bits
  (64 for 8-byte elements): ``ld.global.v4.b32`` for four floats or eight halves,
  ``.v2`` for 8 bytes, a plain ``.b32`` for 4. Accesses below 4 bytes (and ``i1``) are done
  element by element.
* ``tt.load`` without a mask: an LLVM ``load <vec x T>, align vec*bytes`` (a scalar ``load``
  for ``vec = 1``); LLVM itself selects ``ld.global.nc`` for pointers derived from
  ``noalias readonly`` parameters. With a mask: one predicated inline-asm load per access,
  Triton's form (its masked load through inline asm)::

      mov.b32 $0, $5; ... mov.b32 $3, $8;              // `other` (0 without one)
      @$4 ld.global[.nc].v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];

  so a masked-off lane never touches memory and yields ``other``. ``.nc`` (the read-only
  data cache) is used when :func:`~tritonc.analysis.pointer_origins.readonly_pointer_values` proves the pointer comes only from
  ``noalias readonly`` parameters. 8-bit elements accessed alone use ``ld.global.u8`` into a
  16-bit register; ``i1`` is stored as one byte (nonzero is true).
* ``tt.store``: replicated registers (see ``layout_math``) store only from their canonical
  copy, so each element is written once (the copies of one access agree on that); with a
  mask or replication the store is an inline-asm ``@p st.global[.v2|.v4].bN``; otherwise a
  plain LLVM ``store`` (a vector one for ``vec > 1``). A scalar store is done by thread 0 only.
  A predicated store done element by element (``vec = 1``: the alignment is not known, as in
  a kernel's generic variant) whose pointer registers come in runs of consecutive addresses
  (:func:`contiguous_run`: ``size_per_thread`` and contiguity along the fastest dimension)
  addresses the elements of a run, up to :data:`STORE_RUN_MAX`, as ``getelementptr i8, p, j *
  bytes`` from the pointer ``p`` of the run's first register, so only that pointer is
  computed from the tile's offsets. The per-element pointers of a 128x256 tile made the NVPTX
  back end's straight-line strength reduction (which asks ScalarEvolution, for every pair of
  similar addresses, whether one can be reused for the other) take 0.3 s of a 0.4 s emission;
  from one pointer per run it takes 0.05 s, and the PTX has an ``add.s64`` of a constant where
  it had a 64-bit address computation per element.
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.ir.core import BlockArgument, Operation, Value
from tritonc.ir.types import PointerType, ScalarType, TileType, element_type

from .elementwise import axis_info, define, map_regs, num_regs
from .layout_math import canonical_ir
from .lowering import GPTR, I1, I8, I16, I32, I64, KernelLowering, const, llvm_type, lowers, storage_type

#: Widest access one thread makes with one instruction, in bytes (``ld.global.v4.b32``).
MAX_ACCESS_BYTES = 16
#: Most elements of a predicated element-by-element store addressed from one register's
#: pointer (module docstring, ``tt.store``). With 8, ptxas gave the generic sm_80 matmul
#: example 128 registers instead of 112 (same instructions); with 4, every example keeps its
#: registers and instruction count or has fewer instructions.
STORE_RUN_MAX = 4

@lowers("tt.addptr")
def _addptr(lw: KernelLowering, op: Operation) -> None:
    pointee = storage_type(element_type(op.result.type).pointee)

    def gep(p, off):
        if off.type != I64:
            off = lw.b.sext(off, I64) if off.type != I1 else lw.b.zext(off, I64)
        return lw.b.gep(p, [off], source_etype=pointee)
    map_regs(lw, op, gep)


def _loop_carried(v: Value, op: Operation) -> bool:
    """Whether ``v`` is an iteration argument of a loop around ``op`` (not an induction
    variable)."""
    if not isinstance(v, BlockArgument):
        return False
    loop = v.block.parent_op()
    if loop is None or loop.name not in ("scf.for", "scf.while") or (loop.name == "scf.for" and v.index == 0):
        return False
    return loop.is_ancestor_of(op)


def offset_chain(ptr: Value) -> tuple[Value, list[Value]] | None:
    """``(base, [o_1, ..., o_k])`` when the pointer tile ``ptr`` is ``tt.addptr(... tt.addptr(
    tt.splat(base), o_1) ..., o_k)`` (``k >= 1``) with every ``o_j`` an integer tile of 8 to 32
    bits laid out as ``ptr``; None otherwise."""
    if not isinstance(ptr.type, TileType):
        return None
    offsets: list[Value] = []
    v = ptr
    while True:
        op = v.owner
        if not isinstance(op, Operation) or v.type != ptr.type:
            return None
        if op.name == "tt.splat":
            base = op.operands[0]
            if not isinstance(base.type, PointerType) or not offsets:
                return None
            offsets.reverse()
            return base, offsets
        if op.name != "tt.addptr":
            return None
        off = op.operands[1]
        el = element_type(off.type)
        if not (isinstance(off.type, TileType) and off.type.layout == ptr.type.layout
                and isinstance(el, ScalarType) and el.is_int and 8 <= el.bits <= 32):
            return None
        offsets.append(off)
        v = op.operands[0]


def mad_wide(lw: KernelLowering, acc: ir.Value, off: ir.Value, elem_bytes: int) -> ir.Value:
    """``acc + sext(off) * elem_bytes`` (i64, mod 2^64; ``off`` i32) as an inline-asm
    ``mad.wide.s32`` that LLVM cannot take apart (see the module docstring)."""
    asm = ir.InlineAsm(ir.FunctionType(I64, [I32, I64]), f"mad.wide.s32 $0, $1, {elem_bytes}, $2;", "=l,r,l",
                       side_effect=False)
    return lw.b.call(asm, [off, acc])


class _WideAddresses:
    """The registers of a pointer tile ``base + sum_j sext(offsets[j]) * elem_bytes``, each
    built where it is first asked for (at the access that uses it), one :func:`mad_wide` per
    offset. The offsets with the fewest distinct registers among the ``used`` ones are added
    first, and partial sums are shared: the A tile of a matmul (``rm * lda`` per row, ``rk``
    the same for every row a thread copies) costs one ``mad.wide`` for ``base + rk`` and one
    per row, with nothing but the i32 offsets and the scalar base live across trips."""

    def __init__(self, lw: KernelLowering, base: ir.Value, offsets: list[list], n: int, elem_bytes: int, used):
        self.lw, self.n, self.eb = lw, n, elem_bytes
        self.base = base
        self.offsets = sorted(offsets, key=lambda o: len({id(o[i]) for i in used}))
        self.made: dict[int, ir.Value] = {}
        self.partial: dict[tuple, ir.Value] = {}

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> ir.Value:
        if not 0 <= i < self.n:
            raise IndexError(i)
        if i in self.made:
            return self.made[i]
        b = self.lw.b
        key: tuple = ()
        acc = self.partial.get(key)
        if acc is None:
            acc = self.partial[key] = b.ptrtoint(self.base, I64)
        for o in self.offsets:
            key += (id(o[i]),)
            if key not in self.partial:
                off = o[i] if o[i].type == I32 else b.sext(o[i], I32)
                self.partial[key] = mad_wide(self.lw, acc, off, self.eb)
            acc = self.partial[key]
        self.made[i] = b.inttoptr(acc, GPTR)
        return self.made[i]


def access_addresses(lw: KernelLowering, op: Operation, ptr: Value, n: int, used=None):
    """The ``n`` address registers of the pointer tile ``ptr`` for the global access ``op``
    (which reads registers ``used``, default all): formed at the access
    (:class:`_WideAddresses`) for an :func:`offset_chain` over an iteration argument of a loop
    around ``op``, else the registers of ``ptr``. Ask for the registers in an order where each
    dominates the next."""
    chain = offset_chain(ptr) if lw.options.wide_addresses else None
    if chain is None or not _loop_carried(chain[0], op):
        return lw.regs(ptr, n)
    base, offsets = chain
    eb = max(1, _bits(storage_type(element_type(ptr.type).pointee)) // 8)
    return _WideAddresses(lw, lw.get(base), [lw.regs(o, n) for o in offsets], n, eb,
                          range(n) if used is None else used)


@lowers("tt.ptr_to_int")
def _ptr_to_int(lw: KernelLowering, op: Operation) -> None:
    map_regs(lw, op, lambda p: lw.b.ptrtoint(p, I64))


@lowers("tt.int_to_ptr")
def _int_to_ptr(lw: KernelLowering, op: Operation) -> None:
    map_regs(lw, op, lambda i: lw.b.inttoptr(lw.b.zext(i, I64) if i.type.width < 64 else i, GPTR))


def _asm_type(ty: ir.Type) -> tuple[ir.IntType, str, str]:
    """(integer register type, PTX access type, constraint letter) for an element type."""
    if ty in (I1, I8):
        return I16, "u8", "h"
    bits = {16: 16, 32: 32, 64: 64}[_bits(ty)]
    return ir.IntType(bits), f"b{bits}", {16: "h", 32: "r", 64: "l"}[bits]


def _bits(ty: ir.Type) -> int:
    if isinstance(ty, ir.IntType):
        return ty.width
    return {"half": 16, "bfloat": 16, "float": 32, "double": 64}[str(ty)]


def to_bits(b: ir.IRBuilder, v: ir.Value, reg: ir.IntType) -> ir.Value:
    """Reinterpret/extend a register value as the integer ``reg`` type for inline asm."""
    if isinstance(v.type, ir.IntType):
        return b.zext(v, reg) if v.type.width < reg.width else v
    return b.bitcast(v, reg)


def from_bits(b: ir.IRBuilder, v: ir.Value, ty: ir.Type) -> ir.Value:
    """Inverse of :func:`to_bits` (``i1``: nonzero byte is true)."""
    if ty == I1:
        return b.icmp_unsigned("!=", b.trunc(v, I8), const(I8, 0))
    if isinstance(ty, ir.IntType):
        return b.trunc(v, ty) if ty.width < v.type.width else v
    return b.bitcast(v, ty)


def _ld_global(lw: KernelLowering, nc: bool) -> str:
    """``ld.global`` with its qualifiers: ``.nc``, and the cache operator (before it), the
    eviction priority and the L2 prefetch size (after it) of ``-fload-cache-op`` /
    ``-fload-eviction`` / ``-fload-prefetch`` (PTX ISA 9.7.9.8 ld)."""
    o = lw.options
    after = "".join("." + q for q in (o.load_eviction, o.load_prefetch) if q)
    return f"ld.global{'.' + o.load_cache_op if o.load_cache_op else ''}{'.nc' if nc else ''}{after}"


def masked_load(lw: KernelLowering, ptr: ir.Value, mask: ir.Value, other: ir.Value | None, ty: ir.Type, nc: bool,
                wide: bool = False) -> ir.Value:
    """One predicated inline-asm ``ld.global`` of an element of type ``ty`` (``other`` where
    ``mask`` is false). ``wide``: an element narrower than 32 bits goes into a 32-bit register,
    zero-extended (PTX ISA 9.7.9.8 ld: a destination register wider than the type), the range
    of the result recorded (``!range``), so that LLVM folds the zero extension that follows
    (:func:`widened_load`) into the load."""
    reg, ptx_ty, c = _asm_type(ty)
    if wide and reg.width < 32:
        bits = 8 if ty in (I1, I8) else reg.width
        other_bits = to_bits(lw.b, to_bits(lw.b, other, reg), I32) if other is not None else ir.Constant(I32, 0)
        text = (f"mov.b32 $0, $3;\n\t"
                f"@$2 {_ld_global(lw, nc)}.u{bits} $0, [ $1 + 0 ];")
        asm = ir.InlineAsm(ir.FunctionType(I32, [GPTR, I1, I32]), text, "=r,l,b,r", side_effect=True)
        loaded = lw.b.call(asm, [ptr, mask, other_bits])
        loaded.set_metadata("range", lw.module.add_metadata([ir.Constant(I32, 0), ir.Constant(I32, 1 << bits)]))
        return from_bits(lw.b, lw.b.trunc(loaded, reg), ty)
    other_bits = to_bits(lw.b, other, reg) if other is not None else ir.Constant(reg, 0)
    text = (f"mov.b{reg.width} $0, $3;\n\t"
            f"@$2 {_ld_global(lw, nc)}.{ptx_ty} $0, [ $1 + 0 ];")
    asm = ir.InlineAsm(ir.FunctionType(reg, [GPTR, I1, reg]), text, f"={c},l,b,{c}", side_effect=True)
    loaded = lw.b.call(asm, [ptr, mask, other_bits])
    return from_bits(lw.b, loaded, ty)


def _invariant(lw: KernelLowering, load: ir.Instruction, invariant: bool) -> ir.Instruction:
    """Mark ``load`` ``!invariant.load`` (so NVPTX selects ``ld.global.nc``) when asked."""
    if invariant:
        if lw.entry_values.invariant_md is None:
            lw.entry_values.invariant_md = lw.module.add_metadata([])
        load.set_metadata("invariant.load", lw.entry_values.invariant_md)
    return load


def plain_load(lw: KernelLowering, ptr: ir.Value, ty: ir.Type, invariant: bool = False) -> ir.Value:
    if ty == I1:
        v = _invariant(lw, lw.b.load(ptr, typ=I8, align=1), invariant)
        return lw.b.icmp_unsigned("!=", v, const(I8, 0))
    return _invariant(lw, lw.b.load(ptr, typ=ty, align=max(1, _bits(ty) // 8)), invariant)


def predicated_store(lw: KernelLowering, ptr: ir.Value, value: ir.Value, pred: ir.Value | None) -> None:
    ty = value.type
    if pred is None:
        if ty == I1:
            value = lw.b.zext(value, I8)
        lw.b.store(value, ptr, align=max(1, _bits(value.type) // 8))
        return
    reg, ptx_ty, c = _asm_type(ty)
    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [GPTR, reg, I1]),
                       f"@$2 st.global.{ptx_ty} [ $0 + 0 ], $1;", f"l,{c},b", side_effect=True)
    lw.b.call(asm, [ptr, to_bits(lw.b, value, reg), pred])


def scalar_leader(lw: KernelLowering) -> ir.Value:
    """i1: this thread is thread 0 (does the CTA's single copy of a scalar side effect)."""
    if lw.entry_values.leader is None:
        lw.entry_values.leader = lw.eb.icmp_unsigned("==", lw.tid(), const(I32, 0))
    return lw.entry_values.leader


def _pow2_divisor(n: int) -> int:
    return n & -n if n > 0 else 1 << 30


def vector_width(lw: KernelLowering, ptr: Value, mask: Value | None) -> int:
    """Elements per access for memory op on pointer tile ``ptr`` (see the module docstring);
    1 when the access is not vectorisable (``i1``, under 4 bytes, a slice layout without the
    parent's fastest dimension)."""
    if not isinstance(ptr.type, TileType) or lw.f.parent is None:
        return 1
    dist = lw.dist(ptr)
    pointee = element_type(ptr.type).pointee
    fast, run = dist.register_run
    if pointee.bits == 1 or fast not in dist.dims:  # i1; a slice that removed the fast dimension
        return 1
    eb = pointee.bytes
    d = dist.dims.index(fast)  # the tile dimension (a slice keeps the parent's register order)
    info = axis_info(lw).info(ptr)
    vec = min(_pow2_divisor(run), _pow2_divisor(info.contiguity[d]),
              _pow2_divisor(max(1, info.divisibility[d] // eb)), MAX_ACCESS_BYTES // eb,
              _pow2_divisor(ptr.type.shape[d]))
    if mask is not None and isinstance(mask.type, TileType):
        vec = min(vec, _pow2_divisor(axis_info(lw).info(mask).constancy[d]))
    if vec * eb < 4:
        return 1
    return vec


def contiguous_run(lw: KernelLowering, ptr: Value) -> int:
    """Registers per run of ``ptr``'s registers whose addresses are consecutive elements: the
    largest power of two dividing the layout's ``size_per_thread`` and the pointer's
    contiguity along the fastest dimension (and the tile's extent there), as for
    :func:`vector_width` but without its alignment and size limits; 1 when not known. Register
    ``g + j`` of a run starting at register ``g`` (a multiple of the run) then points ``j``
    elements after register ``g``."""
    if not isinstance(ptr.type, TileType) or lw.f.parent is None:
        return 1
    dist = lw.dist(ptr)
    fast, run = dist.register_run
    if fast not in dist.dims:
        return 1
    d = dist.dims.index(fast)
    info = axis_info(lw).info(ptr)
    return min(_pow2_divisor(run), _pow2_divisor(info.contiguity[d]),
               _pow2_divisor(ptr.type.shape[d]))


def _word_type(ty: ir.Type, vec: int) -> tuple[ir.IntType, int, int]:
    """``(word type, words, elements per word)`` of an access of ``vec`` elements of ``ty``."""
    bits = _bits(ty)
    word = 64 if bits == 64 else 32
    per = word // bits
    return ir.IntType(word), vec // per, per


def _unpack(b: ir.IRBuilder, word: ir.Value, ty: ir.Type, per: int) -> list:
    if per == 1:
        return [from_bits(b, word, ty)]
    v = b.bitcast(word, ir.VectorType(ty, per))
    return [b.extract_element(v, const(I32, i)) for i in range(per)]


def _pack(b: ir.IRBuilder, values: list, word_ty: ir.IntType) -> ir.Value:
    if len(values) == 1:
        return to_bits(b, values[0], word_ty)
    v = ir.Constant(ir.VectorType(values[0].type, len(values)), None)
    for i, x in enumerate(values):
        v = b.insert_element(v, x, const(I32, i))
    return b.bitcast(v, word_ty)


def _regs_list(b, words, nwords):
    return [b.extract_value(words, i) for i in range(nwords)] if nwords > 1 else [words]


def vector_masked_load(lw: KernelLowering, ptr: ir.Value, mask: ir.Value, others: list, ty: ir.Type, nc: bool) -> list:
    """One predicated ``ld.global[.nc][.vN].bW`` of ``len(others)`` elements (``others``: the
    ``other`` register of each, or None)."""
    b = lw.b
    vec = len(others)
    word_ty, nwords, per = _word_type(ty, vec)
    c = "l" if word_ty.width == 64 else "r"
    fill = [_pack(b, [o if o is not None else ir.Constant(ty, None) for o in others[i * per:(i + 1) * per]], word_ty)
            if any(o is not None for o in others[i * per:(i + 1) * per]) else ir.Constant(word_ty, 0)
            for i in range(nwords)]
    outs = ", ".join(f"${i}" for i in range(nwords))
    movs = "".join(f"mov.b{word_ty.width} ${i}, ${nwords + 2 + i};\n\t" for i in range(nwords))
    vsuf = f".v{nwords}" if nwords > 1 else ""
    text = (f"{movs}@${nwords + 1} {_ld_global(lw, nc)}{vsuf}.b{word_ty.width} "
            f"{{ {outs} }}, [ ${nwords} + 0 ];" if nwords > 1 else
            f"{movs}@${nwords + 1} {_ld_global(lw, nc)}.b{word_ty.width} $0, [ ${nwords} + 0 ];")
    ret = ir.LiteralStructType([word_ty] * nwords) if nwords > 1 else word_ty
    cons = ",".join([f"={c}"] * nwords + ["l", "b"] + [c] * nwords)
    asm = ir.InlineAsm(ir.FunctionType(ret, [GPTR, I1] + [word_ty] * nwords), text, cons, side_effect=True)
    words = b.call(asm, [ptr, mask] + fill)
    out = []
    for w in _regs_list(b, words, nwords):
        out += _unpack(b, w, ty, per)
    return out


def vector_plain_load(lw: KernelLowering, ptr: ir.Value, ty: ir.Type, vec: int, invariant: bool = False) -> list:
    b = lw.b
    v = _invariant(lw, b.load(ptr, typ=ir.VectorType(ty, vec), align=vec * _bits(ty) // 8), invariant)
    return [b.extract_element(v, const(I32, i)) for i in range(vec)]


def vector_store(lw: KernelLowering, ptr: ir.Value, values: list, pred: ir.Value | None) -> None:
    """One ``st.global[.vN].bW`` of ``values`` (predicated by ``pred`` when given)."""
    b = lw.b
    ty = values[0].type
    vec = len(values)
    if pred is None:
        vt = ir.VectorType(ty, vec)
        v = ir.Constant(vt, None)
        for i, x in enumerate(values):
            v = b.insert_element(v, x, const(I32, i))
        b.store(v, ptr, align=vec * _bits(ty) // 8)
        return
    word_ty, nwords, per = _word_type(ty, vec)
    c = "l" if word_ty.width == 64 else "r"
    words = [_pack(b, values[i * per:(i + 1) * per], word_ty) for i in range(nwords)]
    regs = ", ".join(f"${i + 1}" for i in range(nwords))
    text = (f"@${nwords + 1} st.global.v{nwords}.b{word_ty.width} [ $0 + 0 ], {{ {regs} }};" if nwords > 1 else
            f"@${nwords + 1} st.global.b{word_ty.width} [ $0 + 0 ], $1;")
    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [GPTR] + [word_ty] * nwords + [I1]), text,
                       ",".join(["l"] + [c] * nwords + ["b"]), side_effect=True)
    b.call(asm, [ptr] + words + [pred])


@lowers("tt.load")
def _load(lw: KernelLowering, op: Operation) -> None:
    ptr, mask, other = op.get("ptr"), op.get("mask"), op.get("other")
    ty = llvm_type(element_type(op.result.type))
    n = num_regs(lw, op)
    vec = vector_width(lw, ptr, mask)
    ptrs = access_addresses(lw, op, ptr, n, range(0, n, vec))
    nc = lw.options.read_only_cache and ptr in lw.nc_values
    invariant = nc and isinstance(ptrs, _WideAddresses)
    masks = lw.regs(mask, n) if mask is not None else None
    others = lw.regs(other, n) if other is not None else [None] * n
    if vec > 1:
        out = []
        for g in range(0, n, vec):
            if masks is None:
                out += vector_plain_load(lw, ptrs[g], ty, vec, invariant)
            else:
                out += vector_masked_load(lw, ptrs[g], masks[g], others[g:g + vec], ty, nc)
        define(lw, op.result, out)
        return
    if mask is None:
        define(lw, op.result, [plain_load(lw, p, ty, invariant) for p in ptrs])
        return
    wide = widened_load(op)
    define(lw, op.result, [masked_load(lw, p, m, o, ty, nc, wide) for p, m, o in zip(ptrs, masks, others)])


def widened_load(op: Operation) -> bool:
    """Whether the tile ``op`` loads is only zero-extended to ``i32`` (through a bitcast to an
    integer for a float element): the form in which software pipelining carries a staged tile
    to the next trip (``transforms/software_pipeline.py``, ``widen``)."""
    users = [u for u, _ in op.result.uses]
    if len(users) == 1 and users[0].name == "arith.bitcast":
        users = [u for u, _ in users[0].result.uses]
    return len(users) == 1 and users[0].name == "arith.extui" and element_type(users[0].result.type).bits == 32


@lowers("tt.store")
def _store(lw: KernelLowering, op: Operation) -> None:
    ptr, value, mask = op.get("ptr"), op.get("value"), op.get("mask")
    if isinstance(ptr.type, TileType):
        dist = lw.dist(ptr)
        n = dist.num_regs
        canon = canonical_ir(lw, dist)
    else:
        n = 1
        canon = [scalar_leader(lw)]
    vec = vector_width(lw, ptr, mask)
    if vec == 1 or llvm_type(element_type(value.type)) == I1:
        vec = 1
    ptrs, values = access_addresses(lw, op, ptr, n, range(0, n, vec)), lw.regs(value, n)
    masks = lw.regs(mask, n) if mask is not None else [None] * n
    if vec > 1:
        for g in range(0, n, vec):
            vector_store(lw, ptrs[g], values[g:g + vec], lw.and_pred(masks[g], canon[g]))
        return
    predicated = all(m is not None or c is not None for m, c in zip(masks, canon))
    run = min(STORE_RUN_MAX, contiguous_run(lw, ptr)) if predicated else 1
    if run > 1:
        # element by element, each element of a run of consecutive addresses at a constant
        # offset from the pointer of the run's first register (module docstring)
        eb = max(1, _bits(storage_type(element_type(ptr.type).pointee)) // 8)
        ptrs = access_addresses(lw, op, ptr, n, range(0, n, run))
        for i in range(n):
            j = i % run
            at = lw.b.gep(ptrs[i - j], [const(I64, j * eb)], source_etype=I8) if j else ptrs[i]
            predicated_store(lw, at, values[i], lw.and_pred(masks[i], canon[i]))
        return
    for p, v, m, c in zip(ptrs, values, masks, canon):
        predicated_store(lw, p, v, lw.and_pred(m, c))
