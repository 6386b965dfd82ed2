"""``axis-info``: contiguity, divisibility and constancy of every integer and pointer value.

One fact per SSA value (:class:`AxisInfo`), with one entry per dimension; a scalar has one
dimension of size 1. For a value of shape ``S`` and a dimension ``d`` (for *every* choice of
the indices along the other dimensions):

* ``contiguity[d] = c``: along ``d`` the elements form runs of ``c``, each starting at an
  index that is a multiple of ``c``, in which each element is one more than the previous one:
  ``+1`` for integers, ``+elem_bytes`` of address for pointers (so contiguity counts
  *elements* for both). ``1`` means nothing is known.
* ``divisibility[d] = p`` (a power of two): the first element of each such run (every element
  at an index along ``d`` that is a multiple of ``c``) is a multiple of ``p``. **Unit**:
  integers are divisible *as values*; pointers are divisible as *addresses in bytes*, as in
  modern Triton (``tt.divisibility = 16`` on a pointer means a 16-byte-aligned address), so
  a pointer is never less than its element size aligned (spec §3) and ``addptr`` scales the
  offset's divisibility by the element size. Capped at :data:`MAX_DIVISIBILITY` (the value 0).
* ``constancy[d] = k``: along ``d`` the elements form runs of ``k`` equal elements, each
  starting at an index that is a multiple of ``k``.
* ``constant_value``: every element is this integer (``None``: not known to be constant).
* ``nonnegative``: every element is ``>= 0`` read as a signed integer (not printed). It lets the
  rules for ``divsi``/``remsi`` by a constant, which are only valid for ``floor`` division,
  apply to index arithmetic. Like Triton, the rules ignore wrap-around of index arithmetic.

Seeds (:meth:`AxisInfoProblem.entry`): an integer parameter with ``multipleof = n`` is
divisible by the largest power of two dividing ``n``, otherwise by 1; a pointer parameter by
the largest power of two dividing ``lcm(aligned, multipleof)`` bytes, and never less than its
element size. An op carrying a ``multipleof = n`` attribute (a local declared
``int off __multipleof(8) = ...;``, see ``frontend/irgen.py``) has every element divisible by
``n``. Transfer functions, one per op (:data:`TRANSFER`), follow modern Triton's
``AxisInfo.cpp`` (visitors for ``make_range``, ``splat``, ``add``/``sub``/``addptr``, ``mul``,
``div``/``rem``, shifts, ``and``, comparisons, ``select``, ``expand_dims``, ``broadcast``,
``trans``, ``reshape``, ``load``), with two corrections: when an op's runs are shorter than an
operand's, the divisibility at the new run starts is recomputed (:func:`_divisibility_at`)
instead of reused; and comparisons only keep the constancy Triton derives for the predicates
where it holds (``x < N`` changes value at ``N``, ``x <= N`` at ``N + 1``).

Joins (loop-carried values, ``scf.if`` results) take the gcd of each entry and forget a constant
that differs; the lattice has finite height (divisibility is capped, contiguity and constancy
only shrink), so the generic solver (``dataflow.py``, sparse forward mode) needs no widening.
An ``scf.for`` induction variable is ``lower + i * step``: divisible by the gcd of both.

Consumers (coalescing, vectorisation) ask :meth:`AxisInfoAnalysis.info` for the fact of a
value and :meth:`AxisInfoAnalysis.max_vector_elems` for the widest access (at most 16 bytes)
that is contiguous and aligned along a pointer tile's fastest dimension.
``--print-analysis=axis-info`` prints every op with its facts (:meth:`AxisInfoAnalysis.annotate`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

from ..ir.core import Block, BlockArgument, Function, Module, Operation, Value
from ..ir.types import PointerType, ScalarType, Type, element_type, shape_of
from ..passes import Analysis, AnalysisManager
from .dataflow import ForwardProblem, solve_forward

#: Divisibility of the value 0 (and the cap of every divisibility), as in Triton's printouts.
MAX_DIVISIBILITY = 1 << 31

#: Widest single memory access a thread issues, in bytes (``ld.global.v4.b32``).
MAX_ACCESS_BYTES = 16


def pow2_divisor(n: int) -> int:
    """The largest power of two dividing ``n`` (:data:`MAX_DIVISIBILITY` for 0, and at most that)."""
    if n == 0:
        return MAX_DIVISIBILITY
    return min(n & -n, MAX_DIVISIBILITY)


def _pow2_floor(n: int) -> int:
    """The largest power of two ``<= n`` (``n >= 1``)."""
    return 1 << (max(n, 1).bit_length() - 1)


@dataclass(frozen=True)
class AxisInfo:
    """The facts of one value; every tuple has one entry per dimension (one for a scalar)."""

    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant_value: int | None = None
    nonnegative: bool = False

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    @staticmethod
    def unknown(shape: tuple[int, ...], divisibility: int = 1) -> "AxisInfo":
        """Nothing known but a divisibility of every element (the pessimistic fact)."""
        n = len(shape)
        return AxisInfo((1,) * n, (divisibility,) * n, (1,) * n)

    @staticmethod
    def constant(value: int, shape: tuple[int, ...]) -> "AxisInfo":
        """Every element is ``value``."""
        return AxisInfo((1,) * len(shape), (pow2_divisor(value),) * len(shape), tuple(shape), value, value >= 0)

    def join(self, other: "AxisInfo") -> "AxisInfo":
        """A fact true of both values: gcd of each entry; the constant only if equal."""
        return AxisInfo(
            tuple(map(math.gcd, self.contiguity, other.contiguity)),
            tuple(map(math.gcd, self.divisibility, other.divisibility)),
            tuple(map(math.gcd, self.constancy, other.constancy)),
            self.constant_value if self.constant_value == other.constant_value else None,
            self.nonnegative and other.nonnegative)

    def element_divisibility(self, step: int = 1) -> int:
        """A power of two dividing *every* element (``step``: bytes per element for pointers)."""
        best = 1
        for c, p in zip(self.contiguity, self.divisibility):
            best = max(best, p if c == 1 else min(p, step))
        return best

    def __str__(self) -> str:
        def show(values: tuple[int, ...]) -> str:
            return "[" + ", ".join(map(str, values)) + "]"

        text = (f"contiguity={show(self.contiguity)} divisibility={show(self.divisibility)} "
                f"constancy={show(self.constancy)}")
        if self.constant_value is not None:
            text += f" constant_value={self.constant_value}"
        return text


# --- helpers over types ------------------------------------------------------------------------

def dims(t: Type) -> tuple[int, ...]:
    """The shape the facts of a value of type ``t`` describe: a scalar is one element."""
    return shape_of(t) or (1,)


def step_bytes(t: Type) -> int:
    """How far apart consecutive elements of a contiguous run are in the value's unit: the
    element size in bytes for pointers, 1 for integers."""
    el = element_type(t)
    return el.pointee.bytes if isinstance(el, PointerType) else 1


def _int_bits(t: Type) -> int | None:
    el = element_type(t)
    return el.bits if isinstance(el, ScalarType) and el.is_int else None


def pessimistic(t: Type) -> AxisInfo:
    """What is known of a value of type ``t`` about which nothing was proved: pointers are
    aligned to their element size (spec §3), the rest is divisible by 1."""
    return AxisInfo.unknown(dims(t), step_bytes(t))


def _divisibility_at(info: AxisInfo, d: int, runs: int, step: int) -> int:
    """A power of two dividing the elements of ``info`` at indices along ``d`` that are multiples
    of ``runs`` (the run starts of a result whose runs are ``runs`` long).

    Those are run starts of ``info`` when ``runs`` is a multiple of its contiguity; otherwise
    they lie ``m`` elements into a run, with ``m`` a multiple of ``gcd(runs, contiguity)``'s
    power-of-two part, so they are ``first + m * step``.
    """
    c, p = info.contiguity[d], info.divisibility[d]
    if runs % c == 0:
        return p
    return min(p, step * min(pow2_divisor(runs), pow2_divisor(c)))


def _constant_dims(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """``info`` as the fact of a scalar broadcast to ``shape`` (a splat)."""
    n = len(shape)
    return AxisInfo((1,) * n, (info.divisibility[0],) * n, tuple(shape), info.constant_value, info.nonnegative)


def _as_shape(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """An operand's fact as one of a value of ``shape`` (element-wise operands already are)."""
    return info if info.rank == len(shape) else _constant_dims(info, shape)


