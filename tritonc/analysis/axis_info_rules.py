"""The per-op transfer rules of ``axis-info``: :data:`TRANSFER` and the functions it names.

Each rule maps an op and the :class:`~tritonc.analysis.axis_info_lattice.AxisInfo` facts of
its operands to the fact of its (single) result, following modern Triton's ``AxisInfo.cpp``
with the corrections the ``axis_info`` module docstring lists. The lattice and the helpers
over types are in ``axis_info_lattice.py``; the solver glue (``AxisInfoProblem.transfer``
looks rules up here; ``AxisInfoAnalysis``) in ``axis_info.py``, which imports this module.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from ..ir.core import Operation
from ..ir.types import ScalarType, element_type, shape_of
from .axis_info_lattice import (MAX_DIVISIBILITY, AxisInfo, as_shape, constant_dims, divisibility_at, dims,
                                int_bits, pessimistic, pow2_divisor, step_bytes)


# --- transfer functions ------------------------------------------------------------------------

Transfer = Callable[[Operation, list[AxisInfo]], AxisInfo]


def _fold(op: Operation, facts: list[AxisInfo]) -> int | None:
    """The constant result of an element-wise integer op whose operands are all constant."""
    from ..ir.folding import fold

    if int_bits(op.result.type) is None or any(f.constant_value is None for f in facts):
        return None
    types = [element_type(v.type) for v in op.operands]
    if any(not isinstance(t, ScalarType) for t in types):
        return None
    value = fold(op.name, op.attrs, types, element_type(op.result.type), [f.constant_value for f in facts])
    return int(value) if value is not None else None


def _binary(op: Operation, facts: list[AxisInfo]) -> tuple[tuple[int, ...], AxisInfo, AxisInfo, AxisInfo | None]:
    """The shared prologue of the two-operand rules: the result shape, both operand facts at that
    shape, and the constant fact of the result when every operand is constant (else ``None``)."""
    shape = dims(op.result.type)
    lhs, rhs = (as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    return shape, lhs, rhs, (AxisInfo.constant(value, shape) if value is not None else None)


def _gcd_constancy(lhs: AxisInfo, rhs: AxisInfo) -> tuple[int, ...]:
    """Runs equal in both operands are equal in the result: the gcd of the constancies."""
    return tuple(map(math.gcd, lhs.constancy, rhs.constancy))


def elementwise_default(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """Any element-wise op: equal operands give equal results (constancy is the gcd)."""
    shape = dims(op.result.type)
    constancy = tuple(shape)
    for f in facts:
        constancy = tuple(map(math.gcd, constancy, as_shape(f, shape).constancy))
    base = pessimistic(op.result.type)
    return replace(base, constancy=constancy)


def _constant(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    value = op.attrs["value"]
    if int_bits(op.result.type) is not None and isinstance(value, (bool, int)):
        return AxisInfo.constant(int(value), shape)
    return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(shape))


def _make_range(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    start, end = op.attrs["start"], op.attrs["end"]
    if end - start == 1:
        return AxisInfo.constant(start, (1,))
    return AxisInfo((end - start,), (pow2_divisor(start),), (1,), None, start >= 0)


def _program_id(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    return AxisInfo((1,), (1,), (1,), None, True)


def _splat(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    return constant_dims(facts[0], dims(op.result.type))


def _identity(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    return facts[0]


def _expand_dims(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    src, axis = facts[0], op.attrs["axis"]
    every = src.element_divisibility(step_bytes(op.result.type))  # the new size-1 dimension

    def insert(values: tuple[int, ...], new: int) -> tuple[int, ...]:
        return values[:axis] + (new,) + values[axis:]

    return AxisInfo(insert(src.contiguity, 1), insert(src.divisibility, every), insert(src.constancy, 1),
                    src.constant_value, src.nonnegative)


def _broadcast(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    src = facts[0]
    before, after = shape_of(op.operands[0].type), shape_of(op.result.type)
    constancy = tuple(n if (s == 1 and n != 1) else k for s, n, k in zip(before, after, src.constancy))
    contiguity = tuple(1 if (s == 1 and n != 1) else c for s, n, c in zip(before, after, src.contiguity))
    return replace(src, contiguity=contiguity, constancy=constancy)


def _trans(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    src, order = facts[0], list(op.attrs["order"])
    return AxisInfo(tuple(src.contiguity[i] for i in order), tuple(src.divisibility[i] for i in order),
                    tuple(src.constancy[i] for i in order), src.constant_value, src.nonnegative)


def _reshape(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """Facts survive when only size-1 dimensions come or go; a constant tile stays constant."""
    src = facts[0]
    before, after = dims(op.operands[0].type), dims(op.result.type)
    step = step_bytes(op.result.type)
    every = src.element_divisibility(step)
    kept = [d for d, n in enumerate(before) if n != 1]
    if [before[d] for d in kept] == [n for n in after if n != 1]:
        c, p, k = [], [], []
        source = iter(kept)
        for n in after:
            if n == 1:
                c.append(1), p.append(every), k.append(1)
            else:
                d = next(source)
                c.append(src.contiguity[d]), p.append(src.divisibility[d]), k.append(src.constancy[d])
        return AxisInfo(tuple(c), tuple(p), tuple(k), src.constant_value, src.nonnegative)
    if src.constancy == before:
        return AxisInfo((1,) * len(after), (every,) * len(after), tuple(after), src.constant_value, src.nonnegative)
    return replace(AxisInfo.unknown(after, every), nonnegative=src.nonnegative)


def _add_sub(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """``arith.addi``/``arith.subi``/``tt.addptr``: contiguous + constant stays contiguous."""
    shape = dims(op.result.type)
    lhs, rhs = (as_shape(f, shape) for f in facts)
    sub = op.name == "arith.subi"
    step = step_bytes(op.result.type)
    scale = step if op.name == "tt.addptr" else 1  # the offset counts elements, the address bytes
    c, p, k = [], [], []
    for d in range(len(shape)):
        runs = math.gcd(lhs.contiguity[d], rhs.constancy[d])
        if not sub:
            runs = max(runs, math.gcd(lhs.constancy[d], rhs.contiguity[d]))
        c.append(runs)
        p.append(min(MAX_DIVISIBILITY, math.gcd(divisibility_at(lhs, d, runs, step),
                                                divisibility_at(rhs, d, runs, 1) * scale)))
        k.append(math.gcd(lhs.constancy[d], rhs.constancy[d]))
    value = _fold(op, facts) if op.name != "tt.addptr" else None
    nonneg = lhs.nonnegative and rhs.nonnegative and not sub and op.name != "tt.addptr"
    result = AxisInfo(tuple(c), tuple(p), tuple(k), None, nonneg)
    return _with_constant(result, value, shape)


def _with_constant(info: AxisInfo, value: int | None, shape: tuple[int, ...]) -> AxisInfo:
    return AxisInfo.constant(value, shape) if value is not None else info


def _mul(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    if 0 in (lhs.constant_value, rhs.constant_value):
        return AxisInfo.constant(0, shape)
    if rhs.constant_value == 1:
        return lhs
    if lhs.constant_value == 1:
        return rhs
    # The product is not contiguous, so every element is a run start: multiply what divides
    # every element of each side (a contiguous run [8, 9, 10, 11] only contributes 1).
    every = min(MAX_DIVISIBILITY, lhs.element_divisibility() * rhs.element_divisibility())
    k = _gcd_constancy(lhs, rhs)
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, lhs.nonnegative and rhs.nonnegative)


def _runs_over(lhs: AxisInfo, d: int, divisor: int) -> int:
    """Length of the aligned runs of a contiguous ``lhs`` along ``d`` on which ``floor(x / divisor)``
    is constant (and ``x mod divisor`` contiguous): ``gcd(contiguity, divisibility, divisor)``."""
    return math.gcd(lhs.contiguity[d], math.gcd(lhs.divisibility[d], divisor))


def _uniform_divisor(op: Operation, lhs: AxisInfo, rhs: AxisInfo, shape: tuple[int, ...]) -> int:
    """For a divisor that is not a known constant: the power of two ``g`` (above 1) that
    divides it, when it is one value for the whole tile (a scalar parameter: constancy
    spans the shape) and the dividend is non-negative, else 1. Aligned runs of ``g``
    consecutive dividends then share their quotient and have consecutive remainders, whatever
    the divisor's sign (``divsi`` and ``remsi`` truncate: a non-negative dividend's quotient
    only changes sign, its remainder not at all) and value (a multiple of ``g``: no multiple
    of it falls inside such a run). ``g`` comes from a ``__multipleof`` promise or from the
    divisor's own arithmetic (``PQ / 8 * 8``: examples/conv2d_nchw.tri's NCHW pixel index
    ``m % pq``); divisor parameters get no launch-time ``div16`` fact
    (``transforms/specialize.divisor_params``)."""
    if op.name in ("arith.shrsi", "arith.shrui") or not lhs.nonnegative \
            or any(k < n for k, n in zip(rhs.constancy, shape)):
        return 1
    g = rhs.element_divisibility()
    return g if 1 < g < MAX_DIVISIBILITY else 1


def _div(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """``divsi``/``divui``/``shrsi``/``shrui``: by a positive constant, aligned runs of a
    contiguous dividend give runs of equal quotients; exact division keeps the rest of the
    divisibility (``8k / 4 = 2k``). By a uniform divisor known to be a multiple of ``g``
    (:func:`_uniform_divisor`), runs of ``g`` give equal quotients."""
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    k = _gcd_constancy(lhs, rhs)
    v = rhs.constant_value
    shift = op.name in ("arith.shrsi", "arith.shrui")
    bits = int_bits(op.result.type) or 32
    if v is None or v < 0 or (shift and v >= bits) or (not shift and v == 0):
        nonneg = lhs.nonnegative and rhs.nonnegative and op.name == "arith.divsi"
        g = _uniform_divisor(op, lhs, rhs, shape) if v is None else 1
        if g > 1:
            k = tuple(max(kd, _runs_over(lhs, d, g)) if lhs.contiguity[d] > 1 else kd for d, kd in enumerate(k))
        return AxisInfo((1,) * len(shape), (1,) * len(shape), k, None, nonneg)
    divisor = (1 << v) if shift else v
    if divisor == 1:
        return lhs
    # Floor division (shrsi) keeps aligned runs together, and so does unsigned division (an
    # aligned run stays aligned modulo 2^bits); truncating divsi only for non-negative dividends.
    if op.name != "arith.divsi" or lhs.nonnegative:
        k = tuple(max(kd, _runs_over(lhs, d, divisor)) if lhs.contiguity[d] > 1 else kd for d, kd in enumerate(k))
    every = lhs.element_divisibility()
    if every == MAX_DIVISIBILITY:  # the dividend is 0
        p = MAX_DIVISIBILITY
    elif divisor & (divisor - 1) == 0 and every >= divisor:
        p = every // divisor
    else:
        p = 1
    nonneg = lhs.nonnegative or op.name in ("arith.shrui", "arith.divui")
    return AxisInfo((1,) * len(shape), (p,) * len(shape), k, None, nonneg)


def _rem(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """``remsi``/``remui`` by a positive constant: a contiguous dividend gives contiguous runs.
    By a uniform divisor known to be a multiple of ``g`` (:func:`_uniform_divisor`): runs of
    ``g``, each starting at a multiple of ``g`` when the dividend's run does."""
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    k = _gcd_constancy(lhs, rhs)
    v = rhs.constant_value
    if v is None or v <= 0:
        nonneg = op.name == "arith.remsi" and lhs.nonnegative
        g = _uniform_divisor(op, lhs, rhs, shape) if v is None else 1
        if g == 1:
            return AxisInfo((1,) * len(shape), (1,) * len(shape), k, None, nonneg)
        c, p = [], []
        for d in range(len(shape)):
            runs = _runs_over(lhs, d, g) if lhs.contiguity[d] > 1 else 1
            c.append(runs)
            p.append(min(divisibility_at(lhs, d, runs, 1), g))
        return AxisInfo(tuple(c), tuple(p), k, None, nonneg)
    return _modulo(lhs, shape, v, k, floor_like=op.name == "arith.remui" or lhs.nonnegative,
                   nonneg=lhs.nonnegative or (op.name == "arith.remui" and v <= (1 << 31)))


