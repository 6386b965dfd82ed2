"""``math.*`` ops: transcendental functions and friends, register by register.

``f16``/``bf16`` operands are widened to f32, computed, and rounded back (``cvt.rn``).

f32 (the spec allows fast approximations for ``exp``/``log``; PTX ISA 9.7.3.19-22):

* ``exp2(x)``: ``ex2.approx.ftz.f32`` (2 ulp, the accuracy CUDA documents for ``exp2f``,
  which is this instruction; inf, 0 and NaN handled by it). Results below 2^-126 are flushed
  to zero by default (``-fexp-ftz``, docs/language.md 7.10: within the absolute underflow
  bound 2^-126 of the error model); ``-fno-exp-ftz``: ``ex2.approx.f32``, subnormal results
  kept, for which ptxas adds three instructions around each ``ex2``.
* ``exp(x)``: ``ex2.approx`` of ``t = RD(x * log2(e))`` times ``e^d`` for the remainder
  ``d = x - t ln 2`` (two ``fma``, ln 2 in two parts), as ``fma(r, d, r)``: about 2.5 ulp, so
  the error does not grow with ``|x|`` as it does for a plain ``ex2.approx(x * log2e)``
  (Triton's), in 5 instructions besides ``ex2`` (see :func:`exp_f32`); subnormal results as
  for ``exp2``.
* ``log(x)``/``log2(x)``: *not* ``lg2.approx.f32`` (its error is absolute, about 2^-22, so
  the relative error is unbounded near ``x = 1``, where the spec asks for 2^-21 relative;
  seen on an H200: ``log2(1 + 1e-6)`` off by 8%). Instead the f64 algorithm below in f32:
  ``x = m * 2^e``, ``log m = 2 atanh((m-1)/(m+1))`` to ``s^11``, ``e * ln 2`` in two parts;
  a few ulp everywhere.
* ``sin``/``cos``: argument reduced to ``[-pi, pi]`` (``x - k * 2pi`` with a two-part 2pi and
  ``fma``), then ``sin.approx.f32``/``cos.approx.f32`` (absolute error about 2^-21).
* ``sqrt``: ``llvm.sqrt`` = ``sqrt.rn.f32`` (IEEE); ``rsqrt``: ``rsqrt.approx.f32``.

f64 (no hardware approximations exist, so range reduction + polynomials with ``fma``):

* ``exp``/``exp2``: Cody-Waite reduction by ln 2 to ``|r| <= ln2/2``, degree-13 Taylor
  polynomial, scaling by ``2^n`` from exponent bits in two steps; about 1 ulp.
* ``log``/``log2``: subnormals scaled by 2^54, ``x = m * 2^e`` with ``m`` in ``[sqrt(1/2),
  sqrt(2))``, ``log m = 2 atanh(s)``, ``s = (m-1)/(m+1)``, series to ``s^23``; about 1 ulp.
* ``sin``/``cos``: ``k = rint(x * 2/pi)``, three-part Cody-Waite ``pi/2``, Taylor polynomials
  on ``[-pi/4, pi/4]`` chosen by ``k mod 4``; accurate for ``|x|`` up to about 1e9 (no
  Payne-Hanek reduction for huge arguments).
* ``sqrt`` = ``sqrt.rn.f64``; ``rsqrt = 1 / sqrt(x)`` (two IEEE roundings).

``absf``/``floor``/``ceil``/``fma``/``absi`` are the LLVM intrinsics (``abs``, ``cvt.rmi``,
``cvt.rpi``, ``fma.rn``).
"""
from __future__ import annotations

import math

import llvmlite.ir as ir

from tritonc.ir.core import Operation
from .elementwise import define, intrinsic_call, map_regs, num_regs
from .lowering import BF16, F16, F32, F64, I32, I64, KernelLowering, const, lowers

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


