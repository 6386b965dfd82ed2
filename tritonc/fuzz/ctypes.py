"""Triton-C scalar types for the program generator: numpy dtypes, C's usual arithmetic
conversions, value ranges and the rounding error of each floating type.

Spec section 3 (types) and 5 (arithmetic conversions); ``docs/language.md`` 7.4.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class CType:
    """A scalar type: its spelling in generated source, numpy dtype, kind (``b`` bool, ``i``
    signed, ``u`` unsigned, ``f`` floating) and width in bits."""

    name: str
    dtype: object
    kind: str
    bits: int

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def min(self) -> float:
        if self.kind == "b":
            return 0
        if self.kind == "u":
            return 0
        if self.kind == "i":
            return -(1 << (self.bits - 1))
        return -MAX_FINITE[self.name]

    @property
    def max(self) -> float:
        if self.kind == "b":
            return 1
        if self.kind == "u":
            return (1 << self.bits) - 1
        if self.kind == "i":
            return (1 << (self.bits - 1)) - 1
        return MAX_FINITE[self.name]

    @property
    def unit_roundoff(self) -> float:
        """Half an ulp at 1 (2^-p for p mantissa bits with the hidden one): the relative error
        of one correctly rounded operation."""
        return {"half": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float": 2.0 ** -24, "double": 2.0 ** -53}[self.name]

    @property
    def underflow(self) -> float:
        """An absolute error bound for one rounding near zero (subnormal spacing, or the
        smallest normal for ``float``, since a GPU may flush ``f32`` subnormals to zero)."""
        return {"half": 2.0 ** -24, "bfloat16": 2.0 ** -126, "float": 2.0 ** -126, "double": 2.0 ** -1022}[self.name]

    @property
    def exact_int_limit(self) -> int:
        """Integers of magnitude up to this convert to the type exactly."""
        return {"half": 2 ** 11, "bfloat16": 2 ** 8, "float": 2 ** 24, "double": 2 ** 53}[self.name]


MAX_FINITE = {"half": 65504.0, "bfloat16": 3.0e38, "float": 3.4e38, "double": 1.7e308}

BOOL = CType("bool", np.bool_, "b", 1)
I8 = CType("int8", np.int8, "i", 8)
U8 = CType("uint8", np.uint8, "u", 8)
I16 = CType("int16", np.int16, "i", 16)
U16 = CType("uint16", np.uint16, "u", 16)
I32 = CType("int", np.int32, "i", 32)
U32 = CType("uint32", np.uint32, "u", 32)
I64 = CType("long", np.int64, "i", 64)
U64 = CType("uint64", np.uint64, "u", 64)
F16 = CType("half", np.float16, "f", 16)
BF16 = CType("bfloat16", ml_dtypes.bfloat16, "f", 16)
F32 = CType("float", np.float32, "f", 32)
F64 = CType("double", np.float64, "f", 64)

INTS = (I8, U8, I16, U16, I32, U32, I64, U64)
FLOATS = (F16, BF16, F32, F64)
ALL = (BOOL,) + INTS + FLOATS
BY_NAME = {t.name: t for t in ALL}
#: The same width as an integer type, for bitcasts.
INT_OF_WIDTH = {16: I16, 32: I32, 64: I64}
UINT_OF_WIDTH = {8: U8, 16: U16, 32: U32, 64: U64}


def promote(t: CType) -> CType:
    """C's integer promotion: ``bool``, 8- and 16-bit integers compute as ``int``."""
    if t.kind in "biu" and t.bits < 32:
        return I32
    return t


def common(a: CType, b: CType) -> CType:
    """C's usual arithmetic conversions of two operand types (spec section 5)."""
    if a.is_float or b.is_float:
        if F64 in (a, b):
            return F64
        if F32 in (a, b):
            return F32
        if a.is_float and b.is_float and a != b:
            return F32  # half with bfloat16
        return a if a.is_float else b
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.kind == b.kind:
        return a if a.bits > b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if u.bits >= s.bits:
        return u
    if s.bits > u.bits:
        return s
    return UINT_OF_WIDTH[s.bits]


def math_result(t: CType) -> CType:
    """The result type of ``exp log sqrt sin cos abs fabs floor ceil rsqrt`` on ``t``
    (``double`` for ``double``, else ``float``)."""
    return F64 if t == F64 else F32
