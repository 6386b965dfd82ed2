"""The C type system of Triton-C as sema sees it: scalars with signedness, pointers, tiles.

A :class:`CType` is an element type (a scalar such as ``unsigned int`` or ``half``, or a
pointer to one) plus a tile ``shape`` (``()`` for a scalar or a single pointer). Unlike the
signless IR types (``tritonc.ir.types``), C types remember signedness, which decides the
IR operation sema and irgen pick (``divsi``/``divui``, ``extsi``/``extui``, ``slt``/``ult``).

Algorithms:

* integer promotion and the usual arithmetic conversions follow C11 6.3.1.1 and 6.3.1.8,
  extended to the 16-bit floating types of spec section 5: ``half + float`` is ``float``,
  ``half`` with ``bfloat16`` gives ``float``, ``half + int`` is ``half``;
* broadcasting follows NumPy (spec section 5): left-pad the lower rank with 1s, then each
  dimension must match or be 1;
* constant folding (:func:`fold_binary`, :func:`convert_const`) computes in the operand type
  with C semantics: integers wrap in two's complement and divide towards zero, floats round
  to the type's precision through numpy (``ml_dtypes`` for ``bfloat16``).

A folded integer constant is kept as its mathematical value in the C type (``0 .. 2^n - 1``
for unsigned types); :func:`ir_int_value` gives the two's-complement signed value that the
IR's signless ``arith.constant`` carries.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from tritonc.ir.types import SCALARS, PointerType, TileType, Type

# name -> (bits, is_float, is_signed, integer rank, IR type name)
_SCALARS: dict[str, tuple[int, bool, bool, int, str]] = {
    "bool": (1, False, False, 0, "i1"),
    "char": (8, False, True, 1, "i8"),
    "unsigned char": (8, False, False, 1, "i8"),
    "short": (16, False, True, 2, "i16"),
    "unsigned short": (16, False, False, 2, "i16"),
    "int": (32, False, True, 3, "i32"),
    "unsigned int": (32, False, False, 3, "i32"),
    "long": (64, False, True, 4, "i64"),
    "unsigned long": (64, False, False, 4, "i64"),
    "half": (16, True, True, 0, "f16"),
    "bfloat16": (16, True, True, 0, "bf16"),
    "float": (32, True, True, 0, "f32"),
    "double": (64, True, True, 0, "f64"),
}

_NUMPY = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64}


@dataclass(frozen=True)
class CType:
    """A Triton-C type: ``base`` scalar name (or ``'void'``), whether it is a pointer to
    ``base``, and the tile ``shape`` (``()`` for scalars and single pointers).

    ``str()`` gives the spelling used in diagnostics: ``half``, ``half*``, ``float[64, 32]``,
    ``half*[64, 32]``.
    """

    base: str
    pointer: bool = False
    shape: tuple[int, ...] = ()

    # -- classification -----------------------------------------------------------------------
    @property
    def is_void(self) -> bool:
        return self.base == "void" and not self.pointer

    @property
    def is_tile(self) -> bool:
        return bool(self.shape)

    @property
    def is_pointer(self) -> bool:
        return self.pointer

    @property
    def is_arith(self) -> bool:
        return not self.pointer and self.base in _SCALARS

    @property
    def is_integer(self) -> bool:
        return self.is_arith and not _SCALARS[self.base][1]

    @property
    def is_float(self) -> bool:
        return self.is_arith and _SCALARS[self.base][1]

    @property
    def is_bool(self) -> bool:
        return self.is_arith and self.base == "bool"

    @property
    def is_signed(self) -> bool:
        """Signed integers and floats; false for ``bool``, unsigned integers and pointers."""
        return self.is_arith and _SCALARS[self.base][2]

    @property
    def is_scalar_value(self) -> bool:
        """Arithmetic or pointer (what a condition, a mask or an operand may be)."""
        return self.is_arith or self.pointer

    @property
    def bits(self) -> int:
        """Width of one element (pointers: 64)."""
        return 64 if self.pointer else _SCALARS[self.base][0]

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    # -- derived types ------------------------------------------------------------------------
    @property
    def element(self) -> "CType":
        """The element type (shape dropped)."""
        return CType(self.base, self.pointer) if self.shape else self

    @property
    def pointee(self) -> "CType":
        """The type a pointer (tile) points to, with the same shape."""
        assert self.pointer
        return CType(self.base, False, self.shape)

    def with_shape(self, shape: tuple[int, ...]) -> "CType":
        return CType(self.base, self.pointer, tuple(shape))

    def with_base(self, base: str) -> "CType":
        """The arithmetic type ``base`` with this type's shape."""
        return CType(base, False, self.shape)

    def pointer_to(self) -> "CType":
        return CType(self.base, True, self.shape)

    # -- IR -----------------------------------------------------------------------------------
    def ir_element(self):
        scalar = SCALARS[_SCALARS[self.base][4]]
        return PointerType(scalar) if self.pointer else scalar

    def ir(self) -> Type:
        """The IR type: ``i1 i8 .. i64 f16 bf16 f32 f64``, ``ptr<..>``, or a tile of those."""
        el = self.ir_element()
        return TileType(el, self.shape) if self.shape else el

    def __str__(self) -> str:
        text = self.base + ("*" if self.pointer else "")
        if self.shape:
            text += "[" + ", ".join(map(str, self.shape)) + "]"
        return text


VOID = CType("void")
BOOL, INT, LONG, UINT = CType("bool"), CType("int"), CType("long"), CType("unsigned int")
HALF, FLOAT, DOUBLE = CType("half"), CType("float"), CType("double")


def is_scalar_name(name: str) -> bool:
    return name in _SCALARS


def unsigned_of(base: str) -> str:
    return base if base.startswith("unsigned") else "unsigned " + base