def _f32(x: float) -> float:
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _widen(lw: KernelLowering, op: Operation, fn):
    """Run ``fn(x, ...)`` on f32/f64 registers; f16/bf16 go through f32."""
    b = lw.b

    def wrapped(*xs):
        ty = xs[0].type
        if ty in (F16, BF16):
            r = fn(*[b.fpext(x, F32) for x in xs])
            return b.fptrunc(r, ty)
        return fn(*xs)
    map_regs(lw, op, wrapped)


def _fma(lw: KernelLowering, a, b_, c):
    return intrinsic_call(lw, "fma", [a, b_, c])


def _rint(lw: KernelLowering, x):
    return intrinsic_call(lw, "rint", [x])


def _pow2_int(lw: KernelLowering, k, ty):
    """``2^k`` for an integral float ``k`` in the normal range of ``ty``, from exponent bits."""
    b = lw.b
    if ty == F32:
        e = b.add(b.fptosi(k, I32), const(I32, 127))
        return b.bitcast(b.shl(e, const(I32, 23)), F32)
    e = b.add(b.fptosi(k, I64), const(I64, 1023))
    return b.bitcast(b.shl(e, const(I64, 52)), F64)


def _scale(lw: KernelLowering, r, n, ty):
    """``r * 2^n`` in two steps (``n`` integral and already clamped)."""
    b = lw.b
    h = intrinsic_call(lw, "floor", [b.fmul(n, ir.Constant(ty, 0.5))])
    n2 = b.fsub(n, h)
    return b.fmul(b.fmul(r, _pow2_int(lw, h, ty)), _pow2_int(lw, n2, ty))


def _specials(lw: KernelLowering, x, t, res, ty, hi, lo):
    """inf above ``hi``, 0 below ``lo`` (``t`` is the base-2 exponent), NaN passes through."""
    b = lw.b
    res = b.select(b.fcmp_ordered(">", t, ir.Constant(ty, hi)), ir.Constant(ty, math.inf), res)
    res = b.select(b.fcmp_ordered("<", t, ir.Constant(ty, lo)), ir.Constant(ty, 0.0), res)
    return b.select(b.fcmp_unordered("uno", x, x), x, res)


def _clamp(lw: KernelLowering, t, ty, lo, hi):
    t = intrinsic_call(lw, "maxnum", [t, ir.Constant(ty, lo)])
    return intrinsic_call(lw, "minnum", [t, ir.Constant(ty, hi)])


def _ex2(lw: KernelLowering) -> str:
    """The ``ex2.approx`` intrinsic: ``.ftz`` (results below 2^-126 flushed to zero) unless
    ``-fno-exp-ftz``."""
    return "llvm.nvvm.ex2.approx.ftz.f" if lw.options.exp_ftz else "llvm.nvvm.ex2.approx.f"


def exp2_f32(lw: KernelLowering, x):
    """``ex2.approx.f32``: 2 ulp, inf, 0 and NaN included (the accuracy CUDA documents for
    ``exp2f``, which is this instruction); subnormal results flushed to zero unless
    ``-fno-exp-ftz`` (:func:`_ex2`)."""
    return lw.call(_ex2(lw), F32, [x])


