"""Compile-time evaluation of element-wise ``arith`` / ``math`` ops on constant scalars.

Used by ``canonicalize`` to fold ops whose operands are ``arith.constant`` scalars or splat
tiles (a splat tile has one value, so folding it is folding that value). Values are Python
``int`` / ``float``; :func:`fold` returns the result element or ``None`` when it must not fold.

Semantics (the interpreter's and the GPU's):

* integers are signless and ``bits`` wide: results wrap modulo ``2**bits``; ``*si`` ops read
  operands as signed, ``*ui`` ops as unsigned. Constants are stored normalised: signed
  (``-1`` for an all-ones i32), except ``i1`` which is ``0`` / ``1``;
* floats round to nearest even in their own type: each op is evaluated exactly enough in
  float64 (``2p + 2`` bits suffice for + - * / sqrt, Figueroa 1995) and rounded once to
  f16 / bf16 / f32 with numpy / ml_dtypes.

Never folded (the runtime result would differ or be undefined):

* integer division or remainder by zero, and signed ``MIN / -1`` (LLVM UB);
* shifts by ``bits`` or more (LLVM poison); ``fptosi`` / ``fptoui`` out of range or of NaN;
* float division by zero, and any float result or operand that is NaN (the NaN payload
  would not be the hardware's); ``maxnumf`` / ``minnumf`` of zeros of different signs;
* ``math.exp/exp2/log/log2/sin/cos/rsqrt`` (the GPU uses approximations, so a folded value
  would differ from the unfolded one) and ``math.fma`` (needs one rounding of ``a*b+c``).
"""
from __future__ import annotations

import math
from typing import Callable

import ml_dtypes
import numpy as np

from .types import ScalarType

Number = int | float

_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
_INT_OF_WIDTH = {16: np.uint16, 32: np.uint32, 64: np.uint64}


# --- integers ----------------------------------------------------------------------------------

