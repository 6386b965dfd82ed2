"""tritonc.analysis.address_terms: the innermost term of a pointer's address."""
from __future__ import annotations

from tritonc.analysis.address_terms import innermost_term, loop_initial_value
from tritonc.ir.parser import parse_module

IR = """
module {
  tt.func @f(%X: ptr<f32>, %s0: i32, %s1: i32, %n: i32) attributes {kernel} {
    %r0 = tt.make_range {end = 4, start = 0} : i32[4]
    %r1 = tt.make_range {end = 8, start = 0} : i32[8]
    %a = tt.expand_dims %r0 {axis = 1} : i32[4,1]
    %sa = tt.splat %s0 : i32[4,1]
    %oa = arith.muli %a, %sa : i32[4,1]
    %p0 = tt.splat %X : ptr<f32>[4,1]
    %p1 = tt.addptr %p0, %oa : ptr<f32>[4,1]
    %p2 = tt.broadcast %p1 : ptr<f32>[4,8]
    %b = tt.expand_dims %r1 {axis = 0} : i32[1,8]
    %sb = tt.splat %s1 : i32[1,8]
    %ob = arith.muli %b, %sb : i32[1,8]
    %obb = tt.broadcast %ob : i32[4,8]
    %p3 = tt.addptr %p2, %obb : ptr<f32>[4,8]
    %qp = tt.splat %X : ptr<f32>[8]
    %qp1 = tt.addptr %qp, %r1 : ptr<f32>[8]
    %qp2 = tt.expand_dims %qp1 {axis = 0} : ptr<f32>[1,8]
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %r = scf.for %c0, %n, %c1, %p3 {predicate = "slt"} : ptr<f32>[4,8] {
    ^(%k: i32, %p: ptr<f32>[4,8]):
      %x = tt.load %p : f32[4,8]
      scf.yield %p
    }
    %y = tt.load %qp2 : f32[1,8]
    tt.return
  }
}
"""


def values(f):
    out = {}
    for op in f.walk():
        for r in op.results:
            if r.name:
                out[r.name] = r
        for region in op.regions:
            for a in region.block.args:
                out[a.name] = a
    return out


def test_innermost_term_through_broadcasts_loops_and_expand_dims():
    (f,) = parse_module(IR).functions
    v = values(f)
    assert innermost_term(v["p3"]).name == "obb"
    assert innermost_term(v["p2"]).name == "oa"            # through the broadcast
    assert loop_initial_value(v["p"]) is v["p3"]             # the loop-carried pointer
    assert loop_initial_value(v["k"]) is None                # the induction variable
    assert innermost_term(v["p"]).name == "obb"
    assert innermost_term(v["qp2"]).name == "r1"
    assert innermost_term(v["qp2"], same_rank=True) is None  # expand_dims changes the axes
    assert innermost_term(v["p0"]) is None and innermost_term(f.args[0]) is None