def exp_f32(lw: KernelLowering, x):
    """``exp(x) = 2^t * e^d`` with ``t = RD(x * L)`` (``L`` = log2(e) rounded to f32) and
    ``d = x - t * ln 2`` (two ``fma`` with ln 2 in two parts, so ``d`` is exact to ~2^-40):
    ``r = ex2.approx(t)`` (2 ulp), then ``r * e^d = fma(r, d, r)`` (|d| < 2^-16, so the
    linear term leaves an error under 2^-33): about 2.5 ulp (under the spec's 2^-21) in 5
    instructions besides ``ex2``, against ``ex2.approx(x * log2 e)`` (Triton's), whose error
    grows with ``|x|`` (the rounding of ``x * log2 e`` is ulp(t) in the exponent).

    ``t`` is rounded *down* so that ``d > 0`` wherever ``r`` overflows to inf (``fma(inf, d, inf)``
    is NaN for ``d < 0``); ``d`` is NaN only for ``x = +-inf`` (or beyond +-2^127 * ln 2), where
    ``r`` is already exact: ``min(d, 2^-15)`` turns that NaN into a small number (``fma`` then
    gives ``r``: 0 or inf) and leaves every other ``d`` alone. NaN ``x`` gives NaN through ``r``.

    ``-fexp-uncorrected``: ``ex2.approx(x * log2 e)`` alone (OpenAI Triton's; its error grows
    with ``|x|`` beyond the spec's 2^-21). ``-fexp-ftz`` (the default): ``ex2.approx.ftz``
    (results below 2^-126 flushed to 0; saves ptxas's three-instruction subnormal fix-up around
    ``ex2``, which made flash attention at D=128 0.74x OpenAI Triton's speed instead of 0.90x
    on an H100, benchmarks/RESULTS.md session 7).
    """
    b = lw.b
    if lw.options.exp_uncorrected:
        return lw.call(_ex2(lw), F32, [b.fmul(x, ir.Constant(F32, _f32(LOG2E)))])
    t = lw.call("llvm.nvvm.mul.rm.f", F32, [x, ir.Constant(F32, _f32(LOG2E))])
    ln2_hi = _f32(LN2)
    ln2_lo = _f32(LN2 - ln2_hi)
    neg_t = b.fneg(t)
    d = _fma(lw, neg_t, ir.Constant(F32, ln2_hi), x)
    d = _fma(lw, neg_t, ir.Constant(F32, ln2_lo), d)
    d = intrinsic_call(lw, "minnum", [d, ir.Constant(F32, 2.0 ** -15)])
    # ex2 last: t is dead after it, so ptxas can scale it in place for subnormal results.
    r = lw.call(_ex2(lw), F32, [t])
    return _fma(lw, r, d, r)


_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _exp_poly_f64(lw: KernelLowering, r):
    b = lw.b
    p = ir.Constant(F64, 1.0 / math.factorial(13))
    for k in range(12, -1, -1):
        p = _fma(lw, p, r, ir.Constant(F64, 1.0 / math.factorial(k)))
    return p


def exp_f64(lw: KernelLowering, x):
    b = lw.b
    t = b.fmul(x, ir.Constant(F64, LOG2E))
    xc = _clamp(lw, x, F64, -760.0, 720.0)
    n = _rint(lw, b.fmul(xc, ir.Constant(F64, LOG2E)))
    r = _fma(lw, b.fneg(n), ir.Constant(F64, _LN2_HI), xc)
    r = _fma(lw, b.fneg(n), ir.Constant(F64, _LN2_LO), r)
    res = _scale(lw, _exp_poly_f64(lw, r), n, F64)
    return _specials(lw, x, t, res, F64, 1024.0, -1080.0)


def exp2_f64(lw: KernelLowering, x):
    b = lw.b
    xc = _clamp(lw, x, F64, -1100.0, 1040.0)
    n = _rint(lw, xc)
    r = b.fmul(b.fsub(xc, n), ir.Constant(F64, LN2))
    res = _scale(lw, _exp_poly_f64(lw, r), n, F64)
    return _specials(lw, x, x, res, F64, 1024.0, -1080.0)


