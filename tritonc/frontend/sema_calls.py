"""Type checking of calls: Triton-C built-ins and ``__device__`` functions (spec sections 2 and 5).

A mixin of :class:`~tritonc.frontend.sema.Sema`. The parser already maps pure renames to the
canonical built-in (``get_range_id`` -> ``get_program_id``, ``__atomic_exch`` -> ``atomic_xchg``,
``atomic_add_float_64x64`` -> ``atomic_add``, see ``ast.CALL_ALIASES``); messages quote the
name as the user spelled it (``Call.spelling``).

Each checked call records ``ExprInfo.kind`` for irgen:

* ``'get_program_id'`` / ``'get_num_programs'`` (``detail`` = axis, a constant 0..2);
* ``'minmax'`` (``detail`` = ``'min'``/``'max'``), element-wise after arithmetic conversions;
* ``'math'`` (``detail`` = function name): result ``float`` for integer/half/bfloat16/float
  operands, ``double`` for ``double`` (spec 5, also for ``abs``: the spec makes ``abs`` of an
  integer a ``float``, unlike C); ``sqrtf`` always computes in ``float``, as its name says;
* ``'fma'``, ``'select'`` (both branches evaluated), ``'dot'`` (``dot(a, b)``) and ``'dot3'``
  (``dot(a, b, c)`` = ``c + a @ b``), ``'trans'`` (``detail`` = axis order), ``'subscript'``
  (``__sum``, same plan as ``x[+]``), ``'reshape'``;
* ``'random'`` (``detail`` = ``rand``/``randn``/``randint``), see :meth:`CallChecker.random`;
* ``'atomic'`` (``detail`` = the ``tt.atomic_rmw`` kind: ``add fadd max umax fmax min umin
  fmin xchg``), ``'cas'``, ``'barrier'``; ``'device'`` (``detail`` = callee: the function, or its
  element-wise instance for a call with tile arguments).

A call whose spelling names a function of the file (``Call.user``) is that function, even when
a built-in has the name.

Atomics take a pointer or pointer tile; values (and the optional mask of ``atomic_add``,
``atomic_max``, ``atomic_min``) broadcast together with it; the result is the old value(s).
"""
from __future__ import annotations

import copy

from tritonc.frontend import ast
from tritonc.frontend.ctype import INT, VOID, CType, common_base, convert_const, format_shape, promote
from tritonc.frontend.sema_info import ExprInfo, FuncInfo, Symbol

_MATH = ("exp", "exp2", "log", "log2", "sqrt", "sqrtf", "rsqrt", "sin", "cos", "abs", "fabs", "floor", "ceil")

#: Built-in name -> (fewest, most arguments; ``None`` = any number).
BUILTINS: dict[str, tuple[int, int | None]] = {
    "get_program_id": (1, 1), "get_num_programs": (1, 1), "min": (2, 2), "max": (2, 2),
    **{m: (1, 1) for m in _MATH},
    "fma": (3, 3), "select": (3, 3), "dot": (2, 3), "trans": (1, None), "__sum": (2, 2),
    "__reshape": (2, None), "atomic_add": (2, 3), "atomic_max": (2, 3), "atomic_min": (2, 3),
    "atomic_xchg": (2, 2), "atomic_cas": (3, 3), "__debug_barrier": (0, 0),
    "rand": (2, 2), "randn": (2, 2), "randint": (2, 2),
}

_INT_WIDE = ("int", "unsigned int", "long", "unsigned long")
_ATOMIC_TYPES = {
    "atomic_add": _INT_WIDE + ("float", "half"),
    "atomic_max": _INT_WIDE + ("float",),
    "atomic_min": _INT_WIDE + ("float",),
    "atomic_xchg": _INT_WIDE + ("float", "double"),
    "atomic_cas": _INT_WIDE + ("float", "double"),
}


