"""analysis/pointer_origins.py: pointers that derive only from noalias readonly parameters."""
from __future__ import annotations

from tritonc.analysis.pointer_origins import readonly_pointer_values
from tritonc.ir.parser import parse_module

IR = """module attributes {num_warps = 4} {
  tt.func @k(%a: ptr<f32> {noalias, readonly}, %b: ptr<f32> {noalias, readonly}, %w: ptr<f32> {noalias},
             %r: ptr<f32> {readonly}, %c: i1, %n: i32) attributes {kernel} {
    %range = tt.make_range {start = 0, end = 16} : i32[16]
    %pa = tt.splat %a : ptr<f32>[16]
    %qa = tt.addptr %pa, %range : ptr<f32>[16]
    %pb = tt.splat %b : ptr<f32>[16]
    %ab = arith.select %c, %qa, %pb : ptr<f32>[16]
    %pw = tt.splat %w : ptr<f32>[16]
    %aw = arith.select %c, %qa, %pw : ptr<f32>[16]
    %pr = tt.splat %r : ptr<f32>[16]
    %i = tt.ptr_to_int %a : i64
    %p = tt.int_to_ptr %i : ptr<f32>
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %loop:2 = scf.for %c0, %n, %c1, %qa, %qa {predicate = "slt"} : ptr<f32>[16], ptr<f32>[16] {
    ^(%k: i32, %x: ptr<f32>[16], %y: ptr<f32>[16]):
      %x2 = tt.addptr %x, %range : ptr<f32>[16]
      scf.yield %x2, %pw
    }
    tt.return
  }
}
"""


def names(values) -> set[str]:
    return {v.name for v in values if v.name}


def test_readonly_pointer_values():
    f = parse_module(IR).functions[0]
    got = names(readonly_pointer_values(f))
    # a, b and what is computed from them only; a value that may point into %w (also through
    # the loop), %r (readonly but not noalias) or comes from an integer is not
    assert {"a", "b", "pa", "qa", "pb", "ab", "x", "x2"} <= got
    assert not got & {"w", "pw", "aw", "r", "pr", "p", "y", "i"}