def _log_parts_f64(lw: KernelLowering, x):
    """``(e, log(m))`` with ``x = m * 2^e``, ``m`` in ``[sqrt(1/2), sqrt(2))`` (x > 0 finite)."""
    b = lw.b
    tiny = b.fcmp_ordered("<", x, ir.Constant(F64, 2.2250738585072014e-308))
    xs = b.select(tiny, b.fmul(x, ir.Constant(F64, 2.0 ** 54)), x)
    bias = b.select(tiny, ir.Constant(I64, 1023 + 54), ir.Constant(I64, 1023))
    bits = b.bitcast(xs, I64)
    e = b.sub(b.lshr(bits, ir.Constant(I64, 52)), bias)
    mbits = b.or_(b.and_(bits, ir.Constant(I64, (1 << 52) - 1)), ir.Constant(I64, 1023 << 52))
    m = b.bitcast(mbits, F64)
    big = b.fcmp_ordered(">", m, ir.Constant(F64, math.sqrt(2.0)))
    m = b.select(big, b.fmul(m, ir.Constant(F64, 0.5)), m)
    e = b.select(big, b.add(e, ir.Constant(I64, 1)), e)
    s = b.fdiv(b.fsub(m, ir.Constant(F64, 1.0)), b.fadd(m, ir.Constant(F64, 1.0)))
    z = b.fmul(s, s)
    p = ir.Constant(F64, 2.0 / 23)
    for k in range(21, 1, -2):
        p = _fma(lw, p, z, ir.Constant(F64, 2.0 / k))
    logm = _fma(lw, b.fmul(s, z), p, b.fmul(s, ir.Constant(F64, 2.0)))
    return b.sitofp(e, F64), logm


def _log_parts_f32(lw: KernelLowering, x):
    """``(e, log(m))`` in f32 with ``x = m * 2^e``, ``m`` in ``[sqrt(1/2), sqrt(2))`` (x > 0 finite)."""
    b = lw.b
    tiny = b.fcmp_ordered("<", x, ir.Constant(F32, 1.1754943508222875e-38))
    xs = b.select(tiny, b.fmul(x, ir.Constant(F32, 2.0 ** 24)), x)
    bias = b.select(tiny, ir.Constant(I32, 127 + 24), ir.Constant(I32, 127))
    bits = b.bitcast(xs, I32)
    e = b.sub(b.lshr(bits, ir.Constant(I32, 23)), bias)
    m = b.bitcast(b.or_(b.and_(bits, ir.Constant(I32, (1 << 23) - 1)), ir.Constant(I32, 127 << 23)), F32)
    big = b.fcmp_ordered(">", m, ir.Constant(F32, _f32(math.sqrt(2.0))))
    m = b.select(big, b.fmul(m, ir.Constant(F32, 0.5)), m)
    e = b.select(big, b.add(e, ir.Constant(I32, 1)), e)
    s = b.fdiv(b.fsub(m, ir.Constant(F32, 1.0)), b.fadd(m, ir.Constant(F32, 1.0)))
    z = b.fmul(s, s)
    p = ir.Constant(F32, 2.0 / 13)
    for k in range(11, 1, -2):
        p = _fma(lw, p, z, ir.Constant(F32, 2.0 / k))
    logm = _fma(lw, b.fmul(s, z), p, b.fmul(s, ir.Constant(F32, 2.0)))
    return b.sitofp(e, F32), logm


def log_f32(lw: KernelLowering, x):
    e, logm = _log_parts_f32(lw, x)
    hi = _f32(LN2)
    lo = _f32(LN2 - hi)
    res = _fma(lw, e, ir.Constant(F32, hi), _fma(lw, e, ir.Constant(F32, lo), logm))
    return _log_specials(lw, x, res, F32)


def log2_f32(lw: KernelLowering, x):
    e, logm = _log_parts_f32(lw, x)
    res = _fma(lw, logm, ir.Constant(F32, _f32(LOG2E)), e)
    return _log_specials(lw, x, res, F32)


def _log_specials(lw: KernelLowering, x, res, ty):
    b = lw.b
    res = b.select(b.fcmp_ordered("==", x, ir.Constant(ty, math.inf)), x, res)
    res = b.select(b.fcmp_ordered("==", x, ir.Constant(ty, 0.0)), ir.Constant(ty, -math.inf), res)
    res = b.select(b.fcmp_ordered("<", x, ir.Constant(ty, 0.0)), ir.Constant(ty, math.nan), res)
    return b.select(b.fcmp_unordered("uno", x, x), x, res)


