"""Global memory: pointer arithmetic, loads and stores (PTX ISA 9.7.9.8 ld, 9.7.9.10 st).

* ``tt.addptr(p, off)``: ``getelementptr <pointee>, ptr addrspace(1) p, i64 sext(off)``.
  ``tt.ptr_to_int``/``tt.int_to_ptr``: ``ptrtoint``/``inttoptr`` (i64).
* ``tt.load`` without a mask: a plain LLVM ``load`` per register (LLVM itself selects
  ``ld.global.nc`` for pointers derived from ``noalias readonly`` parameters).
  With a mask: per register one predicated inline-asm load, Triton's form
  (codegen-facts §1, masked load (c))::

      mov.b32 $0, $3;                       // `other` (0 without one)
      @$2 ld.global[.nc].b32 $0, [ $1 + 0 ];

  so a masked-off lane never touches memory and yields ``other``. ``.nc`` (the read-only
  data cache) is used when :func:`readonly_pointer_values` proves the pointer comes only from
  ``noalias readonly`` parameters. 8-bit elements use ``ld.global.u8`` into a 16-bit register;
  ``i1`` is stored as one byte (nonzero is true).
* ``tt.store``: replicated registers (see ``layout_math``) store only from their canonical
  copy, so each element is written once; with a mask or replication the store is an
  inline-asm ``@p st.global.bN``; otherwise a plain ``store``. A scalar store is done by
  thread 0 only.

Vectorised (``.v2``/``.v4``) accesses come with the ``coalesce`` pass, which will make
``size_per_thread`` match the pointers' contiguity; this file emits scalar accesses.
"""
from __future__ import annotations

import llvmlite.ir as ir

from tritonc.ir.core import Function, Operation, Value
from tritonc.ir.types import PointerType, TileType, element_type

from .elementwise import define, map_regs, num_regs
from .layout_math import canonical_ir
from .lowering import GPTR, I1, I8, I16, I32, I64, const, llvm_type, lowers, storage_type

_PASS_THROUGH = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans",
                 "ttg.convert_layout")


def readonly_pointer_values(f: Function) -> set[Value]:
    """Pointer values of ``f`` that derive only from ``noalias readonly`` parameters.

    A forward may-analysis over the structured IR to a fixed point: a value's *origins* are
    the parameters it can point into (``None`` for unknown: ``int_to_ptr``, loads).
    """
    origins: dict[Value, frozenset | None] = {}
    for i, arg in enumerate(f.args):
        if isinstance(element_type(arg.type), PointerType):
            origins[arg] = frozenset([i])

    def join(a, b):
        if a is None or b is None:
            return None
        return a | b

    def update(v: Value, o) -> bool:
        old = origins.get(v, frozenset())
        new = join(old, o) if v in origins else o
        if new != old or v not in origins:
            origins[v] = new
            return True
        return False

    def get(v: Value):
        return origins.get(v, frozenset())

    changed = True
    while changed:
        changed = False
        for op in f.walk():
            if not op.results and op.name not in ("scf.yield", "scf.condition"):
                continue
            if op.name in _PASS_THROUGH:
                src = op.operands[0] if op.name != "tt.addptr" else op.get("ptr")
                changed |= update(op.result, get(src))
            elif op.name == "arith.select":
                changed |= update(op.result, join(get(op.operands[1]), get(op.operands[2])))
            elif op.name == "scf.for":
                body = op.regions[0].block
                for init, arg, res, y in zip(op.operands[3:], body.args[1:], op.results, body.terminator.operands):
                    o = join(get(init), get(y))
                    changed |= update(arg, o)
                    changed |= update(res, o)
            elif op.name == "scf.while":
                before, after = op.regions[0].block, op.regions[1].block
                for init, arg, y in zip(op.operands, before.args, after.terminator.operands):
                    changed |= update(arg, join(get(init), get(y)))
                for v, arg, res in zip(before.terminator.operands[1:], after.args, op.results):
                    changed |= update(arg, get(v))
                    changed |= update(res, get(v))
            elif op.name == "scf.if":
                for i, res in enumerate(op.results):
                    changed |= update(res, join(get(op.regions[0].block.terminator.operands[i]),
                                                get(op.regions[1].block.terminator.operands[i])))
            else:
                for res in op.results:
                    if isinstance(element_type(res.type), PointerType):
                        changed |= update(res, None)
    good = {i for i, attrs in enumerate(f.arg_attrs) if attrs.get("noalias") and attrs.get("readonly")}
    return {v for v, o in origins.items() if o and o <= good}