# ---------------------------------------------------------------------------------------------
# Conversions (C11 6.3.1.1, 6.3.1.8)
# ---------------------------------------------------------------------------------------------

def promote(base: str) -> str:
    """Integer promotion: ``bool``, ``char``, ``short`` and their unsigned forms become ``int``
    (an ``int`` represents all their values); every other type is unchanged."""
    bits, is_float, _, rank, _ = _SCALARS[base]
    if not is_float and rank < _SCALARS["int"][3]:
        return "int"
    return base


def common_base(a: str, b: str) -> str:
    """The usual arithmetic conversions of two arithmetic element types (C11 6.3.1.8)."""
    fa, fb = _SCALARS[a][1], _SCALARS[b][1]
    if fa or fb:
        floats = {x for x, f in ((a, fa), (b, fb)) if f}
        for wide in ("double", "float"):
            if wide in floats:
                return wide
        if floats == {"half", "bfloat16"}:
            return "float"
        return floats.pop()
    a, b = promote(a), promote(b)
    if a == b:
        return a
    sa, sb = _SCALARS[a][2], _SCALARS[b][2]
    ra, rb = _SCALARS[a][3], _SCALARS[b][3]
    if sa == sb:
        return a if ra >= rb else b
    unsigned, signed = (a, b) if not sa else (b, a)
    if _SCALARS[unsigned][3] >= _SCALARS[signed][3]:
        return unsigned
    if _SCALARS[signed][0] > _SCALARS[unsigned][0]:
        return signed
    return unsigned_of(signed)


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy broadcasting of two shapes; ``None`` when they are incompatible."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


def can_broadcast_to(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether ``src`` broadcasts to exactly ``dst``."""
    return len(src) <= len(dst) and broadcast_shapes(src, dst) == tuple(dst)


def format_shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


# ---------------------------------------------------------------------------------------------
# Integer literals and constant folding
# ---------------------------------------------------------------------------------------------

def int_literal_base(value: int, suffix: str, is_decimal: bool) -> str | None:
    """C11 6.4.4.1: the first type of the literal's list that represents ``value`` (``None``
    when none does). Decimal literals without ``u`` only take signed types."""
    unsigned = "u" in suffix
    long = "l" in suffix
    if unsigned:
        candidates = ["unsigned long"] if long else ["unsigned int", "unsigned long"]
    elif is_decimal:
        candidates = ["long"] if long else ["int", "long"]
    else:
        candidates = ["long", "unsigned long"] if long else ["int", "unsigned int", "long", "unsigned long"]
    for c in candidates:
        if fits(value, c):
            return c
    return None


def fits(value: int, base: str) -> bool:
    bits, _, signed, _, _ = _SCALARS[base]
    if base == "bool":
        return value in (0, 1)
    if signed:
        return -(1 << (bits - 1)) <= value < (1 << (bits - 1))
    return 0 <= value < (1 << bits)


def wrap_int(value: int, base: str) -> int:
    """``value`` reduced to the range of integer type ``base`` (two's complement wrap)."""
    bits, _, signed, _, _ = _SCALARS[base]
    if base == "bool":
        return int(value != 0)
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def ir_int_value(value: int, base: str) -> int:
    """The signed two's-complement value an IR ``arith.constant`` of this type carries
    (``i1`` constants are 0 or 1)."""
    bits = _SCALARS[base][0]
    if bits == 1:
        return int(value != 0)
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def round_float(value: float, base: str) -> float:
    """``value`` rounded to the precision of floating type ``base``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(_NUMPY[base](value))


def convert_const(value: int | float, src: str, dst: str) -> int | float | None:
    """Fold the C conversion of constant ``value`` from ``src`` to ``dst`` (arithmetic types).
    ``None`` when the result is undefined (a float out of the integer's range, NaN)."""
    if dst == "bool":
        return int(value != 0)
    if _SCALARS[dst][1]:
        return round_float(float(value), dst)
    if _SCALARS[src][1]:
        if math.isnan(value) or math.isinf(value):
            return None
        value = math.trunc(value)
        if not fits(value, dst):
            return None
        return value
    return wrap_int(int(value), dst)


def bitcast_const(value: int | float, src: str, dst: str) -> int | float:
    """Reinterpret the bits of a constant (equal widths)."""
    bits = _SCALARS[src][0]
    if bits == 1:
        return value
    if _SCALARS[src][1]:
        raw = int(np.array(value, dtype=_NUMPY[src]).view(f"u{bits // 8}"))
    else:
        raw = int(value) & ((1 << bits) - 1)
    if _SCALARS[dst][1]:
        return float(np.array(raw, dtype=f"u{bits // 8}").view(_NUMPY[dst]))
    return wrap_int(raw, dst)


def fold_binary(op: str, a: int | float, b: int | float, base: str) -> int | float | None:
    """Fold ``a op b`` computed in arithmetic type ``base`` (operands already converted).

    Comparisons give 0 or 1. ``None`` when C leaves the result undefined (division by zero,
    shift by a negative or too large count) or the operator does not apply."""
    is_float = _SCALARS[base][1]
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op])
    if op in ("&&", "||"):
        return int(bool(a) and bool(b)) if op == "&&" else int(bool(a) or bool(b))
    if is_float:
        t = _NUMPY[base]
        with np.errstate(all="ignore"):
            x, y = t(a), t(b)
            r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}.get(op)
            return float(t(r())) if r is not None else None
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return wrap_int(q if op == "/" else a - q * b, base)
    if op in ("<<", ">>"):
        if b < 0 or b >= _SCALARS[base][0]:
            return None
        return wrap_int(a << b if op == "<<" else a >> b, base)
    r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}.get(op)
    return None if r is None else wrap_int(r, base)
