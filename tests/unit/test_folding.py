"""Constant folding agrees bit for bit with the interpreter (the semantic reference).

Each case builds a kernel that stores ``op(constants...)``, runs it in the interpreter before
and after ``canonicalize``, and compares the stored bits; it also checks that the op was
folded whenever :func:`~tritonc.ir.folding.fold` says it can be.
"""
from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import format_attr_value
from tritonc.ir.types import SCALARS
from tritonc.passes import PassManager, get_pass
from tritonc.ir.folding import fold, normalize_int

DTYPE = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
UINT = {1: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}

INT_BINARY = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori",
              "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui"]
FLOAT_BINARY = ["addf", "subf", "mulf", "divf", "remf", "maxnumf", "minnumf"]
CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
CMPF = ["oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une", "ult", "ule", "ugt", "uge", "ord", "uno"]


def int_values(bits: int):
    edges = [0, 1, -1, 2, 3, 7, bits - 1, bits, (1 << (bits - 1)) - 1, -(1 << (bits - 1))]
    return st.one_of(st.sampled_from(edges), st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)).map(
        lambda v: normalize_int(v, bits))


def float_values(type_name: str):
    width = {"f16": 16, "bf16": 32, "f32": 32, "f64": 64}[type_name]
    specials = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, float("inf"), float("-inf"), float("nan"), 1e-3, 65504.0])
    values = st.one_of(specials, st.floats(width=width, allow_subnormal=True))
    if type_name == "bf16":
        values = values.map(lambda v: float(ml_dtypes.bfloat16(v)))
    return values


def run_store(op_line: str, constants: list[tuple[object, str]], result_type: str, canonicalize: bool):
    """Run a kernel storing the result of ``op_line`` (which reads %c0, %c1...); return (bits, module text)."""
    lines = [f"    %c{i} = arith.constant {{value = {format_attr_value(v)}}} : {t}" for i, (v, t) in enumerate(constants)]
    text = ("module {\n  tt.func @k(%o: ptr<" + result_type + ">) attributes {kernel} {\n" + "\n".join(lines) +
            f"\n    %r = {op_line} : {result_type}\n    tt.store %o, %r\n    tt.return\n  }}\n}}\n")
    module = parse_module(text)
    if canonicalize:
        PassManager([get_pass("canonicalize")]).run(module)
    out = np.zeros(1, dtype=DTYPE[result_type])
    run_function(module, "k", (1,), [out])
    bits = SCALARS[result_type].bits
    return out.view(UINT[bits]) if result_type != "i1" else out.astype(np.uint8), module


def check(op: str, constants: list[tuple[object, str]], result_type: str, attrs: dict | None = None) -> None:
    operands = ", ".join(f"%c{i}" for i in range(len(constants)))
    attr_text = " {" + ", ".join(f"{k} = {format_attr_value(v)}" for k, v in (attrs or {}).items()) + "}" if attrs else ""
    op_line = f"{op} {operands}{attr_text}"
    expected, _ = run_store(op_line, constants, result_type, canonicalize=False)
    folded, module = run_store(op_line, constants, result_type, canonicalize=True)
    assert folded.tolist() == expected.tolist(), f"{op_line} on {constants}"
    types = [SCALARS[t] for _, t in constants]
    can_fold = fold(op, attrs or {}, types, SCALARS[result_type], [v for v, _ in constants]) is not None
    if can_fold:  # (an identity such as x + -0.0 may remove the op even when folding refuses)
        assert op not in [o.name for o in module.walk()], f"{op_line} on {constants} was not folded"


#: More examples for a stress run: TRITONC_FOLD_EXAMPLES=5000 pytest tests/unit/test_folding.py
SETTINGS = settings(max_examples=int(os.environ.get("TRITONC_FOLD_EXAMPLES", "150")), deadline=None)


@SETTINGS
@given(st.sampled_from(["i8", "i16", "i32", "i64"]).flatmap(
    lambda t: st.tuples(st.just(t), st.sampled_from(INT_BINARY), int_values(SCALARS[t].bits), int_values(SCALARS[t].bits))))
def test_integer_binary_ops(case):
    t, op, a, b = case
    check(f"arith.{op}", [(a, t), (b, t)], t)


@SETTINGS
@given(st.sampled_from(["i1", "i8", "i32", "i64"]).flatmap(
    lambda t: st.tuples(st.just(t), st.sampled_from(CMPI), int_values(SCALARS[t].bits), int_values(SCALARS[t].bits))))
def test_integer_compare(case):
    t, predicate, a, b = case
    check("arith.cmpi", [(a, t), (b, t)], "i1", {"predicate": predicate})


@SETTINGS
@given(st.sampled_from(["f16", "bf16", "f32", "f64"]).flatmap(
    lambda t: st.tuples(st.just(t), st.sampled_from(FLOAT_BINARY), float_values(t), float_values(t))))
def test_float_binary_ops(case):
    t, op, a, b = case
    check(f"arith.{op}", [(a, t), (b, t)], t)


@SETTINGS
@given(st.sampled_from(["f16", "f32"]).flatmap(
    lambda t: st.tuples(st.just(t), st.sampled_from(CMPF), float_values(t), float_values(t))))
def test_float_compare(case):
    t, predicate, a, b = case
    check("arith.cmpf", [(a, t), (b, t)], "i1", {"predicate": predicate})


CASTS = [("arith.extsi", "i8", "i32"), ("arith.extui", "i8", "i32"), ("arith.extui", "i1", "i32"),
         ("arith.trunci", "i64", "i16"), ("arith.sitofp", "i32", "f32"), ("arith.uitofp", "i32", "f16"),
         ("arith.sitofp", "i64", "bf16"), ("arith.fptosi", "f32", "i8"), ("arith.fptoui", "f64", "i32"),
         ("arith.extf", "f16", "f32"), ("arith.extf", "bf16", "f64"), ("arith.truncf", "f32", "f16"),
         ("arith.truncf", "f64", "bf16"), ("arith.truncf", "f64", "f32"), ("arith.bitcast", "f32", "i32"),
         ("arith.bitcast", "i16", "f16"), ("arith.bitcast", "i16", "bf16")]


@SETTINGS
@given(st.sampled_from(CASTS).flatmap(lambda c: st.tuples(
    st.just(c), int_values(SCALARS[c[1]].bits) if c[1].startswith("i") else float_values(c[1]))))
def test_casts(case):
    (op, src, dst), value = case
    check(op, [(value, src)], dst)


@SETTINGS
@given(st.sampled_from(["f16", "bf16", "f32"]).flatmap(lambda t: st.tuples(
    st.just(t), st.sampled_from(["arith.negf", "math.absf", "math.floor", "math.ceil", "math.sqrt"]), float_values(t))))
def test_float_unary(case):
    t, op, value = case
    check(op, [(value, t)], t)


@pytest.mark.parametrize("op, constants, result_type", [
    ("arith.divsi", [(-(1 << 31), "i32"), (-1, "i32")], "i32"),
    ("arith.remui", [(5, "i32"), (0, "i32")], "i32"),
    ("arith.shli", [(1, "i8"), (8, "i8")], "i8"),
    ("arith.divf", [(1.0, "f32"), (-0.0, "f32")], "f32"),
    ("arith.maxnumf", [(0.0, "f32"), (-0.0, "f32")], "f32"),
    ("arith.fptosi", [(300.0, "f32")], "i8"),
])
def test_undefined_or_ambiguous_cases_are_not_folded(op, constants, result_type):
    types = [SCALARS[t] for _, t in constants]
    assert fold(op, {}, types, SCALARS[result_type], [v for v, _ in constants]) is None
