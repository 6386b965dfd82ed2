"""Typed element-wise expressions for the program generator (:mod:`tritonc.fuzz.gen`), free of
undefined behaviour by construction (issue 11, item 1).

An :class:`Ex` is a generated expression: its source text (fully parenthesised), its C type,
its shape (``()`` for a scalar), the interval ``lo``/``hi`` of its values and, for floats, a
bound ``err`` on its distance from the exact real result. ``taint`` names the mask ``m`` of a
``*?(m)`` load it depends on (masked-off lanes undefined); a tainted value reaches only
element-wise operations and a store masked by the same ``m``.

* every integer expression carries an interval of its values; a signed operation is generated
  only when its result interval fits its type (:func:`_binary_int`; unsigned ones wrap and get
  the whole range), shifts use amounts below the width, divisors are ``(b & 7) + 1``;
* every floating expression carries an interval and a bound ``err`` on its distance from the
  exact real result (one rounding per operation of at most ``u * max|value| + underflow`` of the
  result type, :func:`round_err`, the documented error of ``exp``/``exp2``/``log``/``log2``/
  ``sin``/``cos``/``rsqrt``, :data:`APPROX`); :func:`_binary_float` adds the operands' errors
  for ``+``/``-`` and ``|a| eb + |b| ea + ea eb`` for ``*``, then one rounding, and refuses
  results beyond a sixteenth of the type's range; floating values that decide something
  discontinuous (comparisons, ``floor``, ``ceil``, float-to-int conversions, bitcasts) must be
  exact (``err == 0``), so every executor agrees on them;
* :func:`convert` (implicit conversions) and :func:`cast` (explicit ones) keep float-to-int
  conversions and narrowing float conversions in range and refuse them otherwise (``None``); a
  narrowing float conversion, or an integer beyond the type's exact-integer range converted to
  a float, adds one rounding.

:class:`ExprGen` draws expressions over a set of leaves (tiles and scalars in scope, and a few
constants); each ``op_*`` rule returns ``None`` where its operands do not fit its rules, and
the draw falls back to a leaf.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from . import ctypes as C
from .ctypes import CType

#: Relative error of the approximate math functions on ``float`` (spec 5: exp/log under 2^-21;
#: PTX ISA 9.7.3: rsqrt.approx 2^-22.9, sin/cos.approx 2^-20.9 absolute after range reduction).
APPROX = 2.0 ** -20


@dataclass(frozen=True)
class Ex:
    """A generated expression: source text (fully parenthesised), C type, shape (``()`` for a
    scalar), the interval of its values and, for floats, the bound on its error."""

    text: str
    ty: CType
    shape: tuple
    lo: float
    hi: float
    err: float = 0.0
    taint: str | None = None

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))


def _bcast(a: tuple, b: tuple) -> tuple | None:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def _merge_taint(*xs: Ex) -> str | None | bool:
    ts = {x.taint for x in xs if x.taint}
    if len(ts) > 1:
        return False
    return ts.pop() if ts else None


def fits(t: CType, lo: float, hi: float) -> bool:
    return t.min <= lo and hi <= t.max


def round_err(t: CType, mag: float) -> float:
    return t.unit_roundoff * mag + t.underflow


def convert(x: Ex, t: CType) -> Ex | None:
    """``x`` converted to ``t`` (an implicit or explicit conversion), or ``None`` where the
    conversion could be undefined or disagree between executors."""
    s = x.ty
    if s == t:
        return x
    if t.kind == "b":
        if s.is_float and x.err:
            return None
        return replace(x, ty=t, lo=0, hi=1, err=0.0)
    if t.is_int:
        if s.is_float:
            if x.err or not (t.min < x.lo and x.hi < t.max):
                return None
            return replace(x, ty=t, lo=math.trunc(x.lo), hi=math.trunc(x.hi), err=0.0)
        if fits(t, x.lo, x.hi):
            return replace(x, ty=t)
        return replace(x, ty=t, lo=t.min, hi=t.max)  # wraps (spec 7.4: narrowing wraps)
    # t is floating
    if s.is_float:
        if t.bits >= s.bits and not (s == C.F16 and t == C.BF16) and not (s == C.BF16 and t == C.F16):
            return replace(x, ty=t)
        if x.mag > t.max / 4:
            return None
        return replace(x, ty=t, err=x.err + round_err(t, x.mag))
    if x.mag >= t.max / 4:
        return None
    e = 0.0 if x.mag <= t.exact_int_limit else round_err(t, x.mag)
    return replace(x, ty=t, err=e)


def cast(x: Ex, t: CType) -> Ex | None:
    y = convert(x, t)
    if y is None or y is x:
        return y
    return replace(y, text=f"(({t.name}) {x.text})")


# ------------------------------------------------------------------------------------------
# element-wise expressions
# ------------------------------------------------------------------------------------------

def _in_common_type(a: Ex, b: Ex, want_float: bool):
    """``(t, a2, b2)``: the operands of a binary op converted to their common C type ``t``, or
    None when ``t`` is not of the wanted kind (float or integer) or a conversion is refused."""
    t = C.common(a.ty, b.ty)
    if not (t.is_float if want_float else t.is_int):
        return None
    a2, b2 = convert(a, t), convert(b, t)
    if a2 is None or b2 is None:
        return None
    return t, a2, b2


def _binary_int(op: str, a: Ex, b: Ex) -> Ex | None:
    common = _in_common_type(a, b, want_float=False)
    if common is None:
        return None
    t, a2, b2 = common
    text = f"({a.text} {op} {b.text})"
    lo = hi = None
    if op in "+-*":
        if op == "+":
            cands = [a2.lo + b2.lo, a2.hi + b2.hi]
        elif op == "-":
            cands = [a2.lo - b2.hi, a2.hi - b2.lo]
        else:
            cands = [a2.lo * b2.lo, a2.lo * b2.hi, a2.hi * b2.lo, a2.hi * b2.hi]
        lo, hi = min(cands), max(cands)
        if not fits(t, lo, hi):
            if t.kind == "i":
                return None
            lo, hi = t.min, t.max
    elif op in "&|^":
        if a2.lo >= 0 and b2.lo >= 0:
            top = (1 << max(int(a2.hi), int(b2.hi), 1).bit_length()) - 1
            lo, hi = 0, (min(a2.hi, b2.hi) if op == "&" else top)
        else:
            lo, hi = t.min, t.max
    return replace(a2, text=text, ty=t, lo=lo, hi=hi, shape=_bcast(a.shape, b.shape), err=0.0,
                   taint=_merge_taint(a, b))


def _binary_float(op: str, a: Ex, b: Ex) -> Ex | None:
    common = _in_common_type(a, b, want_float=True)
    if common is None:
        return None
    t, a2, b2 = common
    ea, eb = a2.err, b2.err
    if op == "+":
        lo, hi, e = a2.lo + b2.lo, a2.hi + b2.hi, ea + eb
    elif op == "-":
        lo, hi, e = a2.lo - b2.hi, a2.hi - b2.lo, ea + eb
    else:
        c = [a2.lo * b2.lo, a2.lo * b2.hi, a2.hi * b2.lo, a2.hi * b2.hi]
        lo, hi = min(c), max(c)
        e = a2.mag * eb + b2.mag * ea + ea * eb
    mag = max(abs(lo), abs(hi))
    if mag > t.max / 16:
        return None
    return Ex(f"({a.text} {op} {b.text})", t, _bcast(a.shape, b.shape), lo, hi, e + round_err(t, mag),
              _merge_taint(a, b))


class ExprGen:
    """Draws element-wise expressions over a set of leaves (tiles and scalars)."""

    def __init__(self, draw, leaves: list[Ex], allow_float: bool = True):
        self.draw = draw
        self.leaves = leaves
        self.allow_float = allow_float

    def leaf(self, shape: tuple) -> Ex:
        ok = [x for x in self.leaves if _bcast(x.shape, shape) == shape]
        consts = [Ex("3", C.I32, (), 3, 3), Ex("-2", C.I32, (), -2, -2), Ex("5u", C.U32, (), 5, 5)]
        if self.allow_float:
            consts += [Ex("1.5f", C.F32, (), 1.5, 1.5), Ex("-0.25f", C.F32, (), -0.25, -0.25),
                       Ex("((half) 0.75f)", C.F16, (), 0.75, 0.75), Ex("2.5", C.F64, (), 2.5, 2.5)]
        if ok and self.draw(st.integers(0, 3)):  # mostly tiles and scalars in scope, sometimes a constant
            return ok[self.draw(st.integers(0, len(ok) - 1))]
        return consts[self.draw(st.integers(0, len(consts) - 1))]

    def expr(self, shape: tuple, depth: int) -> Ex:
        if depth <= 0:
            return self.leaf(shape)
        kind = self.draw(st.sampled_from(["leaf", "arith", "arith", "bitwise", "shift", "div", "unary", "math",
                                          "minmax", "select", "cast", "bitcast", "fma", "compare_select"]))
        if kind == "leaf":
            return self.leaf(shape)
        r = getattr(self, "op_" + kind)(shape, depth - 1)
        if r is None or r.taint is False:
            return self.leaf(shape)
        return r

    # each op_* returns None where its operands do not fit its rules
    def op_arith(self, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        op = self.draw(st.sampled_from("+-*"))
        t = C.common(a.ty, b.ty)
        if not (self.allow_float or t.is_int):
            return None
        return _binary_float(op, a, b) if t.is_float else _binary_int(op, a, b)

    def op_bitwise(self, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        if not (a.ty.is_int or a.ty.kind == "b") or not (b.ty.is_int or b.ty.kind == "b"):
            return None
        op = self.draw(st.sampled_from("&|^~"))
        if op == "~":
            t = C.promote(a.ty)
            if t.kind == "i":
                return replace(a, text=f"(~{a.text})", ty=t, lo=-a.hi - 1, hi=-a.lo - 1)
            return replace(a, text=f"(~{a.text})", ty=t, lo=t.min, hi=t.max)
        return _binary_int(op, a, b)

    def op_shift(self, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        if not (a.ty.is_int and b.ty.is_int):
            return None
        t = C.promote(a.ty)
        k = self.draw(st.sampled_from([1, 3, t.bits - 1]))
        amount = f"({b.text} & {k})" if b.lo < 0 or b.hi > k else b.text
        if b.ty.bits == 64 or b.ty.kind == "u":
            amount = f"((int) ({amount}))"
        a2 = convert(a, t)
        if self.draw(st.booleans()):
            lo = a2.lo if a2.lo < 0 else 0
            return Ex(f"({a.text} >> {amount})", t, _bcast(a.shape, b.shape), lo, max(a2.hi, 0), 0.0,
                      _merge_taint(a, b))
        if t.kind == "i" and (a2.lo < 0 or a2.hi * (1 << k) > t.max):
            return None
        lo, hi = (0, a2.hi * (1 << k)) if t.kind == "i" or a2.hi * (1 << k) <= t.max else (0, t.max)
        return Ex(f"({a.text} << {amount})", t, _bcast(a.shape, b.shape), lo, hi, 0.0, _merge_taint(a, b))

    def op_div(self, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        if a.ty.is_int and b.ty.is_int:
            t = C.common(a.ty, C.common(b.ty, C.I32))
            a2 = convert(a, t)
            den = f"(({b.text} & 7) + 1)"
            if self.draw(st.booleans()):
                lo, hi = min(a2.lo, 0), max(a2.hi, 0)
                if t.kind == "u":
                    lo = 0
                return Ex(f"({a.text} / {den})", t, _bcast(a.shape, b.shape), lo, hi, 0.0, _merge_taint(a, b))
            lo, hi = (-7 if a2.lo < 0 else 0), (7 if a2.hi > 0 else 0)
            return Ex(f"({a.text} % {den})", t, _bcast(a.shape, b.shape), lo, hi, 0.0, _merge_taint(a, b))
        if not self.allow_float:
            return None
        # a / (|b| + 1): the denominator is at least 1
        if not b.ty.is_float:
            return None
        den_t = C.math_result(b.ty)
        den_mag = b.mag + 1
        den_t = C.common(den_t, C.F32)
        den = Ex(f"(fabs({b.text}) + 1.0f)", den_t, b.shape, 1.0, den_mag, b.err + round_err(den_t, den_mag), b.taint)
        t = C.common(a.ty, den.ty)
        a2 = convert(a, t)
        if a2 is None:
            return None
        e = a2.err + a2.mag * den.err + 4 * round_err(t, a2.mag)
        return Ex(f"({a.text} / {den.text})", t, _bcast(a.shape, b.shape), min(a2.lo, 0), max(a2.hi, 0), e,
                  _merge_taint(a, b))

    def op_unary(self, shape, d):
        a = self.expr(shape, d)
        op = self.draw(st.sampled_from(["-", "!", "fabs"]))
        if op == "!":
            if a.ty.is_float and a.err:
                return None
            return Ex(f"(!{a.text})", C.BOOL, a.shape, 0, 1, 0.0, a.taint)
        if op == "fabs":
            if not a.ty.is_float:
                return None
            t = C.math_result(a.ty)
            lo = 0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            return Ex(f"fabs({a.text})", t, a.shape, lo, a.mag, a.err, a.taint)
        if a.ty.is_float:
            return Ex(f"(- {a.text})", a.ty, a.shape, -a.hi, -a.lo, a.err, a.taint)
        t = C.promote(a.ty)
        a2 = convert(a, t)
        if t.kind == "i":
            if a2.lo <= t.min:
                return None
            return Ex(f"(- {a.text})", t, a.shape, -a2.hi, -a2.lo, 0.0, a.taint)
        return Ex(f"(- {a.text})", t, a.shape, t.min, t.max, 0.0, a.taint)

    def op_math(self, shape, d):
        if not self.allow_float:
            return None
        a = self.expr(shape, d)
        if not (a.ty.is_float or a.ty.is_int) or a.mag > 1e6:
            return None
        t = C.math_result(a.ty)
        fn = self.draw(st.sampled_from(["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "floor",
                                        "ceil"]))
        rel = APPROX if t == C.F32 else 2.0 ** -50
        x_err = a.err + (0.0 if a.ty.is_float or a.mag <= t.exact_int_limit else round_err(t, a.mag))
        if fn == "exp":
            if a.hi > 10 or x_err > 50:  # exp of an operand known only to +-50: no useful bound
                return None
            hi = math.exp(a.hi)
            e = hi * math.expm1(x_err) + rel * hi + t.underflow
            return Ex(f"exp({a.text})", t, a.shape, math.exp(a.lo) if a.lo > -700 else 0.0, hi, e, a.taint)
        if fn == "exp2":  # 2^x: the slope is ln 2 * 2^x
            if a.hi > 14 or x_err > 70:
                return None
            hi = 2.0 ** a.hi
            e = hi * math.expm1(x_err * math.log(2)) + rel * hi + t.underflow
            return Ex(f"exp2({a.text})", t, a.shape, 2.0 ** a.lo if a.lo > -1000 else 0.0, hi, e, a.taint)
        if fn in ("log", "log2", "sqrt", "rsqrt"):
            x_err += round_err(C.common(t, C.F32), a.mag + 1)  # the rounding of |a| + 1
        if fn == "log":  # log(|a| + 1) >= 0, derivative at most 1
            lo = 0.0 if a.lo <= 0 <= a.hi else math.log1p(min(abs(a.lo), abs(a.hi)))
            hi = math.log1p(a.mag)
            arg = f"(fabs({a.text}) + 1.0f)" if t == C.F32 else f"(fabs({a.text}) + 1.0)"
            return Ex(f"log({arg})", t, a.shape, lo, hi, x_err + rel * max(hi, 1.0), a.taint)
        if fn == "log2":  # log2(|a| + 1) >= 0, derivative at most 1 / ln 2
            lo = 0.0 if a.lo <= 0 <= a.hi else math.log2(1 + min(abs(a.lo), abs(a.hi)))
            hi = math.log2(1 + a.mag)
            arg = f"(fabs({a.text}) + 1.0f)" if t == C.F32 else f"(fabs({a.text}) + 1.0)"
            return Ex(f"log2({arg})", t, a.shape, lo, hi, x_err / math.log(2) + rel * max(hi, 1.0), a.taint)
        if fn in ("sqrt", "rsqrt"):  # of |a| + 1, derivative at most 1/2
            arg = f"(fabs({a.text}) + 1.0f)" if t == C.F32 else f"(fabs({a.text}) + 1.0)"
            hi = math.sqrt(a.mag + 1)
            if fn == "sqrt":
                return Ex(f"sqrt({arg})", t, a.shape, 1.0, hi, x_err / 2 + round_err(t, hi), a.taint)
            return Ex(f"rsqrt({arg})", t, a.shape, 1.0 / hi, 1.0, x_err / 2 + rel + t.underflow, a.taint)
        if fn in ("sin", "cos"):
            if a.mag > 64:
                return None
            return Ex(f"{fn}({a.text})", t, a.shape, -1.0, 1.0, x_err + 4 * rel + round_err(t, 1.0), a.taint)
        if x_err:  # floor and ceil need an exact argument
            return None
        return Ex(f"{fn}({a.text})", t, a.shape, math.floor(a.lo), math.ceil(a.hi), 0.0, a.taint)

    def op_minmax(self, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        t = C.common(a.ty, b.ty)
        if not (t.is_int or (t.is_float and self.allow_float)):
            return None
        a2, b2 = convert(a, t), convert(b, t)
        if a2 is None or b2 is None:
            return None
        fn = self.draw(st.sampled_from(["min", "max"]))
        lo = min(a2.lo, b2.lo) if fn == "min" else max(a2.lo, b2.lo)
        hi = min(a2.hi, b2.hi) if fn == "min" else max(a2.hi, b2.hi)
        return Ex(f"{fn}({a.text}, {b.text})", t, _bcast(a.shape, b.shape), lo, hi, max(a2.err, b2.err),
                  _merge_taint(a, b))

    def condition(self, shape, d) -> Ex | None:
        """An exact ``bool`` expression: a comparison of exact operands."""
        a, b = self.expr(shape, d), self.expr(shape, d)
        if (a.ty.is_float and a.err) or (b.ty.is_float and b.err):
            return None
        if a.ty.is_float != b.ty.is_float and a.ty.kind != "b" and b.ty.kind != "b":
            t = C.common(a.ty, b.ty)
            if convert(a, t) is None or convert(b, t) is None or convert(a, t).err or convert(b, t).err:
                return None
        op = self.draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        c = Ex(f"({a.text} {op} {b.text})", C.BOOL, _bcast(a.shape, b.shape), 0, 1, 0.0, _merge_taint(a, b))
        if d > 0 and self.draw(st.integers(0, 3)) == 0:  # element-wise && / || on tiles
            other = self.condition(shape, d - 1)
            if other is not None:
                logic = self.draw(st.sampled_from(["&&", "||"]))
                c = Ex(f"({c.text} {logic} {other.text})", C.BOOL, _bcast(c.shape, other.shape), 0, 1, 0.0,
                       _merge_taint(c, other))
        return c

    def op_compare_select(self, shape, d):
        c = self.condition(shape, d)
        if c is None or c.taint is False:
            return None
        if self.draw(st.booleans()):
            return c
        return self._select(c, shape, d)

    def op_select(self, shape, d):
        c = self.condition(shape, d)
        if c is None or c.taint is False:
            return None
        return self._select(c, shape, d)

    def _select(self, c: Ex, shape, d):
        a, b = self.expr(shape, d), self.expr(shape, d)
        t = C.common(a.ty, b.ty)
        if t.is_float and not self.allow_float:
            return None
        a2, b2 = convert(a, t), convert(b, t)
        if a2 is None or b2 is None:
            return None
        form = self.draw(st.sampled_from(["?:", "select"]))
        text = f"({c.text} ? {a.text} : {b.text})" if form == "?:" else f"select({c.text}, {a.text}, {b.text})"
        shp = _bcast(_bcast(a.shape, b.shape) or (), c.shape)
        if shp is None:
            return None
        return Ex(text, t, shp, min(a2.lo, b2.lo), max(a2.hi, b2.hi), max(a2.err, b2.err), _merge_taint(a, b, c))

    def op_cast(self, shape, d):
        a = self.expr(shape, d)
        t = self.draw(st.sampled_from(C.INTS + (C.FLOATS if self.allow_float else ())))
        return cast(a, t)

    def op_bitcast(self, shape, d):
        a = self.expr(shape, d)
        if a.ty.is_float:
            if a.err or a.ty == C.BF16:
                return None
            it = C.UINT_OF_WIDTH[a.ty.bits]
            return Ex(f"bitcast<{it.name}>({a.text})", it, a.shape, 0, it.max, 0.0, a.taint)
        if not a.ty.is_int or not self.allow_float:
            return None
        # integer bits -> a float in [1, 2): keep the mantissa bits, force the exponent of 1.0
        ft = self.draw(st.sampled_from([C.F16, C.F32, C.F64]))
        mant, one = {16: (0x3FF, 0x3C00), 32: (0x7FFFFF, 0x3F800000), 64: (0xFFFFFFFFFFFFF, 0x3FF0000000000000)}[ft.bits]
        it = C.UINT_OF_WIDTH[ft.bits]
        text = f"bitcast<{ft.name}>(({it.name}) ((({it.name}) {a.text} & {mant}u{'l' if ft.bits == 64 else ''}) | {one}u{'l' if ft.bits == 64 else ''}))"
        return Ex(text, ft, a.shape, 1.0, 2.0, 0.0, a.taint)

    def op_fma(self, shape, d):
        if not self.allow_float:
            return None
        a, b, c = self.expr(shape, d), self.expr(shape, d), self.expr(shape, d)
        t = C.F64 if C.F64 in (a.ty, b.ty, c.ty) else C.F32
        xs = [convert(x, t) for x in (a, b, c)]
        if None in xs:
            return None
        a2, b2, c2 = xs
        p = [a2.lo * b2.lo, a2.lo * b2.hi, a2.hi * b2.lo, a2.hi * b2.hi]
        lo, hi = min(p) + c2.lo, max(p) + c2.hi
        mag = max(abs(lo), abs(hi))
        if mag > 1e30:
            return None
        e = a2.mag * b2.err + b2.mag * a2.err + a2.err * b2.err + c2.err + round_err(t, mag)
        shp = _bcast(_bcast(a.shape, b.shape) or (), c.shape)
        if shp is None:
            return None
        return Ex(f"fma({a.text}, {b.text}, {c.text})", t, shp, lo, hi, e, _merge_taint(a, b, c))