def log_f64(lw: KernelLowering, x):
    b = lw.b
    e, logm = _log_parts_f64(lw, x)
    res = _fma(lw, e, ir.Constant(F64, _LN2_HI), _fma(lw, e, ir.Constant(F64, _LN2_LO), logm))
    return _log_specials(lw, x, res, F64)


def log2_f64(lw: KernelLowering, x):
    e, logm = _log_parts_f64(lw, x)
    res = _fma(lw, logm, ir.Constant(F64, LOG2E), e)
    return _log_specials(lw, x, res, F64)


_PIO2 = (1.57079632673412561417e+00, 6.07710050650619224932e-11, 2.02226624879595063154e-21)


def _sincos_f64(lw: KernelLowering, x, want_cos: bool):
    b = lw.b
    k = _rint(lw, b.fmul(x, ir.Constant(F64, 2.0 / math.pi)))
    r = x
    for part in _PIO2:
        r = _fma(lw, b.fneg(k), ir.Constant(F64, part), r)
    z = b.fmul(r, r)
    # sin(r) = r * (1 - z/3! + z^2/5! - ...), cos(r) = 1 - z/2! + z^2/4! - ...
    ps = ir.Constant(F64, (-1) ** 7 / math.factorial(15))
    for j in range(6, -1, -1):
        ps = _fma(lw, ps, z, ir.Constant(F64, (-1) ** j / math.factorial(2 * j + 1)))
    sin_r = b.fmul(r, ps)
    pc = ir.Constant(F64, 1.0 / math.factorial(16))
    for j in range(7, -1, -1):
        pc = _fma(lw, pc, z, ir.Constant(F64, (-1) ** j / math.factorial(2 * j)))
    q = b.and_(b.fptosi(k, I64), ir.Constant(I64, 3))
    if want_cos:
        q = b.and_(b.add(q, ir.Constant(I64, 1)), ir.Constant(I64, 3))
    # quadrant q: sin(x) = [sin r, cos r, -sin r, -cos r][q]
    use_cos = b.icmp_unsigned("!=", b.and_(q, ir.Constant(I64, 1)), ir.Constant(I64, 0))
    negate = b.icmp_unsigned("!=", b.and_(q, ir.Constant(I64, 2)), ir.Constant(I64, 0))
    v = b.select(use_cos, pc, sin_r)
    v = b.select(negate, b.fneg(v), v)
    bad = b.fcmp_unordered("uno", b.fsub(x, x), ir.Constant(F64, 0.0))  # inf or NaN
    return b.select(bad, ir.Constant(F64, math.nan), v)


def _sincos_f32(lw: KernelLowering, x, name: str):
    b = lw.b
    two_pi_hi = _f32(2 * math.pi)
    two_pi_lo = _f32(2 * math.pi - two_pi_hi)
    k = _rint(lw, b.fmul(x, ir.Constant(F32, 1.0 / (2 * math.pi))))
    r = _fma(lw, b.fneg(k), ir.Constant(F32, two_pi_hi), x)
    r = _fma(lw, b.fneg(k), ir.Constant(F32, two_pi_lo), r)
    return lw.call(f"llvm.nvvm.{name}.approx.f", F32, [r])


def _by_type(f32_fn, f64_fn):
    def fn(lw: KernelLowering, x):
        return f32_fn(lw, x) if x.type == F32 else f64_fn(lw, x)
    return fn


