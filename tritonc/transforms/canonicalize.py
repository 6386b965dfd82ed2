"""canonicalize: fold constants and apply local algebraic simplifications until a fixpoint.

Preconditions: none (runs on tt and ttg IR; tile types keep their layouts). Requires no
analysis; preserves none when it changes the IR.

Patterns (each a ``match_and_rewrite`` function below, applied by the greedy driver of
``rewrite.py``, which also erases pure ops left unused):

* constants are stored as their type holds them (``4294967295 : i32`` becomes ``-1``, an f16
  constant is rounded to f16), so equal constants look equal to ``cse``;
* constant folding of element-wise ``arith`` / ``math`` ops on scalar and splat-tile constants
  (``folding.py`` gives the semantics and what is never folded);
* commutative ops take a constant operand on the right (so the identities below look there);
* integer identities: ``x+0 x-0 x|0 x^0 x<<0 x>>0 x*1 x/1 x&-1 -> x``, ``x*0 x&0 -> 0``,
  ``x|-1 -> -1``, ``x%1 x-x x^x -> 0``, ``x&x x|x max(x,x) min(x,x) -> x``,
  ``0-(0-x) -> x``, ``(x^y)^y -> x``, ``cmpi(x, x)`` -> its constant;
* float identities exact under IEEE 754 with signed zeros: ``x + -0.0``, ``x - +0.0``,
  ``x * 1.0``, ``x / 1.0 -> x`` (but not ``x + 0.0``: ``-0.0 + 0.0 == +0.0``),
  ``negf(negf(x)) -> x``; nothing reassociates;
* ``select`` with a constant (scalar or splat) condition, and ``select(c, x, x) -> x``;
* cast chains that are exact: ``ext(ext(x)) -> ext(x)`` (same kind), ``trunc(ext(x)) -> x``
  when that gives ``x``'s type back, ``trunci(trunci(x)) -> trunci(x)``;
* a narrowing cast of a stacked or layout-converted value casts before the stack or the
  conversion (``trunc(convert_layout(x)) -> convert_layout(trunc(x))``): fewer bytes moved;
* ``addptr(p, 0) -> p``;
* shape ops (``splat broadcast expand_dims reshape trans``) of a constant give a tile
  constant; of a ``tt.splat`` give a ``tt.splat``; ``broadcast``/``reshape`` to the operand's
  own type are removed, and of their own kind compose; ``trans(trans(x))`` composes the
  orders (removed when the composition is the identity);
* ``acc + dot(a, b, 0) -> dot(a, b, acc)`` (``addf``/``addi``, either operand order) when the
  dot's only use is that add (Triton's ``CombineDotAddPattern``; it changes the order of
  floating-point additions, like any accumulating matmul);
* ``scf.if`` with a constant condition is replaced by the ops of the branch it takes.

Source: MLIR's canonicalization patterns and folders of the ``arith`` dialect.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..diagnostics import InternalCompilerError
from ..ir.core import Module, Operation, Value
from ..ir.types import ScalarType, element_type, with_element
from ..ir.printer import format_attr_value
from ..passes import AnalysisManager, Pass, register_pass
from ..ir.folding import FOLDABLE_OPS, fold, normalize_int, round_float
from .rewrite import PatternRewriter, RewritePattern, apply_patterns_greedily, pattern

Number = int | float


# --- constants -----------------------------------------------------------------------------------

def constant_value(v: Value) -> Number | None:
    """The value of an ``arith.constant`` scalar or splat tile (int for integers, float for floats)."""
    op = v.owner
    if not isinstance(op, Operation) or op.name != "arith.constant":
        return None
    el = element_type(v.type)
    if not isinstance(el, ScalarType):
        return None
    value = op.attrs["value"]
    if not isinstance(value, (int, float)):
        return None
    return float(value) if el.is_float else int(value)


def _is_int_constant(v: Value, expected: int) -> bool:
    """Whether ``v`` is an integer constant equal to ``expected`` modulo its width."""
    value = constant_value(v)
    el = element_type(v.type)
    if value is None or not isinstance(el, ScalarType) or not el.is_int:
        return False
    mask = (1 << el.bits) - 1
    return (value & mask) == (expected & mask)


def _is_float_constant(v: Value, expected: float) -> bool:
    """Whether ``v`` is a float constant equal to ``expected``, sign of zero included."""
    value = constant_value(v)
    return (isinstance(value, float) and element_type(v.type).is_float  # type: ignore[union-attr]
            and value == expected and math.copysign(1, value) == math.copysign(1, expected))


def _producer(v: Value, name: str) -> Operation | None:
    """The op defining ``v`` if it is a ``name`` op."""
    op = v.owner
    return op if isinstance(op, Operation) and op.name == name else None


# --- folding and operand order -----------------------------------------------------------------

@pattern()
def fold_constant_operands(op: Operation, rewriter: PatternRewriter) -> bool:
    """An element-wise op whose operands are all constants becomes a constant."""
    if op.name not in FOLDABLE_OPS:
        return False
    values = [constant_value(v) for v in op.operands]
    if any(v is None for v in values):
        return False
    types = [element_type(v.type) for v in op.operands]
    result = fold(op.name, op.attrs, types, element_type(op.result.type), values)  # type: ignore[arg-type]
    if result is None:
        return False
    rewriter.replace_op(op, [rewriter.constant(op, result, op.result.type, op.result.name)])
    return True


@pattern("arith.constant")
def normalize_constant(op: Operation, rewriter: PatternRewriter) -> bool:
    """Store a constant as its type holds it: integers signed (``i1`` as 0/1), floats rounded."""
    value = constant_value(op.result)
    el = element_type(op.result.type)
    if value is None or not isinstance(el, ScalarType):
        return False
    normal = normalize_int(int(value), el.bits) if el.is_int else round_float(float(value), el)
    current = op.attrs["value"]
    if normal is None or (type(current) is type(normal) and format_attr_value(current) == format_attr_value(normal)):
        return False
    op.attrs["value"] = normal
    rewriter.modified(op)
    return True


@pattern()
def constant_to_rhs(op: Operation, rewriter: PatternRewriter) -> bool:
    """``op(c, x) -> op(x, c)`` for a commutative op and a constant ``c``."""
    if not op.opdef.commutative:
        return False
    lhs, rhs = op.operands
    if constant_value(lhs) is None or constant_value(rhs) is not None:
        return False
    rewriter.set_operands(op, [rhs, lhs])
    return True


# --- algebraic identities ----------------------------------------------------------------------

_RHS_ZERO_IS_IDENTITY = {"arith.addi", "arith.subi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui"}
_RHS_ONE_IS_IDENTITY = {"arith.muli", "arith.divsi", "arith.divui"}
_SAME_OPERANDS_IS_OPERAND = {"arith.andi", "arith.ori", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"}


@pattern(*(_RHS_ZERO_IS_IDENTITY | _RHS_ONE_IS_IDENTITY | _SAME_OPERANDS_IS_OPERAND
           | {"arith.muli", "arith.andi", "arith.remsi", "arith.remui"}))
def simplify_integer_identity(op: Operation, rewriter: PatternRewriter) -> bool:
    """Integer identities with a constant right operand or two equal operands."""
    lhs, rhs = op.operands
    if op.name in _RHS_ZERO_IS_IDENTITY and _is_int_constant(rhs, 0) or \
            op.name in _RHS_ONE_IS_IDENTITY and _is_int_constant(rhs, 1) or \
            op.name == "arith.andi" and _is_int_constant(rhs, -1) or \
            op.name in _SAME_OPERANDS_IS_OPERAND and lhs is rhs:
        rewriter.replace_op(op, [lhs])
        return True
    if op.name in ("arith.muli", "arith.andi") and _is_int_constant(rhs, 0) or \
            op.name == "arith.ori" and _is_int_constant(rhs, -1):
        rewriter.replace_op(op, [rhs])
        return True
    if op.name in ("arith.remsi", "arith.remui") and _is_int_constant(rhs, 1) or \
            op.name in ("arith.subi", "arith.xori") and lhs is rhs:
        rewriter.replace_op(op, [rewriter.constant(op, 0, op.result.type)])
        return True
    return False


@pattern("arith.subi", "arith.xori")
def cancel_involution(op: Operation, rewriter: PatternRewriter) -> bool:
    """``0 - (0 - x) -> x`` and ``(x ^ y) ^ y -> x`` (``y`` the same value or an equal constant)."""
    lhs, rhs = op.operands
    if op.name == "arith.subi":
        inner = _producer(rhs, "arith.subi")
        if inner is None or not _is_int_constant(lhs, 0) or not _is_int_constant(inner.operands[0], 0):
            return False
        rewriter.replace_op(op, [inner.operands[1]])
        return True
    inner = _producer(lhs, "arith.xori")
    if inner is None:
        return False
    same = inner.operands[1] is rhs or (constant_value(rhs) is not None and constant_value(inner.operands[1]) == constant_value(rhs))
    if not same:
        return False
    rewriter.replace_op(op, [inner.operands[0]])
    return True


@pattern("arith.cmpi")
def fold_compare_same_operand(op: Operation, rewriter: PatternRewriter) -> bool:
    """``cmpi(x, x)`` is true for ``eq sle sge ule uge`` and false otherwise."""
    lhs, rhs = op.operands
    if lhs is not rhs:
        return False
    value = int(op.attrs["predicate"] in ("eq", "sle", "sge", "ule", "uge"))
    rewriter.replace_op(op, [rewriter.constant(op, value, op.result.type)])
    return True


@pattern("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf")
def simplify_float_identity(op: Operation, rewriter: PatternRewriter) -> bool:
    """``x + -0.0``, ``x - 0.0``, ``x * 1.0``, ``x / 1.0`` and ``-(-x)`` are ``x``."""
    if op.name == "arith.negf":
        inner = _producer(op.operands[0], "arith.negf")
        if inner is None:
            return False
        rewriter.replace_op(op, [inner.operands[0]])
        return True
    lhs, rhs = op.operands
    identity = {"arith.addf": -0.0, "arith.subf": 0.0, "arith.mulf": 1.0, "arith.divf": 1.0}[op.name]
    if not _is_float_constant(rhs, identity):
        return False
    rewriter.replace_op(op, [lhs])
    return True


@pattern("arith.select")
def simplify_select(op: Operation, rewriter: PatternRewriter) -> bool:
    """``select(true, a, b) -> a``, ``select(false, a, b) -> b``, ``select(c, x, x) -> x``."""
    cond, a, b = op.operands
    if a is b:
        rewriter.replace_op(op, [a])
        return True
    value = constant_value(cond)
    if value is None:
        return False
    rewriter.replace_op(op, [a if value & 1 else b])
    return True


@pattern("arith.extf", "arith.extsi", "arith.extui", "arith.truncf", "arith.trunci")
def fold_cast_chain(op: Operation, rewriter: PatternRewriter) -> bool:
    """``ext(ext(x)) -> ext(x)``, ``trunci(trunci(x)) -> trunci(x)``, ``trunc(ext(x)) -> x`` (same type)."""
    src = op.operands[0]
    inner = src.owner if isinstance(src.owner, Operation) else None
    if inner is None:
        return False
    if op.name.startswith("arith.trunc") and inner.name in {"arith.truncf": ("arith.extf",),
                                                            "arith.trunci": ("arith.extsi", "arith.extui")}[op.name]:
        if inner.operands[0].type == op.result.type:
            rewriter.replace_op(op, [inner.operands[0]])
            return True
        return False
    if inner.name == op.name and op.name != "arith.truncf":
        rewriter.set_operands(op, [inner.operands[0]])
        return True
    return False


@pattern("arith.truncf", "arith.trunci")
def narrow_before_moving(op: Operation, rewriter: PatternRewriter) -> bool:
    """A narrowing cast of a value only it reads that was stacked (``tt.stack``) or converted
    between layouts (``ttg.convert_layout``) casts the sources instead: ``trunc(stack(x, y)) ->
    stack(trunc(x), trunc(y))``, ``trunc(convert_layout(x)) -> convert_layout(trunc(x))``. The
    values are the same; the conversion then moves the narrow elements (bmm's accumulators
    through shared memory as halves, not floats)."""
    src = op.operands[0]
    inner = src.owner if isinstance(src.owner, Operation) else None
    if inner is None or len(src.uses) != 1 or inner.name not in ("tt.stack", "ttg.convert_layout"):
        return False
    if "smem_offset" in inner.attrs:
        return False  # shared memory already allocated for its width (conversions and stacks)
    element = op.result.type.element
    casts = [rewriter.create(inner, op.name, [x], [with_element(x.type, element)]) for x in inner.operands]
    moved = rewriter.create(op, inner.name, [c.result for c in casts], [op.result.type], dict(inner.attrs),
                            name_hint=op.result.name)
    rewriter.replace_op(op, [moved.result])
    rewriter.erase_op(inner)  # read only by the cast: now unused
    for c in casts:  # each cast may move on (a stack of conversions: before those too)
        rewriter.modified(c)
    return True


@pattern("tt.addptr")
def fold_addptr_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    """``addptr(p, 0) -> p``."""
    if not _is_int_constant(op.get("offset"), 0):
        return False
    rewriter.replace_op(op, [op.get("ptr")])
    return True


# --- shape ops ---------------------------------------------------------------------------------

_SHAPE_OPS = ("tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans")


@pattern(*_SHAPE_OPS)
def fold_shape_of_constant(op: Operation, rewriter: PatternRewriter) -> bool:
    """A shape op of a constant is a tile constant; of a ``tt.splat`` it is a ``tt.splat``."""
    src = op.operands[0]
    value = constant_value(src)
    if value is not None:
        rewriter.replace_op(op, [rewriter.constant(op, value, op.result.type, op.result.name)])
        return True
    splat = _producer(src, "tt.splat")
    if splat is not None and op.name != "tt.splat":
        new = rewriter.create(op, "tt.splat", [splat.operands[0]], [op.result.type], name_hint=op.result.name)
        rewriter.replace_op(op, [new.result])
        return True
    return False


@pattern("tt.broadcast", "tt.reshape")
def fold_same_shape(op: Operation, rewriter: PatternRewriter) -> bool:
    """A broadcast or reshape to its operand's type is that operand; two in a row are one."""
    src = op.operands[0]
    if src.type == op.result.type:
        rewriter.replace_op(op, [src])
        return True
    inner = _producer(src, op.name)
    if inner is None:
        return False
    rewriter.set_operands(op, [inner.operands[0]])
    return True


