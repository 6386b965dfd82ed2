"""Structured control flow and calls: scf.for (negative step, sgt), scf.while, scf.if, tt.call."""
import numpy as np
import pytest

from interp_helpers import kernel, load_tile, run, store_tile
from tritonc.interpreter import InterpreterError


def test_for_negative_step_with_sgt_predicate():
    text = kernel("%y: ptr<i32>, %lb: i32, %st: i32", """
    %ub = arith.constant {value = 0} : i32
    %init = arith.constant {value = 0} : i32
    %n0 = arith.constant {value = 0} : i32
    %r:2 = scf.for %lb, %ub, %st, %init, %n0 {predicate = "sgt"} : i32, i32 {
    ^(%i: i32, %acc: i32, %n: i32):
      %a2 = arith.addi %acc, %i : i32
      %one = arith.constant {value = 1} : i32
      %n2 = arith.addi %n, %one : i32
      scf.yield %a2, %n2
    }
    tt.store %y, %r#0
    %c1 = arith.constant {value = 1} : i32
    %y1 = tt.addptr %y, %c1 : ptr<i32>
    tt.store %y1, %r#1""")
    y = np.zeros(2, np.int32)
    run(text, 1, y, 10, -3)
    assert y.tolist() == [10 + 7 + 4 + 1, 4]
    run(text, 1, y, -5, -1)  # zero trips: results are the inits
    assert y.tolist() == [0, 0]


def test_for_with_i64_bounds_and_unsigned_predicate():
    text = kernel("%y: ptr<i64>", """
    %lb = arith.constant {value = -4} : i64
    %ub = arith.constant {value = -1} : i64
    %st = arith.constant {value = 1} : i64
    %init = arith.constant {value = 0} : i64
    %r = scf.for %lb, %ub, %st, %init {predicate = "ult"} : i64 {
    ^(%i: i64, %acc: i64):
      %a2 = arith.addi %acc, %i : i64
      scf.yield %a2
    }
    tt.store %y, %r""")
    y = np.zeros(1, np.int64)
    run(text, 1, y)
    assert y[0] == -4 + -3 + -2  # as unsigned, 2^64-4 < 2^64-1


COLLATZ = kernel("%y: ptr<i32>, %start: i32", """
    %s0 = arith.constant {value = 0} : i32
    %res:2 = scf.while %start, %s0 : i32, i32 {
    ^(%n: i32, %s: i32):
      %one = arith.constant {value = 1} : i32
      %c = arith.cmpi %n, %one {predicate = "ne"} : i1
      scf.condition %c, %n, %s
    } {
    ^(%m: i32, %k: i32):
      %two = arith.constant {value = 2} : i32
      %zero = arith.constant {value = 0} : i32
      %rem = arith.remsi %m, %two : i32
      %even = arith.cmpi %rem, %zero {predicate = "eq"} : i1
      %next = scf.if %even : i32 {
        %h = arith.divsi %m, %two : i32
        scf.yield %h
      } {
        %three = arith.constant {value = 3} : i32
        %t = arith.muli %m, %three : i32
        %o = arith.constant {value = 1} : i32
        %t1 = arith.addi %t, %o : i32
        scf.yield %t1
      }
      %inc = arith.constant {value = 1} : i32
      %k1 = arith.addi %k, %inc : i32
      scf.yield %next, %k1
    }
    tt.store %y, %res#1""")


def test_while_and_if_with_results():
    y = np.zeros(1, np.int32)
    run(COLLATZ, 1, y, 27)
    assert y[0] == 111
    run(COLLATZ, 1, y, 1)  # condition false at once: the results are the forwarded values
    assert y[0] == 0


def test_loop_that_repeats_its_state_is_a_deadlock():
    text = kernel("%y: ptr<i32>", """
    %t = arith.constant {value = true} : i1
    scf.while {
      scf.condition %t
    } {
      %v = tt.load %y : i32
      scf.yield
    }""")
    with pytest.raises(InterpreterError, match=r"deadlock.*program \(0\) spins in scf.while"):
        run(text, 1, np.zeros(1, np.int32))


def test_loop_without_memory_progress_is_a_livelock():
    # Collatz from 0 stays at 0 while its step counter grows: no spin, but no progress either
    with pytest.raises(InterpreterError, match=r"livelock: 1000 scheduling points .* \(0\)"):
        run(COLLATZ, 1, np.zeros(1, np.int32), 0, max_quiet_steps=1000)


DEVICE = """  tt.func @clamp(%x: f32[8], %lo: f32, %hi: f32) -> f32[8] attributes {device} {
    %l = tt.splat %lo : f32[8]
    %h = tt.splat %hi : f32[8]
    %a = arith.maxnumf %x, %l : f32[8]
    %b = arith.minnumf %a, %h : f32[8]
    tt.return %b
  }
  tt.func @twice(%x: f32[8]) -> f32[8], f32 attributes {device} {
    %lo = arith.constant {value = -1.0} : f32
    %hi = arith.constant {value = 1.0} : f32
    %c = tt.call %x, %lo, %hi {callee = "clamp"} : f32[8]
    %d = arith.addf %c, %c : f32[8]
    %s = tt.reduce %d {axis = 0, combine = "addf"} : f32
    tt.return %d, %s
  }
"""


def test_call_of_device_functions_with_multiple_results():
    body = "\n".join([load_tile("%px", "f32", (8,), "x"),
                      "    %r:2 = tt.call %x {callee = \"twice\"} : f32[8], f32",
                      store_tile("%po", "f32", (8,), "%r#0"),
                      "    tt.store %ps, %r#1"])
    text = DEVICE + kernel("%px: ptr<f32>, %po: ptr<f32>, %ps: ptr<f32>", body)
    x = np.array([-3, -1, -0.5, 0, 0.25, 1, 2, 9], np.float32)
    o = np.zeros(8, np.float32)
    s = np.zeros(1, np.float32)
    run(text, 1, x, o, s)
    assert o.tolist() == (2 * np.clip(x, -1, 1)).tolist() and s[0] == (2 * np.clip(x, -1, 1)).sum()


def test_op_without_semantics_is_reported():
    text = kernel("%y: ptr<i32>", """
    %v = tt.call {callee = "missing"} : i32
    tt.store %y, %v""")
    with pytest.raises(InterpreterError, match="call of unknown function @missing"):
        run(text, 1, np.zeros(1, np.int32), verify=False)