def _plural(n: int, word: str = "argument") -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class CallChecker:
    """Call rules; relies on ``Sema`` and ``ExprChecker``."""

    def _Call(self, e: ast.Call) -> ExprInfo:
        name, spelling = e.name, e.spelling or e.name
        if name in BUILTINS and not e.user:
            lo, hi = BUILTINS[name]
            if spelling != name and spelling.startswith("atomic_add_"):
                lo = hi = 3
            n = len(e.args)
            if n < lo or (hi is not None and n > hi):
                want = (_plural(lo) if lo == hi else f"{lo} or {_plural(hi)}" if hi == lo + 1
                        else f"at least {_plural(lo)}")
                raise self.error(f"'{spelling}' takes {want}, {n} given", e.loc)
            return self.builtin(e, name, spelling)
        f = self.funcs.get(name)
        if f is None:
            if self.lookup(name) is not None:
                raise self.error(f"called object '{name}' is not a function", e.loc)
            raise self.error(f"unknown function '{spelling}'", e.loc)
        if f.kind == "kernel":
            raise self.error(f"cannot call kernel '{name}'; only '__device__' functions can be called", e.loc)
        if len(e.args) != len(f.params):
            raise self.error(f"'{name}' takes {_plural(len(f.params))}, {len(e.args)} given", e.loc)
        infos = [self.value(arg) for arg in e.args]
        self.calls.append((self.current.elementwise_of or self.current.name, name, e.loc))
        if any(i.type.is_tile for i in infos) and not any(p.type.is_tile for p in f.params):
            f = self.elementwise_instance(f, e, infos)
        for arg, info, param in zip(e.args, infos, f.params):
            self.check_convert(info.type, param.type, arg.loc, "passing to parameter of type", const=info.const)
        return ExprInfo(f.result, kind="device", detail=f.name)

    def elementwise_instance(self, f: FuncInfo, e: ast.Call, infos: list[ExprInfo]) -> FuncInfo:
        """The element-wise instance of device function ``f`` (all parameters scalars or
        pointers) for a call with tile arguments (spec section 2: device functions are
        shape-polymorphic, as OpenAI Triton's ``@jit`` functions and the built-in ``min``/``max``).

        The tile arguments broadcast together (as a binary operator's operands) to a shape ``S``;
        the instance is ``f`` with each parameter that receives a tile typed as a tile of ``S``
        of its element type, and a result (if any) of ``S`` elements; parameters given scalars
        stay scalars. Its body is the same source, checked again with these types after every
        function's own body (so an operation that has no tile form, such as an ``if`` on a
        parameter, is an error there, with a note at the call). One instance per ``(f, S, tile
        parameters)``; its IR function is ``<f>__ew<S>`` (``twice__ew16x16``), plus ``_<mask>``
        (``t``/``s`` per parameter) when some parameter stays scalar. Raises ``CompileError``
        when the tile arguments do not broadcast."""
        shape = self.broadcast(e.loc, *(i.type for i in infos))
        mask = tuple(i.type.is_tile for i in infos)
        key = (f.name, shape, mask)
        inst = self.instances.get(key)
        if inst is not None:
            return inst
        name = f"{f.name}__ew{'x'.join(map(str, shape))}" + ("" if all(mask) else "_" + "".join("ts"[not m] for m in mask))
        taken = set(self.funcs) | {i.name for i in self.instances.values()}
        while name in taken:  # a user's function of that name
            name += "_"
        node = copy.deepcopy(f.node)  # fresh nodes: sema's facts are keyed by node identity
        node.name = name
        params = []
        for p, tile, sym_node in zip(f.params, mask, node.params):
            sym = Symbol(p.name, p.type.with_shape(shape) if tile else p.type, "param", sym_node.loc,
                         is_const=p.is_const, multipleof=None if tile else p.multipleof)
            self.result.decls[id(sym_node)] = sym
            params.append(sym)
        attrs = [{} if tile else dict(a) for a, tile in zip(f.arg_attrs, mask)]
        result = f.result if f.result.is_void else f.result.with_shape(shape)
        inst = FuncInfo(name, node, "device", params, result, attrs, elementwise_of=f.name, call_loc=e.loc,
                        ew_shape=shape)
        self.instances[key] = inst
        self.result.functions.append(inst)
        return inst

    def builtin(self, e: ast.Call, name: str, spelling: str) -> ExprInfo:
        args = e.args
        if name in ("get_program_id", "get_num_programs"):
            axis = self.const_int(args[0], f"the axis of '{spelling}'")
            if axis not in (0, 1, 2):
                raise self.error(f"the axis of '{spelling}' must be 0, 1 or 2, not {axis}", args[0].loc)
            return ExprInfo(INT, kind=name, detail=axis)
        if name == "__debug_barrier":
            return ExprInfo(VOID, kind="barrier")
        if name.startswith("atomic_"):
            return self.atomic(e, name, spelling)
        if name in ("rand", "randn", "randint"):
            return self.random(e, name)
        infos = [self.value(a) for a in args] if name not in ("trans", "__sum", "__reshape") else None
        if name in ("min", "max", "fma") or name in _MATH:
            for a, info in zip(args, infos):
                if not info.type.is_arith:
                    raise self.error(f"'{spelling}' needs arithmetic operands, not '{info.type}'", a.loc)
        if name in ("min", "max"):
            (a, b) = infos
            base = common_base(a.type.base, b.type.base)
            self.warn_double_promotion(base, (args[0], a), (args[1], b))
            shape = self.broadcast(e.loc, a.type, b.type)
            const = None
            if a.const is not None and b.const is not None:
                x, y = convert_const(a.const, a.type.base, base), convert_const(b.const, b.type.base, base)
                const = min(x, y) if name == "min" else max(x, y)
            return ExprInfo(CType(base, shape=shape), const, op_type=CType(base), kind="minmax", detail=name)
        if name in _MATH:
            t = infos[0].type
            base = "double" if t.base == "double" and name != "sqrtf" else "float"
            return ExprInfo(t.with_base(base), op_type=CType(base), kind="math", detail=name)
        if name == "fma":
            base = common_base(common_base(infos[0].type.base, infos[1].type.base), infos[2].type.base)
            base = "double" if base == "double" else "float"
            shape = self.broadcast(e.loc, *(i.type for i in infos))
            return ExprInfo(CType(base, shape=shape), op_type=CType(base), kind="fma")
        if name == "select":
            c, a, b = infos
            if not c.type.is_scalar_value:
                raise self.error(f"condition of type '{c.type}' is not a boolean", args[0].loc)
            elem = self.common_value_type((args[1], a), (args[2], b), e.loc)
            shape = self.broadcast(e.loc, c.type, a.type, b.type)
            return ExprInfo(elem.with_shape(shape), op_type=elem, kind="select")
        if name == "dot":
            m = self.matmul(infos[0].type, infos[1].type, e.loc)
            if len(args) == 2:
                return m
            acc = self.binary("+", infos[2], m, e.loc, args[2], e)
            return ExprInfo(acc.type, op_type=acc.op_type, kind="dot3", detail=(m, acc))
        return self.shape_builtin(e, name, spelling)

    def shape_builtin(self, e: ast.Call, name: str, spelling: str) -> ExprInfo:
        """``trans(x[, perm...])``, ``__sum(x, axis)``, ``__reshape(x, d0, ...)``."""
        args = e.args
        x = self.value(args[0])
        t = x.type
        if name == "__reshape":
            dims = tuple(self.tile_dim(d) for d in args[1:])
            if t.numel != CType("int", shape=dims).numel:
                raise self.error(f"cannot reshape '{t}' to {format_shape(dims)}: the element counts differ", e.loc)
            return ExprInfo(t.with_shape(dims), kind="reshape")
        if not t.is_tile:
            raise self.error(f"'{spelling}' needs a tile operand; '{t}' is a scalar", args[0].loc)
        rank = len(t.shape)
        if name == "__sum":
            axis = self.const_int(args[1], f"the axis of '{spelling}'")
            if not 0 <= axis < rank:
                raise self.error(f"axis {axis} is out of range for '{t}'", args[1].loc)
            if t.is_pointer:
                raise self.error(f"cannot reduce a tile of pointers ('{t}')", e.loc)
            base = promote(t.base)
            shape = t.shape[:axis] + t.shape[axis + 1:]
            plan = {"perm": None, "reduce": [(axis, "+")], "newaxis": [], "base": base}
            return ExprInfo(CType(base, shape=shape), op_type=CType(base), kind="subscript", detail=plan)
        if len(args) == 1:
            order = list(range(1, rank)) + [0]
        else:
            order = []
            for a in args[1:]:
                k = self.const_int(a, f"a permutation axis of '{spelling}'")
                if not 0 <= k < rank:
                    raise self.error(f"permutation axis {k} is out of range for '{t}'", a.loc)
                if k in order:
                    raise self.error(f"permutation uses axis {k} twice", a.loc)
                order.append(k)
            if len(order) != rank:
                raise self.error(f"'{spelling}' needs a permutation of all {rank} axes of '{t}', "
                                 f"got {len(order)}", e.loc)
        return ExprInfo(t.with_shape(tuple(t.shape[k] for k in order)), kind="trans", detail=order)

    def random(self, e: ast.Call, name: str) -> ExprInfo:
        """``rand``/``randn``/``randint(seed, offsets)`` (spec section 5, random numbers).

        ``seed`` must be an integer scalar (any width but ``bool``; extended to 64 bits by its
        signedness, as OpenAI Triton's ``seed.to(tl.uint64)``); ``offsets`` a 32-bit integer
        (``int`` or ``unsigned int``) scalar or tile. Triton draws 64-bit offsets from a
        different generator (Philox 4x64), which tritonc does not implement, so those are an
        error that says so. The result has the offsets' shape: ``float`` for ``rand``/``randn``,
        ``unsigned int`` for ``randint``. ``kind = 'random'``, ``detail`` = the name.
        """
        seed_arg, off_arg = e.args
        seed, off = self.value(seed_arg), self.value(off_arg)
        st, ot = seed.type, off.type
        if st.is_tile or not st.is_integer or st.is_bool:
            raise self.error(f"the seed of '{name}' must be an integer scalar, not '{st}'", seed_arg.loc)
        if not ot.is_integer or ot.is_bool:
            raise self.error(f"the offsets of '{name}' must be 'int' or 'unsigned int' (a scalar or a tile), "
                             f"not '{ot}'", off_arg.loc)
        if ot.bits == 64:
            raise self.error(f"64-bit offsets of '{name}' are not supported ('{ot}'): OpenAI Triton draws them "
                             f"from Philox 4x64, which tritonc does not implement; convert the offsets to 'int'",
                             off_arg.loc)
        if ot.bits != 32:
            raise self.error(f"the offsets of '{name}' must be 'int' or 'unsigned int' (a scalar or a tile), "
                             f"not '{ot}'", off_arg.loc)
        base = "unsigned int" if name == "randint" else "float"
        return ExprInfo(ot.with_base(base), kind="random", detail=name)

    def atomic(self, e: ast.Call, name: str, spelling: str) -> ExprInfo:
        args = e.args
        p = self.value(args[0])
        if not p.type.is_pointer:
            raise self.error(f"the first argument of '{spelling}' must be a pointer or a tile of pointers, "
                             f"not '{p.type}'", args[0].loc)
        base = p.type.base
        if base not in _ATOMIC_TYPES[name]:
            allowed = ", ".join(f"'{b}'" for b in _ATOMIC_TYPES[name])
            raise self.error(f"'{spelling}' on '{p.type.element}' is not supported; it takes pointers to {allowed}",
                             args[0].loc)
        values = [self.value(a) for a in args[1:]]
        nvals = 2 if name == "atomic_cas" else 1
        shape = self.broadcast(e.loc, p.type, *(v.type for v in values))
        elem = CType(base, shape=shape)
        for a, v in zip(args[1:1 + nvals], values):
            self.check_convert(v.type, elem, a.loc, "passing to parameter of type")
        if len(values) > nvals:
            mask = values[-1]
            if not mask.type.is_scalar_value:
                raise self.error(f"mask of type '{mask.type}' is not a boolean", args[-1].loc)
        if name == "atomic_cas":
            return ExprInfo(elem, kind="cas")
        is_float = elem.is_float
        signed = elem.is_signed
        kind = {"atomic_add": "fadd" if is_float else "add",
                "atomic_max": "fmax" if is_float else ("max" if signed else "umax"),
                "atomic_min": "fmin" if is_float else ("min" if signed else "umin"),
                "atomic_xchg": "xchg"}[name]
        return ExprInfo(elem, kind="atomic", detail=kind)
