"""Type checking of Triton-C expressions (spec section 5), a mixin of :class:`~tritonc.frontend.sema.Sema`.

Each ``_<NodeClass>`` method checks one kind of :mod:`~tritonc.frontend.ast` expression and
returns its :class:`~tritonc.frontend.sema_info.ExprInfo`; :meth:`ExprChecker.expr` records it.

Rules (C11 where the spec does not say otherwise):

* literals take C's types (6.4.4.1: ``int``, then ``long``, ...; unsuffixed floating literals
  are ``double``); constant operands are folded in the operation's type;
* arithmetic uses integer promotion and the usual arithmetic conversions
  (:func:`~tritonc.frontend.ctype.common_base`), element-wise on tiles with NumPy
  broadcasting; ``&``/``|``/``^`` of two ``bool`` stay ``bool`` (same values as C);
* pointers: ``p + i``, ``i + p``, ``p - i``, ``p - q`` (``long``), comparisons;
* ``lo ... hi`` needs integer constants and a power-of-two length;
* ``a @ b`` needs tiles of equal rank >= 2 whose contracted and batch axes agree;
* subscripts reshape, reduce and permute, using every operand axis exactly once;
* ``c ? *p : other`` is recorded as a masked load (``kind='masked_then'``); a branch of a
  ``?:`` whose condition is a tile runs masked by it (irgen), so what cannot be masked is
  rejected there (``atomic_cas``, memory-accessing ``__device__`` callees, loads in their arguments);
* implicit conversions (:meth:`ExprChecker.check_convert`) convert element types and
  broadcast, or reshape between equal element counts; a tile never becomes a scalar.
"""
from __future__ import annotations

from tritonc.frontend import ast
from tritonc.frontend.ctype import (BOOL, INT, LONG, VOID, CType, bitcast_const, broadcast_shapes,
                                    can_broadcast_to, common_base, convert_const, fits, fold_binary,
                                    format_shape, int_literal_base, promote, round_float, wrap_int)
from tritonc.frontend.sema_info import ExprInfo, is_pure_builtin_call, has_effects, has_loads, is_deref

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_REDUCE_COMBINE = {"+": "add", "max": "max", "min": "min"}


def _double_literal_text(e: ast.Expr) -> str | None:
    """The spelling of an unsuffixed floating literal (possibly negated), else ``None``."""
    sign = ""
    while isinstance(e, ast.Unary) and e.op in "+-":
        sign += e.op
        e = e.operand
    if isinstance(e, ast.FloatLiteral) and not e.is_float:
        return sign + (e.text or repr(e.value))
    return None


