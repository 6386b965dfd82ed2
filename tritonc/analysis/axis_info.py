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
operand's, the divisibility at the new run starts is recomputed (:func:`divisibility_at`)
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
from dataclasses import replace

from ..ir.core import Block, BlockArgument, Function, Module, Operation, Value
from ..ir.ops import has_trait
from ..ir.types import PointerType, element_type, shape_of
from ..passes import Analysis, AnalysisManager
from .axis_info_lattice import (MAX_ACCESS_BYTES, MAX_DIVISIBILITY, AxisInfo, as_shape, constant_dims,  # noqa: F401
                                divisibility_at, dims, int_bits, pessimistic, pow2_divisor, pow2_floor,
                                step_bytes)
from .axis_info_rules import TRANSFER, elementwise_default
from .dataflow import ForwardProblem, solve_forward

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
        if int_bits(t) is not None and attrs.get("multipleof"):
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
        if rule is None:  # element-wise ops without a rule of their own: equal where operands are
            rule = elementwise_default if (has_trait(op, "elementwise") and len(op.results) == 1) else None
        if rule is None:
            return [pessimistic(r.type) for r in op.results]
        info = rule(op, operand_facts)
        multiple = op.attrs.get("multipleof")
        if multiple and int_bits(op.result.type) is not None:
            p = pow2_divisor(int(multiple))
            info = replace(info, divisibility=tuple(max(q, p) for q in info.divisibility))
        return [info]


class AxisInfoAnalysis(Analysis):
    """Axis info of every value of a module (see the module docstring); never mutates the IR."""

    name = "axis-info"

    def __init__(self, module: Module | Function, am: AnalysisManager | None = None):
        """The facts of every value of ``module``, or of one function (its parameters seeded
        from its own ``arg_attrs``, as they are when the analysis runs)."""
        super().__init__(module, am)  # type: ignore[arg-type]
        functions = module.functions if isinstance(module, Module) else [module]
        problem = AxisInfoProblem({f.body.block: f for f in functions})
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
        return pow2_floor(vec)

    def annotate(self, op: Operation) -> str | None:
        """The ``--print-analysis`` comment of ``op``: the facts of each of its results."""
        if not op.results:
            return None
        if len(op.results) == 1:
            return str(self.info(op.result))
        return "; ".join(f"#{i}: {self.info(r)}" for i, r in enumerate(op.results))