# --- transfer functions ------------------------------------------------------------------------

Transfer = Callable[[Operation, list[AxisInfo]], AxisInfo]


def _fold(op: Operation, facts: list[AxisInfo]) -> int | None:
    """The constant result of an element-wise integer op whose operands are all constant."""
    from ..transforms.folding import fold

    if _int_bits(op.result.type) is None or any(f.constant_value is None for f in facts):
        return None
    types = [element_type(v.type) for v in op.operands]
    if any(not isinstance(t, ScalarType) for t in types):
        return None
    value = fold(op.name, op.attrs, types, element_type(op.result.type), [f.constant_value for f in facts])
    return int(value) if value is not None else None


def _elementwise_default(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """Any element-wise op: equal operands give equal results (constancy is the gcd)."""
    shape = dims(op.result.type)
    constancy = tuple(shape)
    for f in facts:
        constancy = tuple(map(math.gcd, constancy, _as_shape(f, shape).constancy))
    base = pessimistic(op.result.type)
    return replace(base, constancy=constancy)


def _constant(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    value = op.attrs["value"]
    if _int_bits(op.result.type) is not None and isinstance(value, (bool, int)):
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
    return _constant_dims(facts[0], dims(op.result.type))


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
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    sub = op.name == "arith.subi"
    step = step_bytes(op.result.type)
    scale = step if op.name == "tt.addptr" else 1  # the offset counts elements, the address bytes
    c, p, k = [], [], []
    for d in range(len(shape)):
        runs = math.gcd(lhs.contiguity[d], rhs.constancy[d])
        if not sub:
            runs = max(runs, math.gcd(lhs.constancy[d], rhs.contiguity[d]))
        c.append(runs)
        p.append(min(MAX_DIVISIBILITY, math.gcd(_divisibility_at(lhs, d, runs, step),
                                                _divisibility_at(rhs, d, runs, 1) * scale)))
        k.append(math.gcd(lhs.constancy[d], rhs.constancy[d]))
    value = _fold(op, facts) if op.name != "tt.addptr" else None
    nonneg = lhs.nonnegative and rhs.nonnegative and not sub and op.name != "tt.addptr"
    result = AxisInfo(tuple(c), tuple(p), tuple(k), None, nonneg)
    return _with_constant(result, value, shape)


def _with_constant(info: AxisInfo, value: int | None, shape: tuple[int, ...]) -> AxisInfo:
    return AxisInfo.constant(value, shape) if value is not None else info


def _mul(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    if 0 in (lhs.constant_value, rhs.constant_value):
        return AxisInfo.constant(0, shape)
    if rhs.constant_value == 1:
        return lhs
    if lhs.constant_value == 1:
        return rhs
    # The product is not contiguous, so every element is a run start: multiply what divides
    # every element of each side (a contiguous run [8, 9, 10, 11] only contributes 1).
    every = min(MAX_DIVISIBILITY, lhs.element_divisibility() * rhs.element_divisibility())
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, lhs.nonnegative and rhs.nonnegative)


def _runs_over(lhs: AxisInfo, d: int, divisor: int) -> int:
    """Length of the aligned runs of a contiguous ``lhs`` along ``d`` on which ``floor(x / divisor)``
    is constant (and ``x mod divisor`` contiguous): ``gcd(contiguity, divisibility, divisor)``."""
    return math.gcd(lhs.contiguity[d], math.gcd(lhs.divisibility[d], divisor))


def _div(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """``divsi``/``divui``/``shrsi``/``shrui``: by a positive constant, aligned runs of a
    contiguous dividend give runs of equal quotients; exact division keeps the rest of the
    divisibility (``8k / 4 = 2k``)."""
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    v = rhs.constant_value
    shift = op.name in ("arith.shrsi", "arith.shrui")
    bits = _int_bits(op.result.type) or 32
    if v is None or v < 0 or (shift and v >= bits) or (not shift and v == 0):
        nonneg = lhs.nonnegative and rhs.nonnegative and op.name == "arith.divsi"
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
    """``remsi``/``remui`` by a positive constant: a contiguous dividend gives contiguous runs."""
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    v = rhs.constant_value
    if v is None or v <= 0:
        return AxisInfo((1,) * len(shape), (1,) * len(shape), k, None, op.name == "arith.remsi" and lhs.nonnegative)
    return _modulo(lhs, shape, v, k, floor_like=op.name == "arith.remui" or lhs.nonnegative,
                   nonneg=lhs.nonnegative or (op.name == "arith.remui" and v <= (1 << 31)))


def _modulo(lhs: AxisInfo, shape: tuple[int, ...], v: int, k: tuple[int, ...], floor_like: bool,
            nonneg: bool) -> AxisInfo:
    """``x mod v`` for a positive constant ``v`` (``x & (v - 1)`` when ``v`` is a power of two)."""
    c, p = [], []
    for d in range(len(shape)):
        runs = _runs_over(lhs, d, v) if floor_like and lhs.contiguity[d] > 1 else 1
        start = _divisibility_at(lhs, d, runs, 1)
        if v & (v - 1) == 0 and start >= v:
            start = MAX_DIVISIBILITY  # a multiple of v: the remainder is 0
        else:
            start = min(start, pow2_divisor(v))
        c.append(runs)
        p.append(start if floor_like or lhs.contiguity[d] == 1 else 1)
    return AxisInfo(tuple(c), tuple(p), k, None, nonneg)


def _shl(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    v = rhs.constant_value
    bits = _int_bits(op.result.type) or 32
    if v == 0:
        return lhs
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    every = lhs.element_divisibility()
    if v is not None and 0 < v < bits:
        every = min(MAX_DIVISIBILITY, every << v)
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k)


def _and(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    if lhs.constant_value is not None and rhs.constant_value is None:
        lhs, rhs = rhs, lhs
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    nonneg = lhs.nonnegative or rhs.nonnegative
    mask = rhs.constant_value
    if _int_bits(op.result.type) != 1 and mask is not None and mask > 0 and mask & (mask + 1) == 0:
        return _modulo(lhs, shape, mask + 1, k, floor_like=True, nonneg=True)  # x & (2^j - 1) == x mod 2^j
    every = max(lhs.element_divisibility(), rhs.element_divisibility())
    if mask is not None and mask < 0 and (-mask) & (-mask - 1) == 0:  # x & -2^j rounds down to a multiple of 2^j
        k = tuple(max(kd, _runs_over(lhs, d, -mask)) if lhs.contiguity[d] > 1 else kd for d, kd in enumerate(k))
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, nonneg)


def _or_xor(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
    every = min(lhs.element_divisibility(), rhs.element_divisibility())
    return AxisInfo((1,) * len(shape), (every,) * len(shape), k, None, lhs.nonnegative and rhs.nonnegative)


def _max_min(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """The result is one of the operands, element by element."""
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    k = tuple(map(math.gcd, lhs.constancy, rhs.constancy))
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
    shape = dims(op.result.type)
    lhs, rhs = (_as_shape(f, shape) for f in facts)
    value = _fold(op, facts)
    if value is not None:
        return AxisInfo.constant(value, shape)
    pred = op.attrs["predicate"]
    k = []
    for d in range(len(shape)):
        runs = math.gcd(lhs.constancy[d], rhs.constancy[d])
        if pred in _CHANGES_AT_RHS and lhs.contiguity[d] > 1:
            runs = max(runs, math.gcd(math.gcd(lhs.contiguity[d], rhs.constancy[d]),
                                      math.gcd(lhs.divisibility[d], _divisibility_at(rhs, d, 1, 1))))
        elif pred in _CHANGES_AT_LHS and rhs.contiguity[d] > 1:
            runs = max(runs, math.gcd(math.gcd(rhs.contiguity[d], lhs.constancy[d]),
                                      math.gcd(rhs.divisibility[d], _divisibility_at(lhs, d, 1, 1))))
        k.append(runs)
    return AxisInfo((1,) * len(shape), (1,) * len(shape), tuple(k))


def _select(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    shape = dims(op.result.type)
    cond, a, b = facts
    if not shape_of(op.operands[0].type):  # a scalar condition picks one whole tile
        cond = _constant_dims(cond, shape)
    if cond.constant_value is not None:
        return a if cond.constant_value else b
    step = step_bytes(op.result.type)
    c, p, k = [], [], []
    for d in range(len(shape)):
        runs = math.gcd(cond.constancy[d], math.gcd(a.contiguity[d], b.contiguity[d]))
        c.append(runs)
        p.append(math.gcd(_divisibility_at(a, d, runs, step), _divisibility_at(b, d, runs, step)))
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
    if _int_bits(op.result.type) is None or _int_bits(op.operands[0].type) is None:
        return _elementwise_default(op, facts)
    if op.name == "arith.extui" and not src.nonnegative:
        every = src.element_divisibility()
        return AxisInfo((1,) * len(shape), (every,) * len(shape), src.constancy, None, True)
    if op.name == "arith.trunci":
        limit = 1 << (_int_bits(op.result.type) or 32)
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
        k = tuple(map(math.gcd, k, _as_shape(f, shape).constancy))
    return replace(pessimistic(op.result.type), constancy=k)


def _reduce(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    """The other dimensions keep their constancy; integer combines keep what divides every element."""
    src, axis = facts[0], op.attrs["axis"]
    out = dims(op.result.type)
    if not shape_of(op.result.type):
        k: tuple[int, ...] = (1,)
    else:
        k = src.constancy[:axis] + src.constancy[axis + 1:]
    if _int_bits(op.result.type) is None:
        return AxisInfo((1,) * len(out), (1,) * len(out), k)
    every = src.element_divisibility()
    value = src.constant_value if op.attrs["combine"] in ("maxsi", "minsi", "maxui", "minui", "andi", "ori") else None
    result = AxisInfo((1,) * len(out), (every,) * len(out), k, None, src.nonnegative)
    return _with_constant(result, value, out)


def _unknown(op: Operation, facts: list[AxisInfo]) -> AxisInfo:
    return pessimistic(op.result.type)


#: Transfer function per op name. Ops not listed: element-wise ops keep constancy
#: (:func:`_elementwise_default`), anything else is unknown.
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

#: Ops without a rule of their own that are element-wise (results equal where operands are).
_ELEMENTWISE_PREFIXES = ("arith.", "math.")


class AxisInfoProblem(ForwardProblem[AxisInfo | None]):
    """The axis-info lattice for the sparse forward solver; ``None`` is bottom ("not reached yet").

    ``functions`` maps each function's entry block to the function (for its ``arg_attrs``).
    """

    def __init__(self, functions: dict[Block, Function]):
        self.functions = functions

    def initial(self, value: Value) -> AxisInfo | None:
        return None

    def join(self, a: AxisInfo | None, b: AxisInfo | None) -> AxisInfo | None:
        if a is None:
            return b
        if b is None:
            return a
        return a.join(b)

    def entry(self, arg: BlockArgument) -> AxisInfo | None:
        """Seed a function parameter from its ``aligned`` / ``multipleof`` promises."""
        function = self.functions.get(arg.block)
        attrs = function.arg_attrs[arg.index] if function is not None else {}
        t = arg.type
        if isinstance(t, PointerType):
            promises = [int(attrs[a]) for a in ("aligned", "multipleof") if attrs.get(a)]
            promise = math.lcm(*promises) if promises else 1
            return AxisInfo.unknown(dims(t), max(t.pointee.bytes, pow2_divisor(promise)))
        info = pessimistic(t)
        if _int_bits(t) is not None and attrs.get("multipleof"):
            info = replace(info, divisibility=(pow2_divisor(int(attrs["multipleof"])),) * info.rank)
        return info

    def induction(self, loop: Operation, lower, upper, step) -> AxisInfo | None:
        """``iv = lower + i * step``: divisible by what divides both."""
        if lower is None or step is None:
            return None
        p = math.gcd(lower.element_divisibility(), step.element_divisibility())
        return AxisInfo((1,), (p,), (1,), None, lower.nonnegative and step.nonnegative)

    def transfer(self, op: Operation, operand_facts: list) -> list:
        if any(f is None for f in operand_facts):
            return [None] * len(op.results)
        rule = TRANSFER.get(op.name)
        if rule is None:
            rule = _elementwise_default if (op.name.startswith(_ELEMENTWISE_PREFIXES) and len(op.results) == 1) else None
        if rule is None:
            return [pessimistic(r.type) for r in op.results]
        info = rule(op, operand_facts)
        multiple = op.attrs.get("multipleof")
        if multiple and _int_bits(op.result.type) is not None:
            p = pow2_divisor(int(multiple))
            info = replace(info, divisibility=tuple(max(q, p) for q in info.divisibility))
        return [info]


class AxisInfoAnalysis(Analysis):
    """Axis info of every value of a module (see the module docstring); never mutates the IR."""

    name = "axis-info"

    def __init__(self, module: Module, am: AnalysisManager | None = None):
        super().__init__(module, am)  # type: ignore[arg-type]
        problem = AxisInfoProblem({f.body.block: f for f in module.functions})
        self.result = solve_forward(problem, module)

    def info(self, value: Value) -> AxisInfo:
        """The facts of ``value`` (the pessimistic fact of its type if none were derived)."""
        fact = self.result.fact(value)
        return fact if fact is not None else pessimistic(value.type)

    def order(self, value: Value) -> list[int]:
        """Dimensions from the most to the least contiguous (ties: the later dimension first, as
        in a row-major layout); ``order[0]`` is the dimension a coalesced layout runs along."""
        info = self.info(value)
        return sorted(range(info.rank), key=lambda d: (-info.contiguity[d], -d))

    def max_vector_elems(self, ptr: Value, elem_bytes: int | None = None, mask: Value | None = None) -> int:
        """How many consecutive elements one thread can access with one instruction through the
        pointer tile ``ptr`` along its fastest dimension (``order(ptr)[0]``): the largest power
        of two that divides the contiguity, whose bytes (``elem_bytes``, default the pointee
        size) divide the address divisibility and fit in 16 bytes, and, with a ``mask``, that
        divides the mask's constancy along that dimension. 1 for a scalar pointer.
        """
        el = element_type(ptr.type)
        if not isinstance(el, PointerType):
            raise ValueError(f"max_vector_elems needs a pointer value, got {ptr.type}")
        eb = elem_bytes or el.pointee.bytes
        if not shape_of(ptr.type):
            return 1
        info = self.info(ptr)
        dim = self.order(ptr)[0]
        vec = min(pow2_divisor(info.contiguity[dim]), max(1, info.divisibility[dim] // eb),
                  max(1, MAX_ACCESS_BYTES // eb))
        if mask is not None:
            vec = min(vec, pow2_divisor(self.info(mask).constancy[dim]))
        return _pow2_floor(vec)

    def annotate(self, op: Operation) -> str | None:
        """The ``--print-analysis`` comment of ``op``: the facts of each of its results."""
        if not op.results:
            return None
        if len(op.results) == 1:
            return str(self.info(op.result))
        return "; ".join(f"#{i}: {self.info(r)}" for i, r in enumerate(op.results))
