"""Element-wise semantics: integer (signed/unsigned, wrap-around, C division), float rounding
in f16/bf16, comparisons with NaN, select, casts, bitcast and math."""
import math

import ml_dtypes
import numpy as np
import pytest

from interp_helpers import apply

BF16 = ml_dtypes.bfloat16
I32 = np.iinfo(np.int32)


@pytest.mark.parametrize("scalar", [False, True])
def test_int_wraparound(scalar):
    a = np.array([I32.max, I32.min, 7, -7, 65536, 3, 0, -1], dtype=np.int32)
    b = np.array([1, -1, 2, 2, 65536, -3, 0, 1], dtype=np.int32)
    n = 1 if scalar else a.size
    with np.errstate(over="ignore"):
        assert (apply("arith.addi", a, b, scalar=scalar) == (a + b)[:n]).all()
        assert (apply("arith.subi", a, b, scalar=scalar) == (a - b)[:n]).all()
        assert (apply("arith.muli", a, b, scalar=scalar) == (a * b)[:n]).all()
    assert apply("arith.addi", a[:1], b[:1], scalar=scalar)[0] == I32.min


def test_i8_and_i64_wrap():
    a = np.array([127, -128, 100, 5], dtype=np.int8)
    b = np.array([1, -1, 100, 5], dtype=np.int8)
    assert apply("arith.addi", a, b).tolist() == [-128, 127, -56, 10]
    big = np.array([2**63 - 1, -(2**63), 3, 4], dtype=np.int64)
    one = np.array([1, -1, 2**62, 2**62], dtype=np.int64)
    assert apply("arith.addi", big, one).tolist() == [-(2**63), 2**63 - 1, 2**62 + 3, 2**62 + 4]
    assert apply("arith.muli", big, one)[2:].tolist() == [-(2**62), 0]


def test_signed_division_truncates_toward_zero():
    a = np.array([7, -7, 7, -7, I32.min, 0, 5, -5], dtype=np.int32)
    b = np.array([2, 2, -2, -2, -1, 3, 0, 0], dtype=np.int32)
    q = apply("arith.divsi", a, b)
    r = apply("arith.remsi", a, b)
    assert q[:6].tolist() == [3, -3, -3, 3, I32.min, 0]
    assert r[:6].tolist() == [1, -1, 1, -1, 0, 0]
    # division by zero is undefined in C: a fixed value, never a trap
    assert q[6:].tolist() == [-1, -1] and r[6:].tolist() == [5, -5]