class ExprChecker:
    """Expression rules; relies on ``Sema`` for ``result``, ``error``, ``lookup``, ``funcs``,
    ``diag`` and ``resolve_type``."""

    # -- entry points ---------------------------------------------------------------------------
    def expr(self, e: ast.Expr) -> ExprInfo:
        """Check ``e`` (which may be ``void``) and record its info."""
        info = getattr(self, "_" + type(e).__name__)(e)
        self.result.exprs[id(e)] = info
        return info

    def value(self, e: ast.Expr) -> ExprInfo:
        """Check ``e``, which must produce a value."""
        info = self.expr(e)
        if info.type.is_void:
            raise self.error("expression of type 'void' used as a value", e.loc)
        return info

    def broadcast(self, loc, *types: CType) -> tuple[int, ...]:
        shape: tuple[int, ...] = ()
        for t in types:
            out = broadcast_shapes(shape, t.shape)
            if out is None:
                raise self.error(f"cannot broadcast shapes {format_shape(shape)} and {format_shape(t.shape)}", loc)
            shape = out
        return shape

    def check_convert(self, src: CType, dst: CType, loc, ctx: str, explicit: bool = False,
                      const: int | float | None = None) -> None:
        """Check the implicit (or, with ``explicit``, cast) conversion of a ``src`` value to
        ``dst``: element conversion, then broadcast or reshape. ``ctx`` starts the message
        (``'assigning to'``, ``'initializing'``, ``'returning'``, ``'casting to'``...).
        ``const`` is the source's constant value: an integer 0 is a null pointer constant."""
        s, d = src.element, dst.element
        if src.is_void:
            raise self.error(f"{ctx} '{dst}' from incompatible type 'void'", loc)
        if d.is_pointer:
            if s.is_pointer:
                if s.base != d.base and not explicit:
                    raise self.error(f"incompatible pointer types {ctx} '{d}' from '{s}'", loc)
            elif not ((explicit or const == 0) and s.is_integer):
                kind = "integer" if s.is_integer else "floating-point"
                raise self.error(f"incompatible {kind} to pointer conversion {ctx} '{d}' from '{s}'", loc)
        elif s.is_pointer and not d.is_bool and not (explicit and d.is_integer):
            kind = "integer" if d.is_integer else "floating-point"
            raise self.error(f"incompatible pointer to {kind} conversion {ctx} '{d}' from '{s}'", loc)
        if can_broadcast_to(src.shape, dst.shape):
            return
        if src.shape and not dst.shape:
            raise self.error(f"{ctx} '{dst}' from a tile of type '{src}'; a tile does not convert to "
                             "a scalar (reduce it first, e.g. 'x[+]')", loc)
        if src.shape and dst.shape and src.numel == dst.numel:
            return
        raise self.error(f"{ctx} '{dst}' from '{src}': shape {format_shape(src.shape)} neither broadcasts "
                         f"to {format_shape(dst.shape)} nor has as many elements", loc)

    def lvalue(self, target: ast.Expr) -> ExprInfo:
        """Check an assignment target: a variable, ``*p`` or ``*?(m) p``."""
        if isinstance(target, ast.Identifier):
            info = self.value(target)
            sym = info.symbol
            if sym.kind == "tunable":
                raise self.error(f"cannot assign to tunable '{sym.name}'", target.loc)
            if sym.is_const:
                raise self.error(f"cannot assign to variable '{sym.name}' with const-qualified type "
                                 f"'const {sym.type}'", target.loc)
            self.promote_local(sym, sym.type)  # assigned under a condition on a tile: one value per element
            return info
        if is_deref(target):
            return self.value(target)
        raise self.error("expression is not assignable", target.loc)

    def warn_double_promotion(self, base: str, *operands: tuple[ast.Expr, ExprInfo]) -> None:
        """-Wdouble-promotion: an unsuffixed literal turning a float/half tile into double."""
        if base != "double":
            return
        for node, info in operands:
            text = _double_literal_text(node)
            if text is None:
                continue
            for _, other in operands:
                if other is not info and other.type.is_tile and other.type.base in ("half", "bfloat16", "float"):
                    self.diag.warn("double-promotion",
                                   f"unsuffixed literal '{text}' is a 'double' and promotes '{other.type}' to "
                                   f"'{other.type.with_base('double')}'; write '{text}f' to stay in single precision",
                                   node.loc)
                    return

    # -- leaves ---------------------------------------------------------------------------------
    def _Identifier(self, e: ast.Identifier) -> ExprInfo:
        sym = self.lookup(e.name)
        if sym is None:
            if e.name in self.funcs:
                raise self.error(f"function '{e.name}' is used as a value; call it", e.loc)
            raise self.error(f"use of undeclared identifier '{e.name}'", e.loc)
        return ExprInfo(sym.type, sym.const, sym)

    def _IntLiteral(self, e: ast.IntLiteral) -> ExprInfo:
        base = int_literal_base(e.value, e.suffix, e.is_decimal)
        if base is None:
            raise self.error("integer literal is too large to be represented in any integer type", e.loc)
        return ExprInfo(CType(base), e.value)

    def _FloatLiteral(self, e: ast.FloatLiteral) -> ExprInfo:
        base = "float" if e.is_float else "double"
        return ExprInfo(CType(base), round_float(e.value, base))

    def _BoolLiteral(self, e: ast.BoolLiteral) -> ExprInfo:
        return ExprInfo(BOOL, int(e.value))

    # -- unary and postfix ----------------------------------------------------------------------
    def _Unary(self, e: ast.Unary) -> ExprInfo:
        if e.op in ("++", "--"):
            return self.incdec(e.operand, e.op, e.loc)
        x = self.value(e.operand)
        t = x.type
        if e.op == "*":
            if not t.is_pointer:
                raise self.error(f"indirection requires pointer operand ('{t}' invalid)", e.loc)
            return ExprInfo(t.pointee)
        if e.op == "^":
            if not t.is_tile:
                raise self.error(f"transpose '^' needs a tile operand; '{t}' is a scalar", e.loc)
            order = list(range(1, len(t.shape))) + [0]
            return ExprInfo(t.with_shape(tuple(t.shape[i] for i in order)), detail=order)
        if e.op == "!":
            if not t.is_scalar_value:
                raise self.error(f"invalid argument type '{t}' to unary expression", e.loc)
            return ExprInfo(BOOL.with_shape(t.shape), None if x.const is None else int(not x.const))
        if not t.is_arith or (e.op == "~" and not t.is_integer):
            raise self.error(f"invalid argument type '{t}' to unary expression", e.loc)
        base = promote(t.base)
        const = None
        if x.const is not None:
            c = convert_const(x.const, t.base, base)
            if e.op == "+":
                const = c
            elif e.op == "-":
                const = wrap_int(-c, base) if t.is_integer else -c
            else:
                const = wrap_int(~c, base)
        return ExprInfo(t.with_base(base), const, op_type=CType(base))

    def _Postfix(self, e: ast.Postfix) -> ExprInfo:
        return self.incdec(e.operand, e.op, e.loc)

    def incdec(self, target: ast.Expr, op: str, loc) -> ExprInfo:
        t = self.lvalue(target).type
        if not t.is_pointer and (not t.is_arith or t.is_bool):
            raise self.error(f"cannot {'increment' if op == '++' else 'decrement'} value of type '{t}'", loc)
        return ExprInfo(t)

    def _MaskedDeref(self, e: ast.MaskedDeref) -> ExprInfo:
        m = self.value(e.mask)
        if not m.type.is_scalar_value:
            raise self.error(f"mask of type '{m.type}' is not a boolean", e.mask.loc)
        p = self.value(e.pointer)
        if not p.type.is_pointer:
            raise self.error(f"indirection requires pointer operand ('{p.type}' invalid)", e.pointer.loc)
        shape = self.broadcast(e.loc, p.type, m.type)
        return ExprInfo(p.type.pointee.with_shape(shape))

    # -- binary ---------------------------------------------------------------------------------
    def _Binary(self, e: ast.Binary) -> ExprInfo:
        lhs, rhs = self.value(e.lhs), self.value(e.rhs)
        return self.binary(e.op, lhs, rhs, e.loc, e.lhs, e.rhs)

    def binary(self, op: str, l: ExprInfo, r: ExprInfo, loc, lnode: ast.Expr, rnode: ast.Expr) -> ExprInfo:
        """Type ``l op r`` (also used for compound assignments)."""
        lt, rt = l.type, r.type

        def invalid():
            return self.error(f"invalid operands to binary expression ('{lt}' and '{rt}')", loc)

        both_const = l.const is not None and r.const is not None
        if op in ("&&", "||"):
            if not (lt.is_scalar_value and rt.is_scalar_value):
                raise invalid()
            shape = self.broadcast(loc, lt, rt)
            const = fold_binary(op, l.const, r.const, "int") if both_const else None
            return ExprInfo(BOOL.with_shape(shape), const, op_type=BOOL, kind="logic")
        if lt.is_pointer or rt.is_pointer:
            return self.pointer_binary(op, lt, rt, loc, invalid)
        if not (lt.is_arith and rt.is_arith):
            raise invalid()
        shape = self.broadcast(loc, lt, rt)
        if op in ("<<", ">>"):
            if not (lt.is_integer and rt.is_integer):
                raise invalid()
            base = promote(lt.base)
            const = None
            if both_const:
                const = fold_binary(op, convert_const(l.const, lt.base, base),
                                    convert_const(r.const, rt.base, promote(rt.base)), base)
            return ExprInfo(CType(base, shape=shape), const, op_type=CType(base), kind="shift")
        if op in ("%", "&", "|", "^") and not (lt.is_integer and rt.is_integer):
            raise invalid()
        base = "bool" if op in ("&", "|", "^") and lt.is_bool and rt.is_bool else common_base(lt.base, rt.base)
        self.warn_double_promotion(base, (lnode, l), (rnode, r))
        const = None
        if both_const:
            const = fold_binary(op, convert_const(l.const, lt.base, base), convert_const(r.const, rt.base, base), base)
        if op in _COMPARISONS:
            return ExprInfo(BOOL.with_shape(shape), const, op_type=CType(base), kind="cmp")
        return ExprInfo(CType(base, shape=shape), const, op_type=CType(base), kind="arith")

    def pointer_binary(self, op: str, lt: CType, rt: CType, loc, invalid) -> ExprInfo:
        shape = self.broadcast(loc, lt, rt)
        if op == "+" and lt.is_pointer and rt.is_integer:
            return ExprInfo(lt.with_shape(shape), kind="ptr+int")
        if op == "+" and lt.is_integer and rt.is_pointer:
            return ExprInfo(rt.with_shape(shape), kind="int+ptr")
        if op == "-" and lt.is_pointer and rt.is_integer:
            return ExprInfo(lt.with_shape(shape), kind="ptr-int")
        if lt.is_pointer and rt.is_pointer and (op == "-" or op in _COMPARISONS):
            if lt.base != rt.base:
                raise self.error(f"'{lt.element}' and '{rt.element}' are not pointers to compatible types", loc)
            if op == "-":
                return ExprInfo(LONG.with_shape(shape), kind="ptr-ptr")
            return ExprInfo(BOOL.with_shape(shape), kind="ptrcmp")
        raise invalid()

    def _Range(self, e: ast.Range) -> ExprInfo:
        bounds = []
        for node in (e.lo, e.hi):
            info = self.value(node)
            if info.const is None or not info.type.is_integer or info.type.is_tile:
                raise self.error("range bounds must be integer constant expressions", node.loc)
            bounds.append(int(info.const))
        lo, hi = bounds
        n = hi - lo
        if n <= 0:
            raise self.error(f"range '{lo} ... {hi}' is empty", e.loc)
        if n & (n - 1):
            raise self.error(f"range length {n} ('{lo} ... {hi}') is not a power of two", e.loc)
        if not (fits(lo, "int") and fits(hi - 1, "int")):
            raise self.error(f"range '{lo} ... {hi}' does not fit in 'int'", e.loc)
        return ExprInfo(INT.with_shape((n,)), detail=(lo, hi))

    def _MatMul(self, e: ast.MatMul) -> ExprInfo:
        a, b = self.value(e.lhs), self.value(e.rhs)
        return self.matmul(a.type, b.type, e.loc)

    def matmul(self, at: CType, bt: CType, loc) -> ExprInfo:
        """Type ``a @ b``: ``[M,K,B...] @ [K,N,B...] -> [M,N,B...]``; detail = (input, result) bases."""
        for t, side in ((at, "left"), (bt, "right")):
            if len(t.shape) < 2:
                raise self.error(f"matrix product needs tiles of rank 2 or more; the {side} operand "
                                 f"has type '{t}'", loc)
            if not t.is_arith or t.is_bool:
                raise self.error(f"matrix product of '{t}' is not supported", loc)
        if len(at.shape) != len(bt.shape):
            raise self.error(f"matrix product operands have different ranks: '{at}' and '{bt}'", loc)
        if at.shape[1] != bt.shape[0]:
            raise self.error(f"matrix product shapes {format_shape(at.shape)} and {format_shape(bt.shape)} do not "
                             f"agree: {at.shape[1]} columns times {bt.shape[0]} rows", loc)
        if at.shape[2:] != bt.shape[2:]:
            raise self.error(f"matrix product batch axes differ: {format_shape(at.shape[2:])} and "
                             f"{format_shape(bt.shape[2:])}", loc)
        base = at.base if at.base == bt.base else common_base(at.base, bt.base)
        if base == "unsigned char":
            raise self.error("matrix product of 'unsigned char' is not supported", loc)
        acc = {"half": "float", "bfloat16": "float", "float": "float", "char": "int"}.get(base, base)
        shape = (at.shape[0], bt.shape[1]) + at.shape[2:]
        return ExprInfo(CType(acc, shape=shape), op_type=CType(base), kind="dot", detail=(base, acc))

    # -- ?:, assignment, comma ------------------------------------------------------------------
    def _Conditional(self, e: ast.Conditional) -> ExprInfo:
        c = self.value(e.cond)
        if not c.type.is_scalar_value:
            raise self.error(f"condition of type '{c.type}' is not a boolean", e.cond.loc)
        t, f = self.value(e.then), self.value(e.otherwise)
        elem = self.common_value_type((e.then, t), (e.otherwise, f), e.loc)
        shape = self.broadcast(e.loc, c.type, t.type, f.type)
        if c.type.is_tile:
            for branch in (e.then, e.otherwise):
                self.check_maskable(branch)
        if is_deref(e.then) and not has_effects(e.otherwise):
            kind = "masked_then"
        elif is_deref(e.otherwise) and not has_effects(e.then):
            kind = "masked_else"
        elif not c.type.is_tile and any(has_effects(x) or has_loads(x) for x in (e.then, e.otherwise)):
            kind = "branch"
        else:
            kind = "select"
        const = None
        if c.const is not None and t.const is not None and f.const is not None and elem.is_arith:
            chosen = t if c.const else f
            const = convert_const(chosen.const, chosen.type.base, elem.base)
        return ExprInfo(elem.with_shape(shape), const, op_type=elem, kind=kind)

    def check_maskable(self, branch: ast.Expr, where: str = "a branch of a '?:' whose condition is a tile") -> None:
        """A branch of a tile ``?:`` runs masked by its condition (irgen masks every load, store
        and atomic in it); reject what cannot be masked: ``atomic_cas`` (no mask operand), calls
        of ``__device__`` functions that access memory, and loads in the arguments of a call
        (the callee may move lanes, so no mask of the branch applies to them)."""
        for n in branch.walk():
            if not isinstance(n, ast.Call):
                continue
            info = self.result.exprs.get(id(n))
            kind = info.kind if info is not None else None
            spelling = n.spelling or n.name
            if kind == "cas":
                raise self.error(f"'{spelling}' cannot be masked, so it cannot be in {where}", n.loc)
            if kind == "device":
                if _accesses_memory(self.funcs, n.name, set()):
                    raise self.error(f"'{n.name}' accesses memory, which cannot be masked in a call from {where}",
                                     n.loc)
                for a in n.args:
                    if has_loads(a):
                        raise self.error(f"a load in an argument of '{n.name}' cannot be masked in {where}; "
                                         "load it before the call", a.loc)

    def common_value_type(self, a: tuple[ast.Expr, ExprInfo], b: tuple[ast.Expr, ExprInfo], loc) -> CType:
        """Element type of ``c ? a : b`` / ``select``: arithmetic conversions or equal pointers."""
        at, bt = a[1].type, b[1].type
        if at.is_arith and bt.is_arith:
            base = "bool" if at.is_bool and bt.is_bool else common_base(at.base, bt.base)
            self.warn_double_promotion(base, a, b)
            return CType(base)
        if at.is_pointer and bt.is_pointer and at.base == bt.base:
            return at.element
        for p, other in ((a[1], b[1]), (b[1], a[1])):
            if p.type.is_pointer and other.type.is_integer and other.const == 0:
                return p.type.element  # null pointer constant
        raise self.error(f"incompatible operand types ('{at}' and '{bt}')", loc)

    def _Assign(self, e: ast.Assign) -> ExprInfo:
        target = self.lvalue(e.target)
        v = self.value(e.value)
        if e.op == "=":
            self.promote_local(target.symbol, v.type)
            self.check_convert(v.type, target.type, e.loc, "assigning to", const=v.const)
            return ExprInfo(target.type, symbol=target.symbol)
        b = self.binary(e.op[:-1], target, v, e.loc, e.target, e.value)
        self.promote_local(target.symbol, b.type)
        self.check_convert(b.type, target.type, e.loc, "assigning to")
        return ExprInfo(target.type, symbol=target.symbol, detail=b)

    def _Comma(self, e: ast.Comma) -> ExprInfo:
        infos = [self.expr(x) for x in e.exprs]
        return ExprInfo(infos[-1].type)

    # -- subscripts -----------------------------------------------------------------------------
    def _Subscript(self, e: ast.Subscript) -> ExprInfo:
        """Plan (``detail``): ``perm`` (or None), ``reduce`` [(axis, op)] applied from the last
        axis down, ``newaxis`` result positions (ascending), ``promote`` (reduction base)."""
        x = self.value(e.base)
        t = x.type
        rank = len(t.shape)
        entries = e.entries
        if any(en.kind == "reduce" for en in entries) and t.is_pointer:
            raise self.error(f"cannot reduce a tile of pointers ('{t}')", e.loc)
        if not rank and any(en.kind != "newaxis" for en in entries):
            what = "reduce" if any(en.kind == "reduce" for en in entries) else "subscript"
            raise self.error(f"cannot {what} a scalar of type '{t}'; only 'newaxis' entries apply to scalars", e.loc)
        perm = None
        reduce: list[tuple[int, str]] = []
        newaxis: list[int] = []
        permutes = [en for en in entries if en.kind == "permute"]
        if permutes:
            other = next((en for en in entries if en.kind in ("keep", "reduce")), None)
            if other is not None:
                raise self.error("permutation entries ('^k') cannot be mixed with ':' or reductions", other.loc)
            perm = []
            for en in permutes:
                if not 0 <= en.axis < rank:
                    raise self.error(f"permutation axis {en.axis} is out of range for '{t}'", en.loc)
                if en.axis in perm:
                    raise self.error(f"subscript uses axis {en.axis} twice", en.loc)
                perm.append(en.axis)
            missing = [k for k in range(rank) if k not in perm]
            if missing:
                raise self.error(f"subscript does not use axis {missing[0]} of '{t}'", e.loc)
            shape = [t.shape[k] for k in perm]
            for j, en in enumerate(entries):
                if en.kind == "newaxis":
                    newaxis.append(j)
                    shape.insert(j, 1)
        else:
            used = sum(en.kind in ("keep", "reduce") for en in entries)
            if used != rank:
                raise self.error(f"subscript uses {used} of the {rank} axes of '{t}'; every axis must appear "
                                 "exactly once (':' keeps, '+'/'max'/'min' reduce, 'newaxis' inserts)", e.loc)
            shape, axis = [], 0
            for en in entries:
                if en.kind == "newaxis":
                    newaxis.append(len(shape))
                    shape.append(1)
                    continue
                if en.kind == "keep":
                    shape.append(t.shape[axis])
                else:
                    reduce.append((axis, en.reduce_op))
                axis += 1
            reduce.reverse()
        base = promote(t.base) if reduce else t.base
        result = CType(base, t.pointer, tuple(shape))
        plan = {"perm": perm if perm != list(range(rank)) else None, "reduce": reduce,
                "newaxis": newaxis, "base": base}
        return ExprInfo(result, op_type=CType(base, t.pointer), kind="subscript", detail=plan)

    # -- casts ----------------------------------------------------------------------------------
    def _Cast(self, e: ast.Cast) -> ExprInfo:
        x = self.value(e.operand)
        target = self.resolve_type(e.type, allow_void=True)
        if target.is_void:
            return ExprInfo(VOID)
        if not e.type.is_tile:
            target = target.with_shape(x.type.shape)
        self.check_convert(x.type, target, e.loc, "casting to", explicit=True)
        const = None
        if x.const is not None and target.is_arith and not target.is_tile:
            const = convert_const(x.const, x.type.base, target.base)
        return ExprInfo(target, const)

    def _Bitcast(self, e: ast.Bitcast) -> ExprInfo:
        x = self.value(e.operand)
        target = self.resolve_type(e.type)
        t = x.type
        if t.is_pointer or target.is_pointer:
            raise self.error("bitcast of pointers is not supported; cast through 'long'", e.loc)
        if e.type.is_tile and target.shape != t.shape:
            raise self.error(f"bitcast to '{target}' changes the shape of '{t}'", e.loc)
        if t.bits != target.bits:
            raise self.error(f"bitcast from '{t.element}' ({t.bits} bits) to '{target.element}' "
                             f"({target.bits} bits) changes the width", e.loc)
        const = None
        if x.const is not None and not t.is_tile:
            const = bitcast_const(x.const, t.base, target.base)
        return ExprInfo(target.with_shape(t.shape), const)

    def _GetGlobalRange(self, e: ast.GetGlobalRange) -> ExprInfo:
        n = self.const_int(e.size, "the size of 'get_global_range'")
        if n <= 0 or n & (n - 1):
            raise self.error(f"tile dimension {n} is not a power of two", e.size.loc)
        axis = self.const_int(e.axis, "the axis of 'get_global_range'")
        if axis not in (0, 1, 2):
            raise self.error(f"the axis of 'get_global_range' must be 0, 1 or 2, not {axis}", e.axis.loc)
        return ExprInfo(INT.with_shape((n,)), detail=(n, axis))


def _accesses_memory(funcs: dict, name: str, seen: set[str]) -> bool:
    """Whether ``__device__`` function ``name`` (or one it calls) loads, stores, uses an atomic
    or a barrier."""
    if name in seen or name not in funcs:
        return False
    seen.add(name)
    for n in funcs[name].node.body.walk():
        if isinstance(n, ast.MaskedDeref) or (isinstance(n, ast.Unary) and n.op == "*"):
            return True
        if isinstance(n, ast.Call) and not is_pure_builtin_call(n):
            if n.name not in funcs or _accesses_memory(funcs, n.name, seen):
                return True
    return False
