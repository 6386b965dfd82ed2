"""Lowering of Triton-C expressions to tile IR, a mixin of :class:`~tritonc.frontend.irgen.IRGen`.

Every expression was typed by sema; this module only picks IR operations (``ir/ops.py``):

* values are converted with :meth:`ExprLowering.convert`: the element type first (``extsi``
  vs ``extui``, ``sitofp`` vs ``uitofp``, ``fptosi`` vs ``fptoui`` from the C signedness;
  ``x != 0`` for conversions to ``bool``), then the shape (``tt.splat``, or ``tt.expand_dims`` +
  ``tt.broadcast`` via :meth:`Builder.broadcast_to`, or ``tt.reshape`` between equal counts);
* compile-time constants are emitted directly in their final type, tiles as splat constants
  (``arith.constant {value = 0.0} : f32[64,64]``);
* ``c ? *p : other`` becomes ``tt.load(p, mask=c, other=other)``; ``select`` and other
  ``?:`` forms an ``arith.select``; a scalar ``?:``, ``&&`` or ``||`` whose operand has side
  effects or loads becomes an ``scf.if`` (C short-circuit);
* a branch of a ``?:`` whose condition is a tile is lowered under a *demand* (see
  :attr:`ExprLowering.demand`): the lanes it is selected in (``c``, or ``!c`` for the false
  branch, AND-ed with any enclosing demand). Every memory access lowered under a demand is masked
  by it (loads, stores, atomics; masked-off lanes of a load are undefined, the ``select``
  discards them), and variables assigned there keep their old value outside it. The demand
  follows each operand back through the operations that move lanes: broadcasts (any lane of
  the broadcast copies), reductions and ``@`` (any lane of the row/column), transposes and
  reshapes (the same lane, moved); an operand with no lane-wise relation (a scalar in a tile
  expression) is needed where any lane is;
* ``a @ b`` is ``tt.dot(a, b, 0)`` with ``input_precision = "ieee"``; the canonicalizer folds
  a following ``acc + dot`` into the accumulator;
* lvalues (``x``, ``*p``, ``*?(m) p``) are read and written through :class:`LRef`, which
  applies the predicate of an enclosing ``@mask`` statement (masked store, masked load that
  keeps the old value, or a select for other assignments).
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.frontend import ast
from tritonc.frontend.ctype import BOOL, CType, can_broadcast_to, convert_const, ir_int_value, wrap_int
from tritonc.frontend.irgen_masks import DemandLowering, shape_of_value
from tritonc.frontend.sema_info import ExprInfo, Symbol, has_effects, has_loads, is_deref
from tritonc.ir.core import Value
from tritonc.ir.types import I64, TileType, Type, tile_or_scalar

_INT_OPS = {"+": "addi", "-": "subi", "*": "muli", "&": "andi", "|": "ori", "^": "xori", "<<": "shli"}
_FLOAT_OPS = {"+": "addf", "-": "subf", "*": "mulf", "/": "divf", "%": "remf"}
_CMPF = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_CMPI = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def cmpi_predicate(op: str, signed: bool) -> str:
    """``arith.cmpi`` predicate of C comparison ``op`` (``'<'`` -> ``'slt'``/``'ult'``)."""
    if op in ("==", "!="):
        return "eq" if op == "==" else "ne"
    return ("s" if signed else "u") + _CMPI[op]


def reduce_combine(op: str, t: CType) -> str:
    """``tt.reduce`` combine name of subscript reduction ``op`` on element type ``t``."""
    if op == "+":
        return "addf" if t.is_float else "addi"
    if t.is_float:
        return op + "numf"
    return op + ("si" if t.is_signed else "ui")


@dataclass
class LazyConstant:
    """A constant binding not yet materialised (uninitialised variables, control flags)."""

    value: int
    type: CType


@dataclass
class LRef:
    """An evaluated assignment target: a variable (``sym``) or memory (``ptr`` [+ ``mask``])."""

    type: CType
    sym: Symbol | None = None
    ptr: Value | None = None
    mask: Value | None = None


class ExprLowering(DemandLowering):
    """Expression lowering; relies on ``IRGen`` for ``sema``, ``b``, ``env``, ``build_if``,
    ``assigned`` and the call lowering."""

    # -- helpers ----------------------------------------------------------------------------------
    def info(self, e: ast.Expr) -> ExprInfo:
        return self.sema.exprs[id(e)]

    def emit(self, name: str, operands: list[Value], type: Type, name_hint: str | None = None, **attrs) -> Value:
        return self.b.value(name, operands, type, attrs or None, name_hint)

    def const(self, value: int | float, t: CType) -> Value:
        """``arith.constant`` of arithmetic type ``t`` (a splat constant for tiles)."""
        v = float(value) if t.is_float else ir_int_value(int(value), t.base)
        return self.b.constant(v, t.ir())

    def materialize(self, lazy: LazyConstant) -> Value:
        t = lazy.type
        if t.is_pointer:
            null = self.emit("tt.int_to_ptr", [self.b.constant(0, I64)], t.element.ir())
            return self.b.splat(null, t.shape)
        return self.const(lazy.value, t)

    def read(self, sym: Symbol) -> Value:
        v = self.env[sym]
        return self.materialize(v) if isinstance(v, LazyConstant) else v

    def set_var(self, sym: Symbol, v: Value) -> None:
        """Bind ``sym`` to ``v``, naming ``v`` after the variable and recording ``__multipleof``."""
        op = getattr(v, "op", None)
        if op is not None:
            if v.name is None:
                v.name = sym.name
            if sym.multipleof and not op.regions:
                op.attrs["multipleof"] = sym.multipleof
        self.env[sym] = v

    # -- conversions ------------------------------------------------------------------------------
    def coerce(self, e: ast.Expr, dst: CType) -> Value:
        """Lower ``e`` and convert it to ``dst`` (constants are emitted directly in ``dst``)."""
        info = self.info(e)
        if info.const is not None and not info.type.is_tile and info.type.is_arith:
            if dst.is_arith:
                c = convert_const(info.const, info.type.base, dst.base)
                if c is not None:
                    with self.b.location(e.loc):
                        return self.const(c, dst)
            if dst.is_pointer and info.type.is_integer:  # a null pointer constant (or an explicit cast)
                with self.b.location(e.loc):
                    null = self.emit("tt.int_to_ptr", [self.const(info.const, CType("long"))], dst.element.ir())
                    return self.b.splat(null, dst.shape)
        v = self.lower_reshaped(e, dst.shape) if self.demand is not None else self.rvalue(e)
        with self.b.location(e.loc):
            return self.convert(v, info.type, dst)

    def lower_reshaped(self, e: ast.Expr, shape: tuple[int, ...]) -> Value:
        """``rvalue(e)`` for a conversion to ``shape``; a reshape (not a broadcast) moves the demand
        with the lanes."""
        src = self.info(e).type.shape
        if tuple(src) == tuple(shape) or can_broadcast_to(src, shape):
            return self.rvalue(e)
        with self.demand_for(e, lambda d: self.moved_demand(d, tuple(shape), tuple(src))):
            return self.rvalue(e)

    def operand(self, x: ast.Expr | tuple[Value, CType], dst: CType) -> Value:
        """``coerce`` for an AST operand, ``convert`` for an already lowered ``(value, type)``."""
        if isinstance(x, tuple):
            return self.convert(x[0], x[1], dst)
        return self.coerce(x, dst)

    def operand_value(self, x: ast.Expr | tuple[Value, CType]) -> tuple[Value, CType]:
        return x if isinstance(x, tuple) else (self.rvalue(x), self.info(x).type)

    def convert(self, v: Value, src: CType, dst: CType) -> Value:
        """Convert ``v`` of type ``src`` to ``dst``: element type, then shape."""
        v = self.convert_element(v, src, dst)
        return self.reshape(v, src.shape, dst.shape)

    def reshape(self, v: Value, src: tuple[int, ...], dst: tuple[int, ...]) -> Value:
        if tuple(src) == tuple(dst):
            return v
        if can_broadcast_to(src, dst):
            return self.b.broadcast_to(v, dst)
        return self.emit("tt.reshape", [v], TileType(v.type.element, tuple(dst)))

    def convert_element(self, v: Value, src: CType, dst: CType) -> Value:
        s, d = src.element, dst.element
        if s == d:
            return v
        shape = src.shape
        out = d.with_shape(shape).ir()
        if d.is_bool:
            if s.is_pointer:
                v = self.emit("tt.ptr_to_int", [v], tile_or_scalar(I64, shape))
                return self.emit("arith.cmpi", [v, self.const(0, CType("long", shape=shape))], out, predicate="ne")
            zero = self.const(0, s.with_shape(shape))
            if s.is_float:
                return self.emit("arith.cmpf", [v, zero], out, predicate="une")
            return self.emit("arith.cmpi", [v, zero], out, predicate="ne")
        if d.is_pointer:
            if not s.is_pointer:
                v = self.convert_element(v, src, CType("long" if s.is_signed else "unsigned long", shape=shape))
            else:
                v = self.emit("tt.ptr_to_int", [v], tile_or_scalar(I64, shape))
            return self.emit("tt.int_to_ptr", [v], out)
        if s.is_pointer:
            v = self.emit("tt.ptr_to_int", [v], tile_or_scalar(I64, shape))
            return self.convert_element(v, CType("unsigned long", shape=shape), dst)
        if s.ir_element() == d.ir_element():
            return v
        if s.is_integer and d.is_integer:
            if d.bits > s.bits:
                return self.emit("arith.extsi" if s.is_signed else "arith.extui", [v], out)
            return self.emit("arith.trunci", [v], out)
        if s.is_integer:
            return self.emit("arith.sitofp" if s.is_signed else "arith.uitofp", [v], out)
        if d.is_integer:
            return self.emit("arith.fptosi" if d.is_signed else "arith.fptoui", [v], out)
        if s.bits == d.bits:  # half <-> bfloat16 goes through float
            v = self.convert_element(v, src, CType("float", shape=shape))
            return self.convert_element(v, CType("float", shape=shape), dst)
        return self.emit("arith.extf" if d.bits > s.bits else "arith.truncf", [v], out)

    def not_(self, v: Value) -> Value:
        return self.emit("arith.xori", [v, self.b.constant(1, v.type)], v.type)

    # -- dispatch ---------------------------------------------------------------------------------
    def rvalue(self, e: ast.Expr) -> Value | None:
        """Lower ``e`` to a value of its sema type (``None`` for ``void``)."""
        info = self.info(e)
        with self.b.location(e.loc):
            if info.const is not None and info.type.is_arith and not info.type.is_tile:
                return self.const(info.const, info.type)
            lower = getattr(self, "_lower_" + type(e).__name__)
            if self.demand is None:
                return lower(e, info)
            saved = self.demand
            self.demand = self.fit_demand(saved, info.type.shape) if self.touches_memory(e) else None
            try:
                return lower(e, info)
            finally:
                self.demand = saved

    def _lower_Identifier(self, e: ast.Identifier, info: ExprInfo) -> Value:
        return self.read(info.symbol)

    def _lower_Comma(self, e: ast.Comma, info: ExprInfo) -> Value | None:
        out = None
        for x in e.exprs:
            out = self.rvalue(x)
        return out

    def _lower_Range(self, e: ast.Range, info: ExprInfo) -> Value:
        lo, hi = info.detail
        return self.emit("tt.make_range", [], info.type.ir(), start=lo, end=hi)

    def _lower_GetGlobalRange(self, e: ast.GetGlobalRange, info: ExprInfo) -> Value:
        n, axis = info.detail
        pid = self.emit("tt.get_program_id", [], CType("int").ir(), axis=axis)
        base = self.emit("arith.muli", [pid, self.const(n, CType("int"))], pid.type)
        r = self.emit("tt.make_range", [], info.type.ir(), start=0, end=n)
        return self.emit("arith.addi", [self.b.splat(base, (n,)), r], r.type)

    # -- unary ------------------------------------------------------------------------------------
    def _lower_Unary(self, e: ast.Unary, info: ExprInfo) -> Value:
        t = info.type
        if e.op in ("++", "--"):
            return self.incdec(e.operand, e.op, prefix=True)
        if e.op == "*":
            p = self.rvalue(e.operand)
            mask = self.demand_mask(t.shape)
            return self.emit("tt.load", [p] + ([mask] if mask is not None else []), t.ir())
        if e.op == "^":
            return self.transpose(e.operand, info.detail, t)
        if e.op == "!":
            src = self.info(e.operand).type
            return self.not_(self.coerce(e.operand, BOOL.with_shape(src.shape)))
        v = self.coerce(e.operand, t)
        if e.op == "+":
            return v
        if e.op == "~":
            return self.emit("arith.xori", [v, self.const(-1, t)], v.type)
        if t.is_float:
            return self.emit("arith.negf", [v], v.type)
        return self.emit("arith.subi", [self.const(0, t), v], v.type)

    def transpose(self, operand: ast.Expr, order: list[int], t: CType) -> Value:
        """``tt.trans {order}`` of ``operand`` (nothing for the identity); the result is of type ``t``."""
        if order == sorted(order):
            return self.rvalue(operand)
        with self.demand_for(operand, lambda d: self.permuted_demand(d, t.shape, order)):
            v = self.rvalue(operand)
        return self.emit("tt.trans", [v], t.ir(), order=list(order))

    def _lower_Postfix(self, e: ast.Postfix, info: ExprInfo) -> Value:
        return self.incdec(e.operand, e.op, prefix=False)

    def incdec(self, target: ast.Expr, op: str, prefix: bool) -> Value:
        ref = self.lref(target)
        old = self.read_ref(ref)
        t = ref.type
        if t.is_pointer:
            one = self.const(1 if op == "++" else -1, CType("int", shape=t.shape))
            new = self.emit("tt.addptr", [old, one], old.type)
        else:
            name = ("add" if op == "++" else "sub") + ("f" if t.is_float else "i")
            new = self.emit("arith." + name, [old, self.const(1, t)], old.type)
        self.write_ref(ref, new, None)
        return new if prefix else old

    def _lower_MaskedDeref(self, e: ast.MaskedDeref, info: ExprInfo) -> Value:
        ref = self.lref(e)
        return self.read_ref(ref)

    # -- binary -----------------------------------------------------------------------------------
    def _lower_Binary(self, e: ast.Binary, info: ExprInfo) -> Value:
        return self.binary_op(e.op, info, e.lhs, e.rhs)

    def binary_op(self, op: str, info: ExprInfo, lhs, rhs) -> Value:
        """``lhs op rhs`` typed by ``info``; operands are AST nodes or ``(value, type)`` pairs."""
        shape = info.type.shape
        kind = info.kind
        if kind == "logic":
            return self.logic(op, info, lhs, rhs)
        if kind in ("ptr+int", "int+ptr", "ptr-int"):
            ptr, off = (lhs, rhs) if kind != "int+ptr" else (rhs, lhs)
            p, pt = self.operand_value(ptr)
            p = self.reshape(p, pt.shape, shape)
            return self.emit("tt.addptr", [p, self.offset(off, shape, negate=kind == "ptr-int")], info.type.ir())
        if kind in ("ptr-ptr", "ptrcmp"):
            ints = []
            for x in (lhs, rhs):
                p, pt = self.operand_value(x)
                p = self.reshape(p, pt.shape, shape)
                ints.append(self.emit("tt.ptr_to_int", [p], tile_or_scalar(I64, shape)))
            if kind == "ptrcmp":
                return self.emit("arith.cmpi", ints, info.type.ir(), predicate=cmpi_predicate(op, False))
            diff = self.emit("arith.subi", ints, ints[0].type)
            size = CType(self._ptr_base(lhs)).ir_element().bytes
            if size == 1:
                return diff
            return self.emit("arith.divsi", [diff, self.const(size, info.type)], diff.type)
        ot = info.op_type
        a = self.operand(lhs, ot.with_shape(shape))
        b = self.operand(rhs, ot.with_shape(shape))
        return self.arith(op, a, b, ot, info.type)

    def _ptr_base(self, x) -> str:
        return x[1].base if isinstance(x, tuple) else self.info(x).type.base

    def arith(self, op: str, a: Value, b: Value, ot: CType, result: CType) -> Value:
        """The IR op of C operator ``op`` computing in element type ``ot``."""
        if op in _CMPF:
            if ot.is_float:
                return self.emit("arith.cmpf", [a, b], result.ir(), predicate=_CMPF[op])
            return self.emit("arith.cmpi", [a, b], result.ir(), predicate=cmpi_predicate(op, ot.is_signed))
        if ot.is_float:
            name = _FLOAT_OPS[op]
        elif op == "/":
            name = "divsi" if ot.is_signed else "divui"
        elif op == "%":
            name = "remsi" if ot.is_signed else "remui"
        elif op == ">>":
            name = "shrsi" if ot.is_signed else "shrui"
        else:
            name = _INT_OPS[op]
        return self.emit("arith." + name, [a, b], a.type)

    def offset(self, x, shape: tuple[int, ...], negate: bool) -> Value:
        """A pointer offset as ``int`` (or 64-bit for ``long`` and ``unsigned int`` operands)."""
        t = x[1] if isinstance(x, tuple) else self.info(x).type
        base = {"long": "long", "unsigned long": "unsigned long", "unsigned int": "unsigned long"}.get(t.base, "int")
        ot = CType(base, shape=shape)
        if negate and not isinstance(x, tuple) and self.info(x).const is not None and not t.is_tile:
            return self.const(wrap_int(-convert_const(self.info(x).const, t.base, base), base), ot)
        v = self.operand(x, ot)
        if negate:
            v = self.emit("arith.subi", [self.const(0, ot), v], v.type)
        return v

    def logic(self, op: str, info: ExprInfo, lhs, rhs) -> Value:
        shape = info.type.shape
        bt = BOOL.with_shape(shape)
        if not shape and not isinstance(rhs, tuple) and (has_effects(rhs) or has_loads(rhs)):
            a = self.operand(lhs, BOOL)
            short = lambda: [self.const(int(op == "||"), BOOL)]
            full = lambda: [self.coerce(rhs, BOOL)]
            then, other = (full, short) if op == "&&" else (short, full)
            return self.build_if(a, then, other, self.carried([rhs]), [BOOL])[0]
        a = self.operand(lhs, bt)
        b = self.operand(rhs, bt)
        return self.emit("arith.andi" if op == "&&" else "arith.ori", [a, b], a.type)

    def _lower_MatMul(self, e: ast.MatMul, info: ExprInfo) -> Value:
        return self.dot(e.lhs, e.rhs, info, None)

    def dot(self, lhs: ast.Expr, rhs: ast.Expr, info: ExprInfo, acc: Value | None) -> Value:
        in_base, _ = info.detail
        shape = info.type.shape
        lt, rt = self.info(lhs).type, self.info(rhs).type
        # a[i, k] is needed where any of row i of the product is, b[k, j] where any of column j is
        with self.demand_for(lhs, lambda d: self.reduced_demand(self.any_lane(self.full_demand(d, shape), 1),
                                                                shape[:1] + shape[2:], [1], lt.shape)):
            a = self.coerce(lhs, lt.with_base(in_base))
        with self.demand_for(rhs, lambda d: self.reduced_demand(self.any_lane(self.full_demand(d, shape), 0),
                                                                shape[1:], [0], rt.shape)):
            b = self.coerce(rhs, rt.with_base(in_base))
        if acc is None:
            acc = self.const(0, info.type)
        return self.emit("tt.dot", [a, b, acc], info.type.ir(), input_precision="ieee")

    # -- ?: ---------------------------------------------------------------------------------------
    def _lower_Conditional(self, e: ast.Conditional, info: ExprInfo) -> Value:
        t = info.type
        if info.kind in ("masked_then", "masked_else"):
            deref, other = (e.then, e.otherwise) if info.kind == "masked_then" else (e.otherwise, e.then)
            mask = self.coerce(e.cond, BOOL.with_shape(t.shape))
            if info.kind == "masked_else":
                mask = self.not_(mask)
            if is_deref(other):  # 'c ? *p : *q' reads each pointer only where it is selected
                other = self.masked_load(other, None, self.not_(mask), t)
            return self.masked_load(deref, other, mask, t)
        if info.kind == "branch":
            c = self.coerce(e.cond, BOOL)
            return self.build_if(c, lambda: [self.coerce(e.then, t)], lambda: [self.coerce(e.otherwise, t)],
                                 self.carried([e.then, e.otherwise]), [t])[0]
        if self.info(e.cond).type.is_tile and (self.touches_memory(e.then) or self.touches_memory(e.otherwise)):
            # each branch runs under its lanes: 'c ? *p * 2 : o' loads p only where c holds
            c = self.coerce(e.cond, BOOL.with_shape(t.shape))
            a = self.branch_value(e.then, t, c, False)
            b = self.branch_value(e.otherwise, t, c, True)
            return self.emit("arith.select", [c, a, b], t.ir())
        return self.select(e.cond, e.then, e.otherwise, t)

    def branch_value(self, branch: ast.Expr, t: CType, c: Value, negate: bool) -> Value:
        """``branch`` of a tile ``?:`` of condition ``c`` (``!c`` when ``negate``) converted to ``t``,
        lowered under the demand of the lanes that select it."""
        if not self.touches_memory(branch):
            return self.coerce(branch, t)
        with self.demanding(self.demand_mask(t.shape, self.not_(c) if negate else c)):
            return self.coerce(branch, t)

    def select(self, cond: ast.Expr, a: ast.Expr, b: ast.Expr, t: CType) -> Value:
        ct = self.info(cond).type
        c = self.coerce(cond, BOOL.with_shape(t.shape if ct.is_tile else ()))
        return self.emit("arith.select", [c, self.coerce(a, t), self.coerce(b, t)], t.ir())

    def masked_load(self, deref: ast.Expr, other: ast.Expr | Value | None, mask: Value, t: CType) -> Value:
        """Load ``deref`` (``*p`` or ``*?(m) p``) of shape ``t.shape`` under ``mask`` and convert it
        to ``t``; masked-off lanes take ``other`` converted to ``t`` (an AST node or a value
        already of type ``t``), or are undefined without it."""
        shape = t.shape
        selected = mask
        mask = self.demand_mask(shape, mask)  # within an enclosing tile ?: branch, only its lanes
        if isinstance(deref, ast.MaskedDeref):
            with self.demanding(mask):
                extra = self.coerce(deref.mask, BOOL.with_shape(self.info(deref.mask).type.shape))
            mask = self.emit("arith.andi", [mask, self.reshape(extra, shape_of_value(extra), shape)], mask.type)
            ptr_node = deref.pointer
        else:
            ptr_node = deref.operand
        pt = self.info(ptr_node).type
        with self.demanding(mask):
            p = self.reshape(self.rvalue(ptr_node), pt.shape, shape)
        loaded_t = pt.pointee.with_shape(shape)
        if other is None:
            return self.convert(self.emit("tt.load", [p, mask], loaded_t.ir()), loaded_t, t)
        if isinstance(other, Value):
            other_v = other
        elif self.touches_memory(other):  # 'c ? *p : *q * 2' evaluates the other side where !c
            with self.demanding(self.demand_mask(shape, self.not_(selected))):
                other_v = self.coerce(other, t)
        else:
            other_v = self.coerce(other, t)
        if loaded_t.element == t.element:
            return self.emit("tt.load", [p, mask, other_v], t.ir())
        loaded = self.convert(self.emit("tt.load", [p, mask], loaded_t.ir()), loaded_t, t)
        return self.emit("arith.select", [mask, loaded, other_v], t.ir())

    # -- lvalues and assignment -------------------------------------------------------------------
    def lref(self, target: ast.Expr) -> LRef:
        info = self.info(target)
        if isinstance(target, ast.Identifier):
            return LRef(info.type, sym=info.symbol)
        shape = info.type.shape
        if isinstance(target, ast.MaskedDeref):
            pt = self.info(target.pointer).type
            p = self.reshape(self.rvalue(target.pointer), pt.shape, shape)
            mt = self.info(target.mask).type
            m = self.reshape(self.coerce(target.mask, BOOL.with_shape(mt.shape)), mt.shape, shape)
            return LRef(info.type, ptr=p, mask=m)
        return LRef(info.type, ptr=self.rvalue(target.operand))

    def read_ref(self, ref: LRef, pm: Value | None = None) -> Value:
        """Read ``ref``; a memory read is masked by the predicate mask ``pm`` too (if given)."""
        if ref.sym is not None:
            return self.read(ref.sym)
        mask = self.demand_mask(ref.type.shape, self.and_masks(ref.mask, pm))
        return self.emit("tt.load", [ref.ptr] + ([mask] if mask is not None else []), ref.type.ir())

    def write_ref(self, ref: LRef, v: Value, pm: Value | None) -> None:
        """Store ``v`` (already of ``ref.type``) into ``ref``, only where the predicate mask ``pm``
        (of ``ref``'s shape, if given) and the demand hold."""
        pm = self.demand_mask(ref.type.shape, pm)
        if ref.sym is not None:
            if pm is not None:
                v = self.emit("arith.select", [pm, v, self.read(ref.sym)], v.type)
            self.set_var(ref.sym, v)
            return
        mask = self.and_masks(ref.mask, pm)
        self.b.create("tt.store", [ref.ptr, v] + ([mask] if mask is not None else []))

    def and_masks(self, a: Value | None, b: Value | None) -> Value | None:
        if a is None or b is None:
            return a if b is None else b
        return self.emit("arith.andi", [a, b], a.type)

    def _lower_Assign(self, e: ast.Assign, info: ExprInfo) -> Value:
        pred = self.take_predicate()
        ref = self.lref(e.target)
        t = ref.type
        pm = self.reshape(pred[0], pred[1], t.shape) if pred is not None else None
        if e.op == "=":
            if pm is not None and ref.sym is not None and is_deref(e.value) and self.info(e.value).type == t:
                # '@m a = *pa;' keeps the old value of 'a' where 'm' is false.
                v = self.masked_load(e.value, self.read(ref.sym), pm, t)
                self.set_var(ref.sym, v)
                return v
            v = self.coerce(e.value, t)
        else:
            b = info.detail
            v = self.binary_op(e.op[:-1], b, (self.read_ref(ref, pm), t), e.value)
            v = self.convert(v, b.type, t)
        self.write_ref(ref, v, pm)
        return v

    # -- subscripts, casts ------------------------------------------------------------------------
    def _lower_Subscript(self, e: ast.Subscript, info: ExprInfo) -> Value:
        return self.subscript(e.base, info.detail, info.type)

    def subscript(self, base: ast.Expr, plan: dict, t: CType) -> Value:
        """Subscript ``plan`` applied to ``base``, giving type ``t``."""
        bt = self.info(base).type
        with self.demand_for(base, lambda d: self.plan_demand(d, bt, plan, t.shape)):
            v = self.rvalue(base)
        return self.apply_plan(v, bt, plan)

    def apply_plan(self, v: Value, t: CType, plan: dict) -> Value:
        """Apply a subscript plan (see ``ExprChecker._Subscript``) to ``v`` of type ``t``."""
        shape = list(t.shape)
        if plan["perm"]:
            shape = [t.shape[k] for k in plan["perm"]]
            v = self.emit("tt.trans", [v], TileType(t.ir_element(), tuple(shape)), order=list(plan["perm"]))
        if plan["reduce"]:
            rt = t.with_base(plan["base"]).with_shape(tuple(shape))
            v = self.convert_element(v, t.with_shape(tuple(shape)), rt)
            for axis, op in plan["reduce"]:
                del shape[axis]
                v = self.emit("tt.reduce", [v], tile_or_scalar(rt.ir_element(), tuple(shape)),
                              axis=axis, combine=reduce_combine(op, rt))
        for pos in plan["newaxis"]:
            if not shape:
                v = self.b.splat(v, (1,))
                shape = [1]
                continue
            shape.insert(pos, 1)
            v = self.emit("tt.expand_dims", [v], TileType(v.type.element, tuple(shape)), axis=pos)
        return v

    def _lower_Cast(self, e: ast.Cast, info: ExprInfo) -> Value | None:
        if info.type.is_void:
            self.rvalue(e.operand)
            return None
        return self.coerce(e.operand, info.type)

    def _lower_Bitcast(self, e: ast.Bitcast, info: ExprInfo) -> Value:
        v = self.rvalue(e.operand)
        if v.type == info.type.ir():
            return v
        return self.emit("arith.bitcast", [v], info.type.ir())