def test_unsigned_division_and_remainder():
    a = np.array([0xFFFFFFFF, 7, 0x80000000, 10], dtype=np.uint32)
    b = np.array([2, 0xFFFFFFFE, 3, 4], dtype=np.uint32)
    assert apply("arith.divui", a, b).view(np.uint32).tolist() == (a // b).tolist()
    assert apply("arith.remui", a, b).view(np.uint32).tolist() == (a % b).tolist()
    # signed view of the same bits gives different answers
    assert apply("arith.divsi", a, b).view(np.int32).tolist() == [0, -3, -715827882, 2]


def test_shifts_arithmetic_logical_and_clamped():
    a = np.array([-16, -16, 1, 1, -1, 0x40000000, 5, -5], dtype=np.int32)
    s = np.array([2, 2, 31, 32, 40, 1, -1, 33], dtype=np.int32)
    shl = apply("arith.shli", a, s)
    assert shl[:3].tolist() == [-64, -64, I32.min] and shl[3:5].tolist() == [0, 0]
    assert shl[5] == I32.min
    assert apply("arith.shrsi", a, s)[[0, 4, 7]].tolist() == [-4, -1, -1]
    shru = apply("arith.shrui", a, s)
    assert shru[0] == (0xFFFFFFF0 >> 2) and shru[4] == 0 and shru[6] == 0


def test_min_max_signed_vs_unsigned_and_bitwise():
    a = np.array([-1, 3, I32.min, 0], dtype=np.int32)
    b = np.array([1, -3, 5, 0], dtype=np.int32)
    assert apply("arith.maxsi", a, b).tolist() == [1, 3, 5, 0]
    assert apply("arith.minsi", a, b).tolist() == [-1, -3, I32.min, 0]
    assert apply("arith.maxui", a, b).tolist() == [-1, -3, I32.min, 0]
    assert apply("arith.minui", a, b).tolist() == [1, 3, 5, 0]
    assert apply("arith.andi", a, b).tolist() == (a & b).tolist()
    assert apply("arith.ori", a, b).tolist() == (a | b).tolist()
    assert apply("arith.xori", a, b).tolist() == (a ^ b).tolist()
    assert apply("math.absi", a).tolist() == [1, 3, I32.min, 0]


def test_i1_arithmetic_is_mod_2():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    assert apply("arith.addi", a, b).tolist() == [False, True, True, False]
    assert apply("arith.muli", a, b).tolist() == [True, False, False, False]
    # signed view of i1: true is -1
    assert apply("arith.cmpi", a, b, out_dtype=np.bool_, attrs='predicate = "slt"').tolist() == [False, True, False, False]
    assert apply("arith.cmpi", a, b, out_dtype=np.bool_, attrs='predicate = "ult"').tolist() == [False, False, True, False]


@pytest.mark.parametrize("pred,signed_expect,ref", [
    ("eq", None, np.equal), ("ne", None, np.not_equal),
    ("slt", True, np.less), ("sle", True, np.less_equal), ("sgt", True, np.greater), ("sge", True, np.greater_equal),
    ("ult", False, np.less), ("ule", False, np.less_equal), ("ugt", False, np.greater), ("uge", False, np.greater_equal),
])
def test_cmpi_predicates(pred, signed_expect, ref):
    a = np.array([-1, 0, 5, I32.min, 7, 7, -3, 2], dtype=np.int32)
    b = np.array([1, 0, -5, I32.max, 7, 8, -4, 2], dtype=np.int32)
    got = apply("arith.cmpi", a, b, out_dtype=np.bool_, attrs=f'predicate = "{pred}"')
    x, y = (a, b) if signed_expect in (None, True) else (a.view(np.uint32), b.view(np.uint32))
    assert got.tolist() == ref(x, y).tolist()


NAN = float("nan")


@pytest.mark.parametrize("pred,expect", [
    ("oeq", [1, 0, 0, 0]), ("one", [0, 1, 0, 0]), ("olt", [0, 1, 0, 0]), ("ole", [1, 1, 0, 0]),
    ("ogt", [0, 0, 0, 0]), ("oge", [1, 0, 0, 0]), ("ueq", [1, 0, 1, 1]), ("une", [0, 1, 1, 1]),
    ("ult", [0, 1, 1, 1]), ("ule", [1, 1, 1, 1]), ("ugt", [0, 0, 1, 1]), ("uge", [1, 0, 1, 1]),
    ("ord", [1, 1, 0, 0]), ("uno", [0, 0, 1, 1]),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_cmpf_predicates_with_nan(pred, expect, dtype):
    a = np.array([1.0, 1.0, NAN, 2.0], dtype=dtype)
    b = np.array([1.0, 2.0, 1.0, NAN], dtype=dtype)
    got = apply("arith.cmpf", a, b, out_dtype=np.bool_, attrs=f'predicate = "{pred}"')
    assert got.astype(int).tolist() == expect


def test_f16_rounds_after_each_op():
    # 2048 + 1 is not representable in f16: rounds to even (2048) after the add
    a = np.array([2048, 1e4, 65504, 0.1], dtype=np.float16)
    b = np.array([1, 1e4, 32, 0.2], dtype=np.float16)
    s = apply("arith.addf", a, b)
    assert s.dtype == np.float16
    assert s[0] == 2048 and s[1] == np.float16(2e4) and s[2] == np.inf
    assert s[3] == np.float16(np.float32(np.float16(0.1)) + np.float32(np.float16(0.2)))
    d = apply("arith.divf", np.array([1, 2, 1, -1], np.float16), np.array([3, 3, 0, 0], np.float16))
    assert d[0] == np.float16(1 / 3) and d[1] == np.float16(2 / 3) and d[2] == np.inf and d[3] == -np.inf


def test_bf16_arithmetic_rounds_to_bf16():
    a = np.array([1, 256, 3, 1e38], dtype=BF16)
    b = np.array([2**-8, 1, 7, 1e38], dtype=BF16)
    s = apply("arith.addf", a, b)
    assert s.dtype == BF16
    assert float(s[0]) == 1.0 and float(s[1]) == 256.0 and float(s[2]) == 10.0
    assert float(apply("arith.mulf", a, b)[2]) == 21.0
    assert math.isinf(float(apply("arith.mulf", a, b)[3]))


def test_float_remf_minmax_neg():
    a = np.array([5.5, -5.5, NAN, 1.0], dtype=np.float32)
    b = np.array([2.0, 2.0, 1.0, NAN], dtype=np.float32)
    r = apply("arith.remf", a, b)
    assert r[:2].tolist() == [1.5, -1.5] and math.isnan(r[2])
    assert apply("arith.maxnumf", a, b).tolist()[:2] + apply("arith.maxnumf", a, b).tolist()[2:] == [5.5, 2.0, 1.0, 1.0]
    assert apply("arith.minnumf", a, b).tolist() == [2.0, -5.5, 1.0, 1.0]
    n = apply("arith.negf", np.array([0.0, -2.0, np.inf, 1.5], np.float16))
    assert n.tolist() == [-0.0, 2.0, -np.inf, -1.5] and np.signbit(n[0])


def test_select_tile_and_scalar_condition():
    c = np.array([True, False, True, False])
    a = np.arange(4, dtype=np.int32)
    b = -np.arange(4, dtype=np.int32)
    assert apply("arith.select", c, a, b, out_dtype=np.int32).tolist() == [0, -1, 2, -3]
    assert apply("arith.select", c, a, b, out_dtype=np.int32, scalar=True).tolist() == [0]


def test_int_casts():
    x = np.array([-1, 127, -128, 5], dtype=np.int8)
    assert apply("arith.extsi", x, out_dtype=np.int32).tolist() == [-1, 127, -128, 5]
    assert apply("arith.extui", x, out_dtype=np.int32).tolist() == [255, 127, 128, 5]
    w = np.array([0x12345678, -1, 0x80, 0x17F], dtype=np.int32)
    assert apply("arith.trunci", w, out_dtype=np.int8).tolist() == [0x78, -1, -128, 127]
    assert apply("arith.trunci", w, out_dtype=np.bool_).tolist() == [False, True, False, True]
    flags = np.array([True, False, True, True])
    assert apply("arith.extsi", flags, out_dtype=np.int32).tolist() == [-1, 0, -1, -1]
    assert apply("arith.extui", flags, out_dtype=np.int32).tolist() == [1, 0, 1, 1]


def test_int_float_casts():
    x = np.array([-1, 3, 2**31 - 1, 16777217], dtype=np.int32)
    assert apply("arith.sitofp", x, out_dtype=np.float32).tolist() == [-1.0, 3.0, 2.0**31, 16777216.0]
    assert apply("arith.uitofp", x, out_dtype=np.float32).tolist()[:2] == [4294967296.0, 3.0]
    assert apply("arith.sitofp", x, out_dtype=np.float16).tolist()[:2] == [-1.0, 3.0]
    f = np.array([2.9, -2.9, 1e20, NAN, -1e20, 0.5, -0.5, 2147483520.0], dtype=np.float32)
    assert apply("arith.fptosi", f, out_dtype=np.int32).tolist() == [2, -2, I32.max, 0, I32.min, 0, 0, 2147483520]
    assert apply("arith.fptoui", f, out_dtype=np.int8).view(np.uint8).tolist() == [2, 0, 255, 0, 0, 0, 0, 255]


def test_float_casts_round_once():
    d = np.array([1 + 2**-8 + 2**-30, 1e300, 1 / 3, -0.0], dtype=np.float64)
    b = apply("arith.truncf", d, out_dtype=BF16)
    assert float(b[0]) == 1 + 2**-7  # correctly rounded, not via f32 (which gives 1.0)
    assert math.isinf(float(b[1])) and float(b[2]) == float(np.float32(1 / 3).astype(BF16))
    with np.errstate(over="ignore"):
        h = apply("arith.truncf", d.astype(np.float32), out_dtype=np.float16)
    assert h[2] == np.float16(np.float32(1 / 3)) and np.signbit(h[3])
    e = apply("arith.extf", np.array([0.1, 65504, -2.5, 6e-8], np.float16), out_dtype=np.float32)
    assert e.tolist() == np.array([0.1, 65504, -2.5, 6e-8], np.float16).astype(np.float32).tolist()


def test_bitcast():
    f = np.array([1.0, -0.0, np.inf, 0.5], dtype=np.float32)
    assert apply("arith.bitcast", f, out_dtype=np.int32).tolist() == f.view(np.int32).tolist()
    h = np.array([1.0, -2.0, 0.0, 65504], dtype=np.float16)
    assert apply("arith.bitcast", h, out_dtype=BF16).view(np.int16).tolist() == h.view(np.int16).tolist()


@pytest.mark.parametrize("op,ref", [
    ("math.exp", np.exp), ("math.exp2", np.exp2), ("math.log", np.log), ("math.log2", np.log2),
    ("math.sqrt", np.sqrt), ("math.rsqrt", lambda x: 1 / np.sqrt(x)), ("math.sin", np.sin), ("math.cos", np.cos),
    ("math.absf", np.abs), ("math.floor", np.floor), ("math.ceil", np.ceil),
])
def test_math_f32_correctly_rounded(op, ref):
    x = np.array([0.5, 1.0, 2.75, 10.0, 1e-3, 3.3, 7.9, 60.0], dtype=np.float32)
    got = apply(op, x)
    assert got.dtype == np.float32
    assert got.tolist() == ref(x.astype(np.float64)).astype(np.float32).tolist()


def test_math_special_values_and_fma():
    x = np.array([-1.0, 0.0, np.inf, NAN], dtype=np.float32)
    s = apply("math.sqrt", x)
    assert math.isnan(s[0]) and s[1] == 0 and s[2] == np.inf
    assert apply("math.log", x)[1] == -np.inf
    a = np.array([1 + 2**-23, 3, 0.1, 2], dtype=np.float32)
    c = np.array([-1, 1, 0.2, -4], dtype=np.float32)
    f = apply("math.fma", a, a, c)
    # one rounding: (1+2^-23)^2 - 1 = 2^-22 + 2^-46 exactly representable-ish, unlike a*a-1 in f32
    assert f[0] == np.float32(2**-22 + 2**-46) and f[1] == 10 and f[3] == 0
