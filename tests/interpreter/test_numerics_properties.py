"""Property tests of the element semantics against exact Python references (C rules on big ints,
exact rationals for float rounding)."""
from fractions import Fraction

import ml_dtypes
import numpy as np
from hypothesis import given, settings, strategies as st

from tritonc.interpreter import numerics as nx
from tritonc.ir.types import BF16, F16, F32, I8, I32, I64

INTS = {I8: 8, I32: 32, I64: 64}


def to_signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


int_type = st.sampled_from(list(INTS))


@settings(max_examples=150, deadline=None)
@given(t=int_type, a=st.integers(-(2**63), 2**63 - 1), b=st.integers(-(2**63), 2**63 - 1))
def test_integer_ops_match_c_on_big_ints(t, a, b):
    bits = INTS[t]
    a, b = to_signed(a, bits), to_signed(b, bits)
    x, y = nx.wrap_python_int(a, t), nx.wrap_python_int(b, t)
    ua, ub = a % (1 << bits), b % (1 << bits)
    with np.errstate(all="ignore"):
        def f(name):
            return int(nx.BINARY[name](x, y, t))
        assert f("arith.addi") == to_signed(a + b, bits)
        assert f("arith.muli") == to_signed(a * b, bits)
        assert f("arith.maxui") == to_signed(max(ua, ub), bits)
        if b != 0:
            assert f("arith.divsi") == to_signed(c_div(a, b), bits)
            assert f("arith.remsi") == to_signed(a - c_div(a, b) * b, bits)
            assert f("arith.divui") == to_signed(ua // ub, bits)
            assert f("arith.remui") == to_signed(ua % ub, bits)
        s = ub
        assert f("arith.shli") == (to_signed(a << s, bits) if s < bits else 0)
        assert f("arith.shrui") == (to_signed(ua >> s, bits) if s < bits else 0)
        assert f("arith.shrsi") == (a >> s if s < bits else (-1 if a < 0 else 0))
        assert bool(nx.cmpi("ult", x, y, t)) == (ua < ub)
        assert bool(nx.cmpi("sge", x, y, t)) == (a >= b)


def nearest(value: Fraction, dtype) -> float:
    """Round an exact rational to the nearest finite ``dtype`` value, ties to even: the float
    conversion's guess and its neighbours on the dtype's grid, picked by exact distance."""
    dt = np.dtype(dtype)
    ut = np.uint16 if dt.itemsize == 2 else np.uint32
    with np.errstate(over="ignore"):
        guess = np.array([float(value)]).astype(np.float32).astype(dt).view(ut)[0]
    cands = []
    for d in (-2, -1, 0, 1, 2):
        c = np.array([int(guess) + d], dtype=np.int64).astype(ut).view(dt)[0]
        if np.isfinite(float(c)):
            cands.append((abs(Fraction(float(c)) - value), int(np.array([c]).view(ut)[0]) & 1, float(c)))
    return min(cands)[2]


finite = st.floats(min_value=-200, max_value=200, allow_nan=False, allow_infinity=False)


@settings(max_examples=100, deadline=None)
@given(t=st.sampled_from([F16, BF16]), a=finite, b=finite)
def test_half_arithmetic_is_correctly_rounded(t, a, b):
    dt = nx.np_dtype(t)
    x, y = np.array(a).astype(dt), np.array(b).astype(dt)
    fx, fy = Fraction(float(x)), Fraction(float(y))
    assert float(nx.BINARY["arith.addf"](x, y, t)) == nearest(fx + fy, dt)
    assert float(nx.BINARY["arith.mulf"](x, y, t)) == nearest(fx * fy, dt)
    if fy != 0 and abs(fx / fy) < 60000:
        assert float(nx.BINARY["arith.divf"](x, y, t)) == nearest(fx / fy, dt)


@settings(max_examples=100, deadline=None)
@given(v=st.floats(min_value=-3e38, max_value=3e38, allow_nan=False))
def test_f64_to_bf16_is_correctly_rounded(v):
    got = float(nx.cast("arith.truncf", np.array(v), nx_f64(), BF16))
    assert got == nearest(Fraction(v), ml_dtypes.bfloat16)


def nx_f64():
    from tritonc.ir.types import F64
    return F64


@settings(max_examples=100, deadline=None)
@given(v=st.floats(allow_nan=True, allow_infinity=True, width=32))
def test_fptosi_saturates(v):
    got = int(nx.cast("arith.fptosi", np.float32(v), F32, I32))
    if np.isnan(v):
        assert got == 0
    else:
        assert got == max(-(2**31), min(2**31 - 1, int(np.trunc(v)) if np.isfinite(v) else (2**31 if v > 0 else -(2**32))))
