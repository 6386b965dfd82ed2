"""Element semantics of the tile IR on numpy values: arithmetic, comparisons, casts, math,
reductions and the matrix product.

Value representation: an IR value of scalar type is a numpy scalar (``np.generic``), a tile
is an ``np.ndarray`` of exactly the tile's shape. Element dtypes (:func:`np_dtype`):
``i1`` -> ``bool``, ``i8..i64`` -> ``int8..int64`` (signed storage of signless integers),
``f16`` -> ``float16``, ``bf16`` -> ``ml_dtypes.bfloat16``, ``f32``, ``f64``, and pointers ->
``int64`` addresses (see ``memory.py``).

Integer rules (C / LLVM semantics on two's complement):

* ``add sub mul shl`` wrap around; they are computed on the unsigned view and cast back;
* signed ops (``divsi remsi shrsi maxsi cmpi s*``, ``extsi``, ``sitofp``) read the signed view,
  unsigned ops (``divui remui shrui maxui cmpi u*``, ``extui``, ``uitofp``) the unsigned view;
  ``i1`` is 0/1 unsigned and 0/-1 signed;
* division truncates toward zero and the remainder takes the sign of the dividend;
  ``INT_MIN / -1`` wraps to ``INT_MIN``. Division by zero is undefined in C; the interpreter
  gives all-ones for the quotient and the dividend for the remainder (no trap, so that an
  ``arith.select`` that evaluates both sides never faults);
* shifts by an amount >= the width (or negative) are undefined in C; the interpreter clamps
  like PTX ``shl``/``shr``: ``shli``/``shrui`` give 0, ``shrsi`` fills with the sign bit;
* float -> int conversions saturate and map NaN to 0 (PTX ``cvt.rzi``), also undefined in C.

Float rules: every op computes in its element type. ``f16``/``bf16`` arithmetic is done in
``f32`` and rounded after each op, which is exactly rounded for ``+ - * /`` (f32 has more
than twice the precision plus two bits). Math functions compute in ``f64`` and round once to
the element type. Narrowing to ``bf16`` from ``f64`` goes through round-to-odd to ``f32``
so that it is correctly rounded (``ml_dtypes`` itself rounds twice).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..ir.types import PointerType, ScalarType

BF16 = np.dtype(ml_dtypes.bfloat16)

_DTYPES = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "f16": np.dtype(np.float16),
    "bf16": BF16, "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
}
INT_BY_BITS = {8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}
UINT_BY_BITS = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
ADDRESS = np.dtype(np.int64)


def np_dtype(t) -> np.dtype:
    """The numpy dtype that holds elements of IR element type ``t`` (pointers: int64 addresses)."""
    if isinstance(t, PointerType):
        return ADDRESS
    return _DTYPES[t.name]


def int_bits(t) -> int:
    """Width in bits of an integer (or pointer, 64) element type."""
    return 64 if isinstance(t, PointerType) else t.bits


def is_float(t) -> bool:
    return isinstance(t, ScalarType) and t.is_float


# --- integer views -------------------------------------------------------------------------

def signed(x, t):
    """The signed view of integer value ``x`` of type ``t`` (``i1``: 0/-1 as int8)."""
    if int_bits(t) == 1:
        return -np.asarray(x).astype(np.int8)
    return x


def unsigned(x, t):
    """The unsigned view of integer value ``x`` of type ``t`` (``i1``: 0/1 as uint8)."""
    bits = int_bits(t)
    if bits == 1:
        return np.asarray(x).astype(np.uint8)
    return np.asarray(x).view(UINT_BY_BITS[bits])


def wrap(y, t):
    """Integer array ``y`` (any integer dtype) reduced modulo 2**bits into ``t``'s storage dtype."""
    bits = int_bits(t)
    y = np.asarray(y)
    if bits == 1:
        return (y & 1).astype(np.bool_)
    return y.astype(INT_BY_BITS[bits])


def wrap_python_int(value: int, t):
    """A Python int reduced modulo 2**bits into a numpy scalar of ``t``'s storage dtype."""
    bits = int_bits(t)
    value &= (1 << bits) - 1
    if bits == 1:
        return np.bool_(value)
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return INT_BY_BITS[bits].type(value)


# --- float rounding ------------------------------------------------------------------------

def _f64_to_f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """Round f64 to f32 toward zero and set the last bit when inexact ("round to odd").

    A later round-to-nearest to any format of <= 22 significant bits is then correctly
    rounded (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums", 2008).
    """
    r = x.astype(np.float32)
    r64 = r.astype(np.float64)
    finite = np.isfinite(x)
    inexact = finite & (r64 != x)
    bits = r.view(np.uint32)
    bits = np.where(inexact & (np.abs(r64) > np.abs(x)), bits - np.uint32(1), bits)
    bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32)
    return bits.view(np.float32)