def _modulo(lhs: AxisInfo, shape: tuple[int, ...], v: int, k: tuple[int, ...], floor_like: bool,
            nonneg: bool) -> AxisInfo:
    """``x mod v`` for a positive constant ``v`` (``x & (v - 1)`` when ``v`` is a power of two)."""
    c, p = [], []
    for d in range(len(shape)):
        runs = _runs_over(lhs, d, v) if floor_like and lhs.contiguity[d] > 1 else 1
        start = divisibility_at(lhs, d, runs, 1)
        if v & (v - 1) == 0 and start >= v:
            start = MAX_DIVISIBILITY  # a multiple of v: the remainder is 0
        else:
            start = min(start, pow2_divisor(v))
        c.append(runs)
        p.append(start if floor_like or lhs.contiguity[d] == 1 else 1)
    return AxisInfo(tuple(c), tuple(p), k, None, nonneg)


def _shl(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    v = rhs.constant_value
    bits = int_bits(op.result.type) or 32
    if v == 0:
        return lhs
    k = _gcd_constancy(lhs, rhs)
    every = lhs.element_divisibility()
    if v is not None and 0 < v < bits:
        every = min(MAX_DIVISIBILITY, every << v)
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k)


def _and(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    if lhs.constant_value is not None and rhs.constant_value is None:
        lhs, rhs = rhs, lhs
    k = _gcd_constancy(lhs, rhs)
    nonneg = lhs.nonnegative or rhs.nonnegative
    mask = rhs.constant_value
    if int_bits(op.result.type) != 1 and mask is not None and mask > 0 and mask & (mask + 1) == 0:
        return _modulo(lhs, shape, mask + 1, k, floor_like=True, nonneg=True)  # x & (2^j - 1) == x mod 2^j
    every = max(lhs.element_divisibility(), rhs.element_divisibility())
    if mask is not None and mask < 0 and (-mask) & (-mask - 1) == 0:  # x & -2^j rounds down to a multiple of 2^j
        k = tuple(max(kd, _runs_over(lhs, d, -mask)) if lhs.contiguity[d] > 1 else kd for d, kd in enumerate(k))
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, nonneg)


