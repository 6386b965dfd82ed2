"""The generic data-flow solver on small lattices: constants, signs, intervals (with widening), liveness."""
from __future__ import annotations

import math

from tritonc.analysis.dataflow import (BackwardProblem, DenseForwardProblem, ForwardProblem, solve_backward,
                                      solve_dense_forward, solve_forward)
from tritonc.ir.core import Block, Function, Operation, Value
from tritonc.ir.parser import parse_module
from tritonc.ir.folding import fold


def values_by_name(f: Function) -> dict[str, Value]:
    """Every named value of ``f`` (parameters, results, block arguments) by its name hint."""
    named = {a.name: a for a in f.args}
    for op in f.walk():
        named.update({r.name: r for r in op.results if r.name})
        for region in op.regions:
            named.update({a.name: a for a in region.block.args if a.name})
    return named


def parse_function(text: str) -> Function:
    return parse_module("module {\n" + text + "\n}\n").functions[0]


# --- constant propagation: bottom (None) < constant ("const", v) < TOP -------------------------

TOP = "top"


class ConstantPropagation(ForwardProblem):
    def initial(self, value):
        return None

    def entry(self, arg):
        return TOP

    def join(self, a, b):
        if a is None:
            return b
        if b is None or a == b:
            return a
        return TOP

    def transfer(self, op, operand_facts):
        if op.name == "arith.constant":
            return [("const", op.attrs["value"])]
        if any(f is None for f in operand_facts):
            return [None] * len(op.results)
        if any(f == TOP for f in operand_facts):
            return [TOP] * len(op.results)
        result = fold(op.name, op.attrs, [v.type for v in op.operands], op.result.type, [f[1] for f in operand_facts])
        return [TOP if result is None else ("const", result)]


LOOPS = """
  tt.func @loops(%n: i32, %c: i1) -> i32, i32, i32, i32, i32 attributes {device} {
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    %five = arith.constant {value = 5} : i32
    %r:2 = scf.for %zero, %n, %one, %five, %zero {predicate = "slt"} : i32, i32 {
    ^(%k: i32, %same: i32, %count: i32):
      %same2 = arith.muli %same, %one : i32
      %count2 = arith.addi %count, %one : i32
      scf.yield %same2, %count2
    }
    %w = scf.while %five : i32 {
    ^(%i: i32):
      %go = arith.cmpi %i, %n {predicate = "slt"} : i1
      scf.condition %go, %i
    } {
    ^(%j: i32):
      %j2 = arith.addi %j, %zero : i32
      scf.yield %j2
    }
    %s = scf.if %c : i32 {
      %t = arith.addi %one, %one : i32
      scf.yield %t
    } {
      %e = arith.constant {value = 2} : i32
      scf.yield %e
    }
    %u = scf.if %c : i32 {
      scf.yield %one
    } {
      scf.yield %zero
    }
    tt.return %r#0, %r#1, %w, %s, %u
  }
"""


def test_constant_propagation_through_loops_and_ifs():
    f = parse_function(LOOPS)
    result = solve_forward(ConstantPropagation(), f)
    v = values_by_name(f)
    ret = f.body.block.terminator
    assert result[v["n"]] == TOP
    assert result[v["k"]] == TOP  # induction variable: unknown by default
    assert result[v["same"]] == ("const", 5) and result[ret.operands[0]] == ("const", 5)
    assert result[v["count"]] == TOP and result[ret.operands[1]] == TOP
    assert result[v["j"]] == ("const", 5) and result[ret.operands[2]] == ("const", 5)
    assert result[ret.operands[3]] == ("const", 2)  # both branches yield 2
    assert result[ret.operands[4]] == TOP


# --- signs: a set of possible signs {-1, 0, 1} (a powerset lattice) ----------------------------

class Signs(ForwardProblem):
    def initial(self, value):
        return frozenset()

    def entry(self, arg):
        return frozenset({-1, 0, 1})

    def join(self, a, b):
        return a | b

    def transfer(self, op, operand_facts):
        if op.name == "arith.constant":
            value = op.attrs["value"]
            return [frozenset({(value > 0) - (value < 0)})]
        if op.name == "arith.muli":
            a, b = operand_facts
            return [frozenset(x * y for x in a for y in b)]
        if op.name == "arith.addi":
            a, b = operand_facts
            return [frozenset(s for x in a for y in b for s in ({x} if x == y or y == 0 else {y} if x == 0 else {-1, 0, 1}))]
        return [frozenset({-1, 0, 1})] * len(op.results)