def round_float(x, t):
    """Float (or int) array ``x`` rounded once, to nearest even, to float type ``t``'s dtype."""
    dt = np_dtype(t)
    x = np.asarray(x)
    if x.dtype == dt:
        return x
    if dt == BF16 and (x.dtype == np.float64 or x.dtype.kind in "iu"):
        return _f64_to_f32_round_to_odd(x.astype(np.float64)).astype(BF16)
    return x.astype(dt)


def compute_dtype(t) -> np.dtype:
    """The dtype float arithmetic of type ``t`` is done in before rounding back: f32 for f16/bf16."""
    return np.dtype(np.float32) if t.name in ("f16", "bf16") else np_dtype(t)


def poison(t, shape: tuple[int, ...]):
    """The value of undefined lanes (masked-off loads without ``other``): NaN for floats,
    ``0x5A`` bytes for integers and pointers, ``True`` for ``i1``."""
    dt = np_dtype(t)
    if is_float(t):
        fill = np.nan
    elif dt == np.bool_:
        fill = True
    else:
        fill = np.frombuffer(b"\x5a" * dt.itemsize, dtype=dt)[0]
    return np.full(shape, fill, dtype=dt)


# --- element-wise binary ops ---------------------------------------------------------------

def _float_binary(f):
    def op(a, b, t):
        ct = compute_dtype(t)
        return round_float(f(np.asarray(a).astype(ct), np.asarray(b).astype(ct)), t)
    return op


def _unsigned_binary(f):
    def op(a, b, t):
        return wrap(f(unsigned(a, t), unsigned(b, t)), t)
    return op


def _signed_binary(f):
    def op(a, b, t):
        return wrap(f(np.asarray(signed(a, t)), np.asarray(signed(b, t))), t)
    return op


def _div_rem(a, b, want_quotient: bool):
    zero = b == 0
    b1 = np.where(zero, 1, b).astype(b.dtype)
    r = np.fmod(a, b1)
    if not want_quotient:
        return np.where(zero, a, r)
    q = (a - r) // b1
    return np.where(zero, np.array(-1).astype(a.dtype) if a.dtype.kind == "i" else ~np.zeros((), a.dtype), q)


def _divsi(a, b, t):
    return wrap(_div_rem(np.asarray(signed(a, t)), np.asarray(signed(b, t)), True), t)


def _remsi(a, b, t):
    return wrap(_div_rem(np.asarray(signed(a, t)), np.asarray(signed(b, t)), False), t)


def _divui(a, b, t):
    return wrap(_div_rem(unsigned(a, t), unsigned(b, t), True), t)


def _remui(a, b, t):
    return wrap(_div_rem(unsigned(a, t), unsigned(b, t), False), t)


def _shift(kind: str):
    def op(a, b, t):
        bits = int_bits(t)
        amount = unsigned(b, t).astype(np.uint64)
        big = amount >= bits
        amount = np.where(big, 0, amount).astype(np.uint64)
        if kind == "shli":
            r = np.left_shift(unsigned(a, t).astype(np.uint64), amount)
            return wrap(np.where(big, 0, r), t)
        if kind == "shrui":
            r = np.right_shift(unsigned(a, t).astype(np.uint64), amount)
            return wrap(np.where(big, 0, r), t)
        s = np.asarray(signed(a, t)).astype(np.int64)
        return wrap(np.right_shift(s, np.where(big, 63, amount).astype(np.int64)), t)
    return op


BINARY = {
    "arith.addi": _unsigned_binary(np.add),
    "arith.subi": _unsigned_binary(np.subtract),
    "arith.muli": _unsigned_binary(np.multiply),
    "arith.andi": _unsigned_binary(np.bitwise_and),
    "arith.ori": _unsigned_binary(np.bitwise_or),
    "arith.xori": _unsigned_binary(np.bitwise_xor),
    "arith.divsi": _divsi, "arith.remsi": _remsi, "arith.divui": _divui, "arith.remui": _remui,
    "arith.shli": _shift("shli"), "arith.shrsi": _shift("shrsi"), "arith.shrui": _shift("shrui"),
    "arith.maxsi": _signed_binary(np.maximum), "arith.minsi": _signed_binary(np.minimum),
    "arith.maxui": _unsigned_binary(np.maximum), "arith.minui": _unsigned_binary(np.minimum),
    "arith.addf": _float_binary(np.add), "arith.subf": _float_binary(np.subtract),
    "arith.mulf": _float_binary(np.multiply), "arith.divf": _float_binary(np.divide),
    "arith.remf": _float_binary(np.fmod),
    "arith.maxnumf": _float_binary(np.fmax), "arith.minnumf": _float_binary(np.fmin),
}