_MATH = {
    "math.exp": _by_type(exp_f32, exp_f64),
    "math.exp2": _by_type(exp2_f32, exp2_f64),
    "math.log": _by_type(log_f32, log_f64),
    "math.log2": _by_type(log2_f32, log2_f64),
    "math.sin": _by_type(lambda lw, x: _sincos_f32(lw, x, "sin"), lambda lw, x: _sincos_f64(lw, x, False)),
    "math.cos": _by_type(lambda lw, x: _sincos_f32(lw, x, "cos"), lambda lw, x: _sincos_f64(lw, x, True)),
    "math.sqrt": lambda lw, x: intrinsic_call(lw, "sqrt", [x]),
    "math.rsqrt": _by_type(lambda lw, x: lw.call("llvm.nvvm.rsqrt.approx.f", F32, [x]),
                           lambda lw, x: lw.b.fdiv(ir.Constant(F64, 1.0), intrinsic_call(lw, "sqrt", [x]))),
    "math.absf": lambda lw, x: intrinsic_call(lw, "fabs", [x]),
    "math.floor": lambda lw, x: intrinsic_call(lw, "floor", [x]),
    "math.ceil": lambda lw, x: intrinsic_call(lw, "ceil", [x]),
}


@lowers(*_MATH)
def _math(lw: KernelLowering, op: Operation) -> None:
    if op.name == "math.exp" and lw.options.exp_uncorrected and _exp_folded(lw, op):
        return
    fn = _MATH[op.name]
    _widen(lw, op, lambda x: fn(lw, x))


def _same_f32(*values) -> bool:
    types = {str(v.type) for v in values}
    return len(types) == 1 and getattr(values[0].type, "element", values[0].type).name == "f32"


def _exp_folded(lw: KernelLowering, op: Operation) -> bool:
    """``-fexp-uncorrected`` only: ``exp(a - b)`` as ``ex2.approx(fma(a, log2 e, -(b log2 e)))``
    and ``exp(d * k - b)`` (``k`` a scalar or a splat of one: a scaled argument, attention's
    ``exp(s * scale - m)``) as ``ex2.approx(fma(d, k log2 e, -(b log2 e)))``: one ``fma`` per
    element besides ``ex2``; ``b log2 e`` of a broadcast row is one multiply per row (equal
    LLVM values). The rounding of ``k log2 e`` and ``b log2 e`` is an error of ulp(``x log2
    e``) in the exponent, as in the uncorrected form ``ex2.approx(x * log2 e)`` (the option
    gives up the spec's 2^-21 for large ``|x|``). Returns False (nothing emitted) when the
    argument is not such a difference of f32 values of one type."""
    sub = getattr(op.operands[0], "op", None)
    if sub is None or sub.name != "arith.subf" or not _same_f32(op.operands[0], *sub.operands):
        return False
    a, b_ = sub.operands
    scale = None
    mul = getattr(a, "op", None)
    if mul is not None and mul.name == "arith.mulf" and _same_f32(a, *mul.operands):
        k = mul.operands[1]
        k_op = getattr(k, "op", None)
        if k_op is not None and k_op.name == "tt.splat":
            scale, a = lw.get(k_op.operands[0]), mul.operands[0]
        elif not hasattr(k.type, "shape"):
            scale, a = lw.get(k), mul.operands[0]
    bld = lw.b
    log2e = ir.Constant(F32, _f32(LOG2E))
    factor = bld.fmul(scale, log2e) if scale is not None else log2e
    ex2 = _ex2(lw)

    def one(x, y):
        return lw.call(ex2, F32, [_fma(lw, x, factor, bld.fneg(bld.fmul(y, log2e)))])

    n = num_regs(lw, op)
    define(lw, op.result, [one(x, y) for x, y in zip(lw.regs(a, n), lw.regs(b_, n))])
    return True


@lowers("math.fma")
def _math_fma(lw: KernelLowering, op: Operation) -> None:
    _widen(lw, op, lambda a, b_, c: _fma(lw, a, b_, c))


@lowers("math.absi")
def _absi(lw: KernelLowering, op: Operation) -> None:
    map_regs(lw, op, lambda a: lw.call(f"llvm.abs.{a.type.intrinsic_name}", a.type, [a, ir.Constant(ir.IntType(1), 0)]))