def to_unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def to_signed(value: int, bits: int) -> int:
    value = to_unsigned(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def normalize_int(value: int, bits: int) -> int:
    """The stored form of an integer constant: signed, or 0/1 for ``i1``."""
    return to_unsigned(value, 1) if bits == 1 else to_signed(value, bits)


def _div_trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _fold_int_binary(name: str, a: int, b: int, bits: int) -> int | None:
    sa, sb = to_signed(a, bits), to_signed(b, bits)
    ua, ub = to_unsigned(a, bits), to_unsigned(b, bits)
    int_min = -(1 << (bits - 1))
    if name in ("divsi", "remsi") and (sb == 0 or (sa == int_min and sb == -1)):
        return None
    if name in ("divui", "remui") and ub == 0:
        return None
    if name in ("shli", "shrsi", "shrui") and ub >= bits:
        return None
    result = {
        "addi": lambda: sa + sb, "subi": lambda: sa - sb, "muli": lambda: sa * sb,
        "divsi": lambda: _div_trunc(sa, sb), "divui": lambda: ua // ub,
        "remsi": lambda: sa - _div_trunc(sa, sb) * sb, "remui": lambda: ua % ub,
        "andi": lambda: ua & ub, "ori": lambda: ua | ub, "xori": lambda: ua ^ ub,
        "shli": lambda: ua << ub, "shrsi": lambda: sa >> ub, "shrui": lambda: ua >> ub,
        "maxsi": lambda: max(sa, sb), "minsi": lambda: min(sa, sb),
        "maxui": lambda: max(ua, ub), "minui": lambda: min(ua, ub),
    }[name]()
    return normalize_int(result, bits)


def _cmpi(predicate: str, a: int, b: int, bits: int) -> int:
    if predicate in ("eq", "ne"):
        equal = to_unsigned(a, bits) == to_unsigned(b, bits)
        return int(equal == (predicate == "eq"))
    x, y = (to_signed(a, bits), to_signed(b, bits)) if predicate[0] == "s" else (to_unsigned(a, bits), to_unsigned(b, bits))
    return int({"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[predicate[1:]])


# --- floats ------------------------------------------------------------------------------------

def round_float(value: float, type: ScalarType) -> float | None:
    """``value`` (a float64) rounded to nearest even in ``type``; None if that is not certain."""
    if type.name == "f64":
        return value
    with np.errstate(over="ignore", invalid="ignore"):
        if type.name != "bf16":
            return float(np.float64(value).astype(_DTYPES[type.name]))
        # ml_dtypes rounds float64 through float32: refuse the one double-rounding case.
        as_f32 = np.float32(value)
        if float(as_f32) != value and (int(as_f32.view(np.uint32)) & 0xFFFF) == 0x8000:
            return None
        return float(as_f32.astype(ml_dtypes.bfloat16))


def _cmpf(predicate: str, a: float, b: float) -> int:
    unordered = math.isnan(a) or math.isnan(b)
    if predicate in ("ord", "uno"):
        return int(unordered == (predicate == "uno"))
    if unordered:
        return int(predicate[0] == "u")
    relation = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}
    return int(relation[predicate[1:]])


def _fold_float_binary(name: str, a: float, b: float) -> float | None:
    if name in ("divf", "remf") and b == 0 or name == "remf" and math.isinf(a):
        return None
    if name in ("maxnumf", "minnumf") and a == b == 0 and math.copysign(1, a) != math.copysign(1, b):
        return None
    return {
        "addf": lambda: a + b, "subf": lambda: a - b, "mulf": lambda: a * b, "divf": lambda: a / b,
        "remf": lambda: math.fmod(a, b), "maxnumf": lambda: max(a, b), "minnumf": lambda: min(a, b),
    }[name]()


_FLOAT_UNARY: dict[str, Callable[[float], float | None]] = {
    "arith.negf": lambda x: -x,
    "math.absf": abs,
    "math.floor": lambda x: float(np.floor(x)),  # numpy keeps the sign of zero: ceil(-0.5) == -0.0
    "math.ceil": lambda x: float(np.ceil(x)),
    "math.sqrt": lambda x: math.sqrt(x) if x >= 0 else None,
}


# --- casts -------------------------------------------------------------------------------------

def _int_to_float(value: int, type: ScalarType) -> float | None:
    if abs(value) >= 1 << 53:  # float(value) itself would round: avoid double rounding
        return None
    return round_float(float(value), type)


def _float_to_int(value: float, bits: int, signed: bool) -> int | None:
    if not math.isfinite(value):
        return None
    t = math.trunc(value)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return normalize_int(t, bits) if low <= t <= high else None


def _bitcast(value: Number, src: ScalarType, dst: ScalarType) -> Number | None:
    if src.is_int and dst.is_int:
        return normalize_int(value, dst.bits)  # type: ignore[arg-type]
    if src.bits not in _INT_OF_WIDTH:
        return None
    uint = _INT_OF_WIDTH[src.bits]
    if src.is_int:
        result = float(np.array(to_unsigned(int(value), src.bits), dtype=uint).view(_DTYPES[dst.name]))
        return None if math.isnan(result) else result
    bits = int(np.array(value, dtype=_DTYPES[src.name]).view(uint))
    return bits if dst.is_float else normalize_int(bits, dst.bits)


def _fold_cast(name: str, value: Number, src: ScalarType, dst: ScalarType) -> Number | None:
    if name == "arith.extsi":
        return normalize_int(to_signed(int(value), src.bits), dst.bits)
    if name in ("arith.extui", "arith.trunci"):
        return normalize_int(to_unsigned(int(value), src.bits), dst.bits)
    if name == "arith.sitofp":
        return _int_to_float(to_signed(int(value), src.bits), dst)
    if name == "arith.uitofp":
        return _int_to_float(to_unsigned(int(value), src.bits), dst)
    if name in ("arith.fptosi", "arith.fptoui"):
        return _float_to_int(float(value), dst.bits, name == "arith.fptosi")
    if name == "arith.extf":
        return float(value)
    if name == "arith.truncf":
        return round_float(float(value), dst)
    if name == "arith.bitcast":
        return _bitcast(value, src, dst)
    return None


# --- entry point -------------------------------------------------------------------------------

CAST_OPS = frozenset(("arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp", "arith.uitofp",
                      "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast"))
INT_BINARY_OPS = frozenset("arith." + n for n in ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori",
                                                  "xori", "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui"))
FLOAT_BINARY_OPS = frozenset("arith." + n for n in ("addf", "subf", "mulf", "divf", "remf", "maxnumf", "minnumf"))
FOLDABLE_OPS = CAST_OPS | INT_BINARY_OPS | FLOAT_BINARY_OPS | frozenset(_FLOAT_UNARY) | {"arith.cmpi", "arith.cmpf", "math.absi"}


def fold(name: str, attrs: dict, operand_types: list[ScalarType], result_type: ScalarType,
         values: list[Number]) -> Number | None:
    """The result element of element-wise op ``name`` applied to constant ``values``, or None.

    ``operand_types`` / ``result_type`` are element types. Integer results are normalised
    (:func:`normalize_int`); float results are exact in ``result_type``.
    """
    if name not in FOLDABLE_OPS or any(not isinstance(t, ScalarType) for t in operand_types):
        return None
    src = operand_types[0]
    # Read constants as their type holds them (an attribute may carry more precision or bits).
    values = [round_float(float(v), t) if t.is_float else normalize_int(int(v), t.bits) for v, t in zip(values, operand_types)]
    if any(v is None for v in values):
        return None
    if name == "arith.cmpi":
        return _cmpi(attrs["predicate"], values[0], values[1], src.bits)  # type: ignore[arg-type]
    if name == "arith.cmpf":
        return _cmpf(attrs["predicate"], *values)  # type: ignore[arg-type]
    if any(isinstance(v, float) and math.isnan(v) for v in values):
        return None
    if name in CAST_OPS:
        result = _fold_cast(name, values[0], src, result_type)
    elif name == "math.absi":
        result = normalize_int(abs(to_signed(values[0], src.bits)), src.bits)  # type: ignore[arg-type]
    elif name in INT_BINARY_OPS:
        result = _fold_int_binary(name[len("arith."):], values[0], values[1], src.bits)  # type: ignore[arg-type]
    elif name in FLOAT_BINARY_OPS:
        exact = _fold_float_binary(name[len("arith."):], values[0], values[1])
        result = None if exact is None else round_float(exact, result_type)
    else:
        exact = _FLOAT_UNARY[name](values[0])
        result = None if exact is None else round_float(exact, result_type)
    if isinstance(result, float) and math.isnan(result):
        return None
    return result