@pattern("tt.trans")
def fold_trans_of_trans(op: Operation, rewriter: PatternRewriter) -> bool:
    """``trans(trans(x, inner), outer) -> trans(x, inner[outer[i]])``; an identity order is removed."""
    order = list(op.attrs["order"])
    if order == sorted(order) and op.operands[0].type == op.result.type:
        rewriter.replace_op(op, [op.operands[0]])
        return True
    inner = _producer(op.operands[0], "tt.trans")
    if inner is None:
        return False
    composed = [inner.attrs["order"][i] for i in order]
    source = inner.operands[0]
    if composed == sorted(composed) and source.type == op.result.type:
        rewriter.replace_op(op, [source])
    else:
        op.attrs["order"] = composed
        rewriter.set_operands(op, [source])
    return True


# --- dot accumulation and control flow ---------------------------------------------------------

@pattern("arith.addf", "arith.addi")
def combine_add_into_dot(op: Operation, rewriter: PatternRewriter) -> bool:
    """``acc + dot(a, b, 0)`` (either order) -> ``dot(a, b, acc)`` when the dot has no other use."""
    for dot_side, acc in ((0, op.operands[1]), (1, op.operands[0])):
        dot = _producer(op.operands[dot_side], "tt.dot")
        if dot is None or len(dot.result.uses) != 1 or acc.type != dot.result.type:
            continue
        zero = constant_value(dot.get("acc"))
        if zero is None or zero != 0:
            continue
        new = rewriter.create(op, "tt.dot", [dot.get("a"), dot.get("b"), acc], [dot.result.type], dict(dot.attrs), op.result.name)
        rewriter.replace_op(op, [new.result])
        rewriter.erase_op(dot)
        return True
    return False


