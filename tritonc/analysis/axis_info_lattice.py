"""The lattice of ``axis-info`` (see :mod:`tritonc.analysis.axis_info` for the meaning of
each entry): :class:`AxisInfo` and the helpers over it and over types that the analysis
(``axis_info.py``) and its transfer rules (``axis_info_rules.py``) share.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.types import PointerType, ScalarType, Type, element_type, shape_of


#: Divisibility of the value 0 (and the cap of every divisibility), as in Triton's printouts.
MAX_DIVISIBILITY = 1 << 31

#: Widest single memory access a thread issues, in bytes (``ld.global.v4.b32``).
MAX_ACCESS_BYTES = 16


def pow2_divisor(n: int) -> int:
    """The largest power of two dividing ``n`` (:data:`MAX_DIVISIBILITY` for 0, and at most that)."""
    if n == 0:
        return MAX_DIVISIBILITY
    return min(n & -n, MAX_DIVISIBILITY)


def pow2_floor(n: int) -> int:
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


def int_bits(t: Type) -> int | None:
    el = element_type(t)
    return el.bits if isinstance(el, ScalarType) and el.is_int else None


def pessimistic(t: Type) -> AxisInfo:
    """What is known of a value of type ``t`` about which nothing was proved: pointers are
    aligned to their element size (spec §3), the rest is divisible by 1."""
    return AxisInfo.unknown(dims(t), step_bytes(t))


def divisibility_at(info: AxisInfo, d: int, runs: int, step: int) -> int:
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


def constant_dims(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """``info`` as the fact of a scalar broadcast to ``shape`` (a splat)."""
    n = len(shape)
    return AxisInfo((1,) * n, (info.divisibility[0],) * n, tuple(shape), info.constant_value, info.nonnegative)


def as_shape(info: AxisInfo, shape: tuple[int, ...]) -> AxisInfo:
    """An operand's fact as one of a value of ``shape`` (element-wise operands already are)."""
    return info if info.rank == len(shape) else constant_dims(info, shape)
