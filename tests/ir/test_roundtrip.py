"""Printer/parser round trip and verifier checks on hand-built IR."""
import pytest

from tritonc.ir.builder import Builder
from tritonc.ir.core import Function, Module, Region, Block
from tritonc.ir.layouts import BlockedLayout, SliceLayout
from tritonc.ir.ops import VerifyError
from tritonc.ir.parser import IRParseError, parse_module, parse_type
from tritonc.ir.printer import print_module
from tritonc.ir.types import F16, F32, I1, I32, PointerType, TileType
from tritonc.ir.verifier import verify_module


def build_loop_module(layout=None):
    f = Function("k", [PointerType(F16), I32], arg_names=["A", "K"], arg_attrs=[{"noalias": True, "aligned": 16}, {}])
    b = Builder(f.body.block)
    A, K = f.args
    t = lambda el, shape: TileType(el, shape, layout)
    r = b.value("tt.make_range", [], t(I32, (16,)), {"start": 0, "end": 16}, "r")
    pa = b.value("tt.addptr", [b.splat(A, (16,)) if layout is None else b.value("tt.splat", [A], t(PointerType(F16), (16,))), r],
                 t(PointerType(F16), (16,)), name_hint="pa")
    acc0 = b.constant(0.0, t(F32, (16,)), "acc")
    c0, c16 = b.constant(0, I32), b.constant(16, I32)
    body = Block([I32, acc0.type, pa.type], ["k", "acc", "pa"])
    loop = b.create("scf.for", [c0, K, c16, acc0, pa], [acc0.type, pa.type], {"predicate": "slt"}, [Region(body)])
    loop.results[0].name = "acc"
    with b.insertion(body):
        _, acc, p = body.args
        x = b.value("tt.load", [p], t(F16, (16,)), name_hint="x")
        xf = b.value("arith.extf", [x], t(F32, (16,)))
        acc2 = b.value("arith.addf", [acc, xf], acc.type)
        p2 = b.value("tt.addptr", [p, b.value("tt.splat", [c16], t(I32, (16,)))], p.type)
        b.create("scf.yield", [acc2, p2])
    s = b.value("tt.reduce", [loop.results[0]], F32, {"axis": 0, "combine": "addf"}, "s")
    m = b.value("arith.cmpf", [s, b.constant(float("inf"), F32)], I1, {"predicate": "olt"})
    ifop = b.create("scf.if", [m], [F32], regions=[Region(), Region()])
    with b.insertion(ifop.regions[0].block):
        b.create("scf.yield", [s])
    with b.insertion(ifop.regions[1].block):
        b.create("scf.yield", [b.constant(-1.5e-3, F32)])
    b.create("tt.return")
    return Module([f], {"num_warps": 4})


def test_roundtrip_is_identical():
    m = build_loop_module()
    verify_module(m)
    text = print_module(m)
    assert "scf.for" in text and "%acc_1" in text
    again = parse_module(text)
    verify_module(again)
    assert print_module(again) == text


def test_roundtrip_with_layouts():
    bl = BlockedLayout((1,), (32,), (4,), (0,))
    m = build_loop_module(bl)
    text = print_module(m)
    assert text.startswith("#blocked0 = #ttg.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0]>")
    assert print_module(parse_module(text)) == text
    sl = SliceLayout(1, BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0)))
    t = parse_type(str(TileType(F32, (64,), sl)))
    assert t.layout == sl


def test_verifier_rejects_bad_types():
    m = build_loop_module()
    f = m.functions[0]
    load = next(op for op in f.walk() if op.name == "tt.load")
    load.results[0].type = TileType(F32, (16,))
    with pytest.raises(VerifyError, match="tt.load"):
        verify_module(m)


def test_verifier_rejects_use_before_def():
    m = build_loop_module()
    ops = m.functions[0].body.block.ops
    ops[1], ops[2] = ops[2], ops[1]
    with pytest.raises(VerifyError, match="dominate"):
        verify_module(m)


def test_parse_errors_name_position():
    with pytest.raises(IRParseError, match=r"3:\d+: use of undefined value %y"):
        parse_module("module {\n  tt.func @k() attributes {kernel} {\n    %x = arith.addi %y, %y : i32\n    tt.return\n  }\n}\n")
    with pytest.raises(IRParseError, match="expected an operation name"):
        parse_module("module {\n  tt.func @k() attributes {kernel} {\n    %x = arith.bogus : i32\n  }\n}\n")


def test_op_without_operands_before_a_definition():
    # The barrier must not take the next line's result as its operand.
    m = parse_module("module {\n  tt.func @k(%p: ptr<f32>) attributes {kernel} {\n    gpu.barrier\n"
                     "    %v = tt.load %p : f32\n    tt.store %p, %v\n    tt.return\n  }\n}\n")
    verify_module(m)
    barrier = m.functions[0].body.block.ops[0]
    assert barrier.name == "gpu.barrier" and barrier.operands == []
    assert "gpu.barrier\n    %v = tt.load" in print_module(m)


@pytest.mark.parametrize("types,word,message", [
    (("i32", "i32", "i32", "i32"), 0, None),
    (("i32[4]", "i32[4]", "i32[4]", "i32[4]"), 3, None),
    (("i64", "i64", "i64", "i64"), 0, "expects i32 operands"),
    (("i32[4]", "i32", "i32", "i32[4]"), 0, "one type"),
    (("i32", "i32", "i32", "i32"), 4, "word must be 0..3"),
])
def test_philox_verifier(types, word, message):
    """``math.philox(counter, key0, key1) {word}``: i32 operands and result of one type, word 0..3."""
    c, k0, k1, r = types
    text = ("module {\n  tt.func @k(%c: " + c + ", %k0: " + k0 + ", %k1: " + k1 + ") attributes {kernel} {\n"
            f"    %w = math.philox %c, %k0, %k1 {{word = {word}}} : {r}\n    tt.return\n  }}\n}}\n")
    m = parse_module(text)
    if message is None:
        verify_module(m)
        assert print_module(m) == text
    else:
        with pytest.raises(VerifyError, match=message):
            verify_module(m)