@pattern("scf.if")
def inline_constant_if(op: Operation, rewriter: PatternRewriter) -> bool:
    """``scf.if`` on a constant condition is replaced by the ops of the branch it takes."""
    value = constant_value(op.operands[0])
    if value is None:
        return False
    block = op.regions[0 if value & 1 else 1].block
    yield_op = block.terminator
    assert yield_op is not None
    for inner in list(block.ops[:-1]):
        rewriter.move_before(inner, op)
    values = list(yield_op.operands)
    yield_op.drop_operands()
    rewriter.replace_op(op, values)
    return True


CANONICALIZATION_PATTERNS: tuple[RewritePattern, ...] = (
    normalize_constant, fold_constant_operands, constant_to_rhs, simplify_integer_identity, cancel_involution,
    fold_compare_same_operand, simplify_float_identity, simplify_select, fold_cast_chain, narrow_before_moving,
    fold_addptr_zero, fold_shape_of_constant, fold_same_shape, fold_trans_of_trans,
    combine_add_into_dot, inline_constant_if,
)


@register_pass
@dataclass
class CanonicalizePass(Pass):
    """Fold constants and simplify locally (see the module docstring for the patterns)."""

    name = "canonicalize"
    max_rewrites: int = 1_000_000

    def run(self, module: Module, am: AnalysisManager) -> bool:
        try:
            return apply_patterns_greedily(module, CANONICALIZATION_PATTERNS, self.max_rewrites)
        except InternalCompilerError as e:
            raise InternalCompilerError(f"canonicalize: {e}") from e