def test_sign_of_a_loop_carried_square_is_never_zero():
    f = parse_function("""
  tt.func @signs(%n: i32) -> i32, i32 attributes {device} {
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    %m1 = arith.constant {value = -1} : i32
    %r:2 = scf.for %zero, %n, %one, %m1, %one {predicate = "slt"} : i32, i32 {
    ^(%k: i32, %s: i32, %p: i32):
      %s2 = arith.muli %s, %s : i32
      %p2 = arith.addi %p, %one : i32
      scf.yield %s2, %p2
    }
    tt.return %r#0, %r#1
  }""")
    result = solve_forward(Signs(), f)
    v = values_by_name(f)
    assert result[v["s"]] == {-1, 1}
    assert result[v["p"]] == {1}
    ret = f.body.block.terminator
    assert result[ret.operands[0]] == {-1, 1} and result[ret.operands[1]] == {1}


# --- intervals with widening and an induction-variable hook ------------------------------------

class Intervals(ForwardProblem):
    """Facts are ``(lo, hi)`` with infinite ends allowed, or None (bottom)."""

    def initial(self, value):
        return None

    def entry(self, arg):
        return (-math.inf, math.inf)

    def join(self, a, b):
        if a is None or b is None:
            return a or b
        return (min(a[0], b[0]), max(a[1], b[1]))

    def widen(self, old, new):
        if old is None or new is None:
            return new
        return (old[0] if new[0] >= old[0] else -math.inf, old[1] if new[1] <= old[1] else math.inf)

    def induction(self, loop, lower, upper, step):
        if lower is None or upper is None:
            return None
        return (lower[0], upper[1] - 1)

    def transfer(self, op, facts):
        if op.name == "arith.constant":
            return [(op.attrs["value"], op.attrs["value"])]
        if any(f is None for f in facts):
            return [None]
        if op.name == "arith.addi":
            return [(facts[0][0] + facts[1][0], facts[0][1] + facts[1][1])]
        if op.name == "arith.subi":
            return [(facts[0][0] - facts[1][1], facts[0][1] - facts[1][0])]
        return [(-math.inf, math.inf)]


def test_intervals_widen_at_loop_heads():
    f = parse_function("""
  tt.func @ranges() -> i32, i32 attributes {device} {
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    %sixteen = arith.constant {value = 16} : i32
    %r = scf.for %zero, %sixteen, %one, %zero {predicate = "slt"} : i32 {
    ^(%k: i32, %acc: i32):
      %acc2 = arith.addi %acc, %one : i32
      %twice = arith.addi %k, %k : i32
      scf.yield %acc2
    }
    %below = arith.subi %r, %one : i32
    tt.return %r, %below
  }""")
    result = solve_forward(Intervals(), f)
    v = values_by_name(f)
    assert result[v["k"]] == (0, 15)
    assert result[v["twice"]] == (0, 30)
    assert result[v["acc"]] == (0, math.inf)  # widened: the fixpoint is reached in a few steps
    assert result[v["below"]] == (-1, math.inf)


def test_solver_does_not_change_the_ir():
    f = parse_function(LOOPS)
    from tritonc.ir.printer import print_module
    from tritonc.ir.core import Module
    m = Module([f])
    before = print_module(m)
    solve_forward(ConstantPropagation(), m)
    assert print_module(m) == before


# --- dense backward: liveness of SSA values ----------------------------------------------------

class Liveness(BackwardProblem):
    def bottom(self):
        return frozenset()

    def join(self, a, b):
        return a | b

    def transfer(self, op: Operation, after):
        return (after - set(op.results)) | set(op.operands)

    def enter_block(self, block: Block, state):
        return state - set(block.args)

    def exit_region(self, op: Operation, after):
        return after - set(op.results)


