"""The operation set of the tile IR: one :class:`OpDef` per operation name.

An ``OpDef`` names the operands (``"ptr"``, ``"mask?"`` optional, ``"inits*"`` variadic, at
most one of either kind and only at the end), the required attributes, the number of regions,
a ``verify`` hook that checks types, and the op's *facts*, which passes query instead of
keeping their own lists of op names (MLIR's op traits and ``MemoryEffectOpInterface``):

* ``pure``: free of side effects (CSE, DCE and LICM may move or drop it);
* ``traits`` (:data:`TRAITS`): ``elementwise``, ``same-layout``, ``commutative``,
  ``terminator``, ``control-flow``, ``cheap`` (see :data:`TRAITS` for each);
* ``effects``: the :class:`~tritonc.ir.effects.MemoryEffect` kinds it has (``()`` none,
  ``None`` not modelled, :data:`~tritonc.ir.effects.RECURSIVE` those of its regions);
* ``shared_effects(op)``: what it does to explicit shared-memory buffers
  (:class:`~tritonc.ir.effects.SharedEffect`, ``ir/ttg_ops.py``);
* ``scratch(op)``: bytes of shared memory its lowering uses internally (``ir/scratch.py``).

Queries: :func:`has_trait`, :func:`is_read_only`, :func:`shared_effects`,
:func:`scratch_bytes`; each raises :class:`VerifyError` for an op name that is not registered
(a typo in a pass is an error, not a silent ``False``).

Op semantics (used by the interpreter and the lowering):

Element-wise (scalars or tiles; all operands and the result have one shape):

* ``arith.constant {value}``: a scalar, or a tile with every element ``value`` (splat).
* integer ``arith.{addi,subi,muli,divsi,divui,remsi,remui,andi,ori,xori,shli,shrsi,shrui,
  maxsi,minsi,maxui,minui}``; wrap-around two's complement, C semantics (division truncates).
* float ``arith.{addf,subf,mulf,divf,remf,maxnumf,minnumf}``, ``arith.negf``.
* ``arith.cmpi {predicate: eq ne slt sle sgt sge ult ule ugt uge}`` and
  ``arith.cmpf {predicate: oeq one olt ole ogt oge ueq une ult ule ugt uge ord uno}`` give i1.
* ``arith.select(cond, a, b)``: evaluates both sides.
* casts ``arith.{extsi,extui,trunci,sitofp,uitofp,fptosi,fptoui,extf,truncf,bitcast}``.
* ``math.{exp,exp2,log,log2,sqrt,rsqrt,sin,cos,absf,floor,ceil}``, ``math.absi``, ``math.fma(a,b,c)``.
* ``math.philox(counter, key0, key1) {word}``: i32 operands and result; word ``word`` (0..3)
  of the Philox4x32-10 block for counter ``(counter, 0, 0, 0)`` and key ``(key0, key1)``
  (Salmon et al., SC 2011; the ``rand``/``randn``/``randint`` built-ins, spec section 5).

Tile and memory operations (``tt.*``):

* ``tt.get_program_id {axis}`` / ``tt.get_num_programs {axis}``: i32 scalars.
* ``tt.make_range {start, end}``: ``i32[end-start]`` = start, start+1, ..., end-1.
* ``tt.splat(x)``: scalar to tile. ``tt.broadcast(x)``: same rank, size-1 dims stretched.
  ``tt.expand_dims(x) {axis}``: insert a size-1 dimension. ``tt.reshape(x)``: same element
  count, row-major order. ``tt.trans(x) {order}``: ``result.shape[i] = x.shape[order[i]]``.
* ``tt.extract(x) {axis, index}``: the slice ``index`` of ``x`` along ``axis`` (rank - 1), numpy's
  ``x.take(index, axis)``. ``tt.stack(x0, ..., xn) {axis}``: the operands (one type) stacked
  along a new dimension ``axis`` of size ``n + 1``, numpy's ``stack``. Both come from
  ``unbatch-dots`` (a batched ``tt.dot`` split into 2-D dots), which runs on ttg IR.
* ``tt.addptr(ptr, offset)``: ``ptr + offset`` elements (offset sign-extended).
  ``tt.ptr_to_int(ptr)`` -> i64 address; ``tt.int_to_ptr(i64)`` -> pointer.
* ``tt.load(ptr, mask?, other?)``: gather; masked-off lanes read nothing and yield ``other``
  (undefined without it). ``tt.store(ptr, value, mask?)``: scatter.
* ``tt.dot(a, b, acc) {input_precision}``: ``acc + a @ b`` for ``[M,K] @ [K,N]``, with optional
  trailing batch axes ``[M,K,B] @ [K,N,B] -> [M,N,B]``; ``input_precision`` is ``"ieee"`` or
  ``"tf32"``.
* ``tt.reduce(x) {axis, combine}``: reduce dimension ``axis`` with the arith op named by
  ``combine`` (``"addi" "addf" "maxsi" "maxui" "maxnumf" "minsi" "minui" "minnumf"``); a rank-1
  operand gives a scalar.
* ``tt.atomic_rmw(ptr, value, mask?) {kind}``: kind in ``add fadd max umax min umin fmax fmin
  xchg``; relaxed, device scope; returns the old values. ``tt.atomic_cas(ptr, cmp, value)``.
* ``gpu.barrier``: a CTA-wide barrier (``__debug_barrier()`` and barriers inserted by passes).
* ``tt.call(args*) {callee}`` (removed by inlining), ``tt.return(values*)``.

Structured control flow (``scf.*``), each region one block:

* ``scf.for(lb, ub, step, inits*) {predicate}``: body block args ``(iv, iters...)``; the loop runs
  while ``cmpi predicate(iv, ub)`` holds, ``iv += step`` after each trip; ``scf.yield`` gives the
  next iteration's values; results are the final values.
* ``scf.while(inits*)``: region 0 ("before", args = carried values) ends in
  ``scf.condition(cond, values*)``; if ``cond`` holds region 1 ("after") runs with those values and
  its ``scf.yield`` feeds region 0 again; otherwise they are the results.
* ``scf.if(cond)``: regions then/else, each ending in ``scf.yield`` of the results.

Other modules (the ttg level) add ops with :func:`register_op`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .effects import READ, READ_GLOBAL, RECURSIVE, WRITE_GLOBAL, MemoryEffect, SharedEffect
from .scratch import atomic_scratch, dot_scratch, redistribution_scratch, reduce_scratch, stack_scratch
from .types import I1, I32, I64, PointerType, ScalarType, TileType, Type, element_type, shape_of


class VerifyError(Exception):
    """An op whose operands, results or attributes break its definition (a compiler bug)."""


Verifier = Callable[["Operation"], None]  # noqa: F821

#: Op traits, by name, with what each promises about every op that has it.
TRAITS = {
    "elementwise": "scalars or tiles of one shape; result element i depends on operand elements i only",
    "same-layout": "its tile operands and results all have one layout (a tile op that moves no "
                   "element between threads)",
    "commutative": "op(a, b) == op(b, a): canonicalize puts constants on the right, CSE ignores order",
    "terminator": "ends its block (tt.return, scf.yield, scf.condition)",
    "control-flow": "structured control flow or its terminators (scf.*): passes values between "
                    "regions and results without looking at them",
    "cheap": "as cheap to compute again in another layout as to convert its result: integer "
             "arithmetic and register-only tile ops (remove-layout-conversions)",
}

Effects = "tuple[MemoryEffect, ...] | str | None"


@dataclass
class OpDef:
    name: str
    operands: tuple[str, ...] = ()
    attrs: tuple[str, ...] = ()
    num_results: int | None = 1  # None: variable
    num_regions: int = 0
    pure: bool = True
    verify: Verifier | None = None
    doc: str = ""
    #: Names from :data:`TRAITS`.
    traits: frozenset[str] = frozenset()
    #: Memory effects: ``()`` none; a tuple of :class:`~tritonc.ir.effects.MemoryEffect`;
    #: ``RECURSIVE``: those of the ops in its regions; ``None``: not modelled (assume any).
    effects: tuple[MemoryEffect, ...] | str | None = ()
    #: ``shared_effects(op)``: the op's effects on explicit shared-memory buffers.
    shared_effects: Callable[["Operation"], list[SharedEffect]] | None = None  # noqa: F821
    #: ``scratch(op)``: bytes of scratch shared memory the op's lowering uses (0: none).
    scratch: Callable[["Operation"], int] | None = None  # noqa: F821
    operand_names: tuple[str, ...] = field(init=False)
    #: Fewest and most operands ``operands`` allows (most: ``None`` with a ``*`` operand).
    operand_range: tuple[int, int | None] = field(init=False)

    def __post_init__(self) -> None:
        self.operand_names = tuple(n.rstrip("?*") for n in self.operands)
        fixed = sum(not n.endswith(("?", "*")) for n in self.operands)
        variadic = any(n.endswith("*") for n in self.operands)
        self.operand_range = (fixed, None if variadic else len(self.operands))
        self.traits = frozenset(self.traits)
        unknown = self.traits - TRAITS.keys()
        if unknown:
            raise ValueError(f"op '{self.name}': unknown trait(s) {', '.join(sorted(unknown))}")
        if self.pure and self.effects != ():
            raise ValueError(f"op '{self.name}': a pure op has no memory effects")

    @property
    def terminator(self) -> bool:
        return "terminator" in self.traits

    @property
    def commutative(self) -> bool:
        return "commutative" in self.traits

    def operand(self, op, name: str):
        """Resolve named operand ``name`` of ``op`` (fixed, then optional ``?`` or variadic ``*``)."""
        fixed = [n for n in self.operands if not n.endswith(("?", "*"))]
        tail = [n for n in self.operands if n.endswith(("?", "*"))]
        if name in fixed:
            return op.operands[fixed.index(name)]
        rest = op.operands[len(fixed):]
        for i, spec in enumerate(tail):
            if spec.rstrip("?*") != name:
                continue
            if spec.endswith("*"):
                return list(rest[i:])
            return rest[i] if i < len(rest) else None
        raise KeyError(f"{self.name} has no operand {name!r}")


_REGISTRY: dict[str, OpDef] = {}


def register_op(opdef: OpDef) -> OpDef:
    _REGISTRY[opdef.name] = opdef
    return opdef


def get_opdef(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise VerifyError(f"unknown operation '{name}'") from None


def is_registered(name: str) -> bool:
    return name in _REGISTRY


def all_opdefs() -> dict[str, OpDef]:
    return dict(_REGISTRY)


def _opdef_of(op_or_name) -> OpDef:
    return get_opdef(op_or_name if isinstance(op_or_name, str) else op_or_name.name)


def has_trait(op_or_name, trait: str) -> bool:
    """Whether the op (an :class:`Operation` or an op name) has ``trait`` (a key of :data:`TRAITS`).

    Raises:
        VerifyError: the op name is not registered.
        ValueError: ``trait`` is not a known trait.
    """
    if trait not in TRAITS:
        raise ValueError(f"unknown op trait '{trait}' (traits: {', '.join(TRAITS)})")
    return trait in _opdef_of(op_or_name).traits


def is_read_only(op_or_name) -> bool:
    """Whether the op reads memory and does nothing else to it (an unused ``tt.load`` may go).

    Raises:
        VerifyError: the op name is not registered.
    """
    effects = _opdef_of(op_or_name).effects
    return isinstance(effects, tuple) and bool(effects) and all(e.kind == READ for e in effects)


def memory_effects(op_or_name) -> tuple[MemoryEffect, ...] | str | None:
    """The op's declared memory effects (see :attr:`OpDef.effects`).

    Raises:
        VerifyError: the op name is not registered.
    """
    return _opdef_of(op_or_name).effects


def shared_effects(op) -> list[SharedEffect]:
    """What ``op`` (an :class:`Operation`) does to explicit shared-memory buffers, in order
    ([] for an op that touches none).

    Raises:
        VerifyError: the op's name is not registered.
    """
    query = _opdef_of(op).shared_effects
    return list(query(op)) if query is not None else []


def has_shared_effects(op_or_name) -> bool:
    """Whether the op declares effects on explicit shared-memory buffers.

    Raises:
        VerifyError: the op name is not registered.
    """
    return _opdef_of(op_or_name).shared_effects is not None


def scratch_bytes(op) -> int:
    """Bytes of scratch shared memory ``op``'s lowering uses (0 for an op that needs none).

    Raises:
        VerifyError: the op's name is not registered.
    """
    query = _opdef_of(op).scratch
    return int(query(op)) if query is not None else 0


# --- verification helpers ------------------------------------------------------------------

def _fail(op, message: str) -> None:
    raise VerifyError(f"'{op.name}': {message}")


def _same_shape(op, *values) -> None:
    shapes = {shape_of(v.type) for v in values}
    if len(shapes) != 1:
        _fail(op, "operand and result shapes differ: " + ", ".join(str(v.type) for v in values))


def _verify_same_type(op) -> None:
    types = [v.type for v in op.operands] + [r.type for r in op.results]
    if any(t != types[0] for t in types):
        _fail(op, "operands and result must have one type, got " + ", ".join(map(str, types)))


def _int_elementwise(op) -> None:
    _verify_same_type(op)
    if not element_type(op.results[0].type).is_int:
        _fail(op, f"expects integer operands, got {op.results[0].type}")


def _float_elementwise(op) -> None:
    _verify_same_type(op)
    el = element_type(op.results[0].type)
    if not (isinstance(el, ScalarType) and el.is_float):
        _fail(op, f"expects floating-point operands, got {op.results[0].type}")


def _verify_cmp(op) -> None:
    a, b = op.operands
    if a.type != b.type:
        _fail(op, f"operand types differ: {a.type} vs {b.type}")
    if element_type(op.result.type) != I1:
        _fail(op, "result must be i1")
    _same_shape(op, a, b, op.result)


def _verify_select(op) -> None:
    c, a, b = op.operands
    if a.type != b.type or a.type != op.result.type:
        _fail(op, f"branches and result must have one type: {a.type}, {b.type} -> {op.result.type}")
    if element_type(c.type) != I1 or (shape_of(c.type) and shape_of(c.type) != shape_of(a.type)):
        _fail(op, f"condition must be i1 of the result's shape or a scalar, got {c.type}")


def _verify_cast(op) -> None:
    _same_shape(op, op.operands[0], op.result)


def _verify_bitcast(op) -> None:
    _same_shape(op, op.operands[0], op.result)
    src, dst = element_type(op.operands[0].type), element_type(op.result.type)
    if src.bytes * 8 != dst.bytes * 8 or getattr(src, "bits", 64) != getattr(dst, "bits", 64):
        _fail(op, f"bitcast between types of different widths: {src} -> {dst}")


def _verify_philox(op) -> None:
    _verify_same_type(op)
    if element_type(op.result.type) != I32:
        _fail(op, f"expects i32 operands, got {op.result.type}")
    if op.attrs["word"] not in (0, 1, 2, 3):
        _fail(op, f"word must be 0..3, got {op.attrs['word']!r}")


def _verify_constant(op) -> None:
    if "value" not in op.attrs:
        _fail(op, "missing 'value'")


def _verify_make_range(op) -> None:
    start, end = op.attrs["start"], op.attrs["end"]
    t = op.result.type
    if not isinstance(t, TileType) or t.shape != (end - start,) or t.element != I32:
        _fail(op, f"result must be i32[{end - start}], got {t}")


def _verify_splat(op) -> None:
    src, res = op.operands[0].type, op.result.type
    if isinstance(src, TileType) or not isinstance(res, TileType) or res.element != src:
        _fail(op, f"splat of {src} to {res}")


def _verify_broadcast(op) -> None:
    src, res = op.operands[0].type, op.result.type
    if not (isinstance(src, TileType) and isinstance(res, TileType)) or src.rank != res.rank or src.element != res.element:
        _fail(op, f"broadcast of {src} to {res}")
    for s, r in zip(src.shape, res.shape):
        if s != r and s != 1:
            _fail(op, f"broadcast of {src} to {res}: dimension {s} is neither {r} nor 1")


def _verify_expand_dims(op) -> None:
    src, res, axis = op.operands[0].type, op.result.type, op.attrs["axis"]
    shape = list(shape_of(src))
    shape.insert(axis, 1)
    if tuple(shape) != shape_of(res) or element_type(src) != element_type(res):
        _fail(op, f"expand_dims axis {axis} of {src} cannot give {res}")


def _verify_reshape(op) -> None:
    src, res = op.operands[0].type, op.result.type
    if not isinstance(res, TileType) or not isinstance(src, TileType) or src.numel != res.numel or src.element != res.element:
        _fail(op, f"reshape of {src} to {res}")


def _verify_trans(op) -> None:
    src, res, order = op.operands[0].type, op.result.type, list(op.attrs["order"])
    if sorted(order) != list(range(len(shape_of(src)))):
        _fail(op, f"order {order} is not a permutation of the axes of {src}")
    if tuple(src.shape[i] for i in order) != res.shape or src.element != res.element:
        _fail(op, f"trans {order} of {src} cannot give {res}")


def _verify_extract(op) -> None:
    src, res, axis, index = op.operands[0].type, op.result.type, op.attrs["axis"], op.attrs["index"]
    if not isinstance(src, TileType) or src.rank < 2 or not 0 <= axis < src.rank:
        _fail(op, f"extract axis {axis} of {src}: needs a tile of rank >= 2")
    if not 0 <= index < src.shape[axis]:
        _fail(op, f"extract index {index} out of range for axis {axis} of {src}")
    shape = src.shape[:axis] + src.shape[axis + 1:]
    if not isinstance(res, TileType) or res.shape != shape or res.element != src.element:
        _fail(op, f"extract axis {axis} of {src} cannot give {res}")


def _verify_stack(op) -> None:
    if not op.operands:
        _fail(op, "stack needs at least one operand")
    src, res, axis = op.operands[0].type, op.result.type, op.attrs["axis"]
    if not isinstance(src, TileType) or any(v.type.shape != src.shape or v.type.element != src.element
                                            for v in op.operands):
        _fail(op, "stack operands must be tiles of one shape and element type")
    if not 0 <= axis <= src.rank:
        _fail(op, f"stack axis {axis} out of range for {src}")
    shape = src.shape[:axis] + (len(op.operands),) + src.shape[axis:]
    if not isinstance(res, TileType) or res.shape != shape or res.element != src.element:
        _fail(op, f"stack of {len(op.operands)} x {src} on axis {axis} cannot give {res}")


def _verify_addptr(op) -> None:
    ptr, off = op.operands
    if not isinstance(element_type(ptr.type), PointerType) or ptr.type != op.result.type:
        _fail(op, f"expects a pointer operand of the result type, got {ptr.type} -> {op.result.type}")
    if not element_type(off.type).is_int:
        _fail(op, f"offset must be an integer, got {off.type}")
    _same_shape(op, ptr, off)


def _verify_load(op) -> None:
    ptr = op.get("ptr")
    el = element_type(ptr.type)
    if not isinstance(el, PointerType) or element_type(op.result.type) != el.pointee:
        _fail(op, f"load through {ptr.type} cannot give {op.result.type}")
    _same_shape(op, ptr, op.result)
    mask, other = op.get("mask"), op.get("other")
    if mask is not None and (element_type(mask.type) != I1 or shape_of(mask.type) != shape_of(ptr.type)):
        _fail(op, f"mask must be i1 of the pointer's shape, got {mask.type}")
    if other is not None and other.type != op.result.type:
        _fail(op, f"'other' must have the result type {op.result.type}, got {other.type}")


def _verify_store(op) -> None:
    ptr, value, mask = op.get("ptr"), op.get("value"), op.get("mask")
    el = element_type(ptr.type)
    if not isinstance(el, PointerType) or element_type(value.type) != el.pointee:
        _fail(op, f"store of {value.type} through {ptr.type}")
    _same_shape(op, ptr, value)
    if mask is not None and (element_type(mask.type) != I1 or shape_of(mask.type) != shape_of(ptr.type)):
        _fail(op, f"mask must be i1 of the pointer's shape, got {mask.type}")


def _verify_dot(op) -> None:
    a, b, acc = (v.type for v in op.operands)
    res = op.result.type
    if not all(isinstance(t, TileType) for t in (a, b, acc, res)) or acc != res:
        _fail(op, f"dot of {a} and {b} with accumulator {acc} -> {res}")
    if a.rank < 2 or a.rank != b.rank or a.shape[1] != b.shape[0] or a.shape[2:] != b.shape[2:]:
        _fail(op, f"dot shapes do not agree: {a} @ {b}")
    if res.shape != (a.shape[0], b.shape[1]) + a.shape[2:]:
        _fail(op, f"dot result {res} does not match {a} @ {b}")


def _verify_reduce(op) -> None:
    src, res, axis = op.operands[0].type, op.result.type, op.attrs["axis"]
    shape = list(shape_of(src))
    if not 0 <= axis < len(shape):
        _fail(op, f"axis {axis} out of range for {src}")
    del shape[axis]
    if tuple(shape) != shape_of(res) or element_type(src) != element_type(res):
        _fail(op, f"reduce of {src} along {axis} cannot give {res}")
    if op.attrs["combine"] not in ("addi", "addf", "maxsi", "maxui", "maxnumf", "minsi", "minui", "minnumf", "muli", "mulf", "andi", "ori", "xori"):
        _fail(op, f"unknown combine op {op.attrs['combine']!r}")


def _verify_atomic_rmw(op) -> None:
    ptr, value = op.get("ptr"), op.get("value")
    el = element_type(ptr.type)
    if not isinstance(el, PointerType) or element_type(value.type) != el.pointee or op.result.type != value.type:
        _fail(op, f"atomic on {ptr.type} with {value.type} -> {op.result.type}")
    _same_shape(op, ptr, value)
    if op.attrs["kind"] not in ("add", "fadd", "max", "umax", "min", "umin", "fmax", "fmin", "xchg", "and", "or", "xor"):
        _fail(op, f"unknown atomic kind {op.attrs['kind']!r}")


def _verify_program_id(op) -> None:
    if op.attrs["axis"] not in (0, 1, 2) or op.result.type != I32:
        _fail(op, "axis must be 0, 1 or 2 and the result i32")


def _verify_ptr_to_int(op) -> None:
    if not isinstance(element_type(op.operands[0].type), PointerType) or element_type(op.result.type) != I64:
        _fail(op, "expects a pointer operand and an i64 result")


def _verify_if(op) -> None:
    if element_type(op.operands[0].type) != I1 or shape_of(op.operands[0].type):
        _fail(op, "condition must be a scalar i1")
    _verify_yields(op, op.regions, [r.type for r in op.results])


def _verify_for(op) -> None:
    lb, ub, step = op.operands[:3]
    if not (lb.type == ub.type == step.type) or not isinstance(lb.type, ScalarType) or not lb.type.is_int:
        _fail(op, "bounds and step must be integer scalars of one type")
    inits = op.operands[3:]
    body = op.regions[0].block
    if [a.type for a in body.args] != [lb.type] + [v.type for v in inits]:
        _fail(op, "body arguments must be (iv, iter_args...) of the init types")
    if [r.type for r in op.results] != [v.type for v in inits]:
        _fail(op, "results must have the init types")
    _verify_yields(op, op.regions, [v.type for v in inits])


def _verify_while(op) -> None:
    before, after = op.regions[0].block, op.regions[1].block
    if [a.type for a in before.args] != [v.type for v in op.operands]:
        _fail(op, "'before' arguments must have the init types")
    cond = before.terminator
    if cond is None or cond.name != "scf.condition":
        _fail(op, "'before' region must end in scf.condition")
    carried = [v.type for v in cond.operands[1:]]
    if [a.type for a in after.args] != carried or [r.type for r in op.results] != carried:
        _fail(op, "'after' arguments and results must have the types scf.condition forwards")
    _verify_yields(op, op.regions[1:], [v.type for v in op.operands])


def _verify_yields(op, regions, types: list[Type]) -> None:
    for region in regions:
        term = region.block.terminator
        if term is None or term.name != "scf.yield":
            _fail(op, "region must end in scf.yield")
        if [v.type for v in term.operands] != types:
            _fail(op, f"scf.yield types {[str(v.type) for v in term.operands]} do not match {[str(t) for t in types]}")


def _define(names: str, **kw: Any) -> None:
    for name in names.split():
        register_op(OpDef(name, **kw))


_ARITH = frozenset({"elementwise", "same-layout"})
_INT_CHEAP = _ARITH | {"cheap"}

_define("arith.constant", verify=_verify_constant, attrs=("value",), traits=_INT_CHEAP)
_define("arith.addi arith.muli arith.andi arith.ori arith.xori arith.maxsi arith.minsi arith.maxui arith.minui",
        operands=("lhs", "rhs"), verify=_int_elementwise, traits=_INT_CHEAP | {"commutative"})
_define("arith.subi arith.divsi arith.divui arith.remsi arith.remui arith.shli arith.shrsi arith.shrui",
        operands=("lhs", "rhs"), verify=_int_elementwise, traits=_INT_CHEAP)
_define("arith.addf arith.mulf arith.maxnumf arith.minnumf", operands=("lhs", "rhs"), verify=_float_elementwise,
        traits=_ARITH | {"commutative"})
_define("arith.subf arith.divf arith.remf", operands=("lhs", "rhs"), verify=_float_elementwise, traits=_ARITH)
_define("arith.negf", operands=("operand",), verify=_float_elementwise, traits=_ARITH)
_define("arith.cmpi", operands=("lhs", "rhs"), attrs=("predicate",), verify=_verify_cmp, traits=_INT_CHEAP)
_define("arith.cmpf", operands=("lhs", "rhs"), attrs=("predicate",), verify=_verify_cmp, traits=_ARITH)
_define("arith.select", operands=("condition", "true_value", "false_value"), verify=_verify_select,
        traits=_INT_CHEAP)
_define("arith.extsi arith.extui arith.trunci", operands=("operand",), verify=_verify_cast, traits=_INT_CHEAP)
_define("arith.sitofp arith.uitofp arith.fptosi arith.fptoui arith.extf arith.truncf", operands=("operand",),
        verify=_verify_cast, traits=_ARITH)
_define("arith.bitcast", operands=("operand",), verify=_verify_bitcast, traits=_ARITH)
_define("math.exp math.exp2 math.log math.log2 math.sqrt math.rsqrt math.sin math.cos math.absf math.floor math.ceil",
        operands=("operand",), verify=_float_elementwise, traits=_ARITH)
_define("math.absi", operands=("operand",), verify=_int_elementwise, traits=_ARITH)
_define("math.fma", operands=("a", "b", "c"), verify=_float_elementwise, traits=_ARITH)
_define("math.philox", operands=("counter", "key0", "key1"), attrs=("word",), verify=_verify_philox, traits=_ARITH)

_MOVES = frozenset({"cheap"})  # register-only tile ops (the lowering may still go through scratch)
_define("tt.get_program_id tt.get_num_programs", attrs=("axis",), verify=_verify_program_id)
_define("tt.make_range", attrs=("start", "end"), verify=_verify_make_range, traits={"same-layout", "cheap"})
_define("tt.splat", operands=("src",), verify=_verify_splat, traits={"same-layout", "cheap"})
_define("tt.broadcast", operands=("src",), verify=_verify_broadcast, traits=_MOVES, scratch=redistribution_scratch)
_define("tt.expand_dims", operands=("src",), attrs=("axis",), verify=_verify_expand_dims, traits=_MOVES,
        scratch=redistribution_scratch)
_define("tt.reshape", operands=("src",), verify=_verify_reshape, scratch=redistribution_scratch)
_define("tt.trans", operands=("src",), attrs=("order",), verify=_verify_trans, traits=_MOVES,
        scratch=redistribution_scratch)
_define("tt.extract", operands=("src",), attrs=("axis", "index"), verify=_verify_extract,
        scratch=redistribution_scratch)
_define("tt.stack", operands=("srcs*",), attrs=("axis",), verify=_verify_stack, scratch=stack_scratch)
_define("tt.addptr", operands=("ptr", "offset"), verify=_verify_addptr, traits={"same-layout", "cheap"})
_define("tt.ptr_to_int", operands=("ptr",), verify=_verify_ptr_to_int, traits={"same-layout"})
_define("tt.int_to_ptr", operands=("src",), traits={"same-layout"})
_define("tt.load", operands=("ptr", "mask?", "other?"), pure=False, verify=_verify_load, traits={"same-layout"},
        effects=(READ_GLOBAL,))
_define("tt.store", operands=("ptr", "value", "mask?"), num_results=0, pure=False, verify=_verify_store,
        traits={"same-layout"}, effects=(WRITE_GLOBAL,))
_define("tt.dot", operands=("a", "b", "acc"), attrs=("input_precision",), verify=_verify_dot, scratch=dot_scratch)
_define("tt.reduce", operands=("src",), attrs=("axis", "combine"), verify=_verify_reduce, scratch=reduce_scratch)
_define("tt.atomic_rmw", operands=("ptr", "value", "mask?"), attrs=("kind",), pure=False, verify=_verify_atomic_rmw,
        traits={"same-layout"}, effects=(READ_GLOBAL, WRITE_GLOBAL), scratch=atomic_scratch)
_define("tt.atomic_cas", operands=("ptr", "cmp", "value"), pure=False, traits={"same-layout"},
        effects=(READ_GLOBAL, WRITE_GLOBAL), scratch=atomic_scratch)
_define("gpu.barrier", num_results=0, pure=False, effects=None)
_define("tt.call", operands=("args*",), attrs=("callee",), num_results=None, pure=False, effects=None)
_define("tt.return", operands=("values*",), num_results=0, pure=False, traits={"terminator"})

_define("scf.for", operands=("lower_bound", "upper_bound", "step", "inits*"), attrs=("predicate",),
        num_results=None, num_regions=1, pure=False, verify=_verify_for, traits={"control-flow"}, effects=RECURSIVE)
_define("scf.while", operands=("inits*",), num_results=None, num_regions=2, pure=False, verify=_verify_while,
        traits={"control-flow"}, effects=RECURSIVE)
_define("scf.if", operands=("condition",), num_results=None, num_regions=2, pure=False, verify=_verify_if,
        traits={"control-flow"}, effects=RECURSIVE)
_define("scf.yield", operands=("values*",), num_results=0, pure=False, traits={"terminator", "control-flow"})
_define("scf.condition", operands=("condition", "values*"), num_results=0, pure=False,
        traits={"terminator", "control-flow"})

#: Integer comparison predicates and their meaning on Python ints (``signed`` view chosen by the caller).
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF_PREDICATES = ("oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une", "ult", "ule", "ugt", "uge", "ord", "uno")