@lowers("tt.addptr")
def _addptr(lw, op) -> None:
    pointee = storage_type(element_type(op.result.type).pointee)

    def gep(p, off):
        if off.type != I64:
            off = lw.b.sext(off, I64) if off.type != I1 else lw.b.zext(off, I64)
        return lw.b.gep(p, [off], source_etype=pointee)
    map_regs(lw, op, gep)


@lowers("tt.ptr_to_int")
def _ptr_to_int(lw, op) -> None:
    map_regs(lw, op, lambda p: lw.b.ptrtoint(p, I64))


@lowers("tt.int_to_ptr")
def _int_to_ptr(lw, op) -> None:
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


def masked_load(lw, ptr: ir.Value, mask: ir.Value, other: ir.Value | None, ty: ir.Type, nc: bool) -> ir.Value:
    reg, ptx_ty, c = _asm_type(ty)
    other_bits = to_bits(lw.b, other, reg) if other is not None else ir.Constant(reg, 0)
    text = (f"mov.b{reg.width} $0, $3;\n\t"
            f"@$2 ld.global{'.nc' if nc else ''}.{ptx_ty} $0, [ $1 + 0 ];")
    asm = ir.InlineAsm(ir.FunctionType(reg, [GPTR, I1, reg]), text, f"={c},l,b,{c}", side_effect=True)
    loaded = lw.b.call(asm, [ptr, mask, other_bits])
    return from_bits(lw.b, loaded, ty)


def plain_load(lw, ptr: ir.Value, ty: ir.Type) -> ir.Value:
    if ty == I1:
        v = lw.b.load(ptr, typ=I8, align=1)
        return lw.b.icmp_unsigned("!=", v, const(I8, 0))
    return lw.b.load(ptr, typ=ty, align=max(1, _bits(ty) // 8))


def predicated_store(lw, ptr: ir.Value, value: ir.Value, pred: ir.Value | None) -> None:
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


def scalar_leader(lw) -> ir.Value:
    """i1: this thread is thread 0 (does the CTA's single copy of a scalar side effect)."""
    if "leader" not in lw.cache:
        lw.cache["leader"] = lw.eb.icmp_unsigned("==", lw.tid(), const(I32, 0))
    return lw.cache["leader"]


@lowers("tt.load")
def _load(lw, op: Operation) -> None:
    ptr, mask, other = op.get("ptr"), op.get("mask"), op.get("other")
    ty = llvm_type(element_type(op.result.type))
    n = num_regs(lw, op)
    ptrs = lw.regs(ptr, n)
    nc = ptr in lw.nc_values
    if mask is None:
        define(lw, op.result, [plain_load(lw, p, ty) for p in ptrs])
        return
    masks = lw.regs(mask, n)
    others = lw.regs(other, n) if other is not None else [None] * n
    define(lw, op.result, [masked_load(lw, p, m, o, ty, nc) for p, m, o in zip(ptrs, masks, others)])


@lowers("tt.store")
def _store(lw, op: Operation) -> None:
    ptr, value, mask = op.get("ptr"), op.get("value"), op.get("mask")
    if isinstance(ptr.type, TileType):
        dist = lw.dist(ptr)
        n = dist.num_regs
        canon = canonical_ir(lw, dist)
    else:
        n = 1
        canon = [scalar_leader(lw)]
    ptrs, values = lw.regs(ptr, n), lw.regs(value, n)
    masks = lw.regs(mask, n) if mask is not None else [None] * n
    for p, v, m, c in zip(ptrs, values, masks, canon):
        predicated_store(lw, p, v, lw.and_pred(m, c))
