"""Cloning, inlining errors, and the tt pipeline (inline, canonicalize, cse, licm, dce) checked
against the interpreter: optimised kernels compute what the originals compute."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.diagnostics import InternalCompilerError
from tritonc.interpreter import run_function
from tritonc.ir.clone import clone_op
from tritonc.ir.core import Module
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.ir.verifier import verify_module
from tritonc.passes import PassManager, parse_pipeline

#: cse runs again after licm: hoisting brings equal invariants (two make_range) into one scope.
TT_PIPELINE = "inline,canonicalize,cse,licm,canonicalize,cse,dce"

KERNEL = """module {
  tt.func @scale(%v: f32[16], %s: f32) -> f32[16] attributes {device} {
    %ss = tt.splat %s : f32[16]
    %r = arith.mulf %v, %ss : f32[16]
    tt.return %r
  }
  tt.func @k(%X: ptr<f32>, %Y: ptr<f32>, %n: i32, %s: f32) attributes {kernel} {
    %pid = tt.get_program_id {axis = 0} : i32
    %c0 = arith.constant {value = 0} : i32
    %c16 = arith.constant {value = 16} : i32
    %zero = arith.constant {value = 0.0} : f32[16]
    %false = arith.constant {value = 0} : i1
    %start = arith.muli %pid, %c16 : i32
    %r:2 = scf.for %start, %n, %c16, %zero, %false {predicate = "slt"} : f32[16], i1 {
    ^(%k: i32, %acc: f32[16], %done: i1):
      %range = tt.make_range {end = 16, start = 0} : i32[16]
      %ks = tt.splat %k : i32[16]
      %offs = arith.addi %ks, %range : i32[16]
      %ns = tt.splat %n : i32[16]
      %mask = arith.cmpi %offs, %ns {predicate = "slt"} : i1[16]
      %xs = tt.splat %X : ptr<f32>[16]
      %ptrs = tt.addptr %xs, %offs : ptr<f32>[16]
      %other = arith.constant {value = 0.0} : f32[16]
      %v = tt.load %ptrs, %mask, %other : f32[16]
      %scaled = tt.call %v, %s {callee = "scale"} : f32[16]
      %one = arith.constant {value = 1.0} : f32[16]
      %same = arith.mulf %one, %scaled : f32[16]
      %acc2 = arith.addf %acc, %same : f32[16]
      %last = arith.cmpi %k, %n {predicate = "sge"} : i1
      %done2 = arith.ori %done, %last : i1
      scf.yield %acc2, %done2
    }
    %range2 = tt.make_range {end = 16, start = 0} : i32[16]
    %starts = tt.splat %start : i32[16]
    %out = arith.addi %starts, %range2 : i32[16]
    %ys = tt.splat %Y : ptr<f32>[16]
    %yp = tt.addptr %ys, %out : ptr<f32>[16]
    %w = scf.while %c0 : i32 {
    ^(%i: i32):
      %two = arith.constant {value = 2} : i32
      %go = arith.cmpi %i, %two {predicate = "slt"} : i1
      scf.condition %go, %i
    } {
    ^(%j: i32):
      %inc = arith.constant {value = 1} : i32
      %j2 = arith.addi %j, %inc : i32
      scf.yield %j2
    }
    %wf = arith.sitofp %w : f32
    %wfs = tt.splat %wf : f32[16]
    %res = arith.addf %r#0, %wfs : f32[16]
    tt.store %yp, %res
    tt.return
  }
}
"""


def optimise(text: str, pipeline: str = TT_PIPELINE) -> Module:
    m = parse_module(text)
    PassManager(parse_pipeline(pipeline)).run(m)
    return m


def run_kernel(m: Module) -> np.ndarray:
    x = np.arange(40, dtype=np.float32) * 0.25 - 3.0
    y = np.zeros(32, dtype=np.float32)
    run_function(m, "k", (2,), [x, y, 40, 1.5])
    return y


def test_pipeline_preserves_kernel_results():
    expected = run_kernel(parse_module(KERNEL))
    optimised = optimise(KERNEL)
    assert run_kernel(optimised).tobytes() == expected.tobytes()
    text = print_module(optimised)
    assert "tt.call" not in text and "@scale" not in text
    loop = next(op for op in optimised.walk() if op.name == "scf.for")
    assert len(loop.results) == 1, "the dead %done flag is removed"
    body = [op.name for op in loop.regions[0].block.ops]
    assert "tt.make_range" not in body and body.count("tt.splat") == 1  # only splat(%k) stays
    assert "arith.mulf" in body and text.count("tt.make_range") == 1  # the two ranges merged


def test_pipeline_reaches_a_fixpoint():
    once = print_module(optimise(KERNEL))
    twice = print_module(optimise(once))
    assert once == twice


def test_clone_op_is_deep_and_maps_values():
    m = parse_module(KERNEL)
    f = m.get_function("k")
    loop = next(op for op in f.walk() if op.name == "scf.for")
    value_map = {}
    copy = clone_op(loop, value_map)
    f.body.block.insert_after(loop, copy)
    verify_module(m)
    assert value_map[loop.results[0]] is copy.results[0]
    assert value_map[loop.regions[0].block.args[1]] is copy.regions[0].block.args[1]
    originals = list(loop.walk())
    copies = list(copy.walk())
    assert [o.name for o in originals] == [c.name for c in copies]
    assert not set(map(id, originals)) & set(map(id, copies))
    # Operands defined outside the loop are shared; those inside point into the copy.
    copied_load = next(op for op in copies if op.name == "tt.load")
    assert copied_load.operands[0].owner in copies
    assert copy.operands[0] is loop.operands[0]
    # Changing the copy's attributes leaves the original alone.
    copy.attrs["predicate"] = "sle"
    assert loop.attrs["predicate"] == "slt"


RECURSIVE = """module {
  tt.func @f(%x: i32) -> i32 attributes {device} {
    %y = tt.call %x {callee = "f"} : i32
    tt.return %y
  }
  tt.func @k(%p: ptr<i32>, %x: i32) attributes {kernel} {
    %y = tt.call %x {callee = "f"} : i32
    tt.store %p, %y
    tt.return
  }
}
"""


def test_inline_rejects_recursion_and_unknown_callees():
    with pytest.raises(InternalCompilerError, match="deeper than 8 levels through @f"):
        optimise(RECURSIVE, "inline{max-depth=8}")
    with pytest.raises(InternalCompilerError, match="calls @g, which is not a device function"):
        optimise(RECURSIVE.replace('{callee = "f"} : i32\n    tt.store', '{callee = "g"} : i32\n    tt.store'), "inline")


def test_dce_keeps_loops_with_effects_and_their_bounds():
    text = """module {
  tt.func @k(%p: ptr<i32>, %n: i32) attributes {kernel} {
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %unused = arith.addi %n, %n : i32
    scf.for %c0, %n, %c1 {predicate = "slt"} {
    ^(%i: i32):
      %q = tt.addptr %p, %i : ptr<i32>
      tt.store %q, %i
      scf.yield
    }
    tt.return
  }
}
"""
    m = optimise(text, "dce")
    names = [op.name for op in m.walk()]
    assert names == ["arith.constant", "arith.constant", "scf.for", "tt.addptr", "tt.store", "scf.yield", "tt.return"]


def test_licm_leaves_ops_using_loop_values():
    m = optimise(KERNEL, "inline,licm")
    loop = next(op for op in m.walk() if op.name == "scf.for")
    body = [op.name for op in loop.regions[0].block.ops]
    assert body[:2] == ["tt.splat", "arith.addi"]  # splat(%k) and %offs depend on the induction variable
    assert "tt.load" in body