def test_liveness_around_loops():
    f = parse_function("""
  tt.func @live(%p: ptr<i32>, %x: i32, %n: i32) attributes {kernel} {
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    %early = arith.addi %x, %x : i32
    tt.store %p, %early
    %r = scf.for %zero, %n, %one, %zero {predicate = "slt"} : i32 {
    ^(%k: i32, %acc: i32):
      %first = arith.addi %acc, %x : i32
      %last = arith.muli %first, %k : i32
      scf.yield %last
    }
    %w = scf.while %r : i32 {
    ^(%i: i32):
      %go = arith.cmpi %i, %n {predicate = "slt"} : i1
      scf.condition %go, %i
    } {
    ^(%j: i32):
      %j2 = arith.addi %j, %one : i32
      scf.yield %j2
    }
    tt.store %p, %w
    tt.return
  }""")
    result = solve_backward(Liveness(), f)
    v = values_by_name(f)
    ops = {op.results[0].name: op for op in f.walk() if op.results and op.results[0].name}
    loop = v["r"].owner
    last = ops["last"]
    # %x is read at the top of the body, so the back edge keeps it live after the body's last op.
    assert v["x"] in result.after(last) and v["x"] in result.before(loop)
    # %early is dead once stored; %last is live only until the yield.
    assert v["early"] not in result.before(loop)
    assert v["last"] in result.after(last)
    assert v["acc"] not in result.after(last)
    # the loop's result is live between the loops, not inside the 'for' body (before it is defined).
    assert v["r"] in result.after(loop) and v["r"] not in result.after(last)
    # %n (the 'while' condition bound) and %one (used in 'after') stay live across the while's regions.
    go = ops["go"]
    j2 = ops["j2"]
    assert {v["n"], v["one"]} <= result.after(j2) and v["one"] in result.after(go)
    assert v["w"] not in result.before(v["w"].owner)


# --- dense forward: the ops run since the last barrier (the shape of insert-barriers' problem) ----

class SinceBarrier(DenseForwardProblem):
    def bottom(self):
        return frozenset()

    def join(self, a, b):
        return a | b

    def transfer(self, op: Operation, before):
        if op.name == "gpu.barrier":
            return frozenset()
        return before | {r.name for r in op.results if r.name}


def test_dense_forward_joins_branches_and_iterates_loops():
    f = parse_function("""
  tt.func @since(%p: ptr<i32>, %c: i1, %n: i32) attributes {kernel} {
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    gpu.barrier
    %r = scf.for %zero, %n, %one, %zero {predicate = "slt"} : i32 {
    ^(%k: i32, %acc: i32):
      %top = arith.addi %acc, %k : i32
      %s = scf.if %c : i32 {
        gpu.barrier
        %t = arith.addi %top, %one : i32
        scf.yield %t
      } {
        %e = arith.muli %top, %top : i32
        scf.yield %e
      }
      scf.yield %s
    }
    %w = scf.while %r : i32 {
    ^(%i: i32):
      %go = arith.cmpi %i, %n {predicate = "slt"} : i1
      scf.condition %go, %i
    } {
    ^(%j: i32):
      %j2 = arith.addi %j, %one : i32
      scf.yield %j2
    }
    tt.store %p, %w
    tt.return
  }""")
    result = solve_dense_forward(SinceBarrier(), f)
    ops = {op.results[0].name: op for op in f.walk() if op.results and op.results[0].name}
    # After the if: the join of the then path ('t' since its barrier) and the else path ('top'
    # and 'e'): a barrier in one branch does not clear the join. Ops with regions have no
    # transfer of their own ('s' is not added).
    assert result.after(ops["s"]) == {"e", "t", "top"}
    # At the top of the body: the entry (nothing since the barrier) joined with the end of a trip.
    assert result.before(ops["top"]) == {"e", "t", "top"}
    assert result.before(ops["t"]) == set()
    # The loop exits from its head: what a trip leaves, or nothing for zero trips.
    assert result.after(ops["r"]) == {"e", "t", "top"}
    # scf.while: the 'after' region feeds 'before' again; the exit comes from 'before'.
    assert result.before(ops["go"]) == {"e", "t", "top", "go", "j2"}
    assert result.after(ops["w"]) == result.after(ops["go"])