def _or_xor(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    k = _gcd_constancy(lhs, rhs)
    every = min(lhs.element_divisibility(), rhs.element_divisibility())
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, lhs.nonnegative and rhs.nonnegative)


def _max_min(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """The result is one of the operands, element by element."""
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    k = _gcd_constancy(lhs, rhs)
    every = math.gcd(lhs.element_divisibility(), rhs.element_divisibility())
    either = op.name == "arith.maxsi"
    nonneg = (lhs.nonnegative or rhs.nonnegative) if either else (lhs.nonnegative and rhs.nonnegative)
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, nonneg)


def _absi(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    src = facts[0]
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    every = src.element_divisibility()
    return AxisInfo((1,) * len(shape), (every,) * len(shape), src.constancy)


#: Predicates for which ``x < N``-style comparisons of a contiguous ``x`` with an aligned ``N``
#: are constant on aligned runs: the value changes between ``N - 1`` and ``N``.
_CHANGES_AT_RHS = ("slt", "ult", "sge", "uge")
#: The same with the contiguous operand on the right (``N <= x`` changes between ``N - 1`` and ``N``).
_CHANGES_AT_LHS = ("sle", "ule", "sgt", "ugt")


def _cmpi(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """Comparisons are boolean: only constancy matters. ``x < N`` with ``x`` contiguous is
    constant on runs that are aligned to a power of two dividing both ``x``'s run starts and ``N``."""
    shape, lhs, rhs, folded = _binary(op, facts)
    if folded is not None:
        return folded
    pred = op.attrs["predicate"]
    k = []
    for d in range(len(shape)):
        runs = math.gcd(lhs.constancy[d], rhs.constancy[d])
        if pred in _CHANGES_AT_RHS and lhs.contiguity[d] > 1:
            runs = max(runs, math.gcd(math.gcd(lhs.contiguity[d], rhs.constancy[d]),
                                      math.gcd(lhs.divisibility[d], divisibility_at(rhs, d, 1, 1))))
        elif pred in _CHANGES_AT_LHS and rhs.contiguity[d] > 1:
            runs = max(runs, math.gcd(math.gcd(rhs.contiguity[d], lhs.constancy[d]),
                                      math.gcd(rhs.divisibility[d], divisibility_at(lhs, d, 1, 1))))
        k.append(runs)
    return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(k))


def _select(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    cond, a, b = facts
    if not shape_of(op.operands[0].type):  # a scalar condition picks one whole tile
        cond = constant_dims(cond, shape)
    if cond.constant_value is not None:
        return a if cond.constant_value else b
    step = step_bytes(op.result.type)
    c, p, k = [], [], []
    for d in range(len(shape)):
        runs = math.gcd(cond.constancy[d], math.gcd(a.contiguity[d], b.contiguity[d]))
        c.append(runs)
        p.append(math.gcd(divisibility_at(a, d, runs, step), divisibility_at(b, d, runs, step)))
        k.append(math.gcd(cond.constancy[d], math.gcd(a.constancy[d], b.constancy[d])))
    value = a.constant_value if a.constant_value == b.constant_value else None
    result = AxisInfo(tuple(c), tuple(p), tuple(k), None, a.nonnegative and b.nonnegative)
    return _with_constant(result, value, shape)


def _int_cast(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """``extsi``/``extui``/``trunci``: runs survive (``extui`` only of non-negative values)."""
    shape = dims(op.result.type)
    src = facts[0]
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    if int_bits(op.result.type) is None or int_bits(op.operands[0].type) is None:
        return elementwise_default(op, facts)
    if op.name == "arith.extui" and not src.nonnegative:
        every = src.element_divisibility()
        return AxisInfo((1,) * len(shape), (every,) * len(shape), src.constancy, None, True)
    if op.name == "arith.trunci":
        limit = 1 << (int_bits(op.result.type) or 32)
        p = tuple(MAX_DIVISIBILITY if q >= limit else q for q in src.divisibility)
        return AxisInfo(src.contiguity, p, src.constancy)
    return replace(src, nonnegative=src.nonnegative or op.name == "arith.extui")


def _ptr_to_int(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """The address in bytes: divisibility carries over; runs are contiguous only for 1-byte elements."""
    src = facts[0]
    if step_bytes(op.operands[0].type) == 1:
        return replace(src, nonnegative=False)
    return AxisInfo((1,) * src.rank, tuple(src.element_divisibility(step_bytes(op.operands[0].type))
                                           if c > 1 else p for c, p in zip(src.contiguity, src.divisibility)),
                    src.constancy)


def _int_to_ptr(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    src = facts[0]
    step = step_bytes(op.result.type)
    every = src.element_divisibility()
    if step == 1:
        return AxisInfo(src.contiguity, src.divisibility, src.constancy)
    return AxisInfo((1,) * src.rank, tuple(max(step, every if c > 1 else p)
                                           for c, p in zip(src.contiguity, src.divisibility)), src.constancy)


def _load(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """Loaded values are unknown, but one address (and one mask) gives one value."""
    shape = dims(op.result.type)
    k = tuple(shape)
    for f in facts:
        k = tuple(map(math.gcd, k, as_shape(f, shape).constancy))
    return replace(pessimistic(op.result.type), constancy=k)


def _reduce(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """The other dimensions keep their constancy; integer combines keep what divides every element."""
    src, axis = facts[0], op.attrs["axis"]
    out = dims(op.result.type)
    if not shape_of(op.result.type):
        k: tuple[int, ...] = (1,)
    else:
        k = src.constancy[:axis] + src.constancy[axis + 1:]
    if int_bits(op.result.type) is None:
        return AxisInfo((1,) * len(out), (1,) * len(out), k)
    every = src.element_divisibility()
    value = src.constant_value if op.attrs["combine"] in ("maxsi", "minsi", "maxui", "minui", "andi", "ori") else None
    result = AxisInfo((1,) * len(out), (every,) * len(out), k, None, src.nonnegative)
    return _with_constant(result, value, out)


def _unknown(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    return pessimistic(op.result.type)


#: Transfer function per op name. Ops not listed: element-wise ops keep constancy
#: (:func:`elementwise_default`), anything else is unknown.
TRANSFER: dict[str, Transfer] = {
    "arith.constant": _constant,
    "tt.make_range": _make_range,
    "tt.get_program_id": _program_id,
    "tt.get_num_programs": _program_id,
    "tt.splat": _splat,
    "tt.expand_dims": _expand_dims,
    "tt.broadcast": _broadcast,
    "tt.trans": _trans,
    "tt.reshape": _reshape,
    "ttg.convert_layout": _identity,
    "arith.addi": _add_sub,
    "arith.subi": _add_sub,
    "tt.addptr": _add_sub,
    "arith.muli": _mul,
    "arith.divsi": _div,
    "arith.divui": _div,
    "arith.shrsi": _div,
    "arith.shrui": _div,
    "arith.remsi": _rem,
    "arith.remui": _rem,
    "arith.shli": _shl,
    "arith.andi": _and,
    "arith.ori": _or_xor,
    "arith.xori": _or_xor,
    "arith.maxsi": _max_min,
    "arith.minsi": _max_min,
    "arith.maxui": _max_min,
    "arith.minui": _max_min,
    "math.absi": _absi,
    "arith.cmpi": _cmpi,
    "arith.select": _select,
    "arith.extsi": _int_cast,
    "arith.extui": _int_cast,
    "arith.trunci": _int_cast,
    "tt.ptr_to_int": _ptr_to_int,
    "tt.int_to_ptr": _int_to_ptr,
    "tt.load": _load,
    "tt.reduce": _reduce,
    "tt.dot": _unknown,
    "tt.atomic_rmw": _unknown,
    "tt.atomic_cas": _unknown,
    "tt.call": _unknown,
}
