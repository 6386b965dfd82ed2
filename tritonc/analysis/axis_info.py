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
``n``. Transfer functions, one per op (``TRANSFER`` in ``axis_info_rules.py``), follow modern Triton's
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

from ..ir.core import Block, BlockArgument, Function, Module, Operation, Value
from ..ir.ops import has_trait
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
        from .axis_info_rules import TRANSFER, _elementwise_default

        rule = TRANSFER.get(op.name)
        if rule is None:  # element-wise ops without a rule of their own: equal where operands are
            rule = _elementwise_default if (has_trait(op, "elementwise") and len(op.results) == 1) else None
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