# --- comparisons ---------------------------------------------------------------------------

def cmpi(pred: str, a, b, t):
    """``arith.cmpi``: ``eq ne`` on bits, ``s*`` on the signed view, ``u*`` on the unsigned view."""
    if pred in ("eq", "ne"):
        x, y = unsigned(a, t), unsigned(b, t)
        return x == y if pred == "eq" else x != y
    x, y = (signed(a, t), signed(b, t)) if pred[0] == "s" else (unsigned(a, t), unsigned(b, t))
    x, y = np.asarray(x), np.asarray(y)
    return {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}[pred[1:]](x, y)


def cmpf(pred: str, a, b, t):
    """``arith.cmpf``: ``o*`` are false when either side is NaN, ``u*`` true; ``ord``/``uno`` test NaN."""
    x, y = np.asarray(a).astype(compute_dtype(t)), np.asarray(b).astype(compute_dtype(t))
    unordered = np.isnan(x) | np.isnan(y)
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    base = {"eq": np.equal, "ne": lambda p, q: (p < q) | (p > q), "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}[pred[1:]](x, y)
    return base & ~unordered if pred[0] == "o" else base | unordered


# --- casts ---------------------------------------------------------------------------------

def _float_to_int(x, dst, is_signed: bool):
    """Truncate toward zero, saturate to the destination range, NaN -> 0 (PTX ``cvt.rzi``)."""
    bits = int_bits(dst)
    v = np.trunc(np.asarray(x).astype(np.float64))
    v = np.where(np.isnan(v), 0.0, v)
    if bits == 1:
        return v != 0
    if is_signed:
        info = np.iinfo(INT_BY_BITS[bits])
        too_big, too_small = v >= 2.0 ** (bits - 1), v < -(2.0 ** (bits - 1))
        safe = np.where(too_big | too_small, 0.0, v).astype(np.int64)
        return np.where(too_big, info.max, np.where(too_small, info.min, safe)).astype(INT_BY_BITS[bits])
    too_big, negative = v >= 2.0 ** bits, v < 0
    safe = np.where(too_big | negative, 0.0, v).astype(np.uint64)
    return wrap(np.where(too_big, np.uint64(2 ** bits - 1), safe), dst)


def cast(name: str, x, src, dst):
    """The cast op ``name`` (``arith.extsi`` ...) of value ``x`` from element type ``src`` to ``dst``."""
    if name == "arith.extsi":
        return np.asarray(signed(x, src)).astype(np_dtype(dst))
    if name == "arith.extui":
        return wrap(unsigned(x, src).astype(np.uint64), dst)
    if name == "arith.trunci":
        return wrap(unsigned(x, src), dst)
    if name == "arith.sitofp":
        return round_float(np.asarray(signed(x, src)).astype(np.int64), dst)
    if name == "arith.uitofp":
        return round_float(unsigned(x, src).astype(np.uint64), dst)
    if name == "arith.fptosi":
        return _float_to_int(x, dst, True)
    if name == "arith.fptoui":
        return _float_to_int(x, dst, False)
    if name in ("arith.extf", "arith.truncf"):
        return round_float(np.asarray(x), dst)
    raise KeyError(name)


def bitcast(x, src, dst):
    """Reinterpret the bits of each element (equal widths; ``i1`` only to ``i1``)."""
    a = np.asarray(x)
    if np_dtype(src) == np_dtype(dst):
        return a
    return a.view(np_dtype(dst))


# --- math ----------------------------------------------------------------------------------

def _rsqrt(x):
    return 1.0 / np.sqrt(x)


MATH = {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.log": np.log, "math.log2": np.log2,
    "math.sqrt": np.sqrt, "math.rsqrt": _rsqrt, "math.sin": np.sin, "math.cos": np.cos,
    "math.absf": np.abs, "math.floor": np.floor, "math.ceil": np.ceil,
}


def math_unary(name: str, x, t):
    """A ``math.*`` float function: computed in f64, rounded once to ``t``."""
    return round_float(MATH[name](np.asarray(x).astype(np.float64)), t)


def fma(a, b, c, t):
    """``a * b + c``. Exact product in f64 for f16/bf16/f32 (one final rounding up to the rare
    double-rounding case); for f64 the product and the sum round separately."""
    f = lambda v: np.asarray(v).astype(np.float64)
    return round_float(f(a) * f(b) + f(c), t)


def absi(x, t):
    return wrap(np.abs(np.asarray(signed(x, t)).astype(np.int64)), t)


# --- counter-based random numbers ------------------------------------------------------------

#: Philox 4x32 multipliers and Weyl key increments (Salmon et al., "Parallel random numbers:
#: as easy as 1, 2, 3", SC 2011, section 5; Random123's ``philox.h``).
PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85


def _mulhilo32(a: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hi, lo)`` 32-bit halves of the 64-bit product ``a * m`` (``a`` uint32, ``m`` < 2^32)."""
    p = a.astype(np.uint64) * np.uint64(m)
    return (p >> np.uint64(32)).astype(np.uint32), p.astype(np.uint32)


def philox4x32(c0, c1, c2, c3, k0, k1, rounds: int = 10) -> tuple[np.ndarray, ...]:
    """Philox 4x32 with ``rounds`` rounds (10: Philox4x32-10) on uint32 counter words
    ``c0..c3`` and key words ``k0, k1`` (numpy arrays or scalars, broadcast together).

    One round: ``(hi0, lo0) = M0 * c0``, ``(hi1, lo1) = M1 * c2``, then
    ``c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)``; the key is bumped by the Weyl constants
    between rounds (Salmon et al. 2011, section 5; the words come out in Random123's order,
    so its known-answer vectors apply). Returns the four uint32 output words."""
    u = lambda v: np.asarray(v).astype(np.uint32)
    c0, c1, c2, c3, k0, k1 = np.broadcast_arrays(*(u(v) for v in (c0, c1, c2, c3, k0, k1)))
    for r in range(rounds):
        if r:
            k0 = (k0.astype(np.uint64) + PHILOX_W0).astype(np.uint32)
            k1 = (k1.astype(np.uint64) + PHILOX_W1).astype(np.uint32)
        hi0, lo0 = _mulhilo32(c0, PHILOX_M0)
        hi1, lo1 = _mulhilo32(c2, PHILOX_M1)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def philox_word(counter, key0, key1, word: int, t):
    """``math.philox``: word ``word`` (0..3) of Philox4x32-10 for the counter
    ``(counter, 0, 0, 0)`` and key ``(key0, key1)``, as the i32 values of type ``t``."""
    zero = np.uint32(0)
    out = philox4x32(unsigned(counter, t), zero, zero, zero, unsigned(key0, t), unsigned(key1, t))[word]
    return np.asarray(out).view(np.int32)


# --- reductions ----------------------------------------------------------------------------

def reduce(x: np.ndarray, axis: int, combine: str, t):
    """``tt.reduce``: combine ``axis`` away with the binary op ``arith.<combine>``.

    The combination is a tree, as on a GPU: the axis is halved repeatedly and the halves are
    combined element-wise (each step rounded in the element type for floats). Result shape is
    ``x.shape`` without ``axis`` (a rank-1 operand gives a scalar).
    """
    f = BINARY["arith." + combine]
    x = np.asarray(x)
    while x.shape[axis] > 1:
        n = x.shape[axis]
        half = n // 2
        lo = np.take(x, range(0, half), axis=axis)
        hi = np.take(x, range(half, 2 * half), axis=axis)
        y = f(lo, hi, t)
        if n % 2:
            first = np.take(y, [0], axis=axis)
            last = np.take(x, [n - 1], axis=axis)
            y = np.concatenate([f(first, last, t), np.take(y, range(1, half), axis=axis)], axis=axis)
        x = y
    return np.squeeze(x, axis=axis)


# --- matrix product ------------------------------------------------------------------------

def _round_to_tf32(x: np.ndarray) -> np.ndarray:
    """Round f32 to the TF32 grid (10 fraction bits), ties away from zero (``cvt.rna.tf32.f32``)."""
    bits = x.astype(np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).astype(np.uint32)
    keep = ~np.isfinite(x)
    return np.where(keep, bits, rounded).astype(np.uint32).view(np.float32)


def dot(a, b, acc, a_t, acc_t, input_precision: str | None):
    """``tt.dot``: ``acc + a @ b`` over axes ``[M,K] @ [K,N]`` with trailing batch axes.

    Floats: products and sums in f64 from the exact inputs (TF32-rounded first for
    ``input_precision == "tf32"`` with f32 inputs), one rounding to the accumulator type.
    Integers: signed inputs, exact sum in int64, wrapped to the accumulator width.
    """
    a, b = np.asarray(a), np.asarray(b)
    if is_float(a_t):
        if input_precision == "tf32" and a_t.name == "f32":
            a, b = _round_to_tf32(a), _round_to_tf32(b)
        work = np.float64
    else:
        a, b = signed(a, a_t), signed(b, a_t)
        work = np.int64
    a, b = np.asarray(a).astype(work), np.asarray(b).astype(work)
    # einsum's own loops, not BLAS: a threaded BLAS on a busy machine is 100x slower at tile sizes.
    prod = np.einsum("mk...,kn...->mn...", a, b)
    if is_float(acc_t):
        return round_float(np.asarray(acc).astype(np.float64) + prod, acc_t)
    return wrap(np.asarray(signed(acc, acc_t)).astype(np.int64) + prod, acc_t)
